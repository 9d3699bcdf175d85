"""The VBVR layouts: ``--format vbvr`` (tar shards or folders, metadata.json, the index) and
``--format vbvr-bench`` ({split}/O-43_object_subtraction_data-generator/{index:05d}/)."""
import hashlib
import json
import shutil
import tarfile

import pytest

from objsub_fast.dataset.formats import vbvr_factory as vbvr
from objsub_fast.dataset.run.run_config import RunConfig
from objsub_fast.dataset.run.pipeline import generate
from objsub_fast.dataset.check.verify import verify
from objsub_fast.runtime.errors import ParameterError

from filetree import tree
from test_verify import rewrite_tar

GEN = "O-43_object_subtraction_data-generator"
FILES = ["final_frame.png", "first_frame.png", "ground_truth.mp4", "metadata.json", "prompt.txt"]
COMMON = dict(count=5, shard_size=3, seed=4, video_frames=10)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    dirs = {}
    for label, extra in (("tar", dict(format="vbvr")),
                         ("folders", dict(format="vbvr", vbvr_pack="folders")),
                         ("bench", dict(format="vbvr-bench"))):
        out = tmp_path_factory.mktemp(label)
        generate(RunConfig(**COMMON, **extra), out, workers=1, quiet=True)
        dirs[label] = out
    return dirs


def tar_samples(out):
    """{sample folder: {file: bytes}} of every tar shard."""
    samples = {}
    for shard in sorted((out / "questions").glob("*.tar")):
        with tarfile.open(shard) as tar:
            for m in tar:
                folder, _, name = m.name.rpartition("/")
                samples.setdefault(folder, {})[name] = tar.extractfile(m).read()
    return samples


def test_tar_shards_hold_vbvr_sample_folders(runs):
    out = runs["tar"]
    assert sorted(p.name for p in (out / "questions").iterdir()) == [
        f"{GEN}_00000-00002.tar", f"{GEN}_00003-00004.tar"]
    samples = tar_samples(out)
    assert sorted(samples) == [f"{GEN}/object_subtraction_task/object_subtraction_{i:08d}"
                               for i in range(5)]
    assert all(sorted(files) == FILES for files in samples.values())


def test_folders_and_bench_hold_the_same_files_as_the_tar(runs):
    samples = tar_samples(runs["tar"])
    folders = tree(runs["folders"] / "questions" / GEN / "object_subtraction_task")
    bench = tree(runs["bench"] / "Out-of-Domain_50" / GEN)
    for i in range(5):
        want = samples[f"{GEN}/object_subtraction_task/object_subtraction_{i:08d}"]
        assert {f: folders[f"object_subtraction_{i:08d}/{f}"] for f in FILES} == want
        assert {f: bench[f"{i:05d}/{f}"] for f in FILES} == want
    listed = sorted(p.name for p in runs["bench"].iterdir() if not p.name.startswith("."))
    assert listed == ["Out-of-Domain_50", "README.md", "manifest.json", "metadata.jsonl"]


def test_metadata_json_has_vbvr_fields_and_the_task_record(runs):
    from objsub_fast.engine import generate_batch
    from objsub_fast.dataset.content.shards import task_levels, task_seeds

    batch = generate_batch(task_seeds(4, 0, 5), level=task_levels(("L1", "L2", "L3", "L4"), 0, 5))
    samples = tar_samples(runs["tar"])
    for i in range(5):
        meta = json.loads(samples[f"{GEN}/object_subtraction_task/"
                                  f"object_subtraction_{i:08d}"]["metadata.json"])
        # the record carries the run's generator version (its videos are the own encoder's)
        record = {**batch.task(i), "task_index": i,
                  "generator_version": RunConfig(**COMMON, format="vbvr").generator_version}
        assert meta["task_id"] == f"object_subtraction_{i:08d}" and meta["generator"] == GEN
        assert meta["timestamp"] == vbvr.TIMESTAMP and meta["task"] == record
        assert meta["generation"]["seed"] == record["seed"]
        assert "seed" not in meta["parameters"] and "id" not in meta["parameters"]
        assert meta["parameters"]["object_subtraction_data"] == record["object_subtraction_data"]
        assert meta["param_hash"] == hashlib.sha256(json.dumps(
            meta["parameters"], sort_keys=True).encode()).hexdigest()[:16]


def test_param_hash_ignores_the_seed_and_follows_the_parameters():
    record = {"id": "a", "seed": 1, "task_index": 0, "generator": "g", "generator_version": "1",
              "level": "L1", "prompt": "p"}
    same = {**record, "id": "b", "seed": 2, "task_index": 7}
    other = {**record, "prompt": "q"}
    h = vbvr.param_hash(vbvr.parameters(record))
    assert h == vbvr.param_hash(vbvr.parameters(same)) != vbvr.param_hash(vbvr.parameters(other))
    assert len(h) == 16 and int(h, 16) >= 0


@pytest.mark.parametrize("pack", ["tar", "folders"])
def test_index_rows_point_at_the_files(runs, pack):
    out = runs[pack]
    rows = [json.loads(line) for line in (out / vbvr.INDEX_JSONL).read_text().splitlines()]
    assert [r["id"] for r in rows] == list(range(5))
    assert all(tuple(r) == vbvr.INDEX_COLUMNS for r in rows)
    samples = tar_samples(out) if pack == "tar" else None
    for r in rows:
        assert r["sample_id"] == f"object_subtraction_{r['id']:08d}" and r["task"] == \
            "object_subtraction"
        for key in ("first_frame_path", "final_frame_path", "ground_truth_video_path"):
            if pack == "tar":
                folder, _, name = r[key].rpartition("/")
                assert name in samples[folder] and (out / r["tar_file"]).is_file()
            else:
                assert (out / r[key]).is_file() and r["tar_file"] == ""
        assert json.loads(r["metadata_json"])["task_id"] == r["sample_id"]
    pq = pytest.importorskip("pyarrow.parquet")
    assert pq.read_table(out / vbvr.INDEX_PARQUET).to_pylist() == rows


def test_workers_never_change_a_vbvr_dataset(runs, tmp_path):
    generate(RunConfig(**COMMON, format="vbvr"), tmp_path, workers=2, chunk_size=2, quiet=True)
    assert tree(tmp_path) == tree(runs["tar"])


@pytest.mark.parametrize("label", ["tar", "folders", "bench"])
def test_verify_passes_and_catches_a_flipped_video_byte(runs, label, tmp_path):
    assert verify(runs[label], workers=1).ok
    out = shutil.copytree(runs[label], tmp_path / label)
    if label == "tar":
        def flip(name, data):
            return data[:-50] + bytes([data[-50] ^ 1]) + data[-49:] if name.endswith(
                "object_subtraction_00000001/ground_truth.mp4") else data
        rewrite_tar(out / "questions" / f"{GEN}_00000-00002.tar", flip)
    else:
        video = sorted(out.rglob("ground_truth.mp4"))[1]
        data = bytearray(video.read_bytes())
        data[-50] ^= 1
        video.write_bytes(bytes(data))
    problems = "\n".join(verify(out, workers=1).problems)
    assert "task 1 (" in problems and "mp4 " in problems


def test_videos_are_required_and_options_checked():
    with pytest.raises(ParameterError, match="--format vbvr needs videos"):
        RunConfig(count=1, format="vbvr", videos=False).validate()
    assert RunConfig(count=1, format="vbvr-bench").videos is True
    with pytest.raises(ParameterError, match="--vbvr-split must be a folder name"):
        RunConfig(count=1, format="vbvr-bench", vbvr_split="../x").validate()
    with pytest.raises(ParameterError, match="--vbvr-pack must be tar or folders"):
        RunConfig(count=1, format="vbvr", vbvr_pack="zip").validate()
    plain = RunConfig(count=1).to_json()
    assert not {"vbvr_pack", "vbvr_parquet", "vbvr_split"} & set(plain)


def test_bench_split_is_chosen(tmp_path):
    generate(RunConfig(count=2, format="vbvr-bench", vbvr_split="In-Domain_50",
                       video_frames=8), tmp_path, workers=1, quiet=True)
    assert sorted(p.name for p in (tmp_path / "In-Domain_50" / GEN).iterdir()) == ["00000",
                                                                                   "00001"]
    assert verify(tmp_path, workers=1).ok


@pytest.mark.parametrize("pack", ["tar", "folders"])
def test_resume_after_kill_9_is_byte_identical(pack, tmp_path):
    """Killed (SIGKILL) right after its 2nd, then 1st rename into place, a rerun of the same
    command gives the dataset of an uninterrupted run: shards, videos, index, parquet."""
    import os
    import signal
    import subprocess
    import sys

    from inprocess import run_cli
    from objsub_fast.runtime import crashpoint

    cmd = [sys.executable, "-m", "objsub_fast.cli", "generate", "--format", "vbvr",
           "--vbvr-pack", pack, "--count", "7", "--shard-size", "3", "--seed", "4",
           "--video-frames", "8", "--workers", "1", "--chunk-size", "2", "--quiet"]
    reference, killed = tmp_path / "reference", tmp_path / "killed"
    # the uninterrupted run and the rerun in this process; the killed ones are subprocesses
    assert run_cli(cmd[3:] + ["--out", str(reference)]).returncode == 0
    for k in (2, 1):
        proc = subprocess.run(cmd + ["--out", str(killed)], env={**os.environ,
                                                                 crashpoint.ENV: str(k)})
        assert proc.returncode == -signal.SIGKILL
    assert run_cli(cmd[3:] + ["--out", str(killed)]).returncode == 0
    assert tree(killed) == tree(reference)
