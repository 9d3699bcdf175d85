"""``manifest.json``: the run's configuration, whether it is complete, one entry per shard."""
from __future__ import annotations

import json
from pathlib import Path

from ..errors import UsageError
from ..shards import Shard

__all__ = ["MANIFEST", "PROGRESS_DIR", "shard_entry", "manifest_bytes", "read_manifest",
           "load_manifest"]

MANIFEST = "manifest.json"
#: Run state of an unfinished run: one record per finished shard (and whatever a format keeps
#: until its ``finalize``); removed when the run completes.
PROGRESS_DIR = ".objsub-progress"


def shard_entry(shard: Shard, name: str, count: int, sha256: str, nbytes: int) -> dict:
    """Manifest entry of one complete shard."""
    return {"shard": shard.index, "name": name, "start": shard.start, "stop": shard.stop,
            "count": count, "sha256": sha256, "bytes": nbytes}


def manifest_bytes(config: dict, shards: list[dict], complete: bool) -> bytes:
    """Serialized ``manifest.json``: configuration, completeness, shard entries.

    Examples
    --------
    >>> manifest_bytes({"count": 0}, [], complete=False)[:30]
    b'{\\n "generator": "objsub-fast",'
    """
    doc = {"generator": "objsub-fast", "config": config, "complete": complete,
           "num_shards": len(shards), "shards": shards}
    return (json.dumps(doc, indent=1) + "\n").encode()


def read_manifest(out: Path) -> dict | None:
    """The manifest in ``out`` as a dict; None if there is none; ``{"config": None}`` if it
    cannot be parsed."""
    path = Path(out) / MANIFEST
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text())
    except ValueError:
        return {"config": None}


def load_manifest(out: Path, other_version_ok: bool = False):
    """(RunConfig, manifest dict) of the dataset in ``out``; UsageError if unusable.

    ``other_version_ok`` reads a dataset another generator version wrote (see
    ``RunConfig.validate``)."""
    from .config import RunConfig

    path = Path(out) / MANIFEST
    try:
        manifest = json.loads(path.read_text())
        config = RunConfig.from_json(manifest["config"]).validate(other_version_ok)
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror}") from e
    except (ValueError, KeyError, TypeError) as e:
        raise UsageError(f"{path} is not a valid objsub-fast manifest: {e}") from e
    return config, manifest
