"""Deterministic ustar members: mode 0644, uid/gid 0, mtime 0, no user or group names.

Written by hand (not ``tarfile``) because a shard's members are produced in a tight loop;
``tarfile`` and the ``webdataset`` library read the result.
"""
from __future__ import annotations

import numpy as np

__all__ = ["TAR_BLOCK", "TAR_END", "tar_parts", "tar_member", "tar_members"]

TAR_BLOCK = 512


def _tar_template() -> tuple[bytearray, int]:
    h = bytearray(TAR_BLOCK)
    for off, field in ((100, b"0000644\0"), (108, b"0000000\0"), (116, b"0000000\0"),
                       (136, b"00000000000\0"), (148, b" " * 8), (156, b"0"),
                       (257, b"ustar\x0000")):
        h[off:off + len(field)] = field
    return h, sum(h)


_TAR_TEMPLATE, _TAR_TEMPLATE_SUM = _tar_template()
#: The template's fixed fields between the variable ones (name, size, checksum, prefix): a
#: header is joined from them in one step rather than patched into a copy of the template.
_MODE_UID_GID = bytes(_TAR_TEMPLATE[100:124])
_MTIME = bytes(_TAR_TEMPLATE[136:148])
_TYPE_TO_PREFIX = bytes(_TAR_TEMPLATE[156:345])
_AFTER_PREFIX = bytes(_TAR_TEMPLATE[500:512])
_PADDING = [b"\0" * n for n in range(TAR_BLOCK)]
#: End of archive: two zero blocks.
TAR_END = b"\0" * (2 * TAR_BLOCK)


def _split_name(bname: bytes) -> tuple[bytes, bytes]:
    """(prefix, name) of a member path: ustar keeps a name over 100 bytes as a directory
    prefix (up to 155 bytes) and the rest, split at a slash."""
    if len(bname) <= 100:
        return b"", bname
    cut = bname.find(b"/", len(bname) - 101)
    if cut < 0 or cut > 155 or cut == len(bname) - 1:
        raise ValueError(f"tar member name longer than 100 bytes that ustar cannot split: "
                         f"{bname.decode()!r}")
    return bname[:cut], bname[cut + 1:]


def tar_parts(name: str, data: bytes) -> tuple[bytes, bytes, bytes]:
    """One ustar member as (header, data, zero padding). A name over 100 bytes is stored as
    ustar's prefix and name (split at a slash).

    Examples
    --------
    >>> head, data, pad = tar_parts("a.txt", b"hi")
    >>> len(head), data, len(pad)
    (512, b'hi', 510)
    """
    prefix, bname = _split_name(name.encode())
    size = b"%011o\0" % len(data)
    checksum = b"%06o\0 " % (_TAR_TEMPLATE_SUM + sum(bname) + sum(prefix) + sum(size))
    header = b"".join((bname.ljust(100, b"\0"), _MODE_UID_GID, size, _MTIME, checksum,
                       _TYPE_TO_PREFIX, prefix.ljust(155, b"\0"), _AFTER_PREFIX))
    return header, data, _PADDING[-len(data) % TAR_BLOCK]


def tar_member(name: str, data: bytes) -> bytes:
    """One ustar member as a single byte string (see ``tar_parts``)."""
    return b"".join(tar_parts(name, data))


#: Largest member ``tar_members`` writes in its vectorised form (11 octal digits of size).
_MAX_SIZE = 8**11 - 1
_OCTAL_SHIFTS = 3 * np.arange(10, -1, -1)
_CHECKSUM_SHIFTS = 3 * np.arange(5, -1, -1)
_TEMPLATE_ROW = np.frombuffer(bytes(_TAR_TEMPLATE), dtype=np.uint8)


def tar_members(names: list[str], datas: list[bytes]) -> bytes:
    """Many ustar members (``tar_member`` of each name and data) as one byte string.

    The headers of all members are filled in together (numpy): name, size and checksum
    fields into copies of the template. Names over 100 bytes (ustar's prefix) and members of
    8 GiB or more are written one by one with ``tar_parts``.

    Examples
    --------
    >>> tar_members(["a.txt", "b.bin"], [b"hi", bytes(600)]) == (
    ...     tar_member("a.txt", b"hi") + tar_member("b.bin", bytes(600)))
    True
    """
    bnames = [name.encode() for name in names]
    sizes = np.array([len(d) for d in datas], dtype=np.int64)
    if not bnames or max(map(len, bnames)) > 100 or sizes.max() > _MAX_SIZE:
        return b"".join(p for name, data in zip(names, datas) for p in tar_parts(name, data))
    names_field = np.frombuffer(b"".join(b.ljust(100, b"\0") for b in bnames),
                                dtype=np.uint8).reshape(-1, 100)
    size_field = (48 + ((sizes[:, None] >> _OCTAL_SHIFTS) & 7)).astype(np.uint8)  # "%011o"
    checksums = (_TAR_TEMPLATE_SUM + names_field.sum(axis=1, dtype=np.int64)
                 + size_field.sum(axis=1, dtype=np.int64))
    headers = np.empty((len(bnames), TAR_BLOCK), dtype=np.uint8)
    headers[:] = _TEMPLATE_ROW
    headers[:, :100] = names_field
    headers[:, 124:135] = size_field
    headers[:, 135] = 0
    headers[:, 148:154] = 48 + ((checksums[:, None] >> _CHECKSUM_SHIFTS) & 7)  # "%06o\0 "
    headers[:, 154] = 0
    blocks = headers.tobytes()
    parts = []
    for j, data in enumerate(datas):
        parts += (blocks[j * TAR_BLOCK:(j + 1) * TAR_BLOCK], data,
                  _PADDING[-len(data) % TAR_BLOCK])
    return b"".join(parts)
