"""The detector's colour tables kept on disk, beside the package's compiled kernels.

Building a colour table (``detect.class_lut``: the CIEDE2000 difference of 64**3 cells to
every reference colour) takes about a second, and every process that scores built it again
(each worker of a ``score --workers`` run, each run of the command). A table is a function of
its references, of the package's sources and of NumPy's and scikit-image's arithmetic, so
once built it is kept in ``__pycache__`` beside this module (where Numba keeps the kernels),
under a name of its references; the file starts with a digest of all of these inputs and
one of the table, so a table built by other sources, other library versions, or a damaged file
is built again. Where the folder cannot be written, tables are built as before.

Examples
--------
>>> import tempfile
>>> with tempfile.TemporaryDirectory() as folder:
...     built = stored_table(("example",), lambda: np.arange(4, dtype=np.uint8), folder)
...     again = stored_table(("example",), lambda: np.zeros(4, np.uint8), folder)
>>> again.tolist(), again.flags.writeable
([0, 1, 2, 3], False)
"""
from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

import numpy as np

__all__ = ["FOLDER", "stored_table"]

#: Where the tables are kept: the ``__pycache__`` folder beside this module.
FOLDER = Path(__file__).resolve().parent / "__pycache__"
_DIGEST = 32  # bytes of a SHA-256


def _inputs_digest(key) -> bytes:
    """SHA-256 of ``key`` (the table's references), the package's source stamp and the
    versions of NumPy and scikit-image."""
    from skimage import __version__ as skimage_version

    from ...runtime._numba import package_stamp

    text = f"{package_stamp()}\0{np.__version__}\0{skimage_version}\0{key!r}"
    return hashlib.sha256(text.encode()).digest()


def _read(path: Path, inputs: bytes):
    """The table stored at ``path`` for ``inputs`` (read-only), or None."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    head, table = data[:2 * _DIGEST], data[2 * _DIGEST:]
    if head != inputs + hashlib.sha256(table).digest():
        return None
    return np.frombuffer(table, np.uint8)


def _write(path: Path, data: bytes) -> None:
    """Put ``data`` at ``path`` whole (a temp file renamed over it), or nothing if the folder
    cannot be written."""
    try:
        path.parent.mkdir(exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except OSError:
        Path(tmp).unlink(missing_ok=True)


def stored_table(key, build, folder=None) -> np.ndarray:
    """The uint8 table ``build()`` returns for ``key`` (a tuple of its references, with a
    stable ``repr``), read from ``folder`` (default :data:`FOLDER`) when stored there, else
    built and stored. Returned read-only either way."""
    path = Path(FOLDER if folder is None else folder) / (
        "colour-table-" + hashlib.sha256(repr(key).encode()).hexdigest()[:24] + ".bin")
    inputs = _inputs_digest(key)
    table = _read(path, inputs)
    if table is None:
        table = np.ascontiguousarray(build(), np.uint8)
        data = table.tobytes()
        _write(path, inputs + hashlib.sha256(data).digest() + data)
        table.flags.writeable = False
    return table
