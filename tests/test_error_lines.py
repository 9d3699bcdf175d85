"""Errors that say what and where, and keep secrets (issue 38): credential option values are
never echoed, malformed URLs and option types are one line with exit 2, a full disk names the
final path (and says when it is the inodes that ran out), and leaves no temp file."""
import errno
import os
from types import SimpleNamespace

import pytest

from objsub_fast.dataset.run import pipeline
from objsub_fast.runtime import atomic
from objsub_fast.runtime.atomic import TMP_PREFIX, atomic_write_bytes

from inprocess import run_cli


def cli(*args):
    """The command in this process: its exit status and error line are what is tested."""
    return run_cli(args)


@pytest.mark.parametrize("args, says", [
    (["--out", "s3://b/x", "--storage-options", '{"secret": "hunter2", "key": "AKIA'],
     "not valid JSON"),
    (["--out", "s3://b/x", "--storage-options", '["hunter2"]'], "it is a JSON list"),
    (["--out", "s3://", "--storage-options", '{"secret": "hunter2"}'], "names no bucket"),
    (["--out", "az://", "--storage-options", '{"account_key": "hunter2"}'], "names no bucket"),
    (["--out", "s3://b/x", "--storage-options", '{"endpoint_url": 5, "secret": "hunter2"}'],
     "'endpoint_url' must be a string"),
])
def test_a_bad_store_option_is_one_line_that_never_shows_a_secret(args, says):
    done = cli("generate", "--count", "2", "--quiet", *args)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and says in done.stderr, done.stderr
    assert "hunter2" not in done.stderr and "AKIA" not in done.stderr


def test_a_full_disk_names_the_final_path_and_leaves_no_temp_file(tmp_path, monkeypatch):
    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(atomic.os, "fsync", full)
    final = tmp_path / "manifest.json"
    with pytest.raises(OSError) as e:
        atomic_write_bytes(final, b"x" * 100)
    assert e.value.errno == errno.ENOSPC and e.value.filename == str(final)
    assert list(tmp_path.iterdir()) == []  # no .tmp-objsub-manifest.json.<host>.<pid>
    message = str(pipeline._resumable(e.value, tmp_path, 10 << 20, 5))
    assert str(final) in message and TMP_PREFIX not in message


def test_out_of_inodes_says_so_rather_than_asking_for_bytes(tmp_path, monkeypatch):
    monkeypatch.setattr(pipeline.os, "statvfs",
                        lambda path: SimpleNamespace(f_files=1000, f_favail=0))
    error = OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "a.tar"))
    message = str(pipeline._resumable(error, tmp_path, 51_700_000, 5))
    assert "no free inodes" in message and "a.tar" in message and "MB" not in message
