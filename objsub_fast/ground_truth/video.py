"""Ground-truth videos: a task's transition (``transitions``) encoded to H.264 in mp4.

Two encoders (``VideoSpec.encoder``, ``ENCODERS``):

- ``"objsub"`` (the default): this project's own H.264 encoder (``objsub_fast.ground_truth.h264``) and MP4
  muxer (``objsub_fast.ground_truth.h264.mp4``). It is told which rectangles changed from one frame to the
  next, and a video's bytes are a function of its pixels and this project's code only
  (``docs/video_encoder.md``).
- ``"x264"``: libx264 through PyAV (FFmpeg's mp4 muxer), as datasets made before the own
  encoder were; kept so that they still verify, and as the benchmark's reference.

Both share the colour conversion. With x264, the bytes of a video are a function of its pixels
and the encoder build only:

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
>>> from objsub_fast.ground_truth.video import VideoSpec, encode_transitions
>>> batch = generate_batch([3])
>>> [encode_transitions(batch, VideoSpec(num_frames=16, encoder=name))[0][4:8]
...  for name in ENCODERS]
[b'ftyp', b'ftyp']
"""
from __future__ import annotations

import io
import os
import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .._moved import renamed
from ..runtime.errors import ParameterError
from .yuv import convert_rects, rgb_to_yuv420, rgb_to_yuv420_rect, widened  # noqa: F401
from .transitions import (STYLE_NAMES, check_style, draw_steps, render_transition, plan_transition,
                          task_arrays, transition_frames)

#: Every setting that decides a ground-truth video's bytes (besides the pixels and the build).
#: ``x264_params`` is x264's "ultrafast" preset with compression turned back on, except the
#: intra 4x4/8x8 partition analysis (CPU-dependent, see the module docstring).
ENCODER = {
    "container": "mp4",
    "fflags": "+bitexact",
    "codec": "libx264",
    "pix_fmt": "yuv420p",
    "rgb_to_yuv": "BT.601 limited range, integer, 2x2-mean chroma (objsub_fast.ground_truth.video)",
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
#: The ground-truth video encoders (``VideoSpec.encoder``); the first is the default.
ENCODERS = ("objsub", "x264")
#: The ``colr``/VUI codes and conversion every objsub video carries (recorded with its settings).
OBJSUB_CONTAINER = {
    "container": "mp4 (objsub_fast.ground_truth.h264.mp4)",
    "rgb_to_yuv": ENCODER["rgb_to_yuv"],
    "color_tags": ENCODER["color_tags"],
}
#: The objsub encoder's settings per look (``vocabulary.LOOKS``), as changes to the defaults
#: of ``EncoderSettings``: the flat look's outlined flat shapes keep them; the solid look's
#: shading and anti-aliased edges cost more at the same QPs, so its IDR and P pictures are
#: quantised finer (chosen by ``benchmarks/bench_video.py --solid-only``:
#: ``docs/video_encoder.md``). x264 has one setting for every look (:data:`ENCODER`).
OBJSUB_LOOK_SETTINGS = {
    "flat": {},
    "solid": {"qp_i": 18, "qp_p": 27},
}


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
    encoder: str = ENCODERS[0]

    def validate(self) -> "VideoSpec":
        """Raise ParameterError naming the first bad field (as its command-line option)."""
        for option, value, allowed in (("--video-style", self.style, STYLE_NAMES),
                                       ("--video-encoder", self.encoder, ENCODERS)):
            if value not in allowed:
                raise ParameterError(f"{option} must be one of {', '.join(allowed)}, "
                                     f"got {value!r}")
        for option, value, (lo, hi) in (("--fps", self.fps, FPS_RANGE),
                                        ("--video-frames", self.num_frames, FRAMES_RANGE)):
            if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
                raise ParameterError(f"{option} must be an integer in [{lo}, {hi}], "
                                     f"got {value!r}")
        return self

    def settings(self, look: str = "flat") -> dict:
        """The video settings as recorded in a manifest: this spec, the encoder's settings
        for the frames' ``look`` (:func:`encoder_settings`) and its build
        (:func:`encoder_build`)."""
        return {"style": self.style, "fps": self.fps, "num_frames": self.num_frames,
                "encoder_name": self.encoder, "encoder": encoder_settings(self.encoder, look),
                "encoder_build": encoder_build(self.encoder)}


def look_settings(name: str = ENCODERS[0], look: str = "flat"):
    """The settings the encoder ``name`` encodes videos of the ``look`` with (what
    ``encode_transitions`` uses by default): :data:`ENCODER` for x264; for objsub, an
    ``EncoderSettings`` with the look's changes (:data:`OBJSUB_LOOK_SETTINGS`).

    Examples
    --------
    >>> look_settings("objsub", "flat") == look_settings("objsub")
    True
    >>> look_settings("objsub", "solid").qp_p < look_settings("objsub", "flat").qp_p
    True
    """
    if name == "x264":
        return ENCODER
    from .h264.encoder import EncoderSettings

    return EncoderSettings(**OBJSUB_LOOK_SETTINGS[look])


def encoder_settings(name: str = ENCODERS[0], look: str = "flat") -> dict:
    """Every setting that decides the bytes of the encoder ``name``'s videos of the ``look``,
    as JSON: :data:`ENCODER` for x264; for objsub, :data:`OBJSUB_CONTAINER` and the H.264
    encoder's ``look_settings(name, look).as_dict()`` under ``"h264"``.

    Examples
    --------
    >>> encoder_settings("x264")["codec"], sorted(encoder_settings("objsub"))[:2]
    ('libx264', ['color_tags', 'container'])
    >>> encoder_settings("x264", "solid") == encoder_settings("x264")
    True
    """
    if name == "x264":
        return dict(ENCODER)
    return {**OBJSUB_CONTAINER, "h264": look_settings(name, look).as_dict()}


def check_even_canvas(width: int, height: int) -> None:
    """yuv420p needs even sides: raise ParameterError otherwise (the canvas's range is
    ``task.config.check_canvas``'s)."""
    if width % 2 or height % 2:
        raise ParameterError(f"videos need an even canvas width and height (yuv420p), "
                             f"got {width}x{height}")


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


class YuvPicture:
    """The current picture in I420 (Y rows, then U, then V) in one buffer, updated from RGB
    frames: only the changed rectangles (widened to whole 2x2 chroma blocks) are converted
    again.

    Examples
    --------
    >>> picture = YuvPicture(4, 2)
    >>> picture.update(np.full((2, 4, 3), 255, np.uint8))
    >>> int(picture.planes[0][0, 0]), int(picture.planes[1][0, 0])
    (235, 128)
    """

    def __init__(self, width: int, height: int):
        check_even_canvas(width, height)
        self.yuv = np.empty((height * 3 // 2, width), np.uint8)
        flat = self.yuv.reshape(-1)
        q = width * height // 4
        self.planes = (self.yuv[:height], flat[4 * q:5 * q].reshape(height // 2, width // 2),
                       flat[5 * q:].reshape(height // 2, width // 2))
        self._shape = (height, width, 3)
        self.count = 0

    def update(self, rgb: np.ndarray, changed=None):
        """Convert frame ``rgb``: all of it for the first frame or when ``changed`` is None,
        else only the rectangles (y0, y1, x0, x1) ``changed`` lists. Returns the rectangles
        of the planes that changed (widened to even bounds; None: all of them)."""
        if rgb.shape != self._shape or rgb.dtype != np.uint8:
            raise ValueError(f"frames must be {self._shape} uint8, got {rgb.shape} {rgb.dtype}")
        self.count += 1
        rgb = np.ascontiguousarray(rgb)   # the kernels read rows as flat bytes
        if changed is None or self.count == 1:
            rgb_to_yuv420(rgb, *self.planes)
            return None
        convert_rects(rgb, *self.planes, np.array(changed, np.int64).reshape(-1, 4))
        return widened(changed)


#: ``ObjsubEncoder.add_transition``'s output buffer, in worst-case pictures (at least 1).
OUTPUT_PICTURES = 2


class ObjsubEncoder:
    """Encode one video of RGB frames into mp4 bytes in memory with this project's own H.264
    encoder (``objsub_fast.ground_truth.h264``) and MP4 muxer; the same surface as :class:`Mp4Encoder`.

    The encoder is told which rectangles changed (``add(rgb, changed)``), so it skips every
    macroblock outside them without looking at its pixels.
    ``settings`` is an ``objsub_fast.ground_truth.h264.encoder.EncoderSettings`` (default: its defaults).

    Examples
    --------
    >>> enc = ObjsubEncoder(64, 48, fps=16)
    >>> for _ in range(4):
    ...     enc.add(np.full((48, 64, 3), 255, np.uint8), changed=[])
    >>> enc.finish()[4:8]
    b'ftyp'
    """

    def __init__(self, width: int, height: int, fps: int = 16, settings=None):
        from .h264.encoder import EncoderSettings, H264Encoder
        from .h264.mp4 import Mp4Muxer

        self._picture = YuvPicture(width, height)
        self._encoder = enc = H264Encoder(width, height,
                                          EncoderSettings() if settings is None else settings,
                                          fps=fps)
        self._new_muxer = lambda: Mp4Muxer(width, height, fps, enc.sps, enc.pps, enc.profile_idc,
                                           enc.constraint_flags, enc.level_idc)
        self._muxer = self._new_muxer()

    def restart(self) -> None:
        """Begin a new video, keeping the encoder's buffers (a 1024x1024 encoder's take longer
        to set up than a small video to encode)."""
        self._encoder.restart()
        self._muxer = self._new_muxer()
        self._picture.count = 0

    def add(self, rgb: np.ndarray, changed=None, motion=None) -> None:
        """Encode one (H, W, 3) uint8 RGB frame; ``changed`` as in :meth:`Mp4Encoder.add`;
        ``motion`` as in ``H264Encoder.encode`` (what moved, if the caller knows)."""
        widened = self._picture.update(rgb, changed)
        nals = self._encoder.encode(*self._picture.planes, changed=widened, motion=motion)
        self._muxer.add(nals, self._encoder.is_keyframe)

    def add_transition(self, plan, first: np.ndarray, final: np.ndarray, rgb=None) -> None:
        """Encode the frames of a transition (``transitions.plan_transition``) from ``first``
        to ``final``, all in one compiled call (``transition_video``): the same bytes as
        adding the frames ``transitions.draw_steps(plan.steps(), ...)`` yields, faster.
        ``rgb``: an (H, W, 3) uint8 buffer to draw in (default a new one)."""
        from .transition_video import encode_steps, pack_plan

        enc = self._encoder
        if first.shape != self._picture._shape or final.shape != first.shape:
            raise ValueError(f"frames must be {self._picture._shape} uint8, got "
                             f"{first.shape} and {final.shape}")
        packed = pack_plan(plan)
        frames = len(packed.start)
        rgb = np.empty_like(first) if rgb is None else rgb
        sizes = np.zeros(frames, np.int64)
        out = self._output()
        done = 0
        while done < frames:
            count = encode_steps(packed, done, first, final, rgb, *enc.planes(),
                                 enc.frame_index, enc.quantisers(True), enc.quantisers(False),
                                 enc.state(), out, sizes)
            pos = 0
            for f in range(done, done + count):
                self._muxer.add([out[pos:pos + sizes[f]].tobytes()], enc.frame_index == 0)
                pos += sizes[f]
                enc.frame_index += 1
            done += count
        enc.is_keyframe = enc.frame_index == 1
        self._picture.count = 0    # the next add() converts a whole frame

    def _output(self) -> np.ndarray:
        """The buffer ``add_transition`` writes NAL units into: room for OUTPUT_PICTURES
        escaped pictures of the worst case (about 7 MB each at 1024x1024; only the pages
        written are ever touched), kept from one video to the next."""
        size = OUTPUT_PICTURES * (self._encoder.picture_bound * 3 // 2 + 2)
        if getattr(self, "_out", None) is None or self._out.shape[0] != size:
            self._out = np.empty(size, np.uint8)
        return self._out

    def reconstruction(self):
        """The decoder-side (y, u, v) planes of the last picture (the encoder's reference)."""
        return self._encoder.reconstruction()

    def finish(self) -> bytes:
        """The mp4 bytes."""
        return self._muxer.finish()


class Mp4Encoder:
    """Encode one video of RGB frames into mp4 bytes in memory with libx264 and
    :data:`ENCODER` (PyAV).

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

    def __init__(self, width: int, height: int, fps: int = 16, settings: dict | None = None):
        import av

        self._args = (width, height, fps, settings)
        settings = ENCODER if settings is None else settings
        self._picture = YuvPicture(width, height)
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

    def restart(self) -> None:
        """Begin a new video (a new libx264 encoder and container)."""
        self.__init__(*self._args)

    def add_transition(self, plan, first: np.ndarray, final: np.ndarray, rgb=None) -> None:
        """Encode the frames of a transition (``transitions.plan_transition``) from ``first``
        to ``final`` (``transitions.draw_steps``, drawn into ``rgb``), one at a time."""
        for frame, step in draw_steps(plan.steps(), first, final, rgb):
            self.add(frame, step.changed)

    def add(self, rgb: np.ndarray, changed=None) -> None:
        """Encode one (H, W, 3) uint8 RGB frame.

        ``changed``, if given, lists the rectangles (y0, y1, x0, x1) outside of which ``rgb``
        equals the previous frame: only those are converted to YUV again.
        """
        self._picture.update(rgb, changed)
        # copied into a new frame for every picture, so that nothing writes into a frame that
        # libavcodec may still hold a reference to
        frame = self._av.VideoFrame.from_ndarray(self._picture.yuv, format="yuv420p")
        frame.colorspace, frame.color_range = _SMPTE170M, _LIMITED_RANGE
        frame.pts = self._picture.count - 1
        _mux(self._container, self._stream, frame)

    def finish(self) -> bytes:
        """Flush the encoder, close the container and return the mp4 bytes."""
        _mux(self._container, self._stream, None)
        self._container.close()
        return self._buffer.getvalue()


#: The mp4 encoder class of each ``VideoSpec.encoder``.
MP4_ENCODERS = {"objsub": ObjsubEncoder, "x264": Mp4Encoder}


def encode_video(frames, fps: int = 16, settings=None, encoder: str = ENCODERS[0]) -> bytes:
    """H.264 mp4 bytes of ``frames`` ((F, H, W, 3) uint8 RGB or an iterable of (H, W, 3)),
    encoded by ``encoder`` (``ENCODERS``) with ``settings`` (None: the encoder's defaults).

    Examples
    --------
    >>> mp4 = encode_video(np.zeros((3, 32, 32, 3), np.uint8))
    >>> len(list(decode_video(mp4)))
    3
    """
    mp4 = None
    for frame in frames:
        if mp4 is None:
            mp4 = MP4_ENCODERS[encoder](frame.shape[1], frame.shape[0], fps, settings)
        mp4.add(frame)
    if mp4 is None:
        raise ValueError("a video needs at least one frame")
    return mp4.finish()


def encode_transitions(batch, spec: VideoSpec = VideoSpec(), tasks=None,
                       settings=None) -> list[bytes]:
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
    settings : dict or EncoderSettings, optional
        Settings of ``spec.encoder`` (default: the ones datasets use for the batch's look,
        :func:`look_settings`).

    Returns
    -------
    list of bytes
    """
    spec.validate()
    if batch.first_frames is None:
        raise ParameterError("the batch has no frames; generate it with render=True")
    check_even_canvas(*batch.canvas_size)
    buffer = np.empty_like(batch.first_frames[0])
    h, w = buffer.shape[:2]
    if settings is None:
        settings = look_settings(spec.encoder, batch.config.look)
    videos, encoder = [], None
    for i in range(len(batch)) if tasks is None else tasks:
        if encoder is None:
            encoder = MP4_ENCODERS[spec.encoder](w, h, spec.fps, settings)
        else:
            encoder.restart()
        first = batch.first_frames[i]
        encoder.add_transition(plan_transition(first, style=spec.style,
                                               num_frames=spec.num_frames,
                                               **task_arrays(batch, i)),
                               first, batch.final_frames[i], buffer)
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


@lru_cache(maxsize=None)
def encoder_build(name: str = ENCODERS[0]) -> dict:
    """What the video bytes depend on besides the pixels and :func:`encoder_settings`.

    objsub: this project's code only, named by the generator version of objsub videos (every
    change to their bytes bumps it). x264: PyAV, libavcodec, libavformat and x264's core.
    """
    if name == "objsub":
        from .._version import OBJSUB_VIDEOS

        return {"encoder": "objsub_fast.ground_truth.h264", "generator_version": OBJSUB_VIDEOS}
    import av

    mp4 = encode_video(np.zeros((2, 16, 16, 3), np.uint8), encoder="x264")
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
                bar_rgb=(0, 0, 0), options=None) -> str:
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
    options : dict, optional
        Encoder options over the codec's defaults (``CODEC_OPTIONS``), e.g. ``{"crf": "48"}``
        for the heavy block artefacts of a very low bitrate.

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
                                      {**CODEC_OPTIONS.get(codec, {}), **(options or {})},
                                      "pal8" if codec == "gif" else "yuv420p")
            if codec == "gif":
                vf = av.VideoFrame.from_ndarray(_palettized(frame), format="pal8")
            else:
                vf = av.VideoFrame.from_ndarray(np.ascontiguousarray(frame), format="rgb24")
            _mux(container, stream, vf)
        if stream is not None:
            _mux(container, stream, None)
    return path


#: Extensions :func:`write_transition` writes the dataset's own mp4 bytes to (ISO BMFF files).
GROUND_TRUTH_EXTENSIONS = (".mp4", ".m4v")


def write_transition(batch, i: int, path, style: str = "fade", num_frames: int = 61,
                     fps: int = 16, encoder: str = ENCODERS[0], **kwargs) -> str:
    """Write task ``i``'s ground-truth transition video to a file.

    With the defaults this is the video a dataset stores for the task (``generate --videos``:
    the own H.264 encoder, 61 frames at 16 fps, the fade), byte for byte:
    ``encode_transitions(batch, VideoSpec(style, fps, num_frames, encoder), tasks=[i])[0]``.
    ``encoder="x264"`` writes the video of a dataset made with ``--video-encoder x264``.

    A path that does not end in .mp4 or .m4v, or any of :func:`write_video`'s keyword
    arguments (``codec``, ``out_size``, ``bar_rgb``), writes the frames with
    :func:`write_video` instead, like a model's output (the codec follows the extension:
    :func:`codec_for`); ``encoder`` then plays no part.

    Examples
    --------
    >>> import os, tempfile
    >>> from objsub_fast import generate_batch
    >>> batch = generate_batch([3])
    >>> path = write_transition(batch, 0, os.path.join(tempfile.mkdtemp(), "task.mp4"))
    >>> open(path, "rb").read() == encode_transitions(batch, tasks=[0])[0]
    True
    """
    check_style(style)
    path = os.fspath(path)
    if kwargs or not path.lower().endswith(GROUND_TRUTH_EXTENSIONS):
        if kwargs.get("codec") is None:
            codec_for(path)   # an extension without a codec is refused before any work
        frames = render_transition(batch, style=style, num_frames=num_frames, tasks=[i])[0]
        return write_video(path, frames, fps=fps, **kwargs)
    spec = VideoSpec(style, fps, num_frames, encoder)
    video = encode_transitions(batch, spec, tasks=[i])[0]
    with open(path, "wb") as out:
        out.write(video)
    return path


#: ``check_canvas`` was this module's name of :func:`check_even_canvas` (until issue #48).
__getattr__ = renamed(__name__, {"check_canvas": f"{__name__}.check_even_canvas"})
