"""Snapshot of a folder's files, to compare outputs byte for byte (shared by the tests)."""
from pathlib import Path


def tree(root: Path) -> dict:
    """Every file under ``root`` (relative path -> bytes)."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(Path(root).rglob("*"))
            if p.is_file()}


def objects_of_run(out: Path) -> dict:
    """A local run's files as the objects a run into a store must hold: ``tree`` (the run
    removed the folder's lock file when it ended)."""
    files = tree(out)
    assert ".objsub-lock" not in files
    return files


def shard_samples(out: Path) -> dict:
    """{key: {suffix: bytes}} of every WebDataset shard (``objsub-*.tar``) in ``out``."""
    import tarfile

    samples = {}
    for shard in sorted(Path(out).glob("objsub-*.tar")):
        with tarfile.open(shard) as tar:
            for m in tar:
                key, _, suffix = m.name.partition(".")
                samples.setdefault(key, {})[suffix] = tar.extractfile(m).read()
    return samples
