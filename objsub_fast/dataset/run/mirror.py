"""The local view of a store prefix that the dataset code reads and changes like a folder.

``pull`` lists the prefix and lays it out in a local folder: the small files (manifest,
progress records, dataset-level files) downloaded, the shard data (``*.tar`` and the files of
task folders) as sparse placeholders of the objects' sizes, so that the code deciding what a
run resumes, replaces or finalizes (``dataset.run.output``) and ``verify``'s dataset-level checks
see the prefix exactly as they would see a local output folder, at the cost of a listing.
An object whose key could name a path outside the view (``..``, an absolute key, ...) is
left out of it with one line on stderr (``storage.transfer.safe_downloads``).
``push`` then applies what that code changed to the store: files it wrote are uploaded (the
manifest last), files it removed are deleted. Placeholders are never uploaded.

Examples
--------
>>> import tempfile
>>> from pathlib import Path
>>> from objsub_fast.storage.store import Store
>>> store = Store("memory://doc-mirror/run")
>>> store.put_bytes("manifest.json", b"{}"); store.put_bytes("objsub-000000.tar", b"x" * 9)
>>> view = Mirror(store, Path(tempfile.mkdtemp()) / "view"); _ = view.pull()
>>> (view.folder / "manifest.json").read_bytes(), (view.folder / "objsub-000000.tar").stat().st_size
(b'{}', 9)
>>> (view.folder / "objsub-000000.tar").unlink(); (view.folder / "new.json").write_bytes(b"1")
1
>>> view.push(); sorted(store.listing())
['manifest.json', 'new.json']
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

from ...runtime import crashpoint
from ...runtime.atomic import TMP_PREFIX
from ...storage.lease import LEASE
from ..content.manifest import MANIFEST, PROGRESS_DIR
from ...storage.transfer import relative_files  # noqa: F401 (jobs takes it from here)
from ...storage.transfer import safe_downloads

__all__ = ["is_shard_data", "relative_files", "Mirror"]


def is_shard_data(rel: str) -> bool:
    """Whether the object ``rel`` is shard data (a tar shard or a file in a task folder, two
    or more folders deep), as opposed to the run's state and dataset-level files.

    Examples
    --------
    >>> [is_shard_data(k) for k in ("objsub-000001.tar", "object_subtraction_task/t/p.txt",
    ...                             "data/metadata.jsonl", ".objsub-progress/000001.json")]
    [True, True, False, False]
    """
    if rel.startswith(PROGRESS_DIR + "/"):
        return False
    return rel.endswith(".tar") or rel.count("/") >= 2


def _skipped(rel: str) -> bool:
    """The lease, temp names and "folder" marker objects (a key ending in ``/``, as some
    consoles make) are never part of the view."""
    return rel == LEASE or rel.endswith("/") or rel.rpartition("/")[2].startswith(TMP_PREFIX)


class Mirror:
    """``folder``: the local view of ``store`` (see the module doc)."""

    def __init__(self, store, folder: Path):
        self.store, self.folder = store, Path(folder)
        self.snapshot: dict[str, tuple[int, int]] = {}
        self.placeholders: set[str] = set()

    def _scan(self) -> dict[str, tuple[int, int]]:
        """Every file of the view: relative path -> (size, mtime in ns)."""
        found = {}
        for dirpath, _, files in os.walk(self.folder):
            for name in files:
                path = os.path.join(dirpath, name)
                st = os.stat(path)
                found[os.path.relpath(path, self.folder)] = (st.st_size, st.st_mtime_ns)
        return found

    def pull(self) -> dict[str, int]:
        """Lay out the prefix in the view (replacing what it held); return the listing."""
        listing = {k: v for k, v in self.store.listing().items() if not _skipped(k)}
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder.mkdir(parents=True)
        paths = dict(safe_downloads(self.folder, listing, repr(self.store.url)))
        listing = {k: v for k, v in listing.items() if k in paths}
        self.placeholders = {k for k in listing if is_shard_data(k)}
        for rel in self.placeholders:
            paths[rel].parent.mkdir(parents=True, exist_ok=True)
            with open(paths[rel], "wb") as f:
                f.truncate(listing[rel])
        self.store.get_files([(k, p) for k, p in paths.items() if k not in self.placeholders])
        self.snapshot = self._scan()
        return listing

    def pull_progress(self) -> None:
        """Download the progress records (and format files) workers added since the pull."""
        new = [k for k in self.store.listing(PROGRESS_DIR)
               if k not in self.snapshot and not _skipped(k)]
        self.store.get_files(safe_downloads(self.folder, new, repr(self.store.url)))
        self.snapshot = self._scan()

    def push(self, deletions_first: bool = True) -> None:
        """Apply the view's changes to the store: uploads (the manifest last) and deletions,
        deletions first (replacing a run) or last (finishing one: the progress records go
        once the complete manifest is up)."""
        now = self._scan()
        changed = sorted(k for k, v in now.items() if self.snapshot.get(k) != v
                         and not _skipped(k))
        bad = self.placeholders.intersection(changed)
        if bad:
            raise RuntimeError(f"placeholders of shard data were modified: {sorted(bad)[:3]}")
        removed = [k for k in self.snapshot if k not in now]
        actions = [(self.store.delete, removed),
                   (self.store.put_files, [(self.folder / k, k) for k in changed if k != MANIFEST]),
                   (self.store.put_files, [(self.folder / k, k) for k in changed if k == MANIFEST])]
        if not deletions_first:
            actions.append(actions.pop(0))
        for action, items in actions:
            if items:
                action(items)
                crashpoint.renamed()
        self.placeholders.difference_update(removed)
        self.snapshot = now
