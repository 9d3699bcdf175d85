"""A second decoder that shares no code with FFmpeg (Cisco's OpenH264 through ctypes,
``objsub_fast.testing.openh264``) decodes the own encoder's videos to exactly the encoder's
reconstruction and to exactly what FFmpeg (PyAV) decodes; the container is read without FFmpeg
too (``mp4.read_track``). CI installs ``libopenh264-7`` (``.ci/run``); elsewhere the tests skip
saying so."""
import io

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from objsub_fast import generate_batch
from objsub_fast.testing import openh264
from objsub_fast.ground_truth.h264.mp4 import read_track, sample_nals
from objsub_fast.ground_truth.h264.params import WEIGHTS_SECOND_REF
from objsub_fast.ground_truth.transition_video import pack_plan
from objsub_fast.ground_truth.transitions import (STYLE_NAMES, plan_transition, task_arrays,
                                                  transition_updates)
from objsub_fast.ground_truth.video import ObjsubEncoder, VideoSpec

av = pytest.importorskip("av")
pytestmark = pytest.mark.skipif(
    not openh264.available(),
    reason="libopenh264 is not installed (Debian: apt-get install libopenh264-7); CI has it")

FRAMES = 16


def pyav_planes(mp4: bytes):
    with av.open(io.BytesIO(mp4)) as container:
        return [f.to_ndarray(format="yuv420p") for f in container.decode(video=0)]


def stacked(planes) -> np.ndarray:
    """(Y, U, V) as PyAV's yuv420p array: Y rows, then U and V rows of half width."""
    y, u, v = planes
    h, w = y.shape
    return np.concatenate([y.ravel(), u.ravel(), v.ravel()]).reshape(h * 3 // 2, w)


def encode_with_reconstruction(batch, i, style, frames=FRAMES):
    """Task ``i``'s objsub video and the encoder's reconstruction of every picture (a fade's
    pictures weighted-predicted, as ``add_transition`` codes them)."""
    h, w = batch.first_frames.shape[1:3]
    encoder = ObjsubEncoder(w, h, 16)
    packed = pack_plan(plan_transition(batch.first_frames[i], style=style, num_frames=frames,
                                       **task_arrays(batch, i)))
    encoder.use_weighted_prediction(packed.weighted)
    recon = []
    for weights, (frame, changed) in zip(packed.weights, transition_updates(
            batch.first_frames[i], style=style, num_frames=frames, final=batch.final_frames[i],
            **task_arrays(batch, i))):
        encoder.add(frame, changed, weights=weights)
        recon.append(stacked(encoder.reconstruction()))
    return encoder.finish(), recon


@pytest.fixture(scope="module")
def batch():
    return generate_batch(np.arange(4), level=["L1", "L2", "L3", "L4"])


@pytest.mark.parametrize("style", STYLE_NAMES)
def test_openh264_decodes_the_reconstruction_exactly(batch, style):
    for i in range(len(batch)):
        mp4, recon = encode_with_reconstruction(batch, i, style)
        theirs = [stacked(p) for p in openh264.decode_mp4(mp4)]
        ffmpeg = pyav_planes(mp4)
        assert len(theirs) == len(ffmpeg) == len(recon) == FRAMES
        for f, (a, b, c) in enumerate(zip(theirs, ffmpeg, recon)):
            assert np.array_equal(a, c), (style, i, f, "OpenH264 vs reconstruction")
            assert np.array_equal(b, c), (style, i, f, "FFmpeg vs reconstruction")


def test_openh264_decodes_a_1024_video(batch):
    big = generate_batch([7], canvas_size=1024)
    mp4, recon = encode_with_reconstruction(big, 0, "slide", frames=6)
    assert all(np.array_equal(stacked(p), r) for p, r in zip(openh264.decode_mp4(mp4), recon))


def synthetic_video(seed: int):
    """Frames of random content (flat rectangles, noise, gradients, whole-frame changes,
    objects across the borders) at a random even size, with the rectangles that changed."""
    rng = np.random.default_rng(seed)
    h, w = 2 * int(rng.integers(8, 48)), 2 * int(rng.integers(8, 48))
    frame = np.full((h, w, 3), 255, np.uint8)
    frames, changes = [], []
    for f in range(int(rng.integers(2, 7))):
        frame = frame.copy()
        kind = int(rng.integers(0, 4)) if f else 3
        y0, x0 = int(rng.integers(-8, h)), int(rng.integers(-8, w))
        y1, x1 = y0 + int(rng.integers(2, 40)), x0 + int(rng.integers(2, 40))
        y0, x0, y1, x1 = max(y0, 0), max(x0, 0), min(y1, h), min(x1, w)
        y1, x1 = max(y1, y0), max(x1, x0)       # a rectangle wholly outside is empty
        if kind == 0:
            frame[y0:y1, x0:x1] = rng.integers(0, 256, 3)
        elif kind == 1:
            frame[y0:y1, x0:x1] = rng.integers(0, 256, (y1 - y0, x1 - x0, 3))
        elif kind == 2:
            ramp = np.linspace(0, 255, max(x1 - x0, 1)).astype(np.uint8)
            frame[y0:y1, x0:x1] = ramp[None, :, None]
        else:
            frame[:] = rng.integers(0, 256, (h, w, 3)) // 64 * 64
            y0, y1, x0, x1 = 0, h, 0, w
        frames.append(frame)
        changes.append(None if f == 0 or rng.integers(0, 3) == 0 else [(y0, y1, x0, x1)])
    return frames, changes


def test_a_fade_is_weighted_predicted_in_main_profile(batch):
    """The fade's pictures carry weights (reference index 1 for most changed macroblocks), the
    stream says Main profile, and both decoders agree with the reconstruction (above)."""
    mp4, _ = encode_with_reconstruction(batch, 2, "fade")
    track = read_track(mp4)
    assert track["sps"][1] == 77 and track["sps"][2] == 0x40      # profile_idc, constraints
    encoder = ObjsubEncoder(256, 256, 16)
    encoder.add_transition(plan_transition(batch.first_frames[2], style="fade",
                                           num_frames=FRAMES, **task_arrays(batch, 2)),
                           batch.first_frames[2], batch.final_frames[2])
    stats = encoder._encoder.stats_dict()
    assert stats["mb_weighted"] > stats["mb_p16x16"] // 2 > 0
    assert read_track(encoder.finish())["sps"][1] == 77
    shrink, _ = encode_with_reconstruction(batch, 2, "shrink")
    assert read_track(shrink)["sps"][1] == 66                       # nothing fades


def random_weights(rng) -> np.ndarray:
    """A P picture's weights: none, or reference index 1 with any weights and offsets."""
    if rng.integers(0, 3) == 0:
        return None
    return np.array([WEIGHTS_SECOND_REF, int(rng.integers(1, 8)),
                     *(int(v) for pair in range(3) for v in (rng.integers(-128, 128),
                                                             rng.integers(-128, 128)))])


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.booleans())
def test_openh264_decodes_synthetic_content_to_the_reconstruction(seed, weighted):
    """Weighted: every P picture with random weights (clipping at both ends included)."""
    frames, changes = synthetic_video(seed)
    h, w = frames[0].shape[:2]
    encoder = ObjsubEncoder(w, h, 16)
    encoder.use_weighted_prediction(weighted)
    rng = np.random.default_rng(seed)
    recon = []
    for frame, changed in zip(frames, changes):
        encoder.add(frame, changed, weights=random_weights(rng) if weighted else None)
        recon.append(stacked(encoder.reconstruction()))
    mp4 = encoder.finish()
    theirs = [stacked(p) for p in openh264.decode_mp4(mp4)]
    assert len(theirs) == len(recon)
    assert all(np.array_equal(a, b) for a, b in zip(theirs, recon))
    assert all(np.array_equal(a, b) for a, b in zip(pyav_planes(mp4), recon))


def test_a_damaged_stream_is_an_error_not_a_guess(batch):
    """The harness can fail: a slice cut short is refused (error concealment is off)."""
    mp4, _ = encode_with_reconstruction(batch, 1, "fade", frames=4)
    track = read_track(mp4)
    units = [sample_nals(s) for s in track["samples"]]
    first = units[0]
    first[-1] = first[-1][:len(first[-1]) // 3]
    with pytest.raises(openh264.OpenH264Error):
        openh264.decode_annexb([[track["sps"], track["pps"], *first], *units[1:]])


def test_openh264_agrees_with_ffmpeg_on_x264_baseline():
    """The harness on a stream that is not ours: libx264 Baseline, remuxed by our muxer."""
    from test_mp4 import moving_square, remux, x264_annexb

    raw = x264_annexb(moving_square(), "cabac=0:8x8dct=0:weightp=0:keyint=5")
    mp4, _ = remux(raw)
    theirs = [stacked(p) for p in openh264.decode_mp4(mp4)]
    ffmpeg = pyav_planes(mp4)
    assert len(theirs) == len(ffmpeg) > 1
    assert all(np.array_equal(a, b) for a, b in zip(theirs, ffmpeg))
