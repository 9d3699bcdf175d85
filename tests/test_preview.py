"""Contact sheet: layout, exact frames, save helper."""
import numpy as np
import pytest
from PIL import Image

from objsub_fast.engine import generate_batch
from objsub_fast.preview import FONT_SIZE, PAD, contact_sheet, save_sheet


@pytest.fixture(scope="module")
def batch():
    return generate_batch([1, 2, 3], level="L2")


def test_sheet_contains_the_exact_frames(batch):
    sheet = contact_sheet(batch, columns=2)
    assert sheet.dtype == np.uint8 and sheet.ndim == 3 and sheet.shape[2] == 3
    top = PAD + int(FONT_SIZE * 1.3) + 1
    assert np.array_equal(sheet[top:top + 256, PAD + 1:PAD + 257], batch.first_frames[0])
    left = PAD + 1 + 256 + 4
    assert np.array_equal(sheet[top:top + 256, left:left + 256], batch.final_frames[0])
    assert sheet.shape[1] > 2 * sheet.shape[0] * 0.5


def test_columns_change_layout_and_save_round_trips(batch, tmp_path):
    wide, tall = contact_sheet(batch, columns=3), contact_sheet(batch, columns=1)
    assert wide.shape[1] > tall.shape[1] and tall.shape[0] > wide.shape[0]
    path = save_sheet(wide, tmp_path / "s.png")
    with Image.open(path) as im:
        assert np.array_equal(np.asarray(im), wide)
