#!/usr/bin/env python
"""The own H.264 encoder's picture kernel alone: ``H264Encoder.encode`` timed on the pictures
that ``encode_transitions`` hands it (drawing, RGB -> YUV and muxing are not timed).

    python benchmarks/bench_h264_kernel.py                     # this tree only
    python benchmarks/bench_h264_kernel.py --base 6a7966a      # and a git revision, same run

The pictures of a few tasks per canvas and style are recorded once (the first picture whole,
then each picture's changed rectangles), then replayed into a fresh encoder per video, so
every row codes exactly the same input. With ``--base``, that revision's ``objsub_fast`` is
exported to a temporary folder and both trees are timed in child processes taking turns, so
machine load hits both alike. Times are medians over ``--repeats`` of one core's CPU time.

Columns: IDR ms (per video), P ms (all P pictures of a video), us per coded P macroblock
(macroblocks inside the changed rectangles), bytes per video, and the mean PSNR (dB) of the
reconstruction (Y, U and V samples pooled) against the source YUV over every picture.
"""
from __future__ import annotations

import argparse
import json
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _extras import description
from _revisions import export
from _table import print_table

import numpy as np

LEVELS = ("L1", "L2", "L3", "L4")
HERE = Path(__file__).resolve().parent


def record(canvas: int, style: str, tasks: int) -> list:
    """The encoder inputs of ``tasks`` videos: per video, the first (y, u, v) whole, then per
    picture the list of (rectangle, y, u, v patches) and the step's motion."""
    from objsub_fast.engine import generate_batch
    from objsub_fast.dataset.content.shards import task_levels, task_seeds
    from objsub_fast.ground_truth.transitions import draw_steps, plan_transition, task_arrays
    from objsub_fast.ground_truth.video import YuvPicture

    batch = generate_batch(task_seeds(0, 0, tasks), level=task_levels(LEVELS, 0, tasks),
                           canvas_size=(canvas, canvas))
    videos = []
    for i in range(tasks):   # the pictures ObjsubEncoder.add would hand H264Encoder.encode
        picture = YuvPicture(canvas, canvas)
        plan = plan_transition(batch.first_frames[i], style=style, num_frames=61,
                               **task_arrays(batch, i))
        for frame, step in draw_steps(plan.steps(), batch.first_frames[i],
                                      batch.final_frames[i]):
            rects = picture.update(frame, step.changed)
            y, u, v = picture.planes
            if rects is None:
                videos.append({"first": (y.copy(), u.copy(), v.copy()), "updates": []})
                continue
            patches = []
            for y0, y1, x0, x1 in rects:
                half = (slice(y0 // 2, y1 // 2), slice(x0 // 2, x1 // 2))
                patches.append(((y0, y1, x0, x1), y[y0:y1, x0:x1].copy(), u[half].copy(),
                                v[half].copy()))
            videos[-1]["updates"].append((patches, step.motion))
    return videos


def replay(video: dict, measure_psnr: bool):
    """Encode one recorded video; returns (IDR seconds, P seconds, coded P macroblocks, bytes,
    squared-error sum, sample count)."""
    from objsub_fast.ground_truth.h264.encoder import H264Encoder

    planes = tuple(p.copy() for p in video["first"])
    enc = H264Encoder(planes[0].shape[1], planes[0].shape[0])
    clock = time.process_time
    t0 = clock()
    size = sum(map(len, enc.encode(*planes)))
    t_idr = clock() - t0
    t_p, coded, sse, count = 0.0, 0, 0, 0

    def error():
        return sum(int(((a.astype(np.int64) - b) ** 2).sum()) for a, b in
                   zip(enc.reconstruction(), planes)), sum(p.size for p in planes)

    if measure_psnr:
        sse, count = error()
    for update, motion in video["updates"]:
        for (y0, y1, x0, x1), py, pu, pv in update:
            planes[0][y0:y1, x0:x1] = py
            planes[1][y0 // 2:y1 // 2, x0 // 2:x1 // 2] = pu
            planes[2][y0 // 2:y1 // 2, x0 // 2:x1 // 2] = pv
        t0 = clock()
        size += sum(map(len, enc.encode(*planes, changed=[u[0] for u in update],
                                         motion=motion)))
        t_p += clock() - t0
        coded += int(enc._code.sum())
        if measure_psnr:
            e, n = error()
            sse, count = sse + e, count + n
    return t_idr, t_p, coded, size, sse, count


def time_recorded(path: str, repeats: int, statistic=statistics.median) -> dict:
    """Per (canvas, style): medians over repeats of the per-video IDR and P times, and the
    bytes and PSNR (which do not change between repeats)."""
    with open(path, "rb") as f:
        recorded = pickle.load(f)
    replay(recorded[0][2][0], False)   # compile or load the kernels first
    out = {}
    for canvas, style, videos in recorded:
        idr, p = [], []
        for rep in range(repeats):
            results = [replay(v, rep == 0) for v in videos]
            idr.append(sum(r[0] for r in results) / len(videos))
            p.append(sum(r[1] for r in results) / len(videos))
            if rep == 0:
                coded = sum(r[2] for r in results) / len(videos)
                size = sum(r[3] for r in results) / len(videos)
                sse, count = sum(r[4] for r in results), sum(r[5] for r in results)
        mse = max(sse / count, 1e-12)
        out[f"{canvas} {style}"] = {"idr": statistic(idr), "p": statistic(p),
                                    "coded": coded, "bytes": size,
                                    "psnr": 10 * np.log10(255 ** 2 / mse)}
    return out


def child(tree: Path, path: str, repeats: int) -> dict:
    """Time the recorded pictures with the ``objsub_fast`` of ``tree`` in a child process."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run([sys.executable, __file__, "--child", path, "--repeats", str(repeats)],
                         env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv=None) -> int:
    """Record, time, print the table."""
    ap = argparse.ArgumentParser(description=description(__doc__))
    ap.add_argument("--canvas", type=int, nargs="+", default=[256, 1024])
    ap.add_argument("--styles", nargs="+", default=["fade", "shrink", "slide"])
    ap.add_argument("--tasks", type=int, default=2, help="videos per canvas and style")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=2, help="turns of each tree (with --base)")
    ap.add_argument("--base", help="git revision to compare with (its objsub_fast)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        statistic = min if os.environ.get("BENCH_MIN") else statistics.median
        print(json.dumps(time_recorded(args.child, args.repeats, statistic)))
        return 0
    sys.path.insert(0, str(HERE.parent))
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "pictures.pkl")
        with open(path, "wb") as f:
            pickle.dump([(c, s, record(c, s, args.tasks)) for c in args.canvas
                         for s in args.styles], f)
        trees = {"this tree": HERE.parent}
        if args.base:
            base = Path(tmp) / "base"
            base.mkdir()
            trees = {args.base: export(args.base, base), **trees}
        runs = {name: [] for name in trees}
        for _ in range(args.rounds if args.base else 1):
            for name, tree in trees.items():
                runs[name].append(child(tree, path, args.repeats))
    rows = []
    for key in runs[next(iter(trees))][0]:
        ref_idr = ref_us = None
        for name in trees:
            r = runs[name][0][key]
            idr = statistics.median(run[key]["idr"] for run in runs[name]) * 1e3
            p = statistics.median(run[key]["p"] for run in runs[name]) * 1e3
            us = p * 1e3 / max(r["coded"], 1)
            ref_idr, ref_us = (idr, us) if ref_idr is None else (ref_idr, ref_us)
            rows.append([key, name, f"{idr:.2f}", f"{p:.1f}", f"{r['coded']:.0f}", f"{us:.2f}",
                         f"{ref_idr / idr:.2f}x", f"{ref_us / us:.2f}x", f"{r['bytes']:,.0f}",
                         f"{r['psnr']:.2f}"])
    header = ["canvas style", "code", "IDR ms", "P ms", "coded P MBs", "us/coded MB",
              "IDR speed-up", "P speed-up", "bytes", "PSNR dB"]
    print(f"H264Encoder.encode per video ({args.tasks} tasks per row, medians of "
          f"{args.repeats} repeats x {args.rounds if args.base else 1} rounds, one core)")
    print_table([header] + rows, left=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
