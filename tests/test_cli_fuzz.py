"""Fuzzing the command line: random option values (valid and not) for every subcommand.

Whatever the values: exit status 0 or 2; on 2, exactly one line on standard error, starting with
"objsub-fast: error:", and no traceback; a failed run leaves nothing under a final name in a
fresh output folder; every call returns within a time bound.
"""
import os
import time

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from objsub_fast.cli import main

pytestmark = pytest.mark.filterwarnings("ignore")

INTS = st.one_of(st.integers(-3, 40), st.sampled_from(["", "x", "1.5", "1e3", "99999999999"]))
LEVELS = st.one_of(
    st.lists(st.sampled_from(["L1", "L2", "L3", "L4"]), min_size=1, max_size=4, unique=True)
    .map(",".join),
    st.sampled_from(["", "L1,,L2", "L9", "l1", "L1,L1", ","]))
CANVAS = st.one_of(st.sampled_from(["256", "200x256", "64x4096", "0", "-5", "abc", "256x",
                                    "x", "1e9", "256.0", "192", "96"]),
                   st.integers(1, 600).map(str))
FORMATS = st.sampled_from(["webdataset", "vmevalkit", "parquet", ""])


def _opt(name, strategy):
    return st.one_of(st.just([]), strategy.map(lambda v: [name, str(v)]))


GENERATE = st.tuples(_opt("--count", INTS), _opt("--levels", LEVELS), _opt("--seed", INTS),
                     _opt("--format", FORMATS), _opt("--shard-size", INTS),
                     _opt("--canvas-size", CANVAS), _opt("--chunk-size", INTS),
                     _opt("--workers", st.sampled_from(["1", "0", "-1", "x", "999"])),
                     _opt("--scheduler-timeout", st.sampled_from(["0", "-1", "x", "5", "1e9"])),
                     st.sampled_from([[], ["--masks"], ["--overwrite"], ["--no-space-check"]]))
PREVIEW = st.tuples(_opt("--count", INTS), _opt("--level", st.sampled_from(["L1", "L9", ""])),
                    _opt("--columns", INTS), _opt("--canvas-size", CANVAS),
                    _opt("--seed", INTS))


def _run(argv, capsys):
    t0 = time.monotonic()
    try:
        code = main(argv)
    except SystemExit as e:
        code = e.code
    elapsed = time.monotonic() - t0
    captured = capsys.readouterr()
    return code, captured.err, elapsed


def _check(code, err, elapsed):
    assert code in (0, 2), f"exit {code}: {err}"
    assert "Traceback" not in err
    if code == 2:
        lines = [line for line in err.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("objsub-fast: error: "), err
    assert elapsed < 60


def _final_names(folder):
    if not os.path.isdir(folder):
        return []
    return sorted(n for n in os.listdir(folder) if not n.startswith("."))


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(options=GENERATE)
def test_generate_fuzz(options, tmp_path_factory, capsys):
    out = tmp_path_factory.mktemp("fuzz") / "out"
    argv = ["generate", "--out", str(out), "--quiet"] + [a for o in options for a in o]
    if not any(o[:1] == ["--count"] for o in options):
        argv += ["--count", "5"]  # keep runs short
    code, err, elapsed = _run(argv, capsys)
    _check(code, err, elapsed)
    if code == 2:
        assert _final_names(out) == [], f"{argv} left {_final_names(out)}"


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(options=PREVIEW)
def test_preview_fuzz(options, tmp_path_factory, capsys):
    out = tmp_path_factory.mktemp("fuzz") / "sheet.png"
    argv = ["preview", str(out)] + [a for o in options for a in o]
    code, err, elapsed = _run(argv, capsys)
    _check(code, err, elapsed)
    if code == 2:
        assert not out.exists()
