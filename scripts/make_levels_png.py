"""Draw docs/levels.png: first/final pairs with their prompts, a row per level.

Run: ``python scripts/make_levels_png.py [OUT.png]``. The picture is a pure function of the
seeds below, so rerunning it reproduces the committed file.
"""
import sys

from objsub_fast import generate_batch
from objsub_fast.preview import contact_sheet, save_sheet
from objsub_fast.vocabulary import LEVELS

PER_LEVEL = 3
SEEDS = [7, 21, 33]


def main(out="docs/levels.png"):
    levels = [lv for lv in LEVELS for _ in range(PER_LEVEL)]
    batch = generate_batch(SEEDS * len(LEVELS), level=levels)
    save_sheet(contact_sheet(batch, columns=PER_LEVEL), out)
    print(f"wrote {out}")


if __name__ == "__main__":
    main(*sys.argv[1:])
