"""Draw docs/levels.png (the classic vocabulary, exact prompts) and its companions
docs/levels_solid.png (the same tasks in the solid look) and docs/levels_extended.png (extended
vocabulary, flat shape names, reworded prompts): first/final pairs with their prompts, a row per
level; the README's docs/row_flat.png and docs/row_solid.png: one row of the same three
tasks (L1, L2, L3) in each look; and docs/shapes_both_looks.png (``make_shapes_png.py``).

Run: ``python scripts/make_levels_png.py`` (all), or ``python scripts/make_levels_png.py
classic|solid|extended|row_flat|row_solid|shapes [OUT.png]``. Each picture is a pure function of the seeds and options below,
so rerunning it reproduces the committed files.
"""
import sys

from make_shapes_png import draw_shapes

from objsub_fast import generate_batch
from objsub_fast.dataset.run.preview import contact_sheet, save_sheet
from objsub_fast.task.vocabulary import LEVELS

PER_LEVEL = 3
SEEDS = [7, 21, 33]
#: name -> (output file, generate_batch options[, levels of a one-row picture])
PICTURES = {
    "classic": ("docs/levels.png", {}),
    "solid": ("docs/levels_solid.png", {"look": "solid"}),
    "row_flat": ("docs/row_flat.png", {}, ["L1", "L2", "L3"]),
    "row_solid": ("docs/row_solid.png", {"look": "solid"}, ["L1", "L2", "L3"]),
    "extended": ("docs/levels_extended.png",
                 {"vocabulary": "extended", "shape_names": "flat", "prompt_variants": 4}),
}
#: The sheet of every shape in both looks (``make_shapes_png.py``).
SHAPES = "shapes"


def draw(name, out=None):
    if name == SHAPES:
        return draw_shapes(out)
    default_out, options, *row = PICTURES[name]
    out = out or default_out
    levels = row[0] if row else [lv for lv in LEVELS for _ in range(PER_LEVEL)]
    batch = generate_batch((SEEDS * len(LEVELS))[:len(levels)], level=levels, **options)
    save_sheet(contact_sheet(batch, columns=PER_LEVEL), out)
    print(f"wrote {out}")


def main(argv):
    names = [*PICTURES, SHAPES]
    if argv and argv[0] not in names:
        sys.exit(f"usage: make_levels_png.py [{'|'.join(names)} [OUT.png]]")
    for name in argv[:1] or names:
        draw(name, *argv[1:2])


if __name__ == "__main__":
    main(sys.argv[1:])
