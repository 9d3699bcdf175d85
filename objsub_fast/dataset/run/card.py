"""Every dataset a Hugging Face dataset: its card, ``README.md``, and for folder layouts the
index ``metadata.jsonl`` that ``datasets.load_dataset(folder)`` reads.

The card opens with the YAML front matter that the ``datasets`` library and the Hub read:
``configs`` with ``data_files`` for the run's split (``--split``, ``train`` when none is named)
and a ``description`` carrying the dataset's :func:`identity` (``datasets`` caches a folder's
rows by its name and the card, not by the files: without it an extended, replaced or same-named
dataset loaded another's cached rows), ``license``, ``task_categories``, ``size_categories``,
``tags`` and the typed columns (``dataset_info.features``, so no column depends on which tasks
come first). Then a short human part: the task, the levels with an example prompt each, how to
load it, the columns, the configuration and generator version, the command that regenerates the
dataset byte for byte, and how to score a model on it.

What each layout loads as (:func:`loader`):

- WebDataset: the tar shards, one row per task: ``first.png``, ``final.png`` (images),
  ``txt`` (the prompt), ``json`` (the task record, a struct), ``mp4`` (video) and
  ``mask.png`` when the run wrote them.
- Folder layouts (VMEvalKit, VBVR-Bench, VBVR with ``--vbvr-pack folders``): ``metadata.jsonl``
  beside the card, one line per task naming its frames (``first_frame``, ``final_frame``,
  ``instance_map``: images), its ``prompt``, ``level``, ``rule_kind``, ``seed``, ``task_id``,
  the ground-truth video's path and the task record (``task``).
- VBVR's tar shards hold a task's files under one folder each, which no ``datasets`` reader
  takes apart, so that layout loads VBVR's own index ``data/metadata.jsonl`` (prompt, metadata
  and paths into the shards).

Both files are pure functions of the run's configuration, written when the run completes
(``finish_run``) and regenerated and compared byte for byte by ``verify`` (:func:`check_files`).
Nothing is recorded in ``manifest.json`` for them (its bytes stay what they were), and no
existing file changes.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from ..._version import __version__
from ...runtime.atomic import AtomicWriter, atomic_write_bytes
from ...task.vocabulary import LEVELS
from .options import generate_command
from ..content.shards import plan_shards, task_levels

__all__ = ["CARD", "INDEX", "card_bytes", "index_lines", "loader", "write_files",
           "check_files", "size_category", "is_ours", "owned_files", "identity"]

CARD = "README.md"
#: The folder layouts' index (the name ``datasets``' folder readers look for).
INDEX = "metadata.jsonl"
#: Tasks whose records are built at once for the index.
_INDEX_CHUNK = 4096

#: (level, its words, an example prompt) for the card's table.
_LEVEL_ROWS = {
    "L1": ("explicit attribute (easy)", "Remove all red objects from the scene."),
    "L2": ("enumerated selection (medium)", "Remove the orange pyramid and all red cones from "
                                            "the scene."),
    "L3": ("relational reference (hard)", "Remove the 2 leftmost objects."),
    "L4": ("conceptual abstraction (hard)", "Remove the object that looks different from the "
                                            "others."),
}
_SUFFIX = " Do not do anything to other objects."


def size_category(count: int) -> str:
    """The Hub's ``size_categories`` value of ``count`` rows.

    Examples
    --------
    >>> size_category(999), size_category(1000), size_category(2_500_000)
    ('n<1K', '1K<n<10K', '1M<n<10M')
    """
    names = ("1K", "10K", "100K", "1M", "10M", "100M", "1B", "10B", "100B")
    bounds = (10**3, 10**4, 10**5, 10**6, 10**7, 10**8, 10**9, 10**10, 10**11)
    if count < bounds[0]:
        return "n<1K"
    k = max(i for i, b in enumerate(bounds) if count >= b)
    return f"{names[k]}<n<{names[k + 1]}"


# --------------------------------------------------------------------------- columns

_S, _I, _F = "string", "int64", "float64"
#: The task record's typed fields (``json`` / ``task``): every rule kind's parameters, so a
#: field a task leaves out reads as null.
_RECORD = (
    ("id", _S), ("prompt", _S), ("level", _S), ("task_category", _S), ("difficulty", _S),
    ("object_subtraction_data", (
        ("objects", [(("id", _I), ("color", _S), ("shape", _S), ("x", _F), ("y", _F),
                      ("size", _I), ("area", _I))]),
        ("rule", (("level", _S), ("rule_type", _S), ("remove_color", _S), ("remove_shape", _S),
                  ("size_type", _S), ("targets", [(("color", _S), ("shape", _S))]), ("n", _I),
                  ("region", _S), ("odd_object_id", _I), ("target_object_ids", [_I]))),
        ("remove_object_ids", [_I]), ("keep_object_ids", [_I]), ("num_objects", _I),
        ("num_removed", _I), ("num_kept", _I))),
    ("seed", _I), ("canvas_size", [_I]), ("generator", _S), ("generator_version", _S),
)


def _record_fields(config) -> tuple:
    """The record's fields in a run of ``config``: ``look`` and ``vocabulary`` (its colours
    are named keys, so a JSON object) only where the run's records carry them."""
    extra = (("look", _S),) if config.look != "flat" else ()
    if config.changed_knobs().keys() & {"vocabulary", "colors", "shapes", "shape_names",
                                        "prompt_variants"}:
        extra += (("vocabulary", "json"),)
    return _RECORD + extra + (("task_index", _I),)


def _feature(name: str, kind) -> list[str]:
    """YAML lines of one feature of ``dataset_info.features`` (``datasets``' own spelling)."""
    if isinstance(kind, str):
        return [f"- name: {json.dumps(name)}", f"  dtype: {kind}"]
    if isinstance(kind, list) and isinstance(kind[0], str):
        return [f"- name: {json.dumps(name)}", f"  list: {kind[0]}"]
    if isinstance(kind, list):
        return [f"- name: {json.dumps(name)}", "  list:"] + [
            "  " + line for n, k in kind[0] for line in _feature(n, k)]
    return [f"- name: {json.dumps(name)}", "  struct:"] + [
        "  " + line for n, k in kind for line in _feature(n, k)]


def _columns(config, fmt) -> tuple:
    """(name, type, what it holds) of every column a layout loads as."""
    videos, masks = bool(config.videos), bool(config.masks)
    if fmt == "webdataset":
        rows = (("__key__", _S, "the task's index, 10 digits"),
                ("__url__", _S, "the shard it came from"),
                ("final.png", "image", "the final frame: the targets removed"),
                ("first.png", "image", "the first frame"),
                ("json", _record_fields(config), "the task record (objects, rule, removed "
                                                 "and kept ids, seed)"),
                ("mask.png", "image", "instance map: 0 background, k+1 object k") if masks
                else None,
                ("mp4", "video", "the ground-truth video (H.264)") if videos else None,
                ("txt", _S, "the prompt"))
    elif fmt == "vbvr-tar":
        rows = tuple((c, _S, w) for c, w in (
            ("id", "VBVR's row id"), ("generator", "O-43_object_subtraction_data-generator"),
            ("task", "object_subtraction"), ("sample_id", "the sample's folder name"),
            ("prompt", "the prompt"), ("metadata_json", "the sample's metadata.json"),
            ("first_frame_path", "first_frame.png inside tar_file"),
            ("final_frame_path", "final_frame.png inside tar_file"),
            ("ground_truth_video_path", "ground_truth.mp4 inside tar_file"),
            ("tar_file", "the shard holding the sample")))
    else:
        rows = (("first_frame", "image", "the first frame"),
                ("final_frame", "image", "the final frame: the targets removed"),
                ("instance_map", "image", "instance map: 0 background, k+1 object k") if masks
                else None,
                ("prompt", _S, "the prompt"), ("level", _S, "L1-L4"),
                ("rule_kind", _S, "the rule kind (color, leftmost, ...)"),
                ("seed", _I, "the task's seed"), ("task_id", _S, "the task's id"),
                ("task_index", _I, "the task's index in the run"),
                ("folder", _S, "the task's folder"),
                ("ground_truth_video", _S, "path of ground_truth.mp4") if videos else None,
                ("task", _record_fields(config), "the task record"))
    return tuple(r for r in rows if r)


# --------------------------------------------------------------------------- layouts

def _folder_layout(config):
    """The ``FolderLayout`` of a folder format run (None for tar shards)."""
    from ..formats import vbvr_bench, vbvr_factory, vmevalkit

    if config.format == "vmevalkit":
        return vmevalkit.LAYOUT
    if config.format == "vbvr-bench":
        return vbvr_bench.layout(config.vbvr_split)
    if config.format == "vbvr" and config.vbvr_pack == "folders":
        return vbvr_factory.FOLDERS
    return None


def loader(config) -> tuple[str, list[str]]:
    """(what the layout loads as, the ``data_files`` patterns of its split).

    Examples
    --------
    >>> from objsub_fast.dataset.run.run_config import RunConfig
    >>> loader(RunConfig(count=8))
    ('webdataset', ['objsub-*.tar'])
    >>> loader(RunConfig(count=8, format="vmevalkit"))
    ('folders', ['metadata.jsonl', 'object_subtraction_task/*/first_frame.png'])
    """
    from ..formats import vbvr_factory

    if config.format == "webdataset":
        return "webdataset", ["objsub-*.tar"]
    layout = _folder_layout(config)
    if layout is None:
        return "vbvr-tar", [vbvr_factory.INDEX_JSONL]
    # the frames' pattern makes datasets choose its image folder reader for the index
    return "folders", [INDEX, f"{layout.root}/*/{layout.file_names['first.png']}"]


def index_lines(config):
    """Yield the lines (bytes) of a folder layout's ``metadata.jsonl``: one per task, in
    index order, from the tasks regenerated without pixels."""
    from ...engine import generate_batch
    from ..content.members import Chunk

    layout = _folder_layout(config)
    names = layout.file_names
    for shard in plan_shards(config.count, config.shard_size):
        for start in range(shard.start, shard.stop, _INDEX_CHUNK):
            stop = min(start + _INDEX_CHUNK, shard.stop)
            batch = generate_batch(config.seeds(start, stop), render=False,
                                   level=task_levels(config.levels, start, stop),
                                   canvas_size=config.canvas_size, **config.engine_options())
            for i, record in enumerate(Chunk(batch, start, config).records):
                folder = f"{layout.root}/" + layout.folder_name(
                    {"__index__": start + i, "__id__": record["id"]})
                row = {"first_frame_file_name": f"{folder}/{names['first.png']}",
                       "final_frame_file_name": f"{folder}/{names['final.png']}"}
                if config.masks:
                    row["instance_map_file_name"] = f"{folder}/{names['mask.png']}"
                row.update(prompt=record["prompt"], level=record["level"],
                           rule_kind=record["object_subtraction_data"]["rule"]["rule_type"],
                           seed=record["seed"], task_id=record["id"], task_index=start + i,
                           folder=folder)
                if config.videos:
                    row["ground_truth_video"] = f"{folder}/{names['mp4']}"
                row["task"] = record
                yield (json.dumps(row, separators=(",", ":")) + "\n").encode()


# --------------------------------------------------------------------------- the card

def identity(config) -> str:
    """The dataset's content identity: 16 hex digits of the SHA-256 of its configuration as
    ``manifest.json`` records it (every task is a pure function of it, so two datasets with
    other rows never share it: another count, seed, split, format, generator version...).

    The card's ``configs`` carry it in their ``description``, which ``datasets`` hashes into
    the cache folder of a local dataset; that folder is otherwise named by the folder's base
    name and the card's patterns and columns, never by the files' contents.

    Examples
    --------
    >>> from objsub_fast.dataset.run.run_config import RunConfig
    >>> len(identity(RunConfig(count=4)))
    16
    >>> identity(RunConfig(count=4)) != identity(RunConfig(count=6))
    True
    """
    import hashlib

    text = json.dumps(config.to_json(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _description(config) -> str:
    """The ``description`` of the card's config: what the dataset is, and its identity."""
    return (f"objsub-fast dataset {identity(config)}: {config.count} tasks, split "
            f"{config.split or 'train'}, format {config.format}, generator "
            f"{config.generator_version}")


def _yaml_front(config, kind: str, patterns: list[str], legacy: bool = False) -> list[str]:
    split = config.split or "train"
    tags = ["synthetic", "video-generation", "instruction-following", "object-subtraction",
            "vmevalkit", "vbvr"]
    lines = ["---", "license: mit", "pretty_name: Object Subtraction (objsub-fast)",
             "language:", "- en", "task_categories:", "- image-to-video", "size_categories:",
             f"- {size_category(config.count)}", "tags:"] + [f"- {t}" for t in tags]
    lines += ["configs:", "- config_name: default"]
    if not legacy:  # the cache key of datasets: see identity()
        lines += [f"  description: {json.dumps(_description(config))}"]
    lines += ["  data_files:", f"  - split: {split}", "    path:"] + [
        f"    - {json.dumps(p)}" for p in patterns]
    if kind != "vbvr-tar":
        features = [line for name, k, _ in _columns(config, kind if kind == "webdataset"
                                                      else "folders")
                    for line in _feature(name.replace("_file_name", ""), k)]
        lines += ["dataset_info:", "  features:"] + ["  " + f for f in features]
    return lines + ["---"]


def _type_words(kind) -> str:
    if isinstance(kind, str):
        return kind
    return "list" if isinstance(kind, list) else "struct"


def card_bytes(config, version: str = __version__, *, legacy: bool = False) -> bytes:
    """The dataset card (``README.md``) of a run of ``config`` (a RunConfig) written by
    objsub-fast ``version`` (the installed one; ``verify`` passes the one a card names).

    ``legacy``: the card as written before cards carried the dataset's :func:`identity` (and,
    for videos, the way to read them without ``torchcodec``), which ``verify`` recognises.

    Examples
    --------
    >>> from objsub_fast.dataset.run.run_config import RunConfig
    >>> card = card_bytes(RunConfig(count=8, split="test")).decode()
    >>> card.startswith("---"), "- split: test" in card
    (True, True)
    >>> identity(RunConfig(count=8, split="test")) in card
    True
    """
    kind, patterns = loader(config)
    split = config.split or "train"
    conf = config.to_json()
    command = generate_command(conf, "DIR")
    levels = [lv for lv in LEVELS if lv in config.levels]
    where = {"webdataset": "the WebDataset tar shards",
             "folders": f"`{INDEX}` (one line per task folder)",
             "vbvr-tar": "VBVR's index `data/metadata.jsonl` (the tar shards hold a task's "
                         "files in one folder, which `datasets` does not take apart: read them "
                         "with the `webdataset` package)"}[kind]
    columns = _columns(config, kind if kind != "folders" else "folders")
    body = [
        "", "# Object Subtraction", "",
        "Each row is one task of the Object Subtraction benchmark for video generation models: "
        "a first frame of flat coloured shapes, an instruction naming which objects to remove, "
        "the final frame with exactly those objects gone"
        + (", and the ground-truth video between them." if config.videos else "."),
        f"Generated by objsub-fast {version}; {config.count:,} tasks, split `{split}`, "
        f"format `{config.format}`.", "",
        "| level | what it asks | example prompt |", "| --- | --- | --- |"]
    body += [f"| {lv} | {_LEVEL_ROWS[lv][0]} | {_LEVEL_ROWS[lv][1]}{_SUFFIX} |" for lv in levels]
    body += ["", "## Loading", "", "```python", "import datasets",
             f'ds = datasets.load_dataset("DIR", split="{split}")   # DIR: this folder']
    raw_videos = kind == "webdataset" and config.videos and not legacy
    if raw_videos:
        body += ['ds = ds.cast_column("mp4", datasets.Video(decode=False))   # no torchcodec',
                 'video = ds[0]["mp4"]["bytes"]   # the ground-truth video: an mp4 file\'s bytes']
    body += ["```", ""]
    if raw_videos:
        body += ["Decoding the `mp4` column (`datasets.Video`) needs `torchcodec`: the "
                 "`cast_column` line reads each video as its stored bytes without it (leave it "
                 "out to decode with `torchcodec` installed).", ""]
    body += [f"It reads {where}. Columns:", "", "| column | type | holds |", "| --- | --- | --- |"]
    body += [f"| `{name.replace('_file_name', '')}` | {_type_words(k)} | {words} |"
             for name, k, words in columns]
    if not legacy:
        body += ["", "`datasets` caches what it reads by the folder's name and the `configs` "
                 f"above, whose description carries this dataset's identity (`{identity(config)}`"
                 ", a digest of its configuration): another dataset in a folder of the same "
                 "name, or this one extended or regenerated, loads its own rows."]
    body += [
        "", "## Configuration", "",
        f"generator_version `{config.generator_version}`; the configuration as "
        "`manifest.json` records it:", "", "```json", json.dumps(conf, indent=1), "```", "",
        "Every task is a pure function of its seed and this configuration. To regenerate the "
        "dataset byte for byte and to check one against it:", "", "```bash",
        f"# with objsub-fast {version} installed", command, "objsub-fast verify DIR", "```",
        "",
        "Splits: each of train, test and validation draws its seeds from its own block "
        "(`--split`), so a train and a test set of one configuration never share a seed.", "",
        "## Scoring a model", "",
        "Give each task's first frame and prompt to the model, save its video as "
        "`{task_id}.mp4` in one folder per model, then:", "", "```bash",
        "objsub-fast score --questions DIR --outputs model_videos/ --out results/scores.jsonl",
        "```", "",
        "(question folders: the VMEvalKit or VBVR-Bench layouts.) It writes one JSON line per "
        "video, a summary, and `leaderboard.html` ranking the models.", ""]
    return ("\n".join(_yaml_front(config, kind, patterns, legacy) + body)).encode()


# --------------------------------------------------------------------------- write and check

#: The line of a card that names the objsub-fast that wrote it.
_WRITTEN_BY = re.compile(rb"^Generated by objsub-fast (\S+);", re.MULTILINE)
#: The first line of an index this project wrote.
_INDEX_START = b'{"first_frame_file_name":'


def is_ours(path: Path) -> bool:
    """Whether the file at ``path`` is a card or index this project wrote (a README.md or
    metadata.jsonl of someone else's is never replaced or removed).

    Examples
    --------
    >>> is_ours(Path("/nonexistent/README.md"))
    False
    """
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    if path.name == CARD:
        return head.startswith(b"---\n") and _WRITTEN_BY.search(head) is not None
    return head.startswith(_INDEX_START)


def _card_version(out) -> str:
    """The objsub-fast version the card in ``out`` names (the installed one if none)."""
    try:
        found = _WRITTEN_BY.search((Path(out) / CARD).read_bytes())
    except OSError:
        found = None
    return found[1].decode() if found else __version__


def _expected(config, version: str = __version__) -> list[tuple[str, object]]:
    """(file name, function giving its bytes or lines) of the run's Hugging Face files."""
    files = [(CARD, lambda: [card_bytes(config, version)])]
    if _folder_layout(config) is not None:
        files.append((INDEX, lambda: index_lines(config)))
    return files


def hugging_face_names(config) -> list[str]:
    """Names of the run's Hugging Face files (the card, and a folder layout's index).

    Examples
    --------
    >>> from objsub_fast.dataset.run.run_config import RunConfig
    >>> hugging_face_names(RunConfig(count=4, format="vmevalkit"))
    ['README.md', 'metadata.jsonl']
    """
    return [name for name, _ in _expected(config)]


def write_files(config, out) -> None:
    """Write the card (and a folder layout's ``metadata.jsonl``) into ``out``, each under its
    final name only when complete; a file of that name that is not ours is left alone."""
    for name, parts in _expected(config):
        if (Path(out) / name).exists() and not is_ours(Path(out) / name):
            continue
        if name == CARD:
            atomic_write_bytes(Path(out) / name, b"".join(parts()))
            continue
        with AtomicWriter(Path(out) / name) as fh:
            for line in parts():
                fh.write(line)


def check_files(config, out) -> tuple[list[str], list[str]]:
    """(problems, notes) of the Hugging Face files in ``out``: each compared byte for byte with
    the one the configuration gives. A dataset written before cards existed has none, and one
    written before cards carried its :func:`identity` has an older card: a note says how to
    add or refresh them."""
    import hashlib

    problems, missing, foreign, older = [], [], [], []
    version = _card_version(out)
    for name, parts in _expected(config, version):
        path = Path(out) / name
        if not path.exists():
            missing.append(name)
            continue
        if not is_ours(path):
            foreign.append(name)
            continue
        want = hashlib.sha256()
        for part in parts():
            want.update(part)
        got = hashlib.sha256()
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                got.update(block)
        if name == CARD and got.digest() != want.digest() and got.digest() == hashlib.sha256(
                card_bytes(config, version, legacy=True)).digest():
            older.append(name)
        elif got.digest() != want.digest():
            problems.append(f"{name}: differs from the one the configuration gives "
                            "(edited, or written by another objsub-fast)")
    notes = [f"no {' or '.join(missing)} (the Hugging Face dataset files, written since "
             "objsub-fast writes cards): rerun the generate command to add them"] if missing else []
    notes += [f"{name} is not one objsub-fast wrote: left as it is, not checked"
              for name in foreign]
    notes += [f"{name} is an older card, without the dataset's identity (datasets.load_dataset "
              "may load the cached rows of another dataset of this folder's name, or of this "
              "one before it was extended or regenerated): rerun the generate command to "
              "refresh it" for name in older]
    return problems, notes


def owned_files(out) -> list[Path]:
    """The card and index in ``out`` that this project wrote (what ``--overwrite`` replaces)."""
    return [Path(out) / n for n in (CARD, INDEX) if is_ours(Path(out) / n)]
