"""Ground-truth videos: a task's transition (``transitions``) encoded to H.264 in mp4.

Two encoders (``VideoSpec.encoder``, ``ENCODERS``):

- ``"objsub"`` (the default): this project's own H.264 encoder (``ground_truth.h264``) and
  MP4 muxer (``ground_truth.h264.mp4``), driven by ``objsub_encoder``. It is told which
  rectangles changed from one frame to the next, and a video's bytes are a function of its
  pixels and this project's code only (``docs/video_encoder.md``).
- ``"x264"``: libx264 through PyAV (FFmpeg's mp4 muxer), as datasets made before the own
  encoder were; kept so that they still verify, and as the benchmark's reference.

The x264 path's determinism (one thread, partitions left out, bit-exact muxing) is described
in ``x264``. This module drives both: :func:`encode_transitions` (a batch's videos),
:func:`encode_video`, :func:`write_transition`, and the tolerance check of ``verify``
(:func:`decode_errors`). The parts live by job: the spec and settings in ``spec``, the own
encoder's driver in ``objsub_encoder``, the x264 path in ``x264``, the picture in YUV in
``yuv``, files written like a model's output in ``model_output``; their public names are
importable from here as before.

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
from functools import lru_cache

import numpy as np

from .._moved import renamed
from ..runtime.errors import ParameterError
from .model_output import (CODEC_BY_EXTENSION, CODEC_OPTIONS, codec_for,  # noqa: F401
                           letterbox, write_video)
from .objsub_encoder import OUTPUT_PICTURES, ObjsubEncoder  # noqa: F401
from .spec import (ENCODERS, FPS_RANGE, FRAMES_RANGE, OBJSUB_CONTAINER,  # noqa: F401
                   OBJSUB_LOOK_SETTINGS, VideoSpec, encoder_build, encoder_settings,
                   look_settings)
from .transitions import (STYLE_NAMES, check_style, draw_steps, render_transition,  # noqa: F401
                          plan_transition, task_arrays, transition_frames)
from .x264 import ENCODER, Mp4Encoder  # noqa: F401
from .yuv import (YuvPicture, check_even_canvas, convert_rects, rgb_to_yuv420,  # noqa: F401
                  rgb_to_yuv420_rect, widened)


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
