"""A deterministic crash for tests of kill -9 and resume.

With ``OBJSUB_FAST_CRASH_AFTER=k`` in the environment, the process kills itself with SIGKILL
right after its k-th rename into place (a shard file, a chunk of task folders, a progress
record or the manifest), the moment a real ``kill -9`` is most likely to hurt. Unset, ``renamed``
costs one dictionary lookup.
"""
from __future__ import annotations

import os
import signal

__all__ = ["ENV", "renamed"]

ENV = "OBJSUB_FAST_CRASH_AFTER"
_renames = 0


def renamed() -> None:
    """Count one rename into place; SIGKILL this process at the k-th (see the module doc)."""
    global _renames
    limit = os.environ.get(ENV)
    if limit is None:
        return
    _renames += 1
    if _renames == int(limit):
        os.kill(os.getpid(), signal.SIGKILL)
