"""Crash-safe file output: write to a hidden temp name, fsync, then rename into place.

A file or folder only ever appears under its final name complete. Temp names start with
``.tmp-`` so a rerun can find and remove what a killed run left behind.
"""
from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

from .dataset import crashpoint

__all__ = ["TMP_PREFIX", "tmp_name", "tmp_path", "fsync_dir", "remove_path", "remove_stale_tmp",
           "AtomicWriter", "atomic_write_bytes"]

TMP_PREFIX = ".tmp-"


def tmp_name(name: str) -> str:
    """Return the temp file name used while ``name`` is being written by this process."""
    return f"{TMP_PREFIX}{name}.{os.getpid()}"


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


def remove_stale_tmp(folder: Path) -> int:
    """Remove every leftover temp file/folder directly inside ``folder``; return how many."""
    folder = Path(folder)
    if not folder.is_dir():
        return 0
    stale = [p for p in folder.iterdir() if p.name.startswith(TMP_PREFIX)]
    for p in stale:
        remove_path(p)
    return len(stale)


class AtomicWriter:
    """Binary file written under a temp name and renamed to ``final`` on success.

    Use as a context manager; ``write`` also feeds a running SHA-256 (``hexdigest``). If the
    block raises, the temp file is removed and nothing appears under ``final``.
    """

    def __init__(self, final: Path):
        self.final = Path(final)
        self.tmp = tmp_path(self.final)
        self.sha = hashlib.sha256()
        self.size = 0
        self._file = None

    def __enter__(self) -> "AtomicWriter":
        self._file = open(self.tmp, "wb")
        return self

    def write(self, data) -> None:
        """Append ``data`` to the file and the hash."""
        self._file.write(data)
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
        except BaseException:
            self._file.close()
            self.tmp.unlink(missing_ok=True)
            raise
        if exc_type is not None:
            self.tmp.unlink(missing_ok=True)
            return
        os.replace(self.tmp, self.final)
        fsync_dir(self.final.parent)
        crashpoint.renamed()


def atomic_write_bytes(final: Path, data: bytes) -> None:
    """Write ``data`` to ``final`` atomically (temp file, fsync, rename)."""
    with AtomicWriter(final) as f:
        f.write(data)
