"""The Examples sections of the engine's modules run as doctests (the dataset side has its
own list in test_doctests.py)."""
import doctest
import importlib

import pytest

MODULES = ["objsub_fast._version", "objsub_fast.task.vocabulary", "objsub_fast.task.config",
           "objsub_fast.task.units", "objsub_fast.task.scene_pixels", "objsub_fast.draw.render",
           "objsub_fast.draw.solids", "objsub_fast.task.records", "objsub_fast.engine",
           "objsub_fast.task.interpret"]


@pytest.mark.parametrize("name", MODULES)
def test_examples_run(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0, f"{name} has no Examples"
