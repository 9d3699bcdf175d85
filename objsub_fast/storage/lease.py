"""The lease: the object that keeps two runs out of one store prefix.

A store has no ``flock``, so a run creates ``.objsub-lease`` with a create-only write (S3
and Azure ``If-None-Match: *``, GCS ``ifGenerationMatch=0``: of two racing runs only one
succeeds) holding its pid, host and start time, and deletes it when the run ends. A run
that finds the lease refuses, naming the holder. The lease checks itself: after creating
it, the run reads it back (it must hold this run's text) and tries to create it once more
(the store must refuse). A store that does not honour create-only writes (some emulators
and S3-compatible servers) is refused, since it cannot keep a second run out, unless the
user promises a single writer with ``OBJSUB_FAST_UNSAFE_LEASE=1``.

A lease outlives a killed run; it is taken over:

- automatically, when its holder is a process of this host that is no longer alive (a
  killed run rerun on the same machine resumes without help);
- with ``--take-over-lease``, after the user has made sure the holder is gone (another
  machine's run cannot be checked from here).

Taking over replaces the dead lease with a conditional write that succeeds only if the lease
is still the very object read (S3 and Azure: ``If-Match`` its ETag; GCS: ``ifGenerationMatch``
its generation; ``storage.conditional``): of runs taking over one dead lease at once, exactly
one holds it and every other stops before writing a task. A store without conditional writes
refuses a take-over in one line, unless ``OBJSUB_FAST_UNSAFE_LEASE=1`` promises one writer
(then the old lease is deleted and a new one created). A run releases its lease the same
way: deleted only if it is still the object this run wrote.

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
import os
import socket

from ..runtime.atomic import _alive
from ..runtime.errors import UsageError
from ..runtime.lock import _describe, _holder_text

__all__ = ["LEASE", "UNSAFE_ENV", "Lease", "StoreLeased", "LeaseUnsafe"]

LEASE = ".objsub-lease"
#: Set to 1 to use a store that does not honour create-only writes (one writer promised).
UNSAFE_ENV = "OBJSUB_FAST_UNSAFE_LEASE"


class StoreLeased(UsageError):
    """Another run holds the store prefix."""


class LeaseUnsafe(StoreLeased):
    """The store does not honour create-only writes: its lease cannot exclude a second run."""


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
        self.tag = None  # the version of the lease this run wrote

    def acquire(self) -> "Lease":
        """Take the lease or raise :class:`StoreLeased` naming its holder (``LeaseUnsafe``
        for a store that does not honour create-only writes)."""
        found = self._read()
        if found is None:
            if not self.store.create(LEASE, self.text):
                raise self._busy(self._holder() or b"")
        else:
            holder, tag = found
            if not (self.take_over or _dead_here(holder)):
                raise self._busy(holder)
            self._replace(tag)
        self._verify()
        self.held = True
        return self

    def _read(self) -> tuple[bytes, str | None] | None:
        """The lease's text and version tag, None if there is none."""
        try:
            return self.store.read_versioned(LEASE)
        except FileNotFoundError:
            return None

    def _replace(self, tag: str | None) -> None:
        """Take over the dead lease of version ``tag``: replace it only if it is unchanged."""
        if tag is None:
            if os.environ.get(UNSAFE_ENV) != "1":
                raise LeaseUnsafe(
                    f"{self.store.url}: this store has no conditional writes, so a dead lease "
                    f"cannot be taken over safely (two runs could both take it); delete "
                    f"{LEASE} there once no run writes the prefix, or set {UNSAFE_ENV}=1 if "
                    "no other run writes it")
            self.store.delete([LEASE])
            if not self.store.create(LEASE, self.text):
                raise self._busy(self._holder() or b"")
        elif not self.store.replace_if(LEASE, self.text, tag):
            now = self._holder()
            raise StoreLeased(f"{self.store.url}: another run took over the dead lease at the "
                              f"same time ({_describe(now) if now else 'and has ended'}); "
                              "this run stops before writing")

    def _holder(self) -> bytes | None:
        """The lease's text, None if there is none."""
        try:
            return self.store.read(LEASE)
        except FileNotFoundError:
            return None

    def _busy(self, holder: bytes) -> StoreLeased:
        if not holder:
            return StoreLeased(f"{self.store.url}: another run took the lease at the same "
                               "time")
        return StoreLeased(
            f"{self.store.url} is in use by another objsub-fast run ({_describe(holder)}); "
            "wait for it to finish, or, if that run is dead, rerun with --take-over-lease")

    def _verify(self) -> None:
        """The lease just created must read back as this run's, and a second create-only
        write of it must be refused; otherwise the store lets two runs in."""
        found = self._read()
        back, self.tag = found if found is not None else (None, None)
        if back != self.text:
            raise LeaseUnsafe(
                f"{self.store.url}: the lease this run created reads back as another run's "
                f"({_describe(back) if back else 'none'}): the store let two runs create it; "
                "refusing to write (see 'Two runs into one prefix' in docs/object_storage.md)")
        if os.environ.get(UNSAFE_ENV) == "1":
            return
        if self.store.create(LEASE, self.text) or not self.store.exclusive:
            self.held = True
            self.release()
            raise LeaseUnsafe(
                f"{self.store.url}: this store does not honour create-only writes (a second "
                f"create of {LEASE} succeeded), so its lease cannot keep a second run out of "
                "the prefix; refusing to write. Use a store that honours them, or, if you "
                f"make sure that no other run writes this prefix, set {UNSAFE_ENV}=1")

    def release(self) -> None:
        """Delete the lease if it is still this run's (a conditional delete where the store
        has one: a lease another run took over in the meantime is left alone)."""
        if self.held:
            self.held = False
            try:
                text, tag = self.store.read_versioned(LEASE)
                if text != self.text:
                    return
                if tag is None:
                    self.store.delete([LEASE])
                else:
                    self.store.delete_if(LEASE, tag)
            except FileNotFoundError:
                pass

    def __enter__(self) -> "Lease":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()
