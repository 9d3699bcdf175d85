"""Compile the package's Numba kernels into their on-disk cache before the tests start
(``conftest.py`` runs it, as two processes side by side, once per version of the sources).

On a fresh checkout the cache is empty: without this, each pytest-xdist worker, and each
subprocess a test starts before a worker has saved a kernel, would compile the same kernels
again (minutes of CPU). ``python tests/warm_kernels.py generate|video`` compiles one half
(``objsub_fast.warm_up.PARTS``, what ``objsub-fast warm-up`` runs) from this checkout.
"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from objsub_fast.warm_up import PARTS  # noqa: E402

if __name__ == "__main__":
    PARTS[sys.argv[1]]()
