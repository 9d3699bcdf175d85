"""A real S3 endpoint on this machine, for tests and benchmarks: moto's S3 server (the
``test`` extra) on 127.0.0.1 and a free port, in a child process.

Examples
--------
>>> from objsub_fast.storage.store import Store
>>> server = LocalS3()  # doctest: +SKIP
>>> server.client().create_bucket(Bucket="bench")  # doctest: +SKIP
>>> Store("s3://bench/run", server.options)  # doctest: +SKIP
>>> server.stop()  # doctest: +SKIP
"""
from __future__ import annotations

import sys

from .local_server import LocalServer

__all__ = ["CREDENTIALS", "LocalS3"]

CREDENTIALS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
               "AWS_DEFAULT_REGION": "us-east-1"}



class LocalS3(LocalServer):
    """moto's S3 server on a free port, one request at a time (``serial_moto``: S3's
    conditional writes are atomic, moto's threaded server's are not). ``env`` points the AWS
    SDKs (and so the command line) at it through ``AWS_ENDPOINT_URL``; ``options`` are the
    same settings as fsspec ``storage_options``. ``min_part_size`` lowers the server's
    smallest multipart part (S3's is 5 MiB), so that tests can make multipart uploads of
    small files.
    ``authenticate``: the server checks credentials (moto's IAM, where no key exists, so
    every request is refused as S3 refuses a wrong key)."""

    def __init__(self, min_part_size: int | None = None, authenticate: bool = False):
        env = {"S3_UPLOAD_PART_MIN_SIZE": str(min_part_size)} if min_part_size else {}
        if authenticate:
            env["INITIAL_NO_AUTH_ACTION_COUNT"] = "0"
        super().__init__("moto server", [sys.executable, "-m", f"{__package__}.serial_moto",
                                         "127.0.0.1", "{port}"],
                         "http://127.0.0.1:{port}/moto-api/", env)
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.env = {**CREDENTIALS, "AWS_ENDPOINT_URL": self.endpoint}
        self.options = {"endpoint_url": self.endpoint, "key": "testing", "secret": "testing"}

    def client(self):
        """A boto3 S3 client of the server."""
        import boto3

        return boto3.client("s3", endpoint_url=self.endpoint, aws_access_key_id="testing",
                            aws_secret_access_key="testing", region_name="us-east-1")
