"""The picture kernel: decides and writes every macroblock of one slice (the whole picture)
and reconstructs it exactly as a decoder will (7.3.4-7.3.5, 8.3-8.5).

Macroblock types used: Intra 16x16 (all four luma and chroma modes) in I and P slices,
P_L0_16x16 with integer-pel vectors, and P_Skip. The caller says which macroblocks may
differ from the previous picture (``code``); the others are P_Skip, or P_L0_16x16 with the
zero vector and no residual where P_Skip's predicted vector would not be zero.
"""
from __future__ import annotations

import numpy as np

from ...runtime._numba import kernel, noalloc_kernel
from .bitstream import put_bits, put_se, put_ue, trailing_bits
from .cavlc import (S_MB_P16X16, S_MB_P16X16_ZERO_MV, S_MB_SKIP, S_MB_WEIGHTED, S_MV_ODD_CHROMA,
                    S_MV_OUTSIDE)
from .cavlc_tables import CBP_INTER_CODE_NUM
from .inter import (FIT_NONE, FIT_RESIDUAL, FIT_SAME, FIT_WEIGHTED, common_vectors,
                    predict_chroma, predict_luma, predict_mv, skip_mv, weighted_residual,
                    weighted_row_fit)
from .intra_mb import code_chroma, code_flat_i16, code_intra
from .motion import motion_search
from .params import WEIGHTS_SECOND_REF, slice_header
from .mb_common import (BLK_X, BLK_Y, as_words, flat_edge_mode, put_block, same_block,
                        write_chroma, write_luma)
from .transform import HALF_STEP, INTER_ROUNDING, dequant_idct_add, transform_quant4x4

#: Intra 16x16 is tried in a P slice only when the best vector leaves more than this SAD
#: (an average error of 4 per luma sample): cheaper, and inter wins below it anyway.
INTRA_TRY_SAD = 0
#: A limit no SAD reaches: :func:`edge_intra_sad` runs to the end.
NO_LIMIT = 1 << 62


@noalloc_kernel
def edge_intra_sad(sy, cy_, y0, x0, limit, sads):  # pragma: no cover - compiled
    """Lowest luma SAD of the Intra 16x16 vertical, horizontal and DC predictions, in one pass
    (an estimate for the intra-or-inter choice; stops early past ``limit``). When it does not
    stop early, ``sads`` holds the three SADs (V, H, DC; 0 for a prediction not available),
    which ``mb_common.best_intra`` then need not compute again."""
    left, top = x0 > 0, y0 > 0
    total = 0
    for k in range(16):
        if left:
            total += np.int64(cy_[y0 + k, x0 - 1])
        if top:
            total += np.int64(cy_[y0 - 1, x0 + k])
    dc = 128
    if left and top:
        dc = (total + 16) >> 5
    elif left or top:
        dc = (total + 8) >> 4
    sad_v = sad_h = sad_dc = 0
    for r in range(16):
        for c in range(16):
            s = np.int64(sy[y0 + r, x0 + c])
            if top:
                d = s - np.int64(cy_[y0 - 1, x0 + c])
                sad_v += d if d >= 0 else -d
            if left:
                d = s - np.int64(cy_[y0 + r, x0 - 1])
                sad_h += d if d >= 0 else -d
            d = s - dc
            sad_dc += d if d >= 0 else -d
        best = sad_dc
        if top and sad_v < best:
            best = sad_v
        if left and sad_h < best:
            best = sad_h
        if best > limit:
            return best
    best = sad_dc
    if top and sad_v < best:
        best = sad_v
    if left and sad_h < best:
        best = sad_h
    sads[0], sads[1], sads[2] = sad_v, sad_h, sad_dc
    return best


@noalloc_kernel(inline="always")
def _copy_rows(src, dst, y0, x0, x1, n):  # pragma: no cover - compiled
    """``dst[y0:y0 + n, x0:x1] = src[...]``, a row at a time (a plain loop the compiler
    vectorises; a slice assignment checks for overlap and may copy through a new array)."""
    for r in range(y0, y0 + n):
        row_src, row_dst = src[r, x0:x1], dst[r, x0:x1]
        for c in range(x1 - x0):
            row_dst[c] = row_src[c]


@noalloc_kernel
def copy_coded(code, cy_, cu, cv, ry, ru, rv, used):  # pragma: no cover - compiled
    """Copy the macroblocks marked in ``code`` from the reconstruction to the reference
    (``used[mby]``: row mby has one), each run of them in a row as whole rows of samples."""
    mbw = code.shape[1]
    for mby in range(code.shape[0]):
        if not used[mby]:
            continue
        mbx = 0
        while mbx < mbw:
            if code[mby, mbx] == 0:
                mbx += 1
                continue
            end = mbx + 1
            while end < mbw and code[mby, end]:
                end += 1
            _copy_rows(cy_, ry, 16 * mby, 16 * mbx, 16 * end, 16)
            _copy_rows(cu, ru, 8 * mby, 8 * mbx, 8 * end, 8)
            _copy_rows(cv, rv, 8 * mby, 8 * mbx, 8 * end, 8)
            mbx = end


@noalloc_kernel
def _chroma_exact(su, sv, yc, xc, pred_u, pred_v):  # pragma: no cover - compiled
    """Whether both 8x8 chroma predictions equal the source at (yc, xc)."""
    for r in range(8):
        differ = 0
        for c in range(8):
            differ |= (np.int64(su[yc + r, xc + c]) ^ pred_u[r, c]) | \
                (np.int64(sv[yc + r, xc + c]) ^ pred_v[r, c])
        if differ:
            return False
    return True


@noalloc_kernel(inline="always")
def _uncoded_end(code, mby, mbx):  # pragma: no cover - compiled
    """The end of the run of macroblocks not to code that starts at (mby, mbx) in its row."""
    end = mbx + 1
    while end < code.shape[1] and code[mby, end] == 0:
        end += 1
    return end


@noalloc_kernel(inline="always")
def _copy_block(plane, y0, x0, n, pred):  # pragma: no cover - compiled
    """``pred[:n, :n]`` = the n x n block of ``plane`` at (y0, x0), which lies inside it."""
    for r in range(n):
        row = plane[y0 + r, x0:x0 + n]
        out = pred[r]
        for c in range(n):
            out[c] = row[c]


@noalloc_kernel(inline="always")
def _predict_inter(ry, ru, rv, y0, x0, mvx, mvy, pred, pred_u, pred_v):  # pragma: no cover
    """The macroblock's luma and chroma predictions with this vector (reference index 0, no
    weights). A vector of whole chroma samples (a multiple of 8 in quarter-pel units) that
    stays inside the picture is a plain copy of both (the bilinear weights are 64, 0, 0, 0:
    ``(64 v + 32) >> 6`` is v); any other goes through ``inter.predict_luma`` and
    ``inter.predict_chroma``."""
    dy, dx = mvy >> 2, mvx >> 2
    if ((mvx | mvy) & 7) == 0 and y0 + dy >= 0 and x0 + dx >= 0 \
            and y0 + dy + 16 <= ry.shape[0] and x0 + dx + 16 <= ry.shape[1]:
        _copy_block(ry, y0 + dy, x0 + dx, 16, pred)
        _copy_block(ru, y0 // 2 + (dy >> 1), x0 // 2 + (dx >> 1), 8, pred_u)
        _copy_block(rv, y0 // 2 + (dy >> 1), x0 // 2 + (dx >> 1), 8, pred_v)
        return
    predict_luma(ry, y0, x0, mvx, mvy, pred, 0, 1, 0, False)
    predict_chroma(ru, y0 // 2, x0 // 2, mvx, mvy, pred_u, 0, 1, 0, False)
    predict_chroma(rv, y0 // 2, x0 // 2, mvx, mvy, pred_v, 0, 1, 0, False)


@noalloc_kernel
def _copy_mb(pred, pred_u, pred_v, cy_, cu, cv, y0, x0):  # pragma: no cover - compiled
    """Write the macroblock's predictions at (y0, x0) into the reconstruction."""
    put_block(pred, cy_, y0, x0, 16)
    put_block(pred_u, cu, y0 // 2, x0 // 2, 8)
    put_block(pred_v, cv, y0 // 2, x0 // 2, 8)


@noalloc_kernel(inline="always")
def _same_mb(planes, words, ref_words, y0, x0):  # pragma: no cover - compiled
    """Whether the macroblock at (y0, x0) of the source ``planes`` equals the reference's
    (``words``, ``ref_words``: Y, U, V of each as ``mb_common.as_words``)."""
    return (same_block(planes[0], words[0], ref_words[0], y0, x0, 16)
            and same_block(planes[1], words[1], ref_words[1], y0 // 2, x0 // 2, 8)
            and same_block(planes[2], words[2], ref_words[2], y0 // 2, x0 // 2, 8))


@noalloc_kernel
def _fit_weighted_row(code, mby, planes, refs, words, ref_words, weighted, flags, flag_words,
                      weights, limit_y, limit_c, same, bad):  # pragma: no cover - compiled
    """For the macroblocks row ``mby`` codes (``code``): ``same[mbx]`` 1 where the source
    ``planes`` equal the reference ``refs`` (:func:`_same_mb`), else 0 and ``bad[mbx]`` 0
    where the explicit weighted prediction with the zero vector, left in ``weighted`` (Y, U,
    V rows of the macroblock row) at the macroblock's columns, is within ``limit_y`` of every
    luma and ``limit_c`` of every chroma sample of the source, else 1
    (``inter.weighted_row_fit`` over each run of them; the equal ones are left out)."""
    mbw = code.shape[1]
    for m in range(mbw):
        same[m] = code[mby, m] != 0 and _same_mb(planes, words, ref_words, 16 * mby, 16 * m)
    mbx = 0
    while mbx < mbw:
        if code[mby, mbx] == 0 or same[mbx]:
            mbx += 1
            continue
        end = mbx + 1
        while end < mbw and code[mby, end] and not same[end]:
            end += 1
        for m in range(mbx, end):
            bad[m] = 0
        for k in range(3):
            n = 16 if k == 0 else 8
            weighted_row_fit(planes[k], refs[k], weighted[k], flags, flag_words, n * mby, n, mbx,
                             end, weights[1], weights[2 + 2 * k], weights[3 + 2 * k],
                             limit_y if k == 0 else limit_c, bad)
        mbx = end


@noalloc_kernel
def _copy_weighted(weighted, cy_, cu, cv, y0, x0):  # pragma: no cover - compiled
    """Write the macroblock's weighted prediction (``_fit_weighted_row``'s rows, at its
    columns) into the reconstruction at (y0, x0)."""
    wy, wu, wv = weighted
    _copy_mb(wy[:, x0:x0 + 16], wu[:, x0 // 2:x0 // 2 + 8], wv[:, x0 // 2:x0 // 2 + 8], cy_, cu,
             cv, y0, x0)


@noalloc_kernel
def _load_weighted(weighted, x0, pred, pred_u, pred_v):  # pragma: no cover - compiled
    """The macroblock's weighted prediction (``_fit_weighted_row``'s rows, at its columns x0)
    into ``pred``, ``pred_u``, ``pred_v``."""
    wy, wu, wv = weighted
    _copy_block(wy, 0, x0, 16, pred)
    _copy_block(wu, 0, x0 // 2, 8, pred_u)
    _copy_block(wv, 0, x0 // 2, 8, pred_v)


@noalloc_kernel
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
def encode_picture(sy, su, sv, ry, ru, rv, cy_, cu, cv, code, is_idr, qp, qpc, lam, lam2,
                   use_i4, mv, ref, prev_mv, common, nzy, nzu, nzv, i4m, weights, buf, st,
                   stats, hints):
    """Write slice_data() of one picture and reconstruct it into (cy_, cu, cv).

    sy, su, sv: source planes padded to whole macroblocks; ry, ru, rv: the reference (the
    previous reconstruction; unused for an IDR); cy_, cu, cv: the reconstruction, holding the
    previous picture on entry. ``code[mby, mbx]``: the macroblock may differ from the previous
    picture. ``common``: (K, 2) candidate vectors (the previous picture's commonest).
    mv, ref, nzy, nzu, nzv: this picture's vectors, reference indices and TotalCoeff
    counts, zeroed by the caller (ref -1 for an IDR). ``weights``: the picture's
    ``params.slice_header`` weights (kind, logWD, then weight and offset of Y, Cb, Cr); kind
    WEIGHTS_SECOND_REF: those of reference index 1 (then two reference indices are coded).
    ``hints``: the motion search's told vectors (``motion.motion_search``; empty: search).
    """  # pragma: no cover - compiled
    mbh, mbw = code.shape
    m16 = np.zeros((3, 16, 16), np.int64)     # prediction, residual, levels
    m8 = np.zeros((5, 8, 8), np.int64)        # Cb, Cr prediction, residual, Cb, Cr levels
    m4 = np.zeros((2, 4, 4), np.int64)        # luma DC levels, scaled DCs
    v4 = np.zeros((3, 4), np.int64)           # Cb, Cr DC levels, scaled DCs
    coefs = np.zeros(16, np.int64)
    saved = np.zeros_like(stats)              # counters while two intra codings are tried
    kept = np.zeros(stats.shape[0] + 27, np.int64)   # Intra 16x16's while 4x4 is tried
    kept_bytes = np.zeros(384 + 8192, np.uint8)
    i4s = np.zeros((6, 48), np.int64)         # code_i4's edges, modes, counts, samples
    pred, diff, lev = m16[0], m16[1], m16[2]
    pred_u, pred_v, diff8, lev_u, lev_v = m8[0], m8[1], m8[2], m8[3], m8[4]
    dclev_u, dclev_v, dc8 = v4[0], v4[1], v4[2]
    tried = np.zeros((6 + common.shape[0], 2), np.int64)
    edge_sads = np.zeros(3, np.int64)      # V, H, DC SADs of edge_intra_sad
    words = (as_words(sy), as_words(su), as_words(sv))
    ref_words = (as_words(ry), as_words(ru), as_words(rv))
    # callees get int64 zeros, not the literal 0: Numba compiles a callee once per argument
    # type, and a literal is a type of its own (about 12 CPU-s more for motion_search alone)
    int_zero = np.int64(0)
    last_x = last_y = int_zero
    two_refs = weights[0] == WEIGHTS_SECOND_REF
    # a fade's macroblock within half a quantiser step of its weighted prediction is coded
    # as that alone: a coded residual would leave an error of about that size itself
    limit_y, limit_c = HALF_STEP[qp], HALF_STEP[qpc]
    # a fade's weighted predictions of one macroblock row, and which of them miss the source
    weighted = (np.zeros((16, sy.shape[1]), np.uint8), np.zeros((8, su.shape[1]), np.uint8),
                np.zeros((8, sv.shape[1]), np.uint8))
    flags = np.zeros(sy.shape[1], np.uint8)
    flag_words = flags.view(np.uint64)
    same = np.zeros(mbw, np.uint8)
    bad = np.zeros(mbw, np.uint8)
    skip_run = 0
    for mby in range(mbh):
        if not is_idr:   # a row with nothing to code is all P_Skip with the zero vector
            row_coded = False
            for mbx in range(mbw):
                if code[mby, mbx]:
                    row_coded = True
                    break
            if not row_coded:
                skip_run += mbw
                stats[S_MB_SKIP] += mbw
                continue
            if two_refs:
                _fit_weighted_row(code, mby, (sy, su, sv), (ry, ru, rv), words, ref_words,
                                  weighted, flags, flag_words, weights, limit_y, limit_c, same,
                                  bad)
        skip_until = 0
        for mbx in range(mbw):
            if mbx < skip_until:
                continue
            y0, x0 = 16 * mby, 16 * mbx
            yc, xc = 8 * mby, 8 * mbx
            # ---------------------------------------------------------- decide
            intra = is_idr
            mvx = mvy = 0
            best_sad = 1
            ref_idx = 0
            if not is_idr and code[mby, mbx] == 0:
                # unchanged: the previous picture as it is (P_Skip, or a zero vector coded);
                # either way it has reference 0 and the zero vector, so the unchanged ones
                # right after it are P_Skip (skip_mv: the left neighbour's zero vector)
                skip_until = _uncoded_end(code, mby, mbx)
                sx_, sy_ = skip_mv(mv, ref, mby, mbx)
                if sx_ == 0 and sy_ == 0:
                    skip_run += skip_until - mbx
                    stats[S_MB_SKIP] += skip_until - mbx
                    continue
                put_ue(buf, st, skip_run)
                skip_run = skip_until - mbx - 1
                stats[S_MB_SKIP] += skip_until - mbx - 1
                _write_inter_header(buf, st, mv, ref, mby, mbx, int_zero, int_zero, int_zero,
                                    two_refs, int_zero)
                stats[S_MB_P16X16] += 1
                stats[S_MB_P16X16_ZERO_MV] += 1
                continue
            fit = FIT_NONE
            if two_refs and not is_idr:   # a fade: the picture as it was, or weighted
                if same[mbx]:
                    fit, best_sad = FIT_SAME, 0
                elif bad[mbx] == 0:
                    fit, ref_idx = FIT_WEIGHTED, 1
                else:   # the residual of the closer prediction, without a search
                    sad_same, sad_weighted, zero = weighted_residual((sy, su, sv), ry, weighted,
                                                                     y0, x0, qp, qpc)
                    if zero:    # a residual without levels: as the weighted prediction
                        fit, ref_idx = FIT_WEIGHTED, 1
                    elif sad_weighted <= sad_same:
                        fit, ref_idx, best_sad = FIT_RESIDUAL, 1, sad_weighted
                    else:
                        fit, best_sad = FIT_RESIDUAL, sad_same
            if not is_idr and fit == FIT_NONE:
                mvx, mvy, best_cost, best_sad = motion_search(
                    sy, ry, y0, x0, mby, mbx, mv, ref, prev_mv, common, last_x, last_y, lam, tried,
                    hints)
                if best_sad > INTRA_TRY_SAD and edge_intra_sad(
                        sy, cy_, y0, x0, best_cost - 8 * lam, edge_sads) + 8 * lam < best_cost:
                    intra = True   # edge_intra_sad ran to the end: edge_sads are whole
            if intra:
                if not is_idr:
                    put_ue(buf, st, skip_run)
                    skip_run = 0
                # Intra 4x4 only in the IDR picture: in P pictures it saved 3 % of their
                # bytes (fades at 1024) for a third more encoding time
                flat = flat_edge_mode(sy, su, sv, words, cy_, cu, cv, y0, x0)
                if flat >= 0:   # a flat colour continuing its neighbour: no residual
                    code_flat_i16(sy, su, sv, cy_, cu, cv, y0, x0, mby, mbx, not is_idr, flat,
                                  nzy, buf, st, stats)
                    ref[mby, mbx] = -1
                    continue
                if is_idr:   # the SADs of V, H and DC in one pass (in P pictures: known)
                    edge_intra_sad(sy, cy_, y0, x0, np.int64(NO_LIMIT), edge_sads)
                try_i4 = use_i4 and is_idr
                code_intra(sy, su, sv, cy_, cu, cv, y0, x0, mby, mbx, not is_idr, qp, qpc, lam,
                           lam2, try_i4, nzy, nzu, nzv, i4m, buf, st, stats, saved, m16, m8, m4,
                           v4, coefs, edge_sads, kept, kept_bytes, i4s)
                ref[mby, mbx] = -1
                continue
            mv[mby, mbx, 0], mv[mby, mbx, 1] = mvx, mvy
            ref[mby, mbx] = ref_idx
            last_x, last_y = mvx, mvy
            # ---------------------------------------------------------- inter residual
            cbp_luma = cbp_chroma = int_zero
            exact = (best_sad == 0 and mvx == 0 and mvy == 0
                     and same_block(su, words[1], ref_words[1], yc, xc, 8)
                     and same_block(sv, words[2], ref_words[2], yc, xc, 8))
            # unchanged here: the reconstruction (cur = ref outside what this picture coded
            # so far) is already the prediction, and every level is zero
            if fit == FIT_WEIGHTED:   # no residual: the weighted prediction is the picture
                _copy_weighted(weighted, cy_, cu, cv, y0, x0)
                exact = True
            elif ref_idx == 1:        # the residual against the weighted prediction
                _load_weighted(weighted, x0, pred, pred_u, pred_v)
                exact = False
            elif not exact:
                _predict_inter(ry, ru, rv, y0, x0, mvx, mvy, pred, pred_u, pred_v)
                exact = best_sad == 0 and _chroma_exact(su, sv, yc, xc, pred_u, pred_v)
                if exact and (mvx != 0 or mvy != 0):   # the prediction is the source
                    _copy_mb(pred, pred_u, pred_v, cy_, cu, cv, y0, x0)
            if not exact:
                for r in range(16):
                    for c in range(16):
                        diff[r, c] = np.int64(sy[y0 + r, x0 + c]) - pred[r, c]
                for b8 in range(4):
                    n8 = 0
                    for b in range(4 * b8, 4 * b8 + 4):
                        n8 += transform_quant4x4(diff, lev, BLK_Y[b], BLK_X[b], qp,
                                                 INTER_ROUNDING, 0)
                    if n8 > 0:
                        cbp_luma |= 1 << b8
                    else:
                        for b in range(4 * b8, 4 * b8 + 4):
                            lev[BLK_Y[b]:BLK_Y[b] + 4, BLK_X[b]:BLK_X[b] + 4] = 0
                cbp_chroma = code_chroma(su, sv, cu, cv, yc, xc, qpc, INTER_ROUNDING, pred_u,
                                         pred_v, diff8, lev_u, lev_v, dclev_u, dclev_v, dc8)
                if cbp_luma == 0:   # every level zero: the prediction is the picture
                    put_block(pred, cy_, y0, x0, 16)
                else:
                    for b in range(16):
                        dequant_idct_add(lev, BLK_Y[b], BLK_X[b], qp, 0, False, pred, cy_,
                                         y0 + BLK_Y[b], x0 + BLK_X[b])
            # ---------------------------------------------------------- skip?
            if cbp_luma == 0 and cbp_chroma == 0 and ref_idx == 0:
                sx_, sy_ = skip_mv(mv, ref, mby, mbx)
                if sx_ == mvx and sy_ == mvy:
                    skip_run += 1
                    stats[S_MB_SKIP] += 1
                    continue
            # ---------------------------------------------------------- write
            put_ue(buf, st, skip_run)
            skip_run = 0
            cbp = cbp_luma + 16 * cbp_chroma
            _write_inter_header(buf, st, mv, ref, mby, mbx, mvx, mvy, ref_idx, two_refs, cbp)
            stats[S_MB_P16X16] += 1
            stats[S_MB_WEIGHTED] += ref_idx
            if (y0 + (mvy >> 2) < 0 or x0 + (mvx >> 2) < 0 or y0 + (mvy >> 2) + 16 > sy.shape[0]
                    or x0 + (mvx >> 2) + 16 > sy.shape[1]):
                stats[S_MV_OUTSIDE] += 1
            if (mvx & 4) or (mvy & 4):
                stats[S_MV_ODD_CHROMA] += 1
            if cbp > 0:
                put_se(buf, st, 0)                        # mb_qp_delta
                write_luma(buf, st, lev, cbp_luma, 0, nzy, mby, mbx, coefs, stats)
            write_chroma(buf, st, cbp_chroma, dclev_u, dclev_v, lev_u, lev_v, nzu, nzv, mby, mbx,
                         coefs, stats)
    if skip_run > 0:
        put_ue(buf, st, skip_run)


@noalloc_kernel
def _copy_plane(src, dst):  # pragma: no cover - compiled
    """``dst[:, :] = src`` for two distinct 2-D arrays of one shape (:func:`_copy_rows`)."""
    _copy_rows(src, dst, 0, 0, src.shape[1], src.shape[0])


@noalloc_kernel
def clear_coded_counts(code, idr, nz, used):  # pragma: no cover - compiled
    """Zero the TotalCoeff counts (``nz``: Y, U, V) of the macroblocks this picture coded (all
    of them for an IDR picture; ``used[mby]``: row mby has one), so that the next picture
    starts from zeros everywhere without clearing whole planes."""
    if idr:
        for plane in nz:
            plane[:, :] = 0
        return
    nzy, nzu, nzv = nz
    for mby in range(code.shape[0]):
        if not used[mby]:
            continue
        for mbx in range(code.shape[1]):
            if code[mby, mbx]:
                for k in range(16):
                    nzy[4 * mby + (k >> 2), 4 * mbx + (k & 3)] = 0
                for k in range(4):
                    nzu[2 * mby + (k >> 1), 2 * mbx + (k & 1)] = 0
                    nzv[2 * mby + (k >> 1), 2 * mbx + (k & 1)] = 0


@noalloc_kernel
def _vector_rows(mv, ref, prev_mv, rows, idr):  # pragma: no cover - compiled
    """Start a picture's vectors: ``prev_mv`` becomes the previous picture's ``mv``,
    touching only the rows that may hold something else; then :func:`_reset_rows` zeroes
    ``mv`` and sets ``ref`` to -1 (IDR) or 0. ``rows[0, r]``: row r of ``mv``/``ref`` may
    differ from zero (the last picture coded a macroblock in it); ``rows[1, r]``: row r of
    ``prev_mv`` may (on return: the previous picture's ``rows[0]``). Only coded macroblocks
    get a vector or an intra ``ref`` (an uncoded one is P_Skip or a zero vector with
    reference 0), so every other row already holds zeros. An IDR picture copies them all."""
    for r in range(mv.shape[0]):
        if idr or rows[0, r] or rows[1, r]:
            row_mv, row_prev = mv[r], prev_mv[r]
            for c in range(row_mv.shape[0]):
                row_prev[c, 0], row_prev[c, 1] = row_mv[c, 0], row_mv[c, 1]
        rows[1, r] = rows[0, r]


@noalloc_kernel
def _reset_rows(mv, ref, used, idr):  # pragma: no cover - compiled
    """Zero ``mv`` and set ``ref`` to -1 (IDR) or 0 in the rows ``used`` flags (the previous
    picture's coded rows, the only ones that may hold something else; all of them in an IDR
    picture)."""
    for r in range(mv.shape[0]):
        if idr or used[r]:
            for c in range(mv.shape[1]):
                mv[r, c, 0], mv[r, c, 1] = 0, 0
                ref[r, c] = -1 if idr else 0


@noalloc_kernel
def _mark_coded_rows(code, rows, idr):  # pragma: no cover - compiled
    """``rows[0, r]``: whether this picture codes a macroblock in row r (all rows of an IDR)."""
    for r in range(code.shape[0]):
        used = idr
        for c in range(code.shape[1]):
            if code[r, c]:
                used = True
                break
        rows[0, r] = used


@kernel
def code_picture(src, ref_planes, cur, code, idr, frame_num, qp, qpc, lam, lam2, use_i4, mv,
                 ref, prev_mv, rows, common, nz, i4m, weights, buf, st, stats, hints):
    """One whole picture in one call: the slice header, slice_data() (:func:`encode_picture`)
    and the trailing bits into ``buf`` (from its start), then the reconstruction copied into
    the reference where it changed. ``src``, ``ref_planes``, ``cur``, ``nz``: (Y, U, V)
    tuples; ``rows``: (2, mb rows) uint8, which rows of the vectors may be non-zero
    (:func:`_vector_rows`; zero in a new encoder, whose first picture is an IDR picture);
    ``common``: (K, 2) room for the motion search's common vectors. ``nz`` is zero on
    entry (a new encoder's, or as the previous call left it); ``i4m`` matters in IDR pictures
    only (Intra 4x4 is not used in P pictures)."""
    _vector_rows(mv, ref, prev_mv, rows, idr)
    n_common = common_vectors(mv, ref, common, rows[1])
    _reset_rows(mv, ref, rows[1], idr)
    _mark_coded_rows(code, rows, idr)
    if idr:
        i4m[:, :] = 2
    st[:] = 0
    slice_header(buf, st, idr, frame_num, qp, 0, weights)
    encode_picture(src[0], src[1], src[2], ref_planes[0], ref_planes[1], ref_planes[2], cur[0],
                   cur[1], cur[2], code, idr, qp, qpc, lam, lam2, use_i4, mv, ref, prev_mv,
                   common[:n_common], nz[0], nz[1], nz[2], i4m, weights, buf, st, stats, hints)
    trailing_bits(buf, st)
    clear_coded_counts(code, idr, nz, rows[0])
    if idr:
        for k in range(3):
            _copy_plane(cur[k], ref_planes[k])
    else:
        copy_coded(code, cur[0], cur[1], cur[2], ref_planes[0], ref_planes[1], ref_planes[2],
                   rows[0])
