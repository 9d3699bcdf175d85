"""RGB -> yuv420p, BT.601 limited range, in integer arithmetic (the videos' colour conversion,
shared by both encoders; ``video`` explains why it is done here and not by swscale).

Examples
--------
>>> import numpy as np
>>> rgb = np.full((2, 2, 3), 255, np.uint8)
>>> y, u, v = np.empty((2, 2), np.uint8), np.empty((1, 1), np.uint8), np.empty((1, 1), np.uint8)
>>> rgb_to_yuv420(rgb, y, u, v)
>>> int(y[0, 0]), int(u[0, 0]), int(v[0, 0])
(235, 128, 128)
>>> rgb[0, 0] = (255, 0, 0)
>>> convert_rects(rgb, y, u, v, np.array([[0, 1, 0, 1], [0, 2, 0, 2]]))  # one red, 3 white
>>> int(y[0, 0]), int(y[0, 1]), int(u[0, 0]), int(v[0, 0])
(82, 235, 119, 156)
"""
from __future__ import annotations

import numpy as np

from ._numba import kernel


#: Luma terms of BT.601 limited range by 8-bit value: 66 R, 129 G, 25 B + 128 (rounding).
_Y_RED = (66 * np.arange(256)).astype(np.int32)
_Y_GREEN = (129 * np.arange(256)).astype(np.int32)
_Y_BLUE = (25 * np.arange(256) + 128).astype(np.int32)


@kernel(nogil=True)
def rgb_to_yuv420_rect(rgb, y_plane, u_plane, v_plane, y0, y1, x0, x1):  # pragma: no cover
    """BT.601 limited-range Y, U, V of the rectangle [y0, y1) x [x0, x1) (even bounds) of an
    (H, W, 3) uint8 frame, written at the same place into the whole planes ((H, >=W),
    (H/2, >=W/2), (H/2, >=W/2) uint8): Y = ((66 R + 129 G + 25 B + 128) >> 8) + 16 per pixel,
    U and V from each 2x2 block's RGB sum ((-38 R - 74 G + 112 B + 512) >> 10) + 128 and
    ((112 R - 94 G - 18 B + 512) >> 10) + 128.

    Rows are read as flat bytes, luma through three tables (no slices of the rectangle, so
    one compiled version serves every rectangle)."""
    flat = rgb.reshape(rgb.shape[0], 3 * rgb.shape[1])
    for row in range(y0, y1):
        src, dst = flat[row], y_plane[row]
        for x in range(x0, x1):
            dst[x] = ((_Y_RED[src[3 * x]] + _Y_GREEN[src[3 * x + 1]] + _Y_BLUE[src[3 * x + 2]])
                      >> 8) + 16
    for r in range(y0 // 2, y1 // 2):
        top, bottom, u_row, v_row = flat[2 * r], flat[2 * r + 1], u_plane[r], v_plane[r]
        for c in range(x0 // 2, x1 // 2):
            i = 6 * c
            red = np.int32(top[i]) + np.int32(top[i + 3]) + np.int32(bottom[i]) + \
                np.int32(bottom[i + 3])
            green = np.int32(top[i + 1]) + np.int32(top[i + 4]) + np.int32(bottom[i + 1]) + \
                np.int32(bottom[i + 4])
            blue = np.int32(top[i + 2]) + np.int32(top[i + 5]) + np.int32(bottom[i + 2]) + \
                np.int32(bottom[i + 5])
            u_row[c] = ((np.int32(-38) * red - np.int32(74) * green + np.int32(112) * blue
                         + np.int32(512)) >> 10) + 128
            v_row[c] = ((np.int32(112) * red - np.int32(94) * green - np.int32(18) * blue
                         + np.int32(512)) >> 10) + 128


@kernel(nogil=True)
def rgb_to_yuv420(rgb, y_plane, u_plane, v_plane):  # pragma: no cover - compiled
    """BT.601 limited-range Y, U, V of a whole (H, W, 3) uint8 frame (H, W even) into the
    planes (:func:`rgb_to_yuv420_rect` of the whole frame)."""
    rgb_to_yuv420_rect(rgb, y_plane, u_plane, v_plane, 0, rgb.shape[0], 0, rgb.shape[1])


def widened(rects) -> list:
    """The rectangles (y0, y1, x0, x1) widened to even bounds (whole 2x2 chroma blocks).

    Examples
    --------
    >>> widened([(1, 4, 3, 7)])
    [(0, 4, 2, 8)]
    """
    return [(y0 - y0 % 2, y1 + y1 % 2, x0 - x0 % 2, x1 + x1 % 2) for y0, y1, x0, x1 in rects]


@kernel(inline="always")
def _even(rects, i):  # pragma: no cover - compiled
    """Rectangle i of ``rects`` widened to even bounds."""
    return (rects[i, 0] - rects[i, 0] % 2, rects[i, 1] + rects[i, 1] % 2,
            rects[i, 2] - rects[i, 2] % 2, rects[i, 3] + rects[i, 3] % 2)


@kernel(nogil=True)
def convert_rects(rgb, y_plane, u_plane, v_plane, rects):  # pragma: no cover - compiled
    """Convert the rectangles (y0, y1, x0, x1) of ``rects`` ((n, 4) int64, widened to even
    bounds) of ``rgb`` into the planes (:func:`rgb_to_yuv420_rect`), each pixel once where
    one rectangle lies inside another (a fade's restored and redrawn squares are the same;
    a shrinking object's lies in its square)."""
    for i in range(rects.shape[0]):
        a = _even(rects, i)
        inside = False
        for j in range(rects.shape[0]):
            b = _even(rects, j)
            if j != i and b[0] <= a[0] and a[1] <= b[1] and b[2] <= a[2] and a[3] <= b[3] \
                    and (a != b or j < i):
                inside = True
                break
        if not inside:
            rgb_to_yuv420_rect(rgb, y_plane, u_plane, v_plane, a[0], a[1], a[2], a[3])
