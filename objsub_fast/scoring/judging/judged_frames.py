"""Which frames of a video the residual judges, and how many judged frames in a row show a
change for long enough for a person to see it.

Frames 0 and 1 are judged (the reference and the first of an object's own baseline), then one
every half ``min_seconds`` of the video's own time: a change that lasts ``min_seconds`` spans
two judged frames whatever the frame rate, and the residual's cost does not grow with it.
"""
from __future__ import annotations

import statistics

import numpy as np

from .thresholds import THRESHOLDS

__all__ = ["JudgedFrames", "DEFAULT_FPS"]

_ST = THRESHOLDS["residual"]
#: A frame interval when the source gives no times (the project's videos' 16 fps).
DEFAULT_FPS = 16.0


def _typical_step(steps) -> float:
    """The median of time steps ``steps`` (s), or a frame at :data:`DEFAULT_FPS`."""
    step = float(statistics.median(steps)) if len(steps) else 0.0
    return step if step > 0 else 1.0 / DEFAULT_FPS


class JudgedFrames:
    """The judged frames of one video, chosen as its frames come (:meth:`wants`).

    Attributes
    ----------
    times : list of float
        Each judged frame's time (s).
    frames : list of int
        Each judged frame's index in the video.

    Examples
    --------
    >>> judged = JudgedFrames()
    >>> [judged.wants(i / 16) for i in range(6)]
    [True, True, False, True, False, True]
    >>> judged.frames, judged.need()
    ([0, 1, 3, 5], 3)
    """

    def __init__(self):
        self.times = []
        self.frames = []
        self._offered = []              # every frame's time (s)
        self._steps = ([], [])          # the judged frames' and every frame's time steps

    def wants(self, time=None) -> bool:
        """Whether the next frame of the video (at ``time`` seconds; None: unknown, taken at
        :data:`DEFAULT_FPS`) is judged."""
        index = len(self._offered)
        now = index / DEFAULT_FPS if time is None or not np.isfinite(time) else float(time)
        if self._offered:
            self._steps[1].append(now - self._offered[-1])
        self._offered.append(now)
        if len(self.times) >= 2 and now < self.times[-1] + _ST["min_seconds"] / 2 - 1e-6:
            return False
        if self.times:
            self._steps[0].append(now - self.times[-1])
        self.frames.append(index)
        self.times.append(now)
        return True

    def need(self) -> int:
        """Judged frames in a row a change must be seen in to have been shown for
        ``min_seconds``: from the first of them to the end of the last (one frame's time),
        at the judged frames' and the video's typical intervals."""
        step, shown = (_typical_step(steps) for steps in self._steps)
        return max(2, int(np.ceil((_ST["min_seconds"] - shown) / step - 1e-6)) + 1)
