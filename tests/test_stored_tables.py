"""The detector's colour tables kept on disk (``scoring.tracking.stored_tables``): the table a
process reads is the one it would build, and a damaged, foreign or unwritable store only
means building it again."""
import numpy as np
import pytest

from objsub_fast.scoring.tracking import detect, stored_tables
from objsub_fast.scoring.tracking.stored_tables import stored_table


@pytest.mark.parametrize("colors, look", [(None, "flat"), ("first three", "solid")])
def test_the_table_in_use_is_the_one_built_now(colors, look):
    """Whether this process built it or read it from the package's store."""
    if colors == "first three":
        colors = tuple(map(tuple, detect.COLOR_RGB[:3].tolist()))
    used = detect.class_lut(colors, look)
    built = detect._build_class_lut(colors, look)
    assert used.shape == (64 ** 3,) and not used.flags.writeable
    assert np.array_equal(used, built)


def _never():
    raise AssertionError("built although stored")


def test_a_stored_table_is_read_and_not_built_again(tmp_path):
    table = np.arange(256, dtype=np.uint8)
    first = stored_table(("t", 1), lambda: table, tmp_path)
    again = stored_table(("t", 1), _never, tmp_path)
    assert np.array_equal(first, table) and np.array_equal(again, table)
    assert not again.flags.writeable
    assert len(list(tmp_path.iterdir())) == 1     # no temp file left beside it


def test_another_key_is_another_table(tmp_path):
    stored_table(("t", 1), lambda: np.zeros(8, np.uint8), tmp_path)
    other = stored_table(("t", 2), lambda: np.ones(8, np.uint8), tmp_path)
    assert other.tolist() == [1] * 8


def test_a_damaged_file_is_built_again_and_replaced(tmp_path):
    stored_table(("t",), lambda: np.full(64, 7, np.uint8), tmp_path)
    (path,) = tmp_path.iterdir()
    data = bytearray(path.read_bytes())
    data[-1] ^= 1
    path.write_bytes(bytes(data))
    assert stored_table(("t",), lambda: np.full(64, 7, np.uint8), tmp_path).tolist() == [7] * 64
    assert stored_table(("t",), _never, tmp_path).tolist() == [7] * 64
    path.write_bytes(b"short")
    assert stored_table(("t",), lambda: np.full(64, 9, np.uint8), tmp_path).tolist() == [9] * 64


def test_a_table_stored_by_other_sources_or_libraries_is_built_again(tmp_path, monkeypatch):
    stored_table(("t",), lambda: np.zeros(16, np.uint8), tmp_path)
    monkeypatch.setattr(stored_tables, "_inputs_digest", lambda key: bytes(32))
    assert stored_table(("t",), lambda: np.ones(16, np.uint8), tmp_path).tolist() == [1] * 16


def test_an_unwritable_store_still_gives_the_table(tmp_path):
    blocked = tmp_path / "a file, not a folder"
    blocked.write_bytes(b"")
    table = stored_table(("t",), lambda: np.full(4, 3, np.uint8), blocked / "tables")
    assert table.tolist() == [3] * 4 and not table.flags.writeable
