"""Prompts and task records (DESIGN.md §Task record) from a batch's structure-of-arrays fields."""
from __future__ import annotations

from . import __version__
from .vocabulary import (
    ATTRIBUTE, COLORS, DIFFICULTY, ENUMERATE, KINDS, LEVELS, ODDITY, ORDER, PROMPT_SUFFIX,
    REGION, REGION_NAMES, SHAPES, SIZE, TASK_CATEGORY,
)


def task_id(level: str, seed: int) -> str:
    """The task id: unique per (level, seed)."""
    return f"object_subtraction_{level.lower()}_{seed}"


def _listed_pairs(pair_codes, count):
    """The (colour code, shape code) of each listed pair (codes are colour * 4 + shape)."""
    return [divmod(int(code), len(SHAPES)) for code in pair_codes[:count]]


def _listed_items(pairs, colors, shapes):
    """'the red cube' / 'all red cubes' for each listed (colour, shape) pair, joined."""
    items = []
    for c, h in pairs:
        matches = sum(1 for cc, hh in zip(colors, shapes) if cc == c and hh == h)
        name = f"{COLORS[c]} {SHAPES[h]}"
        items.append(f"the {name}" if matches == 1 else f"all {name}s")
    if len(items) == 2:
        return f"{items[0]} and {items[1]}"
    return ", ".join(items[:-1]) + ", and " + items[-1]


def prompt_and_rule(kind_code, variant, colors, shapes, removed_ids, pair_codes):
    """Return (prompt, rule parameters) of one task.

    ``colors``/``shapes`` are the object code lists, ``removed_ids`` the removed object ids,
    ``variant`` the kernel's per-kind draw (attribute value, N, region index).
    """
    kind = KINDS[kind_code]
    n_removed = len(removed_ids)
    fields = {"n": n_removed}
    params = {}
    if kind.family == ATTRIBUTE:
        key, names = ("color", COLORS) if kind.param == 0 else ("shape", SHAPES)
        fields[key] = names[variant]
        params[f"remove_{key}"] = names[variant]
    elif kind.family == SIZE:
        params["size_type"] = kind.name
    elif kind.family == ENUMERATE:
        pairs = _listed_pairs(pair_codes, kind.param)
        fields["items"] = _listed_items(pairs, colors, shapes)
        params["targets"] = [{"color": COLORS[c], "shape": SHAPES[h]} for c, h in pairs]
    elif kind.family == ORDER:
        params["n"] = n_removed
    elif kind.family == REGION:
        fields["region"] = REGION_NAMES[variant]
        params["region"] = REGION_NAMES[variant]
        params["n"] = n_removed
    elif kind.family == ODDITY:
        params["odd_object_id"] = int(removed_ids[0])
    template = kind.one if n_removed == 1 else kind.many
    return template.format(**fields) + PROMPT_SUFFIX, params


def task_record(batch, i: int) -> dict:
    """The JSON-serialisable task record of task ``i`` of ``batch``."""
    level = LEVELS[int(batch.level_codes[i])]
    n = int(batch.num_objects[i])
    kind = KINDS[int(batch.kind[i])]
    objects = [
        {"id": k, "color": COLORS[int(batch.color[i, k])], "shape": SHAPES[int(batch.shape[i, k])],
         "x": float(batch.x[i, k]), "y": float(batch.y[i, k]), "size": int(batch.size[i, k]),
         "area": int(batch.area[i, k])}
        for k in range(n)]
    removed = [k for k in range(n) if batch.removed[i, k]]
    kept = [k for k in range(n) if not batch.removed[i, k]]
    rule = {"level": level, "rule_type": kind.name, **batch.rule_params[i],
            "target_object_ids": removed}
    return {
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
        "generator_version": __version__,
    }
