"""What a new user trips over (issue #30, item 5): one consistent command line (flags, error
prefix, usage when bare, ranges in help), paths under a file, progress lines, the compile
notice, benchmarks that need an extra, and docs that say what the code does."""
import argparse
import io
import json
import re
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

from objsub_fast.cli import build_parser
from objsub_fast.cli_common import ERROR_PREFIX
from objsub_fast.runtime.progress import Progress, compile_notice
from test_cli import run_main

ROOT = Path(__file__).resolve().parents[1]


def _commands():
    """Command name -> its parser (``score``'s own, as the CLI builds it)."""
    from objsub_fast.scoring import command

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    parsers = dict(sub.choices)
    score = argparse.ArgumentParser(prog="objsub-fast score")
    command.add_arguments(score)
    parsers["score"] = score
    return parsers


# --------------------------------------------------------------------------- one command line

def test_bare_command_prints_the_usage_and_every_command(capsys):
    assert run_main([]) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: objsub-fast")
    for name in ("generate", "verify", "preview", "score"):
        assert re.search(rf"^\s+{name}\s+\S", err, re.M), (name, err)


@pytest.mark.parametrize("name", ["generate", "verify", "preview", "score"])
def test_every_command_takes_the_same_progress_flags(name):
    parser = _commands()[name]
    positional = {"verify": ["d"], "preview": ["s.png"], "score": ["--outputs", "o"]}.get(name, [])
    for flag in ("--quiet", "--no-progress"):
        assert parser.parse_args(positional + [flag]).quiet is True


@pytest.mark.parametrize("name", ["generate", "verify", "score"])
def test_every_command_with_workers_takes_j(name):
    positional = {"verify": ["d"], "score": ["--outputs", "o"]}.get(name, [])
    parser = _commands()[name]
    assert parser.parse_args(positional + ["-j", "3"]).workers == 3
    assert parser.parse_args(positional + ["--workers", "3"]).workers == 3
    assert "never more than there are" in parser.format_help()


#: A range in a help text: "in [1, 120]", "in (0, 3600]", ">= 1".
RANGE = re.compile(r"in [\[(]-?[\d,]+, [\d,]+\]|>= ?\d")
#: Options that take numbers without an int/float type (parsed later, as ranges or counts).
NUMERIC_TEXT = {"--num-objects", "--object-size", "--prompt-variants"}


@pytest.mark.parametrize("name", ["generate", "verify", "preview", "score"])
def test_every_numeric_option_gives_its_range_in_its_help(name):
    parser = _commands()[name]
    numeric = [a for a in parser._actions if a.option_strings
               and (a.type in (int, float) or NUMERIC_TEXT & set(a.option_strings))]
    assert numeric
    for action in numeric:
        text = " ".join((action.help or "").split())
        assert RANGE.search(text), (name, action.option_strings, text)


def _usage_error(name, tmp_path):
    argv = {"generate": ["generate", "--count", "0", "--out", str(tmp_path / "g")],
            "verify": ["verify", str(tmp_path / "nothing-here")],
            "preview": ["preview", "--count", "0", str(tmp_path / "s.png")],
            "score": ["score", "--outputs", str(tmp_path / "no-outputs"), "--out",
                      str(tmp_path / "s.jsonl")]}[name]
    return run_main(argv)


@pytest.mark.parametrize("name", ["generate", "verify", "preview", "score"])
def test_every_command_reports_a_usage_error_with_the_same_prefix(name, tmp_path, capsys):
    assert _usage_error(name, tmp_path) == 2
    err = capsys.readouterr().err
    assert err.startswith(ERROR_PREFIX) and err.count("\n") == 1, err


def test_generate_million_help_names_the_script():
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "generate_million.py"),
                           "--help"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage: generate_million.py "), proc.stdout[:80]


# --------------------------------------------------------------------------- paths under a file

def test_preview_under_a_file_is_refused_before_rendering(tmp_path, capsys, monkeypatch):
    import objsub_fast.dataset.run.preview as preview

    (tmp_path / "afile").write_text("x")
    monkeypatch.setattr(preview, "preview_sheet", lambda *a, **k: pytest.fail("rendered"))
    assert run_main(["preview", str(tmp_path / "afile" / "sub" / "s.png")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(ERROR_PREFIX) and "Not a directory" in err and "afile" in err
    assert err.count("\n") == 1


@pytest.fixture()
def score_folders(tmp_path):
    """One question folder and one (unreadable) output for it."""
    from objsub_fast import generate_batch

    record = generate_batch([3]).task(0)
    q = tmp_path / "q" / "object_subtraction_task" / record["id"]
    q.mkdir(parents=True)
    (q / "question_metadata.json").write_text(json.dumps(record))
    (tmp_path / "o").mkdir()
    (tmp_path / "o" / f"{record['id']}.mp4").write_bytes(b"not a video")
    return ["score", "--questions", str(tmp_path / "q"), "--outputs", str(tmp_path / "o"),
            "--workers", "1", "--quiet"]


def test_score_out_under_a_file_says_not_a_directory(score_folders, tmp_path, capsys):
    (tmp_path / "afile").write_text("x")
    for option, value in (("--out", "afile/s.jsonl"), ("--report", "afile/r"),
                          ("--summary-csv", "afile/x/s.csv")):
        argv = score_folders + ["--out", str(tmp_path / "s.jsonl"), option,
                                str(tmp_path / value)]
        assert run_main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith(ERROR_PREFIX) and "Not a directory" in err, err
        assert option in err and "File exists" not in err
    assert not (tmp_path / "s.jsonl").exists()


def test_ctrl_c_during_score_leaves_no_folder_behind(score_folders, tmp_path, monkeypatch,
                                                     capsys):
    from objsub_fast.scoring import command

    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(command, "score_job", interrupted)
    argv = score_folders + ["--out", str(tmp_path / "res" / "deep" / "s.jsonl"), "--report",
                            str(tmp_path / "report" / "html")]
    assert run_main(argv) == 130
    assert "interrupted" in capsys.readouterr().err
    assert not (tmp_path / "res").exists() and not (tmp_path / "report").exists()


# --------------------------------------------------------------------------- progress output

def test_no_rate_or_eta_until_it_means_something():
    stream = io.StringIO()
    progress = Progress(16, 0, stream=stream)
    progress.t0 -= 8.0  # the workers took 8 s to start
    progress.update(1)
    assert stream.getvalue().splitlines()[-1] == "objsub-fast: 1/16 tasks (6.2%)"
    progress.first = (progress.first[0] - 4.0, progress.first[1])  # 3 more tasks in 4 s
    progress.update(3)
    assert stream.getvalue().splitlines()[-1].endswith(" 0.75 tasks/s ETA 16s")
    progress.update(12)
    last = stream.getvalue().splitlines()[-1]
    assert last.startswith("objsub-fast: 16/16 tasks (100.0%) ") and "tasks/s" in last
    assert "ETA" not in last


def test_compile_notice_only_when_numba_compiles(tmp_path):
    module = tmp_path / "cached_kernel_mod.py"
    module.write_text("from numba import njit\n\n@njit(cache=True)\ndef plus_one(x):\n"
                      "    return x + 1\n")
    warm = (f"import sys; sys.path.insert(0, {str(tmp_path)!r}); "
            "import cached_kernel_mod as m; m.plus_one(1)")
    subprocess.run([sys.executable, "-c", warm], check=True, timeout=120)
    sys.path.insert(0, str(tmp_path))
    try:
        import cached_kernel_mod
    finally:
        sys.path.remove(str(tmp_path))
    stream = io.StringIO()
    with compile_notice(stream):
        assert cached_kernel_mod.plus_one(1) == 2  # loaded from the warm cache
        time.sleep(2.2)  # a slow block that compiles nothing
    assert stream.getvalue() == ""
    import numba

    with compile_notice(stream):
        assert numba.njit(lambda x: x * 3)(2) == 6
    lines = stream.getvalue().splitlines()
    # what it compiles and when it happens again, not "first run only" (a --videos run after a
    # plain one compiles the encoder's kernels)
    assert lines[0].startswith("objsub-fast: compiling the kernels this command needs (once per "
                               "install and update; 'objsub-fast warm-up'")
    assert lines[1].startswith("objsub-fast: kernels ready in ") and len(lines) == 2
    with compile_notice(stream, quiet=True):
        numba.njit(lambda x: x * 4)(2)
    assert len(stream.getvalue().splitlines()) == 2


def test_warm_up_compiles_every_kernel_in_one_step(capsys):
    # Each part runs in a process of its own and would compile (the suite's cache is warm:
    # here they load); a part that fails stops it with that part's output.
    from objsub_fast import warm_up

    assert run_main(["warm-up"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("objsub-fast: compiling every kernel (generation, videos, scoring)")
    assert re.fullmatch(r"objsub-fast: every kernel ready \(\d+ s\)", err[-1])
    with pytest.raises(RuntimeError, match="compiling the kernels failed"):
        warm_up.warm_up(["no-such-part"])


# --------------------------------------------------------------------------- benchmarks, docs

def test_a_benchmark_needing_an_extra_says_so_at_start():
    code = ("import sys, runpy; sys.modules['matplotlib'] = None; "
            f"sys.path.insert(0, {str(ROOT / 'benchmarks')!r}); "
            "sys.argv = ['bench_render.py', '--quick']; "
            f"runpy.run_path({str(ROOT / 'benchmarks' / 'bench_render.py')!r}, "
            "run_name='__main__')")
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert time.perf_counter() - t0 < 60
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and "matplotlib" in lines[0] and '.[bench]"' in lines[0], lines


def _section(page: str, heading: str) -> str:
    text = (ROOT / page).read_text()
    start = text.index(heading)
    end = text.find("\n## ", start + len(heading))
    return text[start:end if end >= 0 else None]


def _paragraphs(text: str):
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    for block in re.split(r"\n\s*\n", text):
        lines = [line.strip() for line in block.splitlines() if line.strip()]
        if lines and not lines[0].startswith(("#", "|", "<", "!")):
            yield " ".join(lines)


@pytest.mark.parametrize("page", ["docs/generating.md", "docs/video_encoder.md"])
def test_no_paragraph_stops_mid_sentence(page):
    for para in _paragraphs((ROOT / page).read_text()):
        assert re.search(r"[.:;!?)`*]$", para), para[-100:]


def test_generating_md_lists_every_generate_option():
    table = _section("docs/generating.md", "| option |")
    for action in _commands()["generate"]._actions:
        for option in action.option_strings:
            if option.startswith("--") and option != "--help":
                assert f"`{option}" in table or f"`{option}`" in table, option


def test_generating_md_describes_the_own_encoder_as_the_default():
    section = _section("docs/generating.md", "## Ground-truth videos")
    own = section.index("own H.264 encoder")
    x264 = section.index("`--video-encoder x264`")
    assert "default" in section[own - 200:own + 200]
    assert own < x264 < section.index("CABAC")  # x264's settings only as the opt-in


def test_video_encoder_commands_write_to_different_folders():
    block = re.search(r"```\n(objsub-fast generate.*?)```",
                      _section("docs/video_encoder.md", "## Using it"), re.S).group(1)
    outs = re.findall(r"--out (\S+)", block)
    assert len(outs) == 2 and len(set(outs)) == 2, outs


def test_readme_webdataset_snippet_names_the_extra_that_installs_it():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    readme = (ROOT / "README.md").read_text()
    snippet = readme.index("import webdataset")
    named = re.findall(r'pip install -e "\.\[(\w+)\]"', readme[snippet - 600:snippet])
    assert named, "no install command before the WebDataset snippet"
    assert all(name != "test" and any(r.startswith("webdataset") for r in extras[name])
               for name in named), named


def test_readme_says_the_default_level_of_generate_batch():
    from objsub_fast import generate_batch

    readme = " ".join((ROOT / "README.md").read_text().split())
    assert '`"L1"` for every seed when not given' in readme
    batch = generate_batch(range(3), render=False)
    assert {batch.task(i)["level"] for i in range(3)} == {"L1"}
