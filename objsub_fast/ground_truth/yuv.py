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

from ..runtime._numba import noalloc_kernel
from ..runtime.errors import ParameterError


_I32 = np.int32


@noalloc_kernel(inline="always")
def luma(red, green, blue):  # pragma: no cover - compiled
    """BT.601 limited-range Y of one pixel: ((66 R + 129 G + 25 B + 128) >> 8) + 16."""
    return np.uint8(((_I32(66) * red + _I32(129) * green + _I32(25) * blue + _I32(128)) >> 8)
                    + 16)


@noalloc_kernel(nogil=True)
def luma_rect(rgb, y_plane, y0, y1, x0, x1):  # pragma: no cover - compiled
    """Y (:func:`luma`) of the rectangle [y0, y1) x [x0, x1) of an (H, W, 3) uint8 frame,
    written at the same place into the (H, >=W) plane.

    Rows are read as flat byte slices indexed from 0 and computed in int32 with no tables, so
    the compiler can turn the inner loop into vector code (three times faster than table
    lookups)."""
    flat = rgb.reshape(rgb.shape[0], 3 * rgb.shape[1])
    for row in range(y0, y1):
        src, dst = flat[row, 3 * x0:3 * x1], y_plane[row, x0:x1]
        for x in range(x1 - x0):
            dst[x] = luma(_I32(src[3 * x]), _I32(src[3 * x + 1]), _I32(src[3 * x + 2]))


@noalloc_kernel(nogil=True)
def chroma_rect(rgb, u_plane, v_plane, y0, y1, x0, x1):  # pragma: no cover - compiled
    """U and V of the rectangle [y0, y1) x [x0, x1) (even bounds) of an (H, W, 3) uint8 frame
    from each 2x2 block's RGB sum, ((-38 R - 74 G + 112 B + 512) >> 10) + 128 and
    ((112 R - 94 G - 18 B + 512) >> 10) + 128, into the (H/2, >=W/2) planes."""
    flat = rgb.reshape(rgb.shape[0], 3 * rgb.shape[1])
    for r in range(y0 // 2, y1 // 2):
        top, bottom = flat[2 * r, 3 * x0:3 * x1], flat[2 * r + 1, 3 * x0:3 * x1]
        u_row, v_row = u_plane[r, x0 // 2:x1 // 2], v_plane[r, x0 // 2:x1 // 2]
        for c in range((x1 - x0) // 2):
            i = 6 * c
            red = _I32(top[i]) + _I32(top[i + 3]) + _I32(bottom[i]) + _I32(bottom[i + 3])
            green = _I32(top[i + 1]) + _I32(top[i + 4]) + _I32(bottom[i + 1]) + \
                _I32(bottom[i + 4])
            blue = _I32(top[i + 2]) + _I32(top[i + 5]) + _I32(bottom[i + 2]) + \
                _I32(bottom[i + 5])
            u_row[c] = np.uint8(((_I32(-38) * red - _I32(74) * green + _I32(112) * blue
                                  + _I32(512)) >> 10) + 128)
            v_row[c] = np.uint8(((_I32(112) * red - _I32(94) * green - _I32(18) * blue
                                  + _I32(512)) >> 10) + 128)


@noalloc_kernel(nogil=True)
def rgb_to_yuv420_rect(rgb, y_plane, u_plane, v_plane, y0, y1, x0, x1):  # pragma: no cover
    """BT.601 limited-range Y, U, V of the rectangle [y0, y1) x [x0, x1) (even bounds) of an
    (H, W, 3) uint8 frame, written at the same place into the whole planes ((H, >=W),
    (H/2, >=W/2), (H/2, >=W/2) uint8): :func:`luma_rect`, then :func:`chroma_rect`."""
    luma_rect(rgb, y_plane, y0, y1, x0, x1)
    chroma_rect(rgb, u_plane, v_plane, y0, y1, x0, x1)


@noalloc_kernel(nogil=True)
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


@noalloc_kernel(inline="always")
def _even(rects, i):  # pragma: no cover - compiled
    """Rectangle i of ``rects`` widened to even bounds."""
    return (rects[i, 0] - rects[i, 0] % 2, rects[i, 1] + rects[i, 1] % 2,
            rects[i, 2] - rects[i, 2] % 2, rects[i, 3] + rects[i, 3] % 2)


@noalloc_kernel(nogil=True)
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


def check_even_canvas(width: int, height: int) -> None:
    """yuv420p needs even sides: raise ParameterError otherwise (the canvas's range is
    ``task.config.check_canvas``'s)."""
    if width % 2 or height % 2:
        raise ParameterError(f"videos need an even canvas width and height (yuv420p), "
                             f"got {width}x{height}")


class YuvPicture:
    """The current picture in I420 (Y rows, then U, then V) in one buffer, updated from RGB
    frames: only the changed rectangles (widened to whole 2x2 chroma blocks) are converted
    again.

    Examples
    --------
    >>> picture = YuvPicture(4, 2)
    >>> picture.update(np.full((2, 4, 3), 255, np.uint8))
    >>> int(picture.planes[0][0, 0]), int(picture.planes[1][0, 0])
    (235, 128)
    """

    def __init__(self, width: int, height: int):
        check_even_canvas(width, height)
        self.yuv = np.empty((height * 3 // 2, width), np.uint8)
        flat = self.yuv.reshape(-1)
        q = width * height // 4
        self.planes = (self.yuv[:height], flat[4 * q:5 * q].reshape(height // 2, width // 2),
                       flat[5 * q:].reshape(height // 2, width // 2))
        self._shape = (height, width, 3)
        self.count = 0

    def update(self, rgb: np.ndarray, changed=None):
        """Convert frame ``rgb``: all of it for the first frame or when ``changed`` is None,
        else only the rectangles (y0, y1, x0, x1) ``changed`` lists. Returns the rectangles
        of the planes that changed (widened to even bounds; None: all of them)."""
        if rgb.shape != self._shape or rgb.dtype != np.uint8:
            raise ValueError(f"frames must be {self._shape} uint8, got {rgb.shape} {rgb.dtype}")
        self.count += 1
        rgb = np.ascontiguousarray(rgb)   # the kernels read rows as flat bytes
        if changed is None or self.count == 1:
            rgb_to_yuv420(rgb, *self.planes)
            return None
        convert_rects(rgb, *self.planes, np.array(changed, np.int64).reshape(-1, 4))
        return widened(changed)
