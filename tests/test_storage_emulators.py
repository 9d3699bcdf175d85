"""Object storage against the Azure and GCS emulators nobody here wrote: Azurite (npm) and
gcp-storage-emulator (PyPI), each started for this module on 127.0.0.1 and a free port and
stopped at its end (``objsub_fast.storage.local_azure``, ``local_gcs``); and the faults of
all three stores (moto for S3): the same bytes as a local run, verify naming a changed
byte, kill -9 and resume, the lease (refusal, take-over, racers, a store that ignores
create-only writes refused), and every credential, endpoint and bucket fault as one line
naming the store, exit status 2, nothing written, no traceback."""
import json
import os
import shutil
import subprocess
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from objsub_fast.storage.local_gcs import NO_GCE_ENV, ZB_HNS_ENV  # noqa: E402

# read by gcsfs when imported (its zonal/hierarchical bucket probe retries for a minute per
# call against an emulator); and no Compute Engine metadata server is looked for
for _name, _value in {**ZB_HNS_ENV, **NO_GCE_ENV}.items():
    os.environ.setdefault(_name, _value)
from installed import skip_unless_installed  # noqa: E402

skip_unless_installed("gcsfs", reason="the [gcs] extra (gcsfs) is not installed")
skip_unless_installed("adlfs", reason="the [azure] extra (adlfs) is not installed")
skip_unless_installed("gcp_storage_emulator", reason="gcp-storage-emulator is not installed")
if shutil.which("azurite-blob") is None:
    pytest.skip("Azurite (npm install -g azurite) is not installed", allow_module_level=True)

from objsub_fast.cli import main  # noqa: E402
from objsub_fast.dataset.run.run_config import RunConfig  # noqa: E402
from objsub_fast.dataset.run.pipeline import generate  # noqa: E402
from objsub_fast.runtime import crashpoint  # noqa: E402
from objsub_fast.storage.lease import (LEASE, UNSAFE_ENV, Lease, LeaseUnsafe,  # noqa: E402
                                       StoreLeased)
from objsub_fast.dataset.check.verify import verify  # noqa: E402
from objsub_fast.storage.local_azure import LocalAzurite  # noqa: E402
from objsub_fast.storage.local_gcs import LocalGCS  # noqa: E402
from objsub_fast.storage.local_s3 import LocalS3  # noqa: E402
from objsub_fast.storage.store import Store  # noqa: E402

from filetree import objects_of_run  # noqa: E402
from lease_race import dead_lease, race_round  # noqa: E402

CONFIG = RunConfig(count=6, shard_size=3, seed=3)
CLI_OPTIONS = ["--count", "6", "--shard-size", "3", "--seed", "3", "--quiet"]
#: Every variable through which a store client could find credentials or an endpoint.
_STORE_ENV = ("AWS_", "AZURE_", "GOOGLE_", "STORAGE_EMULATOR_HOST", "GCSFS_")


class Emulator:
    """One store's emulator as the tests use it: a fresh bucket's URL, the environment of
    the command line, the library's storage options."""

    def __init__(self, scheme, server, make_bucket, extra_env=None):
        self.scheme, self.server, self.make_bucket = scheme, server, make_bucket
        self.env = {**server.env, **(extra_env or {})}
        self.options = server.options

    def url(self) -> str:
        bucket = f"objsub-{uuid.uuid4().hex[:12]}"
        self.make_bucket(bucket)
        return f"{self.scheme}://{bucket}/data/objsub"


@pytest.fixture(scope="module")
def azurite():
    server = LocalAzurite()
    yield Emulator("az", server, server.create_container)
    server.stop()


@pytest.fixture(scope="module")
def gcs():
    server = LocalGCS()
    # the emulator ignores create-only writes: runs that write must promise one writer
    yield Emulator("gs", server, server.create_bucket, {UNSAFE_ENV: "1"})
    server.stop()


@pytest.fixture(params=["azurite", "gcs"])
def store(request):
    return request.getfixturevalue(request.param)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("local")
    generate(CONFIG, out, workers=1, quiet=True)
    return objects_of_run(out)


def _clean_env(env=None) -> dict:
    return {**{k: v for k, v in os.environ.items() if not k.startswith(_STORE_ENV)},
            **(env or {})}


def cli(env, *args, cwd=None):
    """The command line in a process of its own (what a user's terminal shows)."""
    return subprocess.run([sys.executable, "-m", "objsub_fast.cli", *args], env=_clean_env(env),
                          capture_output=True, text=True, timeout=300, cwd=cwd)


def objects(emulator, url) -> dict:
    store = Store(url, emulator.options)
    return {k: store.read(k) for k in store.listing()}


def test_generate_verify_and_a_changed_byte(store, reference, monkeypatch):
    url = store.url()
    done = cli(store.env, "generate", "--out", url, "--workers", "2", *CLI_OPTIONS)
    assert done.returncode == 0, done.stderr
    assert objects(store, url) == reference
    checked = verify(url, workers=1, storage_options=store.options)  # (in this process: the
    assert checked.tasks == 6 and not checked.problems, checked.problems  # S3 tests run the CLI)
    data = bytearray(reference["objsub-000001.tar"])
    data[2000] ^= 0x40
    Store(url, store.options).put_bytes("objsub-000001.tar", bytes(data))
    report = verify(url, workers=1, storage_options=store.options)
    assert report.problems and all(p.startswith("objsub-000001.tar: ")
                                   for p in report.problems), report.problems


def test_a_run_killed_with_sigkill_resumes_to_the_same_bytes(store, reference):
    url = store.url()
    killed = cli({**store.env, crashpoint.ENV: "4"}, "generate", "--out", url,
                 "--workers", "1", *CLI_OPTIONS)
    assert killed.returncode == -9, killed.stderr
    assert LEASE in objects(store, url)  # the dead run's lease is left behind
    rerun = cli(store.env, "generate", "--out", url, "--workers", "1", *CLI_OPTIONS)
    assert rerun.returncode == 0, rerun.stderr
    assert objects(store, url) == reference


def test_a_live_lease_refuses_and_take_over_succeeds(store, reference, monkeypatch):
    monkeypatch.setenv(UNSAFE_ENV, store.env.get(UNSAFE_ENV, "0"))
    url = store.url()
    holder = json.dumps({"pid": 4242, "host": "gpu-node-7",
                         "started": "2026-11-23T10:00:00Z"}).encode()
    Store(url, store.options).put_bytes(LEASE, holder)
    with pytest.raises(StoreLeased, match="pid 4242 on host gpu-node-7.*--take-over-lease"):
        generate(CONFIG, url, workers=1, quiet=True, storage_options=store.options)
    assert objects(store, url) == {LEASE: holder}  # not overwritten, nothing else written
    generate(CONFIG, url, workers=1, quiet=True, storage_options=store.options,
             take_over_lease=True)
    assert objects(store, url) == reference


def _race(url, options, n=8) -> list:
    """``n`` threads acquiring the lease of ``url`` at once: each one's Lease or exception."""
    results, barrier = [None] * n, threading.Barrier(n)

    def run(i):
        barrier.wait()
        try:
            results[i] = Lease(Store(url, options)).acquire()
        except StoreLeased as e:
            results[i] = e

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    return results


def test_a_store_that_ignores_create_only_writes_is_refused(gcs, monkeypatch):
    # gcp-storage-emulator ignores ifGenerationMatch=0: before, two runs into one prefix both
    # ran, a foreign lease was overwritten, and 8 racers all "won"
    monkeypatch.delenv(UNSAFE_ENV, raising=False)
    url = gcs.url()
    done = cli({k: v for k, v in gcs.env.items() if k != UNSAFE_ENV}, "generate", "--out", url,
               "--workers", "1", *CLI_OPTIONS)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "does not honour create-only writes" in done.stderr and UNSAFE_ENV in done.stderr
    assert objects(gcs, url) == {}  # nothing written, the lease removed again
    results = _race(url, gcs.options)
    # no racer holds the prefix: each is refused, as unsafe or (when it read another racer's
    # lease before that one was removed again) as "in use"; the first to create says unsafe
    assert not any(isinstance(r, Lease) for r in results), results
    assert all(isinstance(r, StoreLeased) for r in results), results
    assert any(isinstance(r, LeaseUnsafe) for r in results), results
    assert objects(gcs, url) == {}


def test_of_eight_racers_exactly_one_takes_the_lease(azurite):
    url = azurite.url()
    results = _race(url, azurite.options)
    winners = [r for r in results if isinstance(r, Lease)]
    assert len(winners) == 1, results
    assert Store(url, azurite.options).read(LEASE) == winners[0].text
    winners[0].release()


@pytest.mark.parametrize("pause", [0.0, 0.5])
def test_eight_processes_taking_over_one_dead_lease_leave_one_holder(azurite, pause):
    # before: 2-3 holders in 7 of 10 rounds (every round with a pause between reading the
    # lease and deleting it); now the lease is replaced with If-Match its ETag
    for _ in range(3):
        url = azurite.url()
        Store(url, azurite.options).put_bytes(LEASE, dead_lease())
        answers = race_round(url, azurite.options, azurite.env, pause=pause)
        assert answers.count("held") == 1, answers
        assert all(a.startswith("refused: ") for a in answers if a != "held"), answers


def test_a_take_over_replaces_the_lease_by_its_generation_on_gcs(gcs, monkeypatch):
    # the emulator ignores preconditions, so this checks the request is accepted and the
    # version read is GCS's generation (a real GCS refuses a stale one like S3 and Azure)
    monkeypatch.setenv(UNSAFE_ENV, "1")
    url = gcs.url()
    store = Store(url, gcs.options)
    store.put_bytes(LEASE, dead_lease())
    text, tag = store.read_versioned(LEASE)
    assert text == dead_lease() and tag.isdigit()
    lease = Lease(Store(url, gcs.options)).acquire()
    assert store.read(LEASE) == lease.text
    lease.release()
    assert LEASE not in store.listing()


# --------------------------------------------------------------------------- faults

class _TokenRefused(BaseHTTPRequestHandler):
    """A token endpoint that refuses every key, as Google's refuses a fake one."""

    def do_POST(self):  # noqa: N802 - the http.server name
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        body = b'{"error": "invalid_grant", "error_description": "Invalid JWT Signature."}'
        self.send_response(400)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def fake_key(tmp_path_factory):
    """A service-account key file that no token endpoint accepts (its own on 127.0.0.1)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    server = ThreadingHTTPServer(("127.0.0.1", 0), _TokenRefused)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption()).decode()
    path = tmp_path_factory.mktemp("key") / "service-account.json"
    path.write_text(json.dumps({
        "type": "service_account", "project_id": "fake", "private_key_id": "0",
        "private_key": key, "client_email": "fake@fake.iam.gserviceaccount.com",
        "client_id": "0", "token_uri": f"http://127.0.0.1:{server.server_port}/token"}))
    yield path
    server.shutdown()


def _one_line(done, *expected):
    """The run was refused with one line holding ``expected``, no traceback, exit 2."""
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    for text in expected:
        assert text in done.stderr, done.stderr


def test_a_wrong_azure_account_key_is_one_line(azurite, tmp_path):
    # before: a traceback (HttpResponseError AuthorizationFailure) and exit 1
    url = azurite.url()
    wrong = {"AZURE_STORAGE_CONNECTION_STRING": azurite.server.connection_string_with(
        "A" * 86 + "==")}
    for command in (["generate", "--out", url, *CLI_OPTIONS], ["verify", url, "--quiet"]):
        _one_line(cli(wrong, *command, cwd=tmp_path), "Azure Blob rejected the credentials",
                  "AZURE_STORAGE_CONNECTION_STRING")
    assert objects(azurite, url) == {} and not any(tmp_path.iterdir())


@pytest.mark.parametrize("given", ["options", "environment"])
def test_an_azure_account_key_that_is_not_base64_is_one_line(azurite, tmp_path, given):
    # before: a 127-130 line traceback ending in AzureSigningError, exit 1
    url, key = azurite.url(), "not-base64!!"
    connection = azurite.server.connection_string_with(key)
    env = {"AZURE_STORAGE_CONNECTION_STRING": connection} if given == "environment" else {}
    options = (["--storage-options", json.dumps({"connection_string": connection})]
               if given == "options" else [])
    where = ('"connection_string" in --storage-options' if given == "options"
             else "AZURE_STORAGE_CONNECTION_STRING")
    for command in (["generate", "--out", url, *CLI_OPTIONS], ["verify", url, "--quiet"]):
        done = cli(env, *command, *options, cwd=tmp_path)
        _one_line(done, "Azure Blob account key is not base64", where)
        assert key not in done.stderr
    assert objects(azurite, url) == {} and not any(tmp_path.iterdir())


def test_a_fake_gcs_service_account_key_is_one_line(gcs, fake_key, tmp_path):
    # before: the right last line after 188 lines of gcsfs tracebacks
    url = gcs.url()
    options = json.dumps({"endpoint_url": gcs.server.endpoint, "token": str(fake_key)})
    done = cli({**ZB_HNS_ENV, **NO_GCE_ENV}, "generate", "--out", url,
               "--storage-options", options, *CLI_OPTIONS, cwd=tmp_path)
    _one_line(done, "GCS rejected the credentials", "invalid_grant")
    assert objects(gcs, url) == {} and not any(tmp_path.iterdir())


@pytest.fixture(scope="module")
def s3_checking_keys():
    server = LocalS3(authenticate=True)
    yield server
    server.stop()


def _faults(azurite, gcs, s3_checking_keys, az_url, gs_url):
    """(case, URL, environment, storage options, what the line says) of each fault."""
    closed = "http://127.0.0.1:9"  # the discard port: nothing listens on this machine
    s3_env = {"AWS_ENDPOINT_URL": s3_checking_keys.endpoint, "AWS_EC2_METADATA_DISABLED": "true",
              "AWS_SHARED_CREDENTIALS_FILE": os.devnull, "AWS_CONFIG_FILE": os.devnull}
    return [
        ("azure no credentials", az_url, {}, {}, "no Azure Blob credentials found"),
        ("azure unreachable", az_url, {}, {"connection_string": azurite.server.connection_string
                                           .replace(azurite.server.endpoint.split("/")[2],
                                                    closed[7:])},
         "cannot connect to the Azure Blob endpoint"),
        ("azure missing container", "az://no-such-container/x", azurite.env, {},
         "Azure Blob container 'no-such-container' does not exist"),
        ("gcs credential file missing", gs_url,
         {**gcs.env, "GOOGLE_APPLICATION_CREDENTIALS": "/nonexistent.json"}, {},
         "GOOGLE_APPLICATION_CREDENTIALS names '/nonexistent.json', which is not a file"),
        ("gcs unreachable", gs_url, {**gcs.env, "STORAGE_EMULATOR_HOST": closed}, {},
         f"cannot connect to the GCS endpoint {closed}"),
        ("gcs missing bucket", "gs://no-such-bucket/x", gcs.env, {},
         "GCS bucket 'no-such-bucket' does not exist"),
        ("s3 wrong key", "s3://some-bucket/x", {**s3_env, "AWS_ACCESS_KEY_ID": "AKIAWRONG",
                                                "AWS_SECRET_ACCESS_KEY": "wrong"}, {},
         "S3 rejected the credentials (InvalidAccessKeyId"),
        ("s3 no credentials", "s3://some-bucket/x", s3_env, {}, "no S3 credentials found"),
        ("s3 unreachable", "s3://some-bucket/x", {**s3_env, "AWS_ENDPOINT_URL": closed,
                                                  "AWS_ACCESS_KEY_ID": "a",
                                                  "AWS_SECRET_ACCESS_KEY": "b"}, {},
         f"cannot connect to the S3 endpoint {closed}"),
    ]


def _filesystem_classes():
    import adlfs
    import gcsfs
    import s3fs

    return adlfs.AzureBlobFileSystem, gcsfs.GCSFileSystem, s3fs.S3FileSystem


def test_every_fault_of_every_store_is_one_line_naming_store_and_fault(
        azurite, gcs, s3_checking_keys, tmp_path, monkeypatch, capsys):
    # in this process (fast); the separate processes above show the terminal has no traceback
    monkeypatch.chdir(tmp_path)
    az_url, gs_url = azurite.url(), gcs.url()
    for case, url, env, options, expected in _faults(azurite, gcs, s3_checking_keys, az_url,
                                                     gs_url):
        for name in [k for k in os.environ if k.startswith(_STORE_ENV)]:
            monkeypatch.delenv(name)
        monkeypatch.setenv("NO_GCE_CHECK", "true")
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        for cls in _filesystem_classes():  # a process of its own would start without them
            cls.clear_instance_cache()
        for command in (["generate", "--out", url, *CLI_OPTIONS], ["verify", url, "--quiet"]):
            started = time.monotonic()
            with pytest.raises(SystemExit) as e:
                main(command + (["--storage-options", json.dumps(options)] if options else []))
            err = capsys.readouterr().err
            assert e.value.code == 2 and err.count("\n") == 1, (case, err)
            assert expected in err and url in err, (case, err)
            assert time.monotonic() - started < 20, case  # not the clients' minute of retries
    assert not any(tmp_path.iterdir())
    assert objects(azurite, az_url) == {} and objects(gcs, gs_url) == {}


def test_an_unreachable_s3_endpoint_fails_fast_in_a_terminal(tmp_path):
    # before: 27 s of retries, then "bucket 'my-bucket' does not exist"
    started = time.monotonic()
    done = cli({"AWS_ENDPOINT_URL": "http://127.0.0.1:9", "AWS_ACCESS_KEY_ID": "a",
                "AWS_SECRET_ACCESS_KEY": "b"}, "generate", "--out", "s3://my-bucket/objsub",
               *CLI_OPTIONS, cwd=tmp_path)
    _one_line(done, "cannot connect to the S3 endpoint http://127.0.0.1:9")
    assert time.monotonic() - started < 20 and not any(tmp_path.iterdir())
