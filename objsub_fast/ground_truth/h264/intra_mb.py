"""Intra macroblocks: Intra 16x16 and Intra 4x4 (I_NxN), predicted, transformed, quantised,
reconstructed and written (7.3.5, 8.3.1, 8.3.3). Where both are worth trying, both are
written and the one of lower rate-distortion cost (SSD + lambda * bits, integers) is kept:
the writer is rewound to drop the other.

Scratch arrays (allocated once per picture): ``m16`` (3, 16, 16) prediction, residual and
levels; ``m8`` (5, 8, 8) Cb/Cr predictions, chroma residual, Cb/Cr levels; ``m4`` (2, 4, 4)
luma DC levels and scaled DCs; ``v4`` (3, 4) Cb/Cr DC levels and scaled DCs; ``coefs`` (16,).
"""
from __future__ import annotations

import numpy as np

from ...runtime._numba import noalloc_kernel
from .bitstream import put_bits, put_se, put_ue, ue_bits
from .cavlc import (S_CHROMA_DC, S_I16_V, S_I4_0, S_MB_I16X16, S_MB_I4X4, coeff_token_table,
                    write_block)
from .cavlc_tables import (CBP_INTRA_CODE_NUM, COEFF_TOKEN_CODE, COEFF_TOKEN_LEN,
                           ZIGZAG_4X4 as ZIGZAG)
from .intra import predict_chroma8, predict_luma16
from .intra4 import N_MODES, edge_samples, load_edges, mode4x4_ok, mode_sad, predict4x4_from
from .mb_common import (BLK_X, BLK_Y, best_intra, chroma_reconstruct, chroma_residual,
                        nc_of, put_block, write_chroma, write_luma)
from .transform import (INTRA_ROUNDING, dequant_idct_add, luma_dc_forward, luma_dc_inverse,
                        transform_quant4x4)

#: luma4x4BlkIdx of the 4x4 block at raster position row * 4 + col of a macroblock.
BLK_OF_RASTER = np.array([0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15], np.int64)


@noalloc_kernel
def code_chroma(su, sv, cu, cv, yc, xc, qpc, rounding, pred_u, pred_v, diff, lev_u, lev_v,
                dclev_u, dclev_v, dc):  # pragma: no cover - compiled
    """Residual and reconstruction of both chroma components (predictions in pred_u, pred_v;
    the scratch arrays are the views of m8 and v4 of the module docstring, made once per
    picture by the caller); returns the chroma part of coded_block_pattern (0, 1 or 2)."""
    cls_u = chroma_residual(su, yc, xc, pred_u, qpc, rounding, diff, lev_u, dclev_u)
    cls_v = chroma_residual(sv, yc, xc, pred_v, qpc, rounding, diff, lev_v, dclev_v)
    cbp_chroma = max(cls_u, cls_v)
    if cbp_chroma < 2:
        lev_u[:, :] = 0
        lev_v[:, :] = 0
    if cbp_chroma == 0:   # every level zero: the reconstruction is the prediction
        put_block(pred_u, cu, yc, xc, 8)
        put_block(pred_v, cv, yc, xc, 8)
        return 0
    chroma_reconstruct(lev_u, dclev_u, qpc, pred_u, cu, yc, xc, dc)
    chroma_reconstruct(lev_v, dclev_v, qpc, pred_v, cv, yc, xc, dc)
    return cbp_chroma


@noalloc_kernel(inline="always")
def _fill(plane, y0, x0, n, value):  # pragma: no cover - compiled
    for r in range(n):
        for c in range(n):
            plane[y0 + r, x0 + c] = value


@noalloc_kernel
def _clear_contexts(nzy, nzu, nzv, i4m, mby, mbx, dc_mode):  # pragma: no cover - compiled
    """TotalCoeff 0 and (for Intra 16x16) the Intra 4x4 mode DC for the macroblock's blocks,
    so that a rewound trial leaves nothing behind."""
    for r in range(4):
        for c in range(4):
            nzy[4 * mby + r, 4 * mbx + c] = 0
            if dc_mode:
                i4m[4 * mby + r, 4 * mbx + c] = 2
    for r in range(2):
        for c in range(2):
            nzu[2 * mby + r, 2 * mbx + c] = 0
            nzv[2 * mby + r, 2 * mbx + c] = 0


@noalloc_kernel(inline="always")
def _count_i16(stats, imode, icmode):  # pragma: no cover - compiled
    """Count an Intra 16x16 macroblock and its luma and chroma modes in ``stats``."""
    stats[S_MB_I16X16] += 1
    stats[S_I16_V + imode] += 1
    stats[S_CHROMA_DC + icmode] += 1


@noalloc_kernel(inline="always")
def _i16_header(buf, st, stats, p_slice, imode, icmode, cbp_luma, cbp_chroma):
    """An Intra 16x16 macroblock's mb_type, intra_chroma_pred_mode and mb_qp_delta, counted
    in ``stats``."""  # pragma: no cover - compiled
    mb_type = 1 + imode + 4 * cbp_chroma + (12 if cbp_luma else 0)
    put_ue(buf, st, mb_type + 5 if p_slice else mb_type)
    put_ue(buf, st, icmode)
    put_se(buf, st, 0)                                    # mb_qp_delta
    _count_i16(stats, imode, icmode)


@noalloc_kernel(inline="always")
def code_flat_i16(sy, su, sv, cy_, cu, cv, y0, x0, mby, mbx, p_slice, imode, nzy, buf, st,
                  stats):  # pragma: no cover - compiled
    """Code the macroblock at (y0, x0), one flat colour that its Intra 16x16 prediction in
    ``imode`` (0 V, 1 H; ``mb_common.flat_edge_mode``) gives exactly, with chroma in the
    same direction: no residual, the reconstruction a fill of the source's colour. Its
    TotalCoeff counts stay zero as the picture began them (and Intra 4x4 modes are read in
    an IDR picture only, which begins them all DC)."""
    yc, xc = y0 // 2, x0 // 2
    _fill(cy_, y0, x0, 16, sy[y0, x0])
    _fill(cu, yc, xc, 8, su[yc, xc])
    _fill(cv, yc, xc, 8, sv[yc, xc])
    # as _i16_header and write_block would write them, in one go (at most 5 + 3 + 1 + 6
    # bits): mb_type and intra_chroma_pred_mode ue(v), mb_qp_delta se(0) ('1'), then the
    # coeff_token of an empty Intra16x16DCLevel block
    mb_type, icmode = 1 + imode + (5 if p_slice else 0), 2 - imode
    table = coeff_token_table(nc_of(nzy, 4 * mby, 4 * mbx))
    n_type, n_mode, n_token = ue_bits(mb_type), ue_bits(icmode), COEFF_TOKEN_LEN[table, 0, 0]
    code = (((((mb_type + 1) << n_mode) | (icmode + 1)) << 1 | 1) << n_token) | \
        COEFF_TOKEN_CODE[table, 0, 0]
    put_bits(buf, st, code, n_type + n_mode + 1 + n_token)
    _count_i16(stats, imode, icmode)
    stats[table] += 1


@noalloc_kernel
def code_i16(sy, su, sv, cy_, cu, cv, y0, x0, mby, mbx, p_slice, qp, qpc, imode, icmode,
             nzy, nzu, nzv, i4m, buf, st, stats, m16, m8, m4, v4, coefs):
    """Code the macroblock at (y0, x0) as Intra 16x16 with these modes; returns the chroma
    part of its coded_block_pattern (its chroma levels stay in ``m8`` and ``v4``)."""
    pred, diff, lev = m16[0], m16[1], m16[2]  # pragma: no cover - compiled
    dclev, dc = m4[0], m4[1]
    left, top = x0 > 0, y0 > 0
    yc, xc = y0 // 2, x0 // 2
    _clear_contexts(nzy, nzu, nzv, i4m, mby, mbx, True)
    predict_luma16(cy_, y0, x0, imode, left, top, pred)
    predict_chroma8(cu, yc, xc, icmode, left, top, m8[0])
    predict_chroma8(cv, yc, xc, icmode, left, top, m8[1])
    for r in range(16):
        for c in range(16):
            diff[r, c] = np.int64(sy[y0 + r, x0 + c]) - pred[r, c]
    n_ac = 0
    for b in range(16):
        lev[BLK_Y[b], BLK_X[b]] = 0
        n_ac += transform_quant4x4(diff, lev, BLK_Y[b], BLK_X[b], qp, INTRA_ROUNDING, 1)
    n_dc = luma_dc_forward(diff, dclev, qp)
    cbp_luma = 15 if n_ac > 0 else 0
    if n_dc > 0:
        luma_dc_inverse(dclev, qp, dc)
    else:
        dc[:, :] = 0
    for b in range(16):
        dequant_idct_add(lev, BLK_Y[b], BLK_X[b], qp, dc[BLK_Y[b] // 4, BLK_X[b] // 4], True,
                         pred, cy_, y0 + BLK_Y[b], x0 + BLK_X[b])
    cbp_chroma = code_chroma(su, sv, cu, cv, yc, xc, qpc, INTRA_ROUNDING, m8[0], m8[1],
                             m8[2], m8[3], m8[4], v4[0], v4[1], v4[2])
    _i16_header(buf, st, stats, p_slice, imode, icmode, cbp_luma, cbp_chroma)
    gy, gx = 4 * mby, 4 * mbx
    for k in range(16):
        coefs[k] = dclev[ZIGZAG[k] // 4, ZIGZAG[k] % 4]
    write_block(buf, st, coefs, np.int64(16), nc_of(nzy, gy, gx), stats)
    write_luma(buf, st, lev, cbp_luma, 1, nzy, mby, mbx, coefs, stats)
    write_chroma(buf, st, cbp_chroma, v4[0], v4[1], m8[3], m8[4], nzu, nzv, mby, mbx, coefs,
                 stats)
    return cbp_chroma


@noalloc_kernel
def code_i4(sy, cy_, y0, x0, mby, mbx, p_slice, qp, icmode, cbp_chroma, lam, nzy, nzu, nzv,
            i4m, buf, st, stats, m16, m8, v4, coefs, i4s):
    """Code the macroblock at (y0, x0) as Intra 4x4: each block's mode by SAD + lambda * mode
    bits, predicted and reconstructed in decoding order. Its chroma is the one :func:`code_i16`
    coded just before in chroma mode ``icmode`` (the same prediction from the same neighbours:
    the same levels, left in ``m8`` and ``v4``, and reconstruction; ``cbp_chroma`` its part of
    coded_block_pattern). ``i4s``: (6, 48) int64 scratch (edges, modes, predicted modes,
    level counts, ``intra4.edge_samples``)."""
    pred, diff, lev = m16[0], m16[1], m16[2]  # pragma: no cover - compiled
    width = cy_.shape[1]
    t, lf = i4s[0, :9], i4s[1, :5]
    modes, predicted, counts, samples = i4s[2, :16], i4s[3, :16], i4s[4, :16], i4s[5]
    _clear_contexts(nzy, nzu, nzv, i4m, mby, mbx, False)
    for b in range(16):
        bx, by = BLK_X[b], BLK_Y[b]
        gx, gy = 4 * mbx + bx // 4, 4 * mby + by // 4
        left, top = gx > 0, gy > 0
        top_right = False
        if top:
            if by == 0:
                top_right = x0 + bx + 4 < width
            elif bx + 4 < 16:
                top_right = BLK_OF_RASTER[(by // 4 - 1) * 4 + bx // 4 + 1] < b
        pm = min(i4m[gy, gx - 1], i4m[gy - 1, gx]) if left and top else 2
        load_edges(cy_, y0 + by, x0 + bx, left, top, top_right, t, lf)
        edge_samples(t, lf, left, top, samples)
        best, best_cost = 2, 1 << 40
        for m in range(N_MODES):
            if not mode4x4_ok(m, left, top):
                continue
            cost = mode_sad(samples, m, sy, y0 + by, x0 + bx) + lam * (1 if m == pm else 4)
            if cost < best_cost:
                best, best_cost = m, cost
        modes[b], predicted[b] = best, pm
        i4m[gy, gx] = best
        predict4x4_from(samples, best, pred, by, bx)
        for r in range(4):
            for c in range(4):
                diff[by + r, bx + c] = np.int64(sy[y0 + by + r, x0 + bx + c]) - pred[by + r, bx + c]
        counts[b] = transform_quant4x4(diff, lev, by, bx, qp, INTRA_ROUNDING, 0)
        dequant_idct_add(lev, by, bx, qp, 0, False, pred, cy_, y0 + by, x0 + bx)
    cbp_luma = np.int64(0)   # not a literal: write_luma compiled once for both callers
    for b8 in range(4):
        if counts[4 * b8] + counts[4 * b8 + 1] + counts[4 * b8 + 2] + counts[4 * b8 + 3] > 0:
            cbp_luma |= 1 << b8
    put_ue(buf, st, 5 if p_slice else 0)                  # I_NxN
    for b in range(16):
        if modes[b] == predicted[b]:
            put_bits(buf, st, 1, 1)                       # prev_intra4x4_pred_mode_flag
        else:
            put_bits(buf, st, 0, 1)
            put_bits(buf, st, modes[b] if modes[b] < predicted[b] else modes[b] - 1, 3)
        stats[S_I4_0 + modes[b]] += 1
    put_ue(buf, st, icmode)
    cbp = cbp_luma + 16 * cbp_chroma
    put_ue(buf, st, CBP_INTRA_CODE_NUM[cbp])
    stats[S_MB_I4X4] += 1
    stats[S_CHROMA_DC + icmode] += 1
    if cbp > 0:
        put_se(buf, st, 0)                                # mb_qp_delta
    write_luma(buf, st, lev, cbp_luma, 0, nzy, mby, mbx, coefs, stats)
    write_chroma(buf, st, cbp_chroma, v4[0], v4[1], m8[3], m8[4], nzu, nzv, mby, mbx, coefs,
                 stats)


@noalloc_kernel(inline="always")
def _copy_into(src, dst):  # pragma: no cover - compiled
    """dst[:] = src, element by element (a slice assignment between arrays may allocate)."""
    for k in range(src.shape[0]):
        dst[k] = src[k]


@noalloc_kernel
def _luma_ssd(sy, cy_, y0, x0):  # pragma: no cover - compiled
    total = 0
    for r in range(16):
        for c in range(16):
            d = np.int64(sy[y0 + r, x0 + c]) - np.int64(cy_[y0 + r, x0 + c])
            total += d * d
    return total


@noalloc_kernel
def _keep_i16(buf, st, pos, stats, cy_, cu, cv, nzy, nzu, nzv, y0, x0, kept, kept_bytes):
    """Keep what coding a macroblock as Intra 16x16 left behind (its bytes from ``pos``, the
    counters, its TotalCoeff counts and reconstruction) in ``kept`` and ``kept_bytes``, so
    that :func:`_restore_i16` can put it back without coding it again; False (nothing kept)
    when its bytes do not fit."""  # pragma: no cover - compiled
    n = st[0] - pos
    if n > kept_bytes.shape[0] - 384:
        return False
    for k in range(n):
        kept_bytes[384 + k] = buf[pos + k]
    _keep_planes(cy_, cu, cv, y0, x0, kept_bytes, True)
    m = stats.shape[0]
    for k in range(m):
        kept[k] = stats[k]
    kept[m], kept[m + 1], kept[m + 2] = st[0], st[1], st[2]
    for k in range(16):
        kept[m + 3 + k] = nzy[y0 // 4 + (k >> 2), x0 // 4 + (k & 3)]
    for k in range(4):
        kept[m + 19 + k] = nzu[y0 // 8 + (k >> 1), x0 // 8 + (k & 1)]
        kept[m + 23 + k] = nzv[y0 // 8 + (k >> 1), x0 // 8 + (k & 1)]
    return True


@noalloc_kernel
def _restore_i16(buf, st, pos, stats, cy_, cu, cv, nzy, nzu, nzv, i4m, y0, x0, kept,
                 kept_bytes):  # pragma: no cover - compiled
    """Put back what :func:`_keep_i16` kept: the writer, counters and macroblock as they were
    right after coding it as Intra 16x16."""
    m = stats.shape[0]
    for k in range(m):
        stats[k] = kept[k]
    for k in range(kept[m] - pos):
        buf[pos + k] = kept_bytes[384 + k]
    st[0], st[1], st[2] = kept[m], kept[m + 1], kept[m + 2]
    _keep_planes(cy_, cu, cv, y0, x0, kept_bytes, False)
    for k in range(16):
        nzy[y0 // 4 + (k >> 2), x0 // 4 + (k & 3)] = kept[m + 3 + k]
        i4m[y0 // 4 + (k >> 2), x0 // 4 + (k & 3)] = 2
    for k in range(4):
        nzu[y0 // 8 + (k >> 1), x0 // 8 + (k & 1)] = kept[m + 19 + k]
        nzv[y0 // 8 + (k >> 1), x0 // 8 + (k & 1)] = kept[m + 23 + k]


@noalloc_kernel(inline="always")
def _keep_planes(cy_, cu, cv, y0, x0, kept_bytes, keep):  # pragma: no cover - compiled
    """Copy the macroblock's 384 reconstructed samples into ``kept_bytes[:384]`` (``keep``)
    or back from it."""
    for r in range(16):
        for c in range(16):
            if keep:
                kept_bytes[16 * r + c] = cy_[y0 + r, x0 + c]
            else:
                cy_[y0 + r, x0 + c] = kept_bytes[16 * r + c]
    for r in range(8):
        for c in range(8):
            if keep:
                kept_bytes[256 + 8 * r + c] = cu[y0 // 2 + r, x0 // 2 + c]
                kept_bytes[320 + 8 * r + c] = cv[y0 // 2 + r, x0 // 2 + c]
            else:
                cu[y0 // 2 + r, x0 // 2 + c] = kept_bytes[256 + 8 * r + c]
                cv[y0 // 2 + r, x0 // 2 + c] = kept_bytes[320 + 8 * r + c]


@noalloc_kernel
def code_intra(sy, su, sv, cy_, cu, cv, y0, x0, mby, mbx, p_slice, qp, qpc, lam, lam2, use_i4,
               nzy, nzu, nzv, i4m, buf, st, stats, saved, m16, m8, m4, v4, coefs, known,
               kept, kept_bytes, i4s):
    """Code an intra macroblock (not one of :func:`code_flat_i16`'s) as the better of Intra
    16x16 (best modes by SAD; ``known``: as in ``mb_common.best_intra``) and, if ``use_i4``,
    Intra 4x4 (``saved``: room for the counters while both are tried; ``kept`` (len(stats) +
    27 int64), ``kept_bytes`` (uint8, 384 + room for a macroblock's bytes): the Intra 16x16
    result while Intra 4x4 is tried; ``i4s``: the scratch of :func:`code_i4`)."""
    imode, isad, icmode = best_intra(  # pragma: no cover - compiled
        sy, su, sv, cy_, cu, cv, y0, x0, m16[0], m8[0], m8[1], known)
    if not use_i4 or isad == 0:
        code_i16(sy, su, sv, cy_, cu, cv, y0, x0, mby, mbx, p_slice, qp, qpc, imode, icmode,
                 nzy, nzu, nzv, i4m, buf, st, stats, m16, m8, m4, v4, coefs)
        return
    pos, acc, nbits = st[0], st[1], st[2]
    _copy_into(stats, saved)
    cbp_chroma = code_i16(sy, su, sv, cy_, cu, cv, y0, x0, mby, mbx, p_slice, qp, qpc, imode,
                          icmode, nzy, nzu, nzv, i4m, buf, st, stats, m16, m8, m4, v4, coefs)
    cost16 = _luma_ssd(sy, cy_, y0, x0) + lam2 * ((st[0] - pos) * 8 + st[2] - nbits)
    was_kept = _keep_i16(buf, st, pos, stats, cy_, cu, cv, nzy, nzu, nzv, y0, x0, kept,
                         kept_bytes)
    st[0], st[1], st[2] = pos, acc, nbits
    _copy_into(saved, stats)
    code_i4(sy, cy_, y0, x0, mby, mbx, p_slice, qp, icmode, cbp_chroma, lam, nzy, nzu, nzv, i4m,
            buf, st, stats, m16, m8, v4, coefs, i4s)
    cost4 = _luma_ssd(sy, cy_, y0, x0) + lam2 * ((st[0] - pos) * 8 + st[2] - nbits)
    if cost16 <= cost4:
        if was_kept:   # the same state as coding it again
            _restore_i16(buf, st, pos, stats, cy_, cu, cv, nzy, nzu, nzv, i4m, y0, x0, kept,
                         kept_bytes)
            return
        st[0], st[1], st[2] = pos, acc, nbits
        _copy_into(saved, stats)
        code_i16(sy, su, sv, cy_, cu, cv, y0, x0, mby, mbx, p_slice, qp, qpc, imode, icmode,
                 nzy, nzu, nzv, i4m, buf, st, stats, m16, m8, m4, v4, coefs)
