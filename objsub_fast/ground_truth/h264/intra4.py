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


#: Where :func:`edge_samples` puts the block's edge (``EDGE``: from p[-1, 3] up the left
#: column, p[-1, -1], then along the top row to p[7, -1], with p[-1, 3] and p[7, -1] once more
#: at the ends), the two-tap means of its neighbouring pairs (``TWO_TAP + i``: samples i and
#: i + 1), the three-tap filter around each sample (``THREE_TAP + i``) and the DC (``DC``).
EDGE, TWO_TAP, THREE_TAP, DC = 0, 16, 32, 47
#: Position in :data:`EDGE` of lf[j] = p[-1, j - 1] (j = 1..4) and of t[k] = p[k - 1, -1].
_LF, _T = 5, 5


def _mode_sources() -> np.ndarray:
    """(N_MODES, 16) int64: for each mode and raster position 4 r + c of the block, the entry
    of :func:`edge_samples`'s array that 8.3.1.2.1-9 predict there (every sample of every
    mode is an edge sample, a two-tap or three-tap filter of neighbouring edge samples, or the
    DC)."""
    out = np.zeros((N_MODES, 16), np.int64)
    for r in range(4):
        for c in range(4):
            k = 4 * r + c
            out[0, k] = EDGE + _T + 1 + c                                # vertical: t[1 + c]
            out[1, k] = EDGE + _LF - (1 + r)                              # horizontal: lf[1 + r]
            out[2, k] = DC
            out[3, k] = THREE_TAP + _T + 2 + c + r                        # diagonal down-left
            out[4, k] = THREE_TAP + _T + c - r                            # diagonal down-right
            z = 2 * c - r                                                 # vertical-right
            if z >= 0 and z % 2 == 0:
                out[5, k] = TWO_TAP + _T + c - (r >> 1)
            elif z > 0:
                out[5, k] = THREE_TAP + _T + c - (r >> 1)
            elif z == -1:
                out[5, k] = THREE_TAP + _T
            else:
                out[5, k] = THREE_TAP + _LF - (r - 1)
            z = 2 * r - c                                                 # horizontal-down
            if z >= 0 and z % 2 == 0:
                out[6, k] = TWO_TAP + _LF - 1 - (r - (c >> 1))
            elif z > 0:
                out[6, k] = THREE_TAP + _LF - (r - (c >> 1))
            elif z == -1:
                out[6, k] = THREE_TAP + _T
            else:
                out[6, k] = THREE_TAP + _T + c - 1
            if r % 2 == 0:                                                # vertical-left
                out[7, k] = TWO_TAP + _T + 1 + c + (r >> 1)
            else:
                out[7, k] = THREE_TAP + _T + 2 + c + (r >> 1)
            z = c + 2 * r                                                 # horizontal-up
            j = 1 + r + (c >> 1)
            if z < 5:
                out[8, k] = (TWO_TAP if z % 2 == 0 else THREE_TAP) + _LF - 1 - j
            elif z == 5:
                out[8, k] = THREE_TAP + _LF - 4
            else:
                out[8, k] = EDGE + _LF - 4
    return out


#: :func:`_mode_sources`.
MODE_SOURCE = _mode_sources()


@noalloc_kernel(inline="always")
def edge_samples(t, lf, left, top, out):  # pragma: no cover - compiled
    """Fill ``out`` (48 int64) from a 4x4 block's neighbours (:func:`load_edges`): the edge,
    its two-tap and three-tap filters and the DC (8.3.1.2.3), at :data:`EDGE`,
    :data:`TWO_TAP`, :data:`THREE_TAP` and :data:`DC`. Entries of neighbours that are not
    available hold whatever ``t`` and ``lf`` held: no allowed mode reads them."""
    out[0] = lf[4]
    for j in range(1, 5):
        out[_LF - j] = lf[j]
    for k in range(9):
        out[_T + k] = t[k]
    out[14] = t[8]
    for i in range(14):
        out[TWO_TAP + i] = (out[i] + out[i + 1] + 1) >> 1
    for i in range(1, 14):
        out[THREE_TAP + i] = (out[i - 1] + 2 * out[i] + out[i + 1] + 2) >> 2
    if left and top:
        out[DC] = (t[1] + t[2] + t[3] + t[4] + lf[1] + lf[2] + lf[3] + lf[4] + 4) >> 3
    elif left:
        out[DC] = (lf[1] + lf[2] + lf[3] + lf[4] + 2) >> 2
    elif top:
        out[DC] = (t[1] + t[2] + t[3] + t[4] + 2) >> 2
    else:
        out[DC] = 128


@kernel
def predict4x4(pic, y, x, mode, left, top, top_right, out, oy, ox):  # pragma: no cover
    """Prediction of the 4x4 block at (y, x) of ``pic`` into ``out[oy:oy+4, ox:ox+4]``."""
    t = np.zeros(9, np.int64)
    lf = np.zeros(5, np.int64)
    samples = np.zeros(48, np.int64)
    load_edges(pic, y, x, left, top, top_right, t, lf)
    edge_samples(t, lf, left, top, samples)
    predict4x4_from(samples, mode, out, oy, ox)


@noalloc_kernel(inline="always")
def predict4x4_from(samples, mode, out, oy, ox):  # pragma: no cover - compiled
    """Mode ``mode`` of a 4x4 block from its :func:`edge_samples` into ``out``."""
    for k in range(16):
        out[oy + (k >> 2), ox + (k & 3)] = samples[MODE_SOURCE[mode, k]]


@noalloc_kernel(inline="always")
def mode_sad(samples, mode, src, y, x):  # pragma: no cover - compiled
    """SAD of the 4x4 block of ``src`` at (y, x) against mode ``mode``'s prediction."""
    sad = 0
    for k in range(16):
        d = np.int64(src[y + (k >> 2), x + (k & 3)]) - samples[MODE_SOURCE[mode, k]]
        sad += d if d >= 0 else -d
    return sad
