"""benchmarks/bench_score.py keeps its control videos when asked, and scores kept ones again as
they are: the same table from the same videos, without encoding them again."""
import runpy
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(argv, capsys):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    old = sys.argv
    sys.argv = ["bench_score.py", *argv]
    try:
        runpy.run_path(str(ROOT / "benchmarks" / "bench_score.py"), run_name="__main__")
    finally:
        sys.argv = old
        sys.path.remove(str(ROOT / "benchmarks"))
    return capsys.readouterr().out


def test_kept_control_videos_are_scored_again_as_they_are(tmp_path, capsys):
    # the first of the 21 rule kinds only: the kept videos' reuse, not the controls, is tested
    # (every control of that task is encoded, kept and scored again)
    argv = ["--quick", "--task-stride", "21", "--skip-speed", "--look", "flat", "--bitrate",
            "normal", "--shapes", "256x256", "--workers", "1", "--keep-videos", str(tmp_path)]
    first = _run(argv, capsys)
    videos = sorted(tmp_path.rglob("*.mp4"))
    assert videos and not [p for p in videos if ".part" in p.name]
    assert {p.parent.name for p in videos} == {"classic_seed0_16_frames"}
    stamps = {p: p.stat().st_mtime_ns for p in videos}
    # A kept video is what is scored: one replaced by another control's video is scored as that.
    gt = next(p for p in videos if "_ground_truth_" in p.name)
    hard_cut = gt.with_name(gt.name.replace("ground_truth", "hard_cut"))
    gt.write_bytes(hard_cut.read_bytes())
    again = _run(argv, capsys)
    assert sorted(tmp_path.rglob("*.mp4")) == videos
    assert all(p.stat().st_mtime_ns == stamps[p] for p in videos if p != gt)
    assert _ground_truth_row(first) == (1, 1)     # task 0
    assert _ground_truth_row(again) == (0, 1)     # the replaced one fails now


def _ground_truth_row(out: str) -> tuple[int, int]:
    """(right, videos) of the table's ground_truth row."""
    row = next(line for line in out.splitlines() if line.startswith("ground_truth"))
    right, total = row.split()[-1].split("/")
    return int(right), int(total)
