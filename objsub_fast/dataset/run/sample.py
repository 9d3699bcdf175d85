"""A run's first tasks, generated and encoded in memory before anything is written.

``sample_run(config)`` pushes the run's first few tasks through the engine and the encoders
with the run's own parameters. That one call (1) checks every engine parameter as the run will
use it (for every level of the run), (2) compiles, or loads from the on-disk cache, the Numba
kernels in this process, so that a first run can say "compiling kernels" and keep that time out
of its rate, and (3) measures what a task takes on disk in the run's format, from which
``needed_bytes`` estimates the size of a dataset and ``check_free_space`` refuses a run that
cannot fit.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from ...runtime.errors import OutputError
from ..formats import get_format
from ..content.members import encode_samples
from ..content.plan import auto_chunk_size, shard_batches
from ..content.shards import Shard, task_levels

__all__ = ["SAMPLE_TASKS", "SAMPLE_PIXELS", "SPACE_MARGIN", "RunSample", "sample_run",
           "sample_tasks", "needed_bytes", "free_bytes", "format_bytes", "check_free_space"]

#: Tasks encoded to estimate the size of one task (fewer when a chunk holds fewer).
SAMPLE_TASKS = 8
#: Canvas pixels the sample draws at most (8 tasks at 256x256), but at least one task of each
#: of the run's levels: the sample runs before the workers start, so at 1024x1024 with videos
#: 8 tasks were 0.5 s of one core, a tenth of an 80-task run on two workers.
SAMPLE_PIXELS = SAMPLE_TASKS * 256 * 256
#: Head room on the estimate (PNG sizes vary from task to task).
SPACE_MARGIN = 1.10


@dataclass(frozen=True)
class RunSample:
    """What the sample measured: tasks encoded and the disk bytes they take (a file system
    block of ``block_size`` bytes as the unit of allocation for folder formats)."""

    tasks: int
    stored_bytes: int
    block_size: int
    seconds_per_task: float = 0.0  # render + encode of one task, kernels compiled

    @property
    def bytes_per_task(self) -> float:
        """Mean disk bytes of one task."""
        return self.stored_bytes / self.tasks


def _block_size(out: Path) -> int:
    try:
        return os.statvfs(_existing(out)).f_frsize or 4096
    except OSError:
        return 4096


def _existing(path: Path) -> Path:
    """``path`` or its nearest existing ancestor."""
    path = Path(path).absolute()
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def sample_run(config, out) -> RunSample:
    """Generate and encode the first tasks of the run ``config`` in memory (see module doc).

    Raises ParameterError (ValueError) if the engine refuses the run's parameters.

    Examples
    --------
    >>> from objsub_fast.dataset.run.run_config import RunConfig
    >>> sample = sample_run(RunConfig(count=2), "unused")
    >>> sample.tasks, 2000 < sample.bytes_per_task < 20000
    (2, True)
    """
    from ...engine import generate_batch

    fmt = get_format(config.format)
    every_level = min(config.count, len(config.levels))
    generate_batch(config.seeds(0, every_level), render=False,
                   level=task_levels(config.levels, 0, every_level),
                   canvas_size=config.canvas_size, masks=config.masks,
                   **config.engine_options())
    n = sample_tasks(config)
    # the workers' own call (frames drawn into reused buffers), so its kernels get compiled
    (_, batch), = shard_batches(config, Shard(0, 0, n), n)
    samples = encode_samples(batch, 0, config, fmt)
    block = _block_size(Path(out))
    stored = fmt.stored_bytes
    per_task = _cpu_seconds(config, fmt, 1)
    if per_task < 0.01:  # cheap tasks: time a chunk, as workers run them
        per_task = _cpu_seconds(config, fmt, n) / n
    return RunSample(n, stored(samples, block), block, per_task)


def sample_tasks(config) -> int:
    """How many tasks :func:`sample_run` encodes: :data:`SAMPLE_TASKS`, fewer on large
    canvases (:data:`SAMPLE_PIXELS`) but one of each level and two at least, and never more
    than the run or one chunk holds.

    Examples
    --------
    >>> from objsub_fast.dataset.run.run_config import RunConfig
    >>> sample_tasks(RunConfig(count=100)), sample_tasks(RunConfig(100, canvas_size=(1024, 1024)))
    (8, 4)
    """
    width, height = config.canvas_size
    by_area = max(len(config.levels), 2, SAMPLE_PIXELS // (width * height))
    return min(config.count, SAMPLE_TASKS, by_area, auto_chunk_size(config.canvas_size))


def _cpu_seconds(config, fmt, n: int) -> float:
    """CPU seconds to render and encode the run's first ``n`` tasks, kernels compiled (CPU
    time: other processes on the machine must not make a pool look worth starting)."""
    t0 = time.process_time()
    (_, batch), = shard_batches(config, Shard(0, 0, n), n)
    encode_samples(batch, 0, config, fmt)
    return time.process_time() - t0


def needed_bytes(sample: RunSample, tasks: int) -> int:
    """Estimated disk bytes of ``tasks`` more tasks, with ``SPACE_MARGIN`` head room."""
    return int(sample.bytes_per_task * tasks * SPACE_MARGIN)


def free_bytes(out) -> int:
    """Bytes free for this user on the file system that holds (or will hold) ``out``."""
    st = os.statvfs(_existing(Path(out)))
    return st.f_bavail * st.f_frsize


def format_bytes(n: float) -> str:
    """Bytes for people (decimal units).

    Examples
    --------
    >>> format_bytes(8_470_000_000), format_bytes(125_000), format_bytes(512)
    ('8.47 GB', '125 kB', '512 B')
    """
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n:.0f} B"


def check_free_space(sample: RunSample, tasks: int, out) -> None:
    """Raise OutputError if ``tasks`` more tasks (estimated from ``sample``) do not fit in the
    free space of ``out``'s file system; the message names both numbers."""
    need, free = needed_bytes(sample, tasks), free_bytes(out)
    if need > free:
        raise OutputError(
            f"not enough free space for {str(out)!r}: {tasks:,} tasks need about "
            f"{format_bytes(need)} ({sample.bytes_per_task:,.0f} bytes per task on disk, "
            f"estimated from {sample.tasks} sample tasks, +{SPACE_MARGIN - 1:.0%}) but "
            f"{format_bytes(free)} is free there; free some space, choose another --out, or "
            "pass --no-space-check")
