"""The generation pipeline: run configuration, shard jobs over joblib (loky or Dask), progress.

``generate(config, out, ...)`` is the one entry point used by the CLI, ``scripts/
generate_million.py`` and ``objsub_fast.create_dataset``. Shards are independent jobs; each
worker renders its shard chunk by chunk with the core engine and streams it to disk, so a worker
never holds more than one chunk of frames. Finished shards are recorded under
``.objsub-progress/`` so that a killed run resumes where it stopped; the output is identical to
an uninterrupted run whatever the worker count, backend or chunk size.
"""
from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .atomic import atomic_write_bytes, remove_path, remove_stale_tmp
from .shards import MAX_SEED, Shard, chunks, plan_shards, task_levels, task_seeds
from .vocabulary import LEVELS
from .writers import (FORMATS, MANIFEST, VMEVAL_DATASET_FILE, VMEVAL_TASK_DIR, WRITERS,
                      manifest_bytes, vmeval_dataset_parts)

PROGRESS_DIR = ".objsub-progress"
DEFAULT_SHARD_SIZE = 10_000
#: Byte budget of one chunk's frame array (N, H, W, 3): bounds a worker's memory (two such
#: arrays, plus instance maps with masks, reused for every chunk of a shard). At 256x256 that
#: is 160 tasks; 32 or 64 tasks per chunk measured 5-15% slower (per-call overhead).
CHUNK_FRAME_BYTES = 30 * 2**20


def auto_chunk_size(canvas_size) -> int:
    """Tasks per engine call: as many as fit one frame array in ``CHUNK_FRAME_BYTES``."""
    w, h = canvas_size
    return max(1, CHUNK_FRAME_BYTES // (w * h * 3))


BACKENDS = ("loky", "dask")
MAX_CANVAS = 4096
MIN_CANVAS = 64


class ConfigError(ValueError):
    """A user-facing problem with the run's parameters or output folder."""


def worker_count(workers: int | None) -> int:
    """``workers`` checked (an integer >= 1), or all cores when None."""
    import joblib

    workers = joblib.cpu_count() if workers is None else workers
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        raise ConfigError(f"--workers must be an integer >= 1, got {workers!r}")
    return workers


@dataclass(frozen=True)
class RunConfig:
    """Everything that determines the dataset's bytes (and nothing that does not).

    Worker count, backend and chunk size are deliberately absent: they never change the output.
    """

    count: int
    levels: tuple = LEVELS
    seed: int = 0
    format: str = "webdataset"
    shard_size: int = DEFAULT_SHARD_SIZE
    canvas_size: tuple = (256, 256)
    masks: bool = False
    generator_version: str = field(default="")

    def __post_init__(self):
        if not self.generator_version:
            object.__setattr__(self, "generator_version", generator_version())
        object.__setattr__(self, "levels", tuple(self.levels))
        object.__setattr__(self, "canvas_size", tuple(int(v) for v in self.canvas_size))

    def validate(self) -> "RunConfig":
        """Raise ConfigError naming the first bad parameter and its allowed range."""
        checks = (
            (isinstance(self.count, int) and self.count >= 1,
             f"--count must be an integer >= 1, got {self.count!r}"),
            (len(self.levels) >= 1 and all(lv in LEVELS for lv in self.levels)
             and len(set(self.levels)) == len(self.levels),
             f"--levels must be distinct names from {','.join(LEVELS)}, got "
             f"{','.join(map(str, self.levels)) or 'nothing'}"),
            (isinstance(self.seed, int) and 0 <= self.seed <= MAX_SEED,
             f"--seed must be an integer in [0, {MAX_SEED}], got {self.seed!r}"),
            (self.format in FORMATS,
             f"--format must be one of {', '.join(FORMATS)}, got {self.format!r}"),
            (isinstance(self.shard_size, int) and self.shard_size >= 1,
             f"--shard-size must be an integer >= 1, got {self.shard_size!r}"),
            (len(self.canvas_size) == 2
             and all(MIN_CANVAS <= v <= MAX_CANVAS for v in self.canvas_size),
             f"--canvas-size must be W or WxH with each side in [{MIN_CANVAS}, {MAX_CANVAS}], "
             f"got {'x'.join(map(str, self.canvas_size))}"),
        )
        for ok, message in checks:
            if not ok:
                raise ConfigError(message)
        return self

    def to_json(self) -> dict:
        """The configuration as recorded in the manifest."""
        d = asdict(self)
        d["levels"], d["canvas_size"] = list(self.levels), list(self.canvas_size)
        return d


def generator_version() -> str:
    """Version string of the installed package."""
    try:
        from importlib.metadata import version
        return version("objsub-fast")
    except Exception:  # not installed (source checkout)
        return "0.0.0"


# --------------------------------------------------------------------------- shard jobs

def shard_batches(config: RunConfig, shard: Shard, chunk_size: int | None):
    """Yield (first task index, engine batch) for each chunk of ``shard``, one chunk at a time.

    Every chunk is drawn into the same frame buffers (``generate_batch(out=...)``): fresh
    arrays would be page-faulted and zeroed by the kernel on every chunk. So a batch's frames
    are valid only until the next one is requested.
    """
    import numpy as np

    from .engine import generate_batch

    size = min(chunk_size or auto_chunk_size(config.canvas_size), shard.count)
    w, h = config.canvas_size
    shapes = [(size, h, w, 3)] * 2 + ([(size, h, w)] if config.masks else [])
    buffers = [np.empty(shape, dtype=np.uint8) for shape in shapes]
    for start, stop in chunks(shard, size):
        yield start, generate_batch(task_seeds(config.seed, start, stop),
                                    level=task_levels(config.levels, start, stop),
                                    canvas_size=config.canvas_size, masks=config.masks,
                                    out=tuple(b[:stop - start] for b in buffers))


def run_shard(config: RunConfig, out: str, shard: Shard, chunk_size: int | None) -> dict:
    """Generate, encode and write one shard; record it as done; return its manifest entry."""
    out = Path(out)
    with WRITERS[config.format](out, shard, config.masks) as writer:
        for start, batch in shard_batches(config, shard, chunk_size):
            writer.write_batch(batch, start)
        entry = writer.finish()
    progress = out / PROGRESS_DIR
    if config.format == "vmevalkit":
        atomic_write_bytes(progress / f"{shard.index:06d}.pairs", b"\n".join(writer.pairs))
    atomic_write_bytes(progress / f"{shard.index:06d}.json", json.dumps(entry).encode())
    return entry


# --------------------------------------------------------------------------- output folder

def our_artifacts(out: Path) -> list[Path]:
    """Every path in ``out`` that a run of this generator owns."""
    names = [MANIFEST, PROGRESS_DIR, VMEVAL_TASK_DIR, VMEVAL_DATASET_FILE]
    paths = [out / n for n in names if (out / n).exists()]
    return paths + sorted(out.glob("objsub-*.tar")) + sorted(out.glob(".tmp-*"))


def prepare_output(config: RunConfig, out: Path, overwrite: bool) -> dict[int, dict]:
    """Check/create the output folder and return entries of shards already complete.

    Raises ConfigError if ``out`` is not a writable folder or holds a different run.
    """
    if out.exists() and not out.is_dir():
        raise ConfigError(f"output path {str(out)!r} exists and is not a directory")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ConfigError(f"cannot create output directory {str(out)!r}: {e.strerror}") from e
    if not os.access(out, os.W_OK | os.X_OK):
        raise ConfigError(f"output directory {str(out)!r} is not writable")
    manifest_path = out / MANIFEST
    previous = None
    if manifest_path.exists():
        try:
            previous = json.loads(manifest_path.read_text())
        except ValueError:
            previous = {"config": None}
    if overwrite:
        for p in our_artifacts(out):
            remove_path(p)
        previous = None
    elif previous is not None and previous.get("config") != config.to_json():
        raise ConfigError(
            f"{str(out)!r} holds a dataset generated with a different configuration "
            f"({_config_diff(previous.get('config'), config.to_json())}); "
            "use --overwrite to replace it or choose another output directory")
    elif previous is None and (any(out.glob("objsub-*.tar")) or (out / VMEVAL_TASK_DIR).exists()):
        raise ConfigError(f"{str(out)!r} holds dataset files but no manifest; "
                          "use --overwrite to replace them")
    remove_stale_tmp(out)
    remove_stale_tmp(out / VMEVAL_TASK_DIR)
    remove_stale_tmp(out / PROGRESS_DIR)
    done = {}
    if previous is not None and previous.get("complete"):
        done = {e["shard"]: e for e in previous["shards"]}
    for rec in sorted((out / PROGRESS_DIR).glob("*.json")):
        entry = json.loads(rec.read_text())
        done[entry["shard"]] = entry
    if previous is None:
        atomic_write_bytes(manifest_path, manifest_bytes(config.to_json(), [], complete=False))
    (out / PROGRESS_DIR).mkdir(exist_ok=True)
    return {k: e for k, e in done.items() if _entry_present(out, config, e)}


def _entry_present(out: Path, config: RunConfig, entry: dict) -> bool:
    if config.format == "webdataset":
        p = out / entry["name"]
        return p.is_file() and p.stat().st_size == entry["bytes"]
    return (out / PROGRESS_DIR / f"{entry['shard']:06d}.pairs").exists() or \
        (out / VMEVAL_DATASET_FILE).exists()


def _config_diff(old, new: dict) -> str:
    if not isinstance(old, dict):
        return "unreadable manifest"
    diffs = [f"{k}: {old.get(k)!r} there vs {new[k]!r} now" for k in new if old.get(k) != new[k]]
    return "; ".join(diffs) or "unknown difference"


def finalize(config: RunConfig, out: Path, entries: list[dict]) -> None:
    """Write the dataset JSON (VMEvalKit), the complete manifest, and drop progress records."""
    progress = out / PROGRESS_DIR
    pair_files = [progress / f"{e['shard']:06d}.pairs" for e in entries]
    if config.format == "vmevalkit" and all(p.exists() for p in pair_files):
        def lines():
            for p in pair_files:
                data = p.read_bytes()
                yield from data.split(b"\n") if data else ()
        atomic_write_bytes(out / VMEVAL_DATASET_FILE,
                           b"".join(vmeval_dataset_parts(config.to_json(), lines())))
    atomic_write_bytes(out / MANIFEST, manifest_bytes(config.to_json(), entries, complete=True))
    remove_path(progress)


# --------------------------------------------------------------------------- progress

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


# --------------------------------------------------------------------------- driver

def _parallel_results(jobs, workers: int, backend: str, scheduler: str | None):
    """Yield shard entries as jobs finish, on the chosen backend."""
    import joblib

    if workers == 1 and backend == "loky":
        for job in jobs:
            fn, args, kwargs = job
            yield fn(*args, **kwargs)
        return
    if backend == "dask":
        try:
            from distributed import Client
        except ImportError as e:
            raise ConfigError("--backend dask needs dask.distributed: "
                              "pip install 'objsub-fast[dask]'") from e
        try:
            client = Client(scheduler, timeout="20s") if scheduler else Client(
                n_workers=workers, threads_per_worker=1, dashboard_address=None)
        except OSError as e:
            raise ConfigError(f"cannot connect to Dask scheduler {scheduler!r}: {e}") from e
        with client, joblib.parallel_config(backend="dask"):
            yield from joblib.Parallel(n_jobs=-1, return_as="generator_unordered")(jobs)
        return
    yield from joblib.Parallel(n_jobs=workers, backend="loky",
                               return_as="generator_unordered")(jobs)


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
        them). Never changes the output.
    backend : {"loky", "dask"}
        joblib backend; "dask" runs on ``scheduler`` (a dask.distributed address) or, without
        one, on a local cluster of ``workers`` processes.
    chunk_size : int, optional
        Tasks rendered per engine call inside a worker (default: ``auto_chunk_size``); bounds
        worker memory, never changes the output.
    overwrite : bool
        Replace a dataset of a different configuration in ``out``.
    """
    import joblib

    config.validate()
    if backend not in BACKENDS:
        raise ConfigError(f"--backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    workers = worker_count(workers)
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size < 1):
        raise ConfigError(f"chunk size must be an integer >= 1, got {chunk_size!r}")
    out = Path(out).absolute()
    done = prepare_output(config, out, overwrite)
    plan = plan_shards(config.count, config.shard_size)
    todo = [s for s in plan if s.index not in done]
    progress = Progress(config.count, sum(s.count for s in plan if s.index in done),
                        stream=stream, quiet=quiet)
    jobs = [joblib.delayed(run_shard)(config, str(out), s, chunk_size) for s in todo]
    try:
        for entry in _parallel_results(jobs, min(workers, max(len(todo), 1)), backend,
                                       scheduler):
            done[entry["shard"]] = entry
            progress.update(entry["count"])
    finally:
        progress.close()
    entries = [done[s.index] for s in plan]
    finalize(config, out, entries)
    return json.loads((out / MANIFEST).read_text())
