"""Every kind of video file this project writes has a sound ISO BMFF layout (``tests/bmff.py``:
every box walked, sizes add up, fixed-size boxes have their size, sample counts and durations
agree, identity matrices), and readers nobody here wrote agree on its duration, frame count and
rotation: MediaInfo (``mediainfo --Output=JSON``; CI installs it, elsewhere that part skips
saying so) and FFmpeg through PyAV (no display matrix on the frames)."""
from __future__ import annotations

import io
import json
import shutil
import struct
import subprocess

import numpy as np
import pytest

from objsub_fast import generate_batch
from objsub_fast.ground_truth.h264.mp4 import find_box, read_track
from objsub_fast.ground_truth.video import (VideoSpec, encode_transitions, write_transition,
                                            write_video)

from bmff import check_layout, walk

av = pytest.importorskip("av")

MEDIAINFO = shutil.which("mediainfo")
needs_mediainfo = pytest.mark.skipif(
    MEDIAINFO is None, reason="MediaInfo is not installed (Debian: apt-get install mediainfo); "
                              "CI has it")


@pytest.fixture(scope="module")
def batch():
    return generate_batch([3, 4], level=["L1", "L3"])


@pytest.fixture(scope="module")
def small():
    """A canvas that is not whole macroblocks (the SPS crops)."""
    return generate_batch([5], canvas_size=(200, 120))


def _objsub(batch, frames, fps, **spec):
    return encode_transitions(batch, VideoSpec(num_frames=frames, fps=fps, **spec), tasks=[0])[0]


#: name -> (make(batch, small, tmp_path) -> mp4 bytes, frames, fps): every kind of ISO BMFF file
#: the project writes. Datasets store ``encode_transitions``' bytes (test_dataset_videos.py).
VIDEOS = {
    "objsub, the dataset's default": (lambda b, s, t: encode_transitions(b, tasks=[0])[0], 61, 16),
    "objsub, cropped canvas, 1 fps": (lambda b, s, t: _objsub(s, 3, 1), 3, 1),
    "objsub, 120 fps, slide": (lambda b, s, t: _objsub(b, 12, 120, style="slide"), 12, 120),
    "objsub, two frames": (lambda b, s, t: _objsub(s, 2, 16), 2, 16),
    "x264 ground truth": (lambda b, s, t: encode_transitions(
        b, VideoSpec(num_frames=12, encoder="x264"), tasks=[1])[0], 12, 16),
    "write_transition default": (lambda b, s, t: open(write_transition(
        b, 1, t / "gt.mp4"), "rb").read(), 61, 16),
    "write_transition x264": (lambda b, s, t: open(write_transition(
        b, 1, t / "gt.m4v", num_frames=9, encoder="x264"), "rb").read(), 9, 16),
    "write_video mp4 (model-like)": (lambda b, s, t: open(write_video(
        t / "m.mp4", np.zeros((5, 64, 96, 3), np.uint8), fps=8), "rb").read(), 5, 8),
    "write_video mov": (lambda b, s, t: open(write_video(
        t / "m.mov", np.zeros((4, 64, 96, 3), np.uint8), fps=25), "rb").read(), 4, 25),
}


@pytest.fixture(scope="module")
def files(batch, small, tmp_path_factory):
    """name -> (path, bytes) of every kind of video, written once."""
    out = {}
    for k, (name, (make, _, _)) in enumerate(VIDEOS.items()):
        folder = tmp_path_factory.mktemp(f"video{k}")
        data = make(batch, small, folder)
        path = folder / "file.mp4"
        path.write_bytes(data)
        out[name] = path, data
    return out


each_video = pytest.mark.parametrize("name", VIDEOS)


@each_video
def test_every_box_has_its_layout_and_the_durations_agree(files, name):
    _, data = files[name]
    _, frames, fps = VIDEOS[name]
    layout = check_layout(data)
    assert layout["frames"] == frames
    assert layout["fps"] == pytest.approx(fps)
    assert layout["duration"] == pytest.approx(frames / fps, abs=1e-3)
    if name.startswith("objsub") or name == "write_transition default":
        assert layout["duration"] == frames / fps      # one tick per picture, exactly


def test_the_objsub_tkhd_is_92_bytes_with_the_movies_duration(files):
    _, data = files["objsub, the dataset's default"]
    begin, end = find_box(data, "moov/trak/tkhd")
    assert end - begin + 8 == 92
    _, _, track_id, reserved, duration = struct.unpack_from(">IIIII", data, begin + 4)
    assert (track_id, reserved, duration) == (1, 0, 61)
    mvhd, _ = find_box(data, "moov/mvhd")
    assert struct.unpack_from(">II", data, mvhd + 12) == (16, 61)   # timescale, duration
    assert struct.unpack_from(">II", data, end - 8) == (256 << 16, 256 << 16)


@pytest.mark.parametrize("damage, message", [
    (lambda d: d.replace(b"\x00\x00\x00\x5ctkhd", b"\x00\x00\x00\x60tkhd"), "tkhd|past"),
    (lambda d: _tkhd_duration(d, 60), "tkhd duration 60"),
    (lambda d: _matrix_corner(d, 0), "matrix"),
])
def test_the_walk_catches_a_damaged_header(files, damage, message):
    """The checks can fail: a box size off by 4, a track shorter than the movie, a matrix that
    is not the identity (what 0.6.0's 96-byte tkhd looked like to readers)."""
    _, data = files["objsub, the dataset's default"]
    with pytest.raises(AssertionError, match=message):
        check_layout(damage(data))


def _tkhd_duration(data: bytes, value: int) -> bytes:
    begin, _ = find_box(data, "moov/trak/tkhd")
    return data[:begin + 20] + struct.pack(">I", value) + data[begin + 24:]


def _matrix_corner(data: bytes, value: int) -> bytes:
    _, end = find_box(data, "moov/trak/tkhd")
    at = end - 8 - 4
    return data[:at] + struct.pack(">i", value) + data[at + 4:]


def test_the_walk_reaches_every_box_of_the_objsub_file(files):
    _, data = files["objsub, the dataset's default"]
    paths = [p for p, _, _ in walk(data)]
    stbl = "moov/trak/mdia/minf/stbl/"
    assert paths == ["ftyp", "moov", "moov/mvhd", "moov/trak", "moov/trak/tkhd",
                     "moov/trak/mdia", "moov/trak/mdia/mdhd", "moov/trak/mdia/hdlr",
                     "moov/trak/mdia/minf", "moov/trak/mdia/minf/vmhd",
                     "moov/trak/mdia/minf/dinf", "moov/trak/mdia/minf/dinf/dref",
                     "moov/trak/mdia/minf/dinf/dref/url ", stbl[:-1], stbl + "stsd",
                     stbl + "stsd/avc1", stbl + "stsd/avc1/avcC", stbl + "stsd/avc1/colr",
                     stbl + "stsd/avc1/pasp", stbl + "stts", stbl + "stss", stbl + "stsz",
                     stbl + "stsc", stbl + "stco", "mdat"]


@each_video
def test_ffmpeg_sees_no_rotation_and_the_right_duration(files, name):
    """What ffprobe would say (PyAV): the frames carry no display matrix, the stream and the
    container last frames / fps, every frame decodes."""
    path, _ = files[name]
    _, frames, fps = VIDEOS[name]
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        assert float(stream.duration * stream.time_base) == pytest.approx(frames / fps, abs=1e-3)
        assert container.duration / 1e6 == pytest.approx(frames / fps, abs=1e-3)
        decoded = list(container.decode(video=0))
    assert len(decoded) == frames
    for frame in decoded:
        kinds = {str(getattr(s, "type", s)).upper() for s in frame.side_data}
        assert not any("DISPLAY" in k for k in kinds), kinds


def mediainfo(path) -> dict:
    """MediaInfo's General and Video tracks of a file."""
    out = subprocess.run([MEDIAINFO, "--Output=JSON", str(path)], capture_output=True,
                         text=True, timeout=60, check=True).stdout
    tracks = json.loads(out)["media"]["track"]
    return {t["@type"]: t for t in tracks}


@needs_mediainfo
@each_video
def test_mediainfo_agrees_on_duration_frames_rotation_and_size(files, name):
    path, data = files[name]
    _, frames, fps = VIDEOS[name]
    info = mediainfo(path)
    video = info["Video"]
    assert float(info["General"]["Duration"]) == pytest.approx(frames / fps, abs=2e-3)
    assert float(video["Duration"]) == pytest.approx(frames / fps, abs=2e-3)
    assert int(video["FrameCount"]) == frames
    assert float(video.get("Rotation", 0)) == 0
    layout = check_layout(data)
    assert (int(video["Width"]), int(video["Height"])) == (layout["width"], layout["height"])
    assert float(video["FrameRate"]) == pytest.approx(fps)
    if "objsub" in name or name == "write_transition default":
        level = read_track(data)["sps"][3]
        assert video["Format_Level"] == f"{level // 10}" + (f".{level % 10}" if level % 10
                                                            else "")
