"""Read-outs voted over the frames around each: a change counts only when most of the frames
around it agree, so a frame or two of codec smear changes nothing; runs of presence."""
from __future__ import annotations

import numpy as np

__all__ = ["voted", "change_start", "read_changed", "runs", "reappeared"]


def voted(values: np.ndarray, window: int) -> np.ndarray:
    """The median of ``values`` over the ``window`` values around each (a window of the same
    length at the ends, all of them when there are fewer): a read-out counts only when most of
    the frames around it agree, so a frame or two of codec smear changes nothing.

    Examples
    --------
    >>> voted(np.array([0, 0, 1, 1, 0, 0, 0, 1, 1, 1.]), 5).tolist()
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0]
    """
    n = len(values)
    if n <= window:
        return np.full(n, np.median(values))
    half = window // 2
    start = np.clip(np.arange(n) - half, 0, n - window)
    return np.median(values[start[:, None] + np.arange(window)], axis=1)


def change_start(voted: np.ndarray, raw: np.ndarray) -> int:
    """Where a voted change starts: its first frame that reads changed on its own (the vote's
    window reaches a few frames ahead), else its first frame."""
    both = voted & raw
    return int(np.argmax(both if both.any() else voted))


def read_changed(codes: np.ndarray, default: int, window: int, confirm=None) -> np.ndarray:
    """Per frame of ``codes`` (an object's colour or shape read-outs over the frames it is seen
    in, -1 uncertain): whether most of the ``window`` frames around it (:func:`voted`) read
    something other than its own read-out, the most common one of its first ``window`` frames
    (``default`` when none is certain), in frames where ``confirm`` holds (default: all). A
    blur or restyle that changes every frame alike is no change; a frame or two of codec
    smear are outvoted.

    Examples
    --------
    >>> bool(read_changed(np.array([2, 1, 1, 1, 3, 1, 1, 1, 1]), 0, 5).any())
    False
    >>> int(np.argmax(read_changed(np.array([1, 1, 1, 1, 1, 3, 3, 3, 3]), 0, 5)))
    5
    """
    first = codes[:window][codes[:window] >= 0]
    own = int(np.bincount(first).argmax()) if first.size else int(default)
    flags = (codes >= 0) & (codes != own)
    if confirm is not None:
        flags &= confirm
    return voted(flags.astype(float), window) > 0.5


def runs(flags: np.ndarray):
    """Run-length encode a bool sequence: list of (value, length)."""
    out = []
    for v in flags.tolist():
        if out and out[-1][0] == v:
            out[-1][1] += 1
        else:
            out.append([v, 1])
    return out


def reappeared(present: np.ndarray, min_run: int) -> int | None:
    """The frame an object came back in: the start of the first present run of >= min_run
    frames after an absent run of >= min_run frames; None when it never did."""
    seen_gap, start = False, 0
    for v, n in runs(present):
        if not v and n >= min_run:
            seen_gap = True
        elif v and n >= min_run and seen_gap:
            return start
        start += n
    return None
