"""Positive and negative control videos: known answers that the scorer must get right.

Each control turns one task into frames; the table :data:`CONTROLS` names the metric that must
catch it (None: the ground truth, which must pass every metric).

=================  ======================================================  ======================
control            frames                                                  caught by
=================  ======================================================  ======================
ground_truth       ``render_transition`` (style rotates fade/shrink/slide)  (passes everything)
wrong_object       one target kept, one kept object removed instead         rule_accuracy
drift              ground truth, one kept object drifts 6 px over the       kept_object_stability
                   first quarter of the video and stays there
jump               ground truth, one kept object jumps >= 1/4 of the        motion_continuity
                   canvas diagonal to a free spot at mid-video
nothing_removed    the first frame, repeated                                removed_object_count
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


def _kept_object(arrs) -> int:
    """The largest kept object (the easiest to follow)."""
    kept = np.flatnonzero(~arrs["removed"])
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


def _free_spot(arrs, k, canvas_size):
    """Farthest top-left for object k whose square keeps 10 px from every other square."""
    w, h = canvas_size
    s = int(arrs["size"][k])
    others = [(int(ox), int(oy), int(oz)) for j, (ox, oy, oz) in
              enumerate(zip(arrs["left"], arrs["top"], arrs["size"])) if j != k]
    best, best_d = None, -1.0
    for y in range(10, h - s - 9, 2):
        for x in range(10, w - s - 9, 2):
            if any(x < ox + oz + 10 and ox - 10 < x + s and y < oy + oz + 10 and oy - 10 < y + s
                   for ox, oy, oz in others):
                continue
            d = np.hypot(x - arrs["left"][k], y - arrs["top"][k])
            if d > best_d:
                best, best_d = (x, y), d
    return best, best_d


def _ground_truth(first, arrs, num_frames, style):
    return task_frames(first, style=style, num_frames=num_frames, **arrs)


def _wrong_object(first, arrs, num_frames, style):
    removed = arrs["removed"].copy()
    removed[np.flatnonzero(removed)[0]] = False
    removed[_kept_object(arrs)] = True
    return task_frames(first, style=style, num_frames=num_frames, **{**arrs, "removed": removed})


def _drift(first, arrs, num_frames, style):
    frames = _ground_truth(first, arrs, num_frames, style)
    k = _kept_object(arrs)
    w = first.shape[1]
    direction = 1 if arrs["left"][k] + arrs["size"][k] + DRIFT_PX < w - 1 else -1
    ramp = max(num_frames // 4, 1)
    dx = np.rint(np.minimum(np.arange(num_frames) / ramp, 1.0) * DRIFT_PX) * direction
    _move(frames, arrs, k, np.stack([dx, np.zeros(num_frames)], 1))
    return frames


def _jump(first, arrs, num_frames, style):
    # Kept objects stay put in the fade ground truth, so the jump target stays free.
    frames = _ground_truth(first, arrs, num_frames, "fade")
    k = _kept_object(arrs)
    h, w = first.shape[:2]
    spot, dist = _free_spot(arrs, k, (w, h))
    if spot is None or dist < JUMP_MIN_FRACTION * np.hypot(w, h):
        raise ValueError("no free spot far enough for a jump control in this task")
    off = (spot[0] - int(arrs["left"][k]), spot[1] - int(arrs["top"][k]))
    offsets = [(0, 0) if f < num_frames // 2 else off for f in range(num_frames)]
    _move(frames, arrs, k, offsets)
    return frames


def _nothing_removed(first, arrs, num_frames, style):
    return np.repeat(first[None], num_frames, axis=0)


def _all_removed(first, arrs, num_frames, style):
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
    "all_removed": (_all_removed, "removed_object_count"),
}


def control_frames(batch, i: int, control: str, num_frames: int = 32, style=None):
    """Frames (F, H, W, 3) of ``control`` for task ``i`` of ``batch``.

    ``style`` (fade/shrink/slide) defaults to one chosen by the task's kind code.
    """
    build, _ = CONTROLS[control]
    style = style or STYLE_NAMES[int(batch.kind[i]) % len(STYLE_NAMES)]
    return build(batch.first_frames[i], task_arrays(batch, i), num_frames, style)


def caught(result: dict, control: str) -> bool:
    """Whether a scoring result is right about ``control``: the ground truth passes every
    metric; a negative control fails its intended metric (and the overall verdict)."""
    _, metric = CONTROLS[control]
    if result.get("error"):
        return False
    if metric is None:
        return bool(result["pass"])
    return (result["metrics"][metric]["pass"] is False) and not result["pass"]
