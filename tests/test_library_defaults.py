"""The library's video functions default to what a dataset stores (``VideoSpec()``: the own
H.264 encoder, 61 frames at 16 fps, the fade): ``write_transition(batch, i, "task.mp4")``
writes the dataset's ground-truth video byte for byte, and x264 is one argument away."""
from __future__ import annotations

import inspect

import pytest

from objsub_fast import generate_batch
from objsub_fast.ground_truth.h264.mp4 import read_track
from objsub_fast.ground_truth.transitions import render_transition
from objsub_fast.ground_truth.video import VideoSpec, encode_transitions, write_transition


@pytest.fixture(scope="module")
def batch():
    return generate_batch([21, 22], level=["L2", "L4"])


def test_the_signatures_default_to_the_datasets_spec():
    spec = VideoSpec()
    write = inspect.signature(write_transition).parameters
    render = inspect.signature(render_transition).parameters
    assert (write["style"].default, write["num_frames"].default, write["fps"].default,
            write["encoder"].default) == (spec.style, spec.num_frames, spec.fps, spec.encoder)
    assert (render["style"].default, render["num_frames"].default) == (spec.style,
                                                                       spec.num_frames)
    assert (spec.encoder, spec.num_frames, spec.fps) == ("objsub", 61, 16)


def test_write_transition_writes_the_datasets_video(batch, tmp_path):
    path = write_transition(batch, 1, tmp_path / "task.mp4")
    data = open(path, "rb").read()
    assert data == encode_transitions(batch, VideoSpec(), tasks=[1])[0]
    assert b"x264" not in data and len(read_track(data)["samples"]) == 61


def test_x264_is_one_argument_away(batch, tmp_path):
    path = write_transition(batch, 0, tmp_path / "task.mp4", encoder="x264", num_frames=8)
    data = open(path, "rb").read()
    assert data == encode_transitions(batch, VideoSpec(num_frames=8, encoder="x264"),
                                      tasks=[0])[0]
    assert b"x264 - core" in data


def test_other_containers_still_follow_the_extension(batch, tmp_path):
    av = pytest.importorskip("av")
    path = write_transition(batch, 0, tmp_path / "task.webm", num_frames=5)
    with av.open(path) as container:
        assert container.streams.video[0].codec_context.name == "vp9"
        assert container.streams.video[0].frames in (0, 5)   # webm may not count frames


@pytest.mark.parametrize("args, message", [(dict(encoder="x265"), "--video-encoder"),
                                           (dict(num_frames=1), "--video-frames"),
                                           (dict(fps=0), "--fps"),
                                           (dict(style="spin"), "style")])
def test_bad_arguments_are_named_and_nothing_is_written(batch, tmp_path, args, message):
    with pytest.raises(ValueError, match=message):
        write_transition(batch, 0, tmp_path / "task.mp4", **args)
    assert not list(tmp_path.iterdir())
