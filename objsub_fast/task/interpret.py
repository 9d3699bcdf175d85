"""Re-derive the removed set from a prompt's text and the object list alone.

This is the plain meaning of each prompt, written independently of the generator: it reads
only the words of the prompt and the objects' colour, shape, size and centre. A prompt whose
words do not fit the scene (e.g. "the red cube" when there are two) is an error, not a guess.
Every colour and shape name of the engine (solid and flat) is understood, and every wording:
"Delete X.", "Make X disappear." and "Get rid of X." mean what the original sentence about the
same objects X means.
"""
from __future__ import annotations

import math
import re

from ..runtime.errors import InterpretError
from .vocabulary import COLOR_TABLE, PROMPT_SUFFIX, SHAPE_TABLE, plural

__all__ = ["interpret_prompt", "PATTERNS"]

# Longest names first, so that no name stops the match at a shorter one it starts with.
_COLOR = "|".join(sorted(COLOR_TABLE, key=len, reverse=True))
_SHAPE = "|".join(sorted({n for names in SHAPE_TABLE for n in names}, key=len, reverse=True))
#: Shape name of each plural the generator writes ("hourglasses" -> "hourglass").
_SINGULAR = {plural(n): n for names in SHAPE_TABLE for n in names}
_SHAPES = "|".join(sorted(_SINGULAR, key=len, reverse=True))
#: Other wordings of a prompt: each gives the phrase naming the objects.
_REWORDINGS = [re.compile(p) for p in (r"Delete (?P<phrase>.+)\.",
                                       r"Make (?P<phrase>.+) disappear\.",
                                       r"Get rid of (?P<phrase>.+)\.")]
#: The original sentences a phrase can stand in.
_SENTENCES = ("Remove {} from the scene.", "Move {} out of view.", "Remove {}.")


def _count(match) -> int:
    return int(match.group("n")) if match.group("n") else 1


def _with(objects, key, value):
    return [o["id"] for o in objects if o[key] == value]


def _by_attribute(key):
    def select(m, objects, canvas):
        ids = _with(objects, key, m.group(key))
        if not ids:
            raise ValueError(f"no object is {m.group(key)}: the prompt does not fit the scene")
        return ids
    return select


def _by_size(m, objects, canvas):
    pick = max if m.group("ext") == "largest" else min
    extreme = pick(o["size"] for o in objects)
    ids = _with(objects, "size", extreme)
    if (m.group("det") == "the") != (m.group("noun") == "object"):
        raise ValueError(f"'{m.group('det')} ... {m.group('noun')}' is not a prompt form")
    if (m.group("det") == "the") != (len(ids) == 1):
        raise ValueError(f"prompt says '{m.group('det')} {m.group('ext')}' but {len(ids)} "
                         "objects have that size")
    return ids


def _by_items(m, objects, canvas):
    text = m.group("items")
    parts = re.split(r", and |, | and ", text)
    if len(parts) not in (2, 3):
        raise ValueError(f"cannot read the list {text!r}")
    ids, seen = set(), set()
    for part in parts:
        one = re.fullmatch(rf"the ({_COLOR}) ({_SHAPE})", part)
        many = re.fullmatch(rf"all ({_COLOR}) ({_SHAPES})", part)
        if not (one or many):
            raise ValueError(f"cannot read list item {part!r}")
        color, shape = (one or many).groups()
        shape = _SINGULAR[shape] if many else shape
        if (color, shape) in seen:
            raise ValueError(f"list names {color} {shape} twice")
        seen.add((color, shape))
        hits = [o["id"] for o in objects if o["color"] == color and o["shape"] == shape]
        if (one and len(hits) != 1) or (many and len(hits) < 2):
            raise ValueError(f"'{part}' does not fit the scene: {len(hits)} such objects")
        ids.update(hits)
    return ids


_ORDER_KEYS = {
    "leftmost": lambda o, w, h: o["x"],
    "rightmost": lambda o, w, h: -o["x"],
    "topmost": lambda o, w, h: o["y"],
    "bottommost": lambda o, w, h: -o["y"],
    "farthest": lambda o, w, h: -math.hypot(o["x"] - w / 2, o["y"] - h / 2),
    "nearest": lambda o, w, h: math.hypot(o["x"] - w / 2, o["y"] - h / 2),
    "corner": lambda o, w, h: min(math.hypot(o["x"] - cx, o["y"] - cy)
                                  for cx in (0, w) for cy in (0, h)),
}


def _by_order(key):
    def select(m, objects, canvas):
        n = _count(m)
        if n >= len(objects):
            raise ValueError(f"prompt asks for {n} of {len(objects)} objects")
        ranked = sorted(objects, key=lambda o: _ORDER_KEYS[key](o, *canvas))
        values = [_ORDER_KEYS[key](o, *canvas) for o in ranked]
        if values[n - 1] == values[n]:
            raise ValueError(f"'{key}' order is tied at position {n}")
        return [o["id"] for o in ranked[:n]]
    return select


_REGIONS = {
    "far left": lambda o, w, h: o["x"] < w / 4,
    "far right": lambda o, w, h: o["x"] > 3 * w / 4,
    "upper half": lambda o, w, h: o["y"] < h / 2,
    "lower half": lambda o, w, h: o["y"] > h / 2,
    "top-left": lambda o, w, h: o["x"] < w / 2 and o["y"] < h / 2,
    "top-right": lambda o, w, h: o["x"] > w / 2 and o["y"] < h / 2,
    "bottom-left": lambda o, w, h: o["x"] < w / 2 and o["y"] > h / 2,
    "bottom-right": lambda o, w, h: o["x"] > w / 2 and o["y"] > h / 2,
}


def _by_region(m, objects, canvas):
    ids = [o["id"] for o in objects if _REGIONS[m.group("region")](o, *canvas)]
    if "n" in m.re.groupindex and len(ids) != _count(m):
        raise ValueError(f"prompt says {_count(m)} on the {m.group('region')} side, "
                         f"scene has {len(ids)}")
    return ids


def _odd_one_out(m, objects, canvas):
    """The one object whose colour or shape differs while all the others share it."""
    found = []
    for o in objects:
        others = [p for p in objects if p is not o]
        for key in ("color", "shape"):
            values = {p[key] for p in others}
            if len(values) == 1 and o[key] not in values:
                found.append(o["id"])
                break
    if len(found) != 1:
        raise ValueError(f"{len(found)} objects look different from the others, expected one")
    return found


_N = r"(?:object|(?P<n>\d) objects)"
#: (pattern without the common suffix, meaning); the first full match wins.
PATTERNS = [(re.compile(p), f) for p, f in (
    (rf"Remove all (?P<color>{_COLOR}) objects from the scene\.", _by_attribute("color")),
    (rf"Remove all (?P<shape>{_SHAPE}) objects from the scene\.", _by_attribute("shape")),
    (r"Remove (?P<det>the|all) (?P<ext>largest|smallest) (?P<noun>objects?)\.", _by_size),
    (r"Remove (?P<items>(?:the|all) .+) from the scene\.", _by_items),
    (r"Remove the (?:(?P<n>\d) )?leftmost objects?\.", _by_order("leftmost")),
    (r"Remove the (?:(?P<n>\d) )?rightmost objects?\.", _by_order("rightmost")),
    (r"Remove the (?:(?P<n>\d) )?topmost objects?\.", _by_order("topmost")),
    (r"Remove the (?:(?P<n>\d) )?bottommost objects?\.", _by_order("bottommost")),
    (rf"Remove the {_N} on the (?P<region>far left|far right) side of the screen\.",
     _by_region),
    (r"Remove all objects in the (?P<region>upper half|lower half) of the image\.", _by_region),
    (r"Remove all objects in the (?P<region>top-left|top-right|bottom-left|bottom-right) "
     r"quadrant\.", _by_region),
    (rf"Move the {_N} farthest from the center out of view\.", _by_order("farthest")),
    (rf"Remove the {_N} nearest to the center\.", _by_order("nearest")),
    (r"Remove the (?:object closest to a corner|(?P<n>\d) objects closest to the corners)\.",
     _by_order("corner")),
    (r"Remove the object that looks different from the others\.", _odd_one_out),
)]


def interpret_prompt(prompt: str, objects, canvas_size=(256, 256)) -> list:
    """Return the sorted ids of the objects ``prompt`` tells to remove.

    Parameters
    ----------
    prompt : str
        A task prompt, with the common suffix.
    objects : list of dict
        Objects with ``id``, ``color``, ``shape``, ``size``, ``x``, ``y``.
    canvas_size : (int, int)
        Canvas (width, height).

    Raises
    ------
    objsub_fast.runtime.errors.InterpretError
        (a ValueError) when the prompt is not one the benchmark uses, or its words do not fit
        the scene.

    Examples
    --------
    >>> objects = [{"id": 0, "color": "red", "shape": "cube", "size": 20, "x": 40, "y": 40},
    ...            {"id": 1, "color": "cyan", "shape": "hourglass", "size": 30, "x": 200, "y": 90}]
    >>> interpret_prompt("Make all cyan objects disappear. Do not do anything to other "
    ...                  "objects.", objects)
    [1]
    >>> interpret_prompt("Remove the leftmost object. Do not do anything to other objects.",
    ...                  objects)
    [0]
    """
    if not prompt.endswith(PROMPT_SUFFIX):
        raise InterpretError(f"prompt does not end with {PROMPT_SUFFIX.strip()!r}: {prompt!r}")
    body = prompt[: -len(PROMPT_SUFFIX)]
    canvas = (float(canvas_size[0]), float(canvas_size[1]))
    bodies = [body]
    for rewording in _REWORDINGS:
        m = rewording.fullmatch(body)
        if m:
            bodies = [sentence.format(m.group("phrase")) for sentence in _SENTENCES]
            break
    errors = []
    for sentence in bodies:  # a phrase fits one original sentence; the others do not read
        for pattern, meaning in PATTERNS:
            m = pattern.fullmatch(sentence)
            if m:
                try:
                    return sorted(int(i) for i in meaning(m, objects, canvas))
                except ValueError as error:
                    errors.append(str(error))
                break
    if errors:
        raise InterpretError(errors[-1])  # the last frame that read is the most specific
    raise InterpretError(f"not a prompt of this benchmark: {prompt!r}")
