"""What a batch costs in memory, measured with ``tracemalloc`` (NumPy reports its buffers to
it): ``render_transition`` peaks at its result plus a frame (no stacked second copy), and
``generate_batch`` at its frames, drawn ``engine.CHUNK_TASKS`` tasks at a time with the same
bytes as one call per chunk."""
from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from objsub_fast import engine, generate_batch
from objsub_fast.ground_truth.transitions import render_transition, task_arrays, task_frames
from objsub_fast.runtime.errors import ParameterError


def peak_over(fn):
    """(result, bytes of traced memory at the peak of ``fn()`` above where it started)."""
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        result = fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result, peak - before


@pytest.fixture(scope="module")
def batch():
    return generate_batch(range(4), level=["L1", "L2", "L3", "L4"])


def test_render_transition_peaks_at_its_result(batch):
    render_transition(batch, "slide", num_frames=20)   # warm the sprite caches
    video, peak = peak_over(lambda: render_transition(batch, "slide", num_frames=20))
    assert video.shape == (4, 20, 256, 256, 3)
    assert peak <= 1.2 * video.nbytes, (peak, video.nbytes)
    for i in range(len(batch)):   # and it is the transition, task by task
        want = task_frames(batch.first_frames[i], style="slide", num_frames=20,
                           **task_arrays(batch, i))
        assert np.array_equal(video[i], want), i


def test_render_transition_into_a_given_array_allocates_about_a_frame(batch):
    out = np.empty((2, 12, 256, 256, 3), np.uint8)
    render_transition(batch, "fade", 12, tasks=[3, 1])
    video, peak = peak_over(lambda: render_transition(batch, "fade", 12, tasks=[3, 1], out=out))
    assert video is out and np.array_equal(out[0], render_transition(batch, "fade", 12, [3])[0])
    assert peak <= 0.1 * out.nbytes, peak


@pytest.mark.parametrize("out", [np.empty((1, 12, 256, 256, 3), np.uint8),
                                 np.empty((2, 12, 256, 256, 3), np.int16),
                                 np.empty((2, 12, 256, 256, 3), np.uint8)[:, ::2]])
def test_a_wrong_out_array_is_named(batch, out):
    with pytest.raises(ParameterError, match=r"out must be a C-contiguous uint8 array of shape "
                                             r"\(2, 12, 256, 256, 3\)"):
        render_transition(batch, num_frames=12, tasks=[0, 1], out=out)


def test_render_transition_defaults_are_the_datasets(batch):
    from objsub_fast.ground_truth.video import VideoSpec

    video = render_transition(batch, tasks=[2])
    assert video.shape[1] == VideoSpec().num_frames == 61
    assert np.array_equal(video, render_transition(batch, VideoSpec().style, 61, [2]))


def test_generate_batch_peaks_at_its_frames():
    n = 2 * engine.CHUNK_TASKS + 100                   # three chunks
    generate_batch(range(8), canvas_size=64)
    batch, peak = peak_over(lambda: generate_batch(range(n), canvas_size=64))
    frames = batch.first_frames.nbytes + batch.final_frames.nbytes
    assert frames == n * 2 * 64 * 64 * 3
    assert peak <= 1.05 * frames + 200 * n, (peak, frames)


@pytest.mark.parametrize("masks", [False, True])
def test_chunks_never_change_the_frames(monkeypatch, masks):
    seeds = np.arange(1000, 1023)
    whole = generate_batch(seeds, canvas_size=96, masks=masks)
    monkeypatch.setattr(engine, "CHUNK_TASKS", 5)
    chunked = generate_batch(seeds, canvas_size=96, masks=masks)
    reused = tuple(np.zeros_like(a) for a in (whole.first_frames, whole.final_frames,
                                              whole.instance_maps) if a is not None)
    into = generate_batch(seeds, canvas_size=96, masks=masks, out=reused)
    for name in ("first_frames", "final_frames") + (("instance_maps",) if masks else ()):
        assert np.array_equal(getattr(whole, name), getattr(chunked, name)), name
        assert np.array_equal(getattr(whole, name), getattr(into, name)), name
    assert whole.prompts == chunked.prompts
