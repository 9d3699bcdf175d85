"""The test of a kept object gone soft: its picture nearer a blur of its expected picture
than the expected picture itself.

A blur of one object (or a smear, or a wash that takes its outline) moves no pixel far from
its neighbours' range, so the residual, which tolerates a pixel's shift, sees little of it; and
at a very low bitrate the codec cleans the halo a blur leaves around it. But the object's luma
is then nearer its expected luma blurred (a Gaussian of :data:`BLUR_SIGMA_PX`) than its
expected luma: on an unchanged object the distance to the sharp picture is a fraction of that
to the blurred one (0-0.35, the codec's error), on an object blurred by sigma 3 px it is 1.1-3.5
times it, whatever the bitrate. Each object's ratio is held against the other kept objects'
in the same frame and its own before anything happened (``reference_level``): a blur of
the whole picture, or a camera's resampling, softens every object together and passes.
"""
from __future__ import annotations

import numpy as np
from scipy.ndimage import gaussian_filter

from ...runtime._numba import kernel
from .reference_level import HeldSeries
from .thresholds import THRESHOLDS

__all__ = ["SoftnessTest", "expected_luma", "BLUR_SIGMA_PX"]

_ST = THRESHOLDS["residual"]
#: The blur (canvas px at 256, scaled with the canvas) an object's picture is compared with.
BLUR_SIGMA_PX = 2.0
#: The weights of R, G, B in BT.601 luma.
_LUMA = np.array([0.299, 0.587, 0.114], np.float32)


@kernel(nogil=True)
def _distances(frame, gain, offset, sharp, soft, judged, out):
    """``out`` (3,): over the ``judged`` pixels, the summed distance of ``frame``'s luma
    (brought back through the tone ``(v - offset) / gain`` per channel, within 0-255) from
    ``sharp`` and from ``soft``, and the number of pixels."""
    out[0] = out[1] = out[2] = 0.0
    for y in range(frame.shape[0]):
        for x in range(frame.shape[1]):
            if not judged[y, x]:
                continue
            r = min(max((frame[y, x, 0] - offset[0]) / gain[0], 0.0), 255.0)
            g = min(max((frame[y, x, 1] - offset[1]) / gain[1], 0.0), 255.0)
            b = min(max((frame[y, x, 2] - offset[2]) / gain[2], 0.0), 255.0)
            luma = 0.299 * r + 0.587 * g + 0.114 * b
            out[0] += abs(luma - sharp[y, x])
            out[1] += abs(luma - soft[y, x])
            out[2] += 1.0


def expected_luma(warped: np.ndarray, unit: float) -> tuple[np.ndarray, np.ndarray]:
    """(sharp, soft): the luma (H, W) float32 of the expected picture ``warped`` (H, W, 3)
    and of it blurred by :data:`BLUR_SIGMA_PX` times ``unit`` (canvas px per px at 256).

    Examples
    --------
    >>> img = np.zeros((9, 9, 3), np.float32); img[4, 4] = 255
    >>> sharp, soft = expected_luma(img, 1.0)
    >>> float(sharp[4, 4]), bool(0 < soft[4, 4] < 30 and soft[4, 6] > 0)
    (255.0, True)
    """
    sharp = np.ascontiguousarray(np.asarray(warped, np.float32) @ _LUMA)
    soft = gaussian_filter(sharp, BLUR_SIGMA_PX * unit, mode="nearest")
    return sharp, soft


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
        self.run = np.zeros(count, int)
        self.since = np.full(count, -1)          # the judged frame a soft run started in

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
        self.run = np.where(over, self.run + 1, 0)
        fresh = np.flatnonzero((self.run >= need) & (self.since < 0))
        self.since[fresh] = t - need + 1
        return [(j, int(judged[zones[j][0]:zones[j][1], zones[j][2]:zones[j][3]].sum()))
                for j in fresh]
