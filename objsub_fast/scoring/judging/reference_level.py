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

__all__ = ["reference_level", "HeldSeries"]


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


def reference_level(series, baseline_frames: int) -> np.ndarray:
    """(K,) per kept object the level its latest value of ``series`` (a list of (K,) per
    judged frame, NaN: not measured) is held against: the larger of the other objects' median
    in that frame and its own least over ``baseline_frames`` from frame 1 (inf in frame 0).

    Examples
    --------
    >>> series = [np.array([0.1, 0.2, 0.3])] * 3 + [np.array([0.1, 0.2, 2.0])]
    >>> reference_level(series, 4).round(2).tolist()
    [1.1, 1.05, 0.3]
    """
    now = series[-1]
    if len(series) < 2:
        return np.full(len(now), np.inf)
    with np.errstate(all="ignore"):
        own = np.nanmin(np.array(series[1:1 + baseline_frames]), axis=0)
    median = np.empty(len(now))
    _others_median(np.asarray(now, np.float64), median)
    return np.maximum(np.nan_to_num(own, nan=0.0), median)


class HeldSeries:
    """One measure per kept object over the judged frames, each frame's values held against
    :func:`reference_level` (its own baseline kept once its frames are in).

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
        """(K,) the level the latest values are held against (:func:`reference_level`)."""
        if self._own is None and len(self.values) > 1 + self.baseline_frames:
            with np.errstate(all="ignore"):
                own = np.nanmin(np.array(self.values[1:1 + self.baseline_frames]), axis=0)
            self._own = np.nan_to_num(own, nan=0.0)
        if self._own is None:
            return reference_level(self.values, self.baseline_frames)
        median = np.empty(len(self.values[-1]))
        _others_median(np.asarray(self.values[-1], np.float64), median)
        return np.maximum(self._own, median)
