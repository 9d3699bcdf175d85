"""Frame sources for scoring: stream frames from a video, a folder of images, a single image or
an array, and map every frame onto the task's canvas.

Canvas mapping
--------------
Models emit frames of any size and aspect ratio. :class:`CanvasMapper` looks at the first frame
once and finds the content box:

1. Bars: leading runs of uniform rows/columns at each edge whose colour is not background-white
   are cut (black or coloured letterbox/pillarbox bars, including the blurred grey transition
   row a codec leaves at the bar's edge).
2. White bars cannot be told apart from the canvas's own white margin by colour, so they are cut
   only as far as needed to restore the canvas aspect ratio, split between the two sides, and
   only from uniform white runs.
3. The box is resized to the canvas (Pillow, bilinear with antialiasing when shrinking).

The same box is applied to every frame of the stream (bars do not move within a video).
Frames are decoded one at a time; a video is never held in memory whole.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np

IMAGE_EXTS = (".png", ".jpg", ".jpeg", ".bmp", ".webp", ".tif", ".tiff")
VIDEO_EXTS = (".mp4", ".webm", ".gif", ".mov", ".mkv", ".avi", ".m4v")

#: A row/column is "uniform" when each channel's 2nd..98th percentile spread is at most this.
UNIFORM_SPREAD = 24
#: A uniform run counts as white (possibly canvas background) when its darkest channel is >= this.
WHITE_MIN = 200
#: Never cut more than this fraction of a dimension (guards against all-black fade-in frames).
MAX_CUT_FRACTION = 0.75


class VideoError(Exception):
    """A frame source that cannot be scored; ``str(err)`` is the reason written to the record."""


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


class CanvasMapper:
    """Map frames of one stream onto the canvas: crop the content box, then resize.

    Parameters
    ----------
    reference : (H, W, 3) uint8 array
        First frame of the stream; decides the content box for the whole stream.
    canvas_size : (W, H)
    """

    def __init__(self, reference: np.ndarray, canvas_size: tuple[int, int]):
        self.canvas_size = (int(canvas_size[0]), int(canvas_size[1]))
        self.source_size = (reference.shape[1], reference.shape[0])
        self.box = content_box(reference, self.canvas_size)
        y0, y1, x0, x1 = self.box
        self.identity = (y1 - y0, x1 - x0) == (self.canvas_size[1], self.canvas_size[0])

    def __call__(self, frame: np.ndarray) -> np.ndarray:
        """Return ``frame`` mapped onto the canvas as a (H, W, 3) uint8 array."""
        y0, y1, x0, x1 = self.box
        crop = frame[y0:y1, x0:x1]
        if self.identity:
            return np.ascontiguousarray(crop)
        from PIL import Image

        img = Image.fromarray(np.ascontiguousarray(crop)).resize(self.canvas_size, Image.BILINEAR)
        return np.asarray(img)


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
    """Yield (H, W, 3) uint8 frames of the first video stream of ``path``, one at a time."""
    import av
    from av.video.reformatter import VideoReformatter

    # One reformatter per stream keeps its swscale context: converting each frame through
    # frame.to_ndarray(format="rgb24") builds a new context per frame, ~10x slower.
    reformatter = VideoReformatter()
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
                yield reformatter.reformat(frame, format="rgb24").to_ndarray()
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

    Attributes
    ----------
    kind : str
        ``"video"``, ``"frames"``, ``"image"`` (only a final frame) or ``"array"``.
    mapper : CanvasMapper or None
        Set once the first frame is read.
    """

    def __init__(self, source, canvas_size, threads: int = 1):
        self.canvas_size = (int(canvas_size[0]), int(canvas_size[1]))
        self.kind, self._raw = _raw_frames(source, threads)
        self.mapper = None
        self.count = 0

    def __iter__(self):
        for raw in self._raw:
            frame = _as_rgb(raw)
            if self.mapper is None:
                self.mapper = CanvasMapper(frame, self.canvas_size)
            self.count += 1
            yield self.mapper(frame)
        if self.count == 0:
            raise VideoError("video has zero frames")
