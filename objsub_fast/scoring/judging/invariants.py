"""The invariants a video is judged by, one small pure function of its :class:`track.Track`
each, in one table (:data:`INVARIANTS`); every threshold is in ``thresholds.THRESHOLDS``.

Positions are judged in camera-compensated coordinates (``camera``). Objects the registration
found outside the frame (cut off by a crop) are *not visible* and left out of every invariant.
A video passes when every applicable invariant passes; with a single final image,
``motion_continuity`` does not apply and stability is judged on that one frame.
"""
from __future__ import annotations

import numpy as np

from .continuity import motion_continuity
from .final_match import final_object_match
from .removal import left_behind, removed
from .stability import kept_object_stability
from .thresholds import METRICS, THRESHOLDS

__all__ = ["INVARIANTS", "measure"]


def camera_motion(track) -> dict:
    """The camera's largest zoom and pan over the video, against ``camera_motion``'s limits."""
    m, th = track.model, THRESHOLDS["camera_motion"]
    cams = track.cameras
    zoom = float(np.abs(cams[:, 0] - 1).max())
    pan = float(np.hypot(cams[:, 1], cams[:, 2]).max())
    w, h = m.canvas_size
    limit = th["max_pan_fraction"] * float(np.hypot(w, h))
    return {"max_zoom": round(zoom, 4), "max_pan_px": round(pan / m.unit, 2),
            "pan_limit_px": round(limit / m.unit, 2),
            "final": [round(float(v), 4) for v in cams[-1]],
            "pass": bool(zoom <= th["max_zoom"] and pan <= limit)}


def added_objects(track) -> dict:
    """Ink no task object explains that stayed (``accounting``), named by colour and shape,
    and the changed regions away from every object (``residual``)."""
    vocab = track.model.question.vocabulary
    added = [{**a, "color": vocab.colors[a["color"]], "shape": vocab.shape_labels[a["shape"]]}
             for a in track.added]
    appeared = [{"frame": r["frame"], "box": r["box"], "area_px": r["area_px"],
                 "change": f"something appeared at ({(r['box'][0] + r['box'][2]) // 2}, "
                           f"{(r['box'][1] + r['box'][3]) // 2}) from frame {r['frame']}"}
                for r in track.regions if r["object"] is None]
    return {"added": added, "appeared": appeared, "pass": not added and not appeared}


def removed_object_count(track) -> dict:
    """How many visible objects were removed (:func:`removal.removed`) against the task's."""
    m = track.model
    gone = int(removed(track).sum())
    expected = int((m.removed & track.visible).sum())
    return {"removed": gone, "expected": expected, "pass": gone == expected}


def rule_accuracy(track) -> dict:
    """Whether the removed set is exactly the task's target set (visible objects only)."""
    m, vis = track.model, track.visible
    ids = m.ids.tolist()
    removed_ids = sorted(ids[k] for k in np.flatnonzero(removed(track)))
    target_ids = sorted(ids[k] for k in np.flatnonzero(m.removed & vis))
    return {"removed_ids": removed_ids, "target_ids": target_ids,
            "not_visible": sorted(ids[k] for k in np.flatnonzero(~vis)),
            "left_behind": left_behind(track), "pass": removed_ids == target_ids}


#: metric -> (function of a Track, whether it applies to a single final image).
INVARIANTS = {
    "final_object_match": (final_object_match, True),
    "kept_object_stability": (kept_object_stability, True),
    "motion_continuity": (motion_continuity, False),
    "added_objects": (added_objects, True),
    "camera_motion": (camera_motion, True),
    "removed_object_count": (removed_object_count, True),
    "rule_accuracy": (rule_accuracy, True),
}
assert tuple(INVARIANTS) == METRICS


def measure(track, single_image: bool = False) -> dict:
    """Every invariant of :data:`INVARIANTS` on ``track``: ``{metric: {..., "pass": bool or
    None}}`` in report order; one that does not apply to a single image reads ``{"pass": None,
    "reason": "single final image"}``."""
    return {name: fn(track) if applies or not single_image
            else {"pass": None, "reason": "single final image"}
            for name, (fn, applies) in INVARIANTS.items()}
