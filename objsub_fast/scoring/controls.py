"""Positive and negative control videos: known answers that the scorer must get right.

Each control turns one task into frames; the table :data:`CONTROLS` names the metric that must
catch it (None: the ground truth, which must pass every metric).

=================  ======================================================  ======================
control            frames                                                  caught by
=================  ======================================================  ======================
ground_truth       ``render_transition`` (style rotates fade/shrink/slide)  (passes everything)
wrong_object       one target kept, one kept object removed instead         rule_accuracy
drift              ground truth, one kept object drifts 6 px (at 256 px;    kept_object_stability
                   scaled with the canvas) over the first quarter of the
                   video and stays there
jump               ground truth, one kept object jumps >= 1/4 of the        motion_continuity
                   canvas diagonal to a free spot at mid-video
nothing_removed    the first frame, repeated (a static video)              removed_object_count
hard_cut           the first frame, then the final frame from mid-video     motion_continuity
all_removed        every object fades out                                   removed_object_count
=================  ======================================================  ======================

:func:`control_tasks` builds one task per rule kind (21 kinds, all four levels) with
``generate_batch(kind_weights=...)``.
"""
from __future__ import annotations

import numpy as np

from ..render import sprite
from ..vocabulary import COLOR_RGB, KINDS, OUTLINE_RGB
from .transitions import STYLE_NAMES, _draw, task_arrays, task_frames, whiten

__all__ = ["CONTROLS", "control_tasks", "control_frames", "caught"]

DRIFT_PX = 6
JUMP_MIN_FRACTION = 0.25


def control_tasks(seed: int = 0, canvas_size=256, search: int = 400):
    """A Batch with one task per rule kind of ``vocabulary.KINDS``, in kind order (21 tasks).

    Found by a seed search over ``seed .. seed + search - 1`` in each level with the default
    configuration, so every task is the ordinary task of its (seed, level).
    """
    from ..engine import generate_batch
    from ..vocabulary import LEVEL_KINDS

    seeds, levels = [], []
    for level, codes in LEVEL_KINDS.items():
        pool = generate_batch(np.arange(seed, seed + search), level=level,
                              canvas_size=canvas_size, render=False)
        for code in codes:
            hits = np.flatnonzero(pool.kind == code)
            if not hits.size:
                raise ValueError(f"no {level} {KINDS[code].name} task in {search} seeds")
            seeds.append(int(pool.seeds[hits[0]]))
            levels.append(level)
    return generate_batch(seeds, level=levels, canvas_size=canvas_size)


def _inside(arrs, window) -> np.ndarray:
    """Objects whose bounding square lies inside ``window`` (x0, x1, y0, y1) of the canvas."""
    x0, x1, y0, y1 = window
    left, top, size = arrs["left"], arrs["top"], arrs["size"]
    return (left >= x0) & (top >= y0) & (left + size <= x1) & (top + size <= y1)


def _kept_object(arrs, window) -> int:
    """The largest kept object inside ``window`` (the easiest to follow)."""
    kept = np.flatnonzero(~arrs["removed"] & _inside(arrs, window))
    if not kept.size:
        raise ValueError("no kept object inside the visible window")
    return int(kept[np.argmax(arrs["size"][kept])])


def _move(frames, arrs, k, offsets):
    """Redraw object ``k`` shifted by ``offsets[f]`` = (dx, dy) in each frame, in place."""
    s, x0, y0 = int(arrs["size"][k]), int(arrs["left"][k]), int(arrs["top"][k])
    sp = sprite(int(arrs["shape"][k]), s)
    fill = COLOR_RGB[arrs["color"][k]]
    for f, (dx, dy) in enumerate(offsets):
        if dx == 0 and dy == 0:
            continue
        frames[f] = whiten(frames[f], [x0], [y0], [s], [0])
        _draw(frames[f], sp, x0 + int(dx), y0 + int(dy), fill, np.array(OUTLINE_RGB, np.uint8))


def _free_spot(arrs, k, window):
    """Farthest top-left for object k inside ``window`` whose square keeps 10 px from every
    other square."""
    wx0, wx1, wy0, wy1 = window
    s = int(arrs["size"][k])
    others = [(int(ox), int(oy), int(oz)) for j, (ox, oy, oz) in
              enumerate(zip(arrs["left"], arrs["top"], arrs["size"])) if j != k]
    best, best_d = None, -1.0
    for y in range(wy0 + 10, wy1 - s - 9, 2):
        for x in range(wx0 + 10, wx1 - s - 9, 2):
            if any(x < ox + oz + 10 and ox - 10 < x + s and y < oy + oz + 10 and oy - 10 < y + s
                   for ox, oy, oz in others):
                continue
            d = np.hypot(x - arrs["left"][k], y - arrs["top"][k])
            if d > best_d:
                best, best_d = (x, y), d
    return best, best_d


def _ground_truth(first, arrs, num_frames, style, window):
    return task_frames(first, style=style, num_frames=num_frames, **arrs)


def _wrong_object(first, arrs, num_frames, style, window):
    removed = arrs["removed"].copy()
    targets = np.flatnonzero(removed & _inside(arrs, window))
    if not targets.size:
        raise ValueError("no target inside the visible window")
    removed[targets[0]] = False
    removed[_kept_object(arrs, window)] = True
    return task_frames(first, style=style, num_frames=num_frames, **{**arrs, "removed": removed})


def _drift(first, arrs, num_frames, style, window):
    frames = _ground_truth(first, arrs, num_frames, style, window)
    k = _kept_object(arrs, window)
    h, w = first.shape[:2]
    drift = DRIFT_PX * min(w, h) / 256
    direction = 1 if arrs["left"][k] + arrs["size"][k] + drift < w - 1 else -1
    ramp = max(num_frames // 4, 1)
    dx = np.rint(np.minimum(np.arange(num_frames) / ramp, 1.0) * drift) * direction
    _move(frames, arrs, k, np.stack([dx, np.zeros(num_frames)], 1))
    return frames


def _jump(first, arrs, num_frames, style, window):
    # Kept objects stay put in the fade ground truth, so the jump target stays free.
    frames = _ground_truth(first, arrs, num_frames, "fade", window)
    k = _kept_object(arrs, window)
    h, w = first.shape[:2]
    spot, dist = _free_spot(arrs, k, window)
    if spot is None or dist < JUMP_MIN_FRACTION * np.hypot(w, h):
        raise ValueError("no free spot far enough for a jump control in this task")
    off = (spot[0] - int(arrs["left"][k]), spot[1] - int(arrs["top"][k]))
    offsets = [(0, 0) if f < num_frames // 2 else off for f in range(num_frames)]
    _move(frames, arrs, k, offsets)
    return frames


def _visible_target(arrs, window) -> None:
    if not (arrs["removed"] & _inside(arrs, window)).any():
        raise ValueError("no target inside the visible window: a removal cannot be seen")


def _nothing_removed(first, arrs, num_frames, style, window):
    _visible_target(arrs, window)
    return np.repeat(first[None], num_frames, axis=0)


def _hard_cut(first, arrs, num_frames, style, window):
    _visible_target(arrs, window)
    final = whiten(first, arrs["left"], arrs["top"], arrs["size"],
                   np.flatnonzero(arrs["removed"]))
    frames = np.repeat(first[None], num_frames, axis=0)
    frames[num_frames // 2:] = final
    return frames


def _all_removed(first, arrs, num_frames, style, window):
    _kept_object(arrs, window)      # a kept object must be seen to be wrongly removed
    everything = np.ones_like(arrs["removed"])
    return task_frames(first, style="fade", num_frames=num_frames,
                       **{**arrs, "removed": everything})


#: control name -> (frame builder, metric that must fail; None = must pass everything)
CONTROLS = {
    "ground_truth": (_ground_truth, None),
    "wrong_object": (_wrong_object, "rule_accuracy"),
    "drift": (_drift, "kept_object_stability"),
    "jump": (_jump, "motion_continuity"),
    "nothing_removed": (_nothing_removed, "removed_object_count"),
    "hard_cut": (_hard_cut, "motion_continuity"),
    "all_removed": (_all_removed, "removed_object_count"),
}


def control_frames(batch, i: int, control: str, num_frames: int = 32, style=None, window=None):
    """Frames (F, H, W, 3) of ``control`` for task ``i`` of ``batch``.

    ``style`` (fade/shrink/slide) defaults to one chosen by the task's kind code. ``window``
    (x0, x1, y0, y1), default the whole canvas, is the part of the canvas the output will show
    (``outputs.visible_window``): the objects a negative control changes are chosen inside it.
    Raises ValueError when the task has no such object.
    """
    build, _ = CONTROLS[control]
    style = style or STYLE_NAMES[int(batch.kind[i]) % len(STYLE_NAMES)]
    h, w = batch.first_frames.shape[1:3]
    return build(batch.first_frames[i], task_arrays(batch, i), num_frames, style,
                 window or (0, 0 + w, 0, h))


def caught(result: dict, control: str) -> bool:
    """Whether a scoring result is right about ``control``: the ground truth passes every
    metric; a negative control fails its intended metric (and the overall verdict)."""
    _, metric = CONTROLS[control]
    if result.get("error"):
        return False
    if metric is None:
        return bool(result["pass"])
    return (result["metrics"][metric]["pass"] is False) and not result["pass"]
