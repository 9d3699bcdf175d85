"""Motion search of a P macroblock: integer-pel candidates, then a 1-pel diamond refinement,
at cost ``SAD + lambda * (bits of the vector difference)``.

Two exact shortcuts leave the chosen vector as a full search of the same points would: a SAD
stops as soon as the candidate cannot win (its limit is the best cost less the candidate's
vector bits), and a diamond point is skipped without a SAD when the difference of the block
sums (a lower bound of the SAD) already rules it out. In a fade the inside of an object is
flat in both pictures, every shift ties, and the bound is the SAD itself.

Examples
--------
>>> import numpy as np
>>> ref = np.zeros((48, 48), np.uint8); ref[20:28, 22:30] = 200   # a square ...
>>> src = np.zeros((48, 48), np.uint8); src[20:28, 24:32] = 200   # ... moved 2 px right
>>> mv = np.zeros((3, 3, 2), np.int32); refidx = np.zeros((3, 3), np.int32)
>>> tried = np.zeros((10, 2), np.int64)
>>> motion_search(src, ref, 16, 16, 1, 1, mv, refidx, mv.copy(), np.zeros((0, 2), np.int32),
...               0, 0, 4, tried, np.zeros((0, 2), np.int32))  # 2 px left, 4 * 10 bits
(-8, 0, 40, 0)
>>> motion_search(src, ref, 16, 16, 1, 1, mv, refidx, mv.copy(), np.zeros((0, 2), np.int32),
...               0, 0, 4, tried, np.array([[0, 0], [-8, 0]], np.int32))  # told what moved
(-8, 0, 40, 0)
"""
from __future__ import annotations

import numpy as np

from ...runtime._numba import noalloc_kernel
from .bitstream import se_bits
from .inter import block_sum, luma_sad, predict_mv, shifted_sum

#: Largest motion vector component searched, in pixels.
MAX_MV_PIXELS = 128
#: Steps of the 1-pel diamond refinement at most.
MAX_STEPS = 24


@noalloc_kernel(inline="always")
def _candidate(k, mby, mbx, mv, ref, prev_mv, common, pmx, pmy, last_x, last_y):
    """Candidate ``k`` (valid, x, y): zero, this macroblock's previous vector, the prediction,
    the left and upper neighbours', the last one chosen, the previous picture's commonest."""
    if k == 0:  # pragma: no cover - compiled
        return True, 0, 0
    if k == 1:
        return True, prev_mv[mby, mbx, 0], prev_mv[mby, mbx, 1]
    if k == 2:
        return True, pmx, pmy
    if k == 3:
        ok = mbx > 0 and ref[mby, mbx - 1] >= 0
        return ok, mv[mby, mbx - 1, 0] if ok else 0, mv[mby, mbx - 1, 1] if ok else 0
    if k == 4:
        ok = mby > 0 and ref[mby - 1, mbx] >= 0
        return ok, mv[mby - 1, mbx, 0] if ok else 0, mv[mby - 1, mbx, 1] if ok else 0
    if k == 5:
        return True, last_x, last_y
    return True, common[k - 6, 0], common[k - 6, 1]


@noalloc_kernel
def motion_search(sy, ry, y0, x0, mby, mbx, mv, ref, prev_mv, common, last_x, last_y, lam,
                  tried, hints):  # pragma: no cover - compiled
    """Best integer-pel vector of the macroblock at (y0, x0) of ``sy`` in ``ry``; returns
    (mvx, mvy in quarter-pel, its cost, its SAD). ``tried``: (6 + K, 2) scratch.

    ``hints``: (n, 2) quarter-pel vectors of the only motion in the picture, told by the
    caller (the zero vector among them); then only those are tried, without refinement.
    Empty: the search of the module docstring."""
    pmx, pmy = predict_mv(mv, ref, mby, mbx, np.int64(0))
    best_cost = 1 << 40
    best_sad = 0
    mvx = mvy = 0
    if hints.shape[0] > 0:
        for k in range(hints.shape[0]):
            tx, ty = hints[k, 0], hints[k, 1]
            if abs(tx) > 4 * MAX_MV_PIXELS or abs(ty) > 4 * MAX_MV_PIXELS:
                continue
            rate = lam * (se_bits(tx - pmx) + se_bits(ty - pmy))
            sad = luma_sad(sy, y0, x0, ry, ty >> 2, tx >> 2, best_cost - rate)
            if sad + rate < best_cost:
                best_cost, best_sad, mvx, mvy = sad + rate, sad, tx, ty
        return mvx, mvy, best_cost, best_sad
    n_tried = 0
    for k in range(6 + common.shape[0]):
        ok, tx, ty = _candidate(k, mby, mbx, mv, ref, prev_mv, common, pmx, pmy, last_x, last_y)
        tx, ty = tx - (tx & 3), ty - (ty & 3)
        if not ok or abs(tx) > 4 * MAX_MV_PIXELS or abs(ty) > 4 * MAX_MV_PIXELS:
            continue
        seen = False
        for j in range(n_tried):
            if tried[j, 0] == tx and tried[j, 1] == ty:
                seen = True
        if seen:
            continue
        tried[n_tried, 0], tried[n_tried, 1] = tx, ty
        n_tried += 1
        rate = lam * (se_bits(tx - pmx) + se_bits(ty - pmy))
        sad = luma_sad(sy, y0, x0, ry, ty >> 2, tx >> 2, best_cost - rate)
        if sad + rate < best_cost:
            best_cost, best_sad, mvx, mvy = sad + rate, sad, tx, ty
    if best_sad == 0:
        return mvx, mvy, best_cost, best_sad
    src_sum = block_sum(sy, y0, x0, 16, 16)
    ref_sum = block_sum(ry, y0 + (mvy >> 2), x0 + (mvx >> 2), 16, 16)
    moved = True
    steps = 0
    while moved and steps < MAX_STEPS:
        moved = False
        steps += 1
        for d in range(4):   # the centre moves as soon as a point wins
            dx = 1 if d == 0 else (-1 if d == 1 else 0)
            dy = 1 if d == 2 else (-1 if d == 3 else 0)
            tx, ty = mvx + 4 * dx, mvy + 4 * dy
            if abs(tx) > 4 * MAX_MV_PIXELS or abs(ty) > 4 * MAX_MV_PIXELS:
                continue
            rate = lam * (se_bits(tx - pmx) + se_bits(ty - pmy))
            cand_sum = shifted_sum(ry, y0 + (mvy >> 2), x0 + (mvx >> 2), ref_sum, dy, dx)
            if abs(src_sum - cand_sum) + rate >= best_cost:
                continue
            sad = luma_sad(sy, y0, x0, ry, ty >> 2, tx >> 2, best_cost - rate)
            if sad + rate < best_cost:
                best_cost, best_sad, mvx, mvy, ref_sum = sad + rate, sad, tx, ty, cand_sum
                moved = True
    return mvx, mvy, best_cost, best_sad
