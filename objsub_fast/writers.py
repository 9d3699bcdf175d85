"""Dataset writers: WebDataset tar shards, VMEvalKit task folders, and the manifest.

Both writers take a shard's tasks chunk by chunk (an engine batch plus the index of its first
task), encode them (``objsub_fast.png``), and make the shard appear under its final name only
when complete (``objsub_fast.atomic``). Every byte written is a pure function of the run
configuration, so reruns, worker counts and chunk sizes give identical files.
"""
from __future__ import annotations

import errno
import hashlib
import json
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from . import png
from .atomic import AtomicWriter, remove_path, tmp_name
from .shards import Shard, task_key

#: VMEvalKit's folder for this domain, its master dataset file, and the dataset name.
VMEVAL_TASK_DIR = "object_subtraction_task"
VMEVAL_DATASET_FILE = "vmeval_dataset.json"
DATASET_NAME = "object_subtraction_tasks"
#: ``created_at`` of every pair: fixed, so that files stay byte-reproducible.
CREATED_AT = "1970-01-01T00:00:00+00:00"
MANIFEST = "manifest.json"

#: Sample members: WebDataset suffix -> VMEvalKit file name. Sorted by suffix = tar order.
MEMBERS = {
    "final.png": "final_frame.png",
    "first.png": "first_frame.png",
    "json": "question_metadata.json",
    "mask.png": "instance_map.png",
    "txt": "prompt.txt",
}


def shard_filename(fmt: str, k: int) -> str:
    """Final name of shard ``k`` of format ``fmt`` (inside the output folder)."""
    return f"objsub-{k:06d}.tar" if fmt == "webdataset" else f"{VMEVAL_TASK_DIR}/shard-{k:06d}"


def vmeval_pair(record: dict) -> dict:
    """VMEvalKit task pair (question_metadata.json) for an engine task record."""
    tid = record["id"]
    pair = {
        "id": tid,
        "prompt": record["prompt"],
        "first_image_path": f"{VMEVAL_TASK_DIR}/{tid}/{MEMBERS['first.png']}",
        "final_image_path": f"{VMEVAL_TASK_DIR}/{tid}/{MEMBERS['final.png']}",
        "task_category": record["task_category"],
        "level": record["level"],
        "object_subtraction_data": record["object_subtraction_data"],
        "difficulty": record["difficulty"],
        "created_at": CREATED_AT,
    }
    pair.update({k: v for k, v in record.items() if k not in pair})
    return pair


_COMPACT = json.JSONEncoder(separators=(",", ":"), check_circular=False)
_SPACED = json.JSONEncoder(check_circular=False)


def dump_meta(meta: dict, fmt: str) -> bytes:
    """Serialized per-task JSON on one line (the C encoder; ``indent`` would be ~8x slower).

    VMEvalKit's question_metadata.json uses the default separators, so the same bytes serve as
    the task's line in ``vmeval_dataset.json``; WebDataset records are compact.
    """
    return (_SPACED if fmt == "vmevalkit" else _COMPACT).encode(meta).encode()


def encode_samples(batch, first_index: int, fmt: str, masks: bool) -> list[dict]:
    """Encode every task of an engine batch into its sample members.

    Returns
    -------
    list of dict
        Per task, suffix (see ``MEMBERS``) -> bytes, plus ``"__key__"`` (WebDataset key)
        and ``"__id__"`` (task id).
    """
    firsts = png.encode_batch(batch.first_frames)
    finals = png.encode_batch(batch.final_frames)
    maps = png.encode_batch(batch.instance_maps) if masks else None
    samples = []
    for i in range(len(batch)):
        record = batch.task(i)
        record["task_index"] = first_index + i
        meta = vmeval_pair(record) if fmt == "vmevalkit" else record
        sample = {"__key__": task_key(first_index + i), "__id__": record["id"],
                  "first.png": firsts[i], "final.png": finals[i],
                  "txt": record["prompt"].encode(), "json": dump_meta(meta, fmt)}
        if masks:
            sample["mask.png"] = maps[i]
        samples.append(sample)
    return samples


# --------------------------------------------------------------------------- tar

_TAR_BLOCK = 512


def _tar_template() -> tuple[bytearray, int]:
    h = bytearray(_TAR_BLOCK)
    for off, field in ((100, b"0000644\0"), (108, b"0000000\0"), (116, b"0000000\0"),
                       (136, b"00000000000\0"), (148, b" " * 8), (156, b"0"),
                       (257, b"ustar\x0000")):
        h[off:off + len(field)] = field
    return h, sum(h)


_TAR_TEMPLATE, _TAR_TEMPLATE_SUM = _tar_template()


_PADDING = [b"\0" * n for n in range(_TAR_BLOCK)]


def tar_parts(name: str, data: bytes) -> tuple[bytes, bytes, bytes]:
    """One ustar member as (header, data, zero padding); mode 0644, uid/gid 0, mtime 0."""
    bname = name.encode()
    if len(bname) > 100:
        raise ValueError(f"tar member name longer than 100 bytes: {name!r}")
    h = bytearray(_TAR_TEMPLATE)
    h[:len(bname)] = bname
    size = b"%011o\0" % len(data)
    h[124:136] = size
    h[148:156] = b"%06o\0 " % (_TAR_TEMPLATE_SUM + sum(bname) + sum(size))
    return bytes(h), data, _PADDING[-len(data) % _TAR_BLOCK]


def tar_member(name: str, data: bytes) -> bytes:
    """One ustar member as a single byte string (see ``tar_parts``)."""
    return b"".join(tar_parts(name, data))


TAR_END = b"\0" * (2 * _TAR_BLOCK)


def sample_members(sample: dict) -> list[tuple[str, bytes]]:
    """(member name, bytes) of one sample, in sorted (deterministic) order."""
    key = sample["__key__"]
    return [(f"{key}.{suffix}", sample[suffix]) for suffix in MEMBERS if suffix in sample]


class WebDatasetShardWriter:
    """Streams one shard into ``objsub-{k:06d}.tar``; renamed into place by ``finish``."""

    fmt = "webdataset"

    def __init__(self, out: Path, shard: Shard, masks: bool):
        self.out, self.shard, self.masks = Path(out), shard, masks
        self.final = self.out / shard_filename(self.fmt, shard.index)
        self._file = AtomicWriter(self.final)
        self.count = 0

    def __enter__(self):
        self._file.__enter__()
        return self

    def write_batch(self, batch, first_index: int) -> None:
        """Encode and append a chunk of tasks."""
        parts = []
        for sample in encode_samples(batch, first_index, self.fmt, self.masks):
            for name, data in sample_members(sample):
                parts.extend(tar_parts(name, data))
        self._file.write(b"".join(parts))
        self.count += len(batch)

    def finish(self) -> dict:
        """Close the archive, rename it into place, and return the shard's manifest entry."""
        self._file.write(TAR_END)
        self._file.__exit__(None, None, None)
        return shard_entry(self.shard, self.final.name, self.count, self._file.hexdigest(),
                           self._file.size)

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None:
            self._file.__exit__(exc_type, exc, tb)


# --------------------------------------------------------------------------- vmevalkit

def folder_digest(sha, task_id: str, files: list[tuple[str, bytes]]) -> None:
    """Feed one task folder (file name, bytes; sorted by name) into a shard hash."""
    for name, data in files:
        sha.update(b"%s/%s\0%d\0" % (task_id.encode(), name.encode(), len(data)))
        sha.update(data)


def folder_files(sample: dict) -> list[tuple[str, bytes]]:
    """(file name, bytes) of one VMEvalKit task folder, sorted by file name."""
    return sorted((MEMBERS[s], sample[s]) for s in MEMBERS if s in sample)


#: Flags that create a new file for writing (never reuse an existing one).
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)


def write_file(dir_fd: int, name: str, data: bytes) -> None:
    """Create ``name`` (relative to the open folder ``dir_fd``) holding ``data``.

    Three system calls (open, write, close): ``open()`` would add fstat, ioctl and lseek,
    which cost as much as the create itself on a virtual disk. Not flushed; the writer syncs
    a chunk's folders before renaming them.
    """
    fd = os.open(name, _CREATE, 0o644, dir_fd=dir_fd)
    try:
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            if written == 0:
                raise OSError(errno.ENOSPC, f"no progress writing {name}")
            view = view[written:]
    finally:
        os.close(fd)


class VMEvalKitShardWriter:
    """Writes one shard's tasks as VMEvalKit folders, each renamed into place when complete.

    A chunk's folders are written under temp names, flushed with one ``os.sync()`` (a per-file
    fsync costs ~0.4 ms here) and then renamed. The shard hash covers every folder's files.

    The file-system work of chunk k runs on one I/O thread while the caller encodes chunk
    k + 1 (the system calls, ISA-L and the PNG filter release the GIL). At most one chunk is in
    flight, so memory stays bounded. Paths are resolved relative to an open descriptor of the
    task root, so a task costs the minimum of system calls: mkdir, four (open, write, close),
    rename.
    """

    fmt = "vmevalkit"

    def __init__(self, out: Path, shard: Shard, masks: bool):
        self.out, self.shard, self.masks = Path(out), shard, masks
        self.root = self.out / VMEVAL_TASK_DIR
        self.root.mkdir(parents=True, exist_ok=True)
        self.sha = hashlib.sha256()
        self.count = self.size = 0
        self.pairs: list[bytes] = []
        self._pending: list[str] = []
        self._root_fd = -1
        self._io = None
        self._in_flight = None

    def __enter__(self):
        self._root_fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY)
        self._io = ThreadPoolExecutor(max_workers=1, thread_name_prefix="objsub-folders")
        return self

    def write_batch(self, batch, first_index: int) -> None:
        """Encode a chunk of tasks and hand their folders to the I/O thread."""
        folders = []
        for sample in encode_samples(batch, first_index, self.fmt, self.masks):
            tid, files = sample["__id__"], folder_files(sample)
            folder_digest(self.sha, tid, files)
            self.size += sum(len(d) for _, d in files)
            self.pairs.append(sample["json"])
            folders.append((tid, files))
        self._wait()
        self._in_flight = self._io.submit(self._write_folders, folders)
        self.count += len(batch)

    def _write_folders(self, folders: list[tuple[str, list]]) -> None:
        """Write folders under temp names, flush them, rename them into place (I/O thread).

        A folder already under its final name was completed by an interrupted earlier run with
        the same bytes; the rename then fails with ENOTEMPTY and the new copy is dropped. (No
        existence check per task: it would cost a lookup on every task of every fresh run.)
        """
        moves, root_fd = [], self._root_fd
        for tid, files in folders:
            tmp = tmp_name(tid)
            self._pending.append(tmp)
            os.mkdir(tmp, dir_fd=root_fd)
            for name, data in files:
                write_file(root_fd, f"{tmp}/{name}", data)
            moves.append((tmp, tid))
        os.sync()
        for tmp, tid in moves:
            try:
                os.rename(tmp, tid, src_dir_fd=root_fd, dst_dir_fd=root_fd)
            except OSError as e:
                if e.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                    raise
                remove_path(self.root / tmp)
        os.fsync(root_fd)
        self._pending.clear()

    def _wait(self) -> None:
        """Wait for the chunk in flight; re-raise what it raised."""
        future, self._in_flight = self._in_flight, None
        if future is not None:
            future.result()

    def finish(self) -> dict:
        """Wait for the last chunk; return the shard's manifest entry."""
        self._wait()
        return shard_entry(self.shard, shard_filename(self.fmt, self.shard.index), self.count,
                           self.sha.hexdigest(), self.size)

    def __exit__(self, exc_type, exc, tb):
        self._io.shutdown(wait=True)  # the chunk in flight ends first, whatever happens
        try:
            if exc_type is None:
                self._wait()  # raises an error of the last chunk if finish() was not called
        except BaseException:
            exc_type = BaseException
            raise
        finally:
            if exc_type is not None:
                for tmp in self._pending:
                    remove_path(self.root / tmp)
            os.close(self._root_fd)


WRITERS = {w.fmt: w for w in (WebDatasetShardWriter, VMEvalKitShardWriter)}
FORMATS = tuple(WRITERS)


def shard_entry(shard: Shard, name: str, count: int, sha256: str, nbytes: int) -> dict:
    """Manifest entry of one complete shard."""
    return {"shard": shard.index, "name": name, "start": shard.start, "stop": shard.stop,
            "count": count, "sha256": sha256, "bytes": nbytes}


def manifest_bytes(config: dict, shards: list[dict], complete: bool) -> bytes:
    """Serialized ``manifest.json``: configuration, completeness, shard entries."""
    doc = {"generator": "objsub-fast", "config": config, "complete": complete,
           "num_shards": len(shards), "shards": shards}
    return (json.dumps(doc, indent=1) + "\n").encode()


def vmeval_dataset_parts(config: dict, pair_lines):
    """Yield the bytes of ``vmeval_dataset.json`` (one pair per line, streamed)."""
    levels = list(config["levels"])
    head = {"name": DATASET_NAME,
            "description": (f"Object subtraction reasoning tasks for video model evaluation "
                            f"({config['count']} pairs, levels: {', '.join(levels)})"),
            "metadata": {"total_tasks": config["count"], "levels": levels,
                         "canvas_size": list(config["canvas_size"]), "seed": config["seed"],
                         "generator": "objsub-fast", "generation_date": CREATED_AT},
            "created_at": CREATED_AT}
    yield json.dumps(head)[:-1].encode() + b', "pairs": [\n'
    first = True
    for line in pair_lines:
        yield (b"" if first else b",\n") + line
        first = False
    yield b"\n]}\n"
