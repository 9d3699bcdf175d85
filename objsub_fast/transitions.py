"""Ground-truth transitions: the frames from a task's first frame to its final frame, in which
only the removed objects change (the encode stage; ``video`` turns them into mp4).

Timing: the first ``hold = max(1, F // 8)`` frames show the first frame and the last ``hold``
frames the final frame exactly; in between, progress ``t`` goes linearly from 0 to 1.

Styles (:data:`STYLE_NAMES`):

- ``fade``: removed-object pixels (outline and fill) blend linearly toward white.
- ``shrink``: each removed object is redrawn with ``render.sprite(shape, s, outline)``, ``s``
  shrinking from its size to 0 about its centre. The outline keeps the scene's width
  (``Config.lengths.outline``: 2 px at 256, scaled with the canvas) while the object shrinks,
  so every frame shows an object exactly as the renderer draws one of that size; an object is
  no longer drawn once it is smaller than 1.5 outline widths (3 px at 256).
- ``slide``: each removed object moves in a straight line off one canvas edge, drawn clipped to
  the canvas. Edges are tried nearest first; an edge is usable when the rectangle swept by the
  object's bounding square does not come within 1 px of any other object's bounding square
  (kept or removed) nor of the path of another sliding object, so a moving object never covers
  or touches a kept object and moving objects never merge. When no edge is usable the object
  fades in place instead.
  With ``num_frames`` >= 16 an object never moves more than ~20 px per frame at 256x256.

Every moving, shrinking or fading object is drawn as the renderer draws it (:class:`Look`): its
colour from the batch's vocabulary, its shape code through ``vocabulary.shapes``, the outline
width of the batch's canvas. :func:`task_arrays` hands a task's look over with its objects.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ._numba import kernel
from .errors import ParameterError
from .render import sprite
from .vocabulary import CLASSIC, OUTLINE_RGB, OUTLINE_WIDTH


@dataclass(frozen=True)
class Look:
    """How a batch's objects are drawn: what their colour and shape codes mean, and the outline.

    Attributes
    ----------
    rgb : tuple of (r, g, b)
        Colour by colour code (``vocabulary.rgb``).
    shapes : tuple of int
        Global shape code (index into ``vocabulary.SHAPE_TABLE``) by shape code
        (``vocabulary.shapes``).
    outline : int
        Outline width in pixels (``Config.lengths.outline``).

    Examples
    --------
    >>> from objsub_fast import generate_batch
    >>> look = Look.of(generate_batch([1], canvas_size=1024, vocabulary="extended"))
    >>> len(look.rgb), look.shapes[-1], look.outline
    (10, 7, 8)
    >>> Look.of(generate_batch([1])) == CLASSIC_LOOK
    True
    """

    rgb: tuple
    shapes: tuple
    outline: int

    @classmethod
    def of(cls, batch) -> "Look":
        """The look of an engine batch (its configuration's vocabulary and outline)."""
        config = batch.config
        return cls(tuple(map(tuple, config.vocabulary.rgb.tolist())),
                   tuple(config.vocabulary.shapes), int(config.lengths.outline))

    def fill(self, color: int) -> np.ndarray:
        """RGB (uint8) of colour code ``color``."""
        return np.array(self.rgb[int(color)], np.uint8)

    def sprite(self, shape: int, size: int) -> np.ndarray:
        """The renderer's sprite of shape code ``shape`` at ``size`` with this outline."""
        return sprite(self.shapes[int(shape)], int(size), self.outline)


#: The classic vocabulary with the 2-px outline of a 256-px canvas.
CLASSIC_LOOK = Look(tuple(map(tuple, CLASSIC.rgb.tolist())), tuple(CLASSIC.shapes),
                    OUTLINE_WIDTH)

STYLE_NAMES = ("fade", "shrink", "slide")


@kernel(nogil=True)
def _paint_sprite(frame, mask, left, top, fill, line):  # pragma: no cover - compiled
    """Paint sprite ``mask`` (0 empty, 1 outline, 2 fill) with its top-left corner at
    (left, top) into the (H, W, 3) ``frame``, clipped to it."""
    h, w = frame.shape[0], frame.shape[1]
    s = mask.shape[0]
    flat = frame.reshape(h, 3 * w)
    colours = np.empty(9, np.uint8)      # by label: none, outline, fill
    for k in range(3):
        colours[3 + k], colours[6 + k] = line[k], fill[k]
    c0, c1 = max(0, -left), min(s, w - left)
    for r in range(max(0, -top), min(s, h - top)):
        row, labels = flat[top + r], mask[r]
        for c in range(c0, c1):
            label = labels[c]
            if label:
                i = 3 * (left + c)
                row[i], row[i + 1], row[i + 2] = colours[3 * label], colours[3 * label + 1], \
                    colours[3 * label + 2]


def _draw(frame, mask, left, top, fill, line):
    """Draw sprite ``mask`` (1 outline, 2 fill) at (left, top) into ``frame``, clipped; return
    the rectangle (y0, y1, x0, x1) it may have changed, or None."""
    if not frame.flags.c_contiguous:
        raise ValueError("frame must be a C-contiguous (H, W, 3) uint8 array")
    rect = _clipped(mask, left, top, *frame.shape[:2])
    if rect is not None:
        _paint_sprite(frame, mask, int(left), int(top), _rgb(fill), _rgb(line))
    return rect


def _rgb(colour) -> tuple:
    """(r, g, b) as Python ints, from a tuple or an array."""
    return int(colour[0]), int(colour[1]), int(colour[2])


@lru_cache(maxsize=4096)
def _sprite_mask(shape: int, size: int, outline: int) -> np.ndarray:
    """The renderer's sprite of global shape code ``shape``, computed once (read-only)."""
    mask = sprite(shape, size, outline)
    mask.flags.writeable = False
    return mask


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


def _removed_painter(left, top, size, color, shape, removed, style, canvas_size, look):
    """A function ``paints(t)`` that lists how the removed objects are drawn at progress ``t``
    in (0, 1) onto the final frame, by the per-style rule of the module docstring and with
    ``look``: {object: (sprite mask, left, top, fill, outline)} for each object drawn."""
    ks = np.flatnonzero(removed)
    plans = (plan_slides(left, top, size, removed, canvas_size) if style == "slide"
             else [None] * len(size))
    line = tuple(OUTLINE_RGB)
    fills = {int(k): tuple(look.rgb[int(color[k])]) for k in ks}
    smallest = -(-3 * look.outline // 2)  # 1.5 outline widths, rounded up: 3 px at 256

    def place(k, tf):
        """(sprite side, left, top, fill, outline) of removed object k at progress tf, or None
        when it is not drawn (shrunk below ``smallest``)."""
        s, x, y = int(size[k]), int(left[k]), int(top[k])
        fill = fills[int(k)]
        if style == "slide" and plans[k] is not None:
            dx, dy, dist = plans[k]
            off = int(round(tf * dist))
            return s, x + dx * off, y + dy * off, fill, line
        if style == "shrink":
            s2 = int(round(s * (1.0 - tf)))
            if s2 < smallest:
                return None
            return (s2, int(round(left[k] + s / 2 - s2 / 2)), int(round(top[k] + s / 2 - s2 / 2)),
                    fill, line)
        # fade (also the fallback of a slide without a clear exit)
        keep = 1.0 - tf

        def blend(rgb):   # round half to even, as numpy's rint
            return tuple(round(keep * float(v) + tf * 255.0) for v in rgb)
        return s, x, y, blend(fill), blend(line)

    def paints(tf):
        out = {}
        for k in ks:
            placed = place(k, tf)
            if placed is not None:
                s, x, y, fill, outline = placed
                out[int(k)] = (_sprite_mask(look.shapes[int(shape[k])], s, look.outline), x, y,
                               fill, outline)
        return out

    return paints


def _clipped(mask, left, top, height, width):
    """The rectangle (y0, y1, x0, x1) of the canvas that sprite ``mask`` at (left, top) covers,
    or None when it is outside."""
    s = mask.shape[0]
    y0, x0, y1, x1 = max(top, 0), max(left, 0), min(top + s, height), min(left + s, width)
    return (y0, y1, x0, x1) if y1 > y0 and x1 > x0 else None


@dataclass(frozen=True)
class Step:
    """How one frame of a transition is made from the previous one.

    Attributes
    ----------
    start : {"first", "final", None}
        Copy that whole frame first (None: start from the previous frame).
    restore : list of (y0, y1, x0, x1)
        Rectangles copied back from the final frame.
    paints : list of (mask, left, top, fill, outline)
        Sprites drawn then (``_draw``).
    changed : list of (y0, y1, x0, x1) or None
        Rectangles outside of which the frame equals the previous one (None: all of it).
    motion : list of (dx, dy) or None
        How far the objects that moved as a whole since the previous frame moved (a slide);
        everything else changed in place, so an encoder need not search for motion. None
        when an object changed its shape or size (a shrink): the motion is not known.
    """

    start: str | None
    restore: list
    paints: list
    changed: list | None
    motion: list | None = ()


def transition_steps(first, left, top, size, color, shape, removed, style, num_frames,
                     look=CLASSIC_LOOK) -> list:
    """The :class:`Step` of each frame of one task's transition: what is copied and drawn, as
    data (arguments as in :func:`transition_frames`).

    Examples
    --------
    >>> from objsub_fast import generate_batch
    >>> b = generate_batch([7])
    >>> steps = transition_steps(b.first_frames[0], style="fade", num_frames=8,
    ...                          **task_arrays(b, 0))
    >>> [s.start for s in steps][:2], steps[1].changed, steps[-1].paints
    (['first', None], [], [])
    """
    check_style(style)
    ks = np.flatnonzero(removed)
    h, w = first.shape[:2]
    paints = _removed_painter(left, top, size, color, shape, removed, style, (w, h), look)
    squares = [(max(int(top[k]), 0), min(int(top[k] + size[k]), h),
                max(int(left[k]), 0), min(int(left[k] + size[k]), w)) for k in ks]
    steps = []
    previous = None  # rectangles in which the frame differs from `final` (None: not drawn yet)
    placed = {int(k): (_sprite_mask(look.shapes[int(shape[k])], int(size[k]), look.outline),
                       int(left[k]), int(top[k])) for k in ks}   # as in the first frame
    for tf in _progress(num_frames).tolist():
        if tf <= 0.0:  # the held first frame: it differs from `final` in the removed squares
            steps.append(Step("first", [], [], None) if previous is None
                         else Step(None, [], [], []))
            previous = squares
            continue
        fresh = previous is None
        restored = [] if fresh else previous
        drawn = paints(tf) if tf < 1.0 else {}
        reshaped = any(mask is not placed[k][0] for k, (mask, *_) in drawn.items())
        motion = None if reshaped else sorted({(x - placed[k][1], y - placed[k][2])
                                               for k, (_, x, y, _, _) in drawn.items()
                                               if (x, y) != placed[k][1:]})
        placed.update({k: paint[:3] for k, paint in drawn.items()})
        drawn = list(drawn.values())
        rects = [_clipped(mask, x, y, h, w) for mask, x, y, _, _ in drawn]
        previous = [r for r in rects if r is not None]
        steps.append(Step("final" if fresh else None, restored, drawn,
                          None if fresh else restored + previous, motion))
    return steps


def check_style(style) -> str:
    """``style`` if it is one of :data:`STYLE_NAMES`, else a ParameterError naming them."""
    if style not in STYLE_NAMES:
        raise ParameterError(f"style must be one of {', '.join(STYLE_NAMES)}, got {style!r}")
    return style


def transition_updates(first, left, top, size, color, shape, removed, style, num_frames,
                       final=None, out=None, look=CLASSIC_LOOK):
    """Yield ``(frame, changed)`` for each frame of one task's transition, drawn into ``out``.

    Only the removed objects' pixels are redrawn from one frame to the next; ``changed`` lists
    the rectangles (y0, y1, x0, x1), half-open, outside of which ``frame`` equals the previous
    frame (None for the first frame: everything is new). Arguments as in
    :func:`transition_frames`.
    """
    steps = transition_steps(first, left, top, size, color, shape, removed, style, num_frames,
                             look)
    if final is None:
        final = whiten(first, left, top, size, np.flatnonzero(removed))
    for frame, step in draw_steps(steps, first, final, out):
        yield frame, step.changed


def draw_steps(steps, first, final, out=None):
    """Yield ``(frame, step)`` for each :class:`Step` of ``steps``, the frame drawn into
    ``out`` (default a new buffer) from ``first`` and ``final`` (valid until the next one).

    Examples
    --------
    >>> from objsub_fast import generate_batch
    >>> b = generate_batch([7])
    >>> steps = transition_steps(b.first_frames[0], style="shrink", num_frames=8,
    ...                          **task_arrays(b, 0))
    >>> frames = [f.copy() for f, _ in draw_steps(steps, b.first_frames[0], b.final_frames[0])]
    >>> bool((frames[-1] == b.final_frames[0]).all())
    True
    """
    out = np.empty_like(first) if out is None else out
    for step in steps:
        if step.start is not None:
            np.copyto(out, first if step.start == "first" else final)
        for y0, y1, x0, x1 in step.restore:
            out[y0:y1, x0:x1] = final[y0:y1, x0:x1]
        for mask, x, y, fill, outline in step.paints:
            _draw(out, mask, x, y, fill, outline)
        yield out, step


def transition_frames(first, left, top, size, color, shape, removed, style, num_frames,
                      final=None, out=None, look=CLASSIC_LOOK):
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
                                       num_frames, final, out, look):
        yield frame


def task_frames(first, left, top, size, color, shape, removed, style, num_frames,
                look=CLASSIC_LOOK) -> np.ndarray:
    """Frames (F, H, W, 3) of one task's transition in which the objects ``removed`` go away
    (:func:`transition_frames`, kept)."""
    frames = np.empty((num_frames,) + first.shape, np.uint8)
    for f, frame in enumerate(transition_frames(first, left, top, size, color, shape, removed,
                                                style, num_frames, look=look)):
        frames[f] = frame
    return frames


def task_arrays(batch, i: int) -> dict:
    """Task ``i``'s object arrays (left, top, size, color, shape, removed), padding dropped,
    and the batch's ``look`` (:class:`Look`): the keyword arguments of the transition
    functions."""
    n = int(batch.num_objects[i])
    arrays = {name: getattr(batch, name)[i, :n]
              for name in ("left", "top", "size", "color", "shape", "removed")}
    return {**arrays, "look": Look.of(batch)}


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
    >>> from objsub_fast import generate_batch
    >>> b = generate_batch([1, 2])
    >>> video = render_transition(b, "shrink", num_frames=9)
    >>> video.shape
    (2, 9, 256, 256, 3)
    >>> bool((video[:, 0] == b.first_frames).all() and (video[:, -1] == b.final_frames).all())
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
