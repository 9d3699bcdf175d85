"""Rendering: sprites rasterized once with scikit-image, stamped into uint8 frames by Numba.

A sprite is a (size, size) uint8 mask of one shape: 0 transparent, 1 outline, 2 fill. An object
of side ``size`` whose bounding square has top-left pixel (left, top) covers rows
top..top+size-1 and columns left..left+size-1; its exact centre is (left + size/2, top + size/2)
in pixel-edge coordinates.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from skimage.draw import disk, polygon
from skimage.morphology import disk as disk_footprint, erosion

from ._numba import kernel
from .vocabulary import (
    BACKGROUND_RGB, COLOR_RGB, COLOR_TABLE, OUTLINE_RGB, OUTLINE_WIDTH, SHAPE_TABLE,
)

__all__ = ["sprite", "sprite_atlas", "sprite_areas", "palette", "stamp_tables", "draw_frames",
           "SHAPE_OUTLINES", "TRANSPARENT", "OUTLINE", "FILL", "MAX_TABLE_BYTES"]

TRANSPARENT, OUTLINE, FILL = 0, 1, 2  # sprite values
#: Above this size the per-colour RGB sprite table is not built and objects are stamped pixel
#: by pixel from the masks (large canvases: 80-160 px objects would need 150 MB of table).
MAX_TABLE_BYTES = 64 << 20


def _hourglass(size, waist=0.25):
    """Two triangles tip to tip, top and bottom edges ``size`` wide, a waist of ``waist * size``
    (so the halves stay one piece with a visible neck at 12 px)."""
    half, neck = size / 2.0, waist * size / 2.0
    return [(0, 0), (size, 0), (half + neck, half), (size, size), (0, size), (half - neck, half)]


def _dome(size, steps=64):
    """A half disk of diameter ``size``, flat side down, in the middle half of the box."""
    half = size / 2.0
    t = np.linspace(np.pi, 2 * np.pi, steps)
    return list(zip(half + half * np.cos(t), 0.75 * size + half * np.sin(t)))


#: Polygon vertices (x, y) of each shape (by solid name) in a square [0, size] x [0, size],
#: pixel-edge coordinates; the sphere is a disk (drawn by ``skimage.draw.disk``).
SHAPE_OUTLINES = {
    "cube": lambda s: [(0, 0), (s, 0), (s, s), (0, s)],
    "pyramid": lambda s: [(s / 2, 0), (s / 2 + s / 2 * np.sqrt(3) / 2, s / 2 + s / 4),
                          (s / 2 - s / 2 * np.sqrt(3) / 2, s / 2 + s / 4)],
    "cone": lambda s: [(s / 4, 0), (s - s / 4, 0), (s, s), (0, s)],
    "diamond": lambda s: [(s / 2, 0), (s, s / 2), (s / 2, s), (0, s / 2)],
    "hourglass": _hourglass,
    "dome": _dome,
    "pillar": lambda s: [(s / 4, 0), (s - s / 4, 0), (s - s / 4, s), (s / 4, s)],
}


@lru_cache(maxsize=None)
def sprite(shape: int, size: int, outline: int = OUTLINE_WIDTH) -> np.ndarray:
    """Return the (size, size) mask of global shape code ``shape`` (an index into
    ``vocabulary.SHAPE_TABLE``): 0 empty, 1 outline, 2 fill.

    The shape is filled where a pixel's centre lies inside it; the outline is every filled
    pixel within ``outline`` px of the outside (2 at 256 px, scaled with the canvas).

    Examples
    --------
    >>> sprite(0, 6)
    array([[1, 1, 1, 1, 1, 1],
           [1, 1, 1, 1, 1, 1],
           [1, 1, 2, 2, 1, 1],
           [1, 1, 2, 2, 1, 1],
           [1, 1, 1, 1, 1, 1],
           [1, 1, 1, 1, 1, 1]], dtype=uint8)
    """
    filled = np.zeros((size, size), dtype=bool)
    name = SHAPE_TABLE[shape][0]
    if name == "sphere":
        rr, cc = disk(((size - 1) / 2.0, (size - 1) / 2.0), size / 2.0, shape=filled.shape)
    else:
        xy = np.array(SHAPE_OUTLINES[name](size), dtype=float)
        # skimage puts pixel centres on integers; our vertices are in pixel-edge coordinates.
        rr, cc = polygon(xy[:, 1] - 0.5, xy[:, 0] - 0.5, shape=filled.shape)
    filled[rr, cc] = True
    padded = np.pad(filled, outline)
    inner = erosion(padded, disk_footprint(outline)).astype(bool)[
        outline:-outline, outline:-outline]
    mask = np.where(filled, OUTLINE, TRANSPARENT).astype(np.uint8)
    mask[inner] = FILL
    mask.flags.writeable = False
    return mask


@lru_cache(maxsize=8)
def sprite_atlas(size_lo: int, size_hi: int, shapes=(0, 1, 2, 3),
                 outline: int = OUTLINE_WIDTH) -> np.ndarray:
    """All sprites of global shape codes ``shapes`` for sizes size_lo..size_hi as
    (len(shapes), sizes, size_hi, size_hi) uint8."""
    atlas = np.zeros((len(shapes), size_hi - size_lo + 1, size_hi, size_hi), dtype=np.uint8)
    for h, code in enumerate(shapes):
        for s in range(size_lo, size_hi + 1):
            atlas[h, s - size_lo, :s, :s] = sprite(code, s, outline)
    atlas.flags.writeable = False
    return atlas


@lru_cache(maxsize=8)
def sprite_areas(size_lo: int, size_hi: int, shapes=(0, 1, 2, 3)) -> np.ndarray:
    """Drawn pixels (outline included) per (shape, size - size_lo)."""
    areas = np.count_nonzero(sprite_atlas(size_lo, size_hi, shapes), axis=(2, 3))
    areas.flags.writeable = False
    return areas


def palette(colors_rgb=COLOR_RGB) -> np.ndarray:
    """Colours by sprite value: row 0 background, row 1 outline, rows 2.. object colours."""
    return np.vstack([BACKGROUND_RGB, OUTLINE_RGB, colors_rgb]).astype(np.uint8)


@lru_cache(maxsize=8)
def stamp_tables(size_lo: int, size_hi: int, shapes=(0, 1, 2, 3), colors=None,
                 outline: int = OUTLINE_WIDTH):
    """Sprites ready to stamp: RGB per colour and each row's drawn span.

    ``colors`` are colour names (default: the classic six). Stamping copies each sprite row's
    span [first drawn, last drawn] as one contiguous slice; a row of a shape that is not one
    run per row would span background pixels, which are white like the canvas under it (an object's
    bounding square is its own: no other object comes within the spacing).

    Returns
    -------
    rgb : (shapes, sizes, colours, size_hi, size_hi, 3) uint8, or an empty array when it would
        exceed MAX_TABLE_BYTES (then objects are stamped pixel by pixel from ``atlas``)
    spans : (shapes, sizes, size_hi, 2) int32, [start, stop) column of each row's span
    atlas : the sprite masks, as :func:`sprite_atlas`
    """
    rgb_colors = COLOR_RGB if colors is None else np.array([COLOR_TABLE[c] for c in colors])
    atlas = sprite_atlas(size_lo, size_hi, shapes, outline)
    pal = palette(rgb_colors)
    table_bytes = atlas.size * len(rgb_colors) * 3
    if table_bytes <= MAX_TABLE_BYTES:
        rgb = np.empty(atlas.shape[:2] + (len(rgb_colors),) + atlas.shape[2:] + (3,), np.uint8)
        for c in range(len(rgb_colors)):
            lut = pal.copy()
            lut[2] = rgb_colors[c]
            rgb[:, :, c] = lut[atlas]
    else:
        rgb = np.zeros((0, 0, 0, 0, 0, 3), np.uint8)
    drawn = atlas > 0
    starts = np.where(drawn.any(-1), drawn.argmax(-1), 0)
    stops = np.where(drawn.any(-1), size_hi - drawn[..., ::-1].argmax(-1), 0)
    return rgb, np.stack([starts, stops], -1).astype(np.int32), atlas


@kernel(inline="always")
def _copy(dst, src):
    """Copy equal-length 1-D byte runs (a plain loop LLVM vectorizes)."""
    for b in range(src.shape[0]):
        dst[b] = src[b]


@kernel
def _stamp_batch(rgb, spans, atlas, pal, size_lo, num_objects, left, top, size, color, shape,
                 removed, first, final, instance):
    """Draw every task: white frames, then each object's sprite rows into the first frame, the
    kept ones into the final frame, and object k as k+1 into ``instance`` (if it has rows).

    ``first``/``final`` are (N, H, W*3) and ``rgb`` (..., size_hi, size_hi*3) byte views, so a
    row's span is one contiguous byte copy. With an empty ``rgb`` each drawn pixel is written
    from ``pal`` (background, outline, colours) instead.
    """
    want_instance = instance.shape[0] > 0
    use_table = rgb.shape[0] > 0
    for i in range(num_objects.shape[0]):
        first[i] = 255
        final[i] = 255
        if want_instance:
            instance[i] = 0
        for k in range(num_objects[i]):
            h, si, col = shape[i, k], size[i, k] - size_lo, color[i, k]
            keep = not removed[i, k]
            for r in range(size[i, k]):
                c0, c1 = spans[h, si, r, 0], spans[h, si, r, 1]
                y, x0 = top[i, k] + r, left[i, k] + c0
                if use_table:
                    n = 3 * (c1 - c0)
                    src = rgb[h, si, col, r, 3 * c0:3 * c0 + n]
                    _copy(first[i, y, 3 * x0:3 * x0 + n], src)
                    if keep:
                        _copy(final[i, y, 3 * x0:3 * x0 + n], src)
                else:
                    for c in range(c0, c1):
                        v = atlas[h, si, r, c]
                        if v == 0:
                            continue
                        src = pal[1] if v == 1 else pal[2 + col]
                        x = 3 * (left[i, k] + c)
                        _copy(first[i, y, x:x + 3], src)
                        if keep:
                            _copy(final[i, y, x:x + 3], src)
                if want_instance:
                    for c in range(c0, c1):
                        if atlas[h, si, r, c] > 0:
                            instance[i, y, left[i, k] + c] = k + 1


def draw_frames(scenes: dict, config, masks: bool = False, out=None):
    """Render the first and final frames (and instance maps) of sampled ``scenes``.

    ``out``, if given, holds arrays to draw into (validated by the caller), e.g. to reuse one
    set of buffers across batches and skip the page faults of fresh memory.

    Returns
    -------
    first, final : (N, H, W, 3) uint8
    instance : (N, H, W) uint8 or None
    """
    n, w, h = len(scenes["num_objects"]), config.width, config.height
    if out is None:
        out = (np.empty((n, h, w, 3), np.uint8), np.empty((n, h, w, 3), np.uint8),
               np.empty((n, h, w), np.uint8) if masks else None)
    first, final, instance = out
    s_lo, s_hi = config.size_range
    vocab = config.vocabulary
    rgb, spans, atlas = stamp_tables(s_lo, s_hi, vocab.shapes, vocab.colors,
                                     config.lengths.outline)
    _stamp_batch(rgb.reshape(rgb.shape[:-2] + (rgb.shape[-2] * 3,)), spans, atlas, palette(vocab.rgb), s_lo,
                 scenes["num_objects"], scenes["left"], scenes["top"], scenes["size"],
                 scenes["color"], scenes["shape"], scenes["removed"],
                 first.reshape(n, h, w * 3), final.reshape(n, h, w * 3),
                 instance if masks else np.empty((0, h, w), np.uint8))
    return first, final, (instance if masks else None)
