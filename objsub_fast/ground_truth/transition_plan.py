"""The plan of a ground-truth transition, apart from its drawing: for each frame, where each
removed object is, at what size and in which colours (:class:`TransitionPlan`,
:func:`plan_transition`), and the per-frame :class:`Step` made from it. ``transitions``
draws the frames of a plan; ``transition_video`` packs it for the own encoder.

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
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..runtime.errors import ParameterError
from ..task.vocabulary import OUTLINE_RGB
from .object_look import CLASSIC_LOOK, _solid, _sprite_mask, _sprite_runs

__all__ = ["STYLE_NAMES", "check_style", "frame_progress", "plan_slides", "Step",
           "TransitionPlan", "plan_transition", "transition_steps"]

STYLE_NAMES = ("fade", "shrink", "slide")


def frame_progress(num_frames: int) -> np.ndarray:
    """Progress t in [0, 1] of each frame of a transition (it holds still at both ends).

    Examples
    --------
    >>> frame_progress(10).round(3).tolist()
    [0.0, 0.0, 0.143, 0.286, 0.429, 0.571, 0.714, 0.857, 1.0, 1.0]
    """
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
        Sprites drawn then (``transitions.draw_sprite``; in the solid look a :class:`SolidSprite`, its ``keep``
        and None).
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



def _fade(t, objects, plans):
    """Fade: in place, fill and outline (flat) or every pixel's colour (solid: ``keep``
    256ths of it) blended toward white (round half to even)."""
    keep = 1.0 - t[:, :, None]
    white = t[:, :, None] * 255.0
    return {"fill": np.rint(keep * objects["fill"] + white).astype(np.int64),
            "line": np.rint(keep * objects["line"] + white).astype(np.int64),
            "keep": np.broadcast_to(np.rint(256 * keep[:, :, 0]).astype(np.int64),
                                    (len(t), len(objects["side"])))}


def _shrink(t, objects, plans):
    """Shrink: redrawn smaller about the centre; gone below 1.5 outline widths."""
    size = objects["side"]
    side = np.rint(size * (1.0 - t)).astype(np.int64)
    return {"side": side,
            "left": np.rint(objects["left"] + size / 2 - side / 2).astype(np.int64),
            "top": np.rint(objects["top"] + size / 2 - side / 2).astype(np.int64),
            "drawn": side >= objects["smallest"]}


def _slide(t, objects, plans):
    """Slide: along the planned exit (``plan_slides``); objects without an exit fade."""
    dx, dy, distance = plans.T
    shift = np.rint(t * distance).astype(np.int64)
    fading = _fade(t, objects, plans)
    sliding = (distance > 0)[None, :, None]
    return {"left": objects["left"] + dx * shift, "top": objects["top"] + dy * shift,
            "fill": np.where(sliding, objects["fill"], fading["fill"]),
            "line": np.where(sliding, objects["line"], fading["line"]),
            "keep": np.where(sliding[..., 0], 256, fading["keep"])}


#: What each style changes about a removed object at progress t (arrays over frame x object).
_STYLES = {"fade": _fade, "shrink": _shrink, "slide": _slide}


def _clip(left, top, side, height, width):
    """(..., 4) rectangles (y0, y1, x0, x1) of squares clipped to the canvas, and whether each
    is non-empty."""
    rects = np.stack([np.maximum(top, 0), np.minimum(top + side, height),
                      np.maximum(left, 0), np.minimum(left + side, width)], axis=-1)
    return rects, (rects[..., 1] > rects[..., 0]) & (rects[..., 3] > rects[..., 2])


@dataclass(frozen=True, eq=False)
class TransitionPlan:
    """How each removed object is drawn in each frame of one task's transition, as arrays over
    (frame f, removed object j): the one description that both the per-frame steps
    (:meth:`steps`) and the own encoder's packed form (``transition_video.pack_plan``) are
    made from.

    Attributes
    ----------
    held : (F,) bool
        Frame f shows the first frame (progress 0).
    drawn : (F, K) bool
        Object j is painted in frame f (never in a held frame nor at progress 1).
    side, left, top : (F, K) int64
        Its sprite's side and top-left corner.
    fill, line : (F, K, 3) int64
        Its fill and outline colours.
    shape : (K,) int64
        Its global shape code (``vocabulary.SHAPE_TABLE``); ``outline``: the outline width.
    squares : (K, 4) int64
        (y0, y1, x0, x1) of its bounding square in the first frame, clipped to the canvas.
    rects, visible : (F, K, 4) int64, (F, K) bool
        The rectangle each drawn sprite covers, and whether it is drawn and on the canvas.
    before : (F, K, 3) int64
        Its (side, left, top) where it was last drawn before frame f (as in the first frame
        until then).
    keep : (F, K) int64
        In the solid look, how much of its own colours it shows, in 256ths (256: all; a
        fade blends the rest toward white).
    rgb : (K, 3) int64
        Its colour; ``look``: the look's name ("flat" or "solid").

    Examples
    --------
    >>> from objsub_fast import generate_batch
    >>> from objsub_fast.ground_truth.transitions import task_arrays
    >>> b = generate_batch([7])
    >>> plan = plan_transition(b.first_frames[0], style="shrink", num_frames=8,
    ...                        **task_arrays(b, 0))
    >>> plan.held.tolist(), plan.drawn.sum(axis=1).tolist()
    ([True, True, False, False, False, False, False, False], [0, 0, 1, 1, 1, 1, 0, 0])
    >>> plan.side[2:6, 0].tolist()
    [31, 23, 16, 8]
    """

    held: np.ndarray
    drawn: np.ndarray
    side: np.ndarray
    left: np.ndarray
    top: np.ndarray
    fill: np.ndarray
    line: np.ndarray
    shape: np.ndarray
    outline: int
    squares: np.ndarray
    rects: np.ndarray
    visible: np.ndarray
    before: np.ndarray
    keep: np.ndarray = None
    rgb: np.ndarray = None
    look: str = "flat"

    def mask(self, j: int, side: int):
        """The sprite of removed object ``j`` at ``side`` (read-only, cached): a flat mask, or
        in the solid look a :class:`SolidSprite`."""
        if self.look == "solid":
            return _solid(int(self.shape[j]), int(side), tuple(map(int, self.rgb[j])))
        return _sprite_mask(int(self.shape[j]), int(side), self.outline)

    def runs(self, j: int, side: int) -> np.ndarray:
        """The flat sprite of removed object ``j`` at ``side`` as runs of one label along its
        rows (``object_look.label_runs``; read-only, cached)."""
        return _sprite_runs(int(self.shape[j]), int(side), self.outline)

    def colours(self, f: int, j: int):
        """(fill, line) of object ``j``'s paint in frame ``f``: its colours (flat), or its
        ``keep`` and None (solid), as ``transitions.draw_sprite`` takes them."""
        if self.look == "solid":
            return int(self.keep[f, j]), None
        return tuple(map(int, self.fill[f, j])), tuple(map(int, self.line[f, j]))

    def restores(self):
        """((F, K) bool, (F, K, 4) int64): which rectangles each frame copies back from the
        final frame before drawing, and those rectangles: where the previous frame differs from
        it (the bounding squares after a held frame, else the sprites the previous frame drew
        on the canvas; nothing in frame 0 or a held frame)."""
        held = self.held
        restoring = np.zeros_like(self.visible)
        restoring[1:] = (self.visible[:-1] | held[:-1, None]) & ~held[1:, None]
        source = np.zeros_like(self.rects)
        source[1:] = np.where(held[:-1, None, None], self.squares[None], self.rects[:-1])
        return restoring, source

    def moves(self):
        """((F,) bool, (F, K) bool): the frames in which an object was redrawn at another size
        than where it was last drawn (its motion is not known), and, in the other moving frames,
        the objects drawn somewhere else than there (``before``)."""
        before, moving = self.before, ~self.held
        reshaped = (self.drawn & (self.side != before[..., 0])).any(axis=1) & moving
        moved = self.drawn & ((self.left != before[..., 1]) | (self.top != before[..., 2]))
        return reshaped, moved & (moving & ~reshaped)[:, None]

    def motion(self, f: int):
        """``Step.motion`` of frame ``f``: () for a held frame; None when an object was
        redrawn at another size (the motion is not known); else the sorted distinct (dx, dy)
        by which drawn objects moved since they were last drawn."""
        return self._motion(f, *self.moves())

    def _motion(self, f: int, reshaped, moved):
        if self.held[f]:
            return ()
        if reshaped[f]:
            return None
        j = moved[f]
        return sorted({(int(dx), int(dy)) for dx, dy in
                       zip(self.left[f, j] - self.before[f, j, 1],
                           self.top[f, j] - self.before[f, j, 2])})

    def steps(self) -> list:
        """The :class:`Step` of each frame."""
        steps, moves = [], self.moves()
        restoring, source = self.restores()
        for f in range(len(self.held)):
            if self.held[f]:
                steps.append(Step("first", [], [], None) if f == 0 else Step(None, [], [], []))
                continue
            restore = [tuple(map(int, r)) for r in source[f][restoring[f]]]
            paints = [(self.mask(j, self.side[f, j]), int(self.left[f, j]), int(self.top[f, j]),
                       *self.colours(f, j)) for j in np.flatnonzero(self.drawn[f])]
            drawn = [tuple(map(int, r)) for r in self.rects[f][self.visible[f]]]
            motion = self._motion(f, *moves)
            steps.append(Step("final", [], paints, None, motion) if f == 0 else
                         Step(None, restore, paints, restore + drawn, motion))
        return steps


def plan_transition(first, left, top, size, color, shape, removed, style, num_frames,
                    look=CLASSIC_LOOK) -> TransitionPlan:
    """The :class:`TransitionPlan` of one task's transition (arguments as in
    ``transitions.transition_frames``), computed for all frames at once.

    Examples
    --------
    >>> from objsub_fast import generate_batch
    >>> from objsub_fast.ground_truth.transitions import task_arrays
    >>> b = generate_batch([7])
    >>> plan = plan_transition(b.first_frames[0], style="fade", num_frames=8,
    ...                        **task_arrays(b, 0))
    >>> plan.fill[2:5, 0].tolist()     # orange, fading toward white
    [[255, 183, 51], [255, 201, 102], [255, 219, 153]]
    """
    check_style(style)
    h, w = first.shape[:2]
    ks = np.flatnonzero(removed)
    t = frame_progress(num_frames)[:, None]
    objects = {"left": left[ks].astype(np.int64), "top": top[ks].astype(np.int64),
               "side": size[ks].astype(np.int64),
               "fill": np.array([look.rgb[int(c)] for c in color[ks]], np.int64).reshape(-1, 3),
               "line": np.tile(np.array(OUTLINE_RGB, np.int64), (len(ks), 1)),
               "smallest": -(-3 * look.outline // 2)}   # 1.5 outline widths, rounded up
    plans = None
    if style == "slide":
        plans = np.array([p or (0, 0, 0) for k, p in enumerate(
            plan_slides(left, top, size, removed, (w, h))) if removed[k]], np.int64)
        plans = plans.reshape(-1, 3)
    frames, count = len(t), len(ks)
    placed = {name: np.broadcast_to(objects[name], (frames, count)) for name in
              ("side", "left", "top")}
    placed.update({name: np.broadcast_to(objects[name], (frames, count, 3))
                   for name in ("fill", "line")})
    placed["keep"] = np.full((frames, count), 256, np.int64)
    placed["drawn"] = np.broadcast_to((t > 0) & (t < 1), (frames, count))
    changes = _STYLES[style](t, objects, plans)
    if "drawn" in changes:
        changes["drawn"] = changes["drawn"] & placed["drawn"]
    placed.update(changes)
    side, x, y, drawn = (np.ascontiguousarray(placed[k]) for k in ("side", "left", "top", "drawn"))
    rects, on_canvas = _clip(x, y, side, h, w)
    # where each object was last drawn before frame f: index of that frame, -1 for none
    last = np.maximum.accumulate(np.where(drawn, np.arange(frames)[:, None], -1), axis=0)
    last = np.vstack([np.full((1, count), -1), last[:-1]])
    now = np.stack([side, x, y], axis=-1)
    first_place = np.stack([objects["side"], objects["left"], objects["top"]], axis=-1)
    before = np.where((last >= 0)[:, :, None],
                      np.take_along_axis(now, np.maximum(last, 0)[:, :, None], axis=0),
                      first_place[None])
    squares, _ = _clip(objects["left"], objects["top"], objects["side"], h, w)
    shapes = np.array([look.shapes[int(s)] for s in shape[ks]], np.int64)
    return TransitionPlan(t[:, 0] <= 0.0, drawn, side, x, y,
                          np.ascontiguousarray(placed["fill"]),
                          np.ascontiguousarray(placed["line"]), shapes, look.outline, squares,
                          rects, drawn & on_canvas, before,
                          np.ascontiguousarray(placed["keep"]), objects["fill"], look.name)


def transition_steps(first, left, top, size, color, shape, removed, style, num_frames,
                     look=CLASSIC_LOOK) -> list:
    """The :class:`Step` of each frame of one task's transition: what is copied and drawn, as
    data (arguments as in ``transitions.transition_frames``; ``plan_transition(...).steps()``).

    Examples
    --------
    >>> from objsub_fast import generate_batch
    >>> from objsub_fast.ground_truth.transitions import task_arrays
    >>> b = generate_batch([7])
    >>> steps = transition_steps(b.first_frames[0], style="fade", num_frames=8,
    ...                          **task_arrays(b, 0))
    >>> [s.start for s in steps][:2], steps[1].changed, steps[-1].paints
    (['first', None], [], [])
    """
    return plan_transition(first, left, top, size, color, shape, removed, style, num_frames,
                           look).steps()


def check_style(style) -> str:
    """``style`` if it is one of :data:`STYLE_NAMES`, else a ParameterError naming them."""
    if style not in STYLE_NAMES:
        raise ParameterError(f"style must be one of {', '.join(STYLE_NAMES)}, got {style!r}")
    return style
