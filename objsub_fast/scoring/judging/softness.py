"""The test of a kept object gone soft: its picture nearer a blur of its expected picture
than the expected picture itself.

A blur of one object (or a smear, or a wash that takes its outline) moves no pixel far from
its neighbours' range, so the residual, which tolerates a pixel's shift, sees little of it; and
at a very low bitrate the codec cleans the halo a blur leaves around it. But the object's luma
is then nearer its expected luma blurred (``expected.expected_luma``) than its
expected luma: on an unchanged object the distance to the sharp picture is a fraction of that
to the blurred one (0-0.35, the codec's error), on an object blurred by sigma 3 px it is 1.1-3.5
times it, whatever the bitrate. Each object's ratio is held against the other kept objects'
in the same frame and its own before anything happened (``reference_level.HeldSeries``): a blur of
the whole picture, or a camera's resampling, softens every object together and passes.
"""
from __future__ import annotations

import numpy as np

from ...runtime._numba import kernel
from .expected import _tone_table
from .reference_level import HeldSeries, ObjectRuns
from .thresholds import THRESHOLDS

__all__ = ["SoftnessTest"]

_ST = THRESHOLDS["residual"]
@kernel(nogil=True)
def _distances(frame, gains, offsets, sharp, soft, judged, zones, out):
    """``out[j]`` (3,): over the ``judged`` pixels of zone ``zones[j]`` = (y0, y1, x0, x1) of
    the canvas (the same place in ``frame``, ``sharp``, ``soft`` and ``judged``; an empty
    zone is skipped), the summed distance of ``frame``'s luma (uint8, brought back through
    tone ``gains[j]``, ``offsets[j]``: ``expected._tone_table``) from ``sharp`` and from
    ``soft``, and the number of pixels."""
    for j in range(zones.shape[0]):
        y0, y1, x0, x1 = zones[j, 0], zones[j, 1], zones[j, 2], zones[j, 3]
        if y1 <= y0 or x1 <= x0:
            continue
        back = _tone_table(gains[j], offsets[j])
        a = b = n = 0.0
        for y in range(y0, y1):
            for x in range(x0, x1):
                if not judged[y, x]:
                    continue
                luma = (0.299 * back[0, frame[y, x, 0]] + 0.587 * back[1, frame[y, x, 1]]
                        + 0.114 * back[2, frame[y, x, 2]])
                a += abs(luma - sharp[y, x])
                b += abs(luma - soft[y, x])
                n += 1.0
        out[j, 0], out[j, 1], out[j, 2] = a, b, n


class SoftnessTest:
    """Per kept object, per judged frame: how soft its picture is (the distance of its luma
    from its expected luma over that from its expected luma blurred), and the objects soft
    for ``min_seconds`` while the others are not.

    Parameters
    ----------
    count : int, the number of kept objects
    unit : float, canvas px per px at 256
    """

    def __init__(self, count: int, unit: float):
        self.unit = unit
        self.ratios = HeldSeries(_ST["baseline_frames"])     # (K,) per judged frame
        self.runs = ObjectRuns(count)

    def ratios_of(self, frame, zones, judged, expected, cam, cams, tones) -> np.ndarray:
        """(K,) how soft each object is in ``frame`` (NaN: no pixel judged): ``zones`` (K, 4)
        each object's square and ring (y0, y1, x0, x1), ``judged`` (H, W) the pixels held
        against the expected frame, ``expected`` the ``ExpectedVideo``, ``cam`` the scene's
        camera and ``cams[j]`` the one object j is held against, ``tones[j]`` (gain, offset)
        the tone to bring its pixels back through."""
        zones = np.ascontiguousarray(zones, np.int64).reshape(-1, 4)
        gains = np.array([tone[0] for tone in tones], np.float64).reshape(-1, 3)
        offsets = np.array([tone[1] for tone in tones], np.float64).reshape(-1, 3)
        sums = np.zeros((len(zones), 3))
        own = np.array([c is not cam for c in cams], bool)
        if not own.all():               # the objects held where the scene's camera puts them
            sharp, soft = expected.luma(cam, self.unit)
            _distances(frame, gains, offsets, sharp, soft, judged,
                       np.where(own[:, None], 0, zones), sums)
        for j in np.flatnonzero(own):   # each where it is seen
            y0, y1, x0, x1 = zones[j]
            sharp, soft = expected.luma_in(cams[j], zones[j], self.unit)
            _distances(frame[y0:y1, x0:x1], gains[j:j + 1], offsets[j:j + 1], sharp, soft,
                       np.ascontiguousarray(judged[y0:y1, x0:x1]),
                       np.array([[0, y1 - y0, 0, x1 - x0]]), sums[j:j + 1])
        ratio = np.full(len(zones), np.nan)
        for j, (near, far, n) in enumerate(sums):
            if n and near / n >= _ST["soft_floor"]:
                # (the distance to the blurred picture taken as at least a quarter of the
                # floor, per pixel: an object alike to its blur has no ratio to speak of)
                ratio[j] = near / max(far, n * _ST["soft_floor"] / 4)
            elif n:
                ratio[j] = 0.0
        return ratio

    def judge(self, t: int, need: int, ratio, zones, judged) -> list:
        """Judged frame ``t``'s ratios (:meth:`ratios_of`) held against the other objects'
        and each one's own before. Returns (j, judged px) for each object whose soft run
        reached ``need`` judged frames in this one."""
        self.ratios.append(ratio)
        level = self.ratios.level()
        over = (ratio > _ST["soft_ratio"]) & (ratio > _ST["soft_factor"] * level)
        return [(j, int(judged[zones[j][0]:zones[j][1], zones[j][2]:zones[j][3]].sum()))
                for j in self.runs.update(over, t, need)]
