"""VBVR-Bench drop-in: read its O-43 question folders, write VBVR-EvalKit-shaped results.

VBVR-Bench's evaluation layout (task ``O-43_object_subtraction_data-generator``)::

    {gt_base}/{split}/O-43_object_subtraction_data-generator/{index:05d}/
        first_frame.png  final_frame.png  prompt.txt  ground_truth.mp4  metadata.json
    {model_path}/{split}/O-43_object_subtraction_data-generator/{index:05d}.mp4

with ``split`` a folder such as ``Out-of-Domain_50``; several models may sit under one base
folder (``{base}/{model}/{split}/...``). ``layout.find_jobs`` finds these pairs;
:func:`load_question` reads the task record and :func:`write_results` writes
``{model}_vbvr_results.json`` the way VBVR-EvalKit does: ``model_name``, ``model_path``,
``samples`` (per video ``video_path``, ``video_file``, ``task_name``, ``split``, ``category``,
``folder``, ``score`` in [0, 1], ``dimensions``, ``error``, plus ``pass`` and ``task_id``) and a
``summary`` per logical split (``In_Domain``, ``Out_of_Domain``, ``overall``: ``scores``,
``mean_score``, ``num_samples``, ``by_task`` and ``by_category`` means). There is no timestamp,
so a rerun writes the same bytes. ``score`` is ``continuous.continuous_score``.

The task record: ``metadata.json`` holds objsub-fast's record when this project wrote the
questions (the record itself, or a dict anywhere inside it that has ``object_subtraction_data``).
Otherwise the record is recovered from ``first_frame.png`` (objects read in whichever look and
vocabulary explain the frame best, ``recover.read_frame``: colour, shape, size, place, and the
look) and ``prompt.txt`` (``interpret.interpret_prompt`` names the objects to remove, its shapes
named as solids or as flat figures), and the result says so in ``question_source``.
"""
from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import numpy as np

from ...runtime.jsonfile import loads as loads_json
from ...runtime.errors import TaskError
from ...task.vocabulary import SHAPE_NAMINGS, SHAPE_TABLE, shape_code
from .limits import read_capped
from .question import find_record

__all__ = ["TASK_NAME", "CATEGORY", "SPLITS", "load_question", "recover_record",
           "write_results", "results_for_model", "question_order"]

TASK_NAME = "O-43_object_subtraction_data-generator"
#: VBVR-EvalKit's category of this task.
CATEGORY = "Transformation"
#: Split folder -> logical split, as VBVR-EvalKit maps them.
SPLITS = {"In-Domain_50": "In_Domain", "Out-of-Domain_50": "Out_of_Domain"}
#: A first frame a record is recovered from is at most the largest canvas.
RECOVER_MAX_PIXELS = 8192 * 8192
#: VBVR-EvalKit counts O-43 as out of domain when its folder does not say.
DEFAULT_SPLIT = "Out_of_Domain"
RECOVERED = "recovered from first_frame.png and prompt.txt (metadata.json has no objsub-fast " \
            "task record)"


def recover_record(folder) -> dict:
    """A task record rebuilt from a question folder's ``first_frame.png`` and ``prompt.txt``.

    Raises
    ------
    TaskError
        When the frame or prompt is missing or the prompt does not fit the objects seen.
    """
    from PIL import Image

    from ...task.interpret import interpret_prompt
    from .recover import read_frame

    folder = Path(folder)
    try:
        prompt = read_capped(folder / "prompt.txt").decode().strip()
        with Image.open(folder / "first_frame.png") as im:
            if im.width * im.height > RECOVER_MAX_PIXELS:
                raise ValueError(f"first_frame.png is {im.width}x{im.height}, larger than the "
                                 "largest canvas (8192x8192)")
            frame = np.asarray(im.convert("RGB"))
    except (OSError, ValueError) as exc:
        raise TaskError(f"no objsub-fast record in metadata.json and no usable first frame and "
                        f"prompt to recover it from: {exc}") from None
    h, w = frame.shape[:2]
    reading = read_frame(frame)
    errors = []
    for naming in SHAPE_NAMINGS:          # the prompt names shapes as solids or as flat figures
        vocab = replace(reading.vocabulary, shape_names=naming)
        objects = [{"id": k, **o, "shape": SHAPE_TABLE[shape_code(o["shape"])][
            SHAPE_NAMINGS.index(naming)]} for k, o in enumerate(reading.objects)]
        try:
            remove = interpret_prompt(prompt, objects, (w, h))
            break
        except ValueError as exc:
            errors.append(exc)
    else:
        raise TaskError(f"recovering the task from first_frame.png and prompt.txt failed: "
                        f"{errors[0]}") from None
    record = {"id": folder.name, "prompt": prompt, "canvas_size": [w, h],
              "object_subtraction_data": {"objects": objects, "remove_object_ids": remove,
                                          "rule": {"rule_type": "recovered"}}}
    if reading.look != "flat":           # as the generator's records say it
        record["look"] = reading.look
    if not vocab.is_classic:
        record["vocabulary"] = vocab.record(
            [vocab.colors.index(o["color"]) for o in objects],
            [vocab.shape_labels.index(o["shape"]) for o in objects])
    return record


def load_question(folder) -> tuple[dict, str]:
    """``(task record, source)`` of a VBVR question folder; see the module docstring."""
    folder = Path(folder)
    meta = folder / "metadata.json"
    if meta.is_file():
        try:
            record = find_record(loads_json(read_capped(meta).decode()))
        except (OSError, ValueError) as exc:  # undecodable, malformed, nested too deeply
            raise TaskError(f"unreadable {meta}: {exc}") from None
        if record is not None:
            return record, "metadata.json"
    return recover_record(folder), RECOVERED


def _summary(samples) -> dict:
    out = {}
    for key in ("In_Domain", "Out_of_Domain", "overall"):
        rows = [s for s in samples if key == "overall" or s["split"] == key]
        scores = [s["score"] for s in rows]
        by_task, by_cat = defaultdict(list), defaultdict(list)
        for s in rows:
            by_task[s["task_name"]].append(s["score"])
            by_cat[s["category"]].append(s["score"])
        out[key] = {"scores": scores,
                    "by_task": {t: sum(v) / len(v) for t, v in sorted(by_task.items())},
                    "by_category": {c: sum(v) / len(v) for c, v in sorted(by_cat.items())},
                    "mean_score": sum(scores) / len(scores) if scores else 0.0,
                    "num_samples": len(scores)}
    return out


def question_order(result: dict) -> tuple:
    """Sort key of a result in question order: its split folder, then its question folder's
    index (``00002`` before ``00010``; a name that is not a number after every number).

    Examples
    --------
    >>> rs = [{"split_folder": "s", "question": f"q/s/O-43/{i}"} for i in ("00010", "00002", "x")]
    >>> [r["question"].rsplit("/", 1)[-1] for r in sorted(rs, key=question_order)]
    ['00002', '00010', 'x']
    """
    name = str(result.get("question") or result.get("task_id") or "").rstrip("/")
    name = name.rsplit("/", 1)[-1]
    return (result.get("split_folder") or "", not name.isdigit(),
            int(name) if name.isdigit() else 0, name)


def results_for_model(model: str, model_path: str, results) -> dict:
    """The ``{model}_vbvr_results.json`` content for one model's result records, its samples
    in question order (a missing output keeps its question's place)."""
    samples = []
    for r in sorted(results, key=question_order):
        folder = r.get("split_folder") or ""
        samples.append({"video_path": r["output"], "video_file": Path(r["output"] or "").name,
                        "task_name": TASK_NAME, "split": SPLITS.get(folder, DEFAULT_SPLIT),
                        "category": CATEGORY, "folder": folder,
                        "score": float(r.get("score") or 0.0),
                        "dimensions": r.get("dimensions") or {}, "error": r.get("error"),
                        "pass": bool(r.get("pass")), "task_id": r.get("task_id")})
    return {"model_name": model, "model_path": model_path, "samples": samples,
            "summary": _summary(samples)}


def results_names(models) -> dict:
    """Model -> the name of its results file: ``{model}_vbvr_results.json`` (``/`` as ``_``)
    as VBVR-EvalKit names it, unless that name is not a plain file name of at most
    :data:`RESULTS_NAME_BYTES` bytes or two models would share it; then the model's
    ``names.file_stem`` (readable, unique) stands for it.

    Examples
    --------
    >>> names = results_names(["wan2.2", "team/a", "team_a", "x" * 300])
    >>> names["wan2.2"], names["team/a"] == names["team_a"], len(names["x" * 300]) < 255
    ('wan2.2_vbvr_results.json', False, True)
    """
    from collections import Counter

    from .names import file_stem

    plain = {m: f"{str(m).replace('/', '_')}_vbvr_results.json" for m in models}
    shared = Counter(plain.values())
    return {m: name if (shared[name] == 1 and len(name.encode()) <= RESULTS_NAME_BYTES
                        and re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", name))
            else f"{file_stem(m)}_vbvr_results.json" for m, name in plain.items()}


#: Longest results file name kept as VBVR-EvalKit writes it.
RESULTS_NAME_BYTES = 200


def write_results(results, folder) -> list[Path]:
    """Write ``{model}_vbvr_results.json`` into ``folder`` for every model among the VBVR
    result records (those with ``split_folder``); return the paths written."""
    from ...runtime.atomic import AtomicWriter

    by_model = defaultdict(list)
    for r in results:
        if r.get("split_folder") is not None and not r.get("unknown"):
            by_model[(r["model"], r.get("model_path") or "")].append(r)
    names = results_names([model for model, _ in by_model])
    paths = []
    for (model, model_path), rs in sorted(by_model.items()):
        path = Path(folder) / names[model]
        with AtomicWriter(path) as fh:
            fh.write((json.dumps(results_for_model(model, model_path, rs), indent=2)
                      + "\n").encode())
        paths.append(path)
    return paths
