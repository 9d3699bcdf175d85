"""What a task's look means for the scorer: the colours its objects' pixels take and each
object's picture.

A task record names its look (``"look": "solid"``; no ``look`` is the flat look). The detector
takes two things from it, one row of :data:`LOOKS` per look, so no code branches on the look:

- **shades**: the lightness factors ``k`` (``solids.shade``) at which an object's colour
  appears besides the colour itself. The flat look draws every object in its one fill colour
  (and a black outline); a solid is shaded, its faces darker or lighter than its named colour.
  Each shade of a task colour is one more reference colour of that colour's class in the
  detector's colour table (``detect.class_lut``), so a shaded face reads as its object's colour.
  The solid look's shades are those its own sprites draw (every solid at :data:`SHADE_SIZE` px,
  its fully covered pixels), rounded to :data:`SHADE_STEP`. Shades nearer white than
  :data:`MIN_WHITE_DISTANCE` (CIEDE2000) or greyer than both :data:`MIN_CHROMA` and
  :data:`MIN_CHROMA_FRACTION` of their colour's chroma are left out, so that an off-white or grey background reads as it does in
  the flat look (greys from RGB 160 up are background) and never as an object; a sphere's
  highlight and the faintest anti-aliased edge pixels then read as background, in the task's
  own picture too.
- **picture**: the (size, size, 3) RGB image of one object over white, as the renderer draws
  it. The scorer classifies it with the task's colour table: the pixels that are not
  background are the object's silhouette as the detector sees it (its mask, drawn area and
  centroid), and the detector's shape features of it are the shape templates
  (``detect.shape_templates``). The flat picture's silhouette is every drawn pixel (its
  outline is black); a solid's leaves out the faintest anti-aliased edge pixels and its
  highlight, which are nearer white than any shade.

Examples
--------
>>> LOOKS["flat"].shades, len(LOOKS["solid"].shades) > 5
((), True)
>>> picture("solid", 0, 20, (255, 0, 0)).shape
(20, 20, 3)
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

import numpy as np

from ...draw.render import palette, sprite
from ...draw.solids import SOLIDS, shade, solid_shading, solid_sprite
from ...task.vocabulary import BACKGROUND_RGB, SHAPE_TABLE

__all__ = ["Look", "LOOKS", "look_of", "picture", "shade_references", "SHADE_STEP",
           "SHADE_SIZE", "MIN_WHITE_DISTANCE",
           "MIN_CHROMA_FRACTION", "MIN_CHROMA"]

#: Solid shades are rounded to this step of the lightness factor (about 5 CIEDE2000 units of
#: a saturated colour: every pixel of a face lies within a few units of a reference).
SHADE_STEP = 0.1
#: The solid sprites' shades are read at this size (large enough for every face and the
#: highlight to have fully covered pixels).
SHADE_SIZE = 64
#: Shades nearer white than this (CIEDE2000) are not references: a tinted background would
#: read as an object.
MIN_WHITE_DISTANCE = 20.0
#: Shades whose CIELAB chroma is below both this fraction of their colour's and
#: :data:`MIN_CHROMA` are not references: a grey would read as a colour.
MIN_CHROMA_FRACTION = 0.6
MIN_CHROMA = 40.0


def _flat_picture(shape: int, size: int, rgb: tuple) -> np.ndarray:
    return palette(np.array([rgb], np.uint8))[sprite(shape, size)]


def _solid_picture(shape: int, size: int, rgb: tuple) -> np.ndarray:
    return solid_sprite(shape, size, rgb)[1]


def _solid_shades() -> tuple:
    """The lightness factors the solid sprites draw (fully covered pixels), rounded to
    :data:`SHADE_STEP`, without 1 (the colour itself)."""
    ks = []
    for code, (name, *_) in enumerate(SHAPE_TABLE):
        if name not in SOLIDS:
            continue
        coverage, dark, light = solid_shading(code, SHADE_SIZE)
        ks.append((dark + light)[coverage == 1])
    steps = np.unique(np.rint(np.concatenate(ks) / SHADE_STEP).astype(int))
    return tuple(round(float(s) * SHADE_STEP, 3) for s in steps if s * SHADE_STEP != 1.0)


@dataclass(frozen=True)
class Look:
    """One look as the scorer sees it (see the module docstring).

    Attributes
    ----------
    name : str
    shades : tuple of float
        Lightness factors of the extra reference colours of each task colour.
    picture : callable
        ``picture(global shape code, size, (r, g, b))`` -> (size, size, 3) uint8 over white.
    """

    name: str
    shades: tuple
    picture: Callable


#: The looks the scorer knows, by name (``vocabulary.LOOKS``).
LOOKS = {"flat": Look("flat", (), _flat_picture),
         "solid": Look("solid", _solid_shades(), _solid_picture)}


def look_of(record: dict) -> str:
    """The look a task record names (``"flat"`` when it names none)."""
    return record.get("look", "flat") if isinstance(record, dict) else "flat"


@lru_cache(maxsize=4096)
def picture(look: str, shape: int, size: int, rgb: tuple) -> np.ndarray:
    """The read-only picture of global shape ``shape`` at ``size`` in colour ``rgb`` in
    ``look`` (see :class:`Look`)."""
    out = np.ascontiguousarray(LOOKS[look].picture(int(shape), int(size), tuple(map(int, rgb))))
    out.flags.writeable = False
    return out


@lru_cache(maxsize=64)
def shade_references(colors_rgb: tuple, look: str):
    """(refs (n, 3) uint8, colour codes (n,)) of the shades of ``colors_rgb`` in ``look``
    that stay :data:`MIN_WHITE_DISTANCE` from white and keep :data:`MIN_CHROMA` or
    :data:`MIN_CHROMA_FRACTION` of their colour's chroma (none in the flat look).

    Examples
    --------
    >>> refs, codes = shade_references(((255, 0, 0),), "solid")
    >>> refs[codes == 0].min(axis=0).tolist(), len(shade_references(((255, 0, 0),), "flat")[0])
    ([102, 0, 0], 0)
    """
    from skimage.color import deltaE_ciede2000, rgb2lab

    refs = [(shade(c, k), code) for code, c in enumerate(colors_rgb)
            for k in LOOKS[look].shades]
    if not refs:
        return np.zeros((0, 3), np.uint8), np.zeros(0, np.int64)
    rgb = np.array([r for r, _ in refs], np.uint8)
    codes = np.array([c for _, c in refs], np.int64)
    lab = rgb2lab(rgb[None] / 255.0)[0]
    own = rgb2lab(np.array(colors_rgb, float)[None] / 255.0)[0]
    white = rgb2lab(np.array([[BACKGROUND_RGB]], float) / 255.0)[0]
    chroma = np.hypot(lab[:, 1], lab[:, 2])
    keep = (deltaE_ciede2000(lab, np.repeat(white, len(lab), axis=0)) >= MIN_WHITE_DISTANCE) \
        & ((chroma >= MIN_CHROMA) | (chroma >= MIN_CHROMA_FRACTION
                                     * np.hypot(own[codes, 1], own[codes, 2])))
    return rgb[keep], codes[keep]
