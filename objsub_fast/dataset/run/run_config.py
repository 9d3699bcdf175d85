"""A run's configuration: everything that determines a dataset's bytes (and nothing else).

``RunConfig`` is the dataset-level counterpart of the engine's ``objsub_fast.task.config.Config``
(which fixes what one *task* looks like): it adds the task count, base seed, level list, output
format and shard size, and it is what ``manifest.json`` records.

Limits of a run (each named in its error message):

- canvas: each side in [``min_canvas_side()``, 4096]. The engine accepts any side in [64, 8192]
  for library use (one batch in memory). A run's default objects scale with the canvas (5-8
  objects of 20-40 px at 256, 10-20 px at 128); below 128 they shrink under 10 px, too small to
  show a shape, so 128 is the floor, and the engine's own geometry check must accept it too.
  At 4096x4096 a chunk is a single task (48 MiB per frame array).
- count: at most ``MAX_COUNT`` = 10**10 tasks (a task key has 10 digits) in at most
  ``MAX_SHARDS`` = 10**6 shards (a shard name has 6 digits, so that brace patterns and sorted
  names list every shard in order).
- shard size: ``default_shard_size(count)`` unless given: 1/8 of the count rounded down (so
  that a DataLoader with up to 8 workers gets a shard each), at most 10,000 tasks.

Videos: ``videos`` adds each task's ground-truth transition (``objsub_fast.ground_truth.video``) as a member,
drawn with ``video_style`` at ``fps`` for ``video_frames`` frames by ``encoder`` (``"objsub"``,
this project's own H.264 encoder, or ``"x264"``). None means the format's default (on for the
VBVR layouts, whose folders hold ``ground_truth.mp4``, off otherwise). The video fields and the
encoder settings and build (``video_encoder``) appear in ``to_json`` only when videos are on, so
a dataset without videos records what it always did; a manifest with videos and no ``encoder``
was written before the own encoder existed and reads as ``"x264"``.

Knobs: ``num_objects``, ``object_size``, ``kind_weights``, ``vocabulary``, ``colors``, ``shapes``,
``shape_names``, ``prompt_variants`` and ``look`` are passed to ``generate_batch`` as they are (see
``KNOBS`` for their defaults) and checked by the engine's own ``make_config`` for every level of
the run. Like the video fields, each appears in ``to_json`` only when it differs from its
default, so a default run records what it always did. ``generator_version`` is that of the run's
output (``_version.generator_version``), the one its task records carry.
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

from ...runtime.jsonfile import loads as loads_json
from ...runtime.errors import ParameterError, UsageError
from ...task.vocabulary import LEVELS
from ..formats import FORMATS
from ..content.manifest import MANIFEST
from ..content.shards import MAX_SEED, SPLITS, split_start, task_index, task_seeds

__all__ = ["RunConfig", "load_manifest", "DEFAULT_SHARD_SIZE", "DEFAULT_SHARDS", "MIN_CANVAS",
           "MAX_CANVAS", "MAX_COUNT", "MAX_SHARDS", "KNOBS", "default_shard_size", "min_canvas_side"]

#: Largest default shard size, and how many shards a smaller default count is split into.
DEFAULT_SHARD_SIZE = 10_000
DEFAULT_SHARDS = 8
MAX_CANVAS = 4096
MAX_COUNT = 10**10
MAX_SHARDS = 10**6


def default_shard_size(count: int) -> int:
    """Tasks per shard when ``--shard-size`` is not given: ``count / 8`` rounded down (at least
    1), at most 10,000. So a run has at least min(8, count) shards (the default 1,000 tasks are 8
    shards of 125), enough for a DataLoader of up to 8 workers.

    Examples
    --------
    >>> default_shard_size(1000), default_shard_size(10**6), default_shard_size(3)
    (125, 10000, 1)
    """
    return max(1, min(DEFAULT_SHARD_SIZE, count // DEFAULT_SHARDS))


#: Below this side the default objects (scaled with the canvas) are under 10 px wide.
RECOGNISABLE_SIDE = 128


@lru_cache(maxsize=None)
def min_canvas_side() -> int:
    """Smallest canvas side of a run: ``RECOGNISABLE_SIDE``, or more if the engine's geometry
    check does not place the default (scaled) objects of every level reliably there.

    Examples
    --------
    >>> min_canvas_side()
    128
    """
    from ...task.config import check_levels, make_config

    codes = check_levels(list(LEVELS), len(LEVELS))

    def fits(side: int) -> bool:
        try:
            make_config(codes, (side, side), None, None, None)
        except ValueError:
            return False
        return True

    lo, hi = RECOGNISABLE_SIDE, MAX_CANVAS  # fits(hi); the check is monotone in the side
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if fits(mid) else (mid + 1, hi)
    return lo


#: Smallest canvas side of a run (``min_canvas_side()``, computed once at import).
MIN_CANVAS = min_canvas_side()


@dataclass(frozen=True)
class RunConfig:
    """Everything that determines the dataset's bytes (and nothing that does not).

    Worker count, backend and chunk size are deliberately absent: they never change the output.
    ``generator_version`` defaults to the generator version of the run's output
    (``objsub_fast._version.generator_version``); ``validate`` refuses any other.

    Examples
    --------
    >>> RunConfig(count=10, format="vmevalkit").validate().to_json()["canvas_size"]
    [256, 256]
    >>> knobs = RunConfig(count=10, vocabulary="extended", num_objects=(5, 6)).validate()
    >>> {k: v for k, v in knobs.to_json().items() if k in KNOBS or k == "generator_version"}
    {'generator_version': '0.3.0', 'num_objects': [5, 6], 'vocabulary': 'extended'}
    """

    count: int
    levels: tuple = LEVELS
    seed: int = 0
    format: str = "webdataset"
    shard_size: int | None = None  # None: default_shard_size(count)
    canvas_size: tuple = (256, 256)
    masks: bool = False
    generator_version: str | None = None  # None: _version.generator_version of the run
    videos: bool | None = None
    video_style: str = "fade"
    fps: int = 16
    video_frames: int = 61
    encoder: str = "objsub"
    vbvr_pack: str = "tar"
    vbvr_parquet: bool | None = None
    vbvr_split: str = "Out-of-Domain_50"
    num_objects: tuple | None = None
    object_size: tuple | None = None
    kind_weights: dict | None = None
    vocabulary: str = "classic"
    colors: tuple | None = None
    shapes: tuple | None = None
    shape_names: str | None = None
    prompt_variants: int = 1
    look: str = "flat"
    split: str | None = None  # None: no split named (recorded only when given)

    def __post_init__(self):
        object.__setattr__(self, "levels", tuple(self.levels))
        canvas = self.canvas_size
        object.__setattr__(self, "canvas_size", (canvas, canvas) if _is_int(canvas)
                           else tuple(canvas))
        for name in ("num_objects", "object_size", "colors", "shapes"):
            object.__setattr__(self, name, _as_tuple(getattr(self, name)))
        if self.shard_size is None and _is_int(self.count) and self.count >= 1:
            object.__setattr__(self, "shard_size", default_shard_size(self.count))
        if self.videos is None and self.format in FORMATS:
            object.__setattr__(self, "videos", FORMATS[self.format].VIDEOS_REQUIRED)
        if self.generator_version is None:
            object.__setattr__(self, "generator_version", self._own_generator_version())
        if self.vbvr_parquet is None:
            object.__setattr__(self, "vbvr_parquet", _has_pyarrow())

    @classmethod
    def from_json(cls, config: dict) -> "RunConfig":
        """The RunConfig a manifest's ``config`` records (``to_json`` inverted)."""
        fields = {k: v for k, v in config.items() if k not in _DERIVED}
        if fields.get("videos") and "encoder" not in fields:
            fields["encoder"] = _ENCODER_BEFORE_OBJSUB
        return cls(**{"videos": False, **fields})

    def seeds(self, start: int, stop: int):
        """The seeds of task indices ``start .. stop-1`` of this run (its split's block).

        Examples
        --------
        >>> train, test = RunConfig(count=4, split="train"), RunConfig(count=4, split="test")
        >>> bool((train.seeds(0, 4) == RunConfig(count=4).seeds(0, 4)).all())
        True
        >>> set(train.seeds(0, 4)) & set(test.seeds(0, 4))
        set()
        """
        offset = split_start(self.split)
        return task_seeds(self.seed, offset + start, offset + stop)

    def task_index(self, seed: int) -> int:
        """The index in this run of the task with ``seed`` (``seeds`` inverted; outside
        [0, count) for a seed of another run or split)."""
        return (task_index(self.seed, seed) - split_start(self.split)) % 2**63

    def engine_options(self) -> dict:
        """The ``generate_batch`` keyword arguments of this run's knobs (``KNOBS``)."""
        return {name: getattr(self, name) for name in KNOBS}

    def _own_generator_version(self):
        """``_version.generator_version`` of this run (None while its knobs are invalid)."""
        from ..._version import generator_version
        from ...task.config import check_vocabulary, is_classic
        from ...task.vocabulary import irregular_plurals

        try:
            classic = is_classic(self.vocabulary, self.colors, self.shapes, self.shape_names,
                                 self.prompt_variants)
            vocabulary = check_vocabulary(self.vocabulary, self.colors, self.shapes,
                                          self.shape_names)
            return generator_version(self.canvas_size, classic=classic,
                                     irregular_plurals=irregular_plurals(vocabulary.shape_labels),
                                     video_encoder=self.encoder if self.videos else None,
                                     look=self.look)
        except (ValueError, TypeError):
            return None

    def _check_knobs(self, other_version_ok: bool = False) -> None:
        """Check the knobs with the engine's own validation, for every level of the run; the
        errors name the command-line options."""
        from ...task.config import check_levels, check_vocabulary, make_config
        from ...task.vocabulary import (parse_colors, parse_prompt_variants,
                                        parse_shape_names, parse_shapes, parse_vocabulary)

        for name, parse in (("vocabulary", parse_vocabulary), ("colors", parse_colors),
                            ("shapes", parse_shapes), ("shape_names", parse_shape_names),
                            ("prompt_variants", parse_prompt_variants)):
            if getattr(self, name) != KNOBS[name]:
                parse(getattr(self, name), _option(name))
        try:
            vocab = check_vocabulary(self.vocabulary, self.colors, self.shapes, self.shape_names)
            make_config(check_levels(list(self.levels), len(self.levels)), self.canvas_size,
                        self.num_objects, self.object_size, self.kind_weights, vocab,
                        self.prompt_variants, self.look)
        except ParameterError as e:
            raise ParameterError(_OPTION_WORDS.sub(lambda m: _option(m.group(0)), str(e))) \
                from None
        expected = self._own_generator_version()
        if self.generator_version != expected and not other_version_ok:
            raise ParameterError(
                f"generator_version {self.generator_version!r} is not what this objsub-fast "
                f"writes for this configuration ({expected}): the dataset was made by another "
                "generator; use that version, or regenerate it with --overwrite")

    def video_spec(self):
        """The ``objsub_fast.ground_truth.video.VideoSpec`` of this run's videos."""
        from ...ground_truth.video import VideoSpec

        return VideoSpec(self.video_style, self.fps, self.video_frames, self.encoder)

    def validate(self, other_version_ok: bool = False) -> "RunConfig":
        """Raise ParameterError naming the first bad parameter and its allowed range.

        ``other_version_ok`` accepts a ``generator_version`` other than the one this package
        writes for the configuration (``verify`` reads such datasets and says so).
        """
        low = MIN_CANVAS
        shards = (-(-self.count // self.shard_size) if _is_int(self.count) and _is_int(
            self.shard_size) and self.shard_size >= 1 else 0)
        checks = (
            (_is_int(self.count) and 1 <= self.count <= MAX_COUNT,
             f"--count must be an integer in [1, {MAX_COUNT:,}], got {self.count!r}"),
            (len(self.levels) >= 1 and all(lv in LEVELS for lv in self.levels)
             and len(set(self.levels)) == len(self.levels),
             f"--levels must be distinct names from {','.join(LEVELS)}, got "
             f"{','.join(map(str, self.levels)) or 'nothing'}"),
            (_is_int(self.seed) and 0 <= self.seed <= MAX_SEED,
             f"--seed must be an integer in [0, {MAX_SEED}], got {self.seed!r}"),
            (self.format in FORMATS,
             f"--format must be one of {', '.join(FORMATS)}, got {self.format!r}"),
            (_is_int(self.shard_size) and self.shard_size >= 1,
             f"--shard-size must be an integer >= 1, got {self.shard_size!r}"),
            (shards <= MAX_SHARDS,
             f"--shard-size {self.shard_size} gives {shards:,} shards for --count "
             f"{self.count}; at most {MAX_SHARDS:,} shards: use --shard-size >= "
             f"{-(-self.count // MAX_SHARDS) if shards else 1}"),
            (len(self.canvas_size) == 2
             and all(_is_int(v) and low <= v <= MAX_CANVAS for v in self.canvas_size),
             f"--canvas-size must be W or WxH with each side in [{low}, {MAX_CANVAS}] (below {low} "
             f"the default objects, scaled with the canvas, are too small to show their shape), "
             f"got {'x'.join(map(str, self.canvas_size))}"),
            (isinstance(self.masks, bool), f"masks must be True or False, got {self.masks!r}"),
            (self.split is None or self.split in SPLITS,
             f"--split must be one of {', '.join(SPLITS)}, got {self.split!r}"),
        )
        for ok, message in checks:
            if not ok:
                raise ParameterError(message)
        self._check_knobs(other_version_ok)
        format_checks = (  # (field, ok, message), checked when the run's format reads it
            ("vbvr_pack", self.vbvr_pack in ("tar", "folders"),
             f"--vbvr-pack must be tar or folders, got {self.vbvr_pack!r}"),
            ("vbvr_parquet", not self.vbvr_parquet or _has_pyarrow(),
             "metadata.parquet needs pyarrow: pip install -e '.[vbvr]' (in the objsub-fast "
             "checkout)"),
            ("vbvr_split", isinstance(self.vbvr_split, str)
             and re.fullmatch(r"[A-Za-z0-9][\w.-]*", self.vbvr_split) is not None,
             f"--vbvr-split must be a folder name (letters, digits, . _ -), "
             f"got {self.vbvr_split!r}"),
        )
        for name, ok, message in format_checks:
            if _FORMAT_FIELDS[name] == self.format and not ok:
                raise ParameterError(message)
        if FORMATS[self.format].VIDEOS_REQUIRED and not self.videos:
            raise ParameterError(f"--format {self.format} needs videos (its task folders hold "
                                 "ground_truth.mp4)")
        if self.videos:
            from ...ground_truth.video import check_even_canvas

            self.video_spec().validate()
            check_even_canvas(*self.canvas_size)
        return self

    def to_json(self) -> dict:
        """The configuration as recorded in the manifest."""
        d = asdict(self)
        d["levels"], d["canvas_size"] = list(self.levels), list(self.canvas_size)
        for name, fmt in _FORMAT_FIELDS.items():
            if fmt != self.format:
                del d[name]
        if not self.videos:
            for name in _VIDEO_FIELDS:
                del d[name]
        else:
            settings = self.video_spec().settings(self.look)
            d["video_encoder"] = {"settings": settings["encoder"],
                                  "build": settings["encoder_build"]}
        for name in KNOBS:
            del d[name]
        if self.split is None:
            del d["split"]
        d.update(self.changed_knobs())
        return d

    def changed_knobs(self) -> dict:
        """The knobs that differ from their defaults, as JSON (what ``to_json`` records).

        Examples
        --------
        >>> RunConfig(count=1, object_size=(12, 24), prompt_variants=2).changed_knobs()
        {'object_size': [12, 24], 'prompt_variants': 2}
        """
        return {name: list(value) if isinstance(value, tuple) else value
                for name, value in self.engine_options().items() if value != KNOBS[name]}


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _as_tuple(value):
    """A knob given as a comma-separated string or a list, as a tuple (names stripped)."""
    if isinstance(value, str):
        return tuple(item.strip() for item in value.split(","))
    return tuple(value) if isinstance(value, list) else value


#: The engine's knobs (``generate_batch`` keyword arguments) and their defaults: RunConfig
#: fields that ``to_json`` records only when they differ from the default.
KNOBS = {"num_objects": None, "object_size": None, "kind_weights": None,
         "vocabulary": "classic", "colors": None, "shapes": None, "shape_names": None,
         "prompt_variants": 1, "look": "flat"}
#: Engine parameter names in the engine's messages, said as command-line options instead.
_OPTION_WORDS = re.compile(r"\b(num_objects|object_size|kind_weights|canvas_size|"
                           r"prompt_variants|shape_names|look)\b")


def _option(name: str) -> str:
    """The command-line option of a RunConfig field: ``num_objects`` -> ``--num-objects``."""
    return "--" + name.replace("_", "-")


#: The video fields of RunConfig (left out of ``to_json`` without videos), and the keys that
#: ``to_json`` derives (left out when a manifest is read back).
_VIDEO_FIELDS = ("videos", "video_style", "fps", "video_frames", "encoder")
#: The encoder of a manifest's videos when it names none (written before ``encoder`` existed).
_ENCODER_BEFORE_OBJSUB = "x264"
_DERIVED = ("video_encoder",)
#: Fields that only one format reads (left out of ``to_json`` for the others).
_FORMAT_FIELDS = {"vbvr_pack": "vbvr", "vbvr_parquet": "vbvr", "vbvr_split": "vbvr-bench"}


def _has_pyarrow() -> bool:
    """Whether pyarrow (the ``[vbvr]`` extra, for ``metadata.parquet``) is importable."""
    import importlib.util

    return importlib.util.find_spec("pyarrow") is not None


def load_manifest(out: Path, other_version_ok: bool = False):
    """(RunConfig, manifest dict) of the dataset in ``out``; UsageError if unusable.

    ``other_version_ok`` reads a dataset another generator version wrote (see
    ``RunConfig.validate``)."""
    path = Path(out) / MANIFEST
    try:
        manifest = loads_json(path.read_text())
        config = RunConfig.from_json(manifest["config"]).validate(other_version_ok)
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror}") from e
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise UsageError(f"{path} is not a valid objsub-fast manifest: {e}") from e
    return config, manifest
