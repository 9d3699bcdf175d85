"""The task vocabulary every step imports: colours, shapes, levels, rule kinds, prompts.

Nothing here computes; it only names things. Indices into these tuples are the integer codes
used in the structure-of-arrays batches (``color`` 0..5, ``shape`` 0..3, ``kind`` 0..K-1).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Colour names, in code order, and their RGB values.
COLORS = ("red", "green", "blue", "yellow", "orange", "purple")
COLOR_RGB = np.array(
    [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0), (255, 165, 0), (128, 0, 128)],
    dtype=np.uint8,
)
BACKGROUND_RGB = (255, 255, 255)
OUTLINE_RGB = (0, 0, 0)
OUTLINE_WIDTH = 2

#: Shape names, in code order.
SHAPES = ("cube", "sphere", "pyramid", "cone")

LEVELS = ("L1", "L2", "L3", "L4")
DIFFICULTY = {"L1": "easy", "L2": "medium", "L3": "hard", "L4": "hard"}
TASK_CATEGORY = "ObjectSubtraction"
PROMPT_SUFFIX = " Do not do anything to other objects."

#: Spacing between bounding squares and from the canvas edge, in pixels.
MIN_SPACING = 10
EDGE_MARGIN = 10
#: Order rules: the N-th and (N+1)-th values differ by at least this.
ORDER_GAP = 10
#: Size rules: removed size vs every kept size, and the scene's size range.
SIZE_GAP = 12
SIZE_RANGE = 15

# Rule families: each family is one sampling/targeting routine, parameterised by the kind table.
ATTRIBUTE, SIZE, ENUMERATE, ORDER, REGION, ODDITY = range(6)

# ORDER keys: which value orders the objects, ascending (the first N are removed).
KEY_X, KEY_NEG_X, KEY_Y, KEY_NEG_Y, KEY_NEG_CENTER_DIST, KEY_CENTER_DIST, KEY_CORNER_DIST = range(7)

#: REGION rectangles as fractions of (W, H): (x_lo, x_hi, y_lo, y_hi); dividing lines are the
#: rectangle's inner edges.
REGIONS = (
    ("far left", (0.0, 0.25, 0.0, 1.0)),
    ("far right", (0.75, 1.0, 0.0, 1.0)),
    ("upper half", (0.0, 1.0, 0.0, 0.5)),
    ("lower half", (0.0, 1.0, 0.5, 1.0)),
    ("top-left", (0.0, 0.5, 0.0, 0.5)),
    ("top-right", (0.5, 1.0, 0.0, 0.5)),
    ("bottom-left", (0.0, 0.5, 0.5, 1.0)),
    ("bottom-right", (0.5, 1.0, 0.5, 1.0)),
)
REGION_NAMES = tuple(name for name, _ in REGIONS)


@dataclass(frozen=True)
class Kind:
    """One rule kind: its level, name, family, parameters and prompt templates.

    Attributes
    ----------
    level, name : str
        Level ("L1".."L4") and rule kind name (``rule_type`` in the task record).
    family : int
        Sampling/targeting routine (ATTRIBUTE, SIZE, ...).
    param : int
        Family parameter: attribute axis (0 colour, 1 shape); size direction (+1 largest,
        -1 smallest); number of listed items; order key; first region index; oddity variant
        (0 combo, 1 shape, 2 color).
    variants : int
        Number of consecutive regions the kind draws from (quadrant: 4), else 1.
    max_removed : int
        Upper bound on the number of removed objects the kind allows (0: n - 1).
    one, many : str
        Prompt templates (without the common suffix) for one / several removed objects.
    """

    level: str
    name: str
    family: int
    param: int
    one: str
    many: str
    variants: int = 1
    max_removed: int = 0


def _order(name, key, one, many, max_removed=3):
    return Kind("L3", name, ORDER, key, one, many, max_removed=max_removed)


def _region(name, region, one, many=None, variants=1, max_removed=0):
    return Kind("L3", name, REGION, region, one, many or one, variants, max_removed)


#: Every rule kind of every level; a kind's code is its index here.
KINDS = (
    Kind("L1", "color", ATTRIBUTE, 0, "Remove all {color} objects from the scene.",
         "Remove all {color} objects from the scene."),
    Kind("L1", "shape", ATTRIBUTE, 1, "Remove all {shape} objects from the scene.",
         "Remove all {shape} objects from the scene."),
    Kind("L1", "largest", SIZE, +1, "Remove the largest object.", "Remove all largest objects."),
    Kind("L1", "smallest", SIZE, -1, "Remove the smallest object.",
         "Remove all smallest objects."),
    Kind("L2", "enumerate_2", ENUMERATE, 2, "Remove {items} from the scene.",
         "Remove {items} from the scene."),
    Kind("L2", "enumerate_3", ENUMERATE, 3, "Remove {items} from the scene.",
         "Remove {items} from the scene."),
    _order("leftmost", KEY_X, "Remove the leftmost object.", "Remove the {n} leftmost objects."),
    _order("rightmost", KEY_NEG_X, "Remove the rightmost object.",
           "Remove the {n} rightmost objects."),
    _order("topmost", KEY_Y, "Remove the topmost object.", "Remove the {n} topmost objects."),
    _order("bottommost", KEY_NEG_Y, "Remove the bottommost object.",
           "Remove the {n} bottommost objects."),
    _region("far_left", 0, "Remove the object on the far left side of the screen.",
            "Remove the {n} objects on the far left side of the screen.", max_removed=3),
    _region("far_right", 1, "Remove the object on the far right side of the screen.",
            "Remove the {n} objects on the far right side of the screen.", max_removed=3),
    _region("upper_half", 2, "Remove all objects in the upper half of the image."),
    _region("lower_half", 3, "Remove all objects in the lower half of the image."),
    _region("quadrant", 4, "Remove all objects in the {region} quadrant.", variants=4),
    _order("farthest_center", KEY_NEG_CENTER_DIST,
           "Move the object farthest from the center out of view.",
           "Move the {n} objects farthest from the center out of view."),
    _order("nearest_center", KEY_CENTER_DIST, "Remove the object nearest to the center.",
           "Remove the {n} objects nearest to the center."),
    _order("corner", KEY_CORNER_DIST, "Remove the object closest to a corner.",
           "Remove the {n} objects closest to the corners.", max_removed=2),
    Kind("L4", "combo", ODDITY, 0, "Remove the object that looks different from the others.",
         "Remove the object that looks different from the others."),
    Kind("L4", "shape", ODDITY, 1, "Remove the object that looks different from the others.",
         "Remove the object that looks different from the others."),
    Kind("L4", "color", ODDITY, 2, "Remove the object that looks different from the others.",
         "Remove the object that looks different from the others."),
)

#: Kind codes of each level, in table order.
LEVEL_KINDS = {lv: tuple(i for i, k in enumerate(KINDS) if k.level == lv) for lv in LEVELS}


def kind_code(level: str, name: str) -> int:
    """Return the code of rule kind ``name`` within ``level``."""
    for code in LEVEL_KINDS[level]:
        if KINDS[code].name == name:
            return code
    names = [KINDS[c].name for c in LEVEL_KINDS[level]]
    raise ValueError(f"kind {name!r} is not a rule kind of {level}; allowed: {names}")
