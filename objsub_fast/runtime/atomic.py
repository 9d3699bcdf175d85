"""Crash-safe file output: write to a hidden temp name, fsync, then rename into place.

A file or folder only ever appears under its final name complete. While ``name`` is being
written it is called ``.tmp-objsub-<name>.<host>.<pid>`` (``tmp_name``, the one rule): a rerun
recognises what a killed writer of this project left behind, and never touches anything else
(a user's ``.tmp-build/`` included). ``remove_stale_tmp`` removes such a leftover when its
writer is known to be gone: a pid of this host that is no longer alive, or any of them while
the caller holds the folder's lock (``objsub_fast.runtime.lock``), since then no other run writes there.
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import socket
from pathlib import Path

from . import crashpoint
from .links import NOFOLLOW

__all__ = ["TMP_PREFIX", "tmp_name", "tmp_path", "tmp_writer", "final_path", "fsync_dir",
           "remove_path", "remove_stale_tmp", "AtomicWriter", "atomic_write_bytes"]

TMP_PREFIX = ".tmp-objsub-"
_TMP_NAME = re.compile(r"\.tmp-objsub-(?P<name>.+)\.(?P<host>[A-Za-z0-9_-]+)\.(?P<pid>\d+)",
                       re.S)


def _host() -> str:
    """This host's name with every character outside [A-Za-z0-9_-] as ``_`` (no dots)."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", socket.gethostname()) or "host"


def tmp_name(name: str) -> str:
    """Return the temp name used while ``name`` is being written by this process.

    Examples
    --------
    >>> tmp_name("a.tar").startswith(".tmp-objsub-a.tar.")
    True
    >>> tmp_writer(tmp_name("a.tar"))[1] == os.getpid()
    True
    """
    return f"{TMP_PREFIX}{name}.{_host()}.{os.getpid()}"


def tmp_writer(name: str) -> tuple[str, int] | None:
    """(host, pid) of the writer of a temp name made by ``tmp_name``; None for any other name.

    Examples
    --------
    >>> tmp_writer(".tmp-build") is None, tmp_writer(".tmp-objsub-x.tar.node-1.42")
    (True, ('node-1', 42))
    """
    match = _TMP_NAME.fullmatch(name)
    return (match["host"], int(match["pid"])) if match else None


def final_path(path: str) -> str:
    """``path`` with a temp name of ``tmp_name`` replaced by the final name it stands for (what
    an error message should show the user).

    Examples
    --------
    >>> final_path("/data/" + tmp_name("sheet.png"))
    '/data/sheet.png'
    >>> final_path("/data/.tmp-build")
    '/data/.tmp-build'
    """
    head, _, name = str(path).rpartition("/")
    match = _TMP_NAME.fullmatch(name)
    return f"{head}/{match['name']}" if match else str(path)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: alive, another user's
        return True
    return True


def tmp_path(final: Path) -> Path:
    """Return the temp name used while ``final`` is being written (same directory)."""
    final = Path(final)
    return final.with_name(tmp_name(final.name))


def fsync_dir(path: Path) -> None:
    """Flush a directory entry (a rename or create inside it) to disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def remove_path(path: Path) -> None:
    """Remove a file or a folder tree if it exists."""
    path = Path(path)
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()


def remove_stale_tmp(folder: Path, locked: bool) -> int:
    """Remove the leftover temp files/folders of dead writers directly inside ``folder``.

    Only names made by ``tmp_name`` are candidates: with ``locked`` (the caller holds the
    folder's lock, so no other run writes there) all of them, otherwise those whose pid is not
    alive on this host. Returns how many were removed.
    """
    folder = Path(folder)
    if not folder.is_dir():
        return 0
    host = _host()
    stale = [p for p in folder.iterdir()
             if (writer := tmp_writer(p.name)) is not None
             and (locked or (writer[0] == host and not _alive(writer[1])))]
    for p in stale:
        remove_path(p)
    return len(stale)


def _naming(error: OSError, path: Path) -> OSError:
    """``error`` with ``path`` as its file name when it names none (a write or an fsync on a
    full disk), so that its message says which file could not be written."""
    if error.filename is None:
        error.filename = str(path)
    return error


class AtomicWriter:
    """Binary file written under a temp name and renamed to ``final`` on success.

    Use as a context manager; ``write`` also feeds a running SHA-256 (``hexdigest``). If the
    block raises, the temp file is removed and nothing appears under ``final``. The data is
    flushed to disk before the rename, so a name never points at incomplete data. The rename
    itself is flushed (the folder's entry) too, unless ``sync_rename`` is False: then the
    caller flushes the folder later, once for many files (``fsync_dir``), and a crash before
    that may lose the rename, never the data.
    """

    def __init__(self, final: Path, sync_rename: bool = True):
        self.final = Path(final)
        self.sync_rename = sync_rename
        self.tmp = tmp_path(self.final)
        self.sha = hashlib.sha256()
        self.size = 0
        self._file = None

    def __enter__(self) -> "AtomicWriter":
        # never through a link planted under the temp name (runtime.links)
        fd = os.open(self.tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | NOFOLLOW
                     | getattr(os, "O_CLOEXEC", 0), 0o644)
        self._file = os.fdopen(fd, "wb")
        return self

    def write(self, data) -> None:
        """Append ``data`` to the file and the hash."""
        try:
            self._file.write(data)
        except OSError as e:  # a full disk: the error names the file
            raise _naming(e, self.final)
        self.sha.update(data)
        self.size += len(data)

    def hexdigest(self) -> str:
        """SHA-256 of everything written so far."""
        return self.sha.hexdigest()

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            if exc_type is None:
                self._file.flush()
                os.fsync(self._file.fileno())
            self._file.close()
        except BaseException as e:
            try:
                self._file.close()
            except OSError:
                pass  # the buffered rest cannot be written either: the first error says it
            self.tmp.unlink(missing_ok=True)
            raise _naming(e, self.final) if isinstance(e, OSError) else e
        if exc_type is not None:
            self.tmp.unlink(missing_ok=True)
            return
        os.replace(self.tmp, self.final)
        if self.sync_rename:
            fsync_dir(self.final.parent)
        crashpoint.renamed()


def atomic_write_bytes(final: Path, data: bytes, sync_rename: bool = True) -> None:
    """Write ``data`` to ``final`` atomically (temp file, fsync, rename; ``AtomicWriter``)."""
    with AtomicWriter(final, sync_rename) as f:
        f.write(data)
