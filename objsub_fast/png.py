"""Lean PNG encoder: ordinary 8-bit greyscale/RGB PNG written directly from numpy arrays.

The container (signature, IHDR, one IDAT, IEND, each chunk with its CRC-32) is built by hand;
rows are filtered by a small Numba kernel into a reused buffer and deflated with
Intel ISA-L (``isal.isal_zlib``, a zlib-compatible stream) or stdlib ``zlib``. Measured on engine
frames (``benchmarks/bench_generate.py``), ISA-L level 1 is about ten times faster than zlib
level 1 and gives smaller files, so it is the default.
"""
from __future__ import annotations

import struct
import zlib

import numba
import numpy as np
from isal import isal_zlib

SIGNATURE = b"\x89PNG\r\n\x1a\n"

#: PNG row filter types this encoder can apply (the same filter on every row).
FILTER_NONE, FILTER_SUB, FILTER_UP = 0, 1, 2
FILTERS = {"none": FILTER_NONE, "sub": FILTER_SUB, "up": FILTER_UP}

#: Deflate back-ends: name -> (compress(data, level), default level).
DEFLATE = {"isal": (isal_zlib.compress, 1), "zlib": (zlib.compress, 1)}

#: PNG colour type by channel count (0 = greyscale, 2 = truecolour RGB).
COLOR_TYPE = {1: 0, 3: 2}

#: Defaults chosen by measurement (see benchmarks/bench_generate.py).
DEFAULT_FILTER = FILTER_UP
DEFAULT_DEFLATE = "isal"


def _chunk(tag: bytes, data: bytes) -> bytes:
    """Return one PNG chunk: length, tag, data, CRC-32 of tag + data."""
    crc = zlib.crc32(data, zlib.crc32(tag))
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", crc)


_IEND = _chunk(b"IEND", b"")


def png_header(width: int, height: int, channels: int) -> bytes:
    """Return the signature and IHDR chunk of an 8-bit greyscale or RGB image."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, COLOR_TYPE[channels], 0, 0, 0)
    return SIGNATURE + _chunk(b"IHDR", ihdr)


@numba.njit(cache=True, nogil=True)
def filter_into(rows: np.ndarray, out: np.ndarray, filter_type: int, bpp: int) -> None:
    """PNG-filter the scanlines ``rows`` (H, W*C) into ``out`` (H, 1 + W*C), filter byte first.

    One filter type (FILTER_NONE, FILTER_SUB or FILTER_UP) is used on every row; ``bpp`` is
    the number of bytes per pixel (C).
    """
    h, n = rows.shape
    for y in range(h):
        out[y, 0] = filter_type
        if filter_type == FILTER_UP and y > 0:
            for x in range(n):
                out[y, x + 1] = rows[y, x] - rows[y - 1, x]
        elif filter_type == FILTER_SUB:
            for x in range(min(bpp, n)):
                out[y, x + 1] = rows[y, x]
            for x in range(bpp, n):
                out[y, x + 1] = rows[y, x] - rows[y, x - bpp]
        else:
            for x in range(n):
                out[y, x + 1] = rows[y, x]


def encode_batch(images: np.ndarray, filter_type: int = DEFAULT_FILTER,
                 deflate: str = DEFAULT_DEFLATE, level: int | None = None) -> list[bytes]:
    """Encode a batch of same-sized images as PNG files.

    Parameters
    ----------
    images : ndarray of uint8, shape (N, H, W) greyscale or (N, H, W, 3) RGB
    filter_type : int
        Row filter applied to every row (see ``FILTERS``).
    deflate : {"isal", "zlib"}
        Deflate back-end; both produce a standard zlib stream.
    level : int, optional
        Compression level of the back-end (default: its entry in ``DEFLATE``).

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
    compress, default_level = DEFLATE[deflate]
    level = default_level if level is None else level
    n, h, w = images.shape[:3]
    if filter_type not in FILTERS.values():
        raise ValueError(f"filter_type must be one of {sorted(FILTERS.values())}, "
                         f"got {filter_type!r}")
    channels = 1 if images.ndim == 3 else 3
    head = png_header(w, h, channels)
    rows = np.ascontiguousarray(images).reshape(n, h, w * channels)
    buf = np.empty((h, w * channels + 1), dtype=np.uint8)
    out = []
    for i in range(n):
        filter_into(rows[i], buf, filter_type, channels)
        out.append(head + _chunk(b"IDAT", compress(buf, level)) + _IEND)
    return out


def encode_png(image: np.ndarray, **kwargs) -> bytes:
    """Encode one (H, W) or (H, W, 3) uint8 image as a PNG file (see ``encode_batch``)."""
    return encode_batch(np.asarray(image)[None], **kwargs)[0]
