"""The x264 path of ground-truth videos: libx264 through PyAV (FFmpeg's mp4 muxer), as
datasets made before the own encoder were (``--video-encoder x264``); kept so that they
still verify, and as the benchmarks' reference. Also the PyAV stream helpers that
``model_output.write_video`` shares.

Both encoders share the colour conversion. With x264, the bytes of a video are a function of
its pixels and the encoder build only:

- RGB -> yuv420p is done by ``yuv.YuvPicture`` (``yuv.rgb_to_yuv420``: BT.601 limited range,
  integer arithmetic, chroma from the mean of each 2x2 block), not by swscale, whose SIMD paths
  are not promised to be bit-exact with its C code.
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
>>> enc = Mp4Encoder(32, 32)
>>> enc.add(np.zeros((32, 32, 3), np.uint8))
>>> enc.finish()[4:8]
b'ftyp'
"""
from __future__ import annotations

import io
import re

import numpy as np

from .transitions import draw_steps
from .yuv import YuvPicture

__all__ = ["ENCODER", "Mp4Encoder", "open_stream", "mux", "x264_build"]

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


def open_stream(container, codec: str, fps: int, width: int, height: int, options: dict,
                 pix_fmt: str):
    """Add a single-threaded video stream to an output container."""
    stream = container.add_stream(codec, rate=fps, options=options)
    stream.width, stream.height, stream.pix_fmt = width, height, pix_fmt
    stream.codec_context.thread_count = 1
    return stream


def mux(container, stream, frame) -> None:
    """Encode ``frame`` (None flushes) and write its packets."""
    for packet in stream.encode(frame):
        container.mux(packet)


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
        self._stream = open_stream(self._container, settings["codec"], fps, width, height,
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
        mux(self._container, self._stream, frame)

    def finish(self) -> bytes:
        """Flush the encoder, close the container and return the mp4 bytes."""
        mux(self._container, self._stream, None)
        self._container.close()
        return self._buffer.getvalue()


def x264_build() -> dict:
    """What x264 videos' bytes depend on besides the pixels and :data:`ENCODER`: PyAV,
    libavcodec, libavformat and x264's core (read from the SEI of a tiny video)."""
    import av

    tiny = Mp4Encoder(16, 16)
    for frame in np.zeros((2, 16, 16, 3), np.uint8):
        tiny.add(frame)
    core = re.search(rb"x264 - core (\d+)", tiny.finish())
    libs = av.library_versions
    return {"av": av.__version__,
            "libavcodec": ".".join(map(str, libs["libavcodec"])),
            "libavformat": ".".join(map(str, libs["libavformat"])),
            "x264_core": int(core.group(1)) if core else None}
