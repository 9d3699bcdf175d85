"""Draw docs/shapes_both_looks.png: every shape (the classic four, then the extended four) in
the flat look (top row) and the solid look (bottom row), each column in one colour, each drawing
labelled by the shape's name in that look (``vocabulary.SHAPE_TABLE``: square under the flat
drawing, cube under the solid one).

Run: ``python scripts/make_shapes_png.py [OUT.png]`` (``scripts/make_levels_png.py`` runs it
too). The picture is a pure function of the table below, so rerunning it reproduces the
committed file.
"""
import sys

import numpy as np
from PIL import Image, ImageDraw

from objsub_fast.dataset.run.preview import BACKGROUND, TEXT, _font, save_sheet
from objsub_fast.scoring.reading.looks import LOOKS, picture
from objsub_fast.task.vocabulary import COLOR_TABLE, SHAPE_NAMINGS, SHAPE_TABLE

OUT = "docs/shapes_both_looks.png"
#: Each shape's colour, in SHAPE_TABLE order.
COLORS = ("red", "blue", "green", "orange", "purple", "yellow", "pink", "teal")
SIZE, CELL, LABEL_W, CAPTION_H, PAD = 96, 112, 56, 22, 8


def sheet() -> np.ndarray:
    """The (H, W, 3) uint8 sheet."""
    looks = list(LOOKS)
    width = LABEL_W + CELL * len(SHAPE_TABLE) + PAD
    height = PAD + (CELL + CAPTION_H) * len(looks)
    img = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(img)
    font = _font()
    for row, look in enumerate(looks):
        top = PAD + row * (CELL + CAPTION_H)
        draw.text((PAD, top + CELL // 2 - 8), look, fill=TEXT, font=font)
        for code, names in enumerate(SHAPE_TABLE):
            left = LABEL_W + code * CELL
            tile = np.full((CELL - 8, CELL - 8, 3), 255, np.uint8)
            off = (CELL - 8 - SIZE) // 2
            tile[off:off + SIZE, off:off + SIZE] = picture(look, code, SIZE,
                                                          COLOR_TABLE[COLORS[code]])
            img.paste(Image.fromarray(tile), (left + 4, top + 4))
            caption = names[SHAPE_NAMINGS.index(look)]   # square (flat), cube (solid)
            draw.text((left + (CELL - font.getlength(caption)) / 2, top + CELL), caption,
                      fill=TEXT, font=font)
    return np.asarray(img)


def draw_shapes(out: str | None = None) -> None:
    """Write the sheet to ``out`` (default :data:`OUT`)."""
    out = out or OUT
    save_sheet(sheet(), out)
    print(f"wrote {out}")


if __name__ == "__main__":
    draw_shapes(*sys.argv[1:2])
