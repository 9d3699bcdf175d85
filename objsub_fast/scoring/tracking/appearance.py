"""Colours as this video renders them: the background's colour, each object's median colour, and
ink measured against the video's own background.

Ink is how far a pixel is from background: ``255 - min(R, G, B)`` on a white background. A
model may render the whole picture warmer, darker or with more contrast, so ink is measured in
the frame's own white: each channel over the background's (``ink = 255 - min_c(255 p_c /
bg_c)``, at least 0). On a white background that is the plain formula, value for value.
"""
from __future__ import annotations

import numpy as np

from ...runtime._numba import kernel
from .detect import BG, COLOR_CLASS0

__all__ = ["WHITE", "background_colour", "object_colours", "square_ink", "ink_over",
           "in_own_white"]

#: The canvas's background: what ink is measured against when nothing else is known.
WHITE = np.array([255.0, 255.0, 255.0])
#: The background's colour is the median over every STRIDE-th pixel each way of the pixels
#: classed background (a 256 canvas: 16,000 of them).
STRIDE = 2
#: An object's colour is taken over the pixels classed its colour when it has at least this
#: many, else over all its pixels (a speck).
MIN_FILL_PX = 8
#: A channel of the background darker than this is taken as this (a black frame is no white).
MIN_WHITE = 32.0
#: A background within this many levels of white on every channel is white: the frame is read
#: as it is (a codec's noise does not move the background's median this far).
WHITE_TOLERANCE = 5


@kernel(nogil=True)
def _background(frame, cls, stride):
    """Per channel, the median over the ``stride``-spaced pixels classed background (255 each
    when there are none)."""
    hist = np.zeros((3, 256), np.int64)
    n = 0
    for y in range(0, frame.shape[0], stride):
        for x in range(0, frame.shape[1], stride):
            if cls[y, x] == BG:
                for c in range(3):
                    hist[c, frame[y, x, c]] += 1
                n += 1
    out = np.full(3, 255.0)
    if n == 0:
        return out
    for c in range(3):
        seen = 0
        for v in range(256):
            seen += hist[c, v]
            if 2 * seen >= n:
                out[c] = v
                break
    return out


def background_colour(frame: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """The (3,) colour of ``frame``'s background: per channel, the median of the pixels
    ``classes`` calls background.

    Examples
    --------
    >>> frame = np.full((8, 8, 3), (230, 236, 242), np.uint8)
    >>> background_colour(frame, np.full((8, 8), BG, np.uint8)).tolist()
    [230.0, 236.0, 242.0]
    """
    return _background(frame, classes, STRIDE)


@kernel(nogil=True)
def _object_colours(frame, labels, cls, label, bbox, want, comp_of, min_pixels):
    h, w = labels.shape
    out = np.full((comp_of.shape[0], 3), np.nan)
    hist = np.zeros((2, 3, 256), np.int64)       # pixels of its colour class, every pixel
    for k in range(comp_of.shape[0]):
        j = comp_of[k]
        if j < 0:
            continue
        lab = label[j]
        hist[:] = 0
        n_fill, n_all = 0, 0
        for y in range(bbox[j, 2], bbox[j, 3] + 1):
            for x in range(bbox[j, 0], bbox[j, 1] + 1):
                if labels[y, x] != lab:
                    continue
                fill = cls[y, x] == want[j]
                for c in range(3):
                    hist[1, c, frame[y, x, c]] += 1
                    if fill:
                        hist[0, c, frame[y, x, c]] += 1
                n_all += 1
                n_fill += fill
        which, n = (0, n_fill) if n_fill >= min_pixels else (1, n_all)
        if n == 0:
            continue
        for c in range(3):
            seen = 0
            for v in range(256):
                seen += hist[which, c, v]
                if 2 * seen >= n:
                    out[k, c] = v
                    break
    return out


def object_colours(frame: np.ndarray, comps, comp_of: np.ndarray) -> np.ndarray:
    """(M, 3) each object's colour in ``frame``: per channel, the median over the pixels of
    its component (``comp_of[k]``; -1: not seen, NaN) that are classed its colour (its fill:
    not the outline, not the rim the codec blends with the background, whatever share of the
    object they are at its size); over all its pixels when fewer than :data:`MIN_FILL_PX`."""
    want = np.where(comps.color >= 0, comps.color + COLOR_CLASS0, -1).astype(np.int64)
    return _object_colours(frame, comps.labels, comps.cls, comps.label, comps.bbox, want,
                           np.asarray(comp_of, np.int64), MIN_FILL_PX)


@kernel(nogil=True)
def _square_ink(frame, q, half, s, tx, ty, cx, cy, white):
    h, w = frame.shape[:2]
    out = np.zeros(q.shape[0])
    for k in range(q.shape[0]):
        px = cx + s * (q[k, 0] - cx) + tx
        py = cy + s * (q[k, 1] - cy) + ty
        r = s * half[k] + 1
        x0, x1 = int(max(px - r, 0.0)), int(min(px + r + 1, float(w)))
        y0, y1 = int(max(py - r, 0.0)), int(min(py + r + 1, float(h)))
        total = 0.0
        for y in range(y0, y1):
            for x in range(x0, x1):
                lo = min(frame[y, x, 0] * 255.0 / white[0],
                         frame[y, x, 1] * 255.0 / white[1],
                         frame[y, x, 2] * 255.0 / white[2])
                total += max(255.0 - lo, 0.0)
        out[k] = total
    return out


def _white(background) -> np.ndarray:
    """The background's colour as the white ink is measured against (each channel at least
    :data:`MIN_WHITE`)."""
    return np.maximum(np.asarray(background, float), MIN_WHITE)


def square_ink(frame, q, half, cam, center, background=WHITE) -> np.ndarray:
    """Per point of ``q`` (N, 2): the ink summed over its square of half-side ``half`` (grown
    by 1 px) as camera ``cam`` = (s, tx, ty) about ``center`` places it, clipped to ``frame``,
    measured against ``background`` (:func:`ink_over`).

    Examples
    --------
    >>> frame = np.full((16, 16, 3), 200, np.uint8)
    >>> frame[6:9, 6:9] = (100, 0, 0)
    >>> square_ink(frame, np.array([[7.0, 7.0]]), np.array([1.0]), (1.0, 0.0, 0.0),
    ...            (7.5, 7.5), (200, 200, 200)).tolist()
    [2295.0]
    """
    return _square_ink(frame, q, half, *(float(v) for v in cam), float(center[0]),
                       float(center[1]), _white(background))


def ink_over(pixels: np.ndarray, background=WHITE) -> np.ndarray:
    """The ink of RGB ``pixels`` (..., 3) against ``background``: ``255 - min_c(255 p_c /
    bg_c)``, at least 0, as floats (on white: ``255 - min(R, G, B)``).

    Examples
    --------
    >>> px = np.array([[230, 236, 242], [115, 0, 0]], np.uint8)
    >>> ink_over(px, (230, 236, 242)).tolist()
    [0.0, 255.0]
    >>> ink_over(px).tolist()
    [25.0, 255.0]
    """
    return np.maximum(255.0 - (pixels * 255.0 / _white(background)).min(axis=-1), 0.0)


def in_own_white(frame: np.ndarray, background=WHITE) -> np.ndarray:
    """``frame`` with each channel over ``background``'s (uint8, rounded, at most 255): the
    frame as if its background were white, where the plain ink ``255 - min(R, G, B)`` of a
    pixel is its ink against this frame's own background (:func:`ink_over`). What silhouettes
    read: a picture drifting darker must not add its background's grey to every object's rim.
    A background within :data:`WHITE_TOLERANCE` of white gives ``frame`` itself.

    Examples
    --------
    >>> frame = np.full((1, 2, 3), (230, 236, 242), np.uint8)
    >>> frame[0, 0] = (115, 0, 0)
    >>> in_own_white(frame, (230, 236, 242)).tolist()
    [[[128, 0, 0], [255, 255, 255]]]
    >>> in_own_white(frame, (252, 255, 255)) is frame
    True
    """
    bg = _white(background)
    if (bg >= 255 - WHITE_TOLERANCE).all():
        return frame
    return np.minimum(np.rint(frame * (255.0 / bg)), 255).astype(np.uint8)
