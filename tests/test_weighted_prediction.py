"""A fade's weighted prediction (``transition_video.fade_weights``): its weights predict each
drawn picture from the one before within a sample or two wherever the fade changed it, and a
residual within ``transform.ZERO_MAX`` quantises to nothing (what lets a macroblock go
without one)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from objsub_fast import generate_batch
from objsub_fast.ground_truth.h264.params import (WEIGHTS_IDENTITY, WEIGHTS_NONE,
                                                 WEIGHTS_SECOND_REF)
from objsub_fast.ground_truth.h264.mb_common import chroma_residual
from objsub_fast.ground_truth.h264.cavlc_tables import QUANT_MF
from objsub_fast.ground_truth.h264.transform import (HALF_STEP, INTER_ROUNDING, ZERO_CHROMA_DC,
                                                     ZERO_LEVEL, ZERO_MAX, ZERO_SAD, quantize,
                                                     transform_quant4x4)
from objsub_fast.ground_truth.h264.encoder import H264Encoder, annexb
from objsub_fast.ground_truth.h264.inter import weighted_residual, weighted_row_fit
from objsub_fast.ground_truth.transition_video import (FROM_PREVIOUS, LOG_WD, WHITE_YUV,
                                                       fade_weights, pack_plan)
from objsub_fast.ground_truth.transitions import plan_transition, task_arrays, transition_frames
from objsub_fast.ground_truth.yuv import YuvPicture


def weighted(plane, weights, k):
    """The explicit weighted prediction (8.4.2.3.2) of plane k (0 Y, 1 Cb, 2 Cr)."""
    log_wd, weight, offset = weights[1], weights[2 + 2 * k], weights[3 + 2 * k]
    return np.clip(((plane.astype(np.int64) * weight + (1 << (log_wd - 1))) >> log_wd)
                   + offset, 0, 255)


def weights_step_by_step(keep, start):
    """``fade_weights`` the plain way, one step of the transition at a time."""
    out = np.zeros((len(keep), 8), np.int64)
    for f in range(1, len(keep)):
        changed = keep[f] != keep[f - 1]
        pairs = {(int(a), int(b)) for a, b in zip(keep[f - 1][changed], keep[f][changed])}
        if start[f] != FROM_PREVIOUS or len(pairs) != 1:
            continue
        (before, after), = pairs
        if before <= 0:
            continue
        weight = min((256 * after + before) // (2 * before), 127)
        offsets = [w - ((w * weight + (1 << (LOG_WD - 1))) >> LOG_WD) for w in WHITE_YUV]
        if weight >= 0 and all(-128 <= o <= 127 for o in offsets):
            out[f] = (WEIGHTS_SECOND_REF, LOG_WD, weight, offsets[0], weight, offsets[1],
                      weight, offsets[2])
    if (out[:, 0] == WEIGHTS_SECOND_REF).any():
        out[out[:, 0] == WEIGHTS_NONE, 0] = WEIGHTS_IDENTITY
    return out


@settings(max_examples=200, deadline=None)
@given(data=st.data(), frames=st.integers(0, 12), objects=st.integers(0, 4))
def test_fade_weights_as_step_by_step(data, frames, objects):
    """The vectorised weights equal the step-by-step rule on any keep table: one ratio, two,
    none, an object faded from 0, a step that starts afresh."""
    values = st.sampled_from([0, 1, 64, 128, 192, 255, 256])
    keep = np.array(data.draw(st.lists(st.lists(values, min_size=objects, max_size=objects),
                                       min_size=frames, max_size=frames)),
                    np.int64).reshape(frames, objects)
    start = np.array(data.draw(st.lists(st.sampled_from([0, 0, 0, 1, 2]), min_size=frames,
                                        max_size=frames)), np.int64)
    assert fade_weights(keep, start).tolist() == weights_step_by_step(keep, start).tolist()


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000), look=st.sampled_from(["flat", "solid"]),
       frames=st.integers(9, 61))
def test_fade_weights_predict_each_picture_from_the_one_before(seed, look, frames):
    batch = generate_batch([seed], level="L3", look=look)
    first = batch.first_frames[0]
    packed = pack_plan(plan_transition(first, style="fade", num_frames=frames,
                                       **task_arrays(batch, 0)))
    assert packed.weighted
    picture, planes = YuvPicture(256, 256), []
    for frame in transition_frames(first, style="fade", num_frames=frames,
                                   **task_arrays(batch, 0)):
        picture.update(frame, None)
        planes.append([p.astype(np.int64) for p in picture.planes])
    weighted_pictures = 0
    for f, weights in enumerate(packed.weights):
        if weights[0] != WEIGHTS_SECOND_REF:
            continue
        weighted_pictures += 1
        for k in range(3):
            changed = planes[f][k] != planes[f - 1][k]
            error = np.abs(weighted(planes[f - 1][k], weights, k) - planes[f][k])[changed]
            assert error.max(initial=0) <= 2, (f, k)
    assert weighted_pictures >= frames - 2 * max(1, frames // 8) - 2


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), n=st.sampled_from([8, 16]), log_wd=st.integers(0, 7),
       weight=st.integers(-128, 127), offset=st.integers(-128, 127), limit=st.integers(0, 8),
       run=st.tuples(st.integers(0, 5), st.integers(1, 6)))
def test_the_row_pass_predicts_and_flags_as_the_standard_says(seed, n, log_wd, weight, offset,
                                                              limit, run):
    """``inter.weighted_row_fit`` (32-bit lanes over whole rows) against the standard's
    formula in 64-bit numpy: the same predictions in the run's columns, nothing written
    outside them, and a macroblock flagged exactly when one of its samples is more than
    ``limit`` from its prediction (sources near the prediction, so both answers occur)."""
    rng = np.random.default_rng(seed)
    mbw = 6
    begin, end = min(run[0], mbw - 1), min(run[0] + run[1], mbw)
    ref = rng.integers(0, 256, (2 * n, n * mbw), dtype=np.uint8)
    weights = np.array([WEIGHTS_SECOND_REF, log_wd, weight, offset, weight, offset, weight,
                        offset])
    if log_wd == 0:
        expected = np.clip(ref.astype(np.int64) * weight + offset, 0, 255)
    else:
        expected = weighted(ref, weights, 0)
    src = np.clip(expected + rng.integers(-limit - 2, limit + 3, ref.shape) *
                  (rng.random(ref.shape) < 0.02), 0, 255).astype(np.uint8)
    out = np.full((n, n * mbw), 7, np.uint8)
    flags = np.zeros(n * mbw, np.uint8)
    bad = np.full(mbw, 9, np.uint8)
    bad[begin:end] = 0
    weighted_row_fit(src, ref, out, flags, flags.view(np.uint64), n, n, begin, end, log_wd,
                     weight, offset, limit, bad)
    columns = slice(n * begin, n * end)
    assert (out[:, columns] == expected[n:, columns]).all()
    assert (np.delete(out, np.s_[columns], axis=1) == 7).all()
    miss = np.abs(src[n:].astype(np.int64) - expected[n:]) > limit
    want = miss.reshape(n, mbw, n).any(axis=(0, 2)).astype(np.uint8)
    assert bad[begin:end].tolist() == want[begin:end].tolist()
    assert (bad[:begin] == 9).all() and (bad[end:] == 9).all()


@settings(max_examples=60, deadline=None)
@given(qp=st.integers(10, 51), seed=st.integers(0, 2 ** 32 - 1))
def test_a_residual_within_zero_max_quantises_to_nothing(qp, seed):
    bound = int(ZERO_MAX[qp])
    rng = np.random.default_rng(seed)
    block = rng.choice([-bound, bound], (4, 4)) if rng.integers(0, 2) else \
        rng.integers(-bound, bound + 1, (4, 4))
    levels = np.zeros((4, 4), np.int64)
    assert transform_quant4x4(block.astype(np.int64), levels, 0, 0, qp, INTER_ROUNDING, 0) == 0
    worse = np.full((4, 4), bound + 1, np.int64)   # just past it, some level is not zero
    assert transform_quant4x4(worse, levels, 0, 0, qp, INTER_ROUNDING, 0) > 0 or bound == 0


def levels_of_residual(src, pred, qp, qpc):
    """(luma levels, chroma cbp classes) of coding the macroblock's residual against ``pred``
    (Y, U, V) the way ``encode_picture`` does: each luma 4x4 block from position 0, each
    chroma component through ``mb_common.chroma_residual``, at the inter rounding."""
    diff = src[0].astype(np.int64) - pred[0]
    levels = np.zeros((16, 16), np.int64)
    luma = sum(transform_quant4x4(diff, levels, y, x, qp, INTER_ROUNDING, 0)
               for y in range(0, 16, 4) for x in range(0, 16, 4))
    classes = []
    for k in (1, 2):
        scratch, lev = np.zeros((8, 8), np.int64), np.zeros((8, 8), np.int64)
        classes.append(chroma_residual(src[k], 0, 0, pred[k].astype(np.int64), qpc,
                                       INTER_ROUNDING, scratch, lev, np.zeros(4, np.int64)))
    return luma, classes


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), qp=st.integers(10, 51), spread=st.integers(0, 12),
       density=st.sampled_from([0.02, 0.1, 0.5, 1.0]))
def test_a_weighted_residual_codes_alone_exactly_when_it_has_no_level(seed, qp, spread,
                                                                      density):
    """``inter.weighted_residual``: both SADs as numpy counts them, and "codes as the weighted
    prediction alone" exactly when the weighted prediction is the closer one and coding its
    residual the way the picture kernel does gives no level at all (luma, both chroma
    components, their DCs)."""
    rng = np.random.default_rng(seed)
    qpc = max(0, qp - int(rng.integers(0, 4)))
    pred = [rng.integers(0, 256, (16, 16)), rng.integers(0, 256, (8, 8)),
            rng.integers(0, 256, (8, 8))]
    noise = [rng.integers(-spread, spread + 1, p.shape) * (rng.random(p.shape) < density)
             for p in pred]
    if rng.integers(0, 2):    # a drift: every sample one off
        noise = [e - 1 for e in noise]
    src = [np.clip(p + e, 0, 255).astype(np.uint8) for p, e in zip(pred, noise)]
    ref = np.clip(pred[0] + rng.integers(-20, 21, (16, 16)), 0, 255).astype(np.uint8)
    sad_same, sad_weighted, alone = weighted_residual(
        tuple(src), ref, tuple(p.astype(np.uint8) for p in pred), 0, 0, qp, qpc)
    assert sad_same == np.abs(src[0].astype(np.int64) - ref).sum()
    assert sad_weighted == np.abs(src[0].astype(np.int64) - pred[0]).sum()
    no_level = levels_of_residual(src, pred, qp, qpc) == (0, [0, 0])
    assert alone == (sad_weighted <= sad_same and no_level)


def test_the_zero_bounds_are_the_quantisers_last_zero():
    """``ZERO_LEVEL[qp, k]`` is the largest coefficient whose level is zero at position k,
    ``ZERO_CHROMA_DC[qp]`` the largest chroma DC (quantised with one more bit), at every QP
    and sign."""
    for qp in range(52):
        qbits = 15 + qp // 6
        for k in range(16):
            bound, mf = int(ZERO_LEVEL[qp, k]), int(QUANT_MF[qp % 6, k])
            for sign in (1, -1):
                assert quantize(sign * bound, mf, qbits, INTER_ROUNDING) == 0
                assert quantize(sign * (bound + 1), mf, qbits, INTER_ROUNDING) != 0
        bound = int(ZERO_CHROMA_DC[qp])
        assert quantize(bound, int(QUANT_MF[qp % 6, 0]), qbits + 1, INTER_ROUNDING) == 0
        assert quantize(bound + 1, int(QUANT_MF[qp % 6, 0]), qbits + 1, INTER_ROUNDING) != 0


def test_a_weighted_residual_codes_alone_up_to_its_first_level():
    """Cases on either side of a level at QP 28: a luma block whose SAD is past
    ``ZERO_SAD`` but whose coefficients all quantise to zero, and one more sample that makes
    a level; a chroma 8x8 whose 4x4 blocks have no AC level but whose DCs together make one
    (SAD 88 > ``ZERO_CHROMA_DC``, 85), and one just within it (84)."""
    qp = qpc = 28
    assert (ZERO_SAD[qp, INTER_ROUNDING, 0], ZERO_CHROMA_DC[qpc]) == (26, 85)
    pred = [np.full((16, 16), 100, np.uint8), np.full((8, 8), 100, np.uint8),
            np.full((8, 8), 100, np.uint8)]
    ref = np.zeros((16, 16), np.uint8)

    def alone(src):
        return weighted_residual(tuple(src), ref, tuple(pred), 0, 0, qp, qpc)[2]

    src = [p.copy() for p in pred]
    src[0][0:4, 0:4] += np.array([[2, 0, 0, 2], [0, 2, 2, 0], [0, 2, 2, 0], [2, 0, 0, 2]],
                                 np.uint8) * 2   # SAD 32, no level
    assert alone(src) and levels_of_residual(src, pred, qp, qpc) == (0, [0, 0])
    src[0][0:4, 0:4] += np.uint8(2)              # and a DC of 32 more: a level
    assert not alone(src) and levels_of_residual(src, pred, qp, qpc)[0] > 0

    def chroma_blocks(twos):   # each 4x4 block: `twos` samples of +2, the rest +1
        block = np.ones(16, np.int64)
        block[:twos] = 2
        return (pred[1] + np.tile(block.reshape(4, 4), (2, 2))).astype(np.uint8)

    src = [p.copy() for p in pred]
    src[1] = chroma_blocks(6)      # 4 x 22 = 88
    assert not alone(src)
    assert levels_of_residual(src, pred, qp, qpc)[1][0] == 1   # a DC level only
    src[1] = chroma_blocks(5)      # 4 x 21 = 84
    assert alone(src) and levels_of_residual(src, pred, qp, qpc) == (0, [0, 0])


@pytest.mark.parametrize("past", [0, 1])
def test_a_fading_macroblock_within_half_a_step_is_its_weighted_prediction(past):
    """A fading picture within ``HALF_STEP[qp]`` (8 at QP 28) of its weighted prediction in
    every sample decodes (FFmpeg) as that prediction: no residual, though one of 8 over a
    whole block quantises to a level; one sample a level further, and the residual is coded."""
    from h264_streams import decode_annexb

    enc = H264Encoder(32, 32)
    enc.use_weighted_prediction(True)
    bound = int(HALF_STEP[enc.settings.qp_p])
    assert bound == 8 and all(HALF_STEP >= ZERO_MAX)
    y, chroma = np.full((32, 32), 100, np.uint8), np.full((16, 16), 128, np.uint8)
    pictures = [enc.encode(y, chroma, chroma)]
    # weight 64/128, offset 60 (chroma 64): Y 100 -> 50 + 60 = 110, chroma 128 stays 128
    weights = np.array([WEIGHTS_SECOND_REF, LOG_WD, 64, 60, 64, 64, 64, 64])
    source = np.full((32, 32), 110, np.uint8)
    source[:16, :16] += np.uint8(bound)
    source[5, 5] += np.uint8(past)
    pictures.append(enc.encode(source, chroma, chroma, changed=[(0, 32, 0, 32)], weights=weights))
    decoded = decode_annexb(annexb(enc.sps, enc.pps, pictures))[1]
    assert (decoded[1] == 128).all() and (decoded[2] == 128).all()
    assert (decoded[0][16:] == 110).all() and (decoded[0][:, 16:] == 110).all()
    if past:   # the residual brings the macroblock toward the source
        assert np.abs(decoded[0][:16, :16].astype(int) - source[:16, :16]).max() < bound
    else:
        assert (decoded[0][:16, :16] == 110).all()


def test_weights_only_in_a_video_that_uses_them():
    enc = H264Encoder(32, 32)
    y = np.full((32, 32), 235, np.uint8)
    u = v = np.full((16, 16), 128, np.uint8)
    enc.encode(y, u, v)
    weights = np.array([WEIGHTS_SECOND_REF, 7, 120, 15, 120, 8, 120, 8])
    with pytest.raises(ValueError, match="use_weighted_prediction"):
        enc.encode(y, u, v, changed=[], weights=weights)
    with pytest.raises(ValueError, match="has begun"):
        enc.use_weighted_prediction(True)
