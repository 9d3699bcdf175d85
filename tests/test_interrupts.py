"""Issue #20: a killed ``generate`` leaves no workers behind, and SIGTERM stops a run the way
Ctrl-C does (the resume hint, no leaked-semaphore warnings, workers gone)."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from objsub_fast.dataset.check.verify import verify

from inprocess import run_cli

pytestmark = pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")


def _workers(pid: int) -> list[int]:
    """The loky worker processes started by ``pid``."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return [int(c) for c in children
            if b"popen_loky_posix" in Path(f"/proc/{c}/cmdline").read_bytes()]


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _running_generate(out: Path):
    """A 2-worker ``generate`` that has finished its first shard (so its workers are busy)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "objsub_fast.cli", "generate", "--out", str(out), "--count",
         "3000", "--shard-size", "250", "--workers", "2", "--no-space-check"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not list(out.glob(".objsub-progress/*.json")):
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.1)
    workers = _workers(proc.pid)
    assert len(workers) == 2
    return proc, workers


def _gone_within(pids, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while any(_alive(p) for p in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def test_workers_stop_within_seconds_of_a_kill_9(tmp_path):
    proc, workers = _running_generate(tmp_path / "out")
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    try:
        assert _gone_within(workers, 15), "loky workers outlived their killed parent"
    finally:
        for pid in workers:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_sigterm_says_how_to_resume_and_the_rerun_finishes(tmp_path):
    out = tmp_path / "out"
    proc, workers = _running_generate(out)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143
    assert err.strip().splitlines()[-1] == ("objsub-fast: interrupted (terminated); rerun the "
                                            "same command to resume")
    assert "leaked" not in err and "Traceback" not in err
    assert _gone_within(workers, 15)
    rerun = run_cli(["generate", "--out", out, "--count", "3000", "--shard-size", "250",
                     "--workers", "2", "--no-space-check", "--quiet"])   # in this process
    assert rerun.returncode == 0, rerun.stderr
    assert verify(out, workers=2).ok


def test_the_command_line_loads_without_numpy_so_an_early_ctrl_c_finds_its_handler():
    # before: importing the command line took the engine, NumPy and Numba (1.5-3 s on a
    # loaded machine), and a Ctrl-C in that time printed Python's KeyboardInterrupt traceback
    done = subprocess.run([sys.executable, "-c", "import sys, objsub_fast.cli; print(sorted("
                           "{'numpy', 'numba', 'objsub_fast.engine'} & set(sys.modules)))"],
                          capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr


def test_a_ctrl_c_while_the_command_starts_is_one_line(monkeypatch, capsys):
    from objsub_fast import cli

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", interrupted)
    monkeypatch.setattr(sys, "argv", ["objsub-fast", "generate", "--count", "2"])
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        with pytest.raises(SystemExit) as e:
            cli.program()
    finally:  # program() leaves Ctrl-C ignored for the interpreter's exit
        for s, handler in handlers.items():
            signal.signal(s, handler)
    assert e.value.code == 130
    assert capsys.readouterr().err == "objsub-fast: interrupted\n"
