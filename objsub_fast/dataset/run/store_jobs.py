"""The workers' jobs on a store: write one shard, verify one shard.

A worker writes its shard into a scratch folder of its own (``TMPDIR``, one shard at a time,
so memory stays bounded as for a local run) with the format's own writer, so the bytes are
those of a local run; then it uploads the shard's objects, its format records, and its
progress record last: a shard whose record is in the store is complete. To verify, a worker
downloads one shard's objects into a scratch folder, checks them there and deletes them
(a key that could name a path outside it is skipped: ``storage.transfer.safe_downloads``).
"""
from __future__ import annotations

import tempfile
from pathlib import Path

from ...runtime import crashpoint
from ...storage.store import Store
from ...storage.transfer import safe_downloads
from ..content.manifest import PROGRESS_DIR
from .mirror import is_shard_data, relative_files

__all__ = ["write_shard", "verify_store_shard", "shard_keys"]


def write_shard(run_shard, config, store: Store, shard, chunk_size) -> dict:
    """Write one shard to ``store`` (a worker's job; see the module doc) with ``run_shard``
    (``pipeline.run_shard``, which writes it into a folder); its manifest entry."""
    with tempfile.TemporaryDirectory(prefix="objsub-shard-") as scratch:
        (Path(scratch) / PROGRESS_DIR).mkdir()
        entry = run_shard(config, scratch, shard, chunk_size)
        files = relative_files(Path(scratch))
        record = f"{PROGRESS_DIR}/{shard.index:06d}.json"
        state = [f for f in files if f.startswith(PROGRESS_DIR + "/") and f != record]
        data = [f for f in files if f not in state and f != record]
        for group in (data, state, [record]):
            store.put_files([(Path(scratch) / f, f) for f in group])
            crashpoint.renamed()
    return entry


def verify_store_shard(verify_shard, store: Store, keys: list[str], config, shard, entry,
                       **kwargs):
    """Verify one shard of ``store`` (a worker's job): its objects ``keys`` downloaded to a
    scratch folder and checked there by ``verify_shard`` (``verify.verify_shard``)."""
    with tempfile.TemporaryDirectory(prefix="objsub-verify-") as scratch:
        store.get_files(safe_downloads(scratch, keys, repr(store.url)))
        return verify_shard(scratch, config, shard, entry, **kwargs)


def shard_keys(config, listing, entries: dict, plan=()) -> dict[int, list[str]]:
    """Shard number -> the keys of its data in ``listing`` (its tar, named by its manifest
    entry or, for a shard of ``plan`` not finished yet, by the format's ``shard_name``; or
    the files of its task folders), in one pass over the listing.

    Examples
    --------
    >>> from objsub_fast.dataset.run.run_config import RunConfig
    >>> from objsub_fast.dataset.content.shards import plan_shards
    >>> config = RunConfig(count=4, shard_size=2)
    >>> shard_keys(config, {"objsub-000001.tar": 9, "objsub-000000.tar": 9, "manifest.json": 2},
    ...            {1: {"name": "objsub-000001.tar"}}, plan_shards(4, 2))
    {1: ['objsub-000001.tar'], 0: ['objsub-000000.tar']}
    """
    from ..formats import get_format

    fmt = get_format(config.format)
    tars = {fmt.shard_name(s.index): s.index for s in plan}
    tars.update({e["name"]: k for k, e in entries.items()})
    folders = fmt.task_folders(config)
    found: dict[int, list[str]] = {}
    for key in listing:
        if not is_shard_data(key):
            continue
        shard = tars.get(key)
        if shard is None and folders and key.startswith(folders[0] + "/"):
            index = folders[1](key[len(folders[0]) + 1:].split("/", 1)[0])
            shard = None if index is None else index // config.shard_size
        if shard is not None:
            found.setdefault(shard, []).append(key)
    return found
