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
grows              ground truth, one kept object grows to 1.16x its size    kept_object_stability
                   (35% more area) over the first quarter and stays so
shrinks            the same, to 0.8x its size (36% less area)               kept_object_stability
turns              the same, the largest non-round kept object turns by     kept_object_stability
                   40 degrees
stretches          the same, 1.25x wider and 0.8x as tall (its area kept)    kept_object_stability
slight_growth      ground truth, one kept object grows to 1.04x its size    (passes everything)
                   (8% more area): under the threshold
remnant            the targets shrink to a remnant of 8, 10 or 12 px (at   rule_accuracy
                   256; by the target's rank) and stay
half_shrink        the targets shrink to half their size and stay           rule_accuracy
unfinished         the ground truth stopped at 60% of its progress: the     rule_accuracy
                   targets still fading or shrinking in the final frame
staggered          the targets removed one after another (shrinking), each  (passes everything)
                   in its own slice of the video; look-alikes among them
                   must keep their identities
toned              ground truth, the whole picture in a cool white balance  (passes everything)
                   with a little more contrast (``outputs.COOL_TONE``:
                   white becomes about (230, 237, 243))
darkened           ground truth, one kept object 30% darker from            kept_object_stability
                   mid-video on (``outputs.recoloured``)
lightened          the same, 25% of the way to white                        kept_object_stability
desaturated        the same, 60% of the way to its grey                     kept_object_stability
local_KIND         ground truth, the largest kept object changed from       kept_object_stability
                   mid-video on by ``local_changes.LOCAL_CHANGES[KIND]``
                   (blur, copy, hole, scratch, speckle, halo, glow,
                   checker, two_tone, smear, mosaic, spot): its place, size
                   and median colour stay
=================  ======================================================  ======================

:data:`LOW_BITRATE` are the encoder options of the benchmark's very low bitrate (heavy block
artefacts, about 0.01-0.02 bit/pixel, 25-29 dB at 256x256): every control is also scored so.

:func:`control_tasks` builds one task per rule kind (21 kinds, all four levels) by a seed
search, for any vocabulary and canvas. Every object a control moves or removes is drawn with the
batch's look (``transitions.ObjectLook``: its vocabulary's colours and shapes, the canvas's outline
width), as the renderer draws it.
"""
from __future__ import annotations

import numpy as np

from ..engine import generate_batch
from ..ground_truth.transitions import (STYLE_NAMES, SolidSprite, draw_sprite, frame_progress,
                                        task_arrays, task_frames, whiten)
from ..task.vocabulary import KINDS, LEVEL_KINDS, OUTLINE_RGB
from .local_changes import LOCAL_CHANGES, apply_local_change, object_patch
from .outputs import COOL_TONE, recoloured, toned

__all__ = ["CONTROLS", "LOW_BITRATE", "control_tasks", "control_frames", "caught"]

DRIFT_PX = 6
#: How much the recoloured controls change one kept object (``outputs.RECOLOURS``).
DARKENED, LIGHTENED, DESATURATED = 0.3, 0.25, 0.6
JUMP_MIN_FRACTION = 0.25


#: An object's sprite in each look (``transitions.ObjectLook``): flat, a mask painted in its colour
#: and the outline; solid, its own colours.
_SPRITES = {"flat": lambda look, shape, size, color: look.sprite(shape, size),
            "solid": lambda look, shape, size, color: look.solid(shape, size, color)}
#: What ``draw_sprite`` paints a sprite with in each look, blended toward white by t: flat, (fill,
#: outline); solid, (keep in 256ths, unused).
_INKS = {"flat": lambda look, color, t: (
             np.rint((1 - t) * look.fill(color) + t * 255.0).astype(np.uint8),
             np.rint((1 - t) * np.array(OUTLINE_RGB, float) + t * 255.0).astype(np.uint8)),
         "solid": lambda look, color, t: (int(round(256 * (1 - t))), None)}


def _sprite(look, shape: int, size: int, color: int):
    """The renderer's sprite of an object of ``shape`` and ``color`` at ``size`` in ``look``."""
    return _SPRITES[look.name](look, int(shape), int(size), int(color))


def _paint(frame, look, sprite, left: int, top: int, color: int, t: float = 0.0):
    """Draw ``sprite`` (:func:`_sprite`) at (left, top) into ``frame`` as ``look`` draws an
    object of ``color``, blended toward white by ``t`` (0: as drawn)."""
    draw_sprite(frame, sprite, int(left), int(top), *_INKS[look.name](look, color, float(t)))


def _reshape(sprite, fn):
    """``fn`` (a nearest-neighbour transform of a 2-D array) applied to a flat sprite, or to a
    solid sprite's mask and each of its colour channels."""
    if isinstance(sprite, SolidSprite):
        rgb = np.stack([fn(sprite.rgb[..., c]) for c in range(3)], axis=-1)
        mask = fn(sprite.mask.astype(np.uint8)) > 0
        return SolidSprite(np.ascontiguousarray(mask), np.ascontiguousarray(rgb))
    return fn(sprite)


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
    look, color = arrs["look"], int(arrs["color"][k])
    sp = _sprite(look, arrs["shape"][k], s, color)
    for f, (dx, dy) in enumerate(offsets):
        if dx == 0 and dy == 0:
            continue
        frames[f] = whiten(frames[f], [x0], [y0], [s], [0])
        _paint(frames[f], look, sp, x0 + int(dx), y0 + int(dy), color)


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
    sp = _sprite(look, shape, size, color)
    for f in range(num_frames // 2, num_frames):
        _paint(frames[f], look, sp, spot[0], spot[1], color)
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
            color = int(arrs["color"][k])
            _paint(frames[f], look, _sprite(look, arrs["shape"][k], s, color), x, y, color, t)
    return frames


def _late_cut_jitter(first, arrs, num_frames, style, window):
    _visible_target(arrs, window)
    progress = (np.arange(num_frames) >= num_frames - 3).astype(float)
    return _jittered_scene(first, arrs, progress, num_frames)


def _jitter(first, arrs, num_frames, style, window):

    return _jittered_scene(first, arrs, frame_progress(num_frames), num_frames)


#: Kept-object footprint controls: (size scale x, size scale y, turn in degrees).
GROW, SHRINK, TURN, STRETCH, SLIGHT = (1.16, 1.16, 0), (0.8, 0.8, 0), (1, 1, 40), \
    (1.25, 0.8, 0), (1.04, 1.04, 0)
#: Remnant sides (px at 256) of the ``remnant`` control, by the target's rank.
REMNANT_PX = (8, 10, 12)
#: The ``unfinished`` control stops the ground truth at this progress.
UNFINISHED_AT = 0.6
#: libx264 options of a very low bitrate (see the module docstring).
LOW_BITRATE = {"crf": "44"}


def _square(mask: np.ndarray) -> np.ndarray:
    """``mask`` padded to a square about its centre (``draw_sprite`` draws square sprites)."""
    h, w = mask.shape
    side = max(h, w)
    out = np.zeros((side, side), mask.dtype)
    out[(side - h) // 2:(side - h) // 2 + h, (side - w) // 2:(side - w) // 2 + w] = mask
    return out


def _reshaped_sprite(look, shape: int, size: int, sx: float, sy: float, turn: float,
                     color: int = 0):
    """The renderer's sprite of ``shape`` (in ``color``) drawn at ``size`` scaled by (sx, sy)
    and turned by ``turn`` degrees (nearest neighbour: outline and fill keep their labels, a
    solid its colours), squared."""
    from scipy.ndimage import rotate, zoom

    if sx == sy:
        sp = _sprite(look, shape, max(int(round(size * sx)), 4), color)
    else:
        sp = _reshape(_sprite(look, shape, size, color), lambda a: zoom(a, (sy, sx), order=0))
    if turn:
        sp = _reshape(sp, lambda a: rotate(a, turn, order=0, reshape=True))
    return _reshape(sp, _square)


def _side(sprite) -> int:
    """The side of a (square) flat or solid sprite."""
    return (sprite.mask if isinstance(sprite, SolidSprite) else sprite).shape[0]


def _gap(arrs, k) -> float:
    """The smallest gap (px) between object ``k``'s square and any other object's."""
    left, top, size = arrs["left"], arrs["top"], arrs["size"]
    gaps = [max(left[j] - left[k] - size[k], left[k] - left[j] - size[j],
                top[j] - top[k] - size[k], top[k] - top[j] - size[j])
            for j in range(len(size)) if j != k]
    return float(min(gaps)) if gaps else np.inf


def _kept_changed(how):
    """A control builder: the ground truth (fade or shrink, so no slide passes by), and one
    kept object whose footprint goes to ``how`` = (scale x, scale y, turn) over the first
    quarter of the video and stays so; the largest kept object that keeps 3 px from every
    other object when changed (and is not round, for a turn)."""
    sx, sy, turn = how

    def sprite_at(arrs, k, part):
        return _reshaped_sprite(arrs["look"], int(arrs["shape"][k]), int(arrs["size"][k]),
                                1 + (sx - 1) * part, 1 + (sy - 1) * part, turn * part,
                                int(arrs["color"][k]))

    def build(first, arrs, num_frames, style, window):
        frames = _ground_truth(first, arrs, num_frames, "fade" if style == "slide" else style,
                               window)
        look = arrs["look"]
        # Off the window's border by a margin: a changed object must be seen whole.
        pad = int(np.ceil(8 * min(first.shape[:2]) / 256))
        inner = (window[0] + pad, window[1] - pad, window[2] + pad, window[3] - pad)
        kept = [k for k in np.flatnonzero(~arrs["removed"] & _inside(arrs, inner)).tolist()
                if not (turn and look.shapes[int(arrs["shape"][k])] == 1)
                and (_side(sprite_at(arrs, k, 1.0)) - arrs["size"][k]) / 2 <= _gap(arrs, k) - 3]
        if not kept:
            raise ValueError("no kept object to change inside the visible window")
        k = max(kept, key=lambda j: arrs["size"][j])
        s, x0, y0 = int(arrs["size"][k]), int(arrs["left"][k]), int(arrs["top"][k])
        ramp = max(num_frames // 4, 2)
        for f in range(1, num_frames):
            sp = sprite_at(arrs, k, min(f / ramp, 1.0))
            frames[f] = whiten(frames[f], [x0], [y0], [s], [0])
            side = _side(sp)
            _paint(frames[f], look, sp, int(round(x0 + (s - side) / 2)),
                   int(round(y0 + (s - side) / 2)), int(arrs["color"][k]))
        return frames
    return build


def _scaled_scene(first, arrs, scales, fades=None):
    """Frames in which each target is drawn at ``scales[f, n]`` of its size (n: the targets in
    order; gone below 1.5 outline widths) and blended toward white by ``fades[f, n]``."""
    look = arrs["look"]
    targets = np.flatnonzero(arrs["removed"])
    base = whiten(first, arrs["left"], arrs["top"], arrs["size"], targets)
    frames = np.repeat(base[None], len(scales), axis=0)
    for f in range(len(scales)):
        for n, k in enumerate(targets.tolist()):
            s0 = int(arrs["size"][k])
            s = int(round(s0 * scales[f, n]))
            t = 0.0 if fades is None else float(fades[f, n])
            if s < 1.5 * look.outline or t >= 1:
                continue
            x = int(round(arrs["left"][k] + (s0 - s) / 2))
            y = int(round(arrs["top"][k] + (s0 - s) / 2))
            color = int(arrs["color"][k])
            _paint(frames[f], look, _sprite(look, arrs["shape"][k], s, color), x, y, color, t)
    return frames


def _shrink_to(first, arrs, num_frames, ends):
    """The targets shrink (ground-truth timing) to ``ends[n]`` of their size and stay."""

    p = frame_progress(num_frames)[:, None]
    return _scaled_scene(first, arrs, 1 - p * (1 - np.asarray(ends)[None]))


def _remnant(first, arrs, num_frames, style, window):
    _visible_target(arrs, window)
    unit = min(first.shape[:2]) / 256
    sizes = arrs["size"][arrs["removed"]]
    ends = [REMNANT_PX[n % len(REMNANT_PX)] * unit / s for n, s in enumerate(sizes)]
    return _shrink_to(first, arrs, num_frames, ends)


def _half_shrink(first, arrs, num_frames, style, window):
    _visible_target(arrs, window)
    return _shrink_to(first, arrs, num_frames, np.full(int(arrs["removed"].sum()), 0.5))


def _unfinished(first, arrs, num_frames, style, window):
    _visible_target(arrs, window)
    hold = max(1, num_frames // 8)
    p = np.clip(np.arange(num_frames) - hold, 0, None) / max(num_frames - 1 - hold, 1)
    p = np.repeat((p * UNFINISHED_AT)[:, None], int(arrs["removed"].sum()), axis=1)
    if style == "fade":
        return _scaled_scene(first, arrs, np.ones_like(p), p)
    return _scaled_scene(first, arrs, 1 - p)


def _staggered(first, arrs, num_frames, style, window):
    targets = np.flatnonzero(arrs["removed"])
    if (arrs["removed"] & _inside(arrs, window)).sum() < 2:
        raise ValueError("fewer than two visible targets: nothing to stagger")
    n = len(targets)
    hold = max(1, num_frames // 8)
    span = num_frames - 2 * hold
    scales = np.ones((num_frames, n))
    for j in range(n):
        lo, hi = hold + span * j // n, hold + span * (j + 1) // n
        scales[hi:, j] = 0.0
        scales[lo:hi, j] = np.linspace(1, 0, hi - lo + 2)[1:-1]
    return _scaled_scene(first, arrs, scales)


#: control name -> (frame builder, metric that must fail; None = must pass everything)
def _toned(first, arrs, num_frames, style, window):
    return toned(_ground_truth(first, arrs, num_frames, style, window), **COOL_TONE)


def _recoloured(change: str, amount: float):
    """A control builder: the ground truth, and the largest kept object inside the window
    changed by ``outputs.recoloured`` (``change``, ``amount``) from mid-video on."""
    def build(first, arrs, num_frames, style, window):
        frames = _ground_truth(first, arrs, num_frames, style, window)
        k = _kept_object(arrs, window)
        s, x0, y0 = int(arrs["size"][k]), int(arrs["left"][k]), int(arrs["top"][k])
        mask = np.zeros(first.shape[:2], bool)
        mask[y0:y0 + s, x0:x0 + s] = (first[y0:y0 + s, x0:x0 + s] != 255).any(axis=-1)
        return recoloured(frames, mask, num_frames // 2, change, amount)
    return build


def _local(kind: str):
    """A control builder: the ground truth, and the largest kept object inside the window
    changed by ``local_changes`` kind ``kind`` (at full strength) from mid-video on: its
    place, size and median colour stay, what a person sees changes."""
    def build(first, arrs, num_frames, style, window):
        frames = _ground_truth(first, arrs, num_frames, style, window)
        k = _kept_object(arrs, window)
        box = object_patch(int(arrs["left"][k]), int(arrs["top"][k]), int(arrs["size"][k]),
                           first.shape[:2])
        return apply_local_change(frames, first, box, kind, num_frames // 2)
    return build


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
    "grows": (_kept_changed(GROW), "kept_object_stability"),
    "shrinks": (_kept_changed(SHRINK), "kept_object_stability"),
    "turns": (_kept_changed(TURN), "kept_object_stability"),
    "stretches": (_kept_changed(STRETCH), "kept_object_stability"),
    "slight_growth": (_kept_changed(SLIGHT), None),
    "remnant": (_remnant, "rule_accuracy"),
    "half_shrink": (_half_shrink, "rule_accuracy"),
    "unfinished": (_unfinished, "rule_accuracy"),
    "staggered": (_staggered, None),
    "toned": (_toned, None),
    "darkened": (_recoloured("darker", DARKENED), "kept_object_stability"),
    "lightened": (_recoloured("lighter", LIGHTENED), "kept_object_stability"),
    "desaturated": (_recoloured("desaturated", DESATURATED), "kept_object_stability"),
    **{f"local_{kind}": (_local(kind), "kept_object_stability") for kind in LOCAL_CHANGES},
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
