"""Nothing outside the output folder: links inside a dataset are refused, never followed.

objsub-fast makes no symbolic links. One found where it writes or reads (the lock, the
progress folder and its records, a temp file, a format's folder, a shard, a task folder)
was planted there, and following it would write or read outside the dataset (a linked lock
file truncated, a linked ``questions/`` overwritten). ``links_in`` names every such link
(checking each path and every folder between it and the output folder) and ``refuse_links``
refuses a run in one line naming the first. Paths read from a dataset's own index must stay
inside it too: ``inside`` says whether a relative path does (no ``..``, not absolute).

Examples
--------
>>> import os, tempfile
>>> out = Path(tempfile.mkdtemp())
>>> (out / "data").mkdir(); os.symlink("/tmp", out / "questions")
>>> links_in(out, [out / "data", out / "questions" / "a.tar"])
['questions']
>>> inside("questions/a.tar"), inside("../etc/hostname"), inside("/etc/passwd")
(True, False, False)
"""
from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from .errors import OutputError

__all__ = ["NOFOLLOW", "inside", "links_in", "refuse_links", "link_message"]

#: Flags for ``os.open`` that refuse a symbolic link as the final component (ELOOP).
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def inside(rel) -> bool:
    """Whether ``rel``, a path read from a dataset's index, names something inside it: a
    non-empty relative path without ``..``.

    Examples
    --------
    >>> inside("a/b.png"), inside("a/../../b"), inside(""), inside(5)
    (True, False, False, False)
    """
    if not isinstance(rel, str) or not rel or "\0" in rel:
        return False
    path = PurePosixPath(rel)
    return not path.is_absolute() and ".." not in path.parts and not rel.startswith("\\")


def links_in(out, paths) -> list[str]:
    """The symbolic links among ``paths`` (inside ``out``) and the folders between each and
    ``out``, relative to ``out``, each named once, in order."""
    out = Path(out)
    seen, found = set(), []
    for path in paths:
        rel = Path(path).relative_to(out)
        current = out
        for part in rel.parts:
            current = current / part
            if current in seen:
                continue
            seen.add(current)
            if current.is_symlink():
                found.append(str(current.relative_to(out)))
                break
    return found


def link_message(out, rel: str) -> str:
    """The one line that refuses the link ``rel`` inside ``out``."""
    return (f"{str(Path(out) / rel)!r} is a symbolic link inside the dataset folder; "
            "objsub-fast never follows a link there (it could write or read outside the "
            "folder): remove the link")


def refuse_links(out, paths) -> None:
    """Raise OutputError naming the first symbolic link among ``paths`` (``links_in``)."""
    found = links_in(out, paths)
    if found:
        raise OutputError(link_message(out, found[0]))
