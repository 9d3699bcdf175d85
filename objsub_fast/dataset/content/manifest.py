"""``manifest.json``: the run's configuration, whether it is complete, one entry per shard.

It is read back as a ``RunConfig`` by ``config.load_manifest`` (this module knows no RunConfig,
so that the format modules, which write entries, never import the configuration)."""
from __future__ import annotations

import json
from pathlib import Path

from ...runtime.jsonfile import loads as loads_json
from ...runtime.links import inside
from .shards import Shard

__all__ = ["MANIFEST", "PROGRESS_DIR", "shard_entry", "valid_entry", "read_entries",
           "manifest_bytes", "read_manifest"]

MANIFEST = "manifest.json"
#: Run state of an unfinished run: one record per finished shard (and whatever a format keeps
#: until its ``finalize``); removed when the run completes.
PROGRESS_DIR = ".objsub-progress"


def shard_entry(shard: Shard, name: str, count: int, sha256: str, nbytes: int) -> dict:
    """Manifest entry of one complete shard."""
    return {"shard": shard.index, "name": name, "start": shard.start, "stop": shard.stop,
            "count": count, "sha256": sha256, "bytes": nbytes}


#: A shard entry's fields and their types (``shard_entry``).
_ENTRY_FIELDS = {"shard": int, "name": str, "start": int, "stop": int, "count": int,
                 "sha256": str, "bytes": int}


def valid_entry(entry) -> bool:
    """Whether ``entry`` (read from a progress record or a manifest) is a shard entry as
    ``shard_entry`` writes it, naming a path inside the dataset; anything else means "this
    shard is not done".

    Examples
    --------
    >>> valid_entry(shard_entry(Shard(0, 0, 2), "a.tar", 2, "ab", 10))
    True
    >>> valid_entry({}), valid_entry([]), valid_entry({**shard_entry(Shard(0, 0, 2),
    ...     "../a.tar", 2, "ab", 10)})
    (False, False, False)
    """
    return (isinstance(entry, dict)
            and all(isinstance(entry.get(k), t) and not isinstance(entry.get(k), bool)
                    for k, t in _ENTRY_FIELDS.items())
            and entry["shard"] >= 0 and inside(entry["name"]))


def read_entries(records) -> dict[int, dict]:
    """shard number -> entry of the progress records ``records`` (paths) that can be read
    and are valid (``valid_entry``); a missing, truncated or malformed record is skipped:
    its shard is not done."""
    entries = {}
    for record in records:
        try:
            entry = loads_json(Path(record).read_bytes())
        except (OSError, ValueError):
            continue
        if valid_entry(entry):
            entries[entry["shard"]] = entry
    return entries


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
        manifest = loads_json(path.read_bytes())
    except ValueError:
        return {"config": None}
    return manifest if isinstance(manifest, dict) else {"config": None}
