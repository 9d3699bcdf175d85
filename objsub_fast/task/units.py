"""The 256-unit scene and its pixels: one seed, one scene, at every canvas size.

A scene is decided in **256 units**: the canvas scaled by ``s = min(W, H) / 256`` so that its
shorter side is 256 units long. A W x H canvas is a (W / s) x (H / s) unit canvas: 256 x 256 for
every square canvas, 384 x 256 for 768 x 512 (and for 384 x 256 itself); the longer side may be
fractional (1000 x 700 is 365.71... x 256). Every decision (object count, colours, shapes, sizes,
positions accepted or rejected, the rule, the removed set, orders and regions) is made on that
unit canvas with whole-unit sizes and positions and the 256 px lengths of the scene model; then
the scene is scaled for drawing (``objsub_fast.task.scene_pixels``). So every canvas of the same shape
gives the same objects, rule, prompt and removed set (at a fractional scale factor, wherever the
scaled pixels keep every guarantee; see below), and with a whole scale factor (512, 768, 1024,
...) exactly the unit scene times ``s``. At ``s = 1`` (min(W, H) = 256) the pixels are the
units.

Every guaranteed length (margin, spacing, order gap, size gap, size span) holds in whole pixels:
at least :func:`whole_pixels` of its 256 units, ``ceil(length * s)``. With a fractional factor
rounding can take a pixel or two off a scaled length; a task whose pixels would break a guarantee
draws its next attempt instead (see ``docs/design.md``, "One seed, one scene at every size").
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["REFERENCE_SIDE", "scale_factor", "unit_canvas", "to_pixels", "whole_pixels",
           "unit_size_range"]

#: The canvas side the scene model's lengths are given for, and the unit canvas's shorter side.
REFERENCE_SIDE = 256


def scale_factor(width: int, height: int) -> float:
    """Pixels per unit of a (width, height) canvas: min(W, H) / 256.

    Examples
    --------
    >>> scale_factor(1024, 1024), scale_factor(768, 512), scale_factor(320, 256)
    (4.0, 2.0, 1.0)
    """
    return min(width, height) / REFERENCE_SIDE


def unit_canvas(width: int, height: int) -> tuple:
    """The (width, height) of a canvas in 256 units (floats; the shorter side is 256).

    Examples
    --------
    >>> unit_canvas(1024, 1024), unit_canvas(768, 512), unit_canvas(320, 256)
    ((256.0, 256.0), (384.0, 256.0), (320.0, 256.0))
    """
    scale = scale_factor(width, height)
    return width / scale, height / scale


def to_pixels(units, scale: float):
    """A length in units as whole pixels: ``units * scale`` rounded half up.

    Examples
    --------
    >>> to_pixels([20, 12, 15], 4.0), int(to_pixels(15, 1000 / 256))
    (array([80, 48, 60]), 59)
    """
    return np.floor(np.asarray(units) * scale + 0.5).astype(np.int64)[()]


def whole_pixels(units: int, width: int, height: int) -> int:
    """A guaranteed length of ``units`` 256 units in whole pixels of a (width, height) canvas:
    ``units * min(W, H) / 256`` rounded up (exact integer arithmetic).

    Examples
    --------
    >>> whole_pixels(10, 1000, 1000), whole_pixels(10, 1024, 768), whole_pixels(10, 128, 128)
    (40, 30, 5)
    """
    return -(-units * min(width, height) // REFERENCE_SIDE)


def unit_size_range(size_range: tuple, width: int, height: int):
    """The whole-unit object sizes whose pixel sizes lie in ``size_range`` (pixels, inclusive),
    as (lo, hi); None when there is none.

    Examples
    --------
    >>> unit_size_range((80, 160), 1024, 1024), unit_size_range((81, 161), 1024, 1024)
    ((20, 40), (21, 40))
    >>> unit_size_range((81, 83), 1024, 1024) is None
    True
    """
    scale = scale_factor(width, height)
    lo = math.ceil(size_range[0] / scale - 1e-9)
    hi = math.floor(size_range[1] / scale + 1e-9)
    return (lo, hi) if lo <= hi else None
