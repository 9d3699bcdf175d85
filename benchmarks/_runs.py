"""What bench_generate.py and bench_video.py both measure, so that neither imports the other:
``generate`` runs timed with the worker counts taking turns (:func:`bench_throughput`, on an
idle disk, with the cores kept busy) and the bare x264 encoder, PyAV encoding pre-rendered
frames (:func:`bare_encoder_rate`).
"""
from __future__ import annotations

import io
import os
import statistics
import time
from pathlib import Path

import numpy as np

from objsub_fast.dataset.run.pipeline import RunConfig, generate
from objsub_fast.dataset.content.shards import task_levels, task_seeds
from objsub_fast.engine import generate_batch
from objsub_fast.ground_truth.transitions import task_arrays, task_frames
from objsub_fast.ground_truth.video import ENCODER, VideoSpec

__all__ = ["LEVELS", "busy_cpu_seconds", "wait_until_disk_idle", "bench_throughput",
           "cpu_and_wall", "pyav_encode", "rendered_transitions", "bare_encoder_rate"]

#: Every level, in the order a run draws them.
LEVELS = ("L1", "L2", "L3", "L4")


def busy_cpu_seconds() -> float:
    """CPU seconds all cores spent busy since boot (Linux ``/proc/stat``), NaN elsewhere.

    Machine-wide, so it includes the kernel's writeback threads that a run wakes up (and, on a
    shared machine, other tenants).
    """
    try:
        with open("/proc/stat") as f:
            fields = [int(v) for v in f.readline().split()[1:8]]
    except OSError:
        return float("nan")
    user, nice, system, _idle, _iowait, irq, softirq = fields
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


def disk_io_ms(path: Path) -> int | None:
    """Milliseconds the block device holding ``path`` has been busy (``/proc/diskstats``)."""
    dev = os.stat(path).st_dev
    try:
        with open("/proc/diskstats") as f:
            for line in f:
                major, minor, _name, *stats = line.split()
                if (int(major), int(minor)) == (os.major(dev), os.minor(dev)):
                    return int(stats[9])
    except OSError:
        pass
    return None


def wait_until_disk_idle(path: Path, timeout: float = 300.0) -> float:
    """Flush, then wait until the disk under ``path`` was idle for a second; return seconds.

    Deleting a dataset frees its blocks; on a disk mounted with ``discard`` (like this VM's)
    the kernel then trims them for minutes and every file create in the meantime waits behind
    it (measured: 3,500 -> 400 task folders/s). Timed runs start only on an idle disk; deleting
    output is never inside a timing.
    """
    t0 = time.perf_counter()
    os.sync()
    last = disk_io_ms(path)
    while last is not None and time.perf_counter() - t0 < timeout:
        time.sleep(1.0)
        now = disk_io_ms(path)
        if now - last < 20:  # < 2% busy over the last second
            break
        last = now
    return time.perf_counter() - t0


def bench_throughput(fmt: str, count: int, shard_size: int, repeats: int, place: Path,
                     workers=(1, 2), **options) -> dict:
    """Per worker count: median and best tasks/s, cores busy (median) and bytes/task.

    The worker counts take turns within each repeat, so a change in machine load between
    repeats affects them alike and their ratio stays fair. Every run writes a fresh folder
    under ``place`` on an idle disk; nothing is deleted between runs (the caller removes
    ``place`` after all timings). ``options`` are further RunConfig fields (e.g. videos).
    """
    config = RunConfig(count=count, format=fmt, shard_size=shard_size, **options)
    tag = "-".join([fmt, *sorted(options)])
    times = {w: [] for w in workers}
    cores = {w: [] for w in workers}
    for w in workers:  # warm-up: JIT caches, worker pool
        generate(config, place / f"{tag}-{w}-warm-up", workers=w, quiet=True)
    for r in range(repeats):
        for w in workers:
            wait_until_disk_idle(place)
            t, cpu = time.perf_counter(), busy_cpu_seconds()
            manifest = generate(config, place / f"{tag}-{w}-{r}", workers=w, quiet=True)
            times[w].append(time.perf_counter() - t)
            cores[w].append((busy_cpu_seconds() - cpu) / times[w][-1])
    per_task = sum(s["bytes"] for s in manifest["shards"]) / count
    return {w: (count / statistics.median(times[w]), count / min(times[w]),
                statistics.median(cores[w]), per_task) for w in workers}


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
