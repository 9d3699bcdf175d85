"""The engine's knobs in every run: RunConfig records them (only when not default), the
manifest's generator_version agrees with the records', every run path (generate, iter_samples,
verify) passes them, the command line takes them, and VBVR's ``parameters`` carry them."""
import io
import json
import shutil

import numpy as np
import pytest
from PIL import Image

from objsub_fast import generate_batch, iter_samples
from objsub_fast.dataset.formats import vbvr_factory as vbvr
from objsub_fast.dataset.run.run_config import KNOBS, RunConfig
from objsub_fast.dataset.run.pipeline import generate
from objsub_fast.dataset.content.shards import task_levels, task_seeds
from objsub_fast.dataset.check.verify import verify
from objsub_fast.runtime.errors import ParameterError

from filetree import shard_samples
from inprocess import run_cli

#: Knobs of a run that differ from every default (a dense extended-vocabulary scene).
DENSE = dict(num_objects=(9, 12), object_size=(12, 24),
             kind_weights={"L1": {"color": 2.0, "shape": 1.0}, "L3": {"leftmost": 1.0}},
             vocabulary="extended", colors=("red", "cyan", "brown", "teal"),
             shapes=("cube", "diamond", "dome"), shape_names="flat", prompt_variants=4,
             look="solid")


def test_default_config_records_no_knob_and_every_knob_round_trips():
    default = RunConfig(count=4).validate().to_json()
    assert not set(KNOBS) & set(default)
    run = RunConfig(count=4, **DENSE).validate()
    recorded = run.to_json()
    assert {k: recorded[k] for k in KNOBS} == {
        **{k: list(v) if isinstance(v, tuple) else v for k, v in DENSE.items()}}
    back = RunConfig.from_json(json.loads(json.dumps(recorded)))
    assert back == run and back.to_json() == recorded


def test_a_knob_set_to_its_default_is_not_recorded():
    assert RunConfig(count=4, vocabulary="classic", prompt_variants=1).to_json() == \
        RunConfig(count=4).to_json()


@pytest.mark.parametrize("knobs, option", [
    (dict(num_objects=(1, 3)), "--num-objects"),
    (dict(num_objects=(40, 40)), "--num-objects"),
    (dict(object_size=(2, 9)), "--object-size"),
    (dict(object_size=(20, 400)), "--object-size"),
    (dict(kind_weights={"L1": {"nope": 1.0}}), "--kind-weights"),
    (dict(kind_weights={"L1": {"color": -1.0}}), "--kind-weights"),
    (dict(vocabulary="huge"), "--vocabulary"),
    (dict(colors="red,mauve"), "--colors"),
    (dict(shapes="cube,cube"), "--shapes"),
    (dict(shape_names="curly"), "--shape-names"),
    (dict(prompt_variants=5), "--prompt-variants"),
])
def test_bad_knobs_are_refused_naming_the_option(knobs, option):
    with pytest.raises(ParameterError, match=option):
        RunConfig(count=4, **knobs).validate()


def test_knobs_are_checked_for_every_level_of_the_run():
    """L2 needs 4 objects: a run of L1 alone takes 2-3, a run with L2 is refused up front."""
    RunConfig(count=4, levels=("L1",), num_objects=(2, 3)).validate()
    with pytest.raises(ParameterError, match=r"--num-objects must lie in \[4, 15\] for level\(s\) "
                                             r"L1,L2 \(L2 needs at least 4; "):
        RunConfig(count=4, levels=("L1", "L2"), num_objects=(2, 3)).validate()


@pytest.mark.parametrize("config", [
    RunConfig(count=4),
    RunConfig(count=4, canvas_size=(1024, 1024)),
    RunConfig(count=4, canvas_size=(320, 256)),
    RunConfig(count=4, vocabulary="extended"),
    RunConfig(count=4, prompt_variants=3),
    RunConfig(count=4, shape_names="flat"),
    RunConfig(count=4, num_objects=(5, 6)),
], ids=["default", "1024", "320x256", "extended", "variants", "flat", "num_objects"])
def test_manifest_and_records_agree_on_generator_version(config):
    config = config.validate()
    batch = generate_batch(task_seeds(config.seed, 0, 4), level=task_levels(config.levels, 0, 4),
                           canvas_size=config.canvas_size, render=False,
                           **config.engine_options())
    versions = {batch.task(i)["generator_version"] for i in range(4)}
    assert versions == {config.to_json()["generator_version"]}


def test_a_manifest_with_another_generator_version_is_refused():
    with pytest.raises(ParameterError, match="generator_version '0.1.0'.*0.4.0"):
        RunConfig(count=4, canvas_size=(512, 512), generator_version="0.1.0").validate()
    assert RunConfig(count=4, generator_version="0.1.0").validate().generator_version == "0.1.0"


@pytest.fixture(scope="module")
def dense_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("dense")
    config = RunConfig(count=6, shard_size=4, seed=3, masks=True, **DENSE)
    generate(config, out, workers=1, chunk_size=3, quiet=True)
    return config, out


def test_run_with_knobs_equals_generate_batch_with_the_same_options(dense_run):
    config, out = dense_run
    samples = shard_samples(out)
    batch = generate_batch(task_seeds(3, 0, 6), level=task_levels(config.levels, 0, 6),
                           masks=True, **DENSE)
    assert sorted(samples) == [f"{i:010d}" for i in range(6)]
    for i, key in enumerate(sorted(samples)):
        record = json.loads(samples[key]["json"])
        assert record == {**batch.task(i), "task_index": i}
        # no hourglass (so not 0.3.0); the solid look's version
        assert record["generator_version"] == "0.9.0" and "vocabulary" in record
        assert record["look"] == "solid"
        for suffix, frames in (("first.png", batch.first_frames), ("final.png", batch.final_frames),
                               ("mask.png", batch.instance_maps)):
            assert np.array_equal(np.asarray(Image.open(io.BytesIO(samples[key][suffix]))),
                                  frames[i])
    n = batch.num_objects
    assert n.min() >= 9 and n.max() <= 12
    assert batch.size[batch.size > 0].min() >= 12 and batch.size.max() <= 24
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["generator_version"] == "0.9.0"
    assert manifest["config"]["shapes"] == ["cube", "diamond", "dome"]


def test_iter_samples_takes_the_knobs_and_gives_the_shard_bytes(dense_run):
    config, out = dense_run
    streamed = {s["__key__"]: {k: v for k, v in s.items() if not k.startswith("__")}
                for s in iter_samples(6, seed=3, chunk_size=3, masks=True, **DENSE)}
    assert streamed == shard_samples(out)


def test_verify_regenerates_with_the_knobs_and_catches_a_changed_knob(dense_run, tmp_path):
    config, out = dense_run
    report = verify(out, workers=1, deep=True)
    assert report.problems == [] and report.tasks == 6
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["config"]["num_objects"] = [5, 8]  # the records were made with 9-12
    (copy / "manifest.json").write_text(json.dumps(manifest))
    assert verify(copy, workers=1).problems != []


def test_vbvr_parameters_carry_the_knobs_and_param_hash_follows_them():
    record = generate_batch([5], level="L1").task(0)
    record["task_index"] = 0
    plain = json.loads(vbvr.task_metadata(record, RunConfig(count=1, format="vbvr")))
    assert "options" not in plain["parameters"]
    assert plain["parameters"] == vbvr.parameters(record)
    run = RunConfig(count=1, format="vbvr", num_objects=(5, 8), kind_weights={"L1": {"color": 1}})
    knobbed = json.loads(vbvr.task_metadata(record, run))
    assert knobbed["parameters"]["options"] == {"num_objects": [5, 8],
                                                "kind_weights": {"L1": {"color": 1}}}
    assert knobbed["param_hash"] == vbvr.param_hash(knobbed["parameters"]) != plain["param_hash"]
    other_seed = {**record, "seed": 99, "id": "x", "task_index": 4}
    again = json.loads(vbvr.task_metadata(other_seed, run))
    assert again["param_hash"] == knobbed["param_hash"]  # the seed is not a parameter


def test_cli_generate_records_the_options(tmp_path):
    out = tmp_path / "d"
    code = run_cli(["generate", "--out", str(out), "--count", "4", "--quiet", "--workers", "1",
                   "--vocabulary", "extended", "--prompt-variants", "4",
                   "--num-objects", "5-9", "--object-size", "16-32",
                   "--kind-weights", "L1:color=2,shape=1;L3:quadrant=0,corner=1",
                   "--colors", "red,cyan,brown,teal", "--shapes", "cube,diamond,dome",
                   "--shape-names", "flat", "--look", "solid"]).returncode
    assert code == 0
    recorded = json.loads((out / "manifest.json").read_text())["config"]
    assert {k: recorded[k] for k in KNOBS} == {
        "num_objects": [5, 9], "object_size": [16, 32],
        "kind_weights": {"L1": {"color": 2.0, "shape": 1.0}, "L3": {"quadrant": 0.0,
                                                                   "corner": 1.0}},
        "vocabulary": "extended", "colors": ["red", "cyan", "brown", "teal"],
        "shapes": ["cube", "diamond", "dome"], "shape_names": "flat", "prompt_variants": 4,
        "look": "solid"}
    assert recorded["generator_version"] == "0.9.0"
    assert verify(out, workers=1).problems == []


@pytest.mark.parametrize("argv, message", [
    (["--num-objects", "1-3"], "at most 15 objects of 20-40 px fit a 256x256 canvas); got (1, 3)"),
    (["--num-objects", "five"], "--num-objects must be MIN-MAX"),
    (["--object-size", "8-4"], "--object-size range is empty"),
    (["--kind-weights", "L1:color=x"], "--kind-weights: weight of L1:color must be a number"),
    (["--kind-weights", "L3:quadrant=0"], "--kind-weights['L3'] must be finite, >= 0, with a "
                                          "positive sum"),
    (["--vocabulary", "big"], "--vocabulary: must be one of ['classic', 'extended']"),
    (["--colors", "red"], "rule 'color' of L1 needs at least 2 colours"),
    (["--shapes", "cube,blob"], "--shapes: unknown name(s) ['blob']"),
    (["--shape-names", "round"], "--shape-names: must be one of ['solid', 'flat']"),
    (["--prompt-variants", "0"], "--prompt-variants: must be an integer in [1, 4]"),
])
@pytest.mark.parametrize("command", ["generate", "preview"])
def test_cli_bad_option_is_one_line_exit_2_and_writes_nothing(command, argv, message, tmp_path):
    out = tmp_path / ("d" if command == "generate" else "sheet.png")
    head = (["generate", "--out", str(out), "--count", "4", "--quiet"] if command == "generate"
            else ["preview", str(out), "--count", "2"])
    done = run_cli(head + argv)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and message in lines[0], done.stderr
    assert not out.exists()


def test_cli_preview_uses_the_options(tmp_path, monkeypatch):
    import objsub_fast.engine as engine

    calls = []
    real = engine.generate_batch

    def spy(*args, **kwargs):
        calls.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(engine, "generate_batch", spy)
    code = run_cli(["preview", str(tmp_path / "s.png"), "--count", "2", "--vocabulary",
                   "extended", "--shape-names", "flat", "--prompt-variants", "3",
                   "--num-objects", "6-6", "--object-size", "16-32"]).returncode
    assert code == 0 and (tmp_path / "s.png").is_file()
    assert calls[-1]["vocabulary"] == "extended" and calls[-1]["shape_names"] == "flat"
    assert calls[-1]["prompt_variants"] == 3 and calls[-1]["num_objects"] == (6, 6)
    assert calls[-1]["object_size"] == (16, 32)


@pytest.mark.parametrize("argv, message", [
    (["--num-objects", "2-100"], "--num-objects must lie in [5, 15] for level(s) L1,L2,L3,L4 (L4 "
                                 "needs at least 5; at most 15 objects of 20-40 px fit a 256x256 "
                                 "canvas); got (2, 100)"),
    (["--num-objects", "2-30", "--levels", "L3", "--canvas-size", "512"],
     "--num-objects must lie in [2, 15] for level(s) L3 (at most 15 objects of 40-80 px fit a "
     "512x512 canvas); got (2, 30)"),
    (["--num-objects", "2-60", "--levels", "L3", "--object-size", "12-16"],
     "--num-objects must lie in [2, 42] for level(s) L3 (at most 42 objects of 12-16 px fit a "
     "256x256 canvas); got (2, 60)"),
])
def test_num_objects_error_says_the_real_range_at_once(argv, message, tmp_path):
    """Issue #20: it said [4, 254] where 15 is the limit."""
    done = run_cli(["generate", "--out", str(tmp_path / "d"), *argv])
    assert done.returncode == 2 and done.stderr == f"objsub-fast: error: {message}\n"
