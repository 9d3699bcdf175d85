"""Compact JSON of a batch's task records, written straight from its columns.

``compact_records(batch, first_index, version)`` returns, per task, the bytes that
``json.dumps(record, separators=(",", ":")).encode()`` gives for its record
(``records.task_records``) with ``task_index`` added and ``generator_version`` set, as a
dataset sample stores them (the WebDataset ``{key}.json`` member). It builds no dicts: the
objects of the whole batch are formatted in one pass over flat columns, and every name is
JSON-escaped once per batch, not once per task. ``records.task_records`` stays the definition of
a record; ``tests/test_record_json.py`` holds the two equal over every vocabulary, look, level
and canvas size.
"""
from __future__ import annotations

import json
from functools import lru_cache
from json.encoder import encode_basestring_ascii as _string

import numpy as np

from .records import task_id
from .vocabulary import DIFFICULTY, KINDS, LEVELS, TASK_CATEGORY

__all__ = ["compact_records"]

_COMPACT = json.JSONEncoder(separators=(",", ":"), check_circular=False)
_OBJECT = '{"id":%d,%s,"x":%s,"y":%s,"size":%d,"area":%d}'
_RECORD = ('{"id":%s,"prompt":%s%s%s],"rule":{"level":%s,"rule_type":%s%s"target_object_ids":'
           '[%s]},"remove_object_ids":[%s],"keep_object_ids":[%s],"num_objects":%d,'
           '"num_removed":%d,"num_kept":%d},"seed":%d%s%s,"task_index":%d}')


@lru_cache(maxsize=4)
def _halves(count: int) -> tuple[str, ...]:
    """JSON of the floats 0, 0.5, 1.0, ... (``count`` of them): ``repr`` as json writes it."""
    return tuple(repr(v / 2) for v in range(count))


def _coordinates(values: np.ndarray) -> list[str]:
    """JSON of float coordinates: looked up when every one is a multiple of 0.5 in
    [0, 16384] (an object's centre on the canvas always is), else ``repr`` of each."""
    doubled = np.rint(values * 2)
    if doubled.size and 0 <= doubled.min() and doubled.max() <= 32768 and np.array_equal(
            doubled / 2, values):
        table = _halves(int(doubled.max()) + 1)
        return [table[v] for v in doubled.astype(np.int64).tolist()]
    return [repr(v) for v in values.tolist()]


def _object_lists(batch) -> list[str]:
    """Per task, the JSON of its object list's items (without the brackets)."""
    vocabulary = batch.config.vocabulary
    shapes = [_string(s) for s in vocabulary.shape_labels]
    pairs = ['"color":%s,"shape":%s' % (_string(c), s) for c in vocabulary.colors
             for s in shapes]
    n, slots = batch.color.shape
    counts = batch.num_objects.astype(np.int64)
    used = np.arange(slots) < counts[:, None]
    ids = np.broadcast_to(np.arange(slots), (n, slots))[used].tolist()
    codes = (batch.color[used].astype(np.int64) * len(shapes) + batch.shape[used]).tolist()
    items = [_OBJECT % (k, pairs[c], x, y, s, a) for k, c, x, y, s, a in zip(
        ids, codes, _coordinates(batch.x[used]), _coordinates(batch.y[used]),
        batch.size[used].tolist(), batch.area[used].tolist())]
    ends = np.cumsum(counts).tolist()
    return [",".join(items[a:b]) for a, b in zip([0] + ends[:-1], ends)]


def compact_records(batch, first_index: int, version: str) -> list[bytes]:
    """The compact JSON of every task record of ``batch``, as a sample stores it.

    Parameters
    ----------
    batch : engine Batch (``generate_batch``; frames not needed)
    first_index : int
        Task index of the batch's first task (``task_index`` of the records).
    version : str
        The ``generator_version`` the records carry (the run's).

    Returns
    -------
    list of bytes
        Equal to the compact ``json.dumps`` of each ``task_records(batch)`` record with
        ``task_index`` and ``generator_version`` set.

    Examples
    --------
    >>> from objsub_fast.engine import generate_batch
    >>> from objsub_fast.task.records import task_records
    >>> batch = generate_batch([3, 4], level="L2", render=False)
    >>> records = task_records(batch)
    >>> for i, record in enumerate(records):
    ...     record.update(task_index=10 + i, generator_version="0.1.0")
    >>> compact_records(batch, 10, "0.1.0") == [
    ...     json.dumps(r, separators=(",", ":")).encode() for r in records]
    True
    """
    config = batch.config
    width, height = batch.canvas_size
    tail = ',"canvas_size":[%d,%d],"generator":"objsub-fast","generator_version":%s' % (
        width, height, _string(version))
    if config.look != "flat":
        tail += ',"look":' + _string(config.look)
    heads = [',"level":%s,"task_category":%s,"difficulty":%s,"object_subtraction_data":'
             '{"objects":[' % (_string(level), _string(TASK_CATEGORY), _string(DIFFICULTY[level]))
             for level in LEVELS]
    levels = [_string(level) for level in LEVELS]
    kinds = [_string(kind.name) for kind in KINDS]
    vocabulary = None if config.classic else config.vocabulary
    columns = zip(batch.seeds.tolist(), batch.level_codes.tolist(), batch.num_objects.tolist(),
                  batch.kind.tolist(), batch.removed.tolist(), batch.prompts, batch.rule_params,
                  _object_lists(batch), batch.color.tolist(), batch.shape.tolist())
    out = []
    for i, (seed, level, n, kind, flags, prompt, params, objects, colors, shapes) in enumerate(
            columns):
        removed = [k for k in range(n) if flags[k]]
        ids = ",".join(map(str, removed))
        rule = "," + _COMPACT.encode(params)[1:-1] + "," if params else ","
        extra = ("" if vocabulary is None else
                 ',"vocabulary":' + _COMPACT.encode(vocabulary.record(colors[:n], shapes[:n])))
        out.append((_RECORD % (
            _string(task_id(LEVELS[level], seed)), _string(prompt), heads[level], objects,
            levels[level], kinds[kind], rule, ids, ids,
            ",".join([str(k) for k in range(n) if not flags[k]]), n, len(removed),
            n - len(removed), seed, tail, extra,
            first_index + i)).encode())
    return out
