"""The default ground-truth videos are pinned: the SHA-256 of the rendered transition frames
(classic vocabulary, 256x256, every style, every level) and of their H.264 bytes, computed
before the transitions learned the batch's vocabulary and scaled outline. A change here means
every default video made so far changes: bump the generator version instead.

The mp4 bytes depend on the encoder build as well (``video.encoder_build``), so their pin is
checked against the build it was taken with; the frames' pin holds on every build, and the
encoder is a pure function of the frames (``test_video.py``)."""
import hashlib

import numpy as np
import pytest

from objsub_fast import generate_batch
from objsub_fast.ground_truth.transitions import STYLE_NAMES, task_arrays, task_frames
from objsub_fast.ground_truth.video import VideoSpec, encode_transitions, encoder_build

FRAMES = 24
#: style -> (sha256 of the frames of every task, sha256 of the mp4 bytes of every task)
PINNED = {
    "fade": ("92efea3ce5e50961985015338a95395d087147005aa182e592ba79ee82bb3f34",
             "390c6158bb7879f9477ab5905bdb49c3a3032856320513ea1c1f9708bbcdd125"),
    "shrink": ("6a3ff43171bcc5ed6cc923f9907b6dc50c57cea1370922c7933ab88f3a1fce5c",
               "7d31e1c4f0b4ba8c7047b048e0e590a991dfbc78408e37cd624e58aab8dfa7b2"),
    "slide": ("c3396d485a93a10d9e341434671e5341c3ad5c0be6dc9ba40a74d04677ad30da",
              "b33ce3bdec8d361ee20f17a06384af8045b9641ca97cb3821118513d1f2234b4"),
}
#: The encoder build the mp4 pins were taken with.
PINNED_BUILD = {"libavcodec": "62.28.102", "x264_core": 165}


@pytest.fixture(scope="module")
def batch():
    return generate_batch(np.arange(8), level=["L1", "L2", "L3", "L4"] * 2)


@pytest.mark.parametrize("style", STYLE_NAMES)
def test_default_transition_frames_are_byte_identical(batch, style):
    digest = hashlib.sha256()
    for i in range(len(batch)):
        digest.update(task_frames(batch.first_frames[i], style=style, num_frames=FRAMES,
                                  **task_arrays(batch, i)).tobytes())
    assert digest.hexdigest() == PINNED[style][0]


@pytest.mark.parametrize("style", STYLE_NAMES)
def test_x264_videos_are_byte_identical_on_the_pinned_build(batch, style):
    videos = encode_transitions(batch, VideoSpec(style, num_frames=FRAMES, encoder="x264"))
    build = encoder_build("x264")
    same_build = all(build[key] == value for key, value in PINNED_BUILD.items())
    digest = hashlib.sha256(b"".join(videos)).hexdigest()
    # another build writes other (equally deterministic) bytes: only the frames pin applies
    assert digest == PINNED[style][1] or not same_build
