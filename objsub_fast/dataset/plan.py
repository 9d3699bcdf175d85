"""Chunk driving: a shard's tasks rendered chunk by chunk into reused frame buffers.

The shard plan itself (task index -> seed and level, shard k = tasks [kN, (k+1)N)) is
``objsub_fast.shards``; ``generate`` and ``verify`` both walk a shard with ``shard_batches``.
"""
from __future__ import annotations

import numpy as np

from ..shards import Shard, chunks, task_levels, task_seeds

__all__ = ["CHUNK_FRAME_BYTES", "auto_chunk_size", "shard_batches"]

#: Byte budget of one chunk's frame array (N, H, W, 3): bounds a worker's memory (two such
#: arrays, plus instance maps with masks, reused for every chunk of a shard). At 256x256 that
#: is 160 tasks; 32 or 64 tasks per chunk measured 5-15% slower (per-call overhead).
CHUNK_FRAME_BYTES = 30 * 2**20


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
    from ..engine import generate_batch

    size = min(chunk_size or auto_chunk_size(config.canvas_size), shard.count)
    w, h = config.canvas_size
    shapes = [(size, h, w, 3)] * 2 + ([(size, h, w)] if config.masks else [])
    buffers = [np.empty(shape, dtype=np.uint8) for shape in shapes]
    for start, stop in chunks(shard, size):
        yield start, generate_batch(task_seeds(config.seed, start, stop),
                                    level=task_levels(config.levels, start, stop),
                                    canvas_size=config.canvas_size, masks=config.masks,
                                    out=tuple(b[:stop - start] for b in buffers))
