"""Task index -> (seed, level) mapping and the shard plan.

Task ``i`` of a run with base seed ``s`` and level list ``levels`` is::

    level(i) = levels[i % len(levels)]
    seed(i)  = mix63((s * 0x9E3779B97F4A7C15 + i) mod 2**63)

where ``mix63`` is a bijection of [0, 2**63): three rounds of xor-shift and multiplication by an
odd constant, all modulo 2**63. Distinct indices of one run therefore get distinct seeds, and the
mapping depends on nothing but ``(s, i)``. Shard ``k`` holds task indices
``[k * shard_size, min((k + 1) * shard_size, count))``.

A run of a named split (``--split``) numbers its tasks from the split's first index,
``SPLITS[split] * SPLIT_SPAN`` (:func:`split_start`): task ``i`` of the ``test`` split gets the
seed of index ``2**40 + i``. A run holds at most ``MAX_COUNT`` = 10**10 < 2**40 tasks, so the
index ranges of two splits never meet and (``mix63`` being a bijection) a train and a test set
of one configuration never share a seed. ``train`` starts at 0: its tasks are those of the same
run without ``--split``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...task.config import MAX_SEED  # noqa: F401  (re-exported: the engine's seed range)

__all__ = ["MAX_SEED", "mix63", "unmix63", "task_index", "task_seeds", "task_levels", "Shard",
           "num_shards", "shard_at", "plan_shards", "chunks", "task_key", "SPLITS", "SPLIT_SPAN",
           "split_start"]

#: Split name -> its block of task indices (``split_start``); the names Hugging Face uses.
SPLITS = {"train": 0, "test": 1, "validation": 2}
#: Task indices per split block: more than a run's largest count (10**10).
SPLIT_SPAN = 2**40

MASK63 = np.uint64(2**63 - 1)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
#: (shift, odd multiplier) rounds of the 63-bit mixer.
_ROUNDS = ((31, 0xBF58476D1CE4E5B9), (27, 0x94D049BB133111EB), (33, 0xD6E8FEB86659FD93))
#: The rounds undone in reverse order: (shift, inverse of the multiplier modulo 2**63).
_INVERSE_ROUNDS = tuple((shift, pow(mult, -1, 2**63)) for shift, mult in reversed(_ROUNDS))


def mix63(x: np.ndarray) -> np.ndarray:
    """Bijective 63-bit integer mixer (uint64 array in [0, 2**63) -> same)."""
    x = np.asarray(x, dtype=np.uint64) & MASK63
    for shift, mult in _ROUNDS:
        x = x ^ (x >> np.uint64(shift))
        x = (x * np.uint64(mult)) & MASK63
    return x


def unmix63(x: int) -> int:
    """Inverse of ``mix63`` for one integer in [0, 2**63).

    Examples
    --------
    >>> mixed = int(mix63(np.array([12345], dtype=np.uint64))[0])
    >>> mixed != 12345, unmix63(mixed)
    (True, 12345)
    """
    mask = 2**63 - 1
    for shift, inverse in _INVERSE_ROUNDS:
        x = (x * inverse) & mask
        y = x
        for _ in range(63 // shift):  # undo x ^= x >> shift: each pass recovers shift more bits
            x = y ^ (x >> shift)
    return x


def task_index(base_seed: int, seed: int) -> int:
    """The task index whose seed is ``seed`` in a run with base seed ``base_seed`` (the
    inverse of ``task_seeds``; any index in [0, 2**63) if ``seed`` is in [0, 2**63)).

    Examples
    --------
    >>> task_index(7, int(task_seeds(7, 41, 42)[0]))
    41
    """
    base = (base_seed * int(_GOLDEN)) & (2**63 - 1)
    return (unmix63(seed) - base) % 2**63


def task_seeds(base_seed: int, start: int, stop: int) -> np.ndarray:
    """Return the int64 seeds of task indices ``start .. stop-1`` of a run."""
    with np.errstate(over="ignore"):
        base = (np.uint64(base_seed) * _GOLDEN) & MASK63
        idx = np.arange(start, stop, dtype=np.uint64)
        return mix63((base + idx) & MASK63).astype(np.int64)


def split_start(split: str | None) -> int:
    """The first task index of ``split`` (0 without a split, and for ``train``).

    Examples
    --------
    >>> split_start(None), split_start("train"), split_start("test") == 2**40
    (0, 0, True)
    """
    return SPLITS[split] * SPLIT_SPAN if split else 0


def task_levels(levels, start: int, stop: int) -> list[str]:
    """Return the level of each task index ``start .. stop-1`` (levels interleaved)."""
    n = len(levels)
    return [levels[i % n] for i in range(start, stop)]


@dataclass(frozen=True)
class Shard:
    """One shard: its number and half-open task index range."""

    index: int
    start: int
    stop: int

    @property
    def count(self) -> int:
        """Number of tasks in the shard."""
        return self.stop - self.start


def num_shards(count: int, shard_size: int) -> int:
    """Number of shards of a run (the last one may be shorter)."""
    return -(-count // shard_size)


def shard_at(k: int, count: int, shard_size: int) -> Shard:
    """Shard ``k`` of a run of ``count`` tasks in shards of ``shard_size``, without the plan.

    Examples
    --------
    >>> shard_at(2, 25, 10)
    Shard(index=2, start=20, stop=25)
    """
    return Shard(k, k * shard_size, min((k + 1) * shard_size, count))


def plan_shards(count: int, shard_size: int) -> list[Shard]:
    """Split task indices ``0 .. count-1`` into shards of ``shard_size`` (last one shorter)."""
    return [shard_at(k, count, shard_size) for k in range(num_shards(count, shard_size))]


def chunks(shard: Shard, chunk_size: int):
    """Yield the ``(start, stop)`` sub-ranges of a shard, at most ``chunk_size`` tasks each."""
    for s in range(shard.start, shard.stop, chunk_size):
        yield s, min(s + chunk_size, shard.stop)


def task_key(index: int) -> str:
    """WebDataset sample key of task ``index`` (zero-padded, so sorting keeps index order)."""
    return f"{index:010d}"
