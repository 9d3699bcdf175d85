"""``score_video``: one task record and one video (or frames) in, one result dict out."""
from __future__ import annotations

import os

from .metrics import THRESHOLDS, TaskError, TaskModel, score_frames
from .video import FrameStream, VideoError


def task_fields(record) -> dict:
    """``task_id``, ``level`` and ``rule_kind`` of a (possibly malformed) task record."""
    rec = record if isinstance(record, dict) else {}
    data = rec.get("object_subtraction_data") or {}
    rule = data.get("rule") or {} if isinstance(data, dict) else {}
    return {"task_id": rec.get("id"), "level": rec.get("level"),
            "rule_kind": rule.get("rule_type") if isinstance(rule, dict) else None}


def score_video(task_record: dict, frames_or_path, threads: int = 1) -> dict:
    """Score one model output against its task.

    Parameters
    ----------
    task_record : dict
        The task record (``question_metadata.json`` / ``batch.task(i)``).
    frames_or_path : path-like or array
        A video file, a folder of frame images, a single final image, or frames in memory
        ((F, H, W, 3) / (H, W, 3) uint8 or a list of (H, W, 3)). Frames of any size are mapped
        onto the task's canvas (letterbox/pillarbox bars removed, then resized).
    threads : int
        Decoder threads.

    Returns
    -------
    dict
        ``task_id``, ``level``, ``rule_kind``, ``source``, ``error`` (None, or the reason the
        task could not be scored), ``frames``, ``metrics`` (per metric a dict with ``pass`` and
        its measurements, see ``metrics.THRESHOLDS``), ``pass``, and ``input``: the source kind,
        its frame size (W, H) and the content box (x0, y0, x1, y1) mapped onto the canvas once
        bars were removed. An unscorable input gives
        ``error`` set, ``pass`` False and empty ``metrics``; it never raises.
    """
    out = task_fields(task_record)
    out["source"] = (os.fspath(frames_or_path) if isinstance(frames_or_path, (str, os.PathLike))
                     else type(frames_or_path).__name__)
    try:
        model = TaskModel(task_record)
        stream = FrameStream(frames_or_path, model.canvas_size, threads=threads)
        res = score_frames(model, stream, single_image=stream.kind == "image")
    except (TaskError, VideoError) as exc:
        return {**out, "error": str(exc), "frames": 0, "metrics": {}, "pass": False}
    except Exception as exc:  # noqa: BLE001 - a scoring run must never die on one input
        return {**out, "error": f"unexpected {type(exc).__name__}: {exc}", "frames": 0,
                "metrics": {}, "pass": False}
    mapper = stream.mapper
    y0, y1, x0, x1 = (int(v) for v in mapper.box)
    frame = {"kind": stream.kind, "size": [int(v) for v in mapper.source_size],
             "content_box": [x0, y0, x1, y1]}
    return {**out, "error": None, "input": frame, **res}


__all__ = ["score_video", "THRESHOLDS"]
