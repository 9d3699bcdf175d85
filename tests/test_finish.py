"""Issue #20, defect 2: the command ``verify`` prints to finish an interrupted run reproduces
the run's configuration exactly; verify's counts agree; a complete shard whose progress record
was lost is never silently replaced by a run with other options."""
import json
import os
import shlex
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from objsub_fast.cli import build_parser, run_config
from objsub_fast.dataset.run.run_config import RunConfig
from objsub_fast.dataset.run.options import NO_OPTION, OPTIONS, generate_command
from objsub_fast.dataset.run.pipeline import generate
from objsub_fast.dataset.check.verify import verify
from objsub_fast.runtime import crashpoint
from objsub_fast.runtime.errors import OutputError

from inprocess import run_cli

CLI = [sys.executable, "-m", "objsub_fast.cli"]


def test_every_recorded_field_has_an_option_or_a_reason():
    from dataclasses import fields

    names = {f.name for f in fields(RunConfig)}
    assert names == set(OPTIONS) | set(NO_OPTION) - {"video_encoder"}


KINDS = {"L1": ["color", "shape", "largest"], "L3": ["leftmost", "corner"]}
CONFIGS = st.builds(
    RunConfig,
    count=st.integers(1, 10**6), levels=st.sampled_from([("L1",), ("L2", "L4"), ("L1", "L3")]),
    seed=st.integers(0, 2**40), format=st.sampled_from(["webdataset", "vmevalkit", "vbvr",
                                                        "vbvr-bench"]),
    shard_size=st.integers(1, 5000), canvas_size=st.sampled_from([(256, 256), (512, 384)]),
    masks=st.booleans(), videos=st.sampled_from([None, True]),
    video_style=st.sampled_from(["fade", "slide"]), fps=st.integers(1, 60),
    video_frames=st.integers(2, 100), vbvr_pack=st.sampled_from(["tar", "folders"]),
    vbvr_split=st.sampled_from(["Out-of-Domain_50", "my.split"]),
    num_objects=st.sampled_from([None, (5, 6), (7, 7)]),
    object_size=st.sampled_from([None, (16, 36)]),
    kind_weights=st.sampled_from([None, {"L1": {"color": 2.0, "shape": 0.5}},
                                  {"L1": {"largest": 1.0}, "L3": {"corner": 0.25}}]),
    vocabulary=st.sampled_from(["classic", "extended"]),
    colors=st.sampled_from([None, ("red", "cyan", "brown", "teal")]),
    shapes=st.sampled_from([None, ("cube", "hourglass", "dome")]),
    shape_names=st.sampled_from([None, "flat", "solid"]),
    prompt_variants=st.integers(1, 4))


@settings(max_examples=150, suppress_health_check=list(HealthCheck), deadline=None)
@given(config=CONFIGS)
def test_the_printed_command_parses_to_the_recorded_configuration(config):
    try:
        config.validate()
    except ValueError:
        assume(False)  # e.g. a size range too narrow for a size rule at this canvas
    recorded = config.to_json()
    words = shlex.split(generate_command(recorded, "some dir/out"))
    assert words[:2] == ["objsub-fast", "generate"]
    args = build_parser().parse_args(words[1:])
    assert args.out == "some dir/out"
    assert run_config(args).to_json() == recorded


@pytest.fixture(scope="module")
def killed_run(tmp_path_factory):
    """A vmevalkit run with videos and every vocabulary option, killed after its first shard's
    task folders were renamed into place but before the shard's progress record."""
    out = tmp_path_factory.mktemp("killed") / "run"
    cmd = CLI + ["generate", "--out", str(out), "--count", "8", "--shard-size", "4",
                 "--format", "vmevalkit", "--videos", "--video-frames", "6", "--fps", "12",
                 "--video-style", "slide", "--vocabulary", "extended", "--shape-names", "flat",
                 "--prompt-variants", "3", "--num-objects", "5-7", "--seed", "9",
                 "--workers", "1", "--chunk-size", "2", "--quiet"]
    # renames: the manifest, then shard 0's two chunks of folders; killed before its record
    killed = subprocess.run(cmd, env={**os.environ, crashpoint.ENV: "3"}, capture_output=True)
    assert killed.returncode == -9
    return out, cmd


def test_verify_counts_agree_and_the_finish_command_finishes(killed_run, tmp_path):
    import shutil

    out = tmp_path / "run"
    shutil.copytree(killed_run[0], out)
    report = verify(out, workers=1)
    assert report.tasks == 4 and report.expected == 8
    head = report.problems[0]
    assert head.startswith("manifest.json: the run is incomplete (4 of 8 tasks written, 1 of 2 "
                           "shards complete); finish it with: objsub-fast generate --out ")
    finish = shlex.split(head.split("finish it with: ")[1])
    for option in ("--videos", "--vocabulary", "--shape-names", "--prompt-variants",
                   "--num-objects", "--fps", "--video-frames", "--video-style"):
        assert option in finish
    proc = run_cli(finish[1:] + ["--quiet", "--workers", "1"])   # in this process
    assert proc.returncode == 0, proc.stderr
    assert verify(out, workers=1).ok
    reference = tmp_path / "reference"
    cmd = killed_run[1][len(CLI):]
    assert run_cli(cmd[:cmd.index("--out") + 1] + [str(reference)]
                   + cmd[cmd.index("--out") + 2:]).returncode == 0
    assert (json.loads((out / "manifest.json").read_text())
            == json.loads((reference / "manifest.json").read_text()))


def test_a_complete_shard_without_its_record_is_not_replaced_silently(killed_run, tmp_path):
    import shutil

    out = tmp_path / "run"
    shutil.copytree(killed_run[0], out)
    before = sorted(p.name for p in (out / "object_subtraction_task").iterdir())
    assert len(before) == 4
    with pytest.raises(OutputError, match=r"other options: .*--vocabulary \(there: extended, "
                                          r"now: not given\).*to finish that run instead: "
                                          r"objsub-fast generate"):
        generate(RunConfig(count=8, shard_size=4, format="vmevalkit"), out, workers=1,
                 quiet=True)
    assert sorted(p.name for p in (out / "object_subtraction_task").iterdir()) == before


def test_a_run_that_wrote_no_task_is_still_replaced(tmp_path):
    out = tmp_path / "run"
    cmd = CLI + ["generate", "--out", str(out), "--count", "4", "--shard-size", "2", "--quiet",
                 "--workers", "1"]
    killed = subprocess.run(cmd, env={**os.environ, crashpoint.ENV: "1"}, capture_output=True)
    assert killed.returncode == -9 and (out / "manifest.json").exists()
    generate(RunConfig(count=4, shard_size=2, seed=1), out, workers=1, quiet=True)
    assert verify(out, workers=1).ok
