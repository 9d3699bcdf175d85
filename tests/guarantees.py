"""Independent checks of the guarantees of docs/design.md on one task record (shared by the
tests)."""
import math

from objsub_fast.interpret import interpret_prompt

EDGE, SPACING, ORDER_GAP, SIZE_GAP, SIZE_RANGE = 10, 10, 10, 12, 15

ORDER_VALUE = {
    "leftmost": lambda o, w, h: o["x"], "rightmost": lambda o, w, h: -o["x"],
    "topmost": lambda o, w, h: o["y"], "bottommost": lambda o, w, h: -o["y"],
    "farthest_center": lambda o, w, h: -math.hypot(o["x"] - w / 2, o["y"] - h / 2),
    "nearest_center": lambda o, w, h: math.hypot(o["x"] - w / 2, o["y"] - h / 2),
    "corner": lambda o, w, h: min(math.hypot(o["x"] - a, o["y"] - b)
                                  for a in (0, w) for b in (0, h)),
}
DIVIDERS = {  # (vertical lines, horizontal lines) as fractions of W / H
    "far_left": ([0.25], []), "far_right": ([0.75], []), "upper_half": ([], [0.5]),
    "lower_half": ([], [0.5]), "quadrant": ([0.5], [0.5]),
}


def square(o):
    half = o["size"] / 2
    return o["x"] - half, o["y"] - half, o["x"] + half, o["y"] + half


def check_task(task):
    """Assert every guarantee of docs/design.md on ``task``; return the removed ids."""
    data = task["object_subtraction_data"]
    objects, rule = data["objects"], data["rule"]
    w, h = task["canvas_size"]
    removed, kept = data["remove_object_ids"], data["keep_object_ids"]
    assert removed and kept, "every task removes at least one object and keeps at least one"
    assert sorted(removed + kept) == list(range(len(objects))) == [o["id"] for o in objects]
    assert rule["target_object_ids"] == removed
    assert (data["num_objects"], data["num_removed"], data["num_kept"]) == (
        len(objects), len(removed), len(kept))
    assert task["prompt"].endswith(" Do not do anything to other objects.")
    # Placement: inside margins, bounding squares >= 10 px apart along x or y.
    for o in objects:
        x0, y0, x1, y1 = square(o)
        assert x0 >= EDGE and y0 >= EDGE and x1 <= w - EDGE and y1 <= h - EDGE, o
    for a in objects:
        for b in objects:
            if a["id"] < b["id"]:
                ax0, ay0, ax1, ay1 = square(a)
                bx0, by0, bx1, by1 = square(b)
                gap = max(bx0 - ax1, ax0 - bx1, by0 - ay1, ay0 - by1)
                assert gap >= SPACING, (a, b)
    # The prompt's plain meaning equals the ground truth.
    assert interpret_prompt(task["prompt"], objects, (w, h)) == removed
    kind = rule["rule_type"]
    sizes = {o["id"]: o["size"] for o in objects}
    if task["level"] == "L1" and kind in ("largest", "smallest"):
        sign = 1 if kind == "largest" else -1
        for r in removed:
            for k in kept:
                assert sign * (sizes[r] - sizes[k]) >= SIZE_GAP
        assert max(sizes.values()) - min(sizes.values()) >= SIZE_RANGE
    if task["level"] == "L3" and kind in ORDER_VALUE:
        values = sorted(ORDER_VALUE[kind](o, w, h) for o in objects)
        n = len(removed)
        assert values[n] - values[n - 1] >= ORDER_GAP
    if task["level"] == "L3" and kind in DIVIDERS:
        xs, ys = DIVIDERS[kind]
        for o in objects:
            x0, y0, x1, y1 = square(o)
            assert not any(x0 < f * w < x1 for f in xs), o
            assert not any(y0 < f * h < y1 for f in ys), o
    if task["level"] == "L3" and kind in ("far_left", "far_right"):
        assert 1 <= len(removed) <= 3
    if task["level"] == "L4":
        # Exactly one object differs; the attribute that does not single it out shows every
        # value at least twice.
        assert len(removed) == 1
        odd = objects[removed[0]]
        others = [o for o in objects if o is not odd]
        differs = {"combo": ("color", "shape"), "shape": ("shape",), "color": ("color",)}[kind]
        for key in differs:
            assert len({o[key] for o in others}) == 1 and odd[key] != others[0][key]
        for key in {"color", "shape"} - set(differs):
            counts = [sum(o[key] == v for o in objects) for v in {o[key] for o in objects}]
            assert len(counts) >= 2 and min(counts) >= 2
    return removed
