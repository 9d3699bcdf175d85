"""Compile every Numba kernel the package's commands use into the on-disk cache, in one step.

Kernels are compiled the first time a command needs them and kept beside the sources (once
per install and per version of the sources). Without this step a machine's first
``generate`` compiles the scene and PNG kernels, its first ``generate --videos`` the H.264
encoder's, its first ``score`` the scorer's: three waits at three moments. ``objsub-fast
warm-up`` compiles them all at once, in two processes side by side (:data:`PARTS`).

Examples
--------
>>> sorted(PARTS)
['generate', 'video']
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

__all__ = ["PARTS", "warm_up"]

#: Generator options that change the kernels' argument types or code paths.
LOOKS = ({}, {"vocabulary": "extended", "shape_names": "flat", "masks": True},
         {"canvas_size": 300, "masks": True})


def _batches(levels=("L1", "L2", "L3", "L4")):
    from .engine import generate_batch

    return [generate_batch(range(4), level=level, **look) for look in LOOKS for level in levels]


def _warm_generate() -> None:
    """The scene, PNG and scoring kernels: a small dataset in two formats, videos scored (still
    ones, and one whose camera moves in, which the scorer measures in float32 levels)."""
    from .dataset.run.pipeline import generate
    from .dataset.run.run_config import RunConfig
    from .scoring import score_video, write_video
    from .testing.outputs import push_in

    found = _batches()
    with tempfile.TemporaryDirectory() as tmp:
        for fmt in ("webdataset", "vmevalkit"):
            generate(RunConfig(count=4, shard_size=2, format=fmt, masks=True), Path(tmp) / fmt,
                     workers=1, quiet=True)
        for batch in (found[0], found[4]):
            frames = np.stack([batch.first_frames[0]] * 4 + [batch.final_frames[0]] * 4)
            path = write_video(Path(tmp) / "v.mp4", frames)
            score_video(batch.task(0), path)
            score_video(batch.task(0), frames)
            if batch is found[0]:   # a camera that moved in: float32 levels
                score_video(batch.task(0), push_in(frames, 0.04))


def _warm_video() -> None:
    """The H.264 and scene kernels: any frames coded whole first (the encoder's picture kernel,
    over half of all the compile time, which needs no scene kernel: meanwhile the other part
    compiles those), then every transition style (the same picture kernel, cached by then)."""
    from .ground_truth.transitions import STYLE_NAMES
    from .ground_truth.video import VideoSpec, encode_transitions, encode_video

    noise = np.random.default_rng(0).integers(0, 256, (3, 64, 64, 3), dtype=np.uint8)
    encode_video(np.concatenate([noise, np.roll(noise, 3, axis=2)]))
    for batch in _batches(levels=("L1",)):
        for style in STYLE_NAMES:
            encode_transitions(batch, VideoSpec(style, num_frames=6), [0])


#: The two halves of the kernels, each warmed in a process of its own.
PARTS = {"generate": _warm_generate, "video": _warm_video}


def warm_up(parts=tuple(PARTS)) -> float:
    """Compile the kernels of ``parts`` (names of :data:`PARTS`), each in a process of its
    own, side by side; return the seconds it took. RuntimeError with the output of a part
    that failed."""
    started = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, "-m", __name__, part], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True) for part in parts]
    outputs = [p.communicate()[0] for p in procs]
    failed = [out for p, out in zip(procs, outputs) if p.returncode]
    if failed:
        raise RuntimeError("compiling the kernels failed:\n" + "".join(failed)[-2000:])
    return time.perf_counter() - started


if __name__ == "__main__":
    PARTS[sys.argv[1]]()
