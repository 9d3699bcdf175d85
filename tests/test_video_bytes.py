"""An objsub video's bytes do not depend on the machine: no decision of the encoder, the muxer
or the colour conversion depends on floating point or compiled code paths. Proven here for the
compiled kernels against plain Python (``NUMBA_DISABLE_JIT=1``); fresh processes and CPU
affinity: ``test_video.py::test_fresh_processes_write_the_same_bytes``; 1 and 2 workers:
``test_dataset_videos.py::test_workers_and_chunks_never_change_the_videos``."""
import hashlib
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

from objsub_fast import generate_batch
from objsub_fast.ground_truth.transitions import task_arrays, transition_updates
from objsub_fast.ground_truth.video import ObjsubEncoder

ENCODE_SCRIPT = """
import hashlib, pickle, sys
from objsub_fast.ground_truth.video import ObjsubEncoder
frames, changes = pickle.load(open(sys.argv[1], "rb"))
encoder = ObjsubEncoder(frames[0].shape[1], frames[0].shape[0], 16)
for frame, changed in zip(frames, changes):
    encoder.add(frame, changed)
print(hashlib.sha256(encoder.finish()).hexdigest())
"""


def small_transition(style, frames=5, size=128):
    """A task's transition at the smallest run canvas: frames and changed rectangles."""
    batch = generate_batch([3], canvas_size=size)
    out = [(f.copy(), c) for f, c in transition_updates(
        batch.first_frames[0], style=style, num_frames=frames, final=batch.final_frames[0],
        **task_arrays(batch, 0))]
    return [f for f, _ in out], [c for _, c in out]


def encode(frames, changes) -> bytes:
    encoder = ObjsubEncoder(frames[0].shape[1], frames[0].shape[0], 16)
    for frame, changed in zip(frames, changes):
        encoder.add(frame, changed)
    return encoder.finish()


@pytest.mark.parametrize("style", ["slide", "fade"])
def test_plain_python_writes_the_compiled_kernels_bytes(tmp_path, style):
    """The same video with Numba's JIT off (every kernel run as Python on NumPy scalars)."""
    frames, changes = small_transition(style)
    path = tmp_path / "frames.pkl"
    path.write_bytes(pickle.dumps((frames, changes)))
    out = subprocess.run([sys.executable, "-c", ENCODE_SCRIPT, str(path)],
                         env={**os.environ, "NUMBA_DISABLE_JIT": "1"}, capture_output=True,
                         text=True, check=True, timeout=600)
    assert out.stdout.strip() == hashlib.sha256(encode(frames, changes)).hexdigest()
