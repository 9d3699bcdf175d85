"""Whole inputs and outputs of the commands that work on local files (``preview``,
``score``): a store URL is downloaded to, or uploaded from, a temporary folder.

An object's key is someone else's text (a submission's outputs, a dataset on a store): it
becomes a local path only through ``safe_key_path``, which refuses a key that would name
anything outside the folder (``..``, an absolute path, a backslash, a drive letter, an empty
segment, a control character). ``safe_downloads`` skips such a key with one line on stderr
and the rest of the run goes on.

Examples
--------
>>> from objsub_fast.storage.store import Store
>>> with published("memory://doc-transfer/sheets/a.png") as path:
...     _ = path.write_bytes(b"png")
>>> Store("memory://doc-transfer/sheets").read("a.png")
b'png'
>>> with fetched("memory://doc-transfer/sheets", "--questions") as folder:
...     sorted(p.name for p in folder.iterdir())
['a.png']
"""
from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
import unicodedata
from contextlib import contextmanager
from pathlib import Path

from ..runtime.errors import UsageError
from .store import Store
from .url import local_path

__all__ = ["fetched", "published", "shown", "relative_files", "safe_key_path",
           "safe_downloads", "MAX_SEGMENT_BYTES"]

#: The longest file name (one path segment, in UTF-8 bytes) most local file systems take.
MAX_SEGMENT_BYTES = 255

_DRIVE = re.compile(r"[A-Za-z]:")


def _key_problem(key) -> str | None:
    """Why ``key`` cannot be a relative local path, or None (the lexical checks only)."""
    if not isinstance(key, str) or not key:
        return "the key is empty"
    odd = next((c for c in key if unicodedata.category(c) in ("Cc", "Cs")), None)
    if odd is not None:
        kind = "a control" if unicodedata.category(odd) == "Cc" else "an unencodable"
        return f"the key has {kind} character ({odd!r})"
    if "\\" in key:
        return "the key has a backslash (a Windows path separator)"
    if key.startswith("/"):
        return "the key is an absolute path (it starts with '/')"
    for segment in key.split("/"):
        if not segment:
            return "the key has an empty segment ('//' or a trailing '/')"
        if segment in (".", ".."):
            return f"the key has a {segment!r} segment"
        if _DRIVE.match(segment):
            return f"the key has a drive letter ({segment[:2]!r})"
        if len(segment.encode("utf-8", "surrogatepass")) > MAX_SEGMENT_BYTES:
            return f"the key has a segment longer than {MAX_SEGMENT_BYTES} bytes"
    return None


def safe_key_path(folder, key: str) -> Path:
    """The local path of the object ``key`` (relative to a store prefix) in ``folder``;
    ValueError saying why if ``key`` could name anything outside ``folder``.

    Refused: an empty key or segment, ``.`` and ``..`` segments, a leading ``/``, a
    backslash, a drive letter (``C:``), a control character, a segment over
    ``MAX_SEGMENT_BYTES``; and any key whose path, resolved, is not under ``folder``.

    Examples
    --------
    >>> safe_key_path("/tmp/in", "model/task_0001/video.mp4").as_posix()
    '/tmp/in/model/task_0001/video.mp4'
    >>> safe_key_path("/tmp/in", "model/../../etc/cron.d/x")
    Traceback (most recent call last):
    ...
    ValueError: the key has a '..' segment
    >>> for key in ("/etc/passwd", "a//b", "a\\\\b", "C:/x", "a\\x00b"):
    ...     try:
    ...         safe_key_path("/tmp/in", key)
    ...     except ValueError as e:
    ...         print(e)
    the key is an absolute path (it starts with '/')
    the key has an empty segment ('//' or a trailing '/')
    the key has a backslash (a Windows path separator)
    the key has a drive letter ('C:')
    the key has a control character ('\\x00')
    """
    problem = _key_problem(key)
    if problem is not None:
        raise ValueError(problem)
    folder = Path(folder)
    path = folder / key
    if not path.resolve().is_relative_to(folder.resolve()):
        raise ValueError("the path resolves outside the folder (a symbolic link on the way)")
    return path


def safe_downloads(folder, keys, where: str) -> list[tuple[str, Path]]:
    """(key, local path) pairs of the ``keys`` that can be saved under ``folder``
    (``safe_key_path``), for ``Store.get_files``. Every other key is skipped with one line on
    stderr naming it (``where``: the option and URL it came from) and why; so is a key whose
    path is also a folder of other keys (``a`` beside ``a/b``). A folder marker (a key
    ending in ``/``, as some consoles make) is skipped silently.

    Examples
    --------
    >>> import contextlib, io
    >>> err = io.StringIO()
    >>> with contextlib.redirect_stderr(err):
    ...     pairs = safe_downloads("/tmp/in", ["m/a.mp4", "m/", "m/../../x", "m/b"], "--in s")
    >>> [k for k, _ in pairs]
    ['m/a.mp4', 'm/b']
    >>> print(err.getvalue().strip())
    objsub-fast: warning: --in s: object 'm/../../x' skipped: the key has a '..' segment
    """
    from ..cli_common import PROG

    pairs, folders = [], set()
    for key in keys:
        if isinstance(key, str) and key.endswith("/") and _key_problem(key[:-1]) is None:
            continue
        try:
            pairs.append((key, safe_key_path(folder, key)))
        except ValueError as e:
            print(f"{PROG}: warning: {where}: object {key!r} skipped: {e}", file=sys.stderr)
            continue
        folders.update(pairs[-1][1].parents)
    kept = []
    for key, path in pairs:
        if path in folders:
            print(f"{PROG}: warning: {where}: object {key!r} skipped: the path is also the "
                  "folder of other objects", file=sys.stderr)
        else:
            kept.append((key, path))
    return kept


def relative_files(folder: Path) -> list[str]:
    """Every file under ``folder``, as sorted paths relative to it (the keys they go to)."""
    return sorted(os.path.relpath(os.path.join(d, n), folder)
                  for d, _, names in os.walk(folder) for n in names)


@contextmanager
def fetched(source, option: str = "--in", storage_options: dict | None = None):
    """A local folder holding ``source``: the folder itself for a path (None stays None);
    for a store URL, every object under it downloaded into a temporary folder of the same
    name as the URL's last part (a folder's name can mean something, e.g. a model's name),
    removed at the end of the block. A key that could name a path outside that folder is
    skipped with one line on stderr (``safe_downloads``)."""
    if source is None or local_path(source, option) is not None:
        yield None if source is None else Path(local_path(source, option))
        return
    store = Store(str(source), storage_options, option)
    store.check()
    listing = store.listing()
    if not listing:
        raise UsageError(f"{option} {store.url!r}: no objects under this prefix")
    scratch = Path(tempfile.mkdtemp(prefix="objsub-fetched-"))
    folder = scratch / (store.url.rpartition("/")[2] or "data")
    try:
        pairs = safe_downloads(folder, listing, f"{option} {store.url!r}")
        if not pairs:
            raise UsageError(f"{option} {store.url!r}: none of its {len(listing)} objects "
                             "has a key that can be saved as a local file")
        store.get_files(pairs)
        yield folder
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


@contextmanager
def published(target, option: str = "out", storage_options: dict | None = None):
    """A local path to write the file ``target`` at: the path itself; for a store URL, a
    file in a temporary folder. When the block ends without an error, every file written
    in that folder (``target`` and any files beside it) is uploaded next to ``target``."""
    path = local_path(target, option)
    if path is not None:
        yield Path(path)
        return
    parent, _, name = str(target).rstrip("/").rpartition("/")
    if not name or parent.endswith(":/"):
        raise UsageError(f"{option} {target!r}: expected a URL naming a file, e.g. "
                         "s3://bucket/folder/name")
    store = Store(parent, storage_options, option)
    store.check()
    folder = Path(tempfile.mkdtemp(prefix="objsub-published-"))
    try:
        yield folder / name
        store.put_files([(folder / f, f) for f in relative_files(folder)])
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def shown(text: str, folder, url) -> str:
    """``text`` with the local ``folder`` standing for ``url`` written as the URL.

    Examples
    --------
    >>> shown("/tmp/x/a.png written", "/tmp/x", "s3://b/p")
    's3://b/p/a.png written'
    """
    return text if url is None or local_path(url) is not None else \
        str(text).replace(str(folder), str(url).rstrip("/"))
