"""Folder-per-task containers: every task a folder of member files, renamed into place whole.

Shared by the folder formats (VMEvalKit today). A format describes its folders with a
``FolderLayout``: the folder holding the task folders (relative to the output), the name of a
task's folder, the file name of each member, and the shard's name in the manifest. The shard's
hash covers every folder's files (``folder_digest``), so the manifest pins a folder shard like a
tar shard.

``verify`` reads task folders from anyone as data (``read_plain``): a task folder or file that
is a symbolic link, a FIFO, a device or a folder, or a file larger than a sample member can be
(``webdataset.member_size_cap``), is a problem line naming it, never followed nor read.
"""
from __future__ import annotations

import errno
import functools
import hashlib
import os
import re
import stat
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from dataclasses import dataclass
from typing import Callable

from ...runtime import crashpoint
from ...runtime.atomic import remove_path, tmp_name
from ...runtime.links import NOFOLLOW, refuse_links
from ..content.manifest import shard_entry
from .webdataset import member_size_cap

__all__ = ["FolderLayout", "write_file", "folder_digest", "folder_files", "folder_blocks",
           "NumberedFolders", "trailing_number", "folders_present", "FolderShardWriter",
           "FolderShardReader", "read_plain"]

#: What ``read_plain`` calls a file that is not a regular one, by ``stat.S_IFMT``.
_KINDS = {stat.S_IFLNK: "a symbolic link", stat.S_IFIFO: "a FIFO", stat.S_IFDIR: "a folder",
          stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device",
          stat.S_IFSOCK: "a socket"}


def read_plain(path, cap: int) -> bytes:
    """The bytes of the regular file ``path``, of at most ``cap`` bytes; ValueError saying
    why not otherwise (a link is not followed, a FIFO or device not opened for reading).

    Examples
    --------
    >>> import os, tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "prompt.txt").write_bytes(b"remove the red circle")
    >>> os.symlink("/etc/hostname", folder / "first_frame.png"); os.mkfifo(folder / "fifo")
    >>> read_plain(folder / "prompt.txt", 1 << 20)
    b'remove the red circle'
    >>> for name in ("first_frame.png", "fifo", "prompt.txt"):
    ...     try:
    ...         read_plain(folder / name, 8)
    ...     except ValueError as e:
    ...         print(e)
    is a symbolic link: never followed
    is a FIFO: not read
    holds 21 bytes, more than a sample member of this run can hold (8): not read
    """
    try:
        mode = os.lstat(path).st_mode
        if stat.S_ISLNK(mode):
            raise ValueError("is a symbolic link: never followed")
        if not stat.S_ISREG(mode):
            raise ValueError(f"is {_KINDS.get(stat.S_IFMT(mode), 'not a regular file')}: "
                             "not read")
        fd = os.open(path, os.O_RDONLY | NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        raise ValueError(f"cannot be read ({e.strerror})") from None
    with open(fd, "rb") as f:  # what was opened: a file swapped in since lstat is refused
        found = os.fstat(f.fileno())
        if not stat.S_ISREG(found.st_mode):
            raise ValueError(f"is {_KINDS.get(stat.S_IFMT(found.st_mode), 'not a regular file')}"
                             ": not read")
        data = f.read(cap + 1)
    if len(data) > cap:
        raise ValueError(f"holds {max(found.st_size, len(data)):,} bytes, more than a sample "
                         f"member of this run can hold ({cap:,}): not read")
    return data


@dataclass(frozen=True)
class FolderLayout:
    """Where a folder format puts things.

    Attributes
    ----------
    root : str
        Folder of the task folders, relative to the output folder.
    folder_name : callable
        Encoded sample (``members.encode_samples``) -> its folder's name inside ``root``.
    file_names : dict
        Member suffix -> file name inside a task folder.
    shard_name : callable
        Shard number -> the shard's name in the manifest.
    """

    root: str
    folder_name: Callable
    file_names: dict
    shard_name: Callable

#: Flags that create a new file for writing (never reuse an existing one).
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)


def write_file(dir_fd: int, name: str, data: bytes) -> None:
    """Create ``name`` (relative to the open folder ``dir_fd``) holding ``data``.

    Three system calls (open, write, close): ``open()`` would add fstat, ioctl and lseek,
    which cost as much as the create itself on a virtual disk. Not flushed; the writer syncs
    a chunk's folders before renaming them.
    """
    fd = os.open(name, _CREATE, 0o644, dir_fd=dir_fd)
    try:
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            if written == 0:
                raise OSError(errno.ENOSPC, f"no progress writing {name}")
            view = view[written:]
    finally:
        os.close(fd)


def folder_digest(sha, folder: str, files: list[tuple[str, bytes]]) -> None:
    """Feed one task folder (file name, bytes; sorted by name) into a shard hash."""
    for name, data in files:
        sha.update(b"%s/%s\0%d\0" % (folder.encode(), name.encode(), len(data)))
        sha.update(data)


def folder_files(layout: FolderLayout, sample: dict) -> list[tuple[str, bytes]]:
    """(file name, bytes) of one task folder, sorted by file name."""
    return sorted((name, sample[s]) for s, name in layout.file_names.items() if s in sample)


def folder_blocks(layout: FolderLayout, samples: list[dict], block: int) -> int:
    """Disk bytes the task folders of ``samples`` take: every file and every folder rounded up
    to whole blocks of ``block`` bytes (a folder takes at least one)."""
    return sum(block + sum(-(-len(data) // block) * block for _, data in folder_files(layout, s))
               for s in samples)


@dataclass(frozen=True)
class NumberedFolders:
    """Task index of a folder named by ``pattern`` with the index as its last group.

    Examples
    --------
    >>> index_of = NumberedFolders(re.compile("([0-9]{5,})"))
    >>> index_of("00042"), index_of("notes")
    (42, None)
    """

    pattern: re.Pattern

    def __call__(self, name: str) -> int | None:
        match = self.pattern.fullmatch(name)
        return int(match[match.lastindex]) if match else None


def trailing_number(name: str) -> int | None:
    """The number a folder name ends with, after its last ``_`` (None if it ends otherwise).

    Examples
    --------
    >>> [trailing_number(n) for n in ("object_subtraction_00000012", "00042", "notes")]
    [12, 42, None]
    """
    digits = name.rpartition("_")[2]
    return int(digits) if digits.isdigit() else None


def folders_present(root: Path, index_of: Callable, start: int, stop: int) -> bool:
    """Whether ``root`` holds the task folder of every task in [start, stop): ``index_of``
    (hashable) maps a folder name to its task index, or None for another name
    (``NumberedFolders``). A deleted folder makes its shard "not done", so a rerun writes it
    again. The listing is read once per change of the folder (its mtime), not once per shard."""
    try:
        present = _indices(str(root), index_of, os.stat(root).st_mtime_ns)
    except OSError:
        return False
    return all(i in present for i in range(start, stop))


@functools.lru_cache(maxsize=4)
def _indices(root: str, index_of: Callable, mtime_ns: int) -> frozenset:
    """The task indices of the folders in ``root`` (as of ``mtime_ns``)."""
    found = set()
    with os.scandir(root) as entries:
        for entry in entries:
            index = index_of(entry.name)
            if index is not None and entry.is_dir(follow_symlinks=False):
                found.add(index)
    return frozenset(found)


class FolderShardWriter:
    """Writes one shard's tasks as folders, each renamed into place when complete.

    A chunk's folders are written under temp names, flushed with one ``os.sync()`` (a per-file
    fsync costs ~0.4 ms here) and then renamed. The shard hash covers every folder's files.

    The file-system work of chunk k runs on one I/O thread while the caller encodes chunk
    k + 1 (the system calls and the PNG encoder release the GIL). At most one chunk is in
    flight, so memory stays bounded. Paths are resolved relative to an open descriptor of the
    task root, so a task costs the minimum of system calls: mkdir, one (open, write, close)
    per file, rename.
    """

    def __init__(self, layout: FolderLayout, out: Path, shard):
        self.layout, self.out, self.shard = layout, Path(out), shard
        self.root = self.out / layout.root
        self.root.mkdir(parents=True, exist_ok=True)
        refuse_links(self.out, [self.root])
        self.sha = hashlib.sha256()
        self.count = self.size = 0
        self._pending: list[str] = []
        self._root_fd = -1
        self._io = None
        self._in_flight = None

    def __enter__(self):
        self._root_fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY)
        self._io = ThreadPoolExecutor(max_workers=1, thread_name_prefix="objsub-folders")
        return self

    def write_samples(self, samples: list[dict]) -> None:
        """Hand a chunk of encoded samples (``members.encode_samples``) to the I/O thread."""
        folders = []
        for sample in samples:
            name, files = self.layout.folder_name(sample), folder_files(self.layout, sample)
            folder_digest(self.sha, name, files)
            self.size += sum(len(d) for _, d in files)
            folders.append((name, files))
        self._wait()
        self._in_flight = self._io.submit(self._write_folders, folders)
        self.count += len(samples)

    def _write_folders(self, folders: list[tuple[str, list]]) -> None:
        """Write folders under temp names, flush them, rename them into place (I/O thread).

        A folder already under its final name was completed by an interrupted earlier run with
        the same bytes; the rename then fails with ENOTEMPTY and the new copy is dropped. (No
        existence check per task: it would cost a lookup on every task of every fresh run.)
        """
        moves, root_fd = [], self._root_fd
        for name, files in folders:
            tmp = tmp_name(name)
            self._pending.append(tmp)
            os.mkdir(tmp, dir_fd=root_fd)
            for file, data in files:
                write_file(root_fd, f"{tmp}/{file}", data)
            moves.append((tmp, name))
        os.sync()
        for tmp, name in moves:
            try:
                os.rename(tmp, name, src_dir_fd=root_fd, dst_dir_fd=root_fd)
            except OSError as e:
                if e.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                    raise
                remove_path(self.root / tmp)
        os.fsync(root_fd)
        self._pending.clear()
        crashpoint.renamed()

    def _wait(self) -> None:
        """Wait for the chunk in flight; re-raise what it raised."""
        future, self._in_flight = self._in_flight, None
        if future is not None:
            future.result()

    def finish(self) -> dict:
        """Wait for the last chunk; return the shard's manifest entry."""
        self._wait()
        return shard_entry(self.shard, self.layout.shard_name(self.shard.index), self.count,
                           self.sha.hexdigest(), self.size)

    def __exit__(self, exc_type, exc, tb):
        self._io.shutdown(wait=True)  # the chunk in flight ends first, whatever happens
        try:
            if exc_type is None:
                self._wait()  # raises an error of the last chunk if finish() was not called
        except BaseException:
            exc_type = BaseException
            raise
        finally:
            if exc_type is not None:
                for tmp in self._pending:
                    remove_path(self.root / tmp)
            os.close(self._root_fd)


class FolderShardReader:
    """Tasks of one folder shard, read from their task folders (for ``verify``)."""

    def __init__(self, layout: FolderLayout, out: Path, problems: list[str] | None = None,
                 config=None):
        self.layout, self.root = layout, Path(out) / layout.root
        self.suffix_of = {name: suffix for suffix, name in layout.file_names.items()}
        self.sha = hashlib.sha256()
        self.problems = [] if problems is None else problems
        self.cap = member_size_cap(config)

    def label(self, k: int) -> str:
        """How ``verify`` names shard ``k`` (a set of task folders, not a folder of its own)."""
        return f"shard {k}"

    def location(self, expected: dict) -> str:
        """The folder of the task ``expected`` describes, relative to the output folder."""
        return f"{self.layout.root}/{self.layout.folder_name(expected)}/"

    def file_name(self, suffix: str) -> str:
        """The file of member ``suffix`` in a task folder (``txt`` -> ``prompt.txt``)."""
        return self.layout.file_names.get(suffix, suffix)

    def digest(self) -> str:
        """Hash of every expected folder's files (same recipe as the writer)."""
        return self.sha.hexdigest()

    def get(self, expected: dict) -> dict | None:
        """Actual files of the task ``expected`` describes, keyed by suffix (None if absent)."""
        name = self.layout.folder_name(expected)
        folder = self.root / name
        if folder.is_symlink():
            self.problems.append(f"{self.layout.root}/{name}: a symbolic link (never followed)")
            return None
        if not folder.is_dir():
            return None
        actual = {}
        for p in sorted(folder.iterdir()):
            try:
                actual[self.suffix_of.get(p.name, p.name)] = read_plain(p, self.cap)
            except ValueError as e:
                self.problems.append(f"{self.layout.root}/{name}/: file {p.name!r} {e}")
        folder_digest(self.sha, name, folder_files(self.layout, actual))
        return actual

    def leftovers(self) -> list[str]:
        """Extra folders are found once for the whole dataset (the format's ``check_dataset``)."""
        return []

    def absent(self) -> None:
        """Nothing: a folder shard has no file of its own whose absence explains its tasks'."""
        return None

    def summary(self) -> None:
        """Nothing by default (a format's reader may hash what its dataset files hold)."""
        return None
