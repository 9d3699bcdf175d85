"""The VBVR-Bench evaluation layout (``--format vbvr-bench``):
``{split}/O-43_object_subtraction_data-generator/{index:05d}/`` holding VBVR's five files
(``first_frame.png``, ``final_frame.png``, ``prompt.txt``, ``ground_truth.mp4``,
``metadata.json``, as in :mod:`.vbvr_factory`), the split ``RunConfig.vbvr_split`` (default
``Out-of-Domain_50``). A team hands the same tasks to VBVR-EvalKit (model videos at
``{model}/{split}/O-43_object_subtraction_data-generator/{index:05d}.mp4``) and to this
project's scorer side by side.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

from .base import OutputFormat
from .folders import (FolderLayout, FolderShardReader, FolderShardWriter, NumberedFolders,
                      folders_present, trailing_number)
from .vbvr_factory import FILE_NAMES, GENERATOR, task_metadata

__all__ = ["NAME", "FORMAT", "VBVRBench", "DEFAULT_SPLIT", "task_metadata", "shard_name",
           "layout", "owned_paths"]

NAME = "vbvr-bench"
DEFAULT_SPLIT = "Out-of-Domain_50"
_SAMPLE = re.compile("([0-9]{5,})")


def shard_name(k: int) -> str:
    """Name of shard ``k`` in the manifest (a shard is a set of sample folders)."""
    return f"{GENERATOR}/shard-{k:06d}"


def _folder(sample: dict) -> str:
    return f"{sample['__index__']:05d}"


def layout(split: str) -> FolderLayout:
    """Where the samples of ``split`` go."""
    return FolderLayout(f"{split}/{GENERATOR}", _folder, FILE_NAMES, shard_name)






def owned_paths(out: Path) -> list[Path]:
    """The generator folder of every split in ``out``."""
    return sorted(Path(out).glob(f"*/{GENERATOR}"))


class VBVRBench(OutputFormat):
    """The VBVR-Bench evaluation layout (see the module): sample folders of one split."""

    NAME = NAME
    #: The layout's folders hold ground_truth.mp4.
    VIDEOS_REQUIRED = True
    shard_name = staticmethod(shard_name)
    task_metadata = staticmethod(task_metadata)
    owned_paths = staticmethod(owned_paths)

    def writer(self, out: Path, shard, config) -> FolderShardWriter:
        """Sample folders of one shard."""
        return FolderShardWriter(layout(config.vbvr_split), out, shard)

    def reader(self, out: Path, entry: dict, problems: list[str], config=None):
        """Reader of one shard's sample folders (for ``verify``)."""
        return FolderShardReader(layout(config.vbvr_split if config else DEFAULT_SPLIT), out,
                                 problems, config)

    def task_folders(self, config) -> tuple[str, Callable]:
        """The split's generator folder; a sample folder is named by its task index."""
        return layout(config.vbvr_split).root, trailing_number

    def accounted(self, config) -> list[str]:
        """Paths (``*``: part of a name) this format's checks account for: whatever is in a
        split's generator folder (a sample folder or split not part of the dataset is a problem of
        ``check_dataset``, a file in a sample folder that is no member one of ``verify``'s)."""
        return [f"*/{GENERATOR}/*", f"*/{GENERATOR}/*/*"]

    def temp_folders(self, out: Path) -> list[Path]:
        """Folders (besides ``out``) where a killed run may have left temp files."""
        return owned_paths(out)

    def shard_present(self, out: Path, entry: dict, progress: Path, config) -> bool:
        """Whether every sample folder of a shard recorded as done is there (in a split)."""
        return any(folders_present(root, NumberedFolders(_SAMPLE), entry["start"], entry["stop"])
                   for root in owned_paths(out))

    def check_dataset(self, config, out: Path, plan, summaries: dict) -> list[str]:
        """Dataset-level problems for ``verify``: sample folders or splits not part of it."""
        root = Path(out) / config.vbvr_split / GENERATOR
        expected = {f"{i:05d}" for i in range(config.count)}
        problems = [f"{config.vbvr_split}/{GENERATOR}/{p.name}: not part of the dataset"
                    for p in sorted(root.iterdir()) if p.name not in expected] if root.is_dir() \
            else [f"{config.vbvr_split}/{GENERATOR}: missing"]
        problems += [f"{p.relative_to(out)}: split not part of the dataset"
                     for p in owned_paths(out) if p != root]
        return problems


#: The format (the row of ``formats.FORMATS``).
FORMAT = VBVRBench()
