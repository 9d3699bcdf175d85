"""Ground-truth videos: a task's transition (``transitions``) encoded to H.264 in mp4 (PyAV).

The bytes of a video are a function of its pixels and the encoder build only:

- RGB -> yuv420p is done here (:func:`rgb_to_yuv420`: BT.601 limited range, integer
  arithmetic, chroma from the mean of each 2x2 block), not by swscale, whose SIMD paths are not
  promised to be bit-exact with its C code.
- libx264 runs with one thread (:data:`ENCODER`): its frame and slice threading and its
  automatic thread count (cores x 1.5) change the bytes; parallelism comes from processes.
- x264's analysis of intra 4x4 and 8x8 partitions has SSSE3 "all modes at once" kernels that
  decide differently from its C code (measured: bytes differ with ``asm`` masked to SSE2 or off),
  so the settings leave those partitions out; everything else in :data:`ENCODER` gives the same
  bytes with x264's C code and its SSE2, AVX, AVX2 and AVX-512 paths (``tests/test_video.py``).
- The container carries no wall-clock time (mp4 times are 0) and, with ``fflags=+bitexact``, no
  muxer version string. x264's own SEI message (its core version and options) is kept: it
  records how the video was made, and the bytes depend on the x264 build anyway.
- Known exception (``scripts/video_stress.py``): a video of frames with no texture at all (one
  flat colour) sometimes encodes to other bytes while other threads keep the CPU busy; videos
  with content, as every ground-truth video is, were not seen to.

Examples
--------
>>> from objsub_fast import generate_batch
>>> from objsub_fast.video import VideoSpec, encode_transitions
>>> mp4 = encode_transitions(generate_batch([3]), VideoSpec(num_frames=16))[0]
>>> mp4[4:8]
b'ftyp'
"""
from __future__ import annotations

import io
import os
import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ._numba import kernel
from .errors import ParameterError
from .transitions import STYLE_NAMES, check_style, render_transition, task_arrays, \
    transition_frames, transition_updates

#: Every setting that decides a ground-truth video's bytes (besides the pixels and the build).
#: ``x264_params`` is x264's "ultrafast" preset with compression turned back on, except the
#: intra 4x4/8x8 partition analysis (CPU-dependent, see the module docstring).
ENCODER = {
    "container": "mp4",
    "fflags": "+bitexact",
    "codec": "libx264",
    "pix_fmt": "yuv420p",
    "rgb_to_yuv": "BT.601 limited range, integer, 2x2-mean chroma (objsub_fast.video)",
    "color_tags": "smpte170m, tv range",
    "preset": "ultrafast",
    "crf": 18,
    "x264_params": ("cabac=1:deblock=0,0:me=hex:subme=2:8x8dct=1:bframes=3:b-adapt=1:weightb=1:"
                    "weightp=1:aq-mode=1:scenecut=40:rc-lookahead=10:mbtree=1"),
    "threads": 1,
}

#: FFmpeg's codes of the colour tags: BT.601 (SMPTE 170M) matrix, primaries and transfer, and
#: limited ("tv") range, which is what ``rgb_to_yuv420`` writes.
_SMPTE170M, _LIMITED_RANGE = 6, 1
FPS_RANGE = (1, 120)
FRAMES_RANGE = (2, 1000)


@dataclass(frozen=True)
class VideoSpec:
    """What a ground-truth video shows: transition style, frame rate and frame count.

    Examples
    --------
    >>> VideoSpec().validate().settings()["num_frames"]
    61
    """

    style: str = "fade"
    fps: int = 16
    num_frames: int = 61

    def validate(self) -> "VideoSpec":
        """Raise ParameterError naming the first bad field (as its command-line option)."""
        if self.style not in STYLE_NAMES:
            raise ParameterError(f"--video-style must be one of {', '.join(STYLE_NAMES)}, "
                                 f"got {self.style!r}")
        for option, value, (lo, hi) in (("--fps", self.fps, FPS_RANGE),
                                        ("--video-frames", self.num_frames, FRAMES_RANGE)):
            if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
                raise ParameterError(f"{option} must be an integer in [{lo}, {hi}], "
                                     f"got {value!r}")
        return self

    def settings(self) -> dict:
        """The video settings as recorded in a manifest: this spec, :data:`ENCODER` and the
        encoder build (:func:`encoder_build`)."""
        return {"style": self.style, "fps": self.fps, "num_frames": self.num_frames,
                "encoder": dict(ENCODER), "encoder_build": encoder_build()}


def check_canvas(width: int, height: int) -> None:
    """yuv420p needs even sides: raise ParameterError otherwise."""
    if width % 2 or height % 2:
        raise ParameterError(f"videos need an even canvas width and height (yuv420p), "
                             f"got {width}x{height}")


# --------------------------------------------------------------------------- colour conversion

@kernel(nogil=True)
def rgb_to_yuv420(rgb, y_plane, u_plane, v_plane):  # pragma: no cover - compiled
    """BT.601 limited-range Y, U, V of an (H, W, 3) uint8 frame (H, W even) into the planes
    ((H, >=W), (H/2, >=W/2), (H/2, >=W/2) uint8); chroma from each 2x2 block's mean RGB."""
    h, w = rgb.shape[0], rgb.shape[1]
    for r in range(h):
        for c in range(w):
            red, green = np.int32(rgb[r, c, 0]), np.int32(rgb[r, c, 1])
            blue = np.int32(rgb[r, c, 2])
            y_plane[r, c] = ((66 * red + 129 * green + 25 * blue + 128) >> 8) + 16
    for r in range(h // 2):
        for c in range(w // 2):
            red = green = blue = np.int32(0)
            for dr in range(2):
                for dc in range(2):
                    red += rgb[2 * r + dr, 2 * c + dc, 0]
                    green += rgb[2 * r + dr, 2 * c + dc, 1]
                    blue += rgb[2 * r + dr, 2 * c + dc, 2]
            u_plane[r, c] = ((-38 * red - 74 * green + 112 * blue + 512) >> 10) + 128
            v_plane[r, c] = ((112 * red - 94 * green - 18 * blue + 512) >> 10) + 128


# --------------------------------------------------------------------------- encoding

def _open_stream(container, codec: str, fps: int, width: int, height: int, options: dict,
                 pix_fmt: str):
    """Add a single-threaded video stream to an output container."""
    stream = container.add_stream(codec, rate=fps, options=options)
    stream.width, stream.height, stream.pix_fmt = width, height, pix_fmt
    stream.codec_context.thread_count = 1
    return stream


def _mux(container, stream, frame) -> None:
    """Encode ``frame`` (None flushes) and write its packets."""
    for packet in stream.encode(frame):
        container.mux(packet)


class Mp4Encoder:
    """Encode one video of RGB frames into mp4 bytes in memory with :data:`ENCODER`.

    The picture is kept in one reused buffer (only changed rectangles are converted again) and
    handed to the encoder as a new frame each time.
    ``settings`` is :data:`ENCODER` or a variant of it (benchmarks, tests).

    Examples
    --------
    >>> enc = Mp4Encoder(64, 48, fps=16)
    >>> for _ in range(4):
    ...     enc.add(np.full((48, 64, 3), 255, np.uint8))
    >>> enc.finish()[4:8]
    b'ftyp'
    """

    def __init__(self, width: int, height: int, fps: int = 16, settings: dict = ENCODER):
        import av

        check_canvas(width, height)
        self._av = av
        self._buffer = io.BytesIO()
        self._container = av.open(self._buffer, mode="w", format=settings["container"],
                                  options={"fflags": settings["fflags"]})
        options = {"preset": settings["preset"], "crf": str(settings["crf"]),
                   "x264-params": settings["x264_params"]}
        self._stream = _open_stream(self._container, settings["codec"], fps, width, height,
                                    options, settings["pix_fmt"])
        ctx = self._stream.codec_context
        ctx.thread_count = settings["threads"]
        if "thread_type" in settings:  # "SLICE" or "FRAME": only matters with threads != 1
            ctx.thread_type = settings["thread_type"]
        ctx.colorspace = ctx.color_primaries = ctx.color_trc = _SMPTE170M
        ctx.color_range = _LIMITED_RANGE
        # The picture in our own buffer, I420 (Y rows, then U, then V): updated in place and
        # copied into a new frame for every picture, so that nothing writes into a frame that
        # libavcodec may still hold a reference to.
        self._yuv = np.empty((height * 3 // 2, width), np.uint8)
        flat = self._yuv.reshape(-1)
        q = width * height // 4
        self._planes = (self._yuv[:height], flat[4 * q:5 * q].reshape(height // 2, width // 2),
                        flat[5 * q:].reshape(height // 2, width // 2))
        self._shape = (height, width, 3)
        self._count = 0

    def add(self, rgb: np.ndarray, changed=None) -> None:
        """Encode one (H, W, 3) uint8 RGB frame.

        ``changed``, if given, lists the rectangles (y0, y1, x0, x1) outside of which ``rgb``
        equals the previous frame: only those are converted to YUV again.
        """
        if rgb.shape != self._shape or rgb.dtype != np.uint8:
            raise ValueError(f"frames must be {self._shape} uint8, got {rgb.shape} {rgb.dtype}")
        if changed is None or self._count == 0:
            rgb_to_yuv420(rgb, *self._planes)
        else:
            y_plane, u_plane, v_plane = self._planes
            for y0, y1, x0, x1 in changed:  # widened to whole 2x2 chroma blocks
                y0, y1, x0, x1 = y0 - y0 % 2, y1 + y1 % 2, x0 - x0 % 2, x1 + x1 % 2
                rgb_to_yuv420(rgb[y0:y1, x0:x1], y_plane[y0:y1, x0:x1],
                              u_plane[y0 // 2:y1 // 2, x0 // 2:x1 // 2],
                              v_plane[y0 // 2:y1 // 2, x0 // 2:x1 // 2])
        frame = self._av.VideoFrame.from_ndarray(self._yuv, format="yuv420p")
        frame.colorspace, frame.color_range = _SMPTE170M, _LIMITED_RANGE
        frame.pts = self._count
        self._count += 1
        _mux(self._container, self._stream, frame)

    def finish(self) -> bytes:
        """Flush the encoder, close the container and return the mp4 bytes."""
        _mux(self._container, self._stream, None)
        self._container.close()
        return self._buffer.getvalue()


def encode_video(frames, fps: int = 16, settings: dict = ENCODER) -> bytes:
    """H.264 mp4 bytes of ``frames`` ((F, H, W, 3) uint8 RGB or an iterable of (H, W, 3)),
    encoded with ``settings`` (:data:`ENCODER`).

    Examples
    --------
    >>> mp4 = encode_video(np.zeros((3, 32, 32, 3), np.uint8))
    >>> len(list(decode_video(mp4)))
    3
    """
    encoder = None
    for frame in frames:
        if encoder is None:
            encoder = Mp4Encoder(frame.shape[1], frame.shape[0], fps, settings)
        encoder.add(frame)
    if encoder is None:
        raise ValueError("a video needs at least one frame")
    return encoder.finish()


def encode_transitions(batch, spec: VideoSpec = VideoSpec(), tasks=None,
                       settings: dict = ENCODER) -> list[bytes]:
    """Ground-truth videos (mp4 bytes) of an engine batch's tasks.

    Every frame is drawn into one reused buffer and encoded at once, so memory is one frame
    plus the encoder's state, whatever the batch or frame count; from one frame to the next
    only the removed objects' rectangles are redrawn and converted to YUV.

    Parameters
    ----------
    batch : Batch
        From ``generate_batch(..., render=True)``.
    spec : VideoSpec
    tasks : sequence of int, optional
        Task indices (default all).
    settings : dict
        Encoder settings (default :data:`ENCODER`, the one datasets use).

    Returns
    -------
    list of bytes
    """
    spec.validate()
    if batch.first_frames is None:
        raise ParameterError("the batch has no frames; generate it with render=True")
    check_canvas(*batch.canvas_size)
    buffer = np.empty_like(batch.first_frames[0])
    h, w = buffer.shape[:2]
    videos = []
    for i in range(len(batch)) if tasks is None else tasks:
        encoder = Mp4Encoder(w, h, spec.fps, settings)
        for frame, changed in transition_updates(batch.first_frames[i], style=spec.style,
                                                 num_frames=spec.num_frames,
                                                 final=batch.final_frames[i], out=buffer,
                                                 **task_arrays(batch, i)):
            encoder.add(frame, changed)
        videos.append(encoder.finish())
        if w * h >= TRIM_AREA:
            release_free_memory()
    return videos


#: Canvas area from which the heap is given back after every video (``release_free_memory``):
#: x264's buffers for a 1024x1024 video are tens of MB, and glibc kept the freed ones, so a
#: worker's peak RSS crept up from 403 to 469 MB over 10 to 100 tasks (393 MB with the trim at
#: 40 tasks, 453 MB without).
TRIM_AREA = 512 * 512


@lru_cache(maxsize=1)
def _malloc_trim():
    """glibc's ``malloc_trim``, or None on other C libraries."""
    import ctypes
    import ctypes.util

    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


def release_free_memory() -> None:
    """Give freed heap memory back to the system (glibc ``malloc_trim(0)``; else nothing)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


#: Codec tolerance of a decoded ground-truth video against its rendered transition, per video:
#: mean absolute error (levels) and PSNR (dB). 4:2:0 chroma smears single pixels at colour
#: edges (a pixel may be off by 200); measured worst over every rule kind and style at 61
#: frames: mean 0.7, PSNR 31.7 dB.
MAX_MEAN_ERROR = 2.0
MIN_PSNR = 28.0


def decode_video(data: bytes):
    """Yield the RGB frames ((H, W, 3) uint8) of an mp4 held in memory (PyAV)."""
    import av

    with av.open(io.BytesIO(data)) as container:
        for frame in container.decode(video=0):
            yield frame.to_ndarray(format="rgb24")


def decode_errors(data: bytes, batch, i: int, spec: VideoSpec) -> str | None:
    """Why ``data`` is not task ``i``'s ground-truth video within codec tolerance (None if it
    is): frame count and size, then mean error and PSNR against the rendered transition."""
    h, w = batch.first_frames.shape[1:3]
    frames = transition_frames(batch.first_frames[i], style=spec.style,
                               num_frames=spec.num_frames, final=batch.final_frames[i],
                               **task_arrays(batch, i))
    count, total, squares = 0, 0.0, 0.0
    decoded = decode_video(data)
    for want in frames:
        got = next(decoded, None)
        if got is None:
            break
        if got.shape != (h, w, 3):
            return f"frames are {got.shape[1]}x{got.shape[0]}, expected {w}x{h}"
        err = np.abs(got.astype(np.int16) - want)
        total += float(err.sum())
        squares += float(np.square(err, dtype=np.int32).sum())
        count += 1
    count += sum(1 for _ in decoded)
    if count != spec.num_frames:
        return f"{count} frames decoded, expected {spec.num_frames}"
    n = count * h * w * 3
    mean, psnr = total / n, 10 * np.log10(255.0 ** 2 * n / max(squares, 1e-9))
    if mean > MAX_MEAN_ERROR or psnr < MIN_PSNR:
        return (f"differs from the regenerated transition beyond codec tolerance "
                f"(mean error {mean:.2f}, PSNR {psnr:.1f} dB)")
    return None


@lru_cache(maxsize=1)
def encoder_build() -> dict:
    """Versions the video bytes depend on: PyAV, libavcodec, libavformat and x264's core."""
    import av

    mp4 = encode_video(np.zeros((2, 16, 16, 3), np.uint8))
    core = re.search(rb"x264 - core (\d+)", mp4)
    libs = av.library_versions
    return {"av": av.__version__,
            "libavcodec": ".".join(map(str, libs["libavcodec"])),
            "libavformat": ".".join(map(str, libs["libavformat"])),
            "x264_core": int(core.group(1)) if core else None}


# --------------------------------------------------------------------------- any video file

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


#: Encoder options by codec name (PyAV stream options) of :func:`write_video`.
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
    """Encode ``frames`` (iterable of (H, W, 3) uint8) to a video file with PyAV, like a
    model's output (for the scorer's tests and benchmarks; ground truth uses
    :func:`encode_video`).

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
                stream = _open_stream(container, codec, fps, frame.shape[1], frame.shape[0],
                                      CODEC_OPTIONS.get(codec, {}),
                                      "pal8" if codec == "gif" else "yuv420p")
            if codec == "gif":
                vf = av.VideoFrame.from_ndarray(_palettized(frame), format="pal8")
            else:
                vf = av.VideoFrame.from_ndarray(np.ascontiguousarray(frame), format="rgb24")
            _mux(container, stream, vf)
        if stream is not None:
            _mux(container, stream, None)
    return path


def write_transition(batch, i: int, path, style: str = "fade", num_frames: int = 32,
                     fps: int = 16, **kwargs) -> str:
    """Write task ``i``'s ground-truth transition to a video file (its codec follows the
    extension: ``codec_for``).

    Extra keyword arguments go to :func:`write_video` (codec, out_size, bar_rgb).
    """
    check_style(style)
    frames = render_transition(batch, style=style, num_frames=num_frames, tasks=[i])[0]
    return write_video(path, frames, fps=fps, **kwargs)
