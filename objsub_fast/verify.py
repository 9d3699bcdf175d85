"""``objsub-fast verify``: check a generated dataset against its manifest and the generator.

Every byte of a dataset is a pure function of its configuration, so ``verify`` regenerates
each shard and compares: per shard, present, its SHA-256 and task count as in the manifest, no
missing or extra tasks; per task, every member byte-identical to the regenerated one (the
format's reader compares a tar shard as a byte stream and parses it only where it differs, so
that a problem names its task and member). Then the format's dataset-level checks (stray
shards or folders, ``vmeval_dataset.json``).

``deep=True`` (``--deep``) also decodes every PNG with Pillow at the canvas size and compares
its pixels with the regenerated frame, and re-derives the removed set from the prompt and the
object list (``objsub_fast.interpret.interpret_prompt``), independently of the generator.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from .dataset.config import RunConfig
from .dataset.formats import get_format
from .dataset.manifest import MANIFEST, load_manifest
from .dataset.members import MEMBERS, encode_samples, wanted_members
from .dataset.parallel import run_jobs, worker_count
from .dataset.plan import shard_batches
from .dataset.progress import Progress
from .shards import Shard, plan_shards

__all__ = ["Report", "verify", "verify_shard", "check_task", "format_report"]


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


def _check_prompt(actual: dict, canvas_size) -> str | None:
    from .interpret import interpret_prompt

    try:
        record = json.loads(actual["json"])
        record = record.get("task", record)  # VBVR's metadata.json nests the task record
        data = record["object_subtraction_data"]
        derived = interpret_prompt(actual["txt"].decode(), data["objects"], canvas_size)
    except (ValueError, KeyError, TypeError, UnicodeDecodeError) as e:
        return f"prompt cannot be interpreted: {e}"
    if sorted(derived) != sorted(data["remove_object_ids"]):
        return (f"prompt re-derives removed ids {sorted(derived)}, record says "
                f"{sorted(data['remove_object_ids'])}")
    return None


def _check_member(suffix: str, actual: bytes, expected: bytes, batch, j: int,
                  config: RunConfig, deep: bool) -> str | None:
    check = MEMBERS[suffix].deep_check if deep else None
    problem = check(actual, batch, j, config) if check else None
    if problem is None and actual != expected:
        problem = ("bytes differ from the regenerated encoding" if check
                   else "differs from the task regenerated from its seed")
    return problem


def check_task(actual: dict, expected: dict, batch, j: int, config: RunConfig,
               deep: bool = False) -> list[str]:
    """Problems of one task's members against the regenerated task ``j`` of ``batch``."""
    wanted = [m.suffix for m in wanted_members(config)]
    problems = [f"{s} missing" for s in wanted if s not in actual]
    problems += [f"unexpected member {s!r}" for s in actual
                 if s not in wanted and not s.startswith("__")]
    for suffix in wanted:
        if suffix in actual:
            problem = _check_member(suffix, actual[suffix], expected[suffix], batch, j, config,
                                    deep)
            if problem:
                problems.append(f"{suffix} {problem}")
    if deep and "txt" in actual and "json" in actual:
        problem = _check_prompt(actual, config.canvas_size)
        if problem:
            problems.append(problem)
    return problems


def verify_shard(out: str, config: RunConfig, shard: Shard, entry: dict | None,
                 chunk_size: int | None = None, deep: bool = False) -> Report:
    """Verify one shard against its manifest entry and the regenerated shard."""
    fmt = get_format(config.format)
    report = Report(shards=1)
    name = fmt.shard_name(shard.index)
    if entry is None:
        report.problems.append(f"{name}: not listed in the manifest")
        entry = {"name": name}
    reader = fmt.ShardReader(Path(out), entry, report.problems, config)
    found = 0
    for start, batch in shard_batches(config, shard, chunk_size):
        for j, expected in enumerate(encode_samples(batch, start, config, fmt)):
            where = f"{name}: task {start + j} ({expected['__id__']})"
            actual = reader.get(expected)
            if actual is None:
                report.problems.append(f"{where}: missing")
                continue
            found += 1
            report.problems += [f"{where}: {p}"
                                for p in check_task(actual, expected, batch, j, config, deep)]
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


def verify(out, workers: int | None = None, quiet: bool = True, stream=None,
           deep: bool = False) -> Report:
    """Verify the dataset in ``out``; return a Report listing every problem found.

    Parameters
    ----------
    out : path
        Dataset folder (holds ``manifest.json``).
    workers : int, optional
        Parallel worker processes (default: all cores; at most one per shard).
    quiet : bool
        No progress bar (the default for library use; the command line shows one).
    stream : file, optional
        Where progress goes (default: standard error).
    deep : bool
        Also decode every frame and re-derive every removed set from its prompt (slower).
    """
    import joblib

    out = Path(out).absolute()
    config, manifest = load_manifest(out)
    worker_count(workers)
    report = Report()
    if not manifest.get("complete"):
        report.problems.append(f"{MANIFEST}: run is incomplete (rerun the same command to "
                               "finish it)")
    recorded = manifest["config"].get("video_encoder")
    if config.videos and recorded != config.to_json()["video_encoder"]:
        report.problems.append(f"{MANIFEST}: the videos were encoded with "
                               f"{(recorded or {}).get('build')}, this machine has "
                               f"{config.to_json()['video_encoder']['build']} (or other "
                               "settings): video bytes are expected to differ")
    entries = {e["shard"]: e for e in manifest.get("shards", [])}
    plan = plan_shards(config.count, config.shard_size)
    jobs = [joblib.delayed(verify_shard)(str(out), config, s, entries.get(s.index), deep=deep)
            for s in plan]
    progress = Progress(config.count, 0, stream=stream, quiet=quiet)
    try:
        results = run_jobs(jobs, worker_count(workers, len(plan)), ordered=True)
        for shard, result in zip(plan, results):
            report.merge(result)
            progress.update(shard.count)
    finally:
        progress.close()
    report.problems += get_format(config.format).check_dataset(config, out, plan)
    return report


def format_report(report: Report, out) -> str:
    """Human-readable summary followed by one line per problem."""
    head = (f"verified {report.tasks} tasks in {report.shards} shards of {out}: "
            + ("OK" if report.ok else f"{len(report.problems)} problem(s)"))
    return "\n".join([head] + [f"  - {p}" for p in report.problems])
