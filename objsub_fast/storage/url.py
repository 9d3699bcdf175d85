"""Which outputs are store URLs, and the fsspec backend each needs.

A plain path (``data/out``, ``/tmp/x``) stays a local folder. ``scheme://...`` is a URL:
``file://`` is a local folder again; the schemes of ``BACKENDS`` are stores, each needing the
fsspec implementation its pip extra installs; anything else is refused. A missing backend is
one line naming the extra, never a local folder named after the scheme. A path that reads as
a mistyped URL of a known scheme (``az:/c/x``, ``gs//b/x``, ``s3:data``) is refused with the
URL it probably meant (``./s3:data`` is that local folder, if it is really wanted).

Examples
--------
>>> is_url("s3://bucket/objsub"), is_url("data/out"), is_url("s3:")
(True, False, False)
>>> local_path("file:///tmp/x"), local_path("memory://x"), local_path("./s3:data")
('/tmp/x', None, './s3:data')
"""
from __future__ import annotations

import importlib.util
import re

from ..runtime.jsonfile import loads as loads_json
from ..runtime.errors import UsageError

__all__ = ["BACKENDS", "is_url", "local_path", "require_backend", "parse_storage_options",
           "typo_of"]

_SCHEME = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://")
#: A known scheme followed by ``:`` and at most one ``/``, or by ``//`` without the colon.
_TYPO = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)(?::/?(?!/)|//)(?P<rest>.*)$", re.S)

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


def typo_of(text) -> str | None:
    """The URL that ``text``, a path, probably meant, if it looks like a mistyped URL of a
    known scheme (``s3``, ``gs``, ``az``, ..., ``file``); None otherwise.

    Examples
    --------
    >>> typo_of("az:/objsub/x"), typo_of("gs//objsub/x"), typo_of("s3:data")
    ('az://objsub/x', 'gs://objsub/x', 's3://data')
    >>> typo_of("data/s3:x"), typo_of("gs://b/x"), typo_of("c:/data")
    (None, None, None)
    """
    match = _TYPO.match(str(text))
    if match is None or _scheme(text) is not None:
        return None
    scheme = match["scheme"].lower()
    if scheme not in BACKENDS and scheme != "file":
        return None
    return f"{match['scheme']}://{match['rest']}"


def local_path(text, option: str = "--out") -> str | None:
    """The local path ``text`` names (a plain path, or a ``file://`` URL); None for a store.
    UsageError (naming ``option`` and the URL it probably meant) for a mistyped URL
    (``typo_of``).

    Examples
    --------
    >>> local_path("out"), local_path("file://relative/x")
    ('out', 'relative/x')
    >>> local_path("az:/objsub/x")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    objsub_fast.runtime.errors.UsageError: --out 'az:/objsub/x' looks like a mistyped URL: did you mean ...
    """
    scheme = _scheme(text)
    if scheme is None:
        meant = typo_of(text)
        if meant is not None:
            raise UsageError(f"{option} {str(text)!r} looks like a mistyped URL: did you mean "
                             f"{meant!r}? (for a local folder of that name, write "
                             f"{'./' + str(text)!r})")
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
    objsub_fast.runtime.errors.UsageError: --out 'ftp://host/x': unsupported URL scheme 'ftp'; ...
    """
    scheme = _scheme(url)
    if scheme not in BACKENDS:
        supported = ", ".join(f"{s}://" for s in BACKENDS)
        raise UsageError(f"{option} {url!r}: unsupported URL scheme {scheme!r}; use a local "
                         f"path, file://, or one of {supported}")
    bucket = str(url).split("://", 1)[1].split("/", 1)[0]
    if scheme != "memory" and not bucket:
        raise UsageError(f"{option} {url!r} names no bucket (container): write "
                         f"{scheme}://BUCKET/PREFIX")
    module, extra = BACKENDS[scheme]
    if importlib.util.find_spec("fsspec") is None or importlib.util.find_spec(module) is None:
        what = f"-e \".[{extra}]\" (in the objsub-fast checkout)" if extra else "fsspec"
        raise UsageError(f"{option} {url!r}: the {scheme}:// backend ({module}) is not "
                         f"installed; pip install {what}")
    return scheme


def parse_storage_options(text: str | None) -> dict:
    """``--storage-options``: a JSON object of fsspec options for the store (None: {}).

    The text may hold credentials (``secret``, ``account_key``, a token), so an error never
    echoes it: it names the position of the fault and the option's type, nothing more.

    Examples
    --------
    >>> parse_storage_options('{"anon": false}'), parse_storage_options(None)
    ({'anon': False}, {})
    >>> try:
    ...     parse_storage_options('{"secret": "hunter2"')
    ... except UsageError as e:
    ...     print(e)
    --storage-options must be a JSON object (its text is not shown: it may hold credentials); \
it is not valid JSON: Expecting ',' delimiter at character 20
    """
    if text is None:
        return {}
    hidden = "--storage-options must be a JSON object (its text is not shown: it may hold " \
             "credentials)"
    try:
        value = loads_json(text)
    except ValueError as e:
        where = f" at character {e.pos}" if getattr(e, "pos", None) is not None else ""
        reason = getattr(e, "msg", None) or str(e)
        raise UsageError(f"{hidden}; it is not valid JSON: {reason}{where}") from None
    if not isinstance(value, dict):
        raise UsageError(f"{hidden}; it is a JSON {type(value).__name__}")
    bad = [k for k, v in value.items() if k in _STRING_OPTIONS and not isinstance(v, str)]
    if bad:
        raise UsageError(f"--storage-options option {bad[0]!r} must be a string, got a JSON "
                         f"{type(value[bad[0]]).__name__}")
    return value


#: fsspec options of the three stores whose value must be a string (a number or a list there
#: ends deep inside a client in a traceback).
_STRING_OPTIONS = ("endpoint_url", "key", "secret", "account_name", "account_key",
                   "connection_string", "sas_token", "project", "client_id", "client_secret",
                   "tenant_id", "region_name", "profile")
