"""Object detection on canvas frames without learning: colour classes, components, matching.

Colour classification
---------------------
Every pixel gets one class: background (white), outline (black), one of the scene's task colours
(the record's palette: the classic six, or as many of the extended vocabulary's as the scene
uses; the per-component colour counts have one column per palette colour), or *other*. The
decision is made in CIE L*a*b* with the CIEDE2000 difference: a pixel takes the
class of the nearest reference colour when that difference is at most :data:`CLASS_TOLERANCE`,
and is *other* (still foreground) beyond it. It is precomputed once into a lookup table over RGB
quantised to 6 bits per channel (64**3 cells, 256 KiB), so a frame costs one table read per pixel.

Why these numbers: the closest pair of references is blue/purple (ΔE00 19.8), then
yellow/green (23.4), yellow/orange (29.3) and white/yellow (30.5); nearest-reference assignment
separates them, and the tolerance only decides when a pixel is too far from every reference to
be trusted. Lossy codecs (H.264/H.265/VP9 in yuv420p, GIF palettes) move flat colours by a few
ΔE00 units; chroma subsampling halves colour resolution so the two pixels at a colour edge mix
with their neighbour, and encoders blur edges. A tolerance of 25 keeps every flat-area pixel
of an encoded task in its class while blended edge pixels (grey between outline and
background, dark shades between fill and outline) become *other*. *Other* pixels still count as
foreground, so blur neither splits objects nor removes them from the IoU; they are simply not
allowed to decide an object's colour. CIEDE2000 weighs lightness differences less near white,
so neutral greys down to about RGB 150 still count as background: dimmed or off-white
backgrounds, which generative models often emit, are not mistaken for objects. The 6-bit
quantisation moves a colour by at most 2.5 RGB units, about one ΔE00 unit on these references.

Components and matching
-----------------------
Foreground (any class but background) is labelled into 8-connected components in one Numba pass
(union-find), with per-component area, centroid, bounding box, colour histograms and shape
features. Objects never touch (10 px spacing) so each drawn object is one component. Components
smaller than :data:`MIN_AREA_FRACTION` of the smallest task object are codec specks and ignored.
A component's colour is decided by its interior (pixels 2 px off its rim, :func:`_interior`)
when it has at least :data:`MIN_INTERIOR_PX` of them, by all its non-outline pixels otherwise:
the majority task colour when it covers at least :data:`COLOR_MIN_FRACTION` of the voters, else
uncertain (-1). A blur mixes a small object's rim with the outline and the background (yellow
and black read green); its interior keeps the colour. Its shape is the nearest of the four
sprite templates in shape-feature space (fill ratio, vertical asymmetry, aspect, bottom-corner
occupancy), the templates being computed by this very detector on ``render.sprite`` images, so
detector and renderer can never disagree on a definition. Components touching the frame's
border are flagged (``Components.edge``): they may be cut off.

Components are matched to task objects frame by frame by a minimum-cost assignment (Hungarian,
with an "unmatched" option per object at :data:`UNMATCHED_COST`). For an object matched in the
previous frame the cost adds colour and shape mismatches, the distance from its last position in
object sizes and the change of area since its last match; its area may change only within
:data:`TRACK_RATIO_RANGE` per match, so look-alikes keep their identities while one of them
shrinks or slides away (this area gate holds continuous tracks only: a lost object's last
match may have been a small remnant); a component farther than the motion threshold (``gate``)
cannot match (the object is lost instead, so two look-alikes cannot swap across the canvas); a component of
another colour may only match an object in place (within one object size), and one of uncertain
colour too, at :data:`UNCERTAIN_COLOR_COST` (a blurred small object is not read as removed). A
lost object (unmatched in the previous frame) is re-acquired only by a whole look-alike (its
colour and shape, area within :data:`REACQUIRE_RATIO_RANGE` of the drawn area, not touching the
frame's border) within its ``reach`` of where it was last seen (the tracker: anywhere for a kept
object, so a teleport is found as a jump; the motion threshold for a removed one, so a look-alike
elsewhere never takes its identity), while the remnant of another object sliding out through an
edge is not taken for it.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ...draw.render import palette
from ...runtime._numba import kernel
from ...task.vocabulary import COLOR_RGB, COLORS
from ..reading.looks import picture, shade_references

__all__ = ["Components", "Detector", "class_lut", "shape_templates", "object_mask",
           "classify_shapes",
           "component_colors", "match", "BG", "OUTLINE", "OTHER", "COLOR_CLASS0",
           "CLASS_TOLERANCE", "MAX_COLORS"]

#: Pixel classes.
BG, OUTLINE, OTHER = 0, 1, 255
#: Class of colour code c is c + COLOR_CLASS0.
COLOR_CLASS0 = 2
#: Most task colours a colour table can tell apart (classes COLOR_CLASS0 .. OTHER - 1).
MAX_COLORS = OTHER - COLOR_CLASS0
#: CIEDE2000 distance within which a pixel takes the nearest reference's class.
CLASS_TOLERANCE = 25.0
#: A look's shades (``looks``) are compared by CIEDE2000 among this many nearest in CIELAB.
SHADE_CANDIDATES = 4
#: Components smaller than this fraction of the smallest task object's area are noise.
MIN_AREA_FRACTION = 0.25
#: A component's colour must cover this fraction of its non-outline pixels to count.
COLOR_MIN_FRACTION = 0.4
#: Interior pixels (2 px off the rim) decide a component's colour when there are this many.
MIN_INTERIOR_PX = 6
#: Matching costs (see :func:`match`).
COLOR_MISMATCH_COST = 4.0
SHAPE_MISMATCH_COST = 1.5
#: Area cost per unit of |log(area / last matched area)|.
AREA_LOG_COST = 1.0
#: Position cost: distance from the last tracked position in units of this many object sizes
#: (objects tracked in the previous frame); a lost object pays distance / canvas diagonal.
POSITION_SCALE = 1.0
#: Area ratios outside which a component cannot be the object: above this multiple of the drawn
#: (expected) area, and outside TRACK_RATIO_RANGE of its area at the object's last match (objects
#: may shrink away or grow, but not jump in size between two matches).
AREA_RATIO_MAX = 10.0
TRACK_RATIO_RANGE = (0.4, 2.5)
#: A lost object (unmatched in the previous frame) is re-acquired only by a component of its
#: colour and shape whose area is within this range of its drawn area: a reappearing object
#: comes back whole, while the remnants of another object leaving the canvas do not look whole.
REACQUIRE_RATIO_RANGE = (0.5, 2.0)
#: Cost of leaving an object unmatched: a worse candidate (e.g. another object's component of the
#: same colour but another shape and size) is refused rather than stolen from its owner.
UNMATCHED_COST = 3.0

# Component statistics columns; then one count per task colour (S_COL0 + c), then one per task
# colour of interior pixels, off the blurred rim (S_COL0 + ncol + c): ``S_COL0 + 2 * ncol`` in all.
(S_AREA, S_SX, S_SY, S_X0, S_X1, S_Y0, S_Y1, S_OUTLINE, S_OTHER, S_TOPQ, S_BOTQ,
 S_CORNER, S_LABEL) = range(13)
S_COL0 = 13


def class_lut(colors_rgb=None, look: str = "flat") -> np.ndarray:
    """Return the (64**3,) uint8 table: RGB >> 2 packed as r<<12 | g<<6 | b -> pixel class.

    ``colors_rgb`` are the task colours as a tuple of (r, g, b) (a record's palette, any number
    up to :data:`MAX_COLORS`); class c + COLOR_CLASS0 is colour c. Default: the classic six.
    ``look`` (``looks.LOOKS``) adds each colour's shades as references of its class: a cell
    takes the class of the nearest of all references (the shades compared by CIEDE2000 among
    the :data:`SHADE_CANDIDATES` nearest in CIELAB), the flat look's table is the palette's.
    """
    if colors_rgb is not None and not 1 <= len(colors_rgb) <= MAX_COLORS:
        raise ValueError(f"class_lut takes 1..{MAX_COLORS} colours; got {len(colors_rgb)}")
    return _class_lut(None if colors_rgb is None else tuple(map(tuple, colors_rgb)), look)


@lru_cache(maxsize=16)
def _class_lut(colors_rgb, look: str) -> np.ndarray:
    """:func:`class_lut`, computed once per (colours, look) and kept on disk for the next
    process (``stored_tables``)."""
    from .stored_tables import stored_table

    key = None if colors_rgb is None else tuple(tuple(int(v) for v in c) for c in colors_rgb)
    return stored_table(("class_lut", key, look), lambda: _build_class_lut(colors_rgb, look))


def _build_class_lut(colors_rgb, look: str) -> np.ndarray:
    """:func:`class_lut` computed."""
    from skimage.color import deltaE_ciede2000, rgb2lab

    colors = tuple(map(tuple, (COLOR_RGB if colors_rgb is None
                               else np.array(colors_rgb)).tolist()))
    lab = _grid_lab()
    refs = palette(np.array(colors))
    # background, outline, task colours: one column each (kept per colour, since the palettes
    # of an extended vocabulary draw on few colours)
    dist = np.stack([_distances_to(tuple(int(v) for v in rgb)) for rgb in refs], axis=1)
    lut = dist.argmin(axis=1).astype(np.uint8)
    best = dist.min(axis=1)
    shades, codes = shade_references(colors, look)
    if len(shades):
        from scipy.spatial import cKDTree

        shade_lab = rgb2lab(shades[None] / 255.0)[0]
        n = min(SHADE_CANDIDATES, len(shades))
        _, near = cKDTree(shade_lab).query(lab, k=n)
        near = near.reshape(len(lab), n)
        d = np.stack([deltaE_ciede2000(lab, shade_lab[near[:, j]]) for j in range(n)], axis=1)
        pick = near[np.arange(len(lab)), d.argmin(axis=1)]
        d = d.min(axis=1)
        closer = d < best
        lut[closer] = COLOR_CLASS0 + codes[pick[closer]]
        best = np.minimum(best, d)
    lut[best > CLASS_TOLERANCE] = OTHER
    lut.flags.writeable = False
    return lut


@lru_cache(maxsize=1)
def _grid_lab() -> np.ndarray:
    """CIELAB of the centres of the 64**3 cells of :func:`class_lut`'s table."""
    from skimage.color import rgb2lab

    q = (np.arange(64) * 4 + 1.5) / 255.0
    return rgb2lab(np.stack(np.meshgrid(q, q, q, indexing="ij"), -1).reshape(-1, 3))


@lru_cache(maxsize=32)
def _distances_to(rgb: tuple) -> np.ndarray:
    """CIEDE2000 difference of every cell of :func:`class_lut`'s table to colour ``rgb``."""
    from skimage.color import deltaE_ciede2000, rgb2lab

    ref_lab = rgb2lab((np.array(rgb, float) / 255.0)[None, None])[0, 0]
    dist = deltaE_ciede2000(_grid_lab(), ref_lab[None])
    dist.flags.writeable = False
    return dist


@kernel
def _find(parent, a):
    root = a
    while parent[root] != root:
        root = parent[root]
    while parent[a] != root:
        nxt = parent[a]
        parent[a] = root
        a = nxt
    return root


@kernel
def _union(parent, a, b):
    ra = _find(parent, a)
    rb = _find(parent, b)
    if ra < rb:
        parent[rb] = ra
    elif rb < ra:
        parent[ra] = rb
    return min(ra, rb)


@kernel
def _interior(cls, y, x, H, W):
    """Whether every pixel within 2 px (a 3x3 square and the 4 pixels 2 px away along the
    axes) of (y, x) is foreground: the pixel is off the object's blurred rim."""
    if y < 2 or x < 2 or y >= H - 2 or x >= W - 2:
        return False
    for dy in range(-1, 2):
        for dx in range(-1, 2):
            if cls[y + dy, x + dx] == 0:
                return False
    return (cls[y - 2, x] != 0 and cls[y + 2, x] != 0 and cls[y, x - 2] != 0
            and cls[y, x + 2] != 0)


@kernel(nogil=True, inline="always")
def _lut_cell(r, g, b):
    """The cell of colour (r, g, b) in a colour table of :func:`class_lut` (one reading for
    the detector and for ``video.CanvasWarp``, which classifies while sampling), unsigned."""
    return (np.uint32(r >> 2) << 12) | (np.uint32(g >> 2) << 6) | np.uint32(b >> 2)


@kernel(nogil=True, inline="always")
def _lut_class(lut, r, g, b):
    """The class of colour (r, g, b) in the colour table ``lut`` of :func:`class_lut`."""
    return lut[_lut_cell(r, g, b)]


@kernel(nogil=True)
def _classify(frame, lut, cls):
    """``cls[y, x]`` = the class of ``frame[y, x]`` in the colour table ``lut``."""
    H, W = cls.shape
    for y in range(H):
        for x in range(W):
            cls[y, x] = _lut_class(lut, frame[y, x, 0], frame[y, x, 1], frame[y, x, 2])


@kernel(nogil=True)
def _background_row(words, y):
    """Whether row ``y`` of the pixel classes (viewed as 64-bit words) is all background."""
    acc = np.uint64(0)
    row = words[y]
    for x in range(row.shape[0]):
        acc |= row[x]
    return acc == 0


@kernel(nogil=True)
def _analyze_frame(cls, words, labels, parent, min_area, ncol):
    """Label the foreground components of the pixel classes ``cls`` into ``labels``.

    ``words`` is ``cls`` viewed as rows of 64-bit words (rows and words of background are
    skipped whole), or ``cls`` itself. Returns a (K, S_COL0 + 2 * ncol) float64 array of
    statistics of the components with at least ``min_area`` pixels (``labels`` holds 1-based ids
    of all components, small ones included, on the rows with foreground); ``ncol`` is the number
    of task colours.
    """
    H, W = cls.shape
    n = 0
    fg_rows = np.zeros(H, np.bool_)
    per = W // max(words.shape[1], 1)       # pixels per word
    for y in range(H):
        if _background_row(words, y):
            continue
        fg_rows[y] = True
        above = y > 0 and fg_rows[y - 1]
        row = words[y]
        for w in range(row.shape[0]):
            if row[w] == 0:
                labels[y, w * per:(w + 1) * per] = 0
                continue
            for x in range(w * per, (w + 1) * per):
                c = cls[y, x]
                if c == 0:
                    labels[y, x] = 0
                    continue
                best = 0
                if x > 0 and labels[y, x - 1] > 0:
                    best = labels[y, x - 1]
                if above:
                    for dx in range(-1, 2):
                        xx = x + dx
                        if 0 <= xx < W:
                            lab = labels[y - 1, xx]
                            if lab > 0:
                                if best == 0:
                                    best = lab
                                elif lab != best:
                                    best = _union(parent, best, lab)
                if best == 0:
                    n += 1
                    parent[n] = n
                    best = n
                labels[y, x] = best
    # Resolve roots to compact ids.
    compact = np.zeros(n + 1, np.int32)
    k = 0
    for i in range(1, n + 1):
        r = _find(parent, i)
        if r == i:
            k += 1
            compact[i] = k
    for i in range(1, n + 1):
        compact[i] = compact[_find(parent, i)]
    st = np.zeros((k + 1, S_COL0 + 2 * ncol))
    for j in range(1, k + 1):
        st[j, S_X0] = W
        st[j, S_Y0] = H
        st[j, S_X1] = -1
        st[j, S_Y1] = -1
    for y in range(H):
        if not fg_rows[y]:
            continue
        row = words[y]
        for w in range(row.shape[0]):
            if row[w] == 0:
                continue
            for x in range(w * per, (w + 1) * per):
                lab = labels[y, x]
                if lab == 0:
                    continue
                j = compact[lab]
                labels[y, x] = j
                st[j, S_AREA] += 1
                st[j, S_SX] += x
                st[j, S_SY] += y
                if x < st[j, S_X0]:
                    st[j, S_X0] = x
                if x > st[j, S_X1]:
                    st[j, S_X1] = x
                if y < st[j, S_Y0]:
                    st[j, S_Y0] = y
                if y > st[j, S_Y1]:
                    st[j, S_Y1] = y
                c = cls[y, x]
                if c == OUTLINE:
                    st[j, S_OUTLINE] += 1
                elif c == OTHER:
                    st[j, S_OTHER] += 1
                else:
                    st[j, S_COL0 + c - COLOR_CLASS0] += 1
    keep = 0
    for j in range(1, k + 1):
        if st[j, S_AREA] >= min_area:
            keep += 1
    out = np.zeros((keep, S_COL0 + 2 * ncol))
    o = 0
    for j in range(1, k + 1):
        if st[j, S_AREA] < min_area:
            continue
        y0 = int(st[j, S_Y0])
        y1 = int(st[j, S_Y1])
        x0 = int(st[j, S_X0])
        x1 = int(st[j, S_X1])
        quarter = (y1 - y0 + 1) // 4
        qx = (x1 - x0 + 1) // 4
        for y in range(y0, y1 + 1):
            for x in range(x0, x1 + 1):
                if labels[y, x] == j:
                    if y < y0 + quarter:
                        st[j, S_TOPQ] += 1
                    elif y > y1 - quarter:
                        st[j, S_BOTQ] += 1
                        if x < x0 + qx or x > x1 - qx:
                            st[j, S_CORNER] += 1
                    c = cls[y, x]
                    if COLOR_CLASS0 <= c < OTHER and _interior(cls, y, x, H, W):
                        st[j, S_COL0 + ncol + c - COLOR_CLASS0] += 1
        st[j, S_LABEL] = j
        out[o] = st[j]
        o += 1
    return out


@dataclass
class Components:
    """Components of one frame (arrays of length K).

    Attributes
    ----------
    area, cx, cy : float arrays (centroid in canvas pixels, pixel-centre coordinates)
    bbox : (K, 4) int (x0, x1, y0, y1), inclusive
    color : int array, colour code or -1 when no task colour dominates
    features : (K, 4) shape features (see ``_features``)
    cls : (H, W) uint8 pixel classes of the frame
    label : int array, each component's id in ``labels``
    labels : (H, W) int32, the detector's component ids (valid until it detects the next
        frame; every row of a component's bounding box is labelled)
    edge : bool array, the component touches the border of the frame (or of the part of it
        that shows the scene, ``Detector.rect``): it may be cut off
    """

    area: np.ndarray
    cx: np.ndarray
    cy: np.ndarray
    bbox: np.ndarray
    color: np.ndarray
    features: np.ndarray
    cls: np.ndarray
    edge: np.ndarray
    label: np.ndarray = None
    labels: np.ndarray = None

    def __len__(self):
        return len(self.area)


@kernel(nogil=True)
def _features(st):
    """Scale-free shape features of component statistics rows: fill ratio of the bounding box,
    vertical asymmetry (bottom-quarter minus top-quarter pixels, over the area), log aspect
    ratio, and occupancy of the two bottom corner cells (a quarter of the box each way)."""
    out = np.empty((st.shape[0], 4))
    for j in range(st.shape[0]):
        bw = st[j, S_X1] - st[j, S_X0] + 1
        bh = st[j, S_Y1] - st[j, S_Y0] + 1
        area = st[j, S_AREA]
        corner_cells = 2.0 * max(bw // 4, 1) * max(bh // 4, 1)
        out[j, 0] = area / (bw * bh)
        out[j, 1] = (st[j, S_BOTQ] - st[j, S_TOPQ]) / area
        out[j, 2] = np.log(bw / bh)
        out[j, 3] = st[j, S_CORNER] / corner_cells
    return out


class Detector:
    """Per-stream detector with reusable buffers for a canvas of (W, H).

    Parameters
    ----------
    canvas_size : (W, H)
    min_area : float
        Components below this many pixels are ignored.
    palette : tuple of (r, g, b), optional
        The task's colours (``TaskModel.palette``); default the classic six.
    look : str
        The task's look (``looks.LOOKS``): its shades join the colour table.
    """

    def __init__(self, canvas_size, min_area: float, palette=None, look: str = "flat"):
        w, h = int(canvas_size[0]), int(canvas_size[1])
        self.lut = class_lut(palette, look)
        self.ncol = len(COLORS) if palette is None else len(palette)
        # Neither needs clearing: a label is written before it is read (rows of background
        # are never read), a parent entry when its label is made.
        self.labels = np.empty((h, w), np.int32)
        self.parent = np.empty(h * w + 1, np.int32)
        self.min_area = float(min_area)
        self.shape = (h, w)
        #: (u0, v0, u1, v1): the part of the frame that shows the scene; components touching
        #: its border may be cut off (``Components.edge``).
        self.rect = (0, 0, w, h)
        self._last = None

    def __call__(self, frame: np.ndarray, classes=None, repeated: bool = False) -> Components:
        """Detect the components of one (H, W, 3) uint8 canvas frame.

        ``classes``: the frame's pixel classes when already known (classified while sampled);
        ``repeated``: ``classes`` are exactly the previous frame's (its components are
        returned: they depend on the classes alone).
        """
        if repeated and self._last is not None:
            return self._last
        if classes is None:
            classes = np.empty(self.shape, np.uint8)
            _classify(frame, self.lut, classes)
        words = classes.view(np.uint64) if classes.shape[1] % 8 == 0 else classes
        st = _analyze_frame(classes, words, self.labels, self.parent, self.min_area, self.ncol)
        bbox = st[:, S_X0:S_Y1 + 1].astype(np.int64)          # x0, x1, y0, y1
        area = st[:, S_AREA]
        self._last = Components(
            area=area, cx=st[:, S_SX] / area, cy=st[:, S_SY] / area, bbox=bbox,
            color=component_colors(st),
            features=_features(st), cls=classes, edge=_on_border(bbox, *self.rect),
            label=st[:, S_LABEL].astype(np.int32), labels=self.labels)
        return self._last


@kernel(nogil=True)
def _on_border(bbox, u0, v0, u1, v1):
    """Whether each (x0, x1, y0, y1) box touches the border of the rectangle [u0, u1) x
    [v0, v1)."""
    out = np.empty(bbox.shape[0], np.bool_)
    for j in range(bbox.shape[0]):
        out[j] = (bbox[j, 0] <= u0 or bbox[j, 1] >= u1 - 1 or bbox[j, 2] <= v0
                  or bbox[j, 3] >= v1 - 1)
    return out


def component_colors(st: np.ndarray) -> np.ndarray:
    """Colour code of each component (-1: uncertain), decided by its interior when it has one.

    A blurred small object's rim mixes its fill with the outline and the background, and the
    mix can sit nearer another reference colour (yellow + black reads green): the interior
    pixels (:func:`_interior`) decide when there are at least :data:`MIN_INTERIOR_PX` of them,
    all pixels otherwise. The winning colour must cover :data:`COLOR_MIN_FRACTION` of the
    pixels that vote (non-outline pixels, interior ones when they decide).
    """
    return _component_colors(st, MIN_INTERIOR_PX, COLOR_MIN_FRACTION)


@kernel(nogil=True)
def _component_colors(st, min_interior, min_fraction):
    out = np.full(st.shape[0], -1, np.int64)
    ncol = (st.shape[1] - S_COL0) // 2
    for j in range(st.shape[0]):
        inner = 0.0
        for c in range(ncol):
            inner += st[j, S_COL0 + ncol + c]
        base = S_COL0 + ncol if inner >= min_interior else S_COL0
        body = inner if inner >= min_interior else max(st[j, S_AREA] - st[j, S_OUTLINE], 1.0)
        best, votes = 0, -1.0
        for c in range(ncol):
            if st[j, base + c] > votes:
                best, votes = c, st[j, base + c]
        if votes >= min_fraction * max(body, 1.0):
            out[j] = best
    return out


@lru_cache(maxsize=None)
def shape_templates(size: int, shapes=(0, 1, 2, 3), look: str = "flat", rgb=None,
                    palette=None) -> np.ndarray:
    """Shape features of the pictures (``looks.picture``) of global shape codes ``shapes``
    (default: the classic four) at ``size`` in ``look`` and colour ``rgb`` (default: the
    classic red), measured by the detector with the colour table of ``palette`` and ``look``:
    (len(shapes), 4)."""
    pad = 4
    rgb = tuple(COLOR_RGB[0].tolist()) if rgb is None else rgb
    feats = []
    for code in shapes:
        img = np.full((size + 2 * pad, size + 2 * pad, 3), 255, np.uint8)
        img[pad:pad + size, pad:pad + size] = picture(look, code, size, rgb)
        comp = Detector((img.shape[1], img.shape[0]), 1, palette, look)(img)
        feats.append(comp.features[np.argmax(comp.area)])
    return np.array(feats)


@lru_cache(maxsize=4096)
def object_mask(look: str, shape: int, size: int, rgb, palette=None) -> np.ndarray:
    """The (size, size) read-only bool silhouette of global shape ``shape`` at ``size`` in
    colour ``rgb`` as the detector sees its picture (``looks.picture``): the pixels the colour
    table of ``palette`` and ``look`` does not read as background. In the flat look, every
    drawn pixel (``render.sprite(shape, size) > 0``).

    Examples
    --------
    >>> from objsub_fast.draw.render import sprite
    >>> bool((object_mask("flat", 1, 20, (255, 0, 0)) == (sprite(1, 20) > 0)).all())
    True
    """
    img = picture(look, shape, size, rgb)
    cells = ((img[..., 0].astype(np.uint32) >> 2) << 12) | ((img[..., 1].astype(np.uint32) >> 2)
                                                          << 6) | (img[..., 2] >> 2)
    mask = class_lut(palette, look)[cells] != BG
    mask.flags.writeable = False
    return mask


#: Feature scales: a difference of one scale unit counts as 1 in the shape distance.
FEATURE_SCALE = np.array([0.08, 0.08, 0.15, 0.15])


def classify_shapes(features: np.ndarray, templates: np.ndarray) -> np.ndarray:
    """Shape codes (M, K): nearest template of each object's size for each component.

    ``features`` is (K, 4); ``templates`` is (M, len(SHAPES), 4), one template set per object.
    """
    d = np.abs((templates[:, None] - features[None, :, None]) / FEATURE_SCALE).sum(axis=-1)
    return d.argmin(axis=-1)


#: Cost of an infeasible pair.
INFEASIBLE = 1e6
#: Cost of a component whose colour is uncertain (blurred, restyled) matching an object in
#: place (within one object size of its last position): less than leaving it unmatched, so a
#: small blurred object is not read as removed, more than a clear match.
UNCERTAIN_COLOR_COST = 1.0
#: A component of the object's shape within this fraction of its size of where the object was
#: tracked in the previous frame is the object whatever colour this one frame reads (at a very
#: low bitrate a red hourglass's smeared fill can read orange for a frame): it costs
#: :data:`UNCERTAIN_COLOR_COST` for its colour, not :data:`COLOR_MISMATCH_COST`, and its colour
#: read-out is voted over the track (``metrics``) instead of dropping the object for a frame.
IN_PLACE_FRACTION = 0.25
_COSTS = np.array([POSITION_SCALE, COLOR_MISMATCH_COST, SHAPE_MISMATCH_COST, AREA_LOG_COST,
                   AREA_RATIO_MAX, TRACK_RATIO_RANGE[0], TRACK_RATIO_RANGE[1],
                   REACQUIRE_RATIO_RANGE[0], REACQUIRE_RATIO_RANGE[1], UNMATCHED_COST,
                   INFEASIBLE, UNCERTAIN_COLOR_COST, IN_PLACE_FRACTION])


@kernel
def _cost_matrix(ref_x, ref_y, ref_area, lost, color, shape, size, exp_area, templates,
                 cx, cy, area, ccolor, cedge, features, scale, diag, gate, reach, c):
    """Costs (M, K + M) (last M columns: "unmatched") and component shape codes (M, K)."""
    m, k = ref_x.shape[0], cx.shape[0]
    cost = np.full((m, k + m), c[10])
    shapes = np.zeros((m, k), np.int64)
    for i in range(m):
        cost[i, k + i] = c[9]
        for j in range(k):
            best, best_d = 0, 1e300
            for h in range(templates.shape[1]):
                d = 0.0
                for f in range(features.shape[1]):
                    d += abs(templates[i, h, f] - features[j, f]) / scale[f]
                if d < best_d:
                    best, best_d = h, d
            shapes[i, j] = best
            dist = np.hypot(cx[j] - ref_x[i], cy[j] - ref_y[i])
            ratio = area[j] / exp_area[i]
            track = area[j] / ref_area[i]
            shape_bad = best != shape[i]
            in_place = not lost[i] and not shape_bad and dist <= c[12] * size[i]
            uncertain = ccolor[j] < 0 or (in_place and ccolor[j] != color[i])
            col_bad = ccolor[j] != color[i] and not uncertain
            if ratio > c[4] or (col_bad and dist > size[i]):
                continue
            # The area gate holds a continuous track; a lost object returns whole instead.
            if not lost[i] and (track < c[5] or track > c[6]):
                continue
            if lost[i] and (col_bad or uncertain or shape_bad or cedge[j] or ratio < c[7]
                            or ratio > c[8] or dist > reach[i]):
                continue
            if not lost[i] and (dist > gate or (uncertain and dist > size[i])):
                continue
            unit = diag if lost[i] else c[0] * size[i]
            growth = abs(np.log(ratio if lost[i] else track))
            cost[i, j] = (dist / unit + c[1] * col_bad + c[11] * uncertain
                          + c[2] * shape_bad + c[3] * growth)
    return cost, shapes


def match(ref_x, ref_y, ref_area, lost, color, shape, size, exp_area, templates,
          comps: Components, gate: float = np.inf, reach=None):
    """Assign components to objects by minimum total cost (see the module docstring).

    Parameters
    ----------
    ref_x, ref_y, ref_area : (M,) float, last tracked centroid and area of the objects
    lost : (M,) bool, objects not matched in the previous frame
    color, shape, size : (M,) int, expected colour/shape codes and size
    exp_area : (M,) float, drawn area
    templates : (M, len(SHAPES), 4) shape templates at each object's size
    comps : Components
    gate : float
        A tracked (not lost) object cannot match a component farther than this from its last
        position (the motion threshold): it is lost instead.
    reach : (M,) float, optional
        A lost object is re-acquired only within this distance of ``ref_x, ref_y`` (default:
        anywhere). The tracker gives a removed object the motion threshold: identity follows
        place, so a look-alike elsewhere never takes a removed object's track.

    Returns
    -------
    comp_of : (M,) int, component index matched to each object or -1
    shape_of : (M,) int, the shape code the matched component was classified as (-1 if none)
    """
    from scipy.optimize import linear_sum_assignment

    m, k = len(ref_x), len(comps)
    comp_of = np.full(m, -1)
    shape_of = np.full(m, -1)
    if m == 0 or k == 0:
        return comp_of, shape_of
    diag = float(np.hypot(*comps.cls.shape))
    cost, shapes = _cost_matrix(ref_x, ref_y, ref_area, lost, color, shape, size, exp_area,
                                templates, comps.cx, comps.cy, comps.area, comps.color,
                                comps.edge, comps.features, FEATURE_SCALE, diag, float(gate),
                                np.full(m, np.inf) if reach is None
                                else np.asarray(reach, np.float64), _COSTS)
    rows, cols = linear_sum_assignment(cost)
    for r, c in zip(rows.tolist(), cols.tolist()):
        if c < k and cost[r, c] < INFEASIBLE:
            comp_of[r] = c
            shape_of[r] = shapes[r, c]
    return comp_of, shape_of
