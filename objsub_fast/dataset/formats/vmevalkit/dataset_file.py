"""``vmeval_dataset.json`` and ``question_metadata.json``: the bytes of VMEvalKit's files, shared
by the format (``vmevalkit``, which writes them) and its check (``vmevalkit_check``, which reads
them back), so that neither imports the other."""
from __future__ import annotations

import json

from ...content.members import MEMBERS

__all__ = ["TASK_ROOT", "DATASET_FILE", "DATASET_NAME", "CREATED_AT", "FILE_NAMES",
           "FIRST_FRAME", "FINAL_FRAME", "PROMPT", "METADATA", "PAIRS_OPEN", "PAIR_SEP",
           "PAIRS_CLOSE", "pair", "task_metadata", "dataset_head", "dataset_parts"]

#: VMEvalKit's folder for this domain, its master dataset file, and the dataset name.
TASK_ROOT = "object_subtraction_task"
DATASET_FILE = "vmeval_dataset.json"
DATASET_NAME = "object_subtraction_tasks"
#: ``created_at`` of every pair: fixed, so that files stay byte-reproducible.
CREATED_AT = "1970-01-01T00:00:00+00:00"
#: Member suffix -> file name in a task folder.
FILE_NAMES = {suffix: m.file for suffix, m in MEMBERS.items()}
FIRST_FRAME, FINAL_FRAME = FILE_NAMES["first.png"], FILE_NAMES["final.png"]
PROMPT, METADATA = FILE_NAMES["txt"], FILE_NAMES["json"]
_SPACED = json.JSONEncoder(check_circular=False)
#: How ``vmeval_dataset.json`` lays out its pairs: one per line between these.
PAIRS_OPEN, PAIR_SEP, PAIRS_CLOSE = b', "pairs": [\n', b",\n", b"\n]}\n"


def pair(record: dict) -> dict:
    """VMEvalKit task pair (question_metadata.json) for an engine task record."""
    tid = record["id"]
    p = {
        "id": tid,
        "prompt": record["prompt"],
        "first_image_path": f"{TASK_ROOT}/{tid}/{FIRST_FRAME}",
        "final_image_path": f"{TASK_ROOT}/{tid}/{FINAL_FRAME}",
        "task_category": record["task_category"],
        "level": record["level"],
        "object_subtraction_data": record["object_subtraction_data"],
        "difficulty": record["difficulty"],
        "created_at": CREATED_AT,
    }
    p.update({k: v for k, v in record.items() if k not in p})
    return p


def task_metadata(record: dict, config=None) -> bytes:
    """``question_metadata.json``: the pair on one line with the default separators (the C
    encoder; ``indent`` would be ~8x slower), so the same bytes are its line in
    ``vmeval_dataset.json`` (the run's knobs are in ``manifest.json``)."""
    return _SPACED.encode(pair(record)).encode()


def dataset_head(config: dict) -> bytes:
    """The first line of ``vmeval_dataset.json``: name, description, metadata, created_at and
    the opening of the pair list."""
    levels = list(config["levels"])
    head = {"name": DATASET_NAME,
            "description": (f"Object subtraction reasoning tasks for video model evaluation "
                            f"({config['count']} pairs, levels: {', '.join(levels)})"),
            "metadata": {"total_tasks": config["count"], "levels": levels,
                         "canvas_size": list(config["canvas_size"]), "seed": config["seed"],
                         "generator": "objsub-fast", "generation_date": CREATED_AT},
            "created_at": CREATED_AT}
    return json.dumps(head)[:-1].encode() + PAIRS_OPEN


def dataset_parts(config: dict, pair_lines):
    """Yield the bytes of ``vmeval_dataset.json`` (one pair per line, streamed)."""
    yield dataset_head(config)
    first = True
    for line in pair_lines:
        yield (b"" if first else PAIR_SEP) + line
        first = False
    yield PAIRS_CLOSE
