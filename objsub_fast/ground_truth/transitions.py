"""Ground-truth transitions drawn: the frames from a task's first frame to its final frame, in
which only the removed objects change (the encode stage; ``video`` turns them into mp4).
What each frame shows is planned in ``transition_plan`` (timing and the three styles);
here each frame is drawn from that plan into one reused buffer.

Every moving, shrinking or fading object is drawn as the renderer draws it
(:class:`ObjectLook`): its colour from the batch's vocabulary, its shape code through
``vocabulary.shapes``, the outline width of the batch's canvas. :func:`task_arrays` hands a
task's look over with its objects.
"""
from __future__ import annotations

import numpy as np

from .._moved import renamed
from ..runtime._numba import kernel
from ..runtime.errors import ParameterError
from .object_look import CLASSIC_LOOK, ObjectLook, SolidSprite, _solid, _sprite_mask  # noqa: F401
from .transition_plan import (STYLE_NAMES, Step, TransitionPlan, check_style,  # noqa: F401
                              frame_progress, plan_slides, plan_transition, transition_steps)
from .yuv import luma


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


@kernel(nogil=True)
def _paint_runs(frame, luma_plane, runs, left, top, fill, line):  # pragma: no cover - compiled
    """Paint a flat sprite given as ``runs`` (``object_look.label_runs``: row, first and end
    column, label 1 outline or 2 fill) with its top-left corner at (left, top) into the
    (H, W, 3) ``frame``, clipped to it, and the painted pixels' Y (``yuv.luma``) into
    ``luma_plane``: the same pixels as :func:`_paint_sprite`, a run at a time."""
    h, w = frame.shape[0], frame.shape[1]
    flat = frame.reshape(h, 3 * w)
    colours = np.empty(8, np.uint8)      # label 1, then 2: red, green, blue, Y
    for k in range(3):
        colours[k], colours[4 + k] = line[k], fill[k]
    colours[3] = luma(np.int32(line[0]), np.int32(line[1]), np.int32(line[2]))
    colours[7] = luma(np.int32(fill[0]), np.int32(fill[1]), np.int32(fill[2]))
    for i in range(runs.shape[0]):
        y = top + runs[i, 0]
        x0, x1 = max(left + runs[i, 1], 0), min(left + runs[i, 2], w)
        if y < 0 or y >= h or x1 <= x0:
            continue
        at = 4 * (runs[i, 3] - 1)
        red, green, blue, value = colours[at], colours[at + 1], colours[at + 2], colours[at + 3]
        row, luma_row = flat[y, 3 * x0:3 * x1], luma_plane[y, x0:x1]
        for x in range(x1 - x0):
            row[3 * x], row[3 * x + 1], row[3 * x + 2] = red, green, blue
            luma_row[x] = value


@kernel(nogil=True)
def _paint_solid(frame, mask, rgb, left, top, keep):  # pragma: no cover - compiled
    """Paint solid sprite pixels ``mask`` in their colours ``rgb`` (s, s, 3), each blended
    toward white to ``keep`` / 256 of its colour (256: as it is), with the sprite's top-left
    corner at (left, top) in the (H, W, 3) ``frame``, clipped to it."""
    h, w = frame.shape[0], frame.shape[1]
    s = mask.shape[0]
    white = 255 * (256 - keep) + 128
    for r in range(max(0, -top), min(s, h - top)):
        row = frame[top + r]
        for c in range(max(0, -left), min(s, w - left)):
            if mask[r, c]:
                for b in range(3):
                    row[left + c, b] = (rgb[r, c, b] * keep + white) >> 8


def draw_sprite(frame, mask, left, top, fill, line):
    """Draw sprite ``mask`` at (left, top) into ``frame``, clipped: a flat mask (1 outline,
    2 fill) in colours ``fill`` and ``line``, or a :class:`SolidSprite` in its own colours
    kept to ``fill`` / 256 (``line`` unused). Return the rectangle (y0, y1, x0, x1) it may
    have changed, or None.

    Examples
    --------
    >>> frame = np.full((4, 4, 3), 255, np.uint8)
    >>> mask = np.array([[1, 1], [1, 2]], np.uint8)
    >>> draw_sprite(frame, mask, 1, 1, (200, 0, 0), (0, 0, 0))
    (1, 3, 1, 3)
    >>> frame[2, 2].tolist(), frame[1, 1].tolist()
    ([200, 0, 0], [0, 0, 0])
    """
    if not frame.flags.c_contiguous:
        raise ValueError("frame must be a C-contiguous (H, W, 3) uint8 array")
    solid = isinstance(mask, SolidSprite)
    rect = _clipped(mask.mask if solid else mask, left, top, *frame.shape[:2])
    if rect is not None and solid:
        _paint_solid(frame, mask.mask, mask.rgb, int(left), int(top), int(fill))
    elif rect is not None:
        _paint_sprite(frame, mask, int(left), int(top), _rgb(fill), _rgb(line))
    return rect


def _rgb(colour) -> tuple:
    """(r, g, b) as Python ints, from a tuple or an array."""
    return int(colour[0]), int(colour[1]), int(colour[2])


def whiten(frame, left, top, size, which) -> np.ndarray:
    """Copy of ``frame`` with the bounding squares of objects ``which`` painted white."""
    out = frame.copy()
    h, w = out.shape[:2]
    for k in which:
        x, y, s = int(left[k]), int(top[k]), int(size[k])
        out[max(y, 0):min(y + s, h), max(x, 0):min(x + s, w)] = 255
    return out


def _clipped(mask, left, top, height, width):
    """The rectangle (y0, y1, x0, x1) of the canvas that sprite ``mask`` at (left, top) covers,
    or None when it is outside."""
    s = mask.shape[0]
    y0, x0, y1, x1 = max(top, 0), max(left, 0), min(top + s, height), min(left + s, width)
    return (y0, y1, x0, x1) if y1 > y0 and x1 > x0 else None


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
            draw_sprite(out, mask, x, y, fill, outline)
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
    and the batch's ``look`` (:class:`ObjectLook`): the keyword arguments of the transition
    functions."""
    n = int(batch.num_objects[i])
    arrays = {name: getattr(batch, name)[i, :n]
              for name in ("left", "top", "size", "color", "shape", "removed")}
    return {**arrays, "look": ObjectLook.of(batch)}


def render_transition(batch, style: str = "fade", num_frames: int = 61, tasks=None,
                      out=None) -> np.ndarray:
    """Render ground-truth transition videos in which only the removed objects change.

    The defaults are a dataset's (``generate --videos``: the fade, 61 frames). Every frame is
    drawn into one frame buffer and copied straight into the result, so memory peaks at the
    result plus one frame; to hold less, render slices of the batch with ``tasks``, stream
    one task's frames with :func:`transition_frames`, or pass ``out`` to reuse a result array.

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
    out : (N, F, H, W, 3) uint8 array, optional
        A C-contiguous array to render into (N tasks, F = ``num_frames``), returned.

    Returns
    -------
    (N, F, H, W, 3) uint8
        F * H * W * 3 bytes per task: 12 MB for 61 frames at 256x256, 192 MB at 1024x1024.

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
    if isinstance(num_frames, bool) or not isinstance(num_frames, (int, np.integer)) \
            or num_frames < 1:
        raise ParameterError(f"num_frames must be an integer >= 1, got {num_frames!r}")
    if batch.first_frames is None:
        raise ParameterError("the batch has no frames; generate it with render=True")
    idx = range(len(batch)) if tasks is None else list(tasks)
    h, w = batch.final_frames.shape[1:3]
    shape = (len(idx), int(num_frames), h, w, 3)
    if out is None:
        out = np.empty(shape, np.uint8)
    elif not (isinstance(out, np.ndarray) and out.shape == shape and out.dtype == np.uint8
              and out.flags.c_contiguous):
        raise ParameterError(f"out must be a C-contiguous uint8 array of shape {shape}, got "
                         f"{getattr(out, 'shape', None)} {getattr(out, 'dtype', type(out))}")
    frame = np.empty((h, w, 3), np.uint8)
    for k, i in enumerate(idx):
        frames = transition_frames(batch.first_frames[i], style=style, num_frames=num_frames,
                                   out=frame, **task_arrays(batch, i))
        for f, drawn in enumerate(frames):
            out[k, f] = drawn
    return out


#: ``Look`` was this module's name of :class:`ObjectLook` (until issue #48).
__getattr__ = renamed(__name__, {"Look": f"{__name__}.ObjectLook"})
