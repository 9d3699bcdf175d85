"""Ground-truth transitions: the frames from a task's first frame to its final frame, in which
only the removed objects change (the encode stage; ``video`` turns them into mp4).

Timing: the first ``hold = max(1, F // 8)`` frames show the first frame and the last ``hold``
frames the final frame exactly; in between, progress ``t`` goes linearly from 0 to 1.

Styles (:data:`STYLE_NAMES`):

- ``fade``: removed-object pixels (outline and fill) blend linearly toward white.
- ``shrink``: each removed object is redrawn with ``render.sprite(shape, s)``, ``s`` shrinking
  from its size to 0 about its centre.
- ``slide``: each removed object moves in a straight line off one canvas edge, drawn clipped to
  the canvas. Edges are tried nearest first; an edge is usable when the rectangle swept by the
  object's bounding square does not come within 1 px of any other object's bounding square
  (kept or removed) nor of the path of another sliding object, so a moving object never covers
  or touches a kept object and moving objects never merge. When no edge is usable the object
  fades in place instead.
  With ``num_frames`` >= 16 an object never moves more than ~20 px per frame at 256x256.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from .errors import ParameterError
from .render import sprite
from .vocabulary import COLOR_RGB, OUTLINE_RGB

STYLE_NAMES = ("fade", "shrink", "slide")


def _draw(frame, mask, left, top, fill, line):
    """Draw sprite ``mask`` (1 outline, 2 fill) at (left, top) into ``frame``, clipped; return
    the rectangle (y0, y1, x0, x1) it may have changed, or None."""
    return _draw_parts(frame, (mask == 1, mask == 2), left, top, fill, line)


@lru_cache(maxsize=4096)
def _sprite_parts(shape: int, size: int):
    """(outline, fill) boolean masks of a sprite, computed once."""
    mask = sprite(shape, size)
    return mask == 1, mask == 2


def _draw_parts(frame, parts, left, top, fill, line):
    """``_draw`` with the sprite given as its (outline, fill) boolean masks."""
    h, w = frame.shape[:2]
    outline, inside = parts
    s = outline.shape[0]
    y0, x0, y1, x1 = max(top, 0), max(left, 0), min(top + s, h), min(left + s, w)
    if y1 <= y0 or x1 <= x0:
        return None
    rows, cols = slice(y0 - top, y1 - top), slice(x0 - left, x1 - left)
    view = frame[y0:y1, x0:x1]
    view[outline[rows, cols]] = line
    view[inside[rows, cols]] = fill
    return y0, y1, x0, x1


def _progress(num_frames: int) -> np.ndarray:
    """Progress t in [0, 1] of each frame (holds at both ends)."""
    if num_frames < 2:
        return np.ones(num_frames)
    hold = max(1, num_frames // 8) if num_frames >= 4 else 0
    span = max(num_frames - 1 - 2 * hold, 1)
    return np.clip((np.arange(num_frames) - hold) / span, 0.0, 1.0)


def _squares_hit(rect, squares, gap=1):
    """Whether rect (x0, x1, y0, y1), half-open, comes within ``gap`` px of any square."""
    x0, x1, y0, y1 = rect
    return any(x0 < sx1 + gap and sx0 - gap < x1 and y0 < sy1 + gap and sy0 - gap < y1
               for sx0, sx1, sy0, sy1 in squares)


def plan_slides(left, top, size, removed, canvas_size):
    """Choose each removed object's exit: list of (dx, dy, distance) or None (fade instead).

    An exit is usable when the rectangle swept by the object's bounding square stays at least
    1 px away from every other object's bounding square (kept or removed) and from the swept
    rectangles of the removed objects planned before it; the nearest usable edge wins.

    Parameters
    ----------
    left, top, size : (M,) int arrays of the task's objects
    removed : (M,) bool
    canvas_size : (W, H)
    """
    w, h = canvas_size
    squares = [(int(x), int(x + s), int(y), int(y + s)) for x, y, s in zip(left, top, size)]
    swept = []
    plans = []
    for k in range(len(squares)):
        if not removed[k]:
            plans.append(None)
            continue
        x0, x1, y0, y1 = squares[k]
        avoid = [sq for j, sq in enumerate(squares) if j != k] + swept
        # (dx, dy, distance until fully outside, swept rectangle), nearest edge first
        exits = sorted([(-1, 0, x1, (-(x1 - x0), x1, y0, y1)),
                        (1, 0, w - x0, (x0, w + (x1 - x0), y0, y1)),
                        (0, -1, y1, (x0, x1, -(y1 - y0), y1)),
                        (0, 1, h - y0, (x0, x1, y0, h + (y1 - y0)))], key=lambda e: e[2])
        usable = [e for e in exits if not _squares_hit(e[3], avoid)]
        plans.append(usable[0][:3] if usable else None)
        if usable:
            swept.append(usable[0][3])
    return plans


def whiten(frame, left, top, size, which) -> np.ndarray:
    """Copy of ``frame`` with the bounding squares of objects ``which`` painted white."""
    out = frame.copy()
    h, w = out.shape[:2]
    for k in which:
        x, y, s = int(left[k]), int(top[k]), int(size[k])
        out[max(y, 0):min(y + s, h), max(x, 0):min(x + s, w)] = 255
    return out


def _removed_drawer(left, top, size, color, shape, removed, style, canvas_size):
    """A function ``draw(frame, t)`` that draws the removed objects at progress ``t`` in (0, 1)
    onto ``frame`` (which holds the final frame), by the per-style rule of the module docstring,
    and returns the rectangles (y0, y1, x0, x1) it drew in."""
    ks = np.flatnonzero(removed)
    plans = (plan_slides(left, top, size, removed, canvas_size) if style == "slide"
             else [None] * len(size))
    line = np.array(OUTLINE_RGB, np.uint8)
    white = np.full(3, 255.0)

    def place(k, tf):
        """(sprite side, left, top, fill, outline) of removed object k at progress tf, or None
        when it is not drawn (shrunk below 3 px)."""
        s, x, y = int(size[k]), int(left[k]), int(top[k])
        fill = COLOR_RGB[color[k]].astype(np.uint8)
        if style == "slide" and plans[k] is not None:
            dx, dy, dist = plans[k]
            off = int(round(tf * dist))
            return s, x + dx * off, y + dy * off, fill, line
        if style == "shrink":
            s2 = int(round(s * (1.0 - tf)))
            if s2 < 3:
                return None
            return (s2, int(round(left[k] + s / 2 - s2 / 2)), int(round(top[k] + s / 2 - s2 / 2)),
                    fill, line)
        # fade (also the fallback of a slide without a clear exit)
        def blend(c):
            return np.rint((1 - tf) * c.astype(float) + tf * white).astype(np.uint8)
        return s, x, y, blend(fill), blend(line)

    def draw(frame, tf):
        drawn = []
        for k in ks:
            placed = place(k, tf)
            if placed is not None:
                s, x, y, fill, outline = placed
                drawn.append(_draw_parts(frame, _sprite_parts(int(shape[k]), s), x, y, fill,
                                         outline))
        return [r for r in drawn if r is not None]

    return draw


def check_style(style) -> str:
    """``style`` if it is one of :data:`STYLE_NAMES`, else a ParameterError naming them."""
    if style not in STYLE_NAMES:
        raise ParameterError(f"style must be one of {', '.join(STYLE_NAMES)}, got {style!r}")
    return style


def transition_updates(first, left, top, size, color, shape, removed, style, num_frames,
                       final=None, out=None):
    """Yield ``(frame, changed)`` for each frame of one task's transition, drawn into ``out``.

    Only the removed objects' pixels are redrawn from one frame to the next; ``changed`` lists
    the rectangles (y0, y1, x0, x1), half-open, outside of which ``frame`` equals the previous
    frame (None for the first frame: everything is new). Arguments as in
    :func:`transition_frames`.
    """
    check_style(style)
    ks = np.flatnonzero(removed)
    if final is None:
        final = whiten(first, left, top, size, ks)
    out = np.empty_like(first) if out is None else out
    draw = _removed_drawer(left, top, size, color, shape, removed, style, first.shape[1::-1])
    h, w = first.shape[:2]
    squares = [(max(int(top[k]), 0), min(int(top[k] + size[k]), h),
                max(int(left[k]), 0), min(int(left[k] + size[k]), w)) for k in ks]
    previous = None  # rectangles in which `out` differs from `final` (None: not drawn yet)
    for tf in _progress(num_frames):
        if tf <= 0.0:  # the held first frame: it differs from `final` in the removed squares
            changed = None if previous is None else []
            if previous is None:
                np.copyto(out, first)
            previous = squares
        else:
            fresh = previous is None
            if fresh:
                np.copyto(out, final)
            restored = [] if fresh else previous
            for y0, y1, x0, x1 in restored:
                out[y0:y1, x0:x1] = final[y0:y1, x0:x1]
            previous = draw(out, tf) if tf < 1.0 else []
            changed = None if fresh else restored + previous
        yield out, changed


def transition_frames(first, left, top, size, color, shape, removed, style, num_frames,
                      final=None, out=None):
    """Yield the frames of one task's transition one at a time, each drawn into ``out``.

    Parameters
    ----------
    first : (H, W, 3) uint8
        The task's first frame.
    left, top, size, color, shape, removed : (M,) arrays
        The task's objects (:func:`task_arrays`); the objects ``removed`` go away.
    style : {"fade", "shrink", "slide"}
    num_frames : int
    final : (H, W, 3) uint8, optional
        The final frame (default: ``first`` with the removed objects' bounding squares painted
        white; squares never overlap, so this touches nothing else).
    out : (H, W, 3) uint8, optional
        The buffer every frame is drawn into (default a new one). A yielded frame is valid
        until the next one is requested: copy it to keep it.

    Examples
    --------
    >>> from objsub_fast import generate_batch
    >>> b = generate_batch([7])
    >>> frames = [f.copy() for f in transition_frames(b.first_frames[0], style="fade",
    ...                                               num_frames=8, **task_arrays(b, 0))]
    >>> bool((frames[0] == b.first_frames[0]).all() and (frames[-1] == b.final_frames[0]).all())
    True
    """
    for frame, _ in transition_updates(first, left, top, size, color, shape, removed, style,
                                       num_frames, final, out):
        yield frame


def task_frames(first, left, top, size, color, shape, removed, style, num_frames) -> np.ndarray:
    """Frames (F, H, W, 3) of one task's transition in which the objects ``removed`` go away
    (:func:`transition_frames`, kept)."""
    frames = np.empty((num_frames,) + first.shape, np.uint8)
    for f, frame in enumerate(transition_frames(first, left, top, size, color, shape, removed,
                                                style, num_frames)):
        frames[f] = frame
    return frames


def task_arrays(batch, i: int) -> dict:
    """Task ``i``'s object arrays (left, top, size, color, shape, removed), padding dropped."""
    n = int(batch.num_objects[i])
    return {name: getattr(batch, name)[i, :n]
            for name in ("left", "top", "size", "color", "shape", "removed")}


def render_transition(batch, style: str = "fade", num_frames: int = 32, tasks=None) -> np.ndarray:
    """Render ground-truth transition videos in which only the removed objects change.

    Parameters
    ----------
    batch : Batch
        From ``generate_batch(..., render=True)``.
    style : {"fade", "shrink", "slide"}
    num_frames : int
        Frames per video (>= 1); frame 0 equals the first frame and the last frame the final
        frame.
    tasks : sequence of int, optional
        Task indices to render (default all).

    Returns
    -------
    (N, F, H, W, 3) uint8
        F * H * W * 3 bytes per task (6 MiB for 32 frames at 256x256): render large batches
        in slices with ``tasks``, or stream frames with :func:`transition_frames`.

    Examples
    --------
    >>> import numpy as np
    >>> from objsub_fast import generate_batch
    >>> batch = generate_batch([1, 2])
    >>> video = render_transition(batch, style="shrink", num_frames=6, tasks=[1])
    >>> video.shape
    (1, 6, 256, 256, 3)
    >>> bool(np.array_equal(video[0, 0], batch.first_frames[1])
    ...      and np.array_equal(video[0, -1], batch.final_frames[1]))
    True
    """
    check_style(style)
    if num_frames < 1:
        raise ValueError(f"num_frames must be >= 1, got {num_frames}")
    if batch.first_frames is None:
        raise ValueError("the batch has no frames; generate it with render=True")
    idx = range(len(batch)) if tasks is None else list(tasks)
    out = [task_frames(batch.first_frames[i], style=style, num_frames=num_frames,
                       **task_arrays(batch, i)) for i in idx]
    h, w = batch.final_frames.shape[1:3]
    return np.stack(out) if out else np.zeros((0, num_frames, h, w, 3), np.uint8)
