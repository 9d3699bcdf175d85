"""A real S3 endpoint on this machine, for tests and benchmarks: moto's S3 server
(``pip install "moto[server]"``) on 127.0.0.1 and a free port, in a child process.

Examples
--------
>>> from objsub_fast.storage.store import Store
>>> server = LocalS3()  # doctest: +SKIP
>>> server.client().create_bucket(Bucket="bench")  # doctest: +SKIP
>>> Store("s3://bench/run", server.options)  # doctest: +SKIP
>>> server.stop()  # doctest: +SKIP
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request

__all__ = ["CREDENTIALS", "LocalS3"]

CREDENTIALS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
               "AWS_DEFAULT_REGION": "us-east-1"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LocalS3:
    """``python -m moto.server`` on a free port. ``env`` points the AWS SDKs (and so the
    command line) at it through ``AWS_ENDPOINT_URL``; ``options`` are the same settings as
    fsspec ``storage_options``. ``min_part_size`` lowers the server's smallest multipart
    part (S3's is 5 MiB), so that tests can make multipart uploads of small files."""

    def __init__(self, min_part_size: int | None = None):
        self.port = _free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.env = {**CREDENTIALS, "AWS_ENDPOINT_URL": self.endpoint}
        self.options = {"endpoint_url": self.endpoint, "key": "testing", "secret": "testing"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env={**os.environ, **({"S3_UPLOAD_PART_MIN_SIZE": str(min_part_size)}
                                  if min_part_size else {})})
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(self.endpoint + "/moto-api/", timeout=2)
                break
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError("moto server did not start")
                time.sleep(0.2)

    def client(self):
        """A boto3 S3 client of the server."""
        import boto3

        return boto3.client("s3", endpoint_url=self.endpoint, aws_access_key_id="testing",
                            aws_secret_access_key="testing", region_name="us-east-1")

    def stop(self) -> None:
        """Stop the server."""
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
