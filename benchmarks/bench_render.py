"""Benchmark of the core engine: scenes+rules and frames, against the fill floor and a
matplotlib baseline drawn the way the original generator draws (a figure of patches per frame,
Agg). Every ratio compares measurements from this one run; times are medians over repeats.

Run: ``python benchmarks/bench_render.py`` (about two minutes on 2 cores; ``--quick`` for less).
Needs the ``[bench]`` extra (matplotlib): ``pip install -e ".[bench]"``; it says so at start.
``--only looks,canvases`` runs just the look rows (flat vs solid ``generate_batch`` at 256 and
1024 px, alternated) and the canvas-size rows (per canvas side 256, 1024, 2048, 4096: worker
start-up, i.e. import and the first batch of a fresh process, which draws the sprites it needs;
``objsub-fast generate --count 2``; and at 4096 one task with its 61-frame video on one worker);
``--before PATH`` also times the start-up of another checkout of the package (e.g. the commit
before lazy sprites) in the same run.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc

from _extras import description, require

require("matplotlib", extra="bench")

import numpy as np

from objsub_fast import generate_batch
from objsub_fast.task.vocabulary import COLOR_RGB, COLORS, LEVELS

W = H = 256
MIXED = list(LEVELS)


def levels_for(n):
    return [MIXED[i % 4] for i in range(n)]


def median_rate(fn, tasks, repeats):
    """Median tasks/s of ``fn(r)`` over ``repeats`` calls (r = repeat index)."""
    times = []
    for r in range(repeats):
        start = time.perf_counter()
        fn(r)
        times.append(time.perf_counter() - start)
    return tasks / float(np.median(times))


def generate(n, render, offset=0):
    return generate_batch(np.arange(n) + offset, level=levels_for(n), render=render)


def chunked(total, chunk, render):
    for start in range(0, total, chunk):
        generate_batch(np.arange(start, start + chunk), level=levels_for(chunk), render=render)


def fill_floor(n):
    first = np.full((n, H, W, 3), 255, np.uint8)
    final = np.full((n, H, W, 3), 255, np.uint8)
    return first, final


def interleaved(n, repeats, baseline_tasks=12):
    """Median tasks/s of generate_batch with frames (new arrays, and reused ``out`` buffers), of
    the fill floor and of the matplotlib baseline, alternated so that all see the same load."""
    sample = generate(baseline_tasks, False)
    buffers = (np.empty((n, H, W, 3), np.uint8), np.empty((n, H, W, 3), np.uint8))
    gen, reuse, floor, base = [], [], [], []
    for r in range(repeats):
        fill_floor(n)  # untimed: settles the allocator after the previous matplotlib round
        start = time.perf_counter()
        fill_floor(n)
        floor.append(time.perf_counter() - start)
        start = time.perf_counter()
        generate(n, True, offset=r * n)
        gen.append(time.perf_counter() - start)
        start = time.perf_counter()
        generate_batch(np.arange(n) + r * n, level=levels_for(n), out=buffers)
        reuse.append(time.perf_counter() - start)
        start = time.perf_counter()
        for i in range(baseline_tasks):
            matplotlib_frames(sample.task(i))
        base.append(time.perf_counter() - start)
    return (n / np.median(gen), n / np.median(reuse), n / np.median(floor),
            baseline_tasks / np.median(base))


#: 15 objects of 12-24 px on 256 px; size rules need a 15 px size range, so L1 draws colour and
#: shape rules only.
DENSE = dict(num_objects=(15, 15), object_size=(12, 24),
             kind_weights={"L1": {"color": 1, "shape": 1}})


def vocabulary_rates(n, repeats):
    """Median tasks/s of frames with the classic and the extended vocabulary (alternated, so
    both see the same load), and of scenes+rules for dense 15-object scenes."""
    seeds = np.arange(n)
    runs = {"classic": [], "extended": [], "dense": []}
    for r in range(repeats):
        for name, kwargs in (("classic", {}), ("extended", {"vocabulary": "extended"}),
                             ("dense", dict(DENSE, render=False))):
            start = time.perf_counter()
            generate_batch(seeds + r * n, level=levels_for(n), **kwargs)
            runs[name].append(time.perf_counter() - start)
    return {name: n / np.median(times) for name, times in runs.items()}


def peak_bytes(fn):
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def warmup_seconds():
    """Import + first generate_batch in a fresh process (Numba cache already warm)."""
    code = ("import time; t = time.perf_counter(); import objsub_fast as o;"
            "o.generate_batch([1, 2, 3, 4], level=['L1', 'L2', 'L3', 'L4'], masks=True);"
            "print(time.perf_counter() - t)")
    runs = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                 check=True).stdout) for _ in range(3)]
    return float(np.median(runs))


def draw_every_sprite(side, look):
    """Seconds to draw every sprite (shape, size, colour) of the classic vocabulary at
    ``side`` px that a batch can use (what a long run pays once; a batch draws only those it
    uses that no batch drew before)."""
    from objsub_fast.draw.render import batch_store

    store = batch_store(generate_batch([0], canvas_size=side, look=look, render=False).config)
    units = np.arange(20, 41)
    sizes = np.unique(np.floor(units * side / 256 + 0.5).astype(np.int64))
    grid = np.array(np.meshgrid(np.arange(len(store.shapes)), sizes,
                                np.arange(len(store.colors)), indexing="ij")).reshape(3, -1)
    start = time.perf_counter()
    store.prepare(grid[0][:, None], grid[1][:, None], grid[2][:, None], np.ones(grid.shape[1]))
    return time.perf_counter() - start


def look_rates(side, n, repeats):
    """Median tasks/s of ``generate_batch`` with frames in the flat and the solid look at
    ``side`` px, alternated (batch ``n``), once every sprite is drawn (``draw_every_sprite``,
    whose seconds are returned too)."""
    runs = {"flat": [], "solid": []}
    drawing = {look: draw_every_sprite(side, look) for look in runs}
    for look in runs:
        generate_batch(np.arange(n), level=levels_for(n), canvas_size=side, look=look)
    for r in range(repeats):
        for look in runs:
            start = time.perf_counter()
            generate_batch(np.arange(n) + (r + 1) * n, level=levels_for(n), canvas_size=side,
                           look=look)
            runs[look].append(time.perf_counter() - start)
    return {**{look: n / np.median(times) for look, times in runs.items()},
            **{f"{look} sprites s": seconds for look, seconds in drawing.items()}}


def startup_seconds(side, path=None, repeats=3):
    """Median seconds of import + the first two-task batch at ``side`` px in a fresh process
    (Numba cache warm), with the package at ``path`` (default this one)."""
    code = ("import time; t = time.perf_counter(); import objsub_fast as o;"
            f"o.generate_batch([1, 2], level=['L1', 'L3'], canvas_size={side});"
            "print(time.perf_counter() - t)")
    env = dict(os.environ, **({"PYTHONPATH": path} if path else {}))
    # run outside any checkout: ``python -c`` puts the working directory first on sys.path
    runs = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                 check=True, env=env, cwd=tempfile.gettempdir()
                                 ).stdout.split()[-1])
            for _ in range(repeats)]
    return float(np.median(runs))


def cli_seconds(*args):
    """Wall seconds of one ``objsub-fast generate`` run into a new folder."""
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "objsub_fast.cli", "generate", "--out", out,
                        *args], check=True, capture_output=True)
        return time.perf_counter() - start


def canvas_rows(before=None, repeats=3):
    """Per canvas side: start-up seconds (and the ``before`` checkout's), the median seconds of
    ``generate --count 2`` over ``repeats``; and one 4096 task with a 61-frame video."""
    rows = []
    for side in (256, 1024, 2048, 4096):
        cli_seconds("--count", "1", "--canvas-size", str(side))   # warm-up (caches, pages)
        cli = float(np.median([cli_seconds("--count", "2", "--canvas-size", str(side))
                               for _ in range(repeats)]))
        # the code before lazy sprites drew every size eagerly: minutes above 1024 px
        rows.append((side, startup_seconds(side), startup_seconds(side, before)
                     if before and side <= 1024 else None, cli))
    # warm-up: the video encoder's kernels compile into Numba's cache on a fresh checkout
    cli_seconds("--count", "1", "--canvas-size", "256", "--videos", "--workers", "1")
    video = cli_seconds("--count", "1", "--canvas-size", "4096", "--videos", "--workers", "1")
    return rows, video


def print_looks_and_canvases(repeats, before=None):
    """The look rows and the canvas-size rows, with their checks."""
    looks = {side: look_rates(side, n, repeats) for side, n in ((256, 1024), (1024, 64))}
    canvases, video = canvas_rows(before, max(1, repeats // 2))
    print(f"\n{'look':<10} {'canvas':>7} {'flat tasks/s':>13} {'solid tasks/s':>14} "
          f"{'solid/flat':>11}  target >= 0.5   every sprite drawn once: flat s, solid s")
    for side, rates in looks.items():
        ratio = rates["solid"] / rates["flat"]
        print(f"{'frames':<10} {side:>7} {rates['flat']:>13,.0f} {rates['solid']:>14,.0f} "
              f"{ratio:>11.2f}  {'yes' if ratio >= 0.5 else 'NO':<14} "
              f"{rates['flat sprites s']:>8.2f} {rates['solid sprites s']:>8.2f}")
    at_1024 = next(row for row in canvases if row[0] == 1024)
    print(f"\n{'canvas':>7} {'start-up s':>11} {'before s':>9} {'generate --count 2 s':>21} "
          f"{'/ 1024':>7}")
    for side, startup, old, cli in canvases:
        print(f"{side:>7} {startup:>11.2f} {'' if old is None else f'{old:.2f}':>9} "
              f"{cli:>21.2f} {cli / at_1024[3]:>7.2f}")
    at_2048 = next(row for row in canvases if row[0] == 2048)
    print(f"\none 4096 task with a 61-frame video, 1 worker: {video:.1f} s (target < 60 s: "
          f"{'yes' if video < 60 else 'NO'}); 2048 / 1024 generate --count 2: "
          f"{at_2048[3] / at_1024[3]:.2f} (target <= 6: "
          f"{'yes' if at_2048[3] / at_1024[3] <= 6 else 'NO'})")


def matplotlib_frames(task):
    """Both frames of one task drawn as the original does: a new figure of patches, Agg."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Circle, Polygon, Rectangle

    data = task["object_subtraction_data"]
    removed = set(data["remove_object_ids"])
    frames = []
    for keep_removed in (True, False):
        fig = plt.figure(figsize=(W / 100, H / 100), dpi=100)
        ax = fig.add_axes([0, 0, 1, 1])
        ax.set_xlim(0, W)
        ax.set_ylim(H, 0)
        ax.axis("off")
        for o in data["objects"]:
            if o["id"] in removed and not keep_removed:
                continue
            x, y, s = o["x"], o["y"], o["size"]
            style = dict(facecolor=COLOR_RGB[COLORS.index(o["color"])] / 255, edgecolor="black",
                         linewidth=2 * 72 / 100)
            if o["shape"] == "cube":
                patch = Rectangle((x - s / 2, y - s / 2), s, s, **style)
            elif o["shape"] == "sphere":
                patch = Circle((x, y), s / 2, **style)
            elif o["shape"] == "pyramid":
                r = s / 2
                corners = [(x, y - r), (x + r * 0.866, y + r / 2), (x - r * 0.866, y + r / 2)]
                patch = Polygon(corners, **style)
            else:
                patch = Polygon([(x - s / 4, y - s / 2), (x + s / 4, y - s / 2),
                                 (x + s / 2, y + s / 2), (x - s / 2, y + s / 2)], **style)
            ax.add_patch(patch)
        fig.canvas.draw()
        frames.append(np.asarray(fig.canvas.buffer_rgba())[..., :3].copy())
        plt.close(fig)
    return frames


def main(argv=None):
    parser = argparse.ArgumentParser(description=description(__doc__))
    parser.add_argument("--quick", action="store_true", help="fewer repeats, 10,000 chunked")
    parser.add_argument("--only", choices=["looks,canvases"],
                        help="just the look and canvas-size rows")
    parser.add_argument("--before", metavar="PATH",
                        help="another checkout whose worker start-up to time too")
    args = parser.parse_args(argv)
    repeats = 3 if args.quick else 7
    if args.only:
        print_looks_and_canvases(repeats, args.before)
        return
    big = 10_000 if args.quick else 100_000
    generate(4, True)  # JIT warm-up (compiles or loads the cache)
    rows = []
    for n in (1, 64, 1024):
        reps = repeats * (20 if n == 1 else 1)
        rows.append((f"scenes+rules, batch {n}",
                     median_rate(lambda r: generate(n, False, r * n), n, reps)))
        rows.append((f"scenes+rules+frames, batch {n}",
                     median_rate(lambda r: generate(n, True, r * n), n, reps)))
    rows.append((f"scenes+rules, {big:,} in chunks of 1024",
                 median_rate(lambda r: chunked(big, 1024, False), big, max(1, repeats // 3))))
    rows.append((f"scenes+rules+frames, {big:,} in chunks of 1024",
                 median_rate(lambda r: chunked(big, 1024, True), big, max(1, repeats // 3))))
    gen_rate, reuse_rate, floor_rate, baseline = interleaved(1024, repeats)
    generate_batch(np.arange(4), level=levels_for(4), vocabulary="extended")  # tables, warm-up
    generate_batch(np.arange(4), level=levels_for(4), render=False, **DENSE)
    vocab = vocabulary_rates(1024, repeats)
    frame_bytes = 1024 * H * W * 7
    peak = peak_bytes(lambda: generate_batch(np.arange(1024), level=levels_for(1024),
                                             masks=True))
    chunk_peak = peak_bytes(lambda: chunked(10_240, 1024, True))
    warm = warmup_seconds()

    print(f"\nobjsub-fast bench_render  ({W}x{H}, levels L1-L4 interleaved, medians of "
          f"{repeats} repeats)\n")
    print(f"{'measurement':<46} {'tasks/s':>12}")
    print("-" * 59)
    for name, rate in rows:
        print(f"{name:<46} {rate:>12,.0f}")
    print(f"{'frames, batch 1024 (interleaved below)':<46} {gen_rate:>12,.0f}")
    print(f"{'frames into reused out= buffers, batch 1024':<46} {reuse_rate:>12,.0f}")
    print(f"{'fill floor: two new white frames, batch 1024':<46} {floor_rate:>12,.0f}")
    print(f"{'matplotlib baseline (patches, Agg), interleaved':<46} {baseline:>12,.1f}")
    print(f"{'frames, classic vocabulary, batch 1024 (alt.)':<46} {vocab['classic']:>12,.0f}")
    print(f"{'frames, extended vocabulary, batch 1024 (alt.)':<46} {vocab['extended']:>12,.0f}")
    print(f"{'scenes+rules, 15 objects 12-24 px, batch 1024':<46} {vocab['dense']:>12,.0f}")
    print()
    checks = [
        ("frames vs fill floor", f"{gen_rate / floor_rate:.0%}", ">= 60%",
         gen_rate / floor_rate >= 0.6),
        ("scenes+rules, batch 1024", f"{rows[4][1]:,.0f}/s", ">= 40,000/s", rows[4][1] >= 40_000),
        ("speed-up over matplotlib, new arrays", f"{gen_rate / baseline:,.0f}x", ">= 300x",
         gen_rate / baseline >= 300),
        ("speed-up over matplotlib, reused out=", f"{reuse_rate / baseline:,.0f}x", ">= 300x",
         reuse_rate / baseline >= 300),
        ("frames, extended / classic vocabulary", f"{vocab['extended'] / vocab['classic']:.2f}",
         ">= 0.9", vocab["extended"] / vocab["classic"] >= 0.9),
        ("scenes+rules, 15 objects, batch 1024", f"{vocab['dense']:,.0f}/s", ">= 40,000/s",
         vocab["dense"] >= 40_000),
        ("JIT warm-up, fresh process, warm cache", f"{warm:.2f} s", "< 2 s", warm < 2),
        ("peak memory / frame bytes (1024, masks)", f"{peak / frame_bytes:.3f}",
         "~1 (frames only)", peak / frame_bytes < 1.1),
        ("peak memory, 10,240 in chunks of 1024", f"{chunk_peak / 2**20:,.0f} MiB",
         "one chunk", chunk_peak < 1.1 * frame_bytes),
    ]
    print(f"{'check':<42} {'measured':>14} {'target':>18}  ok")
    print("-" * 80)
    for name, value, target, ok in checks:
        print(f"{name:<42} {value:>14} {target:>18}  {'yes' if ok else 'NO'}")
    print(f"\nframe bytes for 1024 tasks with masks (N*H*W*7): {frame_bytes / 2**20:,.0f} MiB; "
          f"peak traced: {peak / 2**20:,.0f} MiB")
    print_looks_and_canvases(repeats, args.before)


if __name__ == "__main__":
    main()
