"""``verify``'s check of ``vmeval_dataset.json`` (the file VMEvalKit's runner reads).

The file is a pure function of the configuration: a head line (name, description, metadata),
one line per pair in task order (a pair's line is its task's ``question_metadata.json``, which
points at that task's own image files), and a closing line. Each shard's verify job hashes its
regenerated pair lines (``vmevalkit.ShardReader.summary``); this check reads the file once, line
by line, and hashes each shard's lines the same way, so a correct file costs one read in
constant memory whatever its size. For a shard whose lines differ, it regenerates that shard's
tasks up to the first differing pair and names it and its first differing field.
"""
from __future__ import annotations

import hashlib

from ....runtime.jsonfile import loads as loads_json
from ...content.plan import shard_batches
from .dataset_file import (
                           DATASET_FILE, PAIR_SEP, PAIRS_CLOSE, PAIRS_OPEN, dataset_head, task_metadata,
                           )

__all__ = ["check_dataset_file", "MAX_LINE"]

#: Longest line read at once; a pair's line is about 1.5 KB, so a longer one differs anyway.
MAX_LINE = 1 << 20
#: What follows the last pair's line, and the file's last line.
_LAST_SEP, _CLOSE = PAIRS_CLOSE[:1], PAIRS_CLOSE[1:]
_SHOWN = 70


def check_dataset_file(config, path, plan, summaries: dict) -> list[str]:
    """Problems of ``vmeval_dataset.json`` at ``path`` against the file ``config`` gives.

    ``summaries`` maps shard number -> SHA-256 of its regenerated pair lines (each followed by
    a newline). One problem per differing part: the head, each shard with a differing pair
    (naming its first one), and anything after the last pair.
    """
    try:
        f = open(path, "rb")
    except OSError as e:
        return [f"{DATASET_FILE}: missing or unreadable ({e.strerror})"]
    problems = []
    with f:
        line, head = f.readline(MAX_LINE), dataset_head(config.to_json())
        if line != head:
            problems.append(f"{DATASET_FILE}: head {_head_difference(line, head)}")
        for shard in plan:
            begin = f.tell()
            sha = hashlib.sha256()
            for _, pair, _ in _pair_lines(f, shard, config.count):
                sha.update(b"\0" if pair is None else pair + b"\n")
            if sha.hexdigest() != summaries.get(shard.index):
                end = f.tell()
                f.seek(begin)
                problems.append(_first_difference(f, config, shard))
                f.seek(end)
        rest = f.read(len(_CLOSE) + 1)
    if rest != _CLOSE:
        problems.append(f"{DATASET_FILE}: the pair list does not close after the "
                        f"configuration's {config.count} pairs (more pairs, or other data)")
    return problems


def _pair_lines(f, shard, count: int):
    """Yield (task index, the pair's line without its separator or None, raw line) for each
    task of ``shard``; None when the line does not end with the right separator."""
    for i in range(shard.start, shard.stop):
        raw = f.readline(MAX_LINE)
        sep = PAIR_SEP if i < count - 1 else _LAST_SEP
        yield i, raw[:-len(sep)] if raw.endswith(sep) else None, raw


def _records(config, shard):
    """The task records of ``shard``, regenerated as ``verify`` does (a chunk at a time; the
    caller stops at the first differing pair, so a shard is rendered at most once more)."""
    for start, batch in shard_batches(config, shard, None):
        for i, record in enumerate(batch.tasks()):
            record["task_index"] = start + i  # as ``members.encode_samples`` adds it
            yield record


def _first_difference(f, config, shard) -> str:
    """The first pair of ``shard`` whose line differs from the regenerated one."""
    actual = _pair_lines(f, shard, config.count)
    for record in _records(config, shard):
        i, pair, raw = next(actual)
        expected = task_metadata(record)
        if pair != expected:
            return (f"{DATASET_FILE}: pair {i} ({record['id']}): "
                    f"{_pair_difference(pair, raw, expected, i == config.count - 1)}")
    return f"{DATASET_FILE}: the lines of tasks {shard.start}-{shard.stop - 1} differ"


def _pair_difference(pair: bytes | None, raw: bytes, expected: bytes, last: bool) -> str:
    """What is wrong with one pair's line (``pair`` is None when its separator is wrong)."""
    if pair is None:
        if raw in (b"", _CLOSE):
            return "missing (the file lists fewer pairs than the configuration's count)"
        pair = raw.rstrip(b"\n").rstrip(b",")
        if pair == expected:
            return ("followed by more pairs than the configuration's count" if last
                    else "ends the pair list (no ',' after it): the file lists fewer pairs "
                    "than the configuration's count")
    try:
        actual = loads_json(pair)
    except ValueError:
        return "not a JSON pair on one line (the file holds one pair per line)"
    return _difference(actual, loads_json(expected)) or "formatted differently"


def _head_difference(line: bytes, head: bytes) -> str:
    """What is wrong with the head line (name, description, metadata, created_at)."""
    if not line.endswith(PAIRS_OPEN):
        return "is not the head line objsub-fast writes (name, ..., then one pair per line)"
    try:
        actual = loads_json(line[:-len(PAIRS_OPEN)] + b"}")
    except ValueError:
        return "is not valid JSON"
    return _difference(actual, loads_json(head[:-len(PAIRS_OPEN)] + b"}")) or \
        "formatted differently"


def _difference(actual, expected, path: str = "") -> str | None:
    """The first field where ``actual`` differs from ``expected`` (None if equal)."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key, value in expected.items():
            if key not in actual:
                return f"{path}{key} missing"
            found = _difference(actual[key], value, f"{path}{key}.")
            if found:
                return found
        extra = [k for k in actual if k not in expected]
        if extra:
            return f"unexpected field {path}{extra[0]}"
        return None if list(actual) == list(expected) else \
            f"fields of {path.rstrip('.') or 'the pair'} in another order"
    if (isinstance(expected, list) and isinstance(actual, list)  # lists of objects: by item
            and len(actual) == len(expected) and any(isinstance(e, dict) for e in expected)):
        for k, (a, e) in enumerate(zip(actual, expected)):
            found = _difference(a, e, f"{path.rstrip('.')}[{k}].")
            if found:
                return found
        return None
    if actual == expected and type(actual) is type(expected):
        return None
    return f"{path.rstrip('.')} is {_short(actual)}, expected {_short(expected)}"


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= _SHOWN else text[:_SHOWN - 3] + "..."
