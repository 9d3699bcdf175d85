"""The output-format contract: :class:`OutputFormat`, the base class every format of
``formats.FORMATS`` subclasses.

A format overrides the hooks marked required (:data:`REQUIRED`, and ``NAME``); the others have
the defaults most formats want (no temp folders beside the output's own, no dataset-level file
to write or check, no brace pattern, every member a file of whole blocks), so a format overrides
only what differs. ``tests/test_formats.py`` checks that every format of the table does, and
writes and verifies a small dataset in each.

Examples
--------
>>> from objsub_fast.dataset.formats import FORMATS
>>> all(isinstance(fmt, OutputFormat) and not fmt.unimplemented() for fmt in FORMATS.values())
True
>>> [name for name, fmt in FORMATS.items() if fmt.can_extend]
['webdataset', 'vmevalkit']
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

__all__ = ["OutputFormat", "REQUIRED"]

#: The hooks a format must override (besides ``NAME``).
REQUIRED = ("shard_name", "task_metadata", "writer", "reader", "owned_paths", "accounted",
            "shard_present")


class OutputFormat:
    """How a run's shards are written to, read back from and checked in an output folder.

    Attributes
    ----------
    NAME : str
        The format's name (``--format``; its key in ``formats.FORMATS``). Required.
    VIDEOS_REQUIRED : bool
        Whether the layout needs the ground-truth video member (then videos default to on and
        cannot be turned off). Default: False.

    Examples
    --------
    >>> class Bare(OutputFormat):
    ...     NAME = "bare"
    ...     def shard_name(self, k):
    ...         return f"bare-{k}"
    >>> Bare().unimplemented()
    ['task_metadata', 'writer', 'reader', 'owned_paths', 'accounted', 'shard_present']
    >>> Bare().temp_folders("out"), Bare().can_extend, Bare().shard_pattern(4)
    ([], False, None)
    """

    NAME: str = ""
    VIDEOS_REQUIRED: bool = False

    # ------------------------------------------------------------------ names

    def shard_name(self, k: int) -> str:
        """Shard ``k``'s name in the manifest (a file, or a label for a set of folders).
        Required."""
        raise NotImplementedError

    def shard_pattern(self, num_shards: int) -> str | None:
        """The pattern naming every shard file of a dataset of ``num_shards`` shards, for a
        reader (None: the format has none to give)."""
        return None

    def shards_are_files(self, config) -> bool:
        """Whether a run of ``config``'s shards are files a reader lists (tar archives); the
        other layouts are task folders, with no shard to name."""
        return False

    # ------------------------------------------------------------------ sample members

    def task_metadata(self, record: dict, config=None) -> bytes:
        """The per-task JSON member (``members.MEMBERS["json"]``) of an engine task record of a
        run with ``config`` (a RunConfig; None: the defaults). Required."""
        raise NotImplementedError

    def chunk_metadata(self, chunk) -> list[bytes]:
        """The same member for every task of a ``members.Chunk``: by default
        ``task_metadata`` of each record (a format may write them faster, equal)."""
        return [self.task_metadata(record, chunk.config) for record in chunk.records]

    def stored_bytes(self, samples: list[dict], block: int) -> int:
        """Disk bytes of encoded ``samples``, a file system block being ``block`` bytes (the
        free-space check): by default every member a file rounded up to whole blocks."""
        return sum(-(-len(data) // block) * block
                   for s in samples for key, data in s.items() if not key.startswith("__"))

    # ------------------------------------------------------------------ shards

    def writer(self, out: Path, shard, config):
        """A context manager writing ``shard`` into ``out``: ``write_samples(samples)`` per
        chunk (``members.encode_samples``), then ``finish()`` -> the shard's manifest entry;
        nothing under a final name on error. Required."""
        raise NotImplementedError

    def reader(self, out: Path, entry: dict, problems: list[str], config=None):
        """For ``verify``, the shard of manifest ``entry`` as found in ``out`` (problems go to
        ``problems``): ``get(expected_sample)`` -> actual members or None, ``leftovers()``,
        ``digest()`` (the hash to compare with the manifest, None if unknown), ``absent()``
        (why every task is missing; None otherwise) and ``summary()`` (what
        :meth:`check_dataset` needs of the regenerated shard; None if nothing). Required."""
        raise NotImplementedError

    def shard_present(self, out: Path, entry: dict, progress: Path, config) -> bool:
        """Whether a shard recorded as done is still complete on disk (resume of a run of
        ``config``): a deleted shard file or task folder makes it not done. Required."""
        raise NotImplementedError

    # ------------------------------------------------------------------ the output folder

    def owned_paths(self, out: Path) -> list[Path]:
        """What of ``out`` the format writes (shard files, task folders, its dataset files).
        Required."""
        raise NotImplementedError

    def accounted(self, config) -> list[str]:
        """Paths relative to the output (``*``: any part of one name) the format's checks
        account for; any other file the project did not write is a stray (``strays``).
        Required."""
        raise NotImplementedError

    def temp_folders(self, out: Path) -> list[Path]:
        """Folders besides ``out`` where a killed run may have left temp files: none."""
        return []

    def task_folders(self, config) -> tuple[str, Callable] | None:
        """Where a run of ``config`` keeps its task folders, for a store's listing: (their
        folder, relative to the output; task folder name -> task index or None), or None when
        the shards are files (the default)."""
        return None

    # ------------------------------------------------------------------ dataset level

    def extend(self, out: Path, kept: list[dict], progress: Path) -> None:
        """Before a run with a larger ``count`` reuses the complete shards ``kept`` (manifest
        entries): undo what :meth:`finalize` joined. A format that does not override it cannot
        be extended (:attr:`can_extend`)."""
        raise NotImplementedError(f"the {self.NAME} format cannot be extended")

    @property
    def can_extend(self) -> bool:
        """Whether a run of this format can grow its ``count`` in place (it has :meth:`extend`)."""
        return type(self).extend is not OutputFormat.extend

    def finalize(self, config, out: Path, entries: list[dict], progress: Path) -> None:
        """Dataset-level files written once every shard is done: none."""

    def check_dataset(self, config, out: Path, plan, summaries: dict) -> list[str]:
        """Dataset-level problems for ``verify`` (``summaries``: shard number -> its reader's
        ``summary()``): none."""
        return []

    # ------------------------------------------------------------------ the contract

    @classmethod
    def unimplemented(cls) -> list[str]:
        """The required names this format does not define (empty: it keeps the contract)."""
        missing = [] if cls.NAME else ["NAME"]
        return missing + [name for name in REQUIRED
                          if getattr(cls, name) is getattr(OutputFormat, name)]

    def __repr__(self) -> str:
        return f"<output format {self.NAME!r}>"
