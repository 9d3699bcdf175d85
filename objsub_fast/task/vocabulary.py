"""The task vocabulary every step imports: colours, shapes, levels, rule kinds, prompts.

Nothing here computes; it only names things. The classic vocabulary (the original task's six
colours and four shapes) is ``COLORS``/``SHAPES``; every colour and shape the engine can draw is
in ``COLOR_TABLE``/``SHAPE_TABLE`` (one table each), and a :class:`Vocabulary` picks some of them.
The integer codes of the structure-of-arrays batches index the batch's vocabulary (``color``
0..len(colors)-1, ``shape`` 0..len(shapes)-1); ``kind`` indexes ``KINDS``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..runtime.errors import ParameterError

__all__ = [
    "COLORS", "COLOR_RGB", "SHAPES", "COLOR_TABLE", "SHAPE_TABLE", "BACKGROUND_RGB",
    "OUTLINE_RGB", "OUTLINE_WIDTH", "LEVELS", "DIFFICULTY", "TASK_CATEGORY", "PROMPT_SUFFIX",
    "MIN_SPACING", "EDGE_MARGIN", "ORDER_GAP", "SIZE_GAP", "SIZE_RANGE", "REGIONS",
    "REGION_NAMES", "Kind", "KINDS", "LEVEL_KINDS", "kind_code", "WORDINGS", "Vocabulary",
    "CLASSIC", "EXTENDED", "LOOKS", "PRESETS", "SHAPE_NAMINGS", "shape_code", "parse_colors",
    "parse_shapes", "parse_vocabulary", "parse_shape_names", "parse_prompt_variants",
    "plural",
]

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

#: Every colour the engine can draw, name -> RGB: the classic six first, then four more. Each is
#: at CIEDE2000 >= 15 from every other, from the white background and from the black outline
#: (closest pair: blue/purple 19.8; of the new ones red/brown 23.0, white/cyan 25.5).
COLOR_TABLE = {
    **{name: tuple(int(v) for v in rgb) for name, rgb in zip(COLORS, COLOR_RGB)},
    "cyan": (0, 255, 255), "pink": (255, 105, 180), "brown": (139, 69, 19),
    "teal": (0, 128, 128),
}

#: Every shape the engine can draw as (solid name, flat name); a shape's global code is its index
#: here (the classic four first, in ``SHAPES`` order). Its geometry is ``render.SHAPE_OUTLINES``.
#: The extended four were chosen because they stay recognisable at 12 px and the scorer's shape
#: features tell each silhouette from every other at every size (a hexagon or a plus-shaped
#: cross comes too close to a disk or a diamond below 20 px; a five-pointed star's arms are
#: lost in its outline at 12 px). Every name takes "s" for its plural.
SHAPE_TABLE = (
    ("cube", "square"), ("sphere", "circle"), ("pyramid", "triangle"), ("cone", "trapezoid"),
    ("diamond", "diamond"), ("hourglass", "hourglass"), ("dome", "semicircle"), ("pillar", "bar"),
)


def plural(name: str) -> str:
    """The English plural of a shape name ("cubes", "hourglasses").

    Examples
    --------
    >>> plural("cube"), plural("hourglass"), plural("bar")
    ('cubes', 'hourglasses', 'bars')
    """
    return name + ("es" if name.endswith(("s", "x", "z", "ch", "sh")) else "s")


def irregular_plurals(names) -> bool:
    """Whether a shape name of ``names`` has a plural other than name + "s".

    Examples
    --------
    >>> irregular_plurals(["cube", "bar"]), irregular_plurals(["cube", "hourglass"])
    (False, True)
    """
    return any(plural(name) != name + "s" for name in names)


#: How objects are drawn: "flat" (outlined polygons: square, circle, ...; the original look) or
#: "solid" (lit solids: a shaded cube, sphere, ...), ``generate_batch(look=...)``.
LOOKS = ("flat", "solid")

#: How shapes are named: "solid" (the original task's cube, sphere, ...) or "flat".
SHAPE_NAMINGS = ("solid", "flat")

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
    raise ParameterError(f"kind {name!r} is not a rule kind of {level}; allowed: {names}")

#: Prompt wordings: 0 is the original prompt; the others put its object phrase (the words between
#: the verb and the original's ending, e.g. "all red objects") into another sentence with the
#: same plain meaning. ``generate_batch(prompt_variants=N)`` draws one of the first N.
WORDINGS = ("{original}", "Delete {phrase}.", "Make {phrase} disappear.", "Get rid of {phrase}.")
#: The sentence frames of the original prompts, from which the object phrase is read.
ORIGINAL_FRAMES = ("Remove {phrase} from the scene.", "Move {phrase} out of view.",
                   "Remove {phrase}.")


def shape_code(name: str) -> int:
    """Global code (index into ``SHAPE_TABLE``) of a shape given by its solid or flat name.

    Examples
    --------
    >>> shape_code("cube"), shape_code("circle"), shape_code("hourglass")
    (0, 1, 5)
    """
    for code, names in enumerate(SHAPE_TABLE):
        if name in names:
            return code
    raise KeyError(name)


@dataclass(frozen=True)
class Vocabulary:
    """The colours and shapes one batch draws from, and how shapes are named.

    Attributes
    ----------
    colors : tuple of str
        Colour names (keys of ``COLOR_TABLE``), in code order.
    shapes : tuple of int
        Global shape codes (indices into ``SHAPE_TABLE``), in code order.
    shape_names : str
        "solid" or "flat".

    Examples
    --------
    >>> v = Vocabulary(("red", "cyan"), (0, 5), "flat")
    >>> v.shape_labels, v.is_classic
    (('square', 'hourglass'), False)
    >>> CLASSIC.is_classic, CLASSIC.shape_labels == SHAPES
    (True, True)
    """

    colors: tuple
    shapes: tuple
    shape_names: str = "solid"

    @property
    def rgb(self) -> np.ndarray:
        """(len(colors), 3) uint8 RGB of the colours."""
        return np.array([COLOR_TABLE[c] for c in self.colors], np.uint8).reshape(-1, 3)

    @property
    def shape_labels(self) -> tuple:
        """The shapes' names as prompts and records write them."""
        column = SHAPE_NAMINGS.index(self.shape_names)
        return tuple(SHAPE_TABLE[code][column] for code in self.shapes)

    @property
    def is_classic(self) -> bool:
        """True for the original task's vocabulary (its records carry no vocabulary)."""
        return self == CLASSIC

    def record(self, color_codes=None, shape_codes=None) -> dict:
        """The ``vocabulary`` entry of a task record: the colours (with RGB) and shapes given
        by code (default: all), in code order, and the shape naming."""
        colors = range(len(self.colors)) if color_codes is None else sorted(set(color_codes))
        shapes = range(len(self.shapes)) if shape_codes is None else sorted(set(shape_codes))
        return {"colors": {self.colors[c]: list(COLOR_TABLE[self.colors[c]]) for c in colors},
                "shapes": [self.shape_labels[h] for h in shapes],
                "shape_names": self.shape_names}

    @classmethod
    def from_record(cls, record: dict) -> "Vocabulary":
        """The vocabulary a task record's names refer to (classic when it carries none).

        Colour codes of the result index the record's colours, shape codes its shapes. A
        record's RGB must agree with ``COLOR_TABLE`` (a ValueError says which does not).
        """
        entry = record.get("vocabulary")
        if entry is None:
            return CLASSIC
        for name, rgb in entry["colors"].items():
            if tuple(COLOR_TABLE.get(name, ())) != tuple(rgb):
                raise ValueError(f"record colour {name!r} {rgb} is not a colour of this engine")
        try:
            shapes = tuple(shape_code(name) for name in entry["shapes"])
        except KeyError as exc:
            raise ValueError(f"record shape {exc.args[0]!r} is not a shape of this engine") from None
        return cls(tuple(entry["colors"]), shapes, entry.get("shape_names", "solid"))


CLASSIC = Vocabulary(COLORS, tuple(range(len(SHAPES))), "solid")
EXTENDED = Vocabulary(tuple(COLOR_TABLE), tuple(range(len(SHAPE_TABLE))), "solid")
#: Named vocabularies (``--vocabulary``).
PRESETS = {"classic": CLASSIC, "extended": EXTENDED}


def _option_error(option: str, message: str) -> ParameterError:
    return ParameterError(f"{option}: {message}")


def _names(option: str, text, allowed) -> tuple:
    items = text.split(",") if isinstance(text, str) else list(text)
    items = [i.strip() if isinstance(i, str) else i for i in items]
    if not items or any(not isinstance(i, str) or not i for i in items):
        raise _option_error(option, f"must be a comma-separated list of names from {allowed}; "
                                    f"got {text!r}")
    unknown = [i for i in items if i not in allowed]
    if unknown:
        raise _option_error(option, f"unknown name(s) {unknown}; allowed: {allowed}")
    if len(set(items)) != len(items):
        raise _option_error(option, f"names a value twice: {items}")
    return tuple(items)


def parse_colors(text, option: str = "--colors") -> tuple:
    """Colour names from ``"red,green"`` (or a sequence), checked against ``COLOR_TABLE``.

    Examples
    --------
    >>> parse_colors("red, cyan")
    ('red', 'cyan')
    """
    return _names(option, text, list(COLOR_TABLE))


def parse_shapes(text, option: str = "--shapes") -> tuple:
    """Global shape codes from solid or flat names (``"cube,hourglass"`` or a sequence).

    Examples
    --------
    >>> parse_shapes("cube,circle,hourglass")
    (0, 1, 5)
    """
    names = _names(option, text, list(dict.fromkeys(n for pair in SHAPE_TABLE for n in pair)))
    codes = tuple(shape_code(n) for n in names)
    if len(set(codes)) != len(codes):
        raise _option_error(option, f"names one shape twice (solid and flat name): {names}")
    return codes


def parse_vocabulary(text, option: str = "--vocabulary") -> Vocabulary:
    """A preset by name: "classic" or "extended".

    Examples
    --------
    >>> parse_vocabulary("extended").colors[-1]
    'teal'
    """
    if text not in PRESETS:
        raise _option_error(option, f"must be one of {list(PRESETS)}; got {text!r}")
    return PRESETS[text]


def parse_shape_names(text, option: str = "--shape-names") -> str:
    """"solid" or "flat".

    Examples
    --------
    >>> parse_shape_names("flat")
    'flat'
    """
    if text not in SHAPE_NAMINGS:
        raise _option_error(option, f"must be one of {list(SHAPE_NAMINGS)}; got {text!r}")
    return text


def parse_prompt_variants(value, option: str = "--prompt-variants") -> int:
    """The number of wordings to draw from, 1..len(WORDINGS) (1: the original prompts only).

    Examples
    --------
    >>> parse_prompt_variants("3")
    3
    """
    try:
        number = int(value) if not isinstance(value, (bool, float)) else None
    except (TypeError, ValueError):
        number = None
    if number is None or not 1 <= number <= len(WORDINGS):
        raise _option_error(option, f"must be an integer in [1, {len(WORDINGS)}]; got {value!r}")
    return number
