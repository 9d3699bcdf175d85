"""The members of a sample: one row per member, shared by every format.

A member has a WebDataset suffix (tar member ``{key}.{suffix}``; a shard's members are in
sorted-suffix order), a file name for folder-per-task formats, an encoder from a ``Chunk`` (an
engine batch and its first task index) to one ``bytes`` per task, a switch saying whether a run
includes it, and, for ``verify --deep``, a check that decodes it and compares it with the
regenerated task. A chunk builds its task records (dicts) only when an encoder asks for them: a
format with ``chunk_metadata`` (WebDataset) writes its JSON straight from the batch's columns.

Adding a member is one row in ``MEMBERS``; a format that names a file differently overrides it
in its own ``FILE_NAMES``. The ground-truth video (``mp4`` / ``ground_truth.mp4``) is a member
of runs with ``videos``.
"""
from __future__ import annotations

import io
from dataclasses import dataclass
from functools import cached_property
from typing import Callable

import numpy as np

from ...draw import png
from ...task.records import task_id
from .shards import task_key

__all__ = ["Chunk", "Member", "MEMBERS", "wanted_members", "encode_samples", "check_png",
           "check_mp4"]


class Chunk:
    """An engine batch of the tasks ``first_index, first_index + 1, ...`` of a run with
    ``config``; ``records`` are its task records as samples carry them (``task_index`` and
    the run's ``generator_version`` set), built on first use."""

    def __init__(self, batch, first_index: int, config):
        self.batch, self.first_index, self.config = batch, first_index, config

    @cached_property
    def records(self) -> list[dict]:
        """The task records (``Batch.tasks``) with ``task_index`` and ``generator_version``."""
        records = self.batch.tasks()
        for i, record in enumerate(records):
            record["task_index"] = self.first_index + i
            record["generator_version"] = self.config.generator_version  # the run's
        return records


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
    from ...ground_truth.video import decode_errors

    try:
        return decode_errors(data, batch, j, config.video_spec())
    except Exception as e:  # PyAV raises many types for corrupt files
        return f"does not decode: {e}"


def _always(config) -> bool:
    return True


def _videos(chunk: Chunk, fmt) -> list[bytes]:
    from ...ground_truth.video import encode_transitions

    return encode_transitions(chunk.batch, chunk.config.video_spec())


def _metadata(chunk: Chunk, fmt) -> list[bytes]:
    """The format's per-task JSON (``OutputFormat.chunk_metadata``: from the batch's columns
    if the format can, else from each task record)."""
    return fmt.chunk_metadata(chunk)


def _png(attr: str):
    """Encoder of the PNG member of the batch's frame array ``attr``."""
    return lambda chunk, fmt: png.encode_batch(getattr(chunk.batch, attr))


@dataclass(frozen=True)
class Member:
    """One member of every sample (see the module docstring)."""

    suffix: str
    file: str
    encode: Callable  # (Chunk, format module) -> list[bytes], one per task
    wanted: Callable = _always  # (RunConfig) -> bool
    deep_check: Callable | None = None  # (bytes, batch, j, RunConfig) -> problem or None


_ROWS = (
    Member("final.png", "final_frame.png", _png("final_frames"),
           deep_check=check_png("final_frames", "RGB")),
    Member("first.png", "first_frame.png", _png("first_frames"),
           deep_check=check_png("first_frames", "RGB")),
    Member("json", "question_metadata.json", _metadata),
    Member("mask.png", "instance_map.png", _png("instance_maps"),
           wanted=lambda config: config.masks, deep_check=check_png("instance_maps", "L")),
    Member("mp4", "ground_truth.mp4", _videos, wanted=lambda config: config.videos,
           deep_check=check_mp4),
    Member("txt", "prompt.txt", lambda chunk, fmt: [p.encode() for p in chunk.batch.prompts]),
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
    fmt : format module (its ``chunk_metadata`` or ``task_metadata`` serialises the per-task
        JSON)

    Returns
    -------
    list of dict
        Per task, suffix -> bytes, plus ``"__key__"`` (WebDataset key), ``"__id__"`` (task
        id) and ``"__index__"`` (task index).
    """
    chunk = Chunk(batch, first_index, config)
    encoded = {m.suffix: m.encode(chunk, fmt) for m in wanted_members(config)}
    ids = [task_id(level, seed) for level, seed in zip(batch.levels, batch.seeds.tolist())]
    return [{"__key__": task_key(first_index + i), "__id__": ids[i],
             "__index__": first_index + i, **{s: data[i] for s, data in encoded.items()}}
            for i in range(len(batch))]
