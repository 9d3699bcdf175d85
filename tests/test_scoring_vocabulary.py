"""The scorer works from the record's vocabulary: extended-vocabulary tasks, encoded to real
H.264, pass as fades of their ground truth and fail when the wrong objects go, at the canvas
size and at 1280x720 letterboxed. These controls are built from the batch's frames and instance
maps, independently of the scorer's controls module (whose extended-vocabulary ground truths are
scored in ``test_video_scorer.py``)."""
import numpy as np
import pytest

from objsub_fast import generate_batch
from objsub_fast.scoring import score_video, write_video
from objsub_fast.scoring.tracking.detect import COLOR_CLASS0, MAX_COLORS, class_lut
from objsub_fast.task.vocabulary import COLOR_TABLE, LEVEL_KINDS, KINDS

FRAMES = 8  # a fade of 8 frames shows the same removal as a longer one


@pytest.fixture(scope="module")
def tasks():
    """One extended-vocabulary task per rule kind whose scene uses at most six colours."""
    seeds, levels = [], []
    for level, codes in LEVEL_KINDS.items():
        pool = generate_batch(np.arange(300), level=level, vocabulary="extended", render=False)
        for code in codes:
            for i in np.flatnonzero(pool.kind == code):
                n = pool.num_objects[i]
                if len(set(pool.color[i, :n].tolist())) <= 6:
                    seeds.append(int(pool.seeds[i]))
                    levels.append(level)
                    break
    return generate_batch(seeds, level=levels, vocabulary="extended", masks=True)


def _fade(first, last):
    w = np.linspace(0.0, 1.0, FRAMES)[:, None, None, None]
    frames = (1 - w) * first[None].astype(float) + w * last[None].astype(float)
    return np.rint(frames).astype(np.uint8)


def _erase(batch, i, ids):
    frame = batch.first_frames[i].copy()
    frame[np.isin(batch.instance_maps[i], [k + 1 for k in ids])] = 255
    return frame


def _controls(batch, i):
    """(name, frames, should pass): the ground truth; the wrong object; nothing removed."""
    data = batch.task(i)["object_subtraction_data"]
    removed, kept = data["remove_object_ids"], data["keep_object_ids"]
    wrong = removed[1:] + [kept[0]]
    return [("ground_truth", _fade(batch.first_frames[i], batch.final_frames[i]), True),
            ("wrong_object", _fade(batch.first_frames[i], _erase(batch, i, wrong)), False),
            ("nothing_removed", np.repeat(batch.first_frames[i][None], FRAMES, 0), False)]


@pytest.mark.parametrize("out_size", [None, (1280, 720)], ids=["canvas", "1280x720"])
def test_extended_controls_as_h264(tasks, tmp_path, out_size):
    # At the canvas size every kind gets all three; letterboxed, every kind the ground truth
    # and one of the two negatives in turn (as test_scoring_controls.py's letterboxed test)
    assert sorted(tasks.kind.tolist()) == list(range(len(KINDS)))
    seen = set()
    wrong = []
    for i in range(len(tasks)):
        task = tasks.task(i)
        seen.update(o["shape"] for o in task["object_subtraction_data"]["objects"])
        controls = _controls(tasks, i)
        if out_size is not None:
            controls = [controls[0], controls[1 + i % 2]]
        for name, frames, should_pass in controls:
            path = tmp_path / f"{i}_{name}.mp4"
            write_video(path, frames, out_size=out_size, bar_rgb=(30, 90, 200))
            res = score_video(task, path)
            if res["error"] or res["pass"] != should_pass:
                wrong.append((KINDS[tasks.kind[i]].name, name, res["error"], res["metrics"]))
    assert not wrong
    assert len(seen) >= 6  # the new shapes are in play, not only the classic four


def test_colour_classes_come_from_the_palette():
    for rgb in [(COLOR_TABLE["cyan"], COLOR_TABLE["brown"]), tuple(COLOR_TABLE.values())]:
        lut = class_lut(rgb)
        for c, (r, g, b) in enumerate(rgb):
            assert lut[((r >> 2) << 12) | ((g >> 2) << 6) | (b >> 2)] == COLOR_CLASS0 + c
    with pytest.raises(ValueError, match=f"1..{MAX_COLORS} colours"):
        class_lut(())


def test_scenes_with_more_than_six_colours_are_scored(tmp_path):
    """Eight-object extended scenes with seven or more colours (the detector's colour columns
    follow the palette): the ground truth passes, the wrong object and nothing removed fail."""
    picked = []
    for level in ("L1", "L3"):
        pool = generate_batch(np.arange(200), level=level, vocabulary="extended",
                              num_objects=(8, 8), render=False)
        many = [int(pool.seeds[i]) for i in range(len(pool))
                if len(set(pool.color[i, :pool.num_objects[i]].tolist())) > 6]
        picked += [(seed, level) for seed in many[:2]]
    assert len(picked) == 4
    batch = generate_batch([s for s, _ in picked], level=[lv for _, lv in picked],
                           vocabulary="extended", num_objects=(8, 8), masks=True)
    wrong = []
    for i in range(len(batch)):
        task = batch.task(i)
        colours = {o["color"] for o in task["object_subtraction_data"]["objects"]}
        assert len(colours) > 6
        for name, frames, should_pass in _controls(batch, i):
            path = tmp_path / f"{i}_{name}.mp4"
            write_video(path, frames)
            res = score_video(task, path)
            if res["error"] or res["pass"] != should_pass:
                wrong.append((i, name, res["error"], res["metrics"]))
    assert not wrong
