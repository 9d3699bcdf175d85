"""Public surface of objsub_fast.scoring: docstring examples run, __all__ everywhere, one
Numba decorator (``objsub_fast.runtime._numba.kernel``) and private kernels."""
import doctest
import importlib
import pkgutil

import pytest

import objsub_fast.scoring as scoring

#: Every module of scoring and of its stage sub-packages (reading, tracking, judging, reporting).
MODULES = sorted(m.name[len("objsub_fast.scoring."):] for m in
                 pkgutil.walk_packages(scoring.__path__, "objsub_fast.scoring."))


@pytest.mark.parametrize("name", MODULES)
def test_examples_run_and_surface_is_declared(name):
    module = importlib.import_module(f"objsub_fast.scoring.{name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert isinstance(module.__all__, list) and all(hasattr(module, n) for n in module.__all__)
    source = open(module.__file__).read()
    assert "njit" not in source
    for attr, value in vars(module).items():
        if type(value).__name__ == "CPUDispatcher":      # a Numba kernel
            assert attr.startswith("_"), attr


def test_score_video_and_render_transition_have_examples():
    from objsub_fast.scoring import render_transition, score_video

    for fn in (score_video, render_transition):
        assert doctest.DocTestFinder().find(fn)[0].examples
