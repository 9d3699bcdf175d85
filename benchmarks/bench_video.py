#!/usr/bin/env python
"""Ground-truth video benchmark: the own H.264 encoder (objsub) against libx264 (x264).

    python benchmarks/bench_video.py             # about 15 minutes on a quiet core
    python benchmarks/bench_video.py --smoke     # a quick run: 2 tasks, 1 repeat, small runs

Everything is measured in one run, on one core (the encoders run one thread; rates are videos
per CPU-second of this process, medians over ``--repeats``, the encoders taking turns so that
machine load hits both alike). Tables:

- the same in the solid look (``look="solid"``: lit, anti-aliased solids; ``--solid-only`` for
  just this table), with the encoder's targets on it (bytes <= 1.25x x264's, PSNR >= x264's
  - 0.5 dB);
- per canvas (256, 1024) and style: ``encode_transitions`` (transition drawn into one buffer,
  changed rectangles converted to YUV, encoded, muxed) with x264 and with objsub, their ratio,
  bytes per video, and the PSNR of the decoded RGB frames against the rendered transition (mean
  over every frame of every video, and the worst frame);
- the objsub encoder's QP choices (``EncoderSettings(qp_i, qp_p)``): speed, bytes, PSNR;
- ``generate --videos`` at 1024x1024 with 1 and 2 workers (wall time; the target is >= 1.8x),
  the peak RSS of one worker process at 1024x1024 (< 500 MB), and what a million samples with
  video at 1024 cost in core-hours and disk (from the 1-worker run);
- with ``--x264-details``: the earlier x264-only tables (x264 alone vs the full path, and the
  x264 setting trade-off with ``score_video``).

At 1024x1024 the objects are scaled with the canvas (80-160 px, an 8-px outline), as by default.
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _extras import description
from _runs import LEVELS, bench_throughput, cpu_and_wall, pyav_encode, rendered_transitions
from _table import table

import numpy as np

from objsub_fast.dataset.content.shards import task_levels, task_seeds
from objsub_fast.engine import generate_batch
from objsub_fast.ground_truth.transitions import STYLE_NAMES, task_arrays, task_frames
from objsub_fast.ground_truth.video import (ENCODER, ENCODERS, VideoSpec, decode_video,
                                            encode_transitions, encode_video)


#: Encoder setting variants: label -> changes to ENCODER.
VARIANTS = {
    "chosen (ENCODER)": {},
    "chosen, crf 23": {"crf": 23},
    "chosen, crf 28": {"crf": 28},
    "chosen + subme 6, ref 3": {"x264_params": ENCODER["x264_params"] + ":subme=6:ref=3"},
    "x264 ultrafast": {"x264_params": ""},
    "x264 veryfast": {"preset": "veryfast", "x264_params": ""},
}

RSS_SCRIPT = """
import resource, sys
import numpy as np
from objsub_fast.draw import png
from objsub_fast.engine import generate_batch
from objsub_fast.ground_truth.video import VideoSpec, encode_transitions
count, size, chunk = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
spec = VideoSpec(encoder=sys.argv[4])
buffers = [np.empty((chunk, size, size, 3), np.uint8) for _ in range(2)]
total = 0
for start in range(0, count, chunk):
    n = min(chunk, count - start)
    batch = generate_batch(range(start, start + n), canvas_size=size,
                           out=tuple(b[:n] for b in buffers))
    total += sum(map(len, png.encode_batch(batch.first_frames)))
    total += sum(map(len, png.encode_batch(batch.final_frames)))
    total += sum(map(len, encode_transitions(batch, spec)))
try:  # this process's own peak: ru_maxrss also counts the parent's size when it forked us
    with open("/proc/self/status") as f:
        peak_kb = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
except OSError:
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(peak_kb, total)
"""


def bench_paths(size: int, tasks: int, repeats: int) -> list[list]:
    """Rows of the encoder-vs-full table at ``size`` x ``size``."""
    import av

    spec = VideoSpec(encoder="x264")
    seeds, levels, _, rgb = rendered_transitions(size, tasks, spec)
    yuv = [[av.VideoFrame.from_ndarray(f, format="rgb24").reformat(format="yuv420p")
            for f in video] for video in rgb]
    bare = "bare encoder (PyAV, RGB frames in)"
    paths = {
        "x264 only (pre-converted yuv420p)": lambda: [pyav_encode(v, size, size) for v in yuv],
        bare: lambda: [pyav_encode(v, size, size) for v in rgb],
        "encode_video (RGB frames in)": lambda: [encode_video(v, spec.fps, encoder="x264")
                                                 for v in rgb],
        "full (engine + transition + encode)": lambda: encode_transitions(
            generate_batch(seeds, level=levels, canvas_size=size), spec),
        "full, extended vocabulary": lambda: encode_transitions(
            generate_batch(seeds, level=levels, canvas_size=size, vocabulary="extended"), spec),
    }
    for label in ("full (engine + transition + encode)", "full, extended vocabulary"):
        paths[label]()  # warm-up: JIT and sprite caches
    times = {label: [] for label in paths}
    videos = {}  # label -> the videos (mp4 bytes) of its last run
    for _ in range(repeats):  # round-robin so machine load affects every path alike
        for label, fn in paths.items():
            times[label].append(cpu_and_wall(lambda: videos.__setitem__(label, fn())))
    bare = tasks / statistics.median(c for c, _ in times[bare])
    rows = []
    for label, runs in times.items():
        cpu, wall = (statistics.median(x) for x in zip(*runs))
        rate = tasks / cpu
        nbytes = np.mean([len(v) for v in videos[label]])
        rows.append([f"{size}x{size}", label, f"{rate:.1f} ({tasks / wall:.1f})",
                     f"{rate / bare:.2f}x", f"{nbytes:,.0f}", f"{nbytes * 1e6 / 1e9:.1f}"])
    return rows


def bench_tradeoff(repeats: int, tmp: Path) -> list[list]:
    """Rows of the encoder-setting trade-off table (21 control tasks x 3 styles at 256)."""
    from objsub_fast.scoring import score_video
    from objsub_fast.testing.controls import control_tasks

    batch = control_tasks()
    rows = []
    for label, change in VARIANTS.items():
        settings = {**ENCODER, **change}
        c_code = {**settings, "x264_params": ":".join(filter(None, [settings["x264_params"],
                                                                    "asm=0"]))}
        videos, cpu = [], []
        for _ in range(repeats):
            cpu.append(cpu_and_wall(lambda: videos.append(
                [v for s in STYLE_NAMES
                 for v in encode_transitions(batch, VideoSpec(s, encoder="x264"),
                                             settings=settings)]))[0])
        videos = videos[-1]
        passed = 0
        for k, mp4 in enumerate(videos):
            path = tmp / f"v{k}.mp4"
            path.write_bytes(mp4)
            passed += bool(score_video(batch.task(k % len(batch)), path)["pass"])
        exact = videos == [v for s in STYLE_NAMES
                           for v in encode_transitions(batch, VideoSpec(s, encoder="x264"),
                                                       settings=c_code)]
        rows.append([label, f"{len(videos) / statistics.median(cpu):.1f}",
                     f"{np.mean([len(v) for v in videos]):,.0f}", f"{passed}/{len(videos)}",
                     "yes" if exact else "NO"])
    return rows


def frame_psnrs(batch, i: int, spec: VideoSpec, mp4: bytes) -> list[float]:
    """PSNR (dB) of every decoded RGB frame of ``mp4`` against task ``i``'s rendered
    transition."""
    want = task_frames(batch.first_frames[i], style=spec.style, num_frames=spec.num_frames,
                       **task_arrays(batch, i))
    out = []
    for got, ref in zip(decode_video(mp4), want):
        mse = np.mean((got.astype(np.int32) - ref) ** 2)
        out.append(99.0 if mse == 0 else 10 * np.log10(255.0 ** 2 / mse))
    return out


def measure(batch, specs: dict, repeats: int, settings: dict | None = None) -> dict:
    """label -> (videos per CPU-second, mean bytes, mean PSNR, worst frame PSNR) of
    ``encode_transitions(batch, spec)`` for each labelled spec, the labels taking turns."""
    settings = settings or {}
    for label, spec in specs.items():  # warm-up: JIT, caches
        encode_transitions(batch, spec, [0], settings.get(label))
    cpu = {label: [] for label in specs}
    videos = {}
    for _ in range(repeats):
        for label, spec in specs.items():
            cpu[label].append(cpu_and_wall(lambda: videos.__setitem__(
                label, encode_transitions(batch, spec, settings=settings.get(label))))[0])
    out = {}
    for label, spec in specs.items():
        psnrs = [p for i, mp4 in enumerate(videos[label]) for p in frame_psnrs(batch, i, spec, mp4)]
        out[label] = (len(batch) / statistics.median(cpu[label]),
                      float(np.mean([len(v) for v in videos[label]])), float(np.mean(psnrs)),
                      min(psnrs))
    return out


def bench_encoders(size: int, tasks: int, repeats: int, look: str = "flat") -> list[list]:
    """Rows of the x264 vs objsub table at ``size`` x ``size`` in ``look``, one per style
    (the canvas column says "solid" for the solid look); each encoder with the settings
    datasets use for the look (``video.look_settings``)."""
    seeds, levels = task_seeds(0, 0, tasks), task_levels(LEVELS, 0, tasks)
    batch = generate_batch(seeds, level=levels, canvas_size=size, look=look)
    rows = []
    for style in STYLE_NAMES:
        got = measure(batch, {name: VideoSpec(style, encoder=name) for name in ENCODERS},
                      repeats)
        (xr, xb, xp, xw), (orate, ob, op, ow) = got["x264"], got["objsub"]
        rows.append([f"{size}" + (f" {look}" if look != "flat" else ""), style, f"{xr:.1f}",
                     f"{orate:.1f}", f"{orate / xr:.1f}x",
                     f"{xb:,.0f}", f"{ob:,.0f}", f"{ob / xb:.2f}x", f"{xp:.2f}", f"{op:.2f}",
                     f"{xw:.2f}", f"{ow:.2f}"])
    return rows


def bench_parts(size: int, tasks: int, repeats: int) -> list[list]:
    """Where objsub's ``encode_transitions`` time goes, per style (ms per video, CPU): the
    transition planned and packed (``transitions.plan_transition``,
    ``transition_video.pack_plan``: numpy), the one compiled call that draws, converts and
    encodes every picture (``transition_video.encode_steps``), and the rest (the encoder's
    set-up, the mp4 muxer)."""
    import objsub_fast.ground_truth.transition_video as transition_video
    import objsub_fast.ground_truth.video as video

    batch = generate_batch(task_seeds(0, 0, tasks), level=task_levels(LEVELS, 0, tasks),
                           canvas_size=size)
    timed_parts = ((video, "plan_transition", "plan"), (transition_video, "pack_plan", "plan"),
                   (transition_video, "encode_steps", "call"))
    rows = []
    for style in STYLE_NAMES:
        spec = VideoSpec(style, encoder="objsub")
        runs = []
        for _ in range(repeats + 1):  # the first run warms up
            spent = {"plan": 0.0, "call": 0.0}

            def timed(key, fn):
                def run(*args, **kwargs):
                    t = time.process_time()
                    out = fn(*args, **kwargs)
                    spent[key] += time.process_time() - t
                    return out
                return run

            real = [getattr(module, name) for module, name, _ in timed_parts]
            for (module, name, key), fn in zip(timed_parts, real):
                setattr(module, name, timed(key, fn))
            try:
                total = cpu_and_wall(lambda: encode_transitions(batch, spec))[0]
            finally:
                for (module, name, _), fn in zip(timed_parts, real):
                    setattr(module, name, fn)
            runs.append(np.array([spent["plan"], spent["call"],
                                  total - spent["plan"] - spent["call"], total]) * 1000 / tasks)
        ms = np.median(runs[1:], axis=0)
        rows.append([f"{size}", style, *(f"{v:.1f}" for v in ms)])
    return rows


#: The objsub QP pairs (I, P) of the QP table; the default ``EncoderSettings()`` is added.
QP_PAIRS = ((16, 18), (18, 20), (20, 22), (22, 24), (24, 26), (26, 28), (28, 30))


def bench_qps(size: int, tasks: int, repeats: int) -> list[list]:
    """Rows of the objsub QP table at ``size`` (every style pooled)."""
    from objsub_fast.ground_truth.h264.encoder import EncoderSettings

    default = EncoderSettings()
    pairs = sorted({*QP_PAIRS, (default.qp_i, default.qp_p)})
    batch = generate_batch(task_seeds(0, 0, tasks), level=task_levels(LEVELS, 0, tasks),
                           canvas_size=size)
    rows = []
    for qp_i, qp_p in pairs:
        labels = {f"{style}": VideoSpec(style) for style in STYLE_NAMES}
        settings = {label: EncoderSettings(qp_i=qp_i, qp_p=qp_p) for label in labels}
        got = measure(batch, labels, repeats, settings).values()
        rate = len(got) / sum(1 / r for r, *_ in got)  # videos/s over the three styles
        nbytes = np.mean([b for _, b, _, _ in got])
        mark = " (default)" if (qp_i, qp_p) == (default.qp_i, default.qp_p) else ""
        rows.append([f"{size}", f"{qp_i}/{qp_p}{mark}", f"{rate:.1f}", f"{nbytes:,.0f}",
                     f"{np.mean([p for _, _, p, _ in got]):.2f}",
                     f"{min(w for *_, w in got):.2f}"])
    return rows


def bench_workers(size: int, count: int, repeats: int, tmp: Path) -> tuple[list[list], dict]:
    """``generate --videos`` (objsub, webdataset) at ``size`` with 1 and 2 workers
    (``_runs.bench_throughput``: medians, the worker counts taking turns): rows, and
    the 1-worker run's seconds and disk bytes per task."""
    got = bench_throughput("webdataset", count, max(1, count // 4), repeats, tmp,
                           canvas_size=(size, size), videos=True)
    rows = [[f"{size}", f"{w}", f"{rate:.2f}", f"{rate / got[1][0]:.2f}x", f"{cores:.2f}"]
            for w, (rate, _, cores, _) in got.items()]
    return rows, {"seconds_per_task": 1 / got[1][0], "bytes_per_task": got[1][3]}


def peak_rss_mb(count: int, size: int, chunk: int, encoder: str = ENCODERS[0]) -> float:
    """Peak RSS (MB) of a fresh process drawing and encoding ``count`` tasks with videos."""
    proc = subprocess.run([sys.executable, "-c", RSS_SCRIPT, str(count), str(size), str(chunk),
                           encoder], capture_output=True, text=True, check=True)
    return int(proc.stdout.split()[0]) / 1024


def main(argv=None) -> int:
    """Run the benchmark and print its tables."""
    ap = argparse.ArgumentParser(description=description(__doc__))
    ap.add_argument("--tasks", type=int, default=12, help="videos per style at 256 (1024: a "
                    "third of it, at least 2)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--generate-count", type=int, default=160,
                    help="tasks of the 1024x1024 generate runs (1 and 2 workers; the run's "
                    "serial start, its checks and sample, is 0.3 s of it)")
    ap.add_argument("--smoke", action="store_true", help="a quick run: 2 tasks, 1 repeat, "
                    "8-task generate runs, 10-task RSS run")
    ap.add_argument("--solid-only", action="store_true",
                    help="just the encoder table in the solid look (and its checks)")
    ap.add_argument("--x264-details", action="store_true",
                    help="also the x264-only tables (paths, setting trade-off)")
    args = ap.parse_args(argv)
    if args.smoke:
        args.tasks, args.repeats, args.generate_count = 2, 1, 8
    big = max(2, args.tasks // 3)
    print(f"objsub-fast video benchmark: medians of {args.repeats}; {args.tasks} tasks per "
          f"style at 256, {big} at 1024; 61 frames at 16 fps\n")
    header = ["canvas", "style", "x264 videos/s", "objsub videos/s", "speed-up", "x264 bytes",
              "objsub bytes", "bytes ratio", "x264 PSNR", "objsub PSNR", "x264 worst",
              "objsub worst"]
    solid = bench_encoders(256, args.tasks, args.repeats, "solid") + \
        bench_encoders(1024, big, args.repeats, "solid")
    print(table("encode_transitions in the solid look (objects drawn as lit solids), one core",
                header, solid))
    print("solid-look targets (bytes <= 1.25x x264, PSNR >= x264's - 0.5 dB): " + ", ".join(
        f"{row[0]} {row[1]} {'yes' if float(row[7][:-1]) <= 1.25 and float(row[9]) >= float(row[8]) - 0.5 else 'NO'}"
        for row in solid) + "\n")
    if args.solid_only:
        return 0
    rows = bench_encoders(256, args.tasks, args.repeats) + bench_encoders(1024, big,
                                                                           args.repeats)
    print(table("encode_transitions, one core: x264 vs objsub (PSNR in dB of the decoded RGB "
                "frames vs the rendered transition: mean, worst frame)", header, rows))
    print()
    rows = bench_parts(256, args.tasks, args.repeats) + bench_parts(1024, big, args.repeats)
    print(table("Where objsub's time goes (ms per video, CPU, medians)", [
        "canvas", "style", "plan + pack", "draw + convert + encode (one call)",
        "set-up + mp4 muxer", "total"], rows))
    print()
    rows = bench_qps(256, args.tasks, args.repeats) + bench_qps(1024, big, args.repeats)
    print(table("objsub QP choices (I/P), every style pooled", ["canvas", "QP I/P", "videos/s",
                                                               "bytes/video", "mean PSNR",
                                                               "worst PSNR"], rows))
    print()
    with tempfile.TemporaryDirectory() as tmp:
        rows, per_task = bench_workers(1024, args.generate_count, args.repeats, Path(tmp))
    print(table("generate --videos (objsub), 1024x1024, wall-clock medians", [
        "canvas", "workers", "tasks/s", "vs 1 worker", "cores busy"], rows))
    print()
    chunk = 10  # pipeline.auto_chunk_size at 1024x1024
    counts = (chunk,) if args.smoke else (chunk, 4 * chunk)
    rss = [[name, f"{n}", f"{peak_rss_mb(n, 1024, chunk, name):.0f}"] for name in ENCODERS
           for n in counts]
    print(table("Peak RSS of one worker, 1024x1024, PNGs + videos", ["encoder", "tasks",
                                                                    "peak RSS (MB)"], rss))
    print()
    hours = per_task["seconds_per_task"] * 1e6 / 3600
    print(table("A million samples with video at 1024x1024 (webdataset, objsub, from the "
                "1-worker rate; the disk includes both PNGs)", ["core-hours", "disk"],
                [[f"{hours:,.0f}", f"{per_task['bytes_per_task'] * 1e6 / 1e9:,.0f} GB"]]))
    if args.x264_details:
        print()
        rows = bench_paths(256, args.tasks, args.repeats)
        rows += bench_paths(1024, big, args.repeats)
        print(table("x264: ground-truth videos, 61 frames at 16 fps, style fade, one core",
                    ["canvas", "path", "videos/s per core (wall)", "vs bare encoder",
                     "bytes/video", "GB per 1M videos"], rows))
        with tempfile.TemporaryDirectory() as tmp:
            print()
            print(table("x264 settings: 21 rule kinds x 3 styles at 256x256, 61 frames",
                        ["settings", "videos/s per core", "bytes/video", "pass score_video",
                         "same bytes with x264's C code"],
                        bench_tradeoff(args.repeats, Path(tmp))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
