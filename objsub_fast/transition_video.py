"""A task's ground-truth video with the own H.264 encoder in one compiled call: the transition's
steps (``transitions.transition_steps``) are drawn, converted to YUV straight into the
encoder's source planes and encoded picture after picture without going back to Python.

The pictures are the frames ``transitions.transition_updates`` draws, converted as
``video.YuvPicture`` converts them, so a video's bytes are those of adding its frames one at a
time (``video.ObjsubEncoder.add``); only the Python work per frame is gone.

Examples
--------
>>> from objsub_fast import generate_batch
>>> from objsub_fast.transitions import task_arrays, transition_steps
>>> b = generate_batch([7])
>>> steps = transition_steps(b.first_frames[0], style="fade", num_frames=8, **task_arrays(b, 0))
>>> packed = pack_steps(steps)
>>> len(packed.start), int(packed.start[0]), packed.paint.shape[1], packed.hint[:1].tolist()
(8, 1, 9, [[0, 0]])
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._numba import kernel
from .h264.bitstream import _escape_into
from .h264.encoder import NAL_IDR, NAL_SLICE, mark_changed, motion_hints, pad_edges
from .h264.macroblock import code_picture
from .h264.params import LOG2_MAX_FRAME_NUM
from .transitions import _paint_sprite
from .yuv import convert_rects, rgb_to_yuv420_rect

#: ``PackedSteps.start`` codes: start from the previous frame, the first frame, the final one.
FROM_PREVIOUS, FROM_FIRST, FROM_FINAL = 0, 1, 2
_STARTS = {None: FROM_PREVIOUS, "first": FROM_FIRST, "final": FROM_FINAL}


class PackedSteps(NamedTuple):
    """A transition's steps as flat arrays (rows of frame f: ``x[x_at[f]:x_at[f + 1]]``).

    start (F,): FROM_PREVIOUS, FROM_FIRST or FROM_FINAL; restore (n, 4): rectangles copied
    back from the final frame; paint (m, 9): sprite, left, top, fill RGB, outline RGB;
    sprites: the sprite masks' bytes one after another, mask k at ``sprite_at[k]`` with side
    ``sprite_side[k]``; changed (d, 4): the step's changed rectangles (all of the frame when
    start is not FROM_PREVIOUS); hint (h, 2): the motion search's vectors
    (``h264.encoder.motion_hints`` of the step's motion; none: search).
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


def _rows(per_frame, width: int):
    """(offsets (F + 1,), rows (n, width) int64) of a list of per-frame row lists."""
    at = np.zeros(len(per_frame) + 1, np.int64)
    at[1:] = np.cumsum([len(rows) for rows in per_frame])
    rows = [row for frame in per_frame for row in frame]
    return at, np.array(rows, np.int64).reshape(-1, width)


def pack_steps(steps) -> PackedSteps:
    """The :class:`PackedSteps` of a list of ``transitions.Step``."""
    index, masks = {}, []
    paints = []
    for step in steps:
        rows = []
        for mask, x, y, fill, line in step.paints:
            if id(mask) not in index:
                index[id(mask)] = len(masks)
                masks.append(mask)
            rows.append((index[id(mask)], x, y, *fill, *line))
        paints.append(rows)
    sprite_at = np.zeros(len(masks) + 1, np.int64)
    sprite_at[1:] = np.cumsum([m.size for m in masks])
    return PackedSteps(
        np.array([_STARTS[step.start] for step in steps], np.int64),
        *_rows([step.restore for step in steps], 4), *_rows(paints, 9),
        sprite_at, np.array([m.shape[0] for m in masks], np.int64),
        np.concatenate([m.ravel() for m in masks]) if masks else np.zeros(0, np.uint8),
        *_rows([step.changed or [] for step in steps], 4),
        *_rows([motion_hints(step.motion).tolist() for step in steps], 2))


@kernel(nogil=True)
def _draw_step(p, f, first, final, rgb):  # pragma: no cover - compiled
    """Frame f of packed steps ``p`` drawn into ``rgb`` (holding frame f - 1)."""
    if p.start[f] == FROM_FIRST:
        rgb[:, :, :] = first
    elif p.start[f] == FROM_FINAL:
        rgb[:, :, :] = final
    for i in range(p.restore_at[f], p.restore_at[f + 1]):
        y0, y1, x0, x1 = p.restore[i, 0], p.restore[i, 1], p.restore[i, 2], p.restore[i, 3]
        rgb[y0:y1, x0:x1, :] = final[y0:y1, x0:x1, :]
    for i in range(p.paint_at[f], p.paint_at[f + 1]):
        k, side = p.paint[i, 0], p.sprite_side[p.paint[i, 0]]
        mask = p.sprites[p.sprite_at[k]:p.sprite_at[k] + side * side].reshape(side, side)
        _paint_sprite(rgb, mask, p.paint[i, 1], p.paint[i, 2],
                      (p.paint[i, 3], p.paint[i, 4], p.paint[i, 5]),
                      (p.paint[i, 6], p.paint[i, 7], p.paint[i, 8]))


@kernel(nogil=True)
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
    use_i4, mv, refidx, prev_mv, common, nz, i4m, weights, buf, st, stats = state
    worst = buf.shape[0] + buf.shape[0] // 2 + 2     # an escaped picture's bound
    pos = 0
    f = begin
    while f < p.start.shape[0] and pos + worst <= out.shape[0]:
        _draw_step(p, f, first, final, rgb)
        idr = frame_index + f - begin == 0
        if idr or p.start[f] != FROM_PREVIOUS:
            rgb_to_yuv420_rect(rgb, src[0], src[1], src[2], 0, height, 0, width)
            pad_edges(src[0], height, width)
            pad_edges(src[1], height // 2, width // 2)
            pad_edges(src[2], height // 2, width // 2)
            code[:, :] = 1
        else:
            changed = p.changed[p.changed_at[f]:p.changed_at[f + 1]]
            convert_rects(rgb, src[0], src[1], src[2], changed)
            mark_changed(changed, code, height, width)
        qp, qpc, lam, lam2 = quant_i if idr else quant_p
        frame_num = (frame_index + f - begin) % (1 << LOG2_MAX_FRAME_NUM)
        code_picture(src, ref, cur, code, idr, frame_num, qp, qpc, lam, lam2, use_i4, mv,
                     refidx, prev_mv, common, nz, i4m, weights, buf, st, stats,
                     p.hint[p.hint_at[f]:p.hint_at[f + 1]])
        out[pos] = (3 << 5) | (NAL_IDR if idr else NAL_SLICE)
        n = _escape_into(buf[:st[0]], out[pos + 1:])
        sizes[f] = n + 1
        pos += n + 1
        f += 1
    return f - begin
