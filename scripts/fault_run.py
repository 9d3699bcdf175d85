"""A scripted fault run of the command line: interruptions, races, corruptions, links and bad
inputs, each checked for the right outcome; prints tried / right per kind.

Usage: ``python scripts/fault_run.py [--quick] [--rounds N] [--seed S] [--work DIR]`` (about
15 minutes on a loaded 2-core machine, 5 with ``--quick``; every case runs the command line in
processes of its own, and needs no store emulator). Right means:

- interruptions: kill -9 (after the n-th rename into place, and at a random moment), Ctrl-C
  (SIGINT) and SIGTERM at a random moment of a run after the interpreter has loaded the
  command line, in three formats: the run ends by the signal (or finished first), prints no
  traceback, and its rerun gives the same bytes as an uninterrupted run;
- races: several runs started together on one folder: each finishes or is refused in one
  line, none prints a traceback, and the folder holds the same bytes as an uninterrupted run;
- corruptions: a damaged progress record, manifest, deleted shard file or task folder, a
  flipped byte, a stray file: ``verify`` names the damaged file (exit status 1) or the rerun
  gives the same bytes again;
- links: a link planted in the output folder is refused in one line (exit 2) and nothing
  outside changes;
- bad inputs: one line, exit status 2, no secret echoed, nothing written;

and never a traceback. Exit status 0 if every case is right.
"""
from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SECRET = "hunter2-secret"
FORMATS = ("webdataset", "vmevalkit", "vbvr")
SIGNALS = {"kill -9": signal.SIGKILL, "Ctrl-C": signal.SIGINT, "SIGTERM": signal.SIGTERM}
#: Exit status of a run ended by each signal (the CLI's own for SIGINT and SIGTERM); a run
#: that had finished and said so when SIGTERM came ends by it (-15, ``cli.program``).
ENDED_BY = {signal.SIGKILL: (-9,), signal.SIGINT: (130,), signal.SIGTERM: (143, -15)}
CRASH_ENV = "OBJSUB_FAST_CRASH_AFTER"  # objsub_fast.runtime.crashpoint.ENV


def command(*args) -> list[str]:
    return [sys.executable, "-m", "objsub_fast.cli", *args]


def cli(*args, env=None):
    return subprocess.run(command(*args), capture_output=True, text=True, timeout=900,
                          env={**os.environ, **(env or {})})


def options(fmt: str) -> list[str]:
    return ["--count", "6", "--shard-size", "2", "--seed", "5", "--format", fmt, "--quiet",
            "--workers", "1"]


def tree(root: Path) -> dict:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != ".objsub-lock"}


def clean(done) -> bool:
    return "Traceback" not in done.stderr


def why(*runs) -> str:
    """Exit status and last error line of each run (for a wrong case), and where a traceback
    came from (the line before it, e.g. "Exception ignored in: ...")."""
    said = []
    for r in runs:
        lines = r.stderr.strip().splitlines() or [""]
        before = [lines[i - 1] for i, line in enumerate(lines) if line.startswith("Traceback")
                  and i > 0]
        said.append(f"exit {r.returncode} {lines[-1][:160]!r}"
                    + (f" after {before[0][:120]!r}" if before else ""))
    return "; ".join(said)


class Tally:
    def __init__(self):
        self.kinds: dict[str, list[int]] = {}
        self.wrong: list[str] = []

    def add(self, kind: str, name: str, right: bool, detail: str = "") -> None:
        tried_right = self.kinds.setdefault(kind, [0, 0])
        tried_right[0] += 1
        tried_right[1] += bool(right)
        if not right:
            self.wrong.append(f"{kind}: {name}: {detail}")
        print(f"  {'right' if right else 'WRONG'}  {kind}: {name}"
              + ("" if right else f"  ({detail})"), flush=True)


def signalled_run(out: Path, fmt: str, sig, delay: float):
    """A generate run sent ``sig`` ``delay`` seconds after it started."""
    proc = subprocess.Popen(command("generate", "--out", str(out), *options(fmt)),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        proc.wait(timeout=delay)
    except subprocess.TimeoutExpired:
        proc.send_signal(sig)
    stdout, stderr = proc.communicate(timeout=900)
    return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)


def interruptions(work: Path, refs: dict, durations: dict, startup: float, rounds: int, rng,
                  tally) -> None:
    """kill -9 after the 2nd and 5th renames; kill -9, Ctrl-C and SIGTERM at random moments
    of a run (uniform from the end of the interpreter's start-up and imports, ``startup``
    seconds, to the end of an uninterrupted run); then the rerun."""
    for fmt in FORMATS:
        for n in (2, 5):
            out = work / f"crash-{fmt}-{n}"
            killed = cli("generate", "--out", str(out), *options(fmt), env={CRASH_ENV: str(n)})
            rerun = cli("generate", "--out", str(out), *options(fmt))
            tally.add("interruptions", f"{fmt} kill -9 after rename {n}",
                      killed.returncode == -9 and rerun.returncode == 0 and clean(rerun)
                      and tree(out) == refs[fmt], why(killed, rerun))
        for name, sig in SIGNALS.items():
            for k in range(rounds):
                delay = rng.uniform(startup, durations[fmt])
                out = work / f"signal-{fmt}-{sig.name}-{k}"
                ended = signalled_run(out, fmt, sig, delay)
                rerun = cli("generate", "--out", str(out), *options(fmt))
                tally.add("interruptions", f"{fmt} {name} at {delay:.1f} s",
                          ended.returncode in (*ENDED_BY[sig], 0) and clean(ended)
                          and rerun.returncode == 0 and clean(rerun)
                          and tree(out) == refs[fmt], why(ended, rerun))


def races(work: Path, refs: dict, rounds: int, racers: int, tally) -> None:
    """``racers`` runs started together on one folder; then a rerun."""
    for fmt in FORMATS[:2]:
        for k in range(rounds):
            out = work / f"race-{fmt}-{k}"
            procs = [subprocess.Popen(command("generate", "--out", str(out), *options(fmt)),
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      text=True) for _ in range(racers)]
            runs = [subprocess.CompletedProcess(p.args, p.wait(timeout=900), *p.communicate())
                    for p in procs]
            one_line = all(r.returncode == 0 or (r.returncode == 2
                                                 and r.stderr.count("\n") == 1) for r in runs)
            rerun = cli("generate", "--out", str(out), *options(fmt))
            tally.add("races", f"{fmt} {racers} runs on one folder, round {k + 1}",
                      one_line and all(map(clean, runs)) and rerun.returncode == 0
                      and tree(out) == refs[fmt], why(*runs, rerun))


def interrupted_copy(work: Path, fmt: str, name: str) -> Path:
    """A copy of a run of ``fmt`` killed after its first progress record."""
    first = work / f"interrupted-{fmt}"
    if not first.exists():
        for n in range(3, 12):
            shutil.rmtree(first, ignore_errors=True)
            cli("generate", "--out", str(first), *options(fmt), env={CRASH_ENV: str(n)})
            if list((first / ".objsub-progress").glob("*.json")):
                break
    out = work / name
    shutil.copytree(first, out)
    return out


def damaged(work: Path, fmt: str, name: str) -> Path:
    out = work / name
    shutil.copytree(work / f"ref-{fmt}", out)
    return out


def flip_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))


#: format -> (a file of a complete dataset to flip a byte of, a shard or folder to delete)
MEMBERS = {"webdataset": ("objsub-000001.tar", "objsub-000002.tar"),
           "vmevalkit": ("first_frame.png", "first_frame.png"),
           "vbvr": ("data/metadata.jsonl",
                    "questions/O-43_object_subtraction_data-generator_00002-00003.tar")}


def member(out: Path, fmt: str, which: int) -> Path:
    """The file (which=0) or the shard file or task folder (which=1) to damage."""
    name = MEMBERS[fmt][which]
    if "/" in name or name.endswith(".tar"):
        return out / name
    found = sorted(out.rglob(name))[3]
    return found if which == 0 else found.parent


def corruptions(work: Path, refs: dict, quick: bool, tally) -> None:
    """Damage a finished or half-finished dataset: verify must name the damaged file (exit 1)
    where the rerun cannot know of it, and the rerun must give the same bytes again."""
    records = (b"", b"{}", b"[" * 100_000) if quick else \
        (b"", b"{}", b'{"shard": 0, "na', b"[" * 100_000, b"[]")
    manifests = (b"[" * 100_000,) if quick else (b"[" * 100_000, b"\xff\xfe", b'{"config": 5}')
    for fmt in FORMATS:
        for damage in records:
            out = interrupted_copy(work, fmt, f"record-{fmt}-{len(damage)}-{damage[:2].hex()}")
            record = sorted((out / ".objsub-progress").glob("*.json"))[0]
            record.write_bytes(damage)
            checked = cli("verify", str(out), "--quiet", "--workers", "1")
            rerun = cli("generate", "--out", str(out), *options(fmt))
            tally.add("corruptions", f"{fmt} progress record {damage[:12]!r}",
                      checked.returncode == 1 and clean(checked) and rerun.returncode == 0
                      and clean(rerun) and tree(out) == refs[fmt], why(checked, rerun))
        for damage in manifests:
            out = damaged(work, fmt, f"manifest-{fmt}-{damage[:2].hex()}")
            (out / "manifest.json").write_bytes(damage)
            checked = cli("verify", str(out), "--quiet", "--workers", "1")
            rerun = cli("generate", "--out", str(out), *options(fmt))
            tally.add("corruptions", f"{fmt} manifest {damage[:12]!r}",
                      checked.returncode == 2 and checked.stderr.count("\n") == 1
                      and "manifest.json" in checked.stderr and rerun.returncode == 2
                      and rerun.stderr.count("\n") == 1 and clean(rerun), why(checked, rerun))
        out = damaged(work, fmt, f"deleted-{fmt}")
        gone = member(out, fmt, 1)
        shutil.rmtree(gone) if gone.is_dir() else gone.unlink()
        rerun = cli("generate", "--out", str(out), *options(fmt))
        tally.add("corruptions", f"{fmt} {gone.relative_to(out)} deleted",
                  rerun.returncode == 0 and tree(out) == refs[fmt], why(rerun))
        out = damaged(work, fmt, f"flipped-{fmt}")
        hit = member(out, fmt, 0)
        flip_byte(hit)
        checked = cli("verify", str(out), "--quiet", "--workers", "1")
        tally.add("corruptions", f"{fmt} a byte of {hit.relative_to(out)} flipped",
                  checked.returncode == 1 and clean(checked)
                  and str(hit.relative_to(out)).split("/")[-1] in checked.stdout, why(checked))
        out = damaged(work, fmt, f"stray-{fmt}")
        (out / "notes").mkdir()
        (out / "notes" / "extra.txt").write_bytes(b"mine\n")
        loose = cli("verify", str(out), "--quiet", "--workers", "1")
        strict = cli("verify", str(out), "--quiet", "--workers", "1", "--strict")
        tally.add("corruptions", f"{fmt} stray notes/extra.txt (warning; --strict: problem)",
                  loose.returncode == 0 and strict.returncode == 1
                  and "notes/extra.txt: not part of the dataset" in loose.stdout
                  and "notes/extra.txt: not part of the dataset" in strict.stdout,
                  why(loose, strict))
    for file, old, new in (("data/metadata.jsonl", b'"prompt": "Remove', b'"prompt": "Keep'),
                           ("data/metadata.jsonl", b'"first_frame_path": "',
                            b'"first_frame_path": "../../../../etc/'),
                           ("data/metadata.jsonl", b'"tar_file": "', b'"tar_file": "/etc/')):
        out = damaged(work, "vbvr", f"index-{old[2:8].decode()}-{len(new)}")
        data = (out / file).read_bytes()
        (out / file).write_bytes(data.replace(old, new, 1))
        checked = cli("verify", str(out), "--quiet", "--workers", "1")
        tally.add("corruptions", f"vbvr {file} {new.decode()!r}",
                  checked.returncode == 1 and clean(checked) and file in checked.stdout,
                  why(checked))


def links(work: Path, quick: bool, tally: Tally) -> None:
    """A link planted in the output folder: refused, one line, nothing outside changed."""
    cases = ((".objsub-lock", "webdataset", False), (".objsub-progress", "webdataset", True),
             ("manifest.json", "webdataset", False), ("questions", "vbvr", True),
             ("data", "vbvr", True), ("object_subtraction_task", "vmevalkit", True))
    for name, fmt, target_is_dir in cases[::2] if quick else cases:
        base = work / f"link-{name.strip('.')}"
        outside = base / "outside"
        outside.mkdir(parents=True)
        (outside / "notes.txt").write_bytes(b"mine\n")
        out = base / "out"
        out.mkdir()
        os.symlink(outside if target_is_dir else outside / "notes.txt", out / name)
        before = tree(outside)
        for extra in ([], ["--overwrite"]):
            done = cli("generate", "--out", str(out), *options(fmt), *extra)
            tally.add("links", f"{name} -> outside {' '.join(extra)}",
                      done.returncode == 2 and clean(done) and done.stderr.count("\n") == 1
                      and "symbolic link" in done.stderr and tree(outside) == before,
                      why(done))


def bad_inputs(work: Path, quick: bool, tally: Tally) -> None:
    """Bad option values: one line, exit 2, no secret shown, nothing written."""
    bad = str(work / "bad")
    cases = [["--out", "s3://b/x", "--storage-options", '{"secret": "%s"' % SECRET],
             ["--out", "s3://b/x", "--storage-options", '["%s"]' % SECRET],
             ["--out", "s3://", "--storage-options", '{"secret": "%s"}' % SECRET],
             ["--out", "gs://"], ["--out", "az://"],
             ["--out", "s3://b/x", "--storage-options",
              '{"endpoint_url": 5, "secret": "%s"}' % SECRET],
             ["--out", "s3://b/x", "--storage-options", '{"key": ["%s"]}' % SECRET],
             ["--out", bad, "--count", "0"], ["--out", bad, "--shard-size", "-1"],
             ["--out", bad, "--canvas-size", "10x"], ["--out", bad, "--format", "zip"],
             ["--out", bad, "--seed", "1e400"]]
    for args in cases[::2] if quick else cases:
        done = cli("generate", "--quiet", *args)
        tally.add("bad inputs", " ".join(args)[:70],
                  done.returncode == 2 and clean(done) and done.stderr.count("\n") == 1
                  and SECRET not in done.stderr and not (work / "bad").exists(), why(done))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="fewer cases of each kind (about 5 minutes)")
    parser.add_argument("--rounds", type=int, default=None,
                        help="random interruptions per format and signal, and race rounds "
                        "(default 2; 1 with --quick)")
    parser.add_argument("--racers", type=int, default=4, help="runs per race (default 4)")
    parser.add_argument("--seed", type=int, default=38, help="seed of the random moments")
    parser.add_argument("--work", type=Path, default=None,
                        help="folder for the runs (default: a temporary one, removed after)")
    args = parser.parse_args(argv)
    rounds = args.rounds or (1 if args.quick else 2)
    work = args.work or Path(tempfile.mkdtemp(prefix="objsub-faults-"))
    work.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    try:
        refs, durations = {}, {}
        for fmt in FORMATS:
            out = work / f"ref-{fmt}"
            started = time.monotonic()
            done = cli("generate", "--out", str(out), *options(fmt))
            durations[fmt] = time.monotonic() - started
            if done.returncode != 0:
                sys.exit(f"the reference run of {fmt} failed: {why(done)}")
            refs[fmt] = tree(out)
        started = time.monotonic()
        subprocess.run([sys.executable, "-c", "import objsub_fast.cli"], check=True)
        startup = time.monotonic() - started
        print(f"start-up {startup:.1f} s; runs {durations}", flush=True)
        tally = Tally()
        interruptions(work, refs, durations, startup, rounds, rng, tally)
        races(work, refs, rounds, args.racers, tally)
        corruptions(work, refs, args.quick, tally)
        links(work, args.quick, tally)
        bad_inputs(work, args.quick, tally)
        print("\nkind            tried  right")
        for kind, (tried, right) in tally.kinds.items():
            print(f"{kind:<15} {tried:>5}  {right:>5}")
        total = [sum(v[i] for v in tally.kinds.values()) for i in (0, 1)]
        print(f"{'all':<15} {total[0]:>5}  {total[1]:>5}")
        for wrong in tally.wrong:
            print("wrong:", wrong)
        return 0 if total[0] == total[1] else 1
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
