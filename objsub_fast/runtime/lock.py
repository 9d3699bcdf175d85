"""An exclusive lock on an output folder, so that two runs never write into it at once.

The lock is a kernel lock (``fcntl.flock``) on the file ``.objsub-lock`` inside the folder. The
kernel drops it when the holding process ends, however it ends (``kill -9`` included), so a lock
is never stale: the file left behind by a dead run is simply taken over by the next one. On NFS
the Linux client turns ``flock`` into a POSIX lock held by the server's lock manager, which also
releases it when the client goes away. The file's text names the holder (pid, host, start time)
so that a refused run can say which run holds the folder; that text is information, never the
lock itself.

A run removes the file when it releases the lock (still holding it), so a finished dataset, and
the folders handed to other tools, hold only the dataset. A run that opened the file just before
it was removed finds, once it holds the lock, that the folder's ``.objsub-lock`` is no longer the
file it locked, and starts again on the new one: two runs never hold the folder at once.

Examples
--------
>>> import tempfile
>>> from objsub_fast.runtime.lock import FolderLock, FolderLocked
>>> folder = tempfile.mkdtemp()
>>> with FolderLock(folder):
...     try:
...         FolderLock(folder).acquire()
...     except FolderLocked as e:
...         print("refused")
refused
"""
from __future__ import annotations

import errno
import fcntl
import json
import os
import socket
import time
from pathlib import Path

from .errors import OutputError, UsageError
from .links import NOFOLLOW, link_message

__all__ = ["LOCK_FILE", "FolderLock", "FolderLocked"]

LOCK_FILE = ".objsub-lock"


class FolderLocked(UsageError):
    """Another live run holds the output folder."""


def _holder_text() -> bytes:
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return (json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                        "started": started}) + "\n").encode()


def _describe(text: bytes) -> str:
    try:
        who = json.loads(text)
        return f"pid {who['pid']} on host {who['host']}, started {who['started']}"
    except (ValueError, KeyError, TypeError):
        return "a run whose lock file could not be read"


class FolderLock:
    """Exclusive lock on ``folder`` (which must exist) for the lifetime of a run.

    ``acquire`` never waits: when another live process holds the folder it raises
    :class:`FolderLocked` naming that process. Use as a context manager, or call ``acquire``
    and ``release``.
    """

    def __init__(self, folder):
        self.path = Path(folder) / LOCK_FILE
        self._fd = -1

    def acquire(self) -> "FolderLock":
        """Take the lock or raise :class:`FolderLocked`."""
        while True:
            fd = self._lock_file()
            if self._still_the_folders(fd):
                break
            os.close(fd)  # removed by the run that held it: lock the folder's file afresh
        text = _holder_text()
        os.ftruncate(fd, 0)
        os.pwrite(fd, text, 0)
        self._fd = fd
        return self

    def _lock_file(self) -> int:
        """Open (or create) the lock file and lock it; raise FolderLocked when held."""
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | NOFOLLOW
                         | getattr(os, "O_CLOEXEC", 0), 0o644)
        except OSError as e:
            if e.errno != errno.ELOOP:
                raise
            raise OutputError(link_message(self.path.parent, LOCK_FILE)) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 4096, 0)
            os.close(fd)
            raise FolderLocked(
                f"output folder {str(self.path.parent)!r} is in use by another objsub-fast run "
                f"({_describe(holder)}); wait for it to finish or choose another --out") from None
        except BaseException:
            os.close(fd)
            raise
        return fd

    def _still_the_folders(self, fd: int) -> bool:
        """Whether the locked file ``fd`` is still the folder's ``.objsub-lock``."""
        try:
            on_disk = os.stat(self.path)
        except FileNotFoundError:
            return False
        mine = os.fstat(fd)
        return (mine.st_dev, mine.st_ino) == (on_disk.st_dev, on_disk.st_ino)

    def release(self) -> None:
        """Remove the lock file and drop the lock (removed while held, so no run can have
        taken it in between; see the module's notes)."""
        if self._fd >= 0:
            if self._still_the_folders(self._fd):
                os.unlink(self.path)
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> "FolderLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()
