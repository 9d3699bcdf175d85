"""The level a kept object's measure in one frame is held against: the other kept objects'
in that frame and its own before anything happened.

A change of the whole picture (a blur, grain, a codec's smear, a camera's resampling) moves
every object's measure together; a change of one object moves its own alone. So an object's
measure is compared with the median of the others' in the same frame and with its own least
over the first judged frames (a change that starts in them must not raise its own level).
"""
from __future__ import annotations

import numpy as np

from ...runtime._numba import kernel

__all__ = ["HeldSeries", "ObjectRuns"]


@kernel(nogil=True)
def _others_median(now, out):
    """``out[j]``: the median of the finite values of ``now`` but its ``j``-th (-inf: none)."""
    k = now.shape[0]
    buf = np.empty(k, np.float64)
    for j in range(k):
        n = 0
        for i in range(k):
            if i != j and np.isfinite(now[i]):
                buf[n] = now[i]
                n += 1
        if n == 0:
            out[j] = -np.inf
            continue
        part = np.sort(buf[:n])
        out[j] = part[n // 2] if n % 2 else (part[n // 2 - 1] + part[n // 2]) / 2


class HeldSeries:
    """One measure per kept object over the judged frames, each frame's values held against a
    level: the larger of the other objects' median in that frame and the object's own least
    over ``baseline_frames`` judged frames from frame 1 (a change that starts in them must not
    raise its own level; inf in frame 0). The baseline is kept once its frames are in.

    Examples
    --------
    >>> series = HeldSeries(4)
    >>> for values in [[0.1, 0.2, 0.3]] * 3 + [[0.1, 0.2, 2.0]]:
    ...     series.append(np.array(values))
    >>> series.level().round(2).tolist()
    [1.1, 1.05, 0.3]
    """

    def __init__(self, baseline_frames: int):
        self.baseline_frames = baseline_frames
        self.values = []            # per judged frame: (K,)
        self._own = None            # (K,) the least over the baseline frames, once all are in

    def append(self, now: np.ndarray) -> None:
        """Add one judged frame's values (K,) (NaN: not measured)."""
        self.values.append(now)

    def level(self) -> np.ndarray:
        """(K,) the level the latest values are held against."""
        now = self.values[-1]
        if len(self.values) < 2:
            return np.full(len(now), np.inf)
        median = np.empty(len(now))
        _others_median(np.asarray(now, np.float64), median)
        return np.maximum(self._baseline(), median)

    def _baseline(self) -> np.ndarray:
        """(K,) each object's least over the baseline frames so far (NaN as 0)."""
        if self._own is not None:
            return self._own
        with np.errstate(all="ignore"):
            own = np.nanmin(np.array(self.values[1:1 + self.baseline_frames]), axis=0)
        own = np.nan_to_num(own, nan=0.0)
        if len(self.values) > 1 + self.baseline_frames:
            self._own = own
        return own


class ObjectRuns:
    """Per kept object, how many judged frames in a row a test has held, and the judged frame
    its run started in when it first lasted ``need`` frames (-1: not yet).

    Examples
    --------
    >>> runs = ObjectRuns(2)
    >>> [runs.update(np.array(over), t, need=2).tolist()
    ...  for t, over in enumerate([[True, False], [True, True], [True, True]])]
    [[], [0], [1]]
    >>> runs.since.tolist()
    [0, 1]
    """

    def __init__(self, count: int):
        self.run = np.zeros(count, int)
        self.since = np.full(count, -1)

    def update(self, over: np.ndarray, t: int, need: int) -> np.ndarray:
        """Judged frame ``t``: ``over`` (K,) where the test holds. Returns the objects whose
        run reached ``need`` frames for the first time in this one."""
        self.run = np.where(over, self.run + 1, 0)
        fresh = np.flatnonzero((self.run >= need) & (self.since < 0))
        self.since[fresh] = t - need + 1
        return fresh
