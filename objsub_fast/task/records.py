"""Prompts and task records (docs/design.md, "Task record") from a batch's structure-of-arrays
fields."""
from __future__ import annotations

from .._version import generator_version
from .vocabulary import (ATTRIBUTE, CLASSIC, DIFFICULTY, ENUMERATE, KINDS, LEVELS, ODDITY, ORDER,
                         ORIGINAL_FRAMES, PROMPT_SUFFIX, REGION, REGION_NAMES, SIZE, TASK_CATEGORY,
                         WORDINGS, irregular_plurals, plural)

__all__ = ["task_id", "prompt_and_rule", "reword", "task_record", "task_records"]


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
    return task_records(batch, slice(i, i + 1))[0]


def task_records(batch, rows=slice(None)) -> list:
    """The task records (:func:`task_record`) of the tasks ``rows`` of ``batch`` (default: all),
    built together: each array is read once, not once per field of every object.

    Examples
    --------
    >>> from objsub_fast.engine import generate_batch
    >>> batch = generate_batch([1, 2, 3], render=False)
    >>> task_records(batch) == [task_record(batch, i) for i in range(3)]
    True
    """
    config = batch.config
    vocabulary = config.vocabulary
    color_names, shape_names = vocabulary.colors, vocabulary.shape_labels
    version = generator_version(batch.canvas_size, classic=config.classic, look=config.look,
                                irregular_plurals=irregular_plurals(shape_names))
    width, height = batch.canvas_size
    columns = zip(batch.seeds[rows].tolist(), batch.level_codes[rows].tolist(),
                  batch.num_objects[rows].tolist(), batch.kind[rows].tolist(),
                  batch.color[rows].tolist(), batch.shape[rows].tolist(), batch.x[rows].tolist(),
                  batch.y[rows].tolist(), batch.size[rows].tolist(), batch.area[rows].tolist(),
                  batch.removed[rows].tolist(), batch.prompts[rows], batch.rule_params[rows])
    records = []
    for seed, level_code, n, kind_code, colors, shapes, xs, ys, sizes, areas, flags, prompt, \
            params in columns:
        level = LEVELS[level_code]
        objects = [
            {"id": k, "color": color_names[colors[k]], "shape": shape_names[shapes[k]],
             "x": xs[k], "y": ys[k], "size": sizes[k], "area": areas[k]}
            for k in range(n)]
        removed = [k for k in range(n) if flags[k]]
        kept = [k for k in range(n) if not flags[k]]
        rule = {"level": level, "rule_type": KINDS[kind_code].name, **params,
                "target_object_ids": removed}
        record = {
            "id": task_id(level, seed),
            "prompt": prompt,
            "level": level,
            "task_category": TASK_CATEGORY,
            "difficulty": DIFFICULTY[level],
            "object_subtraction_data": {
                "objects": objects, "rule": rule, "remove_object_ids": removed,
                "keep_object_ids": kept, "num_objects": n, "num_removed": len(removed),
                "num_kept": len(kept)},
            "seed": seed,
            "canvas_size": [width, height],
            "generator": "objsub-fast",
            "generator_version": version,
        }
        if config.look != "flat":
            record["look"] = config.look
        if not config.classic:
            record["vocabulary"] = vocabulary.record(colors[:n], shapes[:n])
        records.append(record)
    return records
