"""objsub-fast: a vectorized batch engine for the Object Subtraction benchmark."""
__version__ = "0.1.0"

from .engine import Batch, generate_batch  # noqa: E402
from .vmevalkit import create_dataset  # noqa: E402

__all__ = ["Batch", "generate_batch", "create_dataset", "__version__"]
