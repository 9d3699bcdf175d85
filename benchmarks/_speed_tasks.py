"""The tasks of the scoring throughput rows (``bench_score.py``, ``bench_score_turns.py``), from
the package's public ``generate_batch`` only: a scorer of an older revision makes the same
records.

Examples
--------
>>> [t["level"] for t in speed_tasks(2, 64, "flat").tasks()]
['L1', 'L2']
"""
from __future__ import annotations

import numpy as np

__all__ = ["speed_tasks"]


def speed_tasks(tasks: int, canvas: int, look: str):
    """The throughput tasks: ``tasks`` of levels L1-L4 in turn (a batch of seeds 0..)."""
    from objsub_fast import generate_batch

    return generate_batch(np.arange(tasks), canvas_size=canvas, look=look,
                          level=(["L1", "L2", "L3", "L4"] * tasks)[:tasks])
