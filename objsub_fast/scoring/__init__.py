"""Deterministic, pixel-exact scoring of Object Subtraction videos produced by video models.

Reading order: ``video`` (decode and map frames to the canvas) -> ``detect`` (colour classes,
components, matching) -> ``metrics`` (tracking and the five metrics, thresholds) -> ``api``
(``score_video``) -> ``layout`` and ``command`` (folders of model outputs, the CLI).
``transitions`` renders ground-truth videos.
"""
from .api import score_video
from .metrics import METRICS, THRESHOLDS
from .transitions import render_transition, write_transition, write_video

__all__ = ["score_video", "render_transition", "write_transition", "write_video", "THRESHOLDS",
           "METRICS"]
