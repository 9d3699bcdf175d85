"""Moved: ground-truth transitions are rendered by :mod:`objsub_fast.transitions` and written by
:mod:`objsub_fast.video` (the generator's encode stage). These names stay importable from here."""
__all__ = ["STYLE_NAMES", "render_transition", "write_transition", "write_video", "letterbox",
           "task_frames", "task_arrays", "plan_slides", "whiten"]

from ..transitions import (STYLE_NAMES, _draw, check_style, plan_slides,  # noqa: F401
                           render_transition, task_arrays, task_frames, transition_frames,
                           whiten)
from ..video import CODEC_OPTIONS, letterbox, write_transition, write_video  # noqa: F401
