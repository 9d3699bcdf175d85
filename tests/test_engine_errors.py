"""Bad input to generate_batch: a ValueError naming the parameter, before Numba runs."""
import numpy as np
import pytest

from objsub_fast import generate_batch
from objsub_fast.task.vocabulary import Vocabulary

CASES = [
    (dict(seeds=[]), "seeds"),
    (dict(seeds=[-1]), r"seeds.*\[0, 2\*\*63-1\]"),
    (dict(seeds=[1.5]), "seeds"),
    (dict(seeds=[True]), "seeds"),
    (dict(seeds=["3"]), "seeds"),
    (dict(seeds=[2**63]), r"seeds.*2\*\*63-1"),
    (dict(seeds=7), "seeds"),
    (dict(seeds=[1], level="L5"), "level"),
    (dict(seeds=[1, 2], level=["L1"]), "level.*one per seed"),
    (dict(seeds=[1], canvas_size=8), "canvas_size"),
    (dict(seeds=[1], canvas_size=(256,)), "canvas_size"),
    (dict(seeds=[1], canvas_size=40), r"canvas_size must be in \[64, 8192\]"),
    (dict(seeds=[1], canvas_size=64, object_size=(20, 40)), "object_size"),
    (dict(seeds=[1], canvas_size=256.0), "canvas_size"),
    (dict(seeds=[1], canvas_size="256"), "canvas_size"),
    (dict(seeds=[1], render="no"), "render must be True or False"),
    (dict(seeds=[1], masks=1), "masks must be True or False"),
    (dict(seeds=[1], kind_weights={"L5": {"color": 1}}), r"unknown level.*'L5'"),
    (dict(seeds=[1, 2], level=["L1", "L3"], kind_weights={"L9": {"x": 1}}),
     r"unknown level.*'L9'"),
    (dict(seeds=[1], kind_weights={"L1": {"color": "a lot"}}), "must be numbers"),
    (dict(seeds=[1], vocabulary="fancy"), "vocabulary must be one of"),
    (dict(seeds=[1], colors="red,mauve"), r"colors: unknown name\(s\) \['mauve'\]"),
    (dict(seeds=[1], colors="red,red"), "colors: names a value twice"),
    (dict(seeds=[1], colors=""), "colors"),
    (dict(seeds=[1], shapes="cube,hexagon"), "shapes: unknown"),
    (dict(seeds=[1], shapes="cube,square"), "shapes: names one shape twice"),
    (dict(seeds=[1], shape_names="round"), "shape_names: must be one of"),
    (dict(seeds=[1], prompt_variants=5), r"prompt_variants: must be an integer in \[1, 4\]"),
    (dict(seeds=[1], prompt_variants=0), "prompt_variants"),
    (dict(seeds=[1], vocabulary=Vocabulary(("red", "mauve"), (0, 1))), "colors: unknown"),
    (dict(seeds=[1], vocabulary=Vocabulary(("red", "blue"), (0, 0))), "distinct codes"),
    (dict(seeds=[1], vocabulary=Vocabulary(("red", "blue"), (0, 99))), "distinct codes"),
    (dict(seeds=[1], vocabulary=Vocabulary(("red", "blue"), (0, 1), "round")), "shape_names"),
    (dict(seeds=[1], colors="red"), "rule 'color' of L1 needs at least 2 colours"),
    (dict(seeds=[1], level="L4", shapes="hourglass"), "rule 'combo' of L4 needs at least 2 colours "
     "and 2 shapes"),
    (dict(seeds=[1], level="L2", colors="red", shapes="cube,hourglass,dome"),
     "enumerate_3.*needs 4 pairs.*give 3"),
    (dict(seeds=[1], canvas_size=128, num_objects=(20, 40)),
     r"num_objects must lie in \[2, 15\] .*fit a 128x128 canvas"),
    (dict(seeds=[1], num_objects=(6, 3)), "num_objects.*empty"),
    (dict(seeds=[1], num_objects=(1, 3)), r"num_objects.*\[2, 15\]"),
    (dict(seeds=[1], level="L4", num_objects=(4, 6)), r"num_objects.*\[5, 15\].*L4"),
    (dict(seeds=[1], object_size=(30, 20)), "object_size.*empty"),
    (dict(seeds=[1], object_size=(0, 20)), "object_size"),
    (dict(seeds=[1], object_size=(20, 30)), "object_size.*largest"),
    (dict(seeds=[1], kind_weights={"bogus": 1}), "kind_weights"),
    (dict(seeds=[1], kind_weights={"color": -1, "shape": 1}), "kind_weights"),
    (dict(seeds=[1], kind_weights={"color": 0}), "kind_weights"),
    (dict(seeds=[1], level="L3", canvas_size=(70, 256), object_size=(20, 40)), "canvas_size"),
]


@pytest.mark.parametrize("kwargs,message", CASES)
def test_bad_input_names_the_parameter(kwargs, message):
    with pytest.raises(ValueError, match=message):
        generate_batch(**kwargs)


def test_size_rules_can_be_switched_off_for_a_narrow_size_range():
    batch = generate_batch(range(50), object_size=(20, 30), render=False,
                           kind_weights={"color": 1, "shape": 1})
    tasks = [batch.task(i) for i in range(50)]
    assert {t["object_subtraction_data"]["rule"]["rule_type"] for t in tasks} <= {"color", "shape"}
    sizes = [o["size"] for t in tasks for o in t["object_subtraction_data"]["objects"]]
    assert 20 <= min(sizes) and max(sizes) <= 30


def test_task_index_out_of_range():
    batch = generate_batch([1, 2], render=False)
    with pytest.raises(IndexError):
        batch.task(2)


FRAME = (2, 256, 256, 3)
OUT_CASES = [
    ({"out": (np.empty(FRAME, np.uint8),)}, "out must be a tuple of 2"),
    ({"out": (np.empty(FRAME, np.uint8),) * 2, "masks": True}, "out must be a tuple of 3"),
    ({"out": (np.empty(FRAME, np.float32), np.empty(FRAME, np.uint8))}, "out first"),
    ({"out": (np.empty(FRAME, np.uint8), np.empty((3, 256, 256, 3), np.uint8))}, "out final"),
    ({"out": (np.empty((2, 256, 512, 3), np.uint8)[:, :, ::2], np.empty(FRAME, np.uint8))},
     "C-contiguous"),
    ({"out": (np.empty(FRAME, np.uint8),) * 2}, "overlap"),
    ({"out": (np.empty(FRAME, np.uint8), np.empty(FRAME, np.uint8)), "render": False},
     "render=True"),
]


@pytest.mark.parametrize("kwargs,message", OUT_CASES)
def test_bad_out_buffers(kwargs, message):
    with pytest.raises(ValueError, match=message):
        generate_batch([1, 2], **kwargs)
