"""The one Numba decorator every kernel of the package uses.

``kernel`` is ``numba.njit`` with the on-disk cache switched on (compiled machine code is kept
beside the sources, so only the first run of a machine pays the compile time). Options add up:
``@kernel`` or ``@kernel(nogil=True, inline="always")``.

Examples
--------
>>> from objsub_fast._numba import kernel
>>> kernel.func.__name__, kernel.keywords
('njit', {'cache': True})
"""
from __future__ import annotations

from functools import partial

from numba import njit

__all__ = ["kernel"]

kernel = partial(njit, cache=True)
