"""A kept object's footprint, every frame, against its first one: size, rotation, stretch, morph.

The silhouette of an object is its component's mask (every foreground pixel of it, outline and
blended rim included: the footprint, not its flat colours, so a shaded or restyled object is
judged by its outline on the canvas). Frame by frame, each kept object's silhouette is compared
with the one it had in the first frame it was seen whole (:class:`Silhouettes`):

- **size**: its area over its first area, over the square of the camera's zoom since then
  (``area_ratio``; a push-in grows every object alike and is no change);
- **shape**: the overlap (IoU) of the two silhouettes after the first one is moved onto the
  current centroid (its own small offset) and scaled to the current area, so a change of size
  alone does not count here: what is left is a rotation, a stretch or a morph (``overlap``).
  The first silhouette is sampled bilinearly (:func:`_overlaps`), so a sub-pixel offset costs
  no overlap that rasterising both would not.

``metrics`` votes over the frames around each one (a frame or two of codec smear on a small
object is no change) and :func:`describe` puts a change in words ("grew by 35%", "turned by
40°", "stretched (1.6x as wide for its height)").

Examples
--------
>>> ref = np.zeros((12, 12), bool); ref[2:10, 2:10] = True
>>> turned = np.zeros((16, 16), bool)
>>> yy, xx = np.mgrid[:16, :16]
>>> turned[np.abs(yy - 7.5) + np.abs(xx - 7.5) <= 5.7] = True
>>> describe(ref, turned, 1.0)["kind"]
'turned'
"""
from __future__ import annotations

import numpy as np

from ..runtime._numba import kernel

__all__ = ["Silhouettes", "describe", "overlap_of"]

#: A silhouette is followed only when its component keeps off the frame's border (a crop or a
#: pan could cut it) and has at least this many pixels (a smaller one is a speck's shape).
MIN_PIXELS = 16


@kernel(nogil=True)
def _overlaps(labels, lab, bbox, cx, cy, scale, refs, ref_dims, ref_c, which, out):
    """For each row n: the soft IoU of component ``lab[n]`` (its pixels in ``labels`` within
    ``bbox[n]``, centroid ``cx[n], cy[n]``) with reference silhouette ``which[n]`` moved onto
    that centroid and scaled by ``scale[n]`` (bilinear samples of the reference mask); written
    to ``out[n]``."""
    h, w = labels.shape
    for n in range(lab.shape[0]):
        k = which[n]
        rh, rw = ref_dims[k, 0], ref_dims[k, 1]
        rcx, rcy = ref_c[k, 0], ref_c[k, 1]
        s = scale[n]
        x0 = min(bbox[n, 0], int(np.floor(cx[n] - (rcx + 1) * s)))
        x1 = max(bbox[n, 1], int(np.ceil(cx[n] + (rw - rcx) * s)))
        y0 = min(bbox[n, 2], int(np.floor(cy[n] - (rcy + 1) * s)))
        y1 = max(bbox[n, 3], int(np.ceil(cy[n] + (rh - rcy) * s)))
        inter, union = 0.0, 0.0
        for y in range(max(y0, 0), min(y1 + 1, h)):
            v = (y - cy[n]) / s + rcy
            iv = int(np.floor(v))
            fv = v - iv
            for x in range(max(x0, 0), min(x1 + 1, w)):
                a = 0.0
                if bbox[n, 0] <= x <= bbox[n, 1] and bbox[n, 2] <= y <= bbox[n, 3] \
                        and labels[y, x] == lab[n]:
                    a = 1.0
                u = (x - cx[n]) / s + rcx
                iu = int(np.floor(u))
                fu = u - iu
                b = 0.0
                for dy in range(2):
                    yy = iv + dy
                    if yy < 0 or yy >= rh:
                        continue
                    wy = fv if dy else 1.0 - fv
                    for dx in range(2):
                        xx = iu + dx
                        if 0 <= xx < rw and refs[k, yy, xx]:
                            b += wy * (fu if dx else 1.0 - fu)
                inter += min(a, b)
                union += max(a, b)
        out[n] = inter / union if union > 0 else 1.0


class Silhouettes:
    """The first silhouette of each object, and the per-frame comparison with it.

    Parameters
    ----------
    count : int
        Number of task objects.
    side : int
        Largest side (px) a silhouette can have on this canvas.
    """

    def __init__(self, count: int, side: int):
        side = int(side) + 2
        self.refs = np.zeros((count, side, side), np.bool_)
        self.dims = np.zeros((count, 2), np.int64)       # (h, w) of each reference
        self.centre = np.zeros((count, 2))               # its centroid in the reference
        self.area = np.zeros(count)
        self.zoom = np.ones(count)                       # the camera zoom it was seen with
        self.frame = np.full(count, -1)                  # the frame it was taken in
        self.side = side

    def crop(self, comps, j: int) -> tuple[np.ndarray, float, float]:
        """(mask, cx, cy): the silhouette of component ``j`` of the frame just detected (its
        pixels within its bounding box) and its centroid in that crop."""
        x0, x1, y0, y1 = (int(v) for v in comps.bbox[j])
        mask = comps.labels[y0:y1 + 1, x0:x1 + 1] == comps.label[j]
        return mask, float(comps.cx[j] - x0), float(comps.cy[j] - y0)

    def take(self, t: int, objects, comps, idx, zoom: float) -> None:
        """Take the silhouettes of ``objects`` (matched to components ``idx``) as their
        references, seen in frame ``t`` under camera zoom ``zoom``."""
        for k, j in zip(objects.tolist(), idx.tolist()):
            mask, cx, cy = self.crop(comps, j)
            h, w = mask.shape
            if h > self.side or w > self.side:
                continue
            self.refs[k] = False
            self.refs[k, :h, :w] = mask
            self.dims[k] = h, w
            self.centre[k] = cx, cy
            self.area[k] = comps.area[j]
            self.zoom[k] = zoom
            self.frame[k] = t

    def compare(self, objects, comps, idx, zoom: float) -> tuple[np.ndarray, np.ndarray]:
        """(area ratio, overlap) of ``objects`` (with references, matched to components
        ``idx``) against their references, under camera zoom ``zoom`` (see the module
        docstring)."""
        area = comps.area[idx]
        grow = (zoom / self.zoom[objects]) ** 2
        ratio = area / (self.area[objects] * grow)
        scale = np.sqrt(area / self.area[objects])
        out = np.empty(len(objects))
        _overlaps(comps.labels, comps.label[idx], comps.bbox[idx], comps.cx[idx], comps.cy[idx],
                  scale, self.refs, self.dims, self.centre, objects, out)
        return ratio, out

    def reference(self, k: int) -> np.ndarray:
        """The first silhouette of object ``k`` (bool crop)."""
        h, w = self.dims[k]
        return self.refs[k, :h, :w].copy()


def overlap_of(ref: np.ndarray, cur: np.ndarray, angle: float = 0.0, stretch=(1.0, 1.0)) -> float:
    """IoU of silhouette ``cur`` with ``ref`` turned by ``angle`` degrees (counter-clockwise on
    the screen) and stretched by ``stretch`` (x, y), both about their centroids, ``ref`` scaled
    to ``cur``'s area."""
    from scipy.ndimage import map_coordinates

    ry, rx = np.nonzero(ref)
    cy, cx = np.nonzero(cur)
    rcx, rcy = rx.mean(), ry.mean()
    scale = np.sqrt(cur.sum() / ref.sum() / (stretch[0] * stretch[1]))
    pad = max(ref.shape) // 2 + 2
    yy, xx = np.mgrid[-pad:cur.shape[0] + pad, -pad:cur.shape[1] + pad]
    dx, dy = (xx - cx.mean()) / scale, (yy - cy.mean()) / scale
    a = np.radians(angle)
    # Screen y points down: a counter-clockwise turn maps back by the inverse rotation.
    u = (np.cos(a) * dx - np.sin(a) * dy) / stretch[0] + rcx
    v = (np.sin(a) * dx + np.cos(a) * dy) / stretch[1] + rcy
    b = map_coordinates(ref.astype(float), [v, u], order=1, cval=0.0)
    a_mask = np.zeros(b.shape)
    a_mask[pad:pad + cur.shape[0], pad:pad + cur.shape[1]] = cur
    union = np.maximum(a_mask, b).sum()
    return float(np.minimum(a_mask, b).sum() / union) if union else 1.0


#: Turns tried when a silhouette changed (degrees) and the stretches (x over y).
TURNS = np.arange(-90, 91, 2)
STRETCHES = np.exp(np.linspace(-0.7, 0.7, 29))


def describe(ref: np.ndarray, cur: np.ndarray, area_ratio: float, max_area_change: float = 0.2,
             min_turn: float = 6.0, min_stretch: float = 0.15) -> dict:
    """A silhouette change in words: ``{"change": "turned by 40°", "kind": "turned",
    "value": 40}``; the kind is one of grew, shrank, turned, stretched, reshaped.

    ``area_ratio`` (the voted one) decides a change of size first (beyond ``max_area_change``
    of the first area); otherwise the turn or the stretch of ``ref`` that best explains ``cur``
    (when it explains it better than ``ref`` as it is and is at least ``min_turn`` degrees or
    ``min_stretch`` off 1), else a reshaping.
    """
    if abs(area_ratio - 1) > max_area_change:
        pct = round(abs(area_ratio - 1) * 100)
        kind = "grew" if area_ratio > 1 else "shrank"
        return {"change": f"{kind} by {pct}%", "kind": kind, "value": pct}
    base = overlap_of(ref, cur)
    turns = [(overlap_of(ref, cur, a), a) for a in TURNS if a]
    top = max(t[0] for t in turns)
    # The smallest turn as good as the best (a square turned by 30° is one turned by -60°).
    best_turn = min((t for t in turns if t[0] >= top - 0.004), key=lambda t: abs(t[1]))
    stretches = [(overlap_of(ref, cur, 0.0, (np.sqrt(r), 1 / np.sqrt(r))), r) for r in STRETCHES]
    best_stretch = max(stretches)
    if best_turn[0] >= best_stretch[0] and best_turn[0] > base + 0.02 \
            and abs(best_turn[1]) >= min_turn:
        deg = int(abs(best_turn[1]))
        return {"change": f"turned by {deg}°", "kind": "turned", "value": deg}
    r = best_stretch[1]
    if best_stretch[0] > base + 0.02 and abs(np.log(r)) >= np.log(1 + min_stretch):
        f = round(float(max(r, 1 / r)), 1)
        way = "as wide for its height" if r > 1 else "as tall for its width"
        return {"change": f"stretched ({f}x {way})", "kind": "stretched", "value": f}
    return {"change": f"changed shape (overlap {base:.2f} with its first silhouette)",
            "kind": "reshaped", "value": round(base, 2)}
