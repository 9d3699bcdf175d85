"""``manifest.json``: the run's configuration, whether it is complete, one entry per shard.

It is read back as a ``RunConfig`` by ``config.load_manifest`` (this module knows no RunConfig,
so that the format modules, which write entries, never import the configuration)."""
from __future__ import annotations

import json
from pathlib import Path

from .shards import Shard

__all__ = ["MANIFEST", "PROGRESS_DIR", "shard_entry", "manifest_bytes", "read_manifest"]

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
