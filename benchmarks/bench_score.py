"""Scoring benchmark: speed (videos/s per core, decoding included) and the control confusion table.

    python benchmarks/bench_score.py [--tasks 64] [--frames 32] [--repeats 5] [--workers 2]

Speed: ``--tasks`` ground-truth transition videos (256x256, ``--frames`` frames, H.264 via PyAV)
are written to a temporary folder, then scored with ``score_video`` in one process (one core,
one decoder thread), ``--repeats`` times; the table shows the median. The same is done for the
1280x720 letterboxed versions, and with ``--workers`` joblib processes (videos/s in total and
per core).

Controls: every rule kind (21 tasks, all levels) x every control of
``objsub_fast.scoring.controls.CONTROLS``, encoded to H.264 at 256x256 and at 1280x720
letterboxed, scored; the confusion table counts, per control, how many videos failed each
metric, and whether the intended metric caught every negative control (and every positive
control passed).
"""
from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed

from objsub_fast import generate_batch
from objsub_fast.scoring import METRICS, render_transition, score_video, write_video
from objsub_fast.scoring.controls import CONTROLS, caught, control_frames, control_tasks

RESOLUTIONS = {"256x256": None, "1280x720 letterboxed": (1280, 720)}
SHORT = {"final_object_match": "final_iou", "removed_object_count": "count",
         "kept_object_stability": "kept", "motion_continuity": "motion",
         "rule_accuracy": "rule"}


def _score_all(tasks, paths):
    for rec, path in zip(tasks, paths):
        res = score_video(rec, path)
        if res["error"]:
            raise RuntimeError(res["error"])


def _score_chunk(tasks, paths):
    _score_all(tasks, paths)
    return len(paths)


def speed(args, folder: Path) -> list[tuple]:
    """Median videos/s for each resolution, in one process and with joblib workers."""
    seeds = np.arange(args.tasks)
    levels = (["L1", "L2", "L3", "L4"] * args.tasks)[:args.tasks]
    batch = generate_batch(seeds, level=levels)
    styles = ("fade", "shrink", "slide")
    videos = {s: render_transition(batch, s, args.frames) for s in styles}
    records = batch.tasks()
    rows = []
    for name, out_size in RESOLUTIONS.items():
        paths = []
        for i in range(len(batch)):
            p = folder / f"speed_{name[:4]}_{i}.mp4"
            write_video(p, videos[styles[i % 3]][i], out_size=out_size)
            paths.append(p)
        _score_all(records[:2], paths[:2])  # warm-up: Numba cache load, colour table
        rates = []
        for _ in range(args.repeats):
            t = time.perf_counter()
            _score_all(records, paths)
            rates.append(len(paths) / (time.perf_counter() - t))
        rows.append((name, 1, statistics.median(rates), statistics.median(rates)))
        if args.workers > 1:
            chunks = np.array_split(np.arange(len(paths)), args.workers * 4)
            par = Parallel(n_jobs=args.workers)
            par(delayed(_score_chunk)(records[:1], paths[:1]) for _ in range(args.workers))
            prates = []
            for _ in range(args.repeats):
                t = time.perf_counter()
                par(delayed(_score_chunk)([records[j] for j in c], [paths[j] for j in c])
                    for c in chunks)
                prates.append(len(paths) / (time.perf_counter() - t))
            med = statistics.median(prates)
            rows.append((name, args.workers, med, med / args.workers))
    return rows


def _control_one(batch, i, control, out_size, frames, folder):
    path = folder / f"ctl_{i}_{control}_{out_size[0] if out_size else 0}.mp4"
    write_video(path, control_frames(batch, i, control, frames), out_size=out_size)
    res = score_video(batch.task(i), path)
    failed = [m for m in METRICS if res["metrics"].get(m, {}).get("pass") is False]
    return control, caught(res, control), failed, res["error"]


def controls(args, folder: Path) -> dict:
    """Per resolution: {control: (videos, right, {metric: failures}, errors)}."""
    batch = control_tasks(seed=args.seed)
    out = {}
    for name, out_size in RESOLUTIONS.items():
        results = Parallel(n_jobs=args.workers)(
            delayed(_control_one)(batch, i, c, out_size, args.frames, folder)
            for i in range(len(batch)) for c in CONTROLS)
        table = {}
        for control in CONTROLS:
            rs = [r for r in results if r[0] == control]
            fails = {m: sum(m in r[2] for r in rs) for m in METRICS}
            table[control] = (len(rs), sum(r[1] for r in rs), fails, sum(bool(r[3]) for r in rs))
        out[name] = table
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=64)
    parser.add_argument("--frames", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--seed", type=int, default=0, help="seed of the control task search")
    parser.add_argument("--skip-controls", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench_score_") as tmp:
        folder = Path(tmp)
        rows = speed(args, folder)
        load = ", ".join(f"{v:.2f}" for v in os.getloadavg())
        print(f"\nScoring speed: {args.tasks} H.264 videos x {args.frames} frames, decoding "
              f"included, median of {args.repeats} repeats ({os.cpu_count()} CPUs, load "
              f"average after the runs: {load}; other processes lower the per-core rates)")
        print(f"{'resolution':<22}{'workers':>8}{'videos/s':>10}{'per core':>10}"
              f"{'target':>8}")
        for name, workers, rate, per_core in rows:
            target = ">= 20" if name == "256x256" else "-"
            print(f"{name:<22}{workers:>8}{rate:>10.1f}{per_core:>10.1f}{target:>8}")
        if args.skip_controls:
            return
        tables = controls(args, folder)
    for name, table in tables.items():
        print(f"\nControl confusion table, {name} ({args.frames} frames, H.264, 21 rule kinds): "
              "videos failing each metric")
        head = f"{'control':<17}{'intended':<11}{'videos':>7}" + "".join(
            f"{SHORT[m]:>10}" for m in METRICS) + f"{'errors':>8}{'correct':>9}"
        print(head)
        for control, (n, right, fails, errors) in table.items():
            intended = SHORT[CONTROLS[control][1]] if CONTROLS[control][1] else "pass all"
            print(f"{control:<17}{intended:<11}{n:>7}" + "".join(
                f"{fails[m]:>10}" for m in METRICS) + f"{errors:>8}{right:>6}/{n:<3}")
        pos = [t for c, t in table.items() if CONTROLS[c][1] is None]
        neg = [t for c, t in table.items() if CONTROLS[c][1] is not None]
        print(f"positive controls passing: {sum(t[1] for t in pos)}/{sum(t[0] for t in pos)}; "
              f"negative controls caught by the intended metric: "
              f"{sum(t[1] for t in neg)}/{sum(t[0] for t in neg)}")


if __name__ == "__main__":
    main()
