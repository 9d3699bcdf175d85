"""The output formats: format name -> the module that implements it.

Adding a format is one module and one row here. A format module provides:

``NAME``
    Its name (the row's key).
``VIDEOS_REQUIRED``
    Whether its layout needs the ground-truth video member (then videos default to on and
    cannot be turned off).
``shard_name(k)``
    Shard ``k``'s name in the manifest (a file, or a label for a set of folders).
``stored_bytes(samples, block) -> int`` (optional)
    Disk bytes of encoded samples, a file system block being ``block`` bytes (the free-space
    check; default: every member a file of whole blocks).
``task_metadata(record, config=None) -> bytes``
    The per-task JSON member (``members.MEMBERS["json"]``) for an engine task record of a run
    with ``config`` (a RunConfig; None: the defaults).
``chunk_metadata(chunk) -> list[bytes]`` (optional)
    The same member for every task of a ``members.Chunk`` at once, equal to ``task_metadata``
    of each of its records, written without building them (faster).
``ShardWriter(out, shard, config)``
    Context manager: ``write_samples(samples)`` per chunk (``members.encode_samples``), then
    ``finish()`` -> the shard's manifest entry; nothing under a final name on error.
``ShardReader(out, entry, problems, config)``
    For ``verify``: ``get(expected_sample)`` -> actual members or None, ``leftovers()``,
    ``digest()`` (the shard hash to compare with the manifest, None if unknown),
    ``absent()`` (why every task is missing, e.g. "shard file missing"; None otherwise),
    ``summary()`` (what ``check_dataset`` needs of the regenerated shard, e.g. a hash of its
    lines in a dataset-level file; None if nothing).
``accounted(config)``
    Paths relative to the output (``*``: any part of one name) that the format's checks account
    for; any other file not written by the project is a stray (``strays``).
``owned_paths(out)``, ``temp_folders(out)``
    What of ``out`` the format writes; folders where a killed run may leave temp files.
``shard_present(out, entry, progress, config)``
    Whether a shard recorded as done is still complete on disk (resume of a run of ``config``):
    a deleted shard file or task folder makes it not done, so the rerun writes it again.
``extend(out, kept, progress)`` (optional)
    Before a run with a larger ``count`` reuses the complete shards ``kept`` (manifest entries):
    undo what ``finalize`` joined (so it can be joined again with the new shards). A format
    without it cannot be extended.
``finalize(config, out, entries, progress)``
    Dataset-level files written once every shard is done (e.g. ``vmeval_dataset.json``).
``check_dataset(config, out, plan, summaries) -> list[str]``
    Dataset-level problems for ``verify`` (stray shards or folders, the dataset file);
    ``summaries`` maps shard number -> its reader's ``summary()``.
"""
from __future__ import annotations

from . import vbvr_bench, vbvr_factory, vmevalkit, webdataset

__all__ = ["FORMATS", "get_format", "shards_are_files"]

FORMATS = {
    webdataset.NAME: webdataset,
    vmevalkit.NAME: vmevalkit,
    vbvr_factory.NAME: vbvr_factory,
    vbvr_bench.NAME: vbvr_bench,
}


def get_format(name: str):
    """The module of format ``name`` (a checked ``RunConfig.format``).

    Examples
    --------
    >>> get_format("webdataset").shard_name(0)
    'objsub-000000.tar'
    """
    return FORMATS[name]


def shards_are_files(config) -> bool:
    """Whether a run's shards are files a reader lists (the tar archives of WebDataset and of
    VBVR's default packing); the other layouts are task folders, with no shard to name.

    Examples
    --------
    >>> from objsub_fast.dataset.run.run_config import RunConfig
    >>> shards_are_files(RunConfig(count=8)), shards_are_files(RunConfig(count=8, format="vmevalkit"))
    (True, False)
    """
    return config.format == webdataset.NAME or (config.format == vbvr_factory.NAME
                                                and config.vbvr_pack == "tar")
