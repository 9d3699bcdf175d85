"""The code of another revision, for benchmarks that time this tree against a pinned one in the
same run (taking turns): ``export`` extracts ``objsub_fast`` of a git revision into a folder
that a child process then puts first on its ``PYTHONPATH``.

Examples
--------
>>> import tempfile
>>> folder = export("HEAD", Path(tempfile.mkdtemp()))
>>> (folder / "objsub_fast" / "__init__.py").is_file()
True
"""
from __future__ import annotations

import subprocess
from pathlib import Path

__all__ = ["export"]

#: The checkout the benchmarks belong to.
ROOT = Path(__file__).resolve().parents[1]


def export(rev: str, folder: Path) -> Path:
    """``objsub_fast`` of git revision ``rev`` extracted into ``folder``; return ``folder``."""
    archive = subprocess.run(["git", "archive", rev, "objsub_fast"], cwd=ROOT, check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder
