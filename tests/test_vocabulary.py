"""Extended vocabulary, shape naming, prompt wordings, dense scenes and scaled canvases."""
import itertools
import json

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from skimage.color import deltaE_ciede2000, rgb2lab
from skimage.measure import label

from objsub_fast import generate_batch
from objsub_fast._version import generator_version
from objsub_fast.draw.render import sprite
from objsub_fast.runtime.errors import ParameterError
from objsub_fast.scoring.tracking.detect import FEATURE_SCALE, classify_shapes, shape_templates
from objsub_fast.task.config import parse_kind_weights, parse_range
from objsub_fast.task.interpret import interpret_prompt
from objsub_fast.task.records import reword
from objsub_fast.task.vocabulary import (BACKGROUND_RGB, CLASSIC, COLOR_TABLE, EXTENDED, KINDS,
                                         LEVELS, OUTLINE_RGB, PROMPT_SUFFIX, SHAPE_TABLE, WORDINGS,
                                         Vocabulary, parse_colors, parse_prompt_variants,
                                         parse_shape_names, irregular_plurals, parse_shapes,
                                         parse_vocabulary)
from guarantees import check_pixels, check_task

NEW_SHAPES = range(4, len(SHAPE_TABLE))
NEW_COLORS = list(COLOR_TABLE)[6:]


def test_every_colour_is_told_apart_from_every_other_and_from_background_and_outline():
    refs = {**COLOR_TABLE, "background": BACKGROUND_RGB, "outline": OUTLINE_RGB}
    lab = {name: rgb2lab(np.array([[rgb]], float) / 255.0)[0, 0] for name, rgb in refs.items()}
    for a, b in itertools.combinations(refs, 2):
        assert deltaE_ciede2000(lab[a], lab[b]) >= 15, (a, b)
    assert len(COLOR_TABLE) >= 10 and len(SHAPE_TABLE) >= 8


#: The smallest template distance of the classic shapes (cube/cone at 14 px) is 5.1 feature
#: units; every pair of the extended set keeps at least this margin (closest: sphere/diamond
#: at 14 px, 3.55).
MIN_FEATURE_DISTANCE = 3.0
SIZES = list(range(12, 49)) + list(range(50, 161, 11))


@pytest.mark.parametrize("size", SIZES)
def test_every_silhouette_is_told_apart_by_the_scorer_at_every_size(size):
    """Each sprite, measured by the detector, classifies as itself against the templates of all
    eight shapes, and every pair of templates is at least MIN_FEATURE_DISTANCE apart."""
    codes = tuple(range(len(SHAPE_TABLE)))
    templates = shape_templates(size, codes)
    for a, b in itertools.combinations(codes, 2):
        distance = np.abs((templates[a] - templates[b]) / FEATURE_SCALE).sum()
        assert distance >= MIN_FEATURE_DISTANCE, (SHAPE_TABLE[a], SHAPE_TABLE[b], distance)
    got = classify_shapes(templates, np.repeat(templates[None], len(codes), 0))
    assert np.diag(got).tolist() == list(codes)


@pytest.mark.parametrize("code", NEW_SHAPES)
@pytest.mark.parametrize("size", [12, 20, 33, 40, 160])
def test_new_sprites_fill_their_square_with_an_outline(code, size):
    """Each new shape touches the top and bottom (or both sides) of its square, has fill and
    outline, and its fill pixels keep the outline width to the outside."""
    s = sprite(code, size)
    rows, cols = np.nonzero(s)
    assert s.shape == (size, size) and (s == 2).sum() > 0 and (s == 1).sum() > 0
    assert cols.max() - cols.min() + 1 >= size - 1 or rows.max() - rows.min() + 1 >= size - 1
    padded = np.pad(s > 0, 2)
    near = np.hypot(*np.mgrid[-2:3, -2:3]) <= 2
    for r, c in zip(*np.nonzero(s == 2)):
        assert padded[r:r + 5, c:c + 5][near].all()
    assert label(s > 0, connectivity=2).max() == 1  # one piece


@pytest.mark.parametrize("level", LEVELS)
def test_extended_pixels_match_metadata(level):
    """Every blob of the first frame has exactly its object's colour (and black) and its area,
    removed objects are erased, and every colour and shape of the vocabulary shows up."""
    batch = generate_batch(range(120), level=level, vocabulary="extended", masks=True)
    seen = set()
    for i in range(len(batch)):
        seen.update((obj["color"], obj["shape"]) for _, obj in check_pixels(batch, i))
    assert {c for c, _ in seen} == set(COLOR_TABLE)
    assert {h for _, h in seen} == {names[0] for names in SHAPE_TABLE}


def test_painted_rows_equal_the_sprite_table(monkeypatch):
    """Large canvases paint each sprite row (no per-colour table): the same pixels."""
    from objsub_fast.draw import render
    kwargs = dict(seeds=range(40), level=["L1", "L2", "L3", "L4"] * 10, masks=True,
                  vocabulary="extended")
    table = generate_batch(**kwargs)
    monkeypatch.setattr(render, "MAX_TABLE_BYTES", 0)
    render.sprite_store.cache_clear()
    pixels = generate_batch(**kwargs)
    render.sprite_store.cache_clear()
    for name in ("first_frames", "final_frames", "instance_maps"):
        np.testing.assert_array_equal(getattr(table, name), getattr(pixels, name))


VOCABULARIES = st.builds(
    lambda colors, shapes, naming: Vocabulary(tuple(colors), tuple(shapes), naming),
    st.lists(st.sampled_from(list(COLOR_TABLE)), min_size=2, max_size=10, unique=True),
    st.lists(st.sampled_from(range(len(SHAPE_TABLE))), min_size=2, max_size=8, unique=True),
    st.sampled_from(["solid", "flat"]))


@settings(max_examples=60, deadline=None)
@given(vocab=VOCABULARIES, level=st.sampled_from(LEVELS), variants=st.integers(1, 4),
       seeds=st.lists(st.integers(0, 2**63 - 1), min_size=1, max_size=25),
       dense=st.booleans())
def test_guarantees_hold_for_random_vocabularies(vocab, level, variants, seeds, dense):
    kwargs = dict(num_objects=(15, 15), object_size=(12, 24)) if dense else {}
    if dense and level == "L1":
        kwargs["kind_weights"] = {"color": 1, "shape": 1}
    try:
        batch = generate_batch(seeds, level=level, vocabulary=vocab, prompt_variants=variants,
                               render=False, **kwargs)
    except ParameterError as error:  # only too few pairs for an L2 list may be refused
        assert level == "L2" and "pairs" in str(error)
        assert len(vocab.colors) * len(vocab.shapes) < 4
        return
    for i in range(len(batch)):
        task = json.loads(json.dumps(batch.task(i)))
        check_task(task)
        objects = task["object_subtraction_data"]["objects"]
        assert {o["color"] for o in objects} <= set(vocab.colors)
        assert {o["shape"] for o in objects} <= set(vocab.shape_labels)
        entry = task["vocabulary"]
        assert set(entry["colors"]) == {o["color"] for o in objects}
        assert all(tuple(entry["colors"][c]) == COLOR_TABLE[c] for c in entry["colors"])
        assert set(entry["shapes"]) == {o["shape"] for o in objects}
        assert task["generator_version"] == generator_version(
            task["canvas_size"], classic=False,
            irregular_plurals=irregular_plurals(vocab.shape_labels))


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: f"{k.level}-{k.name}")
def test_every_wording_of_every_kind_means_the_removed_set(kind):
    batch = generate_batch(range(40), level=kind.level, vocabulary="extended",
                           shape_names="flat", render=False,
                           kind_weights={kind.level: {kind.name: 1}})
    for i in range(len(batch)):
        task = batch.task(i)
        data = task["object_subtraction_data"]
        original = task["prompt"][: -len(PROMPT_SUFFIX)]
        for wording in range(len(WORDINGS)):
            prompt = reword(original, wording) + PROMPT_SUFFIX
            assert interpret_prompt(prompt, data["objects"], task["canvas_size"]) == \
                data["remove_object_ids"], prompt


def test_prompt_variants_are_drawn_from_the_task_stream_and_leave_the_scene_alone():
    plain = generate_batch(range(400), level=["L1", "L2", "L3", "L4"] * 100, render=False)
    varied = generate_batch(range(400), level=["L1", "L2", "L3", "L4"] * 100, render=False,
                            prompt_variants=4)
    for name in ("kind", "num_objects", "left", "top", "size", "color", "shape", "removed"):
        np.testing.assert_array_equal(getattr(plain, name), getattr(varied, name))
    heads = {p.split()[0] for p in varied.prompts}
    assert heads == {"Remove", "Move", "Delete", "Make", "Get"}
    assert set(varied.wording.tolist()) == {0, 1, 2, 3}
    again = generate_batch(range(200, 400), level=["L1", "L2", "L3", "L4"] * 50, render=False,
                           prompt_variants=4)
    assert again.prompts == varied.prompts[200:]
    assert set(plain.wording.tolist()) == {0}


def test_flat_names_in_prompts_and_records():
    batch = generate_batch(range(300), level="L1", shape_names="flat", render=False,
                           kind_weights={"shape": 1})
    flat = {names[1] for names in SHAPE_TABLE[:4]}
    for i in range(len(batch)):
        task = batch.task(i)
        assert task["object_subtraction_data"]["rule"]["remove_shape"] in flat
        assert {o["shape"] for o in task["object_subtraction_data"]["objects"]} <= flat
        assert task["vocabulary"]["shape_names"] == "flat"
    assert {p.split()[2] for p in batch.prompts} == flat


def test_classic_records_carry_no_vocabulary_and_keep_the_first_version():
    task = generate_batch([3], level="L2", render=False).task(0)
    assert "vocabulary" not in task and task["generator_version"] == "0.1.0"
    assert generate_batch([3], canvas_size=(300, 256), render=False).task(0)[
        "generator_version"] == "0.1.0"
    for kwargs in (dict(prompt_variants=2),
                   dict(shape_names="flat"), dict(colors="red,green,blue")):
        assert generate_batch([3], render=False, **kwargs).task(0)["generator_version"] == \
            "0.2.0", kwargs
    # other sizes: the scene decided in 256 units (tests/test_scene_scaling.py)
    assert generate_batch([3], render=False, canvas_size=512).task(0)["generator_version"] == \
        "0.4.0"
    assert generator_version((1024, 1024)) == "0.4.0"
    assert generator_version(256, classic=True) == "0.1.0"


def test_a_seed_gives_the_same_layout_at_256_512_and_1024():
    """Every task is the same scene scaled (tests/test_scene_scaling.py checks thousands)."""
    seeds = np.arange(300)
    small = generate_batch(seeds, level=["L1", "L2", "L3", "L4"] * 75, render=False)
    for side in (512, 1024):
        big = generate_batch(seeds, level=["L1", "L2", "L3", "L4"] * 75, render=False,
                             canvas_size=side)
        factor = side / 256
        same = 0
        for i in range(len(seeds)):
            n = small.num_objects[i]
            if (big.num_objects[i] == n and big.prompts[i] == small.prompts[i]
                    and np.array_equal(big.color[i, :n], small.color[i, :n])
                    and np.array_equal(big.shape[i, :n], small.shape[i, :n])):
                same += np.abs(big.x[i, :n] / factor - small.x[i, :n]).max() <= 1.5
        assert same == len(seeds), (side, same)


@settings(max_examples=25, deadline=None)
@given(side=st.integers(128, 1400), aspect=st.floats(1.0, 1.8),
       level=st.sampled_from(LEVELS), seeds=st.lists(st.integers(0, 2**40), min_size=1,
                                                    max_size=8))
def test_scaled_default_scenes_keep_every_guarantee(side, aspect, level, seeds):
    batch = generate_batch(seeds, level=level, canvas_size=(int(side * aspect), side),
                           render=False)
    scale = side / 256
    for i in range(len(batch)):
        task = check_task(batch.task(i)) and batch.task(i)
        sizes = [o["size"] for o in task["object_subtraction_data"]["objects"]]
        assert 20 * scale - 1 <= min(sizes) and max(sizes) <= 40 * scale + 1


def test_outline_scales_with_the_canvas():
    batch = generate_batch([5], level="L1", canvas_size=1024)
    task = batch.task(0)
    obj = task["object_subtraction_data"]["objects"][0]
    x0, y = int(obj["x"] - obj["size"] / 2), int(obj["y"])
    row = batch.first_frames[0, y, x0:x0 + obj["size"]]
    black = np.flatnonzero((row == 0).all(axis=1))
    assert black.size and black[0] >= 0
    run = np.flatnonzero(np.diff(black) != 1)
    first_run = black[: run[0] + 1] if run.size else black
    assert 7 <= len(first_run) <= 10  # 2 px at 256, 8 px at 1024 (a slanted edge reads wider)


def test_dense_scenes_of_fifteen_objects_keep_every_guarantee():
    for level in LEVELS:
        weights = {"color": 1, "shape": 1} if level == "L1" else None
        batch = generate_batch(range(300), level=level, num_objects=(15, 15),
                               object_size=(12, 24), kind_weights=weights, masks=True)
        assert (batch.num_objects == 15).all()
        for i in range(len(batch)):
            check_task(batch.task(i))
            assert batch.instance_maps[i].max() == 15


def test_dense_size_rules_are_refused_up_front_with_the_reason():
    with pytest.raises(ParameterError, match="narrower than the 15 px that size rule"):
        generate_batch([1], num_objects=(15, 15), object_size=(12, 24))


def test_option_parsers_name_the_option():
    assert parse_colors("red,teal") == ("red", "teal")
    assert parse_shapes(["square", "hourglass"]) == (0, 5)
    assert parse_vocabulary("classic") is CLASSIC and parse_vocabulary("extended") is EXTENDED
    assert parse_shape_names("solid") == "solid" and parse_prompt_variants(4) == 4
    assert parse_range("12-24", "--object-size") == (12, 24)
    assert parse_kind_weights("L1:color=2") == {"L1": {"color": 2.0}}
    bad = [(parse_colors, "red,,blue", "--colors"), (parse_shapes, "cube,cross", "--shapes"),
           (parse_vocabulary, "big", "--vocabulary"), (parse_shape_names, "3d", "--shape-names"),
           (parse_prompt_variants, "many", "--prompt-variants"),
           (parse_prompt_variants, 2.0, "--prompt-variants"),
           (lambda t: parse_range(t, "--num-objects"), "5-", "--num-objects"),
           (lambda t: parse_range(t, "--object-size"), "a-b", "--object-size"),
           (parse_kind_weights, "L5:color=1", "--kind-weights"),
           (parse_kind_weights, "L1:colour=1", "--kind-weights"),
           (parse_kind_weights, "L1:color=x", "--kind-weights"),
           (parse_kind_weights, "L1:color=-1", "--kind-weights"),
           (parse_kind_weights, "L1:color", "--kind-weights")]
    for parse, text, option in bad:
        with pytest.raises(ParameterError, match=option):
            parse(text)


SCENE = [{"id": 0, "color": "red", "shape": "cube", "x": 40, "y": 40, "size": 30},
         {"id": 1, "color": "teal", "shape": "hourglass", "x": 140, "y": 40, "size": 30}]


@pytest.mark.parametrize("prompt,reason", [
    ("Delete all pink objects.", "no object is pink"),
    ("Remove all pink objects from the scene.", "no object is pink"),
    ("Make all hexagon objects disappear.", "cannot read the list"),
    ("Delete the red cube.", "cannot read the list"),
    ("Get rid of the 3 leftmost objects.", "asks for 3 of 2"),
    ("Delete the red cube and the red cube.", "list names red cube twice"),
    ("Remove all teal objects.", "not a prompt of this benchmark"),
    ("Erase all teal objects.", "not a prompt of this benchmark"),
])
def test_reworded_prompts_that_do_not_fit_are_refused(prompt, reason):
    with pytest.raises(ValueError, match=reason):
        interpret_prompt(prompt + PROMPT_SUFFIX, SCENE)
    assert interpret_prompt("Get rid of all teal objects." + PROMPT_SUFFIX, SCENE) == [1]


def test_plurals_are_english_and_interpret_reads_exactly_them():
    """Issue #20, defect 1: "all teal hourglasss" was written, and read back."""
    from objsub_fast.task.vocabulary import plural

    names = {n for pair in SHAPE_TABLE for n in pair}
    assert {plural(n) for n in names} >= {"hourglasses", "cubes", "bars", "semicircles"}
    batch = generate_batch(range(2000), level="L2", vocabulary="extended", render=False)
    many = [p for p in batch.prompts if "hourglass" in p and "all " in p]
    assert many and not any("hourglasss" in p for p in batch.prompts)
    assert any("hourglasses" in p for p in many)
    for i in range(len(batch)):
        words = set(batch.prompts[i].replace(",", "").replace(".", "").split())
        assert not {n + "s" for n in names if plural(n) != n + "s"} & words
        data = batch.task(i)["object_subtraction_data"]
        assert interpret_prompt(batch.prompts[i], data["objects"]) == data["remove_object_ids"]
    objects = [{"id": 0, "color": "teal", "shape": "hourglass", "size": 20, "x": 40, "y": 40},
               {"id": 1, "color": "teal", "shape": "hourglass", "size": 20, "x": 90, "y": 40},
               {"id": 2, "color": "red", "shape": "cube", "size": 20, "x": 140, "y": 40},
               {"id": 3, "color": "red", "shape": "cube", "size": 20, "x": 190, "y": 40}]
    assert interpret_prompt("Remove all teal hourglasses and all red cubes from the scene."
                            + PROMPT_SUFFIX, objects) == [0, 1, 2, 3]
    with pytest.raises(ValueError):  # the misspelling is no longer read
        interpret_prompt("Remove all teal hourglasss and all red cubes from the scene."
                         + PROMPT_SUFFIX, objects)
    assert batch.task(0)["generator_version"] == "0.3.0"
