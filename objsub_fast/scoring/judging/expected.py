"""The expected video: for each frame, the picture the task allows.

The task's first frame, as this video shows it (its own canvas frame 0, which the registration
matched to the task's objects), brought through the frame's camera (``camera``: zoom and pan
about the canvas centre) and the scene's tone (``colour_change.tone_map``: per channel a gain and
an offset through the background and the kept objects). Nothing else may change, except in the
*free* zones: each removal target's square where it was drawn and where it is seen now, while
its removal runs and after it (what is left there is judged by the removal invariants).

A camera and a codec move an unchanged picture by a fraction of a pixel and resample its edges,
so the expected frame is not one value per pixel but a range: the least and the greatest CIELAB
lightness and colour (and R, G, B levels) over the 3x3 neighbourhood (5x5 under a moving
camera) (:func:`tolerance_bounds`). A pixel anywhere within its range is as expected. So is a
pixel whose luma lies within its neighbourhood's and whose chroma lies within that of one pixel
further: a video carries its colour at half the resolution of its lightness (4:2:0), so an edge
that moved by a pixel may carry its colour by two (a kept object grown by 4%, an edge between a
black outline and a red fill).
"""
from __future__ import annotations

import numpy as np
from scipy.ndimage import gaussian_filter

from ...runtime._numba import kernel

__all__ = ["ExpectedVideo", "tolerance_bounds", "rgb_levels", "warp_reference", "to_lab",
           "luma_chroma", "quantised", "expected_luma", "LUMA_CHROMA", "STILL_PX",
           "BLUR_SIGMA_PX"]

#: A camera that moves no canvas pixel farther than this is still (a tolerance of 1 px).
STILL_PX = 0.25
#: The blur (canvas px at 256, scaled with the canvas) an object's picture is compared with.
BLUR_SIGMA_PX = 2.0


@kernel(nogil=True)
def _warp(ref, s, tx, ty, cx, cy, u0, v0, u1, v1, top, left, out, valid):
    """Bilinear sample of ``ref`` (H, W, 3) at ``q = c + (p - c - t) / s`` for the canvas
    pixels ``p`` of the window at (``top``, ``left``) the size of ``out`` (float32); ``valid``
    is False where ``q`` falls outside the shown part [u0, u1) x [v0, v1) of the canvas."""
    h, w = ref.shape[:2]
    for j in range(out.shape[0]):
        y = top + j
        qy = cy + (y - cy - ty) / s
        for i in range(out.shape[1]):
            x = left + i
            qx = cx + (x - cx - tx) / s
            if qx < u0 or qy < v0 or qx > u1 - 1 or qy > v1 - 1:
                valid[j, i] = False
                for c in range(3):
                    out[j, i, c] = 255.0
                continue
            valid[j, i] = True
            x0 = min(int(qx), w - 2) if w > 1 else 0
            y0 = min(int(qy), h - 2) if h > 1 else 0
            fx, fy = qx - x0, qy - y0
            x1, y1 = min(x0 + 1, w - 1), min(y0 + 1, h - 1)
            for c in range(3):
                upper = ref[y0, x0, c] * (1 - fx) + ref[y0, x1, c] * fx
                lower = ref[y1, x0, c] * (1 - fx) + ref[y1, x1, c] * fx
                out[j, i, c] = upper * (1 - fy) + lower * fy


def _lab_tables():
    """(linear, cube): sRGB level (0-255) -> linear light, and :data:`CUBE_STEPS` + 1
    samples of CIELAB's f(t) over t in [0, 1] (D65 white)."""
    v = np.arange(256) / 255.0
    linear = np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)
    t = np.linspace(0.0, 1.0, CUBE_STEPS + 1)
    cube = np.where(t > (6 / 29) ** 3, np.cbrt(t), t / (3 * (6 / 29) ** 2) + 4 / 29)
    return linear.astype(np.float64), cube.astype(np.float64)


#: Samples of CIELAB's cube root (linearly interpolated between them: within 0.01 of L*).
CUBE_STEPS = 4096
#: sRGB to XYZ over the D65 white, rows X/Xn, Y/Yn, Z/Zn.
_XYZ = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722],
                 [0.0193, 0.1192, 0.9505]]) / np.array([[0.9505], [1.0], [1.089]])
LINEAR, CUBE = _lab_tables()


@kernel(nogil=True, inline="always")
def _cube(t, cube):
    """CIELAB's f(t) for t in [0, 1] from its samples ``cube``."""
    t = min(max(t, 0.0), 1.0) * (cube.shape[0] - 1)
    i = min(int(t), cube.shape[0] - 2)
    return cube[i] + (cube[i + 1] - cube[i]) * (t - i)


@kernel(nogil=True, inline="always")
def _lab_of(r, g, b, linear, cube, xyz):
    """CIELAB (L*, a*, b*) of an sRGB colour (levels, rounded and clipped to 0-255)."""
    lr = linear[min(max(int(r + 0.5), 0), 255)]
    lg = linear[min(max(int(g + 0.5), 0), 255)]
    lb = linear[min(max(int(b + 0.5), 0), 255)]
    fx = _cube(xyz[0, 0] * lr + xyz[0, 1] * lg + xyz[0, 2] * lb, cube)
    fy = _cube(xyz[1, 0] * lr + xyz[1, 1] * lg + xyz[1, 2] * lb, cube)
    fz = _cube(xyz[2, 0] * lr + xyz[2, 1] * lg + xyz[2, 2] * lb, cube)
    return 116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz)


@kernel(nogil=True)
def _tone_table(gain, offset):
    """(3, 256): each channel's levels ``v`` brought back through the tone ``(v - offset[c]) /
    gain[c]``, within 0-255 (an expected range holds levels, and a tone line that lifts white
    above 255 is no change): one table per frame instead of a division per pixel."""
    back = np.empty((3, 256))
    for c in range(3):
        for v in range(256):
            back[c, v] = min(max((v - offset[c]) / gain[c], 0.0), 255.0)
    return back


@kernel(nogil=True)
def _to_lab(img, linear, cube, xyz, out):
    """``img`` (H, W, 3) sRGB as CIELAB."""
    h, w = img.shape[:2]
    for y in range(h):
        for x in range(w):
            lab = _lab_of(img[y, x, 0], img[y, x, 1], img[y, x, 2], linear, cube, xyz)
            for c in range(3):
                out[y, x, c] = lab[c]


def to_lab(img: np.ndarray) -> np.ndarray:
    """(H, W, 3) float32 CIELAB (D65) of sRGB ``img`` (levels).

    Examples
    --------
    >>> np.round(to_lab(np.array([[[255, 0, 0], [255, 255, 255]]], np.uint8)).astype(float), 1).tolist()
    [[[53.2, 80.1, 67.2], [100.0, 0.0, 0.0]]]
    """
    out = np.empty(img.shape, np.float32)
    _to_lab(np.asarray(img, np.float32), LINEAR, CUBE, _XYZ, out)
    return out


#: Rows: the weights of R, G, B in BT.601 Y', Cb and Cr (full range).
LUMA_CHROMA = np.array([[0.299, 0.587, 0.114],
                        [-0.299 / 1.772, -0.587 / 1.772, 0.886 / 1.772],
                        [0.701 / 1.402, -0.587 / 1.402, -0.114 / 1.402]])


@kernel(nogil=True, inline="always")
def _fold(lo, hi, src_lo, src_hi, to, at, count, step):
    """``lo[to + i * step]`` / ``hi[...]`` take the least / greatest of themselves and
    ``src_lo[at + i * step]`` / ``src_hi[...]``, for i < ``count``. Indices are unsigned:
    without a test for negative ones the loop compiles to tight (vector) code."""
    for i in range(count):
        j, s = np.uint64(to + i * step), np.uint64(at + i * step)
        lo[j] = min(lo[j], src_lo[s])
        hi[j] = max(hi[j], src_hi[s])


@kernel(nogil=True, inline="always")
def _spread_by(lo, hi, src_lo, src_hi, shift, d, radius, small, n):
    """One step ``d`` px of a spread along a line of pixels (``n`` channels side by side):
    each item of ``lo`` / ``hi`` folds in the item ``shift`` further along ``src_lo`` /
    ``src_hi``, in every channel whose ``radius`` reaches ``d`` (all of them at once, as one
    pass, where ``d`` is at most the least radius ``small``)."""
    m = lo.shape[0]
    if d <= small:
        _fold(lo, hi, src_lo, src_hi, 0, shift, m - shift, 1)
        return
    for c in range(n):
        if radius[c] >= d:
            _fold(lo, hi, src_lo, src_hi, c, c + shift, (m - shift - c + n - 1) // n, n)


@kernel(nogil=True, inline="always")
def _row_spread(row, radius, small, big, n, lo, hi):
    """``lo`` / ``hi`` (W*C,): the least / greatest of each channel of the pixel row ``row``
    (W*C,: the channels of a pixel side by side) over ``radius[c]`` px each way (clipped at
    the ends); ``small`` / ``big``: the least / greatest radius. A pixel's neighbour ``d`` px
    away is ``d * n`` items away."""
    m = row.shape[0]
    lo[:] = row
    hi[:] = row
    for d in range(1, min(big, m // n - 1) + 1):
        k = d * n
        _spread_by(lo[k:], hi[k:], row, row, 0, d, radius, small, n)    # from the left
        _spread_by(lo, hi, row, row, k, d, radius, small, n)            # from the right


@kernel(nogil=True)
def _spread(parts, radius, lo, hi, ring_lo, ring_hi, row):
    """``lo`` / ``hi`` (H, W, C): the least / greatest of each channel of the picture whose
    channels are those of ``parts`` (a tuple of (H, W, 3) pictures) side by side, over the
    square of ``radius[c]`` px each way (clipped at the border), rows then columns.
    ``ring_*`` (2 * max(radius) + 1, W * C): the rows' spreads, each row's kept only while
    the rows within reach of it are written (so they stay in the cache); ``row`` (W * C,):
    one row of the picture, put together from ``parts``."""
    h, w, n = lo.shape
    small, big = radius.min(), radius.max()
    m = w * n
    size = 2 * big + 1
    out_lo, out_hi = lo.reshape((h, m)), hi.reshape((h, m))
    done = 0
    for y in range(h):
        while done <= min(y + big, h - 1):
            for k in range(len(parts)):
                part = parts[k]
                for x in range(w):
                    for c in range(3):
                        row[np.uint64(x * n + 3 * k + c)] = part[done, x, c]
            _row_spread(row, radius, small, big, n, ring_lo[done % size],
                        ring_hi[done % size])
            done += 1
        a, b = out_lo[y], out_hi[y]
        a[:] = ring_lo[y % size]
        b[:] = ring_hi[y % size]
        for d in range(1, big + 1):
            for yy in (y - d, y + d):
                if 0 <= yy < h:
                    _spread_by(a, b, ring_lo[yy % size], ring_hi[yy % size], 0, d, radius,
                               small, n)


def warp_reference(ref: np.ndarray, cam, center, rect, window=None):
    """``ref`` (H, W, 3) as camera ``cam`` = (s, tx, ty) about ``center`` shows it: (float32
    frame, bool valid), valid where the camera shows a part of ``rect`` = (u0, v0, u1, v1);
    only the canvas ``window`` = (y0, y1, x0, x1) of it when given.

    Examples
    --------
    >>> ref = np.zeros((4, 4, 3), np.uint8); ref[:, 2:] = 200
    >>> warped, valid = warp_reference(ref, (1.0, 1.0, 0.0), (1.5, 1.5), (0, 0, 4, 4))
    >>> warped[0, :, 0].tolist(), valid[0].tolist()
    ([255.0, 0.0, 0.0, 200.0], [False, True, True, True])
    """
    y0, y1, x0, x1 = window if window is not None else (0, ref.shape[0], 0, ref.shape[1])
    out = np.empty((y1 - y0, x1 - x0, 3), np.float32)
    valid = np.empty((y1 - y0, x1 - x0), np.bool_)
    _warp(ref, float(cam[0]), float(cam[1]), float(cam[2]), float(center[0]),
          float(center[1]), *(float(v) for v in rect), int(y0), int(x0), out, valid)
    return out, valid


def tolerance_bounds(img: np.ndarray, radius: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi): per pixel the least and greatest CIELAB lightness (channel 0) and colour
    (a*, b*; channels 1, 2) of sRGB ``img``, of its R, G, B levels (channels 3-5) and of its
    luma Y' (channel 6), over its neighbourhood of ``radius`` px each way (3x3 for 1): what a
    shift of that many pixels or an edge's resampling may show there; and of its chroma Cb, Cr
    (channels 7, 8; :func:`luma_chroma`) over ``radius + 1`` px (a video's chroma has half
    the resolution of its luma).

    Examples
    --------
    >>> img = np.full((1, 4, 3), 255, np.float32); img[0, 3] = (255, 0, 0)
    >>> lo, hi = tolerance_bounds(img)
    >>> np.round(lo[0, :, 0]).tolist(), np.round(hi[0, :, 1]).tolist()
    ([100.0, 100.0, 53.0, 53.0], [0.0, 0.0, 80.0, 80.0])
    """
    rgb = np.ascontiguousarray(img, np.float32)
    h, w = rgb.shape[:2]
    lo, hi = np.empty((h, w, 9), np.float32), np.empty((h, w, 9), np.float32)
    radii = np.array([int(radius)] * 7 + [int(radius) + 1] * 2, np.int64)
    ring = (2 * int(radii.max()) + 1, w * 9)
    _spread((to_lab(rgb), rgb, luma_chroma(rgb)), radii, lo, hi, np.empty(ring, np.float32),
            np.empty(ring, np.float32), np.empty(w * 9, np.float32))
    return lo, hi


def rgb_levels(lo, hi) -> np.ndarray:
    """(H, W, 6): the R, G, B ranges of ``lo`` .. ``hi`` (channels 3-5 of each) side by side,
    the part of the expected ranges ``residual.residual`` reads at every pixel; uint8 where
    every range ends on a whole level (the expected frame of a camera that did not move is
    frame 0 itself), the same numbers in a quarter of the memory, else float32.

    Examples
    --------
    >>> lo, hi = tolerance_bounds(np.full((2, 2, 3), 7, np.float32))
    >>> rgb_levels(lo, hi).dtype.name, rgb_levels(lo + 0.5, hi).dtype.name
    ('uint8', 'float32')
    """
    h, w = lo.shape[:2]
    levels, whole = np.empty((h, w, 6), np.float32), np.empty((h, w, 6), np.uint8)
    return whole if _rgb_levels(lo, hi, levels, whole) else levels


@kernel(nogil=True)
def _rgb_levels(lo, hi, levels, whole) -> bool:
    """``levels`` (H, W, 6): channels 3-5 of ``lo`` then of ``hi``. Returns whether every one
    of them is a whole level 0-255, and then writes them to ``whole`` as bytes."""
    h, w = lo.shape[:2]
    for y in range(h):
        for x in range(w):
            for c in range(3):
                levels[y, x, c] = lo[y, x, 3 + c]
                levels[y, x, 3 + c] = hi[y, x, 3 + c]
    flat, out = levels.reshape(-1), whole.reshape(-1)
    exact = True
    for i in range(flat.shape[0]):
        v = flat[np.uint64(i)]
        exact &= (v >= 0) & (v <= 255) & (v == np.floor(v))
    if exact:
        for i in range(flat.shape[0]):
            out[np.uint64(i)] = np.uint8(flat[np.uint64(i)])
    return exact


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
    sharp = np.ascontiguousarray(np.asarray(warped, np.float32)
                                 @ LUMA_CHROMA[0].astype(np.float32))
    soft = gaussian_filter(sharp, BLUR_SIGMA_PX * unit, mode="nearest")
    return sharp, soft


def luma_chroma(rgb: np.ndarray) -> np.ndarray:
    """(..., 3) float32: the BT.601 luma Y' and chroma Cb, Cr (full range, in levels: Cb, Cr
    centred on 0) of R, G, B levels ``rgb`` (..., 3), the matrix of the project's videos and of
    most others. Its weights are also :data:`LUMA_CHROMA` for the kernels.

    Examples
    --------
    >>> luma_chroma(np.array([[255., 0, 0], [128, 128, 128]])).astype(float).round(1).tolist()
    [[76.2, -43.0, 127.5], [128.0, 0.0, 0.0]]
    """
    return np.asarray(rgb, np.float32) @ LUMA_CHROMA.T.astype(np.float32)


def quantised(cam) -> tuple[float, float, float]:
    """Camera ``cam`` = (s, tx, ty) rounded to a zoom step of 1/1000 and a pan step of 1/8 px
    (a 256 canvas's corner moves less than 0.2 px between steps, well within the tolerance of
    a moving camera): frames of a slow push-in share their expected frame.

    Examples
    --------
    >>> quantised((1.01234, 0.31, -2.0))
    (1.012, 0.25, -2.0)
    """
    s, tx, ty = (float(v) for v in cam)
    return round(s, 3), round(tx * 8) / 8, round(ty * 8) / 8


class ExpectedVideo:
    """The expected frames of one video, from its canvas frame 0.

    Parameters
    ----------
    reference : (H, W, 3) uint8
        The video's canvas frame 0.
    center : (2,) canvas centre (the camera's zoom is about it)
    rect : (u0, v0, u1, v1)
        The part of the canvas the frames show.

    :meth:`bounds` gives a frame's tolerance range (before its tone): computed again only when
    the camera moved since the frame it was last computed for. Under a moving camera the range
    spans 2 px each way instead of 1: the camera is estimated from the objects' centroids to
    a fraction of a pixel, and the frame was resampled from a sharper picture than frame 0.

    Examples
    --------
    >>> ref = np.full((8, 8, 3), 255, np.uint8); ref[2:5, 2:5] = (200, 0, 0)
    >>> lo, hi, valid = ExpectedVideo(ref, (3.5, 3.5), (0, 0, 8, 8)).bounds((1.0, 0.0, 0.0))
    >>> np.round(lo[3, 5, :3]).tolist(), np.round(hi[3, 5, :3]).tolist(), bool(valid.all())
    ([42.0, 0.0, 0.0], [100.0, 67.0, 56.0], True)
    """

    def __init__(self, reference: np.ndarray, center, rect):
        self.reference = np.ascontiguousarray(reference)
        self.center = center
        self.rect = tuple(float(v) for v in rect)
        self._cam = self._asked = None
        self._cached = self._warped = self._luma = self._levels = None

    def bounds(self, cam):
        """(lo, hi, valid) of the frame camera ``cam`` shows (see :func:`tolerance_bounds`)."""
        asked = tuple(float(v) for v in cam)
        if asked == self._asked:        # the camera of the frame before (most frames)
            return self._cached
        self._asked = asked
        cam = quantised(cam)
        if cam != self._cam:
            warped, valid = warp_reference(self.reference, cam, self.center, self.rect)
            lo, hi = tolerance_bounds(warped, 1 if self.still(cam) else 2)
            self._cam, self._cached, self._warped = cam, (lo, hi, valid), warped
            self._luma = self._levels = None
        return self._cached

    def levels(self, cam):
        """The R, G, B ranges of :meth:`bounds` side by side (:func:`rgb_levels`)."""
        lo, hi, _ = self.bounds(cam)
        if self._levels is None:
            self._levels = rgb_levels(lo, hi)
        return self._levels

    def luma(self, cam, unit: float):
        """(sharp, soft): the luma of the frame camera ``cam`` shows and of it blurred
        (:func:`expected_luma`; ``unit``: canvas px per px at 256)."""
        self.bounds(cam)
        if self._luma is None:
            self._luma = expected_luma(self._warped, unit)
        return self._luma

    def luma_in(self, cam, window, unit: float):
        """(sharp, soft) of the canvas ``window`` = (y0, y1, x0, x1) of the frame camera
        ``cam`` shows (its blur reads the pixels around the window too)."""
        y0, y1, x0, x1 = window
        grow = int(np.ceil(3 * BLUR_SIGMA_PX * unit))
        h, w = self.reference.shape[:2]
        big = (max(y0 - grow, 0), min(y1 + grow, h), max(x0 - grow, 0), min(x1 + grow, w))
        warped, _ = warp_reference(self.reference, cam, self.center, self.rect, big)
        sharp, soft = expected_luma(warped, unit)
        inner = (slice(y0 - big[0], y1 - big[0]), slice(x0 - big[2], x1 - big[2]))
        return np.ascontiguousarray(sharp[inner]), np.ascontiguousarray(soft[inner])

    def bounds_in(self, cam, window):
        """(lo, hi, valid) of the canvas ``window`` = (y0, y1, x0, x1) of the frame camera
        ``cam`` shows, with a moving camera's tolerance (an object's own camera: its place is
        estimated from its centroid alone)."""
        warped, valid = warp_reference(self.reference, cam, self.center, self.rect, window)
        lo, hi = tolerance_bounds(warped, 2)
        return lo, hi, valid

    def still(self, cam) -> bool:
        """Whether camera ``cam`` moves no canvas pixel by more than :data:`STILL_PX`."""
        s, tx, ty = (float(v) for v in cam)
        reach = abs(s - 1) * float(np.hypot(*self.center)) + float(np.hypot(tx, ty))
        return reach <= STILL_PX
