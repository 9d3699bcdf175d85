"""A counter-free SplitMix64 stream for Numba code: one independent stream per task.

Every task owns a stream seeded from (seed, level); all draws of that task, including the
resampling after a failed attempt, come from it in order. So a task is a pure function of its
seed, whatever batch, order or process generates it.
"""
import numpy as np

from ..runtime._numba import kernel

__all__ = []  # Numba kernels only: _new_stream, _next_u64, _uniform, _randint, _shuffle

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_TO_UNIT = 1.0 / 9007199254740992.0  # 2**-53


@kernel
def _new_stream(seed, salt):
    """Return a one-element state array for ``seed`` (uint64) mixed with ``salt`` (int)."""
    state = np.empty(1, dtype=np.uint64)
    state[0] = seed ^ (np.uint64(salt) * _MIX1)
    _next_u64(state)  # decorrelate neighbouring seeds
    return state


@kernel
def _next_u64(state):
    """Advance ``state`` and return the next 64-bit output (SplitMix64)."""
    state[0] += _GOLDEN
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@kernel
def _uniform(state):
    """Return a float in [0, 1) with 53 random bits."""
    return np.float64(_next_u64(state) >> np.uint64(11)) * _TO_UNIT


@kernel
def _randint(state, low, high):
    """Return an integer in [low, high], both inclusive (requires low <= high)."""
    return low + np.int64(_uniform(state) * (high - low + 1))


@kernel
def _shuffle(state, values, count):
    """Shuffle ``values[:count]`` in place (Fisher-Yates)."""
    for i in range(count - 1, 0, -1):
        j = _randint(state, 0, i)
        values[i], values[j] = values[j], values[i]
