"""VBVR's index of a dataset: ``data/metadata.jsonl`` always and ``data/metadata.parquet`` with
``RunConfig.vbvr_parquet`` (pyarrow, the ``[vbvr]`` extra), one row per sample with VBVR's
columns :data:`INDEX_COLUMNS`. The format keeps each shard's rows in the run's progress folder;
:func:`write_index` joins them at the end of the run, and :func:`check_index` checks the index
``verify`` finds against the rows the seeds give (each shard reader's ``summary``).
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from ....runtime.atomic import AtomicWriter, fsync_dir, tmp_path
from ....runtime.jsonfile import loads as loads_json
from ....runtime.links import NOFOLLOW, inside, refuse_links

__all__ = ["INDEX_COLUMNS", "INDEX_JSONL", "INDEX_PARQUET", "row_line", "write_index",
           "read_rows", "check_index"]

INDEX_COLUMNS = ("id", "generator", "task", "sample_id", "prompt", "metadata_json",
                 "first_frame_path", "final_frame_path", "ground_truth_video_path", "tar_file")
INDEX_JSONL = "data/metadata.jsonl"
INDEX_PARQUET = "data/metadata.parquet"
#: The index columns that name files (each must stay inside the dataset).
_PATH_COLUMNS = ("first_frame_path", "final_frame_path", "ground_truth_video_path", "tar_file")


def row_line(row: dict) -> bytes:
    """One index row as a line of ``metadata.jsonl`` (with its newline)."""
    return json.dumps(row).encode() + b"\n"


def _parquet_rows(lines):
    """Index rows (dicts) of JSONL lines, as a pyarrow table with VBVR's column types."""
    import pyarrow as pa

    rows = [loads_json(line) for line in lines]
    schema = pa.schema([("id", pa.int64())] + [(c, pa.string()) for c in INDEX_COLUMNS[1:]])
    return pa.Table.from_pylist(rows, schema=schema)


def _write_parquet_to(sink, shards) -> None:
    """Write ``metadata.parquet`` into ``sink`` (a binary file), one row group per shard;
    ``shards`` yields each shard's index lines (JSONL bytes, or a list of lines)."""
    import pyarrow.parquet as pq

    writer = None
    for data in shards:
        lines = data if isinstance(data, list) else (data.split(b"\n") if data else [])
        table = _parquet_rows(lines)
        writer = writer or pq.ParquetWriter(sink, table.schema)
        writer.write_table(table)
    writer.close()


def _write_parquet(final: Path, files: list[Path]) -> None:
    """``metadata.parquet`` from the shards' index rows, one row group per shard (memory
    stays one shard's rows), written under a temp name and renamed."""
    tmp = tmp_path(final)
    try:
        with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | NOFOLLOW, 0o644),
                       "wb") as f:
            _write_parquet_to(f, (p.read_bytes() for p in files))
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    os.replace(tmp, final)
    fsync_dir(final.parent)


def _compare_rows(name: str, lines: list[bytes], plan, summaries: dict, problems) -> bool:
    """Compare each shard's index lines with the rows the seeds give (the shard readers'
    ``summary``); add one problem per differing shard; whether all are the same."""
    right = True
    for shard in plan:
        got = hashlib.sha256(b"".join(lines[shard.start:shard.stop])).hexdigest()
        if summaries.get(shard.index) not in (None, got):
            right = False
            problems.append(f"{name}: rows {shard.start}-{shard.stop - 1} differ from the "
                            "rows the seeds give")
    return right


def _check_parquet(out: Path, lines, plan, summaries: dict, problems) -> None:
    """``metadata.parquet``: its rows against the seeds' (as ``_compare_rows``), then its
    bytes against the file the (right) JSONL rows give."""
    try:
        import pyarrow.parquet as pq

        table = pq.read_table(out / INDEX_PARQUET)
        rows = [row_line(r) for r in table.to_pylist()]
    except ImportError:
        problems.append(f"{INDEX_PARQUET}: not checked: pyarrow (the [vbvr] extra) is not "
                        "installed")
        return
    except Exception as e:  # noqa: BLE001 - pyarrow's many errors for a damaged file
        problems.append(f"{INDEX_PARQUET}: cannot be read: {type(e).__name__}: {e}")
        return
    if not _compare_rows(INDEX_PARQUET, rows, plan, summaries, problems) or lines is None:
        return
    sink = _HashSink()
    _write_parquet_to(sink, ([line.rstrip(b"\n") for line in lines[s.start:s.stop]]
                             for s in plan))
    with open(out / INDEX_PARQUET, "rb") as f:
        actual = hashlib.file_digest(f, "sha256").hexdigest()
    if sink.sha.hexdigest() != actual:
        problems.append(f"{INDEX_PARQUET}: its rows are right but its bytes differ from the "
                        "file those rows give")


class _HashSink:
    """A write-only file that keeps only the SHA-256 of what is written (pyarrow's sink)."""

    closed = False

    def __init__(self):
        self.sha, self.size = hashlib.sha256(), 0

    def write(self, data) -> int:
        self.sha.update(data)
        self.size += len(data)
        return len(data)

    def tell(self) -> int:
        return self.size

    def flush(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True

    def writable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False


def write_index(out: Path, files: list[Path], parquet: bool) -> None:
    """``data/metadata.jsonl`` (and with ``parquet`` ``.parquet``) in ``out`` from the shards'
    row ``files`` (JSONL bytes each), in shard order."""
    (out / "data").mkdir(exist_ok=True)
    refuse_links(out, [out / INDEX_JSONL, out / INDEX_PARQUET])
    with AtomicWriter(out / INDEX_JSONL) as jsonl:
        for p in files:
            data = p.read_bytes()
            jsonl.write(data + b"\n" if data else b"")
    if parquet:
        _write_parquet(out / INDEX_PARQUET, files)


def read_rows(out: Path) -> list:
    """The rows of ``data/metadata.jsonl`` in ``out`` (OSError or ValueError if it is missing
    or unreadable)."""
    return [loads_json(line) for line in (out / INDEX_JSONL).read_text().splitlines()]


def check_index(config, out: Path, rows: list, plan, summaries: dict, tars: set) -> list[str]:
    """The index's problems: ``rows`` (:func:`read_rows`) of the wrong ids, not objects, naming
    files outside the dataset or that do not exist (``tars``: the plan's tar shards); a shard's
    rows unlike those the seeds give (``summaries``); and the same of the parquet file."""
    problems = []
    if [r.get("id") for r in rows] != list(range(config.count)):
        problems.append(f"{INDEX_JSONL}: {len(rows)} rows, expected ids 0..{config.count - 1}")
    for n, r in enumerate(rows):
        if not isinstance(r, dict):
            problems.append(f"{INDEX_JSONL}: row {n}: not a JSON object")
            continue
        outside = [f"{k} {r[k]!r}" for k in _PATH_COLUMNS if r.get(k) and not inside(r[k])]
        if outside:
            problems.append(f"{INDEX_JSONL}: row {n}: {', '.join(outside)} points outside "
                            "the dataset")
            continue
        tar = r.get("tar_file")
        where = out / tar if tar else out / str(r.get("first_frame_path"))
        if (tar and tar not in tars) or not where.exists():
            problems.append(f"{INDEX_JSONL}: row {n}: {where.relative_to(out)} "
                            "does not exist")
    lines = (out / INDEX_JSONL).read_bytes().splitlines(keepends=True)
    jsonl_right = _compare_rows(INDEX_JSONL, lines, plan, summaries, problems)
    if config.vbvr_parquet:
        _check_parquet(out, lines if jsonl_right else None, plan, summaries, problems)
    return problems
