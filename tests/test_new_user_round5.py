"""A new user's first day, round five (#47): what the scoring report and printed tables say.

Each test failed on f3a5bb4."""
import argparse
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
    from objsub_fast.scoring.summary import count_line

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
    from objsub_fast.scoring.summary import level_table

    results = [{"model": "m", "level": "L1", "pass": True, "output": "a.mp4"}]
    results += [{"model": "m", "level": "L1", "pass": False, "output": None,
                 "error": "missing: x"}] * 3
    table = level_table(results)
    assert table.splitlines()[0].startswith("pass rate by level (passed/questions;")
    assert "25% (1/4)" in table
