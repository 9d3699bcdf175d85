"""Controls encoded to real H.264 mp4: the scorer must pass the ground truth and catch every
negative control with its intended metric, at the canvas size and at 1280x720 letterboxed."""
import json

import pytest

from objsub_fast.scoring import score_video, write_video
from objsub_fast.testing.controls import CONTROLS, caught, control_frames, control_tasks
from objsub_fast.task.vocabulary import KINDS, LEVELS

FRAMES = 16


@pytest.fixture(scope="module")
def tasks():
    return control_tasks(seed=7)


def test_control_tasks_cover_every_level_and_kind(tasks):
    assert tasks.kind.tolist() == list(range(len(KINDS)))
    assert sorted(set(tasks.levels)) == list(LEVELS)


def _run(tasks, tmp_path, i, control, out_size, bar=(0, 0, 0)):
    path = tmp_path / f"{i}_{control}.mp4"
    write_video(path, control_frames(tasks, i, control, FRAMES), out_size=out_size, bar_rgb=bar)
    return score_video(tasks.task(i), path)


#: The controls of kept objects' footprints and of removals left half-done (checked on every
#: third rule kind here, on all of them by benchmarks/bench_score.py).
INVARIANT_CONTROLS = ("grows", "shrinks", "turns", "stretches", "slight_growth", "remnant",
                      "half_shrink", "unfinished", "staggered")
#: The local changes (``local_*``) are measured by benchmarks/bench_score.py (some of them
#: stay below what a person sees on small objects) and judged by tests/test_scoring_residual.py
#: (those a person sees must fail).
LOCAL_CONTROLS = tuple(c for c in CONTROLS if c.startswith("local_"))


#: The other negative controls, each on every other rule kind: control ``j`` (in the order of
#: ``CONTROLS``) on the kinds ``i`` with ``i + j`` even, so that each meets all four levels and
#: each kind meets half of them (every kind with every control: benchmarks/bench_score.py).
NEGATIVE_CONTROLS = tuple(c for c in CONTROLS
                          if c not in ("ground_truth",) + INVARIANT_CONTROLS + LOCAL_CONTROLS)


def _cases(tasks, controls, step):
    """(task, control) pairs: the ground truth on every kind and the ``NEGATIVE_CONTROLS``
    every other kind (step 0); each of ``controls`` every ``step``-th kind otherwise."""
    if step:
        return [(i, c) for i in range(0, len(tasks), step) for c in controls]
    return [(i, c) for i in range(len(tasks)) for j, c in enumerate(controls, 1)
            if c == "ground_truth" or (i + j) % 2 == 0]


@pytest.mark.parametrize("controls,step", [(("ground_truth",) + NEGATIVE_CONTROLS, 0),
                                           (INVARIANT_CONTROLS, 3)])
def test_every_control_at_canvas_size(tasks, tmp_path, controls, step):
    cases = _cases(tasks, controls, step)
    assert {c for _, c in cases} == set(controls)
    for control in controls if not step else ():  # each rotated one on every level
        assert {tasks.levels[i] for i, c in cases if c == control} == set(LEVELS), control
    missed = []
    for i, control in cases:
        try:
            res = _run(tasks, tmp_path, i, control, None)
        except ValueError:      # the task has no object the control could change
            continue
        if not caught(res, control):
            missed.append((KINDS[tasks.kind[i]].name, control, res["metrics"]))
    assert not missed


def test_controls_letterboxed_1280x720(tasks, tmp_path):
    # Every kind gets the ground truth and one negative control (rotating), so every kind and
    # every control appears; the bars are black, coloured or white (the canvas background).
    negatives = [c for c in CONTROLS if CONTROLS[c][1] and c not in LOCAL_CONTROLS]
    bars = [(0, 0, 0), (30, 90, 200), (255, 255, 255)]
    missed = []
    for i in range(len(tasks)):
        for control in ("ground_truth", negatives[i % len(negatives)]):
            try:
                res = _run(tasks, tmp_path, i, control, (1280, 720), bars[i % 3])
            except ValueError:      # the task has no object the control could change
                continue
            if not caught(res, control):
                missed.append((KINDS[tasks.kind[i]].name, control, res["metrics"]))
    assert not missed


def test_negative_controls_fail_for_the_right_reason(tasks):
    i = 0
    res = {c: score_video(tasks.task(i), control_frames(tasks, i, c, FRAMES))
           for c in CONTROLS if c != "staggered" and c not in LOCAL_CONTROLS}  # one target
    target = res["ground_truth"]["metrics"]["rule_accuracy"]["target_ids"]
    assert res["ground_truth"]["metrics"]["rule_accuracy"]["removed_ids"] == target
    assert res["wrong_object"]["metrics"]["removed_object_count"]["pass"]
    assert res["drift"]["metrics"]["kept_object_stability"]["mean_displacement_px"] > 3
    assert res["drift"]["metrics"]["motion_continuity"]["pass"]
    assert res["jump"]["metrics"]["motion_continuity"]["max_step_px"] > 0.25 * 362
    assert res["nothing_removed"]["metrics"]["removed_object_count"]["removed"] == 0
    n = int(tasks.num_objects[i])
    assert res["all_removed"]["metrics"]["removed_object_count"]["removed"] == n
    assert res["all_removed"]["metrics"]["final_object_match"]["iou"] == 0


def test_score_video_result_is_json_and_single_image_skips_motion(tasks, tmp_path):
    from PIL import Image

    i = 4
    res = score_video(tasks.task(i), control_frames(tasks, i, "ground_truth", FRAMES))
    assert json.loads(json.dumps(res))["pass"] is True
    assert res["frames"] == FRAMES and res["error"] is None
    assert res["input"] == {"kind": "array", "size": [256, 256], "content_box": [0, 0, 256, 256]}
    Image.fromarray(tasks.final_frames[i]).save(tmp_path / "final.png")
    img = score_video(tasks.task(i), tmp_path / "final.png")
    assert img["pass"] is True and img["frames"] == 1
    assert img["metrics"]["motion_continuity"]["pass"] is None
    Image.fromarray(tasks.first_frames[i]).save(tmp_path / "first.png")
    assert score_video(tasks.task(i), tmp_path / "first.png")["pass"] is False


def test_unscorable_inputs_give_error_records(tasks, tmp_path):
    (tmp_path / "empty.mp4").write_bytes(b"")
    for record, source, word in [(tasks.task(0), tmp_path / "nope.mp4", "missing"),
                                 (tasks.task(0), tmp_path / "empty.mp4", "empty"),
                                 ({"id": "x"}, tasks.final_frames[0], "bad task record")]:
        res = score_video(record, source)
        assert res["pass"] is False and word in res["error"] and res["metrics"] == {}


def test_motion_continuity_sees_reappearance_and_whole_frame_changes(tasks):
    i = 6
    n = 32
    gt = control_frames(tasks, i, "ground_truth", n, style="fade")
    # the removed objects come back for 4 frames after being gone, then vanish again
    back = gt.copy()
    back[-6:-2] = tasks.first_frames[i]
    res = score_video(tasks.task(i), back)
    mc = res["metrics"]["motion_continuity"]
    assert not mc["pass"] and mc["reappeared"] == res["metrics"]["rule_accuracy"]["target_ids"]
    # one frame whose background changes colour: objects fine, whole frame changes
    flash = gt.copy()
    bg = (flash[n // 2] == 255).all(axis=-1)
    flash[n // 2][bg] = (120, 170, 255)  # the background turns blue-ish for one frame
    mc = score_video(tasks.task(i), flash)["metrics"]["motion_continuity"]
    assert not mc["pass"] and mc["max_global_change"] > 0.5 and not mc["reappeared"]
    assert score_video(tasks.task(i), gt)["metrics"]["motion_continuity"]["max_global_change"] \
        == 0


@pytest.mark.parametrize("name,codec", [("v.webm", "libvpx-vp9"), ("v.gif", "gif"),
                                        ("v.mkv", "libx265")])
def test_other_codecs_score_like_h264(tasks, tmp_path, name, codec):
    for i, control in [(2, "ground_truth"), (9, "drift"), (15, "jump")]:
        path = tmp_path / f"{control}_{name}"
        write_video(path, control_frames(tasks, i, control, FRAMES), codec=codec)
        assert caught(score_video(tasks.task(i), path), control), (codec, control)


def test_verdicts_follow_the_thresholds_table(tasks, monkeypatch):
    from objsub_fast.scoring import THRESHOLDS

    i = 11
    drift = control_frames(tasks, i, "drift", FRAMES)
    assert not score_video(tasks.task(i), drift)["metrics"]["kept_object_stability"]["pass"]
    monkeypatch.setitem(THRESHOLDS["kept_object_stability"], "max_mean_displacement_px", 10.0)
    # the drifted object still differs from its expected frame: the residual's row decides too
    res = score_video(tasks.task(i), drift)["metrics"]["kept_object_stability"]
    assert not res["pass"] and res["changed_appearance"] and not res["moved"]
    monkeypatch.setitem(THRESHOLDS["residual"], "min_area_px", 10 ** 9)      # no region
    monkeypatch.setitem(THRESHOLDS["residual"], "diffuse_floor", 10.0 ** 9)   # nor a thin one
    assert score_video(tasks.task(i), drift)["pass"]
    monkeypatch.setitem(THRESHOLDS["final_object_match"], "min_iou", 1.01)
    assert not score_video(tasks.task(i), drift)["metrics"]["final_object_match"]["pass"]
