"""The own encoder's one-call path (``ObjsubEncoder.add_transition``) writes exactly the bytes of
adding the transition's frames one at a time, for every style, canvas and frame count."""
import numpy as np
from hypothesis import given, settings, strategies as st

from objsub_fast.engine import generate_batch
from objsub_fast.ground_truth.transition_video import pack_plan
from objsub_fast.ground_truth.transitions import (STYLE_NAMES, plan_transition, task_arrays,
                                                  transition_steps, transition_updates)
from objsub_fast.ground_truth.video import ObjsubEncoder


def _frame_by_frame(batch, i, style, frames) -> ObjsubEncoder:
    h, w = batch.final_frames.shape[1:3]
    enc = ObjsubEncoder(w, h)
    first = batch.first_frames[i]
    steps = transition_steps(first, style=style, num_frames=frames, **task_arrays(batch, i))
    packed = pack_plan(plan_transition(first, style=style, num_frames=frames,
                                       **task_arrays(batch, i)))
    enc.use_weighted_prediction(packed.weighted)
    for step, weights, (frame, changed) in zip(steps, packed.weights, transition_updates(
            first, style=style, num_frames=frames, final=batch.final_frames[i],
            **task_arrays(batch, i))):
        enc.add(frame, changed, step.motion, weights)
    return enc


def _one_call(batch, i, style, frames) -> ObjsubEncoder:
    h, w = batch.final_frames.shape[1:3]
    enc = ObjsubEncoder(w, h)
    first = batch.first_frames[i]
    enc.add_transition(plan_transition(first, style=style, num_frames=frames,
                                       **task_arrays(batch, i)), first, batch.final_frames[i])
    return enc


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), style=st.sampled_from(STYLE_NAMES),
       frames=st.integers(1, 24), size=st.sampled_from([(256, 256), (320, 200), (96, 144)]),
       vocabulary=st.sampled_from(["classic", "extended"]))
def test_one_call_writes_the_bytes_of_frame_by_frame(seed, style, frames, size, vocabulary):
    batch = generate_batch([seed], canvas_size=size, vocabulary=vocabulary)
    slow, fast = _frame_by_frame(batch, 0, style, frames), _one_call(batch, 0, style, frames)
    assert fast.finish() == slow.finish()
    for a, b in zip(fast.reconstruction(), slow.reconstruction()):
        np.testing.assert_array_equal(a, b)


def test_an_output_buffer_of_one_picture_resumes_where_it_stopped(monkeypatch):
    """encode_steps stops before a picture that might not fit; add_transition calls it
    again."""
    import objsub_fast.ground_truth.objsub_encoder as objsub_encoder
    import objsub_fast.ground_truth.transition_video as transition_video

    batch = generate_batch([3], canvas_size=128)
    slow = _frame_by_frame(batch, 0, "slide", 9).finish()
    calls = []
    real = transition_video.encode_steps
    monkeypatch.setattr(objsub_encoder, "OUTPUT_PICTURES", 1)
    monkeypatch.setattr(transition_video, "encode_steps",
                        lambda *args: calls.append(real(*args)) or calls[-1])
    assert _one_call(batch, 0, "slide", 9).finish() == slow
    assert calls == [1] * 9


def test_packed_steps_hold_every_paint_and_rectangle():
    batch = generate_batch([11], level="L4")
    plan = plan_transition(batch.first_frames[0], style="shrink", num_frames=16,
                           **task_arrays(batch, 0))
    steps, packed = plan.steps(), pack_plan(plan)
    assert int(packed.paint_at[-1]) == sum(len(s.paints) for s in steps) > 0
    assert int(packed.restore_at[-1]) == sum(len(s.restore) for s in steps)
    for k, side in enumerate(packed.sprite_side):   # every sprite's bytes are the mask's
        mask = next(m for s in steps for m, *_ in s.paints if m.shape[0] == side)
        got = packed.sprites[packed.sprite_at[k]:packed.sprite_at[k + 1]].reshape(side, side)
        np.testing.assert_array_equal(got, mask)


def test_a_restarted_encoder_writes_the_bytes_of_a_fresh_one():
    """encode_transitions reuses one encoder per batch: nothing of a video leaks into the next
    (the IDR picture rewrites every sample, vector and context the next pictures read)."""
    batch = generate_batch([5, 6], canvas_size=(160, 96), vocabulary="extended")
    fresh = _one_call(batch, 1, "slide", 12)
    reused = _one_call(batch, 0, "fade", 12)
    reused.finish()
    reused.restart()
    first = batch.first_frames[1]
    reused.add_transition(plan_transition(first, style="slide", num_frames=12,
                                          **task_arrays(batch, 1)), first, batch.final_frames[1])
    assert reused.finish() == fresh.finish()
    assert reused._encoder.stats_dict() == fresh._encoder.stats_dict()


def test_frames_that_are_views_encode_as_their_copies():
    """The colour kernels read rows as flat bytes: a strided view is copied first, not
    refused or misread."""
    from objsub_fast.ground_truth.video import encode_video

    wide = np.random.default_rng(1).integers(0, 256, (3, 32, 96, 3), np.uint8)
    view = wide[:, :, ::2]                      # every other column: not contiguous
    assert not view[0].flags.c_contiguous
    assert encode_video(view) == encode_video(np.ascontiguousarray(view))


def test_slides_tell_the_encoder_how_far_each_object_moved():
    batch = generate_batch([21], level="L3")
    steps = transition_steps(batch.first_frames[0], style="slide", num_frames=24,
                             **task_arrays(batch, 0))
    moving = [s for s in steps if s.motion]
    assert moving, "a slide moves something"
    for previous, step in zip(steps, steps[1:]):
        assert all((dx == 0) != (dy == 0) for dx, dy in step.motion or [])  # along one axis
        if previous.paints and step.paints:       # object by object, as painted
            moved = {(x - px, y - py) for (m, x, y, _, _), (pm, px, py, _, _)
                     in zip(step.paints, previous.paints) if m is pm and (x, y) != (px, py)}
            assert set(step.motion) == moved
    fades = transition_steps(batch.first_frames[0], style="fade", num_frames=24,
                             **task_arrays(batch, 0))
    assert all(s.motion == [] for s in fades[4:])           # nothing moves: no search
    shrinks = transition_steps(batch.first_frames[0], style="shrink", num_frames=24,
                               **task_arrays(batch, 0))
    assert any(s.motion is None for s in shrinks)           # reshaped: search


@settings(max_examples=40, deadline=None)
@given(mask=st.lists(st.lists(st.integers(0, 2), min_size=7, max_size=7), min_size=7,
                     max_size=7).map(lambda rows: np.array(rows, np.uint8)),
       left=st.integers(-8, 12), top=st.integers(-8, 12))
def test_painting_a_sprite_by_runs_paints_its_mask_and_the_pixels_y(mask, left, top):
    """The flat look's sprites are painted a run of one label at a time, their Y with them:
    the same pixels as painting the mask, clipped alike, and the Y a conversion gives."""
    from objsub_fast.ground_truth.object_look import label_runs
    from objsub_fast.ground_truth.transitions import _paint_runs, _paint_sprite
    from objsub_fast.ground_truth.yuv import luma_rect

    runs = label_runs(mask)
    rebuilt = np.zeros_like(mask)
    for row, first, end, label in runs:
        assert label != 0 and (first == 0 or mask[row, first - 1] != label)
        assert end == mask.shape[1] or mask[row, end] != label
        rebuilt[row, first:end] = label
    np.testing.assert_array_equal(rebuilt, mask)
    fill, line = (200, 30, 40), (10, 90, 250)
    frame = np.random.default_rng((left + 8) * 31 + top + 8).integers(0, 256, (12, 14, 3), np.uint8)
    expected = frame.copy()
    _paint_sprite(expected, mask, left, top, fill, line)
    luma = np.full((16, 16), 7, np.uint8)
    _paint_runs(frame, luma, runs, left, top, fill, line)
    np.testing.assert_array_equal(frame, expected)
    converted = np.zeros_like(luma)
    luma_rect(frame, converted, 0, 12, 0, 14)
    painted = np.zeros(luma.shape, bool)
    for row, first, end, _ in runs:
        if 0 <= top + row < 12:
            painted[top + row, max(left + first, 0):max(min(left + end, 14), 0)] = True
    np.testing.assert_array_equal(luma[painted], converted[painted])
    assert (luma[~painted] == 7).all()


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000), style=st.sampled_from(STYLE_NAMES),
       size=st.sampled_from([(256, 256), (320, 200)]))
def test_a_flat_step_leaves_the_planes_a_conversion_of_its_frame(seed, style, size):
    """A flat-look step converts only what it drew (the restored rectangles, the painted
    runs, the 2x2 blocks they touch), and the planes are then those of converting the whole
    frame: nothing else changed."""
    from objsub_fast.ground_truth.transition_video import FROM_PREVIOUS, _draw_step
    from objsub_fast.ground_truth.yuv import rgb_to_yuv420

    batch = generate_batch([seed], canvas_size=size, level="L4")
    first, final = batch.first_frames[0], batch.final_frames[0]
    packed = pack_plan(plan_transition(first, style=style, num_frames=12,
                                       **task_arrays(batch, 0)))
    h, w = first.shape[:2]
    rgb = np.empty_like(first)
    planes = (np.empty((h, w), np.uint8), np.empty((h // 2, w // 2), np.uint8),
              np.empty((h // 2, w // 2), np.uint8))
    whole = tuple(np.empty_like(p) for p in planes)
    drawn = 0
    for f in range(len(packed.start)):
        _draw_step(packed, f, first, final, rgb, planes)
        if f == 0 or packed.start[f] != FROM_PREVIOUS:
            rgb_to_yuv420(rgb, *planes)
            continue
        drawn += int(packed.paint_at[f + 1] - packed.paint_at[f])
        rgb_to_yuv420(rgb, *whole)
        for got, want in zip(planes, whole):
            np.testing.assert_array_equal(got, want)
    assert drawn > 0
