"""Object keys are someone else's text: downloading a store prefix (``fetched`` for
``score``/``preview``, the ``Mirror`` view and the shard jobs of ``generate``/``verify``)
writes nothing outside its folder, whatever the keys say (#44). A refused key is skipped with
one line on stderr naming it; the other objects are still fetched."""
import tempfile
from pathlib import Path

import fsspec
import pytest

from objsub_fast.dataset.run.mirror import Mirror
from objsub_fast.dataset.run.store_jobs import verify_store_shard
from objsub_fast.runtime.errors import UsageError
from objsub_fast.storage.store import Store
from objsub_fast.storage.transfer import fetched, safe_downloads, safe_key_path

GOOD = {"m/task_0001/video.mp4": b"good-1", "m/task_0002/video.mp4": b"good-2",
        "readme.txt": b"good-3"}


@pytest.fixture
def prefix(request, tmp_path, monkeypatch):
    """A memory:// prefix (removed after) and a scratch folder inside ``tmp_path`` for the
    temporary folders, so that every escape lands at a path the test can look at."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "scratch"))
    (tmp_path / "scratch").mkdir()
    url = f"memory://test-untrusted/{request.node.name}/outs"
    yield url
    fs = fsspec.filesystem("memory")
    for key in list(fs.store):
        if key.startswith(f"/test-untrusted/{request.node.name}/"):
            fs.store.pop(key)
    fs.pseudo_dirs[:] = [d for d in fs.pseudo_dirs
                         if not d.startswith(f"/test-untrusted/{request.node.name}")]


def put(url: str, keys: dict) -> None:
    """Write ``keys`` (key text as it follows the prefix -> bytes) under ``url`` as raw keys
    (``outs`` + ``//x`` makes the key ``/x``, as a hostile uploader could)."""
    fs = fsspec.filesystem("memory")
    for key, data in keys.items():
        fs.pipe(f"{url}/{key}", data)


def hostile_keys(tmp_path) -> dict:
    """Key -> the path outside the folder it would have written (None: a name that stays
    inside on Linux but is refused anyway). The fetched folder is
    ``tmp_path/scratch/objsub-fetched-*/outs``."""
    return {
        "m/../../../escaped-dotdot": tmp_path / "scratch" / "escaped-dotdot",
        "m/../../../../../" + tmp_path.name + "/escaped-deep": tmp_path / "escaped-deep",
        "/" + str(tmp_path / "escaped-absolute").lstrip("/"): tmp_path / "escaped-absolute",
        "m\\..\\..\\escaped-backslash": None,
        "C:/escaped-drive": None,
        "m//escaped-empty": None,
        "m/./escaped-dot": None,
        "m/escaped\x01control": None,
        "m/\x1b[31mescaped-escape": None,
    }


def test_hostile_keys_are_skipped_and_the_others_fetched(prefix, tmp_path, capsys):
    keys = hostile_keys(tmp_path)
    put(prefix, {**GOOD, **{k: b"attacker" for k in keys}})
    assert set(Store(prefix).listing()) == set(GOOD) | set(keys)  # what a listing returns
    with fetched(prefix, "--outputs") as folder:
        got = {str(p.relative_to(folder)): p.read_bytes()
               for p in folder.rglob("*") if p.is_file()}
        assert got == GOOD
        assert not any(b"attacker" in p.read_bytes()
                       for p in (tmp_path / "scratch").rglob("*") if p.is_file())
    for outside in keys.values():
        if outside is not None:
            assert not outside.exists(), outside
    assert not any(p.name.startswith("escaped") for p in tmp_path.rglob("*"))
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == len(keys)
    for key in keys:
        line = next(line for line in lines if repr(key) in line)
        assert "--outputs" in line and "skipped" in line
    assert all(line.isprintable() for line in lines)  # control characters escaped
    assert any("'..' segment" in line for line in lines)
    assert any("absolute path" in line for line in lines)
    assert any("backslash" in line for line in lines)
    assert any("drive letter" in line for line in lines)
    assert any("empty segment" in line for line in lines)
    assert any("control character" in line for line in lines)


def test_a_prefix_of_only_hostile_keys_is_a_usage_error_and_writes_nothing(prefix, tmp_path,
                                                                          capsys):
    put(prefix, {"m/../../../../escaped-only": b"attacker"})
    with pytest.raises(UsageError, match="none of its 1 objects"):
        with fetched(prefix, "--questions"):
            pass
    assert not (tmp_path / "escaped-only").exists()
    assert "'m/../../../../escaped-only'" in capsys.readouterr().err


def test_a_key_that_is_also_a_folder_of_other_keys_is_skipped(tmp_path, capsys):
    # (S3 holds both "m/a" and "m/a/b"; the memory store refuses to, so the pairs directly)
    pairs = safe_downloads(tmp_path, ["m/a", "m/a/b", "m/c"], "--outputs s3://b/outs")
    assert [k for k, _ in pairs] == ["m/a/b", "m/c"]
    err = capsys.readouterr().err
    assert "'m/a' skipped" in err and "folder of other objects" in err


@pytest.mark.parametrize("key", ["..", "a/..", "a/../b", "/etc/passwd", "a//b", "a/", "",
                                 "a\\b", "C:", "c:x/y", "a/\0", "a/\x7f", "a\udcff",
                                 "a/" + "x" * 256])
def test_safe_key_path_refuses(key, tmp_path):
    with pytest.raises(ValueError):
        safe_key_path(tmp_path, key)


@pytest.mark.parametrize("key", ["a", "a/b.mp4", "m/task_0001/video.mp4", "...", "a..b",
                                 "modèle/vidéo.mp4", "a b/cd:e", "x" * 255])
def test_safe_key_path_keeps_ordinary_keys(key, tmp_path):
    assert safe_key_path(tmp_path, key) == tmp_path / key


def test_a_symbolic_link_on_the_way_is_refused(tmp_path):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "link").symlink_to(tmp_path)
    with pytest.raises(ValueError, match="outside the folder"):
        safe_key_path(tmp_path / "in", "link/escaped")


def test_the_mirror_view_of_a_store_writes_nothing_outside(prefix, tmp_path, capsys):
    put(prefix, {"manifest.json": b"{}", "objsub-000000.tar": b"tar",
                 "a/../../escaped-placeholder": b"x" * 9,   # shard data: a placeholder
                 "../escaped-small": b"attacker"})          # downloaded
    view = Mirror(Store(prefix), tmp_path / "mirror" / "view")
    listing = view.pull()
    assert set(listing) == {"manifest.json", "objsub-000000.tar"}
    assert (view.folder / "manifest.json").read_bytes() == b"{}"
    assert not (tmp_path / "mirror" / "escaped-placeholder").exists()
    assert not (tmp_path / "mirror" / "escaped-small").exists()
    assert capsys.readouterr().err.count("skipped") == 2


def test_a_shard_job_downloads_only_keys_inside_its_scratch_folder(prefix, tmp_path, capsys):
    put(prefix, {"objsub-000000.tar": b"tar", "../../escaped-job": b"attacker"})
    def files_seen(scratch, *args, **kwargs):
        return sorted(str(p.relative_to(scratch)) for p in Path(scratch).rglob("*"))

    seen = verify_store_shard(files_seen, Store(prefix), ["objsub-000000.tar",
                                                          "../../escaped-job"], None, None, None)
    assert seen == ["objsub-000000.tar"]
    assert not (tmp_path / "escaped-job").exists()
    assert "'../../escaped-job' skipped" in capsys.readouterr().err


def test_safe_downloads_keeps_the_order_and_skips_folder_markers(tmp_path, capsys):
    pairs = safe_downloads(tmp_path, ["b", "a/", "a/c", "d"], "--in x")
    assert pairs == [("b", tmp_path / "b"), ("a/c", tmp_path / "a" / "c"),
                     ("d", tmp_path / "d")]
    assert capsys.readouterr().err == ""
