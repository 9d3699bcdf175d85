"""A new user's first day, round five (#47): what the scoring report and printed tables say.

Each test failed on f3a5bb4."""
import argparse
import io
import json

import pytest

from objsub_fast import generate_batch
from objsub_fast.scoring import render_transition, write_video


@pytest.fixture(scope="module")
def batch():
    return generate_batch([21, 22, 23], level=["L1", "L2", "L1"])


@pytest.fixture(scope="module")
def scored(batch, tmp_path_factory):
    """Two models over three questions: 'good' answers each rightly; 'broken' sends an
    unreadable file, another task's video and nothing for the third."""
    root = tmp_path_factory.mktemp("round5")
    videos = render_transition(batch, "fade", 12)
    questions, outputs = root / "q", root / "o"
    for i in range(len(batch)):
        rec = batch.task(i)
        (questions / rec["id"]).mkdir(parents=True)
        (questions / rec["id"] / "question_metadata.json").write_text(json.dumps(rec))
        (outputs / "good").mkdir(parents=True, exist_ok=True)
        write_video(outputs / "good" / f"{rec['id']}.mp4", videos[i])
    (outputs / "broken").mkdir()
    (outputs / "broken" / f"{batch.task(0)['id']}.mp4").write_bytes(b"not a video")
    write_video(outputs / "broken" / f"{batch.task(1)['id']}.mp4", videos[0])  # task 0's
    from objsub_fast.scoring import command

    parser = argparse.ArgumentParser()
    command.add_arguments(parser)
    status = command.run(parser.parse_args(
        ["--questions", str(questions), "--outputs", str(outputs), "--out",
         str(root / "s.jsonl"), "--report", str(root / "r"), "--quiet", "--workers", "1"]))
    return root, status


def test_the_headline_names_every_models_pass_rate_and_what_it_left_unscored(scored):
    root, status = scored
    assert status == 0
    page = (root / "r" / "index.html").read_text()
    head = page[page.index("<p class='top'>"):page.index("</p>", page.index("<p class='top'>"))]
    assert "good: 100% pass (3 of 3); 0 not scored, 0 missing" in head
    assert "broken: 0% pass (0 of 3); 2 not scored, 1 missing" in head


def test_a_valid_video_of_another_scene_is_not_filed_as_unreadable(scored):
    root, _ = scored
    lines = [json.loads(x) for x in (root / "s.jsonl").read_text().splitlines()]
    other = [r for r in lines if r["model"] == "broken" and r["error"]
             and "first frame" in r["error"]]
    assert len(other) == 1
    board = json.loads((root / "leaderboard.json").read_text())
    broken = next(m for m in board["models"] if m["model"] == "broken")
    assert broken["failures"]["other_scene"]["count"] == 1
    assert broken["failures"]["unreadable"]["count"] == 1
    assert broken["failures"]["missing"]["count"] == 1


def test_the_count_line_says_how_many_did_not_show_the_tasks_scene(scored, capsys):
    from objsub_fast.scoring.reporting.summary import count_line

    root, _ = scored
    lines = [json.loads(x) for x in (root / "s.jsonl").read_text().splitlines()]
    assert count_line(lines) == ("5 outputs of 2 models for 3 questions: 3 scored, 1 not "
                                 "showing the task's scene, 1 unreadable, 1 missing")


def test_every_strip_fits_a_1280_px_window_and_each_output_shows_its_path(scored):
    from PIL import Image

    root, _ = scored
    lines = [json.loads(x) for x in (root / "s.jsonl").read_text().splitlines()]
    strips = [r["report_image"] for r in lines if r.get("report_image")]
    assert len(strips) == 3
    for rel in strips:
        with Image.open(root / "r" / rel) as im:
            assert im.width <= 1180, im.size
    page = (root / "r" / "index.html").read_text()
    for r in lines:
        if r["output"]:
            assert f'<span class="path">{r["output"]}</span>' in page


def test_the_level_table_says_its_denominator_is_the_questions(batch):
    from objsub_fast.scoring.reporting.summary import level_table

    results = [{"model": "m", "level": "L1", "pass": True, "output": "a.mp4"}]
    results += [{"model": "m", "level": "L1", "pass": False, "output": None,
                 "error": "missing: x"}] * 3
    table = level_table(results)
    assert table.splitlines()[0].startswith("pass rate by level (passed/questions;")
    assert "25% (1/4)" in table


def _card_score_command(folder) -> list[str]:
    """The scoring command of the card in ``folder``, as written."""
    card = (folder / "README.md").read_text()
    line = next(x for x in card.splitlines() if x.startswith("objsub-fast score "))
    return line.split()[1:]


@pytest.mark.parametrize("fmt", ["webdataset", "vmevalkit"])
def test_the_cards_scoring_command_works_as_written(tmp_path, monkeypatch, fmt):
    """Outputs saved as the card says ({task_id}.mp4 in one folder per model), scored with the
    card's command, DIR being the dataset folder (before: 'holds no question folder' for the
    default format)."""
    import tarfile

    import numpy as np
    from PIL import Image

    from test_cli import run_main

    data = tmp_path / "data"
    assert run_main(["generate", "--out", str(data), "--count", "3", "--format", fmt,
                     "--quiet", "--workers", "1"]) == 0
    firsts = {}
    if fmt == "webdataset":
        for shard in sorted(data.glob("objsub-*.tar")):
            with tarfile.open(shard) as tar:
                names = tar.getnames()
                for name in names:
                    if name.endswith(".json"):
                        key = name[:-len(".json")]
                        record = json.loads(tar.extractfile(name).read())
                        png = tar.extractfile(f"{key}.first.png").read()
                        firsts[record["id"]] = np.asarray(Image.open(io.BytesIO(png)))
    else:
        for meta in data.rglob("question_metadata.json"):
            record = json.loads(meta.read_text())
            firsts[record["id"]] = np.asarray(Image.open(meta.parent / "first_frame.png"))
    assert len(firsts) == 3
    videos = tmp_path / "model_videos" / "model-a"
    videos.mkdir(parents=True)
    for task_id, first in firsts.items():   # a model that changes nothing: scored, fails
        write_video(videos / f"{task_id}.mp4", np.repeat(first[None], 8, axis=0))
    # A folder named after a task holding one video is that video
    only = sorted(firsts)[0]
    (videos / only).mkdir()
    (videos / f"{only}.mp4").rename(videos / only / "video.mp4")
    monkeypatch.chdir(tmp_path)
    argv = [str(data) if a == "DIR" else a for a in _card_score_command(data)]
    assert run_main(argv + ["--quiet", "--workers", "1"]) == 0
    lines = [json.loads(x) for x in (tmp_path / "results" / "scores.jsonl").read_text()
             .splitlines()]
    assert len(lines) == 3 and all(r["error"] is None for r in lines), lines
    assert all(r["pass"] is False for r in lines)


def test_an_interrupted_score_resumes_to_the_same_bytes(batch, tmp_path):
    """Killed after two outputs were scored, the same command scores only the rest, and the
    JSONL is byte for byte an uninterrupted run's."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from inprocess import run_cli

    videos = render_transition(batch, "fade", 12)
    questions, outputs = tmp_path / "q", tmp_path / "o"
    for model in ("a", "b"):
        for i in range(len(batch)):
            rec = batch.task(i)
            (questions / rec["id"]).mkdir(parents=True, exist_ok=True)
            (questions / rec["id"] / "question_metadata.json").write_text(json.dumps(rec))
            (outputs / model).mkdir(parents=True, exist_ok=True)
            write_video(outputs / model / f"{rec['id']}.mp4", videos[i])

    def command(out):
        return [sys.executable, "-m", "objsub_fast.cli", "score", "--questions", str(questions),
                "--outputs", str(outputs), "--out", str(out), "--workers", "1"]

    whole = tmp_path / "whole" / "s.jsonl"   # uninterrupted, in this process
    assert run_cli(command(whole)[3:]).returncode == 0
    out = tmp_path / "cut" / "s.jsonl"
    journal = out.with_name("s.jsonl.partial")
    proc = subprocess.Popen(command(out), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline and proc.poll() is None:
        if journal.exists() and journal.read_bytes().count(b"\n") >= 3:   # header + 2
            os.kill(proc.pid, signal.SIGKILL)
            break
        time.sleep(0.05)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the run ended before it could be killed"
    assert not out.exists()
    rerun = run_cli(command(out)[3:])   # the same command, in this process
    assert rerun.returncode == 0, rerun.stderr
    assert "resuming: " in rerun.stderr
    assert out.read_bytes() == whole.read_bytes()
    assert not journal.exists()


def test_final_frame_matches_fails_a_video_that_changes_nothing():
    """A do-nothing video (the first frame throughout) fails final_frame_matches, naming the
    targets still shown, even where one small target among large kept objects leaves the IoU
    above its threshold (before: 'final_frame_matches' passed such a video)."""
    from objsub_fast.scoring import score_video

    batch = generate_batch(range(30, 42), level="L1")
    high_iou = 0
    for i in range(len(batch)):
        still = batch.first_frames[i][None].repeat(8, axis=0)
        res = score_video(batch.task(i), still)
        final = res["metrics"]["final_object_match"]
        targets = batch.task(i)["object_subtraction_data"]["remove_object_ids"]
        assert not final["pass"] and sorted(final["targets_left"]) == sorted(targets), final
        assert res["dimensions"]["final"] == 0.0
        high_iou += final["iou"] >= 0.80
    assert high_iou >= 1   # the case the IoU alone let through is among them


def test_a_record_read_back_from_json_is_explained_like_the_one_scored(batch):
    """The journal of a resumable run holds records as JSON (object ids as text keys): the
    report explains them as it explains a fresh record (a moved object was a KeyError)."""
    from objsub_fast.scoring import score_video
    from objsub_fast.scoring.reporting.report import explain
    from objsub_fast.testing.controls import control_frames

    res = score_video(batch.task(0), control_frames(batch, 0, "drift", 24))
    assert res["metrics"]["kept_object_stability"]["moved"], res["verdict"]
    assert explain(json.loads(json.dumps(res))) == explain(res)


def test_generate_with_a_folder_as_its_argument_names_out(tmp_path, capsys):
    from test_cli import run_main

    assert run_main(["generate", str(tmp_path / "data")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--out" in err and "generate --out" in err, err
    assert not (tmp_path / "data").exists()


def test_gitignore_keeps_the_readmes_own_folders_out():
    from pathlib import Path

    ignored = (Path(__file__).parents[1] / ".gitignore").read_text().split()
    assert "/data/" in ignored and "/results/" in ignored
