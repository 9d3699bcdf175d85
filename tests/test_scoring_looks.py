"""The scorer reads the task's look: solid-look tasks are scored as flat ones are (their shaded
faces read as their colour, their silhouettes and shape templates come from the solid
pictures); solid ground truth passes and solid negatives fail by their intended metric."""
import numpy as np
import pytest

from objsub_fast import generate_batch
from objsub_fast.runtime.errors import TaskError
from objsub_fast.scoring import render_transition, score_video, write_video
from objsub_fast.testing.controls import caught, control_frames
from objsub_fast.scoring.tracking.detect import (BG, COLOR_CLASS0, OTHER, OUTLINE, Detector, class_lut,
                                        object_mask)
from objsub_fast.ground_truth.transitions import draw_sprite, _solid, task_arrays, whiten
from objsub_fast.scoring.reading.looks import LOOKS, picture, shade_references
from objsub_fast.scoring.judging.metrics import TaskModel
from objsub_fast.task.vocabulary import COLOR_RGB, EXTENDED, SHAPE_TABLE

FRAMES = 12


@pytest.fixture(scope="module")
def solid():
    return generate_batch([3, 4], level=["L2", "L3"], look="solid")


def _cells(rgb):
    rgb = np.asarray(rgb, np.uint32)
    return ((rgb[..., 0] >> 2) << 12) | ((rgb[..., 1] >> 2) << 6) | (rgb[..., 2] >> 2)


def test_the_flat_colour_table_is_the_palettes_alone():
    assert LOOKS["flat"].shades == ()
    assert len(shade_references(tuple(map(tuple, COLOR_RGB.tolist())), "flat")[0]) == 0
    assert class_lut(None, "flat") is class_lut()


@pytest.mark.parametrize("colors,stray", [(COLOR_RGB, 0.02), (EXTENDED.rgb, 0.35)])
def test_a_solids_pixels_read_as_its_colour(colors, stray):
    # Shading keeps the hue, so a solid's faces read as its colour; a few blended edge pixels
    # (and, among the extended ten, a dark cyan face that is teal itself) read otherwise.
    palette = tuple(map(tuple, colors.tolist()))
    lut = class_lut(palette, "solid")
    for code, rgb in enumerate(palette):
        for shape in range(len(SHAPE_TABLE)):
            classes = lut[_cells(picture("solid", shape, 40, rgb))]
            drawn = classes[classes != BG]
            own = (drawn == COLOR_CLASS0 + code).mean()
            other = ((drawn >= COLOR_CLASS0) & (drawn < OTHER)).mean() - own
            assert own > 0.6 and other <= stray, (rgb, SHAPE_TABLE[shape][0], own, other)


def test_grey_and_off_white_backgrounds_read_as_in_the_flat_look():
    solid, flat = class_lut(None, "solid"), class_lut()
    light = [(g, g, g) for g in range(160, 256, 8)] + [(245, 240, 225), (230, 235, 245),
                                                       (250, 250, 220), (240, 230, 230)]
    assert (solid[_cells(light)] == BG).all() and (flat[_cells(light)] == BG).all()


def test_solid_silhouettes_are_what_the_detector_finds_in_the_first_frame(solid):
    model = TaskModel(solid.task(0))
    comps = Detector(model.canvas_size, model.min_area, model.palette, model.look)(
        solid.first_frames[0])
    assert len(comps) == len(model.area)
    for k in range(len(model.area)):
        j = np.argmin(np.hypot(comps.cx - model.cx[k], comps.cy - model.cy[k]))
        assert comps.area[j] == model.area[k]
        assert np.hypot(comps.cx[j] - model.cx[k], comps.cy[j] - model.cy[k]) < 1e-9
        assert comps.color[j] == model.color[k]
    # the solid silhouette is not the flat sprite's: the look decides
    k = 0
    flat = object_mask("flat", model.global_shape[k], int(model.size[k]), model.rgb[k])
    assert not np.array_equal(flat, model.masks[k])


@pytest.mark.parametrize("style", ["fade", "shrink", "slide"])
def test_solid_ground_truth_of_each_style_passes_encoded(solid, style, tmp_path):
    for i in range(len(solid)):
        path = tmp_path / f"{style}{i}.mp4"
        write_video(path, render_transition(solid, style, FRAMES, tasks=[i])[0])
        res = score_video(solid.task(i), path)
        assert res["pass"], res["metrics"]


def test_solid_ground_truth_passes_at_1024():
    batch = generate_batch([5], canvas_size=1024, look="solid")
    for style in ("fade", "shrink", "slide"):
        res = score_video(batch.task(0), render_transition(batch, style, 8)[0])
        assert res["pass"], (style, res["metrics"])


@pytest.mark.parametrize("control", ["wrong_object", "drift", "jump", "nothing_removed",
                                     "added_object", "grows", "turns", "remnant",
                                     "unfinished"])
def test_solid_negative_controls_fail_by_their_metric(solid, control, tmp_path):
    path = tmp_path / f"{control}.mp4"
    write_video(path, control_frames(solid, 0, control, 16))
    res = score_video(solid.task(0), path)
    assert caught(res, control), res["metrics"]


def _recoloured(batch, i):
    """Task ``i``'s fade in which its largest kept object takes the next colour halfway."""
    arrs = task_arrays(batch, i)
    frames = render_transition(batch, "fade", 16, tasks=[i])[0]
    kept = np.flatnonzero(~arrs["removed"])
    k = int(kept[np.argmax(arrs["size"][kept])])
    look, shape, s = arrs["look"], int(arrs["shape"][k]), int(arrs["size"][k])
    other = (int(arrs["color"][k]) + 1) % len(look.rgb)
    paint = ((_solid(look.shapes[shape], s, look.rgb[other]), 256, None)
             if look.name == "solid" else (look.sprite(shape, s), look.fill(other),
                                           np.zeros(3, np.uint8)))
    x, y = int(arrs["left"][k]), int(arrs["top"][k])
    for f in range(8, 16):
        frames[f] = whiten(frames[f], [x], [y], [s], [0])
        draw_sprite(frames[f], paint[0], x, y, *paint[1:])
    return frames, k


def test_a_recoloured_kept_object_fails_stability_in_both_looks(solid):
    flat = generate_batch([3], level="L2")
    verdicts = []
    for batch in (solid, flat):
        frames, k = _recoloured(batch, 0)
        res = score_video(batch.task(0), frames)
        stability = res["metrics"]["kept_object_stability"]
        named = stability["vanished"] + stability["changed_color"]
        assert not stability["pass"] and named == [int(TaskModel(batch.task(0)).ids[k])]
        verdicts.append({m: v["pass"] for m, v in res["metrics"].items()})
    assert verdicts[0] == verdicts[1]


def test_a_record_with_an_unknown_look_is_refused(solid):
    record = {**solid.task(0), "look": "glossy"}
    with pytest.raises(TaskError, match="look must be one of"):
        TaskModel(record)
