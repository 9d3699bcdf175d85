"""Whole inputs and outputs of the commands that work on local files (``preview``,
``score``): a store URL is downloaded to, or uploaded from, a temporary folder.

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
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

from ..runtime.errors import UsageError
from .store import Store
from .url import local_path

__all__ = ["fetched", "published", "shown", "relative_files"]


def relative_files(folder: Path) -> list[str]:
    """Every file under ``folder``, as sorted paths relative to it (the keys they go to)."""
    return sorted(os.path.relpath(os.path.join(d, n), folder)
                  for d, _, names in os.walk(folder) for n in names)


@contextmanager
def fetched(source, option: str = "--in", storage_options: dict | None = None):
    """A local folder holding ``source``: the folder itself for a path (None stays None);
    for a store URL, every object under it downloaded into a temporary folder of the same
    name as the URL's last part (a folder's name can mean something, e.g. a model's name),
    removed at the end of the block."""
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
        store.get_files([(k, folder / k) for k in listing])
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
