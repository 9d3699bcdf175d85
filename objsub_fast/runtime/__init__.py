"""Run infrastructure every part uses: errors, atomic files, the folder lock, the
crash point of the kill -9 tests, scheduler checks, the worker count and backends of a run
(``parallel``), its progress bar (``progress``) and the Numba helpers."""
