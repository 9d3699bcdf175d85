"""The command line under hostile or careless use (issue 10): bounded memory, no hang, no
surprise deletion, a locked output folder, nothing written before everything is checked, and a
dataset that can be extended.

Memory bounds are checked in a subprocess under ``RLIMIT_AS``; hangs under a timeout.
"""
import json
import os
import resource
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from objsub_fast.cli import main
from objsub_fast.runtime import crashpoint
from objsub_fast.runtime.atomic import remove_stale_tmp, tmp_name, tmp_writer
from objsub_fast.runtime.lock import LOCK_FILE

from filetree import tree

CLI = [sys.executable, "-m", "objsub_fast.cli"]
GiB = 2**30


def run_main(argv):
    try:
        return main(argv)
    except SystemExit as e:
        return e.code


def _limited(limit_bytes):
    """preexec_fn: cap the child's address space."""
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))
    return apply


def _one_error_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("objsub-fast: error: "), stderr
    assert "Traceback" not in stderr
    return lines[0]


# ---------------------------------------------------------------- defect 1: --chunk-size bound

def test_chunk_size_beyond_the_memory_bound_is_refused_under_an_address_space_limit(tmp_path):
    # before: the engine allocated 100,000 x 2 frames (39 GB) and died (MemoryError / OOM kill)
    proc = subprocess.run(CLI + ["generate", "--out", str(tmp_path / "out"), "--count", "100000",
                                 "--shard-size", "100000", "--chunk-size", "100000",
                                 "--workers", "1", "--quiet"],
                          capture_output=True, text=True, timeout=120,
                          preexec_fn=_limited(int(1.5 * GiB)))
    assert proc.returncode == 2
    line = _one_error_line(proc.stderr)
    assert "--chunk-size must be an integer in [1, 2730] at 256x256" in line and "1 GiB" in line
    assert not (tmp_path / "out").exists()


def test_chunk_size_bound_follows_canvas_and_masks(capsys, tmp_path):
    assert run_main(["generate", "--out", str(tmp_path / "o"), "--canvas-size", "1024",
                     "--masks", "--chunk-size", "147"]) == 2
    assert "[1, 146] at 1024x1024 with masks" in capsys.readouterr().err


# ------------------------------------------ defect 2: --count bound, lazy plan, free-space check

def test_largest_count_fails_fast_on_free_space_without_planning_every_shard(tmp_path):
    # 10**10 tasks = 10**6 shards: refused by the free-space check in seconds, in bounded memory
    t0 = time.monotonic()
    proc = subprocess.run(CLI + ["generate", "--out", str(tmp_path / "out"), "--count",
                                 str(10**10), "--workers", "1", "--quiet"],
                          capture_output=True, text=True, timeout=120,
                          preexec_fn=_limited(int(1.5 * GiB)))
    assert proc.returncode == 2, proc.stderr
    line = _one_error_line(proc.stderr)
    assert "not enough free space" in line and "10,000,000,000 tasks need about" in line
    assert " TB " in line and "is free there" in line and "--no-space-check" in line
    assert not (tmp_path / "out").exists()
    assert time.monotonic() - t0 < 100


def test_free_space_check_names_both_numbers(tmp_path, monkeypatch, capsys):
    from objsub_fast.dataset.run import sample
    monkeypatch.setattr(sample, "free_bytes", lambda out: 50_000)
    assert run_main(["generate", "--out", str(tmp_path / "o"), "--count", "100"]) == 2
    line = _one_error_line(capsys.readouterr().err)
    assert "100 tasks need about 9" in line and "kB" in line and "but 50 kB is free" in line
    assert not (tmp_path / "o").exists()
    assert run_main(["generate", "--out", str(tmp_path / "o"), "--count", "10",
                     "--no-space-check", "--quiet"]) == 0


LAZY = r"""
import os, resource, sys
from objsub_fast.cli import main
out, warm = sys.argv[1], sys.argv[2]
main(["generate", "--out", warm, "--count", "3", "--workers", "1", "--quiet"])
size = int(open("/proc/self/status").read().split("VmSize:")[1].split()[0]) * 1024
limit = size + 256 * 2**20  # a list of 10**6 shard jobs alone took ~400 MB
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
print("limited", flush=True)
main(["generate", "--out", out, "--count", "1000000", "--shard-size", "1", "--workers", "1",
      "--no-space-check", "--quiet"])
"""


def test_shards_are_planned_lazily_in_bounded_memory(tmp_path):
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-c", LAZY, str(out), str(tmp_path / "warm")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        while proc.stdout.readline().strip() != "limited":
            assert proc.poll() is None, proc.stderr.read()
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and proc.poll() is None:
            if len(list((out / ".objsub-progress").glob("*.json"))) >= 5:
                break
            time.sleep(0.2)
        assert proc.poll() is None, proc.stderr.read()
        assert len(list((out / ".objsub-progress").glob("*.json"))) >= 5
    finally:
        proc.kill()
        proc.wait()


# ------------------------------------------------------- defect 3: a --scheduler that is not one

def test_scheduler_that_never_answers_fails_in_bounded_time_with_one_line(tmp_path):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    conns = []
    threading.Thread(target=lambda: conns.append(server.accept()), daemon=True).start()
    address = f"tcp://127.0.0.1:{server.getsockname()[1]}"
    try:
        proc = subprocess.run(CLI + ["generate", "--out", str(tmp_path / "out"), "--count", "4",
                                     "--backend", "dask", "--scheduler", address,
                                     "--scheduler-timeout", "1"],
                              capture_output=True, text=True, timeout=90)
    finally:
        server.close()
    assert proc.returncode == 2
    line = _one_error_line(proc.stderr)
    assert address in line and "--scheduler-timeout" in line
    assert not (tmp_path / "out").exists()


# ------------------------------------------------------------------ defect 4: --workers 999

def test_workers_are_capped_at_the_shards_and_said_once(tmp_path, capsys):
    assert run_main(["generate", "--out", str(tmp_path / "a"), "--count", "4",
                     "--shard-size", "2", "--workers", "999"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert [line for line in err if "capped" in line] == [
        "objsub-fast: --workers 999 capped at 2: one worker per shard, 2 shard(s) to write"]
    assert run_main(["generate", "--out", str(tmp_path / "b"), "--count", "4",
                     "--shard-size", "2", "--workers", "999", "--quiet"]) == 0
    assert capsys.readouterr().err == ""


# ------------------------------------------------------ defect 5: only our own temp files go

def _user_files(root: Path) -> dict:
    (root / ".tmp-build" / "sub").mkdir(parents=True)
    (root / ".tmp-build" / "sub" / "notes.txt").write_text("mine")
    (root / ".tmp-user-file").write_text("mine too")
    return {p: p.read_bytes() for p in (root / ".tmp-build" / "sub" / "notes.txt",
                                        root / ".tmp-user-file")}


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


@pytest.mark.parametrize("fmt", ["webdataset", "vmevalkit"])
def test_a_users_tmp_files_survive_generate_and_overwrite(fmt, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    user = _user_files(out)
    args = ["generate", "--out", str(out), "--count", "4", "--format", fmt, "--workers", "1",
            "--quiet"]
    assert run_main(args) == 0
    if fmt == "vmevalkit":
        user.update(_user_files(out / "object_subtraction_task"))
    # a leftover of a killed writer of ours (a dead pid of this host)
    ours = out / tmp_name("objsub-000009.tar").replace(str(os.getpid()), str(_dead_pid()))
    ours.write_bytes(b"half a shard")
    assert run_main(args) == 0
    assert not ours.exists()
    assert run_main(args + ["--overwrite", "--seed", "3"]) == 0
    assert {p: p.read_bytes() for p in user} == user


def test_stale_tmp_without_the_lock_only_removes_dead_writers_of_this_host(tmp_path):
    dead = tmp_path / tmp_name("a.tar").replace(str(os.getpid()), str(_dead_pid()))
    alive = tmp_path / tmp_name("b.tar")
    other_host = tmp_path / ".tmp-objsub-c.tar.otherhost.1"
    user = tmp_path / ".tmp-c.tar.1"
    for p in (dead, alive, other_host, user):
        p.write_bytes(b"x")
    assert tmp_writer(user.name) is None and tmp_writer(other_host.name) == ("otherhost", 1)
    assert remove_stale_tmp(tmp_path, locked=False) == 1 and not dead.exists()
    assert remove_stale_tmp(tmp_path, locked=True) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == [user.name]


# ---------------------------------------------------------- defect 6: the output folder lock

def test_a_second_concurrent_run_is_refused_naming_the_first(tmp_path, capsys):
    out = tmp_path / "out"
    first = subprocess.Popen(CLI + ["generate", "--out", str(out), "--count", "60000",
                                    "--shard-size", "500", "--workers", "1", "--quiet"],
                             stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            lock = out / LOCK_FILE
            if lock.exists() and lock.read_bytes() and list(out.glob("objsub-*.tar")):
                break
            assert first.poll() is None, first.stderr.read()
            time.sleep(0.1)
        before = tree(out)
        assert run_main(["generate", "--out", str(out), "--count", "60000", "--shard-size",
                         "500", "--workers", "1"]) == 2
        line = _one_error_line(capsys.readouterr().err)
        assert f"in use by another objsub-fast run (pid {first.pid} on host" in line
        assert first.poll() is None  # the first run goes on
        now = tree(out)
        assert all(now[name] == data for name, data in before.items()
                   if name.endswith(".tar"))  # the refused run touched no shard
    finally:
        first.kill()
        first.wait()
    # the first run died with kill -9: its lock is gone with it; a rerun resumes
    assert run_main(["generate", "--out", str(out), "--count", "600", "--shard-size", "500",
                     "--workers", "1", "--quiet", "--overwrite"]) == 0


# ------------------------------------------- defect 7: everything checked before any writing

def test_a_refused_configuration_writes_nothing_and_blocks_nothing(tmp_path, capsys):
    out = tmp_path / "out"
    assert run_main(["generate", "--out", str(out), "--canvas-size", "64x4096"]) == 2
    assert "each side in [128, 4096]" in capsys.readouterr().err
    assert not out.exists()
    # a run killed before its first shard (manifest written, nothing complete) ...
    env = dict(os.environ, **{crashpoint.ENV: "1"})
    subprocess.run(CLI + ["generate", "--out", str(out), "--count", "4", "--seed", "1",
                          "--workers", "1", "--quiet"], env=env, timeout=120)
    assert json.loads((out / "manifest.json").read_text())["complete"] is False
    # ... does not block a corrected command, which equals a fresh run
    assert run_main(["generate", "--out", str(out), "--count", "4", "--seed", "2",
                     "--workers", "1", "--quiet"]) == 0
    assert run_main(["generate", "--out", str(tmp_path / "fresh"), "--count", "4", "--seed",
                     "2", "--workers", "1", "--quiet"]) == 0
    assert tree(out) == tree(tmp_path / "fresh")


def test_a_different_configuration_with_complete_shards_is_still_protected(tmp_path, capsys):
    out = str(tmp_path)
    assert run_main(["generate", "--out", out, "--count", "4", "--quiet", "--workers", "1"]) == 0
    assert run_main(["generate", "--out", out, "--count", "4", "--seed", "1"]) == 2
    assert "other options: --seed (there: 0, now: 1);" in capsys.readouterr().err


# --------------------------------------------------------------------- extending a dataset

@pytest.mark.parametrize("fmt", ["webdataset", "vmevalkit"])
def test_extending_a_dataset_equals_a_fresh_run(fmt, tmp_path, capsys):
    common = ["--format", fmt, "--workers", "1", "--quiet", "--shard-size", "30"]
    grown, fresh = str(tmp_path / "grown"), str(tmp_path / "fresh")
    assert run_main(["generate", "--out", grown, "--count", "100", *common]) == 0
    shard0 = tree(tmp_path / "grown")
    assert run_main(["generate", "--out", grown, "--count", "200", *common]) == 0
    assert run_main(["generate", "--out", fresh, "--count", "200", *common]) == 0
    assert tree(tmp_path / "grown") == tree(tmp_path / "fresh")
    if fmt == "webdataset":  # complete shards were kept, not rewritten
        assert tree(tmp_path / "grown")["objsub-000000.tar"] == shard0["objsub-000000.tar"]
    out = capsys.readouterr().out
    assert "wrote 100 tasks; " in out and "holds 200 tasks" in out


def test_extending_with_the_default_shard_size_keeps_the_datasets_shards(tmp_path, capsys):
    out = str(tmp_path / "grown")
    assert run_main(["generate", "--out", out, "--count", "100", "--quiet"]) == 0
    assert run_main(["generate", "--out", out, "--count", "200", "--quiet"]) == 0
    manifest = json.loads((tmp_path / "grown" / "manifest.json").read_text())
    assert manifest["config"]["shard_size"] == 12 and manifest["num_shards"] == 17
    assert run_main(["generate", "--out", str(tmp_path / "fresh"), "--count", "200",
                     "--shard-size", "12", "--quiet"]) == 0
    assert tree(tmp_path / "grown") == tree(tmp_path / "fresh")


# ------------------------------------------------------------------------------ frictions

def test_default_dataset_has_several_shards_and_prints_its_brace_pattern(tmp_path, capsys):
    assert run_main(["generate", "--out", str(tmp_path), "--quiet"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == f"objsub-fast: shards: {tmp_path}/objsub-{{000000..000007}}.tar"
    assert len(list(tmp_path.glob("objsub-*.tar"))) == 8


def test_a_finished_rerun_says_nothing_to_do(tmp_path, capsys):
    args = ["generate", "--out", str(tmp_path), "--count", "3", "--quiet", "--workers", "1"]
    assert run_main(args) == 0 and run_main(args) == 0
    out = capsys.readouterr().out
    assert f"nothing to do, 3 tasks already complete in {tmp_path}" in out
    assert out.count("wrote") == 1


def test_version(capsys):
    """Issue #20: --version also explains the generator versions records carry."""
    from objsub_fast import __version__, generate_batch
    from objsub_fast._version import GENERATOR_VERSIONS

    assert run_main(["--version"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0] == f"objsub-fast {__version__}"
    assert "generator_version" in lines[1] and "docs/generating.md" in lines[1]
    shown = [line.split()[0] for line in lines[2:]]
    assert shown == [v for v, _ in GENERATOR_VERSIONS]
    for kwargs in (dict(), dict(canvas_size=1024), dict(vocabulary="extended")):
        assert generate_batch([1], render=False, **kwargs).task(0)["generator_version"] in shown


@pytest.mark.parametrize("argv", [["generate", "--count"], ["generate", "--bogus"], ["nope"],
                                  ["generate", "--levels", "L1,,L2"]])
def test_argparse_errors_are_one_line(argv, capsys):
    assert run_main(argv) == 2
    _one_error_line(capsys.readouterr().err)


def test_no_progress_is_an_alias_of_quiet(tmp_path, capsys):
    assert run_main(["generate", "--out", str(tmp_path), "--count", "2", "--no-progress",
                     "--workers", "1"]) == 0
    assert capsys.readouterr().err == ""


def test_the_rate_has_decimals():
    import io

    from objsub_fast.runtime.progress import Progress

    stream = io.StringIO()
    progress = Progress(10, 0, stream=stream)
    progress.update(1)
    progress.first = (progress.first[0] - 4.0, progress.first[1])  # one more task in 4 s
    progress.update(1)
    assert " 0.25 tasks/s " in stream.getvalue().splitlines()[-1]


def test_create_dataset_temp_folder_is_removed_when_the_process_exits():
    code = ("from objsub_fast import create_dataset; import os; ds = create_dataset(num_samples=2,"
            " levels=['L1']); d = ds['metadata']['output_dir']; "
            "assert os.path.isfile(ds['pairs'][0]['first_image_path']); print(d)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    folder = proc.stdout.strip().splitlines()[-1]
    assert folder and not os.path.exists(folder)


def test_error_messages_name_the_final_path_and_the_true_remedy(tmp_path, monkeypatch, capsys):
    import errno

    from objsub_fast.runtime.atomic import AtomicWriter

    real = AtomicWriter.write

    def denied(self, data):
        if self.final.suffix == ".tar":
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(self.tmp))
        real(self, data)

    monkeypatch.setattr(AtomicWriter, "write", denied)
    assert run_main(["generate", "--out", str(tmp_path), "--count", "2", "--workers", "1",
                     "--quiet"]) == 1
    line = capsys.readouterr().err.strip()
    assert line == (f"objsub-fast: error: Permission denied ({tmp_path}/objsub-000000.tar); fix "
                    "the permissions of that path, then rerun the same command to resume "
                    "(complete shards are kept)")


# ------------------------------------------------------------------------ properties

from hypothesis import given, strategies as st  # noqa: E402

from objsub_fast.dataset.run.run_config import MAX_SHARDS, default_shard_size  # noqa: E402
from objsub_fast.dataset.content.plan import MAX_CHUNK_BYTES, max_chunk_size  # noqa: E402
from objsub_fast.dataset.content.shards import num_shards  # noqa: E402
from objsub_fast.runtime.atomic import final_path  # noqa: E402

NAMES = st.text(st.characters(blacklist_characters="/\0", blacklist_categories=("Cs",)),
                min_size=1, max_size=40)


@given(NAMES)
def test_temp_names_are_recognised_and_map_back_to_their_final_name(name):
    tmp = tmp_name(name)
    assert tmp_writer(tmp)[1] == os.getpid()
    assert final_path(f"/d/{tmp}") == f"/d/{name}"
    assert tmp_writer(name) is None or name.startswith(".tmp-objsub-")


@given(st.integers(2, 10**10))
def test_default_shard_size_gives_every_dataloader_worker_a_shard(count):
    shards = num_shards(count, default_shard_size(count))
    assert min(8, count) <= shards <= MAX_SHARDS


@given(st.integers(128, 4096), st.integers(128, 4096), st.booleans())
def test_the_chunk_bound_keeps_frames_within_a_gibibyte(w, h, masks):
    top = max_chunk_size((w, h), masks)
    assert top * w * h * (7 if masks else 6) <= max(MAX_CHUNK_BYTES, w * h * 7)
    assert (top + 1) * w * h * (7 if masks else 6) > MAX_CHUNK_BYTES
