"""Every dataset a Hugging Face dataset: ``datasets.load_dataset(folder, split=...)`` reads each
layout with typed columns (offline, as a team's machine without a Hub login would), the card's
metadata reads with ``huggingface_hub``'s card tools and ``datasets``' own parsers, ``verify``
checks the card's bytes, and ``--split`` keeps the seeds of a train and a test set apart.
Needs the ``[hf]`` extra (``datasets``, ``huggingface_hub``); skips without it."""
import importlib
import json
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from objsub_fast import generate_batch
from objsub_fast.dataset.run.card import CARD, INDEX, card_bytes, identity, size_category
from objsub_fast.dataset.run.run_config import RunConfig
from objsub_fast.dataset.run.pipeline import generate
from objsub_fast.dataset.check.verify import verify



@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    """Nothing fetched from the Hub, in this module's tests only. ``datasets`` and
    ``huggingface_hub`` read the environment once, when first imported: they are imported
    here first, online, and their offline switches set for the test and put back after it (an
    environment in force at their import would keep every later test of the process offline,
    the store tests that read through fsspec too)."""
    for module, names in (("datasets.config", ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE")),
                          ("huggingface_hub.constants", ("HF_HUB_OFFLINE",))):
        try:
            switches = importlib.import_module(module)
        except ImportError:  # without the [hf] extra: the tests that need it skip
            continue
        for name in names:
            if hasattr(switches, name):
                monkeypatch.setattr(switches, name, True)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")

CASES = {
    "webdataset": (RunConfig(count=9, shard_size=4, seed=3), "train"),
    "webdataset-videos": (RunConfig(count=6, shard_size=3, seed=5, videos=True, masks=True,
                                    vocabulary="extended", look="solid", split="test"), "test"),
    "vmevalkit": (RunConfig(count=6, shard_size=4, format="vmevalkit", split="validation"),
                  "validation"),
    "vbvr-bench": (RunConfig(count=5, shard_size=2, format="vbvr-bench"), "train"),
    "vbvr-folders": (RunConfig(count=5, shard_size=5, format="vbvr", vbvr_pack="folders"),
                     "train"),
    "vbvr-tar": (RunConfig(count=5, shard_size=3, format="vbvr"), "train"),
}


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    root = tmp_path_factory.mktemp("hf")
    for name, (config, _) in CASES.items():
        generate(config, root / name, workers=1, quiet=True)
    return root


def _load(folder, split, tmp_path):
    datasets = pytest.importorskip("datasets")
    return datasets.load_dataset(str(folder), split=split, cache_dir=str(tmp_path / "cache"))


def _expected(config):
    seeds = config.seeds(0, config.count)
    levels = [config.levels[i % len(config.levels)] for i in range(config.count)]
    return generate_batch(seeds, level=levels, canvas_size=config.canvas_size,
                          **config.engine_options())


@pytest.mark.parametrize("case", ["webdataset", "webdataset-videos"])
def test_webdataset_loads_with_typed_columns(made, case, tmp_path):
    datasets = pytest.importorskip("datasets")
    config, split = CASES[case]
    ds = _load(made / case, split, tmp_path)
    assert ds.num_rows == config.count and ds.split == split
    assert isinstance(ds.features["first.png"], datasets.Image)
    assert ds.features["json"]["level"] == datasets.Value("string")
    batch = _expected(config)
    if config.videos:  # decoding needs torchcodec: the bytes are the stored mp4
        assert isinstance(ds.features["mp4"], datasets.Video)
        ds = ds.cast_column("mp4", datasets.Video(decode=False))
        assert ds[0]["mp4"]["bytes"][4:8] == b"ftyp"
        assert isinstance(ds.features["mask.png"], datasets.Image)
    for i in range(config.count):
        row = ds[i]
        assert np.array_equal(np.asarray(row["first.png"]), batch.first_frames[i])
        assert np.array_equal(np.asarray(row["final.png"]), batch.final_frames[i])
        task = batch.task(i)
        assert row["txt"] == task["prompt"] and row["json"]["seed"] == task["seed"]
        rule = row["json"]["object_subtraction_data"]["rule"]
        assert rule["rule_type"] == task["object_subtraction_data"]["rule"]["rule_type"]
        if config.vocabulary != "classic":
            assert row["json"]["vocabulary"] == task["vocabulary"]


@pytest.mark.parametrize("case", ["vmevalkit", "vbvr-bench", "vbvr-folders"])
def test_folder_layouts_load_with_typed_columns(made, case, tmp_path):
    datasets = pytest.importorskip("datasets")
    config, split = CASES[case]
    ds = _load(made / case, split, tmp_path)
    assert ds.num_rows == config.count
    assert isinstance(ds.features["first_frame"], datasets.Image)
    assert ds.features["seed"] == datasets.Value("int64")
    batch = _expected(config)
    for i in range(config.count):
        row, task = ds[i], batch.task(i)
        assert np.array_equal(np.asarray(row["first_frame"]), batch.first_frames[i])
        assert np.array_equal(np.asarray(row["final_frame"]), batch.final_frames[i])
        assert (row["prompt"], row["level"], row["seed"], row["task_id"]) == (
            task["prompt"], task["level"], task["seed"], task["id"])
        assert row["rule_kind"] == task["object_subtraction_data"]["rule"]["rule_type"]
        assert row["task"]["object_subtraction_data"]["remove_object_ids"] == \
            task["object_subtraction_data"]["remove_object_ids"]
        if config.videos:
            assert (made / case / row["ground_truth_video"]).is_file()


def test_vbvr_tar_shards_load_through_vbvr_index(made, tmp_path):
    config, split = CASES["vbvr-tar"]
    ds = _load(made / "vbvr-tar", split, tmp_path)
    batch = _expected(config)
    assert ds.num_rows == config.count
    assert ds["prompt"] == [batch.task(i)["prompt"] for i in range(config.count)]


@pytest.mark.parametrize("case", list(CASES))
def test_the_card_reads_with_the_hub_card_tools(made, case):
    hub = pytest.importorskip("huggingface_hub")
    datasets = pytest.importorskip("datasets")
    from datasets.utils.metadata import MetadataConfigs

    config, split = CASES[case]
    card = hub.DatasetCard.load(made / case / CARD)
    data = card.data
    assert data.license == "mit" and data.task_categories == ["image-to-video"]
    assert data.size_categories == [size_category(config.count)]
    resources = Path(datasets.__file__).parent / "utils" / "resources"
    sizes = json.loads((resources / "size_categories.json").read_text())
    assert data.size_categories[0] in sizes
    configs = MetadataConfigs.from_dataset_card_data(data)
    assert [f["split"] for f in configs["default"]["data_files"]] == [split]
    assert identity(config) in configs["default"]["description"]  # what datasets caches by
    info = data.to_dict().get("dataset_info")
    if info:  # the declared columns parse as datasets.Features
        features = datasets.Features._from_yaml_list(info["features"])
        assert "first.png" in features or "first_frame" in features
    assert str(config.count) in card.text.replace(",", "") and "objsub-fast verify" in card.text
    assert hub.DatasetCardData(**data.to_dict()).to_dict() == data.to_dict()


# --------------------------------------------------------------------------- never stale (#47)
# datasets caches a local folder's rows under the folder's base name and a hash of the card's
# configs and columns, never of the files: the card's configs carry the dataset's identity.

def _rows(folder, split, cache):
    datasets = pytest.importorskip("datasets")
    ds = datasets.load_dataset(str(folder), split=split, cache_dir=str(cache))
    return ds["txt"] if "txt" in ds.column_names else ds["prompt"]


def _prompts(config):
    return [_expected(config).task(i)["prompt"] for i in range(config.count)]


@pytest.mark.parametrize("fmt", ["webdataset", "vmevalkit"])
def test_two_datasets_of_one_folder_name_load_their_own_rows(fmt, tmp_path):
    first, second = RunConfig(count=4, format=fmt), RunConfig(count=6, seed=3, format=fmt)
    generate(first, tmp_path / "hf1" / "mydata", workers=1, quiet=True)
    generate(second, tmp_path / "hf2" / "mydata", workers=1, quiet=True)
    assert _rows(tmp_path / "hf1" / "mydata", "train", tmp_path / "cache") == _prompts(first)
    assert _rows(tmp_path / "hf2" / "mydata", "train", tmp_path / "cache") == _prompts(second)


def test_an_extended_dataset_loads_its_new_rows(tmp_path):
    datasets = pytest.importorskip("datasets")
    small, large = RunConfig(count=4, shard_size=2), RunConfig(count=8, shard_size=2)
    generate(small, tmp_path / "mydata", workers=1, quiet=True)
    assert _rows(tmp_path / "mydata", "train", tmp_path / "cache") == _prompts(small)
    generate(large, tmp_path / "mydata", workers=1, quiet=True)  # extended in place
    assert _rows(tmp_path / "mydata", "train", tmp_path / "cache") == _prompts(large)
    again = datasets.load_dataset(str(tmp_path / "mydata"), split="train",
                                  cache_dir=str(tmp_path / "cache"),
                                  download_mode="force_redownload")
    assert again.num_rows == large.count


@pytest.mark.parametrize("fmt", ["webdataset", "vmevalkit", "vbvr"])
def test_an_overwritten_dataset_loads_its_new_rows(fmt, tmp_path):
    before, after = RunConfig(count=4, format=fmt), RunConfig(count=3, seed=11, format=fmt)
    generate(before, tmp_path / "mydata", workers=1, quiet=True)
    assert len(_rows(tmp_path / "mydata", "train", tmp_path / "cache")) == before.count
    generate(after, tmp_path / "mydata", workers=1, quiet=True, overwrite=True)
    rows = _rows(tmp_path / "mydata", "train", tmp_path / "cache")
    assert rows == _prompts(after)


def test_the_identity_is_the_configuration():
    base = RunConfig(count=4)
    assert identity(base) == identity(RunConfig(count=4))
    others = [RunConfig(count=5), RunConfig(count=4, seed=1), RunConfig(count=4, split="test"),
              RunConfig(count=4, format="vmevalkit"), RunConfig(count=4, canvas_size=512)]
    assert len({identity(base)} | {identity(c) for c in others}) == 1 + len(others)
    assert identity(base).encode() in card_bytes(base)


def test_the_video_card_snippet_reads_a_row_without_torchcodec(made, tmp_path):
    """The card of a --videos dataset, its loading snippet run as written (DIR: the folder)
    with torchcodec unimportable, then its first row read: the mp4 is its stored bytes."""
    pytest.importorskip("datasets")
    import re
    import subprocess
    import sys

    folder = made / "webdataset-videos"
    card = (folder / CARD).read_text()
    [snippet] = re.findall(r"## Loading\n\n```python\n(.*?)```", card, flags=re.S)
    assert 'cast_column("mp4", datasets.Video(decode=False))' in snippet
    code = ("import sys\nsys.modules['torchcodec'] = None  # as if not installed\n"
            + snippet.replace('"DIR"', json.dumps(str(folder)))
            + "\nrow = ds[0]\nassert row['mp4']['bytes'][4:8] == b'ftyp'"
            + "\nassert video == row['mp4']['bytes']\n")
    cache = tmp_path / "hf"
    env = {**os.environ, "HF_HOME": str(cache), "HF_DATASETS_CACHE": str(cache / "datasets"),
           "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=600, env=env)
    assert proc.returncode == 0, proc.stderr
    assert (cache / "datasets").is_dir()  # the snippet's cache: this test's, not the user's


def test_a_card_without_the_identity_is_a_note(made, tmp_path):
    import shutil

    folder = tmp_path / "d"
    shutil.copytree(made / "webdataset", folder)
    config, _ = CASES["webdataset"]
    (folder / CARD).write_bytes(card_bytes(config, legacy=True))
    report = verify(folder)
    assert report.problems == []
    assert any(n.startswith(f"{CARD} is an older card") for n in report.notes)
    generate(config, folder, workers=1, quiet=True)  # the rerun the note names refreshes it
    assert (folder / CARD).read_bytes() == card_bytes(config)
    assert not [n for n in verify(folder).notes if "older card" in n]


def test_verify_checks_the_card_byte_for_byte(made, tmp_path):
    import shutil

    folder = tmp_path / "d"
    shutil.copytree(made / "vmevalkit", folder)
    assert verify(folder).problems == []
    card = (folder / CARD).read_bytes()
    (folder / CARD).write_bytes(card.replace(b"Object Subtraction", b"Object Subtractiom", 1))
    assert [p for p in verify(folder).problems if p.startswith(CARD)]
    (folder / CARD).write_bytes(card)
    lines = (folder / INDEX).read_bytes()
    (folder / INDEX).write_bytes(lines.replace(b'"level":"L1"', b'"level":"L2"', 1))
    assert [p for p in verify(folder).problems if p.startswith(INDEX)]
    (folder / INDEX).unlink()
    (folder / CARD).unlink()
    report = verify(folder)  # a dataset written before cards: a note, not a problem
    assert report.problems == [] and any("rerun the generate command" in n for n in report.notes)


def test_a_readme_of_someone_else_is_never_replaced(tmp_path):
    theirs = b"# my notes\n"
    (tmp_path / CARD).write_bytes(theirs)
    config = RunConfig(count=3, shard_size=3)
    generate(config, tmp_path, workers=1, quiet=True)
    assert (tmp_path / CARD).read_bytes() == theirs
    report = verify(tmp_path)
    assert report.problems == [] and any("not one objsub-fast wrote" in n for n in report.notes)
    generate(RunConfig(count=3, shard_size=3, seed=9), tmp_path, workers=1, quiet=True,
             overwrite=True)
    assert (tmp_path / CARD).read_bytes() == theirs


def test_rerunning_generate_adds_the_card_to_an_older_dataset(tmp_path):
    config = RunConfig(count=4, shard_size=2)
    generate(config, tmp_path, workers=1, quiet=True)
    (tmp_path / CARD).unlink()
    generate(config, tmp_path, workers=1, quiet=True)
    assert (tmp_path / CARD).read_bytes() == card_bytes(config)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31), count=st.integers(1, 400), start=st.integers(0, 10**10 - 400))
def test_splits_never_share_a_seed(seed, count, start):
    got = {split: set(RunConfig(count=10**10, seed=seed, split=split).seeds(start, start + count)
                      .tolist()) for split in ("train", "test", "validation")}
    assert not got["train"] & got["test"] and not got["train"] & got["validation"]
    assert not got["test"] & got["validation"]
    # every index of one split against every index of another: whole ranges never meet
    assert RunConfig(count=1, seed=seed, split="test").task_index(
        int(RunConfig(count=1, seed=seed, split="train").seeds(start, start + 1)[0])) >= 10**10


def test_a_split_changes_nothing_of_a_run_without_one(tmp_path):
    plain, train = RunConfig(count=5, shard_size=5), RunConfig(count=5, shard_size=5,
                                                               split="train")
    assert "split" not in plain.to_json() and train.to_json()["split"] == "train"
    generate(plain, tmp_path / "plain", workers=1, quiet=True)
    generate(train, tmp_path / "train", workers=1, quiet=True)
    assert (tmp_path / "plain" / "objsub-000000.tar").read_bytes() == \
        (tmp_path / "train" / "objsub-000000.tar").read_bytes()
    assert b"- split: train" in (tmp_path / "plain" / CARD).read_bytes()


def test_a_bad_split_is_named(capsys):
    from objsub_fast.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["generate", "--out", "unused", "--count", "2", "--split", "dev"])
    assert exit_.value.code == 2
    assert "--split must be one of train, test, validation, got 'dev'" in capsys.readouterr().err
