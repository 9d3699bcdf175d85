"""The level an SPS signals is the lowest that H.264's Table A-1 allows for the video's real
picture size and frame rate (A.3.1: macroblocks per picture, per side and per second, and the
decoded picture buffer), from 1 to 120 fps and 128 to 4096 px; where no level allows a stream
the encoder says so before encoding anything."""
from __future__ import annotations

import io
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from objsub_fast.ground_truth.h264.encoder import H264Encoder
from objsub_fast.ground_truth.h264.mp4 import read_track
from objsub_fast.ground_truth.h264.params import LEVELS, Layout, level_for
from objsub_fast.ground_truth.video import ObjsubEncoder
from objsub_fast.runtime.errors import ParameterError

#: Table A-1 as the standard prints it (level number, MaxMBPS, MaxFS, MaxDpbMbs), typed in
#: again here so that a slip in ``params.LEVELS`` shows up.
TABLE_A1 = {"1": (1485, 99, 396), "1.1": (3000, 396, 900), "1.2": (6000, 396, 2376),
            "1.3": (11880, 396, 2376), "2": (11880, 396, 2376), "2.1": (19800, 792, 4752),
            "2.2": (20250, 1620, 8100), "3": (40500, 1620, 8100), "3.1": (108000, 3600, 18000),
            "3.2": (216000, 5120, 20480), "4": (245760, 8192, 32768),
            "4.1": (245760, 8192, 32768), "4.2": (522240, 8704, 34816),
            "5": (589824, 22080, 110400), "5.1": (983040, 36864, 184320),
            "5.2": (2073600, 36864, 184320), "6": (4177920, 139264, 696320),
            "6.1": (8355840, 139264, 696320), "6.2": (16711680, 139264, 696320)}

FPS = (1, 16, 60, 120)
SIDES = (128, 256, 384, 512, 720, 1024, 1080, 1536, 2048, 3072, 4096)


def idc(number: str) -> int:
    return round(float(number) * 10)


def fits(number: str, width: int, height: int, fps: int) -> bool:
    """A.3.1 for one reference picture, in the standard's own terms."""
    max_mbps, max_fs, max_dpb_mbs = TABLE_A1[number]
    w, h = math.ceil(width / 16), math.ceil(height / 16)
    return (w * h <= max_fs and w <= math.sqrt(8 * max_fs) and h <= math.sqrt(8 * max_fs)
            and w * h * fps <= max_mbps and max_dpb_mbs // (w * h) >= 1)


def test_the_table_is_table_a1():
    assert [(lv, *limits) for lv, *limits in LEVELS] == \
        [(idc(n), *limits) for n, limits in TABLE_A1.items()]


@pytest.mark.parametrize("fps", FPS)
@pytest.mark.parametrize("width", SIDES)
def test_the_lowest_level_that_allows_the_stream(width, fps):
    for height in (width, max(128, width // 2), 128):
        level = level_for(width, height, fps)
        allowed = [n for n in TABLE_A1 if fits(n, width, height, fps)]
        assert level == idc(allowed[0]), (width, height, fps)
        below = [n for n in TABLE_A1 if idc(n) < level]
        assert not any(fits(n, width, height, fps) for n in below)


@pytest.mark.parametrize("width, height, fps, level", [
    (256, 256, 16, 12),     # params.py's promise: 1.2 (0.6.0 wrote 1.3, worked out at 30 fps)
    (256, 256, 120, 30),    # 30,720 macroblocks/s (0.6.0 wrote 1.3: 11,880)
    (1024, 1024, 60, 40),   # 245,760 macroblocks/s (0.6.0 wrote 3.2)
    (1024, 1024, 16, 32),   # 4,096 macroblocks a picture
    (128, 128, 1, 10),
    (4096, 4096, 16, 60),   # 65,536 macroblocks a picture: past level 5.2's 36,864
    (4096, 4096, 120, 61),
    (3840, 2160, 30, 51),
])
def test_levels_of_the_issue_and_the_edges(width, height, fps, level):
    assert Layout.of(width, height, fps).level_idc == level


@settings(max_examples=60, deadline=None)
@given(width=st.integers(1, 500).map(lambda k: 2 * k), height=st.integers(1, 500).map(
    lambda k: 2 * k), fps=st.integers(1, 240))
def test_any_size_and_rate_gets_the_lowest_level_that_fits(width, height, fps):
    level = level_for(width, height, fps)
    allowed = [n for n in TABLE_A1 if fits(n, width, height, fps)]
    assert level == idc(allowed[0])


@pytest.mark.parametrize("width, height, fps, says", [
    (8192, 8192, 16, "262,144 here"),           # per picture
    (4096, 4096, 256, "16,777,216 here"),       # per second
    (16896, 16, 1, "1056 here"),                # per side
])
def test_no_level_is_a_clear_error_before_any_work(width, height, fps, says):
    with pytest.raises(ParameterError, match=f"no H.264 level allows {width}x{height} "
                                             f"pictures at {fps} fps.*{says}"):
        H264Encoder(width, height, fps=fps)


@pytest.mark.parametrize("fps", [0, -1, 2.5, True, None])
def test_a_bad_frame_rate_is_named(fps):
    with pytest.raises(ParameterError, match="fps must be an integer >= 1"):
        H264Encoder(32, 32, fps=fps)


@pytest.mark.parametrize("fps, level", [(1, 11), (16, 12), (60, 21), (120, 30)])
def test_the_video_signals_the_level_of_its_frame_rate(fps, level):
    """ObjsubEncoder hands its frame rate to the encoder: the SPS, the avcC and FFmpeg say
    the same level (0.6.0 always worked it out for 30 fps)."""
    av = pytest.importorskip("av")
    enc = ObjsubEncoder(256, 256, fps=fps)
    for _ in range(2):
        enc.add(np.full((256, 256, 3), 255, np.uint8), changed=[])
    mp4 = enc.finish()
    track = read_track(mp4)
    assert track["sps"][3] == level
    assert mp4[mp4.index(b"avcC") + 7] == level                # AVCLevelIndication
    with av.open(io.BytesIO(mp4)) as container:
        assert container.streams.video[0].codec_context.level == level


#: Table A-1's MaxBR and MaxCPB (Baseline: 1000 bits units) of the levels these videos signal.
RATE_LIMITS = {10: (64, 175), 11: (192, 500), 12: (384, 1000), 13: (768, 2000),
               30: (10000, 10000)}


def cpb_underflows(sizes, fps, max_br, max_cpb) -> int:
    """Pictures that a decoder fed at MaxBR with a full MaxCPB buffer at the start would
    take before all their bits arrived (a VBR hypothetical reference decoder: bits stop
    arriving while the buffer is full)."""
    rate, capacity = 1000 * max_br, 1000 * max_cpb
    buffered, late = capacity, 0     # the first picture is taken once the buffer is full
    for k, size in enumerate(8 * s for s in sizes):
        if k:
            buffered = min(capacity, buffered + rate / fps)
        if size > buffered:
            late += 1
        buffered = max(0.0, buffered - size)
    return late


@pytest.mark.parametrize("size, fps, frames, style", [(256, 16, 61, "fade"),
                                                      (128, 1, 4, "slide"),
                                                      (256, 120, 61, "shrink")])
def test_the_datasets_videos_keep_the_levels_bit_rate_and_buffer(size, fps, frames, style):
    """The level is chosen from sizes and rates; the bit rate and buffer of Table A-1 hold
    too, for the densest tasks of every level (L1..L4) at the dataset's quantisers."""
    from objsub_fast import generate_batch
    from objsub_fast.ground_truth.video import VideoSpec, encode_transitions

    batch = generate_batch(range(4), level=["L1", "L2", "L3", "L4"], canvas_size=size)
    for mp4 in encode_transitions(batch, VideoSpec(style, fps, frames)):
        track = read_track(mp4)
        level = track["sps"][3]
        max_br, max_cpb = RATE_LIMITS[level]
        sizes = [len(s) for s in track["samples"]]
        assert cpb_underflows(sizes, fps, max_br, max_cpb) == 0, (level, max(sizes))
        assert 8 * sum(sizes) * fps / len(sizes) <= 1000 * max_br


def test_the_buffer_model_catches_a_stream_too_big_for_its_level():
    assert cpb_underflows([400] * 160, 16, 64, 175) == 0           # 51 kbit/s: under 1.0's
    assert cpb_underflows([25000] + [100] * 15, 16, 64, 175) == 1  # a 200 kbit picture
    assert cpb_underflows([1000] * 160, 16, 64, 175) > 0           # 128 kbit/s for 10 s
