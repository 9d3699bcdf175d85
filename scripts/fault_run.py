"""A scripted fault run of the command line: interruptions, corruptions, links and bad
inputs, each checked for the right outcome; prints tried / right per kind.

Usage: ``python scripts/fault_run.py [--work DIR]`` (a few minutes; needs no store emulator).
Right means: an interrupted run's rerun gives the same bytes as an uninterrupted run; a
corrupted dataset's rerun gives those bytes too (or verify names the damage); a planted link is
refused in one line (exit 2) and nothing outside changes; a bad input is one line, exit 2, no
secret echoed; and never a traceback.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SECRET = "hunter2-secret"
FORMATS = ("webdataset", "vmevalkit", "vbvr")


def cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "objsub_fast.cli", *args], capture_output=True,
                          text=True, timeout=600, env={**os.environ, **(env or {})})


def options(fmt: str) -> list[str]:
    return ["--count", "6", "--shard-size", "2", "--seed", "5", "--format", fmt, "--quiet",
            "--workers", "1"]


def tree(root: Path) -> dict:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != ".objsub-lock"}


def clean(done) -> bool:
    return "Traceback" not in done.stderr


class Tally:
    def __init__(self):
        self.kinds: dict[str, list[int]] = {}
        self.wrong: list[str] = []

    def add(self, kind: str, name: str, right: bool) -> None:
        tried_right = self.kinds.setdefault(kind, [0, 0])
        tried_right[0] += 1
        tried_right[1] += bool(right)
        if not right:
            self.wrong.append(f"{kind}: {name}")
        print(f"  {'right' if right else 'WRONG'}  {kind}: {name}", flush=True)


def interruptions(work: Path, refs: dict, tally: Tally) -> None:
    """kill -9 after the n-th rename, then the rerun: the same bytes as the reference."""
    from objsub_fast.runtime import crashpoint

    for fmt in FORMATS:
        for n in (1, 2, 3, 5):
            out = work / f"kill-{fmt}-{n}"
            killed = cli("generate", "--out", str(out), *options(fmt),
                         env={crashpoint.ENV: str(n)})
            rerun = cli("generate", "--out", str(out), *options(fmt))
            tally.add("interruptions", f"{fmt} kill -9 after rename {n}",
                      killed.returncode == -9 and rerun.returncode == 0 and clean(rerun)
                      and tree(out) == refs[fmt])


def corruptions(work: Path, refs: dict, tally: Tally) -> None:
    """Damage a finished or half-finished dataset; the rerun must restore the same bytes,
    and verify must name it or pass after."""
    from objsub_fast.runtime import crashpoint

    for fmt in FORMATS:
        for damage in (b"", b"{}", b'{"shard": 0, "na', b"[" * 100_000, b"[]"):
            out = work / f"record-{fmt}-{len(damage)}-{damage[:2].hex()}"
            cli("generate", "--out", str(out), *options(fmt), env={crashpoint.ENV: "2"})
            records = sorted((out / ".objsub-progress").glob("*.json"))
            if records:
                records[0].write_bytes(damage)
            checked = cli("verify", str(out), "--quiet")
            rerun = cli("generate", "--out", str(out), *options(fmt))
            tally.add("corruptions", f"{fmt} progress record {damage[:12]!r}",
                      bool(records) and clean(checked) and rerun.returncode == 0
                      and clean(rerun) and tree(out) == refs[fmt])
        for damage in (b"[" * 100_000, b"[]", b"\xff\xfe", b'{"config": 5}'):
            out = work / f"manifest-{fmt}-{damage[:2].hex()}"
            shutil.copytree(work / f"ref-{fmt}", out)
            (out / "manifest.json").write_bytes(damage)
            checked = cli("verify", str(out), "--quiet")
            rerun = cli("generate", "--out", str(out), *options(fmt))
            tally.add("corruptions", f"{fmt} manifest {damage[:12]!r}",
                      checked.returncode in (1, 2) and clean(checked) and clean(rerun)
                      and rerun.returncode in (0, 2))
    for fmt in ("vmevalkit", "vbvr-bench"):
        out = work / f"deleted-{fmt}"
        done = cli("generate", "--out", str(out), *options(fmt))
        ref = tree(out)
        folder = sorted({p.parent for p in out.rglob("first_frame.png")})[3]
        shutil.rmtree(folder)
        rerun = cli("generate", "--out", str(out), *options(fmt))
        tally.add("corruptions", f"{fmt} task folder deleted",
                  done.returncode == 0 and rerun.returncode == 0 and tree(out) == ref)
    for file, old, new in (("data/metadata.jsonl", b'"prompt": "Remove', b'"prompt": "Keep'),
                           ("data/metadata.jsonl", b'"first_frame_path": "',
                            b'"first_frame_path": "../../../../etc/'),
                           ("data/metadata.jsonl", b'"tar_file": "', b'"tar_file": "/etc/')):
        out = work / f"index-{len(tally.wrong)}-{old[:8].hex()}{new[-4:].hex()}"
        shutil.copytree(work / "ref-vbvr", out)
        data = (out / file).read_bytes()
        (out / file).write_bytes(data.replace(old, new, 1))
        checked = cli("verify", str(out), "--quiet")
        tally.add("corruptions", f"vbvr {file} {new.decode()!r}",
                  checked.returncode == 1 and clean(checked) and file in checked.stdout)


def links(work: Path, tally: Tally) -> None:
    """A link planted in the output folder: refused, one line, nothing outside changed."""
    for name, fmt, target_is_dir in ((".objsub-lock", "webdataset", False),
                                     (".objsub-progress", "webdataset", True),
                                     ("manifest.json", "webdataset", False),
                                     ("questions", "vbvr", True), ("data", "vbvr", True),
                                     ("object_subtraction_task", "vmevalkit", True)):
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
                      and "symbolic link" in done.stderr and tree(outside) == before)


def bad_inputs(work: Path, tally: Tally) -> None:
    """Bad option values: one line, exit 2, no secret shown, nothing written."""
    cases = [["--out", "s3://b/x", "--storage-options", '{"secret": "%s"' % SECRET],
             ["--out", "s3://b/x", "--storage-options", '["%s"]' % SECRET],
             ["--out", "s3://", "--storage-options", '{"secret": "%s"}' % SECRET],
             ["--out", "gs://"], ["--out", "az://"],
             ["--out", "s3://b/x", "--storage-options",
              '{"endpoint_url": 5, "secret": "%s"}' % SECRET],
             ["--out", "s3://b/x", "--storage-options", '{"key": ["%s"]}' % SECRET],
             ["--out", str(work / "bad"), "--count", "0"],
             ["--out", str(work / "bad"), "--shard-size", "-1"],
             ["--out", str(work / "bad"), "--canvas-size", "10x"],
             ["--out", str(work / "bad"), "--format", "zip"],
             ["--out", str(work / "bad"), "--seed", "1e400"]]
    for args in cases:
        done = cli("generate", "--quiet", *args)
        tally.add("bad inputs", " ".join(args)[:70],
                  done.returncode == 2 and clean(done) and done.stderr.count("\n") == 1
                  and SECRET not in done.stderr and not (work / "bad").exists())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=None,
                        help="folder for the runs (default: a temporary one, removed after)")
    args = parser.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="objsub-faults-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        refs = {}
        for fmt in FORMATS:
            out = work / f"ref-{fmt}"
            assert cli("generate", "--out", str(out), *options(fmt)).returncode == 0
            refs[fmt] = tree(out)
        tally = Tally()
        for part in (lambda: interruptions(work, refs, tally),
                     lambda: corruptions(work, refs, tally), lambda: links(work, tally),
                     lambda: bad_inputs(work, tally)):
            part()
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
