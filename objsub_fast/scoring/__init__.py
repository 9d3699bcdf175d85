"""Deterministic, pixel-exact scoring of Object Subtraction videos produced by video models.

The stages, in the order data flows (each a sub-package): ``reading`` (the output as a
player shows it, registered on the task's canvas: ``frames``, ``register``) -> ``tracking`` (one
pass over the frames: ``detect``, ``camera``, ``track``) -> ``judging`` (the expected video and
its ``residual``, the ``invariants`` table, ``thresholds``, ``metrics``: track, then measure)
-> ``reporting`` (``report``, ``leaderboard``, ``summary``). ``api`` (``score_video``) and
``command`` (the CLI) sit on top. ``render_transition``, ``write_transition`` and
``write_video`` (ground-truth videos and videos written like a model's output, from
``ground_truth``) are here for convenience; the known-answer videos the scorer is tested on
are in ``objsub_fast.testing``. Old module paths (``objsub_fast.scoring.residual``...) still
import, with a deprecation warning.
"""
from ..ground_truth.transitions import render_transition
from ..ground_truth.video import write_transition, write_video
from .api import score_video
from .judging.thresholds import METRICS, THRESHOLDS

__all__ = ["score_video", "render_transition", "write_transition", "write_video", "THRESHOLDS",
           "METRICS"]
