""""Do not do anything to other objects" as invariants: every kept object keeps its first
footprint, colour and shape in every frame (voted over the frames around), every removed object
leaves background, a removed object's identity follows its place; and the very low bitrate
(heavy block artefacts) changes none of it. One cheap video per kind of change."""
import numpy as np
import pytest

from objsub_fast import generate_batch
from objsub_fast.draw.render import sprite
from objsub_fast.scoring import THRESHOLDS, score_video, write_video
from objsub_fast.scoring.controls import LOW_BITRATE, caught, control_frames, control_tasks
from objsub_fast.task.vocabulary import COLOR_RGB, COLORS, OUTLINE_RGB, SHAPE_TABLE

FRAMES = 16


@pytest.fixture(scope="module")
def tasks():
    return control_tasks(seed=7)


def _kept(res):
    return res["metrics"]["kept_object_stability"]


@pytest.mark.parametrize("control,kind,low,high", [
    ("grows", "grew", 25, 45), ("shrinks", "shrank", 25, 45), ("turns", "turned", 30, 50),
    ("stretches", "stretched", 1.3, 1.9)])
def test_a_kept_object_that_changes_its_footprint_fails_with_the_change_in_words(
        tasks, control, kind, low, high):
    i = 3
    res = score_video(tasks.task(i), control_frames(tasks, i, control, FRAMES))
    kept = _kept(res)
    assert not kept["pass"] and not res["pass"]
    change = [c for c in kept["changes"] if c["id"] in kept["changed_footprint"]]
    assert len(change) == 1 and change[0]["kind"] == kind, kept["changes"]
    assert low <= change[0]["value"] <= high and kind in change[0]["change"]
    # the change ramps up over the first quarter: it is seen before mid-video
    assert 1 <= change[0]["frame"] <= FRAMES // 2
    # the displacement and the colour did not see it
    assert not kept["moved"] and not kept["changed_color"]


def test_a_kept_object_that_grows_slightly_or_jitters_still_passes(tasks):
    for i, control in [(3, "slight_growth"), (8, "jitter")]:
        res = score_video(tasks.task(i), control_frames(tasks, i, control, FRAMES))
        assert res["pass"], (control, _kept(res))


@pytest.mark.parametrize("control,i", [("remnant", 0), ("remnant", 3), ("half_shrink", 3),
                                       ("unfinished", 10)])
def test_a_target_not_back_to_background_is_not_removed(tasks, control, i):
    # Each of these counted as removed before: shapes under a quarter of the smallest object's
    # area were ignored.
    res = score_video(tasks.task(i), control_frames(tasks, i, control, FRAMES))
    rule = res["metrics"]["rule_accuracy"]
    assert not rule["pass"] and not res["pass"] and rule["removed_ids"] == []
    left = rule["left_behind"]
    assert set(left) == set(map(str, rule["target_ids"]))
    floor = THRESHOLDS["removal"]["remnant_floor_px"]
    assert all(v["remnant_px"] >= floor for v in left.values())
    # the shrink stopped at 60% is still shrinking in the final frame
    assert all(v["still_going"] == (control == "unfinished") for v in left.values())


def test_a_finished_removal_leaves_background(tasks):
    for i, style in [(5, "fade"), (10, "shrink"), (3, "slide")]:
        gt = score_video(tasks.task(i), control_frames(tasks, i, "ground_truth", FRAMES,
                                                       style=style))
        assert gt["pass"] and gt["metrics"]["rule_accuracy"]["left_behind"] == {}


def test_ground_truth_and_jitter_pass_at_a_very_low_bitrate(tasks, tmp_path):
    # 0.01-0.02 bit/pixel, 25-29 dB: block artefacts misread small objects' shapes for a
    # frame or two (task 13's jitter failed `changed_shape` before read-outs were voted)
    for i, control in [(13, "jitter"), (5, "ground_truth")]:
        path = tmp_path / f"{control}.mp4"
        write_video(path, control_frames(tasks, i, control, 33), options=LOW_BITRATE)
        res = score_video(tasks.task(i), path)
        assert caught(res, control), (control, res["metrics"])


def _record(objects, remove, canvas=128):
    """A task record of ``objects`` (id, colour, shape name, left, top, size)."""
    b = generate_batch([1], canvas_size=canvas, render=False)
    rec = b.task(0)
    names = [s for s, _ in SHAPE_TABLE]
    data = rec["object_subtraction_data"]
    data["objects"] = [{"id": k, "color": c, "shape": s, "x": x + z / 2, "y": y + z / 2,
                        "size": z, "area": int((sprite(names.index(s), z) > 0).sum())}
                       for k, c, s, x, y, z in objects]
    data["remove_object_ids"] = list(remove)
    data["keep_object_ids"] = [o[0] for o in objects if o[0] not in remove]
    data["rule"]["target_object_ids"] = list(remove)
    data["num_objects"], data["num_removed"] = len(objects), len(remove)
    data["num_kept"] = len(objects) - len(remove)
    return rec


def _frame(objects, canvas=128):
    img = np.full((canvas, canvas, 3), 255, np.uint8)
    names = [s for s, _ in SHAPE_TABLE]
    for _, color, shape, left, top, s in objects:
        sp = sprite(names.index(shape), s)
        view = img[top:top + s, left:left + s]
        view[sp == 1] = OUTLINE_RGB
        view[sp == 2] = COLOR_RGB[COLORS.index(color)]
    return img


def test_a_removed_target_is_not_found_again_in_a_lookalike_elsewhere():
    # Two red cubes to remove, 113 px apart: the small one shrinks away first; then the big
    # one shrinks in steps, through the small one's size (4 frames), and goes. The small one's
    # track must not be re-acquired over there (it was "reappeared" before).
    kept = [(2, "blue", "sphere", 14, 90, 20), (3, "green", "pyramid", 90, 12, 20)]
    small, big = (0, "red", "cube", 14, 14, 16), (1, "red", "cube", 92, 92, 24)
    rec = _record(kept + [small, big], [0, 1])
    frames = []
    for f in range(FRAMES):
        objs = list(kept)
        if f < 2:
            objs.append(small)
        elif f < 5:
            s = 16 - 4 * (f - 1)
            objs.append((0, "red", "cube", 22 - s // 2, 22 - s // 2, s))
        if f < 9:
            objs.append(big)
        elif f < 13:
            objs.append((1, "red", "cube", 96, 96, 16))
        frames.append(_frame(objs))
    res = score_video(rec, np.stack(frames))
    mc = res["metrics"]["motion_continuity"]
    assert mc["reappeared"] == [] and res["metrics"]["rule_accuracy"]["pass"], res["metrics"]
    # ... while the small one coming back where it was is a reappearance
    back = np.stack(frames[:12] + [_frame(kept + [small])] * 4)
    assert score_video(rec, back)["metrics"]["motion_continuity"]["reappeared"] == [0]
