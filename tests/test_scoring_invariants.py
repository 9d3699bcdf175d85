""""Do not do anything to other objects" as invariants: every kept object keeps its first
footprint, colour and shape in every frame (voted over the frames around), every removed object
leaves background, a removed object's identity follows its place; and the very low bitrate
(heavy block artefacts) changes none of it. One cheap video per kind of change."""
import numpy as np
import pytest

from objsub_fast import generate_batch
from objsub_fast.draw.render import sprite
from objsub_fast.scoring import THRESHOLDS, score_video, write_video
from objsub_fast.testing.controls import LOW_BITRATE, caught, control_frames, control_tasks
from objsub_fast.testing.outputs import reshape, visible_window
from objsub_fast.task.vocabulary import COLOR_RGB, COLORS, OUTLINE_RGB, SHAPE_TABLE

FRAMES = 16
PUSH_IN = "256x256 4% push-in"


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


@pytest.fixture(scope="module")
def tasks_by_look():
    return {look: control_tasks(seed=0, look=look) for look in ("flat", "solid")}


def _scored(batch, i, control, tmp_path, shape="256x256", options=None):
    path = tmp_path / f"{control}_{i}_{len(shape)}.mp4"
    frames = control_frames(batch, i, control, 33, window=visible_window(shape, batch.canvas_size))
    write_video(path, reshape(frames, shape), options=options or {})
    return score_video(batch.task(i), path)


@pytest.mark.parametrize("look,i,control", [
    ("flat", 2, "slight_growth"), ("flat", 7, "jitter"), ("solid", 16, "ground_truth"),
    ("solid", 16, "staggered")])
def test_correct_videos_under_a_push_in_pass(tasks_by_look, tmp_path, look, i, control):
    # Each failed before: a pixel count of the silhouette read a push-in's resampled rim as
    # growth ("grew by 22%"), and a sharp comparison lost 0.15 of overlap to the blur of a
    # 20 px cone, confirming a misread shape ("changed shape").
    res = _scored(tasks_by_look[look], i, control, tmp_path, PUSH_IN)
    assert res["pass"], res["metrics"]["kept_object_stability"]


@pytest.mark.parametrize("look,i,control,shape", [
    ("solid", 8, "ground_truth", PUSH_IN), ("solid", 20, "ground_truth", "256x256"),
    ("solid", 0, "jitter", PUSH_IN)])
def test_correct_videos_at_a_very_low_bitrate_pass(tasks_by_look, tmp_path, look, i, control,
                                                   shape):
    # Each failed before: task 8's 21 px cone, smeared by the I-frame, read as "stretched
    # (1.3x as tall for its width)" against its own first silhouette; the pale specks the codec
    # leaves where task 20's target was counted 28 px of remnant at 0.02 of its ink; task 0's
    # 21 px pyramid read as a cone in its last frames, its drawing no nearer than its own.
    res = _scored(tasks_by_look[look], i, control, tmp_path, shape, LOW_BITRATE)
    assert res["pass"], {m: v for m, v in res["metrics"].items() if not v["pass"]}


@pytest.mark.parametrize("i,control", [(2, "stretches"), (4, "turns"), (13, "turns")])
def test_a_turn_or_stretch_is_caught_through_heavy_block_artefacts(tasks_by_look, tmp_path, i,
                                                                   control):
    # Their overlap with the first silhouette stays at 0.78-0.80 at 0.015 bit/pixel, where
    # codec smear alone reaches 0.80-0.84: the turn or stretch that explains the silhouette
    # tells them apart.
    res = _scored(tasks_by_look["solid"], i, control, tmp_path, options=LOW_BITRATE)
    assert caught(res, control), res["metrics"]["kept_object_stability"]
    kinds = {c["kind"] for c in res["metrics"]["kept_object_stability"]["changes"]}
    assert kinds & {"turned", "stretched", "shape"}


def test_a_silhouette_is_compared_by_its_ink_not_its_pixel_count():
    from objsub_fast.scoring.tracking.silhouette import drawn_silhouette, overlap_of
    from scipy.ndimage import shift

    sharp = drawn_silhouette("solid", 3, 20, (255, 255, 0))          # a yellow cone
    half = shift(sharp, (0.5, 0.5), order=1)                         # resampled half a pixel
    assert abs(half.sum() / sharp.sum() - 1) < 0.01                  # the ink is kept
    assert overlap_of(sharp, half) > 0.9
    square = drawn_silhouette("solid", 0, 20, (255, 255, 0))
    assert overlap_of(sharp, square) < 0.85                          # another shape is not


def test_a_kept_object_redrawn_as_another_shape_of_its_area_fails():
    # A kept 30 px sphere becomes a 27 px cube (about its area) from frame 4 on: its
    # silhouette overlaps its first one about 0.84, above the overlap floor, so only the
    # shape read-out sees it, borne out by the silhouette being nearer the cube's drawing.
    sphere, cube = (1, "blue", "sphere", 20, 70, 30), (1, "blue", "cube", 21, 71, 27)
    kept = _kept_object_that_becomes(sphere, cube, 4)
    assert not kept["pass"] and kept["changed_shape"] == [1], kept
    # ... and the same video without the redrawing passes
    assert _kept_object_that_becomes(sphere, sphere, 4)["pass"]


def _kept_object_that_becomes(first, then, frame):
    """``kept_object_stability`` of a video whose kept object 1 is drawn as ``first``, and as
    ``then`` from ``frame`` on, beside a kept green pyramid and a red cube removed at frame 8."""
    target, other = (0, "red", "cube", 14, 14, 20), (2, "green", "pyramid", 80, 80, 30)
    rec = _record([target, first, other], [0])
    frames = [_frame([other] + ([target] if f < 8 else []) + [first if f < frame else then])
              for f in range(FRAMES)]
    return score_video(rec, np.stack(frames))["metrics"]["kept_object_stability"]


@pytest.fixture(scope="module")
def extended_flat():
    return control_tasks(seed=0, vocabulary="extended", look="flat")


@pytest.mark.parametrize("i,control,shape", [
    (5, "jitter", "256x256"), (5, "slight_growth", "256x256"), (6, "jitter", "256x256"),
    (6, "ground_truth", PUSH_IN)])
def test_outlined_shapes_whose_fill_the_codec_pales_keep_their_silhouette(extended_flat,
                                                                          tmp_path, i, control,
                                                                          shape):
    # Each failed before as "changed shape (overlap 0.73-0.77)": at 0.015 bit/pixel the codec
    # pales the fill of a 21-24 px outlined dome or hourglass in some frames, and a silhouette
    # weighed by its first typical ink read the paler fill as less object. Its ink now counts
    # over the object's typical ink in that frame (and its area must shrink in both readings).
    res = _scored(extended_flat, i, control, tmp_path, shape, LOW_BITRATE)
    assert res["pass"], {m: v for m, v in res["metrics"].items() if not v["pass"]}


def test_a_shaded_solid_whose_colour_bleeds_into_its_rim_has_not_grown(tmp_path):
    # A 21 px yellow pillar (a cylinder) under a push-in at 0.015 bit/pixel: the codec bleeds
    # pale yellow around it and pales its shaded side. Its pixels over the frame's median ink
    # read 26% larger, over its first median ink at most 20%: a size change is what both show.
    batch = control_tasks(seed=0, vocabulary="extended", look="solid")
    res = _scored(batch, 8, "ground_truth", tmp_path, PUSH_IN, LOW_BITRATE)
    assert res["pass"], res["metrics"]["kept_object_stability"]


def test_one_frame_of_another_colour_in_place_does_not_drop_a_kept_object(extended_flat,
                                                                          tmp_path):
    # A 24 px red hourglass's smeared fill reads orange in two frames under a push-in at
    # 0.015 bit/pixel. It was left unmatched there, so it counted as vanished; in place and of
    # its shape it is the object, and its colour is voted over its track.
    res = _scored(extended_flat, 2, "jitter", tmp_path, PUSH_IN, LOW_BITRATE)
    kept = res["metrics"]["kept_object_stability"]
    assert kept["pass"] and kept["vanished"] == [] and kept["changed_color"] == [], kept


def test_a_kept_object_recoloured_in_place_fails_as_changed_colour():
    # In place, a component of another colour now keeps the object's track: a kept object
    # that really changes colour is still caught, by its colour read-out, not as vanished.
    blue, orange = (1, "blue", "sphere", 20, 70, 30), (1, "orange", "sphere", 20, 70, 30)
    kept = _kept_object_that_becomes(blue, orange, 6)
    assert not kept["pass"] and kept["changed_color"] == [1] and kept["vanished"] == [], kept


def test_an_added_lookalike_beside_a_kept_object_is_added():
    # A second blue cube appears just below a kept blue cube, its box touching the kept
    # cube's zone (its square grown by a quarter of its size). Ink counts as the object's
    # remnant only when its centre lies in the zone: this one is an added object.
    target, cube = (0, "red", "sphere", 90, 14, 20), (1, "blue", "cube", 20, 20, 24)
    twin = (9, "blue", "cube", 20, 20 + 24 + 4, 24)
    rec = _record([target, cube], [0])
    frames = [_frame(([target] if f < 6 else []) + [cube] + ([twin] if f >= 6 else []))
              for f in range(FRAMES)]
    res = score_video(rec, np.stack(frames))
    added = res["metrics"]["added_objects"]
    assert not added["pass"] and added["added"][0]["frame"] == 6, added
    assert res["metrics"]["kept_object_stability"]["pass"], res["metrics"]


@pytest.mark.parametrize("i,control,shape", [(15, "jump", "256x256"), (1, "added_object", PUSH_IN)])
def test_a_jump_and_an_added_object_are_caught_by_their_metric_at_a_very_low_bitrate(
        tasks_by_look, tmp_path, i, control, shape):
    # Each failed before by another metric only. Task 15's green cube jumps 205 px and lands as
    # a blur that reads "sphere", so it was lost, not followed: it fails as a teleport now.
    # Task 1's added red pyramid sits 1 px into the zone of a kept red pyramid above it and was
    # taken for that pyramid's remnant: a remnant's centre lies in the zone.
    res = _scored(tasks_by_look["solid"], i, control, tmp_path, shape, LOW_BITRATE)
    assert caught(res, control), {m: v for m, v in res["metrics"].items() if not v["pass"]}


def test_a_kept_object_that_vanishes_as_its_lookalike_appears_far_away_jumped():
    # The blue cube goes at frame 8 as a blue sphere of its size appears 90 px away and stays:
    # read as a jump of the cube (the shape read where it lands is not trusted to follow it).
    target, cube = (0, "red", "pyramid", 90, 14, 20), (1, "blue", "cube", 14, 14, 24)
    landed = (9, "blue", "sphere", 80, 80, 26)
    rec = _record([target, cube], [0])
    frames = [_frame(([target] if f < 5 else []) + ([cube] if f < 8 else [landed]))
              for f in range(FRAMES)]
    mc = score_video(rec, np.stack(frames))["metrics"]["motion_continuity"]
    assert not mc["pass"] and [j["id"] for j in mc["teleported"]] == [1], mc
    assert mc["teleported"][0]["frame"] == 8 and mc["max_step_px"] > mc["step_limit_px"]
