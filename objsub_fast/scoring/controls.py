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
added_object       ground truth, and a new object of the vocabulary (a      added_objects
                   kept object's look, no target's) appears on free canvas
                   at mid-video and stays
returning_object   the targets shrink away over the first 5/8 of the        motion_continuity
                   video, then come back whole for the last quarter
late_cut_jitter    every object jitters (+-1 px, +-3% size, each frame      motion_continuity
                   on its own); the targets vanish in one frame, 3 frames
                   before the end
jitter             the same jitter, the targets fading as the ground        (passes everything)
                   truth does
=================  ======================================================  ======================

:func:`control_tasks` builds one task per rule kind (21 kinds, all four levels) by a seed
search, for any vocabulary and canvas. Every object a control moves or removes is drawn with the
batch's look (``transitions.Look``: its vocabulary's colours and shapes, the canvas's outline
width), as the renderer draws it.
"""
from __future__ import annotations

import numpy as np

from ..vocabulary import KINDS, OUTLINE_RGB
from .transitions import STYLE_NAMES, _draw, task_arrays, task_frames, whiten

__all__ = ["CONTROLS", "control_tasks", "control_frames", "caught"]

DRIFT_PX = 6
JUMP_MIN_FRACTION = 0.25


def control_tasks(seed: int = 0, canvas_size=256, search: int = 400, **options):
    """A Batch with one task per rule kind of ``vocabulary.KINDS``, in kind order (21 tasks).

    Found by a seed search over ``seed .. seed + search - 1`` in each level with the default
    configuration and ``options`` (more ``generate_batch`` arguments, e.g.
    ``vocabulary="extended"``), so every task is the ordinary task of its (seed, level).

    Examples
    --------
    >>> batch = control_tasks(vocabulary="extended", shape_names="flat")
    >>> len(batch), batch.config.vocabulary.shape_names
    (21, 'flat')
    """
    from ..engine import generate_batch
    from ..vocabulary import LEVEL_KINDS

    seeds, levels = [], []
    for level, codes in LEVEL_KINDS.items():
        pool = generate_batch(np.arange(seed, seed + search), level=level,
                              canvas_size=canvas_size, render=False, **options)
        for code in codes:
            hits = np.flatnonzero(pool.kind == code)
            if not hits.size:
                raise ValueError(f"no {level} {KINDS[code].name} task in {search} seeds")
            seeds.append(int(pool.seeds[hits[0]]))
            levels.append(level)
    return generate_batch(seeds, level=levels, canvas_size=canvas_size, **options)


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
    look = arrs["look"]
    sp = look.sprite(arrs["shape"][k], s)
    fill = look.fill(arrs["color"][k])
    for f, (dx, dy) in enumerate(offsets):
        if dx == 0 and dy == 0:
            continue
        frames[f] = whiten(frames[f], [x0], [y0], [s], [0])
        _draw(frames[f], sp, x0 + int(dx), y0 + int(dy), fill, np.array(OUTLINE_RGB, np.uint8))


def _free_spot(arrs, k, window, size=None):
    """Farthest top-left from object k's inside ``window`` for a square of ``size`` (default
    object k's) that keeps 10 px from every other object's square (and from k's too when
    ``size`` is given: a new object beside it)."""
    wx0, wx1, wy0, wy1 = window
    s = int(arrs["size"][k]) if size is None else int(size)
    others = [(int(ox), int(oy), int(oz)) for j, (ox, oy, oz) in
              enumerate(zip(arrs["left"], arrs["top"], arrs["size"])) if j != k or size]
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


def _new_look(arrs, k):
    """(colour, shape) for an added object: object k's look when no target shares it, else the
    first combination of the objects' colours and shapes that no target has."""
    taken = set(zip(arrs["color"][arrs["removed"]].tolist(),
                    arrs["shape"][arrs["removed"]].tolist()))
    for look in [(int(arrs["color"][k]), int(arrs["shape"][k]))] + [
            (int(c), int(s)) for c in np.unique(arrs["color"]) for s in np.unique(arrs["shape"])]:
        if look not in taken:
            return look
    raise ValueError("every look of the scene is a target's")


def _added_object(first, arrs, num_frames, style, window):
    # Slides cross free canvas, so the added object sits beside a fade or a shrink.
    frames = _ground_truth(first, arrs, num_frames, "fade" if style == "slide" else style, window)
    k = _kept_object(arrs, window)
    size = int(arrs["size"][k])
    spot, _ = _free_spot(arrs, k, window, size)
    if spot is None:
        raise ValueError("no free canvas for an added object in this task")
    color, shape = _new_look(arrs, k)
    look = arrs["look"]
    line = np.array(OUTLINE_RGB, np.uint8)
    for f in range(num_frames // 2, num_frames):
        _draw(frames[f], look.sprite(shape, size), spot[0], spot[1], look.fill(color), line)
    return frames


def _returning_object(first, arrs, num_frames, style, window):
    _visible_target(arrs, window)
    gone = max(num_frames * 5 // 8, 2)
    frames = np.repeat(first[None], num_frames, axis=0)
    frames[:gone] = task_frames(first, style="shrink", num_frames=gone, **arrs)
    frames[gone:num_frames * 3 // 4] = frames[gone - 1]
    return frames


#: Per-object jitter of the jitter controls: up to this many px (at 256) and this size fraction.
JITTER_PX, JITTER_SIZE = 1, 0.03


def _jittered_scene(first, arrs, progress, seed):
    """Frames in which every object is redrawn each frame (frame 0 excepted) up to
    ``JITTER_PX`` off its place and ``JITTER_SIZE`` off its size, each on its own; the targets
    blend toward white by ``progress[f]`` (gone at 1)."""
    rng = np.random.default_rng(seed)
    h, w = first.shape[:2]
    unit = min(w, h) / 256
    look, removed = arrs["look"], arrs["removed"]
    n = len(arrs["size"])
    blank = whiten(first, arrs["left"], arrs["top"], arrs["size"], range(n))
    line = np.array(OUTLINE_RGB, np.float64)
    frames = np.repeat(first[None], len(progress), axis=0)
    for f in range(1, len(progress)):
        frames[f] = blank
        shift = np.rint(rng.uniform(-JITTER_PX, JITTER_PX, (n, 2)) * unit).astype(int)
        scale = 1 + rng.uniform(-JITTER_SIZE, JITTER_SIZE, n)
        for k in range(n):
            t = progress[f] if removed[k] else 0.0
            if t >= 1:
                continue
            s0 = int(arrs["size"][k])
            s = max(int(round(s0 * scale[k])), 4)
            x = int(round(arrs["left"][k] + (s0 - s) / 2)) + shift[k, 0]
            y = int(round(arrs["top"][k] + (s0 - s) / 2)) + shift[k, 1]
            fill = (1 - t) * look.fill(arrs["color"][k]) + t * 255.0
            _draw(frames[f], look.sprite(arrs["shape"][k], s), x, y,
                  np.rint(fill).astype(np.uint8), np.rint((1 - t) * line + t * 255.0)
                  .astype(np.uint8))
    return frames


def _late_cut_jitter(first, arrs, num_frames, style, window):
    _visible_target(arrs, window)
    progress = (np.arange(num_frames) >= num_frames - 3).astype(float)
    return _jittered_scene(first, arrs, progress, num_frames)


def _jitter(first, arrs, num_frames, style, window):
    from ..transitions import _progress

    return _jittered_scene(first, arrs, _progress(num_frames), num_frames)


#: control name -> (frame builder, metric that must fail; None = must pass everything)
CONTROLS = {
    "ground_truth": (_ground_truth, None),
    "wrong_object": (_wrong_object, "rule_accuracy"),
    "drift": (_drift, "kept_object_stability"),
    "jump": (_jump, "motion_continuity"),
    "nothing_removed": (_nothing_removed, "removed_object_count"),
    "hard_cut": (_hard_cut, "motion_continuity"),
    "all_removed": (_all_removed, "removed_object_count"),
    "added_object": (_added_object, "added_objects"),
    "returning_object": (_returning_object, "motion_continuity"),
    "late_cut_jitter": (_late_cut_jitter, "motion_continuity"),
    "jitter": (_jitter, None),
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
    return (result["metrics"].get(metric, {}).get("pass") is False) and not result["pass"]
