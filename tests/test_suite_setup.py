"""The test command itself: CI runs the README's command, which runs the suite on all cores,
and every process of a run tests this checkout's package."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

import objsub_fast

ROOT = Path(__file__).resolve().parents[1]


def test_ci_runs_the_readmes_test_command():
    command = re.search(r"\n    (pip install -e \"\.\[test\]\" && python -m pytest)\n",
                        (ROOT / "README.md").read_text())
    assert command, "the README's test command changed"
    ci = [line.strip() for line in (ROOT / ".ci/run").read_text().splitlines()]
    assert command.group(1) in ci


def test_the_suite_runs_on_all_cores_from_the_test_extra():
    tomllib = pytest.importorskip("tomllib", reason="Python 3.11's TOML reader")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert any(r.startswith("pytest-xdist") for r in project["project"]
               ["optional-dependencies"]["test"])
    assert "-n auto" in project["tool"]["pytest"]["ini_options"]["addopts"]


def test_workers_and_their_subprocesses_import_this_checkout(tmp_path):
    assert Path(objsub_fast.__file__).resolve().parent == ROOT / "objsub_fast"
    code = "import objsub_fast; print(objsub_fast.__file__)"
    where = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                           text=True, check=True).stdout
    assert Path(where.strip()).resolve().parent == ROOT / "objsub_fast"


def test_the_kernel_warm_up_says_what_it_is_doing(monkeypatch):
    """A fresh checkout: the warm-up before the tests names itself, then says it is done."""
    import conftest

    said, started = [], []

    class Reporter:
        def write_line(self, line):
            said.append(line)

        def flush(self):
            pass

    class Finished:
        returncode = 0

        def __init__(self, argv, **kwargs):
            started.append(argv[-1])
            assert len(said) == 1  # the first line is out before the compiling starts

        def communicate(self):
            return "", None

    class Cache(dict):
        def get(self, key, default):
            return dict.get(self, key, default)

        def set(self, key, value):
            self[key] = value

    config = type("Config", (), {})()
    config.option = type("Options", (), {"numprocesses": 2})()
    config.cache = Cache()
    config.pluginmanager = type("Plugins", (), {"get_plugin": lambda self, name: Reporter()})()
    monkeypatch.setattr(conftest.subprocess, "Popen", Finished)
    conftest.pytest_sessionstart(type("Session", (), {"config": config})())
    assert sorted(started) == ["generate", "video"]
    assert "compiling the Numba kernels" in said[0] and "before the tests" in said[0]
    assert said[1].startswith("objsub-fast: kernels ready in ") and len(said) == 2
    conftest.pytest_sessionstart(type("Session", (), {"config": config})())
    assert len(said) == 2  # warmed: nothing more to say


def test_the_packages_bytecode_is_written_when_python_is_told_not_to(monkeypatch):
    """With PYTHONDONTWRITEBYTECODE (CI's machine), each process of the run would compile the
    package's sources again; the controller writes their .pyc files first, which Python reads."""
    import importlib.util

    import conftest

    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    conftest._compile_bytecode()
    for module in ("cli.py", "draw/render.py", "dataset/run/pipeline.py"):
        source = ROOT / "objsub_fast" / module
        cached = Path(importlib.util.cache_from_source(str(source)))
        assert cached.is_file() and cached.stat().st_mtime >= source.stat().st_mtime, module


def test_the_tests_rewritten_code_is_written_when_python_is_told_not_to(request, monkeypatch):
    """Each worker collects every test file; the controller writes their assertion-rewritten
    code where pytest reads it before rewriting a file, and the helpers' .pyc files."""
    import importlib.util

    from _pytest.assertion.rewrite import PYC_TAIL, _read_pyc

    import conftest

    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    conftest._compile_tests(request.config)
    tests = ROOT / "tests"
    for name in ("test_cli.py", "conftest.py"):
        assert _read_pyc(tests / name, tests / "__pycache__" / (name[:-3] + PYC_TAIL)), name
    helper = tests / "guarantees.py"
    assert Path(importlib.util.cache_from_source(str(helper))).is_file()
