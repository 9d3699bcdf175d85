"""record_json.compact_records writes the same bytes as json.dumps of each task record."""
import json

from hypothesis import given, settings, strategies as st

from objsub_fast.engine import generate_batch
from objsub_fast.task.record_json import compact_records
from objsub_fast.task.records import task_records
from objsub_fast.task.vocabulary import KINDS

SEEDS = st.integers(0, 2**63 - 1)
LEVELS = st.lists(st.sampled_from(["L1", "L2", "L3", "L4"]), min_size=1, max_size=4)
#: Engine knobs that change what a record holds (vocabulary entries, look, names, wording, the
#: number of objects, canvas size and with it the coordinates).
KNOBS = st.sampled_from([
    {}, {"vocabulary": "extended"}, {"look": "solid"},
    {"vocabulary": "extended", "shape_names": "flat", "prompt_variants": 4},
    {"colors": "red,cyan", "shapes": "cube,diamond"}, {"canvas_size": (320, 200)},
    {"canvas_size": 1024}, {"canvas_size": (64, 96)},
    {"num_objects": (5, 25), "object_size": (12, 30)},
])


def reference(batch, first_index, version):
    """What a sample stored before: the compact json.dumps of each record."""
    records = task_records(batch)
    for i, record in enumerate(records):
        record["task_index"] = first_index + i
        record["generator_version"] = version
    return [json.dumps(r, separators=(",", ":")).encode() for r in records]


@settings(max_examples=60, deadline=None)
@given(seeds=st.lists(SEEDS, min_size=1, max_size=12), levels=LEVELS, knobs=KNOBS,
       first_index=st.integers(0, 10**9), version=st.sampled_from(["0.1.0", "9.10.11", 'a"b\u00e9']))
def test_compact_records_equal_json_dumps_of_each_record(seeds, levels, knobs, first_index,
                                                         version):
    level = [levels[i % len(levels)] for i in range(len(seeds))]
    batch = generate_batch(seeds, level=level, render=False, **knobs)
    assert compact_records(batch, first_index, version) == reference(batch, first_index, version)


def test_compact_records_of_every_rule_kind():
    """A batch large enough to hold every rule kind of every level, in one call."""
    batch = generate_batch(range(400), level=["L1", "L2", "L3", "L4"] * 100, render=False)
    kinds = {json.loads(r)["object_subtraction_data"]["rule"]["rule_type"]
             for r in compact_records(batch, 0, "0.1.0")}
    assert kinds == {kind.name for kind in KINDS}
    assert compact_records(batch, 5, "0.1.0") == reference(batch, 5, "0.1.0")


def test_coordinates_off_the_half_grid_are_written_as_json_writes_them():
    batch = generate_batch([1, 2], render=False)
    batch.x = batch.x + 1 / 3  # not a multiple of 0.5: the lookup must not be used
    assert compact_records(batch, 0, "v") == reference(batch, 0, "v")
