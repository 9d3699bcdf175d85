"""The output folder of a run: checks, resume state, and the end of a run.

A folder holds one dataset: ``manifest.json`` (written first, incomplete, with the
configuration), the format's files, and while the run is unfinished ``.objsub-progress/`` with
one record per finished shard. A rerun with the same configuration resumes from those records;
a different configuration is refused unless ``overwrite``.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from ..atomic import atomic_write_bytes, remove_path, remove_stale_tmp
from ..errors import OutputError
from .formats import get_format
from .manifest import MANIFEST, PROGRESS_DIR, manifest_bytes, read_manifest

__all__ = ["prepare_output", "record_shard", "finish_run"]


def _our_artifacts(fmt, out: Path) -> list[Path]:
    """Every path in ``out`` that a run of this generator owns."""
    state = [p for p in (out / MANIFEST, out / PROGRESS_DIR) if p.exists()]
    return state + fmt.owned_paths(out) + sorted(out.glob(".tmp-*"))


def _config_diff(old, new: dict) -> str:
    if not isinstance(old, dict):
        return "unreadable manifest"
    keys = list(new) + [k for k in old if k not in new]
    diffs = [f"{k}: {old.get(k)!r} there vs {new.get(k)!r} now" for k in keys
             if old.get(k) != new.get(k)]
    return "; ".join(diffs) or "unknown difference"


def _writable_folder(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise OutputError(f"output path {str(out)!r} exists and is not a directory")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise OutputError(f"cannot create output directory {str(out)!r}: {e.strerror}") from e
    if not os.access(out, os.W_OK | os.X_OK):
        raise OutputError(f"output directory {str(out)!r} is not writable")


def prepare_output(config, out: Path, overwrite: bool) -> dict[int, dict]:
    """Check/create the output folder and return the entries of shards already complete.

    Raises OutputError if ``out`` is not a writable folder or holds a different run.
    """
    fmt = get_format(config.format)
    _writable_folder(out)
    previous = read_manifest(out)
    if overwrite:
        for p in _our_artifacts(fmt, out):
            remove_path(p)
        previous = None
    elif previous is not None and previous.get("config") != config.to_json():
        raise OutputError(
            f"{str(out)!r} holds a dataset generated with a different configuration "
            f"({_config_diff(previous.get('config'), config.to_json())}); "
            "use --overwrite to replace it or choose another output directory")
    elif previous is None and fmt.owned_paths(out):
        raise OutputError(f"{str(out)!r} holds dataset files but no manifest; "
                          "use --overwrite to replace them")
    progress = out / PROGRESS_DIR
    for folder in (out, *fmt.temp_folders(out), progress):
        remove_stale_tmp(folder)
    done = {}
    if previous is not None and previous.get("complete"):
        done = {e["shard"]: e for e in previous["shards"]}
    for rec in sorted(progress.glob("*.json")):
        entry = json.loads(rec.read_text())
        done[entry["shard"]] = entry
    if previous is None:
        atomic_write_bytes(out / MANIFEST, manifest_bytes(config.to_json(), [], complete=False))
    progress.mkdir(exist_ok=True)
    return {k: e for k, e in done.items() if fmt.shard_present(out, e, progress)}


def record_shard(out: Path, entry: dict) -> None:
    """Record a finished shard in the progress folder (what a resumed run skips)."""
    atomic_write_bytes(Path(out) / PROGRESS_DIR / f"{entry['shard']:06d}.json",
                       json.dumps(entry).encode())


def finish_run(config, out: Path, entries: list[dict]) -> None:
    """The format's dataset-level files, the complete manifest, then drop the progress folder."""
    progress = out / PROGRESS_DIR
    get_format(config.format).finalize(config, out, entries, progress)
    atomic_write_bytes(out / MANIFEST, manifest_bytes(config.to_json(), entries, complete=True))
    remove_path(progress)
