"""Object storage against a real S3 endpoint: moto's server on 127.0.0.1 (started for this
module on a free port, stopped at its end). The command line finds it through the standard
``AWS_*`` variables (``AWS_ENDPOINT_URL``); library calls pass ``storage_options``.

generate and verify, a flipped byte named, kill -9 and resume (stale multipart upload
aborted), the lease (refusal, take-over, a conditional write that only one of two racers
wins), a Dask LocalCluster writing to the store, reading back with webdataset and Hugging
Face datasets."""
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from installed import skip_unless_installed  # noqa: E402

skip_unless_installed("s3fs", reason="the [s3] extra (s3fs) is not installed")
skip_unless_installed("moto", "flask", "flask_cors", reason="moto's S3 server (moto[s3], flask, "
                      "flask-cors: test dependencies) is not installed")

from objsub_fast.dataset.run.run_config import RunConfig  # noqa: E402
from objsub_fast.dataset.content.manifest import PROGRESS_DIR  # noqa: E402
from objsub_fast.dataset.run.pipeline import generate  # noqa: E402
from objsub_fast.runtime import crashpoint  # noqa: E402
from objsub_fast.storage.lease import LEASE  # noqa: E402
from objsub_fast.storage.store import PART_SIZE_ENV, Store  # noqa: E402


from filetree import objects_of_run  # noqa: E402
from inprocess import run_cli  # noqa: E402
from lease_race import dead_lease, race_round  # noqa: E402
from objsub_fast.storage.local_s3 import LocalS3  # noqa: E402

CONFIG = RunConfig(count=12, shard_size=4, seed=3)
CLI_OPTIONS = ["--count", "12", "--shard-size", "4", "--seed", "3", "--quiet"]


#: The server takes multipart parts from this size, and the runs of the tests upload in parts
#: of it, so that a small shard is a multipart upload a kill can interrupt.
SMALL_PART = 32 << 10


@pytest.fixture(scope="module")
def s3():
    server = LocalS3(min_part_size=SMALL_PART)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("local")
    generate(CONFIG, out, workers=1, quiet=True)
    return objects_of_run(out)


@pytest.fixture
def url(s3):
    bucket = f"objsub-{uuid.uuid4().hex[:12]}"
    s3.client().create_bucket(Bucket=bucket)
    return f"s3://{bucket}/datasets/objsub"


def objects(s3, url) -> dict:
    store = Store(url, s3.options)
    return {k: store.read(k) for k in store.listing()}


def cli(s3, *args, env=None, cwd=None):
    """The command with the endpoint's ``AWS_*`` variables (and ``env``) in its environment: a
    run told to kill itself (``crashpoint``) as a subprocess, the others in this process."""
    if crashpoint.ENV in (env or {}):
        return subprocess.run([sys.executable, "-m", "objsub_fast.cli", *args],
                              env={**os.environ, **s3.env, **env}, capture_output=True,
                              text=True, timeout=300, cwd=cwd)
    return run_cli(args, cwd=cwd, env={**s3.env, **(env or {})})


def test_generate_and_verify_through_the_aws_environment(s3, url, reference):
    done = cli(s3, "generate", "--out", url, "--workers", "2", *CLI_OPTIONS)
    assert done.returncode == 0, done.stderr
    assert f"shards: {url}/objsub-{{000000..000002}}.tar" in done.stdout
    assert objects(s3, url) == reference
    checked = cli(s3, "verify", url, "--workers", "1", "--quiet")
    assert checked.returncode == 0 and "verified 12 tasks in 3 shards" in checked.stdout
    bucket, _, prefix = url[len("s3://"):].partition("/")
    data = bytearray(reference["objsub-000001.tar"])
    data[2000] ^= 0x40
    s3.client().put_object(Bucket=bucket, Key=f"{prefix}/objsub-000001.tar", Body=bytes(data))
    flipped = cli(s3, "verify", url, "--workers", "1", "--quiet")
    assert flipped.returncode == 1, flipped.stdout + flipped.stderr
    problems = [line for line in flipped.stdout.splitlines() if line.startswith("  - ")]
    assert problems and all(p.startswith("  - objsub-000001.tar: ") for p in problems), problems


def test_killed_runs_resume_to_the_same_bytes(s3, url, reference):
    for k in (4, 9):  # SIGKILL right after the k-th rename or upload into place
        killed = cli(s3, "generate", "--out", url, "--workers", "1", *CLI_OPTIONS,
                     env={crashpoint.ENV: str(k)})
        assert killed.returncode == -signal.SIGKILL, killed.stderr
        for key, data in objects(s3, url).items():  # what is under a final key is complete
            if not key.startswith((PROGRESS_DIR, LEASE, "manifest")):
                assert data == reference[key], key
    assert LEASE in objects(s3, url)  # the dead run's lease is left behind
    rerun = cli(s3, "generate", "--out", url, "--workers", "1", *CLI_OPTIONS)
    assert rerun.returncode == 0, rerun.stderr
    assert objects(s3, url) == reference


def test_a_kill_during_a_multipart_upload_is_aborted_by_the_rerun(s3, url, tmp_path):
    # one shard of ~1.7 MB uploaded in parts of 32 KiB: killed (SIGKILL) while its multipart
    # upload is open, the run leaves it open; the rerun aborts it and ends with the bytes of
    # a local run
    options = ["--count", "200", "--shard-size", "200", "--workers", "1", "--quiet"]
    bucket, _, prefix = url[len("s3://"):].partition("/")
    client = s3.client()
    run = subprocess.Popen([sys.executable, "-m", "objsub_fast.cli", "generate", "--out", url,
                            *options], env={**os.environ, **s3.env,
                                            PART_SIZE_ENV: str(SMALL_PART)})
    try:
        while run.poll() is None and not client.list_multipart_uploads(
                Bucket=bucket).get("Uploads"):
            time.sleep(0.01)
        run.send_signal(signal.SIGKILL)
    finally:
        run.wait()
    assert run.returncode == -signal.SIGKILL, "the run ended before its multipart upload"
    stale = client.list_multipart_uploads(Bucket=bucket)["Uploads"]
    assert [u["Key"] for u in stale] == [f"{prefix}/objsub-000000.tar"]
    assert "objsub-000000.tar" not in objects(s3, url)  # not visible until completed
    rerun = cli(s3, "generate", "--out", url, *options, env={PART_SIZE_ENV: str(SMALL_PART)})
    assert rerun.returncode == 0, rerun.stderr
    assert not client.list_multipart_uploads(Bucket=bucket).get("Uploads")
    assert subprocess.run([sys.executable, "-m", "objsub_fast.cli", "generate", "--out",
                           str(tmp_path / "local"), *options]).returncode == 0
    assert objects(s3, url) == objects_of_run(tmp_path / "local")


def test_a_live_lease_refuses_and_take_over_succeeds(s3, url, reference):
    holder = {"pid": 4242, "host": "gpu-node-7", "started": "2026-11-23T10:00:00Z"}
    Store(url, s3.options).put_bytes(LEASE, json.dumps(holder).encode())
    refused = cli(s3, "generate", "--out", url, "--workers", "1", *CLI_OPTIONS)
    assert refused.returncode == 2
    assert "pid 4242 on host gpu-node-7" in refused.stderr and "--take-over-lease" in \
        refused.stderr and "Traceback" not in refused.stderr
    assert set(objects(s3, url)) == {LEASE}
    taken = cli(s3, "generate", "--out", url, "--take-over-lease", "--workers", "1", *CLI_OPTIONS)
    assert taken.returncode == 0, taken.stderr
    assert objects(s3, url) == reference


def test_a_missing_bucket_is_one_line(s3, tmp_path):
    done = cli(s3, "generate", "--out", "s3://no-such-bucket/objsub", *CLI_OPTIONS)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "bucket 'no-such-bucket' does not exist" in done.stderr


def test_of_eight_racing_creates_exactly_one_succeeds(s3, url):
    # one conditional PUT each; moto's threaded server checked and wrote in two steps and once
    # let two racers through (CI, 2026-11-29): LocalS3 serves one request at a time, as S3
    # makes the check and the write one step
    store = Store(url, s3.options)
    for round_ in range(4):
        results, barrier = [], threading.Barrier(8)

        def race(i):
            barrier.wait()
            results.append((store.create(f"{LEASE}-{round_}", b"%d" % i), b"%d" % i))

        threads = [threading.Thread(target=race, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        winners = [text for created, text in results if created]
        assert len(results) == 8 and len(winners) == 1, results
        assert store.read(f"{LEASE}-{round_}") == winners[0]


def test_of_eight_racing_runs_exactly_one_takes_the_lease(s3, url):
    # the lease checks itself (read back, a second create refused): on S3 one racer wins
    from objsub_fast.storage.lease import Lease, StoreLeased

    results, barrier = [None] * 8, threading.Barrier(8)

    def race(i):
        barrier.wait()
        try:
            results[i] = Lease(Store(url, s3.options)).acquire()
        except StoreLeased as e:
            results[i] = e

    threads = [threading.Thread(target=race, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    winners = [r for r in results if isinstance(r, Lease)]
    assert len(winners) == 1 and all(isinstance(r, StoreLeased) for r in results
                                     if r is not winners[0]), results
    assert Store(url, s3.options).read(LEASE) == winners[0].text
    winners[0].release()


@pytest.mark.parametrize("pause", [0.0, 0.5])
def test_eight_processes_taking_over_one_dead_lease_leave_one_holder(s3, pause):
    # before: the dead lease was read, deleted unconditionally and created again, and 2-3 of
    # 8 racers held it (every time with a pause between reading and deleting); now it is
    # replaced with If-Match its ETag, and the store lets exactly one racer through
    for _ in range(3):
        bucket = f"objsub-{uuid.uuid4().hex[:12]}"
        s3.client().create_bucket(Bucket=bucket)
        url = f"s3://{bucket}/datasets/objsub"
        Store(url, s3.options).put_bytes(LEASE, dead_lease())
        answers = race_round(url, s3.options, s3.env, pause=pause)
        assert answers.count("held") == 1, answers
        assert all(a.startswith("refused: ") for a in answers if a != "held"), answers


def test_dask_workers_write_their_shards_to_the_store(s3, url, reference):
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                      dashboard_address=None) as cluster:
        generate(CONFIG, url, backend="dask", scheduler=cluster.scheduler_address,
                 storage_options=s3.options, quiet=True)
    assert objects(s3, url) == reference


@pytest.fixture(scope="module")
def stored(s3, tmp_path_factory):
    bucket = f"objsub-{uuid.uuid4().hex[:12]}"
    s3.client().create_bucket(Bucket=bucket)
    url = f"s3://{bucket}/objsub"
    generate(CONFIG, url, workers=1, storage_options=s3.options, quiet=True)
    return url


def _expected():
    from objsub_fast import iter_samples

    return {s["__key__"]: s for s in iter_samples(CONFIG.count, seed=CONFIG.seed)}


def test_webdataset_reads_the_shards_from_the_store(s3, stored, monkeypatch):
    import importlib

    import fsspec
    import webdataset as wds

    gopen = importlib.import_module("webdataset.gopen")  # the module (the package exports a
    # function of that name)

    def open_with_fsspec(url, mode="rb", bufsize=8192, **kw):
        return fsspec.open(url, mode, **s3.options).open()

    monkeypatch.setitem(gopen.gopen_schemes, "s3", open_with_fsspec)
    urls = [f"{stored}/objsub-{k:06d}.tar" for k in range(3)]
    got = {s["__key__"]: s for s in wds.WebDataset(urls, shardshuffle=False)}
    expected = _expected()
    assert got.keys() == expected.keys()
    for key, sample in got.items():
        assert {k: v for k, v in sample.items() if not k.startswith("__")} == \
            {k: v for k, v in expected[key].items() if not k.startswith("__")}


def test_hugging_face_datasets_reads_the_shards_from_the_store(s3, stored, tmp_path,
                                                               monkeypatch):
    datasets = pytest.importorskip("datasets")
    # the store is no Hub: reading it must work whatever an earlier test of this process left
    # in the switch datasets reads once, at its import
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", False)

    ds = datasets.load_dataset("webdataset", data_files={"train": f"{stored}/objsub-*.tar"},
                               split="train", storage_options=s3.options,
                               cache_dir=str(tmp_path))
    expected = _expected()
    assert sorted(ds["__key__"]) == sorted(expected)
    import io

    import numpy as np
    from PIL import Image

    for row in ds:  # datasets decodes the members: text, JSON (rows unified), PNG images
        want = expected[row["__key__"]]
        record = json.loads(want["json"])
        assert row["txt"] == want["txt"].decode()
        assert row["json"]["id"] == record["id"]
        assert row["json"]["object_subtraction_data"]["remove_object_ids"] == \
            record["object_subtraction_data"]["remove_object_ids"]
        assert np.array_equal(np.asarray(row["first.png"]),
                              np.asarray(Image.open(io.BytesIO(want["first.png"]))))


def test_the_readmes_object_storage_commands_run_as_written(s3, tmp_path):
    """The README's object-storage block, every command but the install, against the local
    endpoint (its bucket created first, as a user's would exist)."""
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    block = re.search(r"### Object storage\n\n```bash\n(.*?)```", readme, flags=re.S).group(1)
    commands = [shlex.split(line, comments=True) for line in block.splitlines()
                if line.strip() and not line.startswith("pip ")]
    assert [c[:2] for c in commands] == [["objsub-fast", "generate"], ["objsub-fast", "verify"]]
    bucket = commands[0][commands[0].index("--out") + 1][len("s3://"):].split("/")[0]
    s3.client().create_bucket(Bucket=bucket)
    for command in commands:
        done = cli(s3, *command[1:], cwd=tmp_path)
        assert done.returncode == 0, (command, done.stderr)
    assert "verified 2,000 tasks" in done.stdout
    assert not any(tmp_path.iterdir())  # nothing written locally (no folder named "s3:")
