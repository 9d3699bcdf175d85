"""An ISO base media file format (ISO/IEC 14496-12) layout check, written for the tests from
the standard's box definitions and independent of ``objsub_fast.ground_truth.h264.mp4``'s reader: every box
is walked, and the sizes, fixed layouts, sample counts, durations and matrices must agree.

:func:`check_layout` returns what the file says (duration, frames, size) or raises
AssertionError naming the box path and the rule it breaks.
"""
from __future__ import annotations

import struct

#: Boxes that hold only boxes (payload offset of the first child: 0).
CONTAINERS = {"moov", "trak", "mdia", "minf", "dinf", "stbl", "edts", "udta", "mvex"}
#: Boxes whose children follow a fixed header: bytes before the first child.
CHILDREN_AFTER = {"stsd": 8, "dref": 8, "meta": 4, "avc1": 78, "avc3": 78}
#: Boxes of a fixed size (header included) by (type, version); None: any version.
FIXED_SIZE = {("mvhd", 0): 108, ("mvhd", 1): 120, ("tkhd", 0): 92, ("tkhd", 1): 104,
              ("mdhd", 0): 32, ("mdhd", 1): 44, ("vmhd", None): 20, ("smhd", None): 16,
              ("pasp", None): 16, ("btrt", None): 20}
#: Full boxes that are a table: (bytes before the entry count after the version/flags word,
#: bytes per entry by version).
TABLES = {"stts": (0, {0: 8}), "ctts": (0, {0: 8, 1: 8}), "stss": (0, {0: 4}),
          "stsc": (0, {0: 12}), "stco": (0, {0: 4}), "co64": (0, {0: 8}),
          "elst": (0, {0: 12, 1: 20})}
#: The identity matrix of mvhd and tkhd: 16.16 for a, b, c, d, x, y; 2.30 for u, v, w.
IDENTITY = struct.pack(">9i", 0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000)
#: Boxes that must appear exactly once at their path in a one-track video file.
REQUIRED = ("ftyp", "moov", "mdat", "moov/mvhd", "moov/trak", "moov/trak/tkhd",
            "moov/trak/mdia", "moov/trak/mdia/mdhd", "moov/trak/mdia/hdlr",
            "moov/trak/mdia/minf", "moov/trak/mdia/minf/vmhd", "moov/trak/mdia/minf/dinf",
            "moov/trak/mdia/minf/stbl", "moov/trak/mdia/minf/stbl/stsd",
            "moov/trak/mdia/minf/stbl/stts", "moov/trak/mdia/minf/stbl/stsc",
            "moov/trak/mdia/minf/stbl/stsz")


def walk(data: bytes, start: int = 0, stop: int | None = None, parent: str = ""):
    """Yield (path, start, stop) of every box in ``data[start:stop]``, depth first; the boxes
    at each level must tile their parent's payload exactly (sizes add up)."""
    stop = len(data) if stop is None else stop
    at = start
    while at < stop:
        assert stop - at >= 8, f"{parent or 'file'}: {stop - at} stray bytes at {at}"
        size, kind = struct.unpack_from(">I4s", data, at)
        kind = kind.decode("latin-1")
        header = 8
        if size == 1:
            size, = struct.unpack_from(">Q", data, at + 8)
            header = 16
        elif size == 0:
            size = stop - at
        path = f"{parent}/{kind}" if parent else kind
        assert header <= size and at + size <= stop, \
            f"{path} at {at}: size {size} runs past its parent (ends at {stop})"
        yield path, at, at + size
        if kind in CONTAINERS or kind in CHILDREN_AFTER:
            first = at + header + CHILDREN_AFTER.get(kind, 0)
            assert first <= at + size, f"{path}: {size} bytes is shorter than its header"
            yield from walk(data, first, at + size, path)
        at += size
    assert at == stop, f"{parent or 'file'}: boxes end at {at}, not at {stop}"


def _full(data, begin):
    """(version, flags) of the full box whose header starts at ``begin``."""
    word, = struct.unpack_from(">I", data, begin + 8)
    return word >> 24, word & 0xFFFFFF


def _check_sizes(data, boxes) -> None:
    """Fixed-size boxes have their size; tables have 16 + entries bytes; stsz and the entry
    counts of stsd and dref agree with their contents."""
    for path, begin, end in boxes:
        kind = path.rsplit("/", 1)[-1]
        size = end - begin
        if kind in {k for k, _ in FIXED_SIZE}:
            version, _ = _full(data, begin)
            want = FIXED_SIZE.get((kind, version), FIXED_SIZE.get((kind, None)))
            assert want is not None, f"{path}: unknown version {version}"
            assert size == want, f"{path} (version {version}) is {size} bytes, not {want}"
        if kind in TABLES:
            version, _ = _full(data, begin)
            skip, entry = TABLES[kind]
            count, = struct.unpack_from(">I", data, begin + 12 + skip)
            assert version in entry, f"{path}: unknown version {version}"
            assert size == 16 + skip + count * entry[version], \
                f"{path}: {size} bytes for {count} entries of {entry[version]}"
        if kind == "stsz":
            sample_size, count = struct.unpack_from(">II", data, begin + 12)
            assert size == 20 + (4 * count if sample_size == 0 else 0), \
                f"stsz: {size} bytes for {count} samples"
        if kind in ("stsd", "dref"):
            count, = struct.unpack_from(">I", data, begin + 12)
            children = [p for p, _, _ in boxes if p.rsplit("/", 1)[0] == path]
            assert count == len(children), f"{path}: entry count {count}, {len(children)} boxes"
        if kind == "colr" and data[begin + 8:begin + 12] == b"nclx":
            assert size == 19, f"{path}: an nclx colr box is 19 bytes, not {size}"


def _table(data, box, fmt):
    begin, _ = box
    count, = struct.unpack_from(">I", data, begin + 12)
    step = struct.calcsize(fmt)
    return [struct.unpack_from(fmt, data, begin + 16 + k * step) for k in range(count)]


def _versioned(data, box, v0: str, v1: str):
    """The fields after version/flags of a box laid out as ``v0`` or ``v1`` by version."""
    begin, _ = box
    version, _ = _full(data, begin)
    return struct.unpack_from(">" + (v1 if version else v0), data, begin + 12)


def check_layout(data: bytes) -> dict:
    """Walk every box of a one-video-track ISO BMFF file and check its layout (module
    docstring); returns ``duration`` (seconds, the movie's), ``frames``, ``width``, ``height``,
    ``fps`` (samples over their decoding span) and ``boxes`` (every box path, in order)."""
    boxes = list(walk(data))
    paths = [p for p, _, _ in boxes]
    for path in REQUIRED:
        assert paths.count(path) == 1, f"{path}: {paths.count(path)} boxes, expected one"
    assert paths[0] == "ftyp", f"the file starts with {paths[0]}, not ftyp"
    _check_sizes(data, boxes)
    at = {p: (b, e) for p, b, e in boxes}
    stbl = "moov/trak/mdia/minf/stbl/"

    # movie and track headers: identity matrices, durations in the movie timescale
    _, _, movie_scale, movie_duration = _versioned(data, at["moov/mvhd"], "IIII", "QQIQ")
    begin, _ = at["moov/mvhd"]
    version, _ = _full(data, begin)
    matrix_at = begin + 12 + (28 if version else 16) + 4 + 2 + 10
    assert data[matrix_at:matrix_at + 36] == IDENTITY, "mvhd: the matrix is not the identity"
    begin, end = at["moov/trak/tkhd"]
    version, flags = _full(data, begin)
    assert flags & 1, "tkhd: the track is not enabled"
    fields = struct.unpack_from(">QQIIQ" if version else ">IIIII", data, begin + 12)
    track_duration = fields[4]
    matrix_at = end - 8 - 36
    assert data[matrix_at:matrix_at + 36] == IDENTITY, "tkhd: the matrix is not the identity"
    width16, height16 = struct.unpack_from(">II", data, end - 8)
    assert movie_scale > 0, "mvhd: timescale 0"
    assert track_duration == movie_duration, \
        f"tkhd duration {track_duration} != mvhd duration {movie_duration}"
    if "moov/trak/edts/elst" in at:
        edits = _table(data, at["moov/trak/edts/elst"],
                       ">QqHH" if _full(data, at["moov/trak/edts/elst"][0])[0] else ">IiHH")
        assert sum(e[0] for e in edits) == track_duration, \
            f"elst segments last {sum(e[0] for e in edits)}, tkhd says {track_duration}"

    # media: the samples' durations add up to mdhd's (plus at most the largest composition
    # offset when pictures are reordered, as FFmpeg counts), which is the movie's duration
    # when there is no edit list
    _, _, media_scale, media_duration = _versioned(data, at["moov/trak/mdia/mdhd"], "IIII",
                                                   "QQIQ")
    assert media_scale > 0, "mdhd: timescale 0"
    stts = _table(data, at[stbl + "stts"], ">II")
    decode_span = sum(n * d for n, d in stts)
    reorder = max((c for _, c in _table(data, at[stbl + "ctts"], ">Ii")), default=0) \
        if stbl + "ctts" in at else 0
    assert decode_span <= media_duration <= decode_span + max(reorder, 0), \
        f"stts adds up to {decode_span}, mdhd says {media_duration}"
    if "moov/trak/edts/elst" not in at:   # with edits, tkhd's duration is elst's (above)
        assert abs(media_duration * movie_scale - movie_duration * media_scale) \
            <= max(movie_scale, media_scale), \
            f"media lasts {media_duration}/{media_scale} s, the movie " \
            f"{movie_duration}/{movie_scale} s"

    # samples: one count in stts, stsz, stsc+stco, ctts; all of them inside mdat
    frames = sum(n for n, _ in stts)
    begin, _ = at[stbl + "stsz"]
    sample_size, count = struct.unpack_from(">II", data, begin + 12)
    sizes = ([sample_size] * count if sample_size else
             list(struct.unpack_from(f">{count}I", data, begin + 20)))
    assert count == frames, f"stsz has {count} samples, stts {frames}"
    if stbl + "ctts" in at:
        ctts = _table(data, at[stbl + "ctts"], ">Ii")
        assert sum(n for n, _ in ctts) == frames, "ctts does not cover every sample"
    offsets_box = stbl + ("stco" if stbl + "stco" in at else "co64")
    offsets = [o for (o,) in _table(data, at[offsets_box],
                                    ">I" if offsets_box.endswith("stco") else ">Q")]
    runs = _table(data, at[stbl + "stsc"], ">III")
    per_chunk = []
    for k, (first, samples, _) in enumerate(runs):
        last = runs[k + 1][0] if k + 1 < len(runs) else len(offsets) + 1
        per_chunk += [samples] * (last - first)
    assert len(per_chunk) == len(offsets) and sum(per_chunk) == frames, \
        f"stsc gives {sum(per_chunk)} samples in {len(per_chunk)} chunks, " \
        f"{len(offsets)} chunk offsets, {frames} samples"
    mdat = [(b, e) for p, b, e in boxes if p == "mdat"][0]
    sample = 0
    for offset, n in zip(offsets, per_chunk):
        length = sum(sizes[sample:sample + n])
        assert mdat[0] + 8 <= offset and offset + length <= mdat[1], \
            f"chunk at {offset} ({length} bytes) is not inside mdat {mdat}"
        sample += n
    if stbl + "stss" in at:
        keys = [k for (k,) in _table(data, at[stbl + "stss"], ">I")]
        assert keys and keys[0] == 1 and all(1 <= k <= frames for k in keys), \
            f"stss: sync samples {keys[:5]} of {frames}"

    # the picture size of the sample entry, and the track's in 16.16
    entry = [(p, b) for p, b, _ in boxes if p.startswith(stbl + "stsd/")
             and p.count("/") == stbl.count("/") + 1]
    assert len(entry) == 1, f"stsd holds {len(entry)} sample entries"
    width, height = struct.unpack_from(">HH", data, entry[0][1] + 8 + 24)
    assert (width16, height16) == (width << 16, height << 16), \
        f"tkhd says {width16 / 65536}x{height16 / 65536}, the sample entry {width}x{height}"
    return {"duration": movie_duration / movie_scale, "frames": frames, "width": width,
            "height": height, "fps": frames * media_scale / decode_span if decode_span else 0.0, "boxes": paths}
