"""Datasets on object storage (S3, GCS, Azure Blob, ``memory://``) through fsspec.

An output given as a URL (``s3://bucket/prefix``) is written with the same commit rules as a
local folder, on a store that has no rename and no ``flock``:

- ``url``: which URLs are stores, and the fsspec backend (and pip extra) each needs;
- ``store``: one prefix of a store: list, upload (one PUT, or a multipart upload completed at
  the end), download, delete, exclusive create, abort stale multipart uploads;
- ``lease``: the object that keeps two runs out of one prefix (the store's ``flock``);
- ``transfer``: whole inputs and outputs of ``preview`` and ``score`` downloaded or uploaded;
- ``faults``: a store that cannot be used (credentials, permissions, endpoint, bucket) said in
  one line naming the store and the fault; the store clients' logs kept off the terminal;
- ``local_server``, ``local_s3``, ``local_gcs``, ``local_azure``: the stores' emulators on
  this machine (moto, gcp-storage-emulator, Azurite), for tests and benchmarks.

The dataset's side of a store (the run's local view of a prefix, the output target, the
workers' jobs) is in ``objsub_fast.dataset`` (``mirror``, ``target``, ``store_jobs``): this
package imports nothing of the dataset. The user documentation is docs/object_storage.md.
"""
from .url import is_url, parse_storage_options

__all__ = ["is_url", "parse_storage_options"]
