"""Processes racing to take over one dead lease (shared by the S3 and Azure/GCS tests).

A round plants a lease whose holder is a dead process of this host (what a killed run leaves),
then starts ``n`` processes that each take it over at the same moment (``Lease.acquire``: a
dead holder of this host is taken over without ``--take-over-lease``). With ``pause``, each
racer waits that long between reading the lease and writing its own, so every racer has read
the dead lease before any writes: the case where an unconditional delete-and-create let two
or three runs in. A racer that holds the lease keeps it (and its process alive) until every
racer has answered, so a late reader sees a live holder, never an empty prefix.
"""
import json
import os
import socket
import subprocess
import sys
import time

#: The racer: waits for the start time, acquires, prints "held" or "refused: ...", then a
#: holder stays alive (holding) for ``hold`` seconds.
RACER = r"""
import json, sys, time
from objsub_fast.storage.lease import Lease, StoreLeased
from objsub_fast.storage.store import Store

url, options, start, pause, hold = json.loads(sys.argv[1])
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
store = Store(url, options)
store.fs  # connected before the start, so that the racers really start together
time.sleep(max(0.0, start - time.time()))
try:
    lease = Lease(store).acquire()
except StoreLeased as e:
    print("refused:", e, flush=True)
    sys.exit(0)
print("held", flush=True)
time.sleep(hold)
"""


def dead_lease() -> bytes:
    """A lease left by a killed run of this host (a pid that is not alive)."""
    pid = 4_000_000  # above any pid_max: never a live process
    return json.dumps({"pid": pid, "host": socket.gethostname(),
                       "started": "2026-11-23T10:00:00Z"}).encode() + b"\n"


def race_round(url: str, options: dict, env: dict, n: int = 8, pause: float = 0.0,
               hold: float = 4.0) -> list[str]:
    """One round: each racer's answer line ("held" or "refused: ...")."""
    start = time.time() + 3.0 + 0.25 * n  # after every racer has imported and connected
    args = json.dumps([url, options, start, pause, hold])
    racers = [subprocess.Popen([sys.executable, "-c", RACER, args], env={**os.environ, **env},
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
              for _ in range(n)]
    answers = []
    for racer in racers:
        out, err = racer.communicate(timeout=120)
        assert racer.returncode == 0, err
        answers.append(out.strip())
    return answers
