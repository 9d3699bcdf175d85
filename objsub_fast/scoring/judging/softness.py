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
def _distances(frame, gain, offset, sharp, soft, judged, out):
    """``out`` (3,): over the ``judged`` pixels, the summed distance of ``frame``'s luma
    (uint8, brought back through the tone: ``expected._tone_table``) from ``sharp`` and from
    ``soft``, and the number of pixels."""
    back = _tone_table(gain, offset)
    out[0] = out[1] = out[2] = 0.0
    for y in range(frame.shape[0]):
        for x in range(frame.shape[1]):
            if not judged[y, x]:
                continue
            luma = (0.299 * back[0, frame[y, x, 0]] + 0.587 * back[1, frame[y, x, 1]]
                    + 0.114 * back[2, frame[y, x, 2]])
            out[0] += abs(luma - sharp[y, x])
            out[1] += abs(luma - soft[y, x])
            out[2] += 1.0


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

    def update(self, t: int, need: int, frame, zones, judged, expected, cam, cams,
               tones) -> list:
        """Read judged frame ``t``: ``zones`` (K, 4) each object's square and ring (y0, y1,
        x0, x1), ``judged`` (H, W) the pixels held against the expected frame, ``expected``
        the ``ExpectedVideo``, ``cam`` the scene's camera and ``cams[j]`` the one object j is
        held against, ``tones[j]`` (gain, offset) the tone to bring its pixels back through.
        Returns (j, judged px) for each object whose soft run reached ``need`` judged frames
        in this one."""
        whole = expected.luma(cam, self.unit)
        out = np.empty(3)
        ratio = np.full(len(zones), np.nan)
        for j, (y0, y1, x0, x1) in enumerate(zones):
            sharp, soft = (expected.luma_in(cams[j], zones[j], self.unit) if cams[j] is not cam
                           else (np.ascontiguousarray(a[y0:y1, x0:x1]) for a in whole))
            _distances(frame[y0:y1, x0:x1], np.asarray(tones[j][0], np.float64),
                       np.asarray(tones[j][1], np.float64), sharp, soft,
                       np.ascontiguousarray(judged[y0:y1, x0:x1]), out)
            if out[2] and out[0] / out[2] >= _ST["soft_floor"]:
                # (the distance to the blurred picture taken as at least a quarter of the
                # floor, per pixel: an object alike to its blur has no ratio to speak of)
                ratio[j] = out[0] / max(out[1], out[2] * _ST["soft_floor"] / 4)
            elif out[2]:
                ratio[j] = 0.0
        self.ratios.append(ratio)
        level = self.ratios.level()
        over = (ratio > _ST["soft_ratio"]) & (ratio > _ST["soft_factor"] * level)
        return [(j, int(judged[zones[j][0]:zones[j][1], zones[j][2]:zones[j][3]].sum()))
                for j in self.runs.update(over, t, need)]
