"""An Azure Blob endpoint on this machine, for tests and benchmarks: Azurite
(``npm install -g azurite``) on 127.0.0.1 and a free port, in memory.

adlfs finds it through ``AZURE_STORAGE_CONNECTION_STRING`` (``env``) or the
``connection_string`` storage option (``options``). Azurite refuses the API version of a
current azure-storage-blob unless started with ``--skipApiVersionCheck``, as here. The account
is Azurite's documented development account (``devstoreaccount1`` and its published key).

Examples
--------
>>> server = LocalAzurite()  # doctest: +SKIP
>>> server.create_container("bench")  # doctest: +SKIP
>>> server.stop()  # doctest: +SKIP
"""
from __future__ import annotations

from .local_server import LocalServer

__all__ = ["ACCOUNT", "ACCOUNT_KEY", "LocalAzurite"]

#: Azurite's development account and its published key (the same in every installation).
ACCOUNT = "devstoreaccount1"
ACCOUNT_KEY = ("Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/"
               "K1SZFPTOtr/KBHBeksoGMGw==")


class LocalAzurite(LocalServer):
    """``azurite-blob`` on a free port (see the module doc)."""

    def __init__(self):
        super().__init__("Azurite", [
            "azurite-blob", "--blobHost", "127.0.0.1", "--blobPort", "{port}",
            "--inMemoryPersistence", "--skipApiVersionCheck", "--silent",
            "--disableTelemetry"],
            f"http://127.0.0.1:{{port}}/{ACCOUNT}?comp=list")
        self.endpoint = f"http://127.0.0.1:{self.port}/{ACCOUNT}"
        self.connection_string = self.connection_string_with(ACCOUNT_KEY)
        self.env = {"AZURE_STORAGE_CONNECTION_STRING": self.connection_string}
        self.options = {"connection_string": self.connection_string}

    def connection_string_with(self, key: str) -> str:
        """The connection string of the server's account with another ``key`` (a wrong key
        for tests)."""
        return (f"DefaultEndpointsProtocol=http;AccountName={ACCOUNT};AccountKey={key};"
                f"BlobEndpoint={self.endpoint};")

    def create_container(self, name: str) -> None:
        """Create container ``name``."""
        from azure.storage.blob import BlobServiceClient

        BlobServiceClient.from_connection_string(self.connection_string) \
            .create_container(name)
