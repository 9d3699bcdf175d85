"""The Examples sections of the engine's modules run as doctests (the dataset side has its
own list in test_doctests.py)."""
import doctest
import importlib

import pytest

MODULES = ["objsub_fast._version", "objsub_fast.vocabulary", "objsub_fast.config",
           "objsub_fast.units", "objsub_fast.scene_pixels", "objsub_fast.render",
           "objsub_fast.solids", "objsub_fast.records", "objsub_fast.engine",
           "objsub_fast.interpret"]


@pytest.mark.parametrize("name", MODULES)
def test_examples_run(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0, f"{name} has no Examples"
