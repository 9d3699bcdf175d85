#!/usr/bin/env python
"""Ground-truth video benchmark: encoder vs full path, encoder settings, worker memory.

    python benchmarks/bench_video.py                 # a few minutes on a quiet core
    python benchmarks/bench_video.py --tasks 8 --repeats 1 --skip-tradeoff   # smoke run

Rates are videos per CPU-second of this process (x264 runs one thread, so that is videos/s per
core, unaffected by other tenants of a shared machine) and, in brackets, per wall second.
Rows, on the same tasks (61 frames, 16 fps, style fade):

- ``x264 only``: PyAV encodes pre-converted yuv420p ``VideoFrame``s;
- ``bare encoder``: PyAV encodes pre-rendered RGB frames (``from_ndarray``, swscale, x264), the
  issue's reference "PyAV encoding pre-rendered frames, nothing else";
- ``encode_video``: pre-rendered RGB frames -> yuv420p (this project's kernel) -> x264 -> mp4;
- ``full``: seeds -> engine batch -> transition frames drawn into one buffer -> encode_video.

The trade-off table encodes the 21 control tasks (one per rule kind) in each style with
variants of the encoder settings: speed, bytes, how many pass ``score_video``, and whether
x264's C code (``asm=0``) writes the same bytes as its SIMD paths. Peak RSS is measured in a
fresh process that draws 1024x1024 chunks as the pipeline does (10 tasks per chunk, reused
buffers), encodes their PNGs and videos.
"""
from __future__ import annotations

import argparse
import io
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bench_generate import table
from objsub_fast.engine import generate_batch
from objsub_fast.shards import task_levels, task_seeds
from objsub_fast.transitions import STYLE_NAMES, task_arrays, task_frames
from objsub_fast.video import ENCODER, VideoSpec, encode_transitions, encode_video

LEVELS = ("L1", "L2", "L3", "L4")

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
from objsub_fast import png
from objsub_fast.engine import generate_batch
from objsub_fast.video import VideoSpec, encode_transitions
count, size, chunk = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
buffers = [np.empty((chunk, size, size, 3), np.uint8) for _ in range(2)]
total = 0
for start in range(0, count, chunk):
    n = min(chunk, count - start)
    batch = generate_batch(range(start, start + n), canvas_size=size,
                           out=tuple(b[:n] for b in buffers))
    total += sum(map(len, png.encode_batch(batch.first_frames)))
    total += sum(map(len, png.encode_batch(batch.final_frames)))
    total += sum(map(len, encode_transitions(batch, VideoSpec())))
try:  # this process's own peak: ru_maxrss also counts the parent's size when it forked us
    with open("/proc/self/status") as f:
        peak_kb = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
except OSError:
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(peak_kb, total)
"""


def cpu_and_wall(fn) -> tuple[float, float]:
    """(CPU seconds of this process, wall seconds) of ``fn()``."""
    c, t = time.process_time(), time.perf_counter()
    fn()
    return time.process_time() - c, time.perf_counter() - t


def pyav_encode(frames, width: int, height: int, fps: int = 16) -> bytes:
    """PyAV encoding ``frames`` (yuv420p ``av.VideoFrame``s, or RGB arrays it converts with
    swscale) with ENCODER's x264 settings."""
    import av

    buf = io.BytesIO()
    with av.open(buf, mode="w", format="mp4", options={"fflags": ENCODER["fflags"]}) as out:
        stream = out.add_stream("libx264", rate=fps,
                                options={"preset": ENCODER["preset"], "crf": str(ENCODER["crf"]),
                                         "x264-params": ENCODER["x264_params"]})
        stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
        stream.codec_context.thread_count = 1
        for pts, frame in enumerate(frames):
            if isinstance(frame, np.ndarray):
                frame = av.VideoFrame.from_ndarray(frame, format="rgb24")
            frame.pts = pts
            for packet in stream.encode(frame):
                out.mux(packet)
        for packet in stream.encode():
            out.mux(packet)
    return buf.getvalue()


def rendered_transitions(size: int, tasks: int, spec: VideoSpec):
    """(seeds, levels, batch, RGB frames per task) of the first ``tasks`` tasks of a run."""
    seeds, levels = task_seeds(0, 0, tasks), task_levels(LEVELS, 0, tasks)
    batch = generate_batch(seeds, level=levels, canvas_size=size)
    rgb = [task_frames(batch.first_frames[i], style=spec.style, num_frames=spec.num_frames,
                       **task_arrays(batch, i)) for i in range(tasks)]
    return seeds, levels, batch, rgb


def bare_encoder_rate(tasks: int, repeats: int, size: int = 256) -> float:
    """Videos/s (wall, median) of PyAV encoding the pre-rendered RGB frames of ``tasks`` tasks
    with ENCODER's x264 settings: the issue's bare encoder."""
    *_, rgb = rendered_transitions(size, tasks, VideoSpec())
    pyav_encode(rgb[0], size, size)  # warm-up
    times = [cpu_and_wall(lambda: [pyav_encode(v, size, size) for v in rgb])[1]
             for _ in range(repeats)]
    return tasks / statistics.median(times)


def bench_paths(size: int, tasks: int, repeats: int) -> list[list]:
    """Rows of the encoder-vs-full table at ``size`` x ``size``."""
    import av

    spec = VideoSpec()
    seeds, levels, batch, rgb = rendered_transitions(size, tasks, spec)
    yuv = [[av.VideoFrame.from_ndarray(f, format="rgb24").reformat(format="yuv420p")
            for f in video] for video in rgb]
    bare = "bare encoder (PyAV, RGB frames in)"
    paths = {
        "x264 only (pre-converted yuv420p)": lambda: [pyav_encode(v, size, size) for v in yuv],
        bare: lambda: [pyav_encode(v, size, size) for v in rgb],
        "encode_video (RGB frames in)": lambda: [encode_video(v, spec.fps) for v in rgb],
        "full (engine + transition + encode)": lambda: encode_transitions(
            generate_batch(seeds, level=levels, canvas_size=size), spec),
    }
    paths["full (engine + transition + encode)"]()  # warm-up: JIT caches
    times = {label: [] for label in paths}
    for _ in range(repeats):  # round-robin so machine load affects every path alike
        for label, fn in paths.items():
            times[label].append(cpu_and_wall(fn))
    nbytes = np.mean([len(v) for v in encode_transitions(batch, spec)])
    bare = tasks / statistics.median(c for c, _ in times[bare])
    rows = []
    for label, runs in times.items():
        cpu, wall = (statistics.median(x) for x in zip(*runs))
        rate = tasks / cpu
        rows.append([f"{size}x{size}", label, f"{rate:.1f} ({tasks / wall:.1f})",
                     f"{rate / bare:.2f}x", f"{nbytes:,.0f}", f"{nbytes * 1e6 / 1e9:.1f}"])
    return rows


def bench_tradeoff(repeats: int, tmp: Path) -> list[list]:
    """Rows of the encoder-setting trade-off table (21 control tasks x 3 styles at 256)."""
    from objsub_fast.scoring import score_video
    from objsub_fast.scoring.controls import control_tasks

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
                 for v in encode_transitions(batch, VideoSpec(s), settings=settings)]))[0])
        videos = videos[-1]
        passed = 0
        for k, mp4 in enumerate(videos):
            path = tmp / f"v{k}.mp4"
            path.write_bytes(mp4)
            passed += bool(score_video(batch.task(k % len(batch)), path)["pass"])
        exact = videos == [v for s in STYLE_NAMES
                           for v in encode_transitions(batch, VideoSpec(s), settings=c_code)]
        rows.append([label, f"{len(videos) / statistics.median(cpu):.1f}",
                     f"{np.mean([len(v) for v in videos]):,.0f}", f"{passed}/{len(videos)}",
                     "yes" if exact else "NO"])
    return rows


def peak_rss_mb(count: int, size: int, chunk: int) -> float:
    """Peak RSS (MB) of a fresh process drawing and encoding ``count`` tasks with videos."""
    proc = subprocess.run([sys.executable, "-c", RSS_SCRIPT, str(count), str(size), str(chunk)],
                          capture_output=True, text=True, check=True)
    return int(proc.stdout.split()[0]) / 1024


def main(argv=None) -> int:
    """Run the benchmark and print its tables."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=40, help="videos per timed run at 256")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--skip-tradeoff", action="store_true")
    args = ap.parse_args(argv)
    print(f"objsub-fast video benchmark: medians of {args.repeats}; encoder {ENCODER}\n")
    rows = bench_paths(256, args.tasks, args.repeats)
    rows += bench_paths(1024, max(2, args.tasks // 10), args.repeats)
    print(table("Ground-truth videos, 61 frames at 16 fps, style fade, one core",
                ["canvas", "path", "videos/s per core (wall)", "vs bare encoder", "bytes/video",
                 "GB per 1M videos"], rows))
    if not args.skip_tradeoff:
        with tempfile.TemporaryDirectory() as tmp:
            print()
            print(table("Encoder settings: 21 rule kinds x 3 styles at 256x256, 61 frames",
                        ["settings", "videos/s per core", "bytes/video", "pass score_video",
                         "same bytes with x264's C code"],
                        bench_tradeoff(args.repeats, Path(tmp))))
    print()
    chunk = 10  # pipeline.auto_chunk_size at 1024x1024
    rss = [[f"{n}", f"{peak_rss_mb(n, 1024, chunk):.0f}"] for n in (chunk, 4 * chunk)]
    print(table("Peak RSS, 1024x1024, PNGs + videos, one process", ["tasks", "peak RSS (MB)"],
                rss))
    return 0


if __name__ == "__main__":
    sys.exit(main())
