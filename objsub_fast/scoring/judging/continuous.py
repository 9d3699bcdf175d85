"""A continuous score in [0, 1] beside pass/fail, for VBVR-Bench-style averages.

``score`` is the product of six dimensions, each in [0, 1] and 1 when its metric passes with
room to spare:

==========  =====================================================================================
dimension   value
==========  =====================================================================================
rule        Jaccard index of the removed set and the target set (visible objects):
            |removed & target| / |removed | target|; 1 when exact, 0 for nothing removed or only
            wrong objects removed
kept        0 when a kept object vanished or changed colour/shape/footprint; else
            clip(2 - d / d_max, 0, 1) for the worst kept object's mean camera-compensated
            displacement d (1 up to the threshold d_max, 0 at twice it)
final       clip((IoU - 0.5) / (min_iou - 0.5), 0, 1) of the final-frame match
motion      1 when not applicable (a single image); 0 for a reappearance, a hard cut, removed
            objects absent from frame 0 or a whole-frame change; else clip(2 - step / step_max)
added       0 when the video added an object (unexplained ink that stayed), else 1
camera      clip(2 - zoom / zoom_max) * clip(2 - pan / pan_max)
==========  =====================================================================================

So the ground truth scores 1; a static video (rule 0), a video that removes the wrong objects
(rule 0 or 1/3) and one where a kept object moves by twice the threshold (kept 0) score low. An
error record scores 0.

Examples
--------
>>> metrics = {"rule_accuracy": {"removed_ids": [1], "target_ids": [1, 2]}}
>>> round(dimension_scores(metrics)["rule"], 3)
0.5
"""
from __future__ import annotations

from .thresholds import THRESHOLDS

__all__ = ["continuous_score", "dimension_scores", "DIMENSIONS"]

DIMENSIONS = ("rule", "kept", "final", "motion", "added", "camera")


def _ramp(value: float, limit: float) -> float:
    """1 up to ``limit``, falling linearly to 0 at twice it."""
    return min(1.0, max(0.0, 2.0 - value / limit)) if limit > 0 else float(value <= 0)


def _rule(r: dict) -> float:
    removed, target = set(r["removed_ids"]), set(r["target_ids"])
    union = removed | target
    return len(removed & target) / len(union) if union else 1.0


def _kept(k: dict) -> float:
    if k["vanished"] or k["changed_color"] or k["changed_shape"] or k.get("changed_footprint"):
        return 0.0
    return _ramp(k["mean_displacement_px"],
                 THRESHOLDS["kept_object_stability"]["max_mean_displacement_px"])


def _final(f: dict) -> float:
    if f.get("targets_left"):
        return 0.0
    lo = THRESHOLDS["final_object_match"]["min_iou"]
    return min(1.0, max(0.0, (f["iou"] - 0.5) / (lo - 0.5)))


def _motion(mc: dict) -> float:
    if mc.get("pass") is None:
        return 1.0
    th = THRESHOLDS["motion_continuity"]
    if (mc["reappeared"] or mc["hard_cut"] or mc["absent_at_start"]
            or mc["max_global_change"] > th["max_global_change"]):
        return 0.0
    return _ramp(mc["max_step_px"], mc["step_limit_px"])


def _added(a: dict) -> float:
    return 0.0 if a["added"] else 1.0


def _camera(c: dict) -> float:
    th = THRESHOLDS["camera_motion"]
    return (_ramp(c["max_zoom"], th["max_zoom"])
            * _ramp(c["max_pan_px"], c["pan_limit_px"]))


_DIMENSION_OF = {"rule": ("rule_accuracy", _rule), "kept": ("kept_object_stability", _kept),
                 "final": ("final_object_match", _final), "motion": ("motion_continuity", _motion),
                 "added": ("added_objects", _added), "camera": ("camera_motion", _camera)}


def dimension_scores(metrics: dict) -> dict:
    """Each dimension's value in [0, 1] (see the module docstring) for the metrics present."""
    return {dim: round(fn(metrics[name]), 4) for dim, (name, fn) in _DIMENSION_OF.items()
            if name in metrics}


def continuous_score(metrics: dict) -> tuple[float, dict]:
    """``(score, dimensions)``: the product of the dimensions, and the dimensions."""
    dims = dimension_scores(metrics)
    score = 1.0
    for v in dims.values():
        score *= v
    return (round(score, 4) if dims else 0.0), dims
