"""Validation of every caller-supplied parameter, before any Numba code runs.

Each check raises :class:`~objsub_fast.runtime.errors.ParameterError` (a ``ValueError``) naming the
parameter and the allowed range.

Lengths scale with the canvas: the scene is decided in 256 units (``objsub_fast.task.units``: the
canvas scaled so that its shorter side is 256) with every length of the scene model (object
sizes, spacing, edge margin, order and size gaps) at its 256 px value, and then scaled by
min(W, H) / 256 for drawing. :class:`Lengths` gives those lengths in pixels of one canvas,
rounded half up (at least 1 px): the outline width drawn, and the lengths messages quote; the
guarantees hold in whole pixels, rounded up (``units.whole_pixels``). A
1024x1024 task is the 256 task at four times the resolution; at min(W, H) = 256 nothing changes.
A caller's ``object_size`` is in pixels; the scene draws the whole-unit sizes whose pixel sizes
lie in it.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field

import numpy as np

from ..runtime.errors import ParameterError
from .units import (REFERENCE_SIDE, scale_factor, to_pixels, unit_canvas, unit_size_range,
                    whole_pixels)
from .vocabulary import (ATTRIBUTE, CLASSIC, EDGE_MARGIN, ENUMERATE, KINDS, LEVEL_KINDS, LEVELS,
                         MIN_SPACING, ODDITY, ORDER_GAP, OUTLINE_WIDTH, REGION, REGIONS,
                         SHAPE_TABLE, SIZE, SIZE_GAP, SIZE_RANGE, LOOKS, Vocabulary, parse_colors,
                         parse_shape_names, parse_shapes, parse_prompt_variants)

__all__ = [
    "Config", "Lengths", "make_config", "check_seeds", "check_levels", "check_canvas",
    "check_range", "check_look", "check_weights", "check_vocabulary", "is_classic", "check_out", "scale_lengths",
    "default_object_size", "parse_range", "parse_kind_weights", "active_kinds",
    "MAX_SEED", "MIN_SIDE", "MAX_SIDE", "MIN_OBJECTS", "DEFAULT_OBJECTS", "DEFAULT_SIZE", "MAX_OBJECTS", "MAX_COVERAGE",
]

MAX_SEED = 2**63 - 1
#: Fewest objects each level can build a valid task with (L2 lists up to 3 of >= 4 distinct
#: pairs; L4 needs two groups of two besides the odd object).
MIN_OBJECTS = {"L1": 2, "L2": 4, "L3": 2, "L4": 5}
DEFAULT_OBJECTS = {"L1": (5, 8), "L2": (5, 8), "L3": (5, 8), "L4": (6, 8)}
DEFAULT_SIZE = (20, 40)
MAX_OBJECTS = 254  # instance maps are uint8 with 0 for background
#: Random sequential placement stays reliable while the objects, each with its spacing, cover at
#: most this share of the usable canvas at the mean object size (random sequential adsorption
#: of squares jams near 0.56; the default 8 objects of 20-40 px on 256 px use 0.21).
MAX_COVERAGE = 0.4
#: The shortest canvas side: the scene is built at 256 units and scaled; below 64 px (a quarter
#: of a unit per pixel) rounding could close the 10-unit spacing between two objects.
MIN_SIDE = 64
#: The longest canvas side of one batch held in memory (a 8192x8192 frame is 192 MiB).
MAX_SIDE = 8192


@dataclass(frozen=True)
class Lengths:
    """The scene model's lengths in pixels for one canvas, rounded (see the module docstring);
    ``Lengths()`` are the 256 px values, the lengths of the 256-unit scene."""

    edge: int = EDGE_MARGIN
    spacing: int = MIN_SPACING
    order_gap: int = ORDER_GAP
    size_gap: int = SIZE_GAP
    size_range: int = SIZE_RANGE
    outline: int = OUTLINE_WIDTH

    def kernel_array(self) -> np.ndarray:
        """(edge, spacing, order_gap, size_gap, size_range) as int64; the scene kernel takes
        the 256 px ones, ``Lengths().kernel_array()``, as its 256 units."""
        return np.array([self.edge, self.spacing, self.order_gap, self.size_gap,
                         self.size_range], np.int64)


def _scaled(value: int, width: int, height: int) -> int:
    """``value`` (a length at 256 px) scaled by min(W, H)/256, rounded half up, at least 1."""
    if min(width, height) == REFERENCE_SIDE:
        return value
    return max(1, math.floor(value * min(width, height) / REFERENCE_SIDE + 0.5))


def scale_lengths(width: int, height: int) -> Lengths:
    """The scene model's lengths for a (width, height) canvas.

    Examples
    --------
    >>> scale_lengths(256, 256) == Lengths()
    True
    >>> scale_lengths(1024, 1024)
    Lengths(edge=40, spacing=40, order_gap=40, size_gap=48, size_range=60, outline=8)
    """
    return Lengths(*(_scaled(v, width, height) for v in Lengths().__dict__.values()))


def default_object_size(width: int, height: int) -> tuple:
    """The default object size range, (20, 40) at 256 px, scaled with the canvas.

    Examples
    --------
    >>> default_object_size(1024, 1024), default_object_size(300, 256)
    ((80, 160), (20, 40))
    """
    return tuple(_scaled(v, width, height) for v in DEFAULT_SIZE)


@dataclass(frozen=True)
class Config:
    """A validated engine configuration (everything but the seeds)."""

    width: int
    height: int
    object_counts: dict  # level -> (lo, hi)
    size_range: tuple
    cumulative_weights: np.ndarray  # (levels, kinds) cumulative probability per level
    vocabulary: Vocabulary = CLASSIC
    prompt_variants: int = 1
    lengths: Lengths = field(default_factory=Lengths)
    #: The object sizes the scene draws, in whole 256 units (``size_range`` is their pixels).
    unit_size_range: tuple = DEFAULT_SIZE
    #: How objects are drawn: "flat" (outlined polygons) or "solid" (lit solids), ``LOOKS``.
    look: str = "flat"

    @property
    def scale(self) -> float:
        """Pixels per 256 unit: min(W, H) / 256."""
        return scale_factor(self.width, self.height)

    @property
    def unit_canvas(self) -> tuple:
        """The canvas (width, height) in 256 units (``objsub_fast.task.units.unit_canvas``)."""
        return unit_canvas(self.width, self.height)

    @property
    def max_objects(self) -> int:
        return max(hi for _, hi in self.object_counts.values())

    @property
    def classic(self) -> bool:
        """True for the classic vocabulary with the exact original prompts (records then carry
        no vocabulary; see ``_version.generator_version``)."""
        return self.vocabulary.is_classic and self.prompt_variants == 1


def check_seeds(seeds) -> np.ndarray:
    """Return ``seeds`` as an int64 array; reject empty, negative, non-integer or too large."""
    if isinstance(seeds, (str, bytes)) or not hasattr(seeds, "__len__"):
        raise ParameterError("seeds must be a sequence of integers in [0, 2**63-1]")
    if len(seeds) == 0:
        raise ParameterError("seeds must not be empty: pass at least one integer in [0, 2**63-1]")
    arr = np.asarray(seeds)
    if arr.ndim != 1:
        raise ParameterError(f"seeds must be one-dimensional, got shape {arr.shape}")
    if arr.dtype.kind in "iu":
        if arr.dtype.kind == "i" and arr.min() < 0:
            raise ParameterError(f"seeds must be in [0, 2**63-1]; got {int(arr.min())}")
        if arr.dtype.kind == "u" and arr.max() > MAX_SEED:
            raise ParameterError(f"seeds must be in [0, 2**63-1]; got {int(arr.max())}")
        return arr.astype(np.int64)
    for s in seeds:
        if isinstance(s, bool) or not isinstance(s, numbers.Integral):
            raise ParameterError(f"seeds must be integers in [0, 2**63-1]; got {s!r}")
        if not 0 <= int(s) <= MAX_SEED:
            raise ParameterError(f"seeds must be in [0, 2**63-1]; got {int(s)}")
    return np.array([int(s) for s in seeds], dtype=np.int64)


def check_levels(level, count: int) -> np.ndarray:
    """Return one level code per seed from a level name or a sequence of them."""
    names = [level] * count if isinstance(level, str) else list(level)
    if len(names) != count:
        raise ParameterError(f"level must be one of {LEVELS} or a sequence of {count} of them "
                         f"(one per seed); got a sequence of {len(names)}")
    codes = np.empty(count, dtype=np.int8)
    lookup = {name: i for i, name in enumerate(LEVELS)}
    for i, name in enumerate(names):
        if name not in lookup:
            raise ParameterError(f"level must be one of {LEVELS}; got {name!r}")
        codes[i] = lookup[name]
    return codes


def check_canvas(canvas_size) -> tuple[int, int]:
    """Return (W, H) from an int or a pair of ints, each side in [MIN_SIDE, MAX_SIDE] (the one
    canvas range of the engine and the scorer).

    Examples
    --------
    >>> check_canvas(256), check_canvas((320, 200))
    ((256, 256), (320, 200))
    >>> check_canvas(32)
    Traceback (most recent call last):
    ...
    objsub_fast.runtime.errors.ParameterError: canvas_size must be in [64, 8192] on each side (the scene is built at 256 px and scaled; below 64 px its 10 px spacing could round away); got (32, 32)
    """
    pair = _pair(canvas_size)
    if pair is None or len(pair) != 2 or not all(_is_int(v) for v in pair):
        raise ParameterError("canvas_size must be an int or a (width, height) pair; "
                         f"got {canvas_size!r}")
    w, h = (int(v) for v in pair)
    if not (MIN_SIDE <= w <= MAX_SIDE and MIN_SIDE <= h <= MAX_SIDE):
        raise ParameterError(f"canvas_size must be in [{MIN_SIDE}, {MAX_SIDE}] on each side (the "
                             f"scene is built at 256 px and scaled; below {MIN_SIDE} px its 10 px "
                             f"spacing could round away); got {(w, h)}")
    return w, h


def check_range(name: str, value, low: int, high: int) -> tuple[int, int]:
    """Return ``value`` as an int pair (lo, hi) with low <= lo <= hi <= high."""
    pair = _pair(value)
    if pair is None or len(pair) != 2 or not all(_is_int(v) for v in pair):
        raise ParameterError(f"{name} must be an int or a (min, max) pair of ints; got {value!r}")
    lo, hi = int(pair[0]), int(pair[1])
    if lo > hi:
        raise ParameterError(f"{name} range is empty: min {lo} > max {hi}")
    if lo < low or hi > high:
        raise ParameterError(f"{name} must lie in [{low}, {high}]; got ({lo}, {hi})")
    return lo, hi


def check_weights(kind_weights, used_levels) -> np.ndarray:
    """Return cumulative kind probabilities, one row per level (uniform when not given).

    ``kind_weights`` maps a level to ``{kind name: weight}``; when one level is used, the inner
    mapping alone is accepted too. Kinds left out of a given mapping get weight 0.
    """
    width = max(len(k) for k in LEVEL_KINDS.values())
    weights = np.zeros((len(LEVELS), width))
    for li, lv in enumerate(LEVELS):
        weights[li, : len(LEVEL_KINDS[lv])] = 1.0
    if kind_weights is not None:
        if not isinstance(kind_weights, dict):
            raise ParameterError("kind_weights must be a dict {level: {kind: weight}}")
        if not any(isinstance(v, dict) for v in kind_weights.values()):
            if len(used_levels) != 1:
                raise ParameterError("kind_weights must be keyed by level (one of "
                                     f"{LEVELS}) when seeds span several levels")
            kind_weights = {used_levels[0]: kind_weights}
        unknown_levels = [lv for lv in kind_weights if lv not in LEVELS]
        if unknown_levels:
            raise ParameterError(f"kind_weights names unknown level(s) {unknown_levels}; "
                                 f"allowed: {list(LEVELS)}")
        for lv, table in kind_weights.items():
            li = LEVELS.index(lv)
            names = [KINDS[c].name for c in LEVEL_KINDS[lv]]
            unknown = set(table) - set(names)
            if unknown:
                raise ParameterError(f"kind_weights[{lv!r}] names unknown kinds {sorted(unknown)}; "
                                 f"allowed: {names}")
            if not isinstance(table, dict):
                raise ParameterError(f"kind_weights[{lv!r}] must be a dict {{kind: weight}}; "
                                     f"got {table!r}")
            try:
                row = np.array([float(table.get(n, 0.0)) for n in names])
            except (TypeError, ValueError):
                raise ParameterError(f"kind_weights[{lv!r}] weights must be numbers; "
                                     f"got {dict(table)}") from None
            if not np.all(np.isfinite(row)) or np.any(row < 0) or row.sum() <= 0:
                raise ParameterError(f"kind_weights[{lv!r}] must be finite, >= 0, with a positive "
                                 f"sum; got {dict(table)}")
            weights[li, :] = 0.0
            weights[li, : len(row)] = row
    cumulative = np.cumsum(weights, axis=1) / weights.sum(axis=1, keepdims=True)
    cumulative[:, -1] = 1.0
    return cumulative


def check_vocabulary(vocabulary, colors, shapes, shape_names) -> Vocabulary:
    """The batch's :class:`Vocabulary`: a preset name or object, with ``colors``/``shapes``
    (names, or None for the preset's) and ``shape_names`` ("solid"/"flat") applied on top."""
    from .vocabulary import PRESETS
    if isinstance(vocabulary, str):
        if vocabulary not in PRESETS:
            raise ParameterError(f"vocabulary must be one of {list(PRESETS)} or a Vocabulary; "
                                 f"got {vocabulary!r}")
        vocabulary = PRESETS[vocabulary]
    elif not isinstance(vocabulary, Vocabulary):
        raise ParameterError(f"vocabulary must be one of {list(PRESETS)} or a Vocabulary; "
                             f"got {vocabulary!r}")
    shape_codes = vocabulary.shapes if shapes is None else parse_shapes(shapes, "shapes")
    if (not shape_codes or len(set(shape_codes)) != len(shape_codes)
            or not all(_is_int(h) and 0 <= h < len(SHAPE_TABLE) for h in shape_codes)):
        raise ParameterError(f"vocabulary shapes must be distinct codes in [0, "
                             f"{len(SHAPE_TABLE) - 1}]; got {shape_codes!r}")
    return Vocabulary(
        parse_colors(vocabulary.colors if colors is None else colors, "colors"),
        tuple(int(h) for h in shape_codes),
        parse_shape_names(vocabulary.shape_names if shape_names is None else shape_names,
                          "shape_names"))


def is_classic(vocabulary="classic", colors=None, shapes=None, shape_names=None,
               prompt_variants=1) -> bool:
    """Whether ``generate_batch`` options (the same names and values) give the classic
    vocabulary with the exact prompts: the ``classic`` argument of
    ``_version.generator_version``.

    Examples
    --------
    >>> is_classic(), is_classic(colors="red,green,blue,yellow,orange,purple")
    (True, True)
    >>> is_classic("extended"), is_classic(shape_names="flat"), is_classic(prompt_variants=2)
    (False, False, False)
    """
    vocab = check_vocabulary(vocabulary, colors, shapes, shape_names)
    return vocab.is_classic and parse_prompt_variants(prompt_variants, "prompt_variants") == 1


def check_look(look, name: str = "look") -> str:
    """``look`` if it is one of ``vocabulary.LOOKS``, else a ParameterError naming them.

    Examples
    --------
    >>> check_look("solid")
    'solid'
    """
    if not isinstance(look, str) or look not in LOOKS:
        raise ParameterError(f"{name} must be one of {', '.join(LOOKS)}, got {look!r}")
    return look


def make_config(level_codes, canvas_size, num_objects, object_size, kind_weights,
                vocabulary=CLASSIC, prompt_variants=1, look="flat") -> Config:
    """Validate everything but the seeds and return a :class:`Config`.

    ``object_size=None`` takes the default (20, 40) at 256 px, scaled with the canvas; a given
    ``object_size`` (pixels) is turned into the whole-unit sizes whose pixels lie in it.
    """
    width, height = check_canvas(canvas_size)
    used = [LEVELS[c] for c in sorted(set(level_codes.tolist()))]
    lengths = scale_lengths(width, height)
    given_size = object_size
    if object_size is None:
        object_size = default_object_size(width, height)  # at least (5, 10): MIN_SIDE is 64
    s_lo, s_hi = check_range("object_size", object_size, 4, 4096)
    units = DEFAULT_SIZE if given_size is None else unit_size_range((s_lo, s_hi), width, height)
    scale = scale_factor(width, height)
    if units is None:
        raise ParameterError(f"object_size ({s_lo}, {s_hi}) holds no size of the 256 px scene "
                             f"scaled to canvas_size {(width, height)} (sizes are whole 256 px "
                             f"units times {scale:g} px); widen it to span {math.ceil(scale)} px")
    if num_objects is not None:
        _check_num_objects(num_objects, used, (width, height), units, (s_lo, s_hi))
    counts = {}
    for lv in used:
        wanted = DEFAULT_OBJECTS[lv] if num_objects is None else num_objects
        counts[lv] = check_range(f"num_objects (for {lv})", wanted, MIN_OBJECTS[lv], MAX_OBJECTS)
    cumulative = check_weights(kind_weights, used)
    variants = parse_prompt_variants(prompt_variants, "prompt_variants")
    config = Config(width, height, counts, tuple(int(to_pixels(u, scale)) for u in units),
                    cumulative, vocabulary, variants, lengths, units, check_look(look))
    _check_geometry(config, used, (s_lo, s_hi))
    _check_vocabulary_fits(config, used)
    return config


def active_kinds(config: Config, level: str):
    """Yield the kinds of ``level`` that have a positive weight."""
    row = np.diff(config.cumulative_weights[LEVELS.index(level)], prepend=0.0)
    for col, code in enumerate(LEVEL_KINDS[level]):
        if row[col] > 0:
            yield KINDS[code]


def _capacity(width: int, height: int, unit_sizes) -> int:
    """How many objects of ``unit_sizes`` (256 units) fit a (width, height) canvas reliably
    (``MAX_COVERAGE``), judged on its 256-unit scene."""
    unit_w, unit_h = unit_canvas(width, height)
    edge, spacing = Lengths().edge, Lengths().spacing
    usable_area = (unit_w - 2 * edge + spacing) * (unit_h - 2 * edge + spacing)
    return int(MAX_COVERAGE * usable_area / ((unit_sizes[0] + unit_sizes[1]) / 2 + spacing) ** 2)


def _check_num_objects(num_objects, used, canvas, unit_sizes, object_size) -> None:
    """One message with the whole allowed range of ``num_objects`` for every level used: the
    largest level minimum, and the smaller of ``MAX_OBJECTS`` and what fits the canvas."""
    pair = _pair(num_objects)
    if pair is None or len(pair) != 2 or not all(_is_int(v) for v in pair) or pair[0] > pair[1]:
        return  # check_range names the malformed value
    low = max(MIN_OBJECTS[lv] for lv in used)
    high = min(MAX_OBJECTS, _capacity(*canvas, unit_sizes))
    if low <= high and not low <= pair[0] <= pair[1] <= high:
        needs = max(used, key=lambda lv: MIN_OBJECTS[lv])
        why = [f"{needs} needs at least {low}"] if low > 2 else []
        why += ([f"at most {high} objects of {object_size[0]}-{object_size[1]} px fit a "
                 f"{canvas[0]}x{canvas[1]} canvas"] if high < MAX_OBJECTS
                else [f"at most {MAX_OBJECTS}"])
        raise ParameterError(f"num_objects must lie in [{low}, {high}] for level(s) "
                             f"{','.join(used)} ({'; '.join(why)}); got {tuple(pair)}")


def _check_geometry(config: Config, used_levels, object_size) -> None:
    """Reject canvases too small for the object count and sizes, and impossible kinds: judged on
    the 256-unit scene the kernel builds, reported in pixels (``object_size`` as given)."""
    w, h = config.width, config.height
    unit_w, unit_h = config.unit_canvas
    s_lo, s_hi = config.unit_size_range
    edge = Lengths().edge
    usable = min(unit_w, unit_h) - 2 * edge
    if s_hi > usable:
        raise ParameterError(f"object_size max {object_size[1]} does not fit canvas_size {(w, h)}: "
                             f"it must be <= {to_pixels(usable, config.scale)} (canvas minus "
                             f"{config.lengths.edge} px margins)")
    capacity = _capacity(w, h, config.unit_size_range)
    for lv in used_levels:
        n_hi = config.object_counts[lv][1]
        if n_hi > capacity:
            raise ParameterError(f"num_objects max {n_hi} (for {lv}) is too many for canvas_size "
                                 f"{(w, h)} and object_size max {object_size[1]}: at most "
                                 f"{capacity} fit reliably; use a larger canvas, smaller objects "
                                 "or fewer objects")
        for kind in active_kinds(config, lv):
            # The sizes' span in units, and in the whole pixels their rounded sizes keep.
            span_px = config.size_range[1] - config.size_range[0]
            if kind.family == SIZE and (s_hi - s_lo < Lengths().size_range
                                        or span_px < whole_pixels(Lengths().size_range, w, h)):
                raise ParameterError(f"object_size range {tuple(object_size)} is narrower than the "
                                     f"{whole_pixels(Lengths().size_range, w, h)} px that size "
                                     f"rule '{kind.name}' needs; widen it or give that kind "
                                     "weight 0 in kind_weights")
            if kind.family == REGION:
                for name, (x0, x1, y0, y1) in REGIONS[kind.param: kind.param + kind.variants]:
                    room = min((x1 - x0) * unit_w, (y1 - y0) * unit_h) - edge
                    if room < s_lo:
                        raise ParameterError(
                            f"canvas_size {(w, h)} leaves {room * config.scale:.0f} px in the "
                            f"'{name}' region, less than object_size min {object_size[0]} "
                            f"(rule '{kind.name}')")


def parse_range(text: str, option: str) -> tuple:
    """``"5-8"`` (or ``"7"``) as the pair (5, 8), for ``--num-objects``/``--object-size``;
    the range itself is checked by :func:`make_config`.

    Examples
    --------
    >>> parse_range("5-8", "--num-objects"), parse_range("7", "--num-objects")
    ((5, 8), (7, 7))
    """
    parts = str(text).split("-")
    if len(parts) not in (1, 2) or not all(p.strip().isdigit() for p in parts):
        raise ParameterError(f"{option} must be MIN-MAX or one number (e.g. 5-8); got {text!r}")
    lo, hi = int(parts[0]), int(parts[-1])
    return lo, hi


def parse_kind_weights(text: str, option: str = "--kind-weights") -> dict:
    """``"L1:color=2,shape=1;L3:quadrant=0"`` as ``{level: {kind: weight}}``; levels and kinds
    are checked here (unknown level, unknown kind, bad number), weights again by
    :func:`make_config`.

    Examples
    --------
    >>> parse_kind_weights("L1:color=2,shape=1;L3:quadrant=0")
    {'L1': {'color': 2.0, 'shape': 1.0}, 'L3': {'quadrant': 0.0}}
    """
    table = {}
    for part in str(text).split(";"):
        level, sep, items = part.partition(":")
        level = level.strip()
        if not sep or level not in LEVELS:
            raise ParameterError(f"{option}: {part!r} must be LEVEL:kind=weight,... with LEVEL "
                                 f"one of {list(LEVELS)}")
        names = [KINDS[c].name for c in LEVEL_KINDS[level]]
        row = {}
        for item in items.split(","):
            name, eq, weight = item.partition("=")
            name = name.strip()
            if name not in names:
                raise ParameterError(f"{option}: {name!r} is not a rule kind of {level}; "
                                     f"allowed: {names}")
            try:
                row[name] = float(weight)
            except ValueError:
                raise ParameterError(f"{option}: weight of {level}:{name} must be a number; "
                                     f"got {weight!r}") from None
            if not eq or not math.isfinite(row[name]) or row[name] < 0:
                raise ParameterError(f"{option}: weight of {level}:{name} must be a finite "
                                     f"number >= 0; got {weight!r}")
        table[level] = row
    return table


def _vocabulary_needs(kind) -> tuple:
    """(colours, shapes, distinct pairs) a rule kind needs at least: an attribute rule two
    values of its attribute (one removed, one kept), an enumeration its listed pairs and one
    more, an odd-one-out two colours and two shapes."""
    if kind.family == ATTRIBUTE:
        return (2, 1, 1) if kind.param == 0 else (1, 2, 1)
    if kind.family == ENUMERATE:
        return (1, 1, kind.param + 1)
    if kind.family == ODDITY:
        return (2, 2, 1)
    return (1, 1, 1)


def _check_vocabulary_fits(config: Config, used_levels) -> None:
    """Refuse vocabularies some active rule kind cannot build a valid task with."""
    n_colors = len(config.vocabulary.colors)
    n_shapes = len(config.vocabulary.shapes)
    for lv in used_levels:
        for kind in active_kinds(config, lv):
            need_colors, need_shapes, need_pairs = _vocabulary_needs(kind)
            if n_colors < need_colors or n_shapes < need_shapes:
                raise ParameterError(
                    f"rule '{kind.name}' of {lv} needs at least {need_colors} colours and "
                    f"{need_shapes} shapes; colors has {n_colors} and shapes {n_shapes} (add "
                    "some, or give that kind weight 0 in kind_weights)")
            if n_colors * n_shapes < need_pairs:
                raise ParameterError(
                    f"rule '{kind.name}' of {lv} lists {kind.param} distinct (colour, shape) "
                    f"pairs and keeps another: it needs {need_pairs} pairs, but {n_colors} "
                    f"colours x {n_shapes} shapes give {n_colors * n_shapes}")


def _is_int(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _pair(value):
    """``value`` as a tuple (an int twice), or None when it is neither an int nor a sequence."""
    if _is_int(value):
        return (value, value)
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        return None
    return tuple(value)



def check_out(out, count: int, width: int, height: int, masks: bool):
    """Return ``out`` as (first, final, instance-or-None) after checking shapes and types."""
    want = 3 if masks else 2
    if not isinstance(out, (tuple, list)) or len(out) != want:
        raise ParameterError(f"out must be a tuple of {want} arrays (first, final"
                         f"{', instance' if masks else ''}) when masks={masks}")
    shapes = [(count, height, width, 3), (count, height, width, 3), (count, height, width)]
    for name, array, shape in zip(("first", "final", "instance"), out, shapes):
        if not (isinstance(array, np.ndarray) and array.dtype == np.uint8
                and array.shape == shape and array.flags.c_contiguous and array.flags.writeable):
            raise ParameterError(f"out {name} must be a writeable C-contiguous uint8 array of shape "
                             f"{shape}; got {getattr(array, 'dtype', type(array).__name__)} "
                             f"{getattr(array, 'shape', '')}")
    if len({id(a) for a in out}) != len(out) or any(
            np.shares_memory(a, b) for i, a in enumerate(out) for b in out[i + 1:]):
        raise ParameterError("out arrays must not overlap")
    return tuple(out) + ((None,) if not masks else ())
