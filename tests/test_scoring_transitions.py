"""Ground-truth transitions and the video writer (objsub_fast.ground_truth.transitions, .video)."""
import numpy as np
import pytest

from objsub_fast import generate_batch
from objsub_fast.scoring import render_transition, write_transition
from objsub_fast.ground_truth.transitions import plan_slides, task_arrays
from objsub_fast.scoring.reading.frames import FrameStream


@pytest.fixture(scope="module")
def batch():
    return generate_batch(np.arange(24), level=["L1", "L2", "L3", "L4"] * 6)


def _removed_zone(batch, i, style):
    """Pixels removed objects may touch: their squares, and for slides their swept paths."""
    h, w = batch.canvas_size[1], batch.canvas_size[0]
    zone = np.zeros((h, w), bool)
    a = task_arrays(batch, i)
    plans = plan_slides(a["left"], a["top"], a["size"], a["removed"], (w, h))
    for k in np.flatnonzero(a["removed"]):
        x_, t, s = int(a["left"][k]), int(a["top"][k]), int(a["size"][k])
        x0, x1, y0, y1 = x_, x_ + s, t, t + s
        if style == "slide" and plans[k] is not None:
            dx, dy, _ = plans[k]
            x0, x1 = (0, x1) if dx < 0 else (x0, w) if dx > 0 else (x0, x1)
            y0, y1 = (0, y1) if dy < 0 else (y0, h) if dy > 0 else (y0, y1)
        zone[max(y0, 0):y1, max(x0, 0):x1] = True
    return zone


@pytest.mark.parametrize("style", ["fade", "shrink", "slide"])
def test_only_removed_objects_change(batch, style):
    video = render_transition(batch, style=style, num_frames=12)
    assert video.shape == (24, 12, 256, 256, 3) and video.dtype == np.uint8
    assert np.array_equal(video[:, 0], batch.first_frames)
    assert np.array_equal(video[:, -1], batch.final_frames)
    for i in range(len(batch)):
        outside = ~_removed_zone(batch, i, style)
        same = (video[i] == batch.first_frames[i][None]).all(axis=-1)
        assert same[:, outside].all(), (style, i)


def test_slides_never_touch_other_objects(batch):
    for i in range(len(batch)):
        a = task_arrays(batch, i)
        plans = plan_slides(a["left"], a["top"], a["size"], a["removed"], (256, 256))
        for k, plan in enumerate(plans):
            if plan is None:
                continue
            dx, dy, dist = plan
            x_, t, s = int(a["left"][k]), int(a["top"][k]), int(a["size"][k])
            assert dist > 0 and a["removed"][k]
            for j in np.flatnonzero(~a["removed"]):  # kept squares stay clear of the path
                lj, tj, sj = int(a["left"][j]), int(a["top"][j]), int(a["size"][j])
                for step in range(0, dist + 1, 2):
                    x, y = x_ + dx * step, t + dy * step
                    assert x + s < lj or lj + sj < x or y + s < tj or tj + sj < y


def test_fade_goes_toward_white(batch):
    video = render_transition(batch, style="fade", num_frames=9, tasks=[0])[0]
    a = task_arrays(batch, 0)
    k = int(np.flatnonzero(a["removed"])[0])
    x_, t, s = int(a["left"][k]), int(a["top"][k]), int(a["size"][k])
    means = video[:, t:t + s, x_:x_ + s].reshape(9, -1).mean(axis=1)
    assert np.all(np.diff(means) >= 0) and means[-1] == 255


def test_bad_arguments_are_refused(batch):
    with pytest.raises(ValueError, match="style"):
        render_transition(batch, style="explode")
    with pytest.raises(ValueError, match="num_frames"):
        render_transition(batch, num_frames=0)
    with pytest.raises(ValueError, match="render=True"):
        render_transition(generate_batch([1], render=False))


def test_write_transition_round_trips(batch, tmp_path):
    path = write_transition(batch, 3, tmp_path / "t.mp4", style="shrink", num_frames=10)
    frames = np.stack(list(FrameStream(path, (256, 256))))
    assert frames.shape == (10, 256, 256, 3)
    err = np.abs(frames[-1].astype(int) - batch.final_frames[3].astype(int))
    assert err.mean() < 2


@pytest.mark.parametrize("name, codec", [("t.gif", "gif"), ("t.webm", "vp9"), ("t.mp4", "h264"),
                                         ("t.MKV", "h264")])
def test_write_transition_follows_the_extension(batch, tmp_path, name, codec):
    import av

    path = write_transition(batch, 5, tmp_path / name, num_frames=6)
    with av.open(path) as container:
        assert container.streams.video[0].codec_context.name == codec
    frames = np.stack(list(FrameStream(path, (256, 256))))
    assert frames.shape == (6, 256, 256, 3)
    err = np.abs(frames[-1].astype(int) - batch.final_frames[5].astype(int))
    assert err.mean() < 2


def test_write_transition_unknown_extension_is_a_clear_error(batch, tmp_path):
    with pytest.raises(ValueError, match=r"no codec for extension '\.xyz' .*\.gif.*codec="):
        write_transition(batch, 0, tmp_path / "t.xyz", num_frames=4)
    assert not list(tmp_path.iterdir())
