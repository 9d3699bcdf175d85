"""Conditional writes: replace or delete an object only if it is still the version read.

A lease is taken over by replacing it, and released by deleting it, only while it is the very
object the run read: S3 and Azure compare the object's ETag (``If-Match``), GCS its generation
(``ifGenerationMatch``), and the in-process ``memory://`` store compares under a lock. Of two
runs that read the same dead lease and replace it at once, the store lets exactly one through;
the other's write fails and it stops. A backend not in ``BACKENDS`` has no such write:
``version`` returns None for it and the lease refuses a take-over (``storage.lease``).

Each backend is a row of three functions of (fsspec file system, full key, ...):
``version(fs, key)`` -> the version tag (a FileNotFoundError if there is no object),
``replace(fs, key, data, tag)`` and ``delete(fs, key, tag)`` -> whether the store did it
(False: the object changed or is gone).

Examples
--------
>>> import fsspec
>>> fs = fsspec.filesystem("memory")
>>> fs.pipe_file("/doc-cond/lease", b"old")
>>> tag = version(fs, "memory", "/doc-cond/lease")
>>> replace(fs, "memory", "/doc-cond/lease", b"mine", tag)
True
>>> replace(fs, "memory", "/doc-cond/lease", b"theirs", tag), fs.cat_file("/doc-cond/lease")
(False, b'mine')
"""
from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass
from typing import Callable
from urllib.parse import quote

__all__ = ["BACKENDS", "version", "replace", "delete"]


def _refused(e: Exception) -> bool:
    """Whether a client's exception is a failed precondition (HTTP 412) or a missing object."""
    if isinstance(e, FileNotFoundError):
        return True
    status = getattr(e, "status_code", None) or getattr(e, "code", None)
    if status in (404, 409, 412):
        return True
    text = str(e).lower().replace("-", "")
    return ("precondition" in text or "conditionnotmet" in text
            or type(e).__name__ in ("ResourceModifiedError", "ResourceNotFoundError",
                                    "ResourceExistsError"))


def _attempt(call) -> bool:
    """Run ``call``; True if it succeeded, False if the store refused its precondition."""
    try:
        call()
        return True
    except Exception as e:  # noqa: BLE001 - each client names a failed precondition its way
        if isinstance(e, FileExistsError) or _refused(e):
            return False
        raise


# --------------------------------------------------------------------------- S3 (ETag)

def _s3_parts(fs, key):
    bucket, path, _ = fs.split_path(key)
    return bucket, path


def _s3_version(fs, key) -> str:
    bucket, path = _s3_parts(fs, key)
    return fs.call_s3("head_object", Bucket=bucket, Key=path)["ETag"]


def _s3_replace(fs, key, data, tag) -> bool:
    bucket, path = _s3_parts(fs, key)
    return _attempt(lambda: fs.call_s3("put_object", Bucket=bucket, Key=path, Body=data,
                                       IfMatch=tag))


def _s3_delete(fs, key, tag) -> bool:
    bucket, path = _s3_parts(fs, key)
    return _attempt(lambda: fs.call_s3("delete_object", Bucket=bucket, Key=path, IfMatch=tag))


# --------------------------------------------------------------------------- Azure (ETag)

def _azure_blob(fs, key):
    container, path, _ = fs.split_path(key)
    return fs.service_client.get_blob_client(container=container, blob=path)


def _azure_version(fs, key) -> str:
    from fsspec.asyn import sync

    async def go():
        try:
            async with _azure_blob(fs, key) as blob:
                return (await blob.get_blob_properties()).etag
        except Exception as e:  # noqa: BLE001
            if type(e).__name__ == "ResourceNotFoundError":
                raise FileNotFoundError(key) from None
            raise
    return sync(fs.loop, go)


def _azure_conditional(fs, key, tag, action) -> bool:
    from azure.core import MatchConditions
    from fsspec.asyn import sync

    async def go():
        async with _azure_blob(fs, key) as blob:
            await action(blob, etag=tag, match_condition=MatchConditions.IfNotModified)
    return _attempt(lambda: sync(fs.loop, go))


def _azure_replace(fs, key, data, tag) -> bool:
    return _azure_conditional(fs, key, tag, lambda blob, **kw: blob.upload_blob(
        data, overwrite=True, **kw))


def _azure_delete(fs, key, tag) -> bool:
    return _azure_conditional(fs, key, tag, lambda blob, **kw: blob.delete_blob(**kw))


# --------------------------------------------------------------------------- GCS (generation)

def _gcs_version(fs, key) -> str:
    fs.invalidate_cache()
    return str(fs.info(key)["generation"])


def _gcs_replace(fs, key, data, tag) -> bool:
    bucket, path, _ = fs.split_path(key)
    return _attempt(lambda: fs.call(
        "POST", f"{fs._location}/upload/storage/v1/b/{quote(bucket)}/o", uploadType="media",
        name=path, ifGenerationMatch=tag, data=data,
        headers={"Content-Type": "application/octet-stream"}, json_out=True))


def _gcs_delete(fs, key, tag) -> bool:
    bucket, path, _ = fs.split_path(key)
    return _attempt(lambda: fs.call("DELETE", "b/{}/o/{}", bucket, path,
                                    ifGenerationMatch=tag))


# --------------------------------------------------------------------------- memory (a lock)

_MEMORY_LOCK = threading.Lock()


def _memory_version(fs, key) -> str:
    return hashlib.sha256(fs.cat_file(key)).hexdigest()


def _memory_swap(fs, key, tag, change) -> bool:
    with _MEMORY_LOCK:
        try:
            if _memory_version(fs, key) != tag:
                return False
        except FileNotFoundError:
            return False
        change()
        return True


def _memory_replace(fs, key, data, tag) -> bool:
    return _memory_swap(fs, key, tag, lambda: fs.pipe_file(key, data))


def _memory_delete(fs, key, tag) -> bool:
    return _memory_swap(fs, key, tag, lambda: fs.rm_file(key))


@dataclass(frozen=True)
class Conditional:
    """One backend's conditional writes (see the module doc)."""

    version: Callable
    replace: Callable
    delete: Callable


_S3 = Conditional(_s3_version, _s3_replace, _s3_delete)
_AZURE = Conditional(_azure_version, _azure_replace, _azure_delete)
_GCS = Conditional(_gcs_version, _gcs_replace, _gcs_delete)
#: URL scheme -> its conditional writes.
BACKENDS = {"s3": _S3, "s3a": _S3, "az": _AZURE, "abfs": _AZURE, "abfss": _AZURE,
            "gs": _GCS, "gcs": _GCS,
            "memory": Conditional(_memory_version, _memory_replace, _memory_delete)}


def version(fs, scheme: str, key: str) -> str | None:
    """The version tag of object ``key`` (FileNotFoundError if absent); None if the backend
    has no conditional writes."""
    row = BACKENDS.get(scheme)
    return None if row is None else row.version(fs, key)


def replace(fs, scheme: str, key: str, data: bytes, tag: str) -> bool:
    """Overwrite ``key`` with ``data`` if its version is still ``tag``; whether it did."""
    return BACKENDS[scheme].replace(fs, key, data, tag)


def delete(fs, scheme: str, key: str, tag: str) -> bool:
    """Delete ``key`` if its version is still ``tag``; whether it did."""
    return BACKENDS[scheme].delete(fs, key, tag)
