"""What real image-to-video models return, made from canvas frames: the shapes and cameras the
scorer must see through (used by the tests and ``benchmarks/bench_score.py``).

Every function takes canvas frames (F, H, W, 3) uint8 and returns the model-like frames.

==================  ===========================================================================
output              frames
==================  ===========================================================================
letterboxed         scaled to fit the output size, centred on bars (``transitions.letterbox``)
centre_cropped      scaled to cover the output size, the middle cut out (16:9 or portrait)
stretched           resized to the output size, aspect not kept
push_in             the camera zooms in linearly to ``1 + zoom`` about the centre
panned              the camera pans linearly to (dx, dy) canvas px (white comes in)
jittered            the camera shakes by up to ``px`` canvas px per frame (seeded)
blurred             Gaussian blur of ``sigma`` canvas px
grainy              independent Gaussian noise of ``sigma`` per pixel and frame (seeded): the
                    texture that makes generated video cost more to encode and decode
==================  ===========================================================================

:data:`OUTPUT_SHAPES` names the four output shapes of the benchmark's controls, and
:func:`visible_window` the part of the canvas each one shows.
"""
from __future__ import annotations

import numpy as np

from ..ground_truth.video import letterbox

__all__ = ["OUTPUT_SHAPES", "centre_cropped", "stretched", "push_in", "panned", "jittered",
           "blurred", "grainy", "letterboxed", "visible_window", "reshape"]


def _resize(frame, size, box=None):
    from PIL import Image

    return np.asarray(Image.fromarray(frame).resize(tuple(size), Image.BILINEAR, box=box))


def letterboxed(frames, out_size, bar_rgb=(0, 0, 0)) -> np.ndarray:
    """Fit into ``out_size`` (W, H) on bars of ``bar_rgb``."""
    return np.stack([letterbox(f, out_size, bar_rgb) for f in frames])


def centre_cropped(frames, out_size) -> np.ndarray:
    """Scale to cover ``out_size`` (W, H) and keep its middle."""
    h, w = frames.shape[1:3]
    ow, oh = out_size
    scale = max(ow / w, oh / h)
    bw, bh = ow / scale, oh / scale
    box = ((w - bw) / 2, (h - bh) / 2, (w + bw) / 2, (h + bh) / 2)
    return np.stack([_resize(f, out_size, box) for f in frames])


def stretched(frames, out_size) -> np.ndarray:
    """Resize to ``out_size`` (W, H), aspect not kept."""
    return np.stack([_resize(f, out_size) for f in frames])


def _camera(frames, zooms, shifts) -> np.ndarray:
    """Frame f seen by a camera of zoom ``zooms[f]`` about the centre, panned by ``shifts[f]``
    (the content moves by +shift canvas px); outside the canvas is white."""
    h, w = frames.shape[1:3]
    out = np.empty_like(frames)
    for f, (z, (dx, dy)) in enumerate(zip(zooms, shifts)):
        bw, bh = w / z, h / z
        x0, y0 = (w - bw) / 2 - dx / z, (h - bh) / 2 - dy / z
        padded = np.pad(frames[f], ((h, h), (w, w), (0, 0)), constant_values=255)
        out[f] = _resize(padded, (w, h), (x0 + w, y0 + h, x0 + w + bw, y0 + h + bh))
    return out


def push_in(frames, zoom: float = 0.04) -> np.ndarray:
    """The camera zooms in linearly from 1 to ``1 + zoom`` over the video."""
    n = len(frames)
    return _camera(frames, 1 + zoom * np.linspace(0, 1, n), np.zeros((n, 2)))


def panned(frames, shift=(6.0, -4.0)) -> np.ndarray:
    """The camera pans linearly so the content ends ``shift`` (dx, dy) canvas px away."""
    n = len(frames)
    return _camera(frames, np.ones(n), np.linspace(0, 1, n)[:, None] * np.asarray(shift, float))


def jittered(frames, px: float = 1.0, seed: int = 0) -> np.ndarray:
    """The camera shakes: every frame but the first moves by up to ``px`` canvas px."""
    rng = np.random.default_rng(seed)
    shifts = rng.uniform(-px, px, (len(frames), 2))
    shifts[0] = 0
    return _camera(frames, np.ones(len(frames)), shifts)


def blurred(frames, sigma: float = 1.5) -> np.ndarray:
    """Gaussian blur of ``sigma`` canvas px (a soft model output)."""
    from PIL import Image, ImageFilter

    return np.stack([np.asarray(Image.fromarray(f).filter(ImageFilter.GaussianBlur(sigma)))
                     for f in frames])


def grainy(frames, sigma: float = 3.0, seed: int = 0) -> np.ndarray:
    """Independent Gaussian noise of ``sigma`` (of 255) on every pixel of every frame."""
    rng = np.random.default_rng(seed)
    out = np.empty_like(frames)
    for f, frame in enumerate(frames):
        noise = rng.normal(0.0, sigma, frame.shape)
        out[f] = np.clip(frame + noise, 0, 255).astype(np.uint8)
    return out


#: A cool white balance with a little more contrast and brightness: white becomes about
#: (230, 236, 243).
COOL_TONE = {"gain": (0.875, 0.9, 0.925), "contrast": 1.05, "brightness": 2.0}


def toned(frames, gain=(1.0, 1.0, 1.0), contrast: float = 1.0, brightness: float = 0.0):
    """The whole picture in another tone, as a model's camera renders it: each channel times
    ``gain``, then contrast about mid-grey, then ``brightness`` added (levels); each may be one
    value or one per frame (a drifting tone).

    Examples
    --------
    >>> white = np.full((1, 1, 1, 3), 255, np.uint8)
    >>> toned(white, **COOL_TONE)[0, 0, 0].tolist()
    [230, 237, 243]
    >>> toned(white, gain=0.92)[0, 0, 0].tolist()            # 8% darker
    [235, 235, 235]
    """
    shape = (-1, 1, 1, 1)
    g = np.broadcast_to(np.asarray(gain, float), (len(frames), 3)) if np.ndim(gain) == 2 \
        else np.broadcast_to(np.asarray(gain, float), (3,))[None]
    c = np.asarray(contrast, float).reshape(shape) if np.ndim(contrast) else float(contrast)
    b = np.asarray(brightness, float).reshape(shape) if np.ndim(brightness) else \
        float(brightness)
    out = (frames * g[:, None, None, :] - 128.0) * c + 128.0 + b
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)


#: How :func:`recoloured` changes an object's pixels by ``amount``: darker (each channel
#: times 1 - amount), lighter (each channel that fraction of the way to white), desaturated
#: (each channel that fraction of the way to the pixel's grey).
RECOLOURS = {
    "darker": lambda p, a: p * (1 - a),
    "lighter": lambda p, a: p + a * (255.0 - p),
    "desaturated": lambda p, a: p + a * ((p @ np.array([0.299, 0.587, 0.114]))[..., None] - p),
}


def recoloured(frames, mask, start: int, change: str, amount: float) -> np.ndarray:
    """``frames`` with the pixels of ``mask`` (H, W) bool changed from frame ``start`` on by
    :data:`RECOLOURS` ``[change]`` of ``amount`` (one object turning 20% darker, say).

    Examples
    --------
    >>> frames = np.full((2, 2, 2, 3), 200, np.uint8)
    >>> mask = np.array([[True, False], [False, False]])
    >>> recoloured(frames, mask, 1, "darker", 0.25)[:, 0, 0, 0].tolist()
    [200, 150]
    """
    out = frames.copy()
    part = out[start:, mask].astype(float)
    out[start:, mask] = np.clip(np.rint(RECOLOURS[change](part, amount)), 0, 255)
    return out


#: name -> (function, keyword arguments): the output shapes of the benchmark's controls.
OUTPUT_SHAPES = {
    "256x256": (None, {}),
    "1280x720 letterboxed": (letterboxed, {"out_size": (1280, 720)}),
    "1280x720 centre-cropped": (centre_cropped, {"out_size": (1280, 720)}),
    "832x480 stretched": (stretched, {"out_size": (832, 480)}),
    "256x256 4% push-in": (push_in, {"zoom": 0.04}),
}


def reshape(frames, name: str) -> np.ndarray:
    """``frames`` as output shape ``name`` of :data:`OUTPUT_SHAPES`."""
    fn, kwargs = OUTPUT_SHAPES[name]
    return frames if fn is None else fn(frames, **kwargs)


def visible_window(name: str, canvas_size) -> tuple[int, int, int, int]:
    """The canvas part (x0, x1, y0, y1) output shape ``name`` shows (objects inside it can be
    judged; a crop cuts the rest off). A push-in keeps a margin of what it zooms past."""
    w, h = canvas_size
    fn, kwargs = OUTPUT_SHAPES[name]
    if fn is centre_cropped:
        ow, oh = kwargs["out_size"]
        scale = max(ow / w, oh / h)
        bw, bh = ow / scale, oh / scale
        return (int(np.ceil((w - bw) / 2)), int((w + bw) / 2), int(np.ceil((h - bh) / 2)),
                int((h + bh) / 2))
    if fn is push_in:
        mx, my = int(np.ceil(w * kwargs["zoom"])), int(np.ceil(h * kwargs["zoom"]))
        return mx, w - mx, my, h - my
    return 0, w, 0, h
