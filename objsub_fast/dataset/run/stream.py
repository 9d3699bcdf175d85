"""Samples without disk: ``iter_samples`` yields the sample dicts a run's shards would hold.

Tasks are cut into blocks of ``chunk_size`` consecutive indices; block ``b`` belongs to
partition ``b % parts``, where the partitions are ``world_size`` ranks times the data-loader
workers of each rank. Inside a PyTorch ``DataLoader`` worker the worker id and count come from
``torch.utils.data.get_worker_info()``; torch is consulted only if the caller has imported it
(this module never imports torch). The partitions together hold every task exactly once, and
each sample's bytes are those of the same task in a generated dataset of that configuration.
"""
from __future__ import annotations

import sys

from ...runtime.errors import ParameterError
from ...task.vocabulary import LEVELS
from .run_config import RunConfig
from ..formats import get_format
from ..content.members import encode_samples
from ..content.plan import auto_chunk_size, range_batches

__all__ = ["iter_samples", "partition"]


def _loader_worker() -> tuple[int, int]:
    """(worker id, worker count) inside a PyTorch DataLoader worker, else (0, 1)."""
    torch = sys.modules.get("torch")
    info = torch.utils.data.get_worker_info() if torch is not None else None
    return (0, 1) if info is None else (int(info.id), int(info.num_workers))


def partition(rank: int, world_size: int) -> tuple[int, int]:
    """(this partition, partition count) for ``rank`` of ``world_size`` and the current
    DataLoader worker."""
    def is_int(v):
        return isinstance(v, int) and not isinstance(v, bool)

    if not is_int(world_size) or world_size < 1:
        raise ParameterError(f"world_size must be an integer >= 1, got {world_size!r}")
    if not is_int(rank) or not 0 <= rank < world_size:
        raise ParameterError(f"rank must be an integer in [0, {world_size - 1}], got {rank!r}")
    worker, workers = _loader_worker()
    return rank * workers + worker, world_size * workers


def iter_samples(count: int, seed: int = 0, levels=LEVELS, *, rank: int = 0,
                 world_size: int = 1, format: str = "webdataset", chunk_size: int | None = None,
                 **options):
    """Yield the sample dicts of this rank's (and DataLoader worker's) share of ``count`` tasks.

    Parameters
    ----------
    count, seed, levels
        As ``objsub-fast generate --count --seed --levels``.
    rank, world_size : int
        This process's share of the tasks (e.g. ``torch.distributed`` rank and world size);
        inside a ``DataLoader`` worker the share is split again between its workers.
    format : str
        Whose per-task JSON the samples carry (``RunConfig.format``; default WebDataset's).
    chunk_size : int, optional
        Tasks per engine call (default as in ``generate``); also the block size of the
        partition.
    **options
        Other ``RunConfig`` fields: ``canvas_size``, ``masks``, ``videos``, ``video_style``,
        ``fps``, ``video_frames``, ``encoder`` (of the videos: "objsub" or "x264"), and the engine's knobs under their ``generate_batch`` names:
        ``num_objects``, ``object_size``, ``kind_weights``, ``vocabulary`` ("classic" or
        "extended"), ``colors``, ``shapes``, ``shape_names``, ``prompt_variants``, ``look``
        ("flat" or "solid"; a solid sample's JSON says ``"look": "solid"``).

    Yields
    ------
    dict
        Member suffix (``first.png``, ``final.png``, ``json``, ``txt``, ``mp4``, ...) ->
        bytes, plus ``__key__``, ``__id__`` and ``__index__`` (the task index); in task order
        within the partition.

    Examples
    --------
    >>> from objsub_fast import iter_samples
    >>> [s["__key__"] for s in iter_samples(6, rank=1, world_size=2, chunk_size=2)]
    ['0000000002', '0000000003']
    """
    config = RunConfig(count=count, levels=tuple(levels), seed=seed, format=format,
                       **options).validate()
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size < 1):
        raise ParameterError(f"chunk_size must be an integer >= 1, got {chunk_size!r}")
    part, parts = partition(rank, world_size)
    size = min(chunk_size or auto_chunk_size(config.canvas_size), count)
    mine = [(start, min(start + size, count))
            for block, start in enumerate(range(0, count, size)) if block % parts == part]
    fmt = get_format(config.format)
    for start, batch in range_batches(config, mine, size):
        yield from encode_samples(batch, start, config, fmt)
