#!/usr/bin/env python
"""Object storage benchmark: generation to an S3 endpoint on localhost against local disk,
and ``verify`` on the store against generation to it (issue #19's numbers).

    python benchmarks/bench_storage.py                      # 4,000 tasks, 2 workers, 3 repeats
    python benchmarks/bench_storage.py --count 20000 --repeats 5

The endpoint is moto's S3 server (``objsub_fast.storage.local_s3``) on 127.0.0.1, a Python
process on the same cores as the workers, so the S3 rows pay for the server's CPU too. The
rows of one repeat run back to back (the two generate rows in turn first) and the repeats
are interleaved, so a busy machine slows every row alike; a warm-up run first loads the kernels and the store client in every
process. The table gives medians (and the best) in tasks/s, and the ratios of the medians. Peak RSS is that of a fresh process running every shard job itself (``--workers 1``,
the code a pool worker runs): an upper bound of one worker's footprint.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from _extras import require

require("s3fs", "moto", extra="test")

from objsub_fast.pipeline import RunConfig, generate
from objsub_fast.storage.local_s3 import LocalS3
from objsub_fast.verify import verify

_RSS_CHILD = """
import sys, json
from objsub_fast.pipeline import RunConfig, generate
generate(RunConfig(**json.loads(sys.argv[2])), sys.argv[1], workers=1, quiet=True,
         storage_options=json.loads(sys.argv[3]) or None)
"""


def peak_rss_mib(out: str, config: dict, options: dict) -> float:
    """Peak RSS (MiB) of a fresh process generating into ``out`` with one worker."""
    import json

    proc = subprocess.Popen([sys.executable, "-c", _RSS_CHILD, out, json.dumps(config),
                             json.dumps(options)])
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"RSS run into {out} failed ({proc.returncode})")
    return usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=4000)
    parser.add_argument("--shard-size", type=int, default=250)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    config = RunConfig(count=args.count, shard_size=args.shard_size)
    server = LocalS3()
    scratch = Path(tempfile.mkdtemp(prefix="bench-storage-"))
    times = {"generate, local disk": [], "generate, S3 endpoint": [], "verify, S3 endpoint": [],
             "verify, local disk": []}
    try:
        # load the kernels and the store client in this process and the pool's workers once
        # (a one-time cost of a few seconds per process, not part of the rates)
        server.client().create_bucket(Bucket="warm")
        for out, options in ((scratch / "warm", None), ("s3://warm/objsub", server.options)):
            generate(RunConfig(count=8, shard_size=2), out, workers=args.workers, quiet=True,
                     storage_options=options)
        for r in range(args.repeats):
            bucket = f"bench-{uuid.uuid4().hex[:8]}"
            server.client().create_bucket(Bucket=bucket)
            url, local = f"s3://{bucket}/objsub", scratch / f"local-{r}"
            rows = [
                ("generate, local disk", lambda: generate(config, local, workers=args.workers,
                                                          quiet=True)),
                ("generate, S3 endpoint", lambda: generate(config, url, workers=args.workers,
                                                           quiet=True,
                                                           storage_options=server.options)),
                ("verify, S3 endpoint", lambda: verify(url, workers=args.workers,
                                                       storage_options=server.options)),
                ("verify, local disk", lambda: verify(local, workers=args.workers))]
            if r % 2:  # ABBA: each generate row goes first in every other repeat
                rows[:2] = rows[1::-1]
            for name, run in rows:
                t0 = time.perf_counter()
                result = run()
                times[name].append(time.perf_counter() - t0)
                if name.startswith("verify"):
                    assert result.ok, result.problems[:3]
            shutil.rmtree(local)
        bucket = f"bench-{uuid.uuid4().hex[:8]}"
        server.client().create_bucket(Bucket=bucket)
        fields = {"count": args.count, "shard_size": args.shard_size}
        rss = {"local disk": peak_rss_mib(str(scratch / "rss"), fields, {}),
               "S3 endpoint": peak_rss_mib(f"s3://{bucket}/objsub", fields, server.options)}
    finally:
        server.stop()
        shutil.rmtree(scratch, ignore_errors=True)
    rate = {name: [args.count / t for t in ts] for name, ts in times.items()}
    median = {name: statistics.median(r) for name, r in rate.items()}
    print(f"{args.count} tasks, {args.count // args.shard_size} shards, {args.workers} workers, "
          f"{args.repeats} repeats, 256x256 WebDataset")
    print(f"{'row':<24}{'median tasks/s':>16}{'best':>10}")
    for name in rate:
        print(f"{name:<24}{median[name]:>16.0f}{max(rate[name]):>10.0f}")
    for (a, b), need in ((("generate, S3 endpoint", "generate, local disk"), 0.7),
                         (("verify, S3 endpoint", "generate, S3 endpoint"), 0.5)):
        print(f"{a} / {b}: {median[a] / median[b]:.2f}x (issue: >= {need})")
    print("peak RSS, one worker: " + ", ".join(f"{k} {v:.0f} MiB" for k, v in rss.items()))


if __name__ == "__main__":
    main()
