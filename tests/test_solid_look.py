"""The solid look: the same tasks drawn as lit solids, with exact masks, in videos and datasets."""
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from skimage.color import rgb2hsv
from skimage.measure import label

from objsub_fast import generate_batch, iter_samples
from objsub_fast.cli import main
from objsub_fast.draw.solids import solid_shading, solid_sprite
from objsub_fast.runtime.errors import ParameterError
from objsub_fast.ground_truth.transitions import (STYLE_NAMES, draw_steps, plan_transition,
                                                  render_transition, task_arrays)
from objsub_fast.ground_truth.transition_video import pack_plan
from objsub_fast.ground_truth.h264.encoder import EncoderSettings
from objsub_fast.ground_truth.video import (OBJSUB_LOOK_SETTINGS, ObjsubEncoder, VideoSpec,
                                            encode_transitions, look_settings)
from objsub_fast.task.vocabulary import COLOR_TABLE, LEVELS, SHAPE_TABLE
from guarantees import check_pixels, check_task, nearest_colour

SHAPE_CODES = {names[0]: code for code, names in enumerate(SHAPE_TABLE)}
MIXED = ["L1", "L2", "L3", "L4"] * 3


@pytest.fixture(scope="module")
def looks():
    """The same 12 tasks in both looks, with instance maps."""
    return {look: generate_batch(range(12), level=MIXED, masks=True, look=look)
            for look in ("flat", "solid")}


def test_same_seed_same_task_in_both_looks(looks):
    flat, solid = looks["flat"], looks["solid"]
    assert flat.prompts == solid.prompts
    for name in ("num_objects", "left", "top", "size", "color", "shape", "removed", "kind"):
        np.testing.assert_array_equal(getattr(flat, name), getattr(solid, name))
    for i in range(len(flat)):
        a, b = flat.task(i), solid.task(i)
        assert "look" not in a and b["look"] == "solid"
        assert a["generator_version"] == "0.1.0" and b["generator_version"] == "0.9.0"
        for o in a["object_subtraction_data"]["objects"] + b["object_subtraction_data"]["objects"]:
            o.pop("area")
        for record in (a, b):
            for key in ("look", "generator_version"):
                record.pop(key, None)
        assert a == b
    assert not np.array_equal(flat.first_frames, solid.first_frames)


def test_solid_frames_keep_every_guarantee(looks):
    batch = looks["solid"]
    for i in range(len(batch)):
        check_task(batch.task(i))
        check_pixels(batch, i)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seeds=st.lists(st.integers(0, 2**63 - 1), min_size=1, max_size=6),
       level=st.sampled_from(LEVELS), side=st.sampled_from([128, 200, 256, 384]),
       vocabulary=st.sampled_from(["classic", "extended"]))
def test_solid_guarantees_hold_for_any_seed_canvas_and_vocabulary(seeds, level, side,
                                                                  vocabulary):
    batch = generate_batch(seeds, level=level, canvas_size=side, masks=True, look="solid",
                           vocabulary=vocabulary)
    for i in range(len(batch)):
        check_task(batch.task(i))
        check_pixels(batch, i)


@pytest.mark.parametrize("shape", range(len(SHAPE_TABLE)), ids=lambda c: SHAPE_TABLE[c][0])
@pytest.mark.parametrize("size", [12, 31, 120])
def test_each_solid_fills_its_footprint_in_one_piece_of_row_runs(shape, size):
    mask, rgb = solid_sprite(shape, size, COLOR_TABLE["teal"])
    rows, cols = np.nonzero(mask)
    # the footprint is the bounding square: the solid reaches its top and bottom or both sides
    assert rows.max() - rows.min() + 1 >= size - 1 or cols.max() - cols.min() + 1 >= size - 1
    assert label(mask, connectivity=2).max() == 1
    for row in mask:
        runs = np.flatnonzero(np.diff(np.concatenate([[0], row.astype(int), [0]])))
        assert len(runs) in (0, 2)            # one run per row: the stamp copies it whole
    assert (rgb[~mask] == 255).all()          # untouched pixels are the background


@pytest.mark.parametrize("color", list(COLOR_TABLE))
@pytest.mark.parametrize("shape", range(len(SHAPE_TABLE)), ids=lambda c: SHAPE_TABLE[c][0])
def test_shading_keeps_the_colour_name(shape, color):
    for size in (12, 40, 160):
        mask, rgb = solid_sprite(shape, size, COLOR_TABLE[color])
        assert nearest_colour(np.median(rgb[mask], axis=0)) == color, size


def _shades(shape, size=64):
    """The distinct lightness factors of a solid's fully covered pixels (red: k = R / 255
    below 1, 1 + G / 255 above)."""
    coverage, dark, light = solid_shading(shape, size)
    full = coverage == 1
    return np.round(dark[full] + light[full], 3)


def test_cube_shows_three_faces_in_three_shades_lit_from_above_left():
    mask, rgb = solid_sprite(SHAPE_CODES["cube"], 65, (255, 0, 0))
    shades = _shades(SHAPE_CODES["cube"])
    values, counts = np.unique(shades, return_counts=True)
    assert len(values[counts > 50]) == 3
    top, front, side = rgb[3, 32], rgb[40, 20], rgb[40, 58]
    assert top.sum() > front.sum() > side.sum()    # light from above, the right side in shade


def test_pyramid_shows_two_faces_lit_from_the_left():
    values, counts = np.unique(_shades(SHAPE_CODES["pyramid"]), return_counts=True)
    assert len(values[counts > 50]) >= 2
    mask, rgb = solid_sprite(SHAPE_CODES["pyramid"], 64, (0, 0, 255))
    assert rgb[50, 20, 2] > rgb[50, 50, 2]


def test_sphere_is_shaded_smoothly_with_a_small_highlight_at_the_upper_left():
    size = 80
    mask, rgb = solid_sprite(SHAPE_CODES["sphere"], size, (0, 0, 255))
    shades = _shades(SHAPE_CODES["sphere"], size)
    assert len(np.unique(shades)) > 200                 # smooth, not a few flat shades
    brightest = np.unravel_index(np.argmax(rgb.sum(-1) * mask), mask.shape)
    assert brightest[0] < size / 2 and brightest[1] < size / 2
    highlight = (rgb[..., 0] > 100) & mask             # blue lightened toward white
    assert 0 < highlight.sum() < 0.05 * mask.sum()
    assert rgb[20, 20].sum() > rgb[60, 60].sum()


def test_cone_and_round_solids_have_elliptical_rims():
    """The lowest rows of a cone, dome and pillar narrow like an ellipse's, centred."""
    for name in ("cone", "dome", "pillar"):
        mask, _ = solid_sprite(SHAPE_CODES[name], 100, (255, 0, 0))
        rows = np.flatnonzero(mask.any(1))
        widths = [mask[r].sum() for r in rows[-8:]]
        assert widths == sorted(widths, reverse=True) and widths[0] > 2 * widths[-1], name
        centres = [np.flatnonzero(mask[r]).mean() for r in rows[-8:]]
        assert np.allclose(centres, 49.5, atol=1.0), name


def test_hourglass_is_two_cones_with_a_neck_and_diamond_four_faces():
    mask, _ = solid_sprite(SHAPE_CODES["hourglass"], 100, (255, 0, 0))
    widths = mask.sum(1)
    assert widths[50] < 0.3 * widths[15] and widths[50] < 0.3 * widths[85] and widths[50] > 0
    values, counts = np.unique(_shades(SHAPE_CODES["diamond"]), return_counts=True)
    assert len(values[counts > 50]) == 4


def test_hue_never_changes_only_lightness():
    for shape in range(len(SHAPE_TABLE)):
        mask, rgb = solid_sprite(shape, 60, COLOR_TABLE["orange"])
        hsv = rgb2hsv(rgb[mask].reshape(1, -1, 3) / 255.0)[0]
        coloured = hsv[:, 1] > 0.15
        assert np.abs(hsv[coloured, 0] - rgb2hsv(np.array([[[1.0, 165 / 255, 0]]]))[0, 0, 0]
                      ).max() < 0.02


def test_bad_look_is_one_clear_error():
    with pytest.raises(ParameterError, match="look must be one of flat, solid, got 'cel'"):
        generate_batch([1], look="cel")


@pytest.mark.parametrize("style", STYLE_NAMES)
def test_solid_videos_change_only_the_removed_objects(looks, style):
    batch = looks["solid"]
    frames = 10
    video = render_transition(batch, style, num_frames=frames)
    np.testing.assert_array_equal(video[:, 0], batch.first_frames)
    np.testing.assert_array_equal(video[:, -1], batch.final_frames)
    for i in range(len(batch)):
        removed = np.flatnonzero(batch.removed[i, :batch.num_objects[i]])
        kept = np.isin(batch.instance_maps[i], [k + 1 for k in range(batch.num_objects[i])
                                                if k not in removed])
        assert (video[i][:, kept] == batch.first_frames[i][kept]).all()
        if style == "fade":   # a fading solid keeps its shading, paler: no new pixel is drawn
            moving = np.isin(batch.instance_maps[i], removed + 1)
            assert (video[i][:, ~moving] == batch.first_frames[i][~moving]).all()
            middle = video[i, frames // 2][moving].astype(int)
            assert (middle >= batch.first_frames[i][moving]).all()


@pytest.mark.parametrize("style", STYLE_NAMES)
def test_compiled_solid_video_equals_frame_by_frame(looks, style):
    batch = looks["solid"]
    for i in (0, 5):
        plan = plan_transition(batch.first_frames[i], style=style, num_frames=9,
                               **task_arrays(batch, i))
        one, whole = ObjsubEncoder(256, 256), ObjsubEncoder(256, 256)
        packed = pack_plan(plan)
        one.use_weighted_prediction(packed.weighted)
        for (frame, step), weights in zip(draw_steps(plan.steps(), batch.first_frames[i],
                                                     batch.final_frames[i]), packed.weights):
            one.add(frame, step.changed, step.motion, weights)
        whole.add_transition(plan, batch.first_frames[i], batch.final_frames[i])
        assert one.finish() == whole.finish(), (style, i)


def test_each_look_encodes_with_its_own_objsub_settings(looks):
    """Flat videos keep the encoder's defaults; solid ones use the solid look's QPs."""
    assert OBJSUB_LOOK_SETTINGS["flat"] == {} and look_settings("objsub") == EncoderSettings()
    solid = look_settings("objsub", "solid")
    assert solid != EncoderSettings()
    assert look_settings("x264", "solid") == look_settings("x264", "flat")
    spec = VideoSpec("fade", num_frames=6)
    for look, own, other in (("flat", EncoderSettings(), solid),
                             ("solid", solid, EncoderSettings())):
        videos = encode_transitions(looks[look], spec, tasks=[1])
        assert videos == encode_transitions(looks[look], spec, [1], own), look
        assert videos != encode_transitions(looks[look], spec, [1], other), look


def test_iter_samples_and_records_carry_the_look():
    sample = next(iter(iter_samples(1, look="solid")))
    record = json.loads(sample["json"])
    assert record["look"] == "solid" and record["generator_version"] == "0.9.0"
    assert "look" not in json.loads(next(iter(iter_samples(1)))["json"])


@pytest.mark.parametrize("fmt", ["webdataset", "vmevalkit", "vbvr", "vbvr-bench"])
def test_every_format_writes_and_verifies_solid_videos(tmp_path, fmt, capsys):
    out = tmp_path / fmt
    args = ["generate", "--out", str(out), "--count", "2", "--levels", "L1,L3", "--format",
            fmt, "--look", "solid", "--video-frames", "9", "--canvas-size", "128", "--workers", "1"]
    if fmt in ("webdataset", "vmevalkit"):
        args.append("--videos")
    assert main(args) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["look"] == "solid"
    assert manifest["config"]["generator_version"] == "0.11.0"   # objsub videos
    h264 = manifest["config"]["video_encoder"]["settings"]["h264"]
    assert h264 == look_settings("objsub", "solid").as_dict() != EncoderSettings().as_dict()
    assert main(["verify", str(out)]) == 0


def test_cli_refuses_an_unknown_look(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit:
        main(["generate", "--out", str(tmp_path / "x"), "--count", "2", "--look", "cel"])
    assert exit.value.code == 2
    assert "--look must be one of flat, solid, got 'cel'" in capsys.readouterr().err
    assert not (tmp_path / "x" / "manifest.json").exists()
