"""The own H.264 encoder against FFmpeg's decoder: every picture FFmpeg decodes (with its
strictest error detection) equals the encoder's reconstruction bit for bit, on real
transitions and on synthetic content that reaches every table and mode the encoder uses."""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from h264_streams import encode, mismatch, synthetic_video
from objsub_fast.ground_truth.h264.cavlc import STAT_NAMES
from objsub_fast.ground_truth.h264.encoder import EncoderSettings, H264Encoder

pytest.importorskip("av")


def test_flat_picture_is_an_idr_that_decodes_exactly():
    y = np.full((32, 48), 235, np.uint8)
    u = v = np.full((16, 24), 128, np.uint8)
    data, recon, enc = encode([(y, u, v)])
    assert enc.is_keyframe and mismatch(data, recon) is None
    assert np.array_equal(recon[0][0], y)


def test_a_corrupted_stream_is_caught():
    """Strict decoding raises or gives other pictures for a flipped bit: the comparison can
    fail."""
    frames, changed = synthetic_video(3, 48, 64, 3, "noise")
    data, recon, _ = encode(frames, changed)
    rng = np.random.default_rng(0)
    caught = 0
    for _ in range(12):
        bad = bytearray(data)
        bad[int(rng.integers(40, len(bad)))] ^= 1 << int(rng.integers(0, 8))
        try:
            caught += mismatch(bytes(bad), recon) is not None
        except Exception:  # noqa: BLE001 - FFmpeg's strict mode raises InvalidDataError
            caught += 1
    assert caught >= 10


@pytest.mark.parametrize("style", ["fade", "shrink", "slide"])
@pytest.mark.parametrize("size,frames", [(256, 16), (1024, 6)])
def test_real_transitions_decode_exactly(style, size, frames):
    from objsub_fast import generate_batch
    from objsub_fast.ground_truth.transitions import task_arrays, transition_updates
    from objsub_fast.ground_truth.video import rgb_to_yuv420

    batch = generate_batch([11, 12] if size == 256 else [5], canvas_size=size,
                           vocabulary="extended" if size == 256 else "classic")
    for i in range(len(batch)):
        planes = (np.empty((size, size), np.uint8), np.empty((size // 2, size // 2), np.uint8),
                  np.empty((size // 2, size // 2), np.uint8))
        pictures, changes = [], []
        for frame, changed in transition_updates(batch.first_frames[i], style=style,
                                                 num_frames=frames, **task_arrays(batch, i)):
            rgb_to_yuv420(frame, *planes)
            pictures.append(tuple(p.copy() for p in planes))
            changes.append(changed)
        data, recon, enc = encode(pictures, changes)
        assert mismatch(data, recon) is None
        for got, want in zip(recon[-1], pictures[-1]):   # and it is close to the source
            assert np.abs(got.astype(int) - want).mean() < 2.0


KINDS = ("rects", "noise", "gradient", "whole")


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**31), kind=st.sampled_from(KINDS),
       h=st.integers(1, 40).map(lambda k: 2 * k), w=st.integers(1, 40).map(lambda k: 2 * k),
       qp=st.integers(10, 44))
def test_synthetic_content_decodes_exactly(seed, kind, h, w, qp):
    frames, changed = synthetic_video(seed, h, w, 4, kind)
    data, recon, _ = encode(frames, changed, EncoderSettings(qp_i=qp, qp_p=min(qp + 3, 51)))
    assert mismatch(data, recon) is None


#: Fixed synthetic videos (seed, height, width, kind, QP) that together use every counter.
COVERAGE = [(1, 64, 80, "rects", 26), (2, 50, 38, "noise", 10), (3, 48, 48, "gradient", 30),
            (4, 64, 64, "whole", 12), (5, 96, 96, "rects", 20), (6, 34, 66, "noise", 18),
            (7, 80, 64, "rects", 30), (8, 32, 32, "gradient", 12)]


def test_every_table_and_mode_is_used_and_decodes_exactly():
    total = np.zeros(len(STAT_NAMES), np.int64)
    for seed, h, w, kind, qp in COVERAGE:
        frames, changed = synthetic_video(seed, h, w, 8, kind)
        data, recon, enc = encode(frames, changed, EncoderSettings(qp_i=qp, qp_p=qp))
        assert mismatch(data, recon) is None, (seed, kind)
        total += enc.stats
    unused = [name for name, n in zip(STAT_NAMES, total) if n == 0 and name != "mb_weighted"]
    assert unused == []


def _digest(frames, changed) -> str:
    data, _, _ = encode(frames, changed, EncoderSettings(qp_i=22, qp_p=26))
    return hashlib.sha256(data).hexdigest()


def test_bytes_are_the_same_in_pure_python():
    """NUMBA_DISABLE_JIT=1 in a fresh process writes the same bytes."""
    here = os.path.dirname(__file__)
    code = ("import sys; sys.path.insert(0, %r)\n"
            "from h264_streams import synthetic_video\n"
            "from test_h264_conformance import _digest\n"
            "print(_digest(*synthetic_video(9, 34, 48, 3, 'rects')))" % here)
    env = dict(os.environ, NUMBA_DISABLE_JIT="1",
               PYTHONPATH=os.pathsep.join([os.path.dirname(here), here,
                                           os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=600, check=True).stdout.split()[-1]
    assert out == _digest(*synthetic_video(9, 34, 48, 3, "rects"))


def test_bad_input_names_the_parameter():
    from objsub_fast.runtime.errors import ParameterError

    with pytest.raises(ParameterError, match="width"):
        H264Encoder(31, 32)
    with pytest.raises(ParameterError, match="qp_p"):
        EncoderSettings(qp_p=60)
    enc = H264Encoder(32, 32)
    with pytest.raises(ParameterError, match="plane y"):
        enc.encode(np.zeros((32, 30), np.uint8), np.zeros((16, 16), np.uint8),
                   np.zeros((16, 16), np.uint8))
