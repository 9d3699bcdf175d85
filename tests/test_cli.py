"""Command line: subcommands, clear errors without tracebacks, progress output, wrappers."""
import errno
import io
import json
import os
import re
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest
from PIL import Image

from objsub_fast.cli import main
from objsub_fast.runtime.progress import Progress
from objsub_fast.runtime.atomic import AtomicWriter

ROOT = Path(__file__).resolve().parents[1]


def run_main(argv):
    try:
        return main(argv)
    except SystemExit as e:
        return e.code


@pytest.mark.parametrize("args,message", [
    (["--count", "0"], "--count must be an integer in [1, 10,000,000,000], got 0"),
    (["--count", "-5"], "--count must be an integer in [1, 10,000,000,000], got -5"),
    (["--count", str(10**12)], "--count must be an integer in [1, 10,000,000,000], got "
     "1000000000000"),
    (["--count", str(10**7), "--shard-size", "1"], "--shard-size 1 gives 10,000,000 shards "
     "for --count 10000000; at most 1,000,000 shards: use --shard-size >= 10"),
    (["--chunk-size", "100000"], "--chunk-size must be an integer in [1, 2730] at 256x256 "
     "(at most 1 GiB of frames per worker), got 100000"),
    (["--chunk-size", "3000", "--canvas-size", "127x4096"], "--canvas-size must be W or WxH "
     "with each side in [128, 4096] (below 128 the default objects, scaled with the canvas, "
     "are too small to show their shape), "
     "got 127x4096"),
    (["--canvas-size", "64x4096"], "--canvas-size must be W or WxH with each side in [128, "
     "4096]"),
    (["--levels", "L1,,L2"], "argument --levels: expected comma-separated levels such as "
     "L1,L3, got 'L1,,L2' (an empty item)"),
    (["--levels", ","], "argument --levels: expected comma-separated levels"),
    (["--out", ""], "argument --out: expected a folder path, got an empty string"),
    (["--backend", "dask", "--scheduler", "tcp://h:1", "--scheduler-timeout", "0"],
     "--scheduler-timeout must be in (0, 3600] seconds, got 0.0"),
    (["--levels", "L1,L7"], "--levels must be distinct names from L1,L2,L3,L4, got L1,L7"),
    (["--format", "parquet"], "--format must be one of webdataset, vmevalkit, vbvr, vbvr-bench, got 'parquet'"),
    (["--shard-size", "0"], "--shard-size must be an integer >= 1, got 0"),
    (["--workers", "0"], "--workers must be an integer >= 1, got 0"),
    (["--backend", "ray"], "--backend must be one of loky, dask, got 'ray'"),
    (["--scheduler", "tcp://x:1"], "--scheduler needs --backend dask"),
    (["--canvas-size", "abc"], "argument --canvas-size: expected W or WxH, got 'abc'"),
    (["--count", "many"], "argument --count: invalid int value: 'many'"),
])
def test_bad_generate_arguments(args, message, tmp_path, capsys):
    out = tmp_path / "out"
    argv = ["generate", "--out", str(out), *args]
    if "--out" in args:
        argv = ["generate", *args]
    assert run_main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"objsub-fast: error: {message}") and len(err.splitlines()) == 1
    assert not out.exists()


def test_output_is_a_file_without_traceback(tmp_path):
    target = tmp_path / "file"
    target.write_text("x")
    proc = subprocess.run([sys.executable, "-m", "objsub_fast.cli", "generate", "--out",
                           str(target), "--count", "2"], capture_output=True, text=True)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().endswith("exists and is not a directory")


def test_full_disk_is_a_clear_error(tmp_path, monkeypatch, capsys):
    real = AtomicWriter.write

    def write(self, data):
        if self.final.suffix == ".tar":
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(self, data)

    monkeypatch.setattr(AtomicWriter, "write", write)
    assert run_main(["generate", "--out", str(tmp_path), "--count", "3", "--workers", "1"]) == 1
    err = "".join(line for line in capsys.readouterr().err.splitlines(keepends=True)
                  if "kernels" not in line)  # the compile notice, on a cold cache
    assert err.startswith("objsub-fast: error: No space left on device") and "Traceback" not in err
    assert str(tmp_path) in err and re.search(r"the 3 tasks not yet written need about [\d.]+ kB "
                                              "more", err)
    assert err.strip().endswith("free some space, then rerun the same command to resume")
    assert not list(tmp_path.glob("*.tar")) and not list(tmp_path.glob(".tmp-*"))


def test_generate_prints_line_progress_when_not_a_tty(tmp_path, capsys):
    assert run_main(["generate", "--out", str(tmp_path), "--count", "6", "--shard-size", "3",
                     "--workers", "1"]) == 0
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert lines[-1].startswith("objsub-fast: 6/6 tasks (100.0%)") and "tasks/s" in lines[-1]
    assert "\r" not in captured.err
    assert "wrote 6 tasks; " in captured.out and "holds 6 tasks in 2 shards" in captured.out
    assert captured.out.splitlines()[-1].endswith("/objsub-{000000..000001}.tar")


def test_progress_bar_on_a_terminal():
    class Tty(io.StringIO):
        def isatty(self):
            return True

    stream = Tty()
    bar = Progress(100, 0, stream=stream)
    bar.update(40)
    bar.close()
    assert "task/s" in stream.getvalue() and " 40%" in stream.getvalue()


def test_preview_writes_a_contact_sheet(tmp_path, capsys):
    out = tmp_path / "sheet.png"
    assert run_main(["preview", "--level", "L3", "--count", "3", "--columns", "2",
                     str(out)]) == 0
    with Image.open(out) as im:
        assert im.mode == "RGB" and im.width > 2 * 2 * 256 and im.height > 2 * 256
    assert run_main(["preview", "--level", "L9", str(out)]) == 2
    assert "--level must be one of L1, L2, L3, L4, got 'L9'" in capsys.readouterr().err


def test_score_without_its_module_is_a_clear_error(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "objsub_fast.scoring.command", None)
    assert run_main(["score", "--help"]) == 2
    assert "objsub-fast: error: the score command is not available" in capsys.readouterr().err


def test_score_is_delegated_to_the_scoring_module(monkeypatch):
    fake = types.ModuleType("objsub_fast.scoring.command")
    fake.add_arguments = lambda p: p.add_argument("--videos")
    fake.run = lambda args: 7 if args.videos == "v" else 0
    monkeypatch.setitem(sys.modules, "objsub_fast.scoring.command", fake)
    assert run_main(["score", "--videos", "v"]) == 7


def test_generate_million_wrapper_and_console_script(tmp_path):
    script = ROOT / "scripts" / "generate_million.py"
    proc = subprocess.run([sys.executable, str(script), "--count", "4", "--workers", "1",
                           "--out", str(tmp_path / "a"), "--quiet"], capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr
    exe = shutil.which("objsub-fast")
    if exe is None:
        pytest.skip("console script not installed")
    proc = subprocess.run([exe, "generate", "--count", "4", "--workers", "1", "--out",
                           str(tmp_path / "b"), "--quiet"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "a" / "objsub-000000.tar").read_bytes() == (
        tmp_path / "b" / "objsub-000000.tar").read_bytes()
    assert json.loads((tmp_path / "a" / "manifest.json").read_text())["complete"]


def test_file_system_error_outside_generate_is_one_true_line(tmp_path, capsys, monkeypatch):
    import objsub_fast.dataset.run.preview as preview

    def denied(path, data):
        raise PermissionError(errno.EACCES, "Permission denied", str(path))

    monkeypatch.setattr(preview, "atomic_write_bytes", denied)
    assert run_main(["preview", "--count", "1", str(tmp_path / "a-dir" / "sheet.png")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("objsub-fast: error: Permission denied") and "a-dir" in err
    assert len(err.strip().splitlines()) == 1 and "resume" not in err and "Traceback" not in err


def test_a_bug_is_not_disguised_as_a_usage_error(monkeypatch):
    import objsub_fast.dataset.check.verify as verify_module

    def broken(*args, **kwargs):
        raise ValueError("a bug")

    monkeypatch.setattr(verify_module, "verify", broken)
    with pytest.raises(ValueError, match="a bug"):
        main(["verify", "anywhere"])


@pytest.mark.parametrize("args, message", [
    (["--fps", "30"], "--fps has no effect without --videos"),
    (["--video-frames", "8"], "--video-frames has no effect without --videos"),
    (["--video-style", "slide"], "--video-style has no effect without --videos"),
    (["--vbvr-split", "mine"], "--vbvr-split has no effect outside --format vbvr-bench"),
    (["--vbvr-pack", "folders"], "--vbvr-pack has no effect outside --format vbvr"),
    (["--format", "vbvr", "--vbvr-split", "mine"],
     "--vbvr-split has no effect outside --format vbvr-bench"),
])
def test_options_that_would_do_nothing_are_refused(tmp_path, capsys, args, message):
    """Issue #20: they were silently ignored."""
    out = tmp_path / "out"
    assert run_main(["generate", "--out", str(out), "--count", "2", "--quiet", *args]) == 2
    err = capsys.readouterr().err
    assert err == f"objsub-fast: error: {message}: leave it out\n"
    assert not out.exists()
