#!/usr/bin/env python
"""Encode the same small videos over and over while other threads keep the CPU busy, and count
the distinct outputs of each, for both encoders (``python scripts/video_stress.py [seconds]
[threads]``).

Found with it on the shared 2-core development machine: a video whose frames are all one flat
colour (32x32 black) now and then encodes to different (valid, identically decoding) bytes when
other threads run: 44 of 5,084 encodes, the first slice's data differing (x264's adaptive
quantisation and macroblock tree on a frame with no texture at all). Videos with any content
did not: 0 of 5,084 ground-truth videos at 256x256 in the same run, 0 of 36,000 small videos
(32-128 px) with one square. Ground-truth videos always show objects, so they are of the second
kind. Fresh processes (any PYTHONHASHSEED, MALLOC_PERTURB_, one or all CPUs) and x264's C, SSE2,
AVX, AVX2 and AVX-512 code paths always gave the same bytes, flat or not. The own encoder
(objsub) has no such exception to find: its decisions are integer arithmetic only.
"""
from __future__ import annotations

import collections
import sys
import threading
import time
import zlib

import numpy as np

from objsub_fast.ground_truth.video import ENCODERS, encode_video


def cases() -> dict:
    """(encoder, name) -> frames: one flat video, and one with a square appearing."""
    flat = np.zeros((3, 32, 32, 3), np.uint8)
    square = np.zeros((8, 64, 64, 3), np.uint8)
    square[4:, 16:32, 16:32] = (200, 30, 30)
    return {(encoder, name): frames for encoder in ENCODERS
            for name, frames in (("flat 32x32 black", flat), ("64x64 with a square", square))}


def main(seconds: float = 60.0, threads: int = 2) -> int:
    stop = threading.Event()
    data = np.random.default_rng(0).integers(0, 4, 2_000_000, dtype=np.uint8).tobytes()

    def busy():
        while not stop.is_set():
            zlib.compress(data)

    workers = [threading.Thread(target=busy) for _ in range(threads)]
    for w in workers:
        w.start()
    videos = cases()
    reference = {key: encode_video(frames, encoder=key[0]) for key, frames in videos.items()}
    runs, differ = collections.Counter(), collections.Counter()
    end = time.perf_counter() + seconds
    try:
        while time.perf_counter() < end:
            for key, frames in videos.items():
                runs[key] += 1
                differ[key] += encode_video(frames, encoder=key[0]) != reference[key]
    finally:
        stop.set()
        for w in workers:
            w.join()
    for encoder, name in videos:
        print(f"{encoder}, {name}: {differ[encoder, name]} of {runs[encoder, name]} encodes "
              "wrote other bytes")
    content = [key for key in videos if key[0] == "objsub" or key[1] != "flat 32x32 black"]
    return 0 if not any(differ[key] for key in content) else 1


if __name__ == "__main__":
    sys.exit(main(*(float(a) for a in sys.argv[1:2]), *(int(a) for a in sys.argv[2:3])))
