"""``generate``: a dataset written shard by shard over joblib workers (loky or Dask).

``generate(config, out, ...)`` is the one entry point used by the CLI, ``scripts/
generate_million.py`` and ``objsub_fast.create_dataset``. Shards are independent jobs; each
worker renders its shard chunk by chunk with the core engine, encodes the chunk's samples
(``dataset.members``) and streams them into the format's shard writer, so a worker never holds
more than one chunk of frames. Finished shards are recorded in the output folder
(``dataset.output``) so that a killed run resumes where it stopped; the output is identical to
an uninterrupted run whatever the worker count, backend or chunk size.
"""
from __future__ import annotations

import errno
import json
from pathlib import Path

from .dataset.config import RunConfig
from .dataset.formats import get_format
from .dataset.manifest import MANIFEST
from .dataset.members import encode_samples
from .dataset.output import finish_run, prepare_output, record_shard
from .dataset.parallel import BACKENDS, run_jobs, worker_count
from .dataset.plan import shard_batches
from .dataset.progress import Progress
from .errors import ParameterError, UsageError
from .shards import Shard, plan_shards

__all__ = ["RunConfig", "generate", "run_shard", "GenerationError"]


class GenerationError(OSError):
    """A file-system error while shards were being written (disk full, I/O error, ...): every
    complete shard is kept, and rerunning the same command resumes."""


def run_shard(config: RunConfig, out: str, shard: Shard, chunk_size: int | None) -> dict:
    """Generate, encode and write one shard; record it as done; return its manifest entry."""
    fmt = get_format(config.format)
    with fmt.ShardWriter(Path(out), shard, config) as writer:
        for start, batch in shard_batches(config, shard, chunk_size):
            writer.write_samples(encode_samples(batch, start, config, fmt))
        entry = writer.finish()
    record_shard(out, entry)
    return entry


def _resumable(e: OSError) -> GenerationError:
    where = f" ({e.filename})" if e.filename else ""
    hint = ("free some space, then rerun the same command to resume" if e.errno == errno.ENOSPC
            else "complete shards are kept; rerun the same command to resume")
    return GenerationError(e.errno, f"{e.strerror or e}{where}; {hint}")


def generate(config: RunConfig, out, *, workers: int | None = None, backend: str = "loky",
             scheduler: str | None = None, chunk_size: int | None = None,
             overwrite: bool = False, quiet: bool = False, stream=None) -> dict:
    """Generate (or resume) a dataset in ``out``; return the manifest as a dict.

    Parameters
    ----------
    config : RunConfig
        What to generate; recorded in ``manifest.json``.
    out : path-like
        Output folder (created; must be shared by all workers for the Dask backend).
    workers : int, optional
        Parallel shard jobs (default: all cores usable by this process, as joblib counts
        them; at most one per shard). Never changes the output.
    backend : {"loky", "dask"}
        joblib backend; "dask" runs on ``scheduler`` (a dask.distributed address) or, without
        one, on a local cluster of ``workers`` processes.
    chunk_size : int, optional
        Tasks rendered per engine call inside a worker (default: ``dataset.plan.
        auto_chunk_size``); bounds worker memory, never changes the output.
    overwrite : bool
        Replace a dataset of a different configuration in ``out``.

    Raises
    ------
    UsageError
        A bad parameter (``ParameterError``) or an unusable output folder (``OutputError``);
        nothing is written.
    GenerationError
        A file-system error while writing shards; rerunning resumes.
    """
    import joblib

    config.validate()
    if backend not in BACKENDS:
        raise ParameterError(f"--backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if scheduler and backend != "dask":
        raise UsageError("--scheduler needs --backend dask")
    worker_count(workers)
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size < 1):
        raise ParameterError(f"--chunk-size must be an integer >= 1, got {chunk_size!r}")
    out = Path(out).absolute()
    done = prepare_output(config, out, overwrite)
    plan = plan_shards(config.count, config.shard_size)
    todo = [s for s in plan if s.index not in done]
    progress = Progress(config.count, sum(s.count for s in plan if s.index in done),
                        stream=stream, quiet=quiet)
    jobs = [joblib.delayed(run_shard)(config, str(out), s, chunk_size) for s in todo]
    try:
        for entry in run_jobs(jobs, worker_count(workers, len(todo)), backend, scheduler):
            done[entry["shard"]] = entry
            progress.update(entry["count"])
        finish_run(config, out, [done[s.index] for s in plan])
    except GenerationError:
        raise
    except OSError as e:
        raise _resumable(e) from e
    finally:
        progress.close()
    return json.loads((out / MANIFEST).read_text())
