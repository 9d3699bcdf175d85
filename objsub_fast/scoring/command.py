"""``objsub-fast score``: score a folder of model outputs, write JSONL and a summary table.

    objsub-fast score --questions DIR --outputs DIR [--out scores.jsonl] [--summary-csv PATH]
                      [--report DIR] [--workers N] [--quiet]

One JSON line per job (task record fields, ``model``, ``run_id``, ``error``, ``metrics``,
``pass``, ``score``, ``dimensions``, ``registration``). An unscorable job (missing/empty/
undecodable video, question without metadata, a record outside the generator's limits, a video
that does not show the task's first frame, ...) is a line with ``error`` set; the run goes on and
the summary counts it. Beside the JSONL go the full summary tables (``_summary.txt`` to read,
``_summary.csv``), ``leaderboard.json`` and ``leaderboard.html`` (``leaderboard``) and, for
VBVR-Bench layouts (``vbvr``), ``{model}_vbvr_results.json``; ``--report DIR`` writes the HTML
report (``report``). What is printed: the pass rate of each model by level
(``summary.level_table``), where the files went, and the closing count line. Exit code 0 when
the run completed (whatever the scores); 2 for unusable arguments or outputs of which none has
a question (one line saying why; nothing is written), and 2 for a run in which no output could
be scored (every record, the tables, the leaderboard and the report are written first, then
one line saying why).
"""
from __future__ import annotations

import csv
import io
import json
import os
import sys
from collections import defaultdict
from pathlib import Path

from ..cli_common import add_quiet, add_workers, counted, error_line, not_a_folder
from ..runtime.parallel import worker_count
from ..runtime.atomic import AtomicWriter
from ..runtime.errors import UsageError
from .api import error_record, score_video_tracked, task_fields
from .reading.layout import find_jobs, why_nothing_to_score
from .reporting.leaderboard import write_leaderboard
from .reporting.journal import ScoreJournal, job_key, journal_path
from .reading.limits import Limits
from .reading.names import TOTAL, printable, spreadsheet_cell
from .reading.vbvr import write_results
from .reporting.summary import (CHECK_HEADINGS, CHECKS_HEADING, HEADINGS, SUMMARY_COLUMNS, count_line,
                      known, level_table, outcome)
from .judging.thresholds import METRICS

__all__ = ["add_arguments", "run", "score_job", "summarize", "format_table", "count_line",
           "level_table", "nothing_scored", "outcome", "HEADINGS", "CHECK_HEADINGS"]

ALL = TOTAL
#: Largest --max-decoded-mb (1 TiB) and --max-seconds (a day) the command takes.
MAX_DECODED_MB = 1 << 20
MAX_SECONDS = 86_400
#: Frames drawn per output in the HTML report.
STRIP_FRAMES = 6


def add_arguments(parser) -> None:
    """Add the ``score`` options to an argparse parser."""
    parser.description = (
        "Score model videos (mp4/webm/gif, frame folders or final images) against their Object "
        "Subtraction tasks, pixel-exactly: one JSON line per output with pass/fail and a score "
        "in [0, 1], and a summary by model, level and rule kind (printed and as CSV); "
        "VBVR-Bench folders also get {model}_vbvr_results.json. Videos of any size, padding, "
        "crop or camera motion are registered on the task's first frame. Unscorable outputs "
        "become error records. Thresholds: objsub_fast.scoring.THRESHOLDS.")
    parser.add_argument("--questions", default=None,
                        help="folder of question folders ({task_id}/question_metadata.json, "
                             "possibly under object_subtraction_task/), or VBVR-Bench's "
                             "{split}/O-43_object_subtraction_data-generator/{index:05d}/; "
                             "optional when every VMEvalKit run has its question/ copy")
    parser.add_argument("--outputs", required=True,
                        help="model outputs: VMEvalKit layout {model}/object_subtraction_task/"
                             "{task_id}/{run_id}/video/*.mp4; VBVR-Bench's [{model}/]{split}/"
                             "O-43_object_subtraction_data-generator/{index:05d}.mp4; or "
                             "{task_id}.mp4 / {task_id}/ frames (optionally one folder per "
                             "model)")
    parser.add_argument("--out", default="scores.jsonl",
                        help="per-task JSONL (default scores.jsonl); the summary, results "
                             "and leaderboard files go beside it")
    parser.add_argument("--summary-csv", type=Path, default=None,
                        help="summary table by model, level and rule kind "
                             "(default: --out with _summary.csv)")
    add_workers(parser, "outputs")
    add_quiet(parser)
    parser.add_argument("--progress", action="store_true",
                        help="a progress line every 1%% of the outputs also when standard error "
                             "is not a terminal (default there: none; a terminal shows a bar)")
    parser.add_argument("--report", type=Path, default=None, metavar="DIR",
                        help="write an HTML report (index.html and one image strip per output) "
                             "into DIR")
    limits = Limits()
    group = parser.add_argument_group(
        "limits of each output", "an output over one is its error record naming the limit; "
        "the others are scored (docs/scoring.md: Scoring untrusted submissions)")
    group.add_argument("--max-frames", type=int, default=limits.frames, metavar="N",
                       help="frames an output may hold, an integer >= 1 (default: "
                            "%(default)s)")
    group.add_argument("--max-frame-pixels", type=int, default=limits.pixels, metavar="N",
                       help="pixels a frame may hold (width x height), an integer >= 1 "
                            "(default: %(default)s, 4096x4096)")
    group.add_argument("--max-decoded-mb", type=float, default=limits.decoded_bytes / 2**20,
                       metavar="MB", help="MB of decoded pictures an output may take, in "
                                          f"(0, {MAX_DECODED_MB:,}] (default: %(default)g)")
    group.add_argument("--max-seconds", type=float, default=limits.seconds, metavar="S",
                       help=f"seconds of scoring an output may take, in (0, {MAX_SECONDS:,}] "
                            "(default: %(default)g; kernel compiling not counted)")
    parser.add_argument("--storage-options", default=None, metavar="JSON",
                        help="fsspec options of store URLs: --questions, --outputs and --out "
                             "may be s3://, gs://, az:// URLs (see docs/object_storage.md)")


def score_job(job, report_dir=None, limits: Limits | None = None) -> dict:
    """Score one :class:`layout.Job` under ``limits`` (default ``Limits()``); never raises.
    With ``report_dir``, also draw its strip."""
    head = {"model": job.model, "task_id": job.task_id, "run_id": job.run_id,
            "question": str(job.question) if job.question else None,
            "output": str(job.output) if job.output else None}
    if job.split_folder is not None:
        head.update(split_folder=job.split_folder, model_path=job.model_path)
    if job.unknown:
        return {**error_record({**head, "level": None, "rule_kind": None},
                               f"unknown task: {job.task_id} is not in --questions"),
                "unknown": True}
    tracker = None
    try:
        record = job.load_record()
    except ValueError as exc:
        res = error_record({**head, "level": None, "rule_kind": None}, str(exc))
    else:
        head["question_source"] = job.question_source
        head["prompt"] = record.get("prompt") if isinstance(record, dict) else None
        if job.output is None:
            res = error_record(task_fields(record),
                               f"missing: no model output for {job.task_id}")
        elif job.refused:
            res = error_record(task_fields(record), job.refused)
        else:
            res, tracker = score_video_tracked(record, job.output,
                                               keep_samples=STRIP_FRAMES if report_dir else 0,
                                               limits=limits)
            res.pop("source", None)
    res = {**head, **res, "task_id": res.get("task_id") or job.task_id}
    if report_dir is not None:
        from .reporting.report import write_strip

        res["report_image"] = write_strip(report_dir, res, tracker)
    return res


def summarize(results) -> list[dict]:
    """Summary rows by (model, level, rule kind), with ``*`` rows for totals; runs of unknown
    tasks are counted nowhere."""
    groups = defaultdict(list)
    for r in known(results):
        lv, kind = r.get("level") or "?", r.get("rule_kind") or "?"
        for key in ((r["model"], lv, kind), (r["model"], lv, ALL), (r["model"], ALL, ALL),
                    (ALL, ALL, ALL)):
            groups[key].append(r)
    rows = []
    for (model, lv, kind), rs in sorted(groups.items()):
        scored = [r for r in rs if not r.get("error")]
        row = {"model": model, "level": lv, "rule_kind": kind, "tasks": len(rs),
               "errors": len(rs) - len(scored),
               "pass_rate": round(sum(bool(r["pass"]) for r in rs) / len(rs), 4),
               "mean_score": round(sum(r.get("score", 0.0) for r in rs) / len(rs), 4)}
        for m in METRICS:
            verdicts = [r["metrics"][m]["pass"] for r in scored
                        if r["metrics"].get(m, {}).get("pass") is not None]
            row[f"{m}_pass"] = round(sum(verdicts) / len(verdicts), 4) if verdicts else None
        ious = [r["metrics"]["final_object_match"]["iou"] for r in scored]
        row["mean_iou"] = round(sum(ious) / len(ious), 4) if ious else None
        rows.append(row)
    return rows


def format_table(rows) -> str:
    """Render summary rows as a fixed-width text table: headings that say what each column
    holds (:data:`HEADINGS`) under a line naming the check columns' group.

    Examples
    --------
    >>> row = dict.fromkeys(SUMMARY_COLUMNS, 1.0) | {"model": "m", "level": "*",
    ...                                               "rule_kind": "*", "tasks": 2, "errors": 0}
    >>> print(format_table([row]).splitlines()[1][:60])
    model  level  rule_kind  tasks  not_scored  pass_rate_all  m
    """
    head = [HEADINGS.get(c, c) for c in SUMMARY_COLUMNS]
    cells = [["-" if r[c] is None else printable(r[c]) for c in SUMMARY_COLUMNS] for r in rows]
    widths = [max(len(h), *(len(c[i]) for c in cells)) if cells else len(h)
              for i, h in enumerate(head)]
    first = SUMMARY_COLUMNS.index(f"{METRICS[0]}_pass")
    lines = [" " * sum(w + 2 for w in widths[:first]) + CHECKS_HEADING,
             "  ".join(h.ljust(w) for h, w in zip(head, widths))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(cell, widths)) for cell in cells]
    return "\n".join(line.rstrip() for line in lines)


def _results(jobs, workers: int, progress: bool, report_dir=None, limits=None,
             journal=None):
    """The result of every job, in the order of ``jobs``. With a ``journal``, the jobs it
    already holds are not scored again, and each new result is journaled as it finishes.
    With ``progress``, progress as ``generate`` shows it: a bar on a terminal, a plain line
    every 1% (and at the end) otherwise."""
    from joblib import Parallel, delayed

    from ..runtime.progress import Progress

    done = journal.done if journal is not None else {}
    todo = [job for job in jobs if job_key(job) not in done]
    bar = Progress(len(todo), 0, quiet=not progress)
    step, pending = max(1, len(todo) // 100), 0
    if workers == 1:
        gen = (score_job(job, report_dir, limits) for job in todo)
    else:
        gen = Parallel(n_jobs=workers, return_as="generator", batch_size=1)(
            delayed(score_job)(job, report_dir, limits) for job in todo)
    fresh = {}
    for n, (job, res) in enumerate(zip(todo, gen), 1):
        res = json.loads(json.dumps(res))   # as a resumed run reads it back: the same bytes
        fresh[job_key(job)] = res
        if journal is not None:
            journal.add(job_key(job), res)
        pending += 1
        if pending >= step or n == len(todo):
            bar.update(pending)
            pending = 0
    bar.close()
    return [done.get(job_key(job)) or fresh[job_key(job)] for job in jobs]


def _journal_header(args, report_dir) -> dict:
    """What names a run for its journal: its inputs, limits and report folder."""
    limits = limits_of(args)
    return {"questions": str(args.questions), "outputs": str(args.outputs),
            "report": str(report_dir), "limits": [limits.frames, limits.pixels,
                                                  limits.decoded_bytes, limits.seconds]}


def _check_writable(path: Path, option: str, folder: bool = False) -> None:
    """Raise UsageError naming ``option`` when ``path`` cannot be written (checked before any
    scoring, so a long run never ends without its results): a folder where a file goes, a
    file where a folder goes ("Not a directory"), no permission. Nothing is created here: the
    run makes the folders once scoring starts, and removes them if it is interrupted."""
    path = Path(path)
    if not folder and path.is_dir():
        raise UsageError(f"{option} is a folder, not a file: {path}")
    if folder and path.exists() and not path.is_dir():
        raise UsageError(f"{option} cannot be written: Not a directory ({path} is a file)")
    blocker = not_a_folder(path)
    if blocker is not None:
        raise UsageError(f"{option} cannot be written: Not a directory ({blocker} is a file)")
    where = path if folder else path.parent
    existing = next(p for p in (where, *where.parents) if p.exists())
    if not os.access(existing, os.W_OK | os.X_OK):
        raise UsageError(f"{option} cannot be written: no permission to write in {existing}")


def limits_of(args) -> Limits:
    """The :class:`limits.Limits` of the parsed ``args`` (defaults for a namespace without
    them); UsageError naming the flag when one is not positive."""
    default = Limits()
    mb = getattr(args, "max_decoded_mb", None)
    limits = Limits(frames=getattr(args, "max_frames", default.frames),
                    pixels=getattr(args, "max_frame_pixels", default.pixels),
                    decoded_bytes=default.decoded_bytes if mb is None else int(mb * 2**20),
                    seconds=getattr(args, "max_seconds", default.seconds))
    try:
        limits.check()
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    for flag, value, top in (("--max-decoded-mb", mb, MAX_DECODED_MB),
                             ("--max-seconds", limits.seconds, MAX_SECONDS)):
        if value is not None and value > top:
            raise UsageError(f"{flag} must be in (0, {top:,}]; got {value:g}")
    return limits


def _prepare(args, questions, outputs, out) -> list:
    """The jobs of a run (``questions``, ``outputs`` and ``out`` local: fetched or to be
    published when given as URLs), once every argument is checked (UsageError otherwise)."""
    worker_count(args.workers)
    limits_of(args)
    jobs = find_jobs(questions, outputs)
    why = why_nothing_to_score(jobs, args.questions, args.outputs)
    if why is not None:
        raise UsageError(why)
    _check_writable(out, "--out")
    if args.summary_csv is not None:
        _check_writable(args.summary_csv, "--summary-csv")
    if getattr(args, "report", None) is not None:
        _check_writable(args.report, "--report", folder=True)
    return jobs


def _write_text(path: Path, text: str) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with AtomicWriter(path) as fh:
        fh.write(text.encode())


def _make_folders(folder: Path) -> list[Path]:
    """Create ``folder`` and its missing parents; return the outermost one this call created
    (a list of at most one: what to remove to leave no trace)."""
    folder = Path(folder)
    missing = [p for p in (folder, *folder.parents) if not p.exists()]
    folder.mkdir(parents=True, exist_ok=True)
    return missing[-1:]


def _remove_folders(folders) -> None:
    """Remove the folders a run created (with the strips it wrote in them)."""
    import shutil

    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)


def run(args) -> int:
    """Run the ``score`` command with parsed ``args``; return the exit code. ``--questions``,
    ``--outputs`` and ``--out`` may be store URLs (downloaded, or uploaded at the end)."""
    from ..storage import parse_storage_options
    from ..storage.transfer import fetched, published, shown

    options = parse_storage_options(getattr(args, "storage_options", None))
    with fetched(args.questions, "--questions", options) as questions, \
            fetched(args.outputs, "--outputs", options) as outputs, \
            published(args.out, "--out", options) as out:
        folders = ((questions, args.questions), (outputs, args.outputs),
                   (out.parent, str(args.out).rpartition("/")[0]))

        def as_given(text):
            for folder, url in folders:
                text = shown(text, folder, url)
            return text

        return _run(args, questions, outputs, out, as_given)


def _shows_progress(args) -> bool:
    """A bar on a terminal; plain progress lines elsewhere only with ``--progress``."""
    if args.quiet:
        return False
    return bool(getattr(args, "progress", False)) or sys.stderr.isatty()


def nothing_scored(results) -> str | None:
    """One line saying why no output of ``results`` could be scored (the counts and the first
    unscorable output's reason); None when one was.

    Examples
    --------
    >>> nothing_scored([{"model": "m", "task_id": "7", "output": "7.mp4", "error": "empty file",
    ...                  "question_source": "question_metadata.json"}])
    'no output could be scored (1 output for 1 question: 0 scored, 1 unreadable, 0 missing); 7.mp4: the output file is empty'
    """
    from .reporting.report import error_words

    if any(outcome(r) == "scored" for r in results):
        return None
    if not results:
        return "no output could be scored: every run is of a task id not in --questions"
    first = next((r for r in results if r.get("output") is not None), results[0])
    where = first.get("output") or first.get("task_id")
    return (f"no output could be scored ({count_line(results)}); {where}: "
            f"{error_words(first.get('error') or '')}")


def _run(args, questions, outputs, out: Path, as_given) -> int:
    """``run`` on local folders; ``as_given`` writes a local path of an input or output
    given as a URL as that URL (in the records and the printed lines)."""
    try:
        jobs = _prepare(args, questions, outputs, out)
    except (FileNotFoundError, UsageError) as exc:
        print(error_line(str(exc)), file=sys.stderr)
        return 2
    workers = worker_count(args.workers, len(jobs))
    report_dir = getattr(args, "report", None)
    made = _make_folders(out.parent)
    journal = ScoreJournal(journal_path(out), _journal_header(args, report_dir))
    if journal.done and not args.quiet:
        print(f"objsub-fast: resuming: {counted(len(journal.done), 'output')} already scored "
              f"({printable(journal.path.name)})", file=sys.stderr)
    try:
        if report_dir is not None:
            made += _make_folders(Path(report_dir) / "img")
        with journal:
            results = _results(jobs, workers, _shows_progress(args), report_dir,
                               limits_of(args), journal)
        results = [{**r, **{k: as_given(r[k]) for k in ("question", "output") if r.get(k)}}
                   for r in results]
    except BaseException:  # Ctrl-C, SIGTERM: no empty or half-filled folders of this run,
        if not journal.path.exists() or not ScoreJournal(journal.path, journal.header).done:
            journal.remove()   # but the journal of what was scored stays for a rerun
            _remove_folders(made)
        raise
    _write_text(out, "".join(json.dumps(r, sort_keys=True) + "\n" for r in results))
    rows = summarize(results)
    csv_path = Path(args.summary_csv or out.with_name(out.stem + "_summary.csv"))
    text_path = out.with_name(out.stem + "_summary.txt")
    if text_path == csv_path:
        text_path = csv_path.with_name(csv_path.name + ".txt")
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=SUMMARY_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows({k: spreadsheet_cell(v) for k, v in row.items()} for row in rows)
    _write_text(csv_path, buf.getvalue())
    _write_text(text_path, format_table(rows) + "\n")
    tables = [text_path, csv_path]
    if report_dir is not None:
        from .reporting.report import write_index

        tables.append(write_index(report_dir, results, rows))
    written = [out] + write_results(results, out.parent)
    written += write_leaderboard(out.parent, results, report_dir)
    print(level_table(results))
    print("full tables (by model, level and rule kind, every check): "
          + ", ".join(printable(as_given(str(p))) for p in tables))
    print(f"wrote {', '.join(printable(as_given(str(p))) for p in written)}")
    journal.remove()
    print(count_line(results))
    why = nothing_scored(known(results))
    if why is not None:  # every record written, and the status says nothing was scored
        print(error_line(printable(why)), file=sys.stderr)
        return 2
    return 0
