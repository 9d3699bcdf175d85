"""What the residual catches: for each kind of local change (``testing.local_changes``), the
smallest strength a video fails at; for each change of the whole picture, the largest amount a
correct video still passes at. Both looks, the default quality and the very low bitrate.

A longer run of ``tests/test_scoring_residual.py``'s property test, as a table::

    python benchmarks/bench_local_changes.py --tasks 0,10,17 --frames 33

Each cell is over the tasks: "0.4" means every task's video failed from strength 0.4 on (the
steps are --steps); "-" that some task still passed at full strength. A global change's cell is
the largest amount every task passed at ("-": some task failed at the smallest).
"""
from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np

from objsub_fast.ground_truth.transitions import task_arrays
from objsub_fast.scoring import score_video, write_video
from objsub_fast.testing.controls import LOW_BITRATE, control_frames, control_tasks
from objsub_fast.testing.local_changes import (GLOBAL_CHANGES, LOCAL_CHANGES,
                                               apply_global_change, apply_local_change,
                                               object_patch)

BITRATES = {"default": {}, "very low": LOW_BITRATE}


def _passes(batch, task, frames, folder: Path, bitrate: str) -> bool:
    path = folder / "video.mp4"
    write_video(path, frames, options=BITRATES[bitrate])
    return bool(score_video(batch.task(task), path)["pass"])


def _largest_kept_box(batch, task):
    arrs = task_arrays(batch, task)
    kept = np.flatnonzero(~arrs["removed"])
    k = int(kept[np.argmax(arrs["size"][kept])])
    return object_patch(int(arrs["left"][k]), int(arrs["top"][k]), int(arrs["size"][k]),
                        batch.first_frames[task].shape[:2])


def smallest_caught(batch, tasks, kind, steps, frames, folder, bitrate) -> str:
    """The smallest step from which every task's video fails ('-': none)."""
    worst = 0.0
    for task in tasks:
        gt = control_frames(batch, task, "ground_truth", frames)
        box = _largest_kept_box(batch, task)
        first = batch.first_frames[task]
        caught = [s for s in steps
                  if not _passes(batch, task, apply_local_change(gt, first, box, kind,
                                                                 frames // 2, s),
                                 folder, bitrate)]
        if not caught or caught[-1] != steps[-1]:
            return "-"
        # the smallest strength from which every larger one is caught too
        start = steps[-1]
        for s in reversed(steps):
            if s not in caught:
                break
            start = s
        worst = max(worst, start)
    return f"{worst:.1f}"


def largest_passed(batch, tasks, kind, steps, frames, folder, bitrate) -> str:
    """The largest step every task's correct video passes at ('-': none)."""
    best = steps[-1]
    for task in tasks:
        gt = control_frames(batch, task, "ground_truth", frames)
        ok = [s for s in steps if _passes(batch, task, apply_global_change(gt, kind, s, task),
                                          folder, bitrate)]
        upto = 0.0
        for s in steps:
            if s not in ok:
                break
            upto = s
        if upto == 0.0:
            return "-"
        best = min(best, upto)
    return f"{best:.1f}"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", default="0,10,17", help="control tasks (seed 0), comma-separated")
    parser.add_argument("--frames", type=int, default=33)
    parser.add_argument("--steps", default="0.2,0.4,0.6,0.8,1.0",
                        help="strengths / amounts tried, comma-separated, rising")
    args = parser.parse_args(argv)
    tasks = [int(t) for t in args.tasks.split(",")]
    steps = [float(s) for s in args.steps.split(",")]
    batches = {look: control_tasks(look=look) for look in ("flat", "solid")}
    columns = [(look, bitrate) for look in batches for bitrate in BITRATES]
    header = "| change | " + " | ".join(f"{lk}, {br}" for lk, br in columns) + " |"
    print(f"tasks {tasks}, {args.frames} frames, steps {steps}\n")
    print(header)
    print("|" + "---|" * (len(columns) + 1))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for kind in LOCAL_CHANGES:
            cells = [smallest_caught(batches[lk], tasks, kind, steps, args.frames, folder, br)
                     for lk, br in columns]
            print(f"| local {kind}: smallest caught | " + " | ".join(cells) + " |", flush=True)
        for kind in GLOBAL_CHANGES:
            cells = [largest_passed(batches[lk], tasks, kind, steps, args.frames, folder, br)
                     for lk, br in columns]
            print(f"| whole picture {kind}: largest passed | " + " | ".join(cells) + " |",
                  flush=True)


if __name__ == "__main__":
    main()
