"""Bit writing for H.264 syntax (7.2): fixed-length u(n), Exp-Golomb ue(v)/se(v), trailing
bits, and the NAL unit's emulation prevention (7.4.1), as Numba kernels.

A writer is a uint8 buffer and a state array ``st`` (int64[3]: bytes written, pending bits,
count of pending bits), so kernels can write into it and Python code can continue.

Examples
--------
>>> buf, st = new_writer(16)
>>> put_ue(buf, st, 3); put_se(buf, st, -1); put_bits(buf, st, 1, 1); trailing_bits(buf, st)
>>> bytes(buf[:st[0]]).hex()   # 00100 011 1 then the stop bit 1 and zeros
'23c0'
>>> escape(b"\\x00\\x00\\x01\\x00\\x00\\x00")
b'\\x00\\x00\\x03\\x01\\x00\\x00\\x03\\x00'
"""
from __future__ import annotations

import numpy as np

from ...runtime._numba import noalloc_kernel

__all__ = ["new_writer", "put_bits", "put_ue", "put_se", "ue_bits", "se_bits",
           "trailing_bits", "written", "escape", "nal_unit"]


def new_writer(capacity: int):
    """A zeroed buffer of ``capacity`` bytes and its writer state."""
    return np.zeros(capacity, np.uint8), np.zeros(3, np.int64)


@noalloc_kernel(inline="always")
def put_bits(buf, st, value, n):  # pragma: no cover - compiled
    """Write the ``n`` (0..32) low bits of ``value``, most significant first."""
    acc = (st[1] << n) | (value & ((1 << n) - 1))
    nbits = st[2] + n
    pos = st[0]
    while nbits >= 8:
        nbits -= 8
        buf[pos] = (acc >> nbits) & 0xFF
        pos += 1
    st[0] = pos
    st[1] = acc & ((1 << nbits) - 1)
    st[2] = nbits


@noalloc_kernel(inline="always")
def bit_length(value):  # pragma: no cover - compiled
    """Number of bits of a non-negative integer (0 for 0)."""
    n = 0
    while value > 0:
        value >>= 1
        n += 1
    return n


@noalloc_kernel(inline="always")
def ue_bits(value):  # pragma: no cover - compiled
    """Length in bits of ue(v) for ``value`` >= 0."""
    return 2 * bit_length(value + 1) - 1


@noalloc_kernel(inline="always")
def se_bits(value):  # pragma: no cover - compiled
    """Length in bits of se(v)."""
    return ue_bits(2 * value - 1 if value > 0 else -2 * value)


@noalloc_kernel(inline="always")
def put_ue(buf, st, value):  # pragma: no cover - compiled
    """Write ue(v): unsigned Exp-Golomb (9.1)."""
    code = value + 1
    length = bit_length(code)
    put_bits(buf, st, 0, length - 1)
    put_bits(buf, st, code, length)


@noalloc_kernel(inline="always")
def put_se(buf, st, value):  # pragma: no cover - compiled
    """Write se(v): signed Exp-Golomb (9.1.1; k > 0 -> 2k - 1, k <= 0 -> -2k)."""
    put_ue(buf, st, 2 * value - 1 if value > 0 else -2 * value)


@noalloc_kernel
def trailing_bits(buf, st):  # pragma: no cover - compiled
    """rbsp_trailing_bits(): the stop bit 1, then zeros to the byte boundary."""
    put_bits(buf, st, 1, 1)
    if st[2] > 0:
        put_bits(buf, st, 0, 8 - st[2])


def written(buf, st) -> bytes:
    """The whole bytes written so far (the pending bits must be flushed)."""
    assert st[2] == 0, "the writer is not at a byte boundary"
    return buf[:st[0]].tobytes()


@noalloc_kernel
def _escape_into(rbsp, out):  # pragma: no cover - compiled
    n = 0
    zeros = 0
    for i in range(rbsp.shape[0]):
        byte = rbsp[i]
        if zeros >= 2 and byte <= 3:
            out[n] = 3
            n += 1
            zeros = 0
        out[n] = byte
        n += 1
        zeros = zeros + 1 if byte == 0 else 0
    return n


def escape(rbsp: bytes) -> bytes:
    """Emulation prevention (7.4.1): insert 0x03 after every two zero bytes followed by a
    byte <= 3, so that no start code appears inside a NAL unit."""
    data = np.frombuffer(rbsp, np.uint8)
    out = np.empty(len(data) + len(data) // 2 + 1, np.uint8)
    return out[:_escape_into(data, out)].tobytes()


def nal_unit(nal_ref_idc: int, nal_unit_type: int, rbsp: bytes) -> bytes:
    """One NAL unit: the header byte, then the escaped RBSP (no start code)."""
    return bytes([(nal_ref_idc << 5) | nal_unit_type]) + escape(rbsp)
