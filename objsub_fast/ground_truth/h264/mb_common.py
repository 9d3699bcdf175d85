"""Pieces shared by the intra and inter macroblock coders: nC contexts, scans, chroma
residuals (both prediction kinds code chroma alike) and small block helpers.

Examples
--------
>>> import numpy as np
>>> nz = np.array([[0, 4], [2, 0]], np.int64)
>>> nc_of(nz, 1, 1)    # (left 2 + top 4 + 1) >> 1
3
"""
from __future__ import annotations

import numpy as np

from ...runtime._numba import noalloc_kernel
from .cavlc import write_block
from .cavlc_tables import ZIGZAG_4X4 as ZIGZAG
from .intra import chroma_mode_ok, luma_mode_ok, predict_chroma8, predict_luma16
from .transform import chroma_dc_forward, chroma_dc_inverse, dequant_idct_add, transform_quant4x4

#: Offsets (x, y) in pixels of luma4x4BlkIdx 0..15 in its macroblock (6.4.3).
BLK_X = np.array([0, 4, 0, 4, 8, 12, 8, 12, 0, 4, 0, 4, 8, 12, 8, 12], np.int64)
BLK_Y = np.array([0, 0, 4, 4, 0, 0, 4, 4, 8, 8, 12, 12, 8, 8, 12, 12], np.int64)


@noalloc_kernel(inline="always")
def nc_of(nz, gy, gx):  # pragma: no cover - compiled
    """nC of a block from its left and upper neighbours' TotalCoeff (9.2.1)."""
    if gx > 0 and gy > 0:
        return (nz[gy, gx - 1] + nz[gy - 1, gx] + 1) >> 1
    if gx > 0:
        return nz[gy, gx - 1]
    if gy > 0:
        return nz[gy - 1, gx]
    return 0


@noalloc_kernel
def scan(lev, y, x, start, out):  # pragma: no cover - compiled
    """Levels of the 4x4 block at (y, x) in zig-zag order from scan position ``start``."""
    for k in range(start, 16):
        out[k - start] = lev[y + ZIGZAG[k] // 4, x + ZIGZAG[k] % 4]


#: A uint64 word holding the byte 1 eight times (a byte times it: eight copies of the byte).
BYTES_1 = np.uint64(0x0101010101010101)


@noalloc_kernel(inline="always")
def _differs(plane, words, y0, x0, n, value):  # pragma: no cover - compiled
    """Nonzero when a sample of the n x n block at (y0, x0) of ``plane`` differs from
    ``value``: one OR over the block's rows read as uint64 words (``words``: the C-contiguous
    plane as uint64, :func:`as_words`; n, x0 and its width multiples of 8)."""
    stride, at = plane.shape[1] // 8, x0 // 8
    pattern = np.uint64(value) * BYTES_1
    differ = np.uint64(0)
    for r in range(n):
        for k in range(n // 8):
            differ |= words[(y0 + r) * stride + at + k] ^ pattern
    return differ


@noalloc_kernel(inline="always")
def same_block(plane, words, other, y0, x0, n):  # pragma: no cover - compiled
    """Whether the n x n blocks at (y0, x0) of ``plane`` and of a plane of its shape are equal
    (``words``, ``other``: both as :func:`as_words`; n and x0 multiples of 8)."""
    stride, at = plane.shape[1] // 8, x0 // 8
    differ = np.uint64(0)
    for r in range(n):
        for k in range(n // 8):
            i = (y0 + r) * stride + at + k
            differ |= words[i] ^ other[i]
    return differ == 0


@noalloc_kernel(inline="always")
def put_block(pred, plane, y0, x0, n):  # pragma: no cover - compiled
    """Write the n x n prediction ``pred`` (values in 0..255) into ``plane`` at (y0, x0): the
    reconstruction of a block whose levels are all zero."""
    for r in range(n):
        row = plane[y0 + r, x0:x0 + n]
        for c in range(n):
            row[c] = pred[r, c]


@noalloc_kernel(inline="always")
def as_words(plane):  # pragma: no cover - compiled
    """A C-contiguous uint8 plane whose width is a multiple of 8 as one row of uint64 words."""
    return plane.reshape(-1).view(np.uint64)


@noalloc_kernel(inline="always")
def _edge_differs(plane, y0, x0, n, value, step_y, step_x):  # pragma: no cover - compiled
    """Nonzero when one of the n samples from (y0, x0) in steps (step_y, step_x) differs from
    ``value``."""
    differ = 0
    for k in range(n):
        differ |= plane[y0 + k * step_y, x0 + k * step_x] ^ value
    return differ


@noalloc_kernel(inline="always")
def flat_edge_mode(sy, su, sv, words, cy_, cu, cv, y0, x0):  # pragma: no cover - compiled
    """For a source macroblock of one flat colour in Y, Cb and Cr: the Intra 16x16 mode (0 V,
    then 1 H) whose prediction from the reconstructed neighbours (the chroma one in the
    matching mode) is exactly the source; -1 for any other macroblock. ``words``: the
    source planes as :func:`as_words`."""
    yc, xc = y0 // 2, x0 // 2
    val, u, w = sy[y0, x0], su[yc, xc], sv[yc, xc]
    if (_differs(sy, words[0], y0, x0, 16, val) | _differs(su, words[1], yc, xc, 8, u)
            | _differs(sv, words[2], yc, xc, 8, w)):
        return -1
    if y0 > 0 and (_edge_differs(cy_, y0 - 1, x0, 16, val, 0, 1)
                   | _edge_differs(cu, yc - 1, xc, 8, u, 0, 1)
                   | _edge_differs(cv, yc - 1, xc, 8, w, 0, 1)) == 0:
        return 0
    if x0 > 0 and (_edge_differs(cy_, y0, x0 - 1, 16, val, 1, 0)
                   | _edge_differs(cu, yc, xc - 1, 8, u, 1, 0)
                   | _edge_differs(cv, yc, xc - 1, 8, w, 1, 0)) == 0:
        return 1
    return -1


@noalloc_kernel(inline="always")
def sad_block(src, y0, x0, pred, n):  # pragma: no cover - compiled
    total = 0
    for r in range(n):
        for c in range(n):
            d = np.int64(src[y0 + r, x0 + c]) - pred[r, c]
            total += d if d >= 0 else -d
    return total


@noalloc_kernel
def best_intra(sy, su, sv, cy_, cu, cv, y0, x0, pred, cpred_u, cpred_v, known):
    """Best Intra 16x16 luma mode and chroma mode by SAD; returns (luma mode, luma SAD,
    chroma mode). ``known``: the luma SADs of modes 0-2 (V, H, DC) as
    ``macroblock.edge_intra_sad`` leaves them when it runs to the end."""  # pragma: no cover
    left, top = x0 > 0, y0 > 0
    best_mode, best_sad = -1, 1 << 40
    for mode in range(4):
        if luma_mode_ok(mode, left, top):
            if mode < 3:
                sad = known[mode]
            else:
                predict_luma16(cy_, y0, x0, mode, left, top, pred)
                sad = sad_block(sy, y0, x0, pred, 16)
            if sad < best_sad:
                best_mode, best_sad = mode, sad
    best_cmode, best_csad = -1, 1 << 40
    for mode in range(4):
        if chroma_mode_ok(mode, left, top):
            predict_chroma8(cu, y0 // 2, x0 // 2, mode, left, top, cpred_u)
            predict_chroma8(cv, y0 // 2, x0 // 2, mode, left, top, cpred_v)
            sad = sad_block(su, y0 // 2, x0 // 2, cpred_u, 8) + \
                sad_block(sv, y0 // 2, x0 // 2, cpred_v, 8)
            if sad < best_csad:
                best_cmode, best_csad = mode, sad
    return best_mode, best_sad, best_cmode


@noalloc_kernel
def chroma_residual(src, y0, x0, pred, qpc, rounding, diff, lev, dclev):
    """Transform and quantise one chroma component; returns its cbp class (0 nothing,
    1 DC only, 2 AC)."""  # pragma: no cover - compiled
    for r in range(8):
        for c in range(8):
            diff[r, c] = np.int64(src[y0 + r, x0 + c]) - pred[r, c]
    n_ac = 0
    for by in range(0, 8, 4):
        for bx in range(0, 8, 4):
            lev[by, bx] = 0
            n_ac += transform_quant4x4(diff, lev, by, bx, qpc, rounding, 1)
    n_dc = chroma_dc_forward(diff, dclev, qpc, rounding)
    if n_ac > 0:
        return 2
    return 1 if n_dc > 0 else 0


@noalloc_kernel
def chroma_reconstruct(lev, dclev, qpc, pred, out, y0, x0, dc):  # pragma: no cover
    chroma_dc_inverse(dclev, qpc, dc)
    for k in range(4):
        by, bx = 4 * (k // 2), 4 * (k % 2)
        dequant_idct_add(lev, by, bx, qpc, dc[k], True, pred, out, y0 + by, x0 + bx)


@noalloc_kernel
def write_luma(buf, st, lev, cbp_luma, start, nzy, mby, mbx, coefs, stats):  # pragma: no cover
    """The luma part of residual(): the 4x4 blocks of each 8x8 whose coded_block_pattern bit is
    set, from scan position ``start`` (1: Intra 16x16 AC), recording their TotalCoeff."""
    gy, gx = 4 * mby, 4 * mbx
    for b in range(16):
        if cbp_luma & (1 << (b // 4)):
            by, bx = gy + BLK_Y[b] // 4, gx + BLK_X[b] // 4
            scan(lev, BLK_Y[b], BLK_X[b], start, coefs)
            nzy[by, bx] = write_block(buf, st, coefs, np.int64(16 - start), nc_of(nzy, by, bx),
                                      stats)


@noalloc_kernel
def write_chroma(buf, st, cbp_chroma, dclev_u, dclev_v, lev_u, lev_v, nzu, nzv, mby, mbx,
                  coefs, stats):  # pragma: no cover - compiled
    """The chroma part of residual(): both DC blocks, then both components' AC blocks."""
    if cbp_chroma == 0:
        return
    four, no_nc = np.int64(4), np.int64(-1)   # int64s, not literals: one write_block
    write_block(buf, st, dclev_u, four, no_nc, stats)
    write_block(buf, st, dclev_v, four, no_nc, stats)
    if cbp_chroma < 2:
        return
    for comp in range(2):
        lev = lev_u if comp == 0 else lev_v
        nz = nzu if comp == 0 else nzv
        for k in range(4):
            by, bx = k // 2, k % 2
            gy, gx = 2 * mby + by, 2 * mbx + bx
            scan(lev, 4 * by, 4 * bx, 1, coefs)
            nz[gy, gx] = write_block(buf, st, coefs, np.int64(15), nc_of(nz, gy, gx), stats)


