"""Every ground-truth video passes the project's own scorer: each rule kind, each style, at
256x256, and a few tasks at 1024x1024 (VBVR-Bench's size)."""
import numpy as np
import pytest

from objsub_fast.scoring import score_video
from objsub_fast.scoring.controls import control_tasks
from objsub_fast.transitions import STYLE_NAMES
from objsub_fast.video import VideoSpec, encode_transitions


def _failures(batch, tasks, style, tmp_path, frames=61):
    failed = []
    for i, mp4 in zip(tasks, encode_transitions(batch, VideoSpec(style, num_frames=frames), tasks)):
        path = tmp_path / f"{style}-{i}.mp4"
        path.write_bytes(mp4)
        result = score_video(batch.task(i), path)
        if not result["pass"]:
            failed.append((result["rule_kind"], result["error"],
                           [m for m, r in result["metrics"].items() if not r["pass"]]))
    return failed


@pytest.fixture(scope="module")
def tasks_256():
    return control_tasks(canvas_size=256)


@pytest.fixture(scope="module")
def tasks_1024():
    return control_tasks(canvas_size=1024)


@pytest.mark.parametrize("style", STYLE_NAMES)
def test_every_rule_kind_passes_at_256(style, tasks_256, tmp_path):
    batch = tasks_256
    assert len(set(batch.kind.tolist())) == len(batch) == 21
    assert _failures(batch, range(len(batch)), style, tmp_path) == []


@pytest.mark.parametrize("style", STYLE_NAMES)
def test_ground_truth_passes_at_1024(style, tasks_1024, tmp_path):
    batch = tasks_1024
    # one task per level, a different kind for each style
    offset = STYLE_NAMES.index(style)
    per_level = [np.flatnonzero(np.array(batch.levels) == lv) for lv in ("L1", "L2", "L3", "L4")]
    tasks = [int(hits[offset % len(hits)]) for hits in per_level]
    assert _failures(batch, tasks, style, tmp_path) == []


# The scorer reads at most six colours per scene today (``detect.class_lut``; another branch
# lifts that limit), so the extended-vocabulary tasks are those whose scene uses <= 6 colours.
EXTENDED = dict(vocabulary="extended", max_colors=6)


@pytest.fixture(scope="module")
def extended_256():
    return control_tasks(**EXTENDED)


@pytest.mark.parametrize("style", STYLE_NAMES)
def test_every_rule_kind_passes_with_the_extended_vocabulary(style, extended_256, tmp_path):
    batch = extended_256
    assert len(set(batch.kind.tolist())) == len(batch) == 21
    used = {int(c) for i, n in enumerate(batch.num_objects) for c in batch.color[i, :n]}
    assert max(used) >= 6  # colours beyond the classic six are drawn
    assert _failures(batch, range(len(batch)), style, tmp_path) == []


def test_flat_named_extended_vocabulary_passes_every_kind(tmp_path):
    batch = control_tasks(seed=3, shape_names="flat", **EXTENDED)
    failed = []
    for style in STYLE_NAMES:  # each kind in one style, rotating
        failed += _failures(batch, range(STYLE_NAMES.index(style), len(batch), 3), style,
                            tmp_path)
    assert failed == []


@pytest.mark.parametrize("style", STYLE_NAMES)
def test_extended_vocabulary_passes_at_1024(style, tmp_path):
    """Scaled objects and an 8-px outline: one L1 and one L4 kind per style."""
    batch = control_tasks(canvas_size=1024, search=60, shape_names="flat", **EXTENDED)
    offset = STYLE_NAMES.index(style)
    per_level = [np.flatnonzero(np.array(batch.levels) == lv) for lv in ("L1", "L4")]
    assert _failures(batch, [int(h[offset % len(h)]) for h in per_level], style, tmp_path) == []
