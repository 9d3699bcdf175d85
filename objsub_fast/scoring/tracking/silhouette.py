"""A kept object's footprint, every frame, against its first one: size, rotation, stretch, morph.

The silhouette of an object is soft: each pixel of its component (outline and blended rim
included: the footprint, not its flat colours) and each background-classed pixel within
:data:`RIM_PX` of the component's box weighs its ink (``255 - min(R, G, B)``) over the object's
typical ink in that frame (the median over its component, :func:`_frame_ink`; no more than its
first one and no less than :data:`MIN_FRAME_INK` of it), clipped to [0, 1]. Ink is what
resampling and codec blur conserve: a push-in, a sub-pixel shift or a smeared edge moves ink
between a rim pixel and its neighbours but keeps its sum, where a pixel count jumps by a whole
ring of pixels (a 20 px square gains 20% with one more row of rim). The frame's own typical ink
is there because a codec at a very low bitrate pales the whole fill of a small outlined object
in some frames: a paler object is not another shape. Frame by frame, each kept object's
silhouette is compared with the one it had in the first frame it was seen whole
(:class:`Silhouettes`):

- **size**: its ink area over its first one, over the square of the camera's zoom since then
  (``area_ratio``; a push-in grows every object alike and is no change). The area is read two
  ways, and a change of size is what both readings show (the middle of the two ratios and 1):
  every pixel's ink over the object's *first* typical ink (a paled fill reads smaller), and the
  same with the pixels inside the component (its four neighbours its own) over its typical ink
  *in this frame* (a solid's shaded side, scaled up with the median, reads larger when the
  codec bleeds its colour into the rim);
- **shape**: the soft overlap (sum of minima over sum of maxima) of the two silhouettes after
  the first one is moved onto the current ink centroid (its own small offset) and scaled to
  the current silhouette's mass, so a change of size alone does not count here: what is left
  is a rotation, a stretch or a morph (``overlap``). Both are seen through the same small blur
  (``[1, 2, 1] / 4`` each way, :func:`_patch`): a push-in's resampling or a codec softens an
  edge by up to a pixel, which costs a sharp comparison of a 20 px object 0.10-0.15 of overlap
  and a blurred one a third of that, while a turn or a stretch moves whole pixels. The first
  silhouette is sampled bilinearly (:func:`_compare`), so a sub-pixel offset costs no overlap
  that rasterising both would not.

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

from functools import lru_cache

import numpy as np

from ...runtime._numba import kernel
from .detect import BG
from ..reading.looks import picture

__all__ = ["Silhouettes", "describe", "overlap_of", "drawn_silhouette", "typical_ink",
           "ink_of"]

#: A silhouette is followed only when its component keeps off the frame's border (a crop or a
#: pan could cut it) and has at least this many pixels (a smaller one is a speck's shape).
MIN_PIXELS = 16
#: Background-classed pixels this far outside a component's box still lend it their ink: the
#: pale rim of an anti-aliased or blurred edge, which the pixel classes call background.
RIM_PX = 1
#: A frame's pixels weigh their ink over the object's typical ink in that frame (the median of
#: its own pixels there), which may fall to this fraction of its first one: at a very low bitrate
#: the codec pales the fill of a small outlined object in some frames (to 0.73 of its first
#: median ink), and a paler object is not a smaller one.
MIN_FRAME_INK = 0.7
#: Passes of the comparison's blur ``[1, 2, 1] / 4`` each way.
BLUR_PASSES = 1
#: The patch a silhouette is compared in: its component's box grown by the rim and one more
#: pixel, into which the comparison's blur spreads it.
PAD = RIM_PX + BLUR_PASSES


@kernel(nogil=True, inline="always")
def _ink_at(frame, labels, cls, lab, box, y, x):
    """The ink of pixel (y, x) for the silhouette of component ``lab`` (bounding box ``box``):
    ``255 - min(R, G, B)`` of its own pixels and background-classed ones; 0 for another
    component's."""
    inside = box[0] <= x <= box[1] and box[2] <= y <= box[3]
    if not ((inside and labels[y, x] == lab) or cls[y, x] == BG):
        return 0.0
    return float(255 - min(frame[y, x, 0], frame[y, x, 1], frame[y, x, 2]))


@kernel(nogil=True, inline="always")
def _interior(labels, lab, y, x):
    """Whether pixel (y, x) and its four neighbours are all component ``lab``'s."""
    h, w = labels.shape
    return (0 < y < h - 1 and 0 < x < w - 1 and labels[y, x] == lab and labels[y - 1, x] == lab
            and labels[y + 1, x] == lab and labels[y, x - 1] == lab and labels[y, x + 1] == lab)


@kernel(nogil=True, inline="always")
def _frame_ink(frame, labels, lab, box, full):
    """The typical ink of component ``lab`` in this frame: the median ink of its own pixels,
    within [:data:`MIN_FRAME_INK` × ``full``, ``full``] (``full``: its typical ink in its first
    silhouette)."""
    hist = np.zeros(256, np.int64)
    n = 0
    for y in range(box[2], box[3] + 1):
        for x in range(box[0], box[1] + 1):
            if labels[y, x] == lab:
                hist[255 - min(frame[y, x, 0], frame[y, x, 1], frame[y, x, 2])] += 1
                n += 1
    seen, med = 0, 255
    for v in range(256):
        seen += hist[v]
        if 2 * seen >= n:
            med = v
            break
    return min(max(float(med), MIN_FRAME_INK * full), full)


@kernel(nogil=True)
def _patch(frame, labels, cls, lab, box, full):
    """The soft silhouette of component ``lab`` (bounding box ``box``, typical ink ``full`` in
    its first silhouette) over its box grown by ``PAD``, each pixel's ink over the component's
    typical ink in this frame (:func:`_frame_ink`), seen through the blur ``[1, 2, 1] / 4`` each
    way: (patch, its left and top in the frame, (ink area over ``full``, ink area with the
    inside pixels over this frame's typical ink), the patch's mass before the blur, its
    centroid x and y in the patch)."""
    h, w = labels.shape
    x0, y0 = box[0] - PAD, box[2] - PAD
    ph, pw = box[3] - box[2] + 1 + 2 * PAD, box[1] - box[0] + 1 + 2 * PAD
    out = np.zeros((ph, pw), np.float32)
    now = _frame_ink(frame, labels, lab, box, full)
    area, inside, mass, sx, sy = 0.0, 0.0, 0.0, 0.0, 0.0
    for y in range(max(box[2] - RIM_PX, 0), min(box[3] + RIM_PX, h - 1) + 1):
        for x in range(max(box[0] - RIM_PX, 0), min(box[1] + RIM_PX, w - 1) + 1):
            ink = _ink_at(frame, labels, cls, lab, box, y, x)
            v = min(ink / now, 1.0)
            out[y - y0, x - x0] = v
            first = min(ink / full, 1.0)
            area += first
            inside += v if _interior(labels, lab, y, x) else first
            mass += v
            sx += v * (x - x0)
            sy += v * (y - y0)
    for _ in range(BLUR_PASSES):    # the blur, in place: rows, then columns
        for y in range(ph):
            prev = 0.0
            for x in range(pw):
                cur = out[y, x]
                nxt = out[y, x + 1] if x + 1 < pw else 0.0
                out[y, x] = 0.25 * prev + 0.5 * cur + 0.25 * nxt
                prev = cur
        for x in range(pw):
            prev = 0.0
            for y in range(ph):
                cur = out[y, x]
                nxt = out[y + 1, x] if y + 1 < ph else 0.0
                out[y, x] = 0.25 * prev + 0.5 * cur + 0.25 * nxt
                prev = cur
    if mass > 0:
        return out, x0, y0, (area, inside), mass, sx / mass, sy / mass
    return out, x0, y0, (area, inside), mass, 0.5 * pw, 0.5 * ph


@kernel(nogil=True)
def _compare(frame, labels, cls, lab, bbox, full, refs, ref_dims, ref_c, ref_area, which, out):
    """For each row n: the ink area of component ``lab[n]`` in its two readings (``out[n, 0]``
    and ``out[n, 2]``, :func:`_patch`) and the soft IoU of its silhouette with reference
    silhouette ``which[n]`` moved onto its centroid and scaled to its mass (bilinear samples of
    the reference; ``out[n, 1]``)."""
    for n in range(lab.shape[0]):
        k = which[n]
        cur, px, py, area, mass, pcx, pcy = _patch(frame, labels, cls, lab[n], bbox[n],
                                                   full[n])
        ph, pw = cur.shape
        rh, rw = ref_dims[k, 0], ref_dims[k, 1]
        rcx, rcy = ref_c[k, 0], ref_c[k, 1]
        s = np.sqrt(max(mass, 1.0) / ref_area[k])
        cx, cy = px + pcx, py + pcy               # the centroid in the frame
        x0 = min(px, int(np.floor(cx - (rcx + 1) * s)))
        x1 = max(px + pw - 1, int(np.ceil(cx + (rw - rcx) * s)))
        y0 = min(py, int(np.floor(cy - (rcy + 1) * s)))
        y1 = max(py + ph - 1, int(np.ceil(cy + (rh - rcy) * s)))
        inter, union = 0.0, 0.0
        for y in range(y0, y1 + 1):
            v = (y - cy) / s + rcy
            iv = int(np.floor(v))
            fv = v - iv
            for x in range(x0, x1 + 1):
                a = 0.0
                if py <= y < py + ph and px <= x < px + pw:
                    a = cur[y - py, x - px]
                u = (x - cx) / s + rcx
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
                        if 0 <= xx < rw:
                            b += wy * (fu if dx else 1.0 - fu) * refs[k, yy, xx]
                inter += min(a, b)
                union += max(a, b)
        out[n, 0] = area[0]
        out[n, 1] = inter / union if union > 0 else 1.0
        out[n, 2] = area[1]


def ink_of(pixels: np.ndarray) -> np.ndarray:
    """The ink of RGB ``pixels`` (..., 3): ``255 - min(R, G, B)``, as floats.

    Examples
    --------
    >>> ink_of(np.array([[255, 255, 255], [255, 0, 0], [250, 240, 200]], np.uint8)).tolist()
    [0.0, 255.0, 55.0]
    """
    return 255.0 - pixels.min(axis=-1)


def _median_ink(ink: np.ndarray) -> float:
    """The median of ``ink`` (at least 1; 255 for none): what one pixel of an object counts as
    whole."""
    return max(float(np.median(ink)), 1.0) if ink.size else 255.0


def _typical_ink(frame, comps, j: int) -> float:
    """The median ink of component ``j``'s own pixels."""
    x0, x1, y0, y1 = (int(v) for v in comps.bbox[j])
    own = comps.labels[y0:y1 + 1, x0:x1 + 1] == comps.label[j]
    return _median_ink(ink_of(frame[y0:y1 + 1, x0:x1 + 1][own]))


class Silhouettes:
    """The first soft silhouette of each object, and the per-frame comparison with it.

    Parameters
    ----------
    count : int
        Number of task objects.
    side : int
        Largest side (px) a component can have on this canvas.
    """

    def __init__(self, count: int, side: int):
        side = int(side) + 2 * PAD
        self.refs = np.zeros((count, side, side), np.float32)
        self.dims = np.zeros((count, 2), np.int64)       # (h, w) of each reference
        self.centre = np.zeros((count, 2))               # its ink centroid in the reference
        self.area = np.ones(count)                       # its ink area
        self.full = np.full(count, 255.0)                # its typical ink
        self.zoom = np.ones(count)                       # the camera zoom it was seen with
        self.frame = np.full(count, -1)                  # the frame it was taken in
        self.side = side

    def crop(self, frame, comps, j: int, full: float) -> tuple[np.ndarray, float, float, float]:
        """(soft silhouette, ink area, cx, cy) of component ``j`` of the frame just detected
        (:func:`_patch`; the centroid in the crop)."""
        patch, _, _, area, _, cx, cy = _patch(frame, comps.labels, comps.cls, comps.label[j],
                                              comps.bbox[j], float(full))
        return patch, float(area[0]), float(cx), float(cy)

    def take(self, t: int, frame, objects, comps, idx, zoom: float) -> None:
        """Take the silhouettes of ``objects`` (matched to components ``idx``) in ``frame``
        as their references, seen in frame ``t`` under camera zoom ``zoom``."""
        for k, j in zip(objects.tolist(), idx.tolist()):
            full = _typical_ink(frame, comps, j)
            mask, area, cx, cy = self.crop(frame, comps, j, full)
            h, w = mask.shape
            if h > self.side or w > self.side:
                continue
            self.refs[k] = 0.0
            self.refs[k, :h, :w] = mask
            self.dims[k] = h, w
            self.centre[k] = cx, cy
            self.area[k] = max(area, 1.0)
            self.full[k] = full
            self.zoom[k] = zoom
            self.frame[k] = t

    def compare(self, frame, objects, comps, idx, zoom: float) -> tuple[np.ndarray, np.ndarray]:
        """(area ratio, overlap) of ``objects`` (with references, matched to components
        ``idx``) in ``frame`` against their references, under camera zoom ``zoom`` (see the
        module docstring)."""
        out = np.empty((len(objects), 3))
        _compare(frame, comps.labels, comps.cls, comps.label[idx], comps.bbox[idx],
                 self.full[objects], self.refs, self.dims, self.centre, self.area, objects, out)
        grow = (zoom / self.zoom[objects]) ** 2
        base = self.area[objects] * grow
        # The two readings of the ink area (module docstring); a change is what both show.
        return np.median([out[:, 0] / base, out[:, 2] / base, np.ones(len(objects))],
                         axis=0), out[:, 1]

    def reference(self, k: int) -> np.ndarray:
        """The first soft silhouette of object ``k`` (float crop)."""
        h, w = self.dims[k]
        return self.refs[k, :h, :w].copy()


@lru_cache(maxsize=1024)
def typical_ink(look: str, shape: int, size: int, rgb: tuple) -> float:
    """The median ink (``255 - min(R, G, B)``) of the pixels global shape ``shape`` drawn at
    ``size`` in colour ``rgb`` in ``look`` inks: the ink one pixel of that object counts as
    whole.

    Examples
    --------
    >>> typical_ink("flat", 1, 20, (255, 0, 0))
    255.0
    """
    ink = ink_of(picture(look, shape, size, rgb))
    return _median_ink(ink[ink > 0])


@lru_cache(maxsize=1024)
def drawn_silhouette(look: str, shape: int, size: int, rgb: tuple) -> np.ndarray:
    """The soft silhouette (as :func:`_patch` makes it, blur included) of global shape
    ``shape`` drawn at ``size`` in colour ``rgb`` in ``look``: what an object of that shape
    looks like to the comparison, to tell a shape read-out from codec smear (``metrics``).

    Examples
    --------
    >>> sq = drawn_silhouette("flat", 0, 20, (255, 0, 0))
    >>> sq.shape, round(float(sq.sum()))
    ((24, 24), 400)
    """
    ink = ink_of(picture(look, shape, size, rgb))
    out = np.pad(np.minimum(ink / typical_ink(look, shape, size, rgb), 1.0), PAD)
    for _ in range(BLUR_PASSES):
        for axis in (0, 1):
            out = 0.5 * out + 0.25 * (np.roll(out, 1, axis) + np.roll(out, -1, axis))
    out.flags.writeable = False
    return out


def _centroid(mask: np.ndarray) -> tuple[float, float]:
    """(x, y): the weighted centroid of a (soft or bool) silhouette."""
    yy, xx = np.mgrid[:mask.shape[0], :mask.shape[1]]
    total = mask.sum()
    return float((mask * xx).sum() / total), float((mask * yy).sum() / total)


def overlap_of(ref: np.ndarray, cur: np.ndarray, angle: float = 0.0, stretch=(1.0, 1.0)) -> float:
    """Soft IoU of silhouette ``cur`` with ``ref`` turned by ``angle`` degrees (counter-clockwise on
    the screen) and stretched by ``stretch`` (x, y), both about their centroids, ``ref`` scaled
    to ``cur``'s area."""
    from scipy.ndimage import map_coordinates

    ref, cur = np.asarray(ref, float), np.asarray(cur, float)
    (rcx, rcy), (ccx, ccy) = _centroid(ref), _centroid(cur)
    scale = np.sqrt(cur.sum() / ref.sum() / (stretch[0] * stretch[1]))
    pad = max(ref.shape) // 2 + 2
    yy, xx = np.mgrid[-pad:cur.shape[0] + pad, -pad:cur.shape[1] + pad]
    dx, dy = (xx - ccx) / scale, (yy - ccy) / scale
    a = np.radians(angle)
    # Screen y points down: a counter-clockwise turn maps back by the inverse rotation.
    u = (np.cos(a) * dx - np.sin(a) * dy) / stretch[0] + rcx
    v = (np.sin(a) * dx + np.cos(a) * dy) / stretch[1] + rcy
    b = map_coordinates(ref, [v, u], order=1, cval=0.0)
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
        return {"change": f"turned by {deg}°", "kind": "turned", "value": deg,
                "overlap": round(base, 3), "explained": round(best_turn[0], 3)}
    r = best_stretch[1]
    if best_stretch[0] > base + 0.02 and abs(np.log(r)) >= np.log(1 + min_stretch):
        f = round(float(max(r, 1 / r)), 1)
        way = "as wide for its height" if r > 1 else "as tall for its width"
        return {"change": f"stretched ({f}x {way})", "kind": "stretched", "value": f,
                "overlap": round(base, 3), "explained": round(best_stretch[0], 3)}
    return {"change": f"changed shape (overlap {base:.2f} with its first silhouette)",
            "kind": "reshaped", "value": round(base, 2)}
