"""The score summaries in words a person reads (issue #27, item 5): headings that say what each
column holds, unscorable outputs in plain words, outputs and questions counted apart, labels
clear of the objects the verdict names, VBVR samples in question order."""
import argparse
import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from objsub_fast import generate_batch
from objsub_fast.ground_truth.video import VideoSpec, encode_transitions
from objsub_fast.scoring import command
from objsub_fast.scoring.reporting import report
from objsub_fast.testing.controls import control_frames
from objsub_fast.scoring.reading.vbvr import TASK_NAME

SPLIT = "Out-of-Domain_50"
QUESTIONS, MISSING, TRUNCATED = 8, 5, 2


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    """8 VBVR questions, 7 outputs: 6 ground-truth videos, one cut short, one question left
    out; scored once with an HTML report. (stdout, tmp folder)."""
    root = tmp_path_factory.mktemp("words")
    batch = generate_batch(list(range(40, 40 + QUESTIONS)), level=["L1", "L2"] * 4)
    videos = encode_transitions(batch, VideoSpec("fade", 16, 20))
    outputs = root / "m" / SPLIT / TASK_NAME
    outputs.mkdir(parents=True)
    for i in range(QUESTIONS):
        rec = batch.task(i)
        q = root / "gt" / SPLIT / TASK_NAME / f"{i:05d}"
        q.mkdir(parents=True)
        Image.fromarray(batch.first_frames[i]).save(q / "first_frame.png")
        (q / "prompt.txt").write_text(rec["prompt"])
        (q / "metadata.json").write_text(json.dumps({"parameters": {"task_record": rec}}))
        data = videos[i][: len(videos[i]) * 9 // 10] if i == TRUNCATED else videos[i]
        if i != MISSING:
            (outputs / f"{i:05d}.mp4").write_bytes(data)
    parser = argparse.ArgumentParser()
    command.add_arguments(parser)
    args = parser.parse_args(["--questions", str(root / "gt"), "--outputs", str(root / "m"),
                              "--out", str(root / "s.jsonl"), "--report", str(root / "r"),
                              "--quiet", "--workers", "1"])
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert command.run(args) == 0
    return out.getvalue(), root


def test_closing_line_counts_outputs_and_questions_apart(scored):
    printed, _ = scored
    assert printed.splitlines()[-1] == ("7 outputs for 8 questions: 6 scored, 1 unreadable, "
                                        "1 missing")


def test_a_cut_short_video_reads_as_such_not_as_an_exception(scored):
    _, root = scored
    page = (root / "r" / "index.html").read_text()
    said = re.findall(r"FAIL: Not scored: ([^<]*)<", page)
    assert len(said) == 2, said
    assert any(re.fullmatch(r"the video ends after \d+ frames \(truncated or corrupt\)", s)
               for s in said), said
    assert "there is no output for this question" in said
    assert not any("Error" in s or "avcodec" in s for s in said)


def test_headings_say_what_the_columns_hold(scored):
    _, root = scored
    head = (root / "s_summary.txt").read_text().splitlines()[:2]
    assert "pass rate of each check" in head[0]
    columns = head[1].split()
    for word in ("final_iou", "kept", "count", "rule", "motion", "added", "camera"):
        assert word not in columns
    assert all(h in columns for h in command.CHECK_HEADINGS.values())
    assert "not_scored" in columns and "mean_final_frame_iou" in columns
    # the check group starts at the first check column
    first_check = command.CHECK_HEADINGS["final_object_match"]
    assert head[0].index("pass rate") == head[1].index(first_check)
    page = (root / "r" / "index.html").read_text()
    table = page[page.index("<table>"):]
    assert ">final_iou<" not in table and ">kept<" not in table and ">rule<" not in table
    assert ">final frame matches<" in table and "pass rate of each check" in table


def test_vbvr_samples_are_in_question_order(scored):
    _, root = scored
    samples = json.loads((root / "m_vbvr_results.json").read_text())["samples"]
    assert len(samples) == QUESTIONS
    assert [s["task_id"] for s in samples] == [json.loads(
        (root / "gt" / SPLIT / TASK_NAME / f"{i:05d}" / "metadata.json").read_text())[
        "parameters"]["task_record"]["id"] for i in range(QUESTIONS)]
    assert samples[MISSING]["video_path"] is None and samples[MISSING]["error"]


def test_count_line_of_several_models_and_an_unusable_question():
    rs = [{"model": m, "task_id": t, "output": f"{m}/{t}.mp4", "error": None,
           "question_source": "metadata.json"} for m in "ab" for t in "123"]
    rs[0] = {**rs[0], "error": "no record"}
    del rs[0]["question_source"]
    assert command.count_line(rs) == ("6 outputs of 2 models for 3 questions: 5 scored, "
                                      "0 unreadable, 0 missing, 1 with an unusable question")


def test_format_table_of_no_rows_still_has_its_headings():
    lines = command.format_table([]).splitlines()
    assert len(lines) == 2 and "kept_unchanged" in lines[1]


def _overlap(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


_box = st.tuples(st.integers(0, 220), st.integers(0, 220), st.integers(8, 48)).map(
    lambda t: (t[0], t[1], t[0] + t[2], t[1] + t[2]))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_box, st.booleans(), st.integers(20, 90)), min_size=1, max_size=12))
def test_labels_never_cover_a_named_object(objects):
    named = [box for box, is_named, _ in objects if is_named]
    other = [box for box, is_named, _ in objects if not is_named]
    rects = report.layout_labels([(box, (w, 11)) for box, _, w in objects], (256, 256), named,
                                 other)
    placed = [r for r in rects if r is not None]
    for k, rect in enumerate(placed):
        assert 0 <= rect[0] and rect[2] <= 256 and 0 <= rect[1] and rect[3] <= 256
        assert not any(_overlap(rect, box) for box in named), (rect, named)
        assert not any(_overlap(rect, p) for p in placed[:k])


def test_strip_labels_keep_clear_of_the_objects_the_verdict_names(tmp_path, monkeypatch):
    from objsub_fast.scoring.api import score_video_tracked

    batch = generate_batch([11], level="L1")
    res, tracker = score_video_tracked(batch.task(0), control_frames(batch, 0, "wrong_object",
                                                                     12), keep_samples=3)
    names = report.named_objects(res)
    assert names and names <= set(res["metrics"]["rule_accuracy"]["target_ids"]) | set(
        res["metrics"]["rule_accuracy"]["removed_ids"])
    calls = []
    real = report.layout_labels

    def spy(labels, bounds, keep_clear=(), avoid=()):
        rects = real(labels, bounds, keep_clear, avoid)
        calls.append((list(keep_clear), rects))
        return rects

    monkeypatch.setattr(report, "layout_labels", spy)
    (tmp_path / "img").mkdir()
    assert report.write_strip(tmp_path, res, tracker)
    assert len(calls) == 3
    for keep_clear, rects in calls:
        assert len(keep_clear) >= 1 + len(names)  # the footer and every named object
        for rect in filter(None, rects):
            assert not any(_overlap(rect, box) for box in keep_clear)
