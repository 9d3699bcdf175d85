"""Residual coding arithmetic (8.5): the 4x4 forward integer transform and quantisation at a
fixed QP (encoder side, free to choose), and the scaling and inverse transforms exactly as a
decoder does them (8.5.10-8.5.12), so the encoder's reconstruction is the decoder's.

Blocks live in int32 arrays: a 16x16 (luma) or 8x8 (chroma) array holds its 4x4 blocks at
their places; levels are kept in raster order within each 4x4 block.

Examples
--------
>>> import numpy as np
>>> res = np.full((4, 4), 10, np.int32); lev = np.zeros((4, 4), np.int32)
>>> count = transform_quant4x4(res, lev, 0, 0, 28, INTRA_ROUNDING, 0)
>>> count, int(res[0, 0]), int(lev[0, 0]), int(lev[1, 1])   # DC = 16 * 10, no AC
(1, 160, 2, 0)
"""
from __future__ import annotations

import numpy as np

from ...runtime._numba import noalloc_kernel
from .cavlc_tables import DEQUANT_V, QUANT_MF

#: Rounding of the forward quantiser as a fraction of the step, in 1/6: intra 2/6, inter 2/6
#: (1/6 left a fade's small steps uncoded for longer: 0.14 dB less at 1024, 1.7 % fewer bytes).
INTRA_ROUNDING, INTER_ROUNDING = 2, 2


@noalloc_kernel(inline="always")
def _forward_1d(p0, p1, p2, p3):  # pragma: no cover - compiled
    """One row (or column) of the forward core transform Cf."""
    s03, d03, s12, d12 = p0 + p3, p0 - p3, p1 + p2, p1 - p2
    return s03 + s12, 2 * d03 + d12, s03 - s12, d03 - 2 * d12


@noalloc_kernel(inline="always")
def forward4x4(a, y, x):  # pragma: no cover - compiled
    """In place: the 4x4 block at (y, x) of ``a`` -> its integer transform Cf X Cf^T."""
    for r in range(4):
        a[y + r, x], a[y + r, x + 1], a[y + r, x + 2], a[y + r, x + 3] = _forward_1d(
            a[y + r, x], a[y + r, x + 1], a[y + r, x + 2], a[y + r, x + 3])
    for c in range(4):
        a[y, x + c], a[y + 1, x + c], a[y + 2, x + c], a[y + 3, x + c] = _forward_1d(
            a[y, x + c], a[y + 1, x + c], a[y + 2, x + c], a[y + 3, x + c])


@noalloc_kernel(inline="always")
def quantize(value, mf, qbits, rounding):  # pragma: no cover - compiled
    """sign(value) * ((|value| * mf + rounding/6 * 2^qbits) >> qbits), without a branch on
    the sign (a fade's or an edge's residual changes sign from sample to sample)."""
    offset = ((1 << qbits) * rounding) // 6
    sign = np.int64(value) >> 63                # 0 or -1
    level = ((((value ^ sign) - sign) * mf + offset) >> qbits)
    return (level ^ sign) - sign


#: Largest forward-transform gain of a position: |Cf[i, r] * Cf[j, c]| <= ROW_GAIN[i] * ROW_GAIN[j].
ROW_GAIN = np.array([1, 2, 1, 2])


def _zero_room(qp: int, rounding: int, extra_bits: int = 0) -> int:
    """The largest ``|W| * mf`` whose level is zero at this QP and rounding (in 1/6):
    ``|W| * mf + offset < 2**qbits`` (:func:`quantize`; ``extra_bits`` 1 for the DC
    transforms' quantiser, one bit more)."""
    qbits = 15 + qp // 6 + extra_bits
    return (1 << qbits) - ((1 << qbits) * rounding) // 6 - 1


def zero_sad_bounds(mf=QUANT_MF) -> np.ndarray:
    """``[qp, rounding, start]``: the largest SAD of a 4x4 residual for which every level of
    raster positions ``start``..15 is zero whatever the residual (rounding in 1/6, 0..5).

    A coefficient is at most ``ROW_GAIN[i] * ROW_GAIN[j] * SAD`` in magnitude, and its level is
    zero while ``|W| * mf + offset < 2**qbits`` (:func:`quantize`).

    Examples
    --------
    >>> int(zero_sad_bounds()[28, INTER_ROUNDING, 0])   # qp 28 inter: 349526 // (4 * 3355)
    26
    """
    gain = (ROW_GAIN[:, None] * ROW_GAIN[None, :]).reshape(16)
    out = np.zeros((52, 6, 2), np.int64)
    for qp in range(52):
        for rounding in range(6):
            room = _zero_room(qp, rounding)
            for start in range(2):
                worst = (gain[start:] * mf[qp % 6, start:].astype(np.int64)).max()
                out[qp, rounding, start] = room // worst
    return out


#: :func:`zero_sad_bounds` of the quantiser's multipliers.
ZERO_SAD = zero_sad_bounds()


#: Largest sum of |Cf[i, r]| over r: a coefficient of a residual bounded by m is at most
#: ``ROW_SUM[i] * ROW_SUM[j] * m``.
ROW_SUM = np.array([4, 6, 4, 6])


def zero_max_bounds(mf=QUANT_MF, rounding=2) -> np.ndarray:
    """``[qp]``: the largest m such that every 4x4 residual with all samples in [-m, m]
    quantises to zero levels at every position (``rounding`` in 1/6, :func:`quantize`).

    Examples
    --------
    >>> bounds = zero_max_bounds()
    >>> int(bounds[28]), int(bounds[22])   # (2**19 - 2**19 // 3 - 1) // (16 * 8192)
    (2, 1)
    """
    gain = (ROW_SUM[:, None] * ROW_SUM[None, :]).reshape(16)
    out = np.zeros(52, np.int64)
    for qp in range(52):
        out[qp] = _zero_room(qp, rounding) // (gain * mf[qp % 6].astype(np.int64)).max()
    return out


#: :func:`zero_max_bounds` of the quantiser's multipliers, at the inter rounding.
ZERO_MAX = zero_max_bounds(rounding=INTER_ROUNDING)

#: The quantiser step of QP 0..5 in 16ths of a sample value (0.625, 0.6875, 0.8125, 0.875, 1,
#: 1.125); it doubles with every 6 QP.
QSTEP_16THS = np.array([10, 11, 13, 14, 16, 18])


def half_step_bounds() -> np.ndarray:
    """``[qp]``: half the quantiser step, rounded down, and at least :data:`ZERO_MAX`: about
    the error that coding a residual at that QP leaves in a sample itself.

    Examples
    --------
    >>> bounds = half_step_bounds()
    >>> int(bounds[28]), int(bounds[27]), int(bounds[22])   # steps 16, 14, 8
    (8, 7, 4)
    """
    qp = np.arange(52)
    return np.maximum((QSTEP_16THS[qp % 6] << (qp // 6)) >> 5, ZERO_MAX)


#: :func:`half_step_bounds`.
HALF_STEP = half_step_bounds()


def zero_chroma_dc_bounds(mf=QUANT_MF, rounding=2) -> np.ndarray:
    """``[qp]``: the largest SAD of an 8x8 chroma residual for which its four DC levels
    (``chroma_dc_forward``: the 2x2 Hadamard of the 4x4 blocks' sums, quantised with one more
    bit) are zero whatever the residual: each Hadamard output is at most the SAD in magnitude.

    Examples
    --------
    >>> int(zero_chroma_dc_bounds()[28])   # (2**20 - 2**20 // 3 - 1) // 8192
    85
    """
    return np.array([_zero_room(qp, rounding, 1) // int(mf[qp % 6, 0]) for qp in range(52)],
                    np.int64)


#: :func:`zero_chroma_dc_bounds` of the quantiser's multipliers, at the inter rounding.
ZERO_CHROMA_DC = zero_chroma_dc_bounds(rounding=INTER_ROUNDING)


def zero_level_bounds(mf=QUANT_MF, rounding=2) -> np.ndarray:
    """``[qp, k]``: the largest coefficient magnitude at raster position k of a 4x4 block
    whose level is zero (:func:`quantize`: ``|W| * mf + offset < 2**qbits``).

    Examples
    --------
    >>> int(zero_level_bounds()[28, 0])   # (2**19 - 2**19 // 3 - 1) // 8192
    42
    """
    return np.array([[_zero_room(qp, rounding) // int(mf[qp % 6, k]) for k in range(16)]
                     for qp in range(52)], np.int64)


#: :func:`zero_level_bounds` of the quantiser's multipliers, at the inter rounding.
ZERO_LEVEL = zero_level_bounds(rounding=INTER_ROUNDING)


@noalloc_kernel(inline="always")
def _forward_row(src, y, x, pred, py, px):  # pragma: no cover - compiled
    """The forward transform of one row of the residual ``src[y, x..] - pred[py, px..]``."""
    return _forward_1d(np.int32(src[y, x]) - np.int32(pred[py, px]),
                       np.int32(src[y, x + 1]) - np.int32(pred[py, px + 1]),
                       np.int32(src[y, x + 2]) - np.int32(pred[py, px + 2]),
                       np.int32(src[y, x + 3]) - np.int32(pred[py, px + 3]))


@noalloc_kernel(inline="always")
def inter_block_is_zero(src, y0, x0, pred, py, px, qp, start):  # pragma: no cover - compiled
    """(zero, dc): whether every level from raster position ``start`` of the 4x4 residual
    ``src[y0.., x0..] - pred[py.., px..]`` is zero at the inter rounding, as
    :func:`transform_quant4x4` would quantise it (a SAD within :data:`ZERO_SAD`, else the
    coefficients against :data:`ZERO_LEVEL`); and the residual's sum, its DC coefficient."""
    sad = np.int32(0)
    total = np.int32(0)
    for r in range(4):
        for c in range(4):
            d = np.int32(src[y0 + r, x0 + c]) - np.int32(pred[py + r, px + c])
            total += d
            sad += d if d >= 0 else -d
    if sad <= ZERO_SAD[qp, INTER_ROUNDING, start]:
        return True, total
    r0 = _forward_row(src, y0, x0, pred, py, px)
    r1 = _forward_row(src, y0 + 1, x0, pred, py + 1, px)
    r2 = _forward_row(src, y0 + 2, x0, pred, py + 2, px)
    r3 = _forward_row(src, y0 + 3, x0, pred, py + 3, px)
    bound = ZERO_LEVEL[qp]
    for c in range(4):
        column = _forward_1d(r0[c], r1[c], r2[c], r3[c])
        for r in range(4):
            k = 4 * r + c
            if k >= start and abs(column[r]) > bound[k]:
                return False, total
    return True, total


@noalloc_kernel(inline="always")
def transform_quant4x4(a, lev, y, x, qp, rounding, start):  # pragma: no cover - compiled
    """Forward transform and quantise the 4x4 residual block at (y, x) of ``a`` into ``lev``
    (raster positions ``start``..15; position 0 is left alone when start = 1). The block's DC
    coefficient is written back to ``a[y, x]`` (for the Hadamard stages); the other
    coefficients are not kept. Two kinds of block are not transformed: one whose SAD is within
    :data:`ZERO_SAD` (it quantises to nothing) and a uniform one (only its DC, the sum, is not
    zero; a fade's residual). Returns the number of non-zero levels."""
    sad = 0
    dc = 0
    first = a[y, x]
    uniform = True
    for r in range(4):
        for c in range(4):
            v = a[y + r, x + c]
            dc += v
            sad += v if v >= 0 else -v
            uniform = uniform and v == first
    qbits = 15 + qp // 6
    m = qp % 6
    if uniform or sad <= ZERO_SAD[qp, rounding, start]:
        a[y, x] = dc
        for k in range(start, 16):
            lev[y + (k >> 2), x + (k & 3)] = 0
        if start > 0 or not uniform:
            return 0
        level = quantize(dc, QUANT_MF[m, 0], qbits, rounding)
        lev[y, x] = level
        return 1 if level != 0 else 0
    forward4x4(a, y, x)
    count = 0
    for r in range(4):
        for c in range(4):
            k = 4 * r + c
            if k < start:
                continue
            level = quantize(a[y + r, x + c], QUANT_MF[m, k], qbits, rounding)
            lev[y + r, x + c] = level
            count += level != 0
    return count


@noalloc_kernel(inline="always")
def _inverse_1d(d0, d1, d2, d3):  # pragma: no cover - compiled
    e0, e1 = d0 + d2, d0 - d2
    e2, e3 = (d1 >> 1) - d3, d1 + (d3 >> 1)
    return e0 + e3, e1 + e2, e1 - e2, e0 - e3


@noalloc_kernel(inline="always")
def dequant_idct_add(lev, y, x, qp, dc, has_dc, pred, out, oy, ox):  # pragma: no cover
    """Decoder side of one 4x4 block: scale the levels at (y, x) of ``lev`` (8.5.12.1; the DC
    is the already scaled ``dc`` when ``has_dc``), inverse transform (8.5.12.2), add to the
    prediction ``pred[y.., x..]`` and write Clip1 of it to ``out[oy.., ox..]``."""
    m = qp % 6
    shift = qp // 6
    d00 = dc if has_dc else (lev[y, x] * DEQUANT_V[m, 0]) << shift
    flat = True   # only a DC (or nothing): every sample gets the same (d00 + 32) >> 6
    for k in range(1, 16):
        if lev[y + (k >> 2), x + (k & 3)] != 0:
            flat = False
            break
    if flat:
        add = (d00 + 32) >> 6
        for r in range(4):
            for c in range(4):
                v = pred[y + r, x + c] + add
                out[oy + r, ox + c] = 0 if v < 0 else (255 if v > 255 else v)
        return
    rows = (_inverse_1d(d00, _scaled(lev, y, x, 1, m, shift), _scaled(lev, y, x, 2, m, shift),
                        _scaled(lev, y, x, 3, m, shift)),
            _inverse_1d(_scaled(lev, y, x, 4, m, shift), _scaled(lev, y, x, 5, m, shift),
                        _scaled(lev, y, x, 6, m, shift), _scaled(lev, y, x, 7, m, shift)),
            _inverse_1d(_scaled(lev, y, x, 8, m, shift), _scaled(lev, y, x, 9, m, shift),
                        _scaled(lev, y, x, 10, m, shift), _scaled(lev, y, x, 11, m, shift)),
            _inverse_1d(_scaled(lev, y, x, 12, m, shift), _scaled(lev, y, x, 13, m, shift),
                        _scaled(lev, y, x, 14, m, shift), _scaled(lev, y, x, 15, m, shift)))
    for c in range(4):   # rows first (above), then each column (8.5.12.2)
        col = _inverse_1d(rows[0][c], rows[1][c], rows[2][c], rows[3][c])
        for r in range(4):
            v = pred[y + r, x + c] + ((col[r] + 32) >> 6)
            out[oy + r, ox + c] = 0 if v < 0 else (255 if v > 255 else v)


@noalloc_kernel(inline="always")
def _scaled(lev, y, x, k, m, shift):  # pragma: no cover - compiled
    """The decoder's scaled coefficient of raster position k (8.5.12.1, flat lists)."""
    return (np.int64(lev[y + (k >> 2), x + (k & 3)]) * DEQUANT_V[m, k]) << shift


@noalloc_kernel
def luma_dc_forward(coef, dclev, qp):  # pragma: no cover - compiled
    """Intra 16x16: Hadamard of the 16 blocks' DC coefficients of ``coef`` (16x16), halved,
    quantised into ``dclev`` (4x4, block raster; the transform is done in it, no scratch
    array). Returns the number of non-zero levels."""
    for i in range(4):
        for j in range(4):
            dclev[i, j] = coef[4 * i, 4 * j]
    _hadamard4(dclev)
    qbits = 16 + qp // 6
    count = 0
    for i in range(4):
        for j in range(4):
            t = dclev[i, j]
            v = t >> 1 if t >= 0 else -((-t) >> 1)
            level = quantize(v, QUANT_MF[qp % 6, 0], qbits, INTRA_ROUNDING)
            dclev[i, j] = level
            if level != 0:
                count += 1
    return count


@noalloc_kernel(inline="always")
def _hadamard4(t):  # pragma: no cover - compiled
    for r in range(4):
        a, b, c, d = t[r, 0], t[r, 1], t[r, 2], t[r, 3]
        t[r, 0], t[r, 1], t[r, 2], t[r, 3] = a + b + c + d, a + b - c - d, a - b - c + d, \
            a - b + c - d
    for col in range(4):
        a, b, c, d = t[0, col], t[1, col], t[2, col], t[3, col]
        t[0, col], t[1, col], t[2, col], t[3, col] = a + b + c + d, a + b - c - d, \
            a - b - c + d, a - b + c - d


@noalloc_kernel
def luma_dc_inverse(dclev, qp, dc):  # pragma: no cover - compiled
    """Decoder's Intra 16x16 DC: inverse Hadamard and scaling (8.5.10) of ``dclev`` into
    ``dc`` (4x4, block raster; the transform is done in it, no scratch array)."""
    for i in range(4):
        for j in range(4):
            dc[i, j] = dclev[i, j]
    _hadamard4(dc)
    scale = DEQUANT_V[qp % 6, 0] * 16
    for i in range(4):
        for j in range(4):
            if qp >= 36:
                dc[i, j] = (dc[i, j] * scale) << (qp // 6 - 6)
            else:
                dc[i, j] = (dc[i, j] * scale + (1 << (5 - qp // 6))) >> (6 - qp // 6)


@noalloc_kernel(inline="always")
def hadamard2x2(a, b, c, d):  # pragma: no cover - compiled
    """The 2x2 Hadamard transform of a chroma component's four DCs (raster c00 c01 c10 c11),
    in the order of :func:`chroma_dc_forward`'s levels."""
    return a + b + c + d, a - b + c - d, a + b - c - d, a - b - c + d


@noalloc_kernel
def chroma_dc_forward(coef, dclev, qp, rounding):  # pragma: no cover - compiled
    """Chroma (4:2:0): 2x2 Hadamard of the 4 blocks' DCs of ``coef`` (8x8), quantised into
    ``dclev`` (4,: raster c00 c01 c10 c11). Returns the number of non-zero levels."""
    f = hadamard2x2(coef[0, 0], coef[0, 4], coef[4, 0], coef[4, 4])
    qbits = 16 + qp // 6
    count = 0
    for k in range(4):
        level = quantize(f[k], QUANT_MF[qp % 6, 0], qbits, rounding)
        dclev[k] = level
        if level != 0:
            count += 1
    return count


@noalloc_kernel
def chroma_dc_inverse(dclev, qp, dc):  # pragma: no cover - compiled
    """Decoder's chroma DC (8.5.11.2, 4:2:0): 2x2 Hadamard and scaling into ``dc`` (4,)."""
    f = hadamard2x2(dclev[0], dclev[1], dclev[2], dclev[3])
    scale = DEQUANT_V[qp % 6, 0] * 16
    for k in range(4):
        dc[k] = ((f[k] * scale) << (qp // 6)) >> 5
