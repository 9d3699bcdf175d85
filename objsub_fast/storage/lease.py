"""The lease: the object that keeps two runs out of one store prefix.

A store has no ``flock``, so a run creates ``.objsub-lease`` with a conditional write (S3:
``If-None-Match: *``; only one of two racing runs succeeds) holding its pid, host and start
time, and deletes it when the run ends. A run that finds the lease refuses, naming the
holder. A lease outlives a killed run; it is taken over:

- automatically, when its holder is a process of this host that is no longer alive (a
  killed run rerun on the same machine resumes without help);
- with ``--take-over-lease``, after the user has made sure the holder is gone (another
  machine's run cannot be checked from here).

Taking over deletes the old lease and creates a new one conditionally again, so two
take-overs racing still leave one winner.

Examples
--------
>>> from objsub_fast.storage.store import Store
>>> store = Store("memory://doc-lease/run")
>>> with Lease(store):
...     try:
...         Lease(store).acquire()
...     except StoreLeased as e:
...         print("refused")
refused
>>> LEASE in store.listing()
False
"""
from __future__ import annotations

import json
import socket

from ..atomic import _alive
from ..errors import UsageError
from ..lock import _describe, _holder_text

__all__ = ["LEASE", "Lease", "StoreLeased"]

LEASE = ".objsub-lease"


class StoreLeased(UsageError):
    """Another run holds the store prefix."""


def _dead_here(text: bytes) -> bool:
    """Whether the lease's holder is a process of this host that is no longer alive."""
    try:
        who = json.loads(text)
        return who["host"] == socket.gethostname() and not _alive(int(who["pid"]))
    except (ValueError, KeyError, TypeError):
        return False


class Lease:
    """Exclusive use of ``store``'s prefix for the lifetime of a run (see the module doc)."""

    def __init__(self, store, take_over: bool = False):
        self.store, self.take_over = store, take_over
        self.text = _holder_text()  # the same text as a folder's lock file
        self.held = False

    def acquire(self) -> "Lease":
        """Take the lease or raise :class:`StoreLeased` naming its holder."""
        if not self.store.create(LEASE, self.text):
            try:
                holder = self.store.read(LEASE)
            except FileNotFoundError:  # released meanwhile
                holder = b""
            if holder and not (self.take_over or _dead_here(holder)):
                raise StoreLeased(
                    f"{self.store.url} is in use by another objsub-fast run ({_describe(holder)}); "
                    "wait for it to finish, or, if that run is dead, rerun with "
                    "--take-over-lease")
            self.store.delete([LEASE])
            if not self.store.create(LEASE, self.text):
                raise StoreLeased(f"{self.store.url}: another run took the lease at the same time")
        self.held = True
        return self

    def release(self) -> None:
        """Delete the lease if it is still this run's."""
        if self.held:
            self.held = False
            try:
                if self.store.read(LEASE) == self.text:
                    self.store.delete([LEASE])
            except FileNotFoundError:
                pass

    def __enter__(self) -> "Lease":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()
