#!/usr/bin/env python
"""``generate --canvas-size 1024 --videos`` (WebDataset, one worker) of this tree against a git
revision, in one run, the two taking turns (issue #46).

    python benchmarks/bench_generate_1024.py --base f3a5bb4            # 800 tasks, 3 rounds
    python benchmarks/bench_generate_1024.py --base f3a5bb4 --count 200 --rounds 1   # quick
    python benchmarks/bench_generate_1024.py --base f3a5bb4 --base-tree ../before \
        --tree /tmp/after --label 3c2f566       # checkouts whose kernels are compiled already

Each tree runs in a child process with its own ``objsub_fast`` (``--base``: exported from git
into a temporary folder, or an existing checkout given with ``--base-tree``); the child loads
its kernels on a few warm-up tasks, then times ``generate`` itself. Rows (medians over the
rounds):

- tasks/s: tasks over wall time, and tasks per CPU-second of the child (one worker, in
  process, so this is the rate of one core while the machine's other tenants leave it free);
- encoder share: CPU time inside ``transition_video.encode_steps`` (drawing the frames,
  RGB -> YUV of the changed rectangles and the H.264 picture kernel) over the run's CPU time;
- us per coded MB: that time over the macroblocks the encoder coded (every one of the IDR
  picture, then those the changed rectangles touch);
- core-hours and disk per million tasks, from the CPU rate and the shards' bytes;
- with ``--two-workers``: each round also runs ``generate`` with 2 workers (wall time, the
  same tasks) and the table gets the ratio of its wall rate to the 1-worker run's (a quiet
  2-core machine gives at most 2.00x).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _extras import description
from _revisions import export
from _table import print_table

HERE = Path(__file__).resolve().parent


def child(count: int, out: str, workers: int = 1) -> dict:
    """Generate ``count`` tasks at 1024 with videos in ``out`` (this process's objsub_fast),
    timing the encoder's compiled calls; the numbers of the module docstring. With
    ``workers`` > 1 only the wall time and the bytes (the workers are other processes)."""
    import numpy as np

    import objsub_fast.ground_truth.transition_video as tv
    try:
        from objsub_fast.dataset.run.pipeline import RunConfig, generate
    except ImportError:   # a revision before dataset/ was arranged by job (f3a5bb4)
        from objsub_fast.dataset.config import RunConfig
        from objsub_fast.dataset.pipeline import generate
    from objsub_fast.ground_truth.h264.encoder import mark_changed

    real = tv.encode_steps
    acc = {"cpu": 0.0, "mbs": 0}

    def timed(p, begin, first, final, rgb, src, ref, cur, code, frame_index, *rest):
        t0 = time.process_time()
        done = real(p, begin, first, final, rgb, src, ref, cur, code, frame_index, *rest)
        acc["cpu"] += time.process_time() - t0
        h, w = rgb.shape[:2]
        mark = np.zeros_like(code)
        for f in range(begin, begin + done):
            if frame_index + f - begin == 0 or p.start[f] != tv.FROM_PREVIOUS:
                acc["mbs"] += code.size
            else:
                mark_changed(p.changed[p.changed_at[f]:p.changed_at[f + 1]], mark, h, w)
                acc["mbs"] += int(mark.sum())
        return done

    if workers == 1:
        tv.encode_steps = timed
    config = RunConfig(count=count, canvas_size=(1024, 1024), videos=True)
    generate(RunConfig(count=8, canvas_size=(1024, 1024), videos=True), Path(out) / "warm-up",
             workers=workers, quiet=True)
    acc["cpu"], acc["mbs"] = 0.0, 0
    wall, cpu = time.perf_counter(), time.process_time()
    manifest = generate(config, Path(out) / "run", workers=workers, quiet=True)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {"wall": wall, "cpu": cpu, "encoder_cpu": acc["cpu"], "coded_mbs": acc["mbs"],
            "bytes": sum(s["bytes"] for s in manifest["shards"])}


def run_child(tree: Path, count: int, tmp: Path, workers: int = 1) -> dict:
    """One timed run of ``tree``'s objsub_fast in a fresh process."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    with tempfile.TemporaryDirectory(dir=tmp) as out:
        text = subprocess.run([sys.executable, __file__, "--child", out, "--count", str(count),
                               "--workers", str(workers)],
                              env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(text.strip().splitlines()[-1])


def main(argv=None) -> int:
    """Run the trees in turns and print the table."""
    ap = argparse.ArgumentParser(description=description(__doc__))
    ap.add_argument("--count", type=int, default=800)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--base", help="git revision to compare with (its objsub_fast)")
    ap.add_argument("--base-tree", help="a checkout of the revision to compare with (instead of "
                    "exporting --base; its compiled kernels are reused)")
    ap.add_argument("--tree", help="a checkout (or export) to time instead of this one, e.g. a "
                    "frozen export of a commit while the worktree changes")
    ap.add_argument("--label", default="this tree", help="the name of --tree in the table")
    ap.add_argument("--tmp", default=None, help="scratch folder (default: system temp)")
    ap.add_argument("--two-workers", action="store_true",
                    help="also time each tree with 2 workers (wall), every round")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--workers", type=int, default=1, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.count, args.child, args.workers)))
        return 0
    with tempfile.TemporaryDirectory(dir=args.tmp) as tmp:
        trees = {}
        if args.base_tree:
            trees[args.base or args.base_tree] = Path(args.base_tree)
        elif args.base:
            trees[args.base] = export(args.base, Path(tmp) / "base")
        trees[args.label] = Path(args.tree) if args.tree else HERE.parent
        runs = {name: [] for name in trees}
        pairs = {name: [] for name in trees}
        for _ in range(args.rounds):
            for name, tree in trees.items():
                runs[name].append(run_child(tree, args.count, Path(tmp)))
                if args.two_workers:
                    pairs[name].append(run_child(tree, args.count, Path(tmp), workers=2))
    load = os.getloadavg()
    rows, ref = [], None
    for name, results in runs.items():
        med = {k: statistics.median(r[k] for r in results) for k in results[0]}
        rate_wall, rate_cpu = args.count / med["wall"], args.count / med["cpu"]
        ref = rate_cpu if ref is None else ref
        rows.append([name, f"{rate_wall:.1f}", f"{rate_cpu:.1f}", f"{rate_cpu / ref:.2f}x",
                     f"{med['encoder_cpu'] / med['cpu']:.0%}",
                     f"{med['encoder_cpu'] * 1e3 / args.count:.1f}",
                     f"{med['coded_mbs'] / args.count:,.0f}",
                     f"{med['encoder_cpu'] * 1e6 / med['coded_mbs']:.2f}",
                     f"{1e6 / rate_cpu / 3600:.1f}", f"{med['bytes'] / args.count / 1e3:.0f} kB "
                     f"({med['bytes'] / args.count * 1e6 / 1e9:.0f} GB)"])
        if args.two_workers:
            wall2 = statistics.median(r["wall"] for r in pairs[name])
            rows[-1][2:2] = [f"{args.count / wall2:.1f}", f"{med['wall'] / wall2:.2f}x"]
    header = ["code", "tasks/s (wall)", "tasks/CPU-s", "speed-up", "encoder share",
              "encoder ms/task", "coded MBs/task", "us/coded MB", "core-h/1M", "disk/task (1M)"]
    if args.two_workers:
        header[2:2] = ["2 workers (wall)", "2 vs 1"]
    print(f"generate --canvas-size 1024 --videos (WebDataset, 1 worker, {args.count} tasks), "
          f"medians of {args.rounds} rounds taking turns; load average at the end "
          f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print_table([header] + rows, left=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
