#!/usr/bin/env python
"""Encode the same small video over and over while other threads keep the CPU busy, and count
the distinct outputs (``python scripts/video_stress.py [seconds] [threads]``).

Observed on the shared 2-core development machine under heavy load (load average 4-6 from other
processes), with two background threads running PNG encoding or ``zlib.compress``: about 1 in
500-20,000 encodes wrote different (valid) bytes; with the machine less loaded, none in 30,000.
Fresh processes (any PYTHONHASHSEED, MALLOC_PERTURB_, one or all CPUs) and x264's C, SSE2, AVX,
AVX2 and AVX-512 code paths always gave the same bytes. Not root-caused yet; this script is the
reproduction.
"""
from __future__ import annotations

import collections
import hashlib
import sys
import threading
import time
import zlib

import numpy as np

from objsub_fast.video import encode_video


def main(seconds: float = 60.0, threads: int = 2) -> int:
    stop = threading.Event()
    data = np.random.default_rng(0).integers(0, 4, 2_000_000, dtype=np.uint8).tobytes()

    def busy():
        while not stop.is_set():
            zlib.compress(data)

    workers = [threading.Thread(target=busy) for _ in range(threads)]
    for w in workers:
        w.start()
    counts = collections.Counter()
    frames = np.zeros((3, 32, 32, 3), np.uint8)
    end = time.perf_counter() + seconds
    try:
        while time.perf_counter() < end:
            counts[hashlib.sha256(encode_video(frames)).hexdigest()[:16]] += 1
    finally:
        stop.set()
        for w in workers:
            w.join()
    print(f"{sum(counts.values())} encodes, {len(counts)} distinct outputs: {dict(counts)}")
    return 0 if len(counts) == 1 else 1


if __name__ == "__main__":
    sys.exit(main(*(float(a) for a in sys.argv[1:2]), *(int(a) for a in sys.argv[2:3])))
