"""Colours in the video's own colours: a tone the whole picture takes is the camera and passes;
one kept object changing its lightness or saturation against the rest of the scene fails
``kept_object_stability`` with the change in words (``scoring.colour_change``); a removed
target is removed when its place returns to *this video's* background (``appearance``)."""
import numpy as np
import pytest

from objsub_fast.scoring import score_video, write_video
from objsub_fast.testing.controls import control_frames, control_tasks
from objsub_fast.testing.outputs import COOL_TONE, recoloured, toned

FRAMES = 16
LOOKS = ("flat", "solid")


@pytest.fixture(scope="module")
def extended():
    return {look: control_tasks(seed=7, look=look, vocabulary="extended") for look in LOOKS}


@pytest.fixture(scope="module")
def classic():
    return {look: control_tasks(seed=7, look=look) for look in LOOKS}


def _kept_mask(batch, i):
    """(H, W) bool: the pixels of task ``i``'s largest kept object, and its index."""
    kept = np.flatnonzero(~batch.removed[i, :batch.num_objects[i]])
    k = int(kept[np.argmax(batch.size[i, kept])])
    first = batch.first_frames[i]
    s, x, y = int(batch.size[i, k]), int(batch.left[i, k]), int(batch.top[i, k])
    mask = np.zeros(first.shape[:2], bool)
    mask[y:y + s, x:x + s] = (first[y:y + s, x:x + s] != 255).any(axis=-1)
    return mask, k


@pytest.mark.parametrize("look", LOOKS)
@pytest.mark.parametrize("tone", [COOL_TONE, {"gain": 0.92}], ids=["cool", "8pct_darker"])
def test_a_correct_video_in_another_tone_passes(extended, look, tone):
    # Task 12's pale targets read 26-32% of their ink left when ink was measured against pure
    # white: a tone-shifted background is ink there.
    batch = extended[look]
    frames = toned(control_frames(batch, 12, "ground_truth", FRAMES), **tone)
    res = score_video(batch.task(12), frames)
    assert res["pass"], {m: v for m, v in res["metrics"].items() if not v["pass"]}
    assert res["metrics"]["rule_accuracy"]["left_behind"] == {}


@pytest.mark.parametrize("look", LOOKS)
def test_a_slowly_drifting_tone_passes(classic, look):
    batch = classic[look]
    ramp = np.linspace(0, 1, FRAMES)
    for i in (3, 9):
        gt = control_frames(batch, i, "ground_truth", FRAMES)
        for tone in ({"gain": 1 - 0.15 * ramp[:, None] * np.ones(3)},
                     {"gain": np.stack([1 - 0.12 * ramp, 1 - 0.04 * ramp, np.ones(FRAMES)], 1)}):
            res = score_video(batch.task(i), toned(gt, **tone))
            assert res["pass"], (i, res["metrics"]["kept_object_stability"]["changes"])


@pytest.mark.parametrize("look", LOOKS)
def test_a_picture_drifting_much_darker_passes(look, tmp_path):
    # Silhouettes weighed each pixel's ink against pure white: as the background drifted
    # grey, it added ink to every object's rim, and a kept object "grew by 21-37%" or "changed
    # shape" (tasks 0 and 3: 30% darker as frames, 15-20% through the codec)
    batch = control_tasks(look=look)
    ramp = np.linspace(0, 1, 33)[:, None]
    for i in (0, 3):
        gt = control_frames(batch, i, "ground_truth", 33)
        for amount, path in ((0.3, None), (0.2, tmp_path / f"{i}.mp4")):
            video = toned(gt, gain=1 - amount * ramp * np.ones(3))
            res = score_video(batch.task(i), video if path is None else write_video(path, video))
            kept = res["metrics"]["kept_object_stability"]
            assert res["pass"], (i, amount, kept["changes"])


@pytest.mark.parametrize("look", LOOKS)
@pytest.mark.parametrize("change,amount,words", [("darker", 0.2, "darker"),
                                                 ("lighter", 0.25, "lighter"),
                                                 ("desaturated", 0.6, "saturated")])
def test_one_kept_object_changing_its_colour_fails(classic, look, change, amount, words):
    batch = classic[look]
    for i in (3, 9, 13):
        mask, k = _kept_mask(batch, i)
        gt = control_frames(batch, i, "ground_truth", FRAMES)
        res = score_video(batch.task(i), recoloured(gt, mask, FRAMES // 2, change, amount))
        kept = res["metrics"]["kept_object_stability"]
        assert not res["pass"] and not kept["pass"], (i, kept)
        assert kept["changed_color"] == [k] and not kept["moved"] and not kept["vanished"]
        tone = [c for c in kept["changes"] if c["kind"] == "tone"]
        assert len(tone) == 1 and tone[0]["id"] == k and words in tone[0]["change"], tone
        assert FRAMES // 2 - 3 <= tone[0]["frame"] <= FRAMES // 2 + 1
        # the removal is not what failed
        assert res["metrics"]["rule_accuracy"]["pass"], i


@pytest.mark.parametrize("look", LOOKS)
def test_colours_are_judged_through_the_codec(classic, look, tmp_path):
    batch = classic[look]
    i = 9
    mask, k = _kept_mask(batch, i)
    gt = control_frames(batch, i, "ground_truth", 33)
    for name, frames, passes in (
            ("toned", toned(gt, **COOL_TONE), True),
            ("darker", recoloured(gt, mask, 16, "darker", 0.2), False)):
        path = tmp_path / f"{name}.mp4"
        write_video(path, frames)
        res = score_video(batch.task(i), path)
        assert res["pass"] is passes, (name, res["metrics"]["kept_object_stability"])
