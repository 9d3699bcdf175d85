"""Read a first frame's objects back (colour, shape, size, place) and the look they are drawn in.

A VBVR-Bench question folder without an objsub-fast record has only its first frame and its
prompt. :func:`read_frame` reads the frame once per reading, a (look, vocabulary) pair: the looks
of ``looks.LOOKS`` and the vocabularies of ``vocabulary.PRESETS`` (classic first). Each reading
detects the frame's components with that look's colour table over that vocabulary's colours
(``detect.Detector``) and explains every component by the object whose silhouette as the
detector sees it (``detect.object_mask``) covers the component's pixels best (intersection over
union, over the vocabulary's shapes, the sizes whose silhouette's box is within
:data:`BOX_SLACK` px of the component's, and every placement within one pixel), then by the
colour whose picture (``looks.picture``) differs least from the frame there. It then draws the
objects it read onto a blank canvas in its look; the reading whose drawing differs least from
the frame (mean absolute RGB difference) wins, the earlier one on a tie (flat before solid,
classic before extended); a reading that redraws the frame pixel for pixel ends the search.
No code branches on the look: a look is a row of ``looks.LOOKS``.

Objects are drawn at whole-pixel places (their bounding square's corner is an integer), so an
object's centre is its square's corner plus half its size.

Examples
--------
>>> from objsub_fast import generate_batch
>>> b = generate_batch([3], look="solid")
>>> reading = read_frame(b.first_frames[0])
>>> reading.look, len(reading.objects) == len(b.task(0)["object_subtraction_data"]["objects"])
('solid', True)
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ...task.vocabulary import PRESETS, SHAPE_TABLE, Vocabulary
from ..tracking.detect import Detector, object_mask
from .looks import LOOKS, picture

__all__ = ["Reading", "read_frame", "BOX_SLACK", "SIZE_SLACK"]

#: A size is tried when its silhouette's box (width + height) is within this many pixels of the
#: component's.
BOX_SLACK = 3
#: Sizes tried: within this many pixels of the sizes the component's box suggests for a shape
#: (its width and its height over the shape's proportions).
SIZE_SLACK = 2


@dataclass(frozen=True)
class Reading:
    """One reading of a frame (see the module docstring).

    Attributes
    ----------
    look : str
        A key of ``looks.LOOKS``.
    vocabulary : Vocabulary
        The vocabulary whose colours and shapes the objects take.
    objects : list of dict
        ``color``, ``shape`` (solid name), ``size``, ``x``, ``y`` (centre) of each object.
    residual : float
        Mean absolute RGB difference between the frame and the objects drawn in ``look``.
    """

    look: str
    vocabulary: Vocabulary
    objects: list
    residual: float


@lru_cache(maxsize=8192)
def _box(look: str, code: int, size: int, rgb: tuple, palette: tuple):
    """(x offset, width, y offset, height) of ``detect.object_mask``'s pixels (None if it has
    none)."""
    rr, cc = np.nonzero(object_mask(look, code, size, rgb, palette))
    if not len(rr):
        return None
    return int(cc.min()), int(np.ptp(cc)) + 1, int(rr.min()), int(np.ptp(rr)) + 1


def _iou(comp: np.ndarray, x0: int, y0: int, mask: np.ndarray, tx: int, ty: int) -> float:
    """IoU of the component ``comp`` (its box's corner at x0, y0) and ``mask`` (its square's
    corner at tx, ty)."""
    h, w = comp.shape
    s = mask.shape[0]
    u0, v0 = max(x0, tx), max(y0, ty)
    u1, v1 = min(x0 + w, tx + s), min(y0 + h, ty + s)
    inter = 0
    if u0 < u1 and v0 < v1:
        inter = int(np.count_nonzero(comp[v0 - y0:v1 - y0, u0 - x0:u1 - x0]
                                     & mask[v0 - ty:v1 - ty, u0 - tx:u1 - tx]))
    return inter / max(int(np.count_nonzero(comp)) + int(np.count_nonzero(mask)) - inter, 1)


def _place(comp, x0, y0, look, shapes, rgb, palette):
    """(IoU, shape code, size, corner x, corner y) of the object that explains ``comp`` best:
    among the sizes whose silhouette's box is within :data:`BOX_SLACK` of the component's (the
    nearest ones when none is, e.g. shapes drawn by another generator)."""
    h, w = comp.shape
    tries = []
    for code in shapes:
        _, ow, _, oh = _box(look, code, 64, rgb, palette)
        guesses = (w * 64 / ow, h * 64 / oh)      # by its width, by its height
        for size in range(max(4, int(min(guesses)) - SIZE_SLACK),
                          int(max(guesses)) + SIZE_SLACK + 2):
            box = _box(look, code, size, rgb, palette)
            if box is not None:
                tries.append((abs(box[1] - w) + abs(box[3] - h), code, size, box))
    if not tries:
        return (-1.0, 0, 0, 0, 0)
    slack = max(BOX_SLACK, min(t[0] for t in tries))
    best = (-1.0, 0, 0, 0, 0)
    for err, code, size, (ox, _, oy, _) in tries:
        if err > slack:
            continue
        m = object_mask(look, code, size, rgb, palette)
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                tx, ty = x0 - ox + dx, y0 - oy + dy
                score = _iou(comp, x0, y0, m, tx, ty)
                if score > best[0]:
                    best = (score, code, size, tx, ty)
    return best


def _paste(canvas: np.ndarray, img: np.ndarray, tx: int, ty: int) -> None:
    """Draw ``img`` (over white) onto ``canvas`` with its corner at (tx, ty), clipped."""
    H, W = canvas.shape[:2]
    s = img.shape[0]
    u0, v0, u1, v1 = max(tx, 0), max(ty, 0), min(tx + s, W), min(ty + s, H)
    if u0 < u1 and v0 < v1:
        canvas[v0:v1, u0:u1] = np.minimum(canvas[v0:v1, u0:u1],
                                          img[v0 - ty:v1 - ty, u0 - tx:u1 - tx])


def _crop_error(frame, img, tx, ty) -> float:
    """Mean absolute difference between ``img`` and the frame under it (clipped)."""
    patch = np.full_like(img, 255)
    H, W = frame.shape[:2]
    s = img.shape[0]
    u0, v0, u1, v1 = max(tx, 0), max(ty, 0), min(tx + s, W), min(ty + s, H)
    patch[v0 - ty:v1 - ty, u0 - tx:u1 - tx] = frame[v0:v1, u0:u1]
    return float(np.abs(patch.astype(np.int16) - img).mean())


def _read(frame: np.ndarray, look: str, vocab: Vocabulary, min_area: float) -> Reading:
    h, w = frame.shape[:2]
    palette = tuple(tuple(int(v) for v in c) for c in vocab.rgb)
    comps = Detector((w, h), min_area, palette, look)(frame)
    drawn = np.full_like(frame, 255)
    objects = []
    for j in range(len(comps)):
        if comps.edge[j]:
            continue
        x0, x1, y0, y1 = (int(v) for v in comps.bbox[j])
        comp = comps.labels[y0:y1 + 1, x0:x1 + 1] == comps.label[j]
        first = palette[max(int(comps.color[j]), 0)]
        _, code, size, tx, ty = _place(comp, x0, y0, look, vocab.shapes, first, palette)
        if size == 0:
            continue
        errors = [_crop_error(frame, picture(look, code, size, rgb), tx, ty) for rgb in palette]
        c = int(np.argmin(errors))
        _paste(drawn, picture(look, code, size, palette[c]), tx, ty)
        objects.append({"color": vocab.colors[c], "shape": SHAPE_TABLE[code][0], "size": size,
                        "x": tx + size / 2, "y": ty + size / 2})
    residual = float(np.abs(frame.astype(np.int16) - drawn).mean())
    return Reading(look, vocab, objects, residual)


def read_frame(frame: np.ndarray, min_area: float | None = None) -> Reading:
    """The reading (:class:`Reading`) that explains an (H, W, 3) uint8 first frame best.

    ``min_area``: components smaller than this are ignored (default: ``max(8, W * H / 20000)``).
    Components touching the frame's border (maybe cut off) are left out.
    """
    h, w = frame.shape[:2]
    min_area = max(8, w * h // 20000) if min_area is None else min_area
    best = None
    for look in LOOKS:
        for vocab in PRESETS.values():
            reading = _read(frame, look, vocab, min_area)
            if best is None or reading.residual < best.residual:
                best = reading
            if best.residual == 0:          # redrawn pixel for pixel: nothing reads better
                return best
    return best
