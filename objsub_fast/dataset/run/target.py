"""The output of a run: a local folder, or a store prefix seen through a local view.

``open_target(out)`` gives an object with the same few steps for both, which ``generate``
and ``verify`` follow without knowing which it is:

- ``view``: the folder the dataset code reads and changes (the folder itself, or the
  store's ``Mirror``); ``pull`` / ``pull_progress`` / ``push`` keep a store in step with it
  (nothing to do for a folder);
- ``create`` and ``lock``: make the output usable and hold it for the run (``FolderLock``,
  or the store's ``Lease``, after which a killed run's multipart uploads are aborted);
- ``write_jobs`` / ``verify_jobs``: one joblib job per shard (on a store, the workers' jobs
  of ``storage.jobs``), given the function that writes or verifies a shard in a folder
  (``pipeline.run_shard``, ``verify.verify_shard``: storage never imports them, so imports
  flow one way).
"""
from __future__ import annotations

import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

from ...runtime.jsonfile import loads as loads_json
from ...runtime.errors import UsageError
from ...storage.lease import Lease
from ...storage.store import Store
from ...storage.url import local_path
from .mirror import Mirror
from .store_jobs import shard_keys, verify_store_shard, write_shard

__all__ = ["open_target", "read_manifest_of", "LocalTarget", "StoreTarget"]


def open_target(out, storage_options: dict | None = None, take_over_lease: bool = False,
                option: str = "--out"):
    """The target ``out`` names: a ``LocalTarget`` for a path or ``file://`` URL, a
    ``StoreTarget`` for a store URL (UsageError if its backend is missing)."""
    path = local_path(out, option)
    if path is not None:
        return LocalTarget(Path(path).absolute())
    return StoreTarget(Store(str(out), storage_options, option), take_over_lease)


def read_manifest_of(out, storage_options: dict | None = None) -> dict | None:
    """The manifest of the dataset at ``out`` (a folder or a store URL) as a dict; None if
    there is none or it cannot be read (one object read, no listing). A store whose endpoint
    does not answer, or that has no such bucket, is a StoreError at once (``Store.check``),
    not after the client's retries."""
    from ..content.manifest import MANIFEST, read_manifest

    path = local_path(out)
    if path is not None:
        return read_manifest(path)
    store = Store(str(out), storage_options)
    store.check()
    try:
        return loads_json(store.read(MANIFEST))
    except Exception:  # noqa: BLE001 - none, unreadable, or no access: the run says which
        return None


class LocalTarget:
    """A local output folder: the view is the folder itself."""

    is_store = False
    #: Whether every job must run in this process (a store in this process's memory).
    in_process = False

    def __init__(self, folder: Path):
        self.view = self.name = Path(folder)

    def pull(self) -> None:
        """Nothing to do: the view is the folder."""

    pull_progress = pull

    def push(self, deletions_first: bool = True) -> None:
        """Nothing to do: the view is the folder."""

    def create(self) -> None:
        """Create the folder (UsageError if that fails)."""
        try:
            self.view.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise UsageError(f"cannot create output directory {str(self.view)!r}: "
                             f"{e.strerror}") from e

    def lock(self):
        """The folder's kernel lock for the run."""
        from ...runtime.lock import FolderLock

        return FolderLock(self.view)

    def write_jobs(self, run_shard, config, shards, chunk_size):
        """One job per shard: ``run_shard`` (``pipeline.run_shard``) into the folder."""
        import joblib

        return (joblib.delayed(run_shard)(config, str(self.view), s, chunk_size)
                for s in shards)

    def verify_jobs(self, verify_shard, config, plan, entries, **kwargs):
        """One job per shard: ``verify_shard`` (``verify.verify_shard``) on the folder."""
        import joblib

        return [joblib.delayed(verify_shard)(str(self.view), config, s, entries.get(s.index),
                                             **kwargs) for s in plan]

    def close(self) -> None:
        """Nothing to clean up."""

    @contextmanager
    def naming_errors(self):
        """Nothing to rename: errors name the folder."""
        yield


class StoreTarget:
    """A store prefix, seen through a ``Mirror`` in a temporary folder."""

    is_store = True

    def __init__(self, store: Store, take_over_lease: bool = False):
        self.store, self.take_over = store, take_over_lease
        self.name = store.url
        self._scratch = Path(tempfile.mkdtemp(prefix="objsub-view-"))
        self.mirror = Mirror(store, self._scratch / "view")
        self.view = self.mirror.folder
        self.listing: dict[str, int] = {}
        self._checked = False
        self.in_process = store.scheme == "memory"

    def pull(self) -> None:
        """Lay out the prefix in the view (the bucket checked first)."""
        if not self._checked:
            self.store.check()
            self._checked = True
        self.listing = self.mirror.pull()

    def pull_progress(self) -> None:
        """Download the progress records the workers wrote."""
        self.mirror.pull_progress()

    def push(self, deletions_first: bool = True) -> None:
        """Apply the view's changes to the store (``Mirror.push``)."""
        self.mirror.push(deletions_first)

    def create(self) -> None:
        """Nothing to create: a prefix exists once it holds an object."""

    @contextmanager
    def lock(self):
        """The prefix's lease for the run; a killed run's multipart uploads are aborted."""
        with Lease(self.store, self.take_over):
            self.store.abort_stale_uploads()
            yield

    def write_jobs(self, run_shard, config, shards, chunk_size):
        """One ``write_shard`` job per shard (``run_shard`` writes it in the worker's scratch
        folder)."""
        import joblib

        return (joblib.delayed(write_shard)(run_shard, config, self.store, s, chunk_size)
                for s in shards)

    def verify_jobs(self, verify_shard, config, plan, entries, **kwargs):
        """One ``verify_store_shard`` job per shard, each given its shard's keys."""
        import joblib

        keys = shard_keys(config, self.listing, entries, plan)
        return [joblib.delayed(verify_store_shard)(verify_shard, self.store,
                                                   keys.get(s.index, []), config, s,
                                                   entries.get(s.index), **kwargs)
                for s in plan]

    def close(self) -> None:
        """Remove the view."""
        shutil.rmtree(self._scratch, ignore_errors=True)

    @contextmanager
    def naming_errors(self):
        """A UsageError raised in the block names the store URL, not the local view."""
        try:
            yield
        except UsageError as e:
            text = str(e).replace(str(self.view), self.name)
            if text == str(e):
                raise
            raise type(e)(text) from None
