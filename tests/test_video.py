"""Ground-truth videos (objsub_fast.ground_truth.video): bytes, determinism, decoding, and the scorer."""
import hashlib
import os
import platform
import re
import struct
import subprocess
import sys

import av
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from objsub_fast import generate_batch
from objsub_fast.runtime.errors import ParameterError
from objsub_fast.ground_truth.transitions import (STYLE_NAMES, task_arrays, task_frames,
                                                  transition_updates)
from objsub_fast.ground_truth.video import (ENCODER, ENCODERS, MAX_MEAN_ERROR, MIN_PSNR,
                                            MP4_ENCODERS, VideoSpec, decode_errors, decode_video,
                                            encode_transitions, encode_video, encoder_build,
                                            rgb_to_yuv420, rgb_to_yuv420_rect, YuvPicture)

FRAMES = 24  # short videos keep the tests quick; the default 61 is benchmarked


@pytest.fixture(scope="module")
def batch():
    return generate_batch(np.arange(6), level=["L1", "L2", "L3"] * 2)


@pytest.fixture(scope="module")
def encoded(batch):
    """encoder -> style -> the batch's videos (encoded once per module)."""
    cache = {}

    def get(encoder):
        if encoder not in cache:
            cache[encoder] = {
                style: encode_transitions(batch, VideoSpec(style, num_frames=FRAMES,
                                                           encoder=encoder))
                for style in STYLE_NAMES}
        return cache[encoder]
    return get


@pytest.fixture(scope="module")
def videos(encoded):
    """The x264 videos (the tests of x264's own behaviour)."""
    return encoded("x264")


each_encoder = pytest.mark.parametrize("encoder", ENCODERS)


def decode(mp4: bytes) -> np.ndarray:
    return np.stack(list(decode_video(mp4)))


def digest(videos) -> str:
    return hashlib.sha256(b"".join(videos)).hexdigest()


# --------------------------------------------------------------------------- pixels in

@pytest.mark.parametrize("style", STYLE_NAMES)
def test_frames_streamed_into_one_buffer_equal_the_stacked_transition(batch, style):
    buffer = np.empty_like(batch.first_frames[0])
    for i in range(len(batch)):
        a = task_arrays(batch, i)
        stacked = task_frames(batch.first_frames[i], style=style, num_frames=FRAMES, **a)
        streamed = transition_updates(batch.first_frames[i], style=style, num_frames=FRAMES,
                                      final=batch.final_frames[i], out=buffer, **a)
        for f, (frame, changed) in enumerate(streamed):
            assert frame is buffer and np.array_equal(frame, stacked[f]), (i, f)
            assert (changed is None) == (f == 0)
            if f:  # outside the changed rectangles, the frame is the previous one
                same = np.ones(frame.shape[:2], bool)
                for y0, y1, x0, x1 in changed:
                    same[y0:y1, x0:x1] = False
                assert np.array_equal(frame[same], stacked[f - 1][same]), (style, i, f)


@settings(max_examples=40, deadline=None)
@given(arrays(np.uint8, st.tuples(st.integers(1, 6).map(lambda n: 2 * n),
                                  st.integers(1, 6).map(lambda n: 2 * n), st.just(3))))
def test_rgb_to_yuv420_is_bt601_limited_range(rgb):
    h, w = rgb.shape[:2]
    y, u, v = (np.zeros((h, w), np.uint8), np.zeros((h // 2, w // 2), np.uint8),
               np.zeros((h // 2, w // 2), np.uint8))
    rgb_to_yuv420(rgb, y, u, v)
    r, g, b = np.moveaxis(rgb.astype(float), -1, 0)
    assert np.abs(y - (16 + 219 / 255 * (0.299 * r + 0.587 * g + 0.114 * b))).max() <= 1
    mean = rgb.astype(float).reshape(h // 2, 2, w // 2, 2, 3).mean(axis=(1, 3))
    r, g, b = np.moveaxis(mean, -1, 0)
    luma = 0.299 * r + 0.587 * g + 0.114 * b
    assert np.abs(u - (128 + 224 / 255 * (b - luma) / 1.772)).max() <= 1
    assert np.abs(v - (128 + 224 / 255 * (r - luma) / 1.402)).max() <= 1


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2 ** 32 - 1))
def test_changed_rectangles_convert_like_the_whole_frame(seed):
    """YuvPicture converts only the changed rectangles, each at its place in the planes: the
    planes equal a whole-frame conversion of the new frame."""
    rng = np.random.default_rng(seed)
    h, w = 2 * int(rng.integers(2, 20)), 2 * int(rng.integers(2, 20))
    frame = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    picture = YuvPicture(w, h)
    picture.update(frame)
    rects = []
    for _ in range(int(rng.integers(0, 4))):
        y0, x0 = int(rng.integers(0, h)), int(rng.integers(0, w))
        y1, x1 = int(rng.integers(y0, h + 1)), int(rng.integers(x0, w + 1))
        frame[y0:y1, x0:x1] = rng.integers(0, 256, (y1 - y0, x1 - x0, 3))
        rects.append((y0, y1, x0, x1))
    picture.update(frame, rects)
    whole = (np.zeros((h, w), np.uint8), np.zeros((h // 2, w // 2), np.uint8),
             np.zeros((h // 2, w // 2), np.uint8))
    rgb_to_yuv420(frame, *whole)
    assert all(np.array_equal(a, b) for a, b in zip(picture.planes, whole))
    part = tuple(np.zeros_like(p) for p in whole)
    rgb_to_yuv420_rect(frame, *part, 2, h, 0, w - w % 4)
    assert np.array_equal(part[0][2:, :w - w % 4], whole[0][2:, :w - w % 4])
    assert not part[0][:2].any()


# --------------------------------------------------------------------------- bytes out

def _boxes(data: bytes, start: int = 0, end: int | None = None):
    """(type, offset, size) of the mp4 boxes in data[start:end], recursively."""
    end = len(data) if end is None else end
    while start < end:
        size, kind = struct.unpack(">I4s", data[start:start + 8])
        yield kind, start, size
        if kind in (b"moov", b"trak", b"mdia", b"minf", b"stbl", b"udta", b"edts", b"dinf"):
            yield from _boxes(data, start + 8, start + size)
        start += size


@each_encoder
def test_container_holds_no_clock_and_no_muxer_version(encoded, encoder):
    mp4 = encoded(encoder)["fade"][0]
    boxes = {kind: (off, size) for kind, off, size in _boxes(mp4)}
    assert {b"ftyp", b"mdat", b"moov", b"mvhd", b"tkhd", b"mdhd"} <= set(boxes)
    for kind in (b"mvhd", b"tkhd", b"mdhd"):  # version 0: creation, modification time (u32)
        off = boxes[kind][0]
        assert mp4[off + 8] == 0 and mp4[off + 12:off + 20] == bytes(8), kind
    assert b"Lavf" not in mp4 and b"Lavc" not in mp4
    if encoder == "objsub":
        assert b"x264" not in mp4
        return
    sei = re.search(rb"x264 - core \d+ .*? options: ([ -~]+)", mp4)
    assert sei and b" threads=1 " in sei.group(1) and b"sliced_threads=0" in sei.group(1)


@each_encoder
def test_encode_is_a_pure_function_of_the_frames(batch, encoded, encoder):
    """Task order and the changed rectangles never change the bytes: x264 sees whole frames
    anyway; the own encoder given no rectangles (``encode_video``) analyses every macroblock
    and must find the same pictures."""
    videos = encoded(encoder)
    again = encode_transitions(batch, VideoSpec("fade", num_frames=FRAMES, encoder=encoder),
                               tasks=[3, 0])
    assert again == [videos["fade"][3], videos["fade"][0]]
    frames = task_frames(batch.first_frames[0], style="fade", num_frames=FRAMES,
                         **task_arrays(batch, 0))
    whole = encode_video(frames, encoder=encoder)
    assert whole == encode_video(iter(frames), encoder=encoder)
    assert len(decode(whole)) == FRAMES
    if encoder == "x264":
        assert whole == videos["fade"][0]


@each_encoder
def test_style_fps_and_frame_count_change_the_video(batch, encoded, encoder):
    videos = encoded(encoder)
    fade = videos["fade"][0]
    assert len({fade, videos["shrink"][0], videos["slide"][0]}) == 3
    spec = VideoSpec(fps=24, num_frames=FRAMES, encoder=encoder)
    assert encode_transitions(batch, spec, [0])[0] != fade
    spec = VideoSpec(num_frames=9, encoder=encoder)
    assert len(decode(encode_transitions(batch, spec, [0])[0])) == 9


def test_the_default_encoder_is_objsub_and_x264_is_still_there(batch, encoded):
    assert VideoSpec().encoder == ENCODERS[0] == "objsub"
    default = encode_transitions(batch, VideoSpec("slide", num_frames=FRAMES), [2])[0]
    assert default == encoded("objsub")["slide"][2] != encoded("x264")["slide"][2]


DIGEST_SCRIPT = """
import hashlib, os, sys
if sys.argv[1] == "one-cpu":
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
import numpy as np
from objsub_fast import generate_batch
from objsub_fast.ground_truth.video import VideoSpec, encode_transitions
batch = generate_batch(np.arange(6), level=["L1", "L2", "L3"] * 2)
spec = VideoSpec("slide", num_frames=24, encoder=sys.argv[2])
print(hashlib.sha256(b"".join(encode_transitions(batch, spec))).hexdigest())
"""


@each_encoder
@pytest.mark.parametrize("env, cpus", [({"PYTHONHASHSEED": "1"}, "all"),
                                       ({"PYTHONHASHSEED": "977", "MALLOC_PERTURB_": "85"},
                                        "one-cpu")])
def test_fresh_processes_write_the_same_bytes(encoded, encoder, env, cpus):
    if cpus == "one-cpu" and not hasattr(os, "sched_setaffinity"):
        pytest.skip("no CPU affinity on this platform")
    out = subprocess.run([sys.executable, "-c", DIGEST_SCRIPT, cpus, encoder],
                         env={**os.environ, **env}, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == digest(encoded(encoder)["slide"])


def test_x264_threading_changes_bytes_so_it_is_off(batch, videos):
    """Why ``ENCODER["threads"]`` is 1: frame threads, slice threads and the automatic count
    (the visible cores) each give other bytes."""
    spec = VideoSpec("fade", num_frames=FRAMES, encoder="x264")
    threaded = [encode_transitions(batch, spec, [1], {**ENCODER, **extra})[0]
                for extra in ({"threads": 2, "thread_type": "FRAME"},
                              {"threads": 2, "thread_type": "SLICE"})]
    assert len({videos["fade"][1], *threaded}) == 3


def _x86_masks() -> dict:
    """x264 ``asm`` masks of older x86 CPUs that this CPU can run (x264's CPU flag bits: 0-3
    MMX..SSE2, 4 LZCNT, 5 SSE3, 6 SSSE3, 7-8 SSE4.1/4.2, 9 AVX, 12 FMA3, 13-14 BMI1/2, 15 AVX2;
    10-11 are AMD's XOP/FMA4, left out)."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return {}
    try:
        with open("/proc/cpuinfo") as f:
            flags = set(next(line for line in f if line.startswith("flags")).split())
    except (OSError, StopIteration):
        return {}
    levels = {"SSE2 (no SSSE3 kernels)": (15, set()),
              "AVX": (1023, {"abm", "pni", "ssse3", "sse4_1", "sse4_2", "avx"}),
              "AVX2 (no AVX-512)": (62463, {"abm", "pni", "ssse3", "sse4_1", "sse4_2", "avx",
                                            "fma", "bmi1", "bmi2", "avx2"})}
    return {name: str(mask) for name, (mask, needs) in levels.items() if needs <= flags}


ASM_MASKS = {"C code only": "0", **_x86_masks()}


@pytest.mark.parametrize("name", list(ASM_MASKS))
def test_x264_cpu_code_paths_write_the_same_bytes(batch, videos, name):
    """x264's SIMD paths (auto-detected) and its C code give the same bytes with ENCODER."""
    masked = {**ENCODER, "x264_params": ENCODER["x264_params"] + ":asm=" + ASM_MASKS[name]}
    for style in STYLE_NAMES:
        spec = VideoSpec(style, num_frames=FRAMES, encoder="x264")
        assert encode_transitions(batch, spec, settings=masked) == videos[style], style


def test_intra_partition_analysis_is_cpu_dependent(batch, videos):
    """Why ENCODER leaves out x264's intra 4x4 analysis: its SIMD and C paths decide
    differently (if this starts passing with equal bytes, x264 changed)."""
    with_i4x4 = {**ENCODER, "x264_params": ENCODER["x264_params"] + ":analyse=i4x4"}
    c_code = {**with_i4x4, "x264_params": with_i4x4["x264_params"] + ":asm=0"}
    spec = VideoSpec("fade", num_frames=FRAMES, encoder="x264")
    pairs = [(encode_transitions(batch, spec, settings=s)) for s in (with_i4x4, c_code)]
    assert pairs[0] != pairs[1]


def test_encoder_build_names_the_versions():
    build = encoder_build("x264")
    assert build["av"] == av.__version__ and build["x264_core"] >= 100
    assert VideoSpec(encoder="x264").settings()["encoder_build"] == build


def test_objsub_build_depends_on_this_project_only():
    """No PyAV, FFmpeg or x264 version: only the generator version of objsub videos."""
    from objsub_fast._version import OBJSUB_VIDEOS
    from objsub_fast.ground_truth.h264.encoder import EncoderSettings

    settings = VideoSpec().settings()
    assert settings["encoder_build"] == {"encoder": "objsub_fast.ground_truth.h264",
                                         "generator_version": OBJSUB_VIDEOS}
    assert settings["encoder"]["h264"] == EncoderSettings().as_dict()
    assert "libx264" not in str(settings)


# --------------------------------------------------------------------------- decoding

@each_encoder
@pytest.mark.parametrize("style", STYLE_NAMES)
def test_videos_decode_to_the_rendered_transition(batch, encoded, encoder, style):
    for i, mp4 in enumerate(encoded(encoder)[style]):
        ref = task_frames(batch.first_frames[i], style=style, num_frames=FRAMES,
                          **task_arrays(batch, i))
        got = decode(mp4)
        assert got.shape == ref.shape
        err = np.abs(got.astype(np.int16) - ref)
        psnr = 10 * np.log10(255 ** 2 / np.mean(err.astype(float) ** 2))
        # 4:2:0 chroma smears single pixels at colour edges; on average the error is < 1 level
        assert err.mean() < MAX_MEAN_ERROR and psnr > MIN_PSNR, (style, i, err.mean(), psnr)
        for f in (0, -1):  # the held first and final frames
            assert np.abs(got[f].astype(np.int16) - ref[f]).mean() < MAX_MEAN_ERROR
        assert decode_errors(mp4, batch, i, VideoSpec(style, num_frames=FRAMES)) is None


@each_encoder
def test_decode_errors_name_what_is_wrong(batch, encoded, encoder):
    videos = encoded(encoder)
    spec = VideoSpec("fade", num_frames=FRAMES, encoder=encoder)
    assert "frames decoded" in decode_errors(videos["fade"][0], batch, 0,
                                             VideoSpec("fade", num_frames=FRAMES + 1))
    assert "codec tolerance" in decode_errors(videos["fade"][1], batch, 0, spec)
    other = encode_transitions(generate_batch([1], canvas_size=(256, 192)), spec)[0]
    assert "256x192, expected 256x256" in decode_errors(other, batch, 0, spec)


@each_encoder
def test_reused_input_frame_never_leaks_into_buffered_pictures(batch, encoder):
    """x264 holds up to rc-lookahead + B frames before writing any; each must be the frame
    given at its time, not the reused buffer's last content."""
    h, w = 64, 64
    levels = np.linspace(0, 255, 20).astype(np.uint8)
    frames = np.repeat(levels[:, None, None, None], h * w * 3).reshape(20, h, w, 3)
    got = decode(encode_video(frames, encoder=encoder))
    assert np.abs(got.mean(axis=(1, 2, 3)) - levels).max() < 2


# --------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("spec, option", [(VideoSpec(style="explode"), "--video-style"),
                                          (VideoSpec(fps=0), "--fps"),
                                          (VideoSpec(fps=2.5), "--fps"),
                                          (VideoSpec(num_frames=1), "--video-frames"),
                                          (VideoSpec(num_frames=True), "--video-frames"),
                                          (VideoSpec(encoder="x265"), "--video-encoder")])
def test_bad_specs_are_refused_naming_the_option(batch, spec, option):
    with pytest.raises(ParameterError, match=option):
        encode_transitions(batch, spec)


@each_encoder
def test_odd_canvas_and_missing_frames_are_refused(encoder):
    with pytest.raises(ParameterError, match="even canvas"):
        encode_transitions(generate_batch([1], canvas_size=(255, 256)))
    with pytest.raises(ParameterError, match="render=True"):
        encode_transitions(generate_batch([1], render=False))
    with pytest.raises(ValueError, match="frames must be"):
        MP4_ENCODERS[encoder](32, 32).add(np.zeros((32, 30, 3), np.uint8))
    with pytest.raises(ValueError, match="at least one frame"):
        encode_video([])


@each_encoder
def test_large_canvases_give_memory_back_without_changing_bytes(monkeypatch, encoder):
    """From TRIM_AREA on, the heap is trimmed after every video; the bytes stay the same."""
    import objsub_fast.ground_truth.video as video

    calls = []
    monkeypatch.setattr(video, "release_free_memory", lambda: calls.append(1))
    batch = generate_batch([5, 6], canvas_size=512)
    assert 512 * 512 >= video.TRIM_AREA
    spec = VideoSpec("shrink", num_frames=8, encoder=encoder)
    got = encode_transitions(batch, spec)
    assert len(calls) == 2
    monkeypatch.undo()
    video.release_free_memory()  # the real one: glibc's malloc_trim, or nothing elsewhere
    assert encode_transitions(batch, spec) == got
    for i in range(2):
        assert decode_errors(got[i], batch, i, spec) is None
