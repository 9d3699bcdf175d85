"""Files in a dataset folder that the dataset does not own (for ``verify``).

A path is the dataset's when the project writes it there (the manifest, the lock or lease,
the progress folder, temp names of a killed run, the Hugging Face card and index of the
layout) or when it matches one of the format's ``accounted(config)`` patterns: the paths the
format's own checks account for (a shard or task folder that is not part of the dataset is
already a problem of its own). Every other file is a stray: ``verify`` lists it as a warning,
or as a problem with ``--strict``. A ``README.md`` the user wrote is the project's card name:
it is not a stray (``verify`` notes that it left it unchecked).

Patterns are paths relative to the dataset folder in which ``*`` stands for any part of one
name (never a ``/``).

Examples
--------
>>> from objsub_fast.dataset.run.run_config import RunConfig
>>> stray_files(["manifest.json", "objsub-000000.tar", "notes/extra.txt", "README.md"],
...             RunConfig(count=4))
['notes/extra.txt']
"""
from __future__ import annotations

import os
import re
from pathlib import Path

from ...runtime.atomic import TMP_PREFIX
from ...runtime.lock import LOCK_FILE
from ...storage.lease import LEASE
from ..run.card import hugging_face_names
from ..formats import get_format
from ..content.manifest import MANIFEST, PROGRESS_DIR

__all__ = ["PROJECT_FILES", "stray_files", "stray_lines", "files_in"]

#: What the project writes into every dataset folder, whatever the format.
PROJECT_FILES = (MANIFEST, LOCK_FILE, LEASE, f"{PROGRESS_DIR}/*")
#: Strays listed one per line; the rest are counted on one more line.
SHOWN = 20


def _matcher(patterns) -> re.Pattern:
    """One regular expression for ``patterns`` (``*``: any part of one name)."""
    return re.compile("|".join(re.escape(p).replace(r"\*", "[^/]*") for p in patterns))


def stray_files(paths, config) -> list[str]:
    """The ``paths`` (relative, ``/``-separated) that a dataset of ``config`` does not own,
    sorted.

    Examples
    --------
    >>> from objsub_fast.dataset.run.run_config import RunConfig
    >>> stray_files(["questions/stray.tar", "data/extra.jsonl", "data/metadata.jsonl",
    ...              ".objsub-progress/000001.json"], RunConfig(count=4, format="vbvr"))
    ['data/extra.jsonl', 'questions/stray.tar']
    """
    owned = _matcher((*PROJECT_FILES, *hugging_face_names(config),
                      *get_format(config.format).accounted(config)))
    return sorted(p for p in paths if not owned.fullmatch(p)
                  and not any(part.startswith(TMP_PREFIX) for part in p.split("/")))


def stray_lines(strays: list[str]) -> list[str]:
    """One line per stray file, at most ``SHOWN``, then how many more.

    Examples
    --------
    >>> stray_lines(["extra.txt"])
    ['extra.txt: not part of the dataset (objsub-fast did not write it)']
    >>> stray_lines([f"x{k}" for k in range(25)])[-1]
    '5 more files not part of the dataset'
    """
    lines = [f"{p}: not part of the dataset (objsub-fast did not write it)"
             for p in strays[:SHOWN]]
    more = len(strays) - len(lines)
    return lines + ([f"{more} more files not part of the dataset"] if more else [])


def files_in(folder: Path) -> list[str]:
    """Every file under ``folder`` (relative, ``/``-separated), links included and never
    followed.

    Examples
    --------
    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> (root / "a").mkdir(); (root / "a" / "b.txt").write_text("x") and None
    >>> files_in(root)
    ['a/b.txt']
    """
    found = []
    for top, dirs, files in os.walk(folder):
        rel = Path(top).relative_to(folder).as_posix()
        prefix = "" if rel == "." else rel + "/"
        found += [prefix + name for name in files]
        found += [prefix + name for name in dirs if os.path.islink(os.path.join(top, name))]
    return sorted(found)
