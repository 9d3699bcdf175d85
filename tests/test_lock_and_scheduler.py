"""Output-folder lock (two runs never share a folder; a dead holder never blocks) and the
scheduler check (anything but a Dask scheduler fails in bounded time with one line)."""
import json
import socket
import subprocess
import sys
import threading
import time

import pytest

from objsub_fast.runtime.lock import LOCK_FILE, FolderLock, FolderLocked
from objsub_fast.runtime.scheduler import SchedulerUnreachable, check_scheduler

HOLD = """
import sys, time
from objsub_fast.runtime.lock import FolderLock
lock = FolderLock(sys.argv[1]).acquire()
print("held", flush=True)
time.sleep(60)
"""


def test_second_lock_in_same_process_is_refused_and_names_holder(tmp_path):
    with FolderLock(tmp_path):
        with pytest.raises(FolderLocked, match=r"pid \d+ on host .*--out"):
            FolderLock(tmp_path).acquire()
    FolderLock(tmp_path).acquire().release()  # free again after release


def test_lock_held_by_another_process_then_freed_by_kill_9(tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(tmp_path)], stdout=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stdout.readline().strip() == "held"
        with pytest.raises(FolderLocked, match=f"pid {proc.pid} "):
            FolderLock(tmp_path).acquire()
    finally:
        proc.kill()
        proc.wait()
    # the holder died without cleaning up: its lock file remains, but the lock is free
    assert json.loads((tmp_path / LOCK_FILE).read_text())["pid"] == proc.pid
    with FolderLock(tmp_path):
        assert json.loads((tmp_path / LOCK_FILE).read_text())["pid"] != proc.pid


def test_scheduler_address_syntax_is_checked_without_connecting():
    for bad in ("", "localhost", "http://x:1", "tcp://host", "host:port"):
        with pytest.raises(SchedulerUnreachable, match="not a Dask scheduler address"):
            check_scheduler(bad, timeout=1)


@pytest.mark.parametrize("timeout", [0, -1, 1e9, "5"])
def test_scheduler_timeout_range(timeout):
    with pytest.raises(ValueError, match=r"--scheduler-timeout must be in \(0, 3600\]"):
        check_scheduler("tcp://127.0.0.1:1", timeout=timeout)


def _serve(behaviour):
    """A loopback server that accepts connections and then stays silent or speaks first."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    conns = []

    def loop():
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            conns.append(conn)
            if behaviour == "speaks first":
                conn.sendall(b"\xff" * 64 + b"HTTP/1.1 200 OK\r\n\r\nhello")

    threading.Thread(target=loop, daemon=True).start()
    return server, conns


@pytest.mark.parametrize("behaviour", ["silent", "speaks first"])
def test_non_scheduler_fails_in_bounded_time_with_one_line(behaviour):
    server, conns = _serve(behaviour)
    address = f"tcp://127.0.0.1:{server.getsockname()[1]}"
    t0 = time.monotonic()
    try:
        with pytest.raises(SchedulerUnreachable) as info:
            check_scheduler(address, timeout=1)  # 1 s of waiting on the silent port
    finally:
        server.close()
        for c in conns:
            c.close()
    assert time.monotonic() - t0 < 1 + 10 + 5  # the probe's hard limit, plus start-up slack
    message = str(info.value)
    assert address in message and "\n" not in message


def test_closed_port_fails_with_one_line():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    with pytest.raises(SchedulerUnreachable, match=f"tcp://127.0.0.1:{port}"):
        check_scheduler(f"tcp://127.0.0.1:{port}", timeout=2)


def test_live_scheduler_reports_its_workers():
    from distributed import LocalCluster

    with LocalCluster(n_workers=1, processes=False, threads_per_worker=1, protocol="tcp",
                      dashboard_address=None) as cluster:
        assert check_scheduler(cluster.scheduler_address, timeout=20) == 1
        # issue #20: the bare host:port that Dask accepts is accepted too
        bare = cluster.scheduler_address.removeprefix("tcp://")
        assert check_scheduler(bare, timeout=20) == 1
