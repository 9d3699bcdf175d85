"""A task's ground-truth video with the own H.264 encoder in one compiled call: the transition's
plan (``transitions.plan_transition``), packed into flat arrays, is drawn, converted to YUV
straight into the encoder's source planes and encoded picture after picture without going back
to Python.

The pictures are the frames ``transitions.transition_updates`` draws, converted as
``video.YuvPicture`` converts them, so a video's bytes are those of adding its frames one at a
time (``video.ObjsubEncoder.add``); only the Python work per frame is gone.

Examples
--------
>>> from objsub_fast import generate_batch
>>> from objsub_fast.ground_truth.transitions import plan_transition, task_arrays
>>> b = generate_batch([7])
>>> plan = plan_transition(b.first_frames[0], style="fade", num_frames=8, **task_arrays(b, 0))
>>> packed = pack_plan(plan)
>>> len(packed.start), int(packed.start[0]), packed.paint.shape[1], packed.hint[:1].tolist()
(8, 1, 9, [[0, 0]])
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..runtime._numba import noalloc_kernel
from .h264.bitstream import _escape_into
from .h264.encoder import NAL_IDR, NAL_SLICE, mark_changed, pad_edges
from .h264.macroblock import code_picture
from .h264.params import LOG2_MAX_FRAME_NUM, WEIGHTS_IDENTITY, WEIGHTS_NONE, WEIGHTS_SECOND_REF
from .transitions import _paint_runs, _paint_solid
from .yuv import _even, chroma_rect, convert_rects, luma_rect, rgb_to_yuv420_rect

#: ``PackedSteps.start`` codes: start from the previous frame, the first frame, the final one.
FROM_PREVIOUS, FROM_FIRST, FROM_FINAL = 0, 1, 2
#: White in Y, Cb, Cr (``yuv``: BT.601 limited range), toward which a fade blends.
WHITE_YUV = (235, 128, 128)
#: log2 of the weights' denominator (the largest the standard allows: the finest weights).
LOG_WD = 7


class PackedSteps(NamedTuple):
    """A transition's steps as flat arrays (rows of frame f: ``x[x_at[f]:x_at[f + 1]]``).

    start (F,): FROM_PREVIOUS, FROM_FIRST or FROM_FINAL; restore (n, 4): rectangles copied
    back from the final frame; paint (m, 9): sprite, left, top, fill RGB, outline RGB (solid:
    keep, then unused); sprites: the sprites' bytes one after another, sprite k at
    ``sprite_at[k]`` with side ``sprite_side[k]`` (flat: its s * s mask; solid: its mask, then
    its s * s * 3 colours); changed (d, 4): the step's changed rectangles (all of the frame
    when start is not FROM_PREVIOUS); hint (h, 2): the motion search's vectors
    (``h264.encoder.motion_hints`` of the step's motion; none: search); weights (F, 8): each
    picture's ``params.slice_header`` weights (:func:`fade_weights`); runs: the flat
    sprites' runs of one label (``object_look.label_runs``), sprite k's from ``run_at[k]``
    (solid: none); solid: whether the look is solid.
    """

    start: np.ndarray
    restore_at: np.ndarray
    restore: np.ndarray
    paint_at: np.ndarray
    paint: np.ndarray
    sprite_at: np.ndarray
    sprite_side: np.ndarray
    sprites: np.ndarray
    changed_at: np.ndarray
    changed: np.ndarray
    hint_at: np.ndarray
    hint: np.ndarray
    weights: np.ndarray
    run_at: np.ndarray
    runs: np.ndarray
    solid: bool = False

    @property
    def weighted(self) -> bool:
        """Whether a picture is predicted with weights (the video needs a weighted PPS)."""
        return bool((self.weights[:, 0] == WEIGHTS_SECOND_REF).any())

    def for_encoder(self, weighted: bool) -> "PackedSteps":
        """These steps for an encoder whose PPS is weighted or not: without weights (a
        video that began unweighted), or with a table of default weights where a picture
        has none."""
        weights = self.weights.copy()
        if weighted:
            weights[weights[:, 0] == WEIGHTS_NONE, 0] = WEIGHTS_IDENTITY
        else:
            weights[:] = 0
        return self._replace(weights=weights)


def _offsets(frame_of_row, frames: int) -> np.ndarray:
    """(frames + 1,) offsets of rows sorted by frame, from each row's frame."""
    at = np.zeros(frames + 1, np.int64)
    at[1:] = np.cumsum(np.bincount(frame_of_row, minlength=frames))
    return at


def _by_frame(*groups):
    """(offsets, rows) of row groups ``(frames of rows, rows)`` merged frame by frame, each
    frame's rows in the order of the groups (then as given)."""
    frames = np.concatenate([f for f, _ in groups])
    order = np.argsort(frames, kind="stable")
    return frames[order], np.concatenate([rows for _, rows in groups])[order]


def _hints(plan, frames: int):
    """(offsets, (h, 2) vectors) of the motion search's hints of each frame: none where an
    object was redrawn at another size (search), else the zero vector, then (-4 dx, -4 dy)
    for each distinct displacement (dx, dy) in sorted order (``h264.encoder.motion_hints``
    of ``TransitionPlan.motion``). The vectors are int32 like ``motion_hints``'s, so that
    ``code_picture`` compiles once for both callers (another type is another compile, about
    60 CPU-s)."""
    before = plan.before
    reshaped, moved = plan.moves()
    f, j = np.nonzero(moved)
    told = np.flatnonzero(~reshaped)
    frame = np.concatenate([told, f])
    told_first = np.concatenate([np.zeros_like(told), np.ones_like(f)])
    dx = np.concatenate([np.zeros_like(told), plan.left[f, j] - before[f, j, 1]])
    dy = np.concatenate([np.zeros_like(told), plan.top[f, j] - before[f, j, 2]])
    order = np.lexsort((dy, dx, told_first, frame))
    rows = np.stack([frame, dx, dy], 1)[order]
    distinct = np.ones(len(rows), bool)
    distinct[1:] = (rows[1:] != rows[:-1]).any(axis=1)
    rows = rows[distinct]
    return _offsets(rows[:, 0], frames), (-4 * rows[:, 1:]).astype(np.int32)


def fade_weights(keep, start) -> np.ndarray:
    """(F, 8) ``params.slice_header`` weights of each picture: where every object whose
    ``keep`` (F, K, 256ths of its colours) changed since the previous frame changed by one
    ratio (a fade: all of them fade together toward white), the previous picture weighted by
    that ratio and offset so that white stays white predicts them all: reference index 1
    with weight ``round(128 ratio)`` and offset ``white - white * weight / 128`` in Y, Cb and
    Cr (:data:`WHITE_YUV`); else none (``weights[f, 0]`` is WEIGHTS_NONE, and all of them are
    when no picture has weights). Not for a picture that starts afresh (``start``) nor where
    an offset leaves [-128, 127] (a fade's last step, to weight 0).

    Examples
    --------
    >>> keep = np.array([[256, 256], [256, 256], [192, 192], [128, 128], [0, 0]])
    >>> fade_weights(keep, np.array([1, 0, 0, 0, 0]))[:, [0, 2, 3, 5]].tolist()
    [[1, 0, 0, 0], [1, 0, 0, 0], [2, 96, 59, 32], [2, 85, 79, 43], [1, 0, 0, 0]]
    """
    keep, start = np.asarray(keep, np.int64), np.asarray(start)
    frames = keep.shape[0]
    out = np.zeros((frames, 8), np.int64)
    if frames < 2 or keep.shape[1] == 0:
        return out
    before_all, after_all = keep[:-1], keep[1:]
    changed = before_all != after_all                     # (F - 1, K)
    rows = np.arange(frames - 1)
    first = changed.argmax(axis=1)                        # one changed object of each step
    before, after = before_all[rows, first], after_all[rows, first]
    same_pair = (before_all == before[:, None]) & (after_all == after[:, None])
    one_ratio = (~changed | same_pair).all(axis=1)
    ok = changed.any(1) & one_ratio & (start[1:] == FROM_PREVIOUS) & (before > 0)
    weight = np.minimum((256 * after + before) // (2 * np.maximum(before, 1)), 127)
    white = np.array(WHITE_YUV, np.int64)
    offsets = white - ((white * weight[:, None] + (1 << (LOG_WD - 1))) >> LOG_WD)
    ok &= (weight >= 0) & ((offsets >= -128) & (offsets <= 127)).all(axis=1)
    f = np.flatnonzero(ok) + 1
    if not len(f):
        return out
    w, o = weight[ok], offsets[ok]
    out[f] = np.column_stack([np.full(len(f), WEIGHTS_SECOND_REF), np.full(len(f), LOG_WD),
                              w, o[:, 0], w, o[:, 1], w, o[:, 2]])
    out[out[:, 0] == WEIGHTS_NONE, 0] = WEIGHTS_IDENTITY
    return out


def pack_plan(plan) -> PackedSteps:
    """The :class:`PackedSteps` of a ``transitions.TransitionPlan`` (numpy, no loop over
    frames): the same frames and rectangles as ``plan.steps()``."""
    frames = len(plan.held)
    held = plan.held
    start = np.full(frames, FROM_PREVIOUS, np.int64)
    if frames:
        start[0] = FROM_FIRST if held[0] else FROM_FINAL
    restoring, source = plan.restores()
    after_held = np.zeros(frames, bool)
    after_held[1:] = held[:-1]
    fr, jr = np.nonzero(restoring)
    fv, jv = np.nonzero(plan.visible & (start == FROM_PREVIOUS)[:, None])
    changed_frames, changed = _by_frame((fr, source[fr, jr]), (fv, plan.rects[fv, jv]))
    # A sprite drawn again where it was, at the same size, covers all that the previous frame
    # drew there (sprites never overlap): copying its rectangle back first changes nothing.
    in_place = plan.drawn & (plan.side == plan.before[..., 0]) & \
        (plan.left == plan.before[..., 1]) & (plan.top == plan.before[..., 2])
    fr, jr = np.nonzero(restoring & ~(in_place & ~after_held[:, None]))
    # painted sprites, one per (shape, side) (solid: per object and side, its colours)
    solid = plan.look == "solid"
    fp, jp = np.nonzero(plan.drawn)
    owner = jp if solid else plan.shape[jp]
    keys, which = np.unique((owner << 32) | plan.side[fp, jp], return_inverse=True)
    sides = keys & 0xFFFFFFFF
    if solid:
        sprites = [plan.mask(int(key >> 32), int(side)) for key, side in zip(keys, sides)]
        masks = [np.concatenate([m.mask.view(np.uint8).ravel(), m.rgb.ravel()])
                 for m in sprites]
        runs = []
    else:
        objects = [int(np.flatnonzero(plan.shape == key >> 32)[0]) for key in keys]
        masks = [plan.mask(j, int(side)) for j, side in zip(objects, sides)]
        runs = [plan.runs(j, int(side)) for j, side in zip(objects, sides)]
    sprite_at = np.zeros(len(masks) + 1, np.int64)
    sprite_at[1:] = np.cumsum([m.size for m in masks])
    run_at = np.zeros(len(masks) + 1, np.int64)
    run_at[1:] = np.cumsum([len(r) for r in runs]) if runs else 0
    colours = (np.column_stack([plan.keep[fp, jp], np.zeros((len(fp), 5), np.int64)]) if solid
               else np.column_stack([plan.fill[fp, jp], plan.line[fp, jp]]))
    paint = np.column_stack([which.reshape(-1), plan.left[fp, jp], plan.top[fp, jp],
                             colours]).astype(np.int64)
    hint_at, hint = _hints(plan, frames)
    return PackedSteps(
        start, _offsets(fr, frames), source[fr, jr].reshape(-1, 4),
        _offsets(fp, frames), paint.reshape(-1, 9), sprite_at, sides,
        np.concatenate([m.ravel() for m in masks]) if masks else np.zeros(0, np.uint8),
        _offsets(changed_frames, frames), changed.reshape(-1, 4), hint_at, hint,
        fade_weights(plan.keep, start), run_at,
        np.concatenate(runs) if runs else np.zeros((0, 4), np.int64), solid)


@noalloc_kernel(nogil=True)
def _copy_rect(dst, src, y0, y1, x0, x1):  # pragma: no cover - compiled
    """``dst[y0:y1, x0:x1] = src[y0:y1, x0:x1]`` for two distinct (H, W, 3) C-contiguous
    arrays, one flat row at a time (Numba's copy of a 3-D slice goes element by element, 6 ms
    per 1024 frame, and a slice assignment checks for overlap with an allocated copy)."""
    h, w = dst.shape[0], dst.shape[1]
    flat_dst, flat_src = dst.reshape(h, 3 * w), src.reshape(h, 3 * w)
    for y in range(y0, y1):
        row_dst, row_src = flat_dst[y, 3 * x0:3 * x1], flat_src[y, 3 * x0:3 * x1]
        for i in range(row_dst.shape[0]):
            row_dst[i] = row_src[i]


@noalloc_kernel(nogil=True)
def _chroma_of_runs(rgb, u_plane, v_plane, runs, left, top):  # pragma: no cover - compiled
    """U and V (``yuv.chroma_rect``) of the 2x2 blocks that a flat sprite's ``runs`` painted
    at (left, top) touch: one span a row of blocks, from its rows' leftmost to rightmost
    painted pixel, clipped to the (H, W, 3) frame."""
    h, w = rgb.shape[0], rgb.shape[1]
    pair, lo, hi = -1, 0, 0
    for i in range(runs.shape[0] + 1):
        y = top + runs[i, 0] if i < runs.shape[0] else -2
        if y >> 1 != pair or i == runs.shape[0]:
            if pair >= 0 and hi > lo:
                chroma_rect(rgb, u_plane, v_plane, 2 * pair, 2 * pair + 2, lo & ~1, hi + (hi & 1))
            if i == runs.shape[0]:
                break
            pair, lo, hi = y >> 1, w, 0
        if 0 <= y < h:
            lo = min(lo, max(left + runs[i, 1], 0))
            hi = max(hi, min(left + runs[i, 2], w))


@noalloc_kernel(nogil=True)
def _draw_step(p, f, first, final, rgb, planes):  # pragma: no cover - compiled
    """Frame f of packed steps ``p`` drawn into ``rgb`` (holding frame f - 1). In the flat
    look it also converts what it drew into the (Y, U, V) ``planes`` (holding frame f - 1,
    as ``yuv.convert_rects`` converts it): a restored rectangle as it is copied, a sprite's
    runs in their colours' Y, then the U and V of the restored rectangles and of the 2x2
    blocks the sprites painted (:func:`_chroma_of_runs`), so a step needs no conversion of
    its changed rectangles, whose other pixels are as they were."""
    h, w = rgb.shape[0], rgb.shape[1]
    if p.start[f] == FROM_FIRST:
        _copy_rect(rgb, first, 0, h, 0, w)
    elif p.start[f] == FROM_FINAL:
        _copy_rect(rgb, final, 0, h, 0, w)
    for i in range(p.restore_at[f], p.restore_at[f + 1]):
        y0, y1, x0, x1 = p.restore[i, 0], p.restore[i, 1], p.restore[i, 2], p.restore[i, 3]
        _copy_rect(rgb, final, y0, y1, x0, x1)
        if not p.solid:
            luma_rect(rgb, planes[0], y0, y1, x0, x1)
    for i in range(p.paint_at[f], p.paint_at[f + 1]):
        k, left, top = p.paint[i, 0], p.paint[i, 1], p.paint[i, 2]
        if p.solid:
            side = p.sprite_side[k]
            at, area = p.sprite_at[k], side * side
            mask = p.sprites[at:at + area].reshape(side, side)
            colours = p.sprites[at + area:at + 4 * area].reshape(side, side, 3)
            _paint_solid(rgb, mask, colours, left, top, p.paint[i, 3])
        else:
            _paint_runs(rgb, planes[0], p.runs[p.run_at[k]:p.run_at[k + 1]], left, top,
                        (p.paint[i, 3], p.paint[i, 4], p.paint[i, 5]),
                        (p.paint[i, 6], p.paint[i, 7], p.paint[i, 8]))
    if p.solid:
        return
    for i in range(p.restore_at[f], p.restore_at[f + 1]):
        y0, y1, x0, x1 = _even(p.restore, i)
        chroma_rect(rgb, planes[1], planes[2], y0, y1, x0, x1)
    for i in range(p.paint_at[f], p.paint_at[f + 1]):
        k = p.paint[i, 0]
        _chroma_of_runs(rgb, planes[1], planes[2], p.runs[p.run_at[k]:p.run_at[k + 1]],
                        p.paint[i, 1], p.paint[i, 2])


@noalloc_kernel(nogil=True)
def encode_steps(p, begin, first, final, rgb, src, ref, cur, code, frame_index, quant_i,
                 quant_p, state, out, sizes):  # pragma: no cover - compiled
    """Draw, convert and encode frames ``begin``.. of packed steps ``p`` (the first one is the
    encoder's picture ``frame_index``), writing each picture's NAL unit (header byte, escaped
    slice) into ``out`` one after another and its length into ``sizes``. Stops before a
    picture that might not fit; returns the number of frames done.

    src, ref, cur: the encoder's padded (Y, U, V) planes; quant_i, quant_p: (qp, chroma qp,
    lambda, lambda2) of IDR and P pictures; state: the rest of ``code_picture``'s arguments
    (``H264Encoder.state``).
    """
    height, width = rgb.shape[0], rgb.shape[1]
    use_i4, mv, refidx, prev_mv, rows, common, nz, i4m, weights, buf, st, stats = state
    worst = buf.shape[0] + buf.shape[0] // 2 + 2     # an escaped picture's bound
    pos = 0
    f = begin
    while f < p.start.shape[0] and pos + worst <= out.shape[0]:
        _draw_step(p, f, first, final, rgb, src)
        idr = frame_index + f - begin == 0
        if idr or p.start[f] != FROM_PREVIOUS:
            rgb_to_yuv420_rect(rgb, src[0], src[1], src[2], 0, height, 0, width)
            pad_edges(src[0], height, width)
            pad_edges(src[1], height // 2, width // 2)
            pad_edges(src[2], height // 2, width // 2)
            code[:, :] = 1
        else:
            changed = p.changed[p.changed_at[f]:p.changed_at[f + 1]]
            if p.solid:   # the flat look's steps converted what they drew
                convert_rects(rgb, src[0], src[1], src[2], changed)
            mark_changed(changed, code, height, width)
        qp, qpc, lam, lam2 = quant_i if idr else quant_p
        for k in range(weights.shape[0]):
            weights[k] = p.weights[f, k]
        frame_num = (frame_index + f - begin) % (1 << LOG2_MAX_FRAME_NUM)
        code_picture(src, ref, cur, code, idr, frame_num, qp, qpc, lam, lam2, use_i4, mv,
                     refidx, prev_mv, rows, common, nz, i4m, weights, buf, st, stats,
                     p.hint[p.hint_at[f]:p.hint_at[f + 1]])
        out[pos] = (3 << 5) | (NAL_IDR if idr else NAL_SLICE)
        n = _escape_into(buf[:st[0]], out[pos + 1:])
        sizes[f] = n + 1
        pos += n + 1
        f += 1
    return f - begin
