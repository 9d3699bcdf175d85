"""The five Object Subtraction metrics, tracked over a stream of canvas frames.

All pass/fail thresholds live in :data:`THRESHOLDS` (the one documented place):

=====================  ========================  =====  ======================================
metric                 threshold                 value  why
=====================  ========================  =====  ======================================
final_object_match     min_iou                   0.80   codec blur turns edge pixels into
                                                        *other* (still foreground): encoded
                                                        ground truth scores > 0.95; one
                                                        missing or extra object of 5-8 drops
                                                        IoU to about 0.85 or less
kept_object_stability  max_mean_displacement_px  3.0    the issue's pass line; per kept
                                                        object, its mean centroid displacement
                                                        over the frames it is seen in; the
                                                        worst kept object decides
kept_object_stability  max_missing_frames        1      one dropped detection is tolerated
kept_object_stability  max_changed_frames        1      same for colour / shape read-outs
motion_continuity      max_step_fraction         0.10   per-frame step of any object, as a
                                                        fraction of the canvas diagonal (36 px
                                                        at 256x256); a slide-out moves < 20
                                                        px/frame, a teleport about half the
                                                        canvas
motion_continuity      reappear_min_run          3      a removed object absent for >= 3 frames
                                                        and then present for >= 3 frames has
                                                        reappeared (shorter runs are the
                                                        flicker of a fading object)
motion_continuity      max_global_change         0.05   fraction of canvas pixels changing
                                                        class between two frames outside every
                                                        object's zone (its drawn square and its
                                                        tracked boxes, grown by 3 px):
                                                        background, lighting, scene cuts
=====================  ========================  =====  ======================================

``removed_object_count`` (objects absent from the final frame vs. the task's number) and
``rule_accuracy`` (absent set equals the target set) are exact. A task passes overall when every
applicable metric passes; with a single final image, ``motion_continuity`` is not applicable and
stability is judged on that one frame.
"""
from __future__ import annotations

import numpy as np

from ..render import sprite
from ..vocabulary import Vocabulary
from .detect import BG, MIN_AREA_FRACTION, Detector, class_lut, match, shape_templates

THRESHOLDS = {
    "final_object_match": {"min_iou": 0.80},
    "kept_object_stability": {"max_mean_displacement_px": 3.0, "max_missing_frames": 1,
                              "max_changed_frames": 1},
    "motion_continuity": {"max_step_fraction": 0.10, "reappear_min_run": 3,
                          "max_global_change": 0.05},
    "removed_object_count": {},
    "rule_accuracy": {},
}

METRICS = tuple(THRESHOLDS)
#: Object zones (left out of the global-change test) are their boxes grown by this many px.
ZONE_MARGIN = 3


class TaskError(Exception):
    """A task record that cannot be scored; ``str(err)`` is the reason."""


class TaskModel:
    """What the scorer expects of one task, derived from its task record.

    Attributes
    ----------
    canvas_size : (W, H)
    color, shape, size, left, top : (M,) int arrays
    cx, cy : (M,) expected centroids of the drawn shapes (pixel-centre coordinates)
    area : (M,) drawn pixels
    removed : (M,) bool, the task's target set
    expected_fg : (H, W) bool, foreground of the expected final frame
    templates : (M, shapes, 4) shape templates at each object's size
    palette : tuple of (r, g, b) of the scene's colours, or None for the classic six; colour
        codes index it (shape codes index the record's shapes)
    """

    def __init__(self, record: dict):
        try:
            data = record["object_subtraction_data"]
            objects = sorted(data["objects"], key=lambda o: o["id"])
            w, h = (int(v) for v in record.get("canvas_size", (256, 256)))
            vocab = Vocabulary.from_record(record)
            self.color = np.array([vocab.colors.index(o["color"]) for o in objects], int)
            self.shape = np.array([vocab.shape_labels.index(o["shape"]) for o in objects], int)
            self.size = np.array([int(o["size"]) for o in objects], int)
            x = np.array([float(o["x"]) for o in objects])
            y = np.array([float(o["y"]) for o in objects])
            target = set(int(i) for i in data["remove_object_ids"])
        except (KeyError, TypeError, ValueError) as exc:
            raise TaskError(f"bad task record: {type(exc).__name__}: {exc}") from None
        if not objects:
            raise TaskError("bad task record: no objects")
        self.task_id = str(record.get("id", ""))
        self.level = str(record.get("level", ""))
        self.rule_kind = str(data.get("rule", {}).get("rule_type", ""))
        self.canvas_size = (w, h)
        self.ids = np.array([int(o["id"]) for o in objects], int)
        self.removed = np.isin(self.ids, sorted(target))
        self.left = np.rint(x - self.size / 2).astype(int)
        self.top = np.rint(y - self.size / 2).astype(int)
        m = len(objects)
        self.cx, self.cy, self.area = np.zeros(m), np.zeros(m), np.zeros(m)
        self.expected_fg = np.zeros((h, w), bool)
        if len(vocab.colors) > 6:
            raise TaskError(f"the detector reads at most 6 colours per scene; this one has "
                            f"{len(vocab.colors)}")
        self.palette = None if vocab.is_classic else tuple(map(tuple, vocab.rgb.tolist()))
        for k in range(m):
            mask = sprite(vocab.shapes[self.shape[k]], int(self.size[k])) > 0
            rr, cc = np.nonzero(mask)
            self.cy[k], self.cx[k] = self.top[k] + rr.mean(), self.left[k] + cc.mean()
            self.area[k] = rr.size
            if not self.removed[k]:
                self._paste(self.expected_fg, mask, k)
        self.templates = np.stack([shape_templates(int(s), vocab.shapes) for s in self.size])
        self.min_area = MIN_AREA_FRACTION * self.area.min()

    def _paste(self, canvas, mask, k):
        h, w = canvas.shape
        t, x, s = self.top[k], self.left[k], self.size[k]
        y0, x0, y1, x1 = max(t, 0), max(x, 0), min(t + s, h), min(x + s, w)
        if y1 > y0 and x1 > x0:
            canvas[y0:y1, x0:x1] |= mask[y0 - t:y1 - t, x0 - x:x1 - x]


def _runs(flags: np.ndarray):
    """Run-length encode a bool sequence: list of (value, length)."""
    out = []
    for v in flags.tolist():
        if out and out[-1][0] == v:
            out[-1][1] += 1
        else:
            out.append([v, 1])
    return out


def _reappeared(present: np.ndarray, min_run: int) -> bool:
    """True when an absent run of >= min_run frames is followed by a present run >= min_run."""
    seen_gap = False
    for v, n in _runs(present):
        if not v and n >= min_run:
            seen_gap = True
        elif v and n >= min_run and seen_gap:
            return True
    return False


class Tracker:
    """Consume canvas frames of one video and compute the five metrics at the end.

    Parameters
    ----------
    model : TaskModel
    """

    def __init__(self, model: TaskModel):
        self.model = model
        w, h = model.canvas_size
        self.diag = float(np.hypot(w, h))
        self.detect = Detector(model.canvas_size, model.min_area)
        self.detect.lut = class_lut(model.palette)
        self.ref_x, self.ref_y = model.cx.copy(), model.cy.copy()
        self.ref_area = model.area.copy()
        self.last_seen = np.full(len(model.cx), -1)
        self.positions, self.present, self.color_ok, self.shape_ok = [], [], [], []
        self.max_step = 0.0
        self.max_global = 0.0
        self.prev_cls = None
        self.prev_zones = []
        s = model.size
        self.base_zones = [(model.left[k] - ZONE_MARGIN, model.left[k] + s[k] + ZONE_MARGIN,
                            model.top[k] - ZONE_MARGIN, model.top[k] + s[k] + ZONE_MARGIN)
                           for k in range(len(s))]
        self.final_cls = None

    def update(self, frame: np.ndarray) -> None:
        """Detect and match objects in one canvas frame."""
        m = self.model
        comps = self.detect(frame)
        t = len(self.present)
        lost = ~self.present[-1] if t else np.zeros(len(m.cx), bool)
        comp_of, shape_of = match(self.ref_x, self.ref_y, self.ref_area, lost, m.color, m.shape,
                                  m.size, m.area, m.templates, comps)
        hit = comp_of >= 0
        idx = comp_of[hit]
        px = np.full(len(comp_of), np.nan)
        py = np.full(len(comp_of), np.nan)
        px[hit], py[hit] = comps.cx[idx], comps.cy[idx]
        seen = hit & (self.last_seen >= 0)
        if seen.any():
            step = np.hypot(px[seen] - self.ref_x[seen], py[seen] - self.ref_y[seen])
            self.max_step = max(self.max_step, float(step.max()))
        self.ref_x[hit], self.ref_y[hit] = px[hit], py[hit]
        self.ref_area[hit] = comps.area[idx]
        self.last_seen[hit] = t
        col_ok = np.ones(len(comp_of), bool)
        col_ok[hit] = comps.color[idx] == m.color[hit]
        self.positions.append(np.stack([px, py], axis=1))
        self.present.append(hit)
        self.color_ok.append(col_ok)
        self.shape_ok.append(~hit | (shape_of == m.shape))
        zones = [tuple(comps.bbox[c] + (-ZONE_MARGIN, ZONE_MARGIN, -ZONE_MARGIN, ZONE_MARGIN))
                 for c in comp_of[hit]]
        if self.prev_cls is not None:
            diff = self.prev_cls != comps.cls
            for x0, x1, y0, y1 in self.base_zones + self.prev_zones + zones:
                diff[max(y0, 0):max(y1 + 1, 0), max(x0, 0):max(x1 + 1, 0)] = False
            self.max_global = max(self.max_global, float(diff.mean()))
        self.prev_cls, self.prev_zones = comps.cls, zones
        self.final_cls = comps.cls

    def result(self, single_image: bool = False) -> dict:
        """Return the metrics dict (see :func:`score_frames`)."""
        m, th = self.model, THRESHOLDS
        present = np.array(self.present)            # (F, M)
        pos = np.array(self.positions)              # (F, M, 2)
        final = present[-1]
        kept = ~m.removed
        ids = m.ids.tolist()

        fg = self.final_cls != BG
        inter = np.count_nonzero(fg & m.expected_fg)
        union = np.count_nonzero(fg | m.expected_fg)
        iou = inter / union if union else 1.0
        gone = ~final
        out = {"final_object_match": {"iou": round(float(iou), 4),
                                      "pass": bool(iou >= th["final_object_match"]["min_iou"])}}
        out["removed_object_count"] = {"removed": int(gone.sum()), "expected": int(m.removed.sum()),
                                       "pass": int(gone.sum()) == int(m.removed.sum())}

        st = th["kept_object_stability"]
        disp = np.hypot(pos[..., 0] - m.cx, pos[..., 1] - m.cy)   # NaN where absent
        per_obj = {}
        worst = 0.0
        for k in np.flatnonzero(kept):
            d = disp[present[:, k], k]
            if d.size:
                per_obj[ids[k]] = round(float(d.mean()), 3)
                worst = max(worst, float(d.mean()))
        missing = (~present[:, kept]).sum(axis=0)
        vanished = [int(ids[k]) for j, k in enumerate(np.flatnonzero(kept))
                    if missing[j] > st["max_missing_frames"] or not final[k]]
        col_bad = (~np.array(self.color_ok)[:, kept]).sum(axis=0)
        shp_bad = (~np.array(self.shape_ok)[:, kept]).sum(axis=0)
        kept_ids = [ids[k] for k in np.flatnonzero(kept)]
        changed_color = [i for i, n in zip(kept_ids, col_bad) if n > st["max_changed_frames"]]
        changed_shape = [i for i, n in zip(kept_ids, shp_bad) if n > st["max_changed_frames"]]
        out["kept_object_stability"] = {
            "mean_displacement_px": round(worst, 3), "per_object_px": per_obj,
            "vanished": vanished, "changed_color": changed_color, "changed_shape": changed_shape,
            "pass": bool(worst <= st["max_mean_displacement_px"] and not vanished
                         and not changed_color and not changed_shape)}

        mc = th["motion_continuity"]
        if single_image:
            out["motion_continuity"] = {"pass": None, "reason": "single final image"}
        else:
            reappeared = [ids[k] for k in np.flatnonzero(m.removed)
                          if _reappeared(present[:, k], mc["reappear_min_run"])]
            max_step = self.max_step
            out["motion_continuity"] = {
                "max_step_px": round(max_step, 3), "reappeared": reappeared,
                "max_global_change": round(self.max_global, 4),
                "pass": bool(max_step <= mc["max_step_fraction"] * self.diag and not reappeared
                             and self.max_global <= mc["max_global_change"])}

        removed_ids = sorted(ids[k] for k in np.flatnonzero(gone))
        target_ids = sorted(ids[k] for k in np.flatnonzero(m.removed))
        out["rule_accuracy"] = {"removed_ids": removed_ids, "target_ids": target_ids,
                                "pass": removed_ids == target_ids}
        return out


def score_frames(model: TaskModel, frames, single_image: bool = False) -> dict:
    """Track ``frames`` (an iterable of canvas frames) and return the five metrics.

    Returns
    -------
    dict
        ``{metric: {..., "pass": bool or None}}`` for each of :data:`METRICS`, plus
        ``"frames"`` (count) and ``"pass"`` (every applicable metric passes).
    """
    tracker = Tracker(model)
    n = 0
    for frame in frames:
        tracker.update(frame)
        n += 1
    if n == 0:
        raise ValueError("no frames")
    metrics = tracker.result(single_image=single_image)
    verdicts = [v["pass"] for v in metrics.values() if v["pass"] is not None]
    return {"frames": n, "metrics": metrics, "pass": all(verdicts)}
