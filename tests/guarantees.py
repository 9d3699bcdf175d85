"""Independent checks of the guarantees of docs/design.md on one task record (shared by the
tests)."""
import math

from objsub_fast.task.interpret import interpret_prompt

# The lengths are given for a 256 px canvas. The scene is decided in 256 units (objsub_fast.task.units)
# and scaled by min(W, H)/256; at every canvas size each length holds in whole pixels: at least
# ceil(length * min(W, H) / 256).
LENGTHS_256 = {"edge": 10, "spacing": 10, "order_gap": 10, "size_gap": 12, "size_range": 15}


def lengths(w, h):
    return {k: -(-v * min(w, h) // 256) for k, v in LENGTHS_256.items()}

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
    px = lengths(w, h)
    EDGE, SPACING, ORDER_GAP = px["edge"], px["spacing"], px["order_gap"]
    SIZE_GAP, SIZE_RANGE = px["size_gap"], px["size_range"]
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


def check_pixels(batch, i):
    """Assert that task ``i``'s frames show its record: one 8-connected blob per object with the
    object's area, instance maps that agree, and a final frame that is the first with the
    removed objects' pixels white. Flat look: exactly the object's colour besides the black
    outline. Solid look: the median colour of its pixels nearest (CIEDE2000) its named colour
    of all ``COLOR_TABLE``, and the hue of its fully covered pixels that colour's (shading
    changes lightness only). Returns the (region, object) pairs for further checks."""
    import numpy as np
    from skimage.measure import label, regionprops

    from objsub_fast.task.vocabulary import COLOR_TABLE

    task = batch.task(i)
    solid = task.get("look", "flat") == "solid"
    objects = task["object_subtraction_data"]["objects"]
    removed = task["object_subtraction_data"]["remove_object_ids"]
    first, final, inst = batch.first_frames[i], batch.final_frames[i], batch.instance_maps[i]
    drawn = np.any(first != 255, axis=2)
    np.testing.assert_array_equal(drawn, inst > 0)
    blobs = label(drawn, connectivity=2)
    assert blobs.max() == len(objects)
    pairs = []
    for region in regionprops(blobs):
        ids = np.unique(inst[blobs == region.label])
        assert len(ids) == 1
        obj = objects[ids[0] - 1]
        assert region.area == obj["area"]
        pixels = first[blobs == region.label]
        if solid:
            assert nearest_colour(np.median(pixels, axis=0)) == obj["color"], obj
            assert_hue_kept(pixels, COLOR_TABLE[obj["color"]])
        else:
            colors = {tuple(p) for p in pixels} - {(0, 0, 0)}
            assert colors == {tuple(COLOR_TABLE[obj["color"]])}
        pairs.append((region, obj))
    erased = np.isin(inst, [k + 1 for k in removed])
    assert (final[erased] == 255).all()
    np.testing.assert_array_equal(final[~erased], first[~erased])
    return pairs


def nearest_colour(rgb):
    """The name of the ``COLOR_TABLE`` colour nearest ``rgb`` by CIEDE2000."""
    import numpy as np
    from skimage.color import deltaE_ciede2000, rgb2lab

    from objsub_fast.task.vocabulary import COLOR_TABLE

    names = list(COLOR_TABLE)
    table = rgb2lab(np.array([[COLOR_TABLE[n] for n in names]], float) / 255)[0]
    here = rgb2lab(np.asarray(rgb, float).reshape(1, 1, 3) / 255)[0, 0]
    return names[int(np.argmin(deltaE_ciede2000(here[None], table)))]


def assert_hue_kept(pixels, rgb, tolerance=0.02):
    """Every pixel of ``pixels`` (n, 3) that is ``rgb`` darkened (scaled) or lightened (mixed
    with white) keeps its hue: the pixels of a lit solid are those, anti-aliased edges aside
    (blends with the white background are lightenings too)."""
    import numpy as np
    from skimage.color import rgb2hsv

    base = rgb2hsv(np.array([[rgb]], float) / 255)[0, 0]
    hsv = rgb2hsv(pixels.reshape(1, -1, 3).astype(float) / 255)[0]
    coloured = hsv[:, 1] > 0.15          # grey-ish pixels (near-white edges) carry no hue
    if base[1] > 0:
        diff = np.abs((hsv[coloured, 0] - base[0] + 0.5) % 1.0 - 0.5)
        # 8-bit rounding moves the hue of dark or pale pixels a little
        assert np.quantile(diff, 0.99) <= tolerance, (rgb, float(diff.max()))
