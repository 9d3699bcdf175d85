"""Object-store outputs through fsspec, fast, on ``memory://``: URL handling and the missing
backend error, the same bytes as a local run in every format, resume, the lease, verify
naming a changed object, and the commit order of a shard's objects. (The S3 endpoint tests
are in test_storage_s3.py.)"""
import doctest
import importlib
import importlib.util
import json
import os
import re

import fsspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from objsub_fast.cli import main
from objsub_fast.dataset.run import store_jobs as jobs_module
from objsub_fast.dataset.run import target as target_module
from objsub_fast.dataset.run.run_config import RunConfig
from objsub_fast.dataset.content.manifest import MANIFEST, PROGRESS_DIR
from objsub_fast.dataset.run.pipeline import generate, run_shard
from objsub_fast.dataset.content.shards import shard_at
from objsub_fast.dataset.check.verify import verify
from objsub_fast.runtime.errors import UsageError
from objsub_fast.storage.lease import LEASE, Lease, StoreLeased
from objsub_fast.storage.store import Store
from objsub_fast.storage.url import BACKENDS, is_url, local_path, typo_of

from filetree import objects_of_run, tree

CONFIGS = {
    "webdataset": RunConfig(count=7, shard_size=3, seed=5, masks=True),
    "webdataset-videos": RunConfig(count=5, shard_size=2, seed=5, videos=True, video_frames=9),
    "vmevalkit": RunConfig(count=7, shard_size=3, seed=5, format="vmevalkit"),
    "vmevalkit-videos": RunConfig(count=5, shard_size=2, seed=5, format="vmevalkit",
                                  videos=True, video_frames=9),
    "vbvr-tar": RunConfig(count=5, shard_size=2, seed=5, format="vbvr", video_frames=9),
    "vbvr-folders": RunConfig(count=5, shard_size=2, seed=5, format="vbvr", video_frames=9,
                              vbvr_pack="folders"),
    "vbvr-bench": RunConfig(count=5, shard_size=2, seed=5, format="vbvr-bench",
                            video_frames=9),
}


def store_tree(url: str) -> dict:
    """Every object under ``url`` of the in-memory store: key -> bytes."""
    fs = fsspec.filesystem("memory")
    root = fs._strip_protocol(url).rstrip("/")
    return {k[len(root) + 1:]: fs.cat_file(k) for k in fs.find(root)}


@pytest.fixture
def url(request):
    address = f"memory://test-storage/{request.node.name}"
    yield address
    keys = list(store_tree(address))
    if keys:
        Store(address).delete(keys)


@pytest.mark.parametrize("name", CONFIGS)
def test_memory_store_holds_the_bytes_of_a_local_run(name, url, tmp_path):
    generate(CONFIGS[name], tmp_path / "local", workers=1, quiet=True)
    manifest = generate(CONFIGS[name], url, workers=2, quiet=True)
    assert manifest["complete"] and manifest["tasks_written"] == CONFIGS[name].count
    objects = store_tree(url)
    assert objects == objects_of_run(tmp_path / "local")
    assert not any(k.startswith((PROGRESS_DIR, LEASE)) for k in objects)
    report = verify(url)
    assert report.ok, report.problems
    assert report.tasks == CONFIGS[name].count


def _hide_module(monkeypatch, name):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda mod, *a: None if mod == name else real(mod, *a))


@pytest.mark.parametrize("command", [["generate", "--out"], ["verify"]])
def test_url_without_backend_names_the_extra_and_writes_nothing(command, monkeypatch, tmp_path,
                                                                 capsys):
    # before: `generate --out s3://bucket/objsub` exited 0 with a local folder named "s3:"
    _hide_module(monkeypatch, "s3fs")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as e:
        main(command + ["s3://bucket/objsub", "--quiet"] + (["--count", "4"] if len(command) > 1
                                                              else []))
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    # the install command works from a checkout (the package is on no package index)
    assert err.count("\n") == 0 and 'pip install -e ".[s3]"' in err, err
    assert list(tmp_path.iterdir()) == []


def test_unsupported_scheme_and_bad_storage_options_are_usage_errors(tmp_path, monkeypatch,
                                                                     capsys):
    monkeypatch.chdir(tmp_path)
    for argv, words in ((["generate", "--out", "ftp://host/x"], "unsupported URL scheme 'ftp'"),
                        (["generate", "--out", "memory://x", "--storage-options", "[1]"],
                         "--storage-options: must be a JSON object")):
        with pytest.raises(SystemExit) as e:
            main(argv + ["--count", "4", "--quiet"])
        assert e.value.code == 2 and words in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_plain_paths_and_file_urls_stay_local_folders(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = RunConfig(count=3, shard_size=2)
    with pytest.raises(UsageError, match="did you mean 's3://'"):  # a mistyped URL?
        generate(config, "s3:", workers=1, quiet=True)
    generate(config, "./s3:", workers=1, quiet=True)  # a path, not a URL: a folder named "s3:"
    generate(config, f"file://{tmp_path}/via-url", workers=1, quiet=True)
    assert tree(tmp_path / "s3:") == tree(tmp_path / "via-url")


def test_resume_keeps_complete_shards_and_ends_with_the_same_bytes(url, tmp_path, monkeypatch):
    config = CONFIGS["vmevalkit"]
    generate(config, tmp_path / "local", workers=1, quiet=True)
    reference = objects_of_run(tmp_path / "local")
    written = []
    real = target_module.write_shard

    def crash_after_two(run_shard, config, store, shard, chunk_size):
        if len(written) == 2:
            raise KeyboardInterrupt
        written.append(shard.index)
        return real(run_shard, config, store, shard, chunk_size)

    monkeypatch.setattr(target_module, "write_shard", crash_after_two)
    with pytest.raises(KeyboardInterrupt):
        generate(config, url, workers=1, quiet=True)
    half = store_tree(url)
    assert json.loads(half[MANIFEST])["complete"] is False
    assert sorted(k for k in half if k.startswith(PROGRESS_DIR) and k.endswith(".json")) == \
        [f"{PROGRESS_DIR}/{k:06d}.json" for k in written]
    assert LEASE not in half  # released on the way out
    unfinished = verify(url)
    assert unfinished.problems[0].startswith(f"{MANIFEST}: the run is incomplete")
    assert f"finish it with: objsub-fast generate --out {url} " in unfinished.problems[0]
    monkeypatch.setattr(target_module, "write_shard", real)
    manifest = generate(config, url, workers=1, quiet=True)
    assert manifest["tasks_written"] == config.count - 2 * config.shard_size
    assert store_tree(url) == reference


def test_a_held_lease_refuses_a_second_run_and_can_be_taken_over(url):
    config = RunConfig(count=3, shard_size=2)
    store = Store(url)
    holder = json.dumps({"pid": 1, "host": "another-host", "started": "2026-01-01T00:00:00Z"})
    store.put_bytes(LEASE, holder.encode())
    with pytest.raises(StoreLeased, match="pid 1 on host another-host.*--take-over-lease"):
        generate(config, url, workers=1, quiet=True)
    assert set(store_tree(url)) == {LEASE}  # nothing written
    generate(config, url, workers=1, quiet=True, take_over_lease=True)
    assert LEASE not in store_tree(url) and verify(url).ok


def test_a_lease_of_a_dead_process_of_this_host_is_taken_over(url):
    import socket
    import subprocess
    import sys

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()
    Store(url).put_bytes(LEASE, json.dumps({"pid": int(dead), "host": socket.gethostname(),
                                            "started": "x"}).encode())
    generate(RunConfig(count=2, shard_size=2), url, workers=1, quiet=True)
    assert verify(url).ok


def test_a_store_that_ignores_create_only_writes_is_refused_and_left_clean(url, monkeypatch):
    # like gcp-storage-emulator: every create "succeeds", overwriting
    from objsub_fast.storage.lease import UNSAFE_ENV, LeaseUnsafe

    monkeypatch.delenv(UNSAFE_ENV, raising=False)
    monkeypatch.setattr(Store, "create", lambda self, rel, data: self.put_bytes(rel, data)
                        or True)
    with pytest.raises(LeaseUnsafe, match="does not honour create-only writes.*" + UNSAFE_ENV):
        generate(RunConfig(count=3, shard_size=2), url, workers=1, quiet=True)
    assert store_tree(url) == {}
    monkeypatch.setenv(UNSAFE_ENV, "1")  # one writer promised: the run goes ahead
    generate(RunConfig(count=3, shard_size=2), url, workers=1, quiet=True)
    assert "manifest.json" in store_tree(url) and LEASE not in store_tree(url)


def test_a_lease_that_reads_back_as_another_runs_is_refused(url, monkeypatch):
    # a racer overwrote it between the create and the read-back
    from objsub_fast.storage.lease import LeaseUnsafe

    store = Store(url)
    real = Store.create

    def create_then_overwritten(self, rel, data):
        made = real(self, rel, data)
        self.put_bytes(rel, b'{"pid": 7, "host": "other", "started": "x"}')
        return made

    monkeypatch.setattr(Store, "create", create_then_overwritten)
    with pytest.raises(LeaseUnsafe, match="reads back as another run's.*pid 7 on host other"):
        Lease(store).acquire()


def test_a_take_over_lost_to_another_run_stops_before_writing(url, monkeypatch):
    # both read the dead lease; the other run replaced it first: this one's conditional
    # replace fails, and the other's lease stays (before: deleted and replaced by this run's)
    holder = b'{"pid": 1, "host": "another-host", "started": "x"}'
    Store(url).put_bytes(LEASE, holder)
    real = Store.read_versioned
    other = b'{"pid": 2, "host": "third-host", "started": "y"}'

    def read_then_taken_over(self, rel):
        found = real(self, rel)
        if found[0] == holder:
            self.put_bytes(rel, other)
        return found

    monkeypatch.setattr(Store, "read_versioned", read_then_taken_over)
    with pytest.raises(StoreLeased, match="took over the dead lease at the same time.*pid 2"):
        generate(RunConfig(count=3, shard_size=2), url, workers=1, quiet=True,
                 take_over_lease=True)
    assert store_tree(url) == {LEASE: other}


def test_a_store_without_conditional_writes_refuses_a_take_over(url, monkeypatch):
    from objsub_fast.storage import conditional
    from objsub_fast.storage.lease import UNSAFE_ENV, LeaseUnsafe

    monkeypatch.delenv(UNSAFE_ENV, raising=False)
    monkeypatch.delitem(conditional.BACKENDS, "memory")
    store = Store(url)
    store.put_bytes(LEASE, b'{"pid": 1, "host": "another-host", "started": "x"}')
    with pytest.raises(LeaseUnsafe, match="no conditional writes.*" + UNSAFE_ENV) as e:
        Lease(store, take_over=True).acquire()
    assert "\n" not in str(e.value)
    monkeypatch.setenv(UNSAFE_ENV, "1")  # one writer promised: the old way
    Lease(store, take_over=True).acquire().release()
    assert store_tree(url) == {}


def test_two_leases_on_one_prefix_exclude_each_other(url):
    store = Store(url)
    with Lease(store):
        with pytest.raises(StoreLeased, match=f"pid {os.getpid()}"):
            Lease(store).acquire()
    Lease(store).acquire().release()


def test_verify_names_the_object_where_one_byte_changed(url):
    generate(RunConfig(count=6, shard_size=3), url, workers=1, quiet=True)
    store = Store(url)
    data = bytearray(store.read("objsub-000001.tar"))
    data[700] ^= 1
    store.put_bytes("objsub-000001.tar", bytes(data))
    report = verify(url)
    assert not report.ok
    assert all(p.startswith("objsub-000001.tar: ") for p in report.problems), report.problems
    assert any("sha256 differs" in p for p in report.problems)


def test_a_shard_is_uploaded_data_first_and_its_progress_record_last(url):
    config = CONFIGS["vbvr-tar"]
    order = []

    class Recording(Store):
        def put_files(self, files):
            order.append([key for _, key in files])
            super().put_files(files)

    entry = jobs_module.write_shard(run_shard, config, Recording(url),
                                    shard_at(1, config.count, config.shard_size), None)
    assert order == [[entry["name"]], [f"{PROGRESS_DIR}/000001.index"],
                     [f"{PROGRESS_DIR}/000001.json"]]


def test_a_different_configuration_is_refused_naming_the_url(url):
    generate(RunConfig(count=3, shard_size=2), url, workers=1, quiet=True)
    with pytest.raises(UsageError) as e:
        generate(RunConfig(count=3, shard_size=2, seed=9), url, workers=1, quiet=True)
    assert url in str(e.value) and "--seed (there: 0, now: 9)" in str(e.value)
    assert "objsub-view" not in str(e.value)


@pytest.mark.parametrize("name", [
    "objsub_fast.storage.url", "objsub_fast.storage.store", "objsub_fast.storage.lease",
    "objsub_fast.dataset.run.mirror", "objsub_fast.dataset.run.store_jobs", "objsub_fast.storage.transfer",
    "objsub_fast.storage.faults", "objsub_fast.storage.local_server",
    "objsub_fast.storage.serial_moto"])
def test_examples_run(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def test_preview_writes_its_sheet_to_a_store_url(url, tmp_path, capsys):
    assert main(["preview", str(tmp_path / "sheet.png"), "--count", "2"]) == 0
    assert main(["preview", f"{url}/sheets/sheet.png", "--count", "2"]) == 0
    assert f"wrote {url}/sheets/sheet.png" in capsys.readouterr().out
    assert store_tree(url) == {"sheets/sheet.png": (tmp_path / "sheet.png").read_bytes()}


def test_score_reads_questions_and_outputs_from_urls_and_writes_its_files_there(url, tmp_path,
                                                                                 capsys):
    import argparse

    from objsub_fast import generate_batch
    from objsub_fast.scoring import command, render_transition, write_video

    batch = generate_batch([3, 4], level=["L1", "L2"])
    videos = render_transition(batch, "fade", 8)
    for i in range(len(batch)):
        record = batch.task(i)
        question = tmp_path / "questions" / record["id"]
        question.mkdir(parents=True)
        (question / "question_metadata.json").write_text(json.dumps(record))
        (tmp_path / "outputs").mkdir(exist_ok=True)
        write_video(tmp_path / "outputs" / f"{record['id']}.mp4", videos[i])
    store = Store(url)
    store.put_files([(p, str(p.relative_to(tmp_path))) for p in sorted(tmp_path.rglob("*"))
                     if p.is_file()])

    def score(*argv):
        parser = argparse.ArgumentParser()
        command.add_arguments(parser)
        return command.run(parser.parse_args([*argv, "--no-progress", "--workers", "1"]))

    assert score("--questions", str(tmp_path / "questions"), "--outputs",
                 str(tmp_path / "outputs"), "--out", str(tmp_path / "local" / "s.jsonl")) == 0
    assert score("--questions", f"{url}/questions", "--outputs", f"{url}/outputs",
                 "--out", f"{url}/scores/s.jsonl") == 0
    out = capsys.readouterr().out
    assert f"{url}/scores/s.jsonl" in out and f"{url}/scores/s_summary.csv" in out, out
    local = [json.loads(line) for line in (tmp_path / "local" / "s.jsonl").read_text().splitlines()]
    stored = [json.loads(line) for line in store.read("scores/s.jsonl").decode().splitlines()]
    assert [r["output"] for r in stored] == [r["output"].replace(str(tmp_path), url)
                                              for r in local]
    assert [{**r, "output": None, "question": None} for r in stored] == \
        [{**r, "output": None, "question": None} for r in local]
    assert store.read("scores/s_summary.csv") == (tmp_path / "local" / "s_summary.csv").read_bytes()


@pytest.mark.parametrize("fmt", ["webdataset", "vmevalkit"])
def test_extend_and_overwrite_on_a_store_match_a_local_folder(fmt, url, tmp_path):
    small, large = RunConfig(count=5, shard_size=2, format=fmt), \
        RunConfig(count=9, shard_size=2, format=fmt)
    other = RunConfig(count=4, shard_size=2, seed=7, format=fmt)
    for out in (tmp_path / "local", url):
        generate(small, out, workers=1, quiet=True)
        extended = generate(large, out, workers=1, quiet=True)
        assert extended["tasks_written"] == 9 - 4  # the partial last shard is rewritten
    assert store_tree(url) == objects_of_run(tmp_path / "local")
    for out in (tmp_path / "local", url):
        generate(other, out, workers=1, quiet=True, overwrite=True)
    assert store_tree(url) == objects_of_run(tmp_path / "local")
    assert verify(url).ok


def test_an_object_the_project_did_not_write_is_kept(url):
    store = Store(url)
    store.put_bytes("notes/README.txt", b"mine")
    generate(RunConfig(count=3, shard_size=2), url, workers=1, quiet=True)
    generate(RunConfig(count=3, shard_size=2, seed=1), url, workers=1, quiet=True,
             overwrite=True)
    assert store.read("notes/README.txt") == b"mine"


def test_verify_of_an_unfinished_store_run_reads_a_shard_written_without_its_record(url,
                                                                                     tmp_path):
    # the same report as for the same state in a local folder
    config = RunConfig(count=6, shard_size=3)
    for out in (tmp_path / "local", url):
        generate(config, out, workers=1, quiet=True)
    store = Store(url)
    manifest = json.loads(store.read(MANIFEST))
    unfinished = json.dumps({**manifest, "complete": False, "shards": []}).encode()
    store.put_bytes(MANIFEST, unfinished)
    (tmp_path / "local" / MANIFEST).write_bytes(unfinished)
    local, stored = verify(tmp_path / "local"), verify(url)
    assert stored.tasks == local.tasks == 6
    assert [p.replace(str(tmp_path / "local"), url) for p in local.problems] == stored.problems


@given(st.text(min_size=1).filter(lambda t: "://" not in t and typo_of(t) is None))
def test_text_without_a_scheme_separator_is_a_local_path(text):
    assert not is_url(text) and local_path(text) == text


@given(st.sampled_from(sorted(BACKENDS) + ["file"]), st.sampled_from([":", ":/", "//"]),
       st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-._", min_size=1, max_size=12),
       st.booleans())
def test_a_mistyped_url_of_a_known_scheme_is_refused_with_the_url_it_meant(scheme, sep, rest,
                                                                           upper):
    # before: `az:/objsub/x` and `gs//objsub/x` wrote a local folder
    scheme = scheme.upper() if upper else scheme
    text = f"{scheme}{sep}{rest}/x"
    with pytest.raises(UsageError, match="mistyped URL: did you mean "
                       + re.escape(repr(f"{scheme}://{rest}/x"))):
        local_path(text, "--out")
    assert local_path("./" + text) == "./" + text  # the way to say "a folder of that name"


@pytest.mark.parametrize("command", [["generate", "--count", "4", "--out"], ["verify"],
                                     ["preview", "--out"]])
@pytest.mark.parametrize("text", ["az:/objsub/x", "gs//objsub/x", "s3:data"])
def test_the_commands_refuse_a_mistyped_url_and_write_nothing(command, text, tmp_path,
                                                              monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as e:
        main(command + [text, "--quiet"] if command[0] != "preview"
             else [command[0], text + ".png"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and err.count("\n") == 1 and "did you mean" in err, err
    assert list(tmp_path.iterdir()) == []


@given(st.sampled_from(sorted(BACKENDS)),
       st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-/._", max_size=30))
def test_every_store_scheme_is_a_url_and_never_a_local_path(scheme, rest):
    for url in (f"{scheme}://{rest}", f"{scheme.upper()}://{rest}"):
        assert is_url(url) and local_path(url) is None


def test_the_serialised_server_application_handles_one_request_at_a_time():
    import threading
    import time

    from objsub_fast.storage.serial_moto import serialised

    inside, most = [0], [0]

    def app(environ, start_response):
        inside[0] += 1
        most[0] = max(most[0], inside[0])
        time.sleep(0.01)
        inside[0] -= 1
        return iter([environ["PATH_INFO"].encode()])

    served = serialised(app)
    bodies = []
    threads = [threading.Thread(target=lambda i=i: bodies.append(served({"PATH_INFO": str(i)},
                                                                        None)))
               for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert most[0] == 1 and sorted(bodies) == [[str(i).encode()] for i in range(6)]
