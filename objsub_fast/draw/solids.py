"""The solid look: each shape drawn as a lit solid in its object's colour.

One light from the upper left shades every solid. A shape is one function of the sample points
of its bounding square (x right, y down, both in [0, 1]) giving which points it covers and
each point's lightness factor ``k``: 1 is the colour itself, below 1 the colour darkened toward
black (``c * k``), above 1 lightened toward white (``c + (255 - c) * (k - 1)``). Both keep the
hue, so a red cube stays red; each solid's shades are chosen so that its median pixel is near
``k = 1`` and its median colour stays nearest its named colour. Flat faces take one shade
each (``_faces``); curved surfaces take diffuse shading from their normals (``_diffuse``).

A sprite is sampled ``_samples(size)`` times along each axis per pixel: a pixel's coverage is
the share of its samples inside, its colour the mean of theirs laid over the white background
(anti-aliased edges). Every pixel with any coverage is the object's (its instance mask and
``area``), nothing outside its bounding square is drawn, and no shadow falls on the
background, so removing an object sets exactly its pixels back to white.

Examples
--------
>>> mask, rgb = solid_sprite(0, 24, (255, 0, 0))      # a red cube
>>> mask.shape, rgb.shape, bool(mask.any(1).all())
((24, 24), (24, 24, 3), True)
>>> sorted({tuple(p) for p in rgb[mask & (rgb[..., 1] == 0)].tolist()})[:1]
[(158, 0, 0)]
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..task.vocabulary import SHAPE_TABLE

__all__ = ["solid_sprite", "solid_shading", "shade", "LIGHT", "SOLIDS"]

#: Direction toward the light (x right, y down, z toward the viewer): upper left, in front.
LIGHT = np.array([-0.5, -0.6, 0.62]) / np.linalg.norm([-0.5, -0.6, 0.62])
#: Diffuse shading: k = AMBIENT + DIFFUSE * max(0, normal . LIGHT).
AMBIENT, DIFFUSE = 0.42, 0.78
#: The sphere's highlight: k rises by SHINE * (normal . half-vector) ** GLOSS.
SHINE, GLOSS = 0.7, 60
_HALF = (LIGHT + [0, 0, 1]) / np.linalg.norm(LIGHT + [0, 0, 1])
#: Lightness of a flat top face seen from above (cylinder, hourglass) and the brightest k.
TOP, K_MAX = 1.28, 1.9


def _convex(x, y, vertices):
    """Points inside the convex polygon ``vertices`` [(x, y), ...], either winding."""
    v = np.asarray(vertices, float)
    edge = np.roll(v, -1, axis=0) - v
    cross = [ex * (y - vy) - ey * (x - vx) for (vx, vy), (ex, ey) in zip(v, edge)]
    return np.all(np.array(cross) >= 0, axis=0) | np.all(np.array(cross) <= 0, axis=0)


def _faces(x, y, faces):
    """(inside, k) of flat faces [(vertices, k), ...]; a later face wins where they meet."""
    inside, k = np.zeros(x.shape, bool), np.ones(x.shape)
    for vertices, shade in faces:
        face = _convex(x, y, vertices)
        inside |= face
        k[face] = shade
    return inside, k


def _ellipse(x, y, cx, cy, rx, ry):
    """Points inside the ellipse of centre (cx, cy) and semi-axes rx, ry."""
    return ((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2 <= 1.0


def _diffuse(nx, ny, nz):
    """Lightness of surface normals (unit vectors) under ``LIGHT``."""
    return AMBIENT + DIFFUSE * np.maximum(0.0, nx * LIGHT[0] + ny * LIGHT[1] + nz * LIGHT[2])


def _round(x, cx, half_width, tilt):
    """Lightness of a surface of revolution about the vertical line x = cx whose half width
    there is ``half_width`` and whose normals lean ``tilt`` radians up (down if negative)."""
    u = np.clip((x - cx) / np.maximum(half_width, 1e-9), -1.0, 1.0)
    lean = np.cos(tilt)
    return _diffuse(u * lean, -np.sin(tilt) * np.ones_like(u), np.sqrt(1.0 - u * u) * lean)


def _cube(x, y):
    """Front face, lit top face and shaded right side of a cube seen from above right."""
    a = 1 / 1.3
    d = 1 - a
    return _faces(x, y, [([(0, d), (a, d), (a, 1), (0, 1)], 1.0),
                         ([(0, d), (d, 0), (1, 0), (a, d)], TOP),
                         ([(a, d), (1, 0), (1, a), (a, 1)], 0.62)])


def _sphere(x, y):
    """A ball with diffuse shading and a small highlight."""
    nx, ny = (x - 0.5) * 2, (y - 0.5) * 2
    inside = nx * nx + ny * ny <= 1.0
    nz = np.sqrt(np.clip(1.0 - nx * nx - ny * ny, 0.0, 1.0))
    spot = np.maximum(0.0, nx * _HALF[0] + ny * _HALF[1] + nz * _HALF[2]) ** GLOSS
    return inside, _diffuse(nx, ny, nz) + SHINE * spot


def _pyramid(x, y):
    """A square pyramid turned to show a lit left face and a darker right face."""
    apex, left, front, right = (0.5, 0.0), (0.0, 0.8), (0.58, 1.0), (1.0, 0.84)
    return _faces(x, y, [([apex, left, front], 1.05), ([apex, front, right], 0.66)])


def _cone(x, y, base=0.86, ry=0.14):
    """A cone on an elliptical base: shaded across its body, its rim an ellipse."""
    inside = _convex(x, y, [(0.5, 0.0), (1.0, base), (0.0, base)]) | (
        _ellipse(x, y, 0.5, base, 0.5, ry) & (y >= base))
    half = 0.5 * np.clip(y / base, 0.0, 1.0)
    return inside, _round(x, 0.5, half, np.arctan2(0.5, base))


def _diamond(x, y):
    """An octahedron turned to show four faces: upper ones lit, lower ones in shade."""
    top, bottom, left, right, front = (0.5, 0.0), (0.5, 1.0), (0.0, 0.48), (1.0, 0.48), \
        (0.56, 0.56)
    return _faces(x, y, [([top, left, front], 1.22), ([top, front, right], 0.9),
                         ([left, bottom, front], 1.0), ([front, bottom, right], 0.6)])


def _hourglass(x, y, rim=0.1, neck=0.1):
    """Two cones tip to tip (with a neck): the upper one's base a lit ellipse on top."""
    lower = y > 0.5
    half = neck + (0.5 - neck) * np.abs(y - 0.5) / (0.5 - rim)
    body = (np.abs(x - 0.5) <= half) & (y >= rim) & (y <= 1 - rim)
    tilt = np.arctan2(0.5 - neck, 0.5 - rim)
    # the upper cone faces down, away from the light: shaded as if half as steep, to show it
    k = np.where(lower, _round(x, 0.5, half, tilt), _round(x, 0.5, half, -tilt / 2))
    top = _ellipse(x, y, 0.5, rim, 0.5, rim)
    bottom = _ellipse(x, y, 0.5, 1 - rim, 0.5, rim) & (y >= 1 - rim)
    return body | top | bottom, np.where(top, TOP, k)


def _dome(x, y, centre=0.72, ry=0.12):
    """A half ball on its flat side: a ball's shading above, its rim an ellipse."""
    nx, ny = (x - 0.5) * 2, np.minimum(y - centre, 0.0) * 2
    inside = np.where(y <= centre, nx * nx + ny * ny <= 1.0,
                      _ellipse(x, y, 0.5, centre, 0.5, ry))
    nz = np.sqrt(np.clip(1.0 - nx * nx - ny * ny, 0.0, 1.0))
    return inside, _diffuse(nx, ny, nz)


def _pillar(x, y, rx=0.25, rim=0.07):
    """An upright cylinder: a lit elliptical top, a body shaded across, an elliptical rim."""
    body = (np.abs(x - 0.5) <= rx) & (y >= rim) & (y <= 1 - rim)
    top = _ellipse(x, y, 0.5, rim, rx, rim)
    bottom = _ellipse(x, y, 0.5, 1 - rim, rx, rim) & (y >= 1 - rim)
    return body | top | bottom, np.where(top, TOP, _round(x, 0.5, rx, 0.0))


#: Each shape's solid, by solid name (``vocabulary.SHAPE_TABLE``).
SOLIDS = {"cube": _cube, "sphere": _sphere, "pyramid": _pyramid, "cone": _cone,
          "diamond": _diamond, "hourglass": _hourglass, "dome": _dome, "pillar": _pillar}


def _samples(size: int) -> int:
    """Samples per pixel along each axis: 4 up to 96 px, then 2 (the edges are long enough)."""
    return 4 if size <= 96 else 2


@lru_cache(maxsize=4096)
def solid_shading(shape: int, size: int):
    """(coverage, dark, light): (size, size) float arrays of global shape ``shape`` at
    ``size``: the share of each pixel's samples inside the solid, and the means over all its
    samples (0 outside) of min(k, 1) and of max(k - 1, 0), so that a colour c shows as
    ``c * dark + (255 - c) * light + 255 * (1 - coverage)``."""
    n = _samples(size)
    ticks = (np.arange(size * n) + 0.5) / (size * n)
    y, x = np.meshgrid(ticks, ticks, indexing="ij")
    inside, k = SOLIDS[SHAPE_TABLE[shape][0]](x, y)
    k = np.clip(k, 0.0, K_MAX)
    per_pixel = [np.where(inside, v, 0.0).reshape(size, n, size, n).mean(axis=(1, 3))
                 for v in (np.ones_like(k), np.minimum(k, 1.0), np.maximum(k - 1.0, 0.0))]
    for v in per_pixel:
        v.flags.writeable = False
    return tuple(per_pixel)


@lru_cache(maxsize=4096)
def solid_sprite(shape: int, size: int, rgb=None):
    """(mask, rgb) of global shape ``shape`` at ``size`` in colour ``rgb`` (r, g, b): the
    (size, size) bool pixels it touches and their (size, size, 3) uint8 colours over white
    (``rgb`` None: the mask only, and None). Both read-only.

    Examples
    --------
    >>> mask, rgb = solid_sprite(1, 40, (0, 0, 255))
    >>> int(mask.sum()), rgb[20, 20].tolist()
    (1308, [0, 0, 225])
    """
    coverage, dark, light = solid_shading(shape, size)
    mask = coverage > 0
    mask.flags.writeable = False
    if rgb is None:
        return mask, None
    c = np.asarray(rgb, float)
    out = np.rint(c * dark[..., None] + (255.0 - c) * light[..., None]
                  + 255.0 * (1.0 - coverage[..., None]))
    out = np.clip(out, 0, 255).astype(np.uint8)
    out.flags.writeable = False
    return mask, out


def shade(rgb, k: float) -> tuple:
    """Colour ``rgb`` (r, g, b) at lightness factor ``k`` as a solid draws a fully covered
    pixel of it (darkened toward black below 1, lightened toward white above), rounded.

    Examples
    --------
    >>> shade((255, 0, 0), 0.5), shade((255, 0, 0), 1.5)
    ((128, 0, 0), (255, 128, 128))
    """
    c = np.asarray(rgb, float)
    out = np.rint(c * min(k, 1.0) + (255.0 - c) * max(k - 1.0, 0.0))
    return tuple(int(v) for v in np.clip(out, 0, 255))
