"""A run's configuration: everything that determines a dataset's bytes (and nothing else).

``RunConfig`` is the dataset-level counterpart of the engine's ``objsub_fast.config.Config``
(which fixes what one *task* looks like): it adds the task count, base seed, level list, output
format and shard size, and it is what ``manifest.json`` records.

Videos: ``videos`` adds each task's ground-truth transition (``objsub_fast.video``) as a member,
drawn with ``video_style`` at ``fps`` for ``video_frames`` frames. None means the format's
default (on for the VBVR layouts, whose folders hold ``ground_truth.mp4``, off otherwise). The
video fields and the encoder settings and build (``video_encoder``) appear in ``to_json`` only
when videos are on, so a dataset without videos records what it always did.

Canvas limits: the engine accepts any side in [16, 8192] for library use (one batch in memory);
a *run*, which writes every frame to disk and keeps a chunk of frames per worker, is limited to
[64, 4096] per side (at 4096x4096 a chunk is a single task: 48 MiB per frame array).
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from .._version import __version__
from ..errors import ParameterError
from ..shards import MAX_SEED
from ..vocabulary import LEVELS
from .formats import FORMATS

__all__ = ["RunConfig", "DEFAULT_SHARD_SIZE", "MIN_CANVAS", "MAX_CANVAS"]

DEFAULT_SHARD_SIZE = 10_000
MIN_CANVAS = 64
MAX_CANVAS = 4096


@dataclass(frozen=True)
class RunConfig:
    """Everything that determines the dataset's bytes (and nothing that does not).

    Worker count, backend and chunk size are deliberately absent: they never change the output.
    ``generator_version`` defaults to the installed package's version (``objsub_fast._version``).

    Examples
    --------
    >>> RunConfig(count=10, format="vmevalkit").validate().to_json()["canvas_size"]
    [256, 256]
    """

    count: int
    levels: tuple = LEVELS
    seed: int = 0
    format: str = "webdataset"
    shard_size: int = DEFAULT_SHARD_SIZE
    canvas_size: tuple = (256, 256)
    masks: bool = False
    generator_version: str = field(default=__version__)
    videos: bool | None = None
    video_style: str = "fade"
    fps: int = 16
    video_frames: int = 61
    vbvr_pack: str = "tar"
    vbvr_parquet: bool | None = None
    vbvr_split: str = "Out-of-Domain_50"

    def __post_init__(self):
        object.__setattr__(self, "levels", tuple(self.levels))
        object.__setattr__(self, "canvas_size", tuple(int(v) for v in self.canvas_size))
        if self.videos is None and self.format in FORMATS:
            object.__setattr__(self, "videos", FORMATS[self.format].VIDEOS_REQUIRED)
        if self.vbvr_parquet is None:
            object.__setattr__(self, "vbvr_parquet", _has_pyarrow())

    @classmethod
    def from_json(cls, config: dict) -> "RunConfig":
        """The RunConfig a manifest's ``config`` records (``to_json`` inverted)."""
        fields = {k: v for k, v in config.items() if k not in _DERIVED}
        return cls(**{"videos": False, **fields})

    def video_spec(self):
        """The ``objsub_fast.video.VideoSpec`` of this run's videos."""
        from ..video import VideoSpec

        return VideoSpec(self.video_style, self.fps, self.video_frames)

    def validate(self) -> "RunConfig":
        """Raise ParameterError naming the first bad parameter and its allowed range."""
        checks = (
            (isinstance(self.count, int) and self.count >= 1,
             f"--count must be an integer >= 1, got {self.count!r}"),
            (len(self.levels) >= 1 and all(lv in LEVELS for lv in self.levels)
             and len(set(self.levels)) == len(self.levels),
             f"--levels must be distinct names from {','.join(LEVELS)}, got "
             f"{','.join(map(str, self.levels)) or 'nothing'}"),
            (isinstance(self.seed, int) and 0 <= self.seed <= MAX_SEED,
             f"--seed must be an integer in [0, {MAX_SEED}], got {self.seed!r}"),
            (self.format in FORMATS,
             f"--format must be one of {', '.join(FORMATS)}, got {self.format!r}"),
            (isinstance(self.shard_size, int) and self.shard_size >= 1,
             f"--shard-size must be an integer >= 1, got {self.shard_size!r}"),
            (len(self.canvas_size) == 2
             and all(MIN_CANVAS <= v <= MAX_CANVAS for v in self.canvas_size),
             f"--canvas-size must be W or WxH with each side in [{MIN_CANVAS}, {MAX_CANVAS}], "
             f"got {'x'.join(map(str, self.canvas_size))}"),
        )
        for ok, message in checks:
            if not ok:
                raise ParameterError(message)
        format_checks = (  # (field, ok, message), checked when the run's format reads it
            ("vbvr_pack", self.vbvr_pack in ("tar", "folders"),
             f"--vbvr-pack must be tar or folders, got {self.vbvr_pack!r}"),
            ("vbvr_parquet", not self.vbvr_parquet or _has_pyarrow(),
             "metadata.parquet needs pyarrow: pip install 'objsub-fast[vbvr]'"),
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
            from ..video import check_canvas

            self.video_spec().validate()
            check_canvas(*self.canvas_size)
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
            settings = self.video_spec().settings()
            d["video_encoder"] = {"settings": settings["encoder"],
                                  "build": settings["encoder_build"]}
        return d


#: The video fields of RunConfig (left out of ``to_json`` without videos), and the keys that
#: ``to_json`` derives (left out when a manifest is read back).
_VIDEO_FIELDS = ("videos", "video_style", "fps", "video_frames")
_DERIVED = ("video_encoder",)
#: Fields that only one format reads (left out of ``to_json`` for the others).
_FORMAT_FIELDS = {"vbvr_pack": "vbvr", "vbvr_parquet": "vbvr", "vbvr_split": "vbvr-bench"}


def _has_pyarrow() -> bool:
    """Whether pyarrow (the ``[vbvr]`` extra, for ``metadata.parquet``) is importable."""
    import importlib.util

    return importlib.util.find_spec("pyarrow") is not None
