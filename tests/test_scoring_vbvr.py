"""VBVR-Bench drop-in (layouts, results file, recovered records) and the HTML report."""
import argparse
import json
import re

import numpy as np
import pytest
from PIL import Image

from objsub_fast import generate_batch
from objsub_fast.scoring import write_video
from objsub_fast.testing.controls import control_frames
from objsub_fast.testing.outputs import centre_cropped
from objsub_fast.scoring.reading.vbvr import RECOVERED, TASK_NAME, load_question, recover_record

SPLIT = "Out-of-Domain_50"


@pytest.fixture(scope="module")
def batch():
    return generate_batch([21, 22, 23], level=["L1", "L3", "L2"])


def _gt(batch, root, with_record=(True, True, False)):
    for i in range(len(batch)):
        rec = batch.task(i)
        q = root / SPLIT / TASK_NAME / f"{i:05d}"
        q.mkdir(parents=True)
        Image.fromarray(batch.first_frames[i]).save(q / "first_frame.png")
        Image.fromarray(batch.final_frames[i]).save(q / "final_frame.png")
        (q / "prompt.txt").write_text(rec["prompt"])
        meta = {"task_id": f"object_subtraction_{i:08d}", "generator": "O-43",
                "parameters": {"seed": rec["seed"]}}
        if with_record[i]:
            meta["parameters"]["task_record"] = rec
        (q / "metadata.json").write_text(json.dumps(meta))
    return root


def _run(argv):
    from objsub_fast.scoring import command

    parser = argparse.ArgumentParser()
    command.add_arguments(parser)
    return command.run(parser.parse_args(argv + ["--no-progress"]))


def test_recovered_record_scores_like_the_real_one(batch, tmp_path):
    gt = _gt(batch, tmp_path / "gt")
    for i in range(len(batch)):
        folder = gt / SPLIT / TASK_NAME / f"{i:05d}"
        rec = recover_record(folder)
        real = batch.task(i)["object_subtraction_data"]
        got = rec["object_subtraction_data"]
        assert len(got["objects"]) == len(real["objects"])
        key = lambda o: (round(o["x"]), round(o["y"]))  # noqa: E731
        for a, b in zip(sorted(got["objects"], key=key), sorted(real["objects"], key=key)):
            assert (a["color"], a["shape"], a["size"]) == (b["color"], b["shape"], b["size"])
            assert abs(a["x"] - b["x"]) <= 1 and abs(a["y"] - b["y"]) <= 1
        removed = sorted(key(got["objects"][k]) for k in got["remove_object_ids"])
        assert removed == sorted(key(real["objects"][k]) for k in real["remove_object_ids"])
    assert load_question(gt / SPLIT / TASK_NAME / "00002")[1] == RECOVERED
    assert load_question(gt / SPLIT / TASK_NAME / "00000")[1] == "metadata.json"


def test_vbvr_layout_several_models_results_and_report(batch, tmp_path):
    gt = _gt(batch, tmp_path / "gt")
    base = tmp_path / "models"
    for model in ("good", "lazy"):
        folder = base / model / SPLIT / TASK_NAME
        folder.mkdir(parents=True)
        for i in range(len(batch)):
            frames = control_frames(batch, i, "ground_truth", 12, style="fade")
            if model == "lazy":
                frames = frames[:1].repeat(12, 0)
            write_video(folder / f"{i:05d}.mp4", centre_cropped(frames, (832, 480)))
    out = tmp_path / "res" / "scores.jsonl"
    report = tmp_path / "report"
    assert _run(["--questions", str(gt), "--outputs", str(base), "--out", str(out),
                 "--report", str(report), "--workers", "2"]) == 0   # a pool of workers
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(lines) == 6
    assert sum(r["question_source"] == RECOVERED for r in lines) == 2
    for model, want in (("good", 1.0), ("lazy", 0.0)):
        res = json.loads((out.parent / f"{model}_vbvr_results.json").read_text())
        assert res["model_name"] == model and len(res["samples"]) == 3
        sample = res["samples"][0]
        assert {"video_path", "task_name", "split", "score", "dimensions", "error"} <= set(sample)
        assert sample["task_name"] == TASK_NAME and sample["split"] == "Out_of_Domain"
        summary = res["summary"]
        assert summary["Out_of_Domain"]["num_samples"] == 3
        assert summary["overall"]["mean_score"] == pytest.approx(want)
        assert summary["overall"]["by_task"][TASK_NAME] == pytest.approx(want)
        assert all(0.0 <= s["score"] <= 1.0 for s in res["samples"])
    page = (report / "index.html").read_text()
    refs = re.findall(r'src="([^"]+)"', page)
    assert len(refs) == 6 and all((report / r).is_file() for r in refs)
    assert not re.findall(r'href="([^"#]+)"', page)
    assert "not removed" in page or "Gone: none" in page   # the lazy model's failures in words
    strip = np.asarray(Image.open(report / refs[0]))
    # six frames in rows that fit a 1,280 px window (#47): three of 256 px a row
    assert strip.shape[0] == 2 * 256 + 6 and 3 * 256 < strip.shape[1] <= 1180


def test_report_of_error_records_has_no_dangling_images(batch, tmp_path):
    gt = _gt(batch, tmp_path / "gt")
    folder = tmp_path / "m" / SPLIT / TASK_NAME
    folder.mkdir(parents=True)
    (folder / "00000.mp4").write_bytes(b"")
    report = tmp_path / "rep"
    args = ["--questions", str(gt), "--outputs", str(tmp_path / "m"), "--out",
            str(tmp_path / "s.jsonl"), "--report", str(report)]
    # nothing could be scored: exit 2, with the record in the report (#47)
    assert _run(args) == 2 and "empty" in (report / "index.html").read_text()
    write_video(folder / "00001.mp4", control_frames(batch, 1, "ground_truth", 12, style="fade"))
    assert _run(args) == 0
    page = (report / "index.html").read_text()
    assert "Not scored" in page and "empty" in page
    assert all((report / r).is_file() for r in re.findall(r'src="([^"]+)"', page))


def test_vbvr_questions_left_out_count_in_the_results(batch, tmp_path):
    # A model folder holding 1 of 3 videos: three samples, two of them errors scoring 0.
    gt = _gt(batch, tmp_path / "gt")
    folder = tmp_path / "m" / SPLIT / TASK_NAME
    folder.mkdir(parents=True)
    write_video(folder / "00001.mp4", control_frames(batch, 1, "ground_truth", 12, style="fade"))
    out = tmp_path / "s.jsonl"
    assert _run(["--questions", str(gt), "--outputs", str(tmp_path / "m"), "--out",
                 str(out), "--workers", "1"]) == 0
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(lines) == 3 and sum(bool(r["error"]) for r in lines) == 2
    res = json.loads((tmp_path / "m_vbvr_results.json").read_text())
    overall = res["summary"]["overall"]
    assert overall["num_samples"] == 3 and overall["mean_score"] == pytest.approx(1 / 3)
    missing = [s for s in res["samples"] if s["error"]]
    assert len(missing) == 2 and all(s["score"] == 0 and not s["pass"] for s in missing)
