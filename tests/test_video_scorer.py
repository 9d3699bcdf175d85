"""Every ground-truth video passes the project's own scorer: each rule kind, each style, at
256x256, and a few tasks at 1024x1024 (VBVR-Bench's size)."""
import numpy as np
import pytest

from objsub_fast.scoring import score_video
from objsub_fast.scoring.controls import control_tasks
from objsub_fast.transitions import STYLE_NAMES
from objsub_fast.video import VideoSpec, encode_transitions


def _failures(batch, tasks, style, tmp_path):
    failed = []
    for i, mp4 in zip(tasks, encode_transitions(batch, VideoSpec(style), tasks)):
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
