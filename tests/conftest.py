"""Settings of the whole suite.

The suite runs on all cores (pytest-xdist, ``-n auto --dist loadfile`` in ``pyproject.toml``):
each test file runs whole on one worker process, so a file's module-scoped fixtures are built
once. Every process of a run (the workers and the subprocesses tests start, whatever their
working folder) imports this checkout's package: its folder goes first on ``PYTHONPATH``.
"""
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _this_checkout_first() -> None:
    """Put this checkout first on ``sys.path`` and on ``PYTHONPATH`` (once)."""
    entries = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if not entries or entries[0] != str(ROOT):
        os.environ["PYTHONPATH"] = os.pathsep.join(
            [str(ROOT), *(p for p in entries if p != str(ROOT))])
    if sys.path[:1] != [str(ROOT)]:
        sys.path.insert(0, str(ROOT))


_this_checkout_first()


def pytest_xdist_auto_num_workers(config):
    """``-n auto``: one worker per CPU this process may run on (hyper-threads count: the tests
    wait on subprocesses and files much of the time), at most 8 (beyond that the largest test
    files, each whole on one worker, set the time)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, 8))
