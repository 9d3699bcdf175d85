"""The leaderboard of ``objsub-fast score``: its numbers against a small case computed by hand,
the Wilson interval's properties, the files a real run writes beside its JSONL (links into the
report included), and the page as headless Chromium draws it."""
import argparse
import json
import re
import shutil
import subprocess

import numpy as np
import pytest
from hypothesis import given, strategies as st

from objsub_fast import generate_batch
from objsub_fast.testing.browser import CHROMIUM_FLAGS, find_chromium
from objsub_fast.scoring import render_transition, write_video
from objsub_fast.scoring.reporting.leaderboard import leaderboard, page, wilson


def _res(model, level, kind, passed=False, **metrics):
    out = {"model": model, "level": level, "rule_kind": kind, "pass": passed, "error": None,
           "output": "x.mp4", "score": 1.0 if passed else 0.0, "task_id": f"{model}{level}{kind}",
           "metrics": {m: {"pass": False, **v} for m, v in metrics.items()}}
    return out


def _small_case():
    left = {"rule_accuracy": {"target_ids": [1, 2], "removed_ids": [1]}}
    moved = {"kept_object_stability": {"moved": [3]}}
    return [
        _res("a", "L1", "color", True), _res("a", "L1", "shape", True),
        _res("a", "L2", "L2", **left),
        {"model": "a", "level": "L2", "rule_kind": "L2", "pass": False, "output": None,
         "error": "missing: no model output for t", "score": 0.0, "metrics": {}},
        _res("b", "L1", "color", **moved), _res("b", "L2", "L2", True),
        _res("c", "L1", "color", True), _res("c", "L1", "color", True),
        _res("c", "L2", "L2", True), _res("c", "L2", "L2", **moved),
    ]


def test_numbers_of_a_small_case_computed_by_hand():
    board = leaderboard(_small_case())
    got = {m["model"]: m for m in board["models"]}
    # c passes 3 of 4, a 2 of 4, b 1 of 2: a and b both 50%, a ranks first (a 4-question
    # interval's lower end is higher than a 2-question one's)
    assert [(m["rank"], m["model"]) for m in board["models"]] == [(1, "c"), (2, "a"), (3, "b")]
    assert (got["a"]["passed"], got["a"]["total"], got["a"]["pass_rate"]) == (2, 4, 0.5)
    # Wilson, 2 of 4 by hand: p = 0.5, z^2 = 3.8415; centre (0.5 + 0.4802) / 1.9604 = 0.5;
    # half 1.96 / 1.9604 * sqrt(0.0625 + 0.0600) = 0.3500 -> [0.1500, 0.8500]
    assert got["a"]["interval"] == pytest.approx([0.1500, 0.8500], abs=1e-4)
    # 3 of 4: centre (0.75 + 0.4802) / 1.9604 = 0.6275, half 0.9998 * sqrt(0.046875 + 0.0600)
    # = 0.3269 -> [0.3006, 0.9544]
    assert got["c"]["interval"] == pytest.approx([0.3006, 0.9544], abs=1e-4)
    assert got["a"]["by_level"]["L1"]["passed"] == 2 and got["a"]["by_level"]["L2"]["passed"] == 0
    assert got["c"]["by_rule_kind"]["L2/L2"] | {"interval": None, "example": None} == {
        "passed": 1, "total": 2, "pass_rate": 0.5, "interval": None, "example": None}
    fails = {m: {k: v["count"] for k, v in e["failures"].items() if v["count"]}
             for m, e in got.items()}
    assert fails == {"a": {"missing": 1, "target_left": 1}, "b": {"moved": 1}, "c": {"moved": 1}}
    assert got["a"]["failures"]["missing"]["share"] == 0.5 and got["a"]["not_scored"] == 1
    assert board["levels"] == ["L1", "L2"]


@pytest.mark.parametrize("passed, total, want", [(8, 10, (0.4902, 0.9433)),
                                                 (0, 5, (0.0, 0.4345)),
                                                 (10, 10, (0.7225, 1.0))])
def test_wilson_known_values(passed, total, want):
    assert wilson(passed, total) == pytest.approx(want, abs=1e-4)


@given(st.integers(1, 10_000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_holds_the_rate_and_mirrors(case):
    passed, total = case
    lo, hi = wilson(passed, total)
    assert 0 <= lo <= passed / total <= hi <= 1
    mlo, mhi = wilson(total - passed, total)
    assert (lo, hi) == pytest.approx((1 - mhi, 1 - mlo), abs=1e-12)
    if total < 10_000:  # more questions at the same rate: a narrower interval
        lo4, hi4 = wilson(4 * passed, 4 * total)
        assert hi4 - lo4 < hi - lo


def test_the_page_uses_no_colour_but_grey():
    text = page(leaderboard(_small_case()))
    colours = re.findall(r"#([0-9a-fA-F]{3,6})\b", text)
    assert colours
    for c in colours:
        c = c if len(c) == 6 else "".join(ch * 2 for ch in c)
        assert c[0:2] == c[2:4] == c[4:6], c
    assert "<script" not in text and "http" not in text.replace(
        'xmlns="http://www.w3.org/2000/svg"', "")


def _run(argv):
    from objsub_fast.scoring import command

    parser = argparse.ArgumentParser()
    command.add_arguments(parser)
    return command.run(parser.parse_args(argv + ["--no-progress"]))


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    """Three model folders scored with a report: ground truth, a static video, and the ground
    truth with one output missing."""
    root = tmp_path_factory.mktemp("board")
    batch = generate_batch([3, 4, 5, 6], level=["L1", "L2", "L3", "L4"])
    videos = render_transition(batch, "fade", 12)
    for i in range(len(batch)):
        rec = batch.task(i)
        q = root / "questions" / "object_subtraction_task" / rec["id"]
        q.mkdir(parents=True)
        (q / "question_metadata.json").write_text(json.dumps(rec))
        for model, frames in (("truth", videos[i]), ("still", videos[i, :1].repeat(12, 0)),
                              ("gappy", videos[i])):
            if model == "gappy" and i == 0:
                continue
            (root / "outputs" / model).mkdir(parents=True, exist_ok=True)
            write_video(root / "outputs" / model / f"{rec['id']}.mp4", frames)
    assert _run(["--questions", str(root / "questions"), "--outputs", str(root / "outputs"),
                 "--out", str(root / "res" / "scores.jsonl"), "--report",
                 str(root / "report"), "--workers", "1", "--quiet"]) == 0
    return root


def test_a_run_writes_the_leaderboard_beside_its_jsonl(scored):
    res = scored / "res"
    board = json.loads((res / "leaderboard.json").read_text())
    lines = [json.loads(x) for x in (res / "scores.jsonl").read_text().splitlines()]
    got = {m["model"]: m for m in board["models"]}
    assert [m["model"] for m in board["models"]] == ["truth", "gappy", "still"]
    for model, m in got.items():
        mine = [r for r in lines if r["model"] == model]
        assert (m["passed"], m["total"]) == (sum(r["pass"] for r in mine), len(mine))
    assert got["gappy"]["failures"]["missing"]["count"] == 1
    assert got["still"]["failed"] == 4 and got["truth"]["failed"] == 0
    # every link points at a block of the report
    report = (scored / "report" / "index.html").read_text()
    links = re.findall(r'href="([^"]+)"', (res / "leaderboard.html").read_text())
    anchors = [link.partition("#")[2] for link in links if "#" in link]
    assert anchors and all(f'id="{a}"' in report for a in anchors)
    assert all(link.startswith("../report/index.html") for link in links)


def test_without_a_report_there_are_no_links(tmp_path):
    from objsub_fast.scoring.reporting.leaderboard import write_leaderboard

    paths = write_leaderboard(tmp_path, _small_case())
    assert [p.name for p in paths] == ["leaderboard.json", "leaderboard.html"]
    assert "href" not in paths[1].read_text()


@pytest.mark.skipif(find_chromium() is None,
                    reason="no Chromium on this machine (Debian: apt-get install chromium)")
def test_chromium_draws_the_page(scored, tmp_path):
    from PIL import Image

    shot = tmp_path / "shot.png"
    html = scored / "res" / "leaderboard.html"
    common = [find_chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run(common + ["--dump-dom", html.as_uri()], capture_output=True,
                         text=True, timeout=120).stdout
    assert dom.count("<svg") == 4 + 2  # a panel per level, one per model that failed
    assert "truth" in dom and "[" in dom
    subprocess.run(common + [f"--screenshot={shot}", "--window-size=1200,900",
                             "--hide-scrollbars", html.as_uri()],
                   capture_output=True, timeout=120, check=True)
    pixels = np.asarray(Image.open(shot).convert("L"))
    assert pixels.shape == (900, 1200)
    assert (pixels < 100).mean() > 0.005 and (pixels > 200).mean() > 0.5  # text on white
    grey_bars = (np.abs(pixels.astype(int) - 0x9a) < 4).sum()
    assert grey_bars > 500  # the charts' bars are drawn
