"""Deterministic, pixel-exact scoring of Object Subtraction videos produced by video models.

Reading order: ``video`` (decode frames) -> ``register`` (where the canvas lies in the frames,
from the task's first frame) -> ``detect`` (colour classes, components, matching) -> ``camera``
(zoom and pan per frame) -> ``track`` (one pass over the frames fills a ``Track``) ->
``invariants`` (the table of metrics, each a pure function of the track: ``final_match``,
``stability`` with ``colour_change``, ``continuity``, ``removal``; ``thresholds`` holds every
threshold) -> ``metrics`` (``score_frames``: track, then measure) -> ``continuous`` (the score in [0, 1]) -> ``api`` (``score_video``) -> ``layout``,
``vbvr``, ``report`` and ``command`` (folders of model outputs, VBVR-Bench results, the HTML
report, the CLI). ``question`` validates task records. ``render_transition``,
``write_transition`` and ``write_video`` (ground-truth videos and videos written like a
model's output, from ``ground_truth``) are here for convenience; the known-answer videos the
scorer is tested on are in ``objsub_fast.testing``.
"""
from ..ground_truth.transitions import render_transition
from ..ground_truth.video import write_transition, write_video
from .api import score_video
from .thresholds import METRICS, THRESHOLDS

__all__ = ["score_video", "render_transition", "write_transition", "write_video", "THRESHOLDS",
           "METRICS"]
