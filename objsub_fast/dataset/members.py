"""The members of a sample: one row per member, shared by every format.

A member has a WebDataset suffix (tar member ``{key}.{suffix}``; a shard's members are in
sorted-suffix order), a file name for folder-per-task formats, an encoder from an engine batch
to one ``bytes`` per task, a switch saying whether a run includes it, and, for ``verify
--deep``, a check that decodes it and compares it with the regenerated task.

Adding a member is one row in ``MEMBERS``; a format that names a file differently overrides it
in its own ``FILE_NAMES``. The ground-truth video (``mp4`` / ``ground_truth.mp4``) is a member
of runs with ``videos``.
"""
from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .. import png
from ..shards import task_key

__all__ = ["Member", "MEMBERS", "wanted_members", "encode_samples", "check_png", "check_mp4"]


def check_png(attr: str, mode: str):
    """Deep check of a PNG member: decodes with Pillow at the canvas size, pixels equal the
    regenerated batch's ``attr`` (a frame array) for the task."""
    def check(data: bytes, batch, j: int, config) -> str | None:
        from PIL import Image

        size = config.canvas_size
        try:
            with Image.open(io.BytesIO(data)) as im:
                im.load()
                if im.size != tuple(size) or im.mode != mode:
                    return (f"is {im.mode} {im.size[0]}x{im.size[1]}, "
                            f"expected {mode} {size[0]}x{size[1]}")
                pixels = np.asarray(im)
        except Exception as e:  # Pillow raises many types for corrupt files
            return f"does not decode: {e}"
        if not np.array_equal(pixels, getattr(batch, attr)[j]):
            return "pixels differ from the task regenerated from its seed"
        return None
    return check


def check_mp4(data: bytes, batch, j: int, config) -> str | None:
    """Deep check of a video member: decodes with PyAV to the run's frame count at the canvas
    size, and every frame is within codec tolerance of the regenerated transition."""
    from ..video import decode_errors

    try:
        return decode_errors(data, batch, j, config.video_spec())
    except Exception as e:  # PyAV raises many types for corrupt files
        return f"does not decode: {e}"


def _always(config) -> bool:
    return True


def _videos(batch, records, fmt, config) -> list[bytes]:
    from ..video import encode_transitions

    return encode_transitions(batch, config.video_spec())


@dataclass(frozen=True)
class Member:
    """One member of every sample (see the module docstring)."""

    suffix: str
    file: str
    encode: Callable  # (batch, records, format module, RunConfig) -> list[bytes], one per task
    wanted: Callable = _always  # (RunConfig) -> bool
    deep_check: Callable | None = None  # (bytes, batch, j, RunConfig) -> problem or None


_ROWS = (
    Member("final.png", "final_frame.png", lambda b, r, f, c: png.encode_batch(b.final_frames),
           deep_check=check_png("final_frames", "RGB")),
    Member("first.png", "first_frame.png", lambda b, r, f, c: png.encode_batch(b.first_frames),
           deep_check=check_png("first_frames", "RGB")),
    Member("json", "question_metadata.json",
           lambda b, r, f, c: [f.task_metadata(rec, c) for rec in r]),
    Member("mask.png", "instance_map.png", lambda b, r, f, c: png.encode_batch(b.instance_maps),
           wanted=lambda config: config.masks, deep_check=check_png("instance_maps", "L")),
    Member("mp4", "ground_truth.mp4", _videos, wanted=lambda config: config.videos,
           deep_check=check_mp4),
    Member("txt", "prompt.txt", lambda b, r, f, c: [rec["prompt"].encode() for rec in r]),
)
#: suffix -> Member, in sorted-suffix (= tar) order.
MEMBERS = {m.suffix: m for m in sorted(_ROWS, key=lambda m: m.suffix)}


def wanted_members(config) -> list[Member]:
    """The members a run with ``config`` writes, in tar order."""
    return [m for m in MEMBERS.values() if m.wanted(config)]


def encode_samples(batch, first_index: int, config, fmt) -> list[dict]:
    """Encode every task of an engine batch into its sample members.

    Parameters
    ----------
    batch : engine batch of the tasks ``first_index, first_index + 1, ...``
    config : RunConfig (which members are wanted)
    fmt : format module (its ``task_metadata`` serialises the per-task JSON)

    Returns
    -------
    list of dict
        Per task, suffix -> bytes, plus ``"__key__"`` (WebDataset key), ``"__id__"`` (task
        id) and ``"__index__"`` (task index).
    """
    records = batch.tasks()
    for i, record in enumerate(records):
        record["task_index"] = first_index + i
        record["generator_version"] = config.generator_version  # the run's (videos included)
    encoded = {m.suffix: m.encode(batch, records, fmt, config) for m in wanted_members(config)}
    return [{"__key__": task_key(first_index + i), "__id__": rec["id"],
             "__index__": first_index + i, **{s: data[i] for s, data in encoded.items()}}
            for i, rec in enumerate(records)]
