"""Limits on the work one model output may cost the scorer.

A scoring server reads files that outside teams submit: a small file can claim 100,000 frames or
16000x16000 pixels. Every output is read under a :class:`Limits`; an output over one is that
output's error record naming the limit and the flag that sets it, and the run goes on with the
rest. The defaults are far above what a real model's video holds (seconds of video, at most
1080p or 4K) and far below what would exhaust a server.

Examples
--------
>>> budget = Budget(Limits(frames=2))
>>> budget.frame(64, 64, 64 * 64 * 3)
>>> budget.frame(64, 64, 64 * 64 * 3)
>>> budget.frame(64, 64, 64 * 64 * 3)
Traceback (most recent call last):
...
objsub_fast.scoring.reading.limits.LimitError: over the limit of 2 frames an output (--max-frames)
"""
from __future__ import annotations

import time
from dataclasses import dataclass

from ...runtime.errors import VideoError

__all__ = ["Limits", "Budget", "LimitError", "MAX_RECORD_BYTES", "read_capped", "compile_seconds"]

#: A task record file is read only up to this size (a generator's record is a few kB).
MAX_RECORD_BYTES = 1 << 20


class LimitError(VideoError):
    """An output over one of the scorer's :class:`Limits`; the message names the limit."""


@dataclass(frozen=True)
class Limits:
    """What one output may cost; ``None`` for no limit.

    Attributes
    ----------
    frames : int
        Frames read (a video, a frames folder). Default 2,000: 80 s at 25 fps.
    pixels : int
        Pixels of one frame. Default 4096 x 4096 (a 4K frame is half of it).
    decoded_bytes : int
        Bytes of decoded pictures over the whole output. Default 8 GiB (300 frames of 4K
        yuv420p are 3.7 GiB).
    seconds : float
        Seconds of scoring (reading, registering, tracking). Default 300: a 1080p video of
        300 frames scores in about 10 s on one core.
    """

    frames: int | None = 2000
    pixels: int | None = 4096 * 4096
    decoded_bytes: int | None = 8 << 30
    seconds: float | None = 300.0

    #: Command-line flag of each limit (what an error names).
    FLAGS = {"frames": "--max-frames", "pixels": "--max-frame-pixels",
             "decoded_bytes": "--max-decoded-mb", "seconds": "--max-seconds"}

    def check(self) -> "Limits":
        """Return self; raise ValueError naming the flag when a limit is not positive."""
        for name, flag in self.FLAGS.items():
            value = getattr(self, name)
            if value is not None and not value > 0:
                raise ValueError(f"{flag} must be > 0; got {value}")
        return self


NO_LIMITS = Limits(None, None, None, None)


def _compile_clock():
    """A :class:`_CompileClock` registered for Numba's compile events."""
    from numba.core import event

    class Clock(_CompileClock, event.Listener):
        pass

    clock = Clock()
    event.register("numba:compile", clock)
    return clock


class _CompileClock:
    """Seconds this process has spent compiling kernels (Numba's ``numba:compile`` events,
    outermost ones only): a kernel compiled on its first use in a fresh process is not the
    output's cost, and a first run must not fail an output for it."""

    def __init__(self):
        self.depth, self.started, self.total = 0, 0.0, 0.0

    def on_start(self, event) -> None:
        if self.depth == 0:
            self.started = time.monotonic()
        self.depth += 1

    def on_end(self, event) -> None:
        self.depth -= 1
        if self.depth == 0:
            self.total += time.monotonic() - self.started

    def seconds(self) -> float:
        """Compile seconds so far (a compile under way counts up to now)."""
        running = time.monotonic() - self.started if self.depth else 0.0
        return self.total + running


_COMPILING: _CompileClock | None = None


def compile_seconds() -> float:
    """Seconds this process has spent compiling Numba kernels since the first call."""
    global _COMPILING
    if _COMPILING is None:
        _COMPILING = _compile_clock()
    return _COMPILING.seconds()


class Budget:
    """What one output has cost so far, against its :class:`Limits`.

    Parameters
    ----------
    limits : Limits
    clock : callable
        Seconds, monotonic (``time.monotonic``); the budget starts when it is made. With the
        default clock, time this process spends compiling kernels is not counted.
    """

    def __init__(self, limits: Limits | None = None, clock=None):
        self.limits = limits or Limits()
        self.frames = 0
        self.decoded_bytes = 0
        self._clock = clock or (lambda: time.monotonic() - compile_seconds())
        self._start = self._clock()

    def _over(self, name: str, what: str) -> LimitError:
        return LimitError(f"over the limit of {what} ({Limits.FLAGS[name]})")

    def size(self, width: int, height: int) -> None:
        """Raise :class:`LimitError` when a frame of ``width`` x ``height`` is too large (checked
        before it is decoded where the container says its size)."""
        cap = self.limits.pixels
        if cap is not None and int(width) * int(height) > cap:
            raise self._over("pixels", f"{cap:,} pixels a frame: {width}x{height}")

    def frame(self, width: int, height: int, nbytes: int) -> None:
        """Count one frame of ``nbytes`` decoded bytes; raise :class:`LimitError` over a limit."""
        self.size(width, height)
        self.frames += 1
        self.decoded_bytes += int(nbytes)
        lim = self.limits
        if lim.frames is not None and self.frames > lim.frames:
            raise self._over("frames", f"{lim.frames:,} frames an output")
        if lim.decoded_bytes is not None and self.decoded_bytes > lim.decoded_bytes:
            raise self._over("decoded_bytes",
                             f"{lim.decoded_bytes / 2**20:,.0f} MB of decoded pictures")
        self.time()

    def count(self, frames: int) -> None:
        """Raise :class:`LimitError` when an output holds more than the frame limit (a frames
        folder, counted before any is read)."""
        if self.limits.frames is not None and frames > self.limits.frames:
            raise self._over("frames", f"{self.limits.frames:,} frames an output: {frames:,}")

    def time(self) -> None:
        """Raise :class:`LimitError` when the output has taken longer than its seconds."""
        cap = self.limits.seconds
        if cap is not None and self._clock() - self._start > cap:
            raise self._over("seconds", f"{cap:g} s of scoring an output")


def read_capped(path, cap: int = MAX_RECORD_BYTES, follow: bool = True) -> bytes:
    """The bytes of the regular file ``path``, at most ``cap`` of them; ValueError when it is
    larger or not a regular file, or (without ``follow``) a symbolic link.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "r.json"
    >>> _ = p.write_text("{}" + " " * 100)
    >>> read_capped(p, 200)[:2]
    b'{}'
    >>> read_capped(p, 10)
    Traceback (most recent call last):
    ...
    ValueError: r.json is larger than 10 bytes (the limit of a task record file)
    """
    import os
    import stat

    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
    if not follow:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise ValueError(f"{os.path.basename(path)}: {exc.strerror}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ValueError(f"{os.path.basename(path)} is not a regular file")
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(cap + 1)
    finally:
        os.close(fd)
    if len(data) > cap:
        raise ValueError(f"{os.path.basename(path)} is larger than {cap:,} bytes (the limit "
                         "of a task record file)")
    return data
