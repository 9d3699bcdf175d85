"""``objsub-fast score``: score a folder of model outputs, write JSONL and a summary table.

    objsub-fast score --questions DIR --outputs DIR [--out scores.jsonl] [--summary-csv PATH]
                      [--workers N] [--no-progress]

One JSON line per job (task record fields, ``model``, ``run_id``, ``error``, ``metrics``,
``pass``). An unscorable job (missing/empty/undecodable video, question without metadata, ...)
is a line with ``error`` set; the run goes on and the summary counts it. Exit code 0 when the
run completed (whatever the scores), 2 for unusable arguments.
"""
from __future__ import annotations

import csv
import json
import sys
from collections import defaultdict
from pathlib import Path

from .api import error_record, score_video, task_fields
from .layout import find_jobs
from .thresholds import METRICS, SHORT_NAMES

ALL = "*"
SUMMARY_COLUMNS = ("model", "level", "rule_kind", "tasks", "errors", "pass_rate",
                   "mean_score") + tuple(f"{m}_pass" for m in METRICS) + ("mean_iou",)


def add_arguments(parser) -> None:
    """Add the ``score`` options to an argparse parser."""
    parser.description = (
        "Score model videos (mp4/webm/gif, frame folders or final images) against their Object "
        "Subtraction tasks, pixel-exactly: one JSON line per output and a summary by model, "
        "level and rule kind (printed and as CSV). Unscorable outputs become error records. "
        "Thresholds: objsub_fast.scoring.metrics.THRESHOLDS.")
    parser.add_argument("--questions", type=Path, default=None,
                        help="folder of question folders ({task_id}/question_metadata.json, "
                             "possibly under object_subtraction_task/); optional when every "
                             "VMEvalKit run has its question/ copy")
    parser.add_argument("--outputs", type=Path, required=True,
                        help="model outputs: VMEvalKit layout {model}/object_subtraction_task/"
                             "{task_id}/{run_id}/video/*.mp4, or {task_id}.mp4 / {task_id}/ "
                             "frames (optionally one folder per model)")
    parser.add_argument("--out", type=Path, default=Path("scores.jsonl"),
                        help="per-task JSONL (default scores.jsonl)")
    parser.add_argument("--summary-csv", type=Path, default=None,
                        help="summary table by model, level and rule kind "
                             "(default: --out with _summary.csv)")
    parser.add_argument("--workers", "-j", type=int, default=1,
                        help="parallel worker processes over tasks (default 1; -1 all cores)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def score_job(job) -> dict:
    """Score one :class:`layout.Job`; never raises."""
    head = {"model": job.model, "task_id": job.task_id, "run_id": job.run_id,
            "question": str(job.question) if job.question else None,
            "output": str(job.output) if job.output else None}
    try:
        record = job.load_record()
    except ValueError as exc:
        return error_record({**head, "level": None, "rule_kind": None}, str(exc))
    if job.output is None:
        res = error_record(task_fields(record), f"missing: no model output for {job.task_id}")
    else:
        res = score_video(record, job.output)
        res.pop("source", None)
    res["task_id"] = res.get("task_id") or job.task_id
    return {**head, **res}


def summarize(results) -> list[dict]:
    """Summary rows by (model, level, rule kind), with ``*`` rows for totals."""
    groups = defaultdict(list)
    for r in results:
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
    """Render summary rows as a fixed-width text table."""
    short = {f"{m}_pass": SHORT_NAMES[m] for m in METRICS}
    head = [short.get(c, c) for c in SUMMARY_COLUMNS]
    cells = [["-" if r[c] is None else str(r[c]) for c in SUMMARY_COLUMNS] for r in rows]
    widths = [max(len(h), *(len(c[i]) for c in cells)) if cells else len(h)
              for i, h in enumerate(head)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(head, widths))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(cell, widths)) for cell in cells]
    return "\n".join(lines)


def _results(jobs, workers: int, progress: bool):
    from joblib import Parallel, delayed
    from tqdm import tqdm

    bar = tqdm(total=len(jobs), desc="scoring", unit="video", disable=not progress,
               file=sys.stderr)
    if workers == 1:
        for job in jobs:
            yield score_job(job)
            bar.update()
    else:
        gen = Parallel(n_jobs=workers, return_as="generator", batch_size=4)(
            delayed(score_job)(job) for job in jobs)
        for res in gen:
            yield res
            bar.update()
    bar.close()


def run(args) -> int:
    """Run the ``score`` command with parsed ``args``; return the exit code."""
    try:
        jobs = find_jobs(args.questions, args.outputs)
    except FileNotFoundError as exc:
        print(f"objsub-fast score: error: {exc}", file=sys.stderr)
        return 2
    if not jobs:
        print(f"objsub-fast score: error: no outputs to score under {args.outputs} "
              "(see 'objsub-fast score --help' for the layouts understood)", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    results = []
    with open(out, "w") as fh:
        for res in _results(jobs, args.workers, not args.no_progress):
            fh.write(json.dumps(res, sort_keys=True) + "\n")
            results.append(res)
    rows = summarize(results)
    csv_path = args.summary_csv or out.with_name(out.stem + "_summary.csv")
    with open(csv_path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=SUMMARY_COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    print(format_table(rows))
    errors = sum(1 for r in results if r.get("error"))
    print(f"scored {len(results) - errors} of {len(results)} outputs ({errors} errors); "
          f"wrote {out} and {csv_path}")
    return 0
