"""Moved: ground-truth transitions are rendered by :mod:`objsub_fast.ground_truth.transitions` and written by
:mod:`objsub_fast.ground_truth.video` (the generator's encode stage). These names stay importable from here."""
__all__ = ["STYLE_NAMES", "render_transition", "write_transition", "write_video", "letterbox",
           "task_frames", "task_arrays", "plan_slides", "whiten"]

from ..ground_truth.transitions import (STYLE_NAMES, _draw, check_style, plan_slides,
                                        render_transition, task_arrays, task_frames,
                                        transition_frames, whiten)
from ..ground_truth.video import CODEC_OPTIONS, letterbox, write_transition, write_video  # noqa: F401
