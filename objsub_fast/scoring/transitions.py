"""Ground-truth transition videos: only the removed objects change, and an mp4 writer (PyAV).

Timing: the first ``hold = max(1, F // 8)`` frames show the first frame and the last ``hold``
frames the final frame exactly; in between, progress ``t`` goes linearly from 0 to 1.

Styles (table :data:`STYLES`):

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

import os

import numpy as np

from ..errors import ParameterError
from ..render import sprite
from ..vocabulary import COLOR_RGB, OUTLINE_RGB

STYLE_NAMES = ("fade", "shrink", "slide")


def _draw(frame, mask, left, top, fill, line):
    """Draw sprite ``mask`` (1 outline, 2 fill) at (left, top) into ``frame``, clipped."""
    h, w = frame.shape[:2]
    s = mask.shape[0]
    y0, x0, y1, x1 = max(top, 0), max(left, 0), min(top + s, h), min(left + s, w)
    if y1 <= y0 or x1 <= x0:
        return
    sub = mask[y0 - top:y1 - top, x0 - left:x1 - left]
    view = frame[y0:y1, x0:x1]
    view[sub == 1] = line
    view[sub == 2] = fill


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


def task_frames(first, left, top, size, color, shape, removed, style, num_frames) -> np.ndarray:
    """Frames (F, H, W, 3) of one task's transition in which the objects ``removed`` go away.

    ``first`` is the task's first frame; the final frame is ``first`` with the removed objects'
    bounding squares painted white (squares never overlap, so this touches nothing else).
    """
    if style not in STYLE_NAMES:
        raise ValueError(f"style must be one of {STYLE_NAMES}, got {style!r}")
    t = _progress(num_frames)
    ks = np.flatnonzero(removed)
    final = whiten(first, left, top, size, ks)
    frames = np.repeat(final[None], len(t), axis=0)
    plans = (plan_slides(left, top, size, removed, final.shape[1::-1]) if style == "slide"
             else [None] * len(size))
    line = np.array(OUTLINE_RGB, float)
    white = np.full(3, 255.0)
    for f, tf in enumerate(t):
        if tf <= 0.0:
            frames[f] = first
            continue
        if tf >= 1.0:
            continue
        for k in ks:
            s = int(size[k])
            fill = COLOR_RGB[color[k]].astype(float)
            plan = plans[k]
            if style == "slide" and plan is not None:
                dx, dy, dist = plan
                off = int(round(tf * dist))
                _draw(frames[f], sprite(int(shape[k]), s), int(left[k]) + dx * off,
                      int(top[k]) + dy * off, fill.astype(np.uint8), line.astype(np.uint8))
            elif style == "shrink":
                s2 = int(round(s * (1.0 - tf)))
                if s2 >= 3:
                    l2 = int(round(left[k] + s / 2 - s2 / 2))
                    t2 = int(round(top[k] + s / 2 - s2 / 2))
                    _draw(frames[f], sprite(int(shape[k]), s2), l2, t2, fill.astype(np.uint8),
                          line.astype(np.uint8))
            else:  # fade (also the fallback of a slide without a clear exit)
                blend = lambda c: np.rint((1 - tf) * c + tf * white).astype(np.uint8)  # noqa: E731
                _draw(frames[f], sprite(int(shape[k]), s), int(left[k]), int(top[k]),
                      blend(fill), blend(line))
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
        in slices with ``tasks``, or write each task with :func:`write_transition`.
    """
    if style not in STYLE_NAMES:
        raise ValueError(f"style must be one of {STYLE_NAMES}, got {style!r}")
    if num_frames < 1:
        raise ValueError(f"num_frames must be >= 1, got {num_frames}")
    if batch.first_frames is None:
        raise ValueError("the batch has no frames; generate it with render=True")
    idx = range(len(batch)) if tasks is None else list(tasks)
    out = [task_frames(batch.first_frames[i], style=style, num_frames=num_frames,
                       **task_arrays(batch, i)) for i in idx]
    h, w = batch.final_frames.shape[1:3]
    return np.stack(out) if out else np.zeros((0, num_frames, h, w, 3), np.uint8)


def letterbox(frame: np.ndarray, out_size, bar_rgb=(0, 0, 0)) -> np.ndarray:
    """Scale ``frame`` to fit ``out_size`` (W, H) keeping its aspect, centred on bars."""
    from PIL import Image

    ow, oh = out_size
    h, w = frame.shape[:2]
    scale = min(ow / w, oh / h)
    sw, sh = int(round(w * scale)), int(round(h * scale))
    img = np.asarray(Image.fromarray(frame).resize((sw, sh), Image.BILINEAR))
    out = np.empty((oh, ow, 3), np.uint8)
    out[:] = bar_rgb
    y0, x0 = (oh - sh) // 2, (ow - sw) // 2
    out[y0:y0 + sh, x0:x0 + sw] = img
    return out


#: Encoder options by codec name (PyAV stream options).
CODEC_OPTIONS = {"libx264": {"crf": "18", "preset": "veryfast"},
                 "libx265": {"crf": "20", "preset": "veryfast", "x265-params": "log-level=none"},
                 "libvpx-vp9": {"crf": "30", "b": "0", "deadline": "realtime", "cpu-used": "8"},
                 "gif": {}}
#: Codec ``write_video`` uses for a file extension when no ``codec`` is given.
CODEC_BY_EXTENSION = {".mp4": "libx264", ".m4v": "libx264", ".mov": "libx264",
                      ".mkv": "libx264", ".webm": "libvpx-vp9", ".gif": "gif"}


def codec_for(path) -> str:
    """The codec of ``path``'s extension (``CODEC_BY_EXTENSION``); ParameterError if none.

    Examples
    --------
    >>> codec_for("out/t.webm"), codec_for("T.GIF")
    ('libvpx-vp9', 'gif')
    """
    ext = os.path.splitext(os.fspath(path))[1].lower()
    if ext not in CODEC_BY_EXTENSION:
        raise ParameterError(f"write_video: no codec for extension {ext!r} of "
                             f"{os.fspath(path)!r}; use one of {', '.join(CODEC_BY_EXTENSION)} "
                             "or pass codec=")
    return CODEC_BY_EXTENSION[ext]


def _palettized(frame: np.ndarray):
    """(indices, ARGB palette) of a frame: exact when it has <= 256 colours, else its colours
    rounded to a 6x6x6 cube (no dithering, which would scatter foreign colours)."""
    rgb = frame.reshape(-1, 3)
    cols, inv = np.unique(rgb, axis=0, return_inverse=True)
    if len(cols) > 256:
        cube = np.rint(rgb / 51.0).astype(np.uint8) * 51
        cols, inv = np.unique(cube, axis=0, return_inverse=True)
    pal = np.zeros((256, 4), np.uint8)
    pal[:len(cols), 0] = 255
    pal[:len(cols), 1:] = cols
    return inv.reshape(frame.shape[:2]).astype(np.uint8), pal


def write_video(path, frames, fps: int = 16, codec: str | None = None, out_size=None,
                bar_rgb=(0, 0, 0)) -> str:
    """Encode ``frames`` (iterable of (H, W, 3) uint8) to a video file with PyAV.

    Parameters
    ----------
    path : path-like
        Output file; the container follows the extension (.mp4, .webm, .gif, ...).
    fps : int
    codec : str, optional
        ``libx264`` (yuv420p), ``libx265``, ``libvpx-vp9`` or ``gif`` (lossless palette when a
        frame has <= 256 colours); default: the extension's (``CODEC_BY_EXTENSION``: .mp4
        -> libx264, .webm -> libvpx-vp9, .gif -> gif, ...).
    out_size : (W, H), optional
        Letterbox every frame into this size (e.g. (1280, 720)) with ``bar_rgb`` bars.

    Returns
    -------
    str
        The path written.
    """
    import av

    path = os.fspath(path)
    codec = codec or codec_for(path)
    with av.open(path, mode="w") as container:
        stream = None
        for frame in frames:
            if out_size is not None:
                frame = letterbox(frame, out_size, bar_rgb)
            if codec != "gif" and (frame.shape[0] % 2 or frame.shape[1] % 2):
                frame = np.pad(frame, ((0, frame.shape[0] % 2), (0, frame.shape[1] % 2), (0, 0)),
                               constant_values=255)
            if stream is None:
                stream = container.add_stream(codec, rate=fps,
                                              options=CODEC_OPTIONS.get(codec, {}))
                stream.width, stream.height = frame.shape[1], frame.shape[0]
                stream.pix_fmt = "pal8" if codec == "gif" else "yuv420p"
                stream.codec_context.thread_count = 1
            if codec == "gif":
                vf = av.VideoFrame.from_ndarray(_palettized(frame), format="pal8")
            else:
                vf = av.VideoFrame.from_ndarray(np.ascontiguousarray(frame), format="rgb24")
            for packet in stream.encode(vf):
                container.mux(packet)
        if stream is not None:
            for packet in stream.encode():
                container.mux(packet)
    return path


def write_transition(batch, i: int, path, style: str = "fade", num_frames: int = 32,
                     fps: int = 16, **kwargs) -> str:
    """Write task ``i``'s ground-truth transition to a video file (mp4 by default).

    Extra keyword arguments go to :func:`write_video` (codec, out_size, bar_rgb).
    """
    frames = render_transition(batch, style=style, num_frames=num_frames, tasks=[i])[0]
    return write_video(path, frames, fps=fps, **kwargs)
