"""``objsub-fast verify``: check a generated dataset against its manifest and the generator.

Per shard: file present, SHA-256 and task count as in the manifest, no missing or extra tasks.
Per task: every frame decodes with Pillow at the canvas size, the task regenerated from its
seed matches byte for byte (frames, prompt, record), and the removed set re-derived from the
prompt and the object list (``objsub_fast.interpret.interpret_prompt``) equals the recorded one.
"""
from __future__ import annotations

import hashlib
import io
import json
import tarfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image

from .pipeline import Progress, RunConfig, shard_batches, worker_count
from .shards import Shard, plan_shards
from .writers import (MANIFEST, MEMBERS, VMEVAL_DATASET_FILE, VMEVAL_TASK_DIR, encode_samples,
                      folder_digest, folder_files, shard_filename)

#: PNG members: suffix -> (batch attribute with the expected pixels, Pillow mode).
PNG_MEMBERS = {"first.png": ("first_frames", "RGB"), "final.png": ("final_frames", "RGB"),
               "mask.png": ("instance_maps", "L")}


@dataclass
class Report:
    """Outcome of a verification: counts and one line per problem."""

    shards: int = 0
    tasks: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when no problem was found."""
        return not self.problems

    def merge(self, other: "Report") -> None:
        """Add another report's counts and problems."""
        self.shards += other.shards
        self.tasks += other.tasks
        self.problems.extend(other.problems)


# --------------------------------------------------------------------------- readers

class TarShardReader:
    """Samples of one WebDataset shard, read from its tar file."""

    def __init__(self, out: Path, entry: dict, problems: list[str]):
        self.where = entry["name"]
        path = out / entry["name"]
        self.samples: dict[str, dict] = {}
        self.sha = None
        if not path.is_file():
            problems.append(f"{self.where}: shard file missing")
            return
        self.sha = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                self.sha.update(block)
        try:
            with tarfile.open(path, mode="r:") as tar:
                for member in tar:
                    key, _, suffix = member.name.partition(".")
                    f = tar.extractfile(member)
                    self.samples.setdefault(key, {})[suffix] = f.read() if f else b""
        except (tarfile.TarError, EOFError, OSError) as e:
            problems.append(f"{self.where}: unreadable tar (truncated or corrupt): {e}")

    def digest(self) -> str | None:
        """SHA-256 of the shard file (None if it is missing)."""
        return None if self.sha is None else self.sha.hexdigest()

    def get(self, expected: dict) -> dict | None:
        """Actual members of the task ``expected`` describes (None if absent)."""
        return self.samples.pop(expected["__key__"], None)

    def leftovers(self) -> list[str]:
        """Sample keys present in the shard but not expected there."""
        return sorted(self.samples)


class FolderShardReader:
    """Tasks of one VMEvalKit shard, read from their task folders."""

    def __init__(self, out: Path, entry: dict, problems: list[str]):
        self.where = entry["name"]
        self.root = out / VMEVAL_TASK_DIR
        self.sha = hashlib.sha256()

    def digest(self) -> str:
        """Hash of every expected folder's files (same recipe as the writer)."""
        return self.sha.hexdigest()

    def get(self, expected: dict) -> dict | None:
        """Actual files of the task ``expected`` describes, keyed by suffix (None if absent)."""
        folder = self.root / expected["__id__"]
        if not folder.is_dir():
            return None
        by_name = {name: suffix for suffix, name in MEMBERS.items()}
        actual = {by_name.get(p.name, p.name): p.read_bytes() for p in folder.iterdir()}
        folder_digest(self.sha, expected["__id__"], folder_files(
            {s: actual[s] for s in MEMBERS if s in actual}))
        return actual

    def leftovers(self) -> list[str]:
        """Extra folders are found once for the whole dataset (see ``verify``)."""
        return []


READERS = {"webdataset": TarShardReader, "vmevalkit": FolderShardReader}


# --------------------------------------------------------------------------- checks

def _check_png(data: bytes, expected: np.ndarray, mode: str, size) -> str | None:
    try:
        with Image.open(io.BytesIO(data)) as im:
            im.load()
            if im.size != tuple(size) or im.mode != mode:
                return (f"is {im.mode} {im.size[0]}x{im.size[1]}, "
                        f"expected {mode} {size[0]}x{size[1]}")
            pixels = np.asarray(im)
    except Exception as e:  # Pillow raises many types for corrupt files
        return f"does not decode: {e}"
    if not np.array_equal(pixels, expected):
        return "pixels differ from the task regenerated from its seed"
    return None


def _check_prompt(actual: dict, canvas_size) -> str | None:
    from .interpret import interpret_prompt

    try:
        record = json.loads(actual["json"])
        data = record["object_subtraction_data"]
        derived = interpret_prompt(actual["txt"].decode(), data["objects"], canvas_size)
    except (ValueError, KeyError, TypeError, UnicodeDecodeError) as e:
        return f"prompt cannot be interpreted: {e}"
    if sorted(derived) != sorted(data["remove_object_ids"]):
        return (f"prompt re-derives removed ids {sorted(derived)}, record says "
                f"{sorted(data['remove_object_ids'])}")
    return None


def check_task(actual: dict, expected: dict, batch, j: int, config: RunConfig) -> list[str]:
    """Problems of one task's members against the regenerated task ``j`` of ``batch``."""
    problems = []
    wanted = [s for s in MEMBERS if s in expected]
    problems += [f"{s} missing" for s in wanted if s not in actual]
    problems += [f"unexpected member {s!r}" for s in actual if s not in wanted]
    for suffix in wanted:
        if suffix not in actual:
            continue
        if suffix in PNG_MEMBERS:
            attr, mode = PNG_MEMBERS[suffix]
            problem = _check_png(actual[suffix], getattr(batch, attr)[j], mode,
                                 config.canvas_size)
            if problem is None and actual[suffix] != expected[suffix]:
                problem = "bytes differ from the regenerated encoding"
        elif actual[suffix] != expected[suffix]:
            problem = "differs from the task regenerated from its seed"
        else:
            problem = None
        if problem:
            problems.append(f"{suffix} {problem}")
    if "txt" in actual and "json" in actual:
        problem = _check_prompt(actual, config.canvas_size)
        if problem:
            problems.append(problem)
    return problems


def verify_shard(out: str, config: RunConfig, shard: Shard, entry: dict | None,
                 chunk_size: int | None = None) -> Report:
    """Verify one shard against its manifest entry and the generator."""
    out = Path(out)
    report = Report(shards=1)
    name = shard_filename(config.format, shard.index)
    if entry is None:
        report.problems.append(f"{name}: not listed in the manifest")
        entry = {"name": name}
    reader = READERS[config.format](out, entry, report.problems)
    found = 0
    for start, batch in shard_batches(config, shard, chunk_size):
        for j, expected in enumerate(encode_samples(batch, start, config.format, config.masks)):
            where = f"{name}: task {start + j} ({expected['__id__']})"
            actual = reader.get(expected)
            if actual is None:
                report.problems.append(f"{where}: missing")
                continue
            found += 1
            report.problems += [f"{where}: {p}" for p in check_task(actual, expected, batch, j,
                                                                   config)]
    report.tasks = found
    report.problems += [f"{name}: unexpected sample {k!r}" for k in reader.leftovers()]
    if "sha256" in entry:
        if entry.get("count") != shard.count or entry.get("start") != shard.start:
            report.problems.append(f"{name}: manifest entry does not match the shard plan")
        if found != entry.get("count"):
            report.problems.append(f"{name}: {found} tasks present, manifest says "
                                   f"{entry.get('count')}")
        if reader.digest() not in (None, entry["sha256"]):
            report.problems.append(f"{name}: sha256 differs from the manifest")
    return report


def _check_vmeval_extras(out: Path, config: RunConfig, report: Report) -> None:
    root = out / VMEVAL_TASK_DIR
    folders = {p.name for p in root.iterdir()} if root.is_dir() else set()
    path = out / VMEVAL_DATASET_FILE
    try:
        dataset = json.loads(path.read_text())
        pairs = dataset["pairs"]
    except (OSError, ValueError, KeyError) as e:
        report.problems.append(f"{VMEVAL_DATASET_FILE}: missing or unreadable: {e}")
        return
    if len(pairs) != config.count:
        report.problems.append(f"{VMEVAL_DATASET_FILE}: {len(pairs)} pairs, expected "
                               f"{config.count}")
    ids = {p.get("id") for p in pairs}
    for pair in pairs:
        for key in ("first_image_path", "final_image_path"):
            if not (out / str(pair.get(key))).is_file():
                report.problems.append(f"{VMEVAL_DATASET_FILE}: pair {pair.get('id')}: "
                                       f"{key} {pair.get(key)!r} does not exist")
    for extra in sorted(folders - ids):
        report.problems.append(f"{VMEVAL_TASK_DIR}/{extra}: not part of the dataset")


def load_manifest(out: Path) -> tuple[RunConfig, dict]:
    """Read ``manifest.json``; raise ValueError with a clear message if unusable."""
    path = Path(out) / MANIFEST
    try:
        manifest = json.loads(path.read_text())
        config = RunConfig(**manifest["config"]).validate()
    except OSError as e:
        raise ValueError(f"cannot read {path}: {e.strerror}") from e
    except (ValueError, KeyError, TypeError) as e:
        raise ValueError(f"{path} is not a valid objsub-fast manifest: {e}") from e
    return config, manifest


def verify(out, workers: int | None = None, quiet: bool = True, stream=None) -> Report:
    """Verify the dataset in ``out``; return a Report listing every problem found.

    Parameters
    ----------
    out : path
        Dataset folder (holds ``manifest.json``).
    workers : int, optional
        Parallel worker processes (default: all cores).
    quiet : bool
        No progress bar (the default for library use; the command line shows one).
    stream : file, optional
        Where progress goes (default: standard error).
    """
    import joblib

    out = Path(out).absolute()
    config, manifest = load_manifest(out)
    workers = worker_count(workers)
    report = Report()
    if not manifest.get("complete"):
        report.problems.append(f"{MANIFEST}: run is incomplete (rerun the same command to "
                               "finish it)")
    entries = {e["shard"]: e for e in manifest.get("shards", [])}
    plan = plan_shards(config.count, config.shard_size)
    jobs = [joblib.delayed(verify_shard)(str(out), config, s, entries.get(s.index))
            for s in plan]
    progress = Progress(config.count, 0, stream=stream, quiet=quiet)
    try:
        results = joblib.Parallel(n_jobs=min(workers, len(plan)), return_as="generator")(jobs)
        for shard, result in zip(plan, results):
            report.merge(result)
            progress.update(shard.count)
    finally:
        progress.close()
    if config.format == "webdataset":
        names = {shard_filename(config.format, s.index) for s in plan}
        report.problems += [f"{p.name}: shard not part of the dataset"
                            for p in sorted(out.glob("objsub-*.tar")) if p.name not in names]
    else:
        _check_vmeval_extras(out, config, report)
    return report


def format_report(report: Report, out) -> str:
    """Human-readable summary followed by one line per problem."""
    head = (f"verified {report.tasks} tasks in {report.shards} shards of {out}: "
            + ("OK" if report.ok else f"{len(report.problems)} problem(s)"))
    return "\n".join([head] + [f"  - {p}" for p in report.problems])
