"""Worker count and backend: one meaning of ``--workers`` for generate, verify and score.

``--workers`` is the number of parallel worker processes: all cores usable by this process
(as joblib counts them) by default, otherwise an integer >= 1; never more than there are jobs.
It never changes the output.

A local (loky) worker stops within ``ORPHAN_CHECK_S`` seconds of its parent's death (a
``kill -9`` of ``generate``): it would otherwise keep writing shards for minutes, for no one.
"""
from __future__ import annotations

import os
import threading
import time

from .errors import ParameterError, UsageError

__all__ = ["BACKENDS", "ORPHAN_CHECK_S", "WORKER_START_S", "worker_count", "default_workers",
           "run_jobs"]

BACKENDS = ("loky", "dask")
#: Wall seconds a pool of local workers takes to start (each imports the package and loads its
#: compiled kernels; measured 3.4 s for 1,000 tasks on 1 worker, 7.1 s on 2 on a 2-core machine).
WORKER_START_S = 4.0
#: How often a local worker checks that the process that started it is still alive.
ORPHAN_CHECK_S = 0.5
_watching = threading.Lock()
_watched_parent = None


def _exit_when_orphaned(parent: int) -> None:
    """In a worker: exit at once (as a kill would) once ``parent`` is no longer its parent."""
    while os.getppid() == parent:
        time.sleep(ORPHAN_CHECK_S)
    os._exit(1)


def _in_guarded_worker(parent: int, fn, args, kwargs):
    """Run one job in a local worker, watching (from the first job on) that ``parent`` lives."""
    global _watched_parent
    with _watching:
        if _watched_parent != parent:
            _watched_parent = parent
            threading.Thread(target=_exit_when_orphaned, args=(parent,), daemon=True,
                             name="objsub-orphan-check").start()
    return fn(*args, **kwargs)


def worker_count(workers: int | None, jobs: int | None = None) -> int:
    """``workers`` checked (an integer >= 1; all cores when None), capped at ``jobs``.

    Examples
    --------
    >>> worker_count(8, jobs=3), worker_count(1, jobs=0)
    (3, 1)
    """
    import joblib

    workers = joblib.cpu_count() if workers is None else workers
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        raise ParameterError(f"--workers must be an integer >= 1, got {workers!r}")
    return workers if jobs is None else max(1, min(workers, jobs))


def default_workers(tasks: int, seconds_per_task: float, cores: int | None = None) -> int:
    """Workers for a run of ``tasks`` when ``--workers`` is not given: all ``cores``, unless
    starting them costs more than they save (``WORKER_START_S``), then 1 (no pool at all).

    Examples
    --------
    >>> default_workers(1000, 0.0005, cores=2), default_workers(100_000, 0.0005, cores=2)
    (1, 2)
    """
    import joblib

    cores = joblib.cpu_count() if cores is None else cores
    serial = tasks * seconds_per_task
    return cores if cores > 1 and serial - serial / cores > WORKER_START_S else 1


def run_jobs(jobs, workers: int, backend: str = "loky", scheduler: str | None = None,
             ordered: bool = False):
    """Yield the results of joblib ``jobs`` (``delayed`` calls) on the chosen backend.

    One worker on loky runs the jobs in this process (no pool). ``ordered`` yields results in
    job order, otherwise as they finish. ``backend="dask"`` runs on ``scheduler`` (a
    dask.distributed address) or, without one, on a local cluster of ``workers`` processes.
    """
    import joblib

    if backend not in BACKENDS:
        raise ParameterError(f"--backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    return_as = "generator" if ordered else "generator_unordered"
    if workers == 1 and backend == "loky":
        for fn, args, kwargs in jobs:
            yield fn(*args, **kwargs)
        return
    if backend == "dask":
        try:
            from distributed import Client
        except ImportError as e:
            raise UsageError("--backend dask needs dask.distributed: "
                             "pip install -e '.[dask]' in the objsub-fast checkout") from e
        try:
            client = Client(scheduler, timeout="20s") if scheduler else Client(
                n_workers=workers, threads_per_worker=1, dashboard_address=None)
        except OSError as e:
            raise UsageError(f"cannot connect to Dask scheduler {scheduler!r}: {e}") from e
        with client, joblib.parallel_config(backend="dask"):
            yield from joblib.Parallel(n_jobs=-1, return_as=return_as)(jobs)
        return
    parent = os.getpid()
    guarded = ((_in_guarded_worker, (parent, fn, args, kwargs), {}) for fn, args, kwargs in jobs)
    # One job per dispatch: a job is a whole shard. joblib's automatic batching would hand a
    # worker two or more shards at once when shards take under 0.2 s, leaving the other
    # worker idle at the end of a run.
    yield from joblib.Parallel(n_jobs=workers, backend="loky", return_as=return_as,
                               batch_size=1)(guarded)
