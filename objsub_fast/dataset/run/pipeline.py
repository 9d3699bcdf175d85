"""``generate``: a dataset written shard by shard over joblib workers (loky or Dask).

``generate(config, out, ...)`` is the one entry point used by the CLI, ``scripts/
generate_million.py`` and ``objsub_fast.create_dataset``. Shards are independent jobs; each
worker renders its shard chunk by chunk with the core engine, encodes the chunk's samples
(``dataset.content.members``) and streams them into the format's shard writer, so a worker
never holds more than one chunk of frames. Finished shards are recorded in the output folder
(``dataset.run.output``) so that a killed run resumes where it stopped; the output is
identical to an uninterrupted run whatever the worker count, backend or chunk size.
"""
from __future__ import annotations

import errno
import os
import gc
from contextlib import contextmanager
from pathlib import Path

from ...runtime.jsonfile import loads as loads_json
from ...runtime.atomic import final_path
from ...runtime.errors import ParameterError, UsageError
from ...runtime.scheduler import DEFAULT_TIMEOUT, check_scheduler, check_timeout, scheduler_address
from .run_config import RunConfig
from ..formats import get_format
from ..content.manifest import MANIFEST
from ..content.members import encode_samples
from .output import finish_run, prepare_output, read_output, record_shard
from ...runtime.parallel import BACKENDS, default_workers, run_jobs, worker_count
from ..content.plan import check_chunk_size, shard_batches
from ...runtime.progress import Progress, compile_notice
from .sample import check_free_space, format_bytes, needed_bytes, sample_run
from ..content.shards import Shard, num_shards, shard_at

__all__ = ["RunConfig", "generate", "run_shard", "GenerationError"]


class GenerationError(OSError):
    """A file-system error while shards were being written (disk full, I/O error, ...): every
    complete shard is kept, and rerunning the same command resumes."""


def run_shard(config: RunConfig, out: str, shard: Shard, chunk_size: int | None) -> dict:
    """Generate, encode and write one shard; record it as done; return its manifest entry."""
    fmt = get_format(config.format)
    with without_cycle_collector(), fmt.writer(Path(out), shard, config) as writer:
        for start, batch in shard_batches(config, shard, chunk_size):
            writer.write_samples(encode_samples(batch, start, config, fmt))
        entry = writer.finish()
    record_shard(out, entry)
    return entry


@contextmanager
def without_cycle_collector():
    """Python's cyclic garbage collector paused for the block (as it was after it).

    A shard makes millions of short-lived, acyclic objects (task records, their lists and
    dicts), which reference counting frees; each few hundred thousand of them the collector
    would also walk every object of the process (Numba's and NumPy's included), about 4 % of a
    shard's time, and find nothing to free.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


#: What to do about a file-system error while writing, by errno (complete shards are kept).
_REMEDY = {errno.EACCES: "fix the permissions of that path",
           errno.EPERM: "fix the permissions of that path",
           errno.EROFS: "make that file system writable"}


def _out_of_inodes(path) -> bool:
    """Whether the file system holding ``path`` (or its nearest existing folder) has no free
    inodes left (an ext4 disk full of small files says ENOSPC with bytes to spare)."""
    path = os.path.abspath(final_path(str(path)))
    while not os.path.exists(path) and os.path.dirname(path) != path:
        path = os.path.dirname(path)
    try:
        found = os.statvfs(path)
    except OSError:
        return False
    return found.f_files > 0 and found.f_favail == 0


def _resumable(e: OSError, out, need: int, tasks: int) -> GenerationError:
    where = f" ({final_path(e.filename) if e.filename else out})"
    if e.errno == errno.ENOSPC and _out_of_inodes(e.filename or out):
        hint = ("that file system has no free inodes (file entries) left, though it may have "
                "free bytes; delete files there, then rerun the same command to resume")
    elif e.errno in (errno.ENOSPC, errno.EDQUOT):
        hint = (f"the {tasks:,} tasks not yet written need about {format_bytes(need)} more; "
                "free some space, then rerun the same command to resume")
    else:
        hint = (f"{_REMEDY.get(e.errno, 'fix the cause')}, then rerun the same command to resume "
                "(complete shards are kept)")
    return GenerationError(e.errno, f"{e.strerror or e}{where}; {hint}")


def _check_run_options(config, workers, backend, scheduler, scheduler_timeout, chunk_size):
    """Every option of a run checked, before anything is computed or written."""
    config.validate()
    if backend not in BACKENDS:
        raise ParameterError(f"--backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if scheduler and backend != "dask":
        raise UsageError("--scheduler needs --backend dask")
    check_timeout(scheduler_timeout)
    worker_count(workers)
    check_chunk_size(chunk_size, config.canvas_size, config.masks)


def _todo(config, done: dict):
    """The shards still to write, one at a time (never a list of every shard)."""
    for k in range(num_shards(config.count, config.shard_size)):
        if k not in done:
            yield shard_at(k, config.count, config.shard_size)


def generate(config: RunConfig, out, *, workers: int | None = None, backend: str = "loky",
             scheduler: str | None = None, scheduler_timeout: float = DEFAULT_TIMEOUT,
             chunk_size: int | None = None, overwrite: bool = False, space_check: bool = True,
             quiet: bool = False, stream=None, storage_options: dict | None = None,
             take_over_lease: bool = False) -> dict:
    """Generate (or resume, or extend) a dataset in ``out``; return the manifest as a dict.

    Everything is checked before anything is written: the options, the engine parameters (the
    run's first tasks are generated and encoded in memory, which also compiles the kernels and
    measures a task's size on disk), what ``out`` holds, the free space and the scheduler.
    Then the output folder is locked for the whole run (``objsub_fast.runtime.lock``): a second run
    into the same folder is refused and told which run holds it.

    Parameters
    ----------
    config : RunConfig
        What to generate; recorded in ``manifest.json``.
    out : path-like or URL
        Output folder (created; must be shared by all workers for the Dask backend), or an
        object-store URL (``s3://bucket/prefix``, ``gs://``, ``az://``, ``memory://``; see
        ``objsub_fast.storage``) that the workers write to directly.
    workers : int, optional
        Parallel shard jobs (default: all cores usable by this process, as joblib counts
        them, or 1 when starting a pool would cost more than it saves, as for the default
        1,000 tasks: ``runtime.parallel.default_workers``; at most one per shard left to
        write, said in one line when capped). Never changes the output.
    backend : {"loky", "dask"}
        joblib backend; "dask" runs on ``scheduler`` (a dask.distributed address) or, without
        one, on a local cluster of ``workers`` processes.
    scheduler_timeout : float
        Seconds allowed for the first contact with ``scheduler`` (default 30).
    chunk_size : int, optional
        Tasks rendered per engine call inside a worker (default: ``dataset.content.plan.
        auto_chunk_size``; at most ``dataset.content.plan.max_chunk_size``, 1 GiB of frames); bounds
        worker memory, never changes the output.
    overwrite : bool
        Replace a dataset of a different configuration in ``out``.
    space_check : bool
        Refuse a run whose estimated size exceeds the free space (default True; a store has
        no free space to check).
    storage_options : dict, optional
        fsspec options of a store URL (credentials and endpoints otherwise come from the
        store's standard configuration, e.g. the ``AWS_*`` environment variables).
    take_over_lease : bool
        Take over the lease of a store prefix held by a dead run on another machine.

    Returns
    -------
    dict
        The manifest, plus ``"tasks_written"``: tasks this call generated (0 when the dataset
        was already complete).

    Raises
    ------
    UsageError
        A bad parameter (``ParameterError``), an unusable or busy output folder
        (``OutputError``, ``FolderLocked``, a store's ``StoreLeased``), too little space, an
        unreachable scheduler, or a store URL whose backend is not installed;
        nothing is written.
    GenerationError
        A file-system error while writing shards; rerunning resumes.
    """
    from .target import open_target

    _check_run_options(config, workers, backend, scheduler, scheduler_timeout, chunk_size)
    target = open_target(out, storage_options, take_over_lease)
    try:
        with target.naming_errors():
            return _generate(config, target, workers, backend, scheduler, scheduler_timeout,
                             chunk_size, overwrite, space_check, quiet, stream)
    finally:
        target.close()


def _generate(config, target, workers, backend, scheduler, scheduler_timeout, chunk_size,
              overwrite, space_check, quiet, stream) -> dict:
    """``generate`` into a target (``objsub_fast.dataset.run.target``)."""
    target.pull()
    # refuses an unusable folder before the rest
    state = read_output(config, target.view, overwrite)
    with compile_notice(stream, quiet):
        sample = sample_run(config, target.view)
    if space_check and not target.is_store:
        check_free_space(sample, config.count - state.done_tasks, target.view)
    if scheduler:
        scheduler = scheduler_address(scheduler)
        check_scheduler(scheduler, scheduler_timeout)
    target.create()
    with target.lock():
        return _run(config, target, sample, workers, backend, scheduler, chunk_size,
                    overwrite, quiet, stream)


def _run(config, target, sample, workers, backend, scheduler, chunk_size, overwrite, quiet,
         stream) -> dict:
    """The run itself, holding the output's lock (see ``generate``)."""
    target.pull()  # again, now that no other run can change it
    out = target.view
    state = read_output(config, out, overwrite)
    prepare_output(config, out, state)
    target.push()
    done = dict(state.done)
    shards_left = num_shards(config.count, config.shard_size) - len(done)
    n_workers = worker_count(workers, shards_left)
    if workers is None and backend == "loky":  # a pool that would cost more than it saves
        n_workers = min(n_workers, default_workers(config.count - state.done_tasks,
                                                   sample.seconds_per_task))
    if target.in_process:  # memory:// is this process's memory: no other process sees it
        n_workers, backend, scheduler = 1, "loky", None
    progress = Progress(config.count, state.done_tasks, stream=stream, quiet=quiet)
    if workers is not None and workers > n_workers and shards_left and not scheduler:
        progress.note(f"--workers {workers} capped at {n_workers}: one worker per shard, "
                      f"{shards_left} shard(s) to write")
    jobs = target.write_jobs(run_shard, config, _todo(config, state.done), chunk_size)
    try:
        for entry in run_jobs(jobs, n_workers, backend, scheduler):
            done[entry["shard"]] = entry
            progress.update(entry["count"])
        target.pull_progress()
        finish_run(config, out, [done[k] for k in range(num_shards(config.count,
                                                                   config.shard_size))])
        target.push(deletions_first=False)
    except GenerationError:
        raise
    except OSError as e:
        left = config.count - progress.done
        raise _resumable(e, target.name, needed_bytes(sample, left), left) from e
    finally:
        progress.close()
    manifest = loads_json((out / MANIFEST).read_text())
    manifest["tasks_written"] = progress.written
    return manifest
