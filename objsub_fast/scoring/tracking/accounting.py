"""Accounting for every component of foreground: ink no task object explains.

Every component the detector finds in a frame is one of:

- a **task object** (whole, partial or fading): the matcher assigned it to an object;
- a **remnant** of one: its centre lies in an object's zone, the object's square where the
  camera puts it or where the object was last tracked, grown by a quarter of its size (a
  removal's own smudge, dissolve grain or shrinking core, a kept object split by a restyle);
- **noise or tone**: smaller than ``min_area_fraction`` of the smallest task object, without a
  task colour (grey shadows, texture, blended edges read *other* or outline), or touching the
  border of the part of the frame that shows the scene (cut off, outpainted, panned in);
- **unexplained ink**: anything else: a new object of the task's colours on free canvas.

Unexplained ink is followed from frame to frame (the nearest unexplained component within the
motion threshold, a one-frame gap allowed); when it stays for ``min_frames`` consecutive frames
(or the whole of a shorter video, a single image included) the video added an object, and
``added_objects`` fails, naming its colour, shape, the frame it appeared in and where.

Examples
--------
>>> ledger = InkLedger(min_frames=3, gate=36.0)
>>> for t in range(4):
...     ledger.see(t, [(140.0, 60.0, 400.0, 0, 1)])
>>> [(a["frame"], a["at"], a["frames"]) for a in ledger.added(4)]
[(0, [140, 60], 4)]
"""
from __future__ import annotations

import numpy as np

from .detect import classify_shapes

__all__ = ["InkLedger", "unexplained"]


def unexplained(comps, matched: np.ndarray, zones: np.ndarray, min_area: float) -> np.ndarray:
    """Indices of the components of ``comps`` that no task object explains.

    Parameters
    ----------
    comps : detect.Components
    matched : (K,) bool, components assigned to a task object
    zones : (Z, 4) float (x0, x1, y0, y1), the objects' zones
    min_area : float, components below this many pixels are noise
    """
    x, y = comps.cx[:, None], comps.cy[:, None]
    inside = ((zones[None, :, 0] <= x) & (x <= zones[None, :, 1])
              & (zones[None, :, 2] <= y) & (y <= zones[None, :, 3]))
    explained = matched | inside.any(axis=1) | comps.edge | (comps.color < 0) \
        | (comps.area < min_area)
    return np.flatnonzero(~explained)


class InkLedger:
    """Unexplained ink followed over the frames of one video.

    Parameters
    ----------
    min_frames : int
        Consecutive frames (a one-frame gap allowed) after which unexplained ink is an added
        object.
    gate : float
        Largest step (canvas px) between frames of one piece of ink.
    """

    def __init__(self, min_frames: int, gate: float):
        self.min_frames, self.gate = int(min_frames), float(gate)
        self.tracks = []        # dicts: x, y, first, last, frames, area, color, shape

    def see(self, t: int, items) -> None:
        """Record frame ``t``'s unexplained ink: ``items`` of (x, y, area, colour, shape)."""
        live = [tr for tr in self.tracks if tr["last"] >= t - 2]
        free = set(range(len(live)))
        for x, y, area, color, shape in items:
            near = [(np.hypot(x - live[j]["x"], y - live[j]["y"]), j) for j in free]
            near = [(d, j) for d, j in near if d <= self.gate]
            if near:
                _, j = min(near)
                free.discard(j)
                tr = live[j]
                tr.update(x=x, y=y, last=t, frames=tr["frames"] + 1)
            else:
                self.tracks.append({"x": x, "y": y, "first": t, "last": t, "frames": 1,
                                    "at": [int(round(x)), int(round(y))], "area": area,
                                    "color": int(color), "shape": int(shape)})

    def see_frame(self, t: int, comps, matched_idx, centres, half, min_area: float, sizes,
                  templates) -> None:
        """Record frame ``t``'s ink no task object explains: ``comps`` (``detect``'s
        components), ``matched_idx`` those matched to objects, zones of ``half`` size about
        ``centres`` (N, 2) where the objects are, ink under ``min_area`` px ignored; each piece
        is classified by shape against the ``templates`` of the object nearest it in size
        (``sizes``)."""
        matched = np.zeros(len(comps), bool)
        matched[matched_idx] = True
        if not (~matched & ~comps.edge & (comps.color >= 0) & (comps.area >= min_area)).any():
            self.see(t, [])          # the usual frame: nothing left to explain
            return
        zones = np.stack([centres[:, 0] - half, centres[:, 0] + half, centres[:, 1] - half,
                          centres[:, 1] + half], axis=1)
        ink = unexplained(comps, matched, zones, min_area)
        items = []
        if ink.size:
            nearest = np.abs(sizes[:, None] - np.sqrt(comps.area[ink])[None]).argmin(axis=0)
            shapes = classify_shapes(comps.features[ink], templates[nearest])
            shapes = shapes[np.arange(ink.size), np.arange(ink.size)]
            items = [(comps.cx[j], comps.cy[j], comps.area[j], comps.color[j], shapes[n])
                     for n, j in enumerate(ink.tolist())]
        self.see(t, items)

    def repeat(self, t: int) -> None:
        """Frame ``t`` repeats the previous one: the ink seen there is seen again."""
        for tr in self.tracks:
            if tr["last"] == t - 1:
                tr.update(last=t, frames=tr["frames"] + 1)

    def added(self, frames: int) -> list[dict]:
        """The pieces of ink that stayed for ``min_frames`` frames (all of a shorter video),
        first seen first: ``frame`` (first seen), ``at`` (canvas x, y there), ``frames``,
        ``in_final``, ``area``, ``color`` and ``shape`` codes."""
        need = min(self.min_frames, frames)
        return [{"frame": tr["first"], "at": tr["at"], "frames": tr["frames"],
                 "in_final": tr["last"] == frames - 1, "area": int(tr["area"]),
                 "color": tr["color"], "shape": tr["shape"]}
                for tr in self.tracks if tr["frames"] >= need]
