"""The VBVR-DataFactory layout (``--format vbvr``): this task is VBVR's generator
``O-43_object_subtraction_data-generator``; every sample is a folder
``object_subtraction_{index:08d}/`` of five files: ``first_frame.png``, ``final_frame.png``,
``prompt.txt``, ``ground_truth.mp4`` and ``metadata.json``.

Packing (``RunConfig.vbvr_pack``):

- ``tar`` (default, as VBVR ships its data): shard k is
  ``questions/O-43_object_subtraction_data-generator_{start:05d}-{end:05d}.tar`` (``end``
  inclusive), whose members are
  ``O-43_object_subtraction_data-generator/object_subtraction_task/{sample}/{file}``. VBVR
  gzips its shards (``.tar.gz``); these are plain tar because every member is already
  compressed (PNG, H.264), and gzip would add a time stamp;
- ``folders``: ``questions/O-43_object_subtraction_data-generator/object_subtraction_task/
  {sample}/{file}``.

``metadata.json`` holds VBVR's fields -- ``task_id`` (the sample id), ``generator``,
``timestamp`` (fixed, :data:`TIMESTAMP`, so files stay reproducible), ``parameters`` (the task:
the record without id, seed and provenance, plus ``options``, the run's engine knobs that differ
from the defaults, as ``manifest.json`` records them), ``param_hash`` (:func:`param_hash`),
``generation`` (seed and generator) -- plus ``task``, this project's full task record.

The index: ``data/metadata.jsonl`` always, and ``data/metadata.parquet`` when
``RunConfig.vbvr_parquet`` (pyarrow, the ``[vbvr]`` extra), one row per sample with VBVR's
columns :data:`INDEX_COLUMNS`; paths are relative to the output folder (folders) or inside
``tar_file`` (tar). Each shard keeps its rows in the run's progress folder until ``finalize``
joins them (``index``: writing and checking the index).
"""
from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Callable

from ....runtime.atomic import atomic_write_bytes
from ....runtime.links import refuse_links
from .. import webdataset
from ..base import OutputFormat
from ...content.manifest import PROGRESS_DIR
from ...content.shards import shard_at, task_key
from ..folders import (FolderLayout, FolderShardReader, FolderShardWriter, NumberedFolders,
                       folders_present, trailing_number)
from ..tar import tar_parts
from .index import (INDEX_COLUMNS, INDEX_JSONL, INDEX_PARQUET, check_index, read_rows,
                    row_line, write_index)

__all__ = ["NAME", "FORMAT", "VBVRFactory", "GENERATOR", "TASK", "TASK_FOLDER", "TIMESTAMP",
           "FILE_NAMES", "INDEX_COLUMNS", "INDEX_JSONL", "INDEX_PARQUET", "PACKS", "sample_id",
           "parameters", "param_hash", "task_metadata", "shard_name", "ShardWriter",
           "ShardReader", "owned_paths"]

NAME = "vbvr"
GENERATOR = "O-43_object_subtraction_data-generator"
TASK = "object_subtraction"
TASK_FOLDER = f"{TASK}_task"
QUESTIONS = "questions"
#: ``timestamp`` of every sample: fixed, so that files stay byte-reproducible.
TIMESTAMP = "1970-01-01T00:00:00"
#: Member suffix -> file name in a sample folder (``mask.png`` only with ``--masks``).
FILE_NAMES = {"first.png": "first_frame.png", "final.png": "final_frame.png",
              "txt": "prompt.txt", "mp4": "ground_truth.mp4", "json": "metadata.json",
              "mask.png": "instance_map.png"}
PACKS = ("tar", "folders")
#: Record keys that are not task parameters (identity, seed, provenance).
_NOT_PARAMETERS = ("id", "seed", "task_index", "generator", "generator_version")
_FOLDER_ROOT = f"{QUESTIONS}/{GENERATOR}/{TASK_FOLDER}"
_SAMPLE_ID = re.compile(f"{TASK}_([0-9]{{8,}})")


def sample_id(index: int) -> str:
    """VBVR's sample id of task ``index``.

    Examples
    --------
    >>> sample_id(12)
    'object_subtraction_00000012'
    """
    return f"{TASK}_{index:08d}"


def parameters(record: dict, options: dict | None = None) -> dict:
    """A task's parameters: its record without identity, seed and provenance, and the run's
    non-default engine knobs (``RunConfig.changed_knobs``) as ``options`` when there are any.

    Examples
    --------
    >>> parameters({"id": "a", "seed": 3, "level": "L1"}, {"prompt_variants": 4})
    {'level': 'L1', 'options': {'prompt_variants': 4}}
    """
    params = {k: v for k, v in record.items() if k not in _NOT_PARAMETERS}
    return {**params, "options": options} if options else params


def param_hash(params: dict) -> str:
    """VBVR's ``param_hash``: the first 16 hex digits of the SHA-256 of the parameters as
    JSON with sorted keys (``json.dumps(params, sort_keys=True)``); the seed is not a
    parameter, so two seeds that draw the same task share a hash.

    Examples
    --------
    >>> param_hash({"b": 1, "a": [2]}) == param_hash({"a": [2], "b": 1})
    True
    """
    return hashlib.sha256(json.dumps(params, sort_keys=True).encode()).hexdigest()[:16]


def task_metadata(record: dict, config=None) -> bytes:
    """``metadata.json`` of a task record of a run with ``config`` (VBVR's fields plus the full
    record)."""
    params = parameters(record, config.changed_knobs() if config is not None else None)
    doc = {"task_id": sample_id(record["task_index"]), "generator": GENERATOR,
           "timestamp": TIMESTAMP, "parameters": params, "param_hash": param_hash(params),
           "generation": {"seed": record["seed"], "generator": record["generator"],
                          "generator_version": record["generator_version"]},
           "task": record}
    return json.dumps(doc, indent=2).encode()


# --------------------------------------------------------------------------- packing

def shard_name(k: int) -> str:
    """Label of shard ``k`` (the manifest entry names its actual file or folder set)."""
    return f"{QUESTIONS}/{GENERATOR}-shard-{k:06d}"


def _tar_name(shard) -> str:
    return f"{QUESTIONS}/{GENERATOR}_{shard.start:05d}-{shard.stop - 1:05d}.tar"


def _folder(sample: dict) -> str:
    return sample_id(sample["__index__"])


FOLDERS = FolderLayout(_FOLDER_ROOT, _folder, FILE_NAMES, shard_name)
_SUFFIX_OF = {name: suffix for suffix, name in FILE_NAMES.items()}


def _tar_sample_parts(sample: dict) -> list[bytes]:
    """A sample's tar bytes: ``{GENERATOR}/{TASK_FOLDER}/{sample}/{file}``, sorted by file."""
    folder = f"{GENERATOR}/{TASK_FOLDER}/{_folder(sample)}"
    parts = []
    for suffix, name in sorted(FILE_NAMES.items(), key=lambda item: item[1]):
        if suffix in sample:
            parts.extend(tar_parts(f"{folder}/{name}", sample[suffix]))
    return parts


def _tar_member_key(member_name: str) -> tuple[str, str]:
    """(sample key, member suffix) of a member of a VBVR tar shard."""
    *_, folder, file = member_name.split("/")
    index = folder.rpartition("_")[2]
    key = task_key(int(index)) if index.isdigit() else folder
    return key, _SUFFIX_OF.get(file, file)


def index_row(sample: dict, tar_file: str) -> dict:
    """The index row (VBVR's columns) of an encoded sample."""
    folder = (f"{GENERATOR}/{TASK_FOLDER}" if tar_file else _FOLDER_ROOT) + "/" + _folder(sample)
    return {"id": sample["__index__"], "generator": GENERATOR, "task": TASK,
            "sample_id": _folder(sample), "prompt": sample["txt"].decode(),
            "metadata_json": sample["json"].decode(),
            "first_frame_path": f"{folder}/{FILE_NAMES['first.png']}",
            "final_frame_path": f"{folder}/{FILE_NAMES['final.png']}",
            "ground_truth_video_path": f"{folder}/{FILE_NAMES['mp4']}",
            "tar_file": tar_file}


def _index_file(progress: Path, k: int) -> Path:
    return Path(progress) / f"{k:06d}.index"


class ShardWriter:
    """One shard in the run's pack (tar file or sample folders), and its index rows."""

    def __init__(self, out: Path, shard, config):
        self.out, self.shard = Path(out), shard
        self.tar = _tar_name(shard) if config.vbvr_pack == "tar" else ""
        if self.tar:
            (self.out / QUESTIONS).mkdir(exist_ok=True)
            refuse_links(self.out, [self.out / QUESTIONS])
            self._inner = webdataset.ShardWriter(out, shard, config, name=self.tar,
                                                 chunk=webdataset.joined(_tar_sample_parts))
        else:
            self._inner = FolderShardWriter(FOLDERS, out, shard)
        self.rows: list[bytes] = []

    def __enter__(self):
        self._inner.__enter__()
        return self

    def write_samples(self, samples: list[dict]) -> None:
        """Write a chunk of encoded samples; keep their index rows."""
        self._inner.write_samples(samples)
        self.rows += [json.dumps(index_row(s, self.tar)).encode() for s in samples]

    def finish(self) -> dict:
        """Finish the pack; keep the index rows for ``finalize``; return the entry."""
        entry = self._inner.finish()
        (self.out / PROGRESS_DIR).mkdir(exist_ok=True)
        atomic_write_bytes(_index_file(self.out / PROGRESS_DIR, self.shard.index),
                           b"\n".join(self.rows))
        return entry

    def __exit__(self, exc_type, exc, tb):
        return self._inner.__exit__(exc_type, exc, tb)


class _IndexedReader:
    """A shard's reader (tar or folders) that also hashes the shard's index rows as the seeds
    give them (``summary``, compared with ``data/metadata.jsonl`` and ``.parquet`` by
    ``check_dataset``), and names a tar shard by its file."""

    def __init__(self, inner, config):
        self._inner, self._config = inner, config
        self._rows = hashlib.sha256()

    def _shard(self, k: int):
        return shard_at(k, self._config.count, self._config.shard_size)

    def _tar(self, index: int) -> str:
        if self._config.vbvr_pack != "tar":
            return ""
        return _tar_name(self._shard(index // self._config.shard_size))

    def label(self, k: int) -> str:
        """The shard's tar file, or ``shard k`` (a set of folders)."""
        return self._tar(self._shard(k).start) or self._inner.label(k)

    def get(self, expected: dict) -> dict | None:
        """The task's actual members (the inner reader's); hashes its expected index row."""
        self._rows.update(row_line(index_row(expected, self._tar(expected["__index__"]))))
        return self._inner.get(expected)

    def summary(self) -> str:
        """SHA-256 of the shard's expected index rows, each a JSONL line."""
        return self._rows.hexdigest()

    def __getattr__(self, name):
        return getattr(self._inner, name)


def ShardReader(out: Path, entry: dict, problems: list[str], config):
    """Reader of one shard (for ``verify``), tar or folders as the run packed it."""
    if config.vbvr_pack == "folders":
        inner = FolderShardReader(FOLDERS, out, problems, config)
    else:
        inner = webdataset.ShardReader(out, entry, problems, config, parts=_tar_sample_parts,
                                       member_key=_tar_member_key)
    return _IndexedReader(inner, config)


def owned_paths(out: Path) -> list[Path]:
    """The tar shards or sample folders, and the index."""
    out = Path(out)
    paths = sorted((out / QUESTIONS).glob(f"{GENERATOR}_*.tar")) + [
        out / QUESTIONS / GENERATOR, out / INDEX_JSONL, out / INDEX_PARQUET]
    return [p for p in paths if p.exists()]


class VBVRFactory(OutputFormat):
    """VBVR-DataFactory's layout (see the module): tar shards or sample folders, and the index
    ``data/metadata.jsonl`` (and ``.parquet``) joined by ``finalize``."""

    NAME = NAME
    #: The layout's folders hold ground_truth.mp4.
    VIDEOS_REQUIRED = True
    shard_name = staticmethod(shard_name)
    task_metadata = staticmethod(task_metadata)
    owned_paths = staticmethod(owned_paths)

    def shards_are_files(self, config) -> bool:
        """Whether the run packs its shards as tar files (``--vbvr-pack tar``)."""
        return config.vbvr_pack == "tar"

    def writer(self, out: Path, shard, config) -> ShardWriter:
        """The shard in the run's pack, and its index rows."""
        return ShardWriter(out, shard, config)

    def task_folders(self, config) -> tuple[str, Callable] | None:
        """With ``--vbvr-pack folders``, the sample folders' root (a folder is named by its task
        index); None for tar shards."""
        return (FOLDERS.root, trailing_number) if config.vbvr_pack == "folders" else None

    def reader(self, out: Path, entry: dict, problems: list[str], config=None):
        """The shard in the run's pack, for ``verify``."""
        return ShardReader(out, entry, problems, config)

    def accounted(self, config) -> list[str]:
        """Paths (``*``: part of a name) this format's checks account for: the tar shards (or
        whatever is in the sample folders' root) and the index files of the run."""
        shards = ([f"{QUESTIONS}/{GENERATOR}_*.tar"] if config.vbvr_pack == "tar"
                  else [f"{_FOLDER_ROOT}/*", f"{_FOLDER_ROOT}/*/*"])
        return shards + [INDEX_JSONL] + ([INDEX_PARQUET] if config.vbvr_parquet else [])

    def temp_folders(self, out: Path) -> list[Path]:
        """Folders (besides ``out``) where a killed run may have left temp files."""
        return [p for p in (Path(out) / QUESTIONS, Path(out) / _FOLDER_ROOT) if p.is_dir()]

    def shard_present(self, out: Path, entry: dict, progress: Path, config) -> bool:
        """Whether a shard recorded as done is complete: its tar file (if a tar) and its index rows
        (or the finished index)."""
        out = Path(out)
        tar = out / entry["name"]
        if entry["name"].endswith(".tar") and not (tar.is_file()
                                                   and tar.stat().st_size == entry["bytes"]):
            return False
        if not entry["name"].endswith(".tar") and not folders_present(
                out / _FOLDER_ROOT, NumberedFolders(_SAMPLE_ID), entry["start"], entry["stop"]):
            return False
        return _index_file(progress, entry["shard"]).exists() or (out / INDEX_JSONL).exists()

    def finalize(self, config, out: Path, entries: list[dict], progress: Path) -> None:
        """Join the shards' index rows into ``data/metadata.jsonl`` (and ``.parquet``); kept if
        already written."""
        files = [_index_file(progress, e["shard"]) for e in entries]
        if not all(p.exists() for p in files):
            return
        write_index(Path(out), files, config.vbvr_parquet)

    def check_dataset(self, config, out: Path, plan, summaries: dict) -> list[str]:
        """Dataset-level problems for ``verify``: the index missing, of the wrong length or
        naming files that do not exist; shard files or sample folders not part of the dataset."""
        out = Path(out)
        try:
            rows = read_rows(out)
        except (OSError, ValueError) as e:
            return [f"{INDEX_JSONL}: missing or unreadable: {e}"]
        tars = {_tar_name(s) for s in plan}
        problems = check_index(config, out, rows, plan, summaries, tars)
        if config.vbvr_pack == "tar":
            problems += [f"{p.relative_to(out)}: shard not part of the dataset"
                         for p in sorted((out / QUESTIONS).glob(f"{GENERATOR}_*.tar"))
                         if str(p.relative_to(out)) not in tars]
        else:
            root = out / _FOLDER_ROOT
            expected = {sample_id(i) for i in range(config.count)}
            problems += [f"{_FOLDER_ROOT}/{p.name}: not part of the dataset"
                         for p in sorted(root.iterdir()) if p.name not in expected] \
                if root.is_dir() else []
        return problems


#: The format (the row of ``formats.FORMATS``).
FORMAT = VBVRFactory()
