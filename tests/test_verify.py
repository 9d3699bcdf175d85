"""verify: a clean dataset passes; a flipped byte, a truncated tar, a deleted task, an edited
prompt and a stray file are each caught and reported, by the default (regenerate and compare
bytes) and by the deep (decode every frame, re-derive every prompt) verification alike."""
import io
import json
import shutil
import tarfile

import pytest

from objsub_fast.cli import main
from objsub_fast.dataset.config import RunConfig
from objsub_fast.dataset.vmevalkit import TASK_ROOT as VMEVAL_TASK_DIR
from objsub_fast.pipeline import generate
from objsub_fast.verify import verify


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    dirs = {}
    for fmt in ("webdataset", "vmevalkit"):
        out = tmp_path_factory.mktemp(fmt)
        generate(RunConfig(count=12, shard_size=5, seed=5, format=fmt, masks=True), out,
                 workers=1, quiet=True)
        dirs[fmt] = out
    return dirs


@pytest.fixture
def copy(clean, tmp_path):
    def make(fmt):
        shutil.copytree(clean[fmt], tmp_path / fmt)
        return tmp_path / fmt
    return make


def rewrite_tar(path, edit):
    """Rewrite a tar shard, passing each (name, bytes) through ``edit`` (None drops it)."""
    with tarfile.open(path) as tar:
        members = [(m, tar.extractfile(m).read()) for m in tar.getmembers()]
    with tarfile.open(path, "w", format=tarfile.USTAR_FORMAT) as tar:
        for m, data in members:
            data = edit(m.name, data)
            if data is not None:
                m.size = len(data)
                tar.addfile(m, io.BytesIO(data))


@pytest.fixture(params=[False, True], ids=["bytes", "deep"])
def problems(request):
    """The problems verify finds in a folder, one per line (each test runs in both modes)."""
    def find(out):
        return "\n".join(verify(out, workers=1, deep=request.param).problems)
    find.deep = request.param
    return find


@pytest.mark.parametrize("fmt", ["webdataset", "vmevalkit"])
def test_clean_dataset_passes(clean, fmt, capsys):
    report = verify(clean[fmt], workers=1)
    assert report.ok and report.tasks == 12 and report.shards == 3
    assert main(["verify", str(clean[fmt])]) == 0  # all cores, with progress lines
    captured = capsys.readouterr()
    assert "OK" in captured.out
    assert "objsub-fast: 12/12 tasks (100.0%)" in captured.err.splitlines()[-1]


def test_flipped_byte_in_png_is_caught(copy, problems, capsys):
    out = copy("webdataset")
    shard = out / "objsub-000000.tar"
    with tarfile.open(shard) as tar:
        offset = tar.getmember("0000000002.final.png").offset_data
    data = bytearray(shard.read_bytes())
    data[offset + 60] ^= 0x01
    shard.write_bytes(bytes(data))
    found = problems(out)
    assert "task 2 " in found and "final.png" in found
    assert "objsub-000000.tar: sha256 differs" in found
    assert main(["verify", str(out)]) == 1
    assert "problem" in capsys.readouterr().out


def test_truncated_tar_is_caught(copy, problems):
    out = copy("webdataset")
    shard = out / "objsub-000001.tar"
    shard.write_bytes(shard.read_bytes()[:9000])
    found = problems(out)
    assert "objsub-000001.tar" in found
    assert "missing" in found and "sha256 differs" in found


@pytest.mark.parametrize("fmt", ["webdataset", "vmevalkit"])
def test_deleted_task_is_caught(copy, fmt, problems):
    out = copy(fmt)
    if fmt == "webdataset":
        rewrite_tar(out / "objsub-000002.tar",
                    lambda name, data: None if name.startswith("0000000011.") else data)
    else:
        pair = json.loads((out / "vmeval_dataset.json").read_text())["pairs"][11]
        shutil.rmtree(out / VMEVAL_TASK_DIR / pair["id"])
    found = problems(out)
    assert "task 11 " in found and "missing" in found
    assert "1 tasks present, manifest says 2" in found


@pytest.mark.parametrize("fmt", ["webdataset", "vmevalkit"])
def test_edited_prompt_is_caught(copy, fmt, problems):
    out = copy(fmt)
    new = "Remove the object that looks different from the others. " \
          "Do not do anything to other objects."
    if fmt == "webdataset":
        rewrite_tar(out / "objsub-000000.tar",
                    lambda name, data: new.encode() if name == "0000000000.txt" else data)
    else:
        pair = json.loads((out / "vmeval_dataset.json").read_text())["pairs"][0]
        (out / VMEVAL_TASK_DIR / pair["id"] / "prompt.txt").write_text(new)
    found = problems(out)
    assert "task 0 " in found and "txt differs from the task regenerated" in found
    if problems.deep:  # the prompt, read independently of the generator, names other objects
        assert "prompt re-derives removed ids" in found or "prompt cannot be interpreted" in found


def test_unreadable_manifest_is_a_clear_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["verify", str(tmp_path)])
    assert exit_.value.code == 2
    assert "objsub-fast: error: cannot read" in capsys.readouterr().err


def test_incomplete_run_and_stray_shard_are_reported(copy, problems):
    out = copy("webdataset")
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["complete"] = False
    (out / "manifest.json").write_text(json.dumps(manifest))
    shutil.copy(out / "objsub-000000.tar", out / "objsub-000009.tar")
    found = problems(out)
    assert "run is incomplete" in found and "objsub-000009.tar: shard not part" in found


def test_wrong_frame_size_is_caught(copy, problems):
    import numpy as np
    from PIL import Image

    out = copy("vmevalkit")
    pair = json.loads((out / "vmeval_dataset.json").read_text())["pairs"][3]
    Image.fromarray(np.zeros((128, 128, 3), np.uint8)).save(
        out / VMEVAL_TASK_DIR / pair["id"] / "first_frame.png")
    found = problems(out)
    assert "task 3 " in found
    assert ("first.png is RGB 128x128, expected RGB 256x256" if problems.deep
            else "first.png differs from the task regenerated") in found


def test_bad_worker_count_is_a_clear_error(clean, capsys):
    with pytest.raises(ValueError, match="--workers must be an integer >= 1, got 0"):
        verify(clean["webdataset"], workers=0)
    with pytest.raises(SystemExit) as exit_:
        main(["verify", "--workers", "0", str(clean["webdataset"])])
    assert exit_.value.code == 2
    assert "--workers must be an integer >= 1" in capsys.readouterr().err


def test_stray_task_folder_is_caught(copy, problems):
    out = copy("vmevalkit")
    shutil.copytree(out / VMEVAL_TASK_DIR / json.loads(
        (out / "vmeval_dataset.json").read_text())["pairs"][0]["id"],
        out / VMEVAL_TASK_DIR / "object_subtraction_l1_0")
    assert "object_subtraction_task/object_subtraction_l1_0: not part of the dataset" in \
        problems(out)


def test_flipped_byte_in_a_tar_header_is_caught(copy, problems):
    out = copy("webdataset")
    shard = out / "objsub-000001.tar"
    data = bytearray(shard.read_bytes())
    data[100] ^= 0x01  # the mode field of the first member's header: members still read
    shard.write_bytes(bytes(data))
    assert "objsub-000001.tar: sha256 differs from the manifest" in problems(out)


@pytest.mark.parametrize("fmt", ["webdataset", "vmevalkit"])
def test_deep_mode_from_the_command_line(clean, fmt, capsys):
    assert main(["verify", "--deep", "--quiet", "--workers", "1", str(clean[fmt])]) == 0
    assert "verified 12 tasks in 3 shards" in capsys.readouterr().out
