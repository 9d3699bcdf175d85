"""A store that cannot be used as given, said in one line: unreachable endpoint, missing or
rejected credentials, missing permission, missing bucket.

The store clients (s3fs/botocore, gcsfs/google-auth, adlfs/azure-storage-blob) raise each
fault as their own exceptions, often wrapped in others; ``fault_of`` walks an exception's
chain and names the fault, ``StoreError`` carries the line (a ``UsageError``: exit status 2).
``quiet_libraries`` keeps the clients' own log records (tracebacks of retried requests) and
warnings off the terminal.

Examples
--------
>>> fault_of(ConnectionRefusedError(111, "Connection refused"))
('unreachable', '[Errno 111] Connection refused')
>>> fault_of(KeyError("x")) is None
True
>>> store_name("gs"), store_name("abfss")
('GCS', 'Azure Blob')
"""
from __future__ import annotations

import logging
import os
import socket
import warnings
from urllib.parse import urlsplit

from ..runtime.errors import UsageError

__all__ = ["StoreError", "fault_of", "store_name", "fault_message", "key_source",
           "quiet_libraries", "endpoint_of", "probe_endpoint"]


class StoreError(UsageError):
    """A store that cannot be used with these settings (one line naming store and fault)."""


_NAMES = {"s3": "S3", "s3a": "S3", "gs": "GCS", "gcs": "GCS", "az": "Azure Blob",
          "abfs": "Azure Blob", "abfss": "Azure Blob", "memory": "memory"}

#: Store -> how to give it credentials, and where its endpoint is set.
_HINTS = {
    "S3": ("set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE), or give "
           "\"key\" and \"secret\" in --storage-options",
           "AWS_ENDPOINT_URL or \"endpoint_url\" in --storage-options"),
    "GCS": ("set GOOGLE_APPLICATION_CREDENTIALS to a service-account key file, run gcloud auth "
            "application-default login, or give \"token\" in --storage-options",
            "STORAGE_EMULATOR_HOST or \"endpoint_url\" in --storage-options"),
    "Azure Blob": ("set AZURE_STORAGE_CONNECTION_STRING, or AZURE_STORAGE_ACCOUNT_NAME with "
                   "AZURE_STORAGE_ACCOUNT_KEY, or give \"connection_string\" in "
                   "--storage-options",
                   "the connection string's BlobEndpoint or \"account_url\""),
}

#: Exception class names (any client) -> fault.
_BY_TYPE = {
    "unreachable": {"EndpointConnectionError", "ConnectTimeoutError", "ConnectionClosedError",
                    "ClientConnectorError", "ServerDisconnectedError", "ServiceRequestError",
                    "ConnectionRefusedError", "NewConnectionError", "gaierror",
                    "ServerTimeoutError", "ConnectTimeout"},
    "no credentials": {"NoCredentialsError", "PartialCredentialsError",
                       "DefaultCredentialsError"},
    "rejected": {"RefreshError", "ClientAuthenticationError"},
    "malformed key": {"AzureSigningError"},  # an Azure account key that is not base64
}
#: Error codes (S3 and Azure error codes; GCS HTTP statuses) -> fault.
_BY_CODE = {
    "rejected": {"InvalidAccessKeyId", "SignatureDoesNotMatch", "ExpiredToken",
                 "InvalidToken", "AuthFailure", "AuthenticationFailed",
                 "AuthorizationFailure", "InvalidAuthenticationInfo", "401"},
    "denied": {"AccessDenied", "AllAccessDisabled", "AuthorizationPermissionMismatch",
               "AuthorizationResourceTypeMismatch", "InsufficientAccountPermissions",
               "403"},
    "no bucket": {"NoSuchBucket", "ContainerNotFound"},
}
#: Fault messages of clients that raise a plain ValueError (adlfs without credentials).
_BY_TEXT = {"no credentials": ("connection_string or account_name with credentials",)}
_ORDER = ("unreachable", "no credentials", "malformed key", "rejected", "denied", "no bucket")


def store_name(scheme: str) -> str:
    """The store a URL scheme names, for messages (``s3`` -> ``S3``)."""
    return _NAMES.get(scheme, scheme)


def _chain(exc):
    seen = set()
    while exc is not None and id(exc) not in seen and len(seen) < 20:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


def _code(exc) -> str | None:
    response = getattr(exc, "response", None)
    if isinstance(response, dict):  # botocore ClientError
        return str(response.get("Error", {}).get("Code") or "") or None
    code = getattr(exc, "error_code", None)  # azure HttpResponseError (a str enum)
    if code:
        return str(getattr(code, "value", code))
    code = getattr(exc, "code", None)  # gcsfs HttpError
    return str(code) if isinstance(code, int) and type(exc).__name__ == "HttpError" else None


def _detail(exc) -> str:
    response = getattr(exc, "response", None)
    if isinstance(response, dict) and response.get("Error", {}).get("Message"):  # botocore
        return f"{response['Error'].get('Code')}: {response['Error']['Message']}"
    text = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    return text if len(text) <= 160 else text[:157] + "..."


def fault_of(exc: BaseException) -> tuple[str, str] | None:
    """(fault, detail) of a store client's exception, or None if it is none of the store
    faults (``unreachable``, ``no credentials``, ``malformed key``, ``rejected``, ``denied``,
    ``no bucket``)."""
    found = {}
    for e in _chain(exc):
        name, code, text = type(e).__name__, _code(e), str(e)
        for fault in _ORDER:  # the deepest exception of a fault says most (its cause)
            if name in _BY_TYPE.get(fault, ()) or (code and code in _BY_CODE.get(fault, ())) \
                    or any(t in text for t in _BY_TEXT.get(fault, ())):
                found[fault] = f"{code}: {_detail(e)}" if code and code not in _detail(e) \
                    else _detail(e)
        if isinstance(e, PermissionError):
            found.setdefault("denied", _detail(e) or "permission denied")
    return next(((f, found[f]) for f in _ORDER if f in found), None)


def key_source(options: dict) -> str:
    """Where an Azure account key came from (for a line about a malformed one), never the
    key itself.

    Examples
    --------
    >>> key_source({"account_name": "a", "account_key": "k"})
    '"account_key" in --storage-options'
    """
    if "account_key" in options:
        return '"account_key" in --storage-options'
    if "connection_string" in options:
        return 'the AccountKey of "connection_string" in --storage-options'
    if os.environ.get("AZURE_STORAGE_CONNECTION_STRING"):
        return "the AccountKey of AZURE_STORAGE_CONNECTION_STRING"
    return "AZURE_STORAGE_ACCOUNT_KEY"


def fault_message(fault: str, detail: str, scheme: str, url: str, option: str,
                  endpoint: str | None = None, options: dict | None = None) -> str:
    """The one line of ``fault`` (see ``fault_of``) of the store ``url`` opened with the
    storage ``options``.

    Examples
    --------
    >>> fault_message("no bucket", "NoSuchBucket", "s3", "s3://b/x", "--out")
    "--out 's3://b/x': S3 bucket 'b' does not exist (NoSuchBucket)"
    >>> print(fault_message("malformed key", "Invalid base64", "az", "az://c/x", "--out",
    ...                     options={"account_name": "a", "account_key": "k!"}))
    ... # doctest: +NORMALIZE_WHITESPACE
    --out 'az://c/x': the Azure Blob account key is not base64 (Invalid base64); give the key
    as the Azure portal shows it in "account_key" in --storage-options
    """
    store = store_name(scheme)
    credentials, where = _HINTS.get(store, ("check the credentials", "the endpoint"))
    bucket = url.split("://", 1)[-1].split("/", 1)[0]
    texts = {
        "unreachable": f"cannot connect to the {store} endpoint"
                       f"{' ' + endpoint if endpoint else ''} ({detail}); check {where}",
        "no credentials": f"no {store} credentials found ({detail}); {credentials}",
        "malformed key": f"the {store} account key is not base64 ({detail}); give the key as "
                         f"the Azure portal shows it in {key_source(options or {})}",
        "rejected": f"{store} rejected the credentials ({detail}); {credentials}",
        "denied": f"{store} denied access with these credentials ({detail}); they need to "
                  "list, read, write and delete objects under the prefix",
        "no bucket": f"{store} {'container' if store == 'Azure Blob' else 'bucket'} "
                     f"{bucket!r} does not exist ({detail})",
    }
    return f"{option} {url!r}: {texts[fault]}"


def endpoint_of(fs, scheme: str, options: dict) -> str | None:
    """The endpoint URL the file system ``fs`` talks to, when it is set explicitly (options,
    environment, an emulator); None for the store's default endpoint."""
    if scheme in ("s3", "s3a"):
        return (options.get("endpoint_url") or options.get("client_kwargs", {}).get(
            "endpoint_url") or os.environ.get("AWS_ENDPOINT_URL_S3")
            or os.environ.get("AWS_ENDPOINT_URL"))
    if scheme in ("gs", "gcs"):
        return getattr(fs, "_location", None)
    if scheme in ("az", "abfs", "abfss"):
        client = getattr(fs, "service_client", None)
        return getattr(client, "url", None)
    return None


def probe_endpoint(endpoint: str | None, timeout: float = 5.0) -> str | None:
    """Why a TCP connection to ``endpoint`` (a URL) fails within ``timeout`` seconds; None if
    it connects (or there is no endpoint to probe).

    Examples
    --------
    >>> probe_endpoint(None) is None
    True
    """
    if not endpoint:
        return None
    parts = urlsplit(endpoint if "://" in endpoint else "http://" + endpoint)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        socket.create_connection((parts.hostname, port), timeout=timeout).close()
    except OSError as e:
        return e.strerror or type(e).__name__
    return None


_LIBRARIES = ("gcsfs", "adlfs", "s3fs", "fsspec", "botocore", "aiobotocore", "azure",
              "google", "urllib3", "aiohttp")
_quieted = False


def quiet_libraries() -> None:
    """Keep the store clients' log records and warnings off the terminal when nothing is
    configured to show them: each client's logger gets a ``NullHandler`` (so Python's
    last-resort handler never prints their tracebacks; a handler the application configures
    still receives them), and adlfs's warnings are ignored (their faults come back as errors).
    """
    global _quieted
    if _quieted:
        return
    for name in _LIBRARIES:
        logging.getLogger(name).addHandler(logging.NullHandler())
    warnings.filterwarnings("ignore", category=UserWarning, module=r"adlfs(\.|$)")
    _quieted = True
