#!/usr/bin/env python
"""The own H.264 encoder (``objsub_fast.h264``) against the x264 path on the same transitions.

    python benchmarks/bench_h264.py --sizes 256 1024 --tasks 8

For each canvas size and style: videos per CPU-second of the full path (transition drawn,
RGB -> YUV of the changed rectangles, encode) with x264 (``encode_transitions``) and with the
own encoder (Annex B stream; the mp4 boxes add a few hundred bytes), bytes per video, and the
PSNR of the decoded RGB frames against the rendered transition (mean over frames and videos,
and the worst frame). ``--qp I P`` pairs (repeatable) give one row each.
"""
from __future__ import annotations

import argparse
import io
import statistics
import time

import numpy as np

from objsub_fast.engine import generate_batch
from objsub_fast.h264.encoder import EncoderSettings, H264Encoder, annexb
from objsub_fast.transitions import STYLE_NAMES, task_arrays, task_frames, transition_updates
from objsub_fast.video import VideoSpec, decode_video, encode_transitions, rgb_to_yuv420


def encode_objsub(batch, i: int, spec: VideoSpec, settings: EncoderSettings) -> bytes:
    """Task ``i``'s transition as an Annex B stream of the own encoder."""
    first = batch.first_frames[i]
    h, w = first.shape[:2]
    planes = (np.empty((h, w), np.uint8), np.empty((h // 2, w // 2), np.uint8),
              np.empty((h // 2, w // 2), np.uint8))
    enc = H264Encoder(w, h, settings)
    pictures = []
    buffer = np.empty_like(first)
    for frame, changed in transition_updates(first, style=spec.style, num_frames=spec.num_frames,
                                             final=batch.final_frames[i], out=buffer,
                                             **task_arrays(batch, i)):
        if changed is None:
            rgb_to_yuv420(frame, *planes)
        else:
            for y0, y1, x0, x1 in changed:
                y0, y1, x0, x1 = y0 - y0 % 2, y1 + y1 % 2, x0 - x0 % 2, x1 + x1 % 2
                rgb_to_yuv420(frame[y0:y1, x0:x1], planes[0][y0:y1, x0:x1],
                              planes[1][y0 // 2:y1 // 2, x0 // 2:x1 // 2],
                              planes[2][y0 // 2:y1 // 2, x0 // 2:x1 // 2])
        pictures.append(enc.encode(*planes, changed=changed))
    return annexb(enc.sps, enc.pps, pictures)


def decode_rgb(data: bytes, annex_b: bool):
    import av
    if not annex_b:
        return list(decode_video(data))
    with av.open(io.BytesIO(data), format="h264") as c:
        return [f.to_ndarray(format="rgb24") for f in c.decode(video=0)]


def psnr(a, b) -> float:
    mse = np.mean((a.astype(np.int32) - b.astype(np.int32)) ** 2)
    return 99.0 if mse == 0 else 10 * np.log10(255.0 ** 2 / mse)


def measure(batch, spec, encode, annex_b):
    times, sizes, psnrs = [], [], []
    for i in range(len(batch)):
        t0 = time.process_time()
        data = encode(i)
        times.append(time.process_time() - t0)
        sizes.append(len(data))
        frames = task_frames(batch.first_frames[i], style=spec.style, num_frames=spec.num_frames,
                             **task_arrays(batch, i))
        dec = decode_rgb(data, annex_b)
        psnrs.extend(psnr(a, b) for a, b in zip(dec, frames))
    return (len(times) / sum(times), statistics.mean(sizes) / 1000, statistics.mean(psnrs),
            min(psnrs))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[256, 1024])
    parser.add_argument("--styles", nargs="+", default=list(STYLE_NAMES))
    parser.add_argument("--tasks", type=int, default=8)
    parser.add_argument("--frames", type=int, default=61)
    parser.add_argument("--qp", type=int, nargs=2, action="append")
    parser.add_argument("--no-x264", action="store_true")
    args = parser.parse_args()
    qps = args.qp or [(EncoderSettings().qp_i, EncoderSettings().qp_p)]
    print("| canvas | style | encoder | videos/s (CPU) | kB/video | mean PSNR | worst PSNR |")
    print("|---|---|---|---|---|---|---|")
    for size in args.sizes:
        batch = generate_batch(range(args.tasks), canvas_size=size)
        for style in args.styles:
            spec = VideoSpec(style=style, num_frames=args.frames)
            rows = []
            if not args.no_x264:
                rows.append(("x264", measure(batch, spec, lambda i: encode_transitions(
                    batch, spec, tasks=[i])[0], False)))
            for qp_i, qp_p in qps:
                settings = EncoderSettings(qp_i=qp_i, qp_p=qp_p)
                encode_objsub(batch, 0, spec, settings)   # compile outside the timing
                rows.append((f"objsub qp {qp_i}/{qp_p}", measure(
                    batch, spec, lambda i: encode_objsub(batch, i, spec, settings), True)))
            for name, (rate, kb, mean_psnr, worst) in rows:
                print(f"| {size} | {style} | {name} | {rate:.1f} | {kb:.1f} | {mean_psnr:.2f} | "
                      f"{worst:.2f} |", flush=True)


if __name__ == "__main__":
    main()
