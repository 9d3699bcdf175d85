"""The output formats: format name -> the format (an :class:`~.base.OutputFormat`).

Adding a format is one module (or a sub-package, as ``vmevalkit/``) and one row here. Its
class subclasses ``base.OutputFormat`` and overrides the required hooks (``base.REQUIRED``:
shard names, the per-task JSON, shard writer and reader, what of the output it owns and
accounts for, whether a done shard is still there) and only those defaults that differ (temp
folders, ``extend``, ``finalize``, ``check_dataset``, ``stored_bytes``, ...);
``tests/test_formats.py`` checks every row. The containers a format builds on are ``tar`` (tar
members) and ``folders`` (a folder per task).
"""
from __future__ import annotations

from . import vbvr_bench, vbvr_factory, vmevalkit, webdataset
from .base import OutputFormat

__all__ = ["FORMATS", "get_format", "shards_are_files"]

FORMATS: dict[str, OutputFormat] = {
    fmt.NAME: fmt for fmt in (webdataset.FORMAT, vmevalkit.FORMAT, vbvr_factory.FORMAT,
                              vbvr_bench.FORMAT)
}


def get_format(name: str):
    """The format ``name`` (a checked ``RunConfig.format``).

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
    >>> shards_are_files(RunConfig(count=8)), shards_are_files(RunConfig(count=8,
    ...                                                          format="vmevalkit"))
    (True, False)
    """
    return FORMATS[config.format].shards_are_files(config)
