"""Registration: where the task's canvas lies in a model's frames, found from the first frame.

The task says exactly what frame 0 must show, so the scorer does not guess from bars or aspect
ratios: it finds the mapping ``frame = s * canvas + t`` (per axis: ``x = sx * u + tx``,
``y = sy * v + ty``, continuous pixel coordinates) that puts the task's objects onto the
components of frame 0. This covers padding in any colour (white or outpainted included), centre
or offset crops, uniform and non-uniform scaling, any output size and aspect.

1. Components of frame 0 are detected at the frame's own resolution (``detect.Detector``).
2. Every (object, component of its colour) pair that does not touch the frame's border gives a
   hypothesis: the scale from the ratio of their bounding boxes, the shift from their centroids.
   The bars-and-aspect guess of :func:`video.content_box` is one more hypothesis.
3. Each hypothesis predicts every object's place; an object is matched by the nearest component
   of its colour (or of uncertain colour) within :data:`MATCH_RADIUS` of its size and with an
   area within :data:`AREA_RANGE` of the scaled drawn area. The best hypotheses are refined by
   least squares over their matches (per axis), twice.
4. The mapping with the most matched objects, then the smallest residual, wins. It must match at
   least ``THRESHOLDS["registration"]["min_matched_fraction"]`` of the objects it puts inside
   the frame (and two), with a mean residual of at most ``max_residual_px``; otherwise the video
   does not show the task's first frame and :func:`register` raises ``VideoError``.

An object whose bounding square the mapping puts (partly) outside the frame is *not visible*:
the metrics leave it out (a crop is not a removal).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...runtime.errors import VideoError
from .bars import content_box
from ..tracking.detect import Detector
from ..judging.thresholds import THRESHOLDS

__all__ = ["Mapping", "register", "bars_mapping"]

#: An object matches a component whose centroid is within this fraction of its size (canvas px).
MATCH_RADIUS = 0.35
#: ... and whose area is within this range of the drawn area scaled by sx * sy.
AREA_RANGE = (0.4, 2.5)
#: Largest anisotropy sx / sy (or sy / sx) a mapping may have.
MAX_ANISOTROPY = 3.0
#: A single scale for both axes is kept when its fit leaves at most this rms error (canvas px).
UNIFORM_RMS_PX = 0.75
#: Hypotheses refined by least squares (the best by matched count).
REFINED = 12
#: Components of frame 0 considered (the largest first); the rest are texture.
MAX_COMPONENTS = 256


@dataclass
class Mapping:
    """Frame <- canvas mapping of one video: ``x = sx * u + tx``, ``y = sy * v + ty``.

    Attributes
    ----------
    sx, sy, tx, ty : float
    source_size, canvas_size : (W, H)
    method : str
        ``"objects"`` (registered on the task's objects) or ``"bars"`` (no task: bars cut and
        the rest stretched to the canvas).
    matched : int
        Objects of frame 0 found where the mapping puts them.
    residual_px : float or None
        Their mean distance from there, in canvas pixels.
    visible : (M,) bool array or None
        Objects whose bounding square lies inside the frame.
    """

    sx: float
    sy: float
    tx: float
    ty: float
    source_size: tuple
    canvas_size: tuple
    method: str = "objects"
    matched: int = 0
    residual_px: float | None = None
    visible: np.ndarray | None = field(default=None, repr=False)

    def canvas_rect(self) -> tuple[int, int, int, int]:
        """The part of the canvas the frame shows: (u0, v0, u1, v1), half-open, canvas px."""
        (w, h), (cw, ch) = self.source_size, self.canvas_size
        u0 = max(0, int(np.ceil(-self.tx / self.sx - 1e-6)))
        v0 = max(0, int(np.ceil(-self.ty / self.sy - 1e-6)))
        u1 = min(cw, int(np.floor((w - self.tx) / self.sx + 1e-6)))
        v1 = min(ch, int(np.floor((h - self.ty) / self.sy + 1e-6)))
        return u0, v0, max(u1, u0), max(v1, v0)

    def content_box(self) -> list[int]:
        """The canvas's box in the frame, (x0, y0, x1, y1) rounded (may extend past it)."""
        cw, ch = self.canvas_size
        return [int(round(self.tx)), int(round(self.ty)), int(round(self.sx * cw + self.tx)),
                int(round(self.sy * ch + self.ty))]

    def to_dict(self) -> dict:
        """JSON-ready summary for result records."""
        return {"method": self.method, "scale": [round(self.sx, 4), round(self.sy, 4)],
                "offset_px": [round(self.tx, 2), round(self.ty, 2)],
                "matched_objects": int(self.matched),
                "residual_px": None if self.residual_px is None else round(self.residual_px, 3),
                "canvas_rect": list(self.canvas_rect())}


def _snap(m: Mapping) -> Mapping:
    """Round a mapping within half a pixel of the identity to the identity (exact copies)."""
    (w, h), (cw, ch) = m.source_size, m.canvas_size
    if (w, h) == (cw, ch) and abs(m.sx - 1) * cw < 0.5 and abs(m.sy - 1) * ch < 0.5 \
            and abs(m.tx) < 0.5 and abs(m.ty) < 0.5:
        m.sx = m.sy = 1.0
        m.tx = m.ty = 0.0
    return m


def bars_mapping(frame: np.ndarray, canvas_size) -> Mapping:
    """The mapping that cuts bars (``video.content_box``) and stretches the rest to the canvas."""
    y0, y1, x0, x1 = content_box(frame, canvas_size)
    cw, ch = int(canvas_size[0]), int(canvas_size[1])
    return _snap(Mapping((x1 - x0) / cw, (y1 - y0) / ch, float(x0), float(y0),
                         (frame.shape[1], frame.shape[0]), (cw, ch), method="bars"))


def _evaluate(hyp, model, comps, cpos, carea):
    """Matched count and match table of each hypothesis (N, 4) = (sx, sy, tx, ty).

    Returns (count (N,), comp index (N, M) or -1, distance (N, M) in canvas px).
    """
    if not len(comps):
        m = len(model.size)
        return np.zeros(len(hyp), int), np.full((len(hyp), m), -1), np.full((len(hyp), m), np.inf)
    sx, sy, tx, ty = (hyp[:, i, None] for i in range(4))
    u = (cpos[None, :, 0] - tx) / sx                                    # (N, K) canvas coords
    v = (cpos[None, :, 1] - ty) / sy
    d = np.hypot(u[:, None, :] - model.ucx[None, :, None],
                 v[:, None, :] - model.ucy[None, :, None])              # (N, M, K)
    ratio = carea[None, None, :] / (model.area[None, :, None] * (sx * sy)[:, :, None])
    colour_ok = ((comps.color[None, :] == model.color[:, None]) | (comps.color[None, :] < 0)) \
        & ~comps.edge[None, :]
    ok = (colour_ok[None] & (d <= MATCH_RADIUS * model.size[None, :, None])
          & (ratio >= AREA_RANGE[0]) & (ratio <= AREA_RANGE[1]))
    d = np.where(ok, d, np.inf)
    best = d.argmin(axis=2)
    dist = np.take_along_axis(d, best[..., None], axis=2)[..., 0]
    comp = np.where(np.isfinite(dist), best, -1)
    return np.isfinite(dist).sum(axis=1), comp, dist


def _refine(h, model, cpos, comp):
    """Least-squares mapping over the matched objects of one hypothesis: one scale for both
    axes when it fits within :data:`UNIFORM_RMS_PX` (canvas px), else one per axis; an axis
    whose matches do not spread over two object sizes keeps its scale and fits its shift."""
    hit = comp >= 0
    if not hit.any():
        return h
    uv = np.stack([model.ucx[hit], model.ucy[hit]], axis=1)
    xy = cpos[comp[hit]]
    spread = np.ptp(uv, axis=0) > 2 * model.size.min()
    if hit.sum() >= 2 and spread.any():
        um, xm = uv.mean(axis=0), xy.mean(axis=0)
        s = float(((uv - um) * (xy - xm)).sum() / ((uv - um) ** 2).sum())
        t = xm - s * um
        rms = np.sqrt(((xy - (s * uv + t)) ** 2).sum(axis=1).mean()) / s if s > 0 else np.inf
        if rms <= UNIFORM_RMS_PX * min(model.canvas_size) / 256:
            return np.array([s, s, t[0], t[1]])
    out = h.copy()
    for axis in (0, 1):
        u, x = uv[:, axis], xy[:, axis]
        if spread[axis] and u.size >= 2:
            s, t = np.polyfit(u, x, 1)
            if s > 0:
                out[axis], out[axis + 2] = s, t
                continue
        out[axis + 2] = float(np.mean(x - out[axis] * u))
    return out


def _visible(h, model, source_size) -> np.ndarray:
    sx, sy, tx, ty = h
    w, hgt = source_size
    x0, x1 = sx * model.left + tx, sx * (model.left + model.size) + tx
    y0, y1 = sy * model.top + ty, sy * (model.top + model.size) + ty
    return (x0 >= -1) & (y0 >= -1) & (x1 <= w + 1) & (y1 <= hgt + 1)


def register(frame: np.ndarray, model, shown=None) -> Mapping:
    """Find the mapping that best explains ``frame`` (the video's frame 0) as the task's first
    frame.

    Parameters
    ----------
    frame : (H, W, 3) uint8 array
        Frame 0 at the video's own resolution.
    model : metrics.TaskModel
    shown : (M,) bool array, optional
        The objects ``frame`` should show (default all: a first frame). A single final image
        shows the kept objects only.

    Raises
    ------
    VideoError
        When no mapping puts enough of the task's objects onto frame 0 (the video does not
        show the task's first frame).
    """
    th = THRESHOLDS["registration"]
    shown = np.ones(len(model.size), bool) if shown is None else np.asarray(shown, bool)
    h, w = frame.shape[:2]
    source = (w, h)
    cw, ch = model.canvas_size
    unit = min(cw, ch) / 256
    # Components at the frame's resolution: anything from a quarter of the smallest object at a
    # tenth of the canvas scale up.
    min_scale = min(w / cw, h / ch) / 4
    comps = Detector(source, max(4.0, 0.25 * model.area.min() * min_scale ** 2),
                     model.palette, model.look)(frame)
    order = np.argsort(-comps.area, kind="stable")[:MAX_COMPONENTS]
    keep = np.zeros(len(comps), bool)
    keep[order] = True
    cpos = np.stack([comps.cx + 0.5, comps.cy + 0.5], axis=1)
    carea = np.where(keep, comps.area, np.inf)
    bw = comps.bbox[:, 1] - comps.bbox[:, 0] + 1
    bh = comps.bbox[:, 3] - comps.bbox[:, 2] + 1
    seeds = []
    for i in range(len(model.size)):
        for a in np.flatnonzero(keep & ~comps.edge & (comps.color == model.color[i])):
            sx, sy = bw[a] / model.bw[i], bh[a] / model.bh[i]
            seeds.append((sx, sy, cpos[a, 0] - sx * model.ucx[i], cpos[a, 1] - sy * model.ucy[i]))
    bars = bars_mapping(frame, model.canvas_size)
    seeds.append((bars.sx, bars.sy, bars.tx, bars.ty))
    hyp = np.array(seeds, float)
    aniso = hyp[:, 0] / hyp[:, 1]
    hyp = hyp[(aniso <= MAX_ANISOTROPY) & (aniso >= 1 / MAX_ANISOTROPY)]
    count, comp, _ = _evaluate(hyp, model, comps, cpos, carea)
    best_key, best = None, None
    for n in np.argsort(-count, kind="stable")[:REFINED]:
        hy, c2 = hyp[n], comp[n]
        for _ in range(2):
            hy = _refine(hy, model, cpos, c2)
            _, c2, dist = _evaluate(hy[None], model, comps, cpos, carea)
            c2 = c2[0]
        vis = _visible(hy, model, source) & shown
        matched = int(((c2 >= 0) & vis).sum())
        resid = float(dist[0][(c2 >= 0) & vis].mean()) if matched else np.inf
        key = (matched, -resid)
        if best_key is None or key > best_key:
            best_key, best = key, (hy, vis, matched, resid)
    hy, vis, matched, resid = best
    visible = _visible(hy, model, source)
    need = max(min(2, int(vis.sum())), int(np.ceil(th["min_matched_fraction"] * vis.sum())))
    if matched < max(need, 1) or resid > th["max_residual_px"] * unit:
        found = "no object" if not matched else (f"{matched} of {int(vis.sum())} objects "
                                                 f"(mean error {resid / unit:.1f} px)")
        raise VideoError(f"the video does not show the task's first frame: frame 0 "
                         f"({w}x{h}) shows {found} where any one mapping onto the {cw}x{ch} "
                         "canvas would put the task's objects")
    return _snap(Mapping(float(hy[0]), float(hy[1]), float(hy[2]), float(hy[3]), source,
                         (cw, ch), "objects", matched, resid / unit, visible))
