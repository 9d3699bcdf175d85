"""Intra prediction exactly as 8.3.3 (Intra 16x16 luma) and 8.3.4 (chroma, 4:2:0) define it,
from the reconstructed neighbours in the current picture.

Modes: luma 0 vertical, 1 horizontal, 2 DC, 3 plane; chroma 0 DC, 1 horizontal, 2 vertical,
3 plane. A mode that needs an unavailable neighbour is not offered (:func:`luma_mode_ok`).

Examples
--------
>>> import numpy as np
>>> pic = np.full((32, 32), 100, np.uint8); pred = np.zeros((16, 16), np.int32)
>>> predict_luma16(pic, 16, 16, 2, True, True, pred); int(pred[5, 5])
100
>>> predict_luma16(pic, 0, 0, 2, False, False, pred); int(pred[0, 0])   # nothing: 128
128
"""
from __future__ import annotations

import numpy as np

from ...runtime._numba import noalloc_kernel

V_MODE, H_MODE, DC_MODE, PLANE_MODE = 0, 1, 2, 3
CHROMA_DC, CHROMA_H, CHROMA_V, CHROMA_PLANE = 0, 1, 2, 3


@noalloc_kernel(inline="always")
def luma_mode_ok(mode, left, top):  # pragma: no cover - compiled
    """Whether Intra 16x16 ``mode`` may be used with these neighbours available."""
    if mode == V_MODE:
        return top
    if mode == H_MODE:
        return left
    if mode == PLANE_MODE:
        return left and top
    return True


@noalloc_kernel(inline="always")
def chroma_mode_ok(mode, left, top):  # pragma: no cover - compiled
    """Whether chroma ``mode`` may be used with these neighbours available."""
    if mode == CHROMA_H:
        return left
    if mode == CHROMA_V:
        return top
    if mode == CHROMA_PLANE:
        return left and top
    return True


@noalloc_kernel(inline="always")
def _clip1(v):  # pragma: no cover - compiled
    return 0 if v < 0 else (255 if v > 255 else v)


@noalloc_kernel
def _predict_square(pic, y0, x0, n, mode, left, top, pred, chroma):  # pragma: no cover
    """The n x n (16 luma, 8 chroma) prediction at (y0, x0) into ``pred``; modes numbered
    as luma (chroma modes are mapped by the callers)."""
    if mode == V_MODE:
        for r in range(n):
            for c in range(n):
                pred[r, c] = pic[y0 - 1, x0 + c]
    elif mode == H_MODE:
        for r in range(n):
            v = pic[y0 + r, x0 - 1]
            for c in range(n):
                pred[r, c] = v
    elif mode == PLANE_MODE:
        half = n // 2
        hsum = 0
        vsum = 0
        for k in range(half):
            hsum += (k + 1) * (np.int64(pic[y0 - 1, x0 + half + k])
                               - np.int64(pic[y0 - 1, x0 + half - 2 - k]))
            vsum += (k + 1) * (np.int64(pic[y0 + half + k, x0 - 1])
                               - np.int64(pic[y0 + half - 2 - k, x0 - 1]))
        a = 16 * (np.int64(pic[y0 + n - 1, x0 - 1]) + np.int64(pic[y0 - 1, x0 + n - 1]))
        if n == 16:
            b = (5 * hsum + 32) >> 6
            c_ = (5 * vsum + 32) >> 6
        else:
            b = (34 * hsum + 32) >> 6
            c_ = (34 * vsum + 32) >> 6
        for r in range(n):
            for c in range(n):
                pred[r, c] = _clip1((a + b * (c - half + 1) + c_ * (r - half + 1) + 16) >> 5)
    elif not chroma:
        total = 0
        if left:
            for r in range(16):
                total += np.int64(pic[y0 + r, x0 - 1])
        if top:
            for c in range(16):
                total += np.int64(pic[y0 - 1, x0 + c])
        if left and top:
            v = (total + 16) >> 5
        elif left or top:
            v = (total + 8) >> 4
        else:
            v = 128
        for r in range(16):
            for c in range(16):
                pred[r, c] = v
    else:
        for by in range(0, 8, 4):
            for bx in range(0, 8, 4):
                sum_top = 0
                sum_left = 0
                for k in range(4):
                    if top:
                        sum_top += np.int64(pic[y0 - 1, x0 + bx + k])
                    if left:
                        sum_left += np.int64(pic[y0 + by + k, x0 - 1])
                # 8.3.4.1-3: the corner blocks use both sides, the others prefer their edge
                if (bx == 0 and by == 0) or (bx > 0 and by > 0):
                    if left and top:
                        v = (sum_top + sum_left + 4) >> 3
                    elif left:
                        v = (sum_left + 2) >> 2
                    elif top:
                        v = (sum_top + 2) >> 2
                    else:
                        v = 128
                elif bx > 0:
                    if top:
                        v = (sum_top + 2) >> 2
                    elif left:
                        v = (sum_left + 2) >> 2
                    else:
                        v = 128
                else:
                    if left:
                        v = (sum_left + 2) >> 2
                    elif top:
                        v = (sum_top + 2) >> 2
                    else:
                        v = 128
                for r in range(4):
                    for c in range(4):
                        pred[by + r, bx + c] = v


@noalloc_kernel
def predict_luma16(pic, y0, x0, mode, left, top, pred):  # pragma: no cover - compiled
    """Intra 16x16 prediction of the macroblock at (y0, x0) into ``pred`` (16x16 int32)."""
    _predict_square(pic, y0, x0, 16, mode, left, top, pred, False)




@noalloc_kernel
def predict_chroma8(pic, y0, x0, mode, left, top, pred):  # pragma: no cover - compiled
    """Chroma (4:2:0, 8x8) prediction of the block at (y0, x0) into ``pred`` (8x8 int32)."""
    as_luma = DC_MODE
    if mode == CHROMA_H:
        as_luma = H_MODE
    elif mode == CHROMA_V:
        as_luma = V_MODE
    elif mode == CHROMA_PLANE:
        as_luma = PLANE_MODE
    _predict_square(pic, y0, x0, 8, as_luma, left, top, pred, True)
