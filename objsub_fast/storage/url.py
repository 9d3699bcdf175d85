"""Which outputs are store URLs, and the fsspec backend each needs.

A plain path (``data/out``, ``/tmp/x``, even ``s3:`` with no ``//``) stays a local folder.
``scheme://...`` is a URL: ``file://`` is a local folder again; the schemes of ``BACKENDS``
are stores, each needing the fsspec implementation its pip extra installs; anything else is
refused. A missing backend is one line naming the extra, never a local folder named after
the scheme.

Examples
--------
>>> is_url("s3://bucket/objsub"), is_url("data/out"), is_url("s3:")
(True, False, False)
>>> local_path("file:///tmp/x"), local_path("memory://x")
('/tmp/x', None)
"""
from __future__ import annotations

import importlib.util
import json
import re

from ..errors import UsageError

__all__ = ["BACKENDS", "is_url", "local_path", "require_backend", "parse_storage_options"]

_SCHEME = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://")

#: URL scheme -> (module that implements it, pip extra that installs it; None: fsspec itself).
BACKENDS = {
    "s3": ("s3fs", "s3"), "s3a": ("s3fs", "s3"),
    "gs": ("gcsfs", "gcs"), "gcs": ("gcsfs", "gcs"),
    "az": ("adlfs", "azure"), "abfs": ("adlfs", "azure"), "abfss": ("adlfs", "azure"),
    "memory": ("fsspec", None),
}


def _scheme(text) -> str | None:
    match = _SCHEME.match(str(text))
    return match["scheme"].lower() if match else None


def is_url(text) -> bool:
    """Whether ``text`` is written as a URL (``scheme://...``), rather than a path.

    Examples
    --------
    >>> is_url("gs://b/p"), is_url("file:///tmp/x"), is_url("./s3://x")
    (True, True, False)
    """
    return _scheme(text) is not None


def local_path(text) -> str | None:
    """The local path ``text`` names (a plain path, or a ``file://`` URL); None for a store.

    Examples
    --------
    >>> local_path("out"), local_path("file://relative/x")
    ('out', 'relative/x')
    """
    scheme = _scheme(text)
    if scheme is None:
        return str(text)
    if scheme == "file":
        return str(text)[len("file://"):]
    return None


def require_backend(url: str, option: str = "--out") -> str:
    """Check that the fsspec backend of the store ``url`` is installed; return its scheme.

    Raises UsageError naming the pip extra that installs it, or the supported schemes.

    Examples
    --------
    >>> require_backend("memory://x")
    'memory'
    >>> require_backend("ftp://host/x")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    objsub_fast.errors.UsageError: --out 'ftp://host/x': unsupported URL scheme 'ftp'; ...
    """
    scheme = _scheme(url)
    if scheme not in BACKENDS:
        supported = ", ".join(f"{s}://" for s in BACKENDS)
        raise UsageError(f"{option} {url!r}: unsupported URL scheme {scheme!r}; use a local "
                         f"path, file://, or one of {supported}")
    module, extra = BACKENDS[scheme]
    if importlib.util.find_spec("fsspec") is None or importlib.util.find_spec(module) is None:
        what = f"objsub-fast[{extra}]" if extra else "fsspec"
        raise UsageError(f"{option} {url!r}: the {scheme}:// backend ({module}) is not "
                         f"installed; pip install \"{what}\"")
    return scheme


def parse_storage_options(text: str | None) -> dict:
    """``--storage-options``: a JSON object of fsspec options for the store (None: {}).

    Examples
    --------
    >>> parse_storage_options('{"anon": false}'), parse_storage_options(None)
    ({'anon': False}, {})
    """
    if text is None:
        return {}
    try:
        value = json.loads(text)
    except ValueError as e:
        raise UsageError(f"--storage-options must be a JSON object, got {text!r} ({e})") from None
    if not isinstance(value, dict):
        raise UsageError(f"--storage-options must be a JSON object, got {text!r}")
    return value
