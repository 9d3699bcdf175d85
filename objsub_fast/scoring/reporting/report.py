"""The HTML report of a scoring run (``objsub-fast score ... --report DIR``).

``DIR/index.html`` opens with a compact summary (how many outputs pass, fail or were not
scored; each model's pass rate and mean score) and the legend, then every output, failures
first: its one-line verdict (:func:`verdict`), a strip of frames evenly spaced over the video,
the last one always included (``DIR/img/*.png``), with every task object outlined where the
camera puts it, in the colour and line style of its verdict (:data:`STATUS_STYLES`: one colour
and one dash pattern each, so the strips read in greyscale too) and labelled in words ("blue
sphere (3)", :data:`LABEL_PX` high) where no label overlaps another (:func:`place_label`), then
the other failing checks in words (:func:`explain`), the prompt, the registration and camera
motion found. Only the first :data:`OPEN_FAILURES` failures are shown open; every other output
is one line that opens on a click (``<details>``), the passing ones under one line of their
own, so the page stays short for hundreds of outputs. The full summary table (by model, level
and rule kind) ends the page. A static page: no scripts, only relative links to the images
written beside it.
"""
from __future__ import annotations

import html
import io
import re
from pathlib import Path

import numpy as np

from ...runtime.atomic import AtomicWriter, atomic_write_bytes
from ..tracking.camera import apply_camera
from ..reading.names import file_stem
from ..judging.thresholds import METRICS, THRESHOLDS

__all__ = ["STATUS_STYLES", "STATUS_COLORS", "object_status", "explain", "error_words",
           "named_objects", "verdict", "place_label", "layout_labels", "prepare", "write_strip",
           "write_index", "anchor"]

#: Verdict of an object -> (outline colour RGB, dash pattern): one colour and one pattern
#: each. A pattern is the lengths (px) of the drawn and the skipped runs along the outline, in
#: turn; () is a solid line.
STATUS_STYLES = {
    "kept": ((0, 114, 178), ()),
    "removed as asked": ((0, 158, 115), (10, 4)),
    "wrongly removed": ((213, 94, 0), (5, 3)),
    "not removed": ((170, 0, 40), (8, 3, 2, 3)),
    "moved": ((230, 159, 0), (2, 3)),
    "changed": ((204, 121, 167), (8, 2, 2, 2, 2, 2)),
    "not found": ((110, 110, 110), (2, 6)),
    "not visible": ((86, 180, 233), (12, 2, 4, 2)),
    "added": ((160, 0, 200), (4, 2, 4, 6)),
}
#: Verdict of an object -> outline colour (RGB).
STATUS_COLORS = {status: colour for status, (colour, _) in STATUS_STYLES.items()}
#: Height of each frame in a strip (px); the page shows strips at their own size.
STRIP_HEIGHT = 256
#: Height of the labels' text in a strip (px): legible at 100% zoom.
LABEL_PX = 14
#: Outline width (px) of the boxes around objects.
OUTLINE_PX = 2
#: Failures shown open (strip and all); the rest, and every passing output, are one line each.
OPEN_FAILURES = 6


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
    if object_id in kept["changed_color"] or object_id in kept["changed_shape"] \
            or object_id in kept.get("changed_footprint", ()):
        return "changed"
    return "kept"


def _namer(res: dict):
    """A function: object id -> "the blue sphere (3)" (the task's words), or "object 3"."""
    names = res.get("objects") or {}

    def name(oid) -> str:
        words = names.get(str(oid))
        return f"the {words} ({oid})" if words else f"object {oid}"
    return name


def _listed(ids, name) -> str:
    """Objects in words: "the red square (2) and the blue circle (5)"."""
    words = [name(i) for i in ids]
    return " and ".join(words) if len(words) < 3 else ", ".join(words[:-1]) + " and " + words[-1]


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _why_final(f: dict, name) -> list[str]:
    if f.get("targets_left"):
        return [f"The final frame still shows {_listed(f['targets_left'], name)}, which "
                "should be gone."]
    return [f"The final frame matches the expected final frame at IoU {f['iou']:.2f} "
            f"(needs {THRESHOLDS['final_object_match']['min_iou']:.2f})."]


def _why_kept(k: dict, name) -> list[str]:
    limit = THRESHOLDS["kept_object_stability"]["max_mean_displacement_px"]
    # object id -> px; the keys are strings once the record has been through JSON
    moved_px = {str(oid): px for oid, px in k["per_object_px"].items()}
    out = [f"{_capital(name(oid))} moved {moved_px[str(oid)]:.1f} px on average relative "
           f"to the camera (allowed {limit:g} px)." for oid in k["moved"]]
    out += [f"{_capital(_listed(k['vanished'], name))} vanished."] if k["vanished"] else []
    return out + [f"{_capital(name(c['id']))} {c['change']} from frame {c['frame']}."
                  for c in k.get("changes", [])]


def _why_motion(c: dict, name) -> list[str]:
    th = THRESHOLDS["motion_continuity"]
    back = c.get("reappeared_at") or {}
    checks = [
        (c["absent_at_start"], f"{_capital(_listed(c['absent_at_start'], name))} missing from "
                               "the first frame: the video does not start from the task's "
                               "first frame."),
        (c["hard_cut"], f"Hard cut: the removed objects vanish with {c['transition_frames']} "
                        f"transition frame(s) (needs {th['min_transition_frames']})."),
        (c["reappeared"], " ".join(
            f"{_capital(name(oid))} was removed and came back"
            + (f" at frame {back[str(oid)]}." if str(oid) in back else ".")
            for oid in c["reappeared"])),
        (c.get("teleported"), " ".join(
            f"{_capital(name(j['id']))} vanished at frame {j['frame']} as one of its colour "
            f"and size appeared {_step(j)} px away: it jumped." for j in c.get("teleported", []))),
        (c["max_step_px"] > c["step_limit_px"] and not c.get("teleported"),
         f"An object jumped {c['max_step_px']:.0f} px between two frames (allowed "
         f"{c['step_limit_px']:.0f} px)."),
        (c["max_global_change"] > th["max_global_change"],
         f"{100 * c['max_global_change']:.0f}% of the canvas changed between two frames away "
         "from the objects (a cut or a new scene)."),
    ]
    return [text for failed, text in checks if failed]


def _step(jump: dict) -> int:
    """The canvas distance of a teleport (``motion_continuity``'s ``teleported``)."""
    return round(float(np.hypot(jump["to"][0] - jump["from"][0], jump["to"][1] - jump["from"][1])))


def _why_added(a: dict, name) -> list[str]:
    return [f"A new {x['color']} {x['shape']} appeared at frame {x['frame']} at "
            f"({x['at'][0]}, {x['at'][1]})"
            + (" and stayed to the end." if x["in_final"] else f" for {x['frames']} frames.")
            for x in a["added"]]


def _why_camera(cam: dict, name) -> list[str]:
    return [f"The camera moves too much: zoom up to {100 * cam['max_zoom']:.1f}% (allowed "
            f"{100 * THRESHOLDS['camera_motion']['max_zoom']:.0f}%), pan up to "
            f"{cam['max_pan_px']:.0f} px (allowed {cam['pan_limit_px']:.0f} px)."]


def _why_count(n: dict, name) -> list[str]:
    return [f"{n['removed']} object(s) are gone at the end; the task removes {n['expected']}."]


def _why_rule(r: dict, name) -> list[str]:
    gone, target = r["removed_ids"], r["target_ids"]
    wrong = [i for i in gone if i not in target]
    left = [i for i in target if i not in gone]
    out = [f"{_capital(_listed(left, name))} should have been removed and "
           f"{'was' if len(left) == 1 else 'were'} not." if left else "",
           f"{_capital(_listed(wrong, name))} {'was' if len(wrong) == 1 else 'were'} removed "
           "but should have stayed." if wrong else ""]
    return [t for t in out if t]


#: metric -> sentences saying why it failed.
_WHY = {"final_object_match": _why_final, "kept_object_stability": _why_kept,
        "motion_continuity": _why_motion, "added_objects": _why_added,
        "camera_motion": _why_camera, "removed_object_count": _why_count,
        "rule_accuracy": _why_rule}
#: The order sentences are given in: what a person sees first (what was removed, what
#: appeared, what moved) before the measurements that follow from it.
_WHY_ORDER = ("added_objects", "motion_continuity", "rule_accuracy", "kept_object_stability",
              "camera_motion", "removed_object_count", "final_object_match")


#: An unscorable output's error (the reader's message, kept in the JSONL record) -> the words
#: the report gives it; the first pattern that matches wins, others are shown as they are.
_ERROR_WORDS = (
    (r"truncated or corrupt video .* after 0 frames", "the video ends before its first frame "
                                                      "(truncated or corrupt)"),
    (r"truncated or corrupt video .* after (\d+) frames", "the video ends after {0} frames "
                                                          "(truncated or corrupt)"),
    (r"truncated video .*: decoded (\d+) of (\d+) frames", "the video ends after {0} of its {1} "
                                                           "frames (truncated or corrupt)"),
    (r"video has zero frames", "the video has no frames (empty, truncated or corrupt)"),
    (r"undecodable video ", "the file cannot be read as a video (truncated, corrupt or not a "
                            "video)"),
    (r"undecodable image ", "the file cannot be read as an image (truncated, corrupt or not an "
                            "image)"),
    (r"empty file", "the output file is empty"),
    (r"missing: ", "there is no output for this question"),
    (r"no frame images in folder", "the output folder holds no frame images"),
)


def error_words(error: str) -> str:
    """An unscorable output's error in plain words (:data:`_ERROR_WORDS`).

    Examples
    --------
    >>> error_words("truncated or corrupt video 00003.mp4 after 17 frames: InvalidDataError: ...")
    'the video ends after 17 frames (truncated or corrupt)'
    >>> error_words("the video does not show the task's first frame")
    "the video does not show the task's first frame"
    """
    for pattern, words in _ERROR_WORDS:
        found = re.match(pattern, error)
        if found:
            return words.format(*found.groups())
    return error


def explain(res: dict) -> list[str]:
    """Sentences saying why a result failed (empty when it passed), the most telling first.

    Examples
    --------
    >>> explain({"objects": {"3": "blue circle"}, "metrics": {"rule_accuracy": {
    ...     "removed_ids": [], "target_ids": [3], "pass": False}}})
    ['The blue circle (3) should have been removed and was not.']
    """
    if res.get("error"):
        return [f"Not scored: {error_words(res['error'])}"]
    name = _namer(res)
    metrics = res["metrics"]
    return [text for m in _WHY_ORDER if metrics.get(m, {}).get("pass") is False
            for text in _WHY[m](metrics[m], name)]


#: metric -> the fields of its result that list objects its sentences name (when it fails).
_NAMED_FIELDS = {"rule_accuracy": ("removed_ids", "target_ids"),
                 "kept_object_stability": ("moved", "vanished", "changed_color",
                                           "changed_shape"),
                 "motion_continuity": ("absent_at_start", "reappeared", "teleported")}


def named_objects(res: dict) -> set[int]:
    """Ids of the task objects the failing checks' sentences (:func:`explain`) name.

    Examples
    --------
    >>> named_objects({"metrics": {"rule_accuracy": {"pass": False, "removed_ids": [1],
    ...                                              "target_ids": [2]},
    ...                            "kept_object_stability": {"pass": True, "moved": [4]}}})
    {1, 2}
    """
    named = set()
    for metric, fields in _NAMED_FIELDS.items():
        m = (res.get("metrics") or {}).get(metric) or {}
        if m.get("pass") is False:
            for field in fields:
                named.update(int(i["id"] if isinstance(i, dict) else i)
                             for i in m.get(field) or ())
    return named


def verdict(res: dict) -> str:
    """One line: PASS, or FAIL and the most telling reason."""
    if res.get("pass"):
        return "PASS: every check passed."
    why = explain(res)
    return "FAIL: " + (why[0] if why else "a check failed.")


def prepare(folder) -> Path:
    """Create the report folder and its ``img/`` folder."""
    folder = Path(folder)
    (folder / "img").mkdir(parents=True, exist_ok=True)
    return folder


def _name(res: dict) -> str:
    """The file stem of an output's strip and its anchor: readable, unique to the output (its
    model, split, task, run and file), within any file system's name length
    (``names.file_stem``)."""
    raw = "__".join(str(res.get(k) or "") for k in ("model", "split_folder", "task_id", "run_id"))
    return file_stem(raw + "\0" + str(res.get("output") or res.get("question") or ""))


def anchor(res: dict) -> str:
    """The id of an output's block in ``index.html`` (what ``index.html#...`` links to; the
    leaderboard's cells do)."""
    return _name(res)


def _overlaps(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def place_label(box, size, taken, bounds):
    """Top-left (x, y) for a label of ``size`` (w, h) near ``box`` (x0, y0, x1, y1) that
    overlaps no rectangle of ``taken`` and stays inside ``bounds`` (w, h): above the box, below
    it, beside it, then the nearest free place scanning the image; None when nothing is free.

    Examples
    --------
    >>> place_label((10, 20, 30, 40), (20, 10), [], (100, 100))
    (10, 9)
    >>> place_label((10, 20, 30, 40), (20, 10), [(10, 9, 30, 19)], (100, 100))
    (10, 41)
    """
    w, h = size
    x0, y0, x1, y1 = box
    spots = [(x0, y0 - h - 1), (x0, y1 + 1), (x1 + 1, y0), (x0 - w - 1, y0), (x1 - w, y0 - h - 1),
             (x1 - w, y1 + 1)]
    spots += sorted(((x, y) for y in range(0, bounds[1] - h + 1, max(h // 2, 1))
                     for x in range(0, bounds[0] - w + 1, max(w // 4, 1))),
                    key=lambda p: (p[0] - x0) ** 2 + (p[1] - y0) ** 2)
    for x, y in spots:
        x, y = int(round(x)), int(round(y))
        rect = (x, y, x + w, y + h)
        if 0 <= x and 0 <= y and x + w <= bounds[0] and y + h <= bounds[1] \
                and not any(_overlaps(rect, t) for t in taken):
            return x, y
    return None


def layout_labels(labels, bounds, keep_clear=(), avoid=()):
    """Rectangles for ``labels`` [(box, (w, h)), ...] in ``bounds`` (w, h): none overlaps
    another or a rectangle of ``keep_clear`` (the objects the verdict names, the footer);
    each also keeps off ``avoid`` (the other objects) where there is room. A label with no
    room at all is left out (None).

    Examples
    --------
    >>> layout_labels([((10, 20, 30, 40), (20, 10))], (100, 100), keep_clear=[(10, 5, 30, 19)])
    [(10, 41, 30, 51)]
    """
    placed, rects = [], []
    for box, (w, h) in labels:
        spot = (place_label(box, (w, h), placed + list(keep_clear) + list(avoid), bounds)
                or place_label(box, (w, h), placed + list(keep_clear), bounds))
        rect = None if spot is None else (spot[0], spot[1], spot[0] + w, spot[1] + h)
        if rect is not None:
            placed.append(rect)
        rects.append(rect)
    return rects


def _dashes(start, end, pattern):
    """The drawn pieces [(from, to), ...] of the segment ``start``-``end`` under ``pattern``
    (:data:`STATUS_STYLES`), the pattern starting at ``start``.

    Examples
    --------
    >>> _dashes((0, 0), (10, 0), (4, 2))
    [((0.0, 0.0), (4.0, 0.0)), ((6.0, 0.0), (10.0, 0.0))]
    """
    (x0, y0), (x1, y1) = start, end
    length = float(np.hypot(x1 - x0, y1 - y0))
    if not pattern or length == 0:
        return [((float(x0), float(y0)), (float(x1), float(y1)))]
    at, k, pieces = 0.0, 0, []
    while at < length:
        run = min(pattern[k % len(pattern)], length - at)
        if k % 2 == 0:
            a, b = at / length, (at + run) / length
            pieces.append(((x0 + a * (x1 - x0), y0 + a * (y1 - y0)),
                           (x0 + b * (x1 - x0), y0 + b * (y1 - y0))))
        at, k = at + run, k + 1
    return pieces


def _outline(draw, box, status) -> None:
    """Draw ``box`` (x0, y0, x1, y1) in the colour and dash pattern of ``status``."""
    colour, pattern = STATUS_STYLES[status]
    if not pattern:
        draw.rectangle(box, outline=colour, width=OUTLINE_PX)
        return
    x0, y0, x1, y1 = box
    for start, end in (((x0, y0), (x1, y0)), ((x1, y0), (x1, y1)), ((x1, y1), (x0, y1)),
                       ((x0, y1), (x0, y0))):
        for a, b in _dashes(start, end, pattern):
            draw.line([a, b], fill=colour, width=OUTLINE_PX)


def label_font():
    """The labels' font, :data:`LABEL_PX` high (Pillow's bundled FreeType font; the small
    bitmap font where Pillow has no FreeType)."""
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=LABEL_PX)
    except (TypeError, ImportError, OSError):  # Pillow < 10.1, or built without FreeType
        return ImageFont.load_default()


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
    name = _namer(res)
    footer = f"frame {index}" + (" (last)" if index == len(tracker.present) - 1 else "")
    footer_at = (4, STRIP_HEIGHT - LABEL_PX - 4)
    footer_box = draw.textbbox(footer_at, footer, font=font)
    named = named_objects(res)
    named_boxes, other_boxes = [footer_box], []
    labels = []
    for k, oid in enumerate(m.ids.tolist()):
        status = object_status(res, oid, bool(m.removed[k]), bool(seen_ever[k]))
        colour = STATUS_COLORS[status]
        half = cam[0] * m.size[k] / 2 + 3
        x, y = centre[k]
        box = [(x - half) * scale, (y - half) * scale, (x + half) * scale, (y + half) * scale]
        _outline(draw, box, status)
        (named_boxes if oid in named else other_boxes).append(tuple(box))
        if tracker.present[index][k]:
            px, py = tracker.positions[index][k] * scale
            draw.line([px - 4, py, px + 4, py], fill=colour, width=2)
            draw.line([px, py - 4, px, py + 4], fill=colour, width=2)
        labels.append((box, name(oid).removeprefix("the "), colour))
    added = res["metrics"].get("added_objects", {}).get("added", [])
    for a in added:           # unexplained ink, where it was first seen, while it stayed
        if a["frame"] <= index and (a["in_final"] or index < a["frame"] + a["frames"]):
            half = np.sqrt(a["area"]) / 2 + 3
            x, y = a["at"]
            box = [(x - half) * scale, (y - half) * scale, (x + half) * scale, (y + half) * scale]
            _outline(draw, box, "added")
            named_boxes.append(tuple(box))  # added ink: the verdict names it too
            labels.append((box, f"added {a['color']} {a['shape']}", STATUS_COLORS["added"]))
    bbox = [draw.textbbox((0, 0), label, font=font) for _, label, _ in labels]
    rects = layout_labels([(box, (r - l + 2, b - t + 2)) for (box, _, _), (l, t, r, b)
                           in zip(labels, bbox)], img.size, named_boxes, other_boxes)
    for (_, label, colour), (l, t, _, _), rect in zip(labels, bbox, rects):
        if rect is not None:
            draw.rectangle(rect, fill=(255, 255, 255))
            draw.text((rect[0] + 1 - l, rect[1] + 1 - t), label, fill=colour, font=font)
    draw.rectangle(footer_box, fill=(255, 255, 255))
    draw.text(footer_at, footer, fill=(0, 0, 0), font=font)
    return img


#: Widest strip image (px): the page's text column at a 1,280 px window (the tiles wrap onto
#: more rows rather than being scaled down, so labels keep their size and the last frame
#: is on screen).
STRIP_MAX_WIDTH = 1180
#: Gap between tiles (px).
STRIP_GAP = 6


def _tiled(tiles):
    """The tiles laid out left to right in rows at most :data:`STRIP_MAX_WIDTH` wide.

    Examples
    --------
    >>> from PIL import Image
    >>> _tiled([Image.new("RGB", (256, STRIP_HEIGHT))] * 6).size
    (1042, 518)
    """
    from PIL import Image

    rows, row, width = [], [], 0
    for t in tiles:
        if row and width + STRIP_GAP + t.width > STRIP_MAX_WIDTH:
            rows.append(row)
            row, width = [], 0
        width += (STRIP_GAP if row else 0) + t.width
        row.append(t)
    rows.append(row)
    wide = max(sum(t.width for t in r) + STRIP_GAP * (len(r) - 1) for r in rows)
    strip = Image.new("RGB", (wide, len(rows) * (STRIP_HEIGHT + STRIP_GAP) - STRIP_GAP),
                      (60, 60, 60))
    for k, r in enumerate(rows):
        x = 0
        for t in r:
            strip.paste(t, (x, k * (STRIP_HEIGHT + STRIP_GAP)))
            x += t.width + STRIP_GAP
    return strip


def write_strip(folder, res: dict, tracker) -> str | None:
    """Draw the sampled frames of one scored output into ``folder/img/``; return the path
    relative to ``folder`` (None for an error record: nothing to draw)."""
    from PIL import Image

    if tracker is None or res.get("error") or not tracker.samples.frames:
        return None
    font = label_font()
    tiles = [_draw_frame(f, i, res, tracker, font) for i, f in tracker.sampled()]
    strip = _tiled(tiles)
    rel = f"img/{_name(res)}.png"
    png = io.BytesIO()
    strip.save(png, format="PNG")
    atomic_write_bytes(Path(folder) / rel, png.getvalue(), sync_rename=False)
    return rel


_CSS = """body{font:14px sans-serif;margin:20px;color:#222}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:3px 7px;text-align:right}th{background:#eee}
td:first-child,td:nth-child(2),td:nth-child(3){text-align:left}
.task{margin:4px 0;padding:4px 10px;border-left:6px solid #999}.pass{border-color:#2a2}
.fail{border-color:#d22}.task[open]{margin:18px 0;padding:10px}
.frames{overflow-x:auto}.strip{max-width:none;display:block;margin:6px 0}
.path{font-family:monospace;word-break:break-all}
summary{cursor:pointer}.group>summary{font-weight:bold;margin:12px 0}
.why{color:#b00}.ok{color:#181}.meta{color:#555}.top{font-size:16px}
.legend span{display:inline-block;margin-right:14px;white-space:nowrap}
.legend svg{vertical-align:middle;margin-right:4px}"""


def _legend() -> str:
    """One entry per verdict: a box drawn as the strips draw it (colour and dash pattern)."""
    items = []
    for status, (colour, pattern) in STATUS_STYLES.items():
        dash = f' stroke-dasharray="{" ".join(map(str, pattern))}"' if pattern else ""
        items.append(
            f'<span><svg width="30" height="18" aria-hidden="true"><rect x="2" y="2" '
            f'width="26" height="14" fill="none" stroke="rgb{colour}" '
            f'stroke-width="{OUTLINE_PX}"{dash}/></svg>{html.escape(status)}</span>')
    return f'<p class="legend">Outlines: {"".join(items)}</p>'


def _summary_table(rows) -> str:
    """The summary table: the headings of the printed one (``summary.HEADINGS``, with spaces),
    the check columns under one heading that says they are pass rates."""
    from .summary import CHECKS_HEADING, HEADINGS, SUMMARY_COLUMNS

    checks = [f"{m}_pass" for m in METRICS]
    words = {c: HEADINGS.get(c, c).replace("_", " ") for c in SUMMARY_COLUMNS}
    top = "".join(f"<th rowspan='2'>{html.escape(words[c])}</th>" for c in SUMMARY_COLUMNS
                  if c not in checks and SUMMARY_COLUMNS.index(c) < SUMMARY_COLUMNS.index(
                      checks[0]))
    top += f"<th colspan='{len(checks)}'>{html.escape(CHECKS_HEADING.rstrip(':'))}</th>"
    top += "".join(f"<th rowspan='2'>{html.escape(words[c])}</th>" for c in SUMMARY_COLUMNS
                   if c not in checks and SUMMARY_COLUMNS.index(c) > SUMMARY_COLUMNS.index(
                       checks[-1]))
    sub = "".join(f"<th>{html.escape(words[c])}</th>" for c in checks)
    body = "".join("<tr>" + "".join(f"<td>{'-' if r[c] is None else html.escape(str(r[c]))}</td>"
                                    for c in SUMMARY_COLUMNS) + "</tr>" for r in rows)
    return f"<table><tr>{top}</tr><tr>{sub}</tr>{body}</table>"


def _compact_summary(results, rows) -> str:
    """The first lines of the page: each model's pass rate over its questions with what it
    left unscored or missing (in bold: what failed first), then the counts of the run."""
    from .summary import count_line, known, outcome

    by_model = {}
    for r in known(results):
        by_model.setdefault(str(r.get("model")), []).append(r)
    heads = []
    for model, rs in sorted(by_model.items()):
        passed = sum(bool(r.get("pass")) for r in rs)
        kinds = [outcome(r) for r in rs]
        unscored = sum(k not in ("scored", "missing") for k in kinds)
        heads.append(f"{html.escape(model)}: {100 * passed / len(rs):.0f}% pass ({passed} of "
                     f"{len(rs)}); {unscored} not scored, {kinds.count('missing')} missing")
    lines = [f"<p class='top'><b>{'<br>'.join(heads)}</b></p>",
             f"<p class='meta'>{html.escape(count_line(results))}.</p>"]
    models = [r for r in rows if r["model"] != "*" and r["level"] == "*"]
    if models:
        lines.append("<p class='meta'>" + "<br>".join(
            f"{html.escape(str(r['model']))}: mean score {r['mean_score']:.2f} "
            f"({r['tasks']} outputs)" for r in models) + "</p>")
    return "\n".join(lines)


def _task_block(res: dict, shown: bool) -> str:
    """One output: a line with its verdict that opens (``shown``: open from the start) on its
    frame strip and details."""
    ok = bool(res.get("pass"))
    title = " / ".join(html.escape(str(res.get(k))) for k in ("model", "task_id")
                       if res.get(k))
    lines = [f'<details class="task {"pass" if ok else "fail"}" '
             f'id="{html.escape(anchor(res))}"{" open" if shown else ""}>'
             f'<summary><b>{title}</b> &mdash; score {res.get("score", 0.0):.2f} &mdash; '
             f'<span class="{"ok" if ok else "why"}">{html.escape(verdict(res))}</span>'
             '</summary>']
    if res.get("report_image"):
        lines.append(f'<div class="frames"><img class="strip" loading="lazy" '
                     f'src="{html.escape(res["report_image"])}" '
                     f'alt="sampled frames of {title}"></div>')
    for sentence in explain(res)[1:]:
        lines.append(f'<div class="why">{html.escape(sentence)}</div>')
    if res.get("error") and error_words(res["error"]) != res["error"]:
        lines.append(f'<div class="meta">The reader said: {html.escape(res["error"])}</div>')
    if res.get("prompt"):
        lines.append(f'<div class="meta">Prompt: {html.escape(res["prompt"])}</div>')
    if res.get("output"):
        lines.append(f'<div class="meta">Output: <span class="path">'
                     f'{html.escape(str(res["output"]))}</span></div>')
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
    lines.append("</details>")
    return "\n".join(lines)


def _outputs(results) -> str:
    """Every output, failures first: the first :data:`OPEN_FAILURES` open, the other
    failures one line each, then the passing ones, one line each under one line."""
    from .summary import known

    ordered = sorted(known(results), key=lambda r: (bool(r.get("pass")), str(r.get("model")),
                                                    str(r.get("task_id"))))
    failed = [r for r in ordered if not r.get("pass")]
    passed = [r for r in ordered if r.get("pass")]
    parts = [_task_block(r, i < OPEN_FAILURES) for i, r in enumerate(failed)]
    if passed:
        parts.append(f'<details class="group"><summary>{len(passed)} passing output'
                     f'{"" if len(passed) == 1 else "s"} (one line each)</summary>'
                     + "\n".join(_task_block(r, False) for r in passed) + "</details>")
    return "\n".join(parts)


def write_index(folder, results, rows) -> Path:
    """Write ``folder/index.html``: a compact summary, then every output (failures first, each
    with its one-line verdict and frame strip), then the full summary table; return its path."""
    page = ("<!DOCTYPE html><html><head><meta charset='utf-8'><title>objsub-fast scores"
            f"</title><style>{_CSS}</style></head><body><h1>Object Subtraction scores</h1>"
            f"{_compact_summary(results, rows)}{_legend()}{_outputs(results)}"
            + f"<h2>Summary by model, level and rule kind</h2>{_summary_table(rows)}"
            "</body></html>\n")
    path = Path(folder) / "index.html"
    with AtomicWriter(path) as fh:
        fh.write(page.encode())
    return path
