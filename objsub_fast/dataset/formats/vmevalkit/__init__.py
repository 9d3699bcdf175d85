"""The VMEvalKit format: ``object_subtraction_task/{task_id}/`` folders holding
``first_frame.png``, ``final_frame.png``, ``prompt.txt`` and ``question_metadata.json`` (the
task pair), plus ``vmeval_dataset.json`` listing every pair (``dataset.run.create.create_dataset``
is the drop-in for VMEvalKit's object subtraction generator).

Each shard keeps its pairs' lines in the run's progress folder until ``finalize`` joins them
into ``vmeval_dataset.json`` (so a resumed run needs no task folder re-read).
"""
from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ....runtime.atomic import atomic_write_bytes
from ....task.records import task_id
from ..base import OutputFormat
from ..folders import (FolderLayout, FolderShardReader, FolderShardWriter, folder_blocks,
                       folders_present)
from ...content.manifest import PROGRESS_DIR
from ...content.shards import MAX_SEED, task_levels
from .dataset_file import (
                           DATASET_FILE, FILE_NAMES, FINAL_FRAME, FIRST_FRAME, METADATA, PROMPT, TASK_ROOT,
                           dataset_head, dataset_parts, pair, task_metadata,
                           )
from .dataset_check import check_dataset_file

__all__ = ["NAME", "FORMAT", "VMEvalKit", "TASK_ROOT", "DATASET_FILE", "FILE_NAMES",
           "FIRST_FRAME", "FINAL_FRAME", "PROMPT", "METADATA", "LAYOUT", "shard_name",
           "folder_name", "pair", "task_metadata", "stored_bytes", "ShardWriter", "ShardReader",
           "owned_paths", "SeedNamedTasks", "dataset_head", "dataset_parts"]

NAME = "vmevalkit"
#: A task folder's name (``records.task_id``), and the stray folders listed one per line.
_TASK_ID = re.compile(r"object_subtraction_(l[0-9]+)_([0-9]+)")
_STRAYS_SHOWN = 20


def shard_name(k: int) -> str:
    """Name of shard ``k`` in the manifest (a shard is a set of task folders, not a file).

    Examples
    --------
    >>> shard_name(3)
    'object_subtraction_task/shard-000003'
    """
    return f"{TASK_ROOT}/shard-{k:06d}"


def folder_name(sample: dict) -> str:
    """A task's folder: its task id."""
    return sample["__id__"]


LAYOUT = FolderLayout(TASK_ROOT, folder_name, FILE_NAMES, shard_name)


def _pairs_file(progress: Path, k: int) -> Path:
    return Path(progress) / f"{k:06d}.pairs"


def stored_bytes(samples: list[dict], block: int) -> int:
    """Disk bytes of the samples' task folders plus their lines in ``vmeval_dataset.json`` and
    in the progress folder (kept until ``finalize``)."""
    return folder_blocks(LAYOUT, samples, block) + sum(2 * (len(s["json"]) + 2) for s in samples)


class ShardWriter(FolderShardWriter):
    """Task folders of one shard; the shard's pair lines are kept for ``finalize``."""

    def __init__(self, out: Path, shard, config):
        super().__init__(LAYOUT, out, shard)
        self.pairs: list[bytes] = []

    def write_samples(self, samples: list[dict]) -> None:
        """Hand a chunk of samples to the I/O thread; keep their pair lines."""
        super().write_samples(samples)
        self.pairs += [s["json"] for s in samples]

    def finish(self) -> dict:
        """Wait for the last folders; keep the pair lines for ``finalize``; return the entry."""
        entry = super().finish()
        (self.out / PROGRESS_DIR).mkdir(exist_ok=True)
        atomic_write_bytes(_pairs_file(self.out / PROGRESS_DIR, self.shard.index),
                           b"\n".join(self.pairs))
        return entry


class ShardReader(FolderShardReader):
    """Reader of one shard's task folders (for ``verify``); it also hashes the shard's
    regenerated lines of ``vmeval_dataset.json`` (``summary``) for ``check_dataset``."""

    def __init__(self, out: Path, entry: dict, problems: list[str], config=None):
        super().__init__(LAYOUT, out, problems, config)
        self.lines = hashlib.sha256()

    def get(self, expected: dict) -> dict | None:
        """Actual files of the task ``expected`` describes (None if absent)."""
        self.lines.update(expected["json"] + b"\n")
        return super().get(expected)

    def summary(self) -> str:
        """SHA-256 of the shard's expected pair lines (each followed by a newline)."""
        return self.lines.hexdigest()


def owned_paths(out: Path) -> list[Path]:
    """The task folders (named like task ids; nothing else in the task root) and the dataset
    file, if present."""
    root, dataset = Path(out) / TASK_ROOT, Path(out) / DATASET_FILE
    folders = sorted(p for p in root.iterdir() if _TASK_ID.fullmatch(p.name)) \
        if root.is_dir() else []
    return folders + ([dataset] if dataset.exists() else [])








@dataclass(frozen=True)
class SeedNamedTasks:
    """Task index in the run of ``config`` of a task folder's name, None for a name that is no
    task id of the run (hashable: ``folders.folders_present`` caches a listing per mapping).

    Examples
    --------
    >>> from objsub_fast.dataset.run.run_config import RunConfig
    >>> config = RunConfig(count=4, format="vmevalkit")
    >>> index_of = SeedNamedTasks(config)
    >>> name = task_id(task_levels(config.levels, 2, 3)[0], int(config.seeds(2, 3)[0]))
    >>> index_of(name), index_of("object_subtraction_l1_5"), index_of("notes")
    (2, None, None)
    """

    config: object

    def __call__(self, name: str) -> int | None:
        match = _TASK_ID.fullmatch(name)
        if not match:
            return None
        level, seed = match[1].upper(), int(match[2])
        if seed > MAX_SEED or task_id(level, seed) != name:
            return None
        index = self.config.task_index(seed)
        in_run = index < self.config.count and task_levels(self.config.levels, index,
                                                           index + 1) == [level]
        return index if in_run else None








def _stray_folders(config, out: Path) -> list[str]:
    """Task folders whose name is not the id of a task of the run, read in one pass over the
    task root in constant memory (a name's seed is mapped back to its task index)."""
    root = out / TASK_ROOT
    if not root.is_dir():
        return []
    with os.scandir(root) as entries:
        index_of = SeedNamedTasks(config)
        stray = sorted(e.name for e in entries if index_of(e.name) is None)
    shown = [f"{TASK_ROOT}/{name}: not part of the dataset" for name in stray[:_STRAYS_SHOWN]]
    more = len(stray) - len(shown)
    return shown + ([f"{TASK_ROOT}: {more} more folders not part of the dataset"] if more else [])


class VMEvalKit(OutputFormat):
    """The VMEvalKit format (see the module): task folders, ``vmeval_dataset.json`` joined by
    ``finalize`` from the shards' pair lines."""

    NAME = NAME
    shard_name = staticmethod(shard_name)
    task_metadata = staticmethod(task_metadata)
    stored_bytes = staticmethod(stored_bytes)
    owned_paths = staticmethod(owned_paths)

    def writer(self, out: Path, shard, config) -> ShardWriter:
        """The shard's task folders (and its pair lines)."""
        return ShardWriter(out, shard, config)

    def reader(self, out: Path, entry: dict, problems: list[str], config=None) -> ShardReader:
        """The shard's task folders, for ``verify``."""
        return ShardReader(out, entry, problems, config)

    def temp_folders(self, out: Path) -> list[Path]:
        """The task root (a killed run may leave temp files in it)."""
        return [Path(out) / TASK_ROOT]

    def task_folders(self, config) -> tuple[str, Callable]:
        """The task root; a task folder's index is that of its seed in the run."""
        def index_of(name):
            match = _TASK_ID.fullmatch(name)
            return config.task_index(int(match[2])) if match else None
        return LAYOUT.root, index_of

    def accounted(self, config) -> list[str]:
        """Paths (``*``: part of a name) this format's checks account for: whatever is in the task
        root (a folder not part of the dataset is a problem of ``check_dataset``, a file in a task
        folder that is no member one of ``verify``'s) and the dataset file."""
        return [f"{TASK_ROOT}/*", f"{TASK_ROOT}/*/*", DATASET_FILE]

    def shard_present(self, out: Path, entry: dict, progress: Path, config) -> bool:
        """Whether a shard recorded as done still has its pair lines (or the run was finalized)
        and every one of its task folders (named by seed: ``SeedNamedTasks`` maps a name back)."""
        return ((_pairs_file(progress, entry["shard"]).exists()
                 or (Path(out) / DATASET_FILE).exists())
                and folders_present(Path(out) / TASK_ROOT, SeedNamedTasks(config), entry["start"],
                                    entry["stop"]))

    def extend(self, out: Path, kept: list[dict], progress: Path) -> None:
        """Before a larger run: split a finished ``vmeval_dataset.json`` back into the pair lines of
        the ``kept`` shards (its lines are the shards' lines in task order), then remove it."""
        dataset = Path(out) / DATASET_FILE
        if not dataset.exists():
            return  # an unfinished run: the kept shards' pair lines are still in ``progress``
        text = dataset.read_bytes()
        body = text[text.index(b"\n") + 1: text.rindex(b"\n]}")]
        lines = body.split(b",\n") if body else []
        for entry in kept:
            atomic_write_bytes(_pairs_file(progress, entry["shard"]),
                               b"\n".join(lines[entry["start"]:entry["stop"]]))
        dataset.unlink()

    def finalize(self, config, out: Path, entries: list[dict], progress: Path) -> None:
        """Join the shards' pair lines into ``vmeval_dataset.json`` (kept if already written)."""
        pair_files = [_pairs_file(progress, e["shard"]) for e in entries]
        if not all(p.exists() for p in pair_files):
            return

        def lines():
            for p in pair_files:
                data = p.read_bytes()
                yield from data.split(b"\n") if data else ()
        atomic_write_bytes(Path(out) / DATASET_FILE,
                           b"".join(dataset_parts(config.to_json(), lines())))

    def check_dataset(self, config, out: Path, plan, summaries: dict) -> list[str]:
        """Dataset-level problems for ``verify``: ``vmeval_dataset.json`` against the file the
        configuration gives (``dataset_check``; not yet written by an unfinished run), and task
        folders that are not part of the dataset."""
        out = Path(out)
        unfinished = not (out / DATASET_FILE).exists() and (out / PROGRESS_DIR).is_dir()
        return ([] if unfinished else check_dataset_file(config, out / DATASET_FILE, plan,
                                                         summaries)) + _stray_folders(config, out)


#: The format (the row of ``formats.FORMATS``).
FORMAT = VMEvalKit()
