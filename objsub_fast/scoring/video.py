"""Frame sources for scoring: stream frames from a video, a folder of images, a single image or
an array, and map every frame onto the task's canvas.

Canvas mapping
--------------
Models emit frames of any size and aspect ratio. The scorer registers frame 0 on the task's
objects (``register.register``) and maps every frame with that one mapping
(:class:`CanvasWarp`). Without a task (``FrameStream`` on its own), :func:`content_box` gives the
fallback mapping:

1. Bars: leading runs of uniform rows/columns at each edge whose colour is not background-white
   are cut (black or coloured letterbox/pillarbox bars, including the blurred grey transition
   row a codec leaves at the bar's edge).
2. White bars cannot be told apart from the canvas's own white margin by colour, so they are cut
   only as far as needed to restore the canvas aspect ratio, split between the two sides, and
   only from uniform white runs.
3. The box is resized to the canvas.

Frames are decoded one at a time; a video is never held in memory whole.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np

from .._numba import kernel
from ..errors import VideoError

__all__ = ["FrameStream", "CanvasWarp", "content_box", "VideoError", "IMAGE_EXTS",
           "VIDEO_EXTS"]

IMAGE_EXTS = (".png", ".jpg", ".jpeg", ".bmp", ".webp", ".tif", ".tiff")
VIDEO_EXTS = (".mp4", ".webm", ".gif", ".mov", ".mkv", ".avi", ".m4v")

#: A row/column is "uniform" when each channel's 2nd..98th percentile spread is at most this.
UNIFORM_SPREAD = 24
#: A uniform run counts as white (possibly canvas background) when its darkest channel is >= this.
WHITE_MIN = 200
#: Never cut more than this fraction of a dimension (guards against all-black fade-in frames).
MAX_CUT_FRACTION = 0.75




def _uniform_runs(lines: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per line of ``lines`` (L, n, 3): whether it is uniform, and its median colour."""
    lo, med, hi = np.percentile(lines, (2, 50, 98), axis=1)
    uniform = (hi - lo).max(axis=1) <= UNIFORM_SPREAD
    return uniform, med


def _edge_run(uniform: np.ndarray, white: np.ndarray, want_white: bool) -> int:
    """Length of the leading run of uniform lines that are (not) white, as asked."""
    ok = uniform & (white == want_white)
    bad = np.flatnonzero(~ok)
    return int(bad[0]) if bad.size else int(ok.size)


def content_box(frame: np.ndarray, canvas_size: tuple[int, int]) -> tuple[int, int, int, int]:
    """Return the content box ``(y0, y1, x0, x1)`` of ``frame`` once bars are removed.

    Parameters
    ----------
    frame : (H, W, 3) uint8 array
        A reference frame (normally the first frame of the video).
    canvas_size : (W, H)
        The task's canvas size; its aspect ratio decides how much white padding is cut.
    """
    H, W = frame.shape[:2]
    # Subsample lines: about 64 samples per line are plenty for a uniformity test.
    rs = max(1, W // 64)
    cs = max(1, H // 64)
    rows = frame[:, ::rs].astype(np.int16)
    cols = frame[::cs, :].astype(np.int16).transpose(1, 0, 2)
    ru, rc = _uniform_runs(rows)
    cu, cc = _uniform_runs(cols)
    rw = rc.min(axis=1) >= WHITE_MIN
    cw = cc.min(axis=1) >= WHITE_MIN
    # 1. Non-white bars on each edge.
    top = _edge_run(ru, rw, False)
    bottom = _edge_run(ru[::-1], rw[::-1], False)
    left = _edge_run(cu, cw, False)
    right = _edge_run(cu[::-1], cw[::-1], False)
    if top + bottom > MAX_CUT_FRACTION * H:
        top = bottom = 0
    if left + right > MAX_CUT_FRACTION * W:
        left = right = 0
    y0, y1, x0, x1 = top, H - bottom, left, W - right
    # 2. White padding: cut only what restores the canvas aspect ratio.
    aspect = canvas_size[0] / canvas_size[1]
    h, w = y1 - y0, x1 - x0
    if w > aspect * h * 1.01:
        x0, x1 = _cut_white(x0, x1, w - int(round(aspect * h)), cu[x0:x1], cw[x0:x1])
    elif h * aspect > w * 1.01:
        y0, y1 = _cut_white(y0, y1, h - int(round(w / aspect)), ru[y0:y1], rw[y0:y1])
    return y0, y1, x0, x1


def _cut_white(a: int, b: int, excess: int, uniform, white) -> tuple[int, int]:
    """Cut ``excess`` lines of uniform white from the two ends of [a, b), balanced when possible."""
    lo_room = _edge_run(uniform, white, True)
    hi_room = _edge_run(uniform[::-1], white[::-1], True)
    lo = min(lo_room, excess // 2)
    hi = min(hi_room, excess - lo)
    lo = min(lo_room, excess - hi)
    return a + lo, b - hi


class CanvasWarp:
    """Map the frames of one stream onto the canvas with a :class:`register.Mapping`.

    The part of the canvas the frame shows is resampled from the frame (bilinear, antialiased
    when shrinking); the rest (cut off by a crop) stays white and is reported as not visible.
    Decoded video frames are converted to RGB at their size (swscale's unscaled fast path) and
    the canvas sampled from them at its exact sub-pixel place.

    Attributes
    ----------
    mapping : register.Mapping
    source_size : (W, H)
    box : (y0, y1, x0, x1)
        The frame region that covers the canvas (clipped to the frame).
    """

    def __init__(self, mapping):
        self.mapping = m = mapping
        self.source_size = tuple(m.source_size)
        self.canvas_size = tuple(m.canvas_size)
        self.rect = u0, v0, u1, v1 = m.canvas_rect()
        w, h = self.source_size
        self.box = (max(0, int(round(m.sy * v0 + m.ty))), min(h, int(round(m.sy * v1 + m.ty))),
                    max(0, int(round(m.sx * u0 + m.tx))), min(w, int(round(m.sx * u1 + m.tx))))
        self.identity = (m.sx, m.sy, m.tx, m.ty) == (1.0, 1.0, 0.0, 0.0) and \
            self.source_size == self.canvas_size
        # Video path: swscale's unscaled YUV -> RGB conversion (its fast path, cheaper than any
        # of its scalers), then the canvas part sampled at its exact sub-pixel place (2-tap
        # linear per axis). Flat-coloured frames need no antialiasing filter.
        self._taps = _taps(u0, u1, m.sx, m.tx, w) + _taps(v0, v1, m.sy, m.ty, h)

    def _blank(self) -> np.ndarray:
        cw, ch = self.canvas_size
        return np.full((ch, cw, 3), 255, np.uint8)

    def from_array(self, frame: np.ndarray) -> np.ndarray:
        """Map one (H, W, 3) uint8 frame onto the canvas."""
        if self.identity:
            return np.ascontiguousarray(frame)
        from PIL import Image

        m, (u0, v0, u1, v1) = self.mapping, self.rect
        out = self._blank()
        if u1 > u0 and v1 > v0:
            box = (m.sx * u0 + m.tx, m.sy * v0 + m.ty, m.sx * u1 + m.tx, m.sy * v1 + m.ty)
            img = Image.fromarray(np.ascontiguousarray(frame)).resize(
                (u1 - u0, v1 - v0), Image.BILINEAR, box=box)
            out[v0:v1, u0:u1] = np.asarray(img)
        return out

    def from_video_frame(self, frame, reformatter) -> np.ndarray:
        """Map one decoded ``av.VideoFrame`` onto the canvas."""
        if self.identity:
            return reformatter.reformat(frame, format="rgb24").to_ndarray()
        rgb = reformatter.reformat(frame, format="rgb24").to_ndarray()
        out = self._blank()
        u0, v0, u1, v1 = self.rect
        if u1 > u0 and v1 > v0:
            _sample(rgb, out, u0, v0, *self._taps)
        return out


def _taps(a: int, b: int, s: float, t: float, n: int):
    """Source index and weight of the next one, for canvas pixels a..b-1 along one axis.

    Canvas pixel centre u + 0.5 is frame point s (u + 0.5) + t, i.e. frame pixel
    s (u + 0.5) + t - 0.5 (of n pixels).
    """
    pos = np.clip(s * (np.arange(a, b) + 0.5) + t - 0.5, 0, n - 1)
    idx = np.minimum(np.floor(pos).astype(np.int64), n - 2)
    return idx, np.rint((pos - idx) * 256).astype(np.int64)


@kernel(nogil=True)
def _sample(src, out, u0, v0, xi, xw, yi, yw):
    """out[v0 + j, u0 + i] = src linearly interpolated at (yi[j] + yw[j] / 256,
    xi[i] + xw[i] / 256), in 8-bit fixed point."""
    for j in range(yi.shape[0]):
        y, wy = yi[j], yw[j]
        row0, row1, dst = src[y], src[y + 1], out[v0 + j]
        for i in range(xi.shape[0]):
            x, wx = xi[i], xw[i]
            for c in range(3):
                top = np.int64(row0[x, c]) * (256 - wx) + np.int64(row0[x + 1, c]) * wx
                bot = np.int64(row1[x, c]) * (256 - wx) + np.int64(row1[x + 1, c]) * wx
                dst[u0 + i, c] = (top * (256 - wy) + bot * wy + 32768) >> 16


def _natural_key(name: str):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


def _read_image(path: Path) -> np.ndarray:
    from PIL import Image

    try:
        with Image.open(path) as im:
            return np.asarray(im.convert("RGB"))
    except Exception as exc:  # noqa: BLE001 - any decoder failure is a per-task error
        raise VideoError(f"undecodable image {path.name}: {exc}") from None


def _as_rgb(frame: np.ndarray) -> np.ndarray:
    """Accept (H, W), (H, W, 3) or (H, W, 4) arrays; return (H, W, 3) uint8."""
    a = np.asarray(frame)
    if a.dtype != np.uint8:
        raise VideoError(f"frames must be uint8, got {a.dtype}")
    if a.ndim == 2:
        a = np.repeat(a[:, :, None], 3, axis=2)
    if a.ndim != 3 or a.shape[2] not in (3, 4):
        raise VideoError(f"a frame must be (H, W, 3), got shape {a.shape}")
    return a[:, :, :3]


def _decode_video(path: Path, threads: int):
    """Yield the decoded ``av.VideoFrame`` of the first video stream of ``path``, one at a time."""
    import av

    try:
        container = av.open(str(path))
    except av.error.EOFError:
        raise VideoError(f"video has zero frames: {path.name} ends before any frame") from None
    except Exception as exc:  # noqa: BLE001
        raise VideoError(f"undecodable video {path.name}: {type(exc).__name__}: {exc}") from None
    with container:
        if not container.streams.video:
            raise VideoError(f"video has zero frames: no video stream in {path.name}")
        stream = container.streams.video[0]
        stream.codec_context.thread_count = threads
        declared = stream.frames
        count = 0
        try:
            for frame in container.decode(stream):
                count += 1
                yield frame
        except VideoError:
            raise
        except Exception as exc:  # noqa: BLE001
            raise VideoError(f"truncated or corrupt video {path.name} after {count} frames: "
                             f"{type(exc).__name__}: {exc}") from None
        if declared and count < declared:
            raise VideoError(f"truncated video {path.name}: decoded {count} of {declared} frames")


def _raw_frames(source, threads: int):
    """Return (kind, iterator of raw frames) for any supported source."""
    if isinstance(source, np.ndarray):
        if source.ndim == 4:
            return "array", (source[i] for i in range(source.shape[0]))
        return "image", iter([source])
    if isinstance(source, (list, tuple)):
        return "array", iter(source)
    path = Path(os.fspath(source))
    if not path.exists():
        raise VideoError(f"missing: {path}")
    if path.is_dir():
        files = sorted((p for p in path.iterdir() if p.suffix.lower() in IMAGE_EXTS),
                       key=lambda p: _natural_key(p.name))
        if not files:
            raise VideoError(f"no frame images in folder {path}")
        return "frames", (_read_image(p) for p in files)
    if path.stat().st_size == 0:
        raise VideoError(f"empty file: {path.name}")
    if path.suffix.lower() in IMAGE_EXTS:
        return "image", iter([_read_image(path)])
    return "video", _decode_video(path, threads)


class FrameStream:
    """Stream of canvas-sized frames from a video path, image folder, image or array.

    Parameters
    ----------
    source : path-like, (F, H, W, 3) / (H, W, 3) uint8 array, or list of arrays
        A video file (anything FFmpeg decodes: mp4 H.264/H.265, webm, gif, ...), a folder of
        frame images (natural sort order), a single final image, or frames in memory.
    canvas_size : (W, H)
    threads : int
        Decoder threads per video (1 when joblib parallelises over tasks).
    register : callable, optional
        ``register(first_frame) -> register.Mapping``, called on frame 0 at its own resolution
        (the scorer registers on the task's objects); default: bars cut, the rest stretched
        (:func:`register.bars_mapping`).

    Attributes
    ----------
    kind : str
        ``"video"``, ``"frames"``, ``"image"`` (only a final frame) or ``"array"``.
    mapper : CanvasWarp or None
        Set once the first frame is read.
    """

    def __init__(self, source, canvas_size, threads: int = 1, register=None):
        self.canvas_size = (int(canvas_size[0]), int(canvas_size[1]))
        self.kind, self._raw = _raw_frames(source, threads)
        self.register = register
        self.mapper = None
        self.count = 0

    def _first(self, rgb):
        from .register import bars_mapping

        mapping = (self.register(rgb) if self.register is not None
                   else bars_mapping(rgb, self.canvas_size))
        self.mapper = CanvasWarp(mapping)

    def __iter__(self):
        from av.video.reformatter import VideoReformatter

        # One reformatter per stream keeps its swscale context (a new one per frame is ~10x
        # slower).
        reformatter = VideoReformatter()
        for raw in self._raw:
            if isinstance(raw, np.ndarray) or isinstance(raw, (list, tuple)):
                frame = _as_rgb(raw)
                if self.mapper is None:
                    self._first(frame)
                out = self.mapper.from_array(frame)
            else:
                if self.mapper is None:
                    self._first(reformatter.reformat(raw, format="rgb24").to_ndarray())
                out = self.mapper.from_video_frame(raw, reformatter)
            self.count += 1
            yield out
        if self.count == 0:
            raise VideoError("video has zero frames")
