"""Draw docs/levels.png (the classic vocabulary, exact prompts) and its companion
docs/levels_extended.png (extended vocabulary, flat shape names, reworded prompts): first/final
pairs with their prompts, a row per level.

Run: ``python scripts/make_levels_png.py`` (both), or ``python scripts/make_levels_png.py
classic|extended [OUT.png]``. Each picture is a pure function of the seeds and options below,
so rerunning it reproduces the committed files.
"""
import sys

from objsub_fast import generate_batch
from objsub_fast.preview import contact_sheet, save_sheet
from objsub_fast.vocabulary import LEVELS

PER_LEVEL = 3
SEEDS = [7, 21, 33]
#: name -> (output file, generate_batch options)
PICTURES = {
    "classic": ("docs/levels.png", {}),
    "extended": ("docs/levels_extended.png",
                 {"vocabulary": "extended", "shape_names": "flat", "prompt_variants": 4}),
}


def draw(name, out=None):
    default_out, options = PICTURES[name]
    out = out or default_out
    levels = [lv for lv in LEVELS for _ in range(PER_LEVEL)]
    batch = generate_batch(SEEDS * len(LEVELS), level=levels, **options)
    save_sheet(contact_sheet(batch, columns=PER_LEVEL), out)
    print(f"wrote {out}")


def main(argv):
    if argv and argv[0] not in PICTURES:
        sys.exit(f"usage: make_levels_png.py [{'|'.join(PICTURES)} [OUT.png]]")
    for name in argv[:1] or PICTURES:
        draw(name, *argv[1:2])


if __name__ == "__main__":
    main(sys.argv[1:])
