"""Chunk driving: a shard's tasks rendered chunk by chunk into reused frame buffers.

The shard plan itself (task index -> seed and level, shard k = tasks [kN, (k+1)N)) is
``objsub_fast.dataset.content.shards``; ``generate`` and ``verify`` both walk a shard with ``shard_batches``.
"""
from __future__ import annotations

import numpy as np

from ...runtime.errors import ParameterError
from .shards import Shard, chunks, task_levels

__all__ = ["CHUNK_FRAME_BYTES", "MAX_CHUNK_BYTES", "auto_chunk_size", "max_chunk_size",
           "check_chunk_size", "shard_batches", "range_batches"]

#: Byte budget of one chunk's frame array (N, H, W, 3): bounds a worker's memory (two such
#: arrays, plus instance maps with masks, reused for every chunk of a shard). At 256x256 that
#: is 160 tasks; 32 or 64 tasks per chunk measured 5-15% slower (per-call overhead).
CHUNK_FRAME_BYTES = 30 * 2**20
#: Upper bound of ``--chunk-size``: a chunk's frame buffers (first, final and instance maps)
#: take at most 1 GiB per worker, 2,730 tasks at 256x256 (2,340 with masks).
MAX_CHUNK_BYTES = 2**30


def _task_frame_bytes(canvas_size, masks: bool) -> int:
    w, h = canvas_size
    return w * h * (7 if masks else 6)


def max_chunk_size(canvas_size, masks: bool = False) -> int:
    """Largest ``--chunk-size``: as many tasks as fit ``MAX_CHUNK_BYTES`` of frame buffers.

    Examples
    --------
    >>> max_chunk_size((256, 256)), max_chunk_size((256, 256), masks=True)
    (2730, 2340)
    """
    return max(1, MAX_CHUNK_BYTES // _task_frame_bytes(canvas_size, masks))


def check_chunk_size(chunk_size, canvas_size, masks: bool = False) -> None:
    """Raise ParameterError unless ``chunk_size`` is None or in [1, ``max_chunk_size``]."""
    if chunk_size is None:
        return
    top = max_chunk_size(canvas_size, masks)
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or not (
            1 <= chunk_size <= top):
        w, h = canvas_size
        raise ParameterError(
            f"--chunk-size must be an integer in [1, {top}] at {w}x{h}"
            f"{' with masks' if masks else ''} (at most 1 GiB of frames per worker), "
            f"got {chunk_size!r}")


def auto_chunk_size(canvas_size) -> int:
    """Tasks per engine call: as many as fit one frame array in ``CHUNK_FRAME_BYTES``.

    Examples
    --------
    >>> auto_chunk_size((256, 256))
    160
    """
    w, h = canvas_size
    return max(1, CHUNK_FRAME_BYTES // (w * h * 3))


def shard_batches(config, shard: Shard, chunk_size: int | None):
    """Yield (first task index, engine batch) for each chunk of ``shard``, one chunk at a time.

    Every chunk is drawn into the same frame buffers (``generate_batch(out=...)``): fresh
    arrays would be page-faulted and zeroed by the kernel on every chunk. So a batch's frames
    are valid only until the next one is requested.
    """
    size = min(chunk_size or auto_chunk_size(config.canvas_size), shard.count)
    yield from range_batches(config, chunks(shard, size), size)


def range_batches(config, ranges, size: int):
    """Yield (start, engine batch) of each task range ``(start, stop)`` (at most ``size``
    tasks), drawn into one set of reused frame buffers (see ``shard_batches``), with the run's
    knobs (``RunConfig.engine_options``)."""
    from ...engine import generate_batch

    w, h = config.canvas_size
    shapes = [(size, h, w, 3)] * 2 + ([(size, h, w)] if config.masks else [])
    buffers = [np.empty(shape, dtype=np.uint8) for shape in shapes]
    for start, stop in ranges:
        yield start, generate_batch(config.seeds(start, stop),
                                    level=task_levels(config.levels, start, stop),
                                    canvas_size=config.canvas_size, masks=config.masks,
                                    out=tuple(b[:stop - start] for b in buffers),
                                    **config.engine_options())
