"""The HTML report as a person reads it: summary on top, failures first with a one-line verdict
and their frames, the last frame always drawn, objects named in words, labels never overlapping."""
import argparse
import re

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from objsub_fast import generate_batch
from objsub_fast.scoring import score_video, write_video
from objsub_fast.testing.controls import control_frames
from objsub_fast.scoring.judging.metrics import TaskModel, Tracker, score_frames
from objsub_fast.scoring.reporting.report import explain, place_label, verdict


def _overlap(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 230), st.integers(0, 230), st.integers(8, 40),
                          st.integers(20, 90)), min_size=1, max_size=10))
def test_labels_never_overlap(objects):
    placed = []
    for x, y, side, width in objects:
        spot = place_label((x, y, x + side, y + side), (width, 11), placed, (256, 256))
        if spot is not None:
            rect = (spot[0], spot[1], spot[0] + width, spot[1] + 11)
            assert 0 <= rect[0] and rect[2] <= 256 and 0 <= rect[1] and rect[3] <= 256
            assert not any(_overlap(rect, p) for p in placed)
            placed.append(rect)
    assert placed       # the first label always finds room


def test_strip_frames_are_evenly_spaced_and_include_the_last():
    batch = generate_batch([5], level="L2")
    model = TaskModel(batch.task(0))
    for count in (7, 37, 81):
        tracker = Tracker(model, keep_samples=6)
        score_frames(model, control_frames(batch, 0, "ground_truth", count), tracker=tracker)
        picked = [i for i, _ in tracker.sampled()]
        assert picked[0] == 0 and picked[-1] == count - 1, (count, picked)
        assert len(picked) == min(6, count)
        gaps = np.diff(picked)
        assert gaps.max() - gaps.min() <= max(2, count // 10), (count, picked)


def test_verdicts_name_objects_in_words():
    batch = generate_batch([11], level="L1")
    rec = batch.task(0)
    res = score_video(rec, control_frames(batch, 0, "nothing_removed", 12))
    words = {str(o["id"]): f"{o['color']} {o['shape']}"
             for o in rec["object_subtraction_data"]["objects"]}
    assert res["objects"] == words
    target = res["metrics"]["rule_accuracy"]["target_ids"][0]
    first = explain(res)[0]
    assert first.startswith(f"The {words[str(target)]} ({target})") and "not" in first
    assert verdict(res) == "FAIL: " + first
    added = score_video(rec, control_frames(batch, 0, "added_object", 12))
    assert any(re.match(r"A new \w+ \w+ appeared at frame 6 at \(\d+, \d+\)", s)
               for s in explain(added))


def test_page_opens_with_the_summary_and_failures_first(tmp_path):
    import json

    from objsub_fast.scoring import command

    batch = generate_batch([11, 12], level="L1")
    q, out = tmp_path / "q", tmp_path / "o"
    out.mkdir()
    for i, control in enumerate(("ground_truth", "wrong_object")):
        rec = batch.task(i)
        (q / rec["id"]).mkdir(parents=True)
        (q / rec["id"] / "question_metadata.json").write_text(json.dumps(rec))
        write_video(out / f"{rec['id']}.mp4", control_frames(batch, i, control, 12))
    parser = argparse.ArgumentParser()
    command.add_arguments(parser)
    assert command.run(parser.parse_args(
        ["--questions", str(q), "--outputs", str(out), "--out", str(tmp_path / "s.jsonl"),
         "--report", str(tmp_path / "r"), "--quiet", "--workers", "1"])) == 0
    page = (tmp_path / "r" / "index.html").read_text()
    top = page.index("o: 50% pass (1 of 2); 0 not scored, 0 missing")
    fail, ok = page.index("FAIL: "), page.index("PASS: ")
    table = page.index("<table>")
    assert top < fail < ok < table
    # the failure's frame strip comes right after its verdict, before any other detail
    block = page[fail:ok]
    assert block.index("<img") < block.index("Prompt:")
