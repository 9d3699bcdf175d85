"""One task's unit scene in pixels, and the guarantees checked on those pixels (Numba).

The scene kernel (``objsub_fast.task.scenes``) decides a task in 256 units; :func:`scale_task` turns
its objects into the pixels of the canvas, and :func:`holds_in_pixels` checks every guarantee of
``docs/design.md`` on them in whole pixels: margins and spacing, order gaps, size gaps and the
size span each at least ``ceil(length * min(W, H) / 256)`` px, no bounding square across a
region's dividing line, the removed set the one the rule gives on the pixels. With a fractional
scale factor rounding can take up to about 2 px off a length, so the kernel checks each accepted
attempt and, where the pixels break a guarantee, draws the task's next attempt (with a whole
factor every length scales exactly and nothing needs checking).

Scaling (``docs/design.md``, "One seed, one scene at every size"): a size becomes
``round(size * s)`` (half up); a corner is placed so that the centre is the unit centre times
``s`` rounded to the pixel grid; in a region rule an object that rounding would put across its
dividing line is moved back to its side (at most 1 px); an object that rounding would put inside
the canvas margin is moved back out of it (at most 1 px).
"""
from __future__ import annotations

import math

import numpy as np

from ..runtime._numba import kernel
from .units import whole_pixels
from .vocabulary import (KEY_CENTER_DIST, KEY_CORNER_DIST, KEY_NEG_CENTER_DIST, KEY_NEG_X,
                         KEY_NEG_Y, KEY_X, KEY_Y, ORDER, REGION, SIZE)

__all__ = ["pixel_lengths", "scale_task", "holds_in_pixels", "order_key", "inside"]

# Indices into a lengths array (``config.Lengths().kernel_array()`` order).
EDGE, SPACING, ORDER_GAP, SIZE_GAP, SIZE_RANGE = range(5)


def pixel_lengths(unit_lengths, width: int, height: int) -> np.ndarray:
    """The guaranteed lengths of a (width, height) canvas in whole pixels: each 256-unit length
    times min(W, H) / 256, rounded up.

    Examples
    --------
    >>> pixel_lengths([10, 10, 10, 12, 15], 1000, 1000).tolist()
    [40, 40, 40, 47, 59]
    >>> pixel_lengths([10, 10, 10, 12, 15], 512, 768).tolist()
    [20, 20, 20, 24, 30]
    """
    return np.array([whole_pixels(v, width, height) for v in unit_lengths], np.int64)


@kernel
def inside(x, y, sz, rect):
    """True when the square at (x, y) of side ``sz`` lies in ``rect`` (x0, x1, y0, y1)."""
    return x >= rect[0] and x + sz <= rect[1] and y >= rect[2] and y + sz <= rect[3]


@kernel
def order_key(key, x, y, width, height):
    """The value an order rule sorts by, ascending (the first ones are removed)."""
    if key == KEY_X:
        return x
    if key == KEY_NEG_X:
        return -x
    if key == KEY_Y:
        return y
    if key == KEY_NEG_Y:
        return -y
    centre = math.hypot(x - width / 2.0, y - height / 2.0)
    if key == KEY_CENTER_DIST:
        return centre
    if key == KEY_NEG_CENTER_DIST:
        return -centre
    corner = min(math.hypot(x, y), math.hypot(width - x, y))
    return min(corner, math.hypot(x, height - y), math.hypot(width - x, height - y))


assert KEY_CORNER_DIST == 6  # order_key's fall-through case


@kernel
def _scale_corner(corner, size, size_px, scale, line_units, line_px, edge_px, length_px):
    """One corner coordinate in pixels (see the module docstring)."""
    px = math.floor((corner + size / 2.0) * scale - size_px / 2.0 + 0.5)
    if line_units >= 0 and corner >= line_units:
        px = max(px, math.ceil(line_px))
    if line_units >= 0 and corner + size <= line_units:
        px = min(px, math.floor(line_px) - size_px)
    return min(max(px, edge_px), length_px - edge_px - size_px)


@kernel
def scale_task(n, lefts, tops, sizes, scale, width_px, height_px, lines_units, lines_px,
               edge_px, px_left, px_top, px_size):
    """Write the pixels of a task's ``n`` objects (units in ``lefts``, ``tops``, ``sizes``) into
    ``px_left``, ``px_top``, ``px_size``. ``lines_units``/``lines_px`` are the task's region
    dividing lines (x, y), -1 where there is none; ``edge_px`` the canvas margin in pixels."""
    for j in range(n):
        size_px = math.floor(sizes[j] * scale + 0.5)
        px_size[j] = size_px
        px_left[j] = _scale_corner(lefts[j], sizes[j], size_px, scale, lines_units[0],
                                   lines_px[0], edge_px, width_px)
        px_top[j] = _scale_corner(tops[j], sizes[j], size_px, scale, lines_units[1],
                                  lines_px[1], edge_px, height_px)


@kernel
def holds_in_pixels(n, family, param, removed, lefts, tops, sizes, width, height,
                    lengths, lines, rect):
    """True when a task's pixels (``lefts``, ``tops``, ``sizes`` of ``n`` objects on a
    ``width`` x ``height`` canvas) keep every guarantee with the pixel ``lengths``: margins,
    spacing, and the guarantee of its rule (``family``, ``param``; ``lines`` and ``rect`` the
    region rule's dividing lines, -1 where there is none, and region)."""
    edge, spacing = lengths[EDGE], lengths[SPACING]
    for j in range(n):
        if (lefts[j] < edge or tops[j] < edge or lefts[j] + sizes[j] > width - edge
                or tops[j] + sizes[j] > height - edge):
            return False
        for k in range(j):
            if not (lefts[j] >= lefts[k] + sizes[k] + spacing
                    or lefts[k] >= lefts[j] + sizes[j] + spacing
                    or tops[j] >= tops[k] + sizes[k] + spacing
                    or tops[k] >= tops[j] + sizes[j] + spacing):
                return False
    if family == SIZE:
        return _sizes_hold(n, param, removed, sizes, lengths[SIZE_GAP], lengths[SIZE_RANGE])
    if family == ORDER:
        return _order_holds(n, param, removed, lefts, tops, sizes, width, height,
                            lengths[ORDER_GAP])
    if family == REGION:
        return _region_holds(n, removed, lefts, tops, sizes, lines, rect)
    return True


@kernel
def _sizes_hold(n, direction, removed, sizes, size_gap, size_range):
    """Every removed size ``size_gap`` beyond every kept one (larger for direction +1), and
    the sizes spanning ``size_range``."""
    lo, hi = sizes[0], sizes[0]
    for j in range(n):
        lo, hi = min(lo, sizes[j]), max(hi, sizes[j])
        for k in range(n):
            if removed[j] and not removed[k] and direction * (sizes[j] - sizes[k]) < size_gap:
                return False
    return hi - lo >= size_range


@kernel
def _order_holds(n, key, removed, lefts, tops, sizes, width, height, order_gap):
    """The removed objects come first in ``key`` order, ``order_gap`` ahead of the kept."""
    first_kept, last_removed = np.inf, -np.inf
    for j in range(n):
        value = order_key(key, lefts[j] + sizes[j] / 2.0, tops[j] + sizes[j] / 2.0, width,
                          height)
        if removed[j]:
            last_removed = max(last_removed, value)
        else:
            first_kept = min(first_kept, value)
    return first_kept - last_removed >= order_gap


@kernel
def _region_holds(n, removed, lefts, tops, sizes, lines, rect):
    """No bounding square across a dividing line; the removed objects are those inside
    ``rect``."""
    for j in range(n):
        if lines[0] >= 0 and lefts[j] < lines[0] < lefts[j] + sizes[j]:
            return False
        if lines[1] >= 0 and tops[j] < lines[1] < tops[j] + sizes[j]:
            return False
        if removed[j] != inside(lefts[j], tops[j], sizes[j], rect):
            return False
    return True
