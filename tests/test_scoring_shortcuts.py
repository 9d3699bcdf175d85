"""The scorer's fast paths give exactly what the plain paths give.

- Canvas rows whose source rows did not change are not sampled again (``CanvasWarp``): every
  canvas and class map equals a fresh sampling of the same frame.
- Pixels classified while sampled equal the detector's own classification of the canvas.
- The compiled sampling equals the fixed-point formula it implements, written out in numpy.
- A frame whose pixel classes repeat the previous frame's (its colours may differ, as with
  grain) with the same tracking inputs reuses the previous read-out (``Tracker.update``) and
  measures its own ink: the metrics and the ink equal those of tracking every frame in full.
"""
import numpy as np
import pytest

from objsub_fast import generate_batch
from objsub_fast.scoring import render_transition, write_video
from objsub_fast.scoring.api import score_video_tracked
from objsub_fast.scoring.tracking.detect import _classify
from objsub_fast.scoring.judging.invariants import measure
from objsub_fast.scoring.judging.metrics import TaskModel, Tracker
from objsub_fast.testing.outputs import centre_cropped, grainy, letterboxed
from objsub_fast.scoring.reading.register import register


def _decoded(path):
    import av

    with av.open(str(path)) as container:
        return list(container.decode(video=0))


@pytest.fixture(scope="module")
def videos(tmp_path_factory):
    """(record, path) of a slide, a fade and a grainy slide, each with one frozen stretch in its
    middle, in two output shapes. Grain is drawn anew on every frame: in its frozen stretch the
    pixel classes repeat while no row does."""
    folder = tmp_path_factory.mktemp("shortcuts")
    batch = generate_batch([3, 8], level=["L2", "L3"])
    out = []
    for i, (style, shape, grain) in enumerate([("slide", centre_cropped, 0),
                                               ("fade", letterboxed, 0),
                                               ("slide", centre_cropped, 3.0)]):
        frames = render_transition(batch, style, 24, tasks=[i % 2])[0]
        frames[10:14] = frames[9]            # a frozen stretch: rows repeat exactly
        frames = shape(frames, (640, 360))
        path = folder / f"{style}_{i}.mp4"
        write_video(path, grainy(frames, grain, seed=i) if grain else frames)
        out.append((batch.task(i % 2), path))
    return out


@pytest.mark.parametrize("which", [0, 1, 2])
def test_rows_kept_from_the_previous_frame_equal_a_fresh_sampling(videos, which):
    from av.video.reformatter import VideoReformatter

    from objsub_fast.scoring.reading.frames import CanvasWarp

    record, path = videos[which]
    model = TaskModel(record)
    frames = _decoded(path)
    reformatter = VideoReformatter()
    mapping = register(frames[0].to_ndarray(format="rgb24"), model)
    streaming = CanvasWarp(mapping, lut=Tracker(model).detect.lut)
    repeats = 0
    for frame in frames:
        canvas = streaming.from_video_frame(frame, reformatter)
        fresh = CanvasWarp(mapping, lut=streaming._lut)
        expected = fresh.from_video_frame(frame, reformatter)
        np.testing.assert_array_equal(canvas, expected)
        np.testing.assert_array_equal(streaming.classes, fresh.classes)
        classes = np.empty(canvas.shape[:2], np.uint8)
        _classify(canvas, streaming._lut, classes)
        np.testing.assert_array_equal(streaming.classes, classes)
        repeats += streaming.repeated
    assert repeats >= 3     # the frozen stretch was recognised as classes that repeat


@pytest.mark.parametrize("which", [0, 1, 2])
def test_reused_read_outs_equal_tracking_every_frame(videos, which):
    record, path = videos[which]
    fast, fast_tracker = score_video_tracked(record, path)
    model = TaskModel(record)
    frames = _decoded(path)
    mapping = register(frames[0].to_ndarray(format="rgb24"), model)
    from av.video.reformatter import VideoReformatter

    from objsub_fast.scoring.reading.frames import CanvasWarp

    warp = CanvasWarp(mapping)
    tracker = Tracker(model, mapping)
    reformatter = VideoReformatter()
    for frame in frames:
        tracker.update(warp.from_video_frame(frame, reformatter))   # no classes, no repeats
    assert fast["pass"]
    assert fast["metrics"] == measure(tracker.track())
    np.testing.assert_array_equal(np.array(fast_tracker.ink), np.array(tracker.ink))


def _reference_sampling(frame, warp):
    """The canvas ``CanvasWarp`` samples from ``frame``'s YUV planes, written out in numpy: the
    four source pixels of each canvas pixel interpolated in 16-bit fixed point (int64), then
    converted in float64 with the coefficients of ``_yuv_conversion``."""
    from objsub_fast.scoring.reading.frames import _planes

    yp, up, vp = (p.astype(np.int64) for p in _planes(frame))
    xi, xw, yi, yw = warp._taps
    xc, yc, k = warp._yuv

    def blend(p, rows, cols, wy, wx):
        top = p[rows[:, 0]][:, cols[:, 0]] * (256 - wx) + p[rows[:, 0]][:, cols[:, 1]] * wx
        bot = p[rows[:, 1]][:, cols[:, 0]] * (256 - wx) + p[rows[:, 1]][:, cols[:, 1]] * wx
        return top * (256 - wy[:, None]) + bot * wy[:, None]

    luma_rows, luma_cols = np.stack([yi, yi + 1], 1), np.stack([xi, xi + 1], 1)
    lum = k[0] * (blend(yp, luma_rows, luma_cols, yw, xw) - k[1])
    cb = k[2] * blend(up, yc, xc, yw, xw) - k[3]
    cr = k[2] * blend(vp, yc, xc, yw, xw) - k[3]
    rgb = [lum + k[4] * cr, lum + k[5] * cb + k[6] * cr, lum + k[7] * cb]
    return np.stack([np.clip(c + 0.5, 0, 255).astype(np.uint8) for c in rgb], axis=-1)


@pytest.mark.parametrize("which", [0, 2])
def test_compiled_sampling_equals_the_formula_written_out(videos, which):
    from av.video.reformatter import VideoReformatter

    from objsub_fast.scoring.reading.frames import CanvasWarp

    record, path = videos[which]
    frames = _decoded(path)
    warp = CanvasWarp(register(frames[0].to_ndarray(format="rgb24"), TaskModel(record)))
    reformatter = VideoReformatter()
    u0, v0, u1, v1 = warp.rect
    for frame in frames[::5]:
        canvas = warp.from_video_frame(frame, reformatter)
        assert warp._yuv                      # sampled from the planes
        np.testing.assert_array_equal(canvas[v0:v1, u0:u1], _reference_sampling(frame, warp))
