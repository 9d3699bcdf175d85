"""``score_video``: one task record and one video (or frames) in, one result dict out."""
from __future__ import annotations

import os

from ..runtime.errors import TaskError, VideoError
from .judging.continuous import continuous_score
from .reading.limits import Limits
from .judging.metrics import THRESHOLDS, TaskModel, Tracker, score_frames
from .reading.question import as_task_record
from .reading.register import register
from .reporting.report import verdict
from .reading.frames import FrameStream


def _registration(model: TaskModel):
    """``FrameStream``'s ``register``: frame 0 registered on the task's objects; a single
    final image shows the kept objects only, a video starts with all of them."""
    kept = ~model.removed
    return lambda frame, kind: register(frame, model, kept if kind == "image" else None)

__all__ = ["score_video", "score_video_tracked", "task_fields", "error_record", "object_names",
           "THRESHOLDS"]


def task_fields(record) -> dict:
    """``task_id``, ``level`` and ``rule_kind`` of a (possibly malformed) task record: each a
    short string or None (a value of another type or length is None, so that no summary
    groups or prints it).

    Examples
    --------
    >>> task_fields({"id": "t1", "level": {"a": 1}})
    {'task_id': 't1', 'level': None, 'rule_kind': None}
    """
    rec = record if isinstance(record, dict) else {}
    data = rec.get("object_subtraction_data") or {}
    rule = data.get("rule") or {} if isinstance(data, dict) else {}
    kind = rule.get("rule_type") if isinstance(rule, dict) else None
    return {"task_id": _word(rec.get("id")), "level": _word(rec.get("level")),
            "rule_kind": _word(kind)}


def _word(value):
    """``value`` if it is a string of at most ``MAX_ID_CHARS`` characters (an integer id as
    its string), else None."""
    from .reading.question import MAX_ID_CHARS

    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    return value if isinstance(value, str) and len(value) <= MAX_ID_CHARS else None


def error_record(out: dict, message: str) -> dict:
    """``out`` completed as the record of an output that could not be scored."""
    res = {**out, "error": message, "frames": 0, "metrics": {}, "pass": False, "score": 0.0,
           "dimensions": {}}
    return {**res, "verdict": verdict(res)}


def score_video_tracked(task_record: dict, frames_or_path, threads: int = 1,
                        keep_samples: int = 0, limits: Limits | None = None):
    """:func:`score_video`, also returning the ``track.Tracker`` (None on an error record),
    which holds the sampled frames, positions and cameras a report draws."""
    task_record = as_task_record(task_record)  # as loaded from any record file we write
    out = task_fields(task_record)
    out["source"] = (os.fspath(frames_or_path) if isinstance(frames_or_path, (str, os.PathLike))
                     else type(frames_or_path).__name__)
    try:
        model = TaskModel(task_record)
        tracker = Tracker(model, keep_samples=keep_samples)
        stream = FrameStream(frames_or_path, model.canvas_size, threads=threads,
                             register=_registration(model), lut=tracker.detect.lut,
                             limits=limits)
        res = score_frames(model, stream, single_image=stream.kind == "image", tracker=tracker)
    except (TaskError, VideoError) as exc:
        return error_record(out, str(exc)), None
    except Exception as exc:  # noqa: BLE001 - a scoring run must never die on one input
        return error_record(out, f"unexpected {type(exc).__name__}: {exc}"), None
    warp = stream.mapper
    y0, y1, x0, x1 = (int(v) for v in warp.box)
    frame = {"kind": stream.kind, "size": [int(v) for v in warp.source_size],
             "content_box": [x0, y0, x1, y1]}
    if stream.shown_size is not None and tuple(stream.shown_size) != tuple(warp.source_size):
        frame["display_size"] = [int(v) for v in stream.shown_size]   # non-square pixels
    score, dims = continuous_score(res["metrics"])
    res = {**out, "error": None, "input": frame, "registration": warp.mapping.to_dict(), **res,
           "score": score, "dimensions": dims, "objects": object_names(model)}
    return {**res, "verdict": verdict(res)}, tracker


def object_names(model: TaskModel) -> dict:
    """Task object id (a string, as JSON keys are) -> its colour and shape in words."""
    q = model.question
    return {str(o["id"]): f"{o['color']} {o['shape']}" for o in q.objects}


def score_video(task_record: dict, frames_or_path, threads: int = 1,
                limits: Limits | None = None) -> dict:
    """Score one model output against its task.

    Parameters
    ----------
    task_record : dict
        The task record (``batch.task(i)``), or the JSON of any record file the project
        writes as loaded (VMEvalKit's ``question_metadata.json``, VBVR's ``metadata.json``,
        a WebDataset sample's ``.json``; ``question.find_record``), validated by
        ``question.check_question``.
    frames_or_path : path-like or array
        A video file, a folder of frame images, a single final image, or frames in memory
        ((F, H, W, 3) / (H, W, 3) uint8 or a list of (H, W, 3)). Frames of any size are
        registered on the task's first frame (``register``) and mapped onto its canvas.
    threads : int
        Decoder threads.
    limits : limits.Limits, optional
        What reading the output may cost: frames, pixels a frame, decoded bytes, seconds
        (default ``Limits()``, far above any real model's video); an output over one gives an
        error record naming the limit. Files are opened only if regular, never through a
        symbolic link, and every frame is read in frame 0's geometry.

    Returns
    -------
    dict
        ``task_id``, ``level``, ``rule_kind``, ``source``, ``error`` (None, or the reason the
        task could not be scored), ``frames``, ``metrics`` (per metric a dict with ``pass`` and
        its measurements, see ``thresholds.THRESHOLDS``), ``pass``, ``score`` in [0, 1] and its
        ``dimensions`` (``continuous``), ``registration`` (the mapping found and its residual)
        and ``input``: the source kind, its frame size (W, H) and the frame region (x0, y0, x1,
        y1) that covers the canvas; ``verdict``, one line: "PASS: every check passed." or
        "FAIL: " and the most telling reason (``report.verdict``). An unscorable input gives
        ``error`` set, ``pass`` False, ``score`` 0 and empty ``metrics``; it never raises.

    Examples
    --------
    >>> from objsub_fast import generate_batch
    >>> from objsub_fast.scoring import render_transition, score_video
    >>> batch = generate_batch([1])
    >>> video = render_transition(batch, "fade", num_frames=8)[0]
    >>> result = score_video(batch.task(0), video)
    >>> result["pass"], result["score"], result["metrics"]["rule_accuracy"]["pass"]
    (True, 1.0, True)
    >>> result["verdict"]
    'PASS: every check passed.'
    >>> still = score_video(batch.task(0), video[:1].repeat(8, axis=0))   # a static video
    >>> still["pass"], still["score"]
    (False, 0.0)
    """
    return score_video_tracked(task_record, frames_or_path, threads, limits=limits)[0]
