"""The residual: each frame held against its expected frame (``expected``), within the noise
this video shows on content that did not change, and the changed regions it leaves.

Per pixel, how far the frame, brought back through its tone, lies outside its expected range
(the least and greatest CIELAB lightness and colour around the pixel in the expected frame),
averaged over the 3x3 pixels around (grain averages out, a change does not), as a CIELAB
distance (CIE76: a codec's block error in a saturated fill is 3-5, a blur's edge band 10-25, a
faint copy 30-50). A pixel is *changed* when that distance is above its threshold:
``floor_delta_e`` plus ``noise_factor`` times the noise of its part of the frame:

- on a kept object's square or the ring around it (a quarter of its size): the largest of the
  other kept objects' typical residual in that frame (their median ``noise_quantile``), the
  background's, and this object's own in the frames before anything happened
  (``baseline_frames``). A global effect (a blur or grain of the whole picture, a codec's
  smear) raises every object's residual together and changes nothing; one object differing from
  the rest does;
- elsewhere: the background's ``noise_quantile`` residual in that frame;
- never in a free zone (a removal target's square, where it was drawn and where it is seen)
  nor where the frame shows no part of the canvas.

Frames 0 and 1 are judged, then one every half ``min_seconds`` (``judged_frames``).
A pixel changed in the judged frames of at least ``min_seconds`` in a row (from the first to
the end of the last; a person sees a quarter of a second; a one-frame codec glitch is not a
change) is kept; connected kept pixels of at least
``min_area_px`` (at 256 px, scaled with the canvas's area) are the video's changes
(:meth:`ResidualReader.regions`), each with the frame it started in, the object whose square
or ring it lies on (or none) and a word for what it looks like (:func:`_words`).
"""
from __future__ import annotations

import numpy as np
from scipy.ndimage import binary_dilation
from skimage.measure import label, regionprops

from ...runtime._numba import kernel
from ..tracking.camera import apply_camera
from .expected import (_XYZ, CUBE, LINEAR, LUMA_CHROMA, ExpectedVideo, _lab_of, _tone_table,
                       rgb_levels, to_lab)
from .judged_frames import JudgedFrames
from .reference_level import HeldSeries, ObjectRuns
from .softness import SoftnessTest
from .thresholds import THRESHOLDS

__all__ = ["ResidualReader", "residual"]

_ST = THRESHOLDS["residual"]
#: A lone kept object seen this far (canvas px) from where the scene's camera puts it is also
#: held against the expected frame where it is seen (``ResidualReader._follow_objects``).
FOLLOW_PX = 0.5
#: An object's own tone line that moves no level by more than this is the scene's.
TONE_SAME = 3.0
#: A pixel (brought back through the tone) within this many levels of its expected R, G and B
#: ranges is as expected without its CIELAB distance being computed (most pixels of a frame).
RGB_SLACK = 2.0
#: A pixel (brought back through the tone) within this many levels of its expected luma range
#: and its chroma ranges (a pixel further) is as expected: an edge's colour carried by a
#: video's half-resolution chroma (``expected.tolerance_bounds``).
YCC_SLACK = 2.0
#: Changed pixels this far apart (canvas px at 256) belong to one change.
JOIN_PX = 2
#: The expected pixel is the object's (not background) when its lightness (L*) is this far below
#: the background's (used only to put a region into words).
INK_LIGHTNESS = 15.0


@kernel(nogil=True)
def _byte_bounds(back, low, high):
    """For a tone table ``back`` (3, 256) rising in every channel: ``low[c, L]`` the least
    byte ``v`` with ``back[c, v] >= L - RGB_SLACK`` (256: none) and ``high[c, L]`` the greatest
    with ``back[c, v] <= L + RGB_SLACK`` (-1: none), for every whole level ``L``: a byte lies
    within ``RGB_SLACK`` of the range ``L0`` .. ``L1`` brought back through the tone exactly
    when ``low[c, L0] <= v <= high[c, L1]``. Returns False (tables not written) where a
    channel's table falls somewhere."""
    for c in range(3):
        for v in range(1, 256):
            if back[c, v] < back[c, v - 1]:
                return False
    for c in range(3):
        v = 0
        for level in range(256):
            while v < 256 and back[c, v] < level - RGB_SLACK:
                v += 1
            low[c, level] = v
        v = 255
        for level in range(255, -1, -1):
            while v >= 0 and back[c, v] > level + RGB_SLACK:
                v -= 1
            high[c, level] = v
    return True


@kernel(nogil=True, error_model="numpy")
def _residual(frame, lo, hi, levels, gain, offset, slack, linear, cube, xyz, luma_chroma, excess,
              rows, first_x, last_x, previous, reuse, out, lightness):
    """``out`` (H, W): the distance (CIELAB units) of ``frame`` (uint8), brought back through
    the tone (``expected._tone_table``), outside its expected range
    ``lo`` .. ``hi`` (widened by ``slack``), averaged over the 3x3 pixels around;
    ``lightness``: that average's signed lightness excess (+: lighter). A pixel within its
    R, G, B ranges, or within its luma's and chroma's (:func:`_within_luma_chroma`), is as
    expected; ``rows`` (H,) marks the rows with a pixel that is not, and the average is taken
    only near them, between their first and last such pixel (most of a frame is as
    expected). ``levels`` (H, W, 6): the R, G, B
    ranges (channels 3-5 of ``lo`` then of ``hi``) side by side, the one part of the ranges
    every pixel reads (``expected.rgb_levels``); where they are whole levels (uint8) and the
    tone rises, a pixel's bytes are held against its levels' byte bounds (:func:`_byte_bounds`),
    the same test without the tone's table. ``excess`` is written only in the rows marked,
    ``first_x`` / ``last_x`` (H,) the first and last column of their excess.

    ``previous`` (H, W, 3): the frame these buffers were last written for (each row computed
    is copied into it). With ``reuse`` (the same tone, slack and ranges as then), a row equal
    to its row there keeps what it holds in ``excess``, ``rows``, ``first_x`` and ``last_x``:
    the same numbers (a codec copies the still parts of a picture from the one before)."""
    h, w = frame.shape[:2]
    back = _tone_table(gain, offset)
    byte_lo = np.empty((3, 256), np.int32)
    byte_hi = np.empty((3, 256), np.int32)
    whole = levels.itemsize == 1 and _byte_bounds(back, byte_lo, byte_hi)     # uint8 levels
    frame_rows, previous_rows = frame.reshape((h, w * 3)), previous.reshape((h, w * 3))
    for y in range(h):
        if reuse and _same_row(frame_rows, previous_rows, y):
            continue
        previous[y] = frame[y]
        row_differs = False
        for x in range(w):
            if whole:
                if (byte_lo[0, np.int64(levels[y, x, 0])] <= frame[y, x, 0]
                        <= byte_hi[0, np.int64(levels[y, x, 3])]
                        and byte_lo[1, np.int64(levels[y, x, 1])] <= frame[y, x, 1]
                        <= byte_hi[1, np.int64(levels[y, x, 4])]
                        and byte_lo[2, np.int64(levels[y, x, 2])] <= frame[y, x, 2]
                        <= byte_hi[2, np.int64(levels[y, x, 5])]):
                    if row_differs:             # within its neighbours' levels: a blend
                        excess[y, x, 0] = 0.0
                        excess[y, x, 1] = 0.0
                        excess[y, x, 2] = 0.0
                    continue
            r = back[0, frame[y, x, 0]]
            g = back[1, frame[y, x, 1]]
            b = back[2, frame[y, x, 2]]
            if (not whole and levels[y, x, 0] - RGB_SLACK <= r <= levels[y, x, 3] + RGB_SLACK
                    and levels[y, x, 1] - RGB_SLACK <= g <= levels[y, x, 4] + RGB_SLACK
                    and levels[y, x, 2] - RGB_SLACK <= b <= levels[y, x, 5] + RGB_SLACK):
                if row_differs:                 # within its neighbours' levels: a blend
                    excess[y, x, 0] = 0.0
                    excess[y, x, 1] = 0.0
                    excess[y, x, 2] = 0.0
                continue
            if _within_luma_chroma(r, g, b, lo[y, x], hi[y, x], luma_chroma):
                if row_differs:                 # its luma here, its chroma a pixel away
                    excess[y, x, 0] = 0.0
                    excess[y, x, 1] = 0.0
                    excess[y, x, 2] = 0.0
                continue
            lab = _lab_of(r, g, b, linear, cube, xyz)
            for c in range(3):
                v = lab[c]
                high, low = hi[y, x, c] + slack, lo[y, x, c] - slack
                e = v - high if v > high else (v - low if v < low else 0.0)
                if e != 0.0 and not row_differs:
                    row_differs = True          # the row's pixels before were as expected
                    excess[y, :x] = 0.0
                    for cc in range(c):
                        excess[y, x, cc] = 0.0
                    first_x[y] = x
                if e != 0.0:
                    last_x[y] = x
                if row_differs:
                    excess[y, x, c] = e
        rows[y] = row_differs
    for y in range(h):
        ya, yb = max(y - 1, 0), min(y + 2, h)
        # the columns whose 3x3 pixels hold an excess: beyond them, 0
        x0, x1 = w, -1
        for yy in range(ya, yb):
            if rows[yy]:
                x0, x1 = min(x0, first_x[yy] - 1), max(x1, last_x[yy] + 1)
        x0, x1 = max(x0, 0), min(x1, w - 1)
        if x0 > x1:
            x0 = x1 = w
        for x in range(w):
            if x < x0 or x > x1:
                out[y, x] = 0.0
                lightness[y, x] = 0.0
        for x in range(x0, min(x1 + 1, w)):
            xa, xb = max(x - 1, 0), min(x + 2, w)
            e0 = e1 = e2 = 0.0
            for yy in range(ya, yb):
                if not rows[yy]:
                    continue
                for xx in range(xa, xb):
                    e0 += excess[yy, xx, 0]
                    e1 += excess[yy, xx, 1]
                    e2 += excess[yy, xx, 2]
            n = (yb - ya) * (xb - xa)
            e0, e1, e2 = e0 / n, e1 / n, e2 / n
            out[y, x] = np.sqrt(e0 * e0 + e1 * e1 + e2 * e2)
            lightness[y, x] = e0


@kernel(nogil=True, inline="always")
def _same_row(a, b, y):
    """Whether row ``y`` of ``a`` and ``b`` (H, W * 3) holds the same bytes (every byte looked
    at: a loop without an early exit is vectorised)."""
    differ = np.uint8(0)
    for i in range(a.shape[1]):
        differ |= a[y, i] ^ b[y, i]
    return differ == 0


@kernel(nogil=True, inline="always")
def _within_luma_chroma(r, g, b, lo, hi, m):
    """Whether levels ``r``, ``g``, ``b`` lie within ``YCC_SLACK`` of the luma and chroma
    ranges ``lo[6:9]`` .. ``hi[6:9]`` (weights ``m``: ``expected.LUMA_CHROMA``)."""
    for c in range(3):
        v = m[c, 0] * r + m[c, 1] * g + m[c, 2] * b
        if v < lo[6 + c] - YCC_SLACK or v > hi[6 + c] + YCC_SLACK:
            return False
    return True


@kernel(nogil=True)
def _persist(res, judged, zones, levels, background, lightness, lo, hi, ink_below, t, need,
             run_start, first, lighter, inside, active):
    """Per pixel: the run of frames ``res`` has been above its threshold; where a run reaches
    ``need`` frames for the first time, ``first`` takes the run's start and ``lighter`` /
    ``inside`` what the pixel showed then (inside: the expected lightness, the middle of
    ``lo`` .. ``hi``, below ``ink_below``: the object's ink, not background).

    A pixel's threshold is ``background``, raised to ``levels[j]`` over zone ``zones[j]`` =
    (y0, y1, x0, x1) (in float32), none where ``judged`` does not hold (never above it); it is
    looked at only where ``res`` is above 0 (every threshold is). ``active`` (H,): the rows
    with a run going; a row with neither a run nor a residual is left as it is (its runs are
    all -1 already)."""
    h, w = res.shape
    for y in range(h):
        if not active[y]:
            quiet = True
            for x in range(w):
                if res[y, x] > 0:
                    quiet = False
                    break
            if quiet:
                continue
        going = False
        for x in range(w):
            v = res[y, x]
            above = False
            if v > 0 and judged[y, x]:
                thr = np.float32(background)
                for j in range(zones.shape[0]):
                    if zones[j, 0] <= y < zones[j, 1] and zones[j, 2] <= x < zones[j, 3]:
                        thr = np.float32(max(np.float64(thr), levels[j]))
                above = v > thr
            if above:
                if run_start[y, x] < 0:
                    run_start[y, x] = t
                going = True
                if first[y, x] < 0 and t - run_start[y, x] + 1 >= need:
                    first[y, x] = run_start[y, x]
                    lighter[y, x] = lightness[y, x] > 0
                    inside[y, x] = (lo[y, x, 0] + hi[y, x, 0]) * 0.5 < ink_below
            else:
                run_start[y, x] = -1
        active[y] = going


@kernel(nogil=True)
def _zone_levels(res, mask, zones, step, q, floor, buf, quantiles, means):
    """Per zone ``zones[j]`` = (y0, y1, x0, x1), over its pixels where ``mask`` holds (every
    ``step``-th row and column): ``quantiles[j]`` the ``q`` quantile of ``res`` (linear
    between order statistics, as ``np.quantile``), ``means[j]`` the mean of ``res`` above
    ``floor``; NaN where no pixel is masked. ``buf`` holds at least a zone's pixels. Most
    residuals are 0: only the others are ordered."""
    for j in range(zones.shape[0]):
        n = zeros = 0
        total = 0.0
        for y in range(zones[j, 0], zones[j, 1], step):
            for x in range(zones[j, 2], zones[j, 3], step):
                if mask[y, x]:
                    v = res[y, x]
                    n += 1
                    if v == 0:
                        zeros += 1
                    else:
                        buf[n - zeros - 1] = v
                    if v > floor:
                        total += v - floor
        if n == 0:
            quantiles[j] = np.nan
            means[j] = np.nan
            continue
        at = q * (n - 1)
        i = min(int(np.floor(at)), n - 1)
        t = at - i
        a = _order_statistic(buf, n - zeros, zeros, i)
        b = _order_statistic(buf, n - zeros, zeros, i + 1) if i + 1 < n else a
        quantiles[j] = a + (b - a) * t if t < 0.5 else b - (b - a) * (1.0 - t)
        means[j] = total / n


@kernel(nogil=True)
def _order_statistic(nonzero, count, zeros, k):
    """The ``k``-th smallest (from 0) of ``zeros`` zeros and the positive ``nonzero[:count]``
    (a partition of a copy)."""
    if k < zeros:
        return 0.0
    part = np.partition(nonzero[:count], k - zeros)
    return float(part[k - zeros])


def residual(frame, lo, hi, gain=(1.0, 1.0, 1.0), offset=(0.0, 0.0, 0.0), slack=1.0,
             levels=None):
    """(distance, signed lightness): how far ``frame`` (H, W, 3) uint8, brought back through the
    tone ``gain``, ``offset`` (per RGB channel), lies outside its expected CIELAB range ``lo``
    .. ``hi`` (``expected.tolerance_bounds``, widened by ``slack``), averaged over the 3x3
    pixels around, in CIELAB units (``levels``: their ``expected.rgb_levels``, when
    kept from frame to frame).

    Examples
    --------
    >>> from objsub_fast.scoring.judging.expected import tolerance_bounds
    >>> ref = np.full((9, 9, 3), 255, np.float32)
    >>> frame = np.full((9, 9, 3), 255, np.uint8); frame[3:6, 3:6] = 0   # a new dark square
    >>> dist, lightness = residual(frame, *tolerance_bounds(ref))
    >>> round(float(dist[4, 4])), round(float(dist[0, 0])), bool(lightness[4, 4] < 0)
    (99, 0, True)
    """
    return _RowCarry(frame.shape[:2]).residual(frame, lo, hi, gain, offset, slack, levels)


class _RowCarry:
    """The residual kernel's per-row buffers, kept from frame to frame of one video: a row of a
    frame equal to the same row of the frame before is not computed again while the tone,
    the slack and the expected ranges are the same (``_residual``'s ``reuse``)."""

    def __init__(self, shape):
        h, w = shape
        self.excess = np.empty((h, w, 3), np.float32)
        self.rows = np.zeros(h, np.bool_)
        self.first_x, self.last_x = np.zeros(h, np.int64), np.zeros(h, np.int64)
        self.previous = np.empty((h, w, 3), np.uint8)
        self._key = None        # (gain, offset, slack, lo, hi) they were written for

    def holds(self, frame) -> bool:
        """Whether ``frame`` is the frame the buffers were last written for."""
        return self._key is not None and np.array_equal(frame, self.previous)

    def residual(self, frame, lo, hi, gain, offset, slack, levels=None):
        """(distance, signed lightness) of ``frame``: :func:`residual`."""
        h, w = frame.shape[:2]
        gain, offset = np.asarray(gain, np.float64), np.asarray(offset, np.float64)
        levels = rgb_levels(lo, hi) if levels is None else levels
        key = (gain.tobytes(), offset.tobytes(), float(slack), lo, hi)
        last = self._key
        reuse = last is not None and last[:3] == key[:3] and last[3] is lo and last[4] is hi
        self._key = key
        out = np.empty((h, w), np.float32)
        lightness = np.empty((h, w), np.float32)
        _residual(np.ascontiguousarray(frame, np.uint8), lo, hi, levels, gain, offset,
                  float(slack), LINEAR, CUBE, _XYZ, LUMA_CHROMA, self.excess, self.rows,
                  self.first_x, self.last_x, self.previous, reuse, out, lightness)
        return out, lightness


def _clip_rects(centres, half, shape) -> np.ndarray:
    """(N, 4) int: (y0, y1, x0, x1) of the squares of half-side ``half`` (N,) about
    ``centres`` (N, 2) = (x, y), clipped to ``shape`` (H, W).

    Examples
    --------
    >>> _clip_rects(np.array([[5.0, 5.0], [0.5, 9.5]]), np.array([2.0, 3.0]), (10, 10)).tolist()
    [[3, 8, 3, 8], [6, 10, 0, 5]]
    """
    h, w = shape
    cx, cy = np.asarray(centres, float).reshape(-1, 2).T
    half = np.asarray(half, float)
    return np.stack([np.maximum(np.floor(cy - half), 0), np.minimum(np.ceil(cy + half) + 1, h),
                     np.maximum(np.floor(cx - half), 0), np.minimum(np.ceil(cx + half) + 1, w)],
                    axis=1).astype(int)


class ZonePlaces:
    """Where the camera puts each kept object's zone (its square and the ring around it) and
    each removal target's free zone, in canvas pixels; kept while the camera is the same.

    Parameters
    ----------
    model : TaskModel
    kept, targets : (K,), (T,) indices of the kept objects and of the removal targets
    shape : (H, W) of the canvas
    """

    def __init__(self, model, kept, targets, shape):
        self.model, self.shape = model, shape
        self._objects, self._targets = kept, targets
        self._kept = self._drawn = (None, None)      # (camera, what was placed for it)

    def kept(self, cam) -> np.ndarray:
        """(K, 4) each kept object's square and ring (y0, y1, x0, x1) where ``cam`` puts it."""
        key = tuple(float(v) for v in cam)
        if key != self._kept[0]:
            m = self.model
            placed = apply_camera(m.square_centres[self._objects], cam, m.center)
            half = cam[0] * m.size[self._objects] * (0.5 + _ST["ring_fraction"])
            self._kept = (key, _clip_rects(placed, half, self.shape))
        return self._kept[1]

    def free(self, cam, seen) -> np.ndarray:
        """The removal targets' squares where they were drawn (through ``cam``) and where
        they are seen (``seen``: (T, 2), NaN where not), grown by ``free_growth_fraction``
        of their size and ``free_margin_px`` (a codec smears a change over its blocks)."""
        m = self.model
        key = tuple(float(v) for v in cam)
        if key != self._drawn[0]:
            k = self._targets
            placed = apply_camera(m.square_centres[k], cam, m.center)
            half = cam[0] * m.size[k] * (0.5 + _ST["free_growth_fraction"]) \
                + _ST["free_margin_px"] * m.unit
            self._drawn = (key, (_clip_rects(placed, half, self.shape), half))
        drawn, half = self._drawn[1]
        seen = np.asarray(seen, float).reshape(-1, 2)
        shown = np.isfinite(seen[:, 0])
        if not shown.any():
            return drawn
        return np.concatenate([drawn, _clip_rects(seen[shown], half[shown], self.shape)])


class ResidualReader:
    """Read each canvas frame's residual against the expected video into changed regions.

    Parameters
    ----------
    model : TaskModel
    reference : (H, W, 3) uint8, the video's canvas frame 0
    rect : (u0, v0, u1, v1), the part of the canvas the frames show
    kept : (M,) bool, the kept objects the frames show
    background : (3,) the background's colour in frame 0
    """

    def __init__(self, model, reference, rect, kept, background=(255, 255, 255)):
        self.model = m = model
        self.expected = ExpectedVideo(reference, m.center, rect)
        self.kept = np.flatnonzero(kept)
        self.targets = np.flatnonzero(m.removed)
        h, w = reference.shape[:2]
        self.shape = (h, w)
        self.run_start = np.full((h, w), -1, np.int32)
        self.first = np.full((h, w), -1, np.int32)
        self.lighter = np.zeros((h, w), np.bool_)
        self.inside = np.zeros((h, w), np.bool_)
        self.active = np.zeros(h, np.bool_)       # rows with a run going (``_persist``)
        self.places = ZonePlaces(m, self.kept, self.targets, (h, w))
        self._median_size = float(np.median(m.size))
        self._rows = _RowCarry((h, w))
        self._masks = None      # (valid, zones, (judged, outside)) of the frame before
        self._last = None       # (what was seen, what was read) of the frame before
        self.zones = []                 # per frame: (K, 4) kept zones (y0, y1, x0, x1)
        # per judged frame: (K,) the kept objects' residual quantile, and their residual per
        # px of their outline
        self.noise, self.means = HeldSeries(_ST["baseline_frames"]), HeldSeries(
            _ST["baseline_frames"])
        self.diffuse = ObjectRuns(len(self.kept))
        self.diffuse_regions = []
        self.softness = SoftnessTest(len(self.kept), m.unit)
        self.judged = JudgedFrames()
        bg_lightness = float(to_lab(np.asarray(background, np.float32)[None, None])[0, 0, 0])
        self._ink_below = bg_lightness - INK_LIGHTNESS

    def wants(self, time=None) -> bool:
        """Whether the next frame (at ``time`` s) is judged (:class:`JudgedFrames`)."""
        return self.judged.wants(time)

    def update(self, frame, cam, tone, seen_targets, poses=None, own_tones=None) -> None:
        """Read the canvas frame :meth:`wants` chose: ``cam`` its camera, ``tone`` its
        (gain, offset) per channel,
        ``seen_targets`` (T, 2) where the removal targets are seen (NaN: not), ``poses``
        (K, 3) or None: the camera (s, tx, ty) to hold each kept object against as well,
        where it is seen (NaN: not seen; given for a lone kept object, whose place the scene's
        camera cannot be estimated apart from), ``own_tones`` (K, 2, 3) each kept object's
        own tone line (its fill's colour is the colour test's to judge)."""
        t = len(self.zones)
        lo, hi, valid = self.expected.bounds(cam)
        # the camera each kept object is held against: where it is seen when that is apart
        poses = [pose if _moved(pose, cam) else cam for pose in
                 (poses if poses is not None else [cam] * len(self.kept))]
        key = tuple(None if v is None else np.asarray(v, float).tobytes()
                    for v in (cam, tone, seen_targets, poses, own_tones))
        if self._last is not None and self._last[0] == key and self._rows.holds(frame):
            # the frame before again, seen the same: what was read from it holds
            res, lightness, zones, judged, outside, measured, ratio = self._last[1]
        else:
            res, lightness = self._rows.residual(frame, lo, hi, tone[0], tone[1],
                                                 _ST["slack_delta_e"],
                                                 self.expected.levels(cam))
            zones = self.places.kept(cam)
            self._follow_objects(frame, cam, tone, poses, own_tones, zones, res, lightness)
            judged, outside = self._judged(valid, zones, self.places.free(cam, seen_targets))
            measured = self._measure(res, zones, judged, outside)
            tones = own_tones if own_tones is not None else [tone] * len(zones)
            ratio = self.softness.ratios_of(frame, zones, judged, self.expected, cam, poses,
                                            tones)
            self._last = (key, (res, lightness, zones, judged, outside, measured, ratio))
        self.zones.append(zones)
        self.noise.append(measured[0])
        self.means.append(measured[1])
        self._background = measured[2]
        need = self.judged.need()
        zone_thr, background_thr = self._thresholds()
        _persist(res, judged, np.ascontiguousarray(zones, np.int64).reshape(-1, 4), zone_thr,
                 background_thr, lightness, lo, hi, self._ink_below, t, need, self.run_start,
                 self.first, self.lighter, self.inside, self.active)
        self._diffuse(t, need, res, lightness, lo, hi, zones, judged)
        for j, area in self.softness.judge(t, need, ratio, zones, judged):
            self._object_change(j, zones[j], self.softness.runs.since[j], area, "blurred")

    def _follow_objects(self, frame, cam, tone, poses, own_tones, zones, res,
                        lightness) -> None:
        """Each kept object's square and ring held against the expected frame through its own
        tone (``own_tones[j]``: the line through the background's and its fill's colours,
        first and now, where it differs from the scene's) and, where ``poses[j]`` = (s, tx,
        ty) is not ``cam`` itself (where the object is seen, when that moves its outline by
        more than :data:`FOLLOW_PX`), also as that camera shows it: ``res`` and
        ``lightness`` take the smaller residual of the two cameras at each pixel. Its place
        and fill colour are the displacement's and the colour test's to judge (each with its
        threshold); the residual judges the rest."""
        h, w = self.shape
        if own_tones is None:
            own_tones, apart = [tone] * len(zones), np.zeros(len(zones))
        else:
            own = np.asarray(own_tones, float).reshape(-1, 2, 3)
            apart = (np.abs(own[:, 0] - np.asarray(tone[0])) * 255
                     + np.abs(own[:, 1] - np.asarray(tone[1]))).max(axis=1)
        for j, (y0, y1, x0, x1) in enumerate(zones):
            pose = poses[j]
            moved = pose is not cam
            if not moved and apart[j] < TONE_SAME:
                continue
            own = own_tones[j]
            win = (max(y0 - 1, 0), min(y1 + 1, h), max(x0 - 1, 0), min(x1 + 1, w))
            levels = None
            if moved:
                lo, hi, _ = self.expected.bounds_in(pose, win)
            else:
                lo, hi, levels = (np.ascontiguousarray(b[win[0]:win[1], win[2]:win[3]]) for b in
                                  (*self.expected.bounds(cam)[:2], self.expected.levels(cam)))
            part, light = residual(frame[win[0]:win[1], win[2]:win[3]], lo, hi, own[0], own[1],
                                   _ST["slack_delta_e"], levels)
            iy, ix = y0 - win[0], x0 - win[2]
            part = part[iy:iy + y1 - y0, ix:ix + x1 - x0]
            better = part < res[y0:y1, x0:x1] if moved else np.ones(part.shape, bool)
            res[y0:y1, x0:x1][better] = part[better]
            lightness[y0:y1, x0:x1][better] = light[iy:iy + y1 - y0, ix:ix + x1 - x0][better]

    def _judged(self, valid, zones, free):
        """(judged, outside): the pixels held against the expected frame (shown, not in a
        free zone), and those of them away from every kept object's zone (kept from the frame
        before while the zones are the same)."""
        key = (zones.tobytes(), np.asarray(free).tobytes())
        if self._masks is not None and self._masks[0] is valid and self._masks[1] == key:
            return self._masks[2]
        judged = valid.copy()
        for y0, y1, x0, x1 in free:
            judged[y0:y1, x0:x1] = False
        outside = judged.copy()
        for y0, y1, x0, x1 in zones:
            outside[y0:y1, x0:x1] = False
        self._masks = (valid, key, (judged, outside))
        return judged, outside

    def _measure(self, res, zones, judged, outside) -> tuple:
        """This frame's noise levels: over each kept object's zone and over the background
        (every other pixel), the residual's ``noise_quantile`` and its mean above
        ``diffuse_pixel_floor`` (:func:`_zone_levels`): (the objects' quantiles (K,), their
        means per px of their outline (K,), the background's (quantile, mean))."""
        q, floor = _ST["noise_quantile"], _ST["diffuse_pixel_floor"]
        zones = np.ascontiguousarray(zones, np.int64).reshape(-1, 4)
        area = (zones[:, 1] - zones[:, 0]) * (zones[:, 3] - zones[:, 2])
        buf = np.empty(max(int(area.max(initial=1)), judged[::2, ::2].size), np.float32)
        quantiles, means = np.empty(len(zones)), np.empty(len(zones))
        _zone_levels(res, judged, zones, 1, q, floor, buf, quantiles, means)
        bg_q, bg_mean = np.empty(1), np.empty(1)
        _zone_levels(res, outside, np.array([[0, res.shape[0], 0, res.shape[1]]]), 2, q, floor,
                     buf, bg_q, bg_mean)
        return (quantiles, means * area / (4.0 * self.model.size[self.kept]),
                tuple(0.0 if np.isnan(v) else float(v) for v in (bg_q[0], bg_mean[0])))

    def _thresholds(self):
        """(each kept object's zone's threshold (K,), the background's): this frame's
        thresholds (see the module docstring), from the levels :meth:`_measure` took."""
        bg_noise = self._background[0]
        floor, factor = _ST["floor_delta_e"], _ST["noise_factor"]
        noise = np.maximum(self.noise.level(), bg_noise)
        return np.asarray(floor + factor * noise, np.float64), floor + factor * bg_noise

    def _diffuse(self, t, need, res, lightness, lo, hi, zones, judged) -> None:
        """The test of a change spread thin over one object (a blur, a soft glow): the
        residual above ``diffuse_pixel_floor`` (what a tone fit's error and a codec's drift
        leave on an unchanged fill) summed over its square and ring, per pixel of its outline
        (a camera's and a codec's errors lie along outlines, so this is alike for objects of
        any size), above ``diffuse_floor`` and ``diffuse_factor`` times the other objects'
        (their median), its own before anything happened and the background's (as over an
        object of the median size), for ``min_seconds``."""
        bg = self._background[1] * (1 + 2 * _ST["ring_fraction"]) ** 2 \
            * self._median_size / 4.0
        now = self.means.values[-1]
        now = np.where(np.isnan(now), 0.0, now)
        level = np.maximum(self.means.level(), bg)
        over = (now > _ST["diffuse_floor"]) & (now > _ST["diffuse_factor"] * level)
        for j in self.diffuse.update(over, t, need):
            y0, y1, x0, x1 = zones[j]
            hit = judged[y0:y1, x0:x1] & (res[y0:y1, x0:x1] > _ST["slack_delta_e"])
            ink = (lo[y0:y1, x0:x1, 0] + hi[y0:y1, x0:x1, 0]) * 0.5 < self._ink_below
            self._object_change(j, zones[j], self.diffuse.since[j], hit.sum(),
                                _words(ink[hit], lightness[y0:y1, x0:x1][hit] > 0))

    def _object_change(self, j, zone, start, area, words) -> None:
        """Kept object ``j`` changed over its ``zone`` from judged frame ``start`` (``area``
        canvas px), in ``words``."""
        y0, y1, x0, x1 = (int(v) for v in zone)
        self.diffuse_regions.append({
            "frame": self.judged.frames[start], "box": [x0, y0, x1, y1],
            "area_px": round(float(area) / self.model.unit ** 2, 1),
            "object": int(self.kept[j]), "words": words})

    def regions(self) -> list[dict]:
        """The video's changes: connected pixels changed for ``min_seconds`` (joined across
        :data:`JOIN_PX`), of at least
        ``min_area_px`` (scaled), each ``{"frame", "box": [x0, y0, x1, y1], "area_px",
        "object": the kept object index whose square or ring it lies on (None: none),
        "words"}``, largest first."""
        changed = self.first >= 0
        if not self.diffuse_regions and not changed.any():
            return []
        m = self.model
        min_area = _ST["min_area_px"] * m.unit ** 2
        # Pieces of one change a few pixels apart (the two sides of a copy, a blur's ring
        # broken by a codec's blocks) are one change: joined across JOIN_PX.
        joined = binary_dilation(changed, iterations=max(1, round(JOIN_PX * m.unit)))
        labels = label(joined, connectivity=2) * changed
        out = []
        for reg in regionprops(labels):
            if reg.area < min_area:
                continue
            rr, cc = reg.coords[:, 0], reg.coords[:, 1]
            start = int(self.first[rr, cc].min())
            obj = self._object_of(rr, cc, start)
            y0, x0, y1, x1 = reg.bbox
            out.append({"frame": self.judged.frames[start], "box": [int(x0), int(y0), int(x1), int(y1)],
                        "area_px": round(float(reg.area) / m.unit ** 2, 1),
                        "object": obj, "words": _words(self.inside[rr, cc],
                                                       self.lighter[rr, cc])})
        named = {r["object"] for r in out}
        for r in self.diffuse_regions:          # one record per object
            if r["object"] not in named:
                out.append(r)
                named.add(r["object"])
        out.sort(key=lambda r: -r["area_px"])
        return out

    def _object_of(self, rr, cc, t: int):
        """The kept object (index) whose zone in frame ``t`` holds most of the pixels
        ``rr, cc``, or None."""
        best, most = None, 0
        for j, (y0, y1, x0, x1) in enumerate(self.zones[t]):
            n = int(((rr >= y0) & (rr < y1) & (cc >= x0) & (cc < x1)).sum())
            if n > most:
                best, most = int(self.kept[j]), n
        return best


def _moved(pose, cam) -> bool:
    """Whether a kept object's own camera ``pose`` (NaN: not seen) puts it farther than
    :data:`FOLLOW_PX` from where the scene's camera ``cam`` does."""
    if pose is cam:
        return False
    return bool(np.isfinite(pose).all()) and bool(
        np.hypot(pose[1] - cam[1], pose[2] - cam[2]) > FOLLOW_PX)


def _words(inside: np.ndarray, lighter: np.ndarray) -> str:
    """What a changed region looks like, from where its pixels lie (``inside`` the object's
    expected ink or not) and whether they turned ``lighter`` or darker.

    Examples
    --------
    >>> _words(np.array([1, 1, 1, 1], bool), np.array([1, 1, 1, 0], bool))
    'lost part of its fill (a hole)'
    >>> _words(np.array([1, 1, 0, 0], bool), np.array([1, 1, 0, 0], bool))
    'blurred'
    """
    n = inside.size
    fill_lost = (inside & lighter).sum() / n
    ink_outside = (~inside & ~lighter).sum() / n
    if fill_lost >= 0.6:
        return "lost part of its fill (a hole)"
    if ink_outside >= 0.6:
        return "gained something beside it (a copy, a shadow, a smear)"
    if fill_lost >= 0.25 and ink_outside >= 0.25:
        return "blurred"
    return "changed"
