"""Intra 4x4 prediction exactly as 8.3.1.2 defines it: the nine directional modes of a 4x4
luma block from its reconstructed neighbours, with the top-right substitution, and the
predicted mode of 8.3.1.1.

Modes: 0 vertical, 1 horizontal, 2 DC, 3 diagonal down-left, 4 diagonal down-right,
5 vertical-right, 6 horizontal-down, 7 vertical-left, 8 horizontal-up.

Examples
--------
>>> import numpy as np
>>> pic = np.zeros((8, 8), np.uint8); pic[3, 4:8] = (10, 20, 30, 40)
>>> out = np.zeros((4, 4), np.int64)
>>> predict4x4(pic, 4, 4, 0, True, True, False, out, 0, 0); out[2].tolist()   # vertical
[10, 20, 30, 40]
>>> mode4x4_ok(4, left=False, top=True)   # diagonal down-right needs the left column
False
"""
from __future__ import annotations

import numpy as np

from ...runtime._numba import kernel, noalloc_kernel

N_MODES = 9


@noalloc_kernel(inline="always")
def mode4x4_ok(mode, left, top):  # pragma: no cover - compiled
    """Whether Intra 4x4 ``mode`` may be used with these neighbours (the top-left sample is
    available whenever both the left and the top are)."""
    if mode == 0 or mode == 3 or mode == 7:
        return top
    if mode == 1 or mode == 8:
        return left
    if mode == 2:
        return True
    return left and top


@noalloc_kernel
def load_edges(pic, y, x, left, top, top_right, t, lf):  # pragma: no cover - compiled
    """The neighbour samples of the 4x4 block at (y, x): ``t[0]`` = p[-1, -1] and
    ``t[1 + i]`` = p[i, -1] (i = 0..7; above-right replaced by p[3, -1] when ``top_right`` is
    not available, 8.3.1.2), ``lf[1 + j]`` = p[-1, j], ``lf[0]`` = p[-1, -1]."""
    if top:
        for i in range(4):
            t[1 + i] = pic[y - 1, x + i]
        for i in range(4, 8):
            t[1 + i] = pic[y - 1, x + i] if top_right else t[4]
    if left:
        for j in range(4):
            lf[1 + j] = pic[y + j, x - 1]
    if left and top:
        t[0] = pic[y - 1, x - 1]
        lf[0] = t[0]


@kernel
def predict4x4(pic, y, x, mode, left, top, top_right, out, oy, ox):  # pragma: no cover
    """Prediction of the 4x4 block at (y, x) of ``pic`` into ``out[oy:oy+4, ox:ox+4]``."""
    t = np.zeros(9, np.int64)
    lf = np.zeros(5, np.int64)
    load_edges(pic, y, x, left, top, top_right, t, lf)
    predict4x4_from(t, lf, mode, left, top, out, oy, ox)


@noalloc_kernel
def predict4x4_from(t, lf, mode, left, top, out, oy, ox):  # pragma: no cover - compiled
    """Mode ``mode`` of a 4x4 block from its edges (:func:`load_edges`) into ``out``."""
    for r in range(4):
        for c in range(4):
            if mode == 0:
                v = t[1 + c]
            elif mode == 1:
                v = lf[1 + r]
            elif mode == 2:
                if left and top:
                    v = (t[1] + t[2] + t[3] + t[4] + lf[1] + lf[2] + lf[3] + lf[4] + 4) >> 3
                elif left:
                    v = (lf[1] + lf[2] + lf[3] + lf[4] + 2) >> 2
                elif top:
                    v = (t[1] + t[2] + t[3] + t[4] + 2) >> 2
                else:
                    v = 128
            elif mode == 3:
                if r == 3 and c == 3:
                    v = (t[7] + 3 * t[8] + 2) >> 2
                else:
                    v = (t[1 + c + r] + 2 * t[2 + c + r] + t[3 + c + r] + 2) >> 2
            elif mode == 4:
                if c > r:
                    v = (t[c - r - 1] + 2 * t[c - r] + t[c - r + 1] + 2) >> 2
                elif c < r:
                    v = (lf[r - c - 1] + 2 * lf[r - c] + lf[r - c + 1] + 2) >> 2
                else:
                    v = (t[1] + 2 * t[0] + lf[1] + 2) >> 2
            elif mode == 5:
                z = 2 * c - r
                if z >= 0 and z % 2 == 0:
                    v = (t[c - (r >> 1)] + t[1 + c - (r >> 1)] + 1) >> 1
                elif z > 0:
                    v = (t[c - (r >> 1) - 1] + 2 * t[c - (r >> 1)] + t[1 + c - (r >> 1)] + 2) >> 2
                elif z == -1:
                    v = (lf[1] + 2 * lf[0] + t[1] + 2) >> 2
                else:
                    v = (lf[r] + 2 * lf[r - 1] + lf[r - 2] + 2) >> 2
            elif mode == 6:
                z = 2 * r - c
                if z >= 0 and z % 2 == 0:
                    v = (lf[r - (c >> 1)] + lf[1 + r - (c >> 1)] + 1) >> 1
                elif z > 0:
                    k = r - (c >> 1)
                    v = (lf[k - 1] + 2 * lf[k] + lf[1 + k] + 2) >> 2
                elif z == -1:
                    v = (lf[1] + 2 * lf[0] + t[1] + 2) >> 2
                else:
                    v = (t[c] + 2 * t[c - 1] + t[c - 2] + 2) >> 2
            elif mode == 7:
                if r % 2 == 0:
                    v = (t[1 + c + (r >> 1)] + t[2 + c + (r >> 1)] + 1) >> 1
                else:
                    v = (t[1 + c + (r >> 1)] + 2 * t[2 + c + (r >> 1)] + t[3 + c + (r >> 1)]
                         + 2) >> 2
            else:
                z = c + 2 * r
                if z < 5 and z % 2 == 0:
                    v = (lf[1 + r + (c >> 1)] + lf[2 + r + (c >> 1)] + 1) >> 1
                elif z < 5:
                    v = (lf[1 + r + (c >> 1)] + 2 * lf[2 + r + (c >> 1)] + lf[3 + r + (c >> 1)]
                         + 2) >> 2
                elif z == 5:
                    v = (lf[3] + 3 * lf[4] + 2) >> 2
                else:
                    v = lf[4]
            out[oy + r, ox + c] = v
