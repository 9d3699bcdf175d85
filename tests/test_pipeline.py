"""Pipeline: byte-identical output for any worker count, chunk size or backend; resume after
kill -9; refusal of a different configuration; nothing half-written on a full disk."""
import errno
import io
import os
import random
import signal
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from objsub_fast.dataset.formats import folders
from objsub_fast.dataset.run.run_config import RunConfig
from objsub_fast.dataset.run.pipeline import generate
from objsub_fast.runtime import crashpoint
from objsub_fast.runtime.atomic import AtomicWriter
from objsub_fast.runtime.errors import OutputError, ParameterError
from objsub_fast.runtime.lock import LOCK_FILE

from filetree import tree
from inprocess import run_cli

CONFIGS = {
    "webdataset": RunConfig(count=30, shard_size=8, seed=11, masks=True),
    "vmevalkit": RunConfig(count=13, shard_size=5, seed=11, format="vmevalkit"),
}


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    refs = {}
    for fmt, config in CONFIGS.items():
        out = tmp_path_factory.mktemp(f"ref-{fmt}")
        generate(config, out, workers=1, chunk_size=64, quiet=True)
        refs[fmt] = tree(out)
    return refs


@pytest.mark.parametrize("fmt", CONFIGS)
def test_identical_for_any_workers_and_chunk_size(fmt, reference, tmp_path):
    generate(CONFIGS[fmt], tmp_path, workers=2, chunk_size=3, quiet=True)
    got = tree(tmp_path)
    assert got.keys() == reference[fmt].keys()
    assert got == reference[fmt]
    assert not any(name.startswith(".") for name in got if name != LOCK_FILE)


def test_dask_backend_matches_local_run(reference, tmp_path):
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                      dashboard_address=None) as cluster:
        generate(CONFIGS["webdataset"], tmp_path, backend="dask",
                 scheduler=cluster.scheduler_address, chunk_size=5, quiet=True)
    assert tree(tmp_path) == reference["webdataset"]


def _cli(out, fmt):
    c = CONFIGS[fmt]
    return [sys.executable, "-m", "objsub_fast.cli", "generate", "--out", str(out),
            "--count", str(c.count), "--shard-size", str(c.shard_size), "--seed", str(c.seed),
            "--format", fmt, "--workers", "1", "--chunk-size", "2", "--quiet"] + (
        ["--masks"] if c.masks else [])


def _finished_units(out: Path, fmt: str) -> list[Path]:
    if fmt == "webdataset":
        return sorted(out.glob("objsub-*.tar"))
    root = out / "object_subtraction_task"
    return sorted(p for p in root.iterdir() if not p.name.startswith(".")) if root.exists() \
        else []


#: Base of the kill points; set OBJSUB_KILL_SEED to replay a failure.
KILL_SEED = int(os.environ.get("OBJSUB_KILL_SEED", random.randrange(2**32)))


@pytest.mark.parametrize("fmt", CONFIGS)
def test_resume_after_kill_9_is_byte_identical(fmt, reference, tmp_path):
    # Each run kills itself (SIGKILL) right after its k-th rename into place (the manifest, a
    # shard file, a chunk of task folders, a progress record): twice, then a clean rerun. Both
    # configurations have more than 6 + 2 renames before the end of a run, so both kills happen.
    rng = random.Random(f"{KILL_SEED}-{fmt}")
    kills = [rng.randint(1, 6), rng.randint(1, 2)]
    replay = f"kill points {kills} (replay with OBJSUB_KILL_SEED={KILL_SEED})"
    for k in kills:
        proc = subprocess.run(_cli(tmp_path, fmt), env={**os.environ, crashpoint.ENV: str(k)})
        assert proc.returncode == -signal.SIGKILL, f"the run was not killed; {replay}"
        # whatever is under a final name is complete and already final
        for unit in _finished_units(tmp_path, fmt):
            files = [unit] if unit.is_file() else sorted(unit.iterdir())
            for f in files:
                assert f.read_bytes() == reference[fmt][str(f.relative_to(tmp_path))], replay
    assert run_cli(_cli(tmp_path, fmt)[3:]).returncode == 0, replay   # the rerun, in this process
    result = tree(tmp_path)
    assert sorted(result) == sorted(reference[fmt]), replay
    for name in sorted(result):  # on a difference, say which tar members differ
        if name.endswith(".tar") and result[name] != reference[fmt][name]:
            ours, want = _tar_members(result[name]), _tar_members(reference[fmt][name])
            pytest.fail(f"{name} differs in members "
                        f"{sorted(m for m in want if ours.get(m) != want[m])}; {replay}")
    assert result == reference[fmt], replay


def _tar_members(data: bytes) -> dict:
    """Member name -> bytes of a tar archive."""
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers()}


def test_different_configuration_is_refused_unless_overwrite(tmp_path):
    generate(RunConfig(count=4, shard_size=2), tmp_path, workers=1, quiet=True)
    with pytest.raises(OutputError, match=r"other options: --seed \(there: 0, now: 1\)"):
        generate(RunConfig(count=4, shard_size=2, seed=1), tmp_path, workers=1, quiet=True)
    with pytest.raises(OutputError, match=r"other options: --count \(there: 4, now: 3\)"):
        generate(RunConfig(count=3, shard_size=2), tmp_path, workers=1, quiet=True)
    generate(RunConfig(count=3, shard_size=2), tmp_path, workers=1, overwrite=True, quiet=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "README.md", "manifest.json", "objsub-000000.tar", "objsub-000001.tar"]


def test_a_mismatch_in_many_options_is_said_in_a_short_line(tmp_path):
    # before: every difference spelled out, 869 characters for 19 differences
    generate(RunConfig(count=4, shard_size=2), tmp_path, workers=1, quiet=True)
    other = RunConfig(count=3, shard_size=3, seed=3, canvas_size=(320, 320), num_objects=(4, 6),
                      object_size=(20, 40), look="solid", vocabulary="extended",
                      levels=("L1", "L2"))
    with pytest.raises(OutputError) as refused:
        generate(other, tmp_path, workers=1, quiet=True)
    message = str(refused.value)
    assert "\n" not in message and len(message) < 400, message
    assert ("other options: --count (there: 4, now: 3), --levels (there: L1,L2,L3,L4, now: "
            "L1,L2), --seed (there: 0, now: 3) and 7 more: --shard-size, --canvas-size, "
            "--num-objects, --object-size, --vocabulary, --look, ...;") in message


def test_rerun_of_a_complete_run_changes_nothing(tmp_path):
    config = RunConfig(count=4, shard_size=3)
    generate(config, tmp_path, workers=1, quiet=True)
    before = tree(tmp_path)
    generate(config, tmp_path, workers=1, quiet=True)
    assert tree(tmp_path) == before


def _full_disk(*args, **kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


_write = AtomicWriter.write


def _full_disk_for_shards(self, data):
    if self.final.suffix == ".tar":
        _full_disk()
    _write(self, data)


@pytest.mark.parametrize("fmt,target", [
    ("webdataset", (AtomicWriter, "write", _full_disk_for_shards)),
    ("vmevalkit", (folders, "write_file", _full_disk))])
def test_full_disk_leaves_nothing_under_a_final_name(fmt, target, tmp_path, monkeypatch):
    monkeypatch.setattr(*target)
    with pytest.raises(OSError) as err:
        generate(CONFIGS[fmt], tmp_path, workers=1, quiet=True)
    assert err.value.errno == errno.ENOSPC
    left = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")
                  if not p.name.startswith((".objsub-progress", ".objsub-lock")))
    assert left in (["manifest.json"], ["manifest.json", "object_subtraction_task"])


@pytest.mark.parametrize("kwargs,message", [
    ({"count": 0}, "--count must be an integer in \\[1, 10,000,000,000\\]"),
    ({"count": 1, "levels": ("L5",)}, "--levels"),
    ({"count": 1, "format": "zip"}, "--format must be one of webdataset, vmevalkit, vbvr, vbvr-bench"),
    ({"count": 1, "shard_size": 0}, "--shard-size must be an integer >= 1"),
    ({"count": 1, "seed": -1}, r"--seed must be an integer in \[0, "),
    ({"count": 1, "canvas_size": (10, 10)}, "--canvas-size"),
])
def test_bad_configuration_names_the_parameter(kwargs, message, tmp_path):
    with pytest.raises(ParameterError, match=message):
        generate(RunConfig(**kwargs), tmp_path / "out", workers=1, quiet=True)
    assert not (tmp_path / "out").exists()


def test_output_path_that_is_a_file_is_refused(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(OutputError, match="not a directory"):
        generate(RunConfig(count=1), f, workers=1, quiet=True)
    with pytest.raises(OutputError, match="cannot create output directory"):
        generate(RunConfig(count=1), f / "sub", workers=1, quiet=True)


def test_unwritable_output_is_refused(tmp_path, monkeypatch):
    import objsub_fast.dataset.run.output as output
    monkeypatch.setattr(output.os, "access", lambda path, mode: False)
    with pytest.raises(OutputError, match="is not writable"):
        generate(RunConfig(count=1), tmp_path, workers=1, quiet=True)
    assert list(tmp_path.iterdir()) == []


def test_one_version_in_manifest_and_records(tmp_path):
    import json

    from objsub_fast import __version__

    generate(RunConfig(count=2), tmp_path, workers=1, quiet=True)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    with tarfile.open(tmp_path / "objsub-000000.tar") as tar:
        record = json.loads(tar.extractfile("0000000000.json").read())
    assert manifest["config"]["generator_version"] == record["generator_version"] == __version__
