"""The Object Subtraction metrics, tracked over a stream of canvas frames.

Every threshold is in :data:`thresholds.THRESHOLDS` (with the reasons). Positions are judged in
camera-compensated coordinates (``camera``): where the frame's camera puts each drawn object.
Objects the registration found outside the frame (cut off by a crop) are *not visible* and left
out of every metric. A task passes overall when every applicable metric passes; with a single
final image, ``motion_continuity`` is not applicable and stability is judged on that one frame.

``motion_continuity`` fails shortcuts too: removed objects already absent from frame 0 (a static
final frame), and a hard cut: the removed objects' ink (``255 - min(R, G, B)`` summed over their
camera-placed squares) must spend at least ``min_transition_frames`` frames between 10% and 90%
of the way from its first value to its last.
"""
from __future__ import annotations


import numpy as np

from ..runtime._numba import kernel
from ..runtime.errors import TaskError
from ..task.vocabulary import Vocabulary
from .accounting import ZONE_GROWTH_FRACTION, InkLedger, unexplained
from .camera import apply_camera, estimate_camera, fit_camera
from .detect import (BG, MIN_AREA_FRACTION, REACQUIRE_RATIO_RANGE, Detector, classify_shapes,
                     match, object_mask, shape_templates)
from .question import check_question
from .silhouette import (MIN_PIXELS, Silhouettes, describe, drawn_silhouette, ink_of,
                         overlap_of, typical_ink)
from .thresholds import METRICS, THRESHOLDS

__all__ = ["TaskModel", "Tracker", "score_frames", "THRESHOLDS", "METRICS"]

#: Object zones (left out of the global-change test) are their boxes grown by this many px.
ZONE_MARGIN = 3
#: Removed objects vote for the camera (when few kept objects are seen) while their area is
#: within this range of the drawn area: they have not started to change.
WHOLE_RANGE = (0.75, 1.33)
#: ... and while each stays within this many px (at 256) of where frame 0 showed it.
NEAR_PX = 1.5
_ZONE_GROWTH = np.array([-ZONE_MARGIN, ZONE_MARGIN, -ZONE_MARGIN, ZONE_MARGIN])
#: The final match expects a settled kept object at its seen size within this fraction of its
#: drawn size (a size jitter of a few percent), the drawn size beyond it.
SIZE_SLACK = 0.05
#: A transition frame has the removed objects' ink between these fractions of the way gone.
TRANSITION_BAND = (0.1, 0.9)
#: The band is narrowed by this multiple of the kept objects' ink noise (see _transition) ...
NOISE_FACTOR = 1.5
#: ... to at most this much off each end: a removal in two steps or more (0.5; 0.33, 0.67; ...)
#: always has a frame inside.
MAX_NOISE = 0.3
#: A removed object whose square holds this fraction of its first ink again is back.
REAPPEAR_INK = 0.75
#: A video shows a removal when at least this fraction of the removed objects' ink went away.
MIN_INK_GONE = 0.3


class TaskModel:
    """What the scorer expects of one task, derived from its (validated) task record.

    Attributes
    ----------
    canvas_size : (W, H)
    ids, color, shape, size, left, top : (M,) int arrays
    cx, cy : (M,) expected centroids of the drawn shapes (pixel-index coordinates)
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


@kernel(nogil=True)
def _ink_each(frame, q, half, s, tx, ty, cx, cy):
    """Per point of ``q`` (N, 2): the sum of ``255 - min(R, G, B)`` over its square of
    half-side ``half`` (grown by 1 px) as camera (s, tx, ty) about (cx, cy) places it (and its
    half-side), clipped to ``frame``."""
    h, w = frame.shape[:2]
    out = np.zeros(q.shape[0])
    for k in range(q.shape[0]):
        px = cx + s * (q[k, 0] - cx) + tx
        py = cy + s * (q[k, 1] - cy) + ty
        r = s * half[k] + 1
        x0, x1 = int(max(px - r, 0.0)), int(min(px + r + 1, float(w)))
        y0, y1 = int(max(py - r, 0.0)), int(min(py + r + 1, float(h)))
        total = 0
        for y in range(y0, y1):
            for x in range(x0, x1):
                total += 255 - min(frame[y, x, 0], frame[y, x, 1], frame[y, x, 2])
        out[k] = total
    return out


@kernel(nogil=True)
def _changed_outside(prev, cur, zones) -> float:
    """Fraction of the pixels whose class differs between ``prev`` and ``cur`` outside every
    (x0, x1, y0, y1) zone (inclusive, clipped to the frame)."""
    h, w = prev.shape
    diff = np.zeros((h, w), np.bool_)
    count = 0
    for y in range(h):
        for x in range(w):
            if prev[y, x] != cur[y, x]:
                diff[y, x] = True
                count += 1
    if count == 0:
        return 0.0
    for z in range(zones.shape[0]):
        for y in range(max(zones[z, 2], 0), min(zones[z, 3] + 1, h)):
            for x in range(max(zones[z, 0], 0), min(zones[z, 1] + 1, w)):
                if diff[y, x]:
                    diff[y, x] = False
                    count -= 1
    return count / (h * w)


def _voted(values: np.ndarray, window: int) -> np.ndarray:
    """The median of ``values`` over the ``window`` values around each (a window of the same
    length at the ends, all of them when there are fewer): a read-out counts only when most of
    the frames around it agree, so a frame or two of codec smear changes nothing.

    Examples
    --------
    >>> _voted(np.array([0, 0, 1, 1, 0, 0, 0, 1, 1, 1.]), 5).tolist()
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0]
    """
    n = len(values)
    if n <= window:
        return np.full(n, np.median(values))
    half = window // 2
    start = np.clip(np.arange(n) - half, 0, n - window)
    return np.median(values[start[:, None] + np.arange(window)], axis=1)


def _start(voted: np.ndarray, raw: np.ndarray) -> int:
    """Where a voted change starts: its first frame that reads changed on its own (the vote's
    window reaches a few frames ahead), else its first frame."""
    both = voted & raw
    return int(np.argmax(both if both.any() else voted))


def _read_changed(codes: np.ndarray, default: int, window: int, confirm=None) -> np.ndarray:
    """Per frame of ``codes`` (an object's colour or shape read-outs over the frames it is seen
    in, -1 uncertain): whether most of the ``window`` frames around it (:func:`_voted`) read
    something other than its own read-out, the most common one of its first ``window`` frames
    (``default`` when none is certain), in frames where ``confirm`` holds (default: all). A
    blur or restyle that changes every frame alike is no change; a frame or two of codec
    smear are outvoted.

    Examples
    --------
    >>> bool(_read_changed(np.array([2, 1, 1, 1, 3, 1, 1, 1, 1]), 0, 5).any())
    False
    >>> int(np.argmax(_read_changed(np.array([1, 1, 1, 1, 1, 3, 3, 3, 3]), 0, 5)))
    5
    """
    first = codes[:window][codes[:window] >= 0]
    own = int(np.bincount(first).argmax()) if first.size else int(default)
    flags = (codes >= 0) & (codes != own)
    if confirm is not None:
        flags &= confirm
    return _voted(flags.astype(float), window) > 0.5


def _runs(flags: np.ndarray):
    """Run-length encode a bool sequence: list of (value, length)."""
    out = []
    for v in flags.tolist():
        if out and out[-1][0] == v:
            out[-1][1] += 1
        else:
            out.append([v, 1])
    return out


def _reappeared(present: np.ndarray, min_run: int) -> int | None:
    """The frame an object came back in: the start of the first present run of >= min_run
    frames after an absent run of >= min_run frames; None when it never did."""
    seen_gap, start = False, 0
    for v, n in _runs(present):
        if not v and n >= min_run:
            seen_gap = True
        elif v and n >= min_run and seen_gap:
            return start
        start += n
    return None


def _warp_mask(mask: np.ndarray, cam, center) -> np.ndarray:
    """``mask`` as the camera ``cam`` shows it (nearest neighbour)."""
    s, tx, ty = cam
    if (s, tx, ty) == (1.0, 0.0, 0.0):
        return mask
    h, w = mask.shape
    ys = np.floor(center[1] + (np.arange(h) - center[1] - ty) / s + 0.5).astype(int)
    xs = np.floor(center[0] + (np.arange(w) - center[0] - tx) / s + 0.5).astype(int)
    oky, okx = (ys >= 0) & (ys < h), (xs >= 0) & (xs < w)
    out = mask[np.clip(ys, 0, h - 1)][:, np.clip(xs, 0, w - 1)]
    return out & oky[:, None] & okx[None, :]


def _sample_frames(count: int, keep: int) -> np.ndarray:
    """Indices of ``keep`` frames spread evenly over ``count`` (first and last included)."""
    return np.unique(np.rint(np.linspace(0, count - 1, min(keep, count))).astype(int))


class Tracker:
    """Consume canvas frames of one video and compute the metrics at the end.

    Parameters
    ----------
    model : TaskModel
    mapping : register.Mapping, optional
        The registration (visible objects and canvas part); default: everything visible.
    keep_samples : int
        Keep about this many frames (spread over the video, for reports); 0 keeps none.
    """

    def __init__(self, model: TaskModel, mapping=None, keep_samples: int = 0):
        self.model = m = model
        w, h = model.canvas_size
        self.diag = float(np.hypot(w, h))
        self.gate = THRESHOLDS["motion_continuity"]["max_step_fraction"] * self.diag
        self.detect = Detector(model.canvas_size, model.min_area, model.palette, model.look)
        self.set_mapping(mapping)
        self.ref_x, self.ref_y = m.cx.copy(), m.cy.copy()
        self._drawn = np.stack([m.cx, m.cy], axis=1)
        self.ref_area = m.area.copy()
        self.last_seen = np.full(len(m.cx), -1)
        # Per frame, each object's colour and shape read-outs (-1: uncertain or not seen).
        self.positions, self.present, self.color_read, self.shape_read = [], [], [], []
        self.cameras, self.ink = [], []
        # Each kept object's footprint against its first one, per frame: (M, 2) of (area ratio,
        # overlap), NaN where not measured (``silhouette``); the silhouettes of the frames
        # where it read changed, per object {"first": (t, mask), "worst": (overlap, t, mask)}.
        self.silhouettes = Silhouettes(len(m.cx), int(m.size.max() * 1.6) + 4)
        self.footprint, self.changed_masks = [], {}
        # Per frame, which kept objects read as another shape look more like it than like
        # their first silhouette (:meth:`_shape_evidence`).
        self.shape_confirmed = []
        self._crops = {}            # this frame's soft silhouettes, by object (:meth:`_crop`)
        self.removed_vote, self.first_seen = True, None
        self.max_step = 0.0
        self.max_global = 0.0
        self.prev_cls = None
        self._inputs = None         # the tracking inputs the previous frame met (see update)
        self._repeating = False     # the previous frame was a repeat (see update)
        self.base_zones = np.stack([m.left, m.left + m.size, m.top, m.top + m.size],
                                   axis=1) + _ZONE_GROWTH
        self.prev_zones = self.base_zones[:0]
        self.final_cls = self.final_frame = None
        added = THRESHOLDS["added_objects"]
        self.ledger = InkLedger(added["min_frames"], self.gate)
        self._added_min_area = added["min_area_fraction"] * m.area.min()
        self._zone_half = m.size * (0.5 + ZONE_GROWTH_FRACTION)
        self._squares = np.stack([m.left + (m.size - 1) / 2, m.top + (m.size - 1) / 2], axis=1)
        self.keep_samples = int(keep_samples)
        self.samples = {}           # frame index -> canvas frame (decimated as frames come)
        self.last_sample = None     # (index, frame) of the latest frame
        self._sample_step = 1

    def set_mapping(self, mapping) -> None:
        """Take the visible objects and canvas part of a registration (None: all visible)."""
        w, h = self.model.canvas_size
        self.mapping = mapping
        self.visible = (mapping.visible if mapping is not None and mapping.visible is not None
                        else np.ones(len(self.model.cx), bool))
        self.rect = mapping.canvas_rect() if mapping is not None else (0, 0, w, h)
        self.detect.rect = self.rect      # a component at its border may be cut off
        m = self.model
        self._vis = vis = np.flatnonzero(self.visible)
        self._vis_model = (m.color[vis], m.shape[vis], m.size[vis], m.area[vis], m.templates[vis])
        self._ink_q = np.stack([m.cx[vis], m.cy[vis]], axis=1)
        self._ink_half = m.size[vis] / 2
        self._ink_removed = m.removed[vis]

    def _camera(self, hit, comps, idx):
        """This frame's camera from the kept objects (see ``camera``)."""
        m = self.model
        prev = self.cameras[-1] if self.cameras else (1.0, 0.0, 0.0)
        p = np.full((len(hit), 2), np.nan)
        p[hit, 0], p[hit, 1] = comps.cx[idx], comps.cy[idx]
        q = self._drawn
        if self.first_seen is None:      # frame 0: where each object starts
            self.first_seen = p.copy()
        kept = hit & ~m.removed & self.visible
        vote = kept
        if kept.sum() < 3 and self.removed_vote:
            # Removed objects vote only until the first of them changes (moves off its frame-0
            # place, changes size or goes): after that they could drag the camera along.
            area = np.full(len(hit), np.nan)
            area[hit] = comps.area[idx]
            ratio = area / m.area
            rem = m.removed & self.visible & np.isfinite(self.first_seen[:, 0])
            still = hit & (np.hypot(*(p - self.first_seen).T) <= NEAR_PX * m.unit) \
                & (ratio >= WHOLE_RANGE[0]) & (ratio <= WHOLE_RANGE[1])
            self.removed_vote = bool(still[rem].all())
            if self.removed_vote:
                vote = kept | rem
        if vote.sum() == 2 and (vote & m.removed).any():
            return prev, p      # two points decide a camera only when both are kept objects
        return estimate_camera(p[vote], q[vote], m.center, prev, m.unit), p

    def _ink(self, frame, cam) -> np.ndarray:
        """Ink (255 - min channel) over each visible object's placed square."""
        c = self.model.center
        return _ink_each(frame, self._ink_q, self._ink_half, cam[0], cam[1], cam[2], c[0], c[1])

    def _keep(self, t: int, frame) -> None:
        if not self.keep_samples:
            return
        if t % self._sample_step == 0:
            self.samples[t] = frame.copy()
            self.last_sample = (t, self.samples[t])
        else:
            self.last_sample = (t, frame.copy())     # the final frame is always drawn
        if len(self.samples) > 4 * self.keep_samples:
            self._sample_step *= 2
            self.samples = {i: f for i, f in self.samples.items() if i % self._sample_step == 0}

    def update(self, frame: np.ndarray, classes=None, repeated: bool = False) -> None:
        """Detect and match objects in one canvas frame.

        ``classes``: the frame's pixel classes when the frame source classified it;
        ``repeated``: those classes are exactly the previous frame's (the colours may differ,
        e.g. by grain). A repeated frame whose tracking inputs (last positions and areas, lost
        objects, previous camera) are those the previous frame met gets the previous frame's
        read-out (detection and matching see only the classes: the same inputs give the same
        outputs); only its ink, which reads the colours, is measured again. A repeat leaves the
        inputs as they were, so the frames after it that repeat it are repeats too (their inputs
        are not compared again).
        """
        m = self.model
        comps = self.detect(frame, classes, repeated)
        if repeated and self._repeating:
            self._repeat(frame)
            return
        inputs = (self.ref_x.copy(), self.ref_y.copy(), self.ref_area.copy(),
                  self.present[-1] if self.present else None,
                  self.cameras[-1] if self.cameras else None, self.removed_vote)
        self._repeating = repeated and self._same_inputs(inputs)
        if self._repeating:
            self._repeat(frame)
            return
        self._inputs = inputs
        t = len(self.present)
        lost = ~self.present[-1] if t else np.zeros(len(m.cx), bool)
        # Objects the frame does not show take no part in the matching.
        vis = self._vis
        comp_of, shape_of = np.full(len(m.cx), -1), np.full(len(m.cx), -1)
        ref_x, ref_y, reach = self._reach(lost)
        comp_of[vis], shape_of[vis] = match(
            ref_x[vis], ref_y[vis], self.ref_area[vis], lost[vis], *self._vis_model,
            comps, gate=self.gate, reach=reach[vis])
        hit = comp_of >= 0
        idx = comp_of[hit]
        cam, pos = self._camera(hit, comps, idx)
        seen = hit & (self.last_seen >= 0)
        if seen.any():
            step = np.hypot(pos[seen, 0] - self.ref_x[seen], pos[seen, 1] - self.ref_y[seen])
            self.max_step = max(self.max_step, float(step.max()))
        self.ref_x[hit], self.ref_y[hit] = pos[hit, 0], pos[hit, 1]
        self.ref_area[hit] = comps.area[idx]
        self.last_seen[hit] = t
        col = np.full(len(comp_of), -1)
        col[hit] = comps.color[idx]
        self.positions.append(pos)
        self.present.append(hit)
        self.color_read.append(col)
        self.shape_read.append(shape_of)
        self.cameras.append(cam)
        self.ink.append(self._ink(frame, cam))
        self.footprint.append(self._footprint(t, frame, hit, comp_of, comps, cam))
        self.shape_confirmed.append(self._shape_evidence(frame, shape_of, comp_of, comps))
        zones = comps.bbox[idx] + _ZONE_GROWTH
        if self.prev_cls is not None:
            changed = _changed_outside(self.prev_cls, comps.cls,
                                       np.concatenate([self.base_zones, self.prev_zones, zones]))
            self.max_global = max(self.max_global, changed)
        self.prev_cls, self.prev_zones = comps.cls, zones
        self.final_cls, self.final_frame = comps.cls, frame
        self._account(t, comps, idx, cam)
        self._keep(t, frame)

    def _reach(self, lost):
        """(ref_x, ref_y, reach) for matching: a lost removed object is looked for only within
        the motion threshold of where it was last seen, moved by the camera since then (identity
        follows place); a lost kept object anywhere (a teleport is then seen as a jump)."""
        m = self.model
        reach = np.full(len(m.cx), np.inf)
        away = lost & m.removed & (self.last_seen >= 0)
        if not away.any() or not self.cameras:
            return self.ref_x, self.ref_y, reach
        reach[away] = self.gate
        ref_x, ref_y = self.ref_x.copy(), self.ref_y.copy()
        s1, tx1, ty1 = self.cameras[-1]
        c = m.center
        for k in np.flatnonzero(away):
            s0, tx0, ty0 = self.cameras[self.last_seen[k]]
            f = s1 / s0
            ref_x[k] = c[0] + f * (ref_x[k] - c[0] - tx0) + tx1
            ref_y[k] = c[1] + f * (ref_y[k] - c[1] - ty0) + ty1
        return ref_x, ref_y, reach

    def _footprint(self, t: int, frame, hit, comp_of, comps, cam) -> np.ndarray:
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
            return out
        sil = self.silhouettes
        new = ok & (sil.frame < 0)
        if new.any():
            sil.take(t, frame, np.flatnonzero(new), comps, comp_of[new], cam[0])
        which = np.flatnonzero(ok & (sil.frame >= 0) & ~new)
        out[new & (sil.frame >= 0)] = 1.0
        if not which.size:
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
        return out

    def _crop(self, frame, comps, comp_of, k: int) -> np.ndarray:
        """Object ``k``'s soft silhouette in this frame (``Silhouettes.crop``), made once per
        frame (:meth:`_footprint` starts the frame)."""
        if k not in self._crops:
            sil = self.silhouettes
            self._crops[k] = sil.crop(frame, comps, comp_of[k], sil.full[k])[0]
        return self._crops[k]

    def _shape_evidence(self, frame, shape_of, comp_of, comps) -> np.ndarray:
        """(M,) bool: the kept objects whose shape reads as another one in this frame and whose
        silhouette bears it out: it overlaps its first silhouette less than
        ``shape_overlap``, and the read shape drawn at its size overlaps it by ``shape_margin``
        more than its first silhouette does. The classifier misreads a small object's blocky or
        smeared edges (a 21 px pyramid as a cone at 0.015 bit/pixel), which leave it about as
        near its own first silhouette as the other shape's drawing."""
        m, st = self.model, THRESHOLDS["kept_object_stability"]
        foot = self.footprint[-1]
        out = np.zeros(len(m.cx), bool)
        cand = np.flatnonzero((shape_of >= 0) & (shape_of != m.shape) & ~m.removed
                              & (foot[:, 1] < st["shape_overlap"]))
        for k in cand.tolist():
            cur = self._crop(frame, comps, comp_of, k)
            other = drawn_silhouette(m.look, int(m.question.vocabulary.shapes[shape_of[k]]),
                                     int(m.size[k]), m.rgb[k])
            out[k] = overlap_of(other, cur) > foot[k, 1] + st["shape_margin"]
        return out

    def _account(self, t: int, comps, idx, cam) -> None:
        """Give the ledger this frame's ink that no task object explains (``accounting``):
        the zones are every object's square where the camera puts it and where each visible
        object was last tracked, grown by a quarter of its size."""
        m = self.model
        matched = np.zeros(len(comps), bool)
        matched[idx] = True
        if not (~matched & ~comps.edge & (comps.color >= 0)
                & (comps.area >= self._added_min_area)).any():
            self.ledger.see(t, [])          # the usual frame: nothing left to explain
            return
        vis = self._vis              # objects the frame does not show are not tracked
        placed = apply_camera(self._squares, cam, m.center)
        centres = np.concatenate([placed, np.stack([self.ref_x[vis], self.ref_y[vis]], axis=1)])
        half = np.concatenate([self._zone_half * cam[0], self._zone_half[vis]])
        zones = np.stack([centres[:, 0] - half, centres[:, 0] + half, centres[:, 1] - half,
                          centres[:, 1] + half], axis=1)
        ink = unexplained(comps, matched, zones, self._added_min_area)
        if ink.size:
            side = np.sqrt(comps.area[ink])
            nearest = np.abs(m.size[:, None] - side[None]).argmin(axis=0)
            shapes = classify_shapes(comps.features[ink], m.templates[nearest])
            shapes = shapes[np.arange(ink.size), np.arange(ink.size)]
            items = [(comps.cx[j], comps.cy[j], comps.area[j], comps.color[j], shapes[n])
                     for n, j in enumerate(ink.tolist())]
        else:
            items = []
        self.ledger.see(t, items)

    def _same_inputs(self, inputs) -> bool:
        """Whether ``inputs`` (see :meth:`update`) equal those the previous frame met."""
        last = self._inputs
        if last is None or last[3] is None:
            return False
        return all(np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b
                   for a, b in zip(inputs, last))

    def _repeat(self, frame) -> None:
        """Record the previous frame's read-out again for a repeated frame, with its own ink."""
        t = len(self.present)
        for series in (self.positions, self.present, self.color_read, self.shape_read,
                       self.cameras, self.footprint, self.shape_confirmed):
            series.append(series[-1])
        self.ink.append(self._ink(frame, self.cameras[-1]))
        self.final_frame = frame
        self.last_seen[self.present[-1]] = t
        self.ledger.repeat(t)
        self._keep(t, frame)

    # ------------------------------------------------------------------ result

    def _settled(self, cam):
        """((M, 2) whole-px canvas offsets, (M,) sizes) that put each kept object seen in the
        final frame on its centroid there, when that is within the stability tolerance of where
        camera ``cam`` puts it, at its size there within :data:`SIZE_SLACK` (jitter); the
        drawn place and size for the others (moved, missing, removed)."""
        m = self.model
        pos = self.positions[-1]
        d = (pos - apply_camera(self._drawn, cam, m.center)) / cam[0]
        limit = THRESHOLDS["kept_object_stability"]["max_mean_displacement_px"] * m.unit
        near = self.present[-1] & ~m.removed & (np.hypot(d[:, 0], d[:, 1]) <= limit)
        grow = np.clip(np.sqrt(self.ref_area / m.area) / cam[0], 1 - SIZE_SLACK, 1 + SIZE_SLACK)
        sizes = np.where(near, np.rint(m.size * grow), m.size).astype(int)
        return np.where(near[:, None], np.rint(np.nan_to_num(d)), 0).astype(int), sizes

    def _iou(self, cam) -> float:
        """IoU of the final frame's foreground with the expected one placed by camera ``cam``,
        over the part of the canvas the frame shows, objects it does not show left out; each
        kept object within the stability tolerance of its place is expected where it is seen
        (:meth:`_settled`), so a jitter of small objects costs no overlap."""
        m, vis = self.model, self.visible
        blank = np.zeros(self.final_cls.shape, bool)
        expected = _warp_mask(m.paste(blank.copy(), np.flatnonzero(~m.removed & vis),
                                      *self._settled(cam)), cam, m.center)
        valid = blank.copy()
        u0, v0, u1, v1 = self.rect
        valid[v0:v1, u0:u1] = True
        # Objects the frame does not show are left out with a margin of the stability
        # tolerance: their jitter must not spill into the judged part.
        margin = int(np.ceil(THRESHOLDS["kept_object_stability"]["max_mean_displacement_px"]
                             * m.unit))
        hidden = blank.copy()
        for k in np.flatnonzero(~vis):
            hidden[max(m.top[k] - margin, 0):max(m.top[k] + m.size[k] + margin, 0),
                   max(m.left[k] - margin, 0):max(m.left[k] + m.size[k] + margin, 0)] = True
        valid &= ~_warp_mask(hidden, cam, m.center)
        fg = (self.final_cls != BG) & valid
        expected &= valid
        union = np.count_nonzero(fg | expected)
        return np.count_nonzero(fg & expected) / union if union else 1.0

    def _final_camera(self):
        """The camera least-squares fitted on the kept objects seen in the final frame (the
        zoom of the tracked camera kept when only one is seen), or None."""
        m = self.model
        seen = self.present[-1] & ~m.removed & self.visible
        if not seen.any():
            return None
        p, q = self.positions[-1][seen], np.stack([m.cx, m.cy], axis=1)[seen]
        s = self.cameras[-1][0]
        if seen.sum() >= 2:
            return fit_camera(p, q, m.center)
        t = p[0] - m.center - s * (q[0] - m.center)
        return s, float(t[0]), float(t[1])

    def _final_match(self) -> dict:
        """The final-frame IoU under the tracked camera, or under the camera the final frame's
        own kept objects give when that fits better (the tracked camera can lag when few
        objects are left to see it)."""
        iou = self._iou(self.cameras[-1])
        refit = self._final_camera()
        if refit is not None and iou < THRESHOLDS["final_object_match"]["min_iou"]:
            iou = max(iou, self._iou(refit))
        return {"iou": round(float(iou), 4),
                "pass": bool(iou >= THRESHOLDS["final_object_match"]["min_iou"])}

    def _stability(self, present, pos) -> dict:
        """``kept_object_stability``: every kept object, in every frame it is seen in, where
        the camera puts it (mean displacement), with its first colour, shape read-out and
        footprint (size, turn, stretch, morph), each read-out voted over the frames around
        (:func:`_voted`); it must not vanish."""
        m, st = self.model, THRESHOLDS["kept_object_stability"]
        kept = ~m.removed & self.visible
        ids = m.ids.tolist()
        q = np.stack([m.cx, m.cy], axis=1)
        placed = np.stack([apply_camera(q, cam, m.center) for cam in self.cameras])   # (F, M, 2)
        disp = np.hypot(*(pos - placed).transpose(2, 0, 1))                          # NaN: absent
        per_obj, worst = {}, 0.0
        for k in np.flatnonzero(kept):
            d = disp[present[:, k], k]
            if d.size:
                per_obj[ids[k]] = round(float(d.mean()), 3)
                worst = max(worst, float(d.mean()))
        kidx = np.flatnonzero(kept)
        missing = (~present[:, kept]).sum(axis=0)
        vanished = [int(ids[k]) for j, k in enumerate(kidx)
                    if missing[j] > st["max_missing_frames"] or not present[-1, k]]
        window = st["vote_frames"]
        reads = {"colour": np.array(self.color_read), "shape": np.array(self.shape_read)}
        own = {"colour": m.color, "shape": m.shape}
        foot = np.array(self.footprint)                                   # (F, M, 2)
        changes, changed_color, changed_shape, changed_footprint = [], [], [], []
        for k in kidx.tolist():
            seen = np.flatnonzero(present[:, k])
            # A shape read-out counts where the silhouette bears it out (_shape_evidence): the
            # classifier reads a codec's blocky edges wrongly.
            confirm = {"colour": np.ones(seen.size, bool),
                       "shape": np.array(self.shape_confirmed)[seen, k]}
            for what, into in (("colour", changed_color), ("shape", changed_shape)):
                bad = _read_changed(reads[what][seen, k], own[what][k], window, confirm[what])
                if bad.any():
                    into.append(ids[k])
                    changes.append({"id": ids[k], "change": f"changed {what}", "kind": what,
                                    "frame": int(seen[_start(bad, bad)])})
            change = self._footprint_change(k, foot[:, k], window)
            if change:
                changed_footprint.append(ids[k])
                changes.append({"id": ids[k], **change})
        limit = st["max_mean_displacement_px"] * m.unit
        moved = [ids[k] for k in kidx if per_obj.get(ids[k], 0.0) > limit]
        changes.sort(key=lambda c: (c["frame"], c["id"]))
        return {"mean_displacement_px": round(worst / m.unit, 3), "per_object_px": per_obj,
                "moved": moved, "vanished": vanished, "changed_color": changed_color,
                "changed_shape": changed_shape, "changed_footprint": changed_footprint,
                "changes": changes,
                "pass": bool(worst <= limit and not vanished and not changed_color
                             and not changed_shape and not changed_footprint)}

    def _footprint_change(self, k: int, series: np.ndarray, window: int) -> dict | None:
        """The change of object ``k``'s footprint in words and the frame it started in
        (``{"change": "grew by 35%", "kind": "grew", "value": 35, "frame": 12}``), or None:
        its (area ratio, overlap) ``series`` (F, 2), voted over ``window`` frames around each
        (:func:`_voted`), beyond ``max_area_change``, below ``min_overlap``, or below
        ``turn_overlap`` where a turn of at least ``min_turn_deg`` or a stretch of at least
        ``min_stretch`` explains its silhouette (codec smear lowers the overlap of a small
        object to about 0.8 at 0.015 bit/pixel, and no turn or stretch explains it)."""
        st = THRESHOLDS["kept_object_stability"]
        frames = np.flatnonzero(np.isfinite(series[:, 0]))
        if not frames.size:
            return None
        ratio = _voted(series[frames, 0], window)
        overlap = _voted(series[frames, 1], window)
        size_bad = np.abs(ratio - 1) > st["max_area_change"]
        bad = size_bad | (overlap < st["turn_overlap"])
        if not bad.any():
            return None
        raw = (np.abs(series[frames, 0] - 1) > st["max_area_change"]) \
            | (series[frames, 1] < st["turn_overlap"])
        start = int(frames[_start(bad, raw)])
        if size_bad.any():
            r = float(ratio[np.argmax(np.abs(np.log(ratio)))])
            pct = round(abs(r - 1) * 100)
            kind = "grew" if r > 1 else "shrank"
            return {"change": f"grew by {pct}%" if r > 1 else f"shrank by {pct}%", "kind": kind,
                    "value": pct, "frame": start}
        seen = self.changed_masks.get(k)
        if not seen:            # changed by the vote alone: no frame read changed on its own
            return None
        _, t, mask = seen["worst"]
        words = describe(self.silhouettes.reference(k), mask, float(ratio[frames == t][0])
                         if (frames == t).any() else 1.0, st["max_area_change"])
        explained = words.pop("explained", 0.0) - words.pop("overlap", 1.0) \
            >= st["min_explained_gain"] and (
                (words["kind"] == "turned" and words["value"] >= st["min_turn_deg"])
                or (words["kind"] == "stretched" and words["value"] >= st["min_stretch"]))
        if not (overlap < st["min_overlap"]).any() and not explained:
            return None
        return {**words, "frame": start}

    def _transition(self) -> tuple[int | None, float, tuple]:
        """(frames in transition, fraction of the removed objects' ink gone at the end, the
        transition band used).

        The band is :data:`TRANSITION_BAND` narrowed by the ink noise of the video: each kept
        object's largest relative change of ink from frame 0 (its jitter, flicker, codec) times
        its size (a pixel of jitter changes the ink of a rim), the worst kept object's, over
        the smallest removed object's size, times :data:`NOISE_FACTOR`, at most
        :data:`MAX_NOISE`. Frames the removed objects' ink reaches only by that much noise are
        not in transition.
        """
        ink = np.array(self.ink).reshape(len(self.ink), -1)      # (F, visible objects)
        removed = ink[:, self._ink_removed].sum(axis=1)
        start, end = removed[0], removed[-1]
        gone = (start - end) / start if start > 0 else 0.0
        noise = 0.0
        kept = ink[:, ~self._ink_removed]
        base = kept[0]
        if (base > 0).any() and self._ink_removed.any():
            # A shift of a pixel changes ink along an object's rim: relative to its ink, in
            # proportion to 1 / size. Scaled to the smallest removed object.
            size = self._ink_half * 2
            rel = np.abs(kept[:, base > 0] / base[base > 0] - 1).max(axis=0)
            per_px = float((rel * size[~self._ink_removed][base > 0]).max())
            noise = min(NOISE_FACTOR * per_px / size[self._ink_removed].min(), MAX_NOISE)
        lo, hi = max(TRANSITION_BAND[0], noise), min(TRANSITION_BAND[1], 1 - noise)
        if gone < MIN_INK_GONE:
            return None, float(gone), (lo, hi)
        frac = (start - removed) / (start - end)
        return int(((frac > lo) & (frac < hi)).sum()), float(gone), (lo, hi)

    def _left_behind(self, absent) -> dict:
        """The objects of ``absent`` (not tracked in the final frame) whose place is not back
        to background, ``{"3": {"remnant_px": 24, "ink_left": 0.05, "still_going": False}}``
        (``THRESHOLDS["removal"]``): its ink in its square where the final camera puts it and
        in its box where it was last seen (a shrink stopped half-way, a speck too small to
        track), over the pixels not read as background, counted in whole pixels of the
        object's typical ink (a pixel inked as the object counts 1, a codec's pale speck a
        tenth: ink is what blur and block artefacts spread but keep), at least the floor; or
        more than ``max_ink_left`` of its first ink still in its square (a fade stopped
        half-way); or its ink still falling by more than ``max_ink_falling`` of it over the last
        frames (a removal not finished)."""
        m, th = self.model, THRESHOLDS["removal"]
        if not absent.any():
            return {}
        cam = self.cameras[-1]
        h, w = self.final_cls.shape
        ink_now = ink_of(self.final_frame)
        floor = th["remnant_floor_px"] * m.unit ** 2
        ink = np.array(self.ink).reshape(len(self.ink), -1)
        col = {int(k): n for n, k in enumerate(self._vis.tolist())}
        placed = apply_camera(self._squares, cam, m.center)
        out = {}
        for k in np.flatnonzero(absent).tolist():
            half = m.size[k] / 2
            boxes = [(placed[k], half * cam[0] + 1)]
            if self.last_seen[k] >= 0:
                boxes.append(((self.ref_x[k], self.ref_y[k]), half + 1))
            inside = np.zeros((h, w), bool)
            for (x, y), r in boxes:
                inside[max(int(np.floor(y - r)), 0):max(int(np.ceil(y + r)) + 1, 0),
                       max(int(np.floor(x - r)), 0):max(int(np.ceil(x + r)) + 1, 0)] = True
            full = typical_ink(m.look, m.global_shape[k], int(m.size[k]), m.rgb[k])
            inked = inside & (self.final_cls != BG)
            px = float(np.minimum(ink_now[inked] / full, 1.0).sum())
            series = ink[:, col[k]]
            first = series[0] if series[0] > 0 else 1.0
            still = series[-1] / first
            falling = (series[-min(len(series), 3)] - series[-1]) / first if len(series) > 2 \
                else 0.0
            reasons = (px >= floor, len(series) > 1 and still > th["max_ink_left"],
                       falling > th["max_ink_falling"] and still > th["max_ink_falling"])
            if any(reasons):
                out[str(m.ids[k])] = {"remnant_px": round(px / m.unit ** 2, 1),
                                      "ink_left": round(float(still), 3),
                                      "still_going": bool(reasons[2])}
        return out

    def _continuity(self, present) -> dict:
        m, mc = self.model, THRESHOLDS["motion_continuity"]
        ids = m.ids.tolist()
        rem = m.removed & self.visible
        # Identity follows place: a removed object is back when it is tracked again or when
        # its square holds most of its first ink again (a codec may hide its look, not its ink).
        ink = np.array(self.ink).reshape(len(self.ink), -1)
        col = {int(k): n for n, k in enumerate(self._vis.tolist())}
        back = {ids[k]: _reappeared(present[:, k] | (ink[:, col[k]] >= REAPPEAR_INK
                                                     * max(ink[0, col[k]], 1.0)),
                                    mc["reappear_min_run"])
                for k in np.flatnonzero(rem)}
        back = {i: f for i, f in back.items() if f is not None}
        reappeared = sorted(back)
        absent_at_start = [ids[k] for k in np.flatnonzero(self.visible & ~present[0])]
        frames, gone, band = self._transition()
        cut = frames is not None and frames < mc["min_transition_frames"]
        jumps = self._teleports(present)
        step = max([self.max_step] + [s for _, s in jumps])
        return {"max_step_px": round(step / m.unit, 3), "teleported": [j for j, _ in jumps],
                "step_limit_px": round(self.gate / m.unit, 3), "reappeared": reappeared,
                "reappeared_at": {str(i): f for i, f in sorted(back.items())},
                "max_global_change": round(self.max_global, 4),
                "absent_at_start": absent_at_start, "transition_frames": frames,
                "ink_removed": round(gone, 3),
                "transition_band": [round(float(b), 3) for b in band], "hard_cut": bool(cut),
                "pass": bool(step <= self.gate and not reappeared
                             and self.max_global <= mc["max_global_change"]
                             and not absent_at_start and not cut)}

    def _teleports(self, present) -> list[tuple[dict, float]]:
        """Kept objects that were lost for good in the frame an object of their colour and
        about their area (:data:`detect.REACQUIRE_RATIO_RANGE` of their drawn area, under the
        camera's zoom) appeared elsewhere, farther than the motion threshold, and stayed (an
        added object in ``accounting``'s sense): a jump the tracker could not follow because the
        codec blurred the object's shape where it landed. ``({"id", "frame", "from", "to"},
        step in canvas px)`` each."""
        m, out = self.model, []
        frames = len(self.present)
        added = self.ledger.added(frames)
        for k in np.flatnonzero(~m.removed & self.visible & ~present[-1]):
            seen = np.flatnonzero(present[:, k])
            if not seen.size:
                continue
            t = int(seen[-1]) + 1
            x, y = self.positions[t - 1][k]
            expected = m.area[k] * self.cameras[t][0] ** 2
            for a in added:
                step = float(np.hypot(a["at"][0] - x, a["at"][1] - y))
                ratio = a["area"] / expected
                if abs(a["frame"] - t) <= 1 and a["color"] == m.color[k] and step > self.gate \
                        and REACQUIRE_RATIO_RANGE[0] <= ratio <= REACQUIRE_RATIO_RANGE[1]:
                    out.append(({"id": int(m.ids[k]), "frame": a["frame"],
                                 "from": [int(round(x)), int(round(y))], "to": a["at"]}, step))
                    break
        return out

    def _added(self) -> dict:
        """The ``added_objects`` metric: unexplained ink that stayed (``accounting``)."""
        vocab = self.model.question.vocabulary
        added = [{**a, "color": vocab.colors[a["color"]], "shape": vocab.shape_labels[a["shape"]]}
                 for a in self.ledger.added(len(self.present))]
        return {"added": added, "pass": not added}

    def _camera_motion(self) -> dict:
        m, th = self.model, THRESHOLDS["camera_motion"]
        cams = np.array(self.cameras)
        zoom = float(np.abs(cams[:, 0] - 1).max())
        pan = float(np.hypot(cams[:, 1], cams[:, 2]).max())
        limit = th["max_pan_fraction"] * self.diag
        return {"max_zoom": round(zoom, 4), "max_pan_px": round(pan / m.unit, 2),
                "pan_limit_px": round(limit / m.unit, 2),
                "final": [round(float(v), 4) for v in cams[-1]],
                "pass": bool(zoom <= th["max_zoom"] and pan <= limit)}

    def result(self, single_image: bool = False) -> dict:
        """Return the metrics dict (see :func:`score_frames`)."""
        m = self.model
        present = np.array(self.present)            # (F, M)
        pos = np.array(self.positions)              # (F, M, 2)
        ids = m.ids.tolist()
        vis = self.visible
        left = self._left_behind(~present[-1] & vis)
        gone = ~present[-1] & vis & ~np.isin(m.ids, [int(i) for i in left])
        out = {"final_object_match": self._final_match(),
               "kept_object_stability": self._stability(present, pos)}
        if single_image:
            out["motion_continuity"] = {"pass": None, "reason": "single final image"}
        else:
            out["motion_continuity"] = self._continuity(present)
        out["camera_motion"] = self._camera_motion()
        out["added_objects"] = self._added()
        out["removed_object_count"] = {"removed": int(gone.sum()),
                                       "expected": int((m.removed & vis).sum()),
                                       "pass": int(gone.sum()) == int((m.removed & vis).sum())}
        removed_ids = sorted(ids[k] for k in np.flatnonzero(gone))
        target_ids = sorted(ids[k] for k in np.flatnonzero(m.removed & vis))
        out["rule_accuracy"] = {"removed_ids": removed_ids, "target_ids": target_ids,
                                "not_visible": sorted(ids[k] for k in np.flatnonzero(~vis)),
                                "left_behind": left, "pass": removed_ids == target_ids}
        return {name: out[name] for name in METRICS}

    def sampled(self, keep: int | None = None) -> list[tuple[int, np.ndarray]]:
        """The kept frames, about ``keep`` of them spread evenly: list of (index, frame)."""
        if not self.samples:
            return []
        frames = {**self.samples, self.last_sample[0]: self.last_sample[1]}
        idx = np.array(sorted(frames))
        # Evenly spaced over the video (first and last included), each the nearest kept frame.
        want = _sample_frames(idx[-1] + 1, keep or self.keep_samples)
        pick = np.unique(idx[np.abs(idx[None, :] - want[:, None]).argmin(axis=1)])
        return [(int(i), frames[int(i)]) for i in pick]


def score_frames(model: TaskModel, frames, single_image: bool = False,
                 tracker: Tracker | None = None) -> dict:
    """Track ``frames`` (an iterable of canvas frames) and return the metrics.

    When ``frames`` is a ``video.FrameStream``, its registration (known once frame 0 is read)
    decides which objects are visible.

    Returns
    -------
    dict
        ``{"metrics": {metric: {..., "pass": bool or None}}, "frames": count, "pass": every
        applicable metric passes}``.
    """
    tracker = tracker or Tracker(model)
    n = 0
    for frame in frames:
        if n == 0 and getattr(frames, "mapper", None) is not None:
            tracker.set_mapping(frames.mapper.mapping)
        tracker.update(frame, getattr(frames, "classes", None),
                       getattr(frames, "repeated", False))
        n += 1
    if n == 0:
        raise ValueError("no frames")
    metrics = tracker.result(single_image=single_image)
    verdicts = [v["pass"] for v in metrics.values() if v["pass"] is not None]
    return {"frames": n, "metrics": metrics, "pass": all(verdicts)}
