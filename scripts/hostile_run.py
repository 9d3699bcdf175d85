"""A hostile trial of the scorer: submissions made as an attacker of a scoring server would make
them, each scored in a process of its own under a memory cap and a time cap; prints tried /
right per category, and each case's peak memory and time.

Usage: ``python scripts/hostile_run.py [--work DIR] [--memory-cap-mb 2048] [--time-cap 180]
[--only CATEGORY]`` (about 10 minutes on a 2-core machine; no store emulator needed).

Every case scores a submission beside an honest correct output for another task; right means
the command ends with the status it should (0 when anything could be scored), never prints a
traceback, stays under the memory cap (peak RSS of the process, ``wait4``) and the time cap,
the honest output still passes, and the attack did what it should not do nowhere:

- store keys: objects whose keys climb out of the download folder (``..``, ``//``, absolute)
  write nothing outside it;
- memory: a video whose resolution drops midway gives the same verdict twice, a correct video
  whose pixel format changes midway passes;
- answer key: copies of another task's record and video, runs of invented task ids, a copy with
  a level of the wrong type, a 200 MB prompt, a copy claiming an 8192 px canvas, three runs
  claiming one id: none lifts a score, none crashes the run, every run keeps its own strip;
- links: an output linked to the answer key's video or to ``/etc/passwd``, a FIFO among the
  frames: refused, nothing read, nothing hangs;
- unbounded work: 20,000 frames, an 8192x8192 video, a PNG claiming 16000x16000, a run over
  ``--max-seconds``: each its own error naming the limit;
- names: long, alike, ``*``, ``=...`` and control characters: no collision, no formula, no
  escape reaching the terminal;
- verify: shards with a symbolic link member, a dangling hard link and a sparse member claiming
  3 GB: problems naming the member (exit 1), no traceback, memory small.

Exit status 0 if every case is right.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np

from objsub_fast.testing.streams import h264_stream

TASK = "object_subtraction_task"


class Tally:
    """Tried / right per category, and each case's line."""

    def __init__(self):
        self.counts: dict[str, list[int]] = {}
        self.lines: list[str] = []

    def add(self, category: str, case: str, right: bool, why: str, rss_mb: float,
            seconds: float) -> None:
        tried_right = self.counts.setdefault(category, [0, 0])
        tried_right[0] += 1
        tried_right[1] += bool(right)
        self.lines.append(f"{'right' if right else 'WRONG':<6}{category:<12}{case:<44}"
                          f"{rss_mb:>8.0f} MB{seconds:>8.1f} s  {why}")


def run_limited(argv, time_cap=180.0):
    """Run ``argv``; return (status, stdout, stderr, peak RSS in MB, seconds), the peak RSS of
    the process itself (``wait4``). A run over ``time_cap`` seconds is killed (status None)."""
    start = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        killed, peak = False, 0
        while True:
            peak = max(peak, _high_water_kb(proc.pid))
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - start > time_cap and not killed:
                proc.kill()
                killed = True
            time.sleep(0.02)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        texts = [f.read().decode(errors="replace") for f in (out, err)]
    return (None if killed else proc.returncode, *texts, peak / 1024,
            time.monotonic() - start)


def _high_water_kb(pid: int) -> int:
    """The peak resident memory (kB) of process ``pid`` so far (``VmHWM``; 0 once it is gone).
    Read while it runs: ``wait4``'s ``ru_maxrss`` also counts the parent's memory the child
    had between fork and exec."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def score(args, *argv):
    cmd = [sys.executable, "-m", "objsub_fast.cli", "score", "--workers", "1", "--quiet",
           *map(str, argv)]
    return run_limited(cmd, time_cap=args.time_cap)


# ---------------------------------------------------------------------------------------------
# Material


class Material:
    """Three tasks, their correct videos and a questions folder, made once."""

    def __init__(self, work: Path):
        from objsub_fast import generate_batch
        from objsub_fast.scoring import render_transition

        self.work = work
        self.batch = generate_batch([3, 4, 5], level=["L1", "L2", "L3"])
        self.videos = render_transition(self.batch, "fade", 16)
        self.ids = [self.batch.task(i)["id"] for i in range(3)]
        self.questions = work / "questions"
        shutil.rmtree(self.questions, ignore_errors=True)
        for i, tid in enumerate(self.ids):
            q = self.questions / TASK / tid
            q.mkdir(parents=True)
            (q / "question_metadata.json").write_text(json.dumps(self.batch.task(i)))
        self.truth = self.questions / TASK / self.ids[0] / "ground_truth.mp4"
        self.write(self.truth, self.videos[0])

    def write(self, path: Path, frames) -> Path:
        from objsub_fast.scoring import write_video

        path.parent.mkdir(parents=True, exist_ok=True)
        write_video(path, frames)
        return path

    def case(self, name: str) -> Path:
        """A fresh case folder holding ``outputs/`` with the honest run of task 2."""
        folder = self.work / name
        shutil.rmtree(folder, ignore_errors=True)
        self.write(self.run(folder, "m", 2) / "video" / "out.mp4", self.videos[2])
        return folder

    def run(self, folder: Path, model: str, task: int | str, run="run_0") -> Path:
        tid = self.ids[task] if isinstance(task, int) else task
        path = folder / "outputs" / model / TASK / tid / run
        (path / "video").mkdir(parents=True, exist_ok=True)
        return path

    def copy_question(self, run: Path, task: int, **changes) -> None:
        (run / "question").mkdir(exist_ok=True)
        record = {**self.batch.task(task), **changes}
        (run / "question" / "question_metadata.json").write_text(json.dumps(record))


def lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


def honest_passes(results, mat) -> bool:
    return any(r["task_id"] == mat.ids[2] and r["pass"] for r in results)


# ---------------------------------------------------------------------------------------------
# Cases: each returns (right, why) from (status, out, err, results, folder)


def judged(args, tally, mat, category, case, folder, check, *extra, runs=1):
    """Score ``folder/outputs`` against the questions ``runs`` times and record the case."""
    verdicts, right, why = [], True, ""
    rss = seconds = 0.0
    for _ in range(runs):
        out = folder / "scores.jsonl"
        status, stdout, stderr, peak, took = score(
            args, "--questions", mat.questions, "--outputs", folder / "outputs", "--out", out,
            "--report", folder / "report", *extra)
        rss, seconds = max(rss, peak), max(seconds, took)
        results = lines(out)
        verdicts.append(sorted((r["task_id"], r.get("run_id"), r["pass"], r["error"])
                               for r in results))
        if status is None:
            right, why = False, f"over the time cap ({args.time_cap:g} s)"
            break
        if "Traceback" in stderr or status != 0:
            right, why = False, f"exit {status}: {stderr.strip().splitlines()[-1:]}"
            break
        if not honest_passes(results, mat):
            right, why = False, "the honest output did not pass"
            break
        ok, why = check(results, stdout, folder)
        right = right and ok
    if right and runs > 1 and any(v != verdicts[0] for v in verdicts):
        right, why = False, "verdicts differ between runs"
    if rss > args.memory_cap_mb:
        right, why = False, f"peak memory {rss:.0f} MB over the cap"
    tally.add(category, case, right, why, rss, seconds)


def memory_cases(args, tally, mat):
    folder = mat.case("resolution_drop")
    big = [np.kron(f, np.ones((8, 8, 1), np.uint8)) for f in mat.videos[0][:3]]
    small = [f[::16, ::16] for f in mat.videos[0][3:]] * 30
    (mat.run(folder, "m", 0) / "video" / "out.mp4").write_bytes(h264_stream(big)
                                                                + h264_stream(small))
    judged(args, tally, mat, "memory", "2048 px, then 16 px, scored twice", folder,
           lambda rs, out, f: (True, "same verdict twice"), runs=2)
    folder = mat.case("format_change")
    data = (h264_stream(list(mat.videos[1][:5]), "yuv444p")
            + h264_stream(list(mat.videos[1][5:])))
    (mat.run(folder, "m", 1) / "video" / "out.mp4").write_bytes(data)
    judged(args, tally, mat, "memory", "yuv444p, then yuv420p (correct)", folder,
           lambda rs, out, f: (all(r["pass"] for r in rs if r["output"]),
                               "the correct video passes"))


def answer_key_cases(args, tally, mat):
    folder = mat.case("copied_answers")
    for task in (0, 1):
        run = mat.run(folder, "m", task)
        mat.copy_question(run, 0)
        shutil.copy(mat.truth, run / "video" / "out.mp4")
    judged(args, tally, mat, "answer key", "task 0's record and video in every run", folder,
           lambda rs, out, f: (not any(r["pass"] for r in rs if r["task_id"] == mat.ids[1]),
                               "the copied run of task 1 fails"))
    folder = mat.case("invented_ids")
    for k in range(50):
        run = mat.run(folder, "m", f"invented_{k:02d}")
        mat.copy_question(run, 0, id=f"invented_{k:02d}")
        shutil.copy(mat.truth, run / "video" / "out.mp4")

    def not_counted(rs, out, f):
        board = json.loads((f / "leaderboard.json").read_text())["models"][0]
        ok = board["total"] == 3 and "50 runs of task ids not in the questions" in out
        return ok, f"leaderboard total {board['total']} (3 questions)"
    judged(args, tally, mat, "answer key", "50 runs of invented task ids", folder, not_counted)
    for case, change in (("a copy with level {'a': 1}", {"level": {"a": 1}}),
                         ("a copy with a 200 MB prompt", {"prompt": "x" * 200_000_000}),
                         ("a copy claiming canvas 8192", {"canvas_size": [8192, 8192]})):
        folder = mat.case("copy_" + str(len(tally.lines)))
        run = mat.run(folder, "m", 0)
        mat.copy_question(run, 0, **change)
        shutil.copy(mat.truth, run / "video" / "out.mp4")

        def refused(rs, out, f):
            bad = [r for r in rs if r["task_id"] == mat.ids[0]]
            page = (f / "report" / "index.html").stat().st_size
            error = (bad[0]["error"] or "") if bad else ""
            ok = ("differs" in error or "larger than" in error) and page < 1_000_000
            return ok, f"{(bad[0]['error'] or '')[:60] if bad else 'no record'}; page {page} B"
        judged(args, tally, mat, "answer key", case, folder, refused)
    folder = mat.case("shared_id")
    for k in range(3):
        run = mat.run(folder, "m", 0, run=f"run_{k}")
        shutil.copy(mat.truth, run / "video" / "out.mp4")
    judged(args, tally, mat, "answer key", "three runs of one task id", folder,
           lambda rs, out, f: (len({r.get("report_image") for r in rs
                                    if r["task_id"] == mat.ids[0]}) == 3,
                               "three strips"))


def link_cases(args, tally, mat):
    for case, target in (("a link to the answer key's video", mat.truth),
                         ("a link to /etc/passwd", Path("/etc/passwd"))):
        folder = mat.case("link_" + str(len(tally.lines)))
        os.symlink(target, mat.run(folder, "m", 0) / "video" / "out.mp4")
        judged(args, tally, mat, "links", case, folder,
               lambda rs, out, f: (any("symbolic link" in (r["error"] or "") for r in rs),
                                   "refused as a link"))
    folder = mat.case("fifo")
    frames = mat.run(folder, "m", 0) / "video"
    from PIL import Image

    for k, frame in enumerate(mat.videos[0][:4]):
        Image.fromarray(frame).save(frames / f"{k:04d}.png")
    os.mkfifo(frames / "0005.png")
    judged(args, tally, mat, "links", "a FIFO named 0005.png among the frames", folder,
           lambda rs, out, f: (any("not a regular file" in (r["error"] or "") for r in rs),
                               "refused, no hang"))


def unbounded_cases(args, tally, mat):
    def named(flag):
        return lambda rs, out, f: (any(flag in (r["error"] or "") for r in rs),
                                   f"error names {flag}")
    folder = mat.case("many_frames")
    frames = np.repeat(mat.videos[0][:1], 20_000, axis=0)
    (mat.run(folder, "m", 0) / "video" / "out.mp4").write_bytes(h264_stream(frames))
    judged(args, tally, mat, "unbounded", "20,000 frames", folder, named("--max-frames"))
    folder = mat.case("huge_video")
    white = np.full((2, 8192, 8192, 3), 255, np.uint8)
    (mat.run(folder, "m", 0) / "video" / "out.mp4").write_bytes(h264_stream(list(white)))
    del white
    judged(args, tally, mat, "unbounded", "an 8192x8192 video", folder,
           named("--max-frame-pixels"))
    folder = mat.case("huge_png")
    png = mat.run(folder, "m", 0) / "video" / "out.png"
    png.write_bytes(_png_header(16000, 16000))
    judged(args, tally, mat, "unbounded", "a PNG claiming 16000x16000", folder,
           named("--max-frame-pixels"))
    folder = mat.case("slow")
    frames = np.repeat(mat.videos[0], 60, axis=0)
    (mat.run(folder, "m", 0) / "video" / "out.mp4").write_bytes(h264_stream(list(frames)))
    judged(args, tally, mat, "unbounded", "960 frames under --max-seconds 1", folder,
           named("--max-seconds"), "--max-seconds", "1")


def _png_header(width: int, height: int) -> bytes:
    """A PNG signature and an IHDR claiming ``width`` x ``height``, then one tiny IDAT."""
    import struct
    import zlib

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data)))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0"))
            + chunk(b"IEND", b""))


def name_cases(args, tally, mat):
    folder = mat.case("names")
    models = ["team 1", "team_1", "*", "=1+2", "evil\x1b[2J\nPASS", "m" * 200]
    for model in models:
        run = mat.run(folder, model, 0, run="r" * 200)
        shutil.copy(mat.truth, run / "video" / "out.mp4")

    def safe(rs, out, f):
        strips = {r.get("report_image") for r in rs
                  if r["task_id"] == mat.ids[0] and r.get("report_image")}
        csv = (f / "scores_summary.csv").read_text()
        ok = (len(strips) == len(models) and "\x1b" not in out
              and not any(row.startswith(("=", "+", "@")) for row in csv.splitlines())
              and csv.count("\n*,*,*,") == 1)
        return ok, f"{len(strips)} strips for {len(models)} models; CSV and terminal clean"
    judged(args, tally, mat, "names", "long, alike, '*', '=1+2', escapes", folder, safe)


def store_cases(args, tally, mat):
    """Keys that climb out of the download folder, through a memory:// store (the child
    process fills the store and runs the command line in-process)."""
    folder = mat.case("store")
    outside = folder / "outside"
    depth = len(Path(tempfile.gettempdir()).parts) + 8
    code = textwrap.dedent(f"""
        import sys, fsspec
        from pathlib import Path
        fs = fsspec.filesystem("memory")
        honest = Path({str(folder / 'outputs')!r})
        for p in honest.rglob("*"):
            if p.is_file():
                fs.pipe("/hostile/outs/" + p.relative_to(honest).as_posix(), p.read_bytes())
        climb = "../" * {depth} + {str(outside)[1:]!r}
        for key in ("m/" + climb + "/dotdot", "m//" + {str(outside)[1:]!r} + "/slashes"):
            try:
                fs.pipe("/hostile/outs/" + key, b"attacker's bytes")
            except Exception as exc:
                print("store refused", key, exc, file=sys.stderr)
        from objsub_fast.cli import main
        sys.exit(main(["score", "--questions", {str(mat.questions)!r}, "--outputs",
                       "memory://hostile/outs", "--out", {str(folder / 'scores.jsonl')!r},
                       "--workers", "1", "--quiet"]))
    """)
    status, out, err, rss, took = run_limited([sys.executable, "-c", code],
                                              time_cap=args.time_cap)
    written = list(outside.rglob("*")) if outside.exists() else []
    right = status == 0 and not written and "Traceback" not in err
    why = (f"exit {status}; {len(written)} files outside" if not right
           else "nothing written outside; the honest output scored")
    tally.add("store keys", "'..' and '//' keys in a memory:// store", right, why, rss, took)


def verify_cases(args, tally, mat):
    dataset = args.work / "dataset"
    if not dataset.exists():
        subprocess.run([sys.executable, "-m", "objsub_fast.cli", "generate", "--out",
                        str(dataset), "--count", "4", "--shard-size", "2", "--quiet",
                        "--workers", "1"], check=True, capture_output=True)
    shard = sorted(dataset.glob("objsub-*.tar"))[0]
    original = shard.read_bytes()
    for case in ("a symbolic link member", "a dangling hard link member",
                 "a sparse member claiming 3 GB"):
        with tarfile.open(shard, "a") as tar:
            info = tarfile.TarInfo("zz_hostile.png")
            if case.startswith("a symbolic"):
                info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
                tar.addfile(info)
            elif case.startswith("a dangling"):
                info.type, info.linkname = tarfile.LNKTYPE, "no_such_member.png"
                tar.addfile(info)
            else:
                info.size = 0
                tar.addfile(info)
        if case.startswith("a sparse"):
            _claim_size(shard, "zz_hostile.png", 3 << 30)
        status, out, err, rss, took = run_limited(
            [sys.executable, "-m", "objsub_fast.cli", "verify", str(dataset)],
            time_cap=args.time_cap)
        right = (status == 1 and "Traceback" not in err and "zz_hostile" in out + err
                 and rss < args.memory_cap_mb)
        tally.add("verify", case, right, f"exit {status}; names the member: "
                  f"{'zz_hostile' in out + err}", rss, took)
        shard.write_bytes(original)


def _claim_size(shard: Path, name: str, size: int) -> None:
    """Rewrite the size field of member ``name``'s header to ``size`` (octal, GNU base-256 when
    it does not fit), its checksum with it: a member that claims far more than the file holds."""
    data = bytearray(shard.read_bytes())
    at = 0
    while at + 512 <= len(data):
        header = data[at:at + 512]
        if header[:len(name)] == name.encode() and header[len(name)] == 0:
            field = bytearray(12)
            field[0] = 0x80
            field[4:] = size.to_bytes(8, "big")
            data[at + 124:at + 136] = field
            data[at + 148:at + 156] = b" " * 8
            check = sum(data[at:at + 512])
            data[at + 148:at + 156] = f"{check:06o}\0 ".encode()
            break
        at += 512
    shard.write_bytes(bytes(data))


CATEGORIES = {"store keys": store_cases, "memory": memory_cases, "answer key": answer_key_cases,
              "links": link_cases, "unbounded": unbounded_cases, "names": name_cases,
              "verify": verify_cases}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=None,
                        help="folder for the cases (default: a temporary one, removed)")
    parser.add_argument("--memory-cap-mb", type=float, default=2048)
    parser.add_argument("--time-cap", type=float, default=180.0, help="seconds per run")
    parser.add_argument("--only", choices=list(CATEGORIES), action="append")
    args = parser.parse_args(argv)
    keep = args.work is not None
    args.work = Path(args.work or tempfile.mkdtemp(prefix="hostile_run_"))
    args.work.mkdir(parents=True, exist_ok=True)
    tally = Tally()
    try:
        mat = Material(args.work)
        for name, cases in CATEGORIES.items():
            if args.only and name not in args.only:
                continue
            cases(args, tally, mat)
            print(f"{name}: done", file=sys.stderr, flush=True)
    finally:
        if not keep:
            shutil.rmtree(args.work, ignore_errors=True)
    print(f"{'':<6}{'category':<12}{'case':<44}{'peak RSS':>11}{'time':>10}")
    print("\n".join(tally.lines))
    print(f"\n{'category':<14}{'tried':>6}{'right':>7}")
    for name, (tried, right) in tally.counts.items():
        print(f"{name:<14}{tried:>6}{right:>7}")
    wrong = sum(t - r for t, r in tally.counts.values())
    print(f"memory cap {args.memory_cap_mb:.0f} MB, time cap {args.time_cap:g} s a run; "
          f"{'every case right' if not wrong else f'{wrong} case(s) wrong'}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
