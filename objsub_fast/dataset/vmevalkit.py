"""The VMEvalKit format: ``object_subtraction_task/{task_id}/`` folders holding
``first_frame.png``, ``final_frame.png``, ``prompt.txt`` and ``question_metadata.json`` (the
task pair), plus ``vmeval_dataset.json`` listing every pair; and ``create_dataset``, a drop-in
for VMEvalKit's object subtraction generator.

Each shard keeps its pairs' lines in the run's progress folder until ``finalize`` joins them
into ``vmeval_dataset.json`` (so a resumed run needs no task folder re-read).
"""
from __future__ import annotations

import atexit
import hashlib
import json
import os
import re
import shutil
import tempfile
from pathlib import Path

from ..atomic import atomic_write_bytes
from ..records import task_id
from ..shards import MAX_SEED, task_index, task_levels
from ..vocabulary import LEVELS
from .folders import FolderLayout, FolderShardReader, FolderShardWriter, folder_blocks
from .manifest import PROGRESS_DIR
from .members import MEMBERS

__all__ = ["NAME", "VIDEOS_REQUIRED", "TASK_ROOT", "DATASET_FILE", "FILE_NAMES", "FIRST_FRAME",
           "FINAL_FRAME", "PROMPT", "METADATA", "LAYOUT", "shard_name", "folder_name", "pair",
           "task_metadata", "stored_bytes", "ShardWriter", "ShardReader", "owned_paths",
           "temp_folders", "shard_present", "extend", "finalize", "check_dataset",
           "dataset_head", "dataset_parts", "create_dataset"]

NAME = "vmevalkit"
#: Videos are an optional member (``--videos``).
VIDEOS_REQUIRED = False
#: VMEvalKit's folder for this domain, its master dataset file, and the dataset name.
TASK_ROOT = "object_subtraction_task"
DATASET_FILE = "vmeval_dataset.json"
DATASET_NAME = "object_subtraction_tasks"
#: ``created_at`` of every pair: fixed, so that files stay byte-reproducible.
CREATED_AT = "1970-01-01T00:00:00+00:00"
#: Member suffix -> file name in a task folder.
FILE_NAMES = {suffix: m.file for suffix, m in MEMBERS.items()}
FIRST_FRAME, FINAL_FRAME = FILE_NAMES["first.png"], FILE_NAMES["final.png"]
PROMPT, METADATA = FILE_NAMES["txt"], FILE_NAMES["json"]
_SPACED = json.JSONEncoder(check_circular=False)
#: How ``vmeval_dataset.json`` lays out its pairs: one per line between these.
_PAIRS_OPEN, _PAIR_SEP, _PAIRS_CLOSE = b', "pairs": [\n', b",\n", b"\n]}\n"
#: A task folder's name (``records.task_id``), and the stray folders listed one per line.
_TASK_ID = re.compile(r"object_subtraction_(l[0-9]+)_([0-9]+)")
_STRAYS_SHOWN = 20


def shard_name(k: int) -> str:
    """Name of shard ``k`` in the manifest (a shard is a set of task folders, not a file)."""
    return f"{TASK_ROOT}/shard-{k:06d}"


def folder_name(sample: dict) -> str:
    """A task's folder: its task id."""
    return sample["__id__"]


LAYOUT = FolderLayout(TASK_ROOT, folder_name, FILE_NAMES, shard_name)


def pair(record: dict) -> dict:
    """VMEvalKit task pair (question_metadata.json) for an engine task record."""
    tid = record["id"]
    p = {
        "id": tid,
        "prompt": record["prompt"],
        "first_image_path": f"{TASK_ROOT}/{tid}/{FIRST_FRAME}",
        "final_image_path": f"{TASK_ROOT}/{tid}/{FINAL_FRAME}",
        "task_category": record["task_category"],
        "level": record["level"],
        "object_subtraction_data": record["object_subtraction_data"],
        "difficulty": record["difficulty"],
        "created_at": CREATED_AT,
    }
    p.update({k: v for k, v in record.items() if k not in p})
    return p


def task_metadata(record: dict, config=None) -> bytes:
    """``question_metadata.json``: the pair on one line with the default separators (the C
    encoder; ``indent`` would be ~8x slower), so the same bytes are its line in
    ``vmeval_dataset.json`` (the run's knobs are in ``manifest.json``)."""
    return _SPACED.encode(pair(record)).encode()


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
        super().__init__(LAYOUT, out)
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


def temp_folders(out: Path) -> list[Path]:
    """Folders (besides ``out``) where a killed run may have left temp files."""
    return [Path(out) / TASK_ROOT]


def shard_present(out: Path, entry: dict, progress: Path) -> bool:
    """Whether a shard recorded as done still has its pair lines (or the run was finalized)."""
    return _pairs_file(progress, entry["shard"]).exists() or (Path(out) / DATASET_FILE).exists()


def dataset_head(config: dict) -> bytes:
    """The first line of ``vmeval_dataset.json``: name, description, metadata, created_at and
    the opening of the pair list."""
    levels = list(config["levels"])
    head = {"name": DATASET_NAME,
            "description": (f"Object subtraction reasoning tasks for video model evaluation "
                            f"({config['count']} pairs, levels: {', '.join(levels)})"),
            "metadata": {"total_tasks": config["count"], "levels": levels,
                         "canvas_size": list(config["canvas_size"]), "seed": config["seed"],
                         "generator": "objsub-fast", "generation_date": CREATED_AT},
            "created_at": CREATED_AT}
    return json.dumps(head)[:-1].encode() + _PAIRS_OPEN


def dataset_parts(config: dict, pair_lines):
    """Yield the bytes of ``vmeval_dataset.json`` (one pair per line, streamed)."""
    yield dataset_head(config)
    first = True
    for line in pair_lines:
        yield (b"" if first else _PAIR_SEP) + line
        first = False
    yield _PAIRS_CLOSE


def extend(out: Path, kept: list[dict], progress: Path) -> None:
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


def finalize(config, out: Path, entries: list[dict], progress: Path) -> None:
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


def check_dataset(config, out: Path, plan, summaries: dict) -> list[str]:
    """Dataset-level problems for ``verify``: ``vmeval_dataset.json`` against the file the
    configuration gives (``vmevalkit_check``; not yet written by an unfinished run), and task
    folders that are not part of the dataset."""
    from .vmevalkit_check import check_dataset_file

    out = Path(out)
    unfinished = not (out / DATASET_FILE).exists() and (out / PROGRESS_DIR).is_dir()
    return ([] if unfinished else check_dataset_file(config, out / DATASET_FILE, plan,
                                                     summaries)) + _stray_folders(config, out)


def _stray_folders(config, out: Path) -> list[str]:
    """Task folders whose name is not the id of a task of the run, read in one pass over the
    task root in constant memory (a name's seed is mapped back to its task index)."""
    root = out / TASK_ROOT
    if not root.is_dir():
        return []
    with os.scandir(root) as entries:
        stray = sorted(e.name for e in entries if not _is_task_of(e.name, config))
    shown = [f"{TASK_ROOT}/{name}: not part of the dataset" for name in stray[:_STRAYS_SHOWN]]
    more = len(stray) - len(shown)
    return shown + ([f"{TASK_ROOT}: {more} more folders not part of the dataset"] if more else [])


def _is_task_of(name: str, config) -> bool:
    """Whether ``name`` is the task id of one of the run's task indices."""
    match = _TASK_ID.fullmatch(name)
    if not match:
        return False
    level, seed = match[1].upper(), int(match[2])
    if seed > MAX_SEED or task_id(level, seed) != name:
        return False
    index = task_index(config.seed, seed)
    return index < config.count and task_levels(config.levels, index, index + 1) == [level]


def _process_temp_folder() -> Path:
    """A new temporary folder, removed (with everything in it) when this process exits."""
    folder = tempfile.mkdtemp(prefix="objsub_fast_")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return Path(folder)


def create_dataset(num_samples: int = 50, levels=LEVELS, random_seed: int = 42,
                   output_dir=None, canvas_size=(256, 256), workers: int = 1) -> dict:
    """Generate an object subtraction dataset in VMEvalKit's format and return it.

    ``from objsub_fast import create_dataset`` replaces
    ``from vmevalkit.tasks.object_subtraction_task import create_dataset``: same arguments,
    same returned structure, each pair pointing at real PNG files in VMEvalKit's layout.

    Parameters
    ----------
    num_samples : int
        Total number of tasks, split across ``levels`` as evenly as possible (earlier levels
        get the remainder, as in VMEvalKit).
    levels : sequence of str
        Levels to generate, from "L1".."L4".
    random_seed : int
        Base seed; the same arguments always give byte-identical files.
    output_dir : path-like, optional
        Where ``object_subtraction_task/{task_id}/...`` and ``vmeval_dataset.json`` are written.
        Default: a new temporary folder (``metadata["output_dir"]``), removed when the Python
        process exits; its files are there for the life of the process. Pass ``output_dir`` to
        keep them.
    canvas_size : (int, int)
        Frame size (W, H).
    workers : int
        Parallel worker processes.

    Returns
    -------
    dict
        ``{"name", "description", "pairs", "metadata", "created_at"}``; each pair has ``id``,
        ``prompt``, ``first_image_path``, ``final_image_path`` (absolute paths),
        ``task_category``, ``level``, ``object_subtraction_data``, ``difficulty``,
        ``created_at`` (fixed, for reproducibility), plus ``seed`` and ``canvas_size``.
        Pairs are grouped by level in the order of ``levels``.

    Examples
    --------
    >>> import tempfile
    >>> from objsub_fast import create_dataset
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     ds = create_dataset(num_samples=3, levels=["L1", "L4"], output_dir=tmp)
    ...     [p["level"] for p in ds["pairs"]], ds["pairs"][0]["first_image_path"].endswith(
    ...         "first_frame.png")
    (['L1', 'L1', 'L4'], True)
    """
    from ..pipeline import generate
    from .config import RunConfig

    out = Path(output_dir) if output_dir is not None else _process_temp_folder()
    config = RunConfig(count=num_samples, levels=tuple(levels), seed=random_seed,
                       format=NAME, canvas_size=canvas_size)
    generate(config, out, workers=workers, quiet=True)
    dataset = json.loads((out / DATASET_FILE).read_text())
    order = {lv: i for i, lv in enumerate(config.levels)}
    dataset["pairs"].sort(key=lambda p: (order[p["level"]], p["task_index"]))
    for p in dataset["pairs"]:
        for key in ("first_image_path", "final_image_path"):
            p[key] = str(out / p[key])
    dataset["metadata"]["output_dir"] = str(out)
    return dataset
