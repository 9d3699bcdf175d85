"""Progress of a run (``generate`` or ``verify``): a tqdm bar on a terminal, lines otherwise."""
from __future__ import annotations

import sys
import threading
import time
from contextlib import contextmanager

__all__ = ["Progress", "format_rate", "compile_notice"]


def format_rate(rate: float) -> str:
    """Tasks per second, with decimals below 10/s (a slow rate never prints as 0).

    Examples
    --------
    >>> format_rate(4170.4), format_rate(0.25), format_rate(3.14159)
    ('4170', '0.25', '3.1')
    """
    if rate >= 10:
        return f"{rate:.0f}"
    return f"{rate:.2g}" if rate < 1 else f"{rate:.1f}"


@contextmanager
def compile_notice(stream=None, quiet: bool = False, after: float = 2.0):
    """Say "compiling kernels (first run only)" if the block is still running ``after`` seconds
    later (Numba compiles on a machine's first run; later runs load the cache in about 1 s),
    and how long it took once it ends."""
    stream = stream or sys.stderr
    t0 = time.perf_counter()
    shown = threading.Event()

    def show():
        shown.set()
        print("objsub-fast: compiling kernels (first run only)...", file=stream, flush=True)

    timer = threading.Timer(after, show)
    if not quiet:
        timer.start()
    try:
        yield
    finally:
        timer.cancel()
        if not quiet:
            timer.join()
        if shown.is_set():
            print(f"objsub-fast: kernels ready in {time.perf_counter() - t0:.0f} s",
                  file=stream, flush=True)


class Progress:
    """tqdm bar (tasks/s, ETA) on a terminal; one plain line per finished shard otherwise.

    The clock starts when the progress is created: create it after the kernels are compiled,
    so that compile time never counts in the rate or the ETA.
    """

    def __init__(self, total: int, done: int, stream=None, quiet: bool = False):
        self.stream = stream or sys.stderr
        self.total, self.done, self.quiet = total, done, quiet
        self.t0, self.start_done = time.perf_counter(), done
        self.bar = None
        if not quiet and self.stream.isatty():
            from tqdm import tqdm
            self.bar = tqdm(total=total, initial=done, unit="task", unit_scale=True,
                            dynamic_ncols=True, file=self.stream, smoothing=0.1)

    @property
    def written(self) -> int:
        """Tasks counted since the progress was created."""
        return self.done - self.start_done

    def note(self, message: str) -> None:
        """One line for the user (not shown with ``quiet``)."""
        if not self.quiet:
            print(f"objsub-fast: {message}", file=self.stream, flush=True)

    def update(self, n: int) -> None:
        """Count ``n`` more finished tasks."""
        self.done += n
        if self.bar is not None:
            self.bar.update(n)
        elif not self.quiet:
            dt = time.perf_counter() - self.t0
            rate = self.written / dt if dt > 0 else 0.0
            eta = f"{(self.total - self.done) / rate:.0f}s" if rate > 0 else "unknown"
            self.note(f"{self.done}/{self.total} tasks ({100 * self.done / self.total:.1f}%) "
                      f"{format_rate(rate)} tasks/s ETA {eta}")

    def close(self) -> None:
        """Close the bar."""
        if self.bar is not None:
            self.bar.close()
