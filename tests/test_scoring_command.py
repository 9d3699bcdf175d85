"""``objsub-fast score``: layouts, JSONL, summary, and bad inputs that must not stop the run."""
import argparse
import csv
import json
import shutil

import pytest

from objsub_fast import generate_batch
from objsub_fast.scoring import render_transition, write_video
from objsub_fast.scoring.reading.layout import find_jobs


@pytest.fixture(scope="module")
def batch():
    return generate_batch([3, 4, 5, 6], level=["L1", "L2", "L3", "L4"])


def _questions(batch, root):
    for i in range(len(batch)):
        rec = batch.task(i)
        q = root / "object_subtraction_task" / rec["id"]
        q.mkdir(parents=True)
        (q / "question_metadata.json").write_text(json.dumps(rec))
        (q / "prompt.txt").write_text(rec["prompt"])
    return root


def _run(argv):
    # Imported here, not at collection: tests/test_cli.py checks the CLI without this module.
    from objsub_fast.scoring import command

    parser = argparse.ArgumentParser()
    command.add_arguments(parser)
    return command.run(parser.parse_args(argv + ["--no-progress"]))


def _lines(path):
    return [json.loads(x) for x in path.read_text().splitlines()]


def test_vmevalkit_layout_with_bad_runs(batch, tmp_path, capsys):
    qroot = _questions(batch, tmp_path / "questions")
    videos = render_transition(batch, "fade", 12)
    out = tmp_path / "outputs"
    for model in ("good-model", "lazy-model"):
        for i in range(len(batch)):
            tid = batch.task(i)["id"]
            run = out / model / "object_subtraction_task" / tid / "run_0"
            (run / "video").mkdir(parents=True)
            shutil.copytree(qroot / "object_subtraction_task" / tid, run / "question")
            frames = videos[i] if model == "good-model" else videos[i, :1].repeat(12, 0)
            write_video(run / "video" / "out.mp4", frames)
    lazy = out / "lazy-model" / "object_subtraction_task"
    runs = sorted(lazy.glob("*/run_0"))
    (runs[0] / "video" / "out.mp4").write_bytes(b"")                       # empty
    data = (runs[1] / "video" / "out.mp4").read_bytes()
    (runs[1] / "video" / "out.mp4").write_bytes(data[: len(data) // 3])  # truncated
    (runs[2] / "question" / "question_metadata.json").unlink()           # no metadata
    shutil.rmtree(runs[3] / "question")                          # falls back to --questions

    scores = tmp_path / "res" / "scores.jsonl"
    assert _run(["--questions", str(qroot), "--outputs", str(out), "--out", str(scores),
                 "--workers", "2"]) == 0
    lines = _lines(scores)
    assert len(lines) == 8
    good = [r for r in lines if r["model"] == "good-model"]
    assert all(r["pass"] and r["error"] is None for r in good)
    lazy_lines = {r["task_id"]: r for r in lines if r["model"] == "lazy-model"}
    errors = [r["error"] for r in lazy_lines.values() if r["error"]]
    assert len(errors) == 3
    assert any("empty" in e for e in errors) and any("metadata" in e for e in errors)
    scored = [r for r in lazy_lines.values() if not r["error"]]
    assert len(scored) == 1 and not scored[0]["metrics"]["removed_object_count"]["pass"]

    rows = list(csv.DictReader(open(tmp_path / "res" / "scores_summary.csv")))
    total = {(r["model"], r["level"], r["rule_kind"]): r for r in rows}
    assert total[("*", "*", "*")]["tasks"] == "8" and total[("*", "*", "*")]["errors"] == "3"
    assert total[("good-model", "*", "*")]["pass_rate"] == "1.0"
    assert any(r["level"] == "L4" and r["rule_kind"] != "*" for r in rows)
    printed = capsys.readouterr().out
    assert "good-model" in printed
    assert printed.splitlines()[-1] == ("8 outputs of 2 models for 4 questions: 5 scored, "
                                        "2 unreadable, 0 missing, 1 with an unusable question")


def test_plain_pairs_and_missing_outputs(batch, tmp_path):
    qroot = _questions(batch, tmp_path / "q")
    out = tmp_path / "plain"
    out.mkdir()
    videos = render_transition(batch, "shrink", 10)
    write_video(out / f"{batch.task(0)['id']}.mp4", videos[0])
    write_video(out / f"{batch.task(1)['id']}.webm", videos[1], codec="libvpx-vp9")
    frames_dir = out / batch.task(2)["id"]
    frames_dir.mkdir()
    from PIL import Image

    for f in range(10):
        Image.fromarray(videos[2, f]).save(frames_dir / f"{f:03d}.png")
    jobs = find_jobs(qroot, out)
    assert len(jobs) == 4 and sum(j.output is None for j in jobs) == 1
    scores = tmp_path / "s.jsonl"
    assert _run(["--questions", str(qroot), "--outputs", str(out), "--out", str(scores),
                 "--summary-csv", str(tmp_path / "sum.csv")]) == 0
    lines = {r["task_id"]: r for r in _lines(scores)}
    assert sum(r["pass"] for r in lines.values()) == 3
    assert "missing" in lines[batch.task(3)["id"]]["error"]


def test_through_the_objsub_fast_cli(batch, tmp_path):
    from objsub_fast.cli import main

    qroot = _questions(batch, tmp_path / "q")
    out = tmp_path / "o"
    out.mkdir()
    write_video(out / f"{batch.task(0)['id']}.mp4", render_transition(batch, "fade", 8, [0])[0])
    scores = tmp_path / "cli.jsonl"
    assert main(["score", "--questions", str(qroot), "--outputs", str(out), "--out",
                 str(scores), "--no-progress"]) == 0
    assert len(_lines(scores)) == 4


def test_unusable_arguments_exit_2(tmp_path, capsys):
    assert _run(["--outputs", str(tmp_path / "none")]) == 2
    (tmp_path / "emptydir").mkdir()
    assert _run(["--outputs", str(tmp_path / "emptydir")]) == 2
    assert "no outputs" in capsys.readouterr().err


def test_vmevalkit_questions_left_out_count_as_failures(batch, tmp_path):
    # A model that answered 1 of 4 questions scores 1 of 4, not "1 of 1".
    qroot = _questions(batch, tmp_path / "questions")
    tid = batch.task(0)["id"]
    run = tmp_path / "out" / "m" / "object_subtraction_task" / tid / "run_0"
    (run / "video").mkdir(parents=True)
    write_video(run / "video" / "v.mp4", render_transition(batch, "fade", 10, [0])[0])
    scores = tmp_path / "s.jsonl"
    assert _run(["--questions", str(qroot), "--outputs", str(tmp_path / "out"), "--out",
                 str(scores), "--workers", "1"]) == 0
    lines = {r["task_id"]: r for r in _lines(scores)}
    assert len(lines) == 4 and lines[tid]["pass"]
    missing = [r for t, r in lines.items() if t != tid]
    assert all(r["pass"] is False and r["score"] == 0 and "missing" in r["error"]
               for r in missing)
    rows = {(r["model"], r["level"], r["rule_kind"]): r
            for r in csv.DictReader(open(tmp_path / "s_summary.csv"))}
    assert rows[("m", "*", "*")]["tasks"] == "4" and rows[("m", "*", "*")]["pass_rate"] == "0.25"


def test_bad_command_lines_fail_before_scoring(batch, tmp_path, capsys, monkeypatch):
    from objsub_fast.scoring import command

    qroot = _questions(batch, tmp_path / "q")
    out = tmp_path / "o"
    out.mkdir()
    write_video(out / f"{batch.task(0)['id']}.mp4", render_transition(batch, "fade", 8, [0])[0])
    scored = []
    monkeypatch.setattr(command, "score_job", lambda *a: scored.append(a))
    (tmp_path / "a_file").write_text("x")
    (tmp_path / "empty").mkdir()
    (tmp_path / "not_questions").mkdir()
    (tmp_path / "not_questions" / "notes.txt").write_text("x")
    base = ["--questions", str(qroot), "--outputs", str(out)]
    cases = [
        (base + ["--out", str(tmp_path)], "--out is a folder"),
        (base + ["--out", str(tmp_path / "a_file" / "s.jsonl")], "--out cannot be written"),
        (base + ["--out", str(tmp_path / "s.jsonl"), "--summary-csv",
                 str(tmp_path / "a_file" / "x.csv")], "--summary-csv cannot be written"),
        (base + ["--workers", "0"], "--workers must be an integer >= 1"),
        (base + ["--workers", "-1"], "--workers must be an integer >= 1"),
        (["--questions", str(qroot), "--outputs", str(qroot)], "is the questions folder"),
        (["--questions", str(qroot), "--outputs", str(tmp_path / "empty")], "no outputs"),
        (["--questions", str(tmp_path / "not_questions"), "--outputs", str(out)],
         "holds no question folder"),
    ]
    for argv, message in cases:
        capsys.readouterr()
        assert _run(argv) == 2, argv
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, (argv, err)
    assert not scored


def test_progress_is_plain_lines_when_stderr_is_not_a_terminal(batch, tmp_path, capsys):
    from objsub_fast.scoring import command

    qroot = _questions(batch, tmp_path / "q")
    out = tmp_path / "o"
    out.mkdir()
    write_video(out / f"{batch.task(0)['id']}.mp4", render_transition(batch, "fade", 8, [0])[0])
    parser = argparse.ArgumentParser()
    command.add_arguments(parser)
    args = parser.parse_args(["--questions", str(qroot), "--outputs", str(out), "--out",
                              str(tmp_path / "s.jsonl"), "--workers", "1", "--progress"])
    assert command.run(args) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[-1].startswith("objsub-fast: 4/4 tasks (100.0%)"), err
    assert "\r" not in "".join(err)
