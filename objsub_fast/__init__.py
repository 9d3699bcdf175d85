"""objsub-fast: a vectorized batch engine for the Object Subtraction benchmark."""
from ._version import __version__  # noqa: F401

from .engine import Batch, generate_batch  # noqa: E402
from .dataset.vmevalkit import create_dataset  # noqa: E402

#: Scoring names, imported on first use so that generating never loads the video stack.
_SCORING = ("score_video", "render_transition", "write_transition")


def __getattr__(name):
    if name in _SCORING:
        from . import scoring
        return getattr(scoring, name)
    raise AttributeError(f"module 'objsub_fast' has no attribute {name!r}")


__all__ = ["Batch", "generate_batch", "create_dataset", "__version__", *_SCORING]
