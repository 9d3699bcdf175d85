"""Ground-truth videos as a dataset member (``--videos``): in every format, the same bytes
whatever the workers or chunking, recorded in the manifest, checked by ``verify``; by the own
encoder (the default) and by x264 (datasets made before it still verify)."""
import json
import shutil
import tarfile

import pytest

from objsub_fast._version import generator_version
from objsub_fast.cli import main
from objsub_fast.dataset.run.run_config import RunConfig
from objsub_fast.dataset.run.run_config import load_manifest
from objsub_fast.dataset.run.pipeline import generate
from objsub_fast.dataset.content.shards import task_levels, task_seeds
from objsub_fast.dataset.check.verify import verify
from objsub_fast.dataset.formats.vmevalkit import TASK_ROOT
from objsub_fast.engine import generate_batch
from objsub_fast.ground_truth.video import (ENCODER, VideoSpec, encode_transitions, encoder_build,
                                            encoder_settings)

from filetree import tree
from test_verify import rewrite_tar

VIDEO = dict(videos=True, video_style="shrink", video_frames=12, fps=12)


#: dataset name -> (format, video encoder)
DATASETS = {"webdataset": ("webdataset", "objsub"), "vmevalkit": ("vmevalkit", "objsub"),
            "x264": ("webdataset", "x264")}


@pytest.fixture(scope="module")
def datasets(tmp_path_factory):
    dirs = {}
    for name, (fmt, encoder) in DATASETS.items():
        out = tmp_path_factory.mktemp(name)
        generate(RunConfig(count=7, shard_size=4, seed=11, format=fmt, encoder=encoder,
                           **VIDEO), out, workers=1, quiet=True)
        dirs[name] = out
    return dirs


def expected_videos(count=7, seed=11, encoder="objsub"):
    batch = generate_batch(task_seeds(seed, 0, count), level=task_levels(
        ("L1", "L2", "L3", "L4"), 0, count))
    return batch, encode_transitions(batch, VideoSpec("shrink", 12, 12, encoder))


def shard_members(out, suffix):
    members = {}
    for shard in sorted(out.glob("objsub-*.tar")):
        with tarfile.open(shard) as tar:
            members.update({m.name: tar.extractfile(m).read() for m in tar if
                            m.name.endswith(suffix)})
    return members


@pytest.mark.parametrize("name", ["webdataset", "x264"])
def test_shards_hold_the_encoders_videos(datasets, name):
    _, videos = expected_videos(encoder=DATASETS[name][1])
    assert not list(datasets[name].rglob("*.mp4"))  # inside the shards only
    members = shard_members(datasets[name], ".mp4")
    assert [members[f"{i:010d}.mp4"] for i in range(7)] == videos


def test_every_format_holds_the_ground_truth_videos(datasets):
    batch, videos = expected_videos()
    folders = datasets["vmevalkit"] / TASK_ROOT
    for i in range(7):
        files = sorted(p.name for p in (folders / batch.task(i)["id"]).iterdir())
        assert files == ["final_frame.png", "first_frame.png", "ground_truth.mp4", "prompt.txt",
                         "question_metadata.json"]
        assert (folders / batch.task(i)["id"] / "ground_truth.mp4").read_bytes() == videos[i]


@pytest.mark.parametrize("name, version", [("webdataset", "0.11.0"), ("x264", "0.1.0")])
def test_manifest_records_the_video_settings_and_reads_back(datasets, name, version):
    """The encoder, its settings and build; the generator version (bumped for objsub videos
    only), which the task records carry too."""
    encoder = DATASETS[name][1]
    config, manifest = load_manifest(datasets[name])
    recorded = manifest["config"]
    assert (recorded["videos"], recorded["video_style"], recorded["fps"],
            recorded["video_frames"], recorded["encoder"]) == (True, "shrink", 12, 12, encoder)
    assert recorded["video_encoder"] == {"settings": encoder_settings(encoder),
                                         "build": encoder_build(encoder)}
    if encoder == "x264":
        assert recorded["video_encoder"]["settings"] == ENCODER
        assert recorded["video_encoder"]["build"]["x264_core"] >= 100
    else:
        assert "av" not in recorded["video_encoder"]["build"]
    assert config == RunConfig(count=7, shard_size=4, seed=11, encoder=encoder, **VIDEO)
    assert recorded["generator_version"] == version
    records = [json.loads(data) for data in shard_members(datasets[name], ".json").values()]
    assert len(records) == 7 and {r["generator_version"] for r in records} == {version}
    plain = RunConfig(count=7).to_json()
    assert plain["generator_version"] == "0.1.0"
    assert not {"videos", "video_style", "fps", "video_frames", "video_encoder",
                "encoder"} & set(plain)


def test_a_manifest_without_an_encoder_reads_as_x264_and_verifies(datasets, tmp_path):
    """Datasets with videos written before the own encoder name no encoder: they are x264's."""
    out = shutil.copytree(datasets["x264"], tmp_path / "old")
    manifest = json.loads((out / "manifest.json").read_text())
    del manifest["config"]["encoder"]
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    config, _ = load_manifest(out)
    assert config.encoder == "x264" and config.generator_version == "0.1.0"
    report = verify(out, workers=1, deep=True)
    assert report.ok and not report.notes, report.problems


def test_workers_and_chunks_never_change_the_videos(datasets, tmp_path):
    generate(RunConfig(count=7, shard_size=4, seed=11, **VIDEO), tmp_path, workers=2,
             chunk_size=3, quiet=True)
    assert tree(tmp_path) == tree(datasets["webdataset"])


@pytest.mark.parametrize("deep", [False, True])
def test_verify_passes_and_catches_a_flipped_byte_in_a_video(datasets, tmp_path, deep):
    assert verify(datasets["webdataset"], workers=1, deep=deep).ok
    assert verify(datasets["vmevalkit"], workers=1, deep=deep).ok
    wds = shutil.copytree(datasets["webdataset"], tmp_path / "wds")

    def flip(name, data):
        if name != "0000000002.mp4":
            return data
        k = len(data) // 2
        return data[:k] + bytes([data[k] ^ 0x10]) + data[k + 1:]
    rewrite_tar(wds / "objsub-000000.tar", flip)
    problems = "\n".join(verify(wds, workers=1, deep=deep).problems)
    assert "task 2 (" in problems and "mp4 " in problems
    vme = shutil.copytree(datasets["vmevalkit"], tmp_path / "vme")
    video = next((vme / TASK_ROOT).glob("*/ground_truth.mp4"))
    data = bytearray(video.read_bytes())
    data[-100] ^= 0x01
    video.write_bytes(bytes(data))
    assert "mp4 " in "\n".join(verify(vme, workers=1, deep=deep).problems)


def test_deep_verify_says_when_a_video_does_not_decode(datasets, tmp_path):
    wds = shutil.copytree(datasets["webdataset"], tmp_path / "wds")
    rewrite_tar(wds / "objsub-000001.tar",
                lambda name, data: data[:200] if name == "0000000005.mp4" else data)
    problems = "\n".join(verify(wds, workers=1, deep=True).problems)
    assert "task 5 (" in problems and ("mp4 does not decode" in problems
                                       or "frames decoded" in problems)


@pytest.mark.parametrize("args, message", [
    (["--video-style", "explode"], "--video-style must be one of fade, shrink, slide"),
    (["--fps", "500"], "--fps must be an integer in [1, 120]"),
    (["--video-frames", "1"], "--video-frames must be an integer in [2, 1000]"),
    (["--canvas-size", "257"], "even canvas"),
    (["--video-encoder", "x265"], "--video-encoder must be one of objsub, x264"),
])
def test_bad_video_options_are_one_line_usage_errors(args, message, tmp_path, capsys):
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as exit_:
        main(["generate", "--out", str(out), "--count", "2", "--videos", *args])
    err = capsys.readouterr().err.strip().splitlines()
    assert exit_.value.code == 2 and len(err) == 1 and message in err[0], err
    assert not out.exists()


def test_resumed_run_with_other_video_settings_is_refused(datasets, tmp_path):
    out = shutil.copytree(datasets["webdataset"], tmp_path / "wds")
    with pytest.raises(ValueError, match=r"--video-style \(there: shrink, now: fade\)"):
        generate(RunConfig(count=7, shard_size=4, seed=11, **{**VIDEO, "video_style": "fade"}),
                 out, workers=1, quiet=True)
    assert json.loads((out / "manifest.json").read_text())["config"]["video_style"] == "shrink"


def test_resumed_run_with_another_encoder_is_refused(datasets, tmp_path):
    out = shutil.copytree(datasets["webdataset"], tmp_path / "wds")
    with pytest.raises(ValueError, match=r"--video-encoder \(there: objsub, now: x264\)"):
        generate(RunConfig(count=7, shard_size=4, seed=11, encoder="x264", **VIDEO), out,
                 workers=1, quiet=True)


def test_command_line_chooses_the_encoder(tmp_path, capsys):
    for encoder in ("x264", "objsub"):
        out = tmp_path / encoder
        assert main(["generate", "--out", str(out), "--count", "2", "--videos", "--quiet",
                     "--video-frames", "4", "--video-encoder", encoder]) == 0
        assert json.loads((out / "manifest.json").read_text())["config"]["encoder"] == encoder
    assert main(["generate", "--out", str(tmp_path / "default"), "--count", "2", "--videos",
                 "--quiet", "--video-frames", "4"]) == 0
    assert shard_members(tmp_path / "default", ".mp4") == shard_members(tmp_path / "objsub",
                                                                         ".mp4")


def test_verify_names_a_different_encoder_build(datasets, tmp_path):
    out = shutil.copytree(datasets["x264"], tmp_path / "wds")
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["config"]["video_encoder"]["build"]["libavcodec"] = "0.0.1"
    (out / "manifest.json").write_text(json.dumps(manifest))
    problems = verify(out, workers=1).problems
    assert len(problems) == 1 and "'libavcodec': '0.0.1'" in problems[0]
    assert "video bytes are expected to differ" in problems[0]


def test_finish_command_keeps_the_video_options(datasets):
    """An unfinished video run is resumed by a command with its own video options."""
    import shlex

    from objsub_fast.cli import build_parser
    from objsub_fast.dataset.check.verify import finish_command

    config = RunConfig(count=7, shard_size=4, seed=11, encoder="x264", **VIDEO).validate()
    command = finish_command(config.to_json(), "out dir")
    assert "--videos --video-style shrink --fps 12 --video-frames 12 --video-encoder x264" \
        in command
    args = build_parser().parse_args(shlex.split(command)[1:])
    assert (args.videos, args.video_style, args.fps, args.video_frames, args.encoder) == \
        (True, "shrink", 12, 12, "x264")


@pytest.mark.parametrize("fmt", ["vbvr", "vbvr-bench"])
def test_formats_with_videos_by_default_carry_the_video_generator_version(fmt):
    """The VBVR formats have videos without --videos: their version is the objsub videos' one
    (it was once computed before the format's default turned videos on)."""
    assert RunConfig(count=8, format=fmt, canvas_size=1024).generator_version == \
        generator_version(1024, video_encoder="objsub")
    assert RunConfig(count=8, format=fmt, encoder="x264").generator_version == \
        generator_version(256, video_encoder="x264")
