"""A new user's first hour, round four (issue #39): packaging, benchmark help, messages that
give the right advice, counts in words, and docs that say what the code does."""
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = sorted((ROOT / "benchmarks").glob("bench_*.py"))


# --------------------------------------------------------------------------- packaging

def test_license_is_an_spdx_expression_with_a_setuptools_that_reads_it():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert pyproject["project"]["license"] == "MIT"  # not a {text = ...} table (deprecated)
    setuptools = next(r for r in pyproject["build-system"]["requires"]
                      if r.startswith("setuptools"))
    minimum = int(re.search(r">=(\d+)", setuptools).group(1))
    assert minimum >= 77, setuptools  # the first setuptools that takes a license expression


# --------------------------------------------------------------------------- benchmarks

def _help(script: Path) -> subprocess.CompletedProcess:
    """``script --help`` with matplotlib unimportable (no [bench] extra)."""
    code = ("import sys, runpy; sys.modules['matplotlib'] = None; "
            f"sys.path.insert(0, {str(script.parent)!r}); "
            f"sys.argv = [{script.name!r}, '--help']; "
            f"runpy.run_path({str(script)!r}, run_name='__main__')")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)


@pytest.mark.parametrize("script", BENCHMARKS, ids=lambda p: p.name)
def test_every_benchmark_prints_its_help_with_a_whole_sentence(script):
    proc = _help(script)
    assert proc.returncode == 0, proc.stderr[-500:]
    assert proc.stdout.startswith(f"usage: {script.name}"), proc.stdout[:200]
    described = proc.stdout.split("\n\n")[1]
    sentence = " ".join(described.split())
    assert re.search(r"[.!?)]$", sentence), sentence


# --------------------------------------------------------------------------- one canvas range

@pytest.mark.parametrize("kwargs", [dict(canvas_size=32), dict(canvas_size=52),
                                    dict(canvas_size=32, object_size=(8, 16)),
                                    dict(canvas_size=(63, 300))])
def test_a_canvas_too_small_names_the_one_range_that_works(kwargs):
    from objsub_fast import generate_batch
    from objsub_fast.task.config import MAX_SIDE, MIN_SIDE

    with pytest.raises(ValueError) as err:
        generate_batch(range(1), **kwargs)
    message = str(err.value)
    assert f"canvas_size must be in [{MIN_SIDE}, {MAX_SIDE}]" in message, message
    # what it advises works
    assert len(generate_batch(range(1), canvas_size=MIN_SIDE, render=False)) == 1


def test_the_scorer_and_the_engine_take_the_same_canvases():
    from objsub_fast import generate_batch, score_video
    from objsub_fast.runtime.errors import TaskError
    from objsub_fast.scoring.reading.question import check_question
    from objsub_fast.task.config import MAX_SIDE, MIN_SIDE

    record = generate_batch([1], canvas_size=MIN_SIDE, render=False).task(0)
    assert check_question(record).canvas_size == (MIN_SIDE, MIN_SIDE)
    for side in (MIN_SIDE - 1, MAX_SIDE + 1):
        with pytest.raises(TaskError, match=rf"\[{MIN_SIDE}, {MAX_SIDE}\]"):
            check_question({**record, "canvas_size": [side, side]})
    assert "error" in score_video({**record, "canvas_size": [16, 16]},
                                  generate_batch([1]).final_frames[0])


def test_the_command_lines_canvas_range_is_stated_with_its_reason():
    from objsub_fast.dataset.run.run_config import MAX_CANVAS, MIN_CANVAS

    text = " ".join((ROOT / "docs" / "generating.md").read_text().split())
    assert f"each side in [{MIN_CANVAS}, {MAX_CANVAS}]" in text
    assert "generate_batch" in text[text.index("## Canvas sizes"):]


# --------------------------------------------------------------------------- library words

@pytest.mark.parametrize("kwargs, parameter", [
    (dict(num_samples=0), "num_samples"), (dict(random_seed=-1), "random_seed"),
    (dict(levels=["L9"]), "levels"), (dict(canvas_size=(10, 10)), "canvas_size"),
    (dict(workers=0), "workers")])
def test_create_dataset_names_its_own_parameters(kwargs, parameter, tmp_path):
    from objsub_fast import create_dataset

    with pytest.raises(ValueError) as err:
        create_dataset(output_dir=tmp_path / "d", **kwargs)
    message = str(err.value)
    assert message.startswith(f"{parameter} must"), message
    assert "--" not in message, message
    assert not (tmp_path / "d").exists()


# --------------------------------------------------------------------------- versions in docs

def test_vocabulary_md_gives_the_version_a_700_px_dataset_carries():
    from objsub_fast._version import generator_version

    text = " ".join((ROOT / "docs" / "vocabulary.md").read_text().split())
    said = re.search(r"`(\d+\.\d+\.\d+)` for other canvas sizes \(e\.g\. 700", text)
    assert said and said.group(1) == generator_version(700), said


def test_readmes_versions_paragraph_names_every_version_that_version_prints():
    from objsub_fast._version import GENERATOR_VERSIONS

    readme = (ROOT / "README.md").read_text()
    paragraph = readme[readme.index("## Versions"):readme.index("## Performance")]
    for version, _ in GENERATOR_VERSIONS:
        assert version in paragraph, version


# --------------------------------------------------------------------------- the lock file

@pytest.mark.parametrize("fmt", ["webdataset", "vmevalkit", "vbvr-bench"])
def test_a_finished_dataset_holds_no_lock_file(fmt, tmp_path):
    from objsub_fast.dataset.run.run_config import RunConfig
    from objsub_fast.dataset.run.pipeline import generate
    from objsub_fast.runtime.lock import LOCK_FILE

    generate(RunConfig(count=2, format=fmt, shard_size=1), tmp_path / "d", workers=1,
             quiet=True)
    assert not (tmp_path / "d" / LOCK_FILE).exists()
    assert not [p for p in (tmp_path / "d").rglob(".*")]


def test_a_lock_file_removed_under_a_waiting_run_is_not_shared(tmp_path, monkeypatch):
    """A run that opened the lock file just before its holder removed it takes the folder's
    new file, so it and a third run cannot both hold the folder."""
    import os

    from objsub_fast.runtime.lock import LOCK_FILE, FolderLock, FolderLocked

    first = FolderLock(tmp_path).acquire()
    stale = os.open(tmp_path / LOCK_FILE, os.O_RDWR)  # opened before the removal
    first.release()
    assert not (tmp_path / LOCK_FILE).exists()
    real_open, opened = os.open, []

    def opening(path, flags, mode=0o777):
        opened.append(path)
        return os.dup(stale) if len(opened) == 1 else real_open(path, flags, mode)

    late = FolderLock(tmp_path)
    with monkeypatch.context() as m:
        m.setattr(os, "open", opening)
        late.acquire()
    os.close(stale)
    assert len(opened) == 2 and (tmp_path / LOCK_FILE).exists()
    with pytest.raises(FolderLocked):
        FolderLock(tmp_path).acquire()
    late.release()


def test_a_user_file_beside_the_lock_is_left_alone(tmp_path):
    from objsub_fast.runtime.lock import FolderLock

    (tmp_path / "notes.txt").write_text("mine")
    FolderLock(tmp_path).acquire().release()
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


# --------------------------------------------------------------------------- counts in words

@pytest.mark.parametrize("fmt, shards", [("webdataset", "in 1 shard "), ("vmevalkit", ""),
                                         ("vbvr-bench", "")])
def test_generate_and_verify_count_in_words_and_name_shards_only_when_files(fmt, shards,
                                                                            tmp_path, capsys):
    from test_cli import run_main

    out = str(tmp_path / "d")
    assert run_main(["generate", "--out", out, "--count", "1", "--format", fmt,
                     "--workers", "1", "--quiet"]) == 0
    said = capsys.readouterr().out
    assert f"wrote 1 task; {out} holds 1 task {shards}(" in said, said
    assert "shard" not in said or shards
    assert run_main(["verify", out, "--workers", "1", "--quiet"]) == 0
    said = capsys.readouterr().out
    assert said.startswith(f"verified 1 task {shards}of {out}: OK"), said
    assert run_main(["generate", "--out", out, "--count", "1", "--format", fmt,
                     "--workers", "1", "--quiet"]) == 0
    assert "nothing to do, 1 task already complete" in capsys.readouterr().out


# --------------------------------------------------------------------------- stores, disks, exit

@pytest.mark.parametrize("url, options", [
    ("gs://b/x", {"endpoint_url": "http://127.0.0.1:9", "token": "anon"}),
    ("s3://b/x", {"endpoint_url": "http://127.0.0.1:9", "key": "k", "secret": "s"})])
def test_an_unreachable_store_is_named_before_any_object_is_read(url, options, monkeypatch,
                                                                 capsys):
    """The endpoint is probed first (a TCP connection), not found out by a read and the
    client's retries (35-64 s for GCS)."""
    import json

    from objsub_fast.storage.store import Store
    from test_cli import run_main

    pytest.importorskip("gcsfs" if url.startswith("gs") else "s3fs")

    def read(*args, **kwargs):
        pytest.fail("an object was read before the endpoint was checked")

    monkeypatch.setattr(Store, "read", read)
    assert run_main(["generate", "--out", url, "--storage-options", json.dumps(options),
                     "--count", "4", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot connect to the" in err and "127.0.0.1:9" in err


def _to_a_full_disk(path: Path, monkeypatch) -> None:
    """Make this process's temp file of ``path`` a link to /dev/full: writing it fails as a
    full disk does (ENOSPC from the kernel). The writer refuses links under its temp names
    (``runtime.links``), so this test lets it follow this one."""
    from objsub_fast.runtime import atomic
    from objsub_fast.runtime.atomic import tmp_path

    monkeypatch.setattr(atomic, "NOFOLLOW", 0)

    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp_path(path).symlink_to("/dev/full")


def test_a_full_disk_under_preview_names_the_file(tmp_path, capsys, monkeypatch):
    from test_cli import run_main

    sheet = tmp_path / "sheet.png"
    _to_a_full_disk(sheet, monkeypatch)
    assert run_main(["preview", str(sheet), "--count", "4", "--quiet"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "No space left on device" in err, err
    assert f"({sheet})" in err and not sheet.exists()


@pytest.fixture(scope="module")
def one_question(tmp_path_factory):
    """A question folder and its ground-truth video as the model's output."""
    import json

    from objsub_fast import generate_batch, render_transition
    from objsub_fast.scoring import write_video

    root = tmp_path_factory.mktemp("one")
    batch = generate_batch([5])
    record = batch.task(0)
    q = root / "q" / record["id"]
    q.mkdir(parents=True)
    (q / "question_metadata.json").write_text(json.dumps(record))
    (root / "o").mkdir()
    write_video(root / "o" / f"{record['id']}.mp4", render_transition(batch, "fade", 12)[0])
    return root


def test_a_full_disk_under_score_out_names_the_file(one_question, tmp_path, capsys,
                                                    monkeypatch):
    from test_cli import run_main

    out = tmp_path / "res" / "s.jsonl"
    _to_a_full_disk(out, monkeypatch)
    assert run_main(["score", "--questions", str(one_question / "q"), "--outputs",
                     str(one_question / "o"), "--out", str(out), "--workers", "1",
                     "--quiet"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "No space left on device" in err, err
    assert f"({out})" in err and not out.exists()


def test_ctrl_c_after_the_work_is_done_prints_nothing():
    """A Ctrl-C while the interpreter closes the worker pool's threads (after "wrote ...")."""
    code = """if True:
        import os, signal, threading, time
        from objsub_fast import cli

        def finished(argv=None):
            threading.Thread(target=time.sleep, args=(1.5,)).start()  # a pool thread closing
            threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
            print("objsub-fast: wrote 1 task", flush=True)
            return 0

        cli.main = finished
        cli.program()
    """
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.stdout == "objsub-fast: wrote 1 task\n"
    assert proc.stderr == "" and proc.returncode == 0, proc.stderr


def test_the_installed_program_is_the_one_that_exits_quietly():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert pyproject["project"]["scripts"]["objsub-fast"] == "objsub_fast.cli:program"


# --------------------------------------------------------------------------- score says what it did

def _vbvr_outputs(root: Path, n: int, batch) -> Path:
    """``n`` VBVR-Bench model videos (the tasks' ground truth) under ``root/m``."""
    from objsub_fast.ground_truth.video import VideoSpec, encode_transitions
    from objsub_fast.scoring.reading.vbvr import TASK_NAME

    videos = encode_transitions(batch, VideoSpec("fade", 16, 12))
    folder = root / "m" / "Out-of-Domain_50" / TASK_NAME
    folder.mkdir(parents=True)
    for i in range(n):
        (folder / f"{i:05d}.mp4").write_bytes(videos[i])
    return root / "m"


def test_vbvr_outputs_without_questions_exit_2_saying_what_is_needed(tmp_path, capsys):
    from objsub_fast import generate_batch
    from test_cli import run_main

    outputs = _vbvr_outputs(tmp_path, 2, generate_batch([1, 2]))
    out = tmp_path / "res" / "s.jsonl"
    assert run_main(["score", "--outputs", str(outputs), "--out", str(out), "--workers", "1",
                     "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert "found 2 VBVR-Bench videos" in err and "--questions" in err
    assert "O-43_object_subtraction_data-generator/{index:05d}/" in err
    assert not (tmp_path / "res").exists() and not list(tmp_path.glob("*vbvr_results.json"))


def test_outputs_of_which_none_can_be_scored_exit_2_and_write_nothing(one_question, tmp_path,
                                                                       capsys):
    import shutil

    from test_cli import run_main

    outputs = tmp_path / "o"
    shutil.copytree(one_question / "o", outputs)
    for video in outputs.iterdir():
        video.write_bytes(b"not a video")
    out = tmp_path / "res" / "s.jsonl"
    assert run_main(["score", "--questions", str(one_question / "q"), "--outputs",
                     str(outputs), "--out", str(out), "--report", str(tmp_path / "r"),
                     "--workers", "1", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert "no output could be scored (1 output for 1 question: 0 scored, 1 unreadable" in err
    assert "cannot be read as a video" in err
    # every record is written first (#47): the error record, the tables, leaderboard, report
    [record] = [json.loads(x) for x in out.read_text().splitlines()]
    assert record["error"] and not record["pass"]
    assert (tmp_path / "res" / "leaderboard.json").is_file()
    assert (tmp_path / "r" / "index.html").is_file()


def test_vmevalkit_questions_without_an_output_are_counted_missing(tmp_path, capsys):
    """200 questions, outputs (VMEvalKit's inference layout) for a few: the rest are missing."""
    import shutil

    from objsub_fast import create_dataset
    from test_cli import run_main

    data = create_dataset(num_samples=6, levels=["L1"], output_dir=tmp_path / "questions")
    runs = tmp_path / "outputs" / "model-a" / "object_subtraction_task"
    for pair in data["pairs"][:2]:
        video = runs / pair["id"] / "run-1" / "video"
        video.mkdir(parents=True)
        shutil.copy(pair["final_image_path"], video / "final.png")
    assert run_main(["score", "--questions", str(tmp_path / "questions"), "--outputs",
                     str(tmp_path / "outputs"), "--out", str(tmp_path / "s.jsonl"),
                     "--workers", "1", "--quiet"]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith("2 outputs for 6 questions: ") and last.endswith(", 4 missing"), last


def test_score_prints_a_short_table_per_model_and_where_the_full_ones_went(one_question,
                                                                            tmp_path, capsys):
    from test_cli import run_main

    out = tmp_path / "s.jsonl"
    assert run_main(["score", "--questions", str(one_question / "q"), "--outputs",
                     str(one_question / "o"), "--out", str(out), "--report",
                     str(tmp_path / "r"), "--workers", "1"]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert lines[0] == ("pass rate by level (passed/questions; a missing or unscored output "
                        "fails):")
    assert lines[1].split() == ["model", "L1", "all"]
    assert lines[2].split() == ["o", "100%", "(1/1)", "100%", "(1/1)"]
    assert all(len(line) <= 100 for line in lines[:3])
    full = next(line for line in lines if line.startswith("full tables"))
    for path in (tmp_path / "s_summary.txt", tmp_path / "s_summary.csv",
                 tmp_path / "r" / "index.html"):
        assert str(path) in full and path.is_file()
    assert "kept_unchanged" in (tmp_path / "s_summary.txt").read_text()
    assert lines[-1] == "1 output for 1 question: 1 scored, 0 unreadable, 0 missing"
    assert captured.err == ""  # no progress lines off a terminal unless asked


def test_score_progress_lines_when_asked(one_question, tmp_path, capsys):
    from test_cli import run_main

    assert run_main(["score", "--questions", str(one_question / "q"), "--outputs",
                     str(one_question / "o"), "--out", str(tmp_path / "s.jsonl"),
                     "--workers", "1", "--progress"]) == 0
    assert "1/1 tasks (100.0%)" in capsys.readouterr().err


# --------------------------------------------------------------------------- score_video's input

def test_score_video_takes_every_record_file_the_project_writes(tmp_path):
    """VMEvalKit's question_metadata.json, VBVR's metadata.json (DataFactory and Bench) and a
    WebDataset sample's JSON, each as json.load gives it; the result has its verdict."""
    import json
    import tarfile

    from objsub_fast import render_transition, score_video
    from objsub_fast.dataset.run.run_config import RunConfig
    from objsub_fast.dataset.run.pipeline import generate
    from objsub_fast.engine import generate_batch

    loaded = {}
    for fmt, pattern in (("vmevalkit", "**/question_metadata.json"),
                         ("vbvr-bench", "**/metadata.json")):
        generate(RunConfig(count=1, format=fmt), tmp_path / fmt, workers=1, quiet=True)
        loaded[fmt] = json.loads(next((tmp_path / fmt).glob(pattern)).read_text())
    generate(RunConfig(count=1), tmp_path / "wds", workers=1, quiet=True)
    with tarfile.open(next((tmp_path / "wds").glob("*.tar"))) as tar:
        member = next(m for m in tar if m.name.endswith(".json"))
        loaded["webdataset"] = json.loads(tar.extractfile(member).read())
    batch = generate_batch([loaded["vmevalkit"]["seed"]], level="L1")
    video = render_transition(batch, "fade", 12)[0]
    for fmt, data in loaded.items():
        res = score_video(data, video)
        assert res["error"] is None, (fmt, res["error"])
        assert res["pass"] and res["verdict"] == "PASS: every check passed.", fmt
        assert res["task_id"] == batch.task(0)["id"], fmt
    broken = score_video({"prompt": "Remove ..."}, video)
    assert broken["verdict"].startswith("FAIL: Not scored: bad task record: ")


# --------------------------------------------------------------------------- the HTML report

def test_every_verdict_has_its_own_colour_and_its_own_line_style():
    from objsub_fast.scoring.reporting.report import STATUS_STYLES, _legend

    colours = [c for c, _ in STATUS_STYLES.values()]
    patterns = [p for _, p in STATUS_STYLES.values()]
    assert len(set(colours)) == len(colours) == len(set(patterns))
    # distinct enough to tell apart: no two colours within 60 of each other (RGB distance)
    for i, a in enumerate(colours):
        for b in colours[:i]:
            assert sum((x - y) ** 2 for x, y in zip(a, b)) ** 0.5 > 60, (a, b)
    legend = _legend()
    for status, (colour, pattern) in STATUS_STYLES.items():
        entry = legend[legend.index(f"rgb{colour}"):legend.index(f"</svg>{status}</span>")]
        assert (f'stroke-dasharray="{" ".join(map(str, pattern))}"' in entry) == bool(pattern)


def test_a_dashed_outline_is_drawn_dashed():
    from PIL import Image, ImageDraw

    from objsub_fast.scoring.reporting.report import STATUS_STYLES, _outline

    img = Image.new("RGB", (120, 120), (255, 255, 255))
    _outline(ImageDraw.Draw(img), (10, 10, 110, 110), "wrongly removed")
    top = np.asarray(img)[10, 10:111]
    inked = (top != 255).any(axis=1)
    assert 0.3 < inked.mean() < 0.9  # drawn and skipped runs in turn
    assert tuple(top[inked][0]) == STATUS_STYLES["wrongly removed"][0]


def test_strip_labels_are_legible_at_full_size():
    from PIL import ImageDraw, Image

    from objsub_fast.scoring.reporting.report import _CSS, label_font

    draw = ImageDraw.Draw(Image.new("RGB", (200, 50)))
    left, top, right, bottom = draw.textbbox((0, 0), "blue sphere (3)", font=label_font())
    assert bottom - top >= 10 and right - left >= 80  # was about 7 px high
    assert "max-width:none" in _CSS.split(".strip{")[1].split("}")[0]  # never scaled down


def _result(i: int, ok: bool) -> dict:
    return {"model": "m", "task_id": f"t{i:03d}", "pass": ok, "score": 1.0 if ok else 0.2,
            "error": None if ok else "empty file", "output": f"t{i:03d}.mp4",
            "question_source": "question_metadata.json",
            "report_image": f"img/t{i:03d}.png", "level": "L1", "rule_kind": "color",
            "metrics": {}}


def test_passing_outputs_are_folded_and_the_page_stays_short(tmp_path):
    from objsub_fast.scoring.reporting.report import OPEN_FAILURES, write_index

    results = [_result(i, ok=i % 10 != 0) for i in range(400)]
    page = write_index(tmp_path, results, []).read_text()
    assert page.count("<details") == 401  # every output, and the group of passing ones
    assert len(re.findall(r'<details class="task fail" id="[^"]*" open>', page)) == OPEN_FAILURES
    passing = page[page.index('<details class="group">'):]
    assert "360 passing outputs" in passing and " open>" not in passing
    assert passing.count("PASS: every check passed.") == 360
    # what shows before anything is opened: the open failures' strips only
    assert page.count('loading="lazy"') == 400
    assert len(page) < 400 * 1000


# --------------------------------------------------------------------------- shipped pictures

def test_make_levels_png_reproduces_every_committed_picture_byte_for_byte(tmp_path):
    code = f"""if True:
        import sys
        sys.path.insert(0, {str(ROOT / 'scripts')!r})
        import make_levels_png as m
        for name in [*m.PICTURES, m.SHAPES]:
            m.draw(name, {str(tmp_path)!r} + "/" + name + ".png")
    """
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=600, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-1000:]
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import make_levels_png as m
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    committed = {name: spec[0] for name, spec in m.PICTURES.items()}
    committed[m.SHAPES] = "docs/shapes_both_looks.png"
    for name, path in committed.items():
        assert (tmp_path / f"{name}.png").read_bytes() == (ROOT / path).read_bytes(), path


# --------------------------------------------------------------------------- the README's set-up

def _readme_section(heading: str) -> str:
    text = (ROOT / "README.md").read_text()
    start = text.index(heading)
    return text[start:text.index("\n## ", start + 1)]


def test_readme_set_up_gives_the_environment_the_python_and_the_system_packages():
    setup = _readme_section("## Set-up")
    assert "\n    python3 -m venv .venv && . .venv/bin/activate\n" in setup
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "requires-python"]
    assert f"Python {requires.removeprefix('>=')} or newer" in setup
    ci = (ROOT / ".ci" / "run").read_text()
    apt = re.search(r"--no-install-recommends \\\n\s+(.*?) >", ci).group(1).split()
    for package in [*apt, "azurite"]:
        row = next((line for line in setup.splitlines() if line.startswith(f"| `{package}`")),
                   None)
        assert row and "tests/test_" in row, package  # and what is skipped without it


def test_performance_md_tables_hold_figures_and_the_prose_is_beside_them():
    text = (ROOT / "docs" / "performance.md").read_text()
    rows = [line for line in text.splitlines() if line.startswith("|")]
    assert rows
    for row in rows:
        for cell in row.strip("|").split(" | "):
            assert len(cell.split()) <= 20, cell
    assert "1. **`generate --videos`, 1 worker, vs the bare encoder" in text
