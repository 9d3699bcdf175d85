"""``objsub-fast verify``: check a generated dataset against its manifest and the generator.

Every byte of a dataset is a pure function of its configuration, so ``verify`` regenerates
each shard and compares: per shard, present, its SHA-256 and task count as in the manifest, no
missing or extra tasks; per task, every member byte-identical to the regenerated one (the
format's reader compares a tar shard as a byte stream and parses it only where it differs, so
that a problem names its task and member). Then the format's dataset-level checks (stray
shards or folders, ``vmeval_dataset.json`` against the file the configuration gives).

Missing tasks are reported as ranges per shard. An unfinished run is said first, with the
command that finishes it; a dataset written by another ``generator_version`` than the
installed one gets a note saying both (``Report.notes``).

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
from .dataset.manifest import MANIFEST, PROGRESS_DIR, load_manifest
from .dataset.members import MEMBERS, encode_samples, wanted_members
from .dataset.parallel import run_jobs, worker_count
from .dataset.plan import shard_batches
from .dataset.progress import Progress
from .shards import Shard, plan_shards

__all__ = ["Report", "verify", "verify_shard", "check_task", "format_report",
           "missing_ranges", "finish_command", "installed_generator_version"]

#: Ranges of missing tasks listed per shard; the rest are counted on one more line.
MAX_RANGES = 5


@dataclass
class Report:
    """Outcome of a verification: counts, notes (context, not problems) and one line per
    problem; ``summaries`` maps shard number -> its reader's ``summary()`` (for the format's
    dataset-level check)."""

    shards: int = 0
    tasks: int = 0
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    summaries: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True when no problem was found."""
        return not self.problems

    def merge(self, other: "Report") -> None:
        """Add another report's counts, problems, notes and summaries."""
        self.shards += other.shards
        self.tasks += other.tasks
        self.problems.extend(other.problems)
        self.notes.extend(other.notes)
        self.summaries.update(other.summaries)


def missing_ranges(name: str, ranges: list[list[int]], why: str | None) -> list[str]:
    """One line per range of missing task indices (``[first, last]``), at most ``MAX_RANGES``.

    Examples
    --------
    >>> missing_ranges("objsub-000003.tar", [[30000, 39999]], "shard file missing")
    ['objsub-000003.tar: tasks 30000-39999 missing (shard file missing)']
    >>> missing_ranges("s", [[k, k] for k in range(0, 20, 2)], None)[-1]
    's: 5 more tasks missing in 5 more ranges'
    """
    note = f" ({why})" if why else ""
    lines = [f"{name}: task{'s' if a < b else ''} {a}{f'-{b}' if a < b else ''} missing{note}"
             for a, b in ranges[:MAX_RANGES]]
    rest = ranges[MAX_RANGES:]
    if rest:
        lines.append(f"{name}: {sum(b - a + 1 for a, b in rest)} more tasks missing in "
                     f"{len(rest)} more ranges")
    return lines


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
                 chunk_size: int | None = None, deep: bool = False,
                 finished_run: bool = True) -> Report:
    """Verify one shard against its manifest entry and the regenerated shard.

    ``entry`` is None for a shard the manifest does not list: a problem in a finished run
    (``finished_run``), a shard not written yet in an unfinished one.
    """
    fmt = get_format(config.format)
    report = Report(shards=1)
    name = fmt.shard_name(shard.index)
    if entry is None and finished_run:
        report.problems.append(f"{name}: not listed in the manifest")
    reader = fmt.ShardReader(Path(out), entry or {"name": name}, report.problems, config)
    found, missing = 0, []
    for start, batch in shard_batches(config, shard, chunk_size):
        for j, expected in enumerate(encode_samples(batch, start, config, fmt)):
            actual = reader.get(expected)
            if actual is None:
                if missing and missing[-1][1] == start + j - 1:
                    missing[-1][1] = start + j
                else:
                    missing.append([start + j, start + j])
                continue
            found += 1
            report.problems += [f"{name}: task {start + j} ({expected['__id__']}): {p}"
                                for p in check_task(actual, expected, batch, j, config, deep)]
    report.tasks = found
    why = "shard not finished" if entry is None and not finished_run else reader.absent()
    report.problems += missing_ranges(name, missing, why)
    report.problems += [f"{name}: unexpected sample {k!r}" for k in reader.leftovers()]
    report.summaries[shard.index] = reader.summary()
    if entry is not None and "sha256" in entry:
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
    config, manifest = load_manifest(out, other_version_ok=True)
    worker_count(workers)
    report = Report()
    recorded = manifest["config"].get("video_encoder")
    if config.videos and recorded != config.to_json()["video_encoder"]:
        report.problems.append(f"{MANIFEST}: the videos were encoded with "
                               f"{(recorded or {}).get('build')}, this machine has "
                               f"{config.to_json()['video_encoder']['build']} (or other "
                               "settings): video bytes are expected to differ")
    plan = plan_shards(config.count, config.shard_size)
    finished = bool(manifest.get("complete"))
    entries = {e["shard"]: e for e in manifest.get("shards", [])}
    if not finished:
        entries.update(_progress_entries(out))
        report.problems.append(
            f"{MANIFEST}: the run is incomplete ({len(entries)} of {len(plan)} shards "
            f"finished); finish it with: {finish_command(config, out)}")
    installed = installed_generator_version(config)
    if installed != config.generator_version:
        report.notes.append(
            f"this dataset was written by objsub-fast generator_version "
            f"{config.generator_version}; the installed one is {installed}. verify regenerates "
            "with the installed generator, so tasks whose output changed between the two "
            "versions (see objsub_fast/_version.py) are expected to differ byte for byte; "
            f"verify with generator_version {config.generator_version} installed to check "
            "this dataset exactly")
    jobs = [joblib.delayed(verify_shard)(str(out), config, s, entries.get(s.index), deep=deep,
                                         finished_run=finished)
            for s in plan]
    progress = Progress(config.count, 0, stream=stream, quiet=quiet)
    try:
        results = run_jobs(jobs, worker_count(workers, len(plan)), ordered=True)
        for shard, result in zip(plan, results):
            report.merge(result)
            progress.update(shard.count)
    finally:
        progress.close()
    report.problems += get_format(config.format).check_dataset(config, out, plan,
                                                               report.summaries)
    return report


def _progress_entries(out: Path) -> dict[int, dict]:
    """Entries of the shards an unfinished run has finished (its progress records)."""
    entries = {}
    for record in sorted((out / PROGRESS_DIR).glob("*.json")):
        try:
            entry = json.loads(record.read_text())
            entries[int(entry["shard"])] = entry
        except (OSError, ValueError, KeyError, TypeError):
            continue  # a record that cannot be read: its shard counts as not finished
    return entries


def finish_command(config: RunConfig, out) -> str:
    """The ``generate`` command that finishes (or resumes) the run of ``config`` in ``out``.

    Examples
    --------
    >>> finish_command(RunConfig(count=20, levels=("L1", "L2"), shard_size=5), "data")
    'objsub-fast generate --out data --count 20 --levels L1,L2 --seed 0 --format webdataset \
--shard-size 5 --canvas-size 256x256'
    """
    import shlex

    w, h = config.canvas_size
    return (f"objsub-fast generate --out {shlex.quote(str(out))} --count {config.count} "
            f"--levels {','.join(config.levels)} --seed {config.seed} --format {config.format} "
            f"--shard-size {config.shard_size} --canvas-size {w}x{h}"
            + (" --masks" if config.masks else "")
            + (f" --videos --video-style {config.video_style} --fps {config.fps} "
               f"--video-frames {config.video_frames} --video-encoder {config.encoder}"
               if config.videos else ""))


def installed_generator_version(config: RunConfig) -> str:
    """The ``generator_version`` the installed package writes for ``config``'s options."""
    from dataclasses import fields

    given = {f.name: getattr(config, f.name) for f in fields(config)
             if f.init and f.name != "generator_version"}
    return RunConfig(**given).generator_version


def format_report(report: Report, out) -> str:
    """Human-readable summary, the notes, then one line per problem."""
    head = (f"verified {report.tasks} tasks in {report.shards} shards of {out}: "
            + ("OK" if report.ok else f"{len(report.problems)} problem(s)"))
    return "\n".join([head] + [f"  note: {n}" for n in report.notes]
                     + [f"  - {p}" for p in report.problems])
