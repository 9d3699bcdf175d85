"""Nothing outside the output folder, and a resume from any state a run left (issue 38).

Links planted inside a dataset are refused in one line and never followed (the lock, the
progress folder, a temp name, VBVR's ``questions/`` and ``data/``); paths read from a
dataset's own index must stay inside it; a missing, truncated or malformed progress record
means "this shard is not done"; a deleted task folder is written again by the rerun; a
manifest nested 100,000 deep is one line. Each was a defect before: the lock truncated the
user's file, progress records and ``--overwrite`` went outside, and resumes and verify
ended in tracebacks or "nothing to do"."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from objsub_fast.dataset.run.run_config import RunConfig
from objsub_fast.dataset.content.manifest import MANIFEST, PROGRESS_DIR
from objsub_fast.dataset.run.pipeline import generate
from objsub_fast.dataset.check.verify import verify
from objsub_fast.runtime import crashpoint
from objsub_fast.runtime.atomic import atomic_write_bytes, tmp_path
from objsub_fast.runtime.errors import OutputError
from objsub_fast.runtime.lock import LOCK_FILE

from filetree import tree
from inprocess import run_cli

WDS = RunConfig(count=6, shard_size=2, seed=5)
VBVR = RunConfig(count=6, shard_size=2, seed=5, format="vbvr")


def cli(*args):
    """The command in this process (its exit status and one-line errors are what is tested;
    the kills that leave the states it resumes from are subprocesses: ``killed_run``)."""
    return run_cli(args)


def options(config) -> list[str]:
    return ["--count", str(config.count), "--shard-size", str(config.shard_size), "--seed",
            str(config.seed), "--format", config.format, "--quiet", "--workers", "1",
            *(["--vbvr-pack", config.vbvr_pack] if config.format == "vbvr" else [])]


@pytest.fixture
def outside(tmp_path):
    """A folder outside the dataset with a user's file in it."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "notes.txt").write_bytes(b"the user's own words\n")
    return folder


def assert_refused(done, link):
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert "symbolic link" in done.stderr and link in done.stderr, done.stderr


# --------------------------------------------------------------------------- links

def test_a_linked_lock_file_is_refused_and_its_target_kept(tmp_path, outside):
    out = tmp_path / "out"
    out.mkdir()
    os.symlink(outside / "notes.txt", out / LOCK_FILE)
    assert_refused(cli("generate", "--out", str(out), *options(WDS)), LOCK_FILE)
    assert (outside / "notes.txt").read_bytes() == b"the user's own words\n"  # was truncated


def test_a_linked_progress_folder_is_refused_and_nothing_written_there(tmp_path, outside):
    out = tmp_path / "out"
    out.mkdir()
    os.symlink(outside, out / PROGRESS_DIR)
    assert_refused(cli("generate", "--out", str(out), *options(WDS)), PROGRESS_DIR)
    assert sorted(p.name for p in outside.iterdir()) == ["notes.txt"]


@pytest.mark.parametrize("linked", ["questions", "data"])
def test_a_linked_vbvr_folder_is_refused_even_with_overwrite(tmp_path, outside, linked):
    out = tmp_path / "out"
    generate(VBVR, out, workers=1, quiet=True)
    moved = outside / linked
    shutil.move(out / linked, moved)  # the user's copy, out there
    os.symlink(moved, out / linked)
    before = tree(outside)
    assert_refused(cli("generate", "--out", str(out), "--overwrite", *options(VBVR)), linked)
    assert tree(outside) == before  # before: --overwrite rewrote the tars out there
    report = verify(out)
    assert any(p.startswith(f"{linked}: ") and "symbolic link" in p for p in report.problems)


def test_a_link_planted_under_a_temp_name_is_not_written_through(tmp_path, outside):
    final = tmp_path / "manifest.json"
    os.symlink(outside / "notes.txt", tmp_path_of(final))
    with pytest.raises(OSError):
        atomic_write_bytes(final, b"new")
    assert (outside / "notes.txt").read_bytes() == b"the user's own words\n"
    assert not final.exists()


def tmp_path_of(final: Path) -> Path:
    return tmp_path(final)


# --------------------------------------------------------------------------- index paths

@pytest.mark.parametrize("field, value", [("first_frame_path", "../../../../../etc/hostname"),
                                          ("tar_file", "/etc/passwd"),
                                          ("tar_file", "../outside.tar")])
def test_an_index_row_naming_a_path_outside_is_one_problem_naming_the_row(tmp_path, field,
                                                                        value):
    import json

    out = tmp_path / "out"
    generate(VBVR, out, workers=1, quiet=True)
    index = out / "data" / "metadata.jsonl"
    rows = [json.loads(line) for line in index.read_text().splitlines()]
    rows[3][field] = value
    index.write_text("".join(json.dumps(r) + "\n" for r in rows))
    report = verify(out)
    assert any("row 3" in p and value in p and "outside" in p for p in report.problems), \
        report.problems


def test_a_manifest_entry_naming_a_path_outside_is_not_a_done_shard(tmp_path):
    import json

    out = tmp_path / "out"
    generate(WDS, out, workers=1, quiet=True)
    reference = tree(out)
    manifest = json.loads((out / MANIFEST).read_text())
    manifest["shards"][1]["name"] = "../../elsewhere.tar"
    (out / MANIFEST).write_text(json.dumps(manifest))
    (out / "objsub-000001.tar").unlink()
    generate(WDS, out, workers=1, quiet=True)
    assert tree(out) == reference


# --------------------------------------------------------------------------- resume

def killed_run(out, config, renames=3):
    """A run of ``config`` killed (SIGKILL) after its ``renames``-th rename into place (3: the
    first shard's progress record, after the manifest and a WebDataset shard)."""
    done = subprocess.run([sys.executable, "-m", "objsub_fast.cli", "generate", "--out",
                           str(out), *options(config)], capture_output=True, text=True,
                          timeout=300, env={**os.environ, crashpoint.ENV: str(renames)})
    assert done.returncode == -9, done.stderr


@pytest.mark.parametrize("damage", [b"", b"{}", b'{"shard": 0, "na', b"[" * 100_000, b"[]",
                                    b'{"shard": "0", "name": 5}'])
def test_a_malformed_progress_record_means_the_shard_is_not_done(tmp_path, damage):
    reference = tmp_path / "reference"
    generate(WDS, reference, workers=1, quiet=True)
    out = tmp_path / "out"
    killed_run(out, WDS)
    records = sorted((out / PROGRESS_DIR).glob("*.json"))
    assert records
    records[0].write_bytes(damage)
    unfinished = verify(out)  # no traceback; names the rerun
    assert unfinished.problems and "finish it with" in unfinished.problems[0]
    done = cli("generate", "--out", str(out), *options(WDS))
    assert done.returncode == 0, done.stderr
    assert tree(out) == tree(reference)


#: Every layout, and how to find its members one shard or task at a time: shard files of the
#: tar layouts, task folders of the folder layouts.
LAYOUTS = [("webdataset", None, "objsub-*.tar"), ("vbvr", "tar", "questions/*.tar"),
           ("vmevalkit", None, "first_frame.png"), ("vbvr", "folders", "first_frame.png"),
           ("vbvr-bench", None, "first_frame.png")]


def layout_config(fmt, pack) -> RunConfig:
    return RunConfig(count=6, shard_size=2, seed=5, format=fmt,
                     **({"vbvr_pack": pack} if pack else {}))


def members(out, pattern) -> list:
    """The shard files (a glob) or task folders (the folders holding a file name) of ``out``."""
    if "*" in pattern:
        return sorted(out.glob(pattern))
    return sorted({p.parent for p in out.rglob(pattern)})


@pytest.mark.parametrize("fmt, pack, pattern", LAYOUTS)
def test_a_deleted_shard_or_task_folder_is_written_again_by_the_rerun(tmp_path, fmt, pack,
                                                                      pattern):
    config = layout_config(fmt, pack)
    out = tmp_path / "out"
    generate(config, out, workers=1, quiet=True)
    reference = tree(out)
    found = members(out, pattern)
    assert len(found) in (3, 6)  # three shards or six task folders
    victim = found[len(found) // 2]
    shutil.rmtree(victim) if victim.is_dir() else victim.unlink()
    manifest = generate(config, out, workers=1, quiet=True)
    # its shard only; before (VMEvalKit): "nothing to do, 6 tasks already complete", 0 written
    assert manifest["tasks_written"] == 2
    assert tree(out) == reference and verify(out).ok


@pytest.mark.parametrize("fmt, pack, pattern", LAYOUTS)
def test_a_rerun_of_a_whole_dataset_or_an_interrupted_one_rewrites_no_complete_shard(
        tmp_path, fmt, pack, pattern):
    config = layout_config(fmt, pack)
    out = tmp_path / "out"
    generate(config, out, workers=1, quiet=True)
    assert generate(config, out, workers=1, quiet=True)["tasks_written"] == 0
    interrupted = tmp_path / "interrupted"
    for renames in range(3, 12):  # killed after its first shard's record, whatever it renames
        killed_run(interrupted, config, renames)
        done = len(list((interrupted / PROGRESS_DIR).glob("*.json")))
        if done:
            break
    assert 1 <= done < 3
    rerun = generate(config, interrupted, workers=1, quiet=True)
    assert rerun["tasks_written"] == 6 - 2 * done
    assert tree(interrupted) == tree(out)


@pytest.mark.parametrize("damage", [b"[" * 100_000, b"[]", b'"text"', b"\xff\xfe"])
def test_a_malformed_or_nested_manifest_is_one_line(tmp_path, damage):
    out = tmp_path / "out"
    generate(WDS, out, workers=1, quiet=True)
    (out / MANIFEST).write_bytes(damage)
    for args in (["verify", str(out)], ["generate", "--out", str(out), *options(WDS)]):
        done = cli(*args)
        assert done.returncode in (1, 2), done.stderr
        assert "Traceback" not in done.stderr and "RecursionError" not in done.stderr
        assert done.stderr.count("\n") <= 2, done.stderr


def test_read_output_refuses_a_linked_manifest(tmp_path, outside):
    from objsub_fast.dataset.run.output import read_output

    out = tmp_path / "out"
    out.mkdir()
    os.symlink(outside / "notes.txt", out / MANIFEST)
    with pytest.raises(OutputError, match="manifest.json' is a symbolic link"):
        read_output(WDS, out, overwrite=False)


# --------------------------------------------------------------------------- verify's bytes

def _edit_bytes(path: Path, old: bytes, new: bytes) -> None:
    data = path.read_bytes()
    assert old in data
    path.write_bytes(data.replace(old, new, 1))


def _flip(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))


@pytest.fixture(scope="module")
def vbvr_parquet(tmp_path_factory):
    pytest.importorskip("pyarrow")
    out = tmp_path_factory.mktemp("vbvr") / "out"
    generate(RunConfig(count=6, shard_size=2, seed=5, format="vbvr", vbvr_parquet=True), out,
             workers=1, quiet=True)
    return out


@pytest.mark.parametrize("file, damage", [
    ("data/metadata.jsonl", "flip"), ("data/metadata.jsonl", "keep"),
    ("data/metadata.parquet", "flip"), ("data/metadata.parquet", "keep")])
def test_verify_checks_the_vbvr_index_files_by_their_rows_and_bytes(vbvr_parquet, tmp_path,
                                                                    file, damage):
    # before: a flipped byte, or "Remove" edited to "Keep" in a prompt, verified OK
    out = tmp_path / "out"
    shutil.copytree(vbvr_parquet, out, symlinks=True)
    assert verify(out, workers=1).ok
    if damage == "flip":
        _flip(out / file)
    elif file.endswith(".jsonl"):
        _edit_bytes(out / file, b'"prompt": "Remove', b'"prompt": "Keep')
    else:
        import pyarrow.parquet as pq

        table = pq.read_table(out / file).to_pylist()
        table[4]["prompt"] = table[4]["prompt"].replace("Remove", "Keep", 1)
        import pyarrow as pa

        pq.write_table(pa.Table.from_pylist(table, schema=pq.read_schema(out / file)),
                       out / file)
    report = verify(out, workers=1)
    assert report.problems and all(p.startswith(file) for p in report.problems), \
        report.problems


def test_a_vbvr_tar_shards_problems_name_its_file(vbvr_parquet, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(vbvr_parquet, out, symlinks=True)
    tar = out / "questions" / "O-43_object_subtraction_data-generator_00002-00003.tar"
    _flip(tar)
    report = verify(out, workers=1)
    assert report.problems and all(p.startswith(str(tar.relative_to(out)))
                                   for p in report.problems), report.problems
