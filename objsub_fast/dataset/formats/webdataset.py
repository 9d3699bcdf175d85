"""The WebDataset format: shard k is ``objsub-{k:06d}.tar``, one ``{key}.{suffix}`` member per
sample member (``members.MEMBERS``), samples in task order, members in suffix order; the
per-task JSON is the compact task record.

``verify`` reads a shard as data from anyone: a member that is not a plain file (a symbolic or
hard link, a device, a FIFO, a directory, a GNU sparse file) or that claims more bytes than a
sample member of the run can have (``member_size_cap``) is a problem line naming it, never
followed nor read; the other members are read in bounded pieces."""
from __future__ import annotations

import hashlib
import json
import tarfile
from pathlib import Path

from ...runtime.atomic import AtomicWriter
from ...task.record_json import compact_records
from ..content.manifest import shard_entry
from ..content.members import MEMBERS
from .base import OutputFormat
from .tar import TAR_END, tar_members, tar_parts

__all__ = ["NAME", "FORMAT", "WebDataset", "shard_name", "shard_pattern", "task_metadata",
           "chunk_metadata", "sample_parts", "chunk_bytes", "joined", "stored_bytes",
           "ShardWriter", "ShardReader", "owned_paths", "MEMBER_SLACK", "member_size_cap",
           "member_problem"]

NAME = "webdataset"
_COMPACT = json.JSONEncoder(separators=(",", ":"), check_circular=False)


def shard_name(k: int) -> str:
    """Final name of shard ``k`` (inside the output folder).

    Examples
    --------
    >>> shard_name(12)
    'objsub-000012.tar'
    """
    return f"objsub-{k:06d}.tar"


def shard_pattern(num_shards: int) -> str:
    """The brace pattern naming every shard of a dataset (for ``webdataset.WebDataset``).

    Examples
    --------
    >>> shard_pattern(8), shard_pattern(1)
    ('objsub-{000000..000007}.tar', 'objsub-000000.tar')
    """
    if num_shards == 1:
        return shard_name(0)
    return f"objsub-{{{0:06d}..{num_shards - 1:06d}}}.tar"


def task_metadata(record: dict, config=None) -> bytes:
    """The ``{key}.json`` member: the task record on one compact line (the run's knobs are in
    ``manifest.json``)."""
    return _COMPACT.encode(record).encode()


def chunk_metadata(chunk) -> list[bytes]:
    """The ``{key}.json`` members of a ``members.Chunk``: ``task_metadata`` of each of its
    records, written straight from the batch's columns (``record_json.compact_records``)."""
    return compact_records(chunk.batch, chunk.first_index, chunk.config.generator_version)


def sample_parts(sample: dict) -> list[bytes]:
    """The tar bytes of one sample (header, data, padding per member; suffix order)."""
    key, parts = sample["__key__"], []
    for suffix in MEMBERS:
        if suffix in sample:
            parts.extend(tar_parts(f"{key}.{suffix}", sample[suffix]))
    return parts


def chunk_bytes(samples: list[dict]) -> bytes:
    """The tar bytes of a chunk of samples: ``sample_parts`` of each, joined, with the
    headers of the whole chunk filled in together (``tar.tar_members``)."""
    if not samples:
        return b""
    suffixes = [suffix for suffix in MEMBERS if suffix in samples[0]]  # every sample's
    names = [f"{s['__key__']}.{suffix}" for s in samples for suffix in suffixes]
    return tar_members(names, [s[suffix] for s in samples for suffix in suffixes])


def joined(parts):
    """The chunk writer of a per-sample ``parts`` function (its samples' parts, joined)."""
    return lambda samples: b"".join(p for s in samples for p in parts(s))


def stored_bytes(samples: list[dict], block: int) -> int:
    """Bytes the encoded ``samples`` take in a shard (tar headers and padding included)."""
    return sum(len(p) for s in samples for p in sample_parts(s))


class ShardWriter:
    """Streams one shard into its tar file; renamed into place by ``finish``.

    ``name`` (the file, relative to ``out``) and ``chunk`` (a chunk of samples' tar bytes)
    default to this format's; other tar formats pass their own (e.g. ``joined(parts)``).
    """

    def __init__(self, out: Path, shard, config, name: str | None = None, chunk=chunk_bytes):
        self.shard = shard
        self.name = name or shard_name(shard.index)
        self._chunk = chunk
        # the rename is flushed at the end of the run (output.finish_run), once for all shards
        self._file = AtomicWriter(Path(out) / self.name, sync_rename=False)
        self.count = 0

    def __enter__(self):
        self._file.__enter__()
        return self

    def write_samples(self, samples: list[dict]) -> None:
        """Append a chunk of encoded samples (``members.encode_samples``)."""
        self._file.write(self._chunk(samples))
        self.count += len(samples)

    def finish(self) -> dict:
        """Close the archive, rename it into place, and return the shard's manifest entry."""
        self._file.write(TAR_END)
        self._file.__exit__(None, None, None)
        return shard_entry(self.shard, self.name, self.count, self._file.hexdigest(),
                           self._file.size)

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None:
            self._file.__exit__(exc_type, exc, tb)


#: Room above a sample member's frames in ``member_size_cap``: the JSON record and prompt
#: (kilobytes), PNG chunk and deflate block overhead, the MP4 boxes, with a wide margin.
MEMBER_SLACK = 16 << 20
#: Bytes per pixel of a frame in ``member_size_cap``: RGBA uncompressed. A PNG (deflate's
#: stored blocks at worst) and an H.264 macroblock (at most about 1.6 bytes per pixel in
#: 4:2:0) never take more.
_FRAME_PIXEL_BYTES = 4
#: Read size of a member (bytes): a member is read in pieces of this size.
_READ_PIECE = 1 << 20


def member_size_cap(config=None) -> int:
    """The most bytes a sample member of ``config``'s run can hold: every frame of its video
    (one frame without videos) uncompressed at 4 bytes a pixel, plus ``MEMBER_SLACK``; with
    no configuration, that of the largest canvas (4096x4096) and 61 frames. ``verify`` reads
    no member that claims more.

    Examples
    --------
    >>> from objsub_fast.dataset.run.run_config import RunConfig
    >>> member_size_cap(RunConfig(count=1)) == MEMBER_SLACK + 4 * 256 * 256
    True
    >>> member_size_cap(RunConfig(count=1, videos=True, video_frames=61)) >> 20
    31
    """
    if config is None:
        width = height = 4096
        frames = 61
    else:
        width, height = config.canvas_size
        frames = config.video_frames if config.videos else 1
    return MEMBER_SLACK + _FRAME_PIXEL_BYTES * width * height * max(frames, 1)


def member_problem(member: tarfile.TarInfo, cap: int) -> str | None:
    """Why ``verify`` does not read the tar ``member`` (a shard from anyone), or None: it is
    not a plain file, or it claims more than ``cap`` bytes (``member_size_cap``).

    Examples
    --------
    >>> link = tarfile.TarInfo("0000000001.first.png")
    >>> link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
    >>> member_problem(link, 1 << 20)
    "member '0000000001.first.png' is a symbolic link (to '/etc/passwd'): never followed"
    >>> big = tarfile.TarInfo("0000000001.mp4"); big.size = 3 << 30
    >>> member_problem(big, 1 << 20)
    "member '0000000001.mp4' claims 3,221,225,472 bytes, more than a sample member of this \
run can hold (1,048,576): not read"
    >>> member_problem(tarfile.TarInfo("0000000001.txt"), 1 << 20) is None
    True
    """
    name = f"member {member.name!r}"
    if member.issym():
        return f"{name} is a symbolic link (to {member.linkname!r}): never followed"
    if member.islnk():
        return f"{name} is a hard link (to {member.linkname!r}): never followed"
    kinds = {tarfile.CHRTYPE: "a character device", tarfile.BLKTYPE: "a block device",
             tarfile.FIFOTYPE: "a FIFO", tarfile.DIRTYPE: "a directory"}
    if member.type in kinds:
        return f"{name} is {kinds[member.type]}: not a sample member, not read"
    if member.issparse():
        return (f"{name} is a GNU sparse file claiming {member.size:,} bytes (objsub-fast "
                "writes none): not read")
    if not member.isreg():
        return f"{name} is not a regular file (tar type {member.type!r}): not read"
    if member.size > cap:
        return (f"{name} claims {member.size:,} bytes, more than a sample member of this run "
                f"can hold ({cap:,}): not read")
    return None


def _read_member(tar: tarfile.TarFile, member: tarfile.TarInfo) -> bytes:
    """The bytes of the regular ``member`` (``member_problem`` said none), read in pieces of
    at most ``_READ_PIECE``: a truncated shard ends the read with tarfile's ReadError."""
    pieces, left = [], member.size
    f = tar.extractfile(member)
    while left > 0:
        piece = f.read(min(left, _READ_PIECE))
        if not piece:
            raise tarfile.ReadError("unexpected end of data")
        pieces.append(piece)
        left -= len(piece)
    return b"".join(pieces)


def _key_and_suffix(member_name: str) -> tuple[str, str]:
    """(sample key, member suffix) of a tar member ``{key}.{suffix}``."""
    key, _, suffix = member_name.partition(".")
    return key, suffix


class ShardReader:
    """Samples of one shard, for ``verify``: compared as a byte stream while it matches.

    ``get(expected)`` reads as many bytes as the regenerated sample has and, if they are equal,
    returns them without parsing the tar. At the first difference the whole file is parsed
    with ``tarfile`` and samples are served by key, so that a problem names its task and
    member. ``parts`` and ``member_key`` (member name -> (sample key, member suffix)) default
    to this format's.
    """

    def __init__(self, out: Path, entry: dict, problems: list[str], config=None,
                 parts=sample_parts, member_key=None):
        self.where, self.problems = entry["name"], problems
        self._parts = parts
        self._member_key = member_key or _key_and_suffix
        self.path = Path(out) / entry["name"]
        self.cap = member_size_cap(config)
        self.sha = hashlib.sha256()
        self.served: set[str] = set()
        self.samples: dict[str, dict] | None = None  # parsed members, after a difference
        self._file = None
        if not self.path.is_file():
            self.sha, self.samples = None, {}
        else:
            self._file = open(self.path, "rb")

    def _parse(self) -> None:
        """Switch from streaming to parsed mode (hash the file, read every plain member of at
        most ``self.cap`` bytes; every other member is a problem: ``member_problem``)."""
        self._file.close()
        self.sha, self.samples = hashlib.sha256(), {}
        with open(self.path, "rb") as f:
            for block in iter(lambda: f.read(_READ_PIECE), b""):
                self.sha.update(block)
        try:
            with tarfile.open(self.path, mode="r:") as tar:
                for member in tar:
                    problem = member_problem(member, self.cap)
                    if problem is not None:
                        self.problems.append(f"{self.where}: {problem}")
                        continue
                    key, suffix = self._member_key(member.name)
                    self.samples.setdefault(key, {})[suffix] = _read_member(tar, member)
        except (tarfile.TarError, EOFError, OSError, ValueError) as e:
            self.problems.append(f"{self.where}: unreadable tar (truncated or corrupt): {e}")
        for key in self.served:
            self.samples.pop(key, None)

    def get(self, expected: dict) -> dict | None:
        """Actual members of the task ``expected`` describes (None if absent)."""
        key = expected["__key__"]
        if self.samples is None:
            data = b"".join(self._parts(expected))
            got = self._file.read(len(data))
            self.sha.update(got)
            if got == data:
                self.served.add(key)
                return expected
            self._parse()
        return self.samples.pop(key, None)

    def leftovers(self) -> list[str]:
        """Sample keys present in the shard but not expected there."""
        if self.samples is None:  # the end of the archive, and nothing after it
            rest = self._file.read(len(TAR_END) + 1)
            self.sha.update(rest)
            if rest == TAR_END:
                self._file.close()
                return []
            self._parse()
        return sorted(self.samples)

    def digest(self) -> str | None:
        """SHA-256 of the shard file (None if it is missing)."""
        return None if self.sha is None else self.sha.hexdigest()

    def absent(self) -> str | None:
        """Why every task of the shard is missing, if the shard file is."""
        return "shard file missing" if self.sha is None else None

    def summary(self) -> None:
        """Nothing: the format has no dataset-level file to check."""
        return None


def owned_paths(out: Path) -> list[Path]:
    """The shard files in ``out``."""
    return sorted(Path(out).glob("objsub-*.tar"))


class WebDataset(OutputFormat):
    """The WebDataset format (see the module): tar shards, nothing at the dataset level."""

    NAME = NAME
    shard_name = staticmethod(shard_name)
    shard_pattern = staticmethod(shard_pattern)
    task_metadata = staticmethod(task_metadata)
    chunk_metadata = staticmethod(chunk_metadata)
    stored_bytes = staticmethod(stored_bytes)
    owned_paths = staticmethod(owned_paths)

    def shards_are_files(self, config) -> bool:
        """Always: the shards are the tar files."""
        return True

    def writer(self, out: Path, shard, config) -> ShardWriter:
        """The shard's tar file."""
        return ShardWriter(out, shard, config)

    def reader(self, out: Path, entry: dict, problems: list[str], config=None) -> ShardReader:
        """The shard's tar file, for ``verify``."""
        return ShardReader(out, entry, problems, config)

    def accounted(self, config) -> list[str]:
        """The shard files (one not part of the dataset is a problem of ``check_dataset``)."""
        return ["objsub-*.tar"]

    def shard_present(self, out: Path, entry: dict, progress: Path, config) -> bool:
        """Whether the shard file is on disk, of its recorded size."""
        p = Path(out) / entry["name"]
        return p.is_file() and p.stat().st_size == entry["bytes"]

    def extend(self, out: Path, kept: list[dict], progress: Path) -> None:
        """Nothing to undo before a larger run reuses ``kept`` shards: a shard file is whole."""

    def check_dataset(self, config, out: Path, plan, summaries: dict) -> list[str]:
        """Shard files that are not part of the plan."""
        names = {shard_name(s.index) for s in plan}
        return [f"{p.name}: shard not part of the dataset" for p in owned_paths(out)
                if p.name not in names]


#: The format (the row of ``formats.FORMATS``).
FORMAT = WebDataset()
