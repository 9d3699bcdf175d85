"""The picture kernel: decides and writes every macroblock of one slice (the whole picture)
and reconstructs it exactly as a decoder will (7.3.4-7.3.5, 8.3-8.5).

Macroblock types used: Intra 16x16 (all four luma and chroma modes) in I and P slices,
P_L0_16x16 with integer-pel vectors, and P_Skip. The caller says which macroblocks may
differ from the previous picture (``code``); the others are P_Skip, or P_L0_16x16 with the
zero vector and no residual where P_Skip's predicted vector would not be zero.
"""
from __future__ import annotations

import numpy as np

from .._numba import kernel
from .bitstream import put_bits, put_se, put_ue, se_bits
from .cavlc import (S_CHROMA_DC, S_I16_V, S_MB_I16X16, S_MB_P16X16, S_MB_P16X16_ZERO_MV,
                    S_MB_SKIP, S_MV_ODD_CHROMA, S_MV_OUTSIDE, write_block)
from .cavlc_tables import CBP_INTER_CODE_NUM, ZIGZAG_4X4 as ZIGZAG
from .inter import luma_sad, predict_chroma, predict_luma, predict_mv, skip_mv
from .intra import chroma_mode_ok, luma_mode_ok, predict_chroma8, predict_luma16
from .transform import (INTER_ROUNDING, INTRA_ROUNDING, chroma_dc_forward, chroma_dc_inverse,
                        dequant_idct_add, forward4x4, luma_dc_forward, luma_dc_inverse,
                        quant4x4)

#: Offsets (x, y) in pixels of luma4x4BlkIdx 0..15 in its macroblock (6.4.3).
BLK_X = np.array([0, 4, 0, 4, 8, 12, 8, 12, 0, 4, 0, 4, 8, 12, 8, 12], np.int64)
BLK_Y = np.array([0, 0, 4, 4, 0, 0, 4, 4, 8, 8, 12, 12, 8, 8, 12, 12], np.int64)
#: Largest motion vector component searched, in pixels.
MAX_MV_PIXELS = 128
#: Intra 16x16 is tried in a P slice only when the best vector leaves more than this SAD
#: (an average error of 4 per luma sample): cheaper, and inter wins below it anyway.
INTRA_TRY_SAD = 0
#: Weighted-prediction parameters: on, logWD, luma w, o, Cb w, o, Cr w, o.
NO_WEIGHTS = np.zeros(8, np.int64)


@kernel(inline="always")
def _nc(nz, gy, gx):  # pragma: no cover - compiled
    """nC of a block from its left and upper neighbours' TotalCoeff (9.2.1)."""
    if gx > 0 and gy > 0:
        return (nz[gy, gx - 1] + nz[gy - 1, gx] + 1) >> 1
    if gx > 0:
        return nz[gy, gx - 1]
    if gy > 0:
        return nz[gy - 1, gx]
    return 0


@kernel
def _scan(lev, y, x, start, out):  # pragma: no cover - compiled
    """Levels of the 4x4 block at (y, x) in zig-zag order from scan position ``start``."""
    for k in range(start, 16):
        out[k - start] = lev[y + ZIGZAG[k] // 4, x + ZIGZAG[k] % 4]


@kernel
def _uniform_mb(sy, su, sv, y0, x0):  # pragma: no cover - compiled
    """Whether the source macroblock is one flat colour in Y, Cb and Cr."""
    v = sy[y0, x0]
    for r in range(16):
        for c in range(16):
            if sy[y0 + r, x0 + c] != v:
                return False
    cy, cx = y0 // 2, x0 // 2
    u, w = su[cy, cx], sv[cy, cx]
    for r in range(8):
        for c in range(8):
            if su[cy + r, cx + c] != u or sv[cy + r, cx + c] != w:
                return False
    return True


@kernel
def _flat_edge_mode(sy, su, sv, cy_, cu, cv, y0, x0):  # pragma: no cover - compiled
    """For a flat source macroblock: an Intra 16x16 mode (0 V, 1 H) whose prediction from the
    reconstructed neighbours is exactly the source, or -1."""
    val, u, w = sy[y0, x0], su[y0 // 2, x0 // 2], sv[y0 // 2, x0 // 2]
    if y0 > 0:
        ok = True
        for c in range(16):
            if cy_[y0 - 1, x0 + c] != val:
                ok = False
                break
        for c in range(8):
            if cu[y0 // 2 - 1, x0 // 2 + c] != u or cv[y0 // 2 - 1, x0 // 2 + c] != w:
                ok = False
                break
        if ok:
            return 0
    if x0 > 0:
        ok = True
        for r in range(16):
            if cy_[y0 + r, x0 - 1] != val:
                ok = False
                break
        for r in range(8):
            if cu[y0 // 2 + r, x0 // 2 - 1] != u or cv[y0 // 2 + r, x0 // 2 - 1] != w:
                ok = False
                break
        if ok:
            return 1
    return -1


@kernel
def _sad_block(src, y0, x0, pred, n):  # pragma: no cover - compiled
    total = 0
    for r in range(n):
        for c in range(n):
            d = np.int64(src[y0 + r, x0 + c]) - pred[r, c]
            total += d if d >= 0 else -d
    return total


@kernel
def _best_intra(sy, su, sv, cy_, cu, cv, y0, x0, pred, cpred_u, cpred_v):
    """Best Intra 16x16 luma mode and chroma mode by SAD; returns (luma mode, luma SAD,
    chroma mode)."""  # pragma: no cover - compiled
    left, top = x0 > 0, y0 > 0
    best_mode, best_sad = -1, 1 << 40
    for mode in range(4):
        if luma_mode_ok(mode, left, top):
            predict_luma16(cy_, y0, x0, mode, left, top, pred)
            sad = _sad_block(sy, y0, x0, pred, 16)
            if sad < best_sad:
                best_mode, best_sad = mode, sad
    best_cmode, best_csad = -1, 1 << 40
    for mode in range(4):
        if chroma_mode_ok(mode, left, top):
            predict_chroma8(cu, y0 // 2, x0 // 2, mode, left, top, cpred_u)
            predict_chroma8(cv, y0 // 2, x0 // 2, mode, left, top, cpred_v)
            sad = _sad_block(su, y0 // 2, x0 // 2, cpred_u, 8) + \
                _sad_block(sv, y0 // 2, x0 // 2, cpred_v, 8)
            if sad < best_csad:
                best_cmode, best_csad = mode, sad
    return best_mode, best_sad, best_cmode


@kernel
def _chroma_residual(src, y0, x0, pred, qpc, rounding, diff, lev, dclev):
    """Transform and quantise one chroma component; returns its cbp class (0 nothing,
    1 DC only, 2 AC)."""  # pragma: no cover - compiled
    for r in range(8):
        for c in range(8):
            diff[r, c] = np.int64(src[y0 + r, x0 + c]) - pred[r, c]
    for by in range(0, 8, 4):
        for bx in range(0, 8, 4):
            forward4x4(diff, by, bx)
    n_dc = chroma_dc_forward(diff, dclev, qpc, rounding)
    n_ac = 0
    for by in range(0, 8, 4):
        for bx in range(0, 8, 4):
            lev[by, bx] = 0
            n_ac += quant4x4(diff, lev, by, bx, qpc, rounding, 1)
    if n_ac > 0:
        return 2
    return 1 if n_dc > 0 else 0


@kernel
def _chroma_reconstruct(lev, dclev, qpc, pred, out, y0, x0, dc):  # pragma: no cover
    chroma_dc_inverse(dclev, qpc, dc)
    for k in range(4):
        by, bx = 4 * (k // 2), 4 * (k % 2)
        dequant_idct_add(lev, by, bx, qpc, dc[k], True, pred, out, y0 + by, x0 + bx)


@kernel
def _copy_pred(pred, out, y0, x0, n):  # pragma: no cover - compiled
    for r in range(n):
        for c in range(n):
            out[y0 + r, x0 + c] = pred[r, c]


@kernel
def _write_chroma(buf, st, cbp_chroma, dclev_u, dclev_v, lev_u, lev_v, nzu, nzv, mby, mbx,
                  coefs, stats):  # pragma: no cover - compiled
    """The chroma part of residual(): both DC blocks, then both components' AC blocks."""
    if cbp_chroma == 0:
        return
    write_block(buf, st, dclev_u, 4, -1, stats)
    write_block(buf, st, dclev_v, 4, -1, stats)
    if cbp_chroma < 2:
        return
    for comp in range(2):
        lev = lev_u if comp == 0 else lev_v
        nz = nzu if comp == 0 else nzv
        for k in range(4):
            by, bx = k // 2, k % 2
            gy, gx = 2 * mby + by, 2 * mbx + bx
            _scan(lev, 4 * by, 4 * bx, 1, coefs)
            nz[gy, gx] = write_block(buf, st, coefs, 15, _nc(nz, gy, gx), stats)


@kernel
def _write_inter_header(buf, st, mv, ref, mby, mbx, mvx, mvy, ref_idx, two_refs, cbp):
    """mb_type P_L0_16x16, ref_idx_l0 (te(v) of range 1 when two are active), the vector's
    difference from its prediction, coded_block_pattern me(v)."""  # pragma: no cover
    put_ue(buf, st, 0)
    if two_refs:
        put_bits(buf, st, 1 - ref_idx, 1)
    pmx, pmy = predict_mv(mv, ref, mby, mbx, ref_idx)
    put_se(buf, st, mvx - pmx)
    put_se(buf, st, mvy - pmy)
    put_ue(buf, st, CBP_INTER_CODE_NUM[cbp])


@kernel
def encode_picture(sy, su, sv, ry, ru, rv, cy_, cu, cv, code, is_idr, qp, qpc, lam,
                   mv, ref, prev_mv, nzy, nzu, nzv, weights, buf, st, stats):
    """Write slice_data() of one picture and reconstruct it into (cy_, cu, cv).

    sy, su, sv: source planes padded to whole macroblocks; ry, ru, rv: the reference (the
    previous reconstruction; unused for an IDR); cy_, cu, cv: the reconstruction, holding the
    previous picture on entry. ``code[mby, mbx]``: the macroblock may differ from the previous
    picture. mv, ref, nzy, nzu, nzv: this picture's vectors, reference indices and TotalCoeff
    counts, zeroed by the caller (ref -1 for an IDR). ``weights``: :data:`NO_WEIGHTS` or the
    explicit weights of reference index 1 (then two reference indices are coded).
    """  # pragma: no cover - compiled
    mbh, mbw = code.shape
    pred = np.empty((16, 16), np.int64)
    cand = np.empty((16, 16), np.int64)
    pred_u = np.empty((8, 8), np.int64)
    pred_v = np.empty((8, 8), np.int64)
    diff = np.empty((16, 16), np.int64)
    lev = np.zeros((16, 16), np.int64)
    dclev = np.zeros((4, 4), np.int64)
    dc = np.zeros((4, 4), np.int64)
    diff_c = np.empty((8, 8), np.int64)
    lev_u = np.zeros((8, 8), np.int64)
    lev_v = np.zeros((8, 8), np.int64)
    dclev_u = np.zeros(4, np.int64)
    dclev_v = np.zeros(4, np.int64)
    dc_c = np.zeros(4, np.int64)
    coefs = np.zeros(16, np.int64)
    tried = np.zeros((5, 2), np.int64)
    two_refs = weights[0] != 0
    skip_run = 0
    for mby in range(mbh):
        for mbx in range(mbw):
            y0, x0 = 16 * mby, 16 * mbx
            yc, xc = 8 * mby, 8 * mbx
            # ---------------------------------------------------------- decide
            intra = is_idr
            flat_mode = -1
            mvx = mvy = 0
            ref_idx = 0
            zero_residual = False
            imode = icmode = 0
            if not is_idr and code[mby, mbx] == 0:
                # unchanged: the previous picture as it is (P_Skip, or a zero vector coded)
                sx_, sy_ = skip_mv(mv, ref, mby, mbx)
                if sx_ == 0 and sy_ == 0:
                    skip_run += 1
                    stats[S_MB_SKIP] += 1
                    continue
                put_ue(buf, st, skip_run)
                skip_run = 0
                _write_inter_header(buf, st, mv, ref, mby, mbx, 0, 0, 0, two_refs, 0)
                stats[S_MB_P16X16] += 1
                stats[S_MB_P16X16_ZERO_MV] += 1
                continue
            if not is_idr:
                pmx, pmy = predict_mv(mv, ref, mby, mbx, 0)
                best_cost = 1 << 40
                best_sad = 0
                n_tried = 0
                # candidates: zero, this macroblock's previous vector, the neighbours'
                for k in range(5):
                    if k == 0:
                        tx, ty = 0, 0
                    elif k == 1:
                        tx, ty = prev_mv[mby, mbx, 0], prev_mv[mby, mbx, 1]
                    elif k == 2:
                        tx, ty = pmx, pmy
                    elif k == 3 and mbx > 0 and ref[mby, mbx - 1] >= 0:
                        tx, ty = mv[mby, mbx - 1, 0], mv[mby, mbx - 1, 1]
                    elif k == 4 and mby > 0 and ref[mby - 1, mbx] >= 0:
                        tx, ty = mv[mby - 1, mbx, 0], mv[mby - 1, mbx, 1]
                    else:
                        continue
                    tx, ty = tx - (tx & 3), ty - (ty & 3)
                    if abs(tx) > 4 * MAX_MV_PIXELS or abs(ty) > 4 * MAX_MV_PIXELS:
                        continue
                    seen = False
                    for j in range(n_tried):
                        if tried[j, 0] == tx and tried[j, 1] == ty:
                            seen = True
                    if seen:
                        continue
                    tried[n_tried, 0], tried[n_tried, 1] = tx, ty
                    n_tried += 1
                    sad = luma_sad(sy, y0, x0, ry, ty >> 2, tx >> 2, best_cost)
                    cost = sad + lam * (se_bits(tx - pmx) + se_bits(ty - pmy))
                    if cost < best_cost:
                        best_cost, best_sad, mvx, mvy = cost, sad, tx, ty
                steps = 0
                moved = best_sad > 0
                while moved and steps < 16:   # 1-pel diamond refinement
                    moved = False
                    steps += 1
                    for d in range(4):
                        tx = mvx + (4 if d == 0 else (-4 if d == 1 else 0))
                        ty = mvy + (4 if d == 2 else (-4 if d == 3 else 0))
                        if abs(tx) > 4 * MAX_MV_PIXELS or abs(ty) > 4 * MAX_MV_PIXELS:
                            continue
                        sad = luma_sad(sy, y0, x0, ry, ty >> 2, tx >> 2, best_cost)
                        cost = sad + lam * (se_bits(tx - pmx) + se_bits(ty - pmy))
                        if cost < best_cost:
                            best_cost, best_sad, mvx, mvy = cost, sad, tx, ty
                            moved = True
                if best_sad > INTRA_TRY_SAD:
                    imode, isad, icmode = _best_intra(sy, su, sv, cy_, cu, cv, y0, x0, cand,
                                                      pred_u, pred_v)
                    if isad + 8 * lam < best_cost:
                        intra = True
            if intra:
                if _uniform_mb(sy, su, sv, y0, x0):
                    flat_mode = _flat_edge_mode(sy, su, sv, cy_, cu, cv, y0, x0)
                if flat_mode >= 0:
                    imode, icmode = flat_mode, 2 - flat_mode   # V with V, H with H
                    zero_residual = True
                else:
                    imode, isad, icmode = _best_intra(sy, su, sv, cy_, cu, cv, y0, x0, cand,
                                                      pred_u, pred_v)
                left, top = x0 > 0, y0 > 0
                predict_luma16(cy_, y0, x0, imode, left, top, pred)
                predict_chroma8(cu, yc, xc, icmode, left, top, pred_u)
                predict_chroma8(cv, yc, xc, icmode, left, top, pred_v)
                ref[mby, mbx] = -1
            else:
                predict_luma(ry, y0, x0, mvx, mvy, pred, 0, 1, 0, False)
                predict_chroma(ru, yc, xc, mvx, mvy, pred_u, 0, 1, 0, False)
                predict_chroma(rv, yc, xc, mvx, mvy, pred_v, 0, 1, 0, False)
                mv[mby, mbx, 0], mv[mby, mbx, 1] = mvx, mvy
                ref[mby, mbx] = ref_idx
            # ---------------------------------------------------------- residual
            cbp_luma = 0
            cbp_chroma = 0
            n_dc = 0
            if not zero_residual:
                rounding = INTRA_ROUNDING if intra else INTER_ROUNDING
                for r in range(16):
                    for c in range(16):
                        diff[r, c] = np.int64(sy[y0 + r, x0 + c]) - pred[r, c]
                for b in range(16):
                    forward4x4(diff, BLK_Y[b], BLK_X[b])
                if intra:
                    n_dc = luma_dc_forward(diff, dclev, qp)
                    n_ac = 0
                    for b in range(16):
                        lev[BLK_Y[b], BLK_X[b]] = 0
                        n_ac += quant4x4(diff, lev, BLK_Y[b], BLK_X[b], qp, rounding, 1)
                    cbp_luma = 15 if n_ac > 0 else 0
                else:
                    for b8 in range(4):
                        n8 = 0
                        for b in range(4 * b8, 4 * b8 + 4):
                            n8 += quant4x4(diff, lev, BLK_Y[b], BLK_X[b], qp, rounding, 0)
                        if n8 > 0:
                            cbp_luma |= 1 << b8
                        else:
                            for b in range(4 * b8, 4 * b8 + 4):
                                for k in range(16):
                                    lev[BLK_Y[b] + k // 4, BLK_X[b] + k % 4] = 0
                cu_class = _chroma_residual(su, yc, xc, pred_u, qpc, rounding, diff_c, lev_u,
                                            dclev_u)
                cv_class = _chroma_residual(sv, yc, xc, pred_v, qpc, rounding, diff_c, lev_v,
                                            dclev_v)
                cbp_chroma = max(cu_class, cv_class)
                if cbp_chroma < 2:
                    lev_u[:, :] = 0
                    lev_v[:, :] = 0
            # ---------------------------------------------------------- skip?
            if not is_idr and not intra and cbp_luma == 0 and cbp_chroma == 0:
                sx_, sy_ = skip_mv(mv, ref, mby, mbx)
                if sx_ == mvx and sy_ == mvy and ref_idx == 0:
                    skip_run += 1
                    stats[S_MB_SKIP] += 1
                    _copy_pred(pred, cy_, y0, x0, 16)
                    _copy_pred(pred_u, cu, yc, xc, 8)
                    _copy_pred(pred_v, cv, yc, xc, 8)
                    continue
            # ---------------------------------------------------------- reconstruct
            if zero_residual:
                _copy_pred(pred, cy_, y0, x0, 16)
                _copy_pred(pred_u, cu, yc, xc, 8)
                _copy_pred(pred_v, cv, yc, xc, 8)
            else:
                if intra:
                    if n_dc > 0:
                        luma_dc_inverse(dclev, qp, dc)
                    else:
                        dc[:, :] = 0
                    for b in range(16):
                        dequant_idct_add(lev, BLK_Y[b], BLK_X[b], qp,
                                         dc[BLK_Y[b] // 4, BLK_X[b] // 4], True, pred, cy_,
                                         y0 + BLK_Y[b], x0 + BLK_X[b])
                else:
                    for b in range(16):
                        dequant_idct_add(lev, BLK_Y[b], BLK_X[b], qp, 0, False, pred, cy_,
                                         y0 + BLK_Y[b], x0 + BLK_X[b])
                _chroma_reconstruct(lev_u, dclev_u, qpc, pred_u, cu, yc, xc, dc_c)
                _chroma_reconstruct(lev_v, dclev_v, qpc, pred_v, cv, yc, xc, dc_c)
            # ---------------------------------------------------------- write
            if not is_idr:
                put_ue(buf, st, skip_run)
                skip_run = 0
            if intra:
                mb_type = 1 + imode + 4 * cbp_chroma + (12 if cbp_luma else 0)
                put_ue(buf, st, mb_type if is_idr else mb_type + 5)
                put_ue(buf, st, icmode)
                put_se(buf, st, 0)                        # mb_qp_delta
                stats[S_MB_I16X16] += 1
                stats[S_I16_V + imode] += 1
                stats[S_CHROMA_DC + icmode] += 1
                gy, gx = 4 * mby, 4 * mbx
                for k in range(16):
                    coefs[k] = dclev[ZIGZAG[k] // 4, ZIGZAG[k] % 4] if not zero_residual \
                        else 0
                write_block(buf, st, coefs, 16, _nc(nzy, gy, gx), stats)
                if cbp_luma:
                    for b in range(16):
                        by, bx = gy + BLK_Y[b] // 4, gx + BLK_X[b] // 4
                        _scan(lev, BLK_Y[b], BLK_X[b], 1, coefs)
                        nzy[by, bx] = write_block(buf, st, coefs, 15, _nc(nzy, by, bx), stats)
            else:
                cbp = cbp_luma + 16 * cbp_chroma
                _write_inter_header(buf, st, mv, ref, mby, mbx, mvx, mvy, ref_idx, two_refs,
                                    cbp)
                stats[S_MB_P16X16] += 1
                if mvx == 0 and mvy == 0 and cbp == 0:
                    stats[S_MB_P16X16_ZERO_MV] += 1
                if (y0 + (mvy >> 2) < 0 or x0 + (mvx >> 2) < 0
                        or y0 + (mvy >> 2) + 16 > sy.shape[0]
                        or x0 + (mvx >> 2) + 16 > sy.shape[1]):
                    stats[S_MV_OUTSIDE] += 1
                if (mvx & 4) or (mvy & 4):
                    stats[S_MV_ODD_CHROMA] += 1
                if cbp > 0:
                    put_se(buf, st, 0)                    # mb_qp_delta
                    gy, gx = 4 * mby, 4 * mbx
                    for b in range(16):
                        by, bx = gy + BLK_Y[b] // 4, gx + BLK_X[b] // 4
                        if cbp_luma & (1 << (b // 4)):
                            _scan(lev, BLK_Y[b], BLK_X[b], 0, coefs)
                            nzy[by, bx] = write_block(buf, st, coefs, 16, _nc(nzy, by, bx),
                                                      stats)
            _write_chroma(buf, st, cbp_chroma, dclev_u, dclev_v, lev_u, lev_v, nzu, nzv, mby,
                          mbx, coefs, stats)
    if skip_run > 0:
        put_ue(buf, st, skip_run)
