"""objsub-fast: a vectorized batch engine for the Object Subtraction benchmark."""
from ._version import __version__  # noqa: F401
from ._moved import install as _install_moved

_install_moved()  # module paths from before issue #31 import their new modules (_moved.py)

from .dataset.create import create_dataset  # noqa: E402
from .engine import Batch, generate_batch  # noqa: E402

#: Names imported on first use (name -> module), so that generating never loads the scorer.
_LAZY = {"score_video": "objsub_fast.scoring",
         "render_transition": "objsub_fast.ground_truth.transitions",
         "write_transition": "objsub_fast.ground_truth.video",
         "iter_samples": "objsub_fast.dataset.stream"}


def __getattr__(name):
    if name in _LAZY:
        import importlib
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'objsub_fast' has no attribute {name!r}")


__all__ = ["Batch", "generate_batch", "create_dataset", "__version__", *_LAZY]
