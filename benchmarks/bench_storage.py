#!/usr/bin/env python
"""Object storage benchmark: generation to each store's emulator on localhost against local
disk, and ``verify`` on the store against generation to it.

    python benchmarks/bench_storage.py                      # 4,000 tasks, 2 workers, 3 repeats
    python benchmarks/bench_storage.py --count 20000 --repeats 5 --stores s3,azure,gcs

The endpoints are moto's S3 server, Azurite and gcp-storage-emulator
(``objsub_fast.storage.local_s3``, ``local_azure``, ``local_gcs``) on 127.0.0.1, processes on
the same cores as the workers, so the store rows pay for the server's CPU too (Azurite is
Node.js, the other two Python). A store whose emulator is not installed is left out, with a
line saying so. The GCS emulator ignores create-only writes, so its runs set
OBJSUB_FAST_UNSAFE_LEASE=1 (one writer). The
rows of one repeat run back to back (the two generate rows in turn first) and the repeats
are interleaved, so a busy machine slows every row alike; a warm-up run first loads the kernels and the store client in every
process. The table gives medians (and the best) in tasks/s, and the ratios of the medians. Peak RSS is that of a fresh process running every shard job itself (``--workers 1``,
the code a pool worker runs): an upper bound of one worker's footprint.
"""
from __future__ import annotations

import argparse
import os

# read when gcsfs and google-auth are imported, here and in the workers: no zonal/hierarchical
# bucket probe and no Compute Engine metadata server against the GCS emulator
from objsub_fast.storage.local_gcs import NO_GCE_ENV, ZB_HNS_ENV  # noqa: E402

for _name, _value in {**ZB_HNS_ENV, **NO_GCE_ENV}.items():
    os.environ.setdefault(_name, _value)
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from _extras import description, require  # noqa: E402

require("s3fs", "moto", extra="test")

from objsub_fast.dataset.run.pipeline import RunConfig, generate  # noqa: E402
from objsub_fast.dataset.check.verify import verify  # noqa: E402
from objsub_fast.storage.lease import UNSAFE_ENV  # noqa: E402

#: --stores name -> (row label, URL scheme, module and class of its local server).
STORES = {"s3": ("S3 endpoint", "s3", "local_s3", "LocalS3"),
          "azure": ("Azurite", "az", "local_azure", "LocalAzurite"),
          "gcs": ("GCS emulator", "gs", "local_gcs", "LocalGCS")}


def start_store(name):
    """(label, scheme, server, make_bucket) of store ``name``, or None if its emulator is not
    installed (a line says so)."""
    import importlib

    label, scheme, module, cls = STORES[name]
    try:
        server = getattr(importlib.import_module(f"objsub_fast.storage.{module}"), cls)()
    except (ImportError, RuntimeError) as e:
        print(f"{label}: left out ({e})")
        return None
    if name == "s3":
        return label, scheme, server, lambda b: server.client().create_bucket(Bucket=b)
    return label, scheme, server, getattr(server, "create_container", None) or \
        server.create_bucket

_RSS_CHILD = """
import sys, json
from objsub_fast.dataset.run.pipeline import RunConfig, generate
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
    parser = argparse.ArgumentParser(description=description(__doc__))
    parser.add_argument("--count", type=int, default=4000)
    parser.add_argument("--shard-size", type=int, default=250)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--stores", default="s3,azure,gcs",
                        help="comma-separated stores of " + ", ".join(STORES))
    args = parser.parse_args()
    os.environ[UNSAFE_ENV] = "1"  # the GCS emulator ignores create-only writes
    config = RunConfig(count=args.count, shard_size=args.shard_size)
    stores = [s for s in (start_store(n) for n in args.stores.split(",")) if s]
    scratch = Path(tempfile.mkdtemp(prefix="bench-storage-"))
    times = {"generate, local disk": []}
    times.update({f"generate, {label}": [] for label, *_ in stores})
    times.update({f"verify, {label}": [] for label, *_ in stores})
    times["verify, local disk"] = []
    rss = {}
    try:
        # load the kernels and the store clients in this process and the pool's workers once
        # (a one-time cost of a few seconds per process, not part of the rates)
        warm = [(scratch / "warm", None)]
        for label, scheme, server, make in stores:
            make("warm")
            warm.append((f"{scheme}://warm/objsub", server.options))
        for out, options in warm:
            generate(RunConfig(count=8, shard_size=2), out, workers=args.workers, quiet=True,
                     storage_options=options)
        for r in range(args.repeats):
            local = scratch / f"local-{r}"
            gen = [("generate, local disk", lambda: generate(config, local,
                                                            workers=args.workers, quiet=True))]
            ver = []
            for label, scheme, server, make in stores:
                bucket = f"bench-{uuid.uuid4().hex[:8]}"
                make(bucket)
                url = f"{scheme}://{bucket}/objsub"
                gen.append((f"generate, {label}", lambda url=url, o=server.options: generate(
                    config, url, workers=args.workers, quiet=True, storage_options=o)))
                ver.append((f"verify, {label}", lambda url=url, o=server.options: verify(
                    url, workers=args.workers, storage_options=o)))
            k = r % len(gen)  # the generate rows take turns in going first
            rows = gen[k:] + gen[:k] + ver + [("verify, local disk",
                                               lambda: verify(local, workers=args.workers))]
            for name, run in rows:
                t0 = time.perf_counter()
                result = run()
                times[name].append(time.perf_counter() - t0)
                if name.startswith("verify"):
                    assert result.ok, result.problems[:3]
            shutil.rmtree(local)
        fields = {"count": args.count, "shard_size": args.shard_size}
        rss["local disk"] = peak_rss_mib(str(scratch / "rss"), fields, {})
        for label, scheme, server, make in stores:
            bucket = f"bench-{uuid.uuid4().hex[:8]}"
            make(bucket)
            rss[label] = peak_rss_mib(f"{scheme}://{bucket}/objsub", fields, server.options)
    finally:
        for _, _, server, _ in stores:
            server.stop()
        shutil.rmtree(scratch, ignore_errors=True)
    rate = {name: [args.count / t for t in ts] for name, ts in times.items()}
    median = {name: statistics.median(r) for name, r in rate.items()}
    print(f"{args.count} tasks, {args.count // args.shard_size} shards, {args.workers} workers, "
          f"{args.repeats} repeats, 256x256 WebDataset")
    print(f"{'row':<26}{'median tasks/s':>16}{'best':>10}")
    for name in rate:
        print(f"{name:<26}{median[name]:>16.0f}{max(rate[name]):>10.0f}")
    for label, *_ in stores:
        for a, b in ((f"generate, {label}", "generate, local disk"),
                     (f"verify, {label}", f"generate, {label}")):
            print(f"{a} / {b}: {median[a] / median[b]:.2f}x")
    print("peak RSS, one worker: " + ", ".join(f"{k} {v:.0f} MiB" for k, v in rss.items()))


if __name__ == "__main__":
    main()
