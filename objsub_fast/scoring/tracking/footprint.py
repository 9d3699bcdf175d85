"""Per frame, each kept object's footprint against its first silhouette (``silhouette``), and
whether a shape read-out is borne out by it: the part of the tracker that reads silhouettes."""
from __future__ import annotations

import numpy as np

from .silhouette import MIN_PIXELS, Silhouettes, drawn_silhouette, overlap_of
from ..judging.thresholds import THRESHOLDS

__all__ = ["FootprintReader"]


class FootprintReader:
    """Reads kept objects' silhouettes frame by frame (:meth:`read`, then
    :meth:`shape_evidence` on the same frame).

    Attributes
    ----------
    silhouettes : silhouette.Silhouettes
        Each object's first silhouette.
    changed_masks : dict
        {object: {"first": (t, mask), "worst": (overlap, t, mask)}}: the silhouettes of the
        frames where its footprint read changed, to put a change in words.
    last : (M, 2) array
        The last frame's (area ratio, overlap) per object.
    """

    def __init__(self, model):
        self.model = model
        self.silhouettes = Silhouettes(len(model.cx), int(model.size.max() * 1.6) + 4)
        self.changed_masks = {}
        self.last = None
        self._crops = {}            # this frame's soft silhouettes, by object (:meth:`_crop`)

    def read(self, t: int, frame, hit, comp_of, comps, cam) -> np.ndarray:
        """(M, 2) of (area ratio, overlap) of each kept object's silhouette against its first
        one (``silhouette``); NaN where not measured. The first silhouette is taken the first
        time the object is seen whole (off the border, not a speck). Keeps the silhouettes of
        the frames where one reads changed (the first and the worst), to put a change in words.
        """
        m, st = self.model, THRESHOLDS["kept_object_stability"]
        self._crops = {}
        out = np.full((len(m.cx), 2), np.nan)
        ok = hit & ~m.removed
        ok[ok] = ~comps.edge[comp_of[ok]] & (comps.area[comp_of[ok]] >= MIN_PIXELS)
        if not ok.any():
            self.last = out
            return out
        sil = self.silhouettes
        new = ok & (sil.frame < 0)
        if new.any():
            sil.take(t, frame, np.flatnonzero(new), comps, comp_of[new], cam[0])
        which = np.flatnonzero(ok & (sil.frame >= 0) & ~new)
        out[new & (sil.frame >= 0)] = 1.0
        if not which.size:
            self.last = out
            return out
        ratio, overlap = sil.compare(frame, which, comps, comp_of[which], cam[0])
        # Where it reads changed, the object as the task draws it may still fit: the first
        # frame's silhouette can carry a codec's smear (an I-frame's, at 0.015 bit/pixel), and
        # an object that looks as the task's first frame draws it is unchanged.
        for n in np.flatnonzero(overlap < st["turn_overlap"]).tolist():
            k = int(which[n])
            drawn = drawn_silhouette(m.look, m.global_shape[k], int(m.size[k]), m.rgb[k])
            overlap[n] = max(overlap[n], overlap_of(drawn, self._crop(frame, comps, comp_of, k)))
        out[which, 0], out[which, 1] = ratio, overlap
        bad = (np.abs(ratio - 1) > st["max_area_change"]) | (overlap < st["turn_overlap"])
        for n in np.flatnonzero(bad).tolist():
            k = int(which[n])
            seen = self.changed_masks.setdefault(k, {})
            if "first" not in seen:
                seen["first"] = (t, self._crop(frame, comps, comp_of, k))
            if "worst" not in seen or overlap[n] < seen["worst"][0]:
                seen["worst"] = (float(overlap[n]), t, self._crop(frame, comps, comp_of, k))
        self.last = out
        return out

    def _crop(self, frame, comps, comp_of, k: int) -> np.ndarray:
        """Object ``k``'s soft silhouette in this frame (``Silhouettes.crop``), made once per
        frame (:meth:`read` starts the frame)."""
        if k not in self._crops:
            sil = self.silhouettes
            self._crops[k] = sil.crop(frame, comps, comp_of[k], sil.full[k])[0]
        return self._crops[k]

    def shape_evidence(self, frame, shape_of, comp_of, comps) -> np.ndarray:
        """(M,) bool: the kept objects whose shape reads as another one in this frame and whose
        silhouette bears it out: it overlaps its first silhouette less than
        ``shape_overlap``, and the read shape drawn at its size overlaps it by ``shape_margin``
        more than its first silhouette does. The classifier misreads a small object's blocky or
        smeared edges (a 21 px pyramid as a cone at 0.015 bit/pixel), which leave it about as
        near its own first silhouette as the other shape's drawing."""
        m, st = self.model, THRESHOLDS["kept_object_stability"]
        foot = self.last
        out = np.zeros(len(m.cx), bool)
        cand = np.flatnonzero((shape_of >= 0) & (shape_of != m.shape) & ~m.removed
                              & (foot[:, 1] < st["shape_overlap"]))
        for k in cand.tolist():
            cur = self._crop(frame, comps, comp_of, k)
            other = drawn_silhouette(m.look, int(m.question.vocabulary.shapes[shape_of[k]]),
                                     int(m.size[k]), m.rgb[k])
            out[k] = overlap_of(other, cur) > foot[k, 1] + st["shape_margin"]
        return out
