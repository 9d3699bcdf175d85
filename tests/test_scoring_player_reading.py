"""Outputs read as a player shows them (#45, item 4): a container's rotation, every frame of an
animated image, non-square pixels, variable frame timing. The rotation and animated-image tests
failed on f3a5bb4 (a sideways video 'does not show the task's first frame'; an animated image
scored as its first frame only)."""
from fractions import Fraction

import numpy as np
import pytest

from objsub_fast import generate_batch
from objsub_fast.scoring import render_transition, score_video
from objsub_fast.scoring.reading.limits import LimitError, Limits
from objsub_fast.scoring.reading.frames import FrameStream


@pytest.fixture(scope="module")
def batch():
    return generate_batch([7, 8], level=["L1", "L2"])


@pytest.fixture(scope="module")
def videos(batch):
    return render_transition(batch, "fade", 12)


def _rotated_mp4(path, frames, angle: int) -> None:
    """``frames`` stored turned by -``angle`` degrees, with a display matrix that turns them
    back by ``angle`` (what a phone or an editor writes)."""
    import av

    stored = [np.ascontiguousarray(np.rot90(f, -angle // 90)) for f in frames]
    with av.open(str(path), "w") as c:
        s = c.add_stream("libx264", rate=8)
        s.height, s.width = stored[0].shape[:2]
        s.options = {"crf": "10"}
        s.set_display_rotation(angle)
        for f in stored:
            c.mux(s.encode(av.VideoFrame.from_ndarray(f, format="rgb24")))
        c.mux(s.encode())


@pytest.mark.parametrize("angle", [90, 270])
def test_a_correct_video_turned_by_its_container_passes(batch, videos, tmp_path, angle):
    import av

    path = tmp_path / f"turned{angle}.mp4"
    _rotated_mp4(path, videos[0], angle)
    with av.open(str(path)) as c:
        assert next(c.decode(video=0)).rotation % 360 == angle % 360   # the file says so
    res = score_video(batch.task(0), path)
    assert res["error"] is None and res["pass"], res["verdict"]


@pytest.mark.parametrize("suffix, options", [(".webp", {"lossless": True}), (".png", {})])
def test_an_animated_image_of_a_correct_output_is_scored_as_a_video(batch, videos, tmp_path,
                                                                     suffix, options):
    from PIL import Image

    frames = [Image.fromarray(f) for f in videos[1]]
    path = tmp_path / f"animated{suffix}"
    frames[0].save(path, save_all=True, append_images=frames[1:], duration=80, loop=0,
                   **options)
    with Image.open(path) as im:
        held = im.n_frames   # a writer merges equal pictures in a row into one (a longer one)
    assert held > len(frames) // 2
    res = score_video(batch.task(1), path)
    assert res["error"] is None and res["pass"], res["verdict"]
    # shown as a browser plays it: a merged picture for each 80 ms it lasts
    assert res["frames"] == len(frames) and res["input"]["kind"] != "image"


def test_a_wrong_animated_image_fails_as_a_video(batch, videos, tmp_path):
    """The right removal, then the first frame again at the end (the objects come back): read
    as a video, every picture is judged (before: only its first picture, as a final image)."""
    from PIL import Image

    pictures = [Image.fromarray(f) for f in [*videos[1], videos[1][0]]]
    path = tmp_path / "comeback.webp"
    pictures[0].save(path, save_all=True, append_images=pictures[1:], duration=80,
                     lossless=True)
    res = score_video(batch.task(1), path)
    assert res["error"] is None and not res["pass"]
    assert res["frames"] == len(pictures) and res["input"]["kind"] != "image"


def _timed_mp4(path, frames, times, size=None, sample_aspect=None, rate=None) -> None:
    """``frames`` at ``times`` (ms), stored at ``size`` (W, H) with pixels ``sample_aspect``
    times as wide as tall (what an anamorphic or a variable-frame-rate writer emits)."""
    import av
    from PIL import Image

    with av.open(str(path), "w") as c:
        s = c.add_stream("libx264", rate=rate or 16)
        s.width, s.height = size or frames[0].shape[1::-1]
        s.options = {"crf": "10"}
        s.codec_context.time_base = Fraction(1, 1000)
        if sample_aspect:
            s.codec_context.sample_aspect_ratio = sample_aspect
        for f, t in zip(frames, times):
            picture = np.asarray(Image.fromarray(f).resize((s.width, s.height), Image.BILINEAR))
            frame = av.VideoFrame.from_ndarray(picture, format="rgb24")
            frame.pts, frame.time_base = int(t), Fraction(1, 1000)
            c.mux(s.encode(frame))
        c.mux(s.encode())


def test_non_square_pixels_are_read_as_a_player_stretches_them(batch, videos, tmp_path):
    # Stored 128 px wide, each pixel twice as wide as tall: a player shows 256x256.
    path = tmp_path / "anamorphic.mp4"
    _timed_mp4(path, videos[0], np.arange(len(videos[0])) * 62.5, (128, 256), Fraction(2, 1))
    res = score_video(batch.task(0), path)
    assert res["error"] is None and res["pass"], res["verdict"]
    assert res["input"]["size"] == [128, 256] and res["input"]["display_size"] == [256, 256]
    # registered on the picture shown: the canvas maps onto it exactly
    assert res["registration"]["scale"] == [0.5, 1.0]


def test_variable_frame_timing_is_read_as_a_player_shows_it(batch, videos, tmp_path):
    """Frames at irregular times: each is judged for as long as a player shows it (a frame
    held three intervals counts three times; one replaced within half an interval not at
    all), and a correct video passes."""
    frames = videos[0]
    steps = np.where(np.arange(len(frames)) % 3 == 2, 3, 1)          # every third held 3x
    times = np.concatenate([[0], np.cumsum(steps[:-1])]) * 62.5
    path = tmp_path / "held.mp4"
    _timed_mp4(path, frames, times)
    stream = FrameStream(path, batch.canvas_size)
    shown = [(stream.time, frame.copy()) for frame in stream]
    assert len(shown) == int(steps[:-1].sum()) + 1
    assert np.allclose(np.diff([t for t, _ in shown]), 0.0625, atol=1e-3)   # one interval
    res = score_video(batch.task(0), path)
    assert res["error"] is None and res["pass"], res["verdict"]
    assert res["frames"] == len(shown)


def test_frames_shown_again_count_against_the_frame_limit():
    # Three frames a second apart shown at 1,000 frames a second (a player would show each a
    # thousand times): shown frames count against the limit like decoded ones.
    from objsub_fast.scoring.reading.limits import Budget
    from objsub_fast.scoring.reading.frames import _as_shown

    sparse = [("a", 0.0), ("b", 1.0), ("c", 2.0)]
    with pytest.raises(LimitError, match="frames"):
        list(_as_shown(sparse, {"interval": 0.001}, Budget(Limits(frames=500))))
    assert len(list(_as_shown(sparse, {"interval": 0.5}, Budget(Limits(frames=500))))) == 5


def test_a_pixel_no_player_shows_as_a_picture_is_an_error(batch, videos, tmp_path):
    path = tmp_path / "sliver.mp4"
    _timed_mp4(path, videos[0][:4], [0, 62.5, 125, 187.5], (32, 256), Fraction(10, 1))
    res = score_video(batch.task(0), path)
    assert not res["pass"] and "aspect ratio of 10" in res["error"], res["error"]
