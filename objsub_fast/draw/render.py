"""Rendering: sprites rasterized when first needed (polygons by a Numba kernel giving
scikit-image's pixels, disks by scikit-image), stamped into uint8 frames by Numba.

A sprite is a (size, size) uint8 mask of one shape: 0 transparent, 1 outline, 2 fill. An object
of side ``size`` whose bounding square has top-left pixel (left, top) covers rows
top..top+size-1 and columns left..left+size-1; its exact centre is (left + size/2, top + size/2)
in pixel-edge coordinates.
"""
from __future__ import annotations

import threading
from functools import lru_cache
from math import ceil, floor, isqrt

import numpy as np
from skimage.draw import disk

from ..runtime._numba import kernel
from ..task.vocabulary import (BACKGROUND_RGB, COLOR_RGB, COLOR_TABLE, OUTLINE_RGB, OUTLINE_WIDTH,
                               SHAPE_TABLE)

__all__ = ["sprite", "silhouette", "palette", "SpriteStore", "sprite_store", "draw_frames",
           "batch_store", "SHAPE_OUTLINES", "TRANSPARENT", "OUTLINE", "FILL", "MAX_TABLE_BYTES"]

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
    ``vocabulary.SHAPE_TABLE``): 0 empty, 1 outline, 2 fill (read-only, computed once).

    The shape is filled where a pixel's centre lies inside it; the outline is every filled
    pixel within ``outline`` px (Euclidean, pixel centre to pixel centre) of a pixel outside it
    (2 at 256 px, scaled with the canvas): a pixel is fill where the disk of radius ``outline``
    around it is all inside the shape (:func:`_inner`).

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
    filled = silhouette(shape, size)
    inner = _inner(filled, outline)
    mask = np.where(filled, OUTLINE, TRANSPARENT).astype(np.uint8)
    mask[inner] = FILL
    mask.flags.writeable = False
    return mask


def _inner(filled: np.ndarray, radius: int) -> np.ndarray:
    """The pixels of ``filled`` farther than ``radius`` px (Euclidean, pixel centre to pixel
    centre) from every pixel outside it, beyond the array's edges included: the erosion by a
    disk of radius ``radius``, one row of the disk at a time.

    For each row offset ``dy`` of the disk (half-width ``isqrt(radius**2 - dy**2)``), a pixel
    stays when the row ``dy`` away holds no outside pixel within that half-width, counted from
    the row's running count of outside pixels: 2 * radius + 1 comparisons of the sprite's area.
    The same pixels as the exact Euclidean distance transform's ``> radius`` (scipy's
    ``distance_transform_edt``, which this replaced so that making a dataset does not import
    scipy.ndimage: 0.36 CPU-s a process), checked for every shape at sizes 1-640 and radii 0-32
    (tests/test_sprites.py keeps a sample of them); as fast or faster at those radii.
    """
    h, w = filled.shape
    r = int(radius)
    # running counts of outside pixels along each row, the rows framed by r outside pixels
    # at each end and r outside rows above and below; column 0 is the count before any pixel
    outside = np.ones((h + 2 * r, w + 2 * r + 1), np.int32)
    outside[:, 0] = 0
    outside[r:r + h, r + 1:r + 1 + w] = ~filled
    np.cumsum(outside, axis=1, out=outside)
    inner = filled.copy()
    for dy in range(-r, r + 1):
        half = isqrt(r * r - dy * dy)
        counts = outside[r + dy:r + dy + h]
        inner &= counts[:, r + half + 1:r + half + 1 + w] == counts[:, r - half:r - half + w]
    return inner


def silhouette(shape: int, size: int) -> np.ndarray:
    """(size, size) bool: the pixels whose centre lies inside global shape ``shape``."""
    filled = np.zeros((size, size), dtype=bool)
    name = SHAPE_TABLE[shape][0]
    if name == "sphere":
        rr, cc = disk(((size - 1) / 2.0, (size - 1) / 2.0), size / 2.0, shape=filled.shape)
        filled[rr, cc] = True
    else:
        xy = np.array(SHAPE_OUTLINES[name](size), dtype=float)
        # pixel centres on integers (as skimage's); our vertices are in pixel-edge coordinates
        _fill_polygon(xy[:, 1] - 0.5, xy[:, 0] - 0.5, filled)
    return filled


#: Within this distance (px) of a vertex, a pixel centre is on it (scikit-image's tolerance).
VERTEX_EPS = 1e-12


def _fill_polygon(r: np.ndarray, c: np.ndarray, filled: np.ndarray) -> None:
    """Set the pixels of ``filled`` (H, W) bool that ``skimage.draw.polygon(r, c, filled.shape)``
    returns (vertices at rows ``r``, columns ``c``; pixel centres on integers), in the same
    bounding box of pixels, without testing each pixel against every edge:
    :func:`_polygon_rows`."""
    r, c = np.ascontiguousarray(r, np.float64), np.ascontiguousarray(c, np.float64)
    row0, row1 = int(max(0, r.min())), min(filled.shape[0] - 1, int(ceil(r.max())))
    col0, col1 = int(max(0, c.min())), min(filled.shape[1] - 1, int(ceil(c.max())))
    if row1 >= row0 and col1 >= col0:
        _polygon_rows(r, c, row0, row1, col0, col1, filled)


@kernel(nogil=True)
def _polygon_rows(r, c, row0, row1, col0, col1, filled):
    """The pixels of rows ``row0..row1``, columns ``col0..col1`` whose centre (x, y) scikit-image's
    point-in-polygon test (``skimage.draw.polygon``, 0.26) finds inside the polygon, on an edge
    or on a vertex: a vertex within ``VERTEX_EPS``, or an odd count of the edges that straddle
    the row on the pixel's right (``v > 0``) or on its left (``v < 0``), where for the edge from
    vertex ``j`` to ``i`` (``x0 = c[i] - x``, ``y0 = r[i] - y``, likewise ``x1``, ``y1`` for ``j``)
    ``v = (x0 * y1 - x1 * y0) / (y1 - y0)``, the signed distance from the pixel to the crossing.

    That test looks at every edge for every pixel; here each row takes each straddling edge
    once: ``v`` has its sign beyond 2 px of the crossing, so the pixels farther left or right
    flip their count in a run (prefix parities), and the five nearest are tested with the same
    floating-point expression, so that rounding decides them as it does there. Checked equal
    to scikit-image for every shape at sizes 1-1300 and at larger sizes up to 8192
    (tests/test_sprites.py keeps a sample)."""
    n = r.shape[0]
    width = col1 - col0 + 1
    right = np.zeros(width + 1, np.uint8)   # run flips (prefix parity) of right crossings
    left = np.zeros(width + 1, np.uint8)
    right_at = np.zeros(width, np.uint8)    # single-pixel flips near a crossing
    left_at = np.zeros(width, np.uint8)
    vertex = np.zeros(width, np.uint8)
    for row in range(row0, row1 + 1):
        y = float(row)
        right[:] = 0
        left[:] = 0
        right_at[:] = 0
        left_at[:] = 0
        vertex[:] = 0
        j = n - 1
        for i in range(n):
            y0, y1 = r[i] - y, r[j] - y
            if -VERTEX_EPS < y0 < VERTEX_EPS:
                k = int(floor(c[i] + 0.5))
                for x in range(max(k - 1, col0), min(k + 1, col1) + 1):
                    if -VERTEX_EPS < c[i] - x < VERTEX_EPS:
                        vertex[x - col0] = 1
            on_right, on_left = (y0 > 0) != (y1 > 0), (y0 < 0) != (y1 < 0)
            if on_right or on_left:
                cross = c[i] + (y - r[i]) * (c[j] - c[i]) / (r[j] - r[i])
                near0 = min(max(int(floor(cross)) - 2, col0), col1 + 1)
                near1 = min(max(int(floor(cross)) + 3, col0), col1 + 1)
                if on_right and near0 > col0:      # every x < near0: v > 0
                    right[0] ^= 1
                    right[near0 - col0] ^= 1
                if on_left and near1 <= col1:      # every x >= near1: v < 0
                    left[near1 - col0] ^= 1
                    left[width] ^= 1
                for x in range(near0, near1):
                    x0, x1 = c[i] - x, c[j] - x
                    v = (x0 * y1 - x1 * y0) / (y1 - y0)
                    if on_right and v > 0:
                        right_at[x - col0] ^= 1
                    if on_left and v < 0:
                        left_at[x - col0] ^= 1
            j = i
        odd_right, odd_left = 0, 0
        for k in range(width):
            odd_right ^= right[k]
            odd_left ^= left[k]
            if (odd_right ^ right_at[k]) or (odd_left ^ left_at[k]) or vertex[k]:
                filled[row, col0 + k] = True


def palette(colors_rgb=COLOR_RGB) -> np.ndarray:
    """Colours by sprite value: row 0 background, row 1 outline, rows 2.. object colours."""
    return np.vstack([BACKGROUND_RGB, OUTLINE_RGB, colors_rgb]).astype(np.uint8)


class SpriteStore:
    """The sprites of one configuration, each drawn when a batch first needs it.

    Holds, per (shape code, size) of the configuration, the row spans and the drawn area, and
    per (shape, size, colour) the RGB sprite (all in one growing byte buffer), filled in by
    :meth:`prepare` for the (shape, size, colour) triples a batch uses. Nothing is drawn for
    sizes no batch uses, so a 4096 px canvas costs what its objects cost.

    Every shape is drawn one run per sprite row (convex along rows), and so is its fill (the
    erosion of a row-convex shape is row-convex): a row is outline [start, fill start), fill
    [fill start, fill stop), outline [fill stop, stop). Stamping copies a row's run from the
    RGB sprite as one contiguous slice, or, without a table (``table`` False: large canvases
    in the flat look), paints its three pieces in their colours.

    Attributes
    ----------
    spans : (shapes, sizes, size_hi, 4) int32
        [start, stop) of each row's drawn run and [fill start, fill stop) of its fill (both at
        stop when the row has no fill); valid where ``areas`` >= 0.
    areas : (shapes, sizes) int64
        Drawn pixels per (shape, size - size_lo), -1 until drawn.
    offsets : (shapes, sizes, colours) int64
        Where each RGB sprite starts in ``pixels`` (rows of 3 * size bytes), -1 until drawn.
    pixels : (n,) uint8
        The RGB sprites' bytes (``pixels[:used]`` is in use).

    Examples
    --------
    >>> store = SpriteStore("flat", (0, 1), ((255, 0, 0),), 2, 20, 40, table=True)
    >>> store.prepare(np.array([[1]]), np.array([[30]]), np.array([[0]]), np.array([1]))
    >>> int(store.areas[1, 10]), int(store.areas[0, 10]), int(store.offsets[1, 10, 0])
    (716, -1, 0)
    """

    def __init__(self, look: str, shapes: tuple, colors: tuple, outline: int, size_lo: int,
                 size_hi: int, table: bool):
        self.look, self.shapes, self.colors, self.outline = look, shapes, colors, outline
        self.size_lo, self.size_hi, self.table = size_lo, size_hi, table
        sizes = size_hi - size_lo + 1
        self.spans = np.zeros((len(shapes), sizes, size_hi, 4), np.int32)
        self.areas = np.full((len(shapes), sizes), -1, np.int64)
        self.offsets = np.full((len(shapes), sizes, len(colors)), -1, np.int64)
        self.pixels = np.zeros(0, np.uint8)
        self.used = 0
        self._lock = threading.Lock()

    def mask_and_rgb(self, h: int, size: int, c: int):
        """(mask, rgb): the (size, size) drawn pixels and (size, size, 3) colours of shape code
        ``h`` at ``size`` in colour code ``c`` (``rgb`` None when ``c`` is None)."""
        code = self.shapes[h]
        if self.look == "solid":
            from .solids import solid_sprite
            mask, rgb = solid_sprite(code, size, None if c is None else self.colors[c])
            return mask, rgb
        labels = sprite(code, size, self.outline)
        if c is None:
            return labels, None
        lut = palette(np.array([self.colors[c]], np.uint8))
        return labels, lut[labels]

    def _add_shape(self, h: int, size: int) -> None:
        mask, _ = self.mask_and_rgb(h, size, None)
        si = size - self.size_lo
        drawn, fill = _row_runs(mask > 0), _row_runs(mask == FILL)
        no_fill = fill[:, 0] == fill[:, 1]
        fill[no_fill] = drawn[no_fill][:, 1:]
        self.spans[h, si, :size] = np.concatenate([drawn, fill], -1)
        self.areas[h, si] = np.count_nonzero(mask)

    def _add_rgb(self, h: int, size: int, c: int) -> None:
        _, rgb = self.mask_and_rgb(h, size, c)
        n = rgb.size
        if self.used + n > len(self.pixels):
            grown = np.zeros(max(2 * len(self.pixels), self.used + n), np.uint8)
            grown[:self.used] = self.pixels[:self.used]
            self.pixels = grown
        self.pixels[self.used:self.used + n] = rgb.ravel()
        self.offsets[h, size - self.size_lo, c] = self.used
        self.used += n

    def prepare(self, shape, size, color, num_objects, rgb: bool = True) -> None:
        """Draw whatever the (N, M) objects of a batch (``num_objects`` each) need and no batch
        needed before: spans and areas per (shape, size) and, with a table and ``rgb``, the
        RGB sprite per (shape, size, colour)."""
        valid = np.arange(shape.shape[1]) < np.asarray(num_objects)[:, None]
        h, si = shape[valid].astype(np.int64), size[valid].astype(np.int64) - self.size_lo
        c = color[valid].astype(np.int64)
        with self._lock:
            missing = self.areas[h, si] < 0
            for key in np.unique((h[missing] << 20) | si[missing]).tolist():
                self._add_shape(key >> 20, (key & 0xFFFFF) + self.size_lo)
            if self.table and rgb:
                missing = self.offsets[h, si, c] < 0
                keys = (((h[missing] << 20) | si[missing]) << 8) | c[missing]
                for key in np.unique(keys).tolist():
                    self._add_rgb(key >> 28, ((key >> 8) & 0xFFFFF) + self.size_lo, key & 0xFF)

    def object_areas(self, shape, size, num_objects) -> np.ndarray:
        """(N, M) int32 drawn pixels of each of a batch's objects (0 for padding)."""
        self.prepare(shape, size, shape, num_objects, rgb=False)
        valid = np.arange(shape.shape[1]) < np.asarray(num_objects)[:, None]
        si = np.where(valid, size.astype(np.int64) - self.size_lo, 0)
        return np.where(valid, self.areas[shape, si], 0).astype(np.int32)


@lru_cache(maxsize=8)
def sprite_store(look: str, size_lo: int, size_hi: int, shapes=(0, 1, 2, 3), colors=None,
                 outline: int = OUTLINE_WIDTH) -> SpriteStore:
    """The :class:`SpriteStore` of a configuration (one per process, filled as batches need).

    ``colors`` are colour names (default: the classic six). The flat look copies rows from
    RGB sprites unless a table of every sprite would exceed ``MAX_TABLE_BYTES`` (large
    canvases: 80-160 px objects), where painting rows is faster; the solid look always does.
    """
    rgb = tuple(map(tuple, (COLOR_RGB if colors is None else
                            np.array([COLOR_TABLE[c] for c in colors])).tolist()))
    table_bytes = len(shapes) * (size_hi - size_lo + 1) * len(rgb) * size_hi * size_hi * 3
    table = look == "solid" or table_bytes <= MAX_TABLE_BYTES
    return SpriteStore(look, tuple(shapes), rgb, outline, size_lo, size_hi, table)


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
def _stamp_batch(pixels, offsets, spans, pal, size_lo, use_table, num_objects, left, top, size,
                 color, shape, removed, first, final, instance):
    """Draw every task: white frames, then each object's sprite rows into the first frame, the
    kept ones into the final frame, and object k as k+1 into ``instance`` (if it has rows).

    ``first``/``final`` are (N, H, W*3) byte views and the RGB sprite of (shape, size, colour)
    is ``size`` rows of 3 * size bytes from ``pixels[offsets[...]]``, so a row's run is one
    contiguous byte copy. Without ``use_table`` each row is painted as outline, fill, outline
    from ``pal`` (background, outline, colours) instead.
    """
    want_instance = instance.shape[0] > 0
    for i in range(num_objects.shape[0]):
        first[i] = 255
        final[i] = 255
        if want_instance:
            instance[i] = 0
        for k in range(num_objects[i]):
            h, si, col, s = shape[i, k], size[i, k] - size_lo, color[i, k], size[i, k]
            keep = not removed[i, k]
            at = offsets[h, si, col] if use_table else 0
            for r in range(s):
                c0, c1 = spans[h, si, r, 0], spans[h, si, r, 1]
                y, x0 = top[i, k] + r, left[i, k] + c0
                if use_table:
                    n = 3 * (c1 - c0)
                    src = pixels[at + 3 * (r * s + c0):at + 3 * (r * s + c0) + n]
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


def batch_store(config) -> SpriteStore:
    """The :class:`SpriteStore` of an engine configuration (its look, sizes, vocabulary)."""
    s_lo, s_hi = config.size_range
    vocab = config.vocabulary
    return sprite_store(config.look, s_lo, s_hi, vocab.shapes, vocab.colors,
                        config.lengths.outline)


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
    store = batch_store(config)
    store.prepare(scenes["shape"], scenes["size"], scenes["color"], scenes["num_objects"])
    _stamp_batch(store.pixels, store.offsets, store.spans, palette(config.vocabulary.rgb),
                 store.size_lo, store.table,
                 scenes["num_objects"], scenes["left"], scenes["top"], scenes["size"],
                 scenes["color"], scenes["shape"], scenes["removed"],
                 first.reshape(n, h, w * 3), final.reshape(n, h, w * 3),
                 instance if masks else np.empty((0, h, w), np.uint8))
    return first, final, (instance if masks else None)
