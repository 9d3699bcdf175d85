"""Memory and rate of the library's batch calls, measured side by side in one run:

- ``render_transition`` (61 frames, 256x256): traced peak over its result, against the stacked
  copy it used to make (each task rendered, then ``np.stack``), and their rates;
- ``generate_batch`` of 10,000 seeds in one call (new arrays, and into reused ``out`` arrays)
  against the same seeds in calls of 1,024 (results dropped), alternated, medians over
  repeats; and the cost of first touching the
  one call's result (fresh memory filled once) against filling a reused chunk's worth ten
  times, which is what remains between the two.

Run: ``python benchmarks/bench_memory.py`` (about two minutes and 8 GB of memory; ``--quick``:
2,048 seeds).
"""
from __future__ import annotations

import argparse
import resource
import time
import tracemalloc

from _extras import description

import numpy as np

from objsub_fast import generate_batch
from objsub_fast.ground_truth.transitions import render_transition, task_arrays, task_frames


def stacked(batch, style, num_frames):
    """The previous render_transition: every task's frames, then one stacked copy."""
    return np.stack([task_frames(batch.first_frames[i], style=style, num_frames=num_frames,
                                 **task_arrays(batch, i)) for i in range(len(batch))])


def traced(fn):
    """(seconds, traced peak bytes) of ``fn()``."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    start = time.perf_counter()
    result = fn()
    seconds = time.perf_counter() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del result
    return seconds, peak


def render_rows(tasks: int, repeats: int):
    batch = generate_batch(range(tasks))
    render_transition(batch, num_frames=4)
    result = tasks * 61 * 256 * 256 * 3
    rows = {"render_transition (writes into its result)": [],
            "previous (tasks rendered, then stacked)": []}
    for _ in range(repeats):
        rows["render_transition (writes into its result)"].append(
            traced(lambda: render_transition(batch, "fade", 61)))
        rows["previous (tasks rendered, then stacked)"].append(
            traced(lambda: stacked(batch, "fade", 61)))
    print(f"\n{tasks} tasks, 61 frames, 256x256: result {result / 2**20:.0f} MiB")
    print("| call | traced peak / result | tasks/s (median) |\n| --- | --- | --- |")
    for name, runs in rows.items():
        seconds, peaks = zip(*runs)
        print(f"| {name} | {max(peaks) / result:.2f} | {tasks / np.median(seconds):.0f} |")


def batch_rows(total: int, chunk: int, repeats: int):
    generate_batch(range(64))
    whole, chunked, reusing = [], [], []
    buffers = (np.empty((total, 256, 256, 3), np.uint8), np.empty((total, 256, 256, 3), np.uint8))
    generate_batch(range(total), out=buffers)   # untimed: the buffers' first touch
    for _ in range(repeats):
        start = time.perf_counter()
        generate_batch(range(total), out=buffers)
        reusing.append(time.perf_counter() - start)
        start = time.perf_counter()
        chunks = 0
        for first in range(0, total, chunk):
            generate_batch(range(first, min(first + chunk, total)))
            chunks += 1
        chunked.append(time.perf_counter() - start)
        start = time.perf_counter()
        batch = generate_batch(range(total))
        whole.append(time.perf_counter() - start)
        frames = batch.first_frames.nbytes + batch.final_frames.nbytes
        del batch
    size = frames // chunks
    fresh, reused = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        block = np.empty(frames, np.uint8)
        block[::4096] = 1
        fresh.append(time.perf_counter() - start)
        del block
        start = time.perf_counter()
        for _ in range(chunks):
            block = np.empty(size, np.uint8)
            block[::4096] = 1
            del block
        reused.append(time.perf_counter() - start)
    print(f"\ngenerate_batch, {total:,} seeds at 256x256 (frames {frames / 2**30:.2f} GiB), "
          f"{repeats} repeats alternated; peak RSS of the process "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.2f} GiB")
    print("| run | tasks/s (median) | all runs |\n| --- | --- | --- |")
    print(f"| one call of {total:,} | {total / np.median(whole):,.0f} | "
          f"{', '.join(f'{total / t:,.0f}' for t in whole)} |")
    print(f"| one call of {total:,} into reused `out` arrays | "
          f"{total / np.median(reusing):,.0f} | {', '.join(f'{total / t:,.0f}' for t in reusing)} |")
    print(f"| {chunks} calls of {chunk:,} | {total / np.median(chunked):,.0f} | "
          f"{', '.join(f'{total / t:,.0f}' for t in chunked)} |")
    print(f"| first touch of {frames / 2**30:.2f} GiB fresh memory (s) | "
          f"{np.median(fresh):.2f} | {', '.join(f'{t:.2f}' for t in fresh)} |")
    print(f"| {chunks} x {size / 2**20:.0f} MiB, freed and taken again (s) | "
          f"{np.median(reused):.2f} | {', '.join(f'{t:.2f}' for t in reused)} |")


def main():
    parser = argparse.ArgumentParser(description=description(__doc__))
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    render_rows(8 if args.quick else 16, 3)
    batch_rows(2048 if args.quick else 10_000, 1024, 3)


if __name__ == "__main__":
    main()
