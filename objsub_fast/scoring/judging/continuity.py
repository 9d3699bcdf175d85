"""``motion_continuity``: no object steps farther than the motion threshold between frames, no
removed object comes back, the scene outside the objects stays, the removal is not a hard cut,
and the removed objects were there at the start.

A hard cut is caught by the removed objects' ink (over their camera-placed squares): it must
spend at least ``min_transition_frames`` frames between 10% and 90% of the way from its first
value to its last (:func:`transition`)."""
from __future__ import annotations

import numpy as np

from ..tracking.detect import REACQUIRE_RATIO_RANGE
from .thresholds import THRESHOLDS
from .votes import reappeared

__all__ = ["motion_continuity", "transition", "teleports"]


def transition(track) -> tuple[int | None, float, tuple]:
    """(frames in transition, fraction of the removed objects' ink gone at the end, the
    transition band used).

    The band is ``transition_band`` narrowed by the ink noise of the video: each kept
    object's largest relative change of ink from frame 0 (its jitter, flicker, codec) times
    its size (a pixel of jitter changes the ink of a rim), the worst kept object's, over
    the smallest removed object's size, times ``transition_noise_factor``, at most
    ``max_transition_noise`` (``THRESHOLDS["motion_continuity"]``). Frames the removed
    objects' ink reaches only by that much noise are not in transition.
    """
    m, mc = track.model, THRESHOLDS["motion_continuity"]
    vis = track.visible_ids
    is_removed = m.removed[vis]
    removed = track.ink[:, is_removed].sum(axis=1)
    start, end = removed[0], removed[-1]
    gone = (start - end) / start if start > 0 else 0.0
    noise = 0.0
    kept = track.ink[:, ~is_removed]
    base = kept[0]
    if (base > 0).any() and is_removed.any():
        # A shift of a pixel changes ink along an object's rim: relative to its ink, in
        # proportion to 1 / size. Scaled to the smallest removed object.
        size = m.size[vis].astype(float)
        rel = np.abs(kept[:, base > 0] / base[base > 0] - 1).max(axis=0)
        per_px = float((rel * size[~is_removed][base > 0]).max())
        noise = min(mc["transition_noise_factor"] * per_px / size[is_removed].min(),
                    mc["max_transition_noise"])
    band = mc["transition_band"]
    lo, hi = max(band[0], noise), min(band[1], 1 - noise)
    if gone < mc["min_ink_gone"]:
        return None, float(gone), (lo, hi)
    frac = (start - removed) / (start - end)
    return int(((frac > lo) & (frac < hi)).sum()), float(gone), (lo, hi)


def teleports(track) -> list[tuple[dict, float]]:
    """Kept objects that were lost for good in the frame an object of their colour and
    about their area (:data:`detect.REACQUIRE_RATIO_RANGE` of their drawn area, under the
    camera's zoom) appeared elsewhere, farther than the motion threshold, and stayed (an
    added object in ``accounting``'s sense): a jump the tracker could not follow because the
    codec blurred the object's shape where it landed. ``({"id", "frame", "from", "to"},
    step in canvas px)`` each."""
    m, present, out = track.model, track.present, []
    gate = track.gate
    for k in np.flatnonzero(~m.removed & track.visible & ~present[-1]):
        seen = np.flatnonzero(present[:, k])
        if not seen.size:
            continue
        t = int(seen[-1]) + 1
        x, y = track.positions[t - 1][k]
        expected = m.area[k] * track.cameras[t][0] ** 2
        for a in track.added:
            step = float(np.hypot(a["at"][0] - x, a["at"][1] - y))
            ratio = a["area"] / expected
            if abs(a["frame"] - t) <= 1 and a["color"] == m.color[k] and step > gate \
                    and REACQUIRE_RATIO_RANGE[0] <= ratio <= REACQUIRE_RATIO_RANGE[1]:
                out.append(({"id": int(m.ids[k]), "frame": a["frame"],
                             "from": [int(round(x)), int(round(y))], "to": a["at"]}, step))
                break
    return out


def _came_back(track) -> dict:
    """{removed object id: the frame it came back in}. Identity follows place: a removed object
    is back when it is tracked again or when its square holds most of its first ink again (a
    codec may hide its look, not its ink)."""
    m = track.model
    ids = m.ids.tolist()
    col = {int(k): n for n, k in enumerate(track.visible_ids.tolist())}
    mc = THRESHOLDS["motion_continuity"]
    back = {}
    for k in np.flatnonzero(m.removed & track.visible):
        ink = track.ink[:, col[k]]
        again = ink >= mc["reappear_ink"] * max(ink[0], 1.0)
        at = reappeared(track.present[:, k] | again, mc["reappear_min_run"])
        if at is not None:
            back[ids[k]] = at
    return back


def motion_continuity(track) -> dict:
    """``motion_continuity`` of a :class:`track.Track` (see the module)."""
    m, mc = track.model, THRESHOLDS["motion_continuity"]
    ids = m.ids.tolist()
    back = _came_back(track)
    absent_at_start = [ids[k] for k in np.flatnonzero(track.visible & ~track.present[0])]
    frames, gone, band = transition(track)
    cut = frames is not None and frames < mc["min_transition_frames"]
    jumps = teleports(track)
    step = max([track.max_step] + [s for _, s in jumps])
    gate = track.gate
    return {"max_step_px": round(step / m.unit, 3), "teleported": [j for j, _ in jumps],
            "step_limit_px": round(gate / m.unit, 3), "reappeared": sorted(back),
            "reappeared_at": {str(i): f for i, f in sorted(back.items())},
            "max_global_change": round(track.max_global, 4),
            "absent_at_start": absent_at_start, "transition_frames": frames,
            "ink_removed": round(gone, 3),
            "transition_band": [round(float(b), 3) for b in band], "hard_cut": bool(cut),
            "pass": bool(step <= gate and not back
                         and track.max_global <= mc["max_global_change"]
                         and not absent_at_start and not cut)}
