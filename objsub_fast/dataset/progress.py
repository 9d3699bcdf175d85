"""Progress of a run (``generate`` or ``verify``): a tqdm bar on a terminal, lines otherwise."""
from __future__ import annotations

import sys
import time

__all__ = ["Progress"]


class Progress:
    """tqdm bar (tasks/s, ETA) on a terminal; one plain line per finished shard otherwise."""

    def __init__(self, total: int, done: int, stream=None, quiet: bool = False):
        self.stream = stream or sys.stderr
        self.total, self.done, self.quiet = total, done, quiet
        self.t0, self.start_done = time.perf_counter(), done
        self.bar = None
        if not quiet and self.stream.isatty():
            from tqdm import tqdm
            self.bar = tqdm(total=total, initial=done, unit="task", unit_scale=True,
                            dynamic_ncols=True, file=self.stream, smoothing=0.1)

    def update(self, n: int) -> None:
        """Count ``n`` more finished tasks."""
        self.done += n
        if self.bar is not None:
            self.bar.update(n)
        elif not self.quiet:
            dt = time.perf_counter() - self.t0
            rate = (self.done - self.start_done) / dt if dt > 0 else 0.0
            eta = (self.total - self.done) / rate if rate > 0 else float("nan")
            print(f"objsub-fast: {self.done}/{self.total} tasks "
                  f"({100 * self.done / self.total:.1f}%) {rate:.0f} tasks/s ETA {eta:.0f}s",
                  file=self.stream, flush=True)

    def close(self) -> None:
        """Close the bar."""
        if self.bar is not None:
            self.bar.close()
