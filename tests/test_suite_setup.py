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
