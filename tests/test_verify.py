"""verify: a clean dataset passes; a flipped byte, a truncated tar, a deleted task, an edited
prompt and a stray file are each caught and reported, by the default (regenerate and compare
bytes) and by the deep (decode every frame, re-derive every prompt) verification alike."""
import io
import json
import shutil
import tarfile

import pytest

from objsub_fast.cli import main
from objsub_fast.dataset.run.run_config import RunConfig
from objsub_fast.dataset.run.pipeline import generate
from objsub_fast.dataset.check.verify import verify
from objsub_fast.dataset.formats.vmevalkit import TASK_ROOT as VMEVAL_TASK_DIR


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
    assert "1 task present, manifest says 2" in found


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
    member = "txt" if fmt == "webdataset" else "prompt.txt"  # a WebDataset key, a file name
    assert "task 0 " in found and f"{member} differs from the task regenerated" in found
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
    assert ("first_frame.png is RGB 128x128, expected RGB 256x256" if problems.deep
            else "first_frame.png differs from the task regenerated") in found


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
    shards = " in 3 shards" if fmt == "webdataset" else ""  # folder formats have no files
    assert f"verified 12 tasks{shards} of " in capsys.readouterr().out


# --------------------------------------------------------------------------- vmeval_dataset.json

def edit_pairs(out, edit):
    """Rewrite vmeval_dataset.json in its own layout (one pair per line), passing the list of
    pairs through ``edit``."""
    path = out / "vmeval_dataset.json"
    head, *lines = path.read_bytes().split(b"\n")
    pairs = [json.loads(line.rstrip(b",")) for line in lines[:-2]]
    edit(pairs)
    path.write_bytes(b"\n".join([head, b",\n".join(json.dumps(p).encode() for p in pairs),
                                 b"]}", b""]))


def test_untouched_dataset_file_rewritten_by_the_helper_passes(copy, problems):
    out = copy("vmevalkit")
    before = (out / "vmeval_dataset.json").read_bytes()
    edit_pairs(out, lambda pairs: None)
    assert (out / "vmeval_dataset.json").read_bytes() == before
    assert problems(out) == ""


def test_edited_prompt_in_dataset_file_is_caught(copy, problems):
    out = copy("vmevalkit")

    def edit(pairs):
        pairs[7]["prompt"] = "Remove all red objects from the scene."
    edit_pairs(out, edit)
    found = problems(out)
    assert "vmeval_dataset.json: pair 7 (object_subtraction_" in found
    assert "prompt is 'Remove all red objects from the scene.', expected " in found
    assert "task" not in found.replace("vmeval_dataset.json: pair 7 (object_subtraction_", "")


def test_image_paths_swapped_between_pairs_are_caught(copy, problems):
    out = copy("vmevalkit")

    def edit(pairs):
        pairs[2]["first_image_path"], pairs[9]["first_image_path"] = \
            pairs[9]["first_image_path"], pairs[2]["first_image_path"]
    edit_pairs(out, edit)
    lines = problems(out).splitlines()
    # pairs 2 and 9 are in different shards (size 5): each shard names its differing pair
    assert len(lines) == 2
    assert lines[0].startswith("vmeval_dataset.json: pair 2 (")
    assert lines[1].startswith("vmeval_dataset.json: pair 9 (")
    assert "first_image_path is 'object_subtraction_task/" in lines[0]


def test_removed_ids_out_of_range_are_caught(copy, problems):
    out = copy("vmevalkit")

    def edit(pairs):
        pairs[0]["object_subtraction_data"]["remove_object_ids"] = [99]
    edit_pairs(out, edit)
    found = problems(out)
    assert "pair 0 (" in found
    assert "object_subtraction_data.remove_object_ids is [99], expected [" in found


@pytest.mark.parametrize("change, message", [
    (lambda d: d.update(description="other"), "head description is 'other', expected"),
    (lambda d: d["metadata"].update(total_tasks=5), "head metadata.total_tasks is 5"),
    (lambda d: d["pairs"].pop(), "pair 10 ("),
    (lambda d: d["pairs"].pop(), "the file lists fewer pairs"),
    (lambda d: d["pairs"].append(d["pairs"][0]),
     "does not close after the configuration's 12 pairs"),
    (lambda d: d["pairs"].reverse(), "pair 0 ("),
])
def test_dataset_file_head_count_and_order_are_checked(copy, problems, change, message):
    out = copy("vmevalkit")
    path = out / "vmeval_dataset.json"
    text = path.read_text()
    head, pairs = text.split(', "pairs": [\n', 1)
    data = json.loads(head + "}")
    data["pairs"] = [json.loads(line.rstrip(",")) for line in pairs.split("\n")[:-2]]
    change(data)
    pairs = data.pop("pairs")
    path.write_text(json.dumps(data)[:-1] + ', "pairs": [\n'
                    + ",\n".join(json.dumps(p) for p in pairs) + "\n]}\n")
    assert message in problems(out)


def test_reformatted_dataset_file_is_caught(copy, problems):
    out = copy("vmevalkit")
    path = out / "vmeval_dataset.json"
    path.write_text(json.dumps(json.loads(path.read_text()), indent=2))
    found = problems(out)
    assert "vmeval_dataset.json: head is not the head line" in found
    assert "not a JSON pair on one line" in found


def test_missing_dataset_file_is_caught(copy, problems):
    out = copy("vmevalkit")
    (out / "vmeval_dataset.json").unlink()
    assert "vmeval_dataset.json: missing or unreadable" in problems(out)


# --------------------------------------------------------------------------- summaries

@pytest.mark.parametrize("fmt, renames_per_shard", [("webdataset", 2), ("vmevalkit", 3)])
def test_interrupted_run_is_summarised_with_the_command_that_finishes_it(tmp_path, fmt,
                                                                         renames_per_shard):
    import os
    import shlex
    import subprocess
    import sys

    from objsub_fast.runtime import crashpoint
    from objsub_fast.dataset.formats import get_format

    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "objsub_fast.cli", "generate", "--out", str(out), "--count",
           "40", "--shard-size", "10", "--seed", "3", "--format", fmt, "--workers", "1",
           "--quiet"]
    # renames: the manifest, then per shard its file(s) and records: two shards finished
    crash = str(1 + 2 * renames_per_shard)
    killed = subprocess.run(cmd, env={**os.environ, crashpoint.ENV: crash}, capture_output=True)
    assert killed.returncode == -9
    lines = verify(out, workers=1).problems
    assert len(lines) == 3, lines  # not one line per missing task
    assert lines[0].startswith("manifest.json: the run is incomplete (20 of 40 tasks written, 2 "
                               "of 4 shards complete); "
                               "finish it with: objsub-fast generate --out ")
    name = get_format(fmt).shard_name if fmt == "webdataset" else "shard {}".format
    assert lines[1:] == [f"{name(2)}: tasks 20-29 missing (shard not finished)",
                         f"{name(3)}: tasks 30-39 missing (shard not finished)"]
    finish = shlex.split(lines[0].split("finish it with: ")[1])
    assert finish[0] == "objsub-fast"
    from inprocess import run_cli

    finished = run_cli([*finish[1:], "--quiet"])   # in this process
    assert finished.returncode == 0, finished.stderr
    assert verify(out, workers=1).ok


def test_missing_tasks_are_reported_as_ranges(copy, problems):
    out = copy("vmevalkit")
    pairs = json.loads((out / "vmeval_dataset.json").read_text())["pairs"]
    for k in (1, 2, 3, 7, 10, 11):
        shutil.rmtree(out / VMEVAL_TASK_DIR / pairs[k]["id"])
    lines = problems(out).splitlines()
    assert "shard 0: tasks 1-3 missing" in lines
    assert f"shard 1: task 7 ({VMEVAL_TASK_DIR}/{pairs[7]['id']}/) missing" in lines
    assert "shard 2: tasks 10-11 missing" in lines
    assert not any("shard-0000" in line for line in lines)  # no folder that does not exist


def test_deleted_shard_file_is_one_line(copy, problems):
    out = copy("webdataset")
    (out / "objsub-000001.tar").unlink()
    lines = problems(out).splitlines()
    assert lines == ["objsub-000001.tar: tasks 5-9 missing (shard file missing)",
                     "objsub-000001.tar: 0 tasks present, manifest says 5"]


def test_generator_version_mismatch_is_named(copy, capsys):
    from objsub_fast.dataset.check.verify import installed_generator_version

    out = copy("webdataset")
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["config"]["generator_version"] = "0.0.1"
    (out / "manifest.json").write_text(json.dumps(manifest))
    installed = installed_generator_version(RunConfig(count=1))
    main(["verify", "--quiet", "--workers", "1", str(out)])
    printed = capsys.readouterr().out
    assert (f"note: this dataset was written by objsub-fast generator_version 0.0.1; the "
            f"installed one is {installed}.") in printed
    assert "expected to differ byte for byte" in printed


def test_verify_help_describes_the_command(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["verify", "--help"])
    assert exit_.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "Check the dataset in DIR." in text
    assert "Exit status: 0 every task is correct, 1 problems found" in text


def test_stray_task_folders_are_found_by_their_seed(copy, problems):
    from objsub_fast.task.records import task_id
    from objsub_fast.dataset.content.shards import task_levels, task_seeds

    out = copy("vmevalkit")
    config = RunConfig(count=12, shard_size=5, seed=5, format="vmevalkit", masks=True)
    seed12 = int(task_seeds(config.seed, 12, 13)[0])  # the next task: beyond the count
    seed3 = int(task_seeds(config.seed, 3, 4)[0])
    level3 = task_levels(config.levels, 3, 4)[0]
    other = next(lv for lv in config.levels if lv != level3)
    strays = [task_id(task_levels(config.levels, 12, 13)[0], seed12), task_id(other, seed3),
              task_id(level3, seed3).replace(f"_{seed3}", f"_0{seed3}"), "notes"]
    for name in strays:
        (out / VMEVAL_TASK_DIR / name).mkdir()
    found = problems(out).splitlines()
    assert sorted(found) == sorted(f"{VMEVAL_TASK_DIR}/{n}: not part of the dataset"
                                   for n in strays)


def test_many_stray_folders_are_counted(copy, problems):
    out = copy("vmevalkit")
    for k in range(25):
        (out / VMEVAL_TASK_DIR / f"junk{k:02d}").mkdir()
    found = problems(out).splitlines()
    assert len(found) == 21 and found[-1] == f"{VMEVAL_TASK_DIR}: 5 more folders not part of " \
        "the dataset"
