"""docs/shapes_both_looks.png: every shape in both looks, as the renderer draws it, small, and
redrawn the same by scripts/make_shapes_png.py."""
import importlib.util
from pathlib import Path

import numpy as np
from PIL import Image

from objsub_fast.scoring.reading.looks import LOOKS, picture
from objsub_fast.task.vocabulary import COLOR_TABLE, SHAPE_TABLE

ROOT = Path(__file__).resolve().parents[1]
PNG = ROOT / "docs" / "shapes_both_looks.png"


def _script():
    spec = importlib.util.spec_from_file_location("make_shapes_png",
                                                  ROOT / "scripts" / "make_shapes_png.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_sheet_shows_every_shape_in_both_looks_and_is_small():
    m = _script()
    drawn = m.sheet()
    assert np.array_equal(drawn, m.sheet())                       # deterministic
    committed = np.asarray(Image.open(PNG).convert("RGB"))
    assert committed.shape == drawn.shape and PNG.stat().st_size < 150_000
    off = (m.CELL - 8 - m.SIZE) // 2
    for row, look in enumerate(LOOKS):
        for code in range(len(SHAPE_TABLE)):
            x = m.LABEL_W + code * m.CELL + 4 + off
            y = m.PAD + row * (m.CELL + m.CAPTION_H) + 4 + off
            want = picture(look, code, m.SIZE, COLOR_TABLE[m.COLORS[code]])
            assert np.array_equal(committed[y:y + m.SIZE, x:x + m.SIZE], want), (look, code)
    assert len(set(m.COLORS)) == len(SHAPE_TABLE)
