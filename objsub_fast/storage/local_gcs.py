"""A GCS endpoint on this machine, for tests and benchmarks: gcp-storage-emulator
(``pip install gcp-storage-emulator``) on 127.0.0.1 and a free port, in memory.

gcsfs finds it through ``STORAGE_EMULATOR_HOST`` (``env``) or the ``endpoint_url`` and
``token`` storage options (``options``). ``GCSFS_EXPERIMENTAL_ZB_HNS_SUPPORT=false`` is part of
``env``: without it gcsfs asks the emulator, on each call, whether the bucket is zonal or
hierarchical and retries for about a minute before going on (``NO_GCE_CHECK=true`` keeps
google-auth from looking for a Compute Engine metadata server). The emulator does not honour
create-only writes (``ifGenerationMatch=0``): objsub-fast's lease refuses it (see
docs/object_storage.md).

Examples
--------
>>> server = LocalGCS()  # doctest: +SKIP
>>> server.create_bucket("bench")  # doctest: +SKIP
>>> server.stop()  # doctest: +SKIP
"""
from __future__ import annotations

import json
import sys
import urllib.request

from .local_server import LocalServer

__all__ = ["LocalGCS", "ZB_HNS_ENV", "NO_GCE_ENV"]

#: gcsfs's switch of its zonal/hierarchical-bucket probe (off against an emulator).
ZB_HNS_ENV = {"GCSFS_EXPERIMENTAL_ZB_HNS_SUPPORT": "false"}
#: No probing of the Compute Engine metadata server (off this machine) for credentials.
NO_GCE_ENV = {"NO_GCE_CHECK": "true"}


class LocalGCS(LocalServer):
    """``gcp-storage-emulator start`` on a free port (see the module doc)."""

    def __init__(self):
        super().__init__("gcp-storage-emulator", [
            sys.executable, "-c", "from gcp_storage_emulator.__main__ import main; main()",
            "start", "--host", "127.0.0.1", "--port", "{port}", "--in-memory", "--quiet"],
            "http://127.0.0.1:{port}/storage/v1/b?project=test")
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.env = {"STORAGE_EMULATOR_HOST": self.endpoint, **ZB_HNS_ENV, **NO_GCE_ENV}
        self.options = {"endpoint_url": self.endpoint, "token": "anon"}

    def create_bucket(self, name: str) -> None:
        """Create bucket ``name`` (the emulator's JSON API)."""
        request = urllib.request.Request(
            f"{self.endpoint}/storage/v1/b?project=test", method="POST",
            data=json.dumps({"name": name}).encode(),
            headers={"Content-Type": "application/json"})
        urllib.request.urlopen(request, timeout=10).close()
