"""Check that an address is a live ``dask.distributed`` scheduler before a run depends on it.

Connecting a ``distributed.Client`` to something that is not a scheduler can hang for minutes
(a port that accepts and never answers, an HTTP server) or fail deep inside the wire protocol
(a service that speaks first is read as a frame length of exabytes). So the first contact
happens in a child process with a hard time limit: it connects, asks the scheduler for its
identity and prints the number of workers. The limit counts from the end of the child's import
of ``distributed`` (seconds on a loaded machine): the child ends itself one second after the
timeout (exit status 3), so a port that accepts and stays silent fails after the timeout and a
second, not the timeout and the 10 s the parent allows for the import. Whatever goes wrong
there, the caller gets one line that names the address.

Examples
--------
>>> from objsub_fast.runtime.scheduler import check_scheduler, SchedulerUnreachable
>>> try:
...     check_scheduler("not-an-address", timeout=5)
... except SchedulerUnreachable as e:
...     print(str(e).split(":")[0])
--scheduler 'not-an-address' is not a Dask scheduler address
"""
from __future__ import annotations

import re
import subprocess
import sys

from .errors import UsageError

__all__ = ["DEFAULT_TIMEOUT", "SchedulerUnreachable", "check_timeout", "check_scheduler",
           "scheduler_address"]

#: Seconds allowed for the first contact with a scheduler (``--scheduler-timeout``).
DEFAULT_TIMEOUT = 30.0

_ADDRESS = re.compile(r"^(?:(tcp|tls|ucx)://)?[^\s/]+:\d{1,5}$")

_PROBE = """
import os, sys, threading
from distributed import Client
limit = threading.Timer(float(sys.argv[2]) + 1, os._exit, (3,))
limit.daemon = True
limit.start()
with Client(sys.argv[1], timeout=sys.argv[2] + "s", set_as_default=False) as c:
    info = c.scheduler_info()
    limit.cancel()
    print(len(info.get("workers", {})))
"""

#: The probe's exit status when its own time limit ended it.
_NO_ANSWER = 3


class SchedulerUnreachable(UsageError):
    """The address given as ``--scheduler`` does not answer as a Dask scheduler."""


def check_timeout(timeout) -> None:
    """Raise UsageError unless ``timeout`` is a number of seconds in (0, 3600]."""
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) \
            or not 0 < timeout <= 3600:
        raise UsageError(f"--scheduler-timeout must be in (0, 3600] seconds, got {timeout!r}")


def scheduler_address(address) -> str:
    """``address`` with its protocol: ``host:port`` means ``tcp://host:port``, as it does to Dask.

    Examples
    --------
    >>> scheduler_address("127.0.0.1:8786"), scheduler_address("tls://head:8786")
    ('tcp://127.0.0.1:8786', 'tls://head:8786')
    """
    if not isinstance(address, str) or not _ADDRESS.match(address):
        raise SchedulerUnreachable(f"--scheduler {address!r} is not a Dask scheduler address: "
                                   "expected host:port or tcp://host:port")
    return address if "://" in address else f"tcp://{address}"


def check_scheduler(address: str, timeout: float = DEFAULT_TIMEOUT) -> int:
    """Contact the scheduler at ``address`` within ``timeout`` seconds; return its worker count.

    Parameters
    ----------
    address : str
        ``host:port`` or ``tcp://host:port`` (or ``tls://``, ``ucx://``).
    timeout : float
        Seconds before giving up, in (0, 3600].

    Raises
    ------
    SchedulerUnreachable
        With one line naming the address and what went wrong.
    """
    check_timeout(timeout)
    address = scheduler_address(address)
    try:
        done = subprocess.run([sys.executable, "-c", _PROBE, address, str(timeout)],
                              capture_output=True, text=True, timeout=timeout + 10)
    except subprocess.TimeoutExpired:
        done = None
    if done is None or done.returncode == _NO_ANSWER:
        raise SchedulerUnreachable(f"--scheduler {address}: no answer from a Dask scheduler "
                                   f"within {timeout:g} s (--scheduler-timeout)") from None
    if done.returncode != 0:
        lines = [line for line in done.stderr.strip().splitlines() if line.strip()]
        reason = lines[-1] if lines else f"exit status {done.returncode}"
        if "No module named" in reason:
            raise SchedulerUnreachable("--backend dask needs dask.distributed: pip install -e "
                                       "'.[dask]' in the objsub-fast checkout")
        raise SchedulerUnreachable(f"--scheduler {address} did not answer as a Dask scheduler "
                                   f"within {timeout:g} s: {reason[:200]}")
    try:
        return int(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise SchedulerUnreachable(f"--scheduler {address} gave no worker count") from None
