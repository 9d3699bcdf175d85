"""Outputs read as a player shows them (#45, item 4): a container's rotation, every frame of an
animated image. Each test failed on f3a5bb4 (a sideways video 'does not show the task's first
frame'; an animated image scored as its first frame only)."""
import numpy as np
import pytest

from objsub_fast import generate_batch
from objsub_fast.scoring import render_transition, score_video


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
    assert res["frames"] == held and res["input"]["kind"] != "image"


def test_a_wrong_animated_image_fails_as_a_video(batch, videos, tmp_path):
    """The right removal, then the first frame again at the end (the objects come back): read
    as a video, every picture is judged (before: only its first picture, as a final image)."""
    from PIL import Image

    pictures = [Image.fromarray(f) for f in [*videos[1], videos[1][0]]]
    path = tmp_path / "comeback.webp"
    pictures[0].save(path, save_all=True, append_images=pictures[1:], duration=80,
                     lossless=True)
    with Image.open(path) as im:
        held = im.n_frames
    res = score_video(batch.task(1), path)
    assert res["error"] is None and not res["pass"]
    assert res["frames"] == held and res["input"]["kind"] != "image"
