"""Compile the package's Numba kernels into their on-disk cache before the tests start
(``conftest.py`` runs it, as two processes side by side, once per version of the sources).

On a fresh checkout the cache is empty: without this, each pytest-xdist worker, and each
subprocess a test starts before a worker has saved a kernel, would compile the same kernels
again (minutes of CPU). ``python tests/warm_kernels.py generate|video`` compiles one half
from this checkout; together they compile what ``objsub-fast warm-up`` does
(``objsub_fast.warm_up.PARTS``) and the argument types only the tests reach, in an order that
keeps both cores busy and compiles each kernel once:

- ``video`` is ``PARTS["video"]``: noise frames coded whole first (the H.264 encoder's picture
  kernel, which the transition videos call with the same argument types: over half of all
  the compile time; no scene kernels needed), then the transition videos, whose scene
  kernels the ``generate`` half has cached by then;
- ``generate`` compiles the scene, PNG and scoring kernels (``PARTS["generate"]``), then the
  kernels' other argument types the tests reach and ``PARTS`` does not (:func:`_warm_tests`;
  the shorter half: 123-134 s against the other's 205 s in the full runs of 2026-11-29).
"""
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from objsub_fast.warm_up import PARTS  # noqa: E402


def _warm_tests() -> None:
    """The argument types the tests give the scene, PNG and scoring kernels beyond what the
    commands do: a letterboxed video (the canvas sampled from the video's YUV planes), the
    solid look's transitions; and frames read from images and a PNG of a read-only view
    (read-only arrays, which the package copies before its kernels see them: nothing new to
    compile, checked here since the tests reach them)."""
    from PIL import Image

    from objsub_fast.draw.png import encode_png
    from objsub_fast.engine import generate_batch
    from objsub_fast.ground_truth.transitions import STYLE_NAMES, render_transition
    from objsub_fast.scoring import score_video, write_video

    batch = generate_batch(range(2), level="L1")
    frames = np.stack([batch.first_frames[0]] * 4 + [batch.final_frames[0]] * 4)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "frames"
        folder.mkdir()
        for k, frame in enumerate(frames):
            Image.fromarray(frame).save(folder / f"{k:03d}.png")
        score_video(batch.task(0), folder)
        score_video(batch.task(0), folder / "007.png")
        write_video(Path(tmp) / "boxed.mp4", frames, out_size=(1280, 720))
        score_video(batch.task(0), Path(tmp) / "boxed.mp4")
    solid = generate_batch(range(2), level="L1", look="solid")
    for style in STYLE_NAMES:
        render_transition(solid, style, num_frames=4)
    shown = batch.first_frames[0].copy()
    shown.flags.writeable = False
    encode_png(shown)
    _warm_scoring_paths()


def _warm_scoring_paths() -> None:
    """An argument type of a scoring kernel that ``score`` reaches on some videos and the
    warm-up's videos do not, compiled in the tests otherwise (2 CPU-s): one component left
    in a frame, whose column of areas is contiguous (``detect._cost_matrix`` with every array
    in C order). (A camera that moved, ``residual._residual`` with float32 levels, is in
    ``PARTS["generate"]``.)"""
    from numba import types

    from objsub_fast.scoring.tracking.detect import _cost_matrix

    for sig in list(_cost_matrix.signatures):
        _cost_matrix.compile(tuple(a.copy(layout="C") if isinstance(a, types.Array) else a
                                   for a in sig))


def _warm_generate() -> None:
    PARTS["generate"]()
    _warm_tests()


WARM = {"generate": _warm_generate, "video": PARTS["video"]}

if __name__ == "__main__":
    WARM[sys.argv[1]]()
