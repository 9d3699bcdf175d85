"""``kept_object_stability``: every kept object, in every frame it is seen in, where the camera
puts it, with its first colour, shape and footprint (size, turn, stretch, morph) and its own
colour in the video's tone (``colour_change``); it must not vanish."""
from __future__ import annotations

import numpy as np

from ..tracking.camera import apply_camera
from .colour_change import colour_changes
from ..tracking.silhouette import describe
from .thresholds import THRESHOLDS
from .votes import change_start, read_changed, voted

__all__ = ["kept_object_stability", "footprint_change"]


def footprint_change(track, k: int) -> dict | None:
    """The change of object ``k``'s footprint in words and the frame it started in
    (``{"change": "grew by 35%", "kind": "grew", "value": 35, "frame": 12}``), or None:
    its (area ratio, overlap) series, voted over ``vote_frames`` frames around each
    (:func:`votes.voted`), beyond ``max_area_change``, below ``min_overlap``, or below
    ``turn_overlap`` where a turn of at least ``min_turn_deg`` or a stretch of at least
    ``min_stretch`` explains its silhouette (codec smear lowers the overlap of a small
    object to about 0.8 at 0.015 bit/pixel, and no turn or stretch explains it)."""
    st = THRESHOLDS["kept_object_stability"]
    window = st["vote_frames"]
    series = track.footprint[:, k]
    frames = np.flatnonzero(np.isfinite(series[:, 0]))
    if not frames.size:
        return None
    ratio = voted(series[frames, 0], window)
    overlap = voted(series[frames, 1], window)
    size_bad = np.abs(ratio - 1) > st["max_area_change"]
    bad = size_bad | (overlap < st["turn_overlap"])
    if not bad.any():
        return None
    raw = (np.abs(series[frames, 0] - 1) > st["max_area_change"]) \
        | (series[frames, 1] < st["turn_overlap"])
    start = int(frames[change_start(bad, raw)])
    if size_bad.any():
        r = float(ratio[np.argmax(np.abs(np.log(ratio)))])
        pct = round(abs(r - 1) * 100)
        kind = "grew" if r > 1 else "shrank"
        return {"change": f"grew by {pct}%" if r > 1 else f"shrank by {pct}%", "kind": kind,
                "value": pct, "frame": start}
    seen = track.changed_masks.get(k)
    if not seen:            # changed by the vote alone: no frame read changed on its own
        return None
    _, t, mask = seen["worst"]
    words = describe(track.silhouettes.reference(k), mask, float(ratio[frames == t][0])
                     if (frames == t).any() else 1.0, st["max_area_change"])
    explained = words.pop("explained", 0.0) - words.pop("overlap", 1.0) \
        >= st["min_explained_gain"] and (
            (words["kind"] == "turned" and words["value"] >= st["min_turn_deg"])
            or (words["kind"] == "stretched" and words["value"] >= st["min_stretch"]))
    if not (overlap < st["min_overlap"]).any() and not explained:
        return None
    return {**words, "frame": start}


def _displacement(track) -> np.ndarray:
    """(F, M) distance of each object from where the camera puts it (NaN: not seen)."""
    m = track.model
    q = np.stack([m.cx, m.cy], axis=1)
    placed = np.stack([apply_camera(q, cam, m.center) for cam in track.cameras])   # (F, M, 2)
    return np.hypot(*(track.positions - placed).transpose(2, 0, 1))


def _read_out_changes(track, k: int) -> list[dict]:
    """Object ``k``'s colour and shape read-outs, voted, against its own: a change each."""
    m, st = track.model, THRESHOLDS["kept_object_stability"]
    ids = m.ids.tolist()
    seen = np.flatnonzero(track.present[:, k])
    # A shape read-out counts where the silhouette bears it out (``Tracker._shape_evidence``):
    # the classifier reads a codec's blocky edges wrongly.
    reads = {"colour": (track.color_read, m.color, np.ones(seen.size, bool)),
             "shape": (track.shape_read, m.shape, track.shape_confirmed[seen, k])}
    out = []
    for what, (read, own, confirm) in reads.items():
        bad = read_changed(read[seen, k], own[k], st["vote_frames"], confirm)
        if bad.any():
            out.append({"id": ids[k], "change": f"changed {what}", "kind": what,
                        "frame": int(seen[change_start(bad, bad)])})
    return out


def _holds_added(box, added) -> bool:
    """Whether region ``box`` = [x0, y0, x1, y1] holds an added object's place (``added``:
    the ledger's items, ``at`` = (x, y)): that ink is ``added_objects``' to judge."""
    x0, y0, x1, y1 = box
    return any(x0 <= a["at"][0] <= x1 and y0 <= a["at"][1] <= y1 for a in added)


def _appearance_changes(track, kidx, named) -> list[dict]:
    """The changed regions (``residual``) on a kept object's square or ring: a change each,
    ``{"id", "change", "kind": "appearance", "frame", "box", "area_px"}``, in the words of the
    region (a hole, blurred, ...); none where a feature already named a change of that object
    (its words stand) or where the region holds an added object (``added_objects``')."""
    ids = track.model.ids.tolist()
    kept = set(int(k) for k in kidx)
    out, seen = [], set()
    for region in track.regions:
        k = region["object"]
        if k is None or k not in kept or k in seen or ids[k] in named \
                or _holds_added(region["box"], track.added):
            continue
        seen.add(k)
        words = region["words"]
        change = "changed here" if words == "changed" else words
        out.append({"id": ids[k], "change": change, "kind": "appearance",
                    "frame": region["frame"], "box": region["box"],
                    "area_px": region["area_px"]})
    return out


def kept_object_stability(track) -> dict:
    """``kept_object_stability`` of a :class:`track.Track`: mean displacement, vanished objects,
    colour and shape read-outs, footprint and colour changes, each voted over the frames
    around (:func:`votes.voted`)."""
    m, st = track.model, THRESHOLDS["kept_object_stability"]
    present = track.present
    kidx = np.flatnonzero(~m.removed & track.visible)
    ids = m.ids.tolist()
    disp = _displacement(track)
    per_obj, worst = {}, 0.0
    for k in kidx:
        d = disp[present[:, k], k]
        if d.size:
            per_obj[ids[k]] = round(float(d.mean()), 3)
            worst = max(worst, float(d.mean()))
    missing = (~present[:, kidx]).sum(axis=0)
    vanished = [int(ids[k]) for j, k in enumerate(kidx)
                if missing[j] > st["max_missing_frames"] or not present[-1, k]]
    changes, changed_footprint = [], []
    for k in kidx.tolist():
        changes += _read_out_changes(track, k)
        change = footprint_change(track, k)
        if change:
            changed_footprint.append(ids[k])
            changes.append({"id": ids[k], **change})
    tone = colour_changes(track)
    changes += tone
    changes += _appearance_changes(track, kidx, {c["id"] for c in changes})
    changed_color = sorted({c["id"] for c in changes if c["kind"] in ("colour", "tone")})
    changed_look = sorted({c["id"] for c in changes if c["kind"] == "appearance"})
    changed_shape = [c["id"] for c in changes if c["kind"] == "shape"]
    limit = st["max_mean_displacement_px"] * m.unit
    moved = [ids[k] for k in kidx if per_obj.get(ids[k], 0.0) > limit]
    changes.sort(key=lambda c: (c["frame"], c["id"]))
    return {"mean_displacement_px": round(worst / m.unit, 3), "per_object_px": per_obj,
            "moved": moved, "vanished": vanished, "changed_color": changed_color,
            "changed_shape": changed_shape, "changed_footprint": changed_footprint,
            "changed_appearance": changed_look, "changes": changes,
            "pass": bool(worst <= limit and not vanished and not changed_color
                         and not changed_shape and not changed_footprint
                         and not changed_look)}
