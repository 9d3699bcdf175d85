"""The leaderboard of a scoring run: ``leaderboard.json`` and ``leaderboard.html`` beside the JSONL.

Built from the result records ``score`` writes (one per job, the lines of its JSONL): models
ranked by their pass rate over every question (a missing or unreadable output counts as a
failure, as in the summary table), each rate with its 95% Wilson interval (:func:`wilson`); the
pass rate per level and per rule kind; and what the failures were (:data:`FAILURE_KINDS`), each
failed output counted once under the first kind of the table it shows, as counts and shares of
the model's failures. Every cell links to an example in the HTML report when the run wrote one
(``--report DIR``). The page draws two static SVG charts (pass rate per level with intervals,
failures per model): bars labelled in words and black whiskers, so it reads in greyscale,
prints, and opens offline (no scripts, nothing fetched).
"""
from __future__ import annotations

import html
import json
import math
import os
from collections import defaultdict
from pathlib import Path

from ...runtime.atomic import AtomicWriter
from ...task.vocabulary import LEVELS
from .summary import outcome

__all__ = ["Z95", "wilson", "failure_kind", "FAILURE_KINDS", "leaderboard", "page",
           "write_leaderboard"]

#: The normal quantile of a two-sided 95% interval.
Z95 = 1.959963984540054


def wilson(passed: int, total: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval of a pass rate of ``passed`` out of ``total`` (None when
    ``total`` is 0): the rates p whose normal test against the observed rate is not rejected,
    ``(p^ + z^2/2n -+ z sqrt(p^(1 - p^)/n + z^2/4n^2)) / (1 + z^2/n)``. Unlike p^ -+ z sqrt(
    p^(1 - p^)/n) it stays inside [0, 1] and is not empty at 0 or n passes.

    Examples
    --------
    >>> [round(v, 4) for v in wilson(8, 10)]
    [0.4902, 0.9433]
    >>> [round(v, 4) for v in wilson(0, 5)]
    [0.0, 0.4345]
    """
    if total <= 0:
        return None
    p, z2 = passed / total, z * z
    centre = (p + z2 / (2 * total)) / (1 + z2 / total)
    half = z / (1 + z2 / total) * math.sqrt(p * (1 - p) / total + z2 / (4 * total * total))
    # at 0 or n passes one end is exactly 0 or 1 (the formula leaves a rounding error)
    return (0.0 if passed == 0 else centre - half), (1.0 if passed == total else centre + half)


def _metric(res: dict, name: str) -> dict:
    return (res.get("metrics") or {}).get(name) or {}


def _target_left(res: dict) -> bool:
    rule = _metric(res, "rule_accuracy")
    return bool(set(rule.get("target_ids", ())) - set(rule.get("removed_ids", ())))


def _vanished(res: dict) -> bool:
    rule, kept = _metric(res, "rule_accuracy"), _metric(res, "kept_object_stability")
    wrongly = set(rule.get("removed_ids", ())) - set(rule.get("target_ids", ()))
    return bool(kept.get("vanished") or wrongly)


def _kept(field: str, *more: str):
    return lambda res: any(_metric(res, "kept_object_stability").get(f) for f in (field, *more))


def _failed(metric: str):
    return lambda res: _metric(res, metric).get("pass") is False


#: (key, words, test of a failed result): the first that holds is the failure's kind. What
#: made the output unusable first, then the removal asked for, then the kept objects, then the
#: video as a whole; ``other`` takes what is left (say, only the final frame's overlap).
FAILURE_KINDS = (
    ("missing", "missing output", lambda r: outcome(r) == "missing"),
    ("other_scene", "does not show the task's scene", lambda r: outcome(r) == "other scene"),
    ("unreadable", "unreadable", lambda r: bool(r.get("error"))),
    ("target_left", "target left or partly left", _target_left),
    ("vanished", "kept object vanished", _vanished),
    ("added", "object added", lambda r: bool(_metric(r, "added_objects").get("added"))),
    ("moved", "kept object moved", _kept("moved")),
    ("changed_color", "changed colour", _kept("changed_color")),
    ("changed_size_shape", "changed size or shape", _kept("changed_shape", "changed_footprint")),
    ("motion", "cut, jump or comeback", _failed("motion_continuity")),
    ("camera", "camera moved", _failed("camera_motion")),
    ("other", "other", lambda r: True),
)


def failure_kind(res: dict) -> str | None:
    """The kind of a failed result (a key of :data:`FAILURE_KINDS`); None when it passed.

    Examples
    --------
    >>> failure_kind({"pass": False, "error": "missing: x", "output": None})
    'missing'
    >>> failure_kind({"pass": False, "error": None, "output": "a.mp4", "metrics": {
    ...     "rule_accuracy": {"target_ids": [1, 2], "removed_ids": [1], "pass": False}}})
    'target_left'
    """
    if res.get("pass") and not res.get("error"):
        return None
    return next(key for key, _, test in FAILURE_KINDS if test(res))


def _rate(passed: int, total: int, example: str | None = None) -> dict:
    low_high = wilson(passed, total)
    return {"passed": passed, "total": total,
            "pass_rate": round(passed / total, 4) if total else None,
            "interval": [round(v, 4) for v in low_high] if low_high else None,
            "example": example}


def _example(results, link):
    """The link of a group's example: its first failure, else its first output."""
    if link is None or not results:
        return None
    failed = [r for r in results if failure_kind(r)]
    return link((failed or results)[0])


def _rates(groups: dict, link) -> dict:
    return {key: _rate(sum(failure_kind(r) is None for r in rs), len(rs), _example(rs, link))
            for key, rs in sorted(groups.items())}


def _model_entry(model: str, rs: list, link) -> dict:
    by_level, by_kind, by_failure = defaultdict(list), defaultdict(list), defaultdict(list)
    for r in rs:
        level = r.get("level") or "?"
        by_level[level].append(r)
        by_kind[f"{level}/{r.get('rule_kind') or '?'}"].append(r)
        kind = failure_kind(r)
        if kind:
            by_failure[kind].append(r)
    failed = sum(len(v) for v in by_failure.values())
    scored = [r for r in rs if not r.get("error")]
    return {"model": model, **_rate(len(rs) - failed, len(rs), _example(rs, link)),
            "scored": len(scored), "not_scored": len(rs) - len(scored),
            "mean_score": round(sum(r.get("score") or 0.0 for r in rs) / len(rs), 4),
            "by_level": _rates(by_level, link), "by_rule_kind": _rates(by_kind, link),
            "failed": failed,
            "failures": {key: {"count": len(by_failure[key]),
                               "share": round(len(by_failure[key]) / failed, 4) if failed else 0.0,
                               "example": _example(by_failure[key], link)}
                         for key, _, _ in FAILURE_KINDS}}


def leaderboard(results, link=None) -> dict:
    """The leaderboard of result records (``leaderboard.json``'s content).

    ``link`` maps a result to the address of its example in the report (None: no links).
    Models are ranked by pass rate, then by the lower end of its interval (more evidence for
    the same rate ranks higher); equal rates on equal counts share a rank.

    Examples
    --------
    >>> rs = [{"model": "a", "level": "L1", "rule_kind": "color", "pass": True}] * 3
    >>> rs += [{"model": "b", "level": "L1", "rule_kind": "color", "pass": False,
    ...         "error": "missing: 1", "output": None}]
    >>> board = leaderboard(rs)
    >>> [(m["rank"], m["model"], m["passed"], m["total"]) for m in board["models"]]
    [(1, 'a', 3, 3), (2, 'b', 0, 1)]
    >>> board["models"][1]["failures"]["missing"]["count"]
    1
    """
    from .summary import known

    by_model = defaultdict(list)
    for r in known(results):
        by_model[str(r.get("model"))].append(r)
    models = [_model_entry(m, rs, link) for m, rs in by_model.items()]
    models.sort(key=lambda e: (-e["pass_rate"], -e["interval"][0], e["model"]))
    for n, e in enumerate(models):
        before = models[n - 1] if n else None
        same = before and (before["passed"], before["total"]) == (e["passed"], e["total"])
        e["rank"] = before["rank"] if same else n + 1
    levels = sorted({lv for e in models for lv in e["by_level"]},
                    key=lambda lv: (lv not in LEVELS, lv))
    kinds = sorted({k for e in models for k in e["by_rule_kind"]},
                   key=lambda k: (k.split("/")[0] not in LEVELS, k))
    return {"interval": {"method": "wilson", "confidence": 0.95, "z": round(Z95, 6)},
            "levels": levels, "rule_kinds": kinds,
            "failure_kinds": [{"key": k, "words": w} for k, w, _ in FAILURE_KINDS],
            "models": [{"rank": e.pop("rank"), **e} for e in models]}


# ---------------------------------------------------------------------------------------------
# The page


def _pct(v) -> str:
    return "-" if v is None else f"{100 * v:.0f}%"


def _cell(rate: dict) -> str:
    """A rate's table cell: the rate, its interval and counts, linked to its example."""
    if not rate or not rate["total"]:
        return "<td>-</td>"
    lo, hi = rate["interval"]
    text = (f"{_pct(rate['pass_rate'])}<br><small>[{_pct(lo)}, {_pct(hi)}] "
            f"{rate['passed']}/{rate['total']}</small>")
    return f"<td>{_linked(text, rate.get('example'))}</td>"


def _linked(text: str, href: str | None) -> str:
    return f'<a href="{html.escape(href)}">{text}</a>' if href else text


def _hbars(title: str, rows, width: int = 260, scale: float = 1.0, whiskers: bool = True):
    """One SVG panel of labelled horizontal bars: ``rows`` of (label, value in [0, scale],
    interval or None, text after the bar). Grey bars on white, black whiskers and text: the
    words carry the meaning, not colours."""
    label_w, bar_w, text_w, row_h = 130, width, 120, 20
    h = 24 + row_h * len(rows) + 18
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{label_w + bar_w + text_w}" '
           f'height="{h}" role="img" aria-label="{html.escape(title)}" '
           'font-family="sans-serif" font-size="12">',
           f'<text x="0" y="14" font-weight="bold">{html.escape(title)}</text>',
           f'<line x1="{label_w}" y1="20" x2="{label_w}" y2="{h - 16}" stroke="#000"/>']
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        x = label_w + bar_w * tick
        out.append(f'<line x1="{x:.1f}" y1="20" x2="{x:.1f}" y2="{h - 16}" stroke="#bbb" '
                   'stroke-dasharray="2,3"/>'
                   f'<text x="{x:.1f}" y="{h - 4}" text-anchor="middle" font-size="10">'
                   f'{tick * scale * 100:.0f}%</text>')
    for i, (label, value, interval, after) in enumerate(rows):
        y = 24 + row_h * i
        out.append(f'<text x="{label_w - 6}" y="{y + 13}" text-anchor="end">'
                   f'{html.escape(label)}</text>')
        if value is not None:
            out.append(f'<rect x="{label_w}" y="{y + 3}" width="{bar_w * value / scale:.1f}" '
                       f'height="{row_h - 6}" fill="#9a9a9a" stroke="#000" stroke-width="0.5"/>')
        if whiskers and interval:
            x0, x1 = (label_w + bar_w * v / scale for v in interval)
            mid = y + row_h / 2
            out.append(f'<path d="M{x0:.1f},{mid} H{x1:.1f} M{x0:.1f},{mid - 5} V{mid + 5} '
                       f'M{x1:.1f},{mid - 5} V{mid + 5}" stroke="#000" stroke-width="1.5" '
                       'fill="none"/>')
        out.append(f'<text x="{label_w + bar_w + 6}" y="{y + 13}">{html.escape(after)}</text>')
    out.append("</svg>")
    return "".join(out)


def _level_chart(board: dict) -> str:
    panels = []
    for lv in board["levels"]:
        rows = []
        for e in board["models"]:
            r = e["by_level"].get(lv)
            rows.append((e["model"], r["pass_rate"] if r else None,
                         r["interval"] if r else None,
                         f"{_pct(r['pass_rate'])} of {r['total']}" if r else "-"))
        panels.append(_hbars(f"{lv}: pass rate, 95% interval", rows))
    return "".join(f'<div class="chart">{p}</div>' for p in panels)


def _failure_chart(board: dict) -> str:
    words = {k["key"]: k["words"] for k in board["failure_kinds"]}
    panels = []
    for e in board["models"]:
        rows = [(words[k], f["share"], None, f"{f['count']} ({_pct(f['share'])})")
                for k, f in e["failures"].items() if f["count"]]
        if rows:
            panels.append(_hbars(f"{e['model']}: {e['failed']} failures by kind", rows,
                                 whiskers=False))
    return "".join(f'<div class="chart">{p}</div>' for p in panels) or "<p>No failures.</p>"


_CSS = """body{font:14px sans-serif;margin:20px;color:#111;max-width:1200px}
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #999;padding:3px 7px;
text-align:right;white-space:nowrap}th{background:#eee}td:first-child,th:first-child{text-align:left}
td.m{text-align:left;font-weight:bold}small{color:#444}a{color:#000}
.chart{display:inline-block;vertical-align:top;margin:6px 18px 6px 0}
@media print{a{text-decoration:none}}"""


def _ranking_table(board: dict) -> str:
    head = ("<tr><th>rank</th><th>model</th><th>pass rate<br><small>[95% interval] "
            "passed/total</small></th>"
            + "".join(f"<th>{html.escape(lv)}</th>" for lv in board["levels"])
            + "<th>mean score</th><th>not scored</th></tr>")
    rows = "".join(
        f"<tr><td>{e['rank']}</td><td class='m'>{html.escape(e['model'])}</td>{_cell(e)}"
        + "".join(_cell(e["by_level"].get(lv)) for lv in board["levels"])
        + f"<td>{e['mean_score']:.2f}</td><td>{e['not_scored']}</td></tr>"
        for e in board["models"])
    return f"<table>{head}{rows}</table>"


def _kind_table(board: dict) -> str:
    head = "<tr><th>rule kind</th>" + "".join(f"<th>{html.escape(e['model'])}</th>"
                                              for e in board["models"]) + "</tr>"
    rows = "".join(f"<tr><td>{html.escape(k)}</td>"
                   + "".join(_cell(e["by_rule_kind"].get(k)) for e in board["models"])
                   + "</tr>" for k in board["rule_kinds"])
    return f"<table>{head}{rows}</table>"


def _failure_table(board: dict) -> str:
    head = "<tr><th>failure</th>" + "".join(f"<th>{html.escape(e['model'])}</th>"
                                            for e in board["models"]) + "</tr>"
    rows = []
    for kind in board["failure_kinds"]:
        cells = []
        for e in board["models"]:
            f = e["failures"][kind["key"]]
            text = f"{f['count']} <small>({_pct(f['share'])})</small>"
            cells.append(f"<td>{_linked(text, f['example'])}</td>" if f["count"] else
                         "<td>-</td>")
        rows.append(f"<tr><td>{html.escape(kind['words'])}</td>{''.join(cells)}</tr>")
    total = "".join(f"<td>{e['failed']}</td>" for e in board["models"])
    return f"<table>{head}{''.join(rows)}<tr><th>failed outputs</th>{total}</tr></table>"


def page(board: dict, report: str | None = None) -> str:
    """The leaderboard's HTML page (static: no scripts, charts as inline SVG)."""
    z = board["interval"]["z"]
    where = (f'Each cell links to an example in <a href="{html.escape(report)}">the report</a> '
             "(its first failure, or its first output when all passed)."
             if report else "Score with <code>--report DIR</code> to link each cell to an "
                            "example.")
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>objsub-fast leaderboard"
        f"</title><style>{_CSS}</style></head><body><h1>Object Subtraction leaderboard</h1>"
        "<p>Models ranked by the share of questions whose output passes every check (a missing "
        "or unreadable output is a failure). Brackets give the 95% Wilson interval "
        f"(z = {z:.2f}): the pass rates this many questions cannot tell apart from the one "
        f"measured. {where}</p>"
        f"{_ranking_table(board)}<h2>Pass rate per level</h2>{_level_chart(board)}"
        f"<h2>What the failures were</h2><p>Each failed output counted once, under the first "
        "kind in this list it shows; shares are of the model's failures.</p>"
        f"{_failure_table(board)}{_failure_chart(board)}"
        f"<h2>Pass rate per rule kind</h2>{_kind_table(board)}</body></html>\n")


def _report_link(report_dir, folder):
    """A function: result -> its example's address in the report, relative to ``folder``;
    None without a report."""
    if report_dir is None:
        return None, None
    from .report import anchor

    index = Path(os.path.relpath(Path(report_dir) / "index.html", folder)).as_posix()
    return index, lambda res: f"{index}#{anchor(res)}"


def write_leaderboard(folder, results, report_dir=None) -> list[Path]:
    """Write ``leaderboard.json`` and ``leaderboard.html`` into ``folder``; return their paths.

    ``report_dir`` is the run's HTML report folder (``--report``), which the cells link to.
    """
    folder = Path(folder)
    index, link = _report_link(report_dir, folder)
    board = leaderboard(results, link)
    paths = [folder / "leaderboard.json", folder / "leaderboard.html"]
    texts = [json.dumps(board, indent=1) + "\n", page(board, index)]
    for path, text in zip(paths, texts):
        with AtomicWriter(path) as fh:
            fh.write(text.encode())
    return paths
