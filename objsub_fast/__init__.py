"""objsub-fast: a vectorized batch engine for the Object Subtraction benchmark."""
from ._version import __version__  # noqa: F401
from ._moved import install as _install_moved

_install_moved()  # module paths from before issue #31 import their new modules (_moved.py)

#: Names imported on first use (name -> module), so that generating never loads the scorer and
#: the command line starts without NumPy or Numba (a Ctrl-C then finds its handler in place).
_LAZY = {"Batch": "objsub_fast.engine", "generate_batch": "objsub_fast.engine",
         "create_dataset": "objsub_fast.dataset.run.create",
         "score_video": "objsub_fast.scoring",
         "render_transition": "objsub_fast.ground_truth.transitions",
         "write_transition": "objsub_fast.ground_truth.video",
         "iter_samples": "objsub_fast.dataset.run.stream"}


def __getattr__(name):
    if name in _LAZY:
        import importlib
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'objsub_fast' has no attribute {name!r}")


__all__ = ["__version__", *_LAZY]
