"""One prefix of an object store, as the dataset code needs it.

Every write puts a complete object under its final key: ``put_files`` uploads a local file
in one PUT, or (S3, files over ``2 * PART_SIZE``) as a multipart upload completed only after
its last part, so a reader never sees part of an object. ``abort_stale_uploads`` removes the
multipart uploads a killed run left behind; ``create`` is the create-only write of the lease
(S3's and Azure's ``If-None-Match: *``, GCS's ``ifGenerationMatch=0``). ``check`` names an
unreachable endpoint, refused credentials or a missing bucket before anything is written;
every call raises the store's faults as a one-line ``StoreError`` (``faults``).

Examples
--------
>>> store = Store("memory://doc-store/run")
>>> store.put_bytes("a/b.txt", b"hi")
>>> store.listing(), store.read("a/b.txt")
({'a/b.txt': 2}, b'hi')
>>> store.create("lease", b"1"), store.create("lease", b"2"), store.read("lease")
(True, False, b'1')
>>> store.delete(["a/b.txt", "lease"]); store.listing()
{}
"""
from __future__ import annotations

import functools
import os
from contextlib import contextmanager
from pathlib import Path

from ..runtime.errors import ParameterError, UsageError
from . import conditional
from .faults import (StoreError, endpoint_of, fault_message, fault_of, probe_endpoint,
                     quiet_libraries)
from .url import require_backend

__all__ = ["PART_SIZE", "PART_SIZE_ENV", "part_size", "Store"]

#: Part size of S3 multipart uploads (a file under twice this goes up in one PUT); the
#: environment variable ``PART_SIZE_ENV`` sets another (S3 takes parts of 5 MiB or more).
PART_SIZE = 16 << 20
PART_SIZE_ENV = "OBJSUB_FAST_S3_PART_SIZE"


def part_size() -> int:
    """The S3 multipart part size in bytes: ``PART_SIZE``, or ``$OBJSUB_FAST_S3_PART_SIZE``.

    Examples
    --------
    >>> part_size() == PART_SIZE or PART_SIZE_ENV in os.environ
    True
    """
    text = os.environ.get(PART_SIZE_ENV)
    if text is None:
        return PART_SIZE
    if not text.isdigit() or int(text) < 1:
        raise ParameterError(f"{PART_SIZE_ENV} must be a number of bytes >= 1, got {text!r}")
    return int(text)


def _named_faults(method):
    """``method`` of a Store with the store clients' faults (``faults.fault_of``) raised as
    one-line ``StoreError``s; every other exception (a missing key's FileNotFoundError, ...)
    unchanged."""
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        with self.faults():
            return method(self, *args, **kwargs)
    return wrapper


class Store:
    """The prefix ``url`` of an fsspec store, opened with ``storage_options``.

    Keys are relative to the prefix (``objsub-000000.tar``, ``.objsub-progress/000000.json``).
    A Store pickles as its URL and options, so a worker (loky, Dask) reopens it with its own
    connection. A credential, permission, endpoint or bucket fault of any call is a
    ``StoreError`` (a UsageError) naming the store and the fault.
    """

    def __init__(self, url: str, storage_options: dict | None = None, option: str = "--out"):
        self.scheme = require_backend(url, option)
        self.url, self.options, self.option = url.rstrip("/"), dict(storage_options or {}), option
        self._fs = None
        #: False once ``create`` has fallen back to check-then-write (not create-only).
        self.exclusive = True

    def __getstate__(self):
        return {"url": self.url, "options": self.options, "option": self.option}

    def __setstate__(self, state):
        self.__init__(state["url"], state["options"], state["option"])

    @property
    def fs(self):
        """The fsspec file system (opened on first use)."""
        if self._fs is None:
            import fsspec

            quiet_libraries()
            self._check_credential_file()
            try:
                with self.faults():
                    self._fs = fsspec.filesystem(self.scheme, **self.options)
            except (TypeError, ValueError) as e:
                if isinstance(e, UsageError):
                    raise
                raise UsageError(f"--storage-options not accepted by the {self.scheme}:// "
                                 f"backend: {e}") from None
        return self._fs

    def _check_credential_file(self) -> None:
        """GCS: a GOOGLE_APPLICATION_CREDENTIALS that names no file is refused (the client
        would otherwise go on anonymously)."""
        path = os.environ.get("GOOGLE_APPLICATION_CREDENTIALS")
        if self.scheme in ("gs", "gcs") and path and "token" not in self.options \
                and not os.path.isfile(path):
            raise StoreError(f"{self.option} {self.url!r}: GOOGLE_APPLICATION_CREDENTIALS "
                             f"names {path!r}, which is not a file; point it at a "
                             "service-account key file, or unset it")

    @contextmanager
    def faults(self):
        """A block whose store-client faults (``faults.fault_of``) are raised as one-line
        ``StoreError``s naming the store, the URL and the fault."""
        try:
            yield
        except UsageError:
            raise
        except Exception as e:  # noqa: BLE001 - the clients' many classes; others re-raised
            found = fault_of(e)
            if found is None:
                raise
            endpoint = endpoint_of(self._fs, self.scheme, self.options) if self._fs else None
            raise StoreError(fault_message(*found, self.scheme, self.url, self.option,
                                           endpoint, self.options)) from None

    @property
    def root(self) -> str:
        """The prefix as the file system names it (no scheme, no trailing slash)."""
        return self.fs._strip_protocol(self.url).rstrip("/")

    def key(self, rel: str) -> str:
        """Full key of ``rel``."""
        return f"{self.root}/{rel}"

    @_named_faults
    def check(self) -> None:
        """Raise StoreError unless the prefix's endpoint answers (a TCP connection within
        5 s, rather than the clients' minute of retries) and its bucket (container) exists
        and is reachable with the credentials."""
        if self.scheme == "memory":
            return
        bucket = self.root.split("/", 1)[0]
        endpoint = endpoint_of(self.fs, self.scheme, self.options)
        reason = probe_endpoint(endpoint)
        if reason is not None:
            raise StoreError(fault_message("unreachable", reason, self.scheme, self.url,
                                           self.option, endpoint))
        credentials = getattr(self.fs, "credentials", None)  # GCS: a refused key at once,
        if hasattr(credentials, "maybe_refresh"):             # not after a minute of retries
            credentials.maybe_refresh()
        if self.scheme in ("s3", "s3a"):  # one listed key: a response with an error code
            bucket_, _, prefix = self.root.partition("/")  # (a HEAD's 403 has none)
            try:
                self.fs.call_s3("list_objects_v2", Bucket=bucket_, Prefix=prefix, MaxKeys=1)
                found = True
            except FileNotFoundError:
                found = False
        else:
            found = self.fs.exists(bucket)
        if not found:
            raise StoreError(fault_message("no bucket", "not found", self.scheme, self.url,
                                           self.option))

    @_named_faults
    def listing(self, under: str = "") -> dict[str, int]:
        """Every object under the prefix (or under ``under`` inside it): key -> size.

        Always asks the store (other processes write there): fsspec's listing cache is
        dropped first."""
        self.fs.invalidate_cache()
        base = self.root + "/"
        found = self.fs.find(base + under, detail=True) if under else self.fs.find(
            self.root, detail=True)
        return {name[len(base):]: int(info.get("size") or 0) for name, info in found.items()
                if name.startswith(base) and info.get("type", "file") != "directory"}

    @_named_faults
    def read(self, rel: str) -> bytes:
        """The bytes of object ``rel`` (asking the store, not a cached listing)."""
        self.fs.invalidate_cache()
        return self.fs.cat_file(self.key(rel))

    @_named_faults
    def put_bytes(self, rel: str, data: bytes) -> None:
        """Write object ``rel`` (one PUT)."""
        self.fs.pipe_file(self.key(rel), data)

    @_named_faults
    def put_files(self, files: list[tuple[Path, str]]) -> None:
        """Upload local files to their keys, (local path, key) pairs, concurrently where the
        backend can; each object appears complete or not at all."""
        if not files:
            return
        kwargs = {"chunksize": part_size()} if self.scheme in ("s3", "s3a") else {}
        if len(files) == 1:
            self.fs.put_file(str(files[0][0]), self.key(files[0][1]), **kwargs)
        else:
            self.fs.put([str(p) for p, _ in files], [self.key(k) for _, k in files], **kwargs)

    @_named_faults
    def get_files(self, files: list[tuple[str, Path]]) -> None:
        """Download objects to local files, (key, local path) pairs (streamed to disk)."""
        for _, path in files:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        if len(files) == 1:
            self.fs.get_file(self.key(files[0][0]), str(files[0][1]))
        elif files:
            self.fs.get([self.key(k) for k, _ in files], [str(p) for _, p in files])

    @_named_faults
    def delete(self, rels) -> None:
        """Delete objects (absent ones are ignored)."""
        keys = [self.key(r) for r in rels]
        for i in range(0, len(keys), 1000):
            try:
                self.fs.rm(keys[i:i + 1000])
            except FileNotFoundError:
                for key in keys[i:i + 1000]:
                    if self.fs.exists(key):
                        self.fs.rm_file(key)

    @_named_faults
    def create(self, rel: str, data: bytes) -> bool:
        """Create object ``rel`` only if it does not exist; whether this call created it.

        fsspec's exclusive write (``mode="create"``): on S3 one conditional PUT
        (``If-None-Match: *``), so of two runs racing for it only one wins. A backend without
        it gets an existence check then a PUT (see docs/object_storage.md).
        """
        key = self.key(rel)
        try:
            self.fs.pipe_file(key, data, mode="create")
            return True
        except FileExistsError:
            return False
        except (TypeError, NotImplementedError):  # a backend without exclusive writes
            self.exclusive = False
            if self.fs.exists(key):
                return False
            self.fs.pipe_file(key, data)
            return True

    @_named_faults
    def read_versioned(self, rel: str) -> tuple[bytes, str | None]:
        """The bytes of object ``rel`` and its version tag (ETag, generation; None on a
        backend without conditional writes). The tag is read first, so a conditional write
        with it fails if the object changed at any time after (``storage.conditional``)."""
        self.fs.invalidate_cache()
        tag = conditional.version(self.fs, self.scheme, self.key(rel))
        return self.fs.cat_file(self.key(rel)), tag

    @_named_faults
    def replace_if(self, rel: str, data: bytes, tag: str) -> bool:
        """Overwrite object ``rel`` only if its version is still ``tag``; whether it did."""
        return conditional.replace(self.fs, self.scheme, self.key(rel), data, tag)

    @_named_faults
    def delete_if(self, rel: str, tag: str) -> bool:
        """Delete object ``rel`` only if its version is still ``tag``; whether it did."""
        return conditional.delete(self.fs, self.scheme, self.key(rel), tag)

    @_named_faults
    def abort_stale_uploads(self) -> int:
        """Abort the incomplete multipart uploads under the prefix (S3; a killed run's);
        return how many. Call only while holding the prefix's lease."""
        if self.scheme not in ("s3", "s3a"):
            return 0
        bucket, _, prefix = self.root.partition("/")
        uploads = self.fs.call_s3("list_multipart_uploads", Bucket=bucket,
                                  Prefix=f"{prefix}/" if prefix else "").get("Uploads", [])
        for upload in uploads:
            self.fs.call_s3("abort_multipart_upload", Bucket=bucket, Key=upload["Key"],
                            UploadId=upload["UploadId"])
        return len(uploads)
