"""Drop-in replacement for VMEvalKit's object subtraction ``create_dataset``.

``from objsub_fast import create_dataset`` instead of
``from vmevalkit.tasks.object_subtraction_task import create_dataset``: same arguments, same
returned structure (``name``, ``description``, ``pairs``, ``metadata``), each pair pointing at
real PNG files in VMEvalKit's folder layout.
"""
from __future__ import annotations

import json
import tempfile
from pathlib import Path

from .pipeline import RunConfig, generate
from .vocabulary import LEVELS
from .writers import VMEVAL_DATASET_FILE


def create_dataset(num_samples: int = 50, levels=LEVELS, random_seed: int = 42,
                   output_dir=None, canvas_size=(256, 256), workers: int = 1) -> dict:
    """Generate an object subtraction dataset in VMEvalKit's format and return it.

    Parameters
    ----------
    num_samples : int
        Total number of tasks, split across ``levels`` as evenly as possible (earlier levels
        get the remainder, as in VMEvalKit).
    levels : sequence of str
        Levels to generate, from "L1".."L4".
    random_seed : int
        Base seed; the same arguments always give byte-identical files.
    output_dir : path-like, optional
        Where ``object_subtraction_task/{task_id}/...`` and ``vmeval_dataset.json`` are written
        (default: a new temporary folder, like VMEvalKit's generator).
    canvas_size : (int, int)
        Frame size (W, H).
    workers : int
        Parallel worker processes.

    Returns
    -------
    dict
        ``{"name", "description", "pairs", "metadata", "created_at"}``; each pair has ``id``,
        ``prompt``, ``first_image_path``, ``final_image_path`` (absolute paths),
        ``task_category``, ``level``, ``object_subtraction_data``, ``difficulty``,
        ``created_at`` (fixed, for reproducibility), plus ``seed`` and ``canvas_size``.
        Pairs are grouped by level in the order of ``levels``.
    """
    out = Path(output_dir) if output_dir is not None else Path(
        tempfile.mkdtemp(prefix="objsub_fast_"))
    config = RunConfig(count=num_samples, levels=tuple(levels), seed=random_seed,
                       format="vmevalkit", canvas_size=canvas_size)
    generate(config, out, workers=workers, quiet=True)
    dataset = json.loads((out / VMEVAL_DATASET_FILE).read_text())
    order = {lv: i for i, lv in enumerate(config.levels)}
    dataset["pairs"].sort(key=lambda p: (order[p["level"]], p["task_index"]))
    for pair in dataset["pairs"]:
        for key in ("first_image_path", "final_image_path"):
            pair[key] = str(out / pair[key])
    dataset["metadata"]["output_dir"] = str(out)
    return dataset
