"""The vectorised transition plan (``plan_transition``) makes exactly the steps of the plain
planner it replaced (``reference_transitions``), for every style, canvas, vocabulary and frame
count, so the frames (and the x264 videos) of every task stay the same."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from objsub_fast.engine import generate_batch
from objsub_fast.runtime.errors import ParameterError
from objsub_fast.ground_truth.transitions import (STYLE_NAMES, plan_transition, task_arrays,
                                                  transition_steps)
from reference_transitions import reference_steps


def _same_steps(got, want):
    assert len(got) == len(want)
    for f, (a, b) in enumerate(zip(got, want)):
        assert (a.start, a.restore, a.changed, a.motion) == (b.start, b.restore, b.changed,
                                                             b.motion), f"frame {f}"
        assert len(a.paints) == len(b.paints), f"frame {f}"
        for (ma, *pa), (mb, *pb) in zip(a.paints, b.paints):
            assert ma is mb and pa == [pb[0], pb[1], tuple(map(int, pb[2])),
                                       tuple(map(int, pb[3]))], f"frame {f}"


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 100_000), style=st.sampled_from(STYLE_NAMES),
       frames=st.sampled_from([1, 2, 3, 4, 5, 9, 16, 33, 61]),
       size=st.sampled_from([(256, 256), (1024, 1024), (320, 200), (96, 144)]),
       vocabulary=st.sampled_from(["classic", "extended"]),
       level=st.sampled_from(["L1", "L2", "L3", "L4"]))
def test_the_plan_makes_the_steps_of_the_plain_planner(seed, style, frames, size, vocabulary,
                                                       level):
    batch = generate_batch([seed], canvas_size=size, vocabulary=vocabulary, level=level)
    args = dict(style=style, num_frames=frames, **task_arrays(batch, 0))
    _same_steps(transition_steps(batch.first_frames[0], **args),
                reference_steps(batch.first_frames[0], **args))


def test_slides_without_an_exit_fade_in_the_plan():
    """A crowded scene: some removed objects have no clear exit and fade in place."""
    for seed in range(200):
        batch = generate_batch([seed], level="L4")
        args = dict(style="slide", num_frames=16, **task_arrays(batch, 0))
        plan = plan_transition(batch.first_frames[0], **args)
        middle = plan.drawn[8]
        still = middle & (plan.left[8] == plan.before[0, :, 1]) & (plan.top[8] == plan.before[0, :, 2])
        if still.any():
            assert (plan.fill[8][still] != plan.fill[0][still]).any()   # fading instead
            _same_steps(plan.steps(), reference_steps(batch.first_frames[0], **args))
            return
    pytest.skip("no slide without an exit in 200 seeds")


def test_a_bad_style_is_refused():
    batch = generate_batch([1])
    with pytest.raises(ParameterError, match="style must be one of"):
        plan_transition(batch.first_frames[0], style="wipe", num_frames=4, **task_arrays(batch, 0))
