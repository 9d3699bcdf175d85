"""Format writers: deterministic tar shards readable by the webdataset library, VMEvalKit
folders."""
import errno
import io
import json
import tarfile

import numpy as np
import pytest
import webdataset as wds
from PIL import Image

from hypothesis import given, settings, strategies as st

from objsub_fast.dataset.formats import folders, vmevalkit
from objsub_fast.dataset.run.run_config import RunConfig
from objsub_fast.dataset.content.members import MEMBERS, encode_samples
from objsub_fast.dataset.run.pipeline import generate
from objsub_fast.dataset.content.plan import shard_batches
from objsub_fast.dataset.content.shards import Shard
from objsub_fast.dataset.formats.tar import TAR_END, tar_member, tar_members
from objsub_fast.dataset.formats.vmevalkit import DATASET_FILE as VMEVAL_DATASET_FILE
from objsub_fast.dataset.formats.vmevalkit import TASK_ROOT as VMEVAL_TASK_DIR
from objsub_fast.ground_truth.video import MAX_MEAN_ERROR, decode_video

from filetree import tree


@pytest.fixture(scope="module")
def wds_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("wds")
    generate(RunConfig(count=10, shard_size=6, seed=3, masks=True, videos=True, video_frames=16),
             out, workers=1, quiet=True)
    return out


def test_tar_members_are_deterministic_and_sorted(wds_dir):
    with tarfile.open(wds_dir / "objsub-000000.tar") as tar:
        members = tar.getmembers()
    names = [m.name for m in members]
    assert names == sorted(names) and len(names) == 6 * len(MEMBERS)
    assert {(m.mtime, m.uid, m.gid, m.mode, m.uname, m.gname) for m in members} == {
        (0, 0, 0, 0o644, "", "")}
    assert names[:len(MEMBERS)] == [f"0000000000.{s}" for s in sorted(MEMBERS)]


def test_webdataset_library_reads_every_sample(wds_dir):
    urls = [str(p) for p in sorted(wds_dir.glob("objsub-*.tar"))]
    samples = list(wds.WebDataset(urls, shardshuffle=False).decode("rgb8"))
    assert [s["__key__"] for s in samples] == [f"{i:010d}" for i in range(10)]
    s = samples[0]
    record = s["json"]
    assert s["first.png"].shape == (256, 256, 3) and s["first.png"].dtype == np.uint8
    assert s["txt"] == record["prompt"] and record["task_index"] == 0
    assert not np.array_equal(s["first.png"], s["final.png"])
    mask = Image.open(io.BytesIO(tarfile.open(urls[0]).extractfile("0000000000.mask.png").read()))
    assert mask.mode == "L" and np.asarray(mask).max() == record["object_subtraction_data"][
        "num_objects"]
    video = list(decode_video(s["mp4"]))  # {key}.mp4: the ground-truth video, as bytes
    assert len(video) == 16 and video[0].shape == (256, 256, 3)
    for got, want in ((video[0], s["first.png"]), (video[-1], s["final.png"])):
        assert np.abs(got.astype(int) - want).mean() < MAX_MEAN_ERROR


def test_manifest_lists_every_shard_with_hash(wds_dir):
    import hashlib
    manifest = json.loads((wds_dir / "manifest.json").read_text())
    assert manifest["complete"] and manifest["config"]["count"] == 10
    assert [(e["start"], e["stop"], e["count"]) for e in manifest["shards"]] == [(0, 6, 6),
                                                                                (6, 10, 4)]
    for e in manifest["shards"]:
        assert hashlib.sha256((wds_dir / e["name"]).read_bytes()).hexdigest() == e["sha256"]


def test_vmevalkit_layout(tmp_path):
    generate(RunConfig(count=5, format="vmevalkit", shard_size=2), tmp_path, workers=1,
             quiet=True)
    dataset = json.loads((tmp_path / VMEVAL_DATASET_FILE).read_text())
    assert {"name", "description", "pairs", "metadata"} <= set(dataset)
    assert len(dataset["pairs"]) == 5
    for pair in dataset["pairs"]:
        folder = tmp_path / VMEVAL_TASK_DIR / pair["id"]
        assert sorted(p.name for p in folder.iterdir()) == [
            "final_frame.png", "first_frame.png", "prompt.txt", "question_metadata.json"]
        assert (tmp_path / pair["first_image_path"]).parent == folder
        assert json.loads((folder / "question_metadata.json").read_text()) == pair
        assert (folder / "prompt.txt").read_text() == pair["prompt"]
        with Image.open(folder / "first_frame.png") as im:
            assert im.mode == "RGB" and im.size == (256, 256)


def test_tar_member_layout_and_long_names():
    raw = tar_member("a.txt", b"hello") + b"\0" * 1024
    with tarfile.open(fileobj=io.BytesIO(raw)) as tar:
        assert tar.extractfile("a.txt").read() == b"hello"
    assert len(tar_member("b", b"x" * 513)) == 512 + 1024
    with pytest.raises(ValueError, match="longer than 100"):
        tar_member("n" * 101, b"")
    long = "d" * 60 + "/" + "e" * 60 + "/" + "f" * 90  # 212 bytes: ustar prefix + name
    with tarfile.open(fileobj=io.BytesIO(tar_member(long, b"ok") + b"\0" * 1024)) as tar:
        assert tar.getnames() == [long] and tar.extractfile(long).read() == b"ok"


@settings(max_examples=50, deadline=None)
@given(st.dictionaries(st.from_regex(r"[a-z0-9_]{1,40}\.[a-z]{1,9}", fullmatch=True),
                       st.binary(max_size=3000), min_size=1, max_size=6))
def test_tar_round_trip_through_tarfile(files):
    raw = b"".join(tar_member(name, files[name]) for name in sorted(files)) + TAR_END
    with tarfile.open(fileobj=io.BytesIO(raw)) as tar:
        assert [m.name for m in tar.getmembers()] == sorted(files)
        assert {m.name: tar.extractfile(m).read() for m in tar.getmembers()} == files


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.one_of(st.from_regex(r"[a-z0-9_.]{1,100}", fullmatch=True),
                                    st.from_regex(r"[a-z]{60,120}/[a-z0-9_.]{1,90}",
                                                  fullmatch=True)),
                          st.binary(max_size=2000)), min_size=1, max_size=12))
def test_tar_members_of_a_chunk_equal_each_member(members):
    """The chunk writer's headers (filled in together) are tar_member's, long names too."""
    names, datas = [n for n, _ in members], [d for _, d in members]
    assert tar_members(names, datas) == b"".join(map(tar_member, names, datas))


def _write_vmeval_shard(out, count=6, chunk=4):
    config = RunConfig(count=count, format="vmevalkit", shard_size=count)
    shard = Shard(0, 0, count)
    with vmevalkit.ShardWriter(out, shard, config) as writer:
        for start, batch in shard_batches(config, shard, chunk):
            writer.write_samples(encode_samples(batch, start, config, vmevalkit.FORMAT))
        return writer.finish()


def test_vmevalkit_rewrite_keeps_complete_folders_and_fills_gaps(tmp_path):
    entry = _write_vmeval_shard(tmp_path)
    before = tree(tmp_path / VMEVAL_TASK_DIR)
    assert len(before) == 6 * 4
    gap = sorted((tmp_path / VMEVAL_TASK_DIR).iterdir())[2]
    for f in gap.iterdir():
        f.unlink()
    gap.rmdir()
    # as after a killed run: some folders complete, one missing; every rename but one collides
    assert _write_vmeval_shard(tmp_path) == entry
    assert tree(tmp_path / VMEVAL_TASK_DIR) == before
    assert not [p for p in (tmp_path / VMEVAL_TASK_DIR).iterdir() if p.name.startswith(".")]


def test_vmevalkit_io_error_surfaces_and_leaves_no_temp_folder(tmp_path, monkeypatch):
    def fail(*args):
        raise OSError(errno.EIO, "simulated I/O error")

    monkeypatch.setattr(folders, "write_file", fail)
    with pytest.raises(OSError, match="simulated I/O error"):
        _write_vmeval_shard(tmp_path)
    assert list((tmp_path / VMEVAL_TASK_DIR).iterdir()) == []
