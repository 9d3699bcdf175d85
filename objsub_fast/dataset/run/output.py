"""The output folder of a run: what it holds, resume state, and the end of a run.

A folder holds one dataset: ``manifest.json`` (written first, incomplete, with the
configuration), the format's files, and while the run is unfinished ``.objsub-progress/`` with
one record per finished shard. ``read_output`` looks at a folder without changing it and says
what a run may do there:

- ``new``: nothing of ours there yet;
- ``resume``: the same configuration; its complete shards are kept;
- ``extend``: the same configuration but a larger ``count`` (shard k is always tasks
  [kN, (k+1)N), so every complete shard of the smaller run that is also complete in the larger
  plan is kept, and a partial last shard is rewritten);
- ``replace``: ``--overwrite``, or a folder whose run holds no complete shard (a run that
  failed before finishing one is not a dataset to protect).

Anything else (another configuration with complete shards, dataset files without a manifest)
is refused. ``prepare_output`` then carries out the decision; the caller holds the folder's
lock (``objsub_fast.runtime.lock``) from then until the end of the run.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from ...runtime.atomic import (TMP_PREFIX, atomic_write_bytes, fsync_dir, remove_path,
                               remove_stale_tmp)
from ...runtime.errors import OutputError
from ...runtime.links import refuse_links
from ...runtime.lock import LOCK_FILE
from .card import owned_files, write_files
from ..formats import get_format
from ..content.manifest import (MANIFEST, PROGRESS_DIR, manifest_bytes, read_entries, read_manifest,
                                valid_entry)
from .options import generate_command, option_differences
from ..content.shards import shard_at

__all__ = ["OutputState", "read_output", "prepare_output", "record_shard", "finish_run"]


@dataclass(frozen=True)
class OutputState:
    """What a run may do in its output folder (see the module doc) and the shards it keeps."""

    action: str  # "new", "resume", "extend" or "replace"
    done: dict = field(default_factory=dict)  # shard number -> manifest entry, kept

    @property
    def done_tasks(self) -> int:
        """Tasks in the kept shards."""
        return sum(e["count"] for e in self.done.values())


def _our_artifacts(fmt, out: Path) -> list[Path]:
    """Every path in ``out`` that a run of this generator owns (never the lock file)."""
    state = [p for p in (out / MANIFEST, out / PROGRESS_DIR) if p.exists()]
    return (state + fmt.owned_paths(out) + owned_files(out)
            + sorted(out.glob(f"{TMP_PREFIX}*")))


def check_output_path(out: Path) -> None:
    """Raise OutputError if ``out`` cannot become the output folder (checked, not created)."""
    if out.exists() and not out.is_dir():
        raise OutputError(f"output path {str(out)!r} exists and is not a directory")
    parent = out
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise OutputError(f"cannot create output directory {str(out)!r}: {str(parent)!r} is "
                          "not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        what = "output directory" if parent == out else "directory"
        raise OutputError(f"{what} {str(parent)!r} is not writable")


def dataset_paths(fmt, out: Path) -> list[Path]:
    """Every path of ``out`` a run writes or reads before its shards: the lock, manifest,
    progress folder and records, temp files, and the format's folders and files (where a
    planted link is refused, ``runtime.links``)."""
    progress = out / PROGRESS_DIR
    records = sorted(progress.iterdir()) if progress.is_dir() and not progress.is_symlink() \
        else []
    return [out / LOCK_FILE, out / MANIFEST, progress, *records, *out.glob(f"{TMP_PREFIX}*"),
            *fmt.temp_folders(out), *fmt.owned_paths(out)]


def _complete_shards(fmt, out: Path, previous: dict, config) -> dict[int, dict]:
    """Entries of the shards a previous run completed that are still complete on disk (for a
    run of ``config``)."""
    progress = out / PROGRESS_DIR
    done = {}
    shards = previous.get("shards")
    if previous.get("complete") and isinstance(shards, list):
        done = {e["shard"]: e for e in shards if valid_entry(e)}
    done.update(read_entries(sorted(progress.glob("*.json"))))
    return {k: e for k, e in done.items() if fmt.shard_present(out, e, progress, config)}


def _only_count_grows(old: dict, new: dict) -> bool:
    return (isinstance(old.get("count"), int) and new["count"] > old["count"]
            and {k: v for k, v in old.items() if k != "count"}
            == {k: v for k, v in new.items() if k != "count"})


def _same_range(entry: dict, shard) -> bool:
    return (entry["start"], entry["stop"]) == (shard.start, shard.stop)


def read_output(config, out: Path, overwrite: bool) -> OutputState:
    """Decide what a run of ``config`` may do in ``out``, without changing anything there.

    Raises OutputError if ``out`` is not usable or holds a dataset the run must not touch.
    """
    fmt = get_format(config.format)
    check_output_path(out)
    if not out.exists():
        return OutputState("new")
    refuse_links(out, dataset_paths(fmt, out))
    if overwrite:
        return OutputState("replace")
    previous = read_manifest(out)
    if previous is None:
        if fmt.owned_paths(out):
            raise OutputError(f"{str(out)!r} holds dataset files but no manifest; "
                              "use --overwrite to replace them")
        return OutputState("new")
    old, new = previous.get("config"), config.to_json()
    complete = _complete_shards(fmt, out, previous, config) if isinstance(old, dict) else {}
    if old == new:
        return OutputState("resume", complete)
    if isinstance(old, dict) and not complete and not fmt.owned_paths(out):
        return OutputState("replace")  # a run that wrote no task is not a dataset to protect
    if isinstance(old, dict) and _only_count_grows(old, new) and fmt.can_extend:
        return OutputState("extend", {k: e for k, e in complete.items()
                                      if _same_range(e, shard_at(k, config.count,
                                                                 config.shard_size))})
    if not isinstance(old, dict):
        raise OutputError(f"{str(out)!r} holds a dataset whose manifest cannot be read; use "
                          "--overwrite to replace it or choose another output directory")
    finish = ("" if previous.get("complete") else
              f"; to finish that run instead: {generate_command(old, out)}")
    raise OutputError(
        f"{str(out)!r} holds a dataset generated with other options: "
        f"{option_differences(old, new)}; use --overwrite to replace it or choose another "
        "output directory" + ("" if fmt.can_extend or not _only_count_grows(old, new)
                              else f" (the {config.format} format cannot be extended)")
        + finish)


def prepare_output(config, out: Path, state: OutputState) -> None:
    """Carry out ``state`` (from ``read_output``) in ``out``, an existing folder the caller
    has locked: replace or extend what is there, remove leftover temp files of this project,
    and write the (incomplete) manifest of the run."""
    fmt = get_format(config.format)
    progress = out / PROGRESS_DIR
    if state.action == "replace":
        for p in _our_artifacts(fmt, out):
            remove_path(p)
    for folder in (out, *fmt.temp_folders(out), progress):
        remove_stale_tmp(folder, locked=True)
    progress.mkdir(exist_ok=True)
    if state.action == "extend":
        for rec in progress.glob("*.json"):  # shards of the smaller plan not kept in the larger
            if int(rec.stem) not in state.done:
                rec.unlink()
        fmt.extend(out, [state.done[k] for k in sorted(state.done)], progress)
        for entry in state.done.values():
            record_shard(out, entry)
    if state.action != "resume" or read_manifest(out) is None:
        atomic_write_bytes(out / MANIFEST, manifest_bytes(config.to_json(), [], complete=False))


def record_shard(out: Path, entry: dict) -> None:
    """Record a finished shard in the progress folder (what a resumed run skips).

    The record's data is flushed before its rename, its rename is not (nor, for WebDataset,
    the shard's): a crash that loses either only makes a rerun write that shard again, with
    the same bytes. ``finish_run`` flushes the folders before the manifest says "complete".
    """
    atomic_write_bytes(Path(out) / PROGRESS_DIR / f"{entry['shard']:06d}.json",
                       json.dumps(entry).encode(), sync_rename=False)


def _sync_shard_folders(out: Path, entries: list[dict]) -> None:
    """Flush the renames of every shard file into place (their folders' entries)."""
    for folder in sorted({(out / e["name"]).parent for e in entries} | {out}):
        if folder.is_dir():
            fsync_dir(folder)


def finish_run(config, out: Path, entries: list[dict]) -> None:
    """The format's dataset-level files, the Hugging Face card (``card``), the complete
    manifest, then drop the progress folder."""
    progress = out / PROGRESS_DIR
    _sync_shard_folders(out, entries)
    get_format(config.format).finalize(config, out, entries, progress)
    write_files(config, out)
    atomic_write_bytes(out / MANIFEST, manifest_bytes(config.to_json(), entries, complete=True))
    remove_path(progress)
