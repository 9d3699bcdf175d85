"""The two Numba decorators every kernel of the package uses.

``kernel`` is ``numba.njit`` with the on-disk cache switched on (compiled machine code is kept
beside the sources, so only the first run of a machine pays the compile time). Options add up:
``@kernel`` or ``@kernel(nogil=True, inline="always")``.

``noalloc_kernel`` is ``kernel`` compiled without Numba's runtime (NRT), for kernels that
allocate nothing (no ``np.zeros``, no ``.copy()``, no slice assignment that may overlap).
With the runtime, each array a kernel receives or slices is reference-counted by calls at its
entry and exits, which Numba removes only from kernels with one exit and no callee that may
raise; in the video encoder's per-macroblock kernels those calls cost about a tenth of the
time. Without it there are none: arrays are borrowed from the caller, which keeps them alive.
A kernel that does allocate fails to compile ("NRT required but not enabled"), so the choice
cannot go silently wrong. ``kernel`` asks for the runtime explicitly, since Numba otherwise
compiles a callee with its caller's setting.

A cached kernel holds the machine code of every kernel it calls, also those of other modules,
but Numba checks only the caller's own source file before reusing it: after an update that
changed only a callee (a ``git pull`` in an editable install), the caller would run the old
callee and write other bytes than a fresh machine. So the package's kernels are cached under
a stamp of the whole package's sources (:class:`PackageCacheLocator`): any change of any
module compiles every kernel again.

Examples
--------
>>> from objsub_fast.runtime._numba import kernel, noalloc_kernel
>>> kernel.func.__name__, kernel.keywords
('njit', {'cache': True, '_nrt': True})
>>> noalloc_kernel.keywords
{'cache': True, '_nrt': False}
>>> len(package_stamp())
64
"""
from __future__ import annotations

import hashlib
import os
from functools import lru_cache, partial
from pathlib import Path

from numba import njit

__all__ = ["kernel", "noalloc_kernel", "package_stamp"]

#: The package's root folder (``objsub_fast/``), wherever this module sits in it.
PACKAGE = Path(__file__).resolve().parents[__name__.count(".") - 1]


@lru_cache(maxsize=1)
def package_stamp() -> str:
    """SHA-256 (hex) of every Python source of the package, path and contents."""
    digest = hashlib.sha256()
    for path in sorted(PACKAGE.rglob("*.py")):
        digest.update(str(path.relative_to(PACKAGE)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _install_locator():
    """Put :class:`PackageCacheLocator` first among Numba's cache locators (it answers only
    for this package's files); without Numba's caching internals, keep its own."""
    try:
        from numba.core.caching import CacheImpl, InTreeCacheLocator
    except ImportError:  # pragma: no cover - another Numba
        return None

    class PackageCacheLocator(InTreeCacheLocator):
        """Numba's in-tree cache for this package's kernels, stamped with
        :func:`package_stamp` instead of the one source file's time and size."""

        def get_source_stamp(self):
            return package_stamp()

        @classmethod
        def from_function(cls, py_func, py_file):
            if not Path(os.path.abspath(py_file)).is_relative_to(PACKAGE):
                return None
            return super().from_function(py_func, py_file)

    if not any(c.__name__ == PackageCacheLocator.__name__ for c in CacheImpl._locator_classes):
        CacheImpl._locator_classes.insert(0, PackageCacheLocator)
    return PackageCacheLocator


PackageCacheLocator = _install_locator()
kernel = partial(njit, cache=True, _nrt=True)
noalloc_kernel = partial(njit, cache=True, _nrt=False)
