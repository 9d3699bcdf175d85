"""Scene sampling and rule targeting for a whole batch in one Numba kernel.

The kernel works on the 256-unit canvas (``objsub_fast.task.units``: the canvas scaled so that its
shorter side is 256) with the scene model's 256 px lengths, so every decision is the same at
every canvas size, and writes each accepted scene in the canvas's pixels
(``objsub_fast.task.scene_pixels``). With a fractional scale factor it checks every guarantee on those
pixels too and resamples a task whose rounding would break one.

Each task draws its rule kind first, then builds a scene on which that kind is valid: placement
honours the kind's constraints (dividing lines, order gaps, size separations, odd-one-out
structure) and an attempt that misses them is resampled from the task's own random stream. Every
loop is bounded; a task that still fails is reported, never filled in with a fallback layout.
"""
from __future__ import annotations

import math

import numpy as np

from ..runtime._numba import kernel
from .config import Lengths
from .rng import _new_stream, _randint, _shuffle, _uniform
from .scene_pixels import holds_in_pixels, pixel_lengths, scale_task
from .scene_pixels import inside as _inside, order_key as _order_key
from .units import REFERENCE_SIDE
from .vocabulary import (ATTRIBUTE, ENUMERATE, KINDS, LEVEL_KINDS, LEVELS, ODDITY, ORDER, REGION,
                         REGIONS, SIZE)

__all__ = ["generate_scenes", "kind_tables", "region_tables", "MAX_ATTEMPTS", "PLACE_TRIES",
           "MAX_LISTED"]

# Indices into the kernel's ``lengths`` array (``config.Lengths().kernel_array()``: 256 units).
EDGE, SPACING, ORDER_GAP, SIZE_GAP, SIZE_RANGE = range(5)
MAX_ATTEMPTS = 200  # scene resamples per task
PLACE_TRIES = 100  # positions tried per object within one attempt
MAX_LISTED = 3


def kind_tables():
    """Return the kind table as arrays for the kernel: family, param, variants, max_removed,
    and the (levels, kinds) matrix of kind codes."""
    family = np.array([k.family for k in KINDS], dtype=np.int64)
    param = np.array([k.param for k in KINDS], dtype=np.int64)
    variants = np.array([k.variants for k in KINDS], dtype=np.int64)
    max_removed = np.array([k.max_removed for k in KINDS], dtype=np.int64)
    width = max(len(v) for v in LEVEL_KINDS.values())
    level_kinds = np.full((len(LEVELS), width), -1, dtype=np.int64)
    for li, lv in enumerate(LEVELS):
        level_kinds[li, : len(LEVEL_KINDS[lv])] = LEVEL_KINDS[lv]
    return family, param, variants, max_removed, level_kinds


def region_tables(width, height):
    """Return region rectangles (R, 4) of a width x height canvas (the kernel's: 256 units) and
    their inner dividing lines (R, 2) as (x line, y line), -1 where a region has none."""
    rects = np.array([r for _, r in REGIONS], dtype=np.float64) * np.array(
        [width, width, height, height], dtype=np.float64)
    lines = np.full((len(REGIONS), 2), -1.0)
    for r, (_, (x0, x1, y0, y1)) in enumerate(REGIONS):
        inner_x = [v for v in (x0, x1) if 0.0 < v < 1.0]
        inner_y = [v for v in (y0, y1) if 0.0 < v < 1.0]
        lines[r, 0] = inner_x[0] * width if inner_x else -1.0
        lines[r, 1] = inner_y[0] * height if inner_y else -1.0
    return rects, lines


@kernel
def _sample_batch(seeds, level_codes, cumulative_weights, n_lo, n_hi, s_lo, s_hi, width, height,
                  unit_width, unit_height, lengths, n_colors, n_shapes, n_wordings,
                  family, param, variants, max_removed, level_kinds, region_rects, region_lines,
                  pixels, kind, variant, num_objects, left, top, size, color, shape, removed,
                  listed, wording, ok):
    """Sample every task of a batch into the output arrays (see :func:`generate_scenes`),
    decided in units: ``unit_width`` x ``unit_height`` is the unit canvas, ``width`` and
    ``height`` its whole units (what positions are drawn from). ``pixels`` is the tuple of
    :func:`_pixel_canvas`; ``left``, ``top`` and ``size`` are written in its pixels."""
    for i in range(seeds.shape[0]):
        lv = level_codes[i]
        state = _new_stream(np.uint64(seeds[i]), lv + 1)
        col = 0
        u = _uniform(state)
        while col < cumulative_weights.shape[1] - 1 and cumulative_weights[lv, col] <= u:
            col += 1
        k = level_kinds[lv, col]
        kind[i] = k
        ok[i] = _sample_task(state, family[k], param[k], variants[k], max_removed[k],
                             n_lo[lv], n_hi[lv], s_lo, s_hi, width, height, unit_width,
                             unit_height, lengths, n_colors,
                             n_shapes, region_rects, region_lines, pixels, i, variant,
                             num_objects, left, top, size, color, shape, removed, listed)
        # Drawn last, and only when asked for: the scene is the same with or without it.
        if n_wordings > 1:
            wording[i] = _randint(state, 0, n_wordings - 1)


@kernel
def _sample_task(state, fam, prm, n_variants, max_rem, n_lo, n_hi, s_lo, s_hi, width, height,
                 unit_width, unit_height, lengths, n_colors, n_shapes, region_rects,
                 region_lines, pixels, i, variant, num_objects, left, top, size, color, shape,
                 removed, listed):
    scale, width_px, height_px, px_lengths, rects_px, lines_px, check_px = pixels
    m = n_hi
    lefts = np.zeros(m, np.int64)
    tops = np.zeros(m, np.int64)
    sizes = np.zeros(m, np.int64)
    colors = np.zeros(m, np.int64)
    shapes = np.zeros(m, np.int64)
    rem = np.zeros(m, np.bool_)
    px_left = np.zeros(m, np.int64)
    px_top = np.zeros(m, np.int64)
    px_size = np.zeros(m, np.int64)
    lines = np.full(2, -1.0)
    lines_here_px = np.full(2, -1.0)
    rect_px = rects_px[0]
    lst = np.full(MAX_LISTED, -1, np.int64)
    # Draws fixed for the whole task, before any attempt: the order rule's N, the region.
    var = 0
    region = -1
    n_inside = -1
    vline = -1.0
    hline = -1.0
    if fam == ORDER:
        var = _randint(state, 1, min(max_rem, n_lo - 1))
    elif fam == REGION:
        region = prm + _randint(state, 0, n_variants - 1)
        var = region
        vline = region_lines[region, 0]
        hline = region_lines[region, 1]
        lines[:] = region_lines[region]
        lines_here_px[:] = lines_px[region]
        rect_px = rects_px[region]
        if max_rem > 0:
            n_inside = _randint(state, 1, min(max_rem, n_lo - 1))
    for _ in range(MAX_ATTEMPTS):
        n = _randint(state, n_lo, n_hi)
        rem[:] = False
        for j in range(n):
            sizes[j] = _randint(state, s_lo, s_hi)
            colors[j] = _randint(state, 0, n_colors - 1)
            shapes[j] = _randint(state, 0, n_shapes - 1)
        if fam == SIZE:
            _size_extremes(state, n, prm, s_lo, s_hi, lengths, sizes, rem)
        elif fam == ODDITY:
            if prm == 0:
                _odd_combo(state, n, colors, n_colors, shapes, n_shapes, rem)
            elif prm == 1:
                _odd_one_out(state, n, shapes, n_shapes, colors, n_colors, rem)
            else:
                _odd_one_out(state, n, colors, n_colors, shapes, n_shapes, rem)
        rect = region_rects[max(region, 0)]
        if n_inside > 0:  # objects bound for a region take a size that fits it
            edge = lengths[EDGE]
            room_x = min(width - edge, math.floor(rect[1])) - max(edge, math.ceil(rect[0]))
            room_y = min(height - edge, math.floor(rect[3])) - max(edge, math.ceil(rect[2]))
            room = min(room_x, room_y)
            for j in range(n_inside):
                sizes[j] = _randint(state, s_lo, min(s_hi, room))
        if not _place(state, n, sizes, lefts, tops, width, height, lengths, vline, hline, rect,
                      n_inside):
            continue
        good = True
        if fam == ATTRIBUTE:
            var = _attribute_target(state, n, colors if prm == 0 else shapes,
                                    n_colors if prm == 0 else n_shapes, rem)
            good = var >= 0
        elif fam == ENUMERATE:
            good = _enumerate_target(state, n, prm, colors, shapes, n_shapes, lst, rem)
        elif fam == ORDER:
            good = _order_target(n, prm, var, lefts, tops, sizes, unit_width, unit_height,
                                 lengths[ORDER_GAP], rem)
        elif fam == REGION:
            good = _region_target(n, rect, lefts, tops, sizes, max_rem, rem)
        if not good:
            continue
        scale_task(n, lefts, tops, sizes, scale, width_px, height_px, lines, lines_here_px,
                   px_lengths[EDGE], px_left, px_top, px_size)
        if check_px and not holds_in_pixels(n, fam, prm, rem, px_left, px_top, px_size,
                                            width_px, height_px, px_lengths, lines_here_px,
                                            rect_px):
            continue
        perm = np.arange(n)
        _shuffle(state, perm, n)
        for j in range(n):
            p = perm[j]
            left[i, j] = px_left[p]
            top[i, j] = px_top[p]
            size[i, j] = px_size[p]
            color[i, j] = colors[p]
            shape[i, j] = shapes[p]
            removed[i, j] = rem[p]
        for j in range(MAX_LISTED):
            listed[i, j] = lst[j]
        num_objects[i] = n
        variant[i] = var
        return True
    return False


@kernel
def _place(state, n, sizes, lefts, tops, width, height, lengths, vline, hline, rect, n_inside):
    """Place n squares by rejection: inside the canvas margins, ``spacing`` px apart, not
    crossing the dividing lines; with ``n_inside >= 0`` the first n_inside inside ``rect``, the
    rest outside. At most PLACE_TRIES positions per object: bounded."""
    edge, spacing = lengths[EDGE], lengths[SPACING]
    for j in range(n):
        x_lo, x_hi = edge, width - edge - sizes[j]
        y_lo, y_hi = edge, height - edge - sizes[j]
        if j < n_inside:
            x_lo = max(x_lo, math.ceil(rect[0]))
            x_hi = min(x_hi, math.floor(rect[1]) - sizes[j])
            y_lo = max(y_lo, math.ceil(rect[2]))
            y_hi = min(y_hi, math.floor(rect[3]) - sizes[j])
        if x_hi < x_lo or y_hi < y_lo:
            return False
        placed = False
        for _ in range(PLACE_TRIES):
            x = _randint(state, x_lo, x_hi)
            y = _randint(state, y_lo, y_hi)
            if n_inside >= 0 and j >= n_inside and _inside(x, y, sizes[j], rect):
                continue
            if _fits(x, y, sizes[j], lefts, tops, sizes, j, vline, hline, spacing):
                lefts[j] = x
                tops[j] = y
                placed = True
                break
        if not placed:
            return False
    return True


@kernel
def _fits(x, y, sz, lefts, tops, sizes, count, vline, hline, spacing):
    """True when a square at (x, y) of side sz crosses no line and keeps its spacing."""
    if vline >= 0 and x < vline < x + sz:
        return False
    if hline >= 0 and y < hline < y + sz:
        return False
    for k in range(count):
        if (x >= lefts[k] + sizes[k] + spacing or lefts[k] >= x + sz + spacing
                or y >= tops[k] + sizes[k] + spacing or tops[k] >= y + sz + spacing):
            continue
        return False
    return True


@kernel
def _size_extremes(state, n, direction, s_lo, s_hi, lengths, sizes, rem):
    """Sizes for a largest (+1) / smallest (-1) rule: 1 or 2 extremes at least the size gap
    beyond every other object, and a scene range of at least the size range. Built as
    'largest' and mirrored for 'smallest'."""
    size_gap, size_range = lengths[SIZE_GAP], lengths[SIZE_RANGE]
    extremes = 1 if _uniform(state) < 2.0 / 3.0 else 2
    extremes = min(extremes, n - 1)
    peak = _randint(state, s_lo + size_range, s_hi)
    for j in range(n):
        if j < extremes:
            v = peak
        elif j == extremes:
            v = _randint(state, s_lo, peak - size_range)
        else:
            v = _randint(state, s_lo, peak - size_gap)
        sizes[j] = v if direction > 0 else s_lo + s_hi - v
        rem[j] = j < extremes


@kernel
def _odd_combo(state, n, colors, n_colors, shapes, n_shapes, rem):
    """All but one object share a colour and a shape; the last differs in both."""
    c0 = _randint(state, 0, n_colors - 1)
    h0 = _randint(state, 0, n_shapes - 1)
    for j in range(n - 1):
        colors[j] = c0
        shapes[j] = h0
    colors[n - 1] = (c0 + _randint(state, 1, n_colors - 1)) % n_colors
    shapes[n - 1] = (h0 + _randint(state, 1, n_shapes - 1)) % n_shapes
    rem[n - 1] = True


@kernel
def _odd_one_out(state, n, differs, n_differs, varies, n_varies, rem):
    """All but the last object share one value of ``differs``; the last has another. ``varies``
    shows at least two values, each on at least two objects, and the odd object takes one of
    them, so only ``differs`` singles out an object."""
    d0 = _randint(state, 0, n_differs - 1)
    for j in range(n - 1):
        differs[j] = d0
    differs[n - 1] = (d0 + _randint(state, 1, n_differs - 1)) % n_differs
    _groups_of_two_or_more(state, n - 1, varies, n_varies)
    varies[n - 1] = varies[_randint(state, 0, n - 2)]
    rem[n - 1] = True


@kernel
def _groups_of_two_or_more(state, m, out, n_values):
    """Fill out[:m] with 2..min(m//2, n_values) distinct values, each used at least twice."""
    groups = _randint(state, 2, min(m // 2, n_values))
    values = np.arange(n_values)
    _shuffle(state, values, n_values)
    counts = np.full(groups, 2)
    for _ in range(m - 2 * groups):
        counts[_randint(state, 0, groups - 1)] += 1
    j = 0
    for g in range(groups):
        for _ in range(counts[g]):
            out[j] = values[g]
            j += 1
    _shuffle(state, out, m)


@kernel
def _attribute_target(state, n, values, n_values, rem):
    """Pick a value present on some but not all objects; mark its objects. -1 if none."""
    counts = np.zeros(n_values, np.int64)
    for j in range(n):
        counts[values[j]] += 1
    candidates = np.empty(n_values, np.int64)
    found = 0
    for v in range(n_values):
        if 0 < counts[v] < n:
            candidates[found] = v
            found += 1
    if found == 0:
        return -1
    chosen = candidates[_randint(state, 0, found - 1)]
    for j in range(n):
        rem[j] = values[j] == chosen
    return chosen


@kernel
def _enumerate_target(state, n, k, colors, shapes, n_shapes, lst, rem):
    """List k distinct (colour, shape) pairs present in the scene, leaving one pair kept."""
    pairs = np.empty(n, np.int64)
    distinct = 0
    for j in range(n):
        code = colors[j] * n_shapes + shapes[j]
        seen = False
        for q in range(distinct):
            seen = seen or pairs[q] == code
        if not seen:
            pairs[distinct] = code
            distinct += 1
    if distinct < k + 1:
        return False
    _shuffle(state, pairs, distinct)
    lst[:] = -1
    for q in range(k):
        lst[q] = pairs[q]
    for j in range(n):
        code = colors[j] * n_shapes + shapes[j]
        rem[j] = False
        for q in range(k):
            rem[j] = rem[j] or lst[q] == code
    return True


@kernel
def _order_target(n, key, count, lefts, tops, sizes, width, height, order_gap, rem):
    """Remove the ``count`` objects first in ``key`` order if the next one is ``order_gap``
    behind."""
    if count >= n:
        return False
    values = np.empty(n)
    for j in range(n):
        half = sizes[j] / 2.0
        values[j] = _order_key(key, lefts[j] + half, tops[j] + half, width, height)
    order = np.argsort(values)
    if values[order[count]] - values[order[count - 1]] < order_gap:
        return False
    for j in range(n):
        rem[j] = False
    for q in range(count):
        rem[order[q]] = True
    return True


@kernel
def _region_target(n, rect, lefts, tops, sizes, max_rem, rem):
    """Remove the objects inside the region; valid with 1..n-1 of them (1..max_rem if set)."""
    inside = 0
    for j in range(n):
        rem[j] = _inside(lefts[j], tops[j], sizes[j], rect)
        inside += rem[j]
    limit = n - 1 if max_rem == 0 else min(max_rem, n - 1)
    return 1 <= inside <= limit


def _pixel_canvas(config):
    """What the kernel needs to write and check a scene in ``config``'s pixels: (scale factor,
    width, height, guaranteed lengths in whole pixels, region rectangles and dividing lines in
    pixels, whether to check the guarantees on the pixels: only with a fractional scale
    factor, since with a whole one every length scales exactly)."""
    rects_px, lines_px = region_tables(config.width, config.height)
    return (float(config.scale), config.width, config.height,
            pixel_lengths(Lengths().kernel_array(), config.width, config.height), rects_px,
            lines_px, min(config.width, config.height) % REFERENCE_SIDE != 0)


def generate_scenes(seeds, level_codes, config):
    """Sample the scenes and rules of a batch: decided on the 256-unit canvas, returned in the
    pixels of ``config``'s canvas (``objsub_fast.task.units``).

    Parameters
    ----------
    seeds : (N,) int64 array
    level_codes : (N,) int8 array of indices into ``LEVELS``
    config : objsub_fast.task.config.Config

    Returns
    -------
    dict of arrays: ``kind``, ``variant`` (N,); ``num_objects`` (N,); ``left``, ``top``,
    ``size`` (pixels), ``color``, ``shape``, ``removed`` (N, M); ``listed`` (N, 3) pair codes
    ``color * len(shapes) + shape`` of an L2 rule (-1 padded); ``wording`` (N,) the prompt
    wording (0, the original, unless ``config.prompt_variants`` > 1). Colour and shape codes
    index ``config.vocabulary``.
    """
    n, m = len(seeds), config.max_objects
    n_lo = np.array([config.object_counts.get(lv, (5, 8))[0] for lv in LEVELS], np.int64)
    n_hi = np.array([config.object_counts.get(lv, (5, 8))[1] for lv in LEVELS], np.int64)
    out = {
        "kind": np.zeros(n, np.int16), "variant": np.zeros(n, np.int16),
        "num_objects": np.zeros(n, np.int16),
        "left": np.zeros((n, m), np.int32), "top": np.zeros((n, m), np.int32),
        "size": np.zeros((n, m), np.int16), "color": np.zeros((n, m), np.int8),
        "shape": np.zeros((n, m), np.int8), "removed": np.zeros((n, m), np.bool_),
        "listed": np.full((n, MAX_LISTED), -1, np.int8),
        "wording": np.zeros(n, np.int8),
    }
    ok = np.zeros(n, np.bool_)
    unit_width, unit_height = config.unit_canvas
    rects, lines = region_tables(unit_width, unit_height)
    _sample_batch(seeds, level_codes.astype(np.int64), config.cumulative_weights, n_lo, n_hi,
                  *config.unit_size_range, math.floor(unit_width), math.floor(unit_height),
                  unit_width, unit_height, Lengths().kernel_array(),
                  len(config.vocabulary.colors), len(config.vocabulary.shapes),
                  config.prompt_variants, *_KIND_TABLES, rects, lines, _pixel_canvas(config),
                  out["kind"],
                  out["variant"], out["num_objects"], out["left"], out["top"], out["size"],
                  out["color"], out["shape"], out["removed"], out["listed"], out["wording"], ok)
    if not ok.all():
        bad = seeds[~ok][:5].tolist()
        raise RuntimeError(
            f"could not build a valid scene for {int((~ok).sum())} task(s) (seeds {bad}...) "
            f"within {MAX_ATTEMPTS} attempts: the canvas {config.width}x{config.height} is too "
            f"crowded for object_size {config.size_range} and num_objects "
            f"{config.object_counts}; use a larger canvas or fewer/smaller objects")
    return out


_KIND_TABLES = kind_tables()
