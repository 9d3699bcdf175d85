"""What the scorer expects of one task (:class:`TaskModel`), from its validated task record."""
from __future__ import annotations

import numpy as np

from ...runtime.errors import TaskError
from .detect import MIN_AREA_FRACTION, object_mask, shape_templates
from ..reading.question import check_question

__all__ = ["TaskModel"]


class TaskModel:
    """What the scorer expects of one task, derived from its (validated) task record.

    Attributes
    ----------
    canvas_size : (W, H)
    ids, color, shape, size, left, top : (M,) int arrays
    cx, cy : (M,) expected centroids of the drawn shapes (pixel-index coordinates)
    square_centres : (M, 2) the centres (x, y) of the objects' squares (pixel-index
        coordinates)
    ucx, ucy : (M,) the same in continuous coordinates (+0.5)
    bw, bh : (M,) width and height of each drawn shape
    area : (M,) drawn pixels
    removed : (M,) bool, the task's target set
    masks : list of (size, size) bool silhouettes as the detector sees them (:meth:`mask`)
    templates : (M, shapes, 4) shape templates at each object's size and colour in the task's
        look (the record's shapes)
    unit : float, min(W, H) / 256 (lengths in THRESHOLDS are for 256 px)
    palette : tuple of (r, g, b) of the scene's colours, or None for the classic six; colour
        codes index it (shape codes index the record's shapes)
    look : str, the record's look (``looks``): the colours and pictures of its objects
    rgb : list of (r, g, b), each object's colour
    """

    def __init__(self, record: dict):
        try:
            q = check_question(record)
        except TaskError as exc:
            raise TaskError(f"bad task record: {exc}") from None
        objects = q.objects
        vocab = q.vocabulary
        self.question = q
        self.task_id, self.level, self.rule_kind = q.task_id, q.level, q.rule_kind
        self.canvas_size = w, h = q.canvas_size
        self.unit = min(w, h) / 256
        self.ids = np.array([o["id"] for o in objects], int)
        self.color = np.array([vocab.colors.index(o["color"]) for o in objects], int)
        self.shape = np.array([vocab.shape_labels.index(o["shape"]) for o in objects], int)
        self.size = np.array([o["size"] for o in objects], int)
        x = np.array([o["x"] for o in objects])
        y = np.array([o["y"] for o in objects])
        self.removed = np.isin(self.ids, q.remove_ids)
        self.left = np.rint(x - self.size / 2).astype(int)
        self.top = np.rint(y - self.size / 2).astype(int)
        self.square_centres = np.stack([self.left + (self.size - 1) / 2,
                                        self.top + (self.size - 1) / 2], axis=1)
        m = len(objects)
        self.cx, self.cy, self.area = np.zeros(m), np.zeros(m), np.zeros(m)
        self.bw, self.bh = np.zeros(m), np.zeros(m)
        self.masks = []
        self.palette = None if vocab.is_classic else tuple(map(tuple, vocab.rgb.tolist()))
        self.look = q.look
        self.global_shape = [int(vocab.shapes[c]) for c in self.shape]
        self.rgb = [tuple(int(v) for v in vocab.rgb[c]) for c in self.color]
        for k in range(m):
            mask = self.mask(k, int(self.size[k]))
            rr, cc = np.nonzero(mask)
            self.cy[k], self.cx[k] = self.top[k] + rr.mean(), self.left[k] + cc.mean()
            self.area[k] = rr.size
            self.bw[k], self.bh[k] = np.ptp(cc) + 1, np.ptp(rr) + 1
            self.masks.append(mask)
        self.ucx, self.ucy = self.cx + 0.5, self.cy + 0.5
        self.templates = np.stack([shape_templates(int(s), vocab.shapes, self.look, self.rgb[k],
                                                   self.palette)
                                   for k, s in enumerate(self.size.tolist())])
        self.min_area = MIN_AREA_FRACTION * self.area.min()
        self.center = np.array([(w - 1) / 2, (h - 1) / 2])

    def paste(self, canvas: np.ndarray, which, offsets=None, sizes=None) -> np.ndarray:
        """OR the drawn masks of objects ``which`` into the bool ``canvas`` (clipped), each
        shifted by ``offsets[k]`` (dx, dy) whole px and drawn at ``sizes[k]`` about its centre
        when given."""
        h, w = canvas.shape
        for k in which:
            t, x, s = self.top[k], self.left[k], self.size[k]
            mask = self.masks[k]
            if sizes is not None and sizes[k] != s:
                x, t = x + (s - sizes[k]) // 2, t + (s - sizes[k]) // 2
                s = int(sizes[k])
                mask = self.mask(k, s)
            if offsets is not None:
                x, t = x + int(offsets[k][0]), t + int(offsets[k][1])
            y0, x0, y1, x1 = max(t, 0), max(x, 0), min(t + s, h), min(x + s, w)
            if y1 > y0 and x1 > x0:
                canvas[y0:y1, x0:x1] |= mask[y0 - t:y1 - t, x0 - x:x1 - x]
        return canvas

    def mask(self, k: int, size: int) -> np.ndarray:
        """Object ``k``'s silhouette at ``size`` as the detector sees it in the task's look
        (``detect.object_mask``: cached, every task of a run draws from the same few shapes,
        sizes and colours)."""
        return object_mask(self.look, self.global_shape[k], int(size), self.rgb[k],
                           self.palette)
