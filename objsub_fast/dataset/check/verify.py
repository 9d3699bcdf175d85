"""``objsub-fast verify``: check a generated dataset against its manifest and the generator.

Every byte of a dataset is a pure function of its configuration, so ``verify`` regenerates
each shard and compares: per shard, present, its SHA-256 and task count as in the manifest, no
missing or extra tasks; per task, every member byte-identical to the regenerated one (the
format's reader compares a tar shard as a byte stream and parses it only where it differs, so
that a problem names its task and member). Then the format's dataset-level checks (stray
shards or folders, ``vmeval_dataset.json`` against the file the configuration gives). Last,
every file the dataset does not own (``strays``) is listed: a warning, or a problem with
``strict=True`` (``--strict``).

Missing tasks are reported as ranges per shard. An unfinished run is said first, with the
command that finishes it; a dataset written by another ``generator_version`` than the
installed one gets a note saying both (``Report.notes``).

``deep=True`` (``--deep``) also decodes every PNG with Pillow at the canvas size and compares
its pixels with the regenerated frame, and re-derives the removed set from the prompt and the
object list (``objsub_fast.task.interpret.interpret_prompt``), independently of the generator.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ...cli_common import counted
from ...runtime.jsonfile import loads as loads_json
from ...runtime.links import links_in
from ..run.card import check_files
from ..run.run_config import RunConfig, load_manifest
from ..run.sample import sample_run
from ..formats import get_format, shards_are_files
from ..content.manifest import MANIFEST, PROGRESS_DIR, read_entries, valid_entry
from ..run.output import dataset_paths
from ..content.members import MEMBERS, encode_samples, wanted_members
from ..run.options import generate_command
from ...runtime.parallel import default_workers, run_jobs, worker_count
from ..content.plan import shard_batches
from ...runtime.progress import Progress
from ..content.shards import Shard, plan_shards
from .strays import files_in, stray_files, stray_lines

__all__ = ["Report", "verify", "verify_shard", "check_task", "format_report",
           "missing_ranges", "finish_command", "installed_generator_version"]

#: Ranges of missing tasks listed per shard; the rest are counted on one more line.
MAX_RANGES = 5
#: Problem (and warning) lines ``format_report`` prints; the rest are counted on one more
#: line (a hostile shard can hold millions of bad members).
MAX_PRINTED = 100


@dataclass
class Report:
    """Outcome of a verification: counts, notes (context, not problems), one line per
    problem and per warning (files the dataset does not own; not problems); ``summaries`` maps shard number -> its reader's ``summary()`` (for the format's
    dataset-level check)."""

    shards: int = 0
    tasks: int = 0
    expected: int | None = None  # tasks the dataset should hold (None: one shard's report)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    summaries: dict = field(default_factory=dict)
    shard_files: bool = True  # the shards are files (``formats.shards_are_files``)

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
        self.warnings.extend(other.warnings)
        self.summaries.update(other.summaries)


def missing_ranges(name: str, ranges: list[list], why: str | None) -> list[str]:
    """One line per range of missing task indices (``[first, last]``, or ``[first, last,
    where]`` with the folder of a single missing task), at most ``MAX_RANGES``.

    Examples
    --------
    >>> missing_ranges("objsub-000003.tar", [[30000, 39999]], "shard file missing")
    ['objsub-000003.tar: tasks 30000-39999 missing (shard file missing)']
    >>> missing_ranges("shard 9", [[92, 92, "tasks/l1_4/"]], None)
    ['shard 9: task 92 (tasks/l1_4/) missing']
    >>> missing_ranges("s", [[k, k] for k in range(0, 20, 2)], None)[-1]
    's: 5 more tasks missing in 5 more ranges'
    """
    note = f" ({why})" if why else ""
    lines = []
    for a, b, *where in ranges[:MAX_RANGES]:
        task = f"tasks {a}-{b}" if a < b else f"task {a}" + (f" ({where[0]})" if where else "")
        lines.append(f"{name}: {task} missing{note}")
    rest = ranges[MAX_RANGES:]
    if rest:
        lines.append(f"{name}: {sum(r[1] - r[0] + 1 for r in rest)} more tasks missing in "
                     f"{len(rest)} more ranges")
    return lines


def _check_prompt(actual: dict, canvas_size) -> str | None:
    from ...task.interpret import interpret_prompt

    try:
        record = loads_json(actual["json"])
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
               deep: bool = False, file_name=str) -> list[str]:
    """Problems of one task's members against the regenerated task ``j`` of ``batch``;
    ``file_name`` says a member (by suffix) as the user sees it on disk."""
    wanted = [m.suffix for m in wanted_members(config)]
    problems = [f"{file_name(s)} missing" for s in wanted if s not in actual]
    problems += [f"unexpected member {file_name(s)!r}" for s in actual
                 if s not in wanted and not s.startswith("__")]
    for suffix in wanted:
        if suffix in actual:
            problem = _check_member(suffix, actual[suffix], expected[suffix], batch, j, config,
                                    deep)
            if problem:
                problems.append(f"{file_name(suffix)} {problem}")
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
    reader = fmt.reader(Path(out), entry or {"name": name}, report.problems, config)
    label = reader.label(shard.index) if hasattr(reader, "label") else name
    location = getattr(reader, "location", lambda expected: None)
    file_name = getattr(reader, "file_name", str)
    found, missing = 0, []
    for start, batch in shard_batches(config, shard, chunk_size):
        for j, expected in enumerate(encode_samples(batch, start, config, fmt)):
            actual = reader.get(expected)
            if actual is None:
                if missing and missing[-1][1] == start + j - 1:
                    missing[-1][1] = start + j
                else:
                    missing.append([start + j, start + j, location(expected)])
                continue
            found += 1
            where = location(expected) or expected["__id__"]
            report.problems += [f"{label}: task {start + j} ({where}): {p}"
                                for p in check_task(actual, expected, batch, j, config, deep,
                                                    file_name)]
    report.tasks = found
    why = "shard not finished" if entry is None and not finished_run else reader.absent()
    report.problems += missing_ranges(label, [r if r[2] else r[:2] for r in missing], why)
    report.problems += [f"{label}: unexpected sample {k!r}" for k in reader.leftovers()]
    report.summaries[shard.index] = reader.summary()
    if entry is not None and "sha256" in entry:
        if entry.get("count") != shard.count or entry.get("start") != shard.start:
            report.problems.append(f"{label}: manifest entry does not match the shard plan")
        if found != entry.get("count"):
            report.problems.append(f"{label}: {counted(found, 'task')} present, manifest says "
                                   f"{entry.get('count')}")
        if reader.digest() not in (None, entry["sha256"]):
            report.problems.append(f"{label}: sha256 differs from the manifest")
    return report


def verify(out, workers: int | None = None, quiet: bool = True, stream=None,
           deep: bool = False, storage_options: dict | None = None,
           strict: bool = False) -> Report:
    """Verify the dataset in ``out``; return a Report listing every problem found.

    Parameters
    ----------
    out : path or URL
        Dataset folder (holds ``manifest.json``), or an object-store URL
        (``objsub_fast.storage``; ``storage_options`` are its fsspec options).
    workers : int, optional
        Parallel worker processes (default: all cores, or 1 for a dataset too small to gain
        from more, as ``generate`` decides; at most one per shard).
    quiet : bool
        No progress bar (the default for library use; the command line shows one).
    stream : file, optional
        Where progress goes (default: standard error).
    deep : bool
        Also decode every frame and re-derive every removed set from its prompt (slower).
    strict : bool
        Files in the dataset folder that the dataset does not own are problems, not warnings.

    Examples
    --------
    >>> import tempfile
    >>> from objsub_fast.dataset.run.pipeline import generate
    >>> out = Path(tempfile.mkdtemp()) / "data"
    >>> _ = generate(RunConfig(count=2), out, workers=1, quiet=True)
    >>> _ = (out / "extra.txt").write_text("mine")
    >>> report = verify(out, workers=1)
    >>> report.ok, report.warnings
    (True, ['extra.txt: not part of the dataset (objsub-fast did not write it)'])
    >>> verify(out, workers=1, strict=True).ok
    False
    """
    from ..run.target import open_target

    target = open_target(out, storage_options, option="DIR")
    try:
        with target.naming_errors():
            target.pull()
            return _verify(target, workers, quiet, stream, deep, strict)
    finally:
        target.close()


def _verify(target, workers, quiet, stream, deep, strict) -> Report:
    """``verify`` of a target (``objsub_fast.dataset.run.target``) laid out in its view."""
    out = target.view
    config, manifest = load_manifest(out, other_version_ok=True)
    worker_count(workers)
    report = Report()
    linked = links_in(out, dataset_paths(get_format(config.format), out))
    if linked:  # never followed: the dataset is not checked through them
        report.problems += [f"{rel}: a symbolic link inside the dataset (objsub-fast never "
                            "follows one); remove it" for rel in linked]
        return report
    recorded = manifest["config"].get("video_encoder")
    if config.videos and recorded != config.to_json()["video_encoder"]:
        report.problems.append(f"{MANIFEST}: the videos were encoded with "
                               f"{(recorded or {}).get('build')}, this machine has "
                               f"{config.to_json()['video_encoder']['build']} (or other "
                               "settings): video bytes are expected to differ")
    plan = plan_shards(config.count, config.shard_size)
    finished = bool(manifest.get("complete"))
    shards = manifest.get("shards")
    entries = {e["shard"]: e for e in (shards if isinstance(shards, list) else [])
               if valid_entry(e)}
    if not finished:
        entries.update(_progress_entries(out))
    installed = installed_generator_version(config)
    if installed != config.generator_version:
        report.notes.append(
            f"this dataset was written by objsub-fast generator_version "
            f"{config.generator_version}; the installed one is {installed}. verify regenerates "
            "with the installed generator, so tasks whose output changed between the two "
            "versions (see 'Generator versions' in docs/generating.md) are expected to differ "
            f"byte for byte; verify with generator_version {config.generator_version} "
            "installed to check this dataset exactly")
    jobs = target.verify_jobs(verify_shard, config, plan, entries, deep=deep,
                              finished_run=finished)
    n_workers = 1 if target.in_process else worker_count(workers, len(plan))
    if workers is None and n_workers > 1:  # a pool that would cost more than it saves
        try:
            per_task = sample_run(config, out).seconds_per_task
        except ValueError:  # parameters this engine refuses: the shards' checks will say so
            per_task = float("inf")
        n_workers = min(n_workers, default_workers(config.count, per_task))
    progress = Progress(config.count, 0, stream=stream, quiet=quiet)
    complete = 0
    try:
        results = run_jobs(jobs, n_workers, ordered=True)
        for shard, result in zip(plan, results):
            report.merge(result)
            complete += result.tasks == shard.count
            progress.update(shard.count)
    finally:
        progress.close()
    report.expected = config.count
    report.shard_files = shards_are_files(config)
    if not finished:
        report.problems.insert(0, (
            f"{MANIFEST}: the run is incomplete ({report.tasks} of {config.count} tasks "
            f"written, {complete} of {len(plan)} shards complete); finish it with: "
            f"{finish_command(manifest['config'], target.name)}"))
    report.problems += get_format(config.format).check_dataset(config, out, plan,
                                                               report.summaries)
    if finished:
        problems, notes = check_files(config, out)
        report.problems += problems
        report.notes += notes
    strays = stray_lines(stray_files(files_in(out), config))  # a store: its listing's view
    (report.problems if strict else report.warnings).extend(strays)
    return report


def _progress_entries(out: Path) -> dict[int, dict]:
    """Entries of the shards an unfinished run has finished (its valid progress records)."""
    return read_entries(sorted((out / PROGRESS_DIR).glob("*.json")))


def finish_command(config: dict, out) -> str:
    """The ``generate`` command that finishes (or resumes) the run recorded in ``out``: every
    option of the manifest's ``config`` (``dataset.run.options.generate_command``).

    Examples
    --------
    >>> run = RunConfig(count=20, levels=("L1", "L2"), shard_size=5, vocabulary="extended")
    >>> finish_command(run.to_json(), "data")
    'objsub-fast generate --out data --count 20 --levels L1,L2 --seed 0 --format webdataset \
--shard-size 5 --canvas-size 256x256 --vocabulary extended'
    """
    return generate_command(config, out)


def installed_generator_version(config: RunConfig) -> str:
    """The ``generator_version`` the installed package writes for ``config``'s options."""
    from dataclasses import fields

    given = {f.name: getattr(config, f.name) for f in fields(config)
             if f.init and f.name != "generator_version"}
    return RunConfig(**given).generator_version


def _first_lines(lines: list[str], prefix: str, word: str) -> list[str]:
    """The first ``MAX_PRINTED`` of ``lines`` after ``prefix``, then how many more there are.

    Examples
    --------
    >>> _first_lines([str(k) for k in range(MAX_PRINTED + 3)], "  - ", "problem")[-2:]
    ['  - 99', '  ... and 3 more problems']
    """
    shown = [f"{prefix}{line}" for line in lines[:MAX_PRINTED]]
    rest = len(lines) - MAX_PRINTED
    return shown + ([f"  ... and {counted(rest, 'more ' + word)}"] if rest > 0 else [])


def format_report(report: Report, out) -> str:
    """Human-readable summary, the notes, the warnings, then one line per problem (the first
    ``MAX_PRINTED`` warnings and problems, then how many more)."""
    of = f" of {report.expected:,}" if report.expected not in (None, report.tasks) else ""
    tasks = f"{report.tasks:,}{of} task" + ("" if report.tasks == 1 and not of else "s")
    shards = f" in {counted(report.shards, 'shard')}" if report.shard_files else ""
    head = (f"verified {tasks}{shards} of {out}: "
            + ("OK" if report.ok else counted(len(report.problems), "problem"))
            + (f", {counted(len(report.warnings), 'warning')}" if report.warnings else ""))
    return "\n".join([head] + [f"  note: {n}" for n in report.notes]
                     + _first_lines(report.warnings, "  warning: ", "warning")
                     + _first_lines(report.problems, "  - ", "problem"))
