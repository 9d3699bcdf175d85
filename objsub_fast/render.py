"""Rendering: sprites rasterized once with scikit-image, stamped into uint8 frames by Numba.

A sprite is a (size, size) uint8 mask of one shape: 0 transparent, 1 outline, 2 fill. An object
of side ``size`` whose bounding square has top-left pixel (left, top) covers rows
top..top+size-1 and columns left..left+size-1; its exact centre is (left + size/2, top + size/2)
in pixel-edge coordinates.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from numba import njit
from skimage.draw import disk, polygon
from skimage.morphology import disk as disk_footprint, erosion

from .vocabulary import BACKGROUND_RGB, COLOR_RGB, OUTLINE_RGB, OUTLINE_WIDTH, SHAPES

TRANSPARENT, OUTLINE, FILL = 0, 1, 2  # sprite values


def _outline(size):
    """Polygon vertices (x, y) of each shape in a square [0, size] x [0, size], pixel edges."""
    half, quarter = size / 2.0, size / 4.0
    return {
        "cube": [(0, 0), (size, 0), (size, size), (0, size)],
        "pyramid": [(half, 0), (half + half * np.sqrt(3) / 2, half + quarter),
                    (half - half * np.sqrt(3) / 2, half + quarter)],
        "cone": [(quarter, 0), (size - quarter, 0), (size, size), (0, size)],
    }


@lru_cache(maxsize=None)
def sprite(shape: int, size: int) -> np.ndarray:
    """Return the (size, size) mask of shape code ``shape``: 0 empty, 1 outline, 2 fill.

    The shape is filled where a pixel's centre lies inside it; the outline is every filled
    pixel within ``OUTLINE_WIDTH`` px of the outside.
    """
    filled = np.zeros((size, size), dtype=bool)
    name = SHAPES[shape]
    if name == "sphere":
        rr, cc = disk(((size - 1) / 2.0, (size - 1) / 2.0), size / 2.0, shape=filled.shape)
    else:
        xy = np.array(_outline(size)[name], dtype=float)
        # skimage puts pixel centres on integers; our vertices are in pixel-edge coordinates.
        rr, cc = polygon(xy[:, 1] - 0.5, xy[:, 0] - 0.5, shape=filled.shape)
    filled[rr, cc] = True
    padded = np.pad(filled, OUTLINE_WIDTH)
    inner = erosion(padded, disk_footprint(OUTLINE_WIDTH)).astype(bool)[
        OUTLINE_WIDTH:-OUTLINE_WIDTH, OUTLINE_WIDTH:-OUTLINE_WIDTH]
    mask = np.where(filled, OUTLINE, TRANSPARENT).astype(np.uint8)
    mask[inner] = FILL
    mask.flags.writeable = False
    return mask


@lru_cache(maxsize=8)
def sprite_atlas(size_lo: int, size_hi: int) -> np.ndarray:
    """All sprites for sizes size_lo..size_hi as (shapes, sizes, size_hi, size_hi) uint8."""
    atlas = np.zeros((len(SHAPES), size_hi - size_lo + 1, size_hi, size_hi), dtype=np.uint8)
    for h in range(len(SHAPES)):
        for s in range(size_lo, size_hi + 1):
            atlas[h, s - size_lo, :s, :s] = sprite(h, s)
    atlas.flags.writeable = False
    return atlas


@lru_cache(maxsize=8)
def sprite_areas(size_lo: int, size_hi: int) -> np.ndarray:
    """Drawn pixels (outline included) per (shape, size - size_lo)."""
    areas = np.count_nonzero(sprite_atlas(size_lo, size_hi), axis=(2, 3))
    areas.flags.writeable = False
    return areas


def palette() -> np.ndarray:
    """Colours by sprite value: row 0 background, row 1 outline, rows 2.. object colours."""
    return np.vstack([BACKGROUND_RGB, OUTLINE_RGB, COLOR_RGB]).astype(np.uint8)


@lru_cache(maxsize=8)
def stamp_tables(size_lo: int, size_hi: int):
    """Sprites ready to stamp: RGB per colour and each row's drawn span.

    Every shape is convex, so each sprite row is one run of drawn pixels; stamping copies
    that run as one contiguous slice.

    Returns
    -------
    rgb : (shapes, sizes, colours, size_hi, size_hi, 3) uint8
    spans : (shapes, sizes, size_hi, 2) int32, [start, stop) column of each row's run
    """
    atlas = sprite_atlas(size_lo, size_hi)
    pal = palette()
    rgb = np.empty(atlas.shape[:2] + (len(COLOR_RGB),) + atlas.shape[2:] + (3,), np.uint8)
    for c in range(len(COLOR_RGB)):
        lut = pal.copy()
        lut[2] = COLOR_RGB[c]
        rgb[:, :, c] = lut[atlas]
    drawn = atlas > 0
    starts = np.where(drawn.any(-1), drawn.argmax(-1), 0)
    stops = np.where(drawn.any(-1), size_hi - drawn[..., ::-1].argmax(-1), 0)
    runs = stops - starts
    if not np.array_equal(runs, drawn.sum(-1)):
        raise AssertionError("a sprite row is not one contiguous run")
    return rgb, np.stack([starts, stops], -1).astype(np.int32)


@njit(cache=True, inline="always")
def _copy(dst, src):
    """Copy equal-length 1-D byte runs (a plain loop LLVM vectorizes)."""
    for b in range(src.shape[0]):
        dst[b] = src[b]


@njit(cache=True)
def stamp_batch(rgb, spans, size_lo, num_objects, left, top, size, color, shape, removed,
                first, final, instance):
    """Draw every task: white frames, then each object's sprite rows into the first frame, the
    kept ones into the final frame, and object k as k+1 into ``instance`` (if it has rows).

    ``first``/``final`` are (N, H, W*3) and ``rgb`` (..., size_hi, size_hi*3) byte views, so a
    row's run is one contiguous byte copy.
    """
    want_instance = instance.shape[0] > 0
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
                n = 3 * (c1 - c0)
                src = rgb[h, si, col, r, 3 * c0:3 * c0 + n]
                _copy(first[i, y, 3 * x0:3 * x0 + n], src)
                if keep:
                    _copy(final[i, y, 3 * x0:3 * x0 + n], src)
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
    rgb, spans = stamp_tables(s_lo, s_hi)
    stamp_batch(rgb.reshape(rgb.shape[:-2] + (-1,)), spans, s_lo, scenes["num_objects"],
                scenes["left"], scenes["top"], scenes["size"], scenes["color"], scenes["shape"],
                scenes["removed"], first.reshape(n, h, w * 3), final.reshape(n, h, w * 3),
                instance if masks else np.empty((0, h, w), np.uint8))
    return first, final, (instance if masks else None)
