"""Run infrastructure every part uses: errors, atomic files, the folder lock, the
crash point of the kill -9 tests, scheduler checks and the Numba helpers."""
