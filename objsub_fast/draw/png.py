"""Lean PNG encoder: ordinary 8-bit greyscale/RGB PNG written directly from numpy arrays.

The container (signature, IHDR, one IDAT, IEND, each chunk with its CRC-32) is built by hand.
Rows are PNG-filtered by a small Numba kernel and deflated by one of three back-ends, all of
which write a standard zlib stream:

- ``"rle"`` (default): ``objsub_fast.draw.deflate``, fed row by row. Its bytes are a pure function
  of the pixels on every CPU and in every process, which the dataset's byte-identical promise
  needs; a row that repeats the one above is coded without being filtered or scanned.
- ``"isal"``: Intel ISA-L level 1 (the optional ``isal`` package). Fast, but its bytes depend on
  the CPU code path it picks at run time.
- ``"zlib"``: the standard library, level 1.

Speed and size of each are measured in ``benchmarks/bench_generate.py``.
"""
from __future__ import annotations

import struct
import zlib

import numpy as np

from ..runtime._numba import kernel
from . import deflate

__all__ = ["FILTER_NONE", "FILTER_SUB", "FILTER_UP", "FILTERS", "DEFLATE", "png_header",
           "encode_batch", "encode_png"]

SIGNATURE = b"\x89PNG\r\n\x1a\n"

#: PNG row filter types this encoder can apply (the same filter on every row).
FILTER_NONE, FILTER_SUB, FILTER_UP = 0, 1, 2
FILTERS = {"none": FILTER_NONE, "sub": FILTER_SUB, "up": FILTER_UP}

#: PNG colour type by channel count (0 = greyscale, 2 = truecolour RGB).
COLOR_TYPE = {1: 0, 3: 2}

#: Defaults chosen by measurement (see benchmarks/bench_generate.py).
DEFAULT_FILTER = FILTER_UP
DEFAULT_DEFLATE = "rle"


def _chunk(tag: bytes, data: bytes) -> bytes:
    """Return one PNG chunk: length, tag, data, CRC-32 of tag + data."""
    crc = zlib.crc32(data, zlib.crc32(tag))
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", crc)


_IEND = _chunk(b"IEND", b"")


def png_header(width: int, height: int, channels: int) -> bytes:
    """Return the signature and IHDR chunk of an 8-bit greyscale or RGB image."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, COLOR_TYPE[channels], 0, 0, 0)
    return SIGNATURE + _chunk(b"IHDR", ihdr)


# --------------------------------------------------------------------------- filters

@kernel(nogil=True)
def _filter_row(rows: np.ndarray, y: int, filter_type: int, bpp: int, dst: np.ndarray) -> None:
    """PNG-filter row ``y`` of ``rows`` (H, W*C) into ``dst[:1 + W*C]``, filter byte first.

    ``filter_type`` is FILTER_NONE, FILTER_SUB or FILTER_UP; ``bpp`` the bytes per pixel (C).
    """
    n = rows.shape[1]
    dst[0] = filter_type
    if filter_type == FILTER_UP and y > 0:
        for x in range(n):
            dst[x + 1] = rows[y, x] - rows[y - 1, x]
    elif filter_type == FILTER_SUB:
        for x in range(min(bpp, n)):
            dst[x + 1] = rows[y, x]
        for x in range(bpp, n):
            dst[x + 1] = rows[y, x] - rows[y, x - bpp]
    else:
        for x in range(n):
            dst[x + 1] = rows[y, x]


@kernel(nogil=True)
def _filter_into(rows: np.ndarray, out: np.ndarray, filter_type: int, bpp: int) -> None:
    """PNG-filter every row of ``rows`` (H, W*C) into ``out`` (H, 1 + W*C)."""
    for y in range(rows.shape[0]):
        _filter_row(rows, y, filter_type, bpp, out[y])


@kernel(inline="always")
def _filters_to_zeros(rows, row_words, y, filter_type):
    """Whether row ``y`` filters to all zeros after its filter byte: with Up, when it repeats
    the row above; under any filter, when it is all zero itself. ``row_words`` is ``rows``
    viewed as uint64 when each row is whole 8-byte words (then compared word by word), else
    empty."""
    above = y - 1 if filter_type == FILTER_UP and y > 0 else -1
    if row_words.shape[1] > 0:
        diff = np.uint64(0)
        for x in range(row_words.shape[1]):
            diff |= row_words[y, x] ^ (row_words[above, x] if above >= 0 else np.uint64(0))
        return diff == 0
    diff = 0
    for x in range(rows.shape[1]):
        diff |= rows[y, x] ^ (rows[above, x] if above >= 0 else 0)
    return diff == 0


@kernel(nogil=True)
def _rle_idat(rows, row_words, filter_type, bpp, row, words, out):
    """Write the zlib stream of the filtered scanlines of ``rows`` (H, R) into ``out`` with
    ``objsub_fast.draw.deflate``; return its length.

    ``row_words`` is ``rows`` as uint64 words, or empty (see ``_filters_to_zeros``). A row that
    filters to zeros is added as two known runs; any other is filtered into ``row`` (R + 1
    bytes, whole 8-byte ``words`` of it as uint64) and scanned.
    """
    n = rows.shape[1]
    st = deflate._new_stream(out)
    for y in range(rows.shape[0]):
        if not _filters_to_zeros(rows, row_words, y, filter_type):
            _filter_row(rows, y, filter_type, bpp, row)
            st = deflate._add_runs(out, st, row, words, n + 1)
        elif filter_type == FILTER_NONE:
            st = deflate._add_run(out, st, 0, n + 1)
        else:
            st = deflate._add_run(out, st, filter_type, 1)
            st = deflate._add_run(out, st, 0, n)
    return deflate._end_stream(out, st)


# --------------------------------------------------------------------------- back-ends

class _RleDeflate:
    """IDAT data by ``_rle_idat``, with buffers reused across the images of a batch."""

    def __init__(self, height: int, row_bytes: int, filter_type: int, bpp: int, level):
        if level is not None:
            raise ValueError("level applies to the isal and zlib back-ends only; rle has none")
        row = np.zeros(-(-(row_bytes + 1) // 8) * 8, np.uint8)  # whole, aligned words
        self._out = np.empty(deflate.max_stream_size(height * (row_bytes + 1)), np.uint8)
        self._args = (filter_type, bpp, row, row.view(np.uint64), self._out)

    def __call__(self, rows: np.ndarray) -> bytes:
        row_words = (rows.view(np.uint64) if rows.shape[1] % 8 == 0
                     else np.empty((rows.shape[0], 0), np.uint64))
        return self._out[:_rle_idat(rows, row_words, *self._args)].tobytes()


class _LibraryDeflate:
    """IDAT data by a zlib-compatible library: the image is filtered into a buffer first."""

    def __init__(self, compress, height: int, row_bytes: int, filter_type: int, bpp: int,
                 level):
        self._buf = np.empty((height, row_bytes + 1), np.uint8)
        self._compress, self._level = compress, 1 if level is None else level
        self._filter = (filter_type, bpp)

    def __call__(self, rows: np.ndarray) -> bytes:
        _filter_into(rows, self._buf, *self._filter)
        return self._compress(self._buf, self._level)


def _isal_compress(data, level):
    from isal import isal_zlib  # optional: compared in the benchmark, not needed to generate

    return isal_zlib.compress(data, level)


#: Deflate back-ends: name -> factory(height, row bytes, filter type, bpp, level) of a
#: callable that returns the IDAT data of one image's rows (H, row bytes).
DEFLATE = {
    "rle": _RleDeflate,
    "isal": lambda *args: _LibraryDeflate(_isal_compress, *args),
    "zlib": lambda *args: _LibraryDeflate(zlib.compress, *args),
}


def encode_batch(images: np.ndarray, filter_type: int = DEFAULT_FILTER,
                 deflate: str = DEFAULT_DEFLATE, level: int | None = None) -> list[bytes]:
    """Encode a batch of same-sized images as PNG files.

    Parameters
    ----------
    images : ndarray of uint8, shape (N, H, W) greyscale or (N, H, W, 3) RGB
    filter_type : int
        Row filter applied to every row (see ``FILTERS``).
    deflate : {"rle", "isal", "zlib"}
        Deflate back-end (see the module docstring); all produce a standard zlib stream.
    level : int, optional
        Compression level of "isal" (0-3) or "zlib" (0-9), default 1; "rle" has none.

    Returns
    -------
    list of bytes
        One complete PNG file per image.
    """
    images = np.asarray(images)
    if images.dtype != np.uint8 or images.ndim not in (3, 4) or (
            images.ndim == 4 and images.shape[3] not in COLOR_TYPE):
        raise ValueError("images must be uint8 of shape (N, H, W) or (N, H, W, 3); "
                         f"got {images.dtype} {images.shape}")
    if deflate not in DEFLATE:
        raise ValueError(f"deflate must be one of {sorted(DEFLATE)}, got {deflate!r}")
    if filter_type not in FILTERS.values():
        raise ValueError(f"filter_type must be one of {sorted(FILTERS.values())}, "
                         f"got {filter_type!r}")
    n, h, w = images.shape[:3]
    channels = 1 if images.ndim == 3 else 3
    head = png_header(w, h, channels)
    # writeable and C-contiguous (a read-only array is copied): the kernels compile for one
    # array type, not again for read-only images (about 20 CPU-s each)
    rows = np.require(images, requirements=("C", "W")).reshape(n, h, w * channels)
    idat = DEFLATE[deflate](h, w * channels, filter_type, channels, level)
    return [head + _chunk(b"IDAT", idat(rows[i])) + _IEND for i in range(n)]


def encode_png(image: np.ndarray, **kwargs) -> bytes:
    """Encode one (H, W) or (H, W, 3) uint8 image as a PNG file (see ``encode_batch``)."""
    return encode_batch(np.asarray(image)[None], **kwargs)[0]
