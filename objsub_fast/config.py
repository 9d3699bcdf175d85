"""Validation of every caller-supplied parameter, before any Numba code runs.

Each check raises ``ValueError`` naming the parameter and the allowed range.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from .errors import ParameterError

from .vocabulary import (
    EDGE_MARGIN, KINDS, LEVEL_KINDS, LEVELS, MIN_SPACING, REGION, REGIONS, SIZE, SIZE_RANGE,
)

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


@dataclass(frozen=True)
class Config:
    """A validated engine configuration (everything but the seeds)."""

    width: int
    height: int
    object_counts: dict  # level -> (lo, hi)
    size_range: tuple
    cumulative_weights: np.ndarray  # (levels, kinds) cumulative probability per level

    @property
    def max_objects(self) -> int:
        return max(hi for _, hi in self.object_counts.values())


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
    """Return (W, H) from an int or a pair of ints."""
    pair = (canvas_size, canvas_size) if _is_int(canvas_size) else tuple(canvas_size)
    if len(pair) != 2 or not all(_is_int(v) for v in pair):
        raise ParameterError("canvas_size must be an int or a (width, height) pair; "
                         f"got {canvas_size!r}")
    w, h = (int(v) for v in pair)
    if not (16 <= w <= 8192 and 16 <= h <= 8192):
        raise ParameterError(f"canvas_size must be in [16, 8192] on each side; got {(w, h)}")
    return w, h


def check_range(name: str, value, low: int, high: int) -> tuple[int, int]:
    """Return ``value`` as an int pair (lo, hi) with low <= lo <= hi <= high."""
    pair = (value, value) if _is_int(value) else tuple(value)
    if len(pair) != 2 or not all(_is_int(v) for v in pair):
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
        if not set(kind_weights) <= set(LEVELS):
            if len(used_levels) != 1:
                raise ParameterError("kind_weights must be keyed by level (one of "
                                 f"{LEVELS}) when seeds span several levels")
            kind_weights = {used_levels[0]: kind_weights}
        for lv, table in kind_weights.items():
            li = LEVELS.index(lv)
            names = [KINDS[c].name for c in LEVEL_KINDS[lv]]
            unknown = set(table) - set(names)
            if unknown:
                raise ParameterError(f"kind_weights[{lv!r}] names unknown kinds {sorted(unknown)}; "
                                 f"allowed: {names}")
            row = np.array([float(table.get(n, 0.0)) for n in names])
            if not np.all(np.isfinite(row)) or np.any(row < 0) or row.sum() <= 0:
                raise ParameterError(f"kind_weights[{lv!r}] must be finite, >= 0, with a positive "
                                 f"sum; got {dict(table)}")
            weights[li, :] = 0.0
            weights[li, : len(row)] = row
    cumulative = np.cumsum(weights, axis=1) / weights.sum(axis=1, keepdims=True)
    cumulative[:, -1] = 1.0
    return cumulative


def make_config(level_codes, canvas_size, num_objects, object_size, kind_weights) -> Config:
    """Validate everything but the seeds and return a :class:`Config`."""
    width, height = check_canvas(canvas_size)
    used = [LEVELS[c] for c in sorted(set(level_codes.tolist()))]
    s_lo, s_hi = check_range("object_size", object_size, 4, 4096)
    counts = {}
    for lv in used:
        wanted = DEFAULT_OBJECTS[lv] if num_objects is None else num_objects
        counts[lv] = check_range(f"num_objects (for {lv})", wanted, MIN_OBJECTS[lv], MAX_OBJECTS)
    cumulative = check_weights(kind_weights, used)
    config = Config(width, height, counts, (s_lo, s_hi), cumulative)
    _check_geometry(config, used)
    return config


def active_kinds(config: Config, level: str):
    """Yield the kinds of ``level`` that have a positive weight."""
    row = np.diff(config.cumulative_weights[LEVELS.index(level)], prepend=0.0)
    for col, code in enumerate(LEVEL_KINDS[level]):
        if row[col] > 0:
            yield KINDS[code]


def _check_geometry(config: Config, used_levels) -> None:
    """Reject canvases too small for the object count and sizes, and impossible kinds."""
    w, h = config.width, config.height
    s_lo, s_hi = config.size_range
    usable = min(w, h) - 2 * EDGE_MARGIN
    if s_hi > usable:
        raise ParameterError(f"object_size max {s_hi} does not fit canvas_size {(w, h)}: it must be "
                         f"<= {usable} (canvas minus {EDGE_MARGIN} px margins)")
    usable_area = (w - 2 * EDGE_MARGIN + MIN_SPACING) * (h - 2 * EDGE_MARGIN + MIN_SPACING)
    capacity = int(MAX_COVERAGE * usable_area / ((s_lo + s_hi) / 2 + MIN_SPACING) ** 2)
    for lv in used_levels:
        n_hi = config.object_counts[lv][1]
        if n_hi > capacity:
            raise ParameterError(f"num_objects max {n_hi} (for {lv}) is too many for canvas_size "
                             f"{(w, h)} and object_size max {s_hi}: at most {capacity} fit "
                             "reliably; use a larger canvas, smaller objects or fewer objects")
        for kind in active_kinds(config, lv):
            if kind.family == SIZE and s_hi - s_lo < SIZE_RANGE:
                raise ParameterError(f"object_size range ({s_lo}, {s_hi}) is narrower than the "
                                 f"{SIZE_RANGE} px that size rule '{kind.name}' needs; widen it "
                                 "or give that kind weight 0 in kind_weights")
            if kind.family == REGION:
                for name, (x0, x1, y0, y1) in REGIONS[kind.param: kind.param + kind.variants]:
                    room = min((x1 - x0) * w, (y1 - y0) * h) - EDGE_MARGIN
                    if room < s_lo:
                        raise ParameterError(f"canvas_size {(w, h)} leaves {room:.0f} px in the "
                                         f"'{name}' region, less than object_size min {s_lo} "
                                         f"(rule '{kind.name}')")


def _is_int(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)



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
