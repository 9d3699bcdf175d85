"""``create_dataset``: a drop-in for VMEvalKit's object subtraction generator (a VMEvalKit-format
run of ``objsub_fast.dataset.run.pipeline.generate``, returned as VMEvalKit's dataset dict)."""
from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

from ...runtime.errors import ParameterError
from ...runtime.jsonfile import loads as loads_json
from ...task.vocabulary import LEVELS
from .run_config import RunConfig
from ...runtime.parallel import worker_count
from .pipeline import generate
from ..formats.vmevalkit import DATASET_FILE, NAME

__all__ = ["create_dataset"]

#: The start of a command-line error of ``generate`` -> the same error in the words of
#: ``create_dataset``'s parameters (a library call has no command-line flags).
_PARAMETER_WORDS = (("--count must", "num_samples must"), ("--levels must", "levels must"),
                    ("--seed must", "random_seed must"), ("--workers must", "workers must"),
                    ("--canvas-size must be W or WxH with", "canvas_size must be (W, H) with"))


def _process_temp_folder() -> Path:
    """A new temporary folder, removed (with everything in it) when this process exits."""
    folder = tempfile.mkdtemp(prefix="objsub_fast_")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return Path(folder)


def _check(config: RunConfig, workers) -> None:
    """Raise ParameterError naming the first bad parameter of ``create_dataset`` (not the
    command-line flag ``generate`` names)."""
    try:
        config.validate()
        worker_count(workers)
    except ParameterError as exc:
        message = str(exc)
        for flag, parameter in _PARAMETER_WORDS:
            if message.startswith(flag):
                raise ParameterError(parameter + message[len(flag):]) from None
        raise


def create_dataset(num_samples: int = 50, levels=LEVELS, random_seed: int = 42,
                   output_dir=None, canvas_size=(256, 256), workers: int = 1) -> dict:
    """Generate an object subtraction dataset in VMEvalKit's format and return it.

    ``from objsub_fast import create_dataset`` replaces
    ``from vmevalkit.tasks.object_subtraction_task import create_dataset``: same arguments,
    same returned structure, each pair pointing at real PNG files in VMEvalKit's layout.

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
        Where ``object_subtraction_task/{task_id}/...`` and ``vmeval_dataset.json`` are written.
        Default: a new temporary folder (``metadata["output_dir"]``), removed when the Python
        process exits; its files are there for the life of the process. Pass ``output_dir`` to
        keep them.
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

    Examples
    --------
    >>> import tempfile
    >>> from objsub_fast import create_dataset
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     ds = create_dataset(num_samples=3, levels=["L1", "L4"], output_dir=tmp)
    ...     [p["level"] for p in ds["pairs"]], ds["pairs"][0]["first_image_path"].endswith(
    ...         "first_frame.png")
    (['L1', 'L1', 'L4'], True)
    """
    config = RunConfig(count=num_samples, levels=tuple(levels), seed=random_seed,
                       format=NAME, canvas_size=canvas_size)
    _check(config, workers)
    out = Path(output_dir) if output_dir is not None else _process_temp_folder()
    generate(config, out, workers=workers, quiet=True)
    dataset = loads_json((out / DATASET_FILE).read_text())
    order = {lv: i for i, lv in enumerate(config.levels)}
    dataset["pairs"].sort(key=lambda p: (order[p["level"]], p["task_index"]))
    for p in dataset["pairs"]:
        for key in ("first_image_path", "final_image_path"):
            p[key] = str(out / p[key])
    dataset["metadata"]["output_dir"] = str(out)
    return dataset
