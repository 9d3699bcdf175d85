"""The encoder's fast paths give exactly what the plain computation gives: the fused transform
and quantisation (its all-zero SAD bound and its uniform-block path), the DC-only
reconstruction, and the motion search's early exits (against a search of the same points
without them)."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from objsub_fast.ground_truth.h264.cavlc_tables import DEQUANT_V, QUANT_MF
from objsub_fast.ground_truth.h264.motion import MAX_MV_PIXELS, MAX_STEPS, motion_search
from objsub_fast.ground_truth.h264.transform import (INTER_ROUNDING, INTRA_ROUNDING, ZERO_SAD,
                                                     dequant_idct_add, transform_quant4x4)

CF = np.array([[1, 1, 1, 1], [2, 1, -1, -2], [1, -1, -1, 1], [1, -2, 2, -1]], np.int64)


def reference_levels(block, qp, rounding):
    """Cf X Cf^T, then |W| * MF + f >> qbits with the sign (raster order)."""
    coef = (CF @ block.astype(np.int64) @ CF.T).reshape(16)
    qbits = 15 + qp // 6
    offset = ((1 << qbits) * rounding) // 6
    mag = (np.abs(coef) * QUANT_MF[qp % 6].astype(np.int64) + offset) >> qbits
    return coef, np.sign(coef) * mag


def reference_inverse(levels, qp, pred):
    """8.5.12: scale, the inverse core transform (rows, then columns), (x + 32) >> 6, Clip1."""
    d = (levels.reshape(4, 4).astype(np.int64) * DEQUANT_V[qp % 6].reshape(4, 4)) << (qp // 6)

    def inverse_rows(m):
        e0, e1 = m[:, 0] + m[:, 2], m[:, 0] - m[:, 2]
        e2, e3 = (m[:, 1] >> 1) - m[:, 3], m[:, 1] + (m[:, 3] >> 1)
        return np.stack([e0 + e3, e1 + e2, e1 - e2, e0 - e3], axis=1)

    h = inverse_rows(inverse_rows(d).T).T
    return np.clip(pred + ((h + 32) >> 6), 0, 255)


blocks = st.one_of(
    st.lists(st.integers(-255, 255), min_size=16, max_size=16),
    st.lists(st.integers(-3, 3), min_size=16, max_size=16),
    st.integers(-255, 255).map(lambda v: [v] * 16),           # uniform: a fade's residual
)


@settings(max_examples=300, deadline=None)
@given(values=blocks, qp=st.integers(10, 51),
       rounding=st.sampled_from([INTER_ROUNDING, INTRA_ROUNDING]), start=st.integers(0, 1))
def test_transform_quant_is_the_plain_transform_and_quantiser(values, qp, rounding, start):
    block = np.array(values, np.int64).reshape(4, 4)
    coef, want = reference_levels(block, qp, rounding)
    a = np.zeros((8, 8), np.int64)
    a[4:, 4:] = block
    lev = np.full((8, 8), 99, np.int64)
    count = transform_quant4x4(a, lev, 4, 4, qp, rounding, start)
    got = lev[4:, 4:].reshape(16)
    assert got[start:].tolist() == want[start:].tolist()
    assert count == int(np.count_nonzero(want[start:]))
    assert a[4, 4] == coef[0]                   # the DC kept for the Hadamard stages
    if start:
        assert got[0] == 99                     # position 0 left alone


@settings(max_examples=300, deadline=None)
@given(qp=st.integers(10, 51), rounding=st.sampled_from([INTER_ROUNDING, INTRA_ROUNDING]),
       start=st.integers(0, 1), values=st.lists(st.integers(-255, 255), min_size=16, max_size=16),
       single=st.one_of(st.none(), st.tuples(st.integers(0, 15), st.sampled_from([1, -1]))))
def test_zero_sad_bound_guarantees_zero_levels(qp, rounding, start, values, single):
    bound = int(ZERO_SAD[qp, rounding, start])
    block = np.array(values, np.int64)
    if single is not None:                      # the whole budget on one sample
        block[:] = 0
        block[single[0]] = single[1] * bound
    total = int(np.abs(block).sum())
    if total > bound:                           # scaled down into the budget
        block = np.sign(block) * (np.abs(block) * bound // total)
    _, levels = reference_levels(block.reshape(4, 4), qp, rounding)
    assert not levels[start:].any()


def test_zero_sad_bound_is_not_loose_by_much():
    # one sample at the bound + a little more makes a level somewhere (qp 28, inter, all 16)
    bound = int(ZERO_SAD[28, INTER_ROUNDING, 0])
    assert bound > 0
    hits = 0
    for where in range(16):
        block = np.zeros(16, np.int64)
        block[where] = 2 * bound + 2
        hits += reference_levels(block.reshape(4, 4), 28, INTER_ROUNDING)[1].any()
    assert hits == 16


@settings(max_examples=200, deadline=None)
@given(dc=st.integers(-40, 40), qp=st.integers(10, 51), pred=st.integers(0, 255),
       has_dc=st.booleans(), ac=st.booleans())
def test_dequant_of_a_dc_only_block_is_the_full_inverse(dc, qp, pred, has_dc, ac):
    lev = np.zeros((4, 4), np.int64)
    lev[0, 0] = dc
    if ac:
        lev[1, 2] = 1                           # the general path, for comparison
    levels = lev.reshape(16).copy()
    scaled_dc = 0
    if has_dc:                                  # an Intra 16x16 / chroma DC, already scaled
        scaled_dc = (dc * int(DEQUANT_V[qp % 6, 0])) << (qp // 6)
        lev[0, 0] = 0
    predicted = np.full((4, 4), pred, np.int64)
    out = np.zeros((4, 4), np.int64)
    dequant_idct_add(lev, 0, 0, qp, scaled_dc, has_dc, predicted, out, 0, 0)
    assert out.tolist() == reference_inverse(levels, qp, predicted).tolist()


def _sad(src, ref, y0, x0, dy, dx):
    h, w = ref.shape
    ys = np.clip(np.arange(16) + y0 + dy, 0, h - 1)
    xs = np.clip(np.arange(16) + x0 + dx, 0, w - 1)
    return int(np.abs(src[y0:y0 + 16, x0:x0 + 16].astype(np.int64) - ref[np.ix_(ys, xs)]).sum())


def _se_bits(v):
    code = 2 * v - 1 if v > 0 else -2 * v
    return 2 * int(code + 1).bit_length() - 1


def plain_search(src, ref, y0, x0, candidates, pmx, pmy, lam):
    """The same points as motion_search, every SAD in full, no bound."""
    best = (1 << 40, 0, 0, 0)
    seen = set()
    for tx, ty in candidates:
        tx, ty = tx - (tx & 3), ty - (ty & 3)
        if (tx, ty) in seen or max(abs(tx), abs(ty)) > 4 * MAX_MV_PIXELS:
            continue
        seen.add((tx, ty))
        sad = _sad(src, ref, y0, x0, ty >> 2, tx >> 2)
        cost = sad + lam * (_se_bits(tx - pmx) + _se_bits(ty - pmy))
        if cost < best[0]:
            best = (cost, sad, tx, ty)
    cost, sad, mvx, mvy = best
    moved, steps = sad > 0, 0
    while moved and steps < MAX_STEPS:
        moved, steps = False, steps + 1
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            tx, ty = mvx + 4 * dx, mvy + 4 * dy
            if max(abs(tx), abs(ty)) > 4 * MAX_MV_PIXELS:
                continue
            rate = lam * (_se_bits(tx - pmx) + _se_bits(ty - pmy))
            c = _sad(src, ref, y0, x0, ty >> 2, tx >> 2) + rate
            if c < cost:
                cost, sad, mvx, mvy, moved = c, c - rate, tx, ty, True
    return mvx, mvy, cost, sad


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2 ** 31), mode=st.sampled_from(["slide", "fade", "noise"]),
       lam=st.integers(1, 20), mb=st.tuples(st.integers(0, 3), st.integers(0, 3)),
       common=st.lists(st.tuples(st.integers(-40, 40), st.integers(-40, 40)), max_size=4))
def test_motion_search_finds_what_a_search_without_shortcuts_finds(seed, mode, lam, mb, common):
    rng = np.random.default_rng(seed)
    ref = np.full((64, 64), 235, np.uint8)
    y, x = rng.integers(0, 48, 2)
    ref[y:y + 20, x:x + 24] = rng.integers(16, 200)
    ref[y + 3:y + 9, x + 2:x + 7] = rng.integers(16, 200)
    if mode == "slide":
        src = np.roll(ref, (int(rng.integers(-5, 6)), int(rng.integers(-5, 6))), axis=(0, 1))
    elif mode == "fade":
        src = ((ref.astype(np.int64) * 3 + 235) // 4).astype(np.uint8)
    else:
        noise = rng.integers(-6, 7, ref.shape)
        src = np.clip(ref.astype(np.int64) + noise, 0, 255).astype(np.uint8)
    mby, mbx = mb
    mv = np.zeros((4, 4, 2), np.int32)
    refidx = np.zeros((4, 4), np.int32)
    prev_mv = rng.integers(-12, 13, (4, 4, 2)).astype(np.int32) * 4
    common_arr = np.array(common, np.int32).reshape(-1, 2) * 4
    tried = np.zeros((6 + len(common_arr), 2), np.int64)
    got = motion_search(src, ref, 16 * mby, 16 * mbx, mby, mbx, mv, refidx, prev_mv, common_arr,
                        8, -4, lam, tried, np.zeros((0, 2), np.int32))
    # candidates in motion_search's order; the neighbours' vectors and the prediction are zero
    cands = [(0, 0), tuple(prev_mv[mby, mbx]), (0, 0)]
    cands += [(0, 0)] if mbx > 0 else []
    cands += [(0, 0)] if mby > 0 else []
    cands += [(8, -4)] + [tuple(c) for c in common_arr]
    cands = [(int(a), int(b)) for a, b in cands]
    want = plain_search(src, ref, 16 * mby, 16 * mbx, cands, 0, 0, lam)
    assert tuple(int(v) for v in got) == want


def test_told_motion_is_the_only_motion_tried():
    """With hints, the best of the told vectors wins and nothing else is searched."""
    ref = np.zeros((48, 48), np.uint8)
    ref[20:28, 22:30] = 200
    src = np.zeros((48, 48), np.uint8)
    src[20:28, 24:32] = 200                         # moved 2 px right
    mv = np.zeros((3, 3, 2), np.int32)
    refidx = np.zeros((3, 3), np.int32)
    tried = np.zeros((10, 2), np.int64)
    none = np.zeros((0, 2), np.int32)
    told = motion_search(src, ref, 16, 16, 1, 1, mv, refidx, mv, none, 0, 0, 4, tried,
                         np.array([[0, 0], [-8, 0]], np.int32))
    assert told[:2] == (-8, 0) and told[3] == 0
    zero_only = motion_search(src, ref, 16, 16, 1, 1, mv, refidx, mv, none, 0, 0, 4, tried,
                              np.zeros((1, 2), np.int32))
    assert zero_only[:2] == (0, 0) and zero_only[3] > 0     # a search would have found -8
