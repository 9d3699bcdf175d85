#!/usr/bin/env python
"""End-to-end dataset generation benchmark: throughput, PNG encoder choice, worker memory.

    python benchmarks/bench_generate.py            # default: a few minutes on 2 cores
    python benchmarks/bench_generate.py --full     # adds a 1,000,000-task run on 2 workers
    python benchmarks/bench_generate.py --only-verify --verify-count 100000   # verify vs generate
    python benchmarks/bench_generate.py --only-floor --repeats 7   # generate vs render + PNG

Reports medians (and the best) over ``--repeats`` runs; ratios are computed from the same run.
On a shared machine other processes take cores, so the best run shows what the code does when
it has them. Throughput is tasks/s for the whole pipeline (render, encode both PNGs, write
shards, fsync, manifest). Each timed run writes a fresh folder and starts on an idle disk;
output is deleted only after all timings (deleting on a disk mounted with ``discard`` slows
file creation for minutes). "cores busy" is machine-wide CPU time over wall time during the
run: it includes the kernel's writeback threads (and any other tenant).
Peak RSS is measured in a fresh process that runs every shard job itself (``--workers 1``, the
same code a pool worker runs), so it is an upper bound of one worker's footprint.
"""
from __future__ import annotations

import argparse
import io
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _extras import description
from _runs import LEVELS, bare_encoder_rate, bench_throughput, wait_until_disk_idle
from _table import table

import numpy as np

from objsub_fast.dataset.run.pipeline import RunConfig, generate
from objsub_fast.dataset.content.plan import shard_batches
from objsub_fast.dataset.content.shards import num_shards, shard_at, task_levels, task_seeds
from objsub_fast.dataset.check.verify import verify
from objsub_fast.draw import png
from objsub_fast.engine import generate_batch

#: Encoder variants: label -> (encode_batch keyword arguments, what the bytes depend on).
ENCODERS = {
    "zlib-1, filter none": (dict(deflate="zlib", level=1, filter_type=png.FILTER_NONE),
                            "pixels, zlib build"),
    "zlib-1, filter up": (dict(deflate="zlib", level=1, filter_type=png.FILTER_UP),
                          "pixels, zlib build"),
    "isal-0, filter up": (dict(deflate="isal", level=0, filter_type=png.FILTER_UP),
                          "pixels, CPU code path"),
    "isal-1, filter up": (dict(deflate="isal", level=1, filter_type=png.FILTER_UP),
                          "pixels, CPU code path"),
    "rle, filter none": (dict(deflate="rle", filter_type=png.FILTER_NONE), "pixels only"),
    "rle, filter up (default)": (dict(deflate="rle", filter_type=png.FILTER_UP), "pixels only"),
}

SHM = "/dev/shm"

RSS_SCRIPT = """
import resource, sys
from objsub_fast.dataset.run.pipeline import RunConfig, generate
generate(RunConfig(count=int(sys.argv[2]), shard_size=10_000, format=sys.argv[3],
                   canvas_size=(int(sys.argv[4]),) * 2, videos=sys.argv[5] == "1"), sys.argv[1],
         workers=1, quiet=True)
try:  # this process's own peak: ru_maxrss also counts the parent's size when it forked us
    with open("/proc/self/status") as f:
        print(next(int(line.split()[1]) for line in f if line.startswith("VmHWM:")))
except OSError:
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def run_times(fn, repeats: int, setup=lambda: None) -> list[float]:
    """Wall times of ``fn()`` over ``repeats`` runs (``setup()`` untimed before each)."""
    times = []
    for _ in range(repeats):
        setup()
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return times


def median_time(fn, repeats: int, setup=lambda: None) -> float:
    """Median wall time of ``fn()`` over ``repeats`` runs."""
    return statistics.median(run_times(fn, repeats, setup))


def render_and_png(config: RunConfig) -> None:
    """The floor of ``generate``: render both frames of every task of ``config`` and PNG-encode
    them, shard by shard in chunks as a worker does, writing nothing."""
    for k in range(num_shards(config.count, config.shard_size)):
        for _, batch in shard_batches(config, shard_at(k, config.count, config.shard_size),
                                      None):
            png.encode_batch(batch.first_frames)
            png.encode_batch(batch.final_frames)


def bench_floor(count: int, shards: int, repeats: int, place: Path) -> list[list]:
    """Rows of ``generate`` (WebDataset, 256x256) against its floor, render + PNG of both
    frames in this process: 1 and 2 workers, the three taking turns within each repeat."""
    config = RunConfig(count=count, shard_size=-(-count // shards))
    generate(config, place / "floor-warm-up-1", workers=1, quiet=True)
    generate(config, place / "floor-warm-up-2", workers=2, quiet=True)
    times = {"floor": [], 1: [], 2: []}
    for r in range(repeats):
        times["floor"].append(median_time(lambda: render_and_png(config), 1))
        for w in (1, 2):
            wait_until_disk_idle(place)
            times[w].append(median_time(
                lambda: generate(config, place / f"floor-{w}-{r}", workers=w, quiet=True), 1))
    rate = {k: count / statistics.median(v) for k, v in times.items()}
    # Per repeat, so that load changes between repeats cancel; then the median.
    per_repeat = {w: statistics.median(f / t / w for f, t in zip(times["floor"], times[w]))
                  for w in (1, 2)}
    scaling = statistics.median(t1 / t2 for t1, t2 in zip(times[1], times[2]))
    return [["render + PNG of both frames (the floor)", 1, f"{rate['floor']:,.0f}", "1.00x", ""],
            ["generate", 1, f"{rate[1]:,.0f}", f"{per_repeat[1]:.2f}x", "1.00x"],
            ["generate", 2, f"{rate[2]:,.0f}", f"{per_repeat[2]:.2f}x", f"{scaling:.2f}x"]]


def floor_table(args, tmp: Path) -> str:
    """The pipeline against its floor (targets: >= 0.7x per worker, 2 workers >= 1.8x one)."""
    rows = bench_floor(args.count, 16, args.repeats, tmp)
    return table(f"generate vs its floor, WebDataset 256x256, {args.count:,} tasks in 16 shards, "
                 "same run (targets: per worker >= 0.7x the floor; 2 workers >= 1.8x one)",
                 ["path", "workers", "tasks/s", "per worker vs floor", "vs 1 worker"], rows)


def bench_verify(count: int, shard_size: int, repeats: int, place: Path, workers: int = 2,
                 deep: bool = False) -> tuple[float, float, float | None]:
    """Median tasks/s of ``generate`` and of ``verify`` (and ``verify --deep`` if asked) on the
    same WebDataset tasks with ``workers`` workers, taking turns within each repeat."""
    config = RunConfig(count=count, shard_size=shard_size)
    generate(config, place / "verify-warm-up", workers=workers, quiet=True)
    verify(place / "verify-warm-up", workers=workers)
    times = {"generate": [], "verify": [], "deep": []}
    for r in range(repeats):
        out = place / f"verify-{r}"
        wait_until_disk_idle(place)
        times["generate"].append(median_time(
            lambda: generate(config, out, workers=workers, quiet=True), 1))
        for mode in ("verify", "deep") if deep else ("verify",):
            report = None

            def run():
                nonlocal report
                report = verify(out, workers=workers, deep=mode == "deep")
            times[mode].append(median_time(run, 1))
            assert report.ok, report.problems[:5]
    rate = {k: count / statistics.median(v) if v else None for k, v in times.items()}
    return rate["generate"], rate["verify"], rate["deep"]


def file_create_us(folder: Path, n: int = 500) -> float:
    """Median-free mean µs to create, write (2 KB) and close one file in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    t = time.perf_counter()
    for i in range(n):
        with open(folder / f"f{i}", "wb") as f:
            f.write(b"x" * 2048)
    seconds = time.perf_counter() - t
    shutil.rmtree(folder)
    return seconds / n * 1e6


def pillow_decode(files: list[bytes]) -> None:
    """Decode PNG files to arrays with Pillow (what a training data loader does)."""
    from PIL import Image

    for data in files:
        with Image.open(io.BytesIO(data)) as im:
            np.asarray(im)


def bench_encoders(frames: np.ndarray, repeats: int) -> dict:
    """µs/frame to encode, bytes/frame, and µs/frame for Pillow to decode, of every encoder
    variant on the same frames.

    Variants are timed round-robin within each repeat, so machine load affects them alike.
    The isal variants are skipped when the optional ``isal`` package is not installed.
    """
    try:
        import isal  # noqa: F401
        encoders = ENCODERS
    except ImportError:
        encoders = {k: v for k, v in ENCODERS.items() if v[0]["deflate"] != "isal"}
    files = {label: png.encode_batch(frames, **kwargs) for label, (kwargs, _) in encoders.items()}
    encode = {label: [] for label in encoders}
    decode = {label: [] for label in encoders}
    for _ in range(repeats):
        for label, (kwargs, _) in encoders.items():
            encode[label].append(median_time(lambda: png.encode_batch(frames, **kwargs), 1))
            decode[label].append(median_time(lambda: pillow_decode(files[label]), 1))
    n = len(frames)
    return {label: (statistics.median(encode[label]) / n * 1e6,
                    float(np.mean([len(b) for b in files[label]])),
                    statistics.median(decode[label]) / n * 1e6, depends)
            for label, (_, depends) in encoders.items()}


def peak_rss_mb(fmt: str, count: int, tmp: Path, canvas: int = 256,
                videos: bool = False) -> float:
    """Peak RSS (MB) of a fresh process generating ``count`` tasks by itself."""
    out = tmp / f"rss-{fmt}-{count}-{canvas}-{int(videos)}"
    proc = subprocess.run([sys.executable, "-c", RSS_SCRIPT, str(out), str(count), fmt,
                           str(canvas), str(int(videos))],
                          capture_output=True, text=True, check=True)
    shutil.rmtree(out)
    return int(proc.stdout.split()[-1]) / 1024


def bench_video_generation(count: int, repeats: int, place: Path) -> list[list]:
    """Rows of the issue's video targets, measured in one run: the bare encoder (PyAV encoding
    pre-rendered frames of the same tasks, nothing else) and ``generate --videos`` (WebDataset,
    256x256, 61 frames) with 1 and 2 workers."""
    bare = bare_encoder_rate(min(count, 100), repeats)
    shard_size = -(-count // 8)
    results = bench_throughput("webdataset", count, shard_size, repeats, place, videos=True)
    rows = [["bare encoder (PyAV, RGB frames in)", 1, f"{bare:,.1f}", "1.00x", "", "", ""]]
    for workers, (rate, best, cores, per_task) in results.items():
        rate1, best1 = results[1][:2]
        rows.append([f"generate --videos (shard size {shard_size})", workers, f"{rate:,.1f}",
                     f"{rate / bare:.2f}x", f"{rate / rate1:.2f}x ({best / best1:.2f}x)",
                     f"{cores:.2f}", f"{per_task:,.0f} ({per_task * 1e6 / 1e9:.1f} GB/1M)"])
    return rows


def fs_type(path: Path) -> str:
    """File system type of the mount holding ``path`` (Linux), else "?"."""
    best, kind = "", "?"
    try:
        with open("/proc/mounts") as f:
            for line in f:
                _, mount, fstype = line.split()[:3]
                if str(path.resolve()).startswith(mount) and len(mount) > len(best):
                    best, kind = mount, fstype
    except OSError:
        pass
    return kind


def verify_table(args, tmp: Path) -> str:
    """The verify vs generate row: target verify >= 0.5x generate on 100,000 tasks, 2 workers."""
    count = args.verify_count
    shard_size = -(-count // 16)
    gen, ver, deep = bench_verify(count, shard_size, args.repeats, tmp, deep=args.verify_deep)
    row = ["webdataset", 2, count, shard_size, f"{gen:,.0f}", f"{ver:,.0f}", f"{ver / gen:.2f}x",
           "-" if deep is None else f"{deep:,.0f}"]
    return table("verify vs generate, same tasks, same run (target: verify >= 0.5x generate)",
                 ["format", "workers", "tasks", "shard size", "generate tasks/s",
                  "verify tasks/s", "verify / generate", "verify --deep tasks/s"], [row])


def main(argv=None) -> int:
    """Run the benchmark and print its tables."""
    ap = argparse.ArgumentParser(description=description(__doc__))
    ap.add_argument("--count", type=int, default=20_000,
                    help="tasks per WebDataset throughput run")
    ap.add_argument("--vmeval-count", type=int, default=6_000,
                    help="tasks per VMEvalKit throughput run")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--frames", type=int, default=400, help="frames for the encoder comparison")
    ap.add_argument("--video-count", type=int, default=400,
                    help="tasks per run of the --videos rows (0 skips them)")
    ap.add_argument("--full", action="store_true",
                    help="also time 1,000,000 tasks (webdataset, 2 workers; ~9 GB of scratch)")
    ap.add_argument("--tmp", default=None, help="scratch folder (default: system temp)")
    ap.add_argument("--verify-count", type=int, default=20_000,
                    help="tasks of the verify vs generate row (the target is stated for 100,000)")
    ap.add_argument("--verify-deep", action="store_true",
                    help="add verify --deep to the verify row (about 6x slower)")
    ap.add_argument("--only-verify", action="store_true", help="run only the verify row")
    ap.add_argument("--only-floor", action="store_true",
                    help="run only the table of generate against its floor (render + PNG)")
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="objsub-bench-", dir=args.tmp))
    try:
        print(f"objsub-fast generation benchmark: {os.cpu_count()} cores, "
              f"medians of {args.repeats}, load average at start "
              f"{os.getloadavg()[0]:.2f}\n")
        if not args.only_verify:
            print(floor_table(args, tmp))
            if args.only_floor:
                return 0
            print()
        print(verify_table(args, tmp))
        if args.only_verify:
            return 0
        print()
        seeds = task_seeds(0, 0, args.frames)
        frames = generate_batch(seeds, level=task_levels(LEVELS, 0, args.frames)).first_frames
        enc = bench_encoders(frames, args.repeats)
        base = enc["zlib-1, filter none"][0]
        print(table(f"PNG encoding of {args.frames} engine frames (256x256 RGB)",
                    ["encoder", "encode us/frame", "bytes/frame", "encode vs zlib-1",
                     "Pillow decode us/frame", "bytes depend on"],
                    [[k, f"{us:.1f}", f"{b:.0f}", f"{base / us:.1f}x", f"{dec:.0f}", depends]
                     for k, (us, b, dec, depends) in enc.items()]))
        print()
        rows = []
        places = [tmp] + ([Path(tempfile.mkdtemp(prefix="objsub-bench-", dir=SHM))]
                          if os.path.isdir(SHM) and args.tmp is None else [])
        # (format, tasks, shards, folder). 16 WebDataset shards (8 per worker) keep the tail,
        # when one worker has finished and the other has not, small as in a real run (a million
        # tasks are 100 shards); with 8 it cost two workers ~10%. VMEvalKit shards are kept long
        # (3,000 tasks, ~19 chunks), as at the default of 10,000, so that its I/O thread
        # overlaps like in a real run rather than filling and draining per shard.
        runs = [("webdataset", args.count, 16, tmp)] + [("vmevalkit", args.vmeval_count, 2, p)
                                                        for p in places]
        for fmt, count, shards, place in runs:
            fs = f"{fs_type(place)} ({file_create_us(place / 'fc'):.0f} us/file)"
            shard_size = -(-count // shards)
            results = bench_throughput(fmt, count, shard_size, args.repeats, place)
            for workers, (rate, best, cores, per_task) in results.items():
                rate1, best1 = results[1][:2]
                rows.append([fmt, fs, workers, count, shard_size, f"{rate:,.0f}", f"{best:,.0f}",
                             f"{rate / rate1:.2f}x ({best / best1:.2f}x)", f"{cores:.2f}",
                             f"{per_task:,.0f}", f"{per_task * 1e6 / 1e9:.2f}",
                             f"{1e6 / rate / 60:.1f}"])
        for p in places[1:]:
            shutil.rmtree(p, ignore_errors=True)
        print(table("End-to-end generation (render + encode + write + fsync + manifest)",
                    ["format", "filesystem (file create)", "workers", "tasks", "shard size",
                     "tasks/s",
                     "best tasks/s", "vs 1 worker (best)", "cores busy", "bytes/task",
                     "GB per 1M tasks", "min per 1M tasks"], rows))
        print()
        if args.video_count:
            print(table("Ground-truth videos: generate --videos vs the bare encoder, same run "
                        "(256x256, 61 frames, tasks/s)",
                        ["path", "workers", "tasks/s", "vs bare encoder", "vs 1 worker (best)",
                         "cores busy", "bytes/task"],
                        bench_video_generation(args.video_count, args.repeats, tmp)))
            print()
        rss = [[fmt, "256", "no", f"{n:,}", f"{peak_rss_mb(fmt, n, tmp):.0f}"]
               for fmt in ("webdataset",) for n in (10_000, 100_000)]
        if args.video_count:
            rss += [["webdataset", "1024", "yes", f"{n:,}",
                     f"{peak_rss_mb('webdataset', n, tmp, 1024, True):.0f}"] for n in (20, 80)]
        print(table("Peak RSS of one worker process",
                    ["format", "canvas", "videos", "tasks", "peak RSS (MB)"], rss))
        if args.full:
            out = tmp / "million"
            t = time.perf_counter()
            manifest = generate(RunConfig(count=1_000_000), out, workers=2, quiet=True)
            minutes = (time.perf_counter() - t) / 60
            gb = sum(e["bytes"] for e in manifest["shards"]) / 1e9
            print(f"\n1,000,000 tasks, webdataset, 2 workers: {minutes:.1f} min, "
                  f"{1e6 / minutes / 60:,.0f} tasks/s, {gb:.2f} GB")
            shutil.rmtree(out)
        print(f"\nload average at end {os.getloadavg()[0]:.2f} (other processes skew timings)")
    finally:
        print(f"removing the scratch folder {tmp} ...", flush=True)
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
