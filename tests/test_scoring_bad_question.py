"""One bad question is one error line; the other questions are scored (issue 38).

Before, a task record nested 100,000 deep ended the whole run in a RecursionError (no JSONL
at all, with ``--workers 2`` too), and a coordinate of 10**400 was "unexpected OverflowError"
naming no field."""
import argparse
import json

import pytest

from objsub_fast import generate_batch
from objsub_fast.scoring import render_transition, write_video


@pytest.fixture(scope="module")
def batch():
    return generate_batch([3, 4, 5], level=["L1", "L2", "L3"])


def score(argv):
    from objsub_fast.scoring import command

    parser = argparse.ArgumentParser()
    command.add_arguments(parser)
    return command.run(parser.parse_args(argv + ["--no-progress"]))


def questions_and_outputs(batch, root, bad_record: bytes):
    """A question folder per task (the first one's record replaced by ``bad_record``) and a
    good video for each."""
    videos = render_transition(batch, "fade", 10)
    for i in range(len(batch)):
        rec = batch.task(i)
        q = root / "questions" / "object_subtraction_task" / rec["id"]
        q.mkdir(parents=True)
        (q / "question_metadata.json").write_bytes(bad_record(rec) if i == 0 else
                                                   json.dumps(rec).encode())
        (root / "outputs").mkdir(exist_ok=True)
        write_video(root / "outputs" / f"{rec['id']}.mp4", videos[i])
    return root / "questions", root / "outputs"


def nested(rec):
    return b"[" * 100_000 + b"]" * 100_000


def huge_coordinate(rec):
    rec = json.loads(json.dumps(rec))
    rec["object_subtraction_data"]["objects"][1]["x"] = 10 ** 400
    return json.dumps(rec).encode()


@pytest.mark.parametrize("workers", ["1", "2"])
@pytest.mark.parametrize("bad, says", [(nested, "nested too deeply"),
                                       (huge_coordinate, "objects[1].x must be a finite number")])
def test_one_bad_question_is_one_error_and_the_rest_are_scored(batch, tmp_path, workers, bad,
                                                                says):
    questions, outputs = questions_and_outputs(batch, tmp_path, bad)
    scores = tmp_path / "scores.jsonl"
    score(["--questions", str(questions), "--outputs", str(outputs), "--out", str(scores),
           "--workers", workers])
    lines = {r["task_id"]: r for r in map(json.loads, scores.read_text().splitlines())}
    assert len(lines) == 3
    first = lines[batch.task(0)["id"]]
    assert first["error"] and says in first["error"] and len(first["error"]) < 300, first
    assert all(r["error"] is None and r["pass"] for k, r in lines.items()
               if k != batch.task(0)["id"])
