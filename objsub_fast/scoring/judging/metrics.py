"""The Object Subtraction metrics of a stream of canvas frames: track, then measure.

:class:`track.Tracker` reads the frames once into a :class:`track.Track`; each metric is then a
pure function of it (``invariants.INVARIANTS``; every threshold in ``thresholds.THRESHOLDS``).
"""
from __future__ import annotations

from .invariants import measure
from ..tracking.model import TaskModel
from .thresholds import METRICS, THRESHOLDS
from ..tracking.track import Track, Tracker
from ..reading.frames import FrameStream

__all__ = ["TaskModel", "Track", "Tracker", "score_frames", "THRESHOLDS", "METRICS"]


def score_frames(model: TaskModel, frames, single_image: bool = False,
                 tracker: Tracker | None = None) -> dict:
    """Track ``frames`` and return the metrics.

    Parameters
    ----------
    model : TaskModel
    frames : video.FrameStream or iterable of (H, W, 3) uint8 canvas frames
        A ``FrameStream``'s registration (known once frame 0 is read) decides which objects
        are visible; plain frames are read as a stream of the canvas's size.
    single_image : bool
        The frames are one final image: ``motion_continuity`` does not apply.
    tracker : Tracker, optional
        The tracker to read with (one that keeps frames for a report).

    Returns
    -------
    dict
        ``{"metrics": {metric: {..., "pass": bool or None}}, "frames": count, "pass": every
        applicable metric passes}``.

    Examples
    --------
    >>> from objsub_fast import generate_batch
    >>> from objsub_fast.scoring import render_transition
    >>> batch = generate_batch([1])
    >>> res = score_frames(TaskModel(batch.task(0)), render_transition(batch, "fade", 8)[0])
    >>> res["frames"], res["pass"]
    (8, True)
    """
    tracker = tracker or Tracker(model)
    stream = frames if isinstance(frames, FrameStream) else FrameStream(frames, model.canvas_size)
    metrics = measure(tracker.read(stream), single_image=single_image)
    verdicts = [v["pass"] for v in metrics.values() if v["pass"] is not None]
    return {"frames": len(tracker.present), "metrics": metrics, "pass": all(verdicts)}
