"""The own MP4 muxer (``objsub_fast.ground_truth.h264.mp4``), checked against libx264's streams: PyAV decodes
our mp4 to exactly the pictures of the raw Annex B stream it was made from, reports its frame
count, rate, duration and colour tags, and the box tree says what the samples are."""
from __future__ import annotations

import io
import struct

import numpy as np
import pytest

from objsub_fast.ground_truth.h264.mp4 import (COLOUR, Mp4Muxer, find_box, mux_mp4, read_track,
                                               sample_nals, split_annexb, top_level_boxes)

av = pytest.importorskip("av")

W, H, FPS, FRAMES = 96, 64, 16, 12


def moving_square(frames=FRAMES, w=W, h=H):
    """White frames with a red square sliding right and a noisy corner (real residual)."""
    rng = np.random.default_rng(5)
    out = np.full((frames, h, w, 3), 255, np.uint8)
    for i in range(frames):
        out[i, 10:30, 5 + 4 * i:25 + 4 * i] = (200, 30, 30)
        out[i, -16:, -16:] = rng.integers(0, 256, (16, 16, 3))
    return out


def x264_annexb(frames, params: str) -> bytes:
    """libx264's raw H.264 (Annex B) stream of RGB frames, no B-frames."""
    buf = io.BytesIO()
    with av.open(buf, "w", format="h264") as out:
        stream = out.add_stream("libx264", rate=FPS, options={
            "preset": "ultrafast", "x264-params": "bframes=0:" + params})
        stream.width, stream.height, stream.pix_fmt = frames.shape[2], frames.shape[1], "yuv420p"
        stream.codec_context.thread_count = 1
        for frame in frames:
            for packet in stream.encode(av.VideoFrame.from_ndarray(frame, format="rgb24")):
                out.mux(packet)
        for packet in stream.encode(None):
            out.mux(packet)
    return buf.getvalue()


def pictures(nals):
    """Group NAL units into pictures (x264 writes one slice per picture): everything up to and
    including a slice; (units, is IDR) per picture."""
    out, pending = [], []
    for nal in nals:
        pending.append(nal)
        if nal[0] & 0x1F in (1, 5):
            out.append((pending, nal[0] & 0x1F == 5))
            pending = []
    return out


def decoded(data: bytes, fmt=None):
    with av.open(io.BytesIO(data), format=fmt) as container:
        return [f.to_ndarray(format="yuv420p") for f in container.decode(video=0)]


def remux(raw: bytes, w=W, h=H, **kwargs):
    nals = split_annexb(raw)
    sps = next(n for n in nals if n[0] & 0x1F == 7)
    pps = next(n for n in nals if n[0] & 0x1F == 8)
    pics = pictures(nals)
    return mux_mp4(w, h, FPS, sps, pps, pics, **kwargs), pics


def table(data: bytes, path: str, fmt: str):
    """Rows of a full-box sample table (entry count after version/flags)."""
    begin, end = find_box(data, "moov/trak/mdia/minf/stbl/" + path)
    count, = struct.unpack_from(">I", data, begin + 4)
    size = struct.calcsize(fmt)
    return [struct.unpack_from(fmt, data, begin + 8 + k * size) for k in range(count)]


@pytest.fixture(scope="module", params=["high", "baseline"])
def x264(request):
    params = "keyint=5:min-keyint=5:scenecut=0"
    if request.param == "baseline":
        params += ":cabac=0:8x8dct=0:weightp=0"
    raw = x264_annexb(moving_square(), params)
    return raw, *remux(raw)


def test_decodes_to_the_raw_streams_pictures(x264):
    raw, mp4, _ = x264
    ours, reference = decoded(mp4), decoded(raw, "h264")
    assert len(ours) == len(reference) == FRAMES
    assert all(np.array_equal(a, b) for a, b in zip(ours, reference))


def test_probe_says_frames_rate_duration_and_colour(x264):
    _, mp4, _ = x264
    with av.open(io.BytesIO(mp4)) as container:
        stream = container.streams.video[0]
        ctx = stream.codec_context
        assert (stream.frames, stream.average_rate, stream.duration * stream.time_base) == \
            (FRAMES, FPS, FRAMES / FPS)
        assert (ctx.width, ctx.height) == (W, H)
        assert container.duration == FRAMES / FPS * 1_000_000
        assert (ctx.color_primaries, ctx.color_trc, ctx.colorspace) == (6, 6, 6)
        assert ctx.color_range == 1  # MPEG (limited)


def test_colour_box_carries_other_codes():
    raw = x264_annexb(moving_square(3), "")
    mp4, _ = remux(raw, colour={"primaries": 1, "transfer": 1, "matrix": 1, "full_range": 1})
    with av.open(io.BytesIO(mp4)) as container:
        ctx = container.streams.video[0].codec_context
        assert (ctx.color_primaries, ctx.color_trc, ctx.colorspace, ctx.color_range) == \
            (1, 1, 1, 2)


def test_box_tree_moov_first_offsets_and_keyframes(x264):
    _, mp4, pics = x264
    assert top_level_boxes(mp4) == ["ftyp", "moov", "mdat"]
    begin, _ = find_box(mp4, "moov/trak/mdia/minf/stbl/stsz")
    _, count = struct.unpack_from(">II", mp4, begin + 4)
    sizes = struct.unpack_from(f">{count}I", mp4, begin + 12)
    (offset,), = table(mp4, "stco", ">I")
    assert table(mp4, "stsc", ">III") == [(1, FRAMES, 1)]
    assert table(mp4, "stts", ">II") == [(FRAMES, 1)]
    mdat_begin, mdat_end = find_box(mp4, "mdat")
    assert offset == mdat_begin and offset + sum(sizes) == mdat_end == len(mp4)
    for (nals, _), size in zip(pics, sizes):
        sample = mp4[offset:offset + size]
        want = b"".join(struct.pack(">I", len(n)) + n for n in nals if n[0] & 0x1F not in (7, 8))
        assert sample == want
        offset += size
    assert [k for (k,) in table(mp4, "stss", ">I")] == [i + 1 for i, (_, key) in
                                                       enumerate(pics) if key] == [1, 6, 11]


def test_read_track_gives_back_what_was_muxed(x264):
    raw, mp4, pics = x264
    track = read_track(mp4)
    nals = split_annexb(raw)
    assert (track["width"], track["height"]) == (W, H)
    assert track["sps"] == next(n for n in nals if n[0] & 0x1F == 7)
    assert track["pps"] == next(n for n in nals if n[0] & 0x1F == 8)
    assert [sample_nals(s) for s in track["samples"]] == [
        [n for n in units if n[0] & 0x1F not in (7, 8)] for units, _ in pics]
    assert track["keyframes"] == [i for i, (_, key) in enumerate(pics) if key]


def test_avcc_and_colr_fields(x264):
    raw, mp4, _ = x264
    sps = next(n for n in split_annexb(raw) if n[0] & 0x1F == 7)
    begin, end = find_box(mp4, "moov/trak/mdia/minf/stbl/stsd/avc1/avcC")
    assert mp4[begin:begin + 6] == bytes([1, sps[1], sps[2], sps[3], 0xFF, 0xE1])
    assert mp4[begin + 6:begin + 8] == struct.pack(">H", len(sps))
    assert mp4[begin + 8:begin + 8 + len(sps)] == sps
    assert (end - begin - 8 - len(sps) - 3 == len(next(
        n for n in split_annexb(raw) if n[0] & 0x1F == 8)) + (4 if sps[1] == 100 else 0))
    begin, end = find_box(mp4, "moov/trak/mdia/minf/stbl/stsd/avc1/colr")
    assert mp4[begin:end] == b"nclx" + struct.pack(">HHHB", 6, 6, 6, 0)
    assert COLOUR == {"primaries": 6, "transfer": 6, "matrix": 6, "full_range": 0}


def test_no_clock_fields_and_same_bytes_every_time(x264):
    raw, mp4, _ = x264
    for path, skip in (("moov/mvhd", 4), ("moov/trak/tkhd", 4), ("moov/trak/mdia/mdhd", 4)):
        begin, _ = find_box(mp4, path)
        assert mp4[begin + skip:begin + skip + 8] == bytes(8), path  # creation, modification
    assert remux(raw)[0] == mp4


def test_a_video_of_one_picture():
    raw = x264_annexb(moving_square(1), "")
    mp4, _ = remux(raw)
    assert len(decoded(mp4)) == 1 and top_level_boxes(mp4) == ["ftyp", "moov", "mdat"]


@pytest.mark.parametrize("args, message", [
    (dict(width=0), "width, height and fps"),
    (dict(fps=0), "width, height and fps"),
    (dict(sps=b"\x68\x00"), "SPS"),
    (dict(pps=b"\x67\x00"), "PPS"),
])
def test_bad_arguments_are_named(args, message):
    given = dict(width=16, height=16, fps=16, sps=b"\x67\x42\xc0\x1e", pps=b"\x68\xce")
    with pytest.raises(ValueError, match=message):
        Mp4Muxer(**{**given, **args})


def test_a_picture_of_parameter_sets_only_is_refused():
    mux = Mp4Muxer(16, 16, 16, b"\x67\x42\xc0\x1e", b"\x68\xce")
    with pytest.raises(ValueError, match="at least one NAL unit"):
        mux.add([b"\x67\x42\xc0\x1e"], keyframe=True)
