#!/usr/bin/env python
"""Measure the deflate symbol profile of engine frames, which ``objsub_fast.draw.deflate.WEIGHTS``
is rounded from.

    python scripts/deflate_profile.py [--tasks 200]

Counts the literal/length symbols the encoder writes for the first, final and instance-map
PNGs (Up filter) of ``--tasks`` tasks of every level, and prints the most frequent ones in
thousands next to the weights in use and the bytes per PNG the fixed code gives.
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

from objsub_fast.dataset.content.shards import task_levels, task_seeds
from objsub_fast.draw import deflate, png
from objsub_fast.engine import generate_batch

LEVELS = ("L1", "L2", "L3", "L4")


def row_symbols(row: np.ndarray, counts: np.ndarray, length_symbol: dict) -> None:
    """Add the literal/length symbols the encoder writes for one filtered row to ``counts``:
    per run of one byte, the byte, then matches as ``deflate._add_run`` cuts them."""
    starts = np.flatnonzero(np.diff(row, prepend=~row[:1]))
    for start, stop in zip(starts, list(starts[1:]) + [row.size]):
        counts[row[start]] += 1
        rest = int(stop - start - 1)
        cut = deflate._first_match_length
        while rest >= deflate.MIN_MATCH:
            length = cut(rest)
            counts[length_symbol[length][0]] += 1
            rest, cut = rest - length, deflate._match_length
        counts[row[start]] += rest


def symbol_counts(images: np.ndarray, channels: int) -> np.ndarray:
    """Symbols written for every image of ``images`` (Up filter)."""
    n, h, w = images.shape[:3]
    rows = images.reshape(n, h, w * channels)
    filtered = np.empty((h, w * channels + 1), np.uint8)
    counts = np.zeros(286, np.int64)
    length_symbol = deflate._length_tables()
    for i in range(n):
        png._filter_into(rows[i], filtered, png.FILTER_UP, channels)
        for y in range(h):
            row_symbols(filtered[y], counts, length_symbol)
    return counts


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    ap.add_argument("--tasks", type=int, default=200)
    args = ap.parse_args(argv)
    b = generate_batch(task_seeds(0, 0, args.tasks), level=task_levels(LEVELS, 0, args.tasks),
                       masks=True)
    counts = (symbol_counts(b.first_frames, 3) + symbol_counts(b.final_frames, 3)
              + symbol_counts(b.instance_maps, 1))
    print(f"symbols of {3 * args.tasks} PNGs; symbol: count in thousands (weight in use)")
    for s in np.argsort(-counts, kind="stable")[:24]:
        print(f"  {s:3d}: {counts[s] / 1000:7.1f}  ({deflate.WEIGHTS.get(int(s), 1)})")
    sizes = [len(d) for frames in (b.first_frames, b.final_frames, b.instance_maps)
             for d in png.encode_batch(frames)]
    print(f"mean PNG size with the fixed code: {np.mean(sizes):.0f} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
