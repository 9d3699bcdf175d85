"""verify lists the files a dataset folder holds that the dataset does not own (issue 38):
a warning by default (exit status 0), a problem with ``--strict`` (exit status 1), each line
naming the real file, in every format and on a store. The files the project writes (manifest,
lock, progress folder, Hugging Face card and index) are never listed, nor a README.md the user
wrote (a note says it was left unchecked). Before, none of these files was reported."""
import shutil

import pytest

from objsub_fast.cli import main
from objsub_fast.dataset.run.run_config import RunConfig
from objsub_fast.dataset.run.pipeline import generate
from objsub_fast.dataset.check.strays import stray_files
from objsub_fast.dataset.formats.vbvr_factory import GENERATOR
from objsub_fast.dataset.check.verify import verify
from objsub_fast.storage.store import Store

SPLIT = "Out-of-Domain_50"
#: name -> (config, stray files planted in its dataset folder)
CASES = {
    "webdataset": (RunConfig(count=4, shard_size=2, seed=5),
                   ["extra.txt", "notes/objsub-000000.tar"]),
    "vbvr": (RunConfig(count=4, shard_size=2, seed=5, format="vbvr"),
             ["questions/stray.tar", "data/extra.jsonl", "extra.txt"]),
    "vbvr-folders": (RunConfig(count=4, shard_size=2, seed=5, format="vbvr",
                               vbvr_pack="folders"),
                     [f"questions/{GENERATOR}/notes.txt", "data/extra.jsonl"]),
    "vmevalkit": (RunConfig(count=4, shard_size=2, seed=5, format="vmevalkit"),
                  ["extra.txt", "object_subtraction_task.txt"]),
    "vbvr-bench": (RunConfig(count=4, shard_size=2, seed=5, format="vbvr-bench"),
                   [f"{SPLIT}/notes.txt", "extra.txt"]),
}


@pytest.fixture(scope="module")
def datasets(tmp_path_factory):
    """A clean dataset of each case, written once."""
    made = {}
    for name, (config, _) in CASES.items():
        out = tmp_path_factory.mktemp(name) / "out"
        generate(config, out, workers=1, quiet=True)
        made[name] = out
    return made


def plant(out, files):
    for rel in files:
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_bytes(b"the user's own\n")


def run_verify(capsys, *args):
    code = main(["verify", *args, "--quiet", "--workers", "1"])
    return code, capsys.readouterr().out


@pytest.mark.parametrize("name", CASES)
def test_a_clean_dataset_has_no_stray(datasets, name):
    report = verify(datasets[name], workers=1, strict=True)
    assert report.ok and report.warnings == [], report.problems


@pytest.mark.parametrize("name", CASES)
def test_stray_files_are_warnings_and_problems_with_strict(datasets, name, tmp_path, capsys):
    out = tmp_path / "out"
    shutil.copytree(datasets[name], out)
    strays = CASES[name][1]
    plant(out, strays)
    code, text = run_verify(capsys, str(out))
    assert code == 0, text
    assert text.splitlines()[0].endswith(f"OK, {len(strays)} warnings"), text
    for rel in strays:  # the real file, as a warning
        assert f"  warning: {rel}: not part of the dataset" in text, text
    code, text = run_verify(capsys, str(out), "--strict")
    assert code == 1, text
    assert f"{len(strays)} problems" in text.splitlines()[0], text
    for rel in strays:
        assert f"  - {rel}: not part of the dataset" in text, text


def test_files_the_project_writes_are_not_strays(tmp_path):
    # an unfinished run: lock, progress folder and records, a temp name of a killed write
    config = CASES["vmevalkit"][0]
    paths = [".objsub-lock", "manifest.json", ".objsub-progress/000000.json",
             ".objsub-progress/000000.pairs", ".tmp-objsub-manifest.json.123",
             "object_subtraction_task/.tmp-objsub-x/prompt.txt", "README.md", "metadata.jsonl",
             "vmeval_dataset.json", "object_subtraction_task/anything/first_frame.png"]
    assert stray_files(paths, config) == []
    # a WebDataset run has no metadata.jsonl of its own, nor VMEvalKit's files
    assert stray_files(["metadata.jsonl", "vmeval_dataset.json"], CASES["webdataset"][0]) == \
        ["metadata.jsonl", "vmeval_dataset.json"]
    # the parquet index is the dataset's only when the run writes one
    assert stray_files(["data/metadata.parquet"],
                       RunConfig(count=4, format="vbvr", vbvr_parquet=False)) == \
        ["data/metadata.parquet"]


def test_a_readme_the_user_wrote_is_a_note_not_a_stray(datasets, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(datasets["webdataset"], out)
    (out / "README.md").write_text("# my notes\n")
    report = verify(out, workers=1, strict=True)
    assert report.ok and report.warnings == []
    assert any("README.md is not one objsub-fast wrote" in n for n in report.notes)


def test_many_strays_are_counted_after_twenty(datasets, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(datasets["webdataset"], out)
    plant(out, [f"extra/{k:02d}.txt" for k in range(25)])
    report = verify(out, workers=1)
    assert report.warnings[0] == "extra/00.txt: not part of the dataset (objsub-fast did not " \
        "write it)"
    assert len(report.warnings) == 21 and report.warnings[-1] == \
        "5 more files not part of the dataset"


def test_a_stray_object_on_a_store_is_listed(tmp_path, capsys):
    url = "memory://strays/out"
    store = Store(url)
    try:
        generate(CASES["vbvr"][0], url, workers=1, quiet=True)
        store.put_bytes("questions/stray.tar", b"not ours")
        store.put_bytes("data/extra.jsonl", b"{}\n")
        code, text = run_verify(capsys, url)
        assert code == 0 and "  warning: questions/stray.tar: not part of the dataset" in text
        assert "  warning: data/extra.jsonl: not part of the dataset" in text
        code, text = run_verify(capsys, url, "--strict")
        assert code == 1 and "  - questions/stray.tar: not part of the dataset" in text, text
    finally:
        store.delete(list(store.listing()))
