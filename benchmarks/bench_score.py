"""Scoring benchmark: throughput against bare decoding, and the control confusion tables.

    python benchmarks/bench_score.py [--tasks 8] [--frames 81] [--repeats 3] [--workers 2]
                                     [--look flat|solid|both]
    python benchmarks/bench_score.py --quick        # small sizes: checks the script runs

``--look`` (default ``both``) runs everything below in the flat look, the solid look (objects
drawn as lit solids, ``generate_batch(look="solid")``) or each in turn, with a table per look.

Throughput: ``--tasks`` ground-truth transition videos of ``--frames`` frames (the canvas is
``--canvas`` px square) are encoded to H.264 as model outputs that fill the frame (the square
canvas scaled and centre-cropped to 1280x720 and to 1920x1080), flat as the task draws them and
with grain (``SPEED_OUTPUTS``: the texture and bitrate of generated video). Then, in one process
with one decoder thread, they are (a) decoded bare with PyAV (``container.decode`` only, and
decode + conversion of every frame to RGB) and (b) scored with ``score_video`` (decoding
included). The table prints the bitrate and frames per CPU second of each, and the ratios
scoring / bare decode; median of ``--repeats``, the three taking turns.

Controls: every rule kind (21 tasks, all levels) x every control of
``objsub_fast.testing.controls.CONTROLS``, made into each output shape of
``objsub_fast.testing.outputs.OUTPUT_SHAPES`` (256x256; 1280x720 letterboxed; 1280x720
centre-cropped; 832x480 stretched; a 4% push-in), encoded to H.264 (at the default quality and
again at a very low bitrate, ``controls.LOW_BITRATE``: heavy block artefacts) and scored. A crop
shows part
of the canvas only: the objects a negative control changes are chosen inside it, and a control
that has no such object in a task is skipped (counted). The confusion table counts, per control,
how many videos failed each metric, and whether the intended metric caught every negative
control (and every positive control passed). ``--keep-videos DIR`` keeps the encoded control
videos (one folder per vocabulary, seed and length) and scores those already there as they are:
after a change to the scorer the full table (15,860 videos over both vocabularies) is measured
again in a fraction of its first run's time, since making and encoding the videos is most of it.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from _extras import description
from _speed_tasks import speed_tasks

import numpy as np
from joblib import Parallel, delayed

from objsub_fast import generate_batch
from objsub_fast.scoring import METRICS, render_transition, score_video, write_video
from objsub_fast.testing.controls import (CONTROLS, LOW_BITRATE, caught, control_frames,
                                          control_tasks)
from objsub_fast.testing.outputs import (OUTPUT_SHAPES, centre_cropped, grainy, reshape,
                                        visible_window)
from objsub_fast.scoring.judging.thresholds import SHORT_NAMES

#: Throughput outputs: name -> (size, grain sigma). The flat re-encodings of the task's own
#: frames are the cheapest video there is to decode (a few hundred kbit/s); grain (independent
#: noise of sigma 3 of 255 per pixel and frame, after scaling) gives them the texture and the
#: bitrate of generated video (several Mbit/s), where decoding costs what it does on real outputs.
SPEED_OUTPUTS = {"1280x720": ((1280, 720), 0), "1920x1080": ((1920, 1080), 0),
                 "1280x720 grain": ((1280, 720), 3.0), "1920x1080 grain": ((1920, 1080), 3.0)}


def _decode(path: Path, rgb: bool) -> int:
    import av
    from av.video.reformatter import VideoReformatter

    reformatter = VideoReformatter()
    n = 0
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        stream.codec_context.thread_count = 1
        for frame in container.decode(stream):
            if rgb:
                reformatter.reformat(frame, format="rgb24").to_ndarray()
            n += 1
    return n


def _score(record, path) -> int:
    res = score_video(record, path)
    if res["error"] or not res["pass"]:
        raise RuntimeError(f"ground truth not passing: {res['error'] or res['metrics']}")
    return res["frames"]


def _rates(runs, repeats: int) -> list[float]:
    """Median frames per CPU second of each run ``(fn, jobs)``: ``fn(*job)`` over all jobs.

    The runs take turns within each repeat, so a change of load on a shared machine hits them
    alike; CPU time of this one process (one decoder thread, no other threads) is what is
    counted, not wall time.
    """
    rates = [[] for _ in runs]
    for _ in range(repeats):
        for k, (fn, jobs) in enumerate(runs):
            t = time.process_time()
            frames = sum(fn(*job) for job in jobs)
            rates[k].append(frames / (time.process_time() - t))
    return [statistics.median(r) for r in rates]


def speed_videos(batch, frames: int, folder: Path, look: str, name: str) -> tuple[float, list]:
    """(Mbit/s, paths): the ground-truth videos of ``batch`` (fade, shrink, slide in turn) as
    throughput output ``name`` of :data:`SPEED_OUTPUTS`, written to ``folder``."""
    size, grain = SPEED_OUTPUTS[name]
    styles = ("fade", "shrink", "slide")
    paths = []
    for i in range(len(batch)):
        shown = centre_cropped(render_transition(batch, styles[i % 3], frames, tasks=[i])[0],
                               size)
        paths.append(folder / f"speed_{look}_{name.replace(' ', '_')}_{i}.mp4")
        write_video(paths[-1], grainy(shown, grain, seed=i) if grain else shown)
    return sum(p.stat().st_size for p in paths) * 8 / 1e6 / (len(paths) * frames / 16), paths


def speed(args, folder: Path, look: str) -> list[tuple]:
    """(output, decode fps, decode+RGB fps, scoring fps) for each throughput output."""
    batch = speed_tasks(args.tasks, args.canvas, look)
    records = batch.tasks()
    rows = []
    for name in SPEED_OUTPUTS:
        mbits, paths = speed_videos(batch, args.frames, folder, look, name)
        _score(records[0], paths[0])  # warm-up: Numba cache load, colour table
        bare, rgb, scored = _rates([(_decode, [(p, False) for p in paths]),
                                    (_decode, [(p, True) for p in paths]),
                                    (_score, list(zip(records, paths)))], args.repeats)
        rows.append((name, mbits, bare, rgb, scored))
    return rows


#: Encodings of the controls: name -> libx264 options over the defaults.
BITRATES = {"": {}, "very low bitrate": LOW_BITRATE}


def _control_one(batch, i, control, shape, frames, folder, bitrate="", kept=False):
    """Make, encode and score one control video; a video kept from an earlier run (``kept``:
    ``folder`` is ``--keep-videos``) is scored again as it is."""
    window = visible_window(shape, batch.canvas_size)
    name = f"{shape}, {bitrate}" if bitrate else shape
    path = folder / (f"ctl_{batch.config.look}_{i}_{control}_{shape.replace(' ', '_')}_"
                     f"{'low' if bitrate else 'normal'}.mp4")
    if not (kept and path.exists()):
        try:
            canvas_frames = control_frames(batch, i, control, frames, window=window)
        except ValueError:
            return name, control, None, [], None, path.name
        part = path.with_name(path.stem + ".part.mp4")
        write_video(part, reshape(canvas_frames, shape), options=BITRATES[bitrate])
        os.replace(part, path)
    res = score_video(batch.task(i), path)
    failed = [m for m in METRICS if res["metrics"].get(m, {}).get("pass") is False]
    return name, control, caught(res, control), failed, res["error"], path.name


def controls(args, folder: Path, look: str) -> dict:
    """Per output shape: {control: (videos, right, {metric: failures}, errors, skipped)}."""
    batch = control_tasks(seed=args.seed, vocabulary=args.vocabulary, look=look)
    tasks = range(0, len(batch), args.task_stride)
    bitrates = {"normal": [""], "low": ["very low bitrate"], "both": list(BITRATES)}[args.bitrate]
    kept = args.keep_videos is not None
    if kept:
        folder = args.keep_videos / f"{args.vocabulary}_seed{args.seed}_{args.frames}_frames"
        folder.mkdir(parents=True, exist_ok=True)
    results = Parallel(n_jobs=args.workers)(
        delayed(_control_one)(batch, i, c, shape, args.frames, folder, bitrate, kept)
        for bitrate in bitrates for shape in args.shapes for i in tasks for c in CONTROLS)
    if args.verdicts is not None:
        with open(args.verdicts, "a") as fh:
            for name, control, right, failed, error, video in results:
                if right is not None:
                    fh.write(json.dumps({"look": look, "vocabulary": args.vocabulary,
                                         "video": video, "right": bool(right),
                                         "failed": failed, "error": error}) + "\n")
    out = {}
    for shape in [f"{s}, {b}" if b else s for b in bitrates for s in args.shapes]:
        table = {}
        for control in CONTROLS:
            rs = [r for r in results if r[0] == shape and r[1] == control]
            done = [r for r in rs if r[2] is not None]
            fails = {m: sum(m in r[3] for r in done) for m in METRICS}
            table[control] = (len(done), sum(r[2] for r in done), fails,
                              sum(bool(r[4]) for r in done), len(rs) - len(done))
        out[shape] = table
    return out


def _print_controls(tables, frames: int, vocabulary: str, look: str) -> None:
    for name, table in tables.items():
        print(f"\nControls, {look} look, {name} ({frames} frames, H.264, {vocabulary} "
              "vocabulary): videos failing each metric")
        print(f"{'control':<17}{'intended':<11}{'videos':>7}" + "".join(
            f"{SHORT_NAMES[m]:>10}" for m in METRICS) + f"{'errors':>8}{'skipped':>8}"
            f"{'correct':>9}")
        for control, (n, right, fails, errors, skipped) in table.items():
            intended = SHORT_NAMES[CONTROLS[control][1]] if CONTROLS[control][1] else "pass all"
            print(f"{control:<17}{intended:<11}{n:>7}" + "".join(
                f"{fails[m]:>10}" for m in METRICS) + f"{errors:>8}{skipped:>8}"
                f"{right:>6}/{n:<3}")
        pos = [t for c, t in table.items() if CONTROLS[c][1] is None]
        neg = [t for c, t in table.items() if CONTROLS[c][1] is not None]
        print(f"positive controls passing: {sum(t[1] for t in pos)}/{sum(t[0] for t in pos)}; "
              f"negative controls caught by the intended metric: "
              f"{sum(t[1] for t in neg)}/{sum(t[0] for t in neg)}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=description(__doc__))
    parser.add_argument("--tasks", type=int, default=8, help="videos per throughput output")
    parser.add_argument("--frames", type=int, default=81)
    parser.add_argument("--control-frames", type=int, default=33)
    parser.add_argument("--canvas", type=int, default=256, help="task canvas side (px)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1),
                        help="processes for the controls (throughput is one process)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the control task search")
    parser.add_argument("--task-stride", type=int, default=None, metavar="N",
                        help="controls of every N-th control task only (a sample of the "
                             "rule kinds; default 1: all 21, 3 with --quick)")
    parser.add_argument("--quick", action="store_true",
                        help="2 videos of 17 frames, 1 repeat, every third rule kind, 16-frame "
                             "controls: checks the script, measures nothing worth quoting")
    parser.add_argument("--vocabulary", default="classic", choices=("classic", "extended"),
                        help="vocabulary of the control tasks (default: %(default)s)")
    parser.add_argument("--look", default="both", choices=("flat", "solid", "both"),
                        help="look of the tasks: a table per look (default: %(default)s)")
    parser.add_argument("--bitrate", default="both", choices=("normal", "low", "both"),
                        help="encode the controls at the default quality, at a very low "
                             "bitrate (LOW_BITRATE: heavy block artefacts) or both "
                             "(default: %(default)s)")
    parser.add_argument("--shapes", default=",".join(OUTPUT_SHAPES),
                        help="output shapes of the controls, comma-separated (default: all of "
                             "outputs.OUTPUT_SHAPES)")
    parser.add_argument("--keep-videos", type=Path, metavar="DIR",
                        help="keep the encoded control videos in DIR and score the ones "
                             "already there as they are: a scorer change is measured again in "
                             "a fraction of the time (encoding is most of it). Empty DIR when "
                             "the controls themselves change")
    parser.add_argument("--verdicts", type=Path, metavar="FILE",
                        help="append each control video's verdict to FILE (JSON lines: look, "
                             "vocabulary, video, right, failed metrics, error), to compare two "
                             "versions of the scorer video by video (scripts/compare_verdicts.py)")
    parser.add_argument("--skip-controls", action="store_true")
    parser.add_argument("--skip-speed", action="store_true")
    args = parser.parse_args(argv)
    args.shapes = [name.strip() for name in args.shapes.split(",")]
    unknown = [name for name in args.shapes if name not in OUTPUT_SHAPES]
    if unknown:
        parser.error(f"--shapes: unknown {unknown}; choose from {list(OUTPUT_SHAPES)}")
    if args.task_stride is None:
        args.task_stride = 3 if args.quick else 1
    if args.task_stride < 1:
        parser.error(f"--task-stride: must be at least 1, got {args.task_stride}")
    if args.quick:
        args.tasks, args.frames, args.repeats, args.control_frames = 2, 17, 1, 16
    looks = ("flat", "solid") if args.look == "both" else (args.look,)
    speed_frames = args.frames
    with tempfile.TemporaryDirectory(prefix="bench_score_") as tmp:
        folder = Path(tmp)
        for look in looks:
            args.frames = speed_frames
            rows = [] if args.skip_speed else speed(args, folder, look)
            load = ", ".join(f"{v:.2f}" for v in os.getloadavg())
            _print_speed(rows, args, load, look)
            if args.skip_controls:
                continue
            args.frames = args.control_frames
            _print_controls(controls(args, folder, look), args.frames, args.vocabulary, look)


def _print_speed(rows, args, load: str, look: str) -> None:
    if rows:
        print(f"\nThroughput, {look} look: {args.tasks} H.264 videos x {args.frames} frames "
              "per output, "
              f"{args.canvas}x{args.canvas} canvas, one process, one decoder thread, frames per "
              "CPU second, median of "
              f"{args.repeats} ({os.cpu_count()} CPUs, load average after the runs: {load})")
        print(f"{'output':<18}{'Mbit/s':>8}{'decode fps':>12}{'decode+RGB fps':>16}"
              f"{'scoring fps':>13}{'score/decode':>14}{'score/decode+RGB':>18}")
        for name, mbits, bare, rgb, scored in rows:
            print(f"{name:<18}{mbits:>8.2f}{bare:>12.1f}{rgb:>16.1f}{scored:>13.1f}"
                  f"{scored / bare:>14.2f}{scored / rgb:>18.2f}")


if __name__ == "__main__":
    main()
