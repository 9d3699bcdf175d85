"""A storage server on this machine, for tests and benchmarks: a child process listening on
127.0.0.1 and a free port, waited for (bounded) until it answers, and stopped.

``local_s3``, ``local_gcs`` and ``local_azure`` start the emulators of the three stores with
it (moto, gcp-storage-emulator, Azurite).
"""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request

__all__ = ["free_port", "LocalServer"]


def free_port() -> int:
    """A TCP port of 127.0.0.1 that nothing listens on now.

    Examples
    --------
    >>> 1024 <= free_port() < 65536
    True
    """
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LocalServer:
    """``command`` (its ``{port}`` filled in) started in a child process with ``env`` added
    to the environment; ready once ``probe`` (a URL, ``{port}`` filled in) answers HTTP, at
    most ``wait`` seconds. RuntimeError naming ``name`` if it does not start."""

    def __init__(self, name: str, command: list[str], probe: str, env: dict | None = None,
                 wait: float = 60):
        self.name, self.port = name, free_port()
        if shutil.which(command[0]) is None and not os.path.isabs(command[0]):
            raise RuntimeError(f"{name}: {command[0]!r} is not installed")
        self.proc = subprocess.Popen([c.format(port=self.port) for c in command],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     stdin=subprocess.DEVNULL, env={**os.environ, **(env or {})})
        url, deadline = probe.format(port=self.port), time.monotonic() + wait
        while True:
            try:
                urllib.request.urlopen(url, timeout=2)
                return
            except urllib.error.HTTPError:  # it answers (an error status is an answer)
                return
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"{name} did not start on 127.0.0.1:{self.port}") \
                        from None
                time.sleep(0.2)

    def stop(self) -> None:
        """Stop the server (terminate, then kill after 10 s)."""
        if self.proc.poll() is None:
            self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
