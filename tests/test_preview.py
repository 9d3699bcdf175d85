"""Contact sheet: layout, exact frames, save helper."""
import numpy as np
import pytest
from PIL import Image

from objsub_fast.dataset.run.preview import FONT_SIZE, PAD, contact_sheet, save_sheet
from objsub_fast.engine import generate_batch


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


# --------------------------------------------------------------------------- command line

LIMITED = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
from objsub_fast.cli import main
sys.exit(main(sys.argv[1:]))
"""
#: Address space a preview may use (the sheet is at most 576 MiB; see MAX_SHEET_PIXELS).
AS_LIMIT = 3 * 2**30
#: The limit counts address space reserved per thread (BLAS buffers, malloc arenas), which grows
#: with the machine's core count and is not what this test is about: one thread each.
ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
              "MALLOC_ARENA_MAX": "2"}


def run_limited(args, tmp_path):
    import os
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-c", LIMITED.format(limit=AS_LIMIT), "preview",
                           *args, str(tmp_path / "sheet.png")], capture_output=True, text=True,
                          timeout=600, env={**os.environ, **ONE_THREAD})


def test_sheet_beyond_the_bound_is_refused_in_one_line(tmp_path):
    proc = run_limited(["--count", "1024", "--canvas-size", "4096"], tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.splitlines() == [
        "objsub-fast: error: --count 1024 --columns 4 --canvas-size 4096x4096 make a "
        "32832x1070600 contact sheet (33522 Mpixels); a sheet is limited to 192 Mpixels: "
        "lower --count or --canvas-size"]
    assert not list(tmp_path.iterdir())


# (the largest sheets: 1024 tasks at 256x256; one 4096x4096 task takes minutes to draw since
# objects scale with the canvas, too long for a unit test)
@pytest.mark.parametrize("args", [["--count", "1024"], ["--count", "1024", "--columns", "1"]])
def test_largest_sheets_are_written_within_the_memory_limit(tmp_path, monkeypatch, args):
    from objsub_fast.dataset.run.preview import MAX_SHEET_PIXELS

    proc = run_limited(args, tmp_path)
    assert proc.returncode == 0, proc.stderr
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", None)  # Pillow's decompression-bomb guard
    with Image.open(tmp_path / "sheet.png") as im:
        assert MAX_SHEET_PIXELS / 32 < im.width * im.height <= MAX_SHEET_PIXELS


def test_chunked_preview_equals_one_batch_sheet():
    from objsub_fast.dataset.run.preview import preview_sheet
    from objsub_fast.dataset.content.shards import task_seeds

    # 3 chunks of 80 tasks at 512x512 (auto_chunk_size), against one batch of every task
    sheet = preview_sheet("L4", count=170, seed=9, columns=16, canvas_size=(512, 512))
    batch = generate_batch(task_seeds(9, 0, 170), level="L4", canvas_size=512)
    assert np.array_equal(sheet, contact_sheet(batch, columns=16))


@pytest.mark.parametrize("args, message", [
    (["--level", "L9"], "--level must be one of L1, L2, L3, L4, got 'L9'"),
    (["--count", "0"], "--count must be an integer in [1, 1024] for a preview, got 0"),
    (["--count", "1025"], "--count must be an integer in [1, 1024] for a preview, got 1025"),
    (["--columns", "0"], "--columns must be an integer in [1, 64], got 0"),
    (["--canvas-size", "5000"], "--canvas-size must be W or WxH with each side in [128, 4096]"),
    (["--seed", "-1"], "--seed must be an integer in [0, "),
    (["--canvas-size", "100"], "--canvas-size must be W or WxH with each side in [128, 4096]"),
])
def test_preview_errors_name_the_preview_options(tmp_path, capsys, args, message):
    from objsub_fast.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["preview", *args, str(tmp_path / "sheet.png")])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and len(err.splitlines()) == 1
    assert message in err and "--levels" not in err
    assert not list(tmp_path.iterdir())


def test_library_sheet_beyond_the_bound_is_a_parameter_error(monkeypatch, batch):
    import objsub_fast.dataset.run.preview as preview
    from objsub_fast.runtime.errors import ParameterError

    monkeypatch.setattr(preview, "MAX_SHEET_PIXELS", 1000)
    with pytest.raises(ParameterError, match="a sheet is limited to"):
        contact_sheet(batch)


# --------------------------------------------------------------------------- issue #20, defect 3

def test_library_preview_takes_an_int_canvas_size_as_generate_batch_does():
    from objsub_fast.dataset.run.preview import preview_sheet

    assert np.array_equal(preview_sheet("L2", 4, 0, 2, 256), preview_sheet("L2", 4, 0, 2,
                                                                           (256, 256)))


@pytest.mark.parametrize("name, message", [
    ("sheet.jpg", "preview writes a PNG file: OUT must end in .png, got '{path}'"),
    ("folder", "preview OUT '{path}' is a folder; give a file name such as '{path}/preview.png'"),
])
def test_preview_refuses_a_folder_or_a_non_png_name_naming_the_path(tmp_path, capsys, name,
                                                                     message, monkeypatch):
    from objsub_fast.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "folder").mkdir()
    with pytest.raises(SystemExit) as exit_:
        main(["preview", "--count", "1", name])
    assert exit_.value.code == 2
    assert capsys.readouterr().err == f"objsub-fast: error: {message.format(path=name)}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder"]
    assert not any((tmp_path / "folder").iterdir())


def test_preview_creates_missing_folders_as_generate_does(tmp_path, capsys):
    from objsub_fast.cli import main

    path = tmp_path / "new" / "deeper" / "sheet.png"
    assert main(["preview", "--count", "1", str(path)]) == 0
    with Image.open(path) as im:
        assert im.format == "PNG"
