"""Snapshot of a folder's files, to compare outputs byte for byte (shared by the tests)."""
from pathlib import Path


def tree(root: Path) -> dict:
    """Every file under ``root`` (relative path -> bytes)."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(Path(root).rglob("*"))
            if p.is_file()}
