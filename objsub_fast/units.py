"""The 256-unit scene and its pixels: one seed, one scene, at every canvas size.

A scene is decided in **256 units**: the canvas scaled by ``s = min(W, H) / 256`` so that its
shorter side is 256 units long. A W x H canvas is a (W / s) x (H / s) unit canvas: 256 x 256 for
every square canvas, 384 x 256 for 768 x 512 (and for 384 x 256 itself); the longer side may be
fractional (1000 x 700 is 365.71... x 256). Every decision (object count, colours, shapes, sizes,
positions accepted or rejected, the rule, the removed set, orders and regions) is made on that
unit canvas with whole-unit sizes and positions and the 256 px lengths of the scene model; then
:func:`scene_to_pixels` scales the scene for drawing. So every canvas of the same shape gives the
same objects, rule, prompt and removed set, and with a whole scale factor (512, 768, 1024, ...)
exactly the unit scene times ``s``. At ``s = 1`` (min(W, H) = 256) the pixels are the units.

Scaling rounds: a size becomes ``round(size * s)`` (half up), an object keeps its centre within
0.5 px of the scaled centre, and an object of a region rule is moved by at most 1 px where that
keeps its bounding square on its side of the region's dividing line. A length of the scene model
(margin, spacing, gap) is therefore at least its scaled value minus 2.25 px (exactly it with a
whole scale factor); see ``docs/design.md``, "One seed, one scene at every size".
"""
from __future__ import annotations

import math

import numpy as np

from .vocabulary import KINDS, REGION, REGIONS

__all__ = ["REFERENCE_SIDE", "scale_factor", "unit_canvas", "to_pixels", "unit_size_range",
           "scene_to_pixels"]

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


def _dividing_lines(kind, variant, length_units, length_px, axis):
    """Per task, the inner dividing line along ``axis`` (0: x, 1: y) of its region rule, in
    units and pixels (NaN where the task has none)."""
    lines_units = np.full(kind.shape, np.nan)
    lines_px = np.full(kind.shape, np.nan)
    is_region = np.array([k.family == REGION for k in KINDS])[kind]
    for r, (_, rect) in enumerate(REGIONS):
        inner = [f for f in rect[2 * axis: 2 * axis + 2] if 0.0 < f < 1.0]
        if inner:
            here = is_region & (variant == r)
            lines_units[here] = inner[0] * length_units
            lines_px[here] = inner[0] * length_px
    return lines_units[:, None], lines_px[:, None]


def scene_to_pixels(scenes: dict, width: int, height: int) -> None:
    """Scale a batch's unit scene (``left``, ``top``, ``size`` of ``generate_scenes``) to the
    pixels of a (width, height) canvas, in place (see the module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> scenes = {"kind": np.array([0]), "variant": np.array([0]), "num_objects": np.array([1]),
    ...           "left": np.array([[10]]), "top": np.array([[30]]), "size": np.array([[25]])}
    >>> scene_to_pixels(scenes, 1024, 1024)
    >>> int(scenes["left"][0, 0]), int(scenes["top"][0, 0]), int(scenes["size"][0, 0])
    (40, 120, 100)
    """
    scale = scale_factor(width, height)
    if scale == 1.0:
        return
    valid = np.arange(scenes["size"].shape[1]) < scenes["num_objects"][:, None]
    size_units = scenes["size"].astype(np.float64)
    size_px = to_pixels(size_units, scale)
    for axis, (name, length_px) in enumerate((("left", width), ("top", height))):
        corner_units = scenes[name].astype(np.float64)
        corner_px = np.floor((corner_units + size_units / 2) * scale - size_px / 2 + 0.5)
        line_units, line_px = _dividing_lines(scenes["kind"], scenes["variant"],
                                              length_px / scale, length_px, axis)
        after = corner_units >= line_units  # False where there is no line (NaN)
        before = corner_units + size_units <= line_units
        corner_px = np.where(after, np.maximum(corner_px, np.ceil(line_px)), corner_px)
        corner_px = np.where(before, np.minimum(corner_px, np.floor(line_px) - size_px),
                             corner_px)
        scenes[name][...] = np.where(valid, corner_px, 0)
    scenes["size"][...] = np.where(valid, size_px, 0)
