"""Measure the smallest change of one kept object's colour the scorer catches.

It also measures how large a change of the whole picture's tone it lets pass
(``scoring.colour_change``).

    python benchmarks/bench_colour.py [--tasks 7] [--frames 33] [--workers 2]
    python benchmarks/bench_colour.py --quick      # two tasks, two sizes: checks the script runs

For every ``--tasks`` control task (every third rule kind), in both looks, encoded to H.264 at
the default quality and at the very low bitrate (``testing.controls.LOW_BITRATE``), each change
of :data:`testing.outputs.RECOLOURS` (darker, lighter, desaturated) at each size of
:data:`SIZES`:

- *local*: the task's largest kept object changed from mid-video on (``outputs.recoloured``), a
  change the scorer must catch (``kept_object_stability`` fails);
- *global*: the whole picture changed the same way, drifting in over the video from none to the
  full size in the last frame, a change of camera the scorer must let pass.

The table prints, per look, bitrate and change, the share of local changes caught and of
global changes passed at each size.
"""
from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed

from objsub_fast.scoring import score_video, write_video
from objsub_fast.testing.controls import LOW_BITRATE, control_frames, control_tasks
from objsub_fast.testing.outputs import RECOLOURS, recoloured

#: Sizes of change (fractions: darker by, of the way to white, of the way to grey).
SIZES = (0.05, 0.1, 0.15, 0.2, 0.3)
BITRATES = {"default": {}, "very low": LOW_BITRATE}


def _object_mask(batch, i: int) -> np.ndarray:
    """(H, W) bool: the pixels of task ``i``'s largest kept object in its first frame."""
    kept = np.flatnonzero(~batch.removed[i, :batch.num_objects[i]])
    k = int(kept[np.argmax(batch.size[i, kept])])
    s, x, y = int(batch.size[i, k]), int(batch.left[i, k]), int(batch.top[i, k])
    mask = np.zeros(batch.first_frames[i].shape[:2], bool)
    mask[y:y + s, x:x + s] = (batch.first_frames[i][y:y + s, x:x + s] != 255).any(axis=-1)
    return mask


def _drifting(frames: np.ndarray, change: str, size: float) -> np.ndarray:
    """The whole of every frame changed by ``change``, from none in frame 0 to ``size`` in the
    last."""
    out = np.empty_like(frames)
    ramp = np.linspace(0.0, size, len(frames))
    for f, amount in enumerate(ramp):
        out[f] = np.clip(np.rint(RECOLOURS[change](frames[f].astype(float), amount)), 0, 255)
    return out


def _one(batch, i, look, bitrate, change, size, kind, frames, folder) -> tuple:
    gt = control_frames(batch, i, "ground_truth", frames)
    video = (recoloured(gt, _object_mask(batch, i), frames // 2, change, size) if kind == "local"
             else _drifting(gt, change, size))
    path = Path(folder) / f"{look}_{i}_{bitrate.replace(' ', '_')}_{change}_{size}_{kind}.mp4"
    write_video(path, video, options=BITRATES[bitrate])
    res = score_video(batch.task(i), path)
    os.remove(path)
    right = (not res["metrics"]["kept_object_stability"]["pass"]) if kind == "local" \
        else res["pass"]
    return look, bitrate, change, size, kind, bool(right) and not res["error"]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=7, help="control tasks (every third kind)")
    parser.add_argument("--frames", type=int, default=33)
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    sizes = (0.1, 0.3) if args.quick else SIZES
    tasks = range(0, 21, 3)[:2 if args.quick else args.tasks]
    batches = {look: control_tasks(look=look) for look in ("flat", "solid")}
    with tempfile.TemporaryDirectory(prefix="bench_colour_") as folder:
        rows = Parallel(n_jobs=args.workers)(
            delayed(_one)(batches[look], i, look, bitrate, change, size, kind, args.frames,
                          folder)
            for look in batches for bitrate in BITRATES for change in RECOLOURS
            for size in sizes for kind in ("local", "global") for i in tasks)
    print(f"\nColour sensitivity: {len(tasks)} tasks per cell, {args.frames} frames, H.264; "
          "local: one kept object changed from mid-video (share caught); global: the whole "
          "picture drifting to the change (share passing)")
    print(f"{'look':<7}{'bitrate':<10}{'change':<13}{'':<8}"
          + "".join(f"{round(s * 100):>7}%" for s in sizes))
    for look in batches:
        for bitrate in BITRATES:
            for change in RECOLOURS:
                for kind in ("local", "global"):
                    cells = []
                    for size in sizes:
                        got = [r[5] for r in rows if r[:5] == (look, bitrate, change, size, kind)]
                        cells.append(f"{sum(got)}/{len(got)}")
                    print(f"{look:<7}{bitrate:<10}{change:<13}{kind:<8}"
                          + "".join(f"{c:>8}" for c in cells))


if __name__ == "__main__":
    main()
