"""The HTML report of a scoring run (``objsub-fast score ... --report DIR``).

``DIR/index.html`` holds the summary table (by model, level and rule kind) and, per output, a
strip of frames sampled over the video (``DIR/img/*.png``) with every task object outlined where
the camera puts it and labelled by its verdict (:data:`STATUS_COLORS`), the registration and
camera motion found, and each failing metric in words (:func:`explain`). A static page: no
scripts, only relative links to the images written beside it.
"""
from __future__ import annotations

import html
import re
from pathlib import Path

import numpy as np

from .camera import apply_camera
from .thresholds import METRICS, SHORT_NAMES, THRESHOLDS

__all__ = ["STATUS_COLORS", "object_status", "explain", "prepare", "write_strip",
           "write_index"]

#: Verdict of an object -> outline colour (RGB).
STATUS_COLORS = {"kept": (40, 110, 230), "removed as asked": (20, 160, 60),
                 "wrongly removed": (220, 20, 60), "not removed": (220, 20, 60),
                 "moved": (255, 120, 0), "changed": (255, 120, 0), "not found": (120, 120, 120),
                 "not visible": (170, 170, 170)}
#: Height of each frame in a strip (px).
STRIP_HEIGHT = 256


def object_status(res: dict, object_id: int, removed: bool, seen: bool) -> str:
    """The verdict of one object of a scored result (a key of :data:`STATUS_COLORS`)."""
    m = res["metrics"]
    rule, kept = m["rule_accuracy"], m["kept_object_stability"]
    if object_id in rule["not_visible"]:
        return "not visible"
    gone = object_id in rule["removed_ids"]
    if removed:
        return "removed as asked" if gone else "not removed"
    if not seen:
        return "not found"
    if gone:
        return "wrongly removed"
    if object_id in kept["moved"]:
        return "moved"
    if object_id in kept["changed_color"] or object_id in kept["changed_shape"]:
        return "changed"
    return "kept"


def _ids(ids) -> str:
    return ", ".join(map(str, ids))


def _why_final(f: dict) -> list[str]:
    return [f"The final frame matches the expected final frame at IoU {f['iou']:.2f} "
            f"(needs {THRESHOLDS['final_object_match']['min_iou']:.2f})."]


def _why_kept(k: dict) -> list[str]:
    limit = THRESHOLDS["kept_object_stability"]["max_mean_displacement_px"]
    out = [f"Kept object {oid} moved {k['per_object_px'][oid]:.1f} px on average relative to "
           f"the camera (allowed {limit:g} px)." for oid in k["moved"]]
    return out + [f"Kept object(s) {_ids(k[key])} {what}." for key, what in
                  (("vanished", "vanished"), ("changed_color", "changed colour"),
                   ("changed_shape", "changed shape")) if k[key]]


def _why_motion(c: dict) -> list[str]:
    th = THRESHOLDS["motion_continuity"]
    checks = [
        (c["absent_at_start"], f"Object(s) {_ids(c['absent_at_start'])} are missing from the "
                               "first frame: the video does not start from the task's first "
                               "frame."),
        (c["hard_cut"], f"Hard cut: the removed objects vanish with {c['transition_frames']} "
                        f"transition frame(s) (needs {th['min_transition_frames']})."),
        (c["reappeared"], f"Removed object(s) {_ids(c['reappeared'])} came back."),
        (c["max_step_px"] > c["step_limit_px"],
         f"An object jumped {c['max_step_px']:.0f} px between two frames (allowed "
         f"{c['step_limit_px']:.0f} px)."),
        (c["max_global_change"] > th["max_global_change"],
         f"{100 * c['max_global_change']:.0f}% of the canvas changed between two frames away "
         "from the objects (a cut or a new scene)."),
    ]
    return [text for failed, text in checks if failed]


def _why_camera(cam: dict) -> list[str]:
    return [f"The camera moves too much: zoom up to {100 * cam['max_zoom']:.1f}% (allowed "
            f"{100 * THRESHOLDS['camera_motion']['max_zoom']:.0f}%), pan up to "
            f"{cam['max_pan_px']:.0f} px (allowed {cam['pan_limit_px']:.0f} px)."]


def _why_count(n: dict) -> list[str]:
    return [f"{n['removed']} object(s) are gone at the end; the task removes {n['expected']}."]


def _why_rule(r: dict) -> list[str]:
    return [f"Gone: {r['removed_ids'] or 'none'}; the prompt asks for {r['target_ids']}."]


#: metric -> sentences saying why it failed.
_WHY = {"final_object_match": _why_final, "kept_object_stability": _why_kept,
        "motion_continuity": _why_motion, "camera_motion": _why_camera,
        "removed_object_count": _why_count, "rule_accuracy": _why_rule}


def explain(res: dict) -> list[str]:
    """Sentences saying why a result failed (empty when it passed)."""
    if res.get("error"):
        return [f"Not scored: {res['error']}"]
    return [text for name, why in _WHY.items() if res["metrics"][name]["pass"] is False
            for text in why(res["metrics"][name])]


def prepare(folder) -> Path:
    """Create the report folder and its ``img/`` folder."""
    folder = Path(folder)
    (folder / "img").mkdir(parents=True, exist_ok=True)
    return folder


def _name(res: dict) -> str:
    raw = "__".join(str(res.get(k) or "") for k in ("model", "split_folder", "task_id", "run_id"))
    return re.sub(r"[^A-Za-z0-9._-]+", "_", raw).strip("_") or "output"


def _draw_frame(frame, index, res, tracker, font):
    from PIL import Image, ImageDraw

    m = tracker.model
    scale = STRIP_HEIGHT / frame.shape[0]
    img = Image.fromarray(frame).resize((max(1, round(frame.shape[1] * scale)), STRIP_HEIGHT),
                                        Image.NEAREST if scale >= 1 else Image.BILINEAR)
    draw = ImageDraw.Draw(img)
    cam = tracker.cameras[index]
    centre = apply_camera(np.stack([m.cx, m.cy], axis=1), cam, m.center)
    seen_ever = np.array(tracker.present).any(axis=0)
    for k, oid in enumerate(m.ids.tolist()):
        status = object_status(res, oid, bool(m.removed[k]), bool(seen_ever[k]))
        colour = STATUS_COLORS[status]
        half = cam[0] * m.size[k] / 2 + 3
        x, y = centre[k]
        box = [(x - half) * scale, (y - half) * scale, (x + half) * scale, (y + half) * scale]
        draw.rectangle(box, outline=colour, width=2)
        if tracker.present[index][k]:
            px, py = tracker.positions[index][k] * scale
            draw.line([px - 4, py, px + 4, py], fill=colour, width=2)
            draw.line([px, py - 4, px, py + 4], fill=colour, width=2)
        label = f"{oid} {status}"
        width = draw.textlength(label, font=font)
        tx, ty = max(0, min(box[0], img.width - width - 1)), max(0, box[1] - 11)
        draw.rectangle(draw.textbbox((tx, ty), label, font=font), fill=(255, 255, 255))
        draw.text((tx, ty), label, fill=colour, font=font)
    draw.text((4, STRIP_HEIGHT - 14), f"frame {index}", fill=(0, 0, 0), font=font)
    return img


def write_strip(folder, res: dict, tracker) -> str | None:
    """Draw the sampled frames of one scored output into ``folder/img/``; return the path
    relative to ``folder`` (None for an error record: nothing to draw)."""
    from PIL import Image, ImageFont

    if tracker is None or res.get("error") or not tracker.samples:
        return None
    font = ImageFont.load_default()
    tiles = [_draw_frame(f, i, res, tracker, font) for i, f in tracker.sampled()]
    gap = 6
    strip = Image.new("RGB", (sum(t.width for t in tiles) + gap * (len(tiles) - 1),
                              STRIP_HEIGHT), (60, 60, 60))
    x = 0
    for t in tiles:
        strip.paste(t, (x, 0))
        x += t.width + gap
    rel = f"img/{_name(res)}.png"
    from ..atomic import tmp_path

    path = Path(folder) / rel
    tmp = tmp_path(path)
    strip.save(tmp, format="PNG")
    tmp.replace(path)
    return rel


_CSS = """body{font:14px sans-serif;margin:20px;color:#222}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:3px 7px;text-align:right}th{background:#eee}
td:first-child,td:nth-child(2),td:nth-child(3){text-align:left}
.task{margin:18px 0;padding:10px;border-left:6px solid #999}.pass{border-color:#2a2}
.fail{border-color:#d22}.strip{max-width:100%;display:block;margin:6px 0}
.why{color:#b00}.meta{color:#555}.legend span{display:inline-block;margin-right:14px}"""


def _legend() -> str:
    items = "".join(f'<span style="color:rgb{c}">&#9632; {html.escape(s)}</span>'
                    for s, c in STATUS_COLORS.items())
    return f'<p class="legend">{items}</p>'


def _summary_table(rows) -> str:
    cols = ["model", "level", "rule_kind", "tasks", "errors", "pass_rate", "mean_score"] + [
        f"{m}_pass" for m in METRICS]
    head = "".join(f"<th>{html.escape(SHORT_NAMES.get(c[:-5], c))}</th>" for c in cols)
    body = "".join("<tr>" + "".join(f"<td>{'-' if r[c] is None else html.escape(str(r[c]))}</td>"
                                    for c in cols) + "</tr>" for r in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _task_block(res: dict) -> str:
    ok = bool(res.get("pass"))
    title = " / ".join(html.escape(str(res.get(k))) for k in ("model", "task_id")
                       if res.get(k))
    lines = [f'<div class="task {"pass" if ok else "fail"}"><b>{title}</b> &mdash; '
             f'{"PASS" if ok else "FAIL"}, score {res.get("score", 0.0):.2f}']
    if res.get("prompt"):
        lines.append(f'<div class="meta">Prompt: {html.escape(res["prompt"])}</div>')
    reg, cam = res.get("registration"), res.get("metrics", {}).get("camera_motion")
    if reg:
        hidden = res["metrics"]["rule_accuracy"]["not_visible"]
        lines.append(
            f'<div class="meta">Mapping ({html.escape(reg["method"])}): scale '
            f'{reg["scale"][0]:.3f} x {reg["scale"][1]:.3f}, offset {reg["offset_px"]} px, '
            f'{reg["matched_objects"]} objects matched, residual {reg["residual_px"]} px'
            f'{"; not visible: " + ", ".join(map(str, hidden)) if hidden else ""}. Camera: '
            f'zoom up to {100 * cam["max_zoom"]:.1f}%, pan up to {cam["max_pan_px"]} px.</div>')
    if res.get("question_source") and res["question_source"] != "question_metadata.json":
        lines.append(f'<div class="meta">Task record: {html.escape(res["question_source"])}'
                     "</div>")
    for sentence in explain(res):
        lines.append(f'<div class="why">{html.escape(sentence)}</div>')
    if res.get("report_image"):
        lines.append(f'<img class="strip" src="{html.escape(res["report_image"])}" '
                     f'alt="sampled frames of {title}">')
    lines.append("</div>")
    return "\n".join(lines)


def write_index(folder, results, rows) -> Path:
    """Write ``folder/index.html`` (failures first, then passes); return its path."""
    from ..atomic import AtomicWriter

    ordered = sorted(results, key=lambda r: (bool(r.get("pass")), str(r.get("model")),
                                             str(r.get("task_id"))))
    page = ("<!DOCTYPE html><html><head><meta charset='utf-8'><title>objsub-fast scores"
            f"</title><style>{_CSS}</style></head><body><h1>Object Subtraction scores</h1>"
            f"<h2>Summary</h2>{_summary_table(rows)}<h2>Outputs (failures first)</h2>"
            f"{_legend()}" + "\n".join(_task_block(r) for r in ordered) + "</body></html>\n")
    path = Path(folder) / "index.html"
    with AtomicWriter(path) as fh:
        fh.write(page.encode())
    return path
