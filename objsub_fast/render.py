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
#: Above this size the per-colour RGB sprite table is not built and each sprite row is painted
#: as outline, fill, outline (large canvases: 80-160 px objects would need 150 MB of table;
#: painting is faster than copying there, 2,700 vs 2,000 tasks/s at 1024 px, and about 15%
#: slower at 256 px, where the table is small).
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

    ``colors`` are colour names (default: the classic six). Every shape is drawn one run per
    sprite row (convex along rows), and so is its fill (the erosion of a row-convex shape is
    row-convex): a row is outline [start, fill start), fill [fill start, fill stop), outline
    [fill stop, stop). Stamping copies a row's run from the RGB table as one contiguous slice,
    or, without a table, paints its three pieces in their colours.

    Returns
    -------
    rgb : (shapes, sizes, colours, size_hi, size_hi, 3) uint8, or an empty array when it would
        exceed MAX_TABLE_BYTES (large canvases: 80-160 px objects)
    spans : (shapes, sizes, size_hi, 4) int32: [start, stop) of each row's drawn run and
        [fill start, fill stop) of its fill (both at stop when the row is all outline)
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
    drawn_run, fill_run = _row_runs(atlas > 0), _row_runs(atlas == FILL)
    no_fill = fill_run[..., 0] == fill_run[..., 1]
    fill_run[no_fill] = drawn_run[no_fill][:, 1:]
    return rgb, np.concatenate([drawn_run, fill_run], -1).astype(np.int32)


def _row_runs(pixels: np.ndarray) -> np.ndarray:
    """[first, last + 1) of the True pixels of each row (0, 0 for an empty row); refuses rows
    that are not one run."""
    width = pixels.shape[-1]
    any_pixel = pixels.any(-1)
    starts = np.where(any_pixel, pixels.argmax(-1), 0)
    stops = np.where(any_pixel, width - pixels[..., ::-1].argmax(-1), 0)
    if not np.array_equal(stops - starts, pixels.sum(-1)):
        raise AssertionError("a sprite row is not one contiguous run")
    return np.stack([starts, stops], -1)


@kernel(inline="always")
def _copy(dst, src):
    """Copy equal-length 1-D byte runs (a plain loop LLVM vectorizes)."""
    for b in range(src.shape[0]):
        dst[b] = src[b]


@kernel(inline="always")
def _paint(dst, start, stop, rgb):
    """Set pixels start..stop-1 of a byte row to the colour ``rgb``."""
    for p in range(start, stop):
        dst[3 * p] = rgb[0]
        dst[3 * p + 1] = rgb[1]
        dst[3 * p + 2] = rgb[2]


@kernel(inline="always")
def _paint_row(dst, x, c0, f0, f1, c1, outline, fill):
    """One sprite row at column offset ``x``: outline, fill, outline."""
    _paint(dst, x + c0, x + f0, outline)
    _paint(dst, x + f0, x + f1, fill)
    _paint(dst, x + f1, x + c1, outline)


@kernel
def _stamp_batch(rgb, spans, pal, size_lo, num_objects, left, top, size, color, shape, removed,
                 first, final, instance):
    """Draw every task: white frames, then each object's sprite rows into the first frame, the
    kept ones into the final frame, and object k as k+1 into ``instance`` (if it has rows).

    ``first``/``final`` are (N, H, W*3) and ``rgb`` (..., size_hi, size_hi*3) byte views, so a
    row's run is one contiguous byte copy. With an empty ``rgb`` each row is painted as
    outline, fill, outline from ``pal`` (background, outline, colours) instead.
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
                    f0, f1 = spans[h, si, r, 2], spans[h, si, r, 3]
                    _paint_row(first[i, y], left[i, k], c0, f0, f1, c1, pal[1], pal[2 + col])
                    if keep:
                        _paint_row(final[i, y], left[i, k], c0, f0, f1, c1, pal[1],
                                   pal[2 + col])
                if want_instance:
                    for c in range(x0, x0 + c1 - c0):
                        instance[i, y, c] = k + 1


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
    rgb, spans = stamp_tables(s_lo, s_hi, vocab.shapes, vocab.colors, config.lengths.outline)
    _stamp_batch(rgb.reshape(rgb.shape[:-2] + (rgb.shape[-2] * 3,)), spans, palette(vocab.rgb),
                 s_lo,
                 scenes["num_objects"], scenes["left"], scenes["top"], scenes["size"],
                 scenes["color"], scenes["shape"], scenes["removed"],
                 first.reshape(n, h, w * 3), final.reshape(n, h, w * 3),
                 instance if masks else np.empty((0, h, w), np.uint8))
    return first, final, (instance if masks else None)
