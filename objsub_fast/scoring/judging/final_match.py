"""``final_object_match``: the final frame's foreground against the expected one (the kept
objects where the camera puts them), as an IoU."""
from __future__ import annotations

import numpy as np

from ..tracking.camera import apply_camera, fit_camera
from ..tracking.detect import BG
from .thresholds import THRESHOLDS

__all__ = ["final_object_match"]


def _warp_mask(mask: np.ndarray, cam, center) -> np.ndarray:
    """``mask`` as the camera ``cam`` shows it (nearest neighbour).

    Examples
    --------
    >>> mask = np.zeros((4, 4), bool); mask[1, 1] = True
    >>> np.argwhere(_warp_mask(mask, (1.0, 1.0, 2.0), (1.5, 1.5))).tolist()
    [[3, 2]]
    """
    s, tx, ty = cam
    if (s, tx, ty) == (1.0, 0.0, 0.0):
        return mask
    h, w = mask.shape
    ys = np.floor(center[1] + (np.arange(h) - center[1] - ty) / s + 0.5).astype(int)
    xs = np.floor(center[0] + (np.arange(w) - center[0] - tx) / s + 0.5).astype(int)
    oky, okx = (ys >= 0) & (ys < h), (xs >= 0) & (xs < w)
    out = mask[np.clip(ys, 0, h - 1)][:, np.clip(xs, 0, w - 1)]
    return out & oky[:, None] & okx[None, :]


def _settled(track, cam):
    """((M, 2) whole-px canvas offsets, (M,) sizes) that put each kept object seen in the
    final frame on its centroid there, when that is within the stability tolerance of where
    camera ``cam`` puts it, at its size there within ``size_slack`` (jitter); the
    drawn place and size for the others (moved, missing, removed)."""
    m = track.model
    pos = track.positions[-1]
    d = (pos - apply_camera(np.stack([m.cx, m.cy], axis=1), cam, m.center)) / cam[0]
    limit = THRESHOLDS["kept_object_stability"]["max_mean_displacement_px"] * m.unit
    near = track.present[-1] & ~m.removed & (np.hypot(d[:, 0], d[:, 1]) <= limit)
    slack = THRESHOLDS["final_object_match"]["size_slack"]
    grow = np.clip(np.sqrt(track.last_area / m.area) / cam[0], 1 - slack, 1 + slack)
    sizes = np.where(near, np.rint(m.size * grow), m.size).astype(int)
    return np.where(near[:, None], np.rint(np.nan_to_num(d)), 0).astype(int), sizes


def _iou(track, cam) -> float:
    """IoU of the final frame's foreground with the expected one placed by camera ``cam``,
    over the part of the canvas the frame shows, objects it does not show left out; each
    kept object within the stability tolerance of its place is expected where it is seen
    (:func:`_settled`), so a jitter of small objects costs no overlap."""
    m, vis = track.model, track.visible
    blank = np.zeros(track.final_classes.shape, bool)
    expected = _warp_mask(m.paste(blank.copy(), np.flatnonzero(~m.removed & vis),
                                  *_settled(track, cam)), cam, m.center)
    valid = blank.copy()
    u0, v0, u1, v1 = track.rect
    valid[v0:v1, u0:u1] = True
    # Objects the frame does not show are left out with a margin of the stability
    # tolerance: their jitter must not spill into the judged part.
    margin = int(np.ceil(THRESHOLDS["kept_object_stability"]["max_mean_displacement_px"]
                         * m.unit))
    hidden = blank.copy()
    for k in np.flatnonzero(~vis):
        hidden[max(m.top[k] - margin, 0):max(m.top[k] + m.size[k] + margin, 0),
               max(m.left[k] - margin, 0):max(m.left[k] + m.size[k] + margin, 0)] = True
    valid &= ~_warp_mask(hidden, cam, m.center)
    fg = (track.final_classes != BG) & valid
    expected &= valid
    union = np.count_nonzero(fg | expected)
    return np.count_nonzero(fg & expected) / union if union else 1.0


def _final_camera(track):
    """The camera least-squares fitted on the kept objects seen in the final frame (the
    zoom of the tracked camera kept when only one is seen), or None."""
    m = track.model
    seen = track.present[-1] & ~m.removed & track.visible
    if not seen.any():
        return None
    p, q = track.positions[-1][seen], np.stack([m.cx, m.cy], axis=1)[seen]
    s = track.cameras[-1][0]
    if seen.sum() >= 2:
        return fit_camera(p, q, m.center)
    t = p[0] - m.center - s * (q[0] - m.center)
    return s, float(t[0]), float(t[1])


def final_object_match(track) -> dict:
    """The final-frame IoU under the tracked camera, or under the camera the final frame's
    own kept objects give when that fits better (the tracked camera can lag when few
    objects are left to see it), and the targets the final frame still shows (as the removal
    invariants read them: tracked there, or left behind in their place):
    ``{"iou", "targets_left", "pass"}``. A final frame that still shows a target does not
    match, whatever its IoU (one small target left among large kept objects keeps the IoU
    high)."""
    from .removal import removed

    m = track.model
    min_iou = THRESHOLDS["final_object_match"]["min_iou"]
    iou = _iou(track, tuple(track.cameras[-1]))
    refit = _final_camera(track)
    if refit is not None and iou < min_iou:
        iou = max(iou, _iou(track, refit))
    left = m.removed & track.visible & ~removed(track)
    targets_left = [int(i) for i in m.ids[left]]
    return {"iou": round(float(iou), 4), "targets_left": targets_left,
            "pass": bool(iou >= min_iou and not targets_left)}
