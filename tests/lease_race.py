"""Processes racing to take over one dead lease (shared by the S3 and Azure/GCS tests).

A round plants a lease whose holder is a dead process of this host (what a killed run leaves),
then starts ``n`` processes that each take it over at the same moment (``Lease.acquire``: a
dead holder of this host is taken over without ``--take-over-lease``). With ``pause``, each
racer waits that long between reading the lease and writing its own, so every racer has read
the dead lease before any writes: the case where an unconditional delete-and-create let two
or three runs in. A racer that holds the lease keeps it (and its process alive) until every
racer has answered, so a late reader sees a live holder, never an empty prefix.

The racers are forked from one process that has imported the package and the store's client
library once (a process each, with its own pid, connection and lease text; importing them
in each of the eight costs a second of CPU a racer). Each racer connects, says it is ready,
and the round starts them all at one moment shortly after the last is ready; the holder is
released when every racer has answered.
"""
import json
import os
import socket
import subprocess
import sys
import threading
import time

#: The racers' parent: imports once, forks ``n`` racers; each connects, prints "ready", waits
#: for the start time (a line on the parent's stdin), acquires, prints "<i> held" or
#: "<i> refused: ...", and a holder stays alive until the parent's stdin closes.
RACERS = r"""
import json, os, struct, sys, time
import fsspec
from objsub_fast.storage.lease import Lease, StoreLeased
from objsub_fast.storage.store import Store

url, options, n, pause = json.loads(sys.argv[1])
fsspec.get_filesystem_class(url.split("://")[0])  # the client library, imported once
def paused(read):
    def first_read_pauses(self, rel):
        found = read(self, rel)
        if not paused.done:
            paused.done = True
            time.sleep(pause)
        return found
    return first_read_pauses
paused.done = not pause
Store.read, Store.read_versioned = paused(Store.read), paused(Store.read_versioned)

def say(line):
    os.write(1, (line + "\n").encode())

release_r, release_w = os.pipe()
starts, racers = [], []
for i in range(n):
    start_r, start_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            os.close(release_w)
            for w in starts:
                os.close(w)
            os.close(start_w)
            store = Store(url, options)
            store.fs  # connected before the start, so that the racers really start together
            say("ready")
            start, = struct.unpack("d", os.read(start_r, 8))
            time.sleep(max(0.0, start - time.time()))
            try:
                lease = Lease(store).acquire()
            except StoreLeased as e:
                say(f"{i} refused: {e}")
            else:
                say(f"{i} held")
                os.read(release_r, 1)  # held until every racer has answered
            status = 0
        except BaseException:
            import traceback
            traceback.print_exc()
        finally:
            os._exit(status)
    os.close(start_r)
    starts.append(start_w)
    racers.append(pid)
start = float(sys.stdin.readline())
for w in starts:
    os.write(w, struct.pack("d", start))
    os.close(w)
sys.stdin.read()  # closed: every racer has answered
os.close(release_w)
failed = [pid for pid in racers if os.waitpid(pid, 0)[1] != 0]
sys.exit(1 if failed else 0)
"""


def dead_lease() -> bytes:
    """A lease left by a killed run of this host (a pid that is not alive)."""
    pid = 4_000_000  # above any pid_max: never a live process
    return json.dumps({"pid": pid, "host": socket.gethostname(),
                       "started": "2026-11-23T10:00:00Z"}).encode() + b"\n"


def race_round(url: str, options: dict, env: dict, n: int = 8, pause: float = 0.0,
               timeout: float = 120.0) -> list[str]:
    """One round: each racer's answer line ("held" or "refused: ..."), in racer order."""
    parent = subprocess.Popen([sys.executable, "-c", RACERS, json.dumps([url, options, n, pause])],
                              env={**os.environ, **env}, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    watchdog = threading.Timer(timeout, parent.kill)
    watchdog.start()
    try:
        lines = []
        for _ in range(n):  # every racer imported and connected
            lines.append(parent.stdout.readline())
            assert lines[-1] == "ready\n", (lines, parent.stderr.read())
        # a moment after the last is ready: each racer sleeps until then, then acquires
        parent.stdin.write(f"{time.time() + 0.5!r}\n")
        parent.stdin.flush()
        answers = {}
        for _ in range(n):
            line = parent.stdout.readline()
            assert line, (answers, parent.stderr.read())
            i, _, answer = line.strip().partition(" ")
            answers[int(i)] = answer
        parent.stdin.close()  # the holder lets go, every racer exits
        err = parent.stderr.read()
        assert parent.wait() == 0, err
    finally:
        watchdog.cancel()
        if parent.poll() is None:
            parent.kill()
            parent.wait()
    return [answers[i] for i in range(n)]
