"""The words of a scoring summary: its columns, their headings, the short table by model and
level that ``score`` prints, and the closing line that counts outputs and questions apart. The
full tables (``command``) and the HTML report (``report``) read them from here.
"""
from __future__ import annotations

from collections import defaultdict

from ...cli_common import counted
from ..reading.names import printable
from ..judging.thresholds import METRICS

__all__ = ["SUMMARY_COLUMNS", "CHECK_HEADINGS", "HEADINGS", "CHECKS_HEADING", "outcome",
           "count_line", "level_table", "known"]

SUMMARY_COLUMNS = ("model", "level", "rule_kind", "tasks", "errors", "pass_rate",
                   "mean_score") + tuple(f"{m}_pass" for m in METRICS) + ("mean_iou",)
#: What each check's column holds, as its heading in the printed and HTML summaries: the
#: fraction of the scored outputs that pass it (the CSV keeps the column names above).
CHECK_HEADINGS = {"final_object_match": "final_frame_matches",
                  "kept_object_stability": "kept_unchanged",
                  "motion_continuity": "motion_continuous",
                  "added_objects": "nothing_added",
                  "camera_motion": "camera_steady",
                  "removed_object_count": "removed_count_right",
                  "rule_accuracy": "right_objects_removed"}
#: Column -> heading in the printed and HTML summaries.
HEADINGS = {"errors": "not_scored", "pass_rate": "pass_rate_all",
            "mean_iou": "mean_final_frame_iou",
            **{f"{m}_pass": CHECK_HEADINGS[m] for m in METRICS}}
#: The heading over the check columns.
CHECKS_HEADING = "pass rate of each check, over the scored outputs:"


def known(results) -> list:
    """The results of runs whose task is in the questions: a run of a task id the questions do
    not hold (``unknown``) is listed in the JSONL and counted nowhere else.

    Examples
    --------
    >>> len(known([{"model": "m"}, {"model": "m", "unknown": True}]))
    1
    """
    return [r for r in results if not r.get("unknown")]


#: The start of the error of a readable video that does not show the task's scene.
NOT_THE_SCENE = "the video does not show the task's first frame"


def outcome(result: dict) -> str:
    """What became of one job: "scored", "missing" (no output for the question), "other scene"
    (a readable video that does not show the task's scene: another task's, or no objects),
    "unreadable" (an output that could not be read), "unusable question" (its task record) or
    "unknown" (a run of a task the questions do not hold)."""
    if result.get("unknown"):
        return "unknown"
    if not result.get("error"):
        return "scored"
    if result.get("output") is None:
        return "missing"
    if str(result["error"]).startswith(NOT_THE_SCENE):
        return "other scene"
    # score_job sets question_source once the task record has loaded
    return "unreadable" if "question_source" in result else "unusable question"


def count_line(results) -> str:
    """Outputs and questions counted apart, and what became of them.

    Examples
    --------
    >>> rs = [{"model": "m", "task_id": str(i), "output": f"{i}.mp4", "error": None}
    ...       for i in range(6)]
    >>> rs += [{"model": "m", "task_id": "6", "output": "6.mp4", "error": "bad",
    ...         "question_source": "question_metadata.json"},
    ...        {"model": "m", "task_id": "7", "output": None, "error": "missing: 7"}]
    >>> count_line(rs)
    '7 outputs for 8 questions: 6 scored, 1 unreadable, 1 missing'
    """
    results = list(results)
    unknown = len(results) - len(known(results))
    results = known(results)
    outputs = sum(r.get("output") is not None for r in results)
    questions = len({(r.get("split_folder"), r.get("task_id")) for r in results})
    models = len({r.get("model") for r in results})
    kinds = defaultdict(int)
    for r in results:
        kinds[outcome(r)] += 1
    said = [f"{kinds['scored']} scored", f"{kinds['unreadable']} unreadable",
            f"{kinds['missing']} missing"]
    if kinds["other scene"]:
        said.insert(1, f"{kinds['other scene']} not showing the task's scene")
    if kinds["unusable question"]:
        said.append(f"{kinds['unusable question']} with an unusable question")
    of = f" of {models} models" if models > 1 else ""
    line = (f"{counted(outputs, 'output')}{of} for {counted(questions, 'question')}: "
            + ", ".join(said))
    if unknown:
        line += (f"; {counted(unknown, 'run')} of task ids not in the questions, counted "
                 "nowhere")
    return line


#: The first line of :func:`level_table`.
LEVEL_TABLE_TITLE = "pass rate by level (passed/questions; a missing or unscored output fails):"


def level_table(results) -> str:
    """The short table ``score`` prints: one row per model, the pass rate of each level with
    its counts (passed/questions: each question of the model counts, a missing or unscored
    output as a failure).

    Examples
    --------
    >>> rs = [{"model": "m", "level": lv, "pass": ok} for lv, ok in
    ...       [("L1", True), ("L1", False), ("L2", True)]]
    >>> print(level_table(rs))
    pass rate by level (passed/questions; a missing or unscored output fails):
    model  L1         L2          all
    m      50% (1/2)  100% (1/1)  67% (2/3)
    """
    results = known(results)
    models = sorted({str(r.get("model")) for r in results})
    levels = sorted({r.get("level") or "?" for r in results})
    tally = defaultdict(lambda: [0, 0])
    for r in results:
        for key in ((str(r.get("model")), r.get("level") or "?"), (str(r.get("model")), "all")):
            tally[key][0] += bool(r.get("pass"))
            tally[key][1] += 1

    def cell(model, level):
        passed, n = tally.get((model, level), (0, 0))
        return f"{100 * passed / n:.0f}% ({passed}/{n})" if n else "-"

    grid = [["model", *map(printable, levels), "all"]]
    grid += [[printable(m), *(cell(m, lv) for lv in levels), cell(m, "all")] for m in models]
    widths = [max(len(row[i]) for row in grid) for i in range(len(grid[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in grid]
    return "\n".join([LEVEL_TABLE_TITLE, *lines])
