"""P-slice inter prediction for whole 16x16 macroblocks: motion vector prediction (8.4.1.3,
median and the single-matching-reference rule), the P_Skip vector (8.4.1.1), and motion
compensation for integer-pel luma vectors: a clamped copy for luma and the 1/8-pel bilinear
chroma interpolation of 8.4.2.2.2, with explicit weighted prediction (8.4.2.3) optional.

Motion vectors are stored per macroblock in quarter-pel units (``mv[mby, mbx] = (x, y)``),
with the reference index in ``ref`` (-1 for intra macroblocks).

Examples
--------
>>> import numpy as np
>>> mv = np.zeros((2, 2, 2), np.int32); ref = np.zeros((2, 2), np.int32)
>>> mv[0, 0] = (8, 4); mv[0, 1] = (8, 0)
>>> predict_mv(mv, ref, 1, 0, 0)   # left unavailable: median of 0, B (8, 4), C (8, 0)
(8, 0)
>>> skip_mv(mv, ref, 1, 1)         # the left neighbour (1, 0) has ref 0 and a zero vector
(0, 0)
>>> mv[1, 0] = (4, 4); skip_mv(mv, ref, 1, 1)   # now the median of (4,4), (8,0), D (8,4)
(8, 4)
"""
from __future__ import annotations



import numpy as np

from ...runtime._numba import kernel, noalloc_kernel
from .transform import (INTER_ROUNDING, ZERO_CHROMA_DC, ZERO_SAD, hadamard2x2,
                        inter_block_is_zero)


@noalloc_kernel(inline="always")
def _median(a, b, c):  # pragma: no cover - compiled
    return max(min(a, b), min(max(a, b), c))


@noalloc_kernel
def predict_mv(mv, ref, mby, mbx, ref_idx):  # pragma: no cover - compiled
    """Predicted vector (x, y) of a 16x16 partition with reference ``ref_idx`` (8.4.1.3)."""
    mbw = mv.shape[1]
    has_a, has_b = mbx > 0, mby > 0
    has_c = mby > 0 and mbx + 1 < mbw
    ax = ay = bx = by = cx = cy = 0
    ra = rb = rc = -1
    if has_a:
        ra = ref[mby, mbx - 1]
        if ra >= 0:
            ax, ay = mv[mby, mbx - 1, 0], mv[mby, mbx - 1, 1]
    if has_b:
        rb = ref[mby - 1, mbx]
        if rb >= 0:
            bx, by = mv[mby - 1, mbx, 0], mv[mby - 1, mbx, 1]
    if has_c:
        rc = ref[mby - 1, mbx + 1]
        if rc >= 0:
            cx, cy = mv[mby - 1, mbx + 1, 0], mv[mby - 1, mbx + 1, 1]
    elif mby > 0 and mbx > 0:   # C not available: D (top-left) instead
        has_c = True
        rc = ref[mby - 1, mbx - 1]
        if rc >= 0:
            cx, cy = mv[mby - 1, mbx - 1, 0], mv[mby - 1, mbx - 1, 1]
    if not has_b and not has_c and has_a:
        bx, by, rb = ax, ay, ra
        cx, cy, rc = ax, ay, ra
    matches = int(ra == ref_idx) + int(rb == ref_idx) + int(rc == ref_idx)  # not numpy bools
    if matches == 1:
        if ra == ref_idx:
            return ax, ay
        if rb == ref_idx:
            return bx, by
        return cx, cy
    return _median(ax, bx, cx), _median(ay, by, cy)


@noalloc_kernel
def skip_mv(mv, ref, mby, mbx):  # pragma: no cover - compiled
    """The vector a P_Skip macroblock at (mby, mbx) would use (8.4.1.1)."""
    if mbx == 0 or mby == 0:
        return 0, 0
    if ref[mby, mbx - 1] == 0 and mv[mby, mbx - 1, 0] == 0 and mv[mby, mbx - 1, 1] == 0:
        return 0, 0
    if ref[mby - 1, mbx] == 0 and mv[mby - 1, mbx, 0] == 0 and mv[mby - 1, mbx, 1] == 0:
        return 0, 0
    return predict_mv(mv, ref, mby, mbx, np.int64(0))


@noalloc_kernel(inline="always")
def _clamp(v, hi):  # pragma: no cover - compiled
    return 0 if v < 0 else (hi if v > hi else v)


@noalloc_kernel(inline="always")
def luma_sad(src, y0, x0, refpic, dy, dx, limit):  # pragma: no cover - compiled
    """SAD of the source macroblock at (y0, x0) against the reference moved by integer
    (dy, dx), reading outside the picture as its edge; stops early past ``limit``."""
    h, w = refpic.shape
    sad = 0
    if y0 + dy >= 0 and x0 + dx >= 0 and y0 + dy + 16 <= h and x0 + dx + 16 <= w:
        for r in range(16):   # inside: row slices, a loop the compiler vectorises
            a = src[y0 + r, x0:x0 + 16]
            b = refpic[y0 + dy + r, x0 + dx:x0 + dx + 16]
            for c in range(16):
                d = np.int64(a[c]) - np.int64(b[c])
                sad += d if d >= 0 else -d
            if sad > limit:
                return sad
        return sad
    for r in range(16):
        ry = _clamp(y0 + dy + r, h - 1)
        for c in range(16):
            d = np.int64(src[y0 + r, x0 + c]) - np.int64(refpic[ry, _clamp(x0 + dx + c, w - 1)])
            sad += d if d >= 0 else -d
        if sad > limit:
            return sad
    return sad


@noalloc_kernel(inline="always")
def block_sum(pic, y0, x0, n, m):  # pragma: no cover - compiled
    """Sum of the n x m block of ``pic`` at (y0, x0), reading outside the picture as its edge."""
    h, w = pic.shape
    total = 0
    for r in range(n):
        ry = _clamp(y0 + r, h - 1)
        for c in range(m):
            total += np.int64(pic[ry, _clamp(x0 + c, w - 1)])
    return total


@noalloc_kernel
def shifted_sum(pic, y0, x0, total, dy, dx):  # pragma: no cover - compiled
    """Sum of the 16x16 block at (y0 + dy, x0 + dx) from ``total``, the one at (y0, x0), for a
    one-sample step (|dy| + |dx| = 1): the row or column that leaves, the one that enters."""
    if dx != 0:
        enter = x0 + 16 if dx > 0 else x0 - 1
        leave = x0 if dx > 0 else x0 + 15
        return total + block_sum(pic, y0, enter, 16, 1) - block_sum(pic, y0, leave, 16, 1)
    enter = y0 + 16 if dy > 0 else y0 - 1
    leave = y0 if dy > 0 else y0 + 15
    return total + block_sum(pic, enter, x0, 1, 16) - block_sum(pic, leave, x0, 1, 16)


@noalloc_kernel(inline="always")
def _weigh(v, log_wd, weight, offset):  # pragma: no cover - compiled
    """Explicit weighted sample prediction (8.4.2.3.2, one list)."""
    if log_wd >= 1:
        v = ((v * weight + (1 << (log_wd - 1))) >> log_wd) + offset
    else:
        v = v * weight + offset
    return 0 if v < 0 else (255 if v > 255 else v)


@noalloc_kernel
def predict_luma(refpic, y0, x0, mvx, mvy, pred, log_wd, weight, offset, weighted):
    """Luma prediction of the macroblock at (y0, x0) for an integer-pel vector (quarter-pel
    units, multiples of 4) into ``pred`` (16x16 int32)."""  # pragma: no cover - compiled
    h, w = refpic.shape
    for r in range(16):
        ry = _clamp(y0 + (mvy >> 2) + r, h - 1)
        for c in range(16):
            v = np.int64(refpic[ry, _clamp(x0 + (mvx >> 2) + c, w - 1)])
            pred[r, c] = _weigh(v, log_wd, weight, offset) if weighted else v


@noalloc_kernel
def predict_chroma(refpic, y0, x0, mvx, mvy, pred, log_wd, weight, offset, weighted):
    """Chroma (4:2:0) prediction of the 8x8 block at (y0, x0): the luma vector read in 1/8
    chroma samples, bilinear (8.4.2.2.2) with edge clamping, into ``pred`` (8x8 int32)."""
    h, w = refpic.shape  # pragma: no cover - compiled
    fx, fy = mvx & 7, mvy & 7
    for r in range(8):
        ya = _clamp(y0 + (mvy >> 3) + r, h - 1)
        yb = _clamp(y0 + (mvy >> 3) + r + 1, h - 1)
        for c in range(8):
            xa = _clamp(x0 + (mvx >> 3) + c, w - 1)
            xb = _clamp(x0 + (mvx >> 3) + c + 1, w - 1)
            v = ((8 - fx) * (8 - fy) * np.int64(refpic[ya, xa])
                 + fx * (8 - fy) * np.int64(refpic[ya, xb])
                 + (8 - fx) * fy * np.int64(refpic[yb, xa])
                 + fx * fy * np.int64(refpic[yb, xb]) + 32) >> 6
            pred[r, c] = _weigh(v, log_wd, weight, offset) if weighted else v




@kernel
def common_vectors(mv, ref, out, used):  # pragma: no cover - compiled
    """Write into ``out`` (K, 2) the K commonest distinct non-zero vectors of the inter
    macroblocks (ties: smaller x, then y, first); returns how many there are (<= K). Motion
    search candidates for the next picture, where a sliding object keeps its vector.
    ``used[mby]``: row mby may hold a non-zero vector (the others are skipped)."""
    found = np.zeros((64, 3), np.int64)    # x, y, count of up to 64 distinct vectors
    n = 0
    for mby in range(mv.shape[0]):
        if not used[mby]:
            continue
        for mbx in range(mv.shape[1]):
            x, y = mv[mby, mbx, 0], mv[mby, mbx, 1]
            if ref[mby, mbx] < 0 or (x == 0 and y == 0):
                continue
            k = 0
            while k < n and (found[k, 0] != x or found[k, 1] != y):
                k += 1
            if k == n:
                if n == 64:
                    continue
                found[n, 0], found[n, 1] = x, y
                n += 1
            found[k, 2] += 1
    count = 0
    for _ in range(min(out.shape[0], n)):
        best = -1
        for k in range(n):
            if found[k, 2] > 0 and (best < 0 or found[k, 2] > found[best, 2] or (
                    found[k, 2] == found[best, 2] and (found[k, 0], found[k, 1]) <
                    (found[best, 0], found[best, 1]))):
                best = k
        out[count, 0], out[count, 1] = found[best, 0], found[best, 1]
        found[best, 2] = 0
        count += 1
    return count


#: How a fade's macroblock is coded (``macroblock.encode_picture``): as the reference (the
#: source equals it), as its weighted prediction (:func:`weighted_row_fit` found it within the
#: limits everywhere), with the residual of the closer of the two (:func:`weighted_residual`);
#: FIT_NONE: a picture without weights (search).
FIT_SAME, FIT_WEIGHTED, FIT_RESIDUAL, FIT_NONE = 0, 1, 2, 3


@noalloc_kernel(inline="always")
def _sad4(a, b, c0):  # pragma: no cover - compiled
    """SAD of samples c0..c0 + 3 of rows a and b."""
    total = np.int32(0)
    for c in range(c0, c0 + 4):
        d = np.int32(a[c]) - np.int32(b[c])
        total += d if d >= 0 else -d
    return total


@noalloc_kernel
def weighted_residual(planes, ry, weighted, y0, x0, qp, qpc):  # pragma: no cover - compiled
    """How to code a fade's macroblock at (y0, x0) that :func:`weighted_row_fit` found outside
    the limits: (luma SAD of the source against the reference with the zero vector, against the
    weighted prediction (``weighted``: Y, U, V rows at its columns), and whether it codes as the
    weighted prediction alone). The last holds when the weighted prediction is the closer and
    every level of its residual quantises to zero, luma at ``qp`` and chroma at ``qpc``
    (``transform.inter_block_is_zero``; the chroma DCs' 2x2 Hadamard against
    ``transform.ZERO_CHROMA_DC``): the residual coded would have had no level, and the bytes
    are the same.

    One pass over the luma gives both SADs and each 4x4 block's: a block within
    ``transform.ZERO_SAD`` quantises to nothing, and only the others are transformed."""
    sy = planes[0]
    wy = weighted[0]
    sad_same = sad_weighted = 0
    over = 0                  # bit b: luma block b's SAD is beyond ZERO_SAD
    bound = ZERO_SAD[qp, INTER_ROUNDING, 0]
    for band in range(4):
        b0 = b1 = b2 = b3 = np.int32(0)
        for r in range(4 * band, 4 * band + 4):
            s_row, r_row = sy[y0 + r, x0:x0 + 16], ry[y0 + r, x0:x0 + 16]
            w_row = wy[r, x0:x0 + 16]
            for c in range(16):
                d = np.int32(s_row[c]) - np.int32(r_row[c])
                sad_same += d if d >= 0 else -d
            b0 += _sad4(s_row, w_row, 0)
            b1 += _sad4(s_row, w_row, 4)
            b2 += _sad4(s_row, w_row, 8)
            b3 += _sad4(s_row, w_row, 12)
        sad_weighted += b0 + b1 + b2 + b3
        over |= ((b0 > bound) + 2 * (b1 > bound) + 4 * (b2 > bound) + 8 * (b3 > bound)) \
            << (4 * band)
    if sad_weighted > sad_same:
        return sad_same, sad_weighted, False
    for k in range(16):       # raster order of the 4x4 blocks
        if (over >> k) & 1 and not inter_block_is_zero(sy, y0 + 4 * (k >> 2), x0 + 4 * (k & 3),
                                                       wy, 4 * (k >> 2), x0 + 4 * (k & 3),
                                                       qp, 0)[0]:
            return sad_same, sad_weighted, False
    yc, xc = y0 // 2, x0 // 2
    for k in (1, 2):
        zero0, a = inter_block_is_zero(planes[k], yc, xc, weighted[k], 0, xc, qpc, 1)
        zero1, b = inter_block_is_zero(planes[k], yc, xc + 4, weighted[k], 0, xc + 4, qpc, 1)
        zero2, c = inter_block_is_zero(planes[k], yc + 4, xc, weighted[k], 4, xc, qpc, 1)
        zero3, d = inter_block_is_zero(planes[k], yc + 4, xc + 4, weighted[k], 4, xc + 4, qpc, 1)
        if not (zero0 and zero1 and zero2 and zero3):
            return sad_same, sad_weighted, False
        for dc in hadamard2x2(a, b, c, d):
            if abs(dc) > ZERO_CHROMA_DC[qpc]:
                return sad_same, sad_weighted, False
    return sad_same, sad_weighted, True


@noalloc_kernel
def weighted_row_fit(src, refpic, weighted, flags, flag_words, y0, n, mb_begin, mb_end, log_wd,
                     weight, offset, limit, bad):  # pragma: no cover - compiled
    """Whether the macroblocks ``mb_begin``..``mb_end`` of one macroblock row of one plane (n x
    n samples each, the row at y0) follow from the reference's explicit weighted prediction
    with the zero vector: that prediction (:func:`_weigh`) goes into ``weighted[:n]`` at the
    run's columns, and ``bad[mbx]`` becomes 1 where a sample of the source is more than
    ``limit`` from it (a residual that might not quantise to nothing; else ``bad`` is left as
    it was). ``flags``: a row of uint8 scratch as wide as the plane, ``flag_words`` the same
    as uint64 words (``mb_common.as_words``).

    One pass over rows as long as the run, in 32-bit lanes (|sample x weight| < 2 ** 15):
    the compiler vectorises it, where 16 samples at a time in 64-bit lanes it did not,
    and a fade checks every macroblock of every fading object in every picture. A column's
    flag gathers its rows, and the macroblocks' flags are read once, after the last row."""
    x0, x1 = n * mb_begin, n * mb_end
    half = np.int32((1 << (log_wd - 1)) if log_wd >= 1 else 0)
    w, o, sh, lim = np.int32(weight), np.int32(offset), np.int32(log_wd), np.int32(limit)
    zero, top = np.int32(0), np.int32(255)
    f_row = flags[x0:x1]
    for c in range(x1 - x0):
        f_row[c] = 0
    for r in range(n):
        s_row, r_row, p_row = src[y0 + r, x0:x1], refpic[y0 + r, x0:x1], weighted[r, x0:x1]
        for c in range(x1 - x0):
            p = np.int32(np.int32(np.int32(np.int32(r_row[c]) * w) + half) >> sh)
            p = np.int32(min(max(np.int32(p + o), zero), top))
            p_row[c] = np.uint8(p)
            d = np.int32(np.int32(s_row[c]) - p)
            f_row[c] |= np.uint8(np.int32(abs(d)) > lim)
    for m in range(mb_begin, mb_end):
        for k in range(m * n // 8, (m + 1) * n // 8):
            if flag_words[k]:
                bad[m] = 1

