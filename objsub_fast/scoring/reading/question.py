"""One validator of question (task) records, with the generator's own limits.

Every scoring path (``score_video``, the ``score`` command, the VBVR-Bench reader) reads a task
record through :func:`check_question`. A record the generator could not have written is refused
with a :class:`~objsub_fast.runtime.errors.TaskError` that names the field and the allowed values; the
scorer turns it into that task's error record. The limits are the generator's:
``config.check_canvas`` (64..8192 px a side), ``config.MAX_OBJECTS``, object sizes
:data:`OBJECT_SIZE_LIMITS` (``config.make_config``'s ``object_size`` range), the colour and
shape names of ``vocabulary``; every task removes at least one object and keeps at least one.

Examples
--------
>>> from objsub_fast import generate_batch
>>> q = check_question(generate_batch([1]).task(0))
>>> q.canvas_size, len(q.objects) >= 5, 0 < len(q.remove_ids) < len(q.objects)
((256, 256), True, True)
>>> bad = generate_batch([1]).task(0)
>>> bad["object_subtraction_data"]["remove_object_ids"] = ["3"]
>>> check_question(bad)
Traceback (most recent call last):
...
objsub_fast.runtime.errors.TaskError: remove_object_ids must be a list of object ids (integers); got '3'
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

from ...runtime.errors import ParameterError, TaskError
from ...task.config import MAX_OBJECTS, check_canvas
from ...task.vocabulary import LEVELS, LOOKS, Vocabulary

__all__ = ["Question", "check_question", "find_record", "as_task_record", "OBJECT_SIZE_LIMITS"]

#: Object sizes the generator accepts (``object_size`` in ``config.make_config``).
OBJECT_SIZE_LIMITS = (4, 4096)
#: Longest task id and prompt a record may hold (the generator's are under 100 and 300).
MAX_ID_CHARS = 200
MAX_PROMPT_CHARS = 2000


@dataclass(frozen=True)
class Question:
    """A validated task record: what the scorer needs of it.

    Attributes
    ----------
    task_id, level, rule_kind, prompt : str
    canvas_size : (W, H)
    objects : tuple of dict
        ``id``, ``color``, ``shape``, ``x``, ``y``, ``size`` of each object, sorted by id.
    remove_ids : tuple of int
        The task's target set.
    vocabulary : objsub_fast.task.vocabulary.Vocabulary
        The colours and shapes the record's names refer to (classic when it names none).
    look : str
        How the task draws its objects (``vocabulary.LOOKS``; ``"flat"`` when it names none).
    """

    task_id: str
    level: str
    rule_kind: str
    prompt: str
    canvas_size: tuple
    objects: tuple
    remove_ids: tuple
    vocabulary: Vocabulary
    look: str = "flat"


def _is_int(v) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _is_number(v) -> bool:
    """A finite real number that a float can hold (not 10**400: too large for a float)."""
    try:
        return isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(v)
    except OverflowError:
        return False


def _shown(value) -> str:
    """``repr(value)``, its middle cut out when long (a 400-digit number, a long text)."""
    if isinstance(value, str) and len(value) > 40:
        return f"{value[:17]!r}...{value[-17:]!r} ({len(value):,} characters)"
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:18]}...{text[-18:]} ({len(text)} characters)"


def _field(mapping, key, where):
    if not isinstance(mapping, dict):
        raise TaskError(f"{where} must be a JSON object; got {type(mapping).__name__}")
    if key not in mapping:
        raise TaskError(f"{where} has no '{key}'")
    return mapping[key]


def _check_object(obj, k, canvas, vocab) -> dict:
    where = f"objects[{k}]"
    out = {}
    oid = _field(obj, "id", where)
    if not _is_int(oid) or oid < 0:
        raise TaskError(f"{where}.id must be an integer >= 0; got {oid!r}")
    for key, names in (("color", vocab.colors), ("shape", vocab.shape_labels)):
        value = _field(obj, key, where)
        if value not in names:
            raise TaskError(f"{where}.{key} must be one of {list(names)}; got {value!r}")
        out[key] = value
    size = _field(obj, "size", where)
    lo, hi = OBJECT_SIZE_LIMITS
    if not _is_int(size) or not lo <= size <= hi:
        raise TaskError(f"{where}.size must be an integer in [{lo}, {hi}]; got {size!r}")
    for key, extent in (("x", canvas[0]), ("y", canvas[1])):
        value = _field(obj, key, where)
        if not _is_number(value):
            raise TaskError(f"{where}.{key} must be a finite number; got {_shown(value)}")
        if not (size / 2 <= value <= extent - size / 2):
            raise TaskError(f"{where}.{key} = {value} puts the object (size {size}) outside the "
                            f"canvas: it must be in [{size / 2}, {extent - size / 2}]")
        out[key] = float(value)
    out.update(id=int(oid), size=int(size))
    return out


def _check_ids(value, ids, name) -> tuple:
    if not isinstance(value, (list, tuple)):
        raise TaskError(f"{name} must be a list of object ids (integers); got {value!r}")
    for v in value:
        if not _is_int(v):
            raise TaskError(f"{name} must be a list of object ids (integers); got {v!r}")
        if v not in ids:
            raise TaskError(f"{name} names object {v}, which is not in the task "
                            f"(ids {sorted(ids)})")
    if len(set(value)) != len(value):
        raise TaskError(f"{name} lists an object twice: {list(value)}")
    return tuple(sorted(int(v) for v in value))


#: The key every task record has (and nothing else the project writes around one).
RECORD_KEY = "object_subtraction_data"
#: How deep inside another file's JSON a task record is looked for.
RECORD_DEPTH = 3


def find_record(data) -> dict | None:
    """The task record in the JSON ``data`` of any file the project writes: ``data`` itself
    (VMEvalKit's ``question_metadata.json``, a WebDataset sample's ``.json``,
    ``batch.task(i)``), or the record inside it (VBVR's ``metadata.json`` holds it as
    ``task``, beside ``parameters``, the record without its id): the shallowest dict with
    ``object_subtraction_data``, a whole record (one with an ``id``) first. None when there
    is none.

    Examples
    --------
    >>> record = {"id": "t1", "object_subtraction_data": {}}
    >>> find_record(record) is record
    True
    >>> find_record({"task_id": "t1", "parameters": {"object_subtraction_data": {}},
    ...              "task": record}) is record
    True
    >>> find_record({"prompt": "Remove ..."}) is None
    True
    """
    layer, found = [data], []
    for _ in range(RECORD_DEPTH + 1):
        found = [d for d in layer if isinstance(d, dict) and RECORD_KEY in d]
        if found:
            break
        layer = [v for d in layer if isinstance(d, dict) for v in d.values()]
    whole = [d for d in found if "id" in d]
    return (whole or found or [None])[0]


def as_task_record(data):
    """The task record in ``data`` (:func:`find_record`), or ``data`` unchanged when it holds
    none (:func:`check_question` then says what is missing)."""
    record = find_record(data)
    return data if record is None else record


def _check_words(record) -> tuple[str, str, str]:
    """The record's id, level and prompt, checked: an id a string (or integer) of at most
    :data:`MAX_ID_CHARS` characters, a level one of ``LEVELS``, a prompt a string of at most
    :data:`MAX_PROMPT_CHARS`; each may be missing (empty)."""
    task_id = record.get("id", "")
    if not (isinstance(task_id, str) or _is_int(task_id)) or len(str(task_id)) > MAX_ID_CHARS:
        raise TaskError(f"id must be a string of at most {MAX_ID_CHARS} characters; got "
                        f"{_shown(task_id)}")
    level = record.get("level", "")
    if level != "" and level not in LEVELS:
        raise TaskError(f"level must be one of {list(LEVELS)}; got {_shown(level)}")
    prompt = record.get("prompt", "")
    if not isinstance(prompt, str) or len(prompt) > MAX_PROMPT_CHARS:
        raise TaskError(f"prompt must be a string of at most {MAX_PROMPT_CHARS:,} characters; "
                        f"got {_shown(prompt)}")
    return str(task_id), level, prompt


def check_question(record) -> Question:
    """Validate a task record and return its :class:`Question`.

    Parameters
    ----------
    record : dict
        A task record (``question_metadata.json``, ``batch.task(i)``).

    Raises
    ------
    TaskError
        Naming the first field that is missing or outside the generator's limits.
    """
    data = _field(record, "object_subtraction_data", "the task record")
    raw_canvas = record.get("canvas_size", [256, 256])
    if not (_is_int(raw_canvas) or isinstance(raw_canvas, (list, tuple))):
        raise TaskError("canvas_size must be an int or a (width, height) pair; "
                        f"got {raw_canvas!r}")
    try:
        canvas = check_canvas(raw_canvas)
    except ParameterError as exc:
        raise TaskError(str(exc)) from None
    objects = _field(data, "objects", "object_subtraction_data")
    if not isinstance(objects, list) or not 2 <= len(objects) <= MAX_OBJECTS:
        raise TaskError(f"objects must be a list of 2 to {MAX_OBJECTS} objects; got "
                        f"{len(objects) if isinstance(objects, list) else repr(objects)}")
    try:
        vocab = Vocabulary.from_record(record)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise TaskError(f"vocabulary: {exc}") from None
    objs = sorted((_check_object(o, k, canvas, vocab) for k, o in enumerate(objects)),
                  key=lambda o: o["id"])
    ids = [o["id"] for o in objs]
    if len(set(ids)) != len(ids):
        raise TaskError(f"object ids must be unique; got {ids}")
    remove = _check_ids(_field(data, "remove_object_ids", "object_subtraction_data"), set(ids),
                        "remove_object_ids")
    if not remove:
        raise TaskError("remove_object_ids is empty: every task removes at least one object")
    if len(remove) == len(ids):
        raise TaskError("remove_object_ids names every object: every task keeps at least one")
    look = record.get("look", "flat")
    if look not in LOOKS:
        raise TaskError(f"look must be one of {list(LOOKS)}; got {_shown(look)}")
    task_id, level, prompt = _check_words(record)
    rule = data.get("rule") if isinstance(data.get("rule"), dict) else {}
    kind = rule.get("rule_type", "")
    if not isinstance(kind, str) or len(kind) > MAX_ID_CHARS:
        raise TaskError(f"rule.rule_type must be a string; got {_shown(kind)}")
    return Question(task_id=task_id, level=level, rule_kind=kind, prompt=prompt,
                    canvas_size=canvas,
                    objects=tuple(objs), remove_ids=remove, vocabulary=vocab, look=look)
