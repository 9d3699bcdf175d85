"""Progress of a run (``generate`` or ``verify``): a tqdm bar on a terminal, lines otherwise."""
from __future__ import annotations

import sys
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


def _compile_listener(on_first):
    """A Numba event listener calling ``on_first()`` when Numba first starts compiling a kernel
    (a cache miss: a kernel loaded from Numba's on-disk cache is no compile event)."""
    from numba.core.event import Listener

    class FirstCompile(Listener):
        def on_start(self, event):
            on_first()

        def on_end(self, event):
            pass

    return FirstCompile()


@contextmanager
def compile_notice(stream=None, quiet: bool = False):
    """Say "compiling the kernels this command needs" when Numba starts compiling a kernel in
    the block (the first time a command needs a kernel on a machine, or after an update of the
    package: otherwise every kernel comes from the on-disk cache and nothing is said), and how
    long it took once it ends.

    Examples
    --------
    >>> import io
    >>> stream = io.StringIO()
    >>> with compile_notice(stream):
    ...     pass
    >>> stream.getvalue()
    ''
    """
    stream = stream or sys.stderr
    started = []

    def first():
        if not started:
            started.append(time.perf_counter())
            print("objsub-fast: compiling the kernels this command needs (once per install and "
                  "update; 'objsub-fast warm-up' compiles them all at once)...", file=stream,
                  flush=True)

    if quiet:
        yield
        return
    from numba.core.event import install_listener

    with install_listener("numba:compile", _compile_listener(first)):
        yield
    if started:
        print(f"objsub-fast: kernels ready in {time.perf_counter() - started[0]:.0f} s",
              file=stream, flush=True)


#: Seconds of finished work (after the first finished tasks) before a plain progress line
#: shows a rate and an ETA: the first tasks of a run say little about the rest.
RATE_AFTER_S = 3.0


class Progress:
    """tqdm bar (tasks/s, ETA) on a terminal; one plain line per finished shard otherwise
    (with a rate and an ETA once they are meaningful, see ``RATE_AFTER_S``).

    The clock starts when the progress is created: create it after the kernels are compiled,
    so that compile time never counts in the rate or the ETA.
    """

    def __init__(self, total: int, done: int, stream=None, quiet: bool = False):
        self.stream = stream or sys.stderr
        self.total, self.done, self.quiet = total, done, quiet
        self.t0, self.start_done = time.perf_counter(), done
        self.first = None  # (time, tasks done) at the first update: where the rate starts
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
            self.note(f"{self.done}/{self.total} tasks ({100 * self.done / self.total:.1f}%)"
                      + self._rate_and_eta())

    def _rate_and_eta(self) -> str:
        """" 12 tasks/s ETA 30s" once they mean something, else "". The rate is measured from
        the first finished tasks on (the time workers take to start is not a rate) over at
        least ``RATE_AFTER_S`` seconds; the last line gives the run's own rate."""
        now = time.perf_counter()
        if self.done >= self.total:
            dt = now - self.t0
            return f" {format_rate(self.written / dt)} tasks/s" if dt > 0 else ""
        if self.first is None:
            self.first = (now, self.done)
            return ""
        dt, tasks = now - self.first[0], self.done - self.first[1]
        if dt < RATE_AFTER_S or tasks <= 0:
            return ""
        rate = tasks / dt
        return f" {format_rate(rate)} tasks/s ETA {(self.total - self.done) / rate:.0f}s"

    def close(self) -> None:
        """Close the bar."""
        if self.bar is not None:
            self.bar.close()
