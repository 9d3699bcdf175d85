"""Module-level skips on what is installed, without importing it.

``pytest.importorskip`` imports the module; at module level it does so in every pytest-xdist
worker, each of which collects every test file, though only one worker runs the file (an
object-store client costs 0.5-1 CPU-s to import). :func:`skip_unless_installed` only looks
the modules up; the tests import them when they run.
"""
import importlib.util

import pytest


def skip_unless_installed(*modules: str, reason: str) -> None:
    """Skip the calling test module unless every one of ``modules`` (top-level names) can be
    imported."""
    if any(importlib.util.find_spec(name) is None for name in modules):
        pytest.skip(reason, allow_module_level=True)
