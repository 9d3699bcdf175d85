"""One pass over a video's canvas frames: :class:`Tracker` reads each frame once and fills a
:class:`Track`, what every invariant (``invariants``) is then measured on.

Per frame the tracker detects the frame's components (``detect``), matches them to the task's
objects (identity follows place: a lost removed object is looked for only near where it was),
estimates the camera from the kept objects (``camera``), and records for every object its
place, presence, colour and shape read-outs, the ink over its square (``appearance``), its
footprint against its first silhouette (``silhouette``) and its median colour; for the frame, the
camera, the background's colour and the ink no task object explains (``accounting``).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...runtime._numba import kernel
from ..judging.colour_change import frame_tones
from ..judging.residual import ResidualReader
from ..judging.thresholds import THRESHOLDS
from .accounting import InkLedger
from .appearance import background_colour, in_own_white, object_colours, square_ink
from .camera import CameraVote, apply_camera, object_cameras, search_places
from .detect import Detector, match
from .footprint import FootprintReader
from .model import TaskModel
from .silhouette import Silhouettes

__all__ = ["Track", "Tracker"]


@dataclass(eq=False)
class Track:
    """Everything one pass over a video saw, as plain arrays (F frames, M task objects).

    Attributes
    ----------
    model : TaskModel
    visible : (M,) bool, the objects the frames show (a crop may cut some off)
    rect : (u0, v0, u1, v1), the part of the canvas the frames show
    positions : (F, M, 2) float, each object's centroid (NaN where not seen)
    present : (F, M) bool, matched to a component
    color_read, shape_read : (F, M) int, colour and shape read-outs (-1: uncertain, not seen)
    shape_confirmed : (F, M) bool, a shape read-out the silhouette bears out
    cameras : (F, 3), (scale, tx, ty) of each frame about the canvas centre
    ink : (F, V) float, ink over each visible object's square where the camera puts it
    footprint : (F, M, 2), (area ratio, overlap) of each kept object's silhouette against its
        first one (NaN where not measured)
    colours : (F, M, 3) float, each object's median colour inside its rim (NaN: not seen)
    background : (F, 3) float, the colour of the frame's background
    last_seen : (M,) int, the last frame each object was seen in (-1: never)
    last_position : (M, 2), where each object was last seen
    last_area : (M,) its area there
    max_step, max_global : the largest step of a tracked object (px) and the largest fraction
        of the canvas changing class between two frames outside every object's zone
    final_classes, final_frame : the last frame's pixel classes and colours
    added : list of dict, ink no task object explains that stayed (``accounting``)
    silhouettes : ``silhouette.Silhouettes``, the kept objects' first silhouettes
    changed_masks : {object: {"first": (t, mask), "worst": (overlap, t, mask)}}, the
        silhouettes of the frames where an object's footprint read changed
    regions : list of dict, the video's changes against its expected video
        (``residual.ResidualReader.regions``)
    """

    model: TaskModel
    visible: np.ndarray
    rect: tuple
    positions: np.ndarray
    present: np.ndarray
    color_read: np.ndarray
    shape_read: np.ndarray
    shape_confirmed: np.ndarray
    cameras: np.ndarray
    ink: np.ndarray
    footprint: np.ndarray
    colours: np.ndarray
    background: np.ndarray
    last_seen: np.ndarray
    last_position: np.ndarray
    last_area: np.ndarray
    max_step: float
    max_global: float
    final_classes: np.ndarray
    final_frame: np.ndarray
    added: list
    silhouettes: Silhouettes
    changed_masks: dict = field(default_factory=dict)
    regions: list = field(default_factory=list)

    @property
    def frames(self) -> int:
        return len(self.present)

    @property
    def gate(self) -> float:
        """The largest step an object may take between two frames (canvas px)."""
        w, h = self.model.canvas_size
        return THRESHOLDS["motion_continuity"]["max_step_fraction"] * float(np.hypot(w, h))

    @property
    def visible_ids(self) -> np.ndarray:
        """Indices of the visible objects: the columns of :attr:`ink`."""
        return np.flatnonzero(self.visible)


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


def _sample_frames(count: int, keep: int) -> np.ndarray:
    """Indices of ``keep`` frames spread evenly over ``count`` (first and last included).

    Examples
    --------
    >>> _sample_frames(10, 3).tolist()
    [0, 4, 9]
    """
    return np.unique(np.rint(np.linspace(0, count - 1, min(keep, count))).astype(int))


class FrameSamples:
    """About ``keep`` frames of a video spread over it, kept as they stream by (for reports):
    every frame while few, then every second, fourth, ... one; the latest always."""

    def __init__(self, keep: int):
        self.keep = int(keep)
        self.frames = {}            # frame index -> canvas frame (decimated as frames come)
        self.last = None            # (index, frame) of the latest frame
        self._step = 1

    def add(self, t: int, frame) -> None:
        if not self.keep:
            return
        if t % self._step == 0:
            self.frames[t] = frame.copy()
            self.last = (t, self.frames[t])
        else:
            self.last = (t, frame.copy())     # the final frame is always drawn
        if len(self.frames) > 4 * self.keep:
            self._step *= 2
            self.frames = {i: f for i, f in self.frames.items() if i % self._step == 0}

    def picked(self, keep: int | None = None) -> list[tuple[int, np.ndarray]]:
        """About ``keep`` of the kept frames, evenly spread: list of (index, frame)."""
        if not self.frames:
            return []
        frames = {**self.frames, self.last[0]: self.last[1]}
        idx = np.array(sorted(frames))
        want = _sample_frames(idx[-1] + 1, keep or self.keep)
        pick = np.unique(idx[np.abs(idx[None, :] - want[:, None]).argmin(axis=1)])
        return [(int(i), frames[int(i)]) for i in pick]


class Tracker:
    """Read canvas frames of one video, one at a time (:meth:`update`), into a :class:`Track`
    (:meth:`track`).

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
        self.gate = THRESHOLDS["motion_continuity"]["max_step_fraction"] * float(np.hypot(w, h))
        self.detect = Detector(model.canvas_size, model.min_area, model.palette, model.look)
        self.set_mapping(mapping)
        self.ref_x, self.ref_y = m.cx.copy(), m.cy.copy()
        self.ref_area = m.area.copy()
        self.last_seen = np.full(len(m.cx), -1)
        # Per frame: the series of a Track (see there).
        self.positions, self.present, self.color_read, self.shape_read = [], [], [], []
        self.cameras, self.ink, self.footprint, self.shape_confirmed = [], [], [], []
        self.colours, self.background = [], []
        self.footprints = FootprintReader(m)
        self.camera = CameraVote(m)
        self.max_step = self.max_global = 0.0
        self.prev_cls = None
        self._inputs = None         # the tracking inputs the previous frame met (see update)
        self._repeating = False     # the previous frame was a repeat (see update)
        margin = THRESHOLDS["motion_continuity"]["zone_margin_px"]
        self._zone_growth = np.array([-margin, margin, -margin, margin])
        self.base_zones = np.stack([m.left, m.left + m.size, m.top, m.top + m.size],
                                   axis=1) + self._zone_growth
        self.prev_zones = self.base_zones[:0]
        self.final_cls = self.final_frame = None
        added = THRESHOLDS["added_objects"]
        self.ledger = InkLedger(added["min_frames"], self.gate)
        self._added_min_area = added["min_area_fraction"] * m.area.min()
        self._zone_half = m.size * (0.5 + added["zone_growth_fraction"])
        self.samples = FrameSamples(keep_samples)
        self.residual = None        # the ResidualReader, from frame 0 on (see update)

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

    def read(self, stream) -> Track:
        """Read every frame of ``stream`` (a ``video.FrameStream``) and return the track.

        The stream's registration, known once its first frame is read, says which objects
        are visible.
        """
        for n, (frame, classes, repeated) in enumerate(stream.canvas_frames()):
            if n == 0:
                self.set_mapping(stream.mapper.mapping)
            self.update(frame, classes, repeated, getattr(stream, "time", None))
        return self.track()

    def track(self) -> Track:
        """The :class:`Track` of the frames read so far."""
        if not self.present:
            raise ValueError("no frames")
        return Track(
            model=self.model, visible=self.visible, rect=self.rect,
            positions=np.array(self.positions), present=np.array(self.present),
            color_read=np.array(self.color_read), shape_read=np.array(self.shape_read),
            shape_confirmed=np.array(self.shape_confirmed), cameras=np.array(self.cameras),
            ink=np.array(self.ink).reshape(len(self.ink), -1),
            footprint=np.array(self.footprint), colours=np.array(self.colours),
            background=np.array(self.background), last_seen=self.last_seen.copy(),
            last_position=np.stack([self.ref_x, self.ref_y], axis=1),
            last_area=self.ref_area.copy(), max_step=self.max_step, max_global=self.max_global,
            final_classes=self.final_cls, final_frame=self.final_frame,
            added=self.ledger.added(len(self.present)), silhouettes=self.footprints.silhouettes,
            changed_masks=self.footprints.changed_masks,
            regions=self.residual.regions() if self.residual is not None else [])

    def sampled(self, keep: int | None = None) -> list[tuple[int, np.ndarray]]:
        """The kept frames, about ``keep`` of them spread evenly: list of (index, frame)."""
        return self.samples.picked(keep)

    # ------------------------------------------------------------------ one frame

    def update(self, frame: np.ndarray, classes=None, repeated: bool = False,
               time: float | None = None) -> None:
        """Detect and match objects in one canvas frame.

        ``classes``: the frame's pixel classes when the frame source classified it;
        ``repeated``: those classes are exactly the previous frame's (the colours may differ,
        e.g. by grain). A repeated frame whose tracking inputs (last positions and areas, lost
        objects, previous camera) are those the previous frame met gets the previous frame's
        read-out (detection and matching see only the classes: the same inputs give the same
        outputs); only what reads the colours (ink, colours, background) is measured again. A
        repeat leaves the inputs as they were, so the frames after it that repeat it are
        repeats too (their inputs are not compared again). ``time``: the frame's time in
        seconds, when the source says (the residual's changes must last ``min_seconds``).
        """
        m = self.model
        comps = self.detect(frame, classes, repeated)
        if repeated and self._repeating:
            self._repeat(frame, comps)
            self._read_residual(frame, time)
            return
        inputs = (self.ref_x.copy(), self.ref_y.copy(), self.ref_area.copy(),
                  self.present[-1] if self.present else None,
                  self.cameras[-1] if self.cameras else None, self.camera.removed_vote)
        self._repeating = repeated and self._same_inputs(inputs)
        if self._repeating:
            self._repeat(frame, comps)
            self._read_residual(frame, time)
            return
        self._inputs = inputs
        t = len(self.present)
        lost = ~self.present[-1] if t else np.zeros(len(m.cx), bool)
        # Objects the frame does not show take no part in the matching.
        vis = self._vis
        comp_of, shape_of = np.full(len(m.cx), -1), np.full(len(m.cx), -1)
        ref_x, ref_y, reach = search_places(self.model, self.ref_x, self.ref_y,
                                            self.last_seen, self.cameras, lost,
                                            self.gate)
        comp_of[vis], shape_of[vis] = match(
            ref_x[vis], ref_y[vis], self.ref_area[vis], lost[vis], *self._vis_model,
            comps, gate=self.gate, reach=reach[vis])
        hit = comp_of >= 0
        idx = comp_of[hit]
        cam, pos = self.camera(hit, comps, idx, self.cameras[-1] if self.cameras
                               else (1.0, 0.0, 0.0), self.visible)
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
        self._read_colours(frame, comps, comp_of)
        white = in_own_white(frame, self.background[-1])    # silhouettes: ink against it
        self.footprint.append(self.footprints.read(t, white, hit, comp_of, comps, cam))
        self.shape_confirmed.append(self.footprints.shape_evidence(white, shape_of, comp_of,
                                                                   comps))
        zones = comps.bbox[idx] + self._zone_growth
        if self.prev_cls is not None:
            changed = _changed_outside(self.prev_cls, comps.cls,
                                       np.concatenate([self.base_zones, self.prev_zones, zones]))
            self.max_global = max(self.max_global, changed)
        self.prev_cls, self.prev_zones = comps.cls, zones
        self.final_cls, self.final_frame = comps.cls, frame
        self._comp_of = comp_of
        self._account(t, comps, idx, cam)
        self.samples.add(t, frame)
        self._read_residual(frame, time)

    def _read_residual(self, frame, time) -> None:
        """Hold this frame against the expected video (``residual``): frame 0 is its
        reference; the frame's camera, its tone (a line per channel through the background's
        and the kept objects' colours, then against frame 0's: ``colour_change.tone_map``),
        the other tones each kept object may be seen through (its own line, the background's
        alone) and where the removal targets are seen now."""
        m = self.model
        if self.residual is None:
            self.residual = ResidualReader(m, frame, self.rect, ~m.removed & self.visible,
                                           self.background[0])
            self._tone_before = np.vstack([self.background[0], self.colours[0]])
            self._tones = (None, None)
        if not self.residual.wants(time):
            return
        k = self.residual.kept
        after = np.vstack([self.background[-1], self.colours[-1]])
        use = np.concatenate([[True], ~m.removed & self.visible])
        key = (after.tobytes(), use.tobytes())
        if key != self._tones[0]:       # (the colours of the frame before: its tones)
            self._tones = (key, frame_tones(self._tone_before, after, use, k))
        tone, lines = self._tones[1]
        seen = np.where(self.present[-1][m.removed, None], self.positions[-1][m.removed],
                        np.nan)
        # A lone kept object: the camera has nothing to be estimated from apart from it.
        poses = object_cameras(m, self.cameras[-1], self.positions[-1], self.present[-1],
                               k) if len(k) == 1 else None
        self.residual.update(frame, self.cameras[-1], tone, seen, poses, lines)

    def _read_colours(self, frame, comps, comp_of) -> None:
        """This frame's background colour, each seen object's median colour and the ink over
        each visible object's square where the camera puts it (``appearance``)."""
        bg = background_colour(frame, comps.cls)
        self.background.append(bg)
        # An object cut off by the frame's border shows part of its colours only.
        whole = comp_of >= 0
        whole[whole] = ~comps.edge[comp_of[whole]]
        self.colours.append(object_colours(frame, comps, np.where(whole, comp_of, -1)))
        c = self.model.center
        cam = self.cameras[-1]
        self.ink.append(square_ink(frame, self._ink_q, self._ink_half, cam, c, bg))

    def _account(self, t: int, comps, idx, cam) -> None:
        """Give the ledger this frame's ink that no task object explains (``accounting``):
        the zones are every object's square where the camera puts it and where each visible
        object was last tracked, grown by ``zone_growth_fraction`` of its size."""
        m, vis = self.model, self._vis    # objects the frame does not show are not tracked
        centres = np.concatenate([apply_camera(m.square_centres, cam, m.center),
                                  np.stack([self.ref_x[vis], self.ref_y[vis]], axis=1)])
        half = np.concatenate([self._zone_half * cam[0], self._zone_half[vis]])
        self.ledger.see_frame(t, comps, idx, centres, half, self._added_min_area,
                              m.size, m.templates)

    def _same_inputs(self, inputs) -> bool:
        """Whether ``inputs`` (see :meth:`update`) equal those the previous frame met."""
        last = self._inputs
        if last is None or last[3] is None:
            return False
        return all(np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b
                   for a, b in zip(inputs, last))

    def _repeat(self, frame, comps) -> None:
        """Record the previous frame's read-out again for a repeated frame, with what reads its
        own colours measured again (ink, colours, background)."""
        t = len(self.present)
        for series in (self.positions, self.present, self.color_read, self.shape_read,
                       self.cameras, self.footprint, self.shape_confirmed):
            series.append(series[-1])
        self._read_colours(frame, comps, self._comp_of)
        self.final_frame = frame
        self.last_seen[self.present[-1]] = t
        self.ledger.repeat(t)
        self.samples.add(t, frame)
