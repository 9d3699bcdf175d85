"""Bad task records get their own clear error (one validator, the generator's limits)."""
import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from objsub_fast import generate_batch
from objsub_fast.runtime.parallel import worker_count
from objsub_fast.runtime.errors import TaskError, UsageError
from objsub_fast.scoring import score_video
from objsub_fast.scoring.reading.question import check_question

BATCH = generate_batch([5])
RECORD = BATCH.task(0)


def _with(path, value):
    rec = copy.deepcopy(RECORD)
    node = rec
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return rec


DATA = "object_subtraction_data"
CASES = [
    (("canvas_size",), [30000, 30000], "canvas_size must be in [64, 8192]"),
    (("canvas_size",), [0, 0], "canvas_size must be in [64, 8192]"),
    (("canvas_size",), "big", "canvas_size must be an int or a (width, height) pair"),
    ((DATA, "remove_object_ids"), [99], "names object 99, which is not in the task"),
    ((DATA, "remove_object_ids"), [-1], "names object -1"),
    ((DATA, "remove_object_ids"), [], "remove_object_ids is empty"),
    ((DATA, "remove_object_ids"), ["3"], "must be a list of object ids (integers); got '3'"),
    ((DATA, "remove_object_ids"), [True], "got True"),
    ((DATA, "remove_object_ids"), [0, 0], "lists an object twice"),
    ((DATA, "objects", 0, "color"), "pink", "objects[0].color must be one of"),
    ((DATA, "objects", 1, "shape"), "torus", "objects[1].shape must be one of"),
    ((DATA, "objects", 0, "size"), 5000, "objects[0].size must be an integer in [4, 4096]"),
    ((DATA, "objects", 0, "size"), "30", "objects[0].size must be an integer"),
    ((DATA, "objects", 0, "x"), float("nan"), "objects[0].x must be a finite number"),
    ((DATA, "objects", 0, "x"), 1000.0, "outside the canvas"),
    ((DATA, "objects", 0, "id"), 1, "object ids must be unique"),
    ((DATA, "objects"), [], "objects must be a list of 2 to 254 objects"),
]


@pytest.mark.parametrize("path,value,message", CASES)
def test_each_bad_field_has_its_own_error(path, value, message):
    rec = _with(path, value)
    with pytest.raises(TaskError, match=None) as err:
        check_question(rec)
    assert message in str(err.value)
    assert isinstance(err.value, UsageError) and isinstance(err.value, ValueError)
    res = score_video(rec, BATCH.final_frames[0])
    assert res["error"].startswith("bad task record: ") and message in res["error"]
    assert res["pass"] is False and res["metrics"] == {} and res["score"] == 0.0


def test_removing_every_object_is_refused():
    ids = [o["id"] for o in RECORD[DATA]["objects"]]
    with pytest.raises(TaskError, match="every task keeps at least one"):
        check_question(_with((DATA, "remove_object_ids"), ids))


def test_missing_parts_are_named():
    rec = copy.deepcopy(RECORD)
    del rec[DATA]["objects"][2]["y"]
    with pytest.raises(TaskError, match=r"objects\[2\] has no 'y'"):
        check_question(rec)
    with pytest.raises(TaskError, match="object_subtraction_data"):
        check_question({"id": "x"})
    with pytest.raises(TaskError, match="must be a JSON object"):
        check_question([1, 2])


@settings(max_examples=60, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
                    lambda kids: st.lists(kids, max_size=3)
                    | st.dictionaries(st.text(max_size=5), kids, max_size=3), max_leaves=8),
       st.sampled_from(["canvas_size", "objects", "remove_object_ids", "size", "color", "x"]))
def test_any_value_anywhere_is_accepted_or_refused_cleanly(value, field):
    rec = copy.deepcopy(RECORD)
    target = {"canvas_size": rec, "objects": rec[DATA], "remove_object_ids": rec[DATA]}.get(
        field, rec[DATA]["objects"][0])
    target[field] = value
    try:
        q = check_question(rec)
    except TaskError as exc:
        assert str(exc)
    else:
        assert 64 <= q.canvas_size[0] <= 8192 and q.remove_ids


def test_generated_records_are_all_valid():
    batch = generate_batch(range(40), level=["L1", "L2", "L3", "L4"] * 10, render=False,
                           canvas_size=(320, 200), object_size=(10, 30))
    for i in range(len(batch)):
        q = check_question(batch.task(i))
        assert q.canvas_size == (320, 200) and 0 < len(q.remove_ids) < len(q.objects)


@pytest.mark.parametrize("workers,jobs,want", [(999, 1, 1), (1, 5, 1), (3, 2, 2), (2, 10, 2)])
def test_workers_are_capped_at_the_jobs(workers, jobs, want):
    assert worker_count(workers, jobs) == want


@pytest.mark.parametrize("workers", [0, -1, -2, 1.5, True, "4"])
def test_bad_worker_counts_are_refused(workers):
    with pytest.raises(UsageError, match="--workers must be an integer >= 1"):
        worker_count(workers, 4)
    assert 1 <= worker_count(None, 4) <= 4  # all cores by default, capped at the jobs
