"""What every ``objsub-fast`` command shares: its error line, and the worker and progress flags.

Every command reports a usage error as one line that starts with :data:`ERROR_PREFIX` and
takes ``--workers/-j`` and ``--quiet/--no-progress`` with the same meaning and help.

Examples
--------
>>> import argparse
>>> p = argparse.ArgumentParser()
>>> add_workers(p, "shards"); add_quiet(p)
>>> p.parse_args(["-j", "3", "--no-progress"])
Namespace(workers=3, quiet=True)
>>> error_line("--fps must be an integer in [1, 120], got 0")
'objsub-fast: error: --fps must be an integer in [1, 120], got 0'
>>> counted(1, "task"), counted(1000, "task")
('1 task', '1,000 tasks')
"""
from __future__ import annotations

import os

__all__ = ["PROG", "ERROR_PREFIX", "error_line", "counted", "add_workers", "add_quiet",
           "not_a_folder"]

PROG = "objsub-fast"
#: The start of every error line of every command.
ERROR_PREFIX = f"{PROG}: error: "


def error_line(message: str) -> str:
    """``message`` as the one line a command prints for an error."""
    return ERROR_PREFIX + message


def counted(n: int, word: str) -> str:
    """``n`` and ``word``, plural unless ``n`` is 1: the one wording of counts in every line a
    command prints."""
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def add_workers(parser, jobs: str, default: str = "all cores") -> None:
    """``--workers/-j N``: parallel worker processes, never more than there are ``jobs``."""
    parser.add_argument("--workers", "-j", type=int, default=None, metavar="N",
                        help=f"parallel worker processes, an integer >= 1 (default: {default}; "
                        f"never more than there are {jobs})")


def add_quiet(parser, dest: str = "quiet") -> None:
    """``--quiet`` and its alias ``--no-progress``: no progress output."""
    parser.add_argument("--quiet", "--no-progress", dest=dest, action="store_true",
                        help="no progress output (--no-progress: the same)")


def not_a_folder(path) -> str | None:
    """The first existing ancestor of ``path`` (a local path) that is not a folder, so that
    ``path`` can never be written (None when there is none); ``path`` itself is not checked.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "afile"; _ = f.write_text("x")
    >>> not_a_folder(f / "sub" / "s.jsonl") == str(f), not_a_folder(f.parent / "new" / "x")
    (True, None)
    """
    parent = os.path.dirname(os.path.abspath(os.fspath(path)))
    while True:
        if os.path.lexists(parent):
            return None if os.path.isdir(parent) else parent
        up = os.path.dirname(parent)
        if up == parent:
            return None
        parent = up
