"""Deterministic, pixel-exact scoring of Object Subtraction videos produced by video models.

Reading order: ``video`` (decode frames) -> ``register`` (where the canvas lies in the frames,
from the task's first frame) -> ``detect`` (colour classes, components, matching) -> ``camera``
(zoom and pan per frame) -> ``metrics`` (tracking and the metrics; ``thresholds`` holds every
threshold) -> ``continuous`` (the score in [0, 1]) -> ``api`` (``score_video``) -> ``layout``,
``vbvr``, ``report`` and ``command`` (folders of model outputs, VBVR-Bench results, the HTML
report, the CLI). ``question`` validates task records; ``transitions`` renders ground-truth
videos and ``controls`` the known-answer videos.
"""
from .api import score_video
from .thresholds import METRICS, THRESHOLDS
from .transitions import render_transition, write_transition, write_video

__all__ = ["score_video", "render_transition", "write_transition", "write_video", "THRESHOLDS",
           "METRICS"]
