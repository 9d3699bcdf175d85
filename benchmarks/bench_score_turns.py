#!/usr/bin/env python
"""Scoring throughput of this tree against a git revision, the two taking turns video by
video on one CPU: the throughput rows of ``bench_score.py`` (the same videos), each tree's
scorer in a process of its own.

    python benchmarks/bench_score_turns.py --base 4984127                 # 4 tasks, 8 rounds
    python benchmarks/bench_score_turns.py --base-tree ../before --rounds 3 --look solid
    python benchmarks/bench_score_turns.py --base HEAD --quick            # checks the script

``bench_score.py`` times one tree, and two runs of it, one per tree, differ by up to 2x on a
shared virtual machine whatever the code (the machine's speed changes between runs). Here both
trees' scorers stay loaded (``--base``: exported from git into a temporary folder, or a
checkout with ``--base-tree`` whose kernels are compiled already), both pinned to the same CPU,
and score each video in turn, so a change of the machine's speed hits both alike. Rows, per
output: each tree's frames per CPU second (over the videos, the median CPU time of each video
over the rounds) and this tree's rate over the base's, the median of the rounds' ratios with
their range. The scoring includes decoding, as in ``bench_score.py``.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _extras import description
from _revisions import export
from _speed_tasks import speed_tasks
from _table import print_table

HERE = Path(__file__).resolve().parent


def worker(look: str, tasks: int, canvas: int, cpu: int) -> None:
    """Answer lines ``task path`` on stdin with the CPU seconds this process's ``score_video``
    took on that video (``ok`` first, once loaded)."""
    from objsub_fast.scoring import score_video

    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {cpu})
    records = speed_tasks(tasks, canvas, look).tasks()
    print("ok", flush=True)
    for line in sys.stdin:
        task, path = line.split(" ", 1)
        t = time.process_time()
        res = score_video(records[int(task)], path.strip())
        spent = time.process_time() - t
        if res["error"] or not res["pass"]:
            print(f"error ground truth not passing: {res['error'] or res['metrics']}",
                  flush=True)
            continue
        print(spent, flush=True)


class Scorer:
    """One tree's scorer process (:func:`worker`), pinned to ``cpu``."""

    def __init__(self, tree: Path, args, cpu: int):
        env = {**os.environ, "PYTHONPATH": f"{tree}{os.pathsep}{HERE}"}
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--worker", "--look", args.look, "--tasks",
             str(args.tasks), "--canvas", str(args.canvas), "--cpu", str(cpu)],
            env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self._answer()

    def _answer(self) -> str:
        line = self.proc.stdout.readline().strip()
        if not line or line.startswith("error"):
            self.close()
            raise SystemExit(f"bench_score_turns: a scorer stopped: {line or 'no answer'}")
        return line

    def score(self, task: int, path: Path) -> float:
        """CPU seconds to score ``path`` as task ``task``."""
        self.proc.stdin.write(f"{task} {path}\n")
        self.proc.stdin.flush()
        return float(self._answer())

    def close(self) -> None:
        if self.proc.stdin and not self.proc.stdin.closed:
            self.proc.stdin.close()
        self.proc.wait()


def main(argv=None) -> int:
    """Make the videos, then score them with both trees in turns and print the table."""
    ap = argparse.ArgumentParser(description=description(__doc__))
    ap.add_argument("--base", help="git revision to compare with (its objsub_fast)")
    ap.add_argument("--base-tree", help="a checkout of the revision to compare with (instead of "
                    "exporting --base; its compiled kernels are reused)")
    ap.add_argument("--tree", help="a checkout to time instead of this one")
    ap.add_argument("--label", default="this tree", help="the name of --tree in the table")
    ap.add_argument("--tasks", type=int, default=4, help="videos per output (default: 4)")
    ap.add_argument("--frames", type=int, default=81)
    ap.add_argument("--canvas", type=int, default=256, help="task canvas side (px)")
    ap.add_argument("--rounds", type=int, default=8, help="each video scored this many times "
                    "by each tree (default: 8)")
    ap.add_argument("--look", default="flat", choices=("flat", "solid"))
    ap.add_argument("--outputs", default=None, help="throughput outputs, comma-separated "
                    "(default: all of bench_score.SPEED_OUTPUTS)")
    ap.add_argument("--cpu", type=int, default=None, help="the CPU both scorers run on "
                    "(default: the last one this process may use)")
    ap.add_argument("--quick", action="store_true", help="1 video of 17 frames per output, "
                    "2 rounds: checks the script, measures nothing worth quoting")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.cpu is None:
        usable = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else [0]
        args.cpu = usable[-1]
    if args.worker:
        worker(args.look, args.tasks, args.canvas, args.cpu)
        return 0
    from bench_score import SPEED_OUTPUTS, speed_videos

    if not args.base and not args.base_tree:
        ap.error("--base or --base-tree: the revision to compare with is required")
    if args.quick:
        args.tasks, args.frames, args.rounds = 1, 17, 2
    outputs = list(SPEED_OUTPUTS) if args.outputs is None else [
        name.strip() for name in args.outputs.split(",")]
    unknown = [name for name in outputs if name not in SPEED_OUTPUTS]
    if unknown:
        ap.error(f"--outputs: unknown {unknown}; choose from {list(SPEED_OUTPUTS)}")
    if args.tasks < 1 or args.rounds < 1 or args.frames < 9:
        ap.error("--tasks and --rounds must be at least 1, --frames at least 9")
    with tempfile.TemporaryDirectory(prefix="bench_score_turns_") as tmp:
        tmp = Path(tmp)
        base = Path(args.base_tree) if args.base_tree else export(args.base, tmp)
        trees = {args.base or Path(args.base_tree).name: base,
                 args.label: Path(args.tree) if args.tree else HERE.parent}
        batch = speed_tasks(args.tasks, args.canvas, args.look)
        videos = {name: speed_videos(batch, args.frames, tmp, args.look, name)
                  for name in outputs}
        scorers = {name: Scorer(tree, args, args.cpu) for name, tree in trees.items()}
        try:
            rows = _turns(scorers, videos, args.rounds)
        finally:
            for scorer in scorers.values():
                scorer.close()
    names = list(trees)
    load = ", ".join(f"{v:.2f}" for v in os.getloadavg())
    print(f"\nScoring in turns, {args.look} look: {args.tasks} videos x {args.frames} frames "
          f"per output, {args.canvas}x{args.canvas} canvas, {args.rounds} rounds, both on CPU "
          f"{args.cpu}; frames per CPU second (load average after: {load})")
    print_table([["output", "Mbit/s", f"{names[0]} fps", f"{names[1]} fps",
                  f"{names[1]} / {names[0]}", "range over rounds"]]
                + [[name, f"{videos[name][0]:.2f}", *row] for name, row in rows.items()])
    return 0


def _turns(scorers: dict, videos: dict, rounds: int) -> dict:
    """Per output: [base fps, tree fps, median ratio, range], the two scorers taking turns
    on every video (which goes first alternates by round)."""
    import av

    base, tree = scorers.values()
    rows = {}
    for name, (_, paths) in videos.items():
        for task, path in enumerate(paths):       # warm-up: kernels loaded, caches filled
            base.score(task, path), tree.score(task, path)
        times = {"base": [[] for _ in paths], "tree": [[] for _ in paths]}
        ratios = []
        for r in range(rounds):
            spent = {"base": 0.0, "tree": 0.0}
            for task, path in enumerate(paths):
                order = [("base", base), ("tree", tree)]
                for key, scorer in (order if r % 2 == 0 else order[::-1]):
                    t = scorer.score(task, path)
                    times[key][task].append(t)
                    spent[key] += t
            ratios.append(spent["base"] / spent["tree"])
        frames = 0
        for path in paths:
            with av.open(str(path)) as container:
                frames += container.streams.video[0].frames
        fps = {key: frames / sum(statistics.median(ts) for ts in per) for key, per in
               times.items()}
        rows[name] = [f"{fps['base']:.1f}", f"{fps['tree']:.1f}",
                      f"{statistics.median(ratios):.2f}",
                      f"{min(ratios):.2f}-{max(ratios):.2f}"]
    return rows


if __name__ == "__main__":
    sys.exit(main())
