"""Which targets are removed: absent from the final frame and their place back to this video's
background (``THRESHOLDS["removal"]``)."""
from __future__ import annotations

import weakref

import numpy as np

from ..tracking.appearance import ink_over
from ..tracking.camera import apply_camera
from ..tracking.detect import BG
from ..tracking.silhouette import typical_ink
from .thresholds import THRESHOLDS

__all__ = ["left_behind", "removed"]

#: Each track's left-behind objects, read once: both removal invariants ask for them.
_LEFT_BEHIND: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _place(track, k: int) -> np.ndarray:
    """(H, W) bool: object ``k``'s square where the final camera puts it, and its box where it
    was last seen, each grown by 1 px."""
    m, cam = track.model, track.cameras[-1]
    h, w = track.final_classes.shape
    half = m.size[k] / 2
    boxes = [(apply_camera(m.square_centres[k][None], cam, m.center)[0], half * cam[0] + 1)]
    if track.last_seen[k] >= 0:
        boxes.append((track.last_position[k], half + 1))
    inside = np.zeros((h, w), bool)
    for (x, y), r in boxes:
        inside[max(int(np.floor(y - r)), 0):max(int(np.ceil(y + r)) + 1, 0),
               max(int(np.floor(x - r)), 0):max(int(np.ceil(x + r)) + 1, 0)] = True
    return inside


def left_behind(track) -> dict:
    """The visible objects not tracked in the final frame whose place is not back to
    background, ``{"3": {"remnant_px": 24, "ink_left": 0.05, "still_going": False}}``.

    Its ink in its place (:func:`_place`: a shrink stopped half-way, a speck too small to
    track), over the pixels not read as background, counted in whole pixels of the object's
    typical ink (a pixel inked as the object counts 1, a codec's pale speck a tenth: ink is what
    blur and block artefacts spread but keep), at least ``remnant_floor_px``; or more than
    ``max_ink_left`` of its first ink still in its square (a fade stopped half-way); or its ink
    still falling by more than ``max_ink_falling`` of it over the last frames (a removal not
    finished). Ink is measured against the frame's own background (``appearance``).
    """
    if track not in _LEFT_BEHIND:
        _LEFT_BEHIND[track] = _measure_left_behind(track)
    return dict(_LEFT_BEHIND[track])


def _measure_left_behind(track) -> dict:
    """:func:`left_behind`, measured."""
    m, th = track.model, THRESHOLDS["removal"]
    absent = ~track.present[-1] & track.visible
    if not absent.any():
        return {}
    ink_now = ink_over(track.final_frame, track.background[-1])
    floor = th["remnant_floor_px"] * m.unit ** 2
    col = {int(k): n for n, k in enumerate(track.visible_ids.tolist())}
    out = {}
    for k in np.flatnonzero(absent).tolist():
        full = typical_ink(m.look, m.global_shape[k], int(m.size[k]), m.rgb[k])
        inked = _place(track, k) & (track.final_classes != BG)
        px = float(np.minimum(ink_now[inked] / full, 1.0).sum())
        series = track.ink[:, col[k]]
        first = series[0] if series[0] > 0 else 1.0
        still = series[-1] / first
        falling = (series[-min(len(series), 3)] - series[-1]) / first if len(series) > 2 \
            else 0.0
        reasons = (px >= floor, len(series) > 1 and still > th["max_ink_left"],
                   falling > th["max_ink_falling"] and still > th["max_ink_falling"])
        if any(reasons):
            out[str(m.ids[k])] = {"remnant_px": round(px / m.unit ** 2, 1),
                                  "ink_left": round(float(still), 3),
                                  "still_going": bool(reasons[2])}
    return out


def removed(track) -> np.ndarray:
    """(M,) bool: the visible objects absent from the final frame and not left behind."""
    m = track.model
    left = [int(i) for i in left_behind(track)]
    return ~track.present[-1] & track.visible & ~np.isin(m.ids, left)
