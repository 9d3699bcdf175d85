"""An MP4 (ISO/IEC 14496-12 and -15) muxer for one H.264 video track, in memory.

The file is ``ftyp``, then ``moov`` (the sample tables), then ``mdat`` (the samples): with the
index first, a browser can start playing before the whole file has arrived. The muxer knows
every sample's size before it writes anything, so it lays out ``moov`` once to learn its length
and then writes the chunk offset (``stco``) that points past it.

Nothing in the bytes depends on the clock or the machine: creation and modification times are
0, there is no encoder or muxer name, and every field is a function of the arguments.

A sample is one picture: its NAL units (header byte, emulation-prevented payload, no start
code), each prefixed with its 4-byte big-endian length. Parameter sets (SPS, PPS) live in the
``avcC`` box only; the muxer leaves out any that a picture carries. Pictures are stored in
decode order with one tick per picture at ``fps`` ticks per second, so the muxer is for streams
whose decode order is their display order (no B-frames: no ``ctts`` box).

Boxes are described as data (:func:`box`, :func:`full_box`: nested tuples of a type and its
payload parts) and serialised by one writer, :func:`serialise`.

Examples
--------
>>> from objsub_fast.ground_truth.h264.mp4 import Mp4Muxer
>>> sps, pps = bytes([0x67, 66, 0xC0, 30, 0xF4]), bytes([0x68, 0xCE, 0x38, 0x80])
>>> mux = Mp4Muxer(32, 32, fps=16, sps=sps, pps=pps)
>>> mux.add([bytes([0x65, 0x88, 0x84])], keyframe=True)
>>> mp4 = mux.finish()
>>> mp4[4:8], top_level_boxes(mp4)
(b'ftyp', ['ftyp', 'moov', 'mdat'])
"""
from __future__ import annotations

import struct

__all__ = ["Mp4Muxer", "mux_mp4", "box", "full_box", "serialise", "top_level_boxes",
           "iter_boxes", "find_box", "read_track", "sample_nals", "split_annexb", "COLOUR"]

#: The colour tags of the ``colr`` box (nclx; ISO/IEC 23091-2 codes): BT.601 625/525
#: (SMPTE 170M) primaries, transfer and matrix, limited ("tv") range, as the VUI says.
COLOUR = {"primaries": 6, "transfer": 6, "matrix": 6, "full_range": 0}

#: NAL unit types of parameter sets (SPS, PPS), kept out of the samples (they are in avcC).
_PARAMETER_SETS = (7, 8)
#: Profiles whose avcC carries the chroma format and bit depths (ISO/IEC 14496-15, 5.3.3.1).
_HIGH_PROFILES = (100, 110, 122, 144)
#: The identity transform of mvhd and tkhd (16.16 and 2.30 fixed point).
_MATRIX = struct.pack(">9i", 0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000)
_LANGUAGE_UND = ((ord("u") - 0x60) << 10) | ((ord("n") - 0x60) << 5) | (ord("d") - 0x60)


def box(kind: str, *parts) -> tuple:
    """A box: its four-character type and its payload parts (bytes, or boxes nested).

    Examples
    --------
    >>> serialise(box("free", b"ab"))
    b'\\x00\\x00\\x00\\nfreeab'
    """
    return (kind, parts)


def full_box(kind: str, version: int, flags: int, *parts) -> tuple:
    """A full box: a box whose payload starts with a version byte and 24 bits of flags.

    Examples
    --------
    >>> serialise(full_box("stss", 0, 0, b""))[4:]
    b'stss\\x00\\x00\\x00\\x00'
    """
    return box(kind, struct.pack(">I", (version << 24) | flags), *parts)


def serialise(node) -> bytes:
    """The bytes of a box (size, type, payload) or of raw bytes, recursively."""
    if isinstance(node, (bytes, bytearray)):
        return bytes(node)
    kind, parts = node
    payload = b"".join(serialise(part) for part in parts)
    if len(payload) + 8 >= 1 << 32:
        raise ValueError(f"box {kind!r} of {len(payload):,} bytes needs a 64-bit size")
    return struct.pack(">I4s", len(payload) + 8, kind.encode("ascii")) + payload


def _table(fmt: str, rows) -> bytes:
    """A sample table's payload: entry count, then one ``fmt`` record per row."""
    rows = list(rows)
    return struct.pack(">I", len(rows)) + b"".join(struct.pack(fmt, *row) for row in rows)


def _avcc(sps: bytes, pps: bytes, profile: int, constraints: int, level: int) -> tuple:
    """The decoder configuration record: profile, level, 4-byte NAL lengths, one SPS, one PPS
    (8-bit 4:2:0 for the High profiles)."""
    record = [struct.pack(">5B", 1, profile, constraints, level, 0xFC | 3),
              struct.pack(">BH", 0xE0 | 1, len(sps)), sps, struct.pack(">BH", 1, len(pps)), pps]
    if profile in _HIGH_PROFILES:
        record.append(struct.pack(">4B", 0xFC | 1, 0xF8, 0xF8, 0))
    return box("avcC", *record)


def _sample_entry(width: int, height: int, avcc: tuple, colour: dict) -> tuple:
    """The ``avc1`` visual sample entry with its avcC, colr and pasp boxes."""
    visual = struct.pack(">6xH16xHHIIIH32sHh", 1, width, height, 0x00480000, 0x00480000, 0, 1,
                         b"", 0x18, -1)
    colr = box("colr", b"nclx", struct.pack(">HHHB", colour["primaries"], colour["transfer"],
                                            colour["matrix"], colour["full_range"] << 7))
    return box("avc1", visual, avcc, colr, box("pasp", struct.pack(">II", 1, 1)))


def _moov(width, height, fps, avcc, colour, sizes, keyframes, offset) -> tuple:
    """The movie box: one video track of ``len(sizes)`` samples in one chunk at ``offset``."""
    n = len(sizes)
    mvhd = full_box("mvhd", 0, 0, struct.pack(">IIIIIH10x", 0, 0, fps, n, 0x10000, 0x100),
                    _MATRIX, struct.pack(">24xI", 2))
    # version 0: creation, modification, track_ID, reserved, duration (movie timescale),
    # reserved[2], layer, alternate_group, volume (0: not audio), reserved, matrix, width and
    # height in 16.16: 92 bytes in all
    tkhd = full_box("tkhd", 0, 3, struct.pack(">IIIII8xHHH2x", 0, 0, 1, 0, n, 0, 0, 0),
                    _MATRIX, struct.pack(">II", width << 16, height << 16))
    mdhd = full_box("mdhd", 0, 0, struct.pack(">IIIIHH", 0, 0, fps, n, _LANGUAGE_UND, 0))
    hdlr = full_box("hdlr", 0, 0, struct.pack(">I4s12x", 0, b"vide"), b"VideoHandler\0")
    stbl = box("stbl",
               full_box("stsd", 0, 0, struct.pack(">I", 1),
                        _sample_entry(width, height, avcc, colour)),
               full_box("stts", 0, 0, _table(">II", [(n, 1)] if n else [])),
               full_box("stss", 0, 0, _table(">I", [(i + 1,) for i in keyframes])),
               full_box("stsz", 0, 0, struct.pack(">II", 0, n),
                        struct.pack(f">{n}I", *sizes)),
               full_box("stsc", 0, 0, _table(">III", [(1, n, 1)] if n else [])),
               full_box("stco", 0, 0, _table(">I", [(offset,)] if n else [])))
    minf = box("minf", full_box("vmhd", 0, 1, struct.pack(">4H", 0, 0, 0, 0)),
               box("dinf", full_box("dref", 0, 0, struct.pack(">I", 1), full_box("url ", 0, 1))),
               stbl)
    return box("moov", mvhd, box("trak", tkhd, box("mdia", mdhd, hdlr, minf)))


_FTYP = box("ftyp", b"isom", struct.pack(">I", 0x200), b"isom", b"iso2", b"avc1", b"mp41")


class Mp4Muxer:
    """Collect one H.264 picture after another and write the mp4 (see the module docstring).

    Parameters
    ----------
    width, height : int
        Picture size in pixels (as in the SPS).
    fps : int
        Pictures per second (one tick of a 1/fps timescale each).
    sps, pps : bytes
        The parameter sets, NAL units with their header byte and no start code.
    profile_idc, constraint_flags, level_idc : int, optional
        The avcC's profile bytes; default: those of the SPS (its bytes 1, 2, 3).
    colour : dict
        The ``colr`` box's codes (default :data:`COLOUR`).
    """

    def __init__(self, width: int, height: int, fps: int, sps: bytes, pps: bytes,
                 profile_idc: int | None = None, constraint_flags: int | None = None,
                 level_idc: int | None = None, colour: dict = COLOUR):
        if not (0 < width < 1 << 16 and 0 < height < 1 << 16 and 0 < fps < 1 << 32):
            raise ValueError(f"width, height and fps must be positive 16-bit integers, got "
                             f"{width}x{height} at {fps}")
        if (sps[:1] and sps[0] & 0x1F) != 7 or (pps[:1] and pps[0] & 0x1F) != 8:
            raise ValueError("sps and pps must be an SPS (type 7) and a PPS (type 8) NAL unit")
        self._size, self._fps, self._colour = (width, height), fps, colour
        self._avcc = _avcc(bytes(sps), bytes(pps),
                           sps[1] if profile_idc is None else profile_idc,
                           sps[2] if constraint_flags is None else constraint_flags,
                           sps[3] if level_idc is None else level_idc)
        self._samples: list[bytes] = []
        self._keyframes: list[int] = []

    def add(self, nals, keyframe: bool) -> None:
        """Add one picture: its NAL units (parameter sets among them are left out) and whether
        it is a random access point (an IDR picture)."""
        sample = b"".join(struct.pack(">I", len(nal)) + bytes(nal) for nal in nals
                          if nal[0] & 0x1F not in _PARAMETER_SETS)
        if not sample:
            raise ValueError("a picture needs at least one NAL unit besides parameter sets")
        if keyframe:
            self._keyframes.append(len(self._samples))
        self._samples.append(sample)

    def finish(self) -> bytes:
        """The mp4 file: ftyp, moov, mdat."""
        sizes = [len(s) for s in self._samples]
        head = serialise(_FTYP)
        moov = serialise(self._moov(sizes, 0))
        if sizes:  # stco ends the moov: its one chunk offset, past the mdat's header
            moov = moov[:-4] + struct.pack(">I", len(head) + len(moov) + 8)
        return head + moov + serialise(box("mdat", *self._samples))

    def _moov(self, sizes, offset) -> tuple:
        return _moov(*self._size, self._fps, self._avcc, self._colour, sizes, self._keyframes,
                     offset)


def mux_mp4(width: int, height: int, fps: int, sps: bytes, pps: bytes, pictures,
            **avcc) -> bytes:
    """The mp4 of ``pictures`` (pairs of a picture's NAL units and its keyframe flag); the
    other arguments are :class:`Mp4Muxer`'s."""
    muxer = Mp4Muxer(width, height, fps, sps, pps, **avcc)
    for nals, keyframe in pictures:
        muxer.add(nals, keyframe)
    return muxer.finish()


# --------------------------------------------------------------------------- reading back

def iter_boxes(data: bytes, start: int = 0, stop: int | None = None):
    """Yield (type, payload start, payload stop) of the boxes in ``data[start:stop]`` (32-bit
    sizes only; ValueError on a size that does not fit)."""
    stop = len(data) if stop is None else stop
    while start < stop:
        if stop - start < 8:
            raise ValueError(f"truncated box header at byte {start}")
        size, kind = struct.unpack_from(">I4s", data, start)
        if size < 8 or start + size > stop:
            raise ValueError(f"box {kind!r} at byte {start} has a bad size {size}")
        yield kind.decode("latin-1"), start + 8, start + size
        start += size


def top_level_boxes(data: bytes) -> list[str]:
    """The types of the top-level boxes of an mp4, in order."""
    return [kind for kind, _, _ in iter_boxes(data)]


#: Bytes between a box's payload start and its child boxes (full-box header, entry count or
#: sample entry fields) for the boxes :func:`find_box` steps into.
_CHILDREN_AT = {"stsd": 8, "avc1": 78, "dref": 8}


def find_box(data: bytes, path: str, start: int = 0, stop: int | None = None):
    """(payload start, payload stop) of the first box at ``path`` ("moov/trak/mdia/..."); KeyError
    if there is none.

    Examples
    --------
    >>> data = serialise(box("moov", box("trak", b"xy")))
    >>> find_box(data, "moov/trak")
    (16, 18)
    """
    head, _, rest = path.partition("/")
    for kind, begin, end in iter_boxes(data, start, stop):
        if kind == head:
            return (begin, end) if not rest else find_box(
                data, rest, begin + _CHILDREN_AT.get(kind, 0), end)
    raise KeyError(path)


def read_track(data: bytes) -> dict:
    """The first video track of an mp4 with one chunk of samples, as this muxer writes it:
    ``width``, ``height``, ``sps``, ``pps`` (from avcC), ``samples`` (one bytes per picture,
    4-byte length prefixed NAL units) and ``keyframes`` (0-based sample indices).

    A reader independent of FFmpeg, for checking the muxer's output with other decoders.
    """
    stbl = "moov/trak/mdia/minf/stbl/"
    entry, _ = find_box(data, stbl + "stsd/avc1")
    width, height = struct.unpack_from(">HH", data, entry + 24)
    avcc, _ = find_box(data, stbl + "stsd/avc1/avcC")
    sps_len, = struct.unpack_from(">H", data, avcc + 6)
    sps = data[avcc + 8:avcc + 8 + sps_len]
    pps_at = avcc + 8 + sps_len + 1
    pps_len, = struct.unpack_from(">H", data, pps_at)
    pps = data[pps_at + 2:pps_at + 2 + pps_len]
    at, _ = find_box(data, stbl + "stsz")
    _, count = struct.unpack_from(">II", data, at + 4)
    sizes = struct.unpack_from(f">{count}I", data, at + 12)
    at, _ = find_box(data, stbl + "stco")
    offset, = struct.unpack_from(">I", data, at + 8) if count else (0,)
    samples = []
    for size in sizes:
        samples.append(data[offset:offset + size])
        offset += size
    at, _ = find_box(data, stbl + "stss")
    keys, = struct.unpack_from(">I", data, at + 4)
    keyframes = [k - 1 for k in struct.unpack_from(f">{keys}I", data, at + 8)]
    return {"width": width, "height": height, "sps": sps, "pps": pps, "samples": samples,
            "keyframes": keyframes}


def sample_nals(sample: bytes) -> list[bytes]:
    """The NAL units of one sample (4-byte length prefixed)."""
    nals, at = [], 0
    while at < len(sample):
        size, = struct.unpack_from(">I", sample, at)
        nals.append(sample[at + 4:at + 4 + size])
        at += 4 + size
    return nals


def split_annexb(stream: bytes) -> list[bytes]:
    """The NAL units of an Annex B byte stream (start codes 00 00 01 or 00 00 00 01 removed;
    trailing zero bytes belong to the next start code).

    Examples
    --------
    >>> split_annexb(b"\\0\\0\\0\\1\\x67\\x42\\0\\0\\1\\x68\\xce")
    [b'gB', b'h\\xce']
    """
    units, i = [], stream.find(b"\0\0\1")
    while i >= 0:
        begin = i + 3
        i = stream.find(b"\0\0\1", begin)
        end = len(stream) if i < 0 else i
        units.append(stream[begin:end].rstrip(b"\0") if i >= 0 else stream[begin:end])
    return [u for u in units if u]
