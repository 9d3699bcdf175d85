"""Writing video files like a model's output (any codec PyAV has: x264, x265, VP9, GIF), for
the scorer's tests and benchmarks and ``write_transition`` to a non-mp4 path; ground truth is
``video.encode_video``'s.

Examples
--------
>>> letterbox(np.zeros((2, 4, 3), np.uint8), (4, 4))[:, 0, 0].tolist()
[0, 0, 0, 0]
"""
from __future__ import annotations

import os

import numpy as np

from ..runtime.errors import ParameterError
from .x264 import mux, open_stream

__all__ = ["letterbox", "CODEC_OPTIONS", "CODEC_BY_EXTENSION", "codec_for", "write_video"]


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
                stream = open_stream(container, codec, fps, frame.shape[1], frame.shape[0],
                                      {**CODEC_OPTIONS.get(codec, {}), **(options or {})},
                                      "pal8" if codec == "gif" else "yuv420p")
            if codec == "gif":
                vf = av.VideoFrame.from_ndarray(_palettized(frame), format="pal8")
            else:
                vf = av.VideoFrame.from_ndarray(np.ascontiguousarray(frame), format="rgb24")
            mux(container, stream, vf)
        if stream is not None:
            mux(container, stream, None)
    return path
