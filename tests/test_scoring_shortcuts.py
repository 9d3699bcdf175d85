"""The scorer's fast paths give exactly what the plain paths give.

- Canvas rows whose source rows did not change are not sampled again (``CanvasWarp``): every
  canvas and class map equals a fresh sampling of the same frame.
- Pixels classified while sampled equal the detector's own classification of the canvas.
- A repeated frame with the same tracking inputs reuses the previous read-out
  (``Tracker.update``): the metrics equal those of tracking every frame in full.
"""
import numpy as np
import pytest

from objsub_fast import generate_batch
from objsub_fast.scoring import render_transition, score_video, write_video
from objsub_fast.scoring.detect import _classify
from objsub_fast.scoring.metrics import TaskModel, Tracker
from objsub_fast.scoring.outputs import centre_cropped, letterboxed
from objsub_fast.scoring.register import register


def _decoded(path):
    import av

    with av.open(str(path)) as container:
        return list(container.decode(video=0))


@pytest.fixture(scope="module")
def videos(tmp_path_factory):
    """(record, path) of a slide, a fade and a video with one frozen stretch and one new frame
    in its middle, in two output shapes."""
    folder = tmp_path_factory.mktemp("shortcuts")
    batch = generate_batch([3, 8], level=["L2", "L3"])
    out = []
    for i, (style, shape) in enumerate([("slide", centre_cropped), ("fade", letterboxed)]):
        frames = render_transition(batch, style, 24, tasks=[i])[0]
        frames[10:14] = frames[9]            # a frozen stretch: rows repeat exactly
        path = folder / f"{style}.mp4"
        write_video(path, shape(frames, (640, 360)))
        out.append((batch.task(i), path))
    return out


@pytest.mark.parametrize("which", [0, 1])
def test_rows_kept_from_the_previous_frame_equal_a_fresh_sampling(videos, which):
    from av.video.reformatter import VideoReformatter

    from objsub_fast.scoring.video import CanvasWarp

    record, path = videos[which]
    model = TaskModel(record)
    frames = _decoded(path)
    reformatter = VideoReformatter()
    mapping = register(frames[0].to_ndarray(format="rgb24"), model)
    streaming = CanvasWarp(mapping)
    streaming.classify(Tracker(model).detect.lut)
    kept_rows = 0
    for frame in frames:
        canvas = streaming.from_video_frame(frame, reformatter)
        fresh = CanvasWarp(mapping)
        fresh.classify(streaming._lut)
        expected = fresh.from_video_frame(frame, reformatter)
        np.testing.assert_array_equal(canvas, expected)
        np.testing.assert_array_equal(streaming.classes, fresh.classes)
        classes = np.empty(canvas.shape[:2], np.uint8)
        _classify(canvas, streaming._lut, classes)
        np.testing.assert_array_equal(streaming.classes, classes)
        kept_rows += streaming.repeated
    assert kept_rows >= 3          # the frozen stretch was recognised as repeated frames


@pytest.mark.parametrize("which", [0, 1])
def test_reused_read_outs_equal_tracking_every_frame(videos, which):
    record, path = videos[which]
    fast = score_video(record, path)
    model = TaskModel(record)
    frames = _decoded(path)
    mapping = register(frames[0].to_ndarray(format="rgb24"), model)
    from av.video.reformatter import VideoReformatter

    from objsub_fast.scoring.video import CanvasWarp

    warp = CanvasWarp(mapping)
    tracker = Tracker(model, mapping)
    reformatter = VideoReformatter()
    for frame in frames:
        tracker.update(warp.from_video_frame(frame, reformatter))   # no classes, no repeats
    assert fast["pass"]
    assert fast["metrics"] == tracker.result()
