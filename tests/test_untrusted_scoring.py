"""Scoring untrusted submissions (#44): what a submitter controls cannot read or write outside
the run, change the answer key, crash the run or cost it unbounded time and memory.

Each test here failed on the scorer before these defences (f3a5bb4)."""
import argparse
import io
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from objsub_fast import generate_batch
from objsub_fast.scoring import render_transition, score_video, write_video
from objsub_fast.testing.streams import h264_stream

TASK = "object_subtraction_task"


@pytest.fixture(scope="module")
def batch():
    return generate_batch([3, 4, 5], level=["L1", "L2", "L3"])


@pytest.fixture(scope="module")
def videos(batch):
    return render_transition(batch, "fade", 12)


def _questions(batch, root: Path) -> Path:
    for i in range(len(batch)):
        rec = batch.task(i)
        q = root / TASK / rec["id"]
        q.mkdir(parents=True)
        (q / "question_metadata.json").write_text(json.dumps(rec))
    return root


def _run(argv, capsys=None):
    from objsub_fast.scoring import command

    parser = argparse.ArgumentParser()
    command.add_arguments(parser)
    return command.run(parser.parse_args([str(a) for a in argv] + ["--no-progress"]))


def _lines(path):
    return [json.loads(x) for x in Path(path).read_text().splitlines()]


def _run_folder(out, model, task_id, run="run_0"):
    folder = out / model / TASK / task_id / run
    (folder / "video").mkdir(parents=True)
    return folder


def _score_in_subprocess(record, path) -> dict:
    """score_video in a fresh process (a read out of bounds kills only it)."""
    code = textwrap.dedent(f"""
        import json, sys
        from objsub_fast.scoring import score_video
        res = score_video(json.loads(sys.stdin.read()), {str(path)!r})
        print(json.dumps({{k: res[k] for k in ("pass", "error", "verdict", "frames")}}))
    """)
    proc = subprocess.run([sys.executable, "-c", code], input=json.dumps(record),
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.splitlines()[-1])


# --- 2. memory-safe reading ----------------------------------------------------------------


def test_a_video_whose_resolution_drops_midway_is_read_in_frame_zeros_geometry(batch, videos,
                                                                               tmp_path):
    """A correct video: 3 frames at 512x512, then the rest at 256x256. Each frame is scaled to
    frame 0's size (as a player shows it), and the video passes; before, the sampler read the
    small frames with frame 0's taps (out of bounds: a crash, a wrong picture, a verdict that
    changed from run to run)."""
    big = [np.kron(f, np.ones((2, 2, 1), np.uint8)) for f in videos[0][:3]]
    path = tmp_path / "changes.mp4"
    path.write_bytes(h264_stream(big) + h264_stream(list(videos[0][3:])))
    runs = [_score_in_subprocess(batch.task(0), path) for _ in range(2)]
    assert runs[0] == runs[1]
    assert runs[0]["error"] is None and runs[0]["pass"], runs[0]
    assert runs[0]["frames"] == len(videos[0])


def test_the_compiled_sampler_is_entered_only_with_planes_that_hold_what_it_reads(tmp_path):
    """The canvas mapping of a 512 px frame 0 given a 256 px frame: refused (VideoError) before
    the kernel, which indexes without bounds checks, reads out of bounds (run in a process of
    its own: before, it read out of bounds and returned whatever memory held)."""
    frames = [np.full((512, 512, 3), 255, np.uint8), np.full((256, 256, 3), 255, np.uint8)]
    path = tmp_path / "two.h264"
    path.write_bytes(h264_stream(frames[:1]) + h264_stream(frames[1:]))
    code = textwrap.dedent(f"""
        import av
        from av.video.reformatter import VideoReformatter
        from objsub_fast.scoring.reading.register import bars_mapping
        from objsub_fast.scoring.reading.frames import CanvasWarp, VideoError
        first, second = list(av.open({str(path)!r}).decode(video=0))
        warp = CanvasWarp(bars_mapping(first.to_ndarray(format="rgb24"), (256, 256)))
        reformatter = VideoReformatter()
        warp.from_video_frame(first, reformatter)
        try:
            warp.from_video_frame(second, reformatter)
            print("read")
        except VideoError as exc:
            print("refused:", exc)
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "refused: a frame of" in proc.stdout and "frame 0's geometry" in proc.stdout


@pytest.mark.parametrize("formats", [("yuv444p", "yuv420p"), ("yuv420p", "yuv444p")])
def test_a_pixel_format_change_midway_keeps_a_correct_video_correct(batch, videos, tmp_path,
                                                                    formats):
    """The chroma of every frame is read in frame 0's format (before: with frame 0's chroma
    taps, from planes of another size)."""
    path = tmp_path / "formats.mp4"
    path.write_bytes(h264_stream(list(videos[1][:4]), formats[0])
                     + h264_stream(list(videos[1][4:]), formats[1]))
    res = _score_in_subprocess(batch.task(1), path)
    assert res["error"] is None and res["pass"], res


def test_frames_of_another_size_in_a_frames_folder_are_scaled_to_the_first(batch, videos,
                                                                           tmp_path):
    from PIL import Image

    folder = tmp_path / "frames"
    folder.mkdir()
    for k, frame in enumerate(videos[2]):
        img = Image.fromarray(frame)
        if k == len(videos[2]) - 1:
            img = img.resize((512, 512), Image.NEAREST)
        img.save(folder / f"{k:04d}.png")
    res = score_video(batch.task(2), folder)
    assert res["error"] is None and res["pass"], res["verdict"]


# --- 3. the answer key is --questions ------------------------------------------------------


def test_a_run_that_copies_another_tasks_record_and_video_does_not_pass(batch, videos,
                                                                        tmp_path):
    """Every run carries task 0's record and ground truth: scored against --questions, the
    copies differ and no run of another task passes."""
    qroot = _questions(batch, tmp_path / "questions")
    out = tmp_path / "outputs"
    first = batch.task(0)["id"]
    for i in range(len(batch)):
        run = _run_folder(out, "cheat", batch.task(i)["id"])
        shutil.copytree(qroot / TASK / first, run / "question")
        write_video(run / "video" / "out.mp4", videos[0])
    assert _run(["--questions", qroot, "--outputs", out, "--out", tmp_path / "s.jsonl"]) == 0
    lines = {r["task_id"]: r for r in _lines(tmp_path / "s.jsonl")}
    assert lines[first]["pass"]
    for i in (1, 2):
        r = lines[batch.task(i)["id"]]
        assert not r["pass"]
        assert r["error"].startswith("the question copy differs from the questions: id")


def test_runs_of_invented_task_ids_are_counted_nowhere(batch, videos, tmp_path, capsys):
    qroot = _questions(batch, tmp_path / "questions")
    out = tmp_path / "outputs"
    for k in range(5):
        run = _run_folder(out, "m", f"invented_{k}")
        shutil.copytree(qroot / TASK / batch.task(0)["id"], run / "question")
        data = json.loads((run / "question" / "question_metadata.json").read_text())
        data["id"] = f"invented_{k}"
        (run / "question" / "question_metadata.json").write_text(json.dumps(data))
        write_video(run / "video" / "out.mp4", videos[0])
    run = _run_folder(out, "m", batch.task(1)["id"])
    write_video(run / "video" / "out.mp4", videos[1][:1].repeat(12, 0))   # fails
    assert _run(["--questions", qroot, "--outputs", out, "--out", tmp_path / "s.jsonl"]) == 0
    printed = capsys.readouterr().out
    assert "5 runs of task ids not in the questions, counted nowhere" in printed
    assert "for 3 questions" in printed
    board = json.loads((tmp_path / "leaderboard.json").read_text())
    assert board["models"][0]["passed"] == 0 and board["models"][0]["total"] == 3
    unknown = [r for r in _lines(tmp_path / "s.jsonl") if r.get("unknown")]
    assert len(unknown) == 5 and all(not r["pass"] for r in unknown)


@pytest.mark.parametrize("field, value", [("level", {"a": 1}), ("prompt", "Remove " * 400),
                                          ("id", ["x"])])
def test_a_record_with_a_field_of_the_wrong_type_or_size_is_that_outputs_error(
        batch, videos, tmp_path, field, value):
    """Without --questions the copy is the record: checked like any record, and the run
    still writes its summary (before: a level {"a": 1} crashed the summary, exit 1)."""
    out = tmp_path / "outputs"
    for i in range(2):
        rec = batch.task(i)
        run = _run_folder(out, "m", rec["id"])
        (run / "question").mkdir()
        if i == 0:
            rec = {**rec, field: value}
        (run / "question" / "question_metadata.json").write_text(json.dumps(rec))
        write_video(run / "video" / "out.mp4", videos[i])
    assert _run(["--outputs", out, "--out", tmp_path / "s.jsonl"]) == 0
    lines = _lines(tmp_path / "s.jsonl")
    bad = [r for r in lines if r["error"]]
    assert len(bad) == 1 and field in bad[0]["error"]
    assert (tmp_path / "s_summary.csv").exists() and (tmp_path / "leaderboard.json").exists()


def test_a_record_file_over_the_size_limit_is_not_read(batch, videos, tmp_path):
    from objsub_fast.scoring.reading.limits import MAX_RECORD_BYTES

    out = tmp_path / "outputs"
    rec = batch.task(0)
    run = _run_folder(out, "m", rec["id"])
    (run / "question").mkdir()
    text = json.dumps({**rec, "padding": "x" * MAX_RECORD_BYTES})
    (run / "question" / "question_metadata.json").write_text(text)
    write_video(run / "video" / "out.mp4", videos[0])
    run = _run_folder(out, "m", batch.task(1)["id"])
    shutil.copytree(_questions(batch, tmp_path / "q") / TASK / batch.task(1)["id"],
                    run / "question")
    write_video(run / "video" / "out.mp4", videos[1])
    assert _run(["--outputs", out, "--out", tmp_path / "s.jsonl"]) == 0
    errors = [r["error"] for r in _lines(tmp_path / "s.jsonl") if r["error"]]
    assert len(errors) == 1 and "larger than" in errors[0]


def test_runs_claiming_one_id_keep_their_own_report_strips(batch, videos, tmp_path):
    out = tmp_path / "outputs"
    rec = batch.task(0)
    for k in range(3):
        run = _run_folder(out, "m", f"folder_{k}")
        (run / "question").mkdir()
        (run / "question" / "question_metadata.json").write_text(json.dumps(rec))
        write_video(run / "video" / "out.mp4", videos[0])
    assert _run(["--outputs", out, "--out", tmp_path / "s.jsonl",
                 "--report", tmp_path / "report"]) == 0
    images = {r["report_image"] for r in _lines(tmp_path / "s.jsonl")}
    assert len(images) == 3
    page = (tmp_path / "report" / "index.html").read_text()
    ids = [part.split('"')[0] for part in page.split(' id="')[1:]]
    assert len(ids) == len(set(ids)) == 3


# --- 4. no links, no special files ---------------------------------------------------------


def test_an_output_linked_to_the_answer_keys_video_is_refused(batch, videos, tmp_path):
    qroot = _questions(batch, tmp_path / "questions")
    rec = batch.task(0)
    truth = qroot / TASK / rec["id"] / "ground_truth.mp4"
    write_video(truth, videos[0])
    out = tmp_path / "outputs"
    run = _run_folder(out, "m", rec["id"])
    os.symlink(truth, run / "video" / "out.mp4")
    secret = tmp_path / "secret.png"
    secret.write_bytes(b"not for the submitter")
    run = _run_folder(out, "m", batch.task(1)["id"])
    os.symlink(secret, run / "video" / "out.mp4")
    run = _run_folder(out, "m", batch.task(2)["id"])
    write_video(run / "video" / "out.mp4", videos[2])
    assert _run(["--questions", qroot, "--outputs", out, "--out", tmp_path / "s.jsonl"]) == 0
    lines = [r for r in _lines(tmp_path / "s.jsonl") if r["error"]]
    assert len(lines) == 2
    assert all(not r["pass"] and "symbolic link" in r["error"] for r in lines)


def test_a_fifo_among_the_frames_is_an_error_not_a_hang(batch, videos, tmp_path):
    from PIL import Image

    folder = tmp_path / "frames"
    folder.mkdir()
    for k, frame in enumerate(videos[0][:4]):
        Image.fromarray(frame).save(folder / f"{k:04d}.png")
    os.mkfifo(folder / "0005.png")
    code = (f"from objsub_fast.scoring import score_video; import json, sys; "
            f"print(score_video(json.loads(sys.stdin.read()), {str(folder)!r})['error'])")
    proc = subprocess.run([sys.executable, "-c", code], input=json.dumps(batch.task(0)),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "0005.png" in proc.stdout and "not a regular file" in proc.stdout


def test_a_link_among_the_frames_is_not_followed(batch, videos, tmp_path):
    from PIL import Image

    folder = tmp_path / "frames"
    folder.mkdir()
    for k, frame in enumerate(videos[0]):
        Image.fromarray(frame).save(tmp_path / f"{k:04d}.png")
        os.symlink(tmp_path / f"{k:04d}.png", folder / f"{k:04d}.png")
    res = score_video(batch.task(0), folder)
    assert not res["pass"] and "symbolic link" in res["error"]


# --- 5. limits of each output --------------------------------------------------------------


def test_an_output_over_the_frame_limit_is_its_error_and_the_rest_are_scored(batch, videos,
                                                                            tmp_path):
    qroot = _questions(batch, tmp_path / "questions")
    out = tmp_path / "outputs"
    for i in range(2):
        run = _run_folder(out, "m", batch.task(i)["id"])
        frames = videos[i] if i else np.concatenate([videos[i]] * 4)
        write_video(run / "video" / "out.mp4", frames)
    assert _run(["--questions", qroot, "--outputs", out, "--out", tmp_path / "s.jsonl",
                 "--max-frames", "20"]) == 0
    lines = {r["task_id"]: r for r in _lines(tmp_path / "s.jsonl")}
    assert "over the limit of 20 frames an output (--max-frames)" in \
        lines[batch.task(0)["id"]]["error"]
    assert lines[batch.task(1)["id"]]["pass"]


def test_a_frame_over_the_pixel_limit_is_refused_before_it_is_decoded(batch, tmp_path):
    from PIL import Image

    path = tmp_path / "huge.png"
    Image.new("RGB", (5000, 5000), (255, 255, 255)).save(path)
    assert path.stat().st_size < 1_000_000
    res = score_video(batch.task(0), path)
    assert "over the limit of 16,777,216 pixels a frame: 5000x5000 (--max-frame-pixels)" \
        in res["error"]
    video = tmp_path / "big.mp4"
    write_video(video, np.full((2, 320, 320, 3), 255, np.uint8))
    from objsub_fast.scoring.reading.limits import Limits

    res = score_video(batch.task(0), video, limits=Limits(pixels=300 * 300))
    assert "320x320 (--max-frame-pixels)" in res["error"]


def test_the_time_and_decoded_bytes_limits_stop_an_output():
    from objsub_fast.scoring.reading.limits import Budget, LimitError, Limits

    clock = iter([0.0, 1.0, 5.0, 12.0])
    budget = Budget(Limits(seconds=10), clock=lambda: next(clock))
    budget.frame(16, 16, 384)
    budget.frame(16, 16, 384)
    with pytest.raises(LimitError, match=r"10 s of scoring an output \(--max-seconds\)"):
        budget.frame(16, 16, 384)
    budget = Budget(Limits(decoded_bytes=1000))
    budget.frame(16, 16, 600)
    with pytest.raises(LimitError, match="--max-decoded-mb"):
        budget.frame(16, 16, 600)


@pytest.mark.parametrize("flag", ["--max-frames", "--max-frame-pixels", "--max-seconds",
                                  "--max-decoded-mb"])
def test_a_limit_that_is_not_positive_is_a_usage_error(tmp_path, capsys, flag):
    (tmp_path / "o").mkdir()
    assert _run(["--outputs", tmp_path / "o", flag, "0"]) == 2
    assert f"{flag} must be > 0" in capsys.readouterr().err


# --- 6. names that cannot collide or inject ------------------------------------------------


def test_long_names_and_names_alike_and_names_that_inject(batch, videos, tmp_path, capsys):
    qroot = _questions(batch, tmp_path / "questions")
    out = tmp_path / "outputs"
    models = ["team 1", "team_1", "*", "=1+2", "evil\x1b[2J\nPASS", "m" * 200]
    for model in models:
        rec = batch.task(0)
        run = _run_folder(out, model, rec["id"], run="r" * 200)
        write_video(run / "video" / "out.mp4", videos[0])
    assert _run(["--questions", qroot, "--outputs", out, "--out", tmp_path / "s.jsonl",
                 "--report", tmp_path / "report"]) == 0
    printed = capsys.readouterr().out
    assert "\x1b" not in printed and "\\x1b[2J\\nPASS" in printed
    lines = _lines(tmp_path / "s.jsonl")
    strips = {r["report_image"] for r in lines if r.get("report_image")}
    assert len(strips) == len(models) and all(len(Path(s).name) < 255 for s in strips)
    rows = (tmp_path / "s_summary.csv").read_text().splitlines()
    assert not any(row.startswith("=") for row in rows)
    assert any(row.startswith("'=1+2") for row in rows)
    totals = [row for row in rows if row.startswith("*,*,*,")]
    assert len(totals) == 1 and totals[0].split(",")[3] == str(3 * len(models))
    board = json.loads((tmp_path / "leaderboard.json").read_text())
    assert sorted(m["model"] for m in board["models"]) == sorted(
        ["./*" if m == "*" else m for m in models])
    page = (tmp_path / "report" / "index.html").read_text()
    ids = [part.split('"')[0] for part in page.split(' id="')[1:]]
    assert len(ids) == len(set(ids))


def test_a_long_vbvr_model_path_keeps_its_results_file(batch, videos, tmp_path):
    from objsub_fast.scoring.reading.vbvr import TASK_NAME

    questions = tmp_path / "gt" / "In-Domain_50" / TASK_NAME
    for i in range(2):
        q = questions / f"{i:05d}"
        q.mkdir(parents=True)
        (q / "metadata.json").write_text(json.dumps(batch.task(i)))
        (q / "prompt.txt").write_text(batch.task(i)["prompt"])
    model = "x" * 240
    videos_dir = tmp_path / "models" / model / "In-Domain_50" / TASK_NAME
    videos_dir.mkdir(parents=True)
    for i in range(2):
        write_video(videos_dir / f"{i:05d}.mp4", videos[i])
    assert _run(["--questions", tmp_path / "gt", "--outputs", tmp_path / "models",
                 "--out", tmp_path / "s.jsonl"]) == 0
    results = list(tmp_path.glob("*_vbvr_results.json"))
    assert len(results) == 1 and len(results[0].name) < 255
    assert json.loads(results[0].read_text())["model_name"] == model
