"""Prompts and task records (docs/design.md, "Task record") from a batch's structure-of-arrays
fields."""
from __future__ import annotations

from ._version import generator_version
from .vocabulary import (
    ATTRIBUTE, CLASSIC, DIFFICULTY, ENUMERATE, KINDS, LEVELS, ODDITY, ORDER, ORIGINAL_FRAMES,
    PROMPT_SUFFIX, REGION, REGION_NAMES, SIZE, TASK_CATEGORY, WORDINGS, plural,
)

__all__ = ["task_id", "prompt_and_rule", "reword", "task_record"]


def task_id(level: str, seed: int) -> str:
    """The task id: unique per (level, seed).

    Examples
    --------
    >>> task_id("L2", 7)
    'object_subtraction_l2_7'
    """
    return f"object_subtraction_{level.lower()}_{seed}"


def _listed_items(pairs, colors, shapes, vocabulary):
    """'the red cube' / 'all red cubes' for each listed (colour, shape) pair, joined."""
    items = []
    for c, h in pairs:
        matches = sum(1 for cc, hh in zip(colors, shapes) if cc == c and hh == h)
        color, shape = vocabulary.colors[c], vocabulary.shape_labels[h]
        items.append(f"the {color} {shape}" if matches == 1 else f"all {color} {plural(shape)}")
    if len(items) == 2:
        return f"{items[0]} and {items[1]}"
    return ", ".join(items[:-1]) + ", and " + items[-1]


def reword(sentence: str, wording: int) -> str:
    """An original prompt sentence (without the suffix) in wording ``wording`` of ``WORDINGS``.

    Examples
    --------
    >>> reword("Remove all red objects from the scene.", 2)
    'Make all red objects disappear.'
    >>> reword("Move the object farthest from the center out of view.", 1)
    'Delete the object farthest from the center.'
    """
    if wording == 0:
        return sentence
    for frame in ORIGINAL_FRAMES:
        head, tail = frame.split("{phrase}")
        if sentence.startswith(head) and sentence.endswith(tail):
            phrase = sentence[len(head): len(sentence) - len(tail)]
            return WORDINGS[wording].format(phrase=phrase)
    raise AssertionError(f"no original frame fits {sentence!r}")


def prompt_and_rule(kind_code, variant, colors, shapes, removed_ids, pair_codes,
                    vocabulary=CLASSIC, wording=0):
    """Return (prompt, rule parameters) of one task.

    ``colors``/``shapes`` are the object code lists (codes of ``vocabulary``), ``removed_ids``
    the removed object ids, ``variant`` the kernel's per-kind draw (attribute value, N, region
    index), ``wording`` the index into ``WORDINGS``.
    """
    kind = KINDS[kind_code]
    n_removed = len(removed_ids)
    fields = {"n": n_removed}
    params = {}
    if kind.family == ATTRIBUTE:
        key, names = (("color", vocabulary.colors) if kind.param == 0
                      else ("shape", vocabulary.shape_labels))
        fields[key] = names[variant]
        params[f"remove_{key}"] = names[variant]
    elif kind.family == SIZE:
        params["size_type"] = kind.name
    elif kind.family == ENUMERATE:
        pairs = [divmod(int(code), len(vocabulary.shapes)) for code in pair_codes[:kind.param]]
        fields["items"] = _listed_items(pairs, colors, shapes, vocabulary)
        params["targets"] = [{"color": vocabulary.colors[c], "shape": vocabulary.shape_labels[h]}
                             for c, h in pairs]
    elif kind.family == ORDER:
        params["n"] = n_removed
    elif kind.family == REGION:
        fields["region"] = REGION_NAMES[variant]
        params["region"] = REGION_NAMES[variant]
        params["n"] = n_removed
    elif kind.family == ODDITY:
        params["odd_object_id"] = int(removed_ids[0])
    template = kind.one if n_removed == 1 else kind.many
    return reword(template.format(**fields), wording) + PROMPT_SUFFIX, params


def task_record(batch, i: int) -> dict:
    """The JSON-serialisable task record of task ``i`` of ``batch``.

    A record made with anything but the classic vocabulary and exact prompts also carries
    ``vocabulary``: the colours (with RGB) and shapes its scene uses and the shape naming, so
    scoring and verifying need nothing else. A classic record has no such entry. A record of
    the solid look says ``"look": "solid"`` (a flat record has no ``look``: flat is what every
    record before the solid look showed).
    """
    config = batch.config
    vocabulary = config.vocabulary
    level = LEVELS[int(batch.level_codes[i])]
    n = int(batch.num_objects[i])
    kind = KINDS[int(batch.kind[i])]
    colors, shapes = batch.color[i, :n].tolist(), batch.shape[i, :n].tolist()
    objects = [
        {"id": k, "color": vocabulary.colors[colors[k]], "shape": vocabulary.shape_labels[shapes[k]],
         "x": float(batch.x[i, k]), "y": float(batch.y[i, k]), "size": int(batch.size[i, k]),
         "area": int(batch.area[i, k])}
        for k in range(n)]
    removed = [k for k in range(n) if batch.removed[i, k]]
    kept = [k for k in range(n) if not batch.removed[i, k]]
    rule = {"level": level, "rule_type": kind.name, **batch.rule_params[i],
            "target_object_ids": removed}
    record = {
        "id": task_id(level, int(batch.seeds[i])),
        "prompt": batch.prompts[i],
        "level": level,
        "task_category": TASK_CATEGORY,
        "difficulty": DIFFICULTY[level],
        "object_subtraction_data": {
            "objects": objects, "rule": rule, "remove_object_ids": removed,
            "keep_object_ids": kept, "num_objects": n, "num_removed": len(removed),
            "num_kept": len(kept)},
        "seed": int(batch.seeds[i]),
        "canvas_size": [batch.canvas_size[0], batch.canvas_size[1]],
        "generator": "objsub-fast",
        "generator_version": generator_version(batch.canvas_size, classic=config.classic,
                                               shapes=vocabulary.shape_labels,
                                               look=config.look),
    }
    if config.look != "flat":
        record["look"] = config.look
    if not config.classic:
        record["vocabulary"] = vocabulary.record(colors, shapes)
    return record
