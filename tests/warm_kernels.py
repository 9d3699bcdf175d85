"""Compile the package's Numba kernels into their on-disk cache before the tests start
(``conftest.py`` runs it, as two processes side by side, once per version of the sources).

On a fresh checkout the cache is empty: without this, each pytest-xdist worker, and each
subprocess a test starts before a worker has saved a kernel, would compile the same kernels
again (minutes of CPU). ``python tests/warm_kernels.py generate|video`` compiles one half:
``generate`` the scene, PNG and scoring kernels, ``video`` the scene and H.264 kernels.
"""
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from objsub_fast import generate_batch  # noqa: E402

#: Generator options that change the kernels' argument types or code paths.
LOOKS = ({}, {"vocabulary": "extended", "shape_names": "flat", "masks": True},
         {"canvas_size": 300, "masks": True})


def batches(levels=("L1", "L2", "L3", "L4")):
    return [generate_batch(range(4), level=level, **look) for look in LOOKS for level in levels]


def warm_generate() -> None:
    from objsub_fast.dataset.run.run_config import RunConfig
    from objsub_fast.dataset.run.pipeline import generate
    from objsub_fast.scoring import score_video, write_video

    found = batches()
    with tempfile.TemporaryDirectory() as tmp:
        for fmt in ("webdataset", "vmevalkit"):
            generate(RunConfig(count=4, shard_size=2, format=fmt, masks=True), Path(tmp) / fmt,
                     workers=1, quiet=True)
        for batch in (found[0], found[4]):
            frames = np.stack([batch.first_frames[0]] * 4 + [batch.final_frames[0]] * 4)
            path = write_video(Path(tmp) / "v.mp4", frames)
            score_video(batch.task(0), path)
            score_video(batch.task(0), frames)


def warm_video() -> None:
    from objsub_fast.ground_truth.transitions import STYLE_NAMES
    from objsub_fast.ground_truth.video import VideoSpec, encode_transitions, encode_video

    for batch in batches(levels=("L1",)):
        for style in STYLE_NAMES:
            encode_transitions(batch, VideoSpec(style, num_frames=6), [0])
    # any frames (whole frames converted and coded, as the scorer's tests and mp4 tests do)
    noise = np.random.default_rng(0).integers(0, 256, (3, 64, 64, 3), dtype=np.uint8)
    encode_video(np.concatenate([noise, np.roll(noise, 3, axis=2)]))


if __name__ == "__main__":
    {"generate": warm_generate, "video": warm_video}[sys.argv[1]]()
