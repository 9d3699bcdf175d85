"""Black bars and a letterboxed frame's content: :func:`content_box`, the guess that needs no
task (``video.FrameStream`` uses it on its own; ``register.bars_mapping`` makes it one more
mapping hypothesis). Its own module, so that the video reader and the registration, which use
each other's results, never import each other."""
from __future__ import annotations

import numpy as np

__all__ = ["content_box", "UNIFORM_SPREAD", "WHITE_MIN", "MAX_CUT_FRACTION"]

#: A row/column is "uniform" when each channel's 2nd..98th percentile spread is at most this.
UNIFORM_SPREAD = 24
#: A uniform run counts as white (possibly canvas background) when its darkest channel is >= this.
WHITE_MIN = 200
#: Never cut more than this fraction of a dimension (guards against all-black fade-in frames).
MAX_CUT_FRACTION = 0.75




def _uniform_runs(lines: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per line of ``lines`` (L, n, 3): whether it is uniform, and its median colour."""
    # The 2nd, 50th and 98th percentiles (linearly interpolated, as np.percentile) of one sort
    # along the last, contiguous axis: the same values, several times faster.
    ordered = np.sort(np.ascontiguousarray(lines.transpose(0, 2, 1)), axis=2).astype(float)
    lo, med, hi = (_percentile_of_sorted(ordered, q) for q in (2, 50, 98))
    uniform = (hi - lo).max(axis=1) <= UNIFORM_SPREAD
    return uniform, med


def _percentile_of_sorted(ordered: np.ndarray, q: float) -> np.ndarray:
    """The ``q``-th percentile along the last axis of ``ordered`` (sorted), interpolated
    linearly between the two nearest ranks."""
    rank = q / 100 * (ordered.shape[-1] - 1)
    below = int(np.floor(rank))
    above = min(below + 1, ordered.shape[-1] - 1)
    return ordered[..., below] + (rank - below) * (ordered[..., above] - ordered[..., below])


def _edge_run(uniform: np.ndarray, white: np.ndarray, want_white: bool) -> int:
    """Length of the leading run of uniform lines that are (not) white, as asked."""
    ok = uniform & (white == want_white)
    bad = np.flatnonzero(~ok)
    return int(bad[0]) if bad.size else int(ok.size)


def content_box(frame: np.ndarray, canvas_size: tuple[int, int]) -> tuple[int, int, int, int]:
    """Return the content box ``(y0, y1, x0, x1)`` of ``frame`` once bars are removed.

    Parameters
    ----------
    frame : (H, W, 3) uint8 array
        A reference frame (normally the first frame of the video).
    canvas_size : (W, H)
        The task's canvas size; its aspect ratio decides how much white padding is cut.
    """
    H, W = frame.shape[:2]
    # Subsample lines: about 64 samples per line are plenty for a uniformity test.
    rs = max(1, W // 64)
    cs = max(1, H // 64)
    rows = frame[:, ::rs].astype(np.int16)
    cols = frame[::cs, :].astype(np.int16).transpose(1, 0, 2)
    ru, rc = _uniform_runs(rows)
    cu, cc = _uniform_runs(cols)
    rw = rc.min(axis=1) >= WHITE_MIN
    cw = cc.min(axis=1) >= WHITE_MIN
    # 1. Non-white bars on each edge.
    top = _edge_run(ru, rw, False)
    bottom = _edge_run(ru[::-1], rw[::-1], False)
    left = _edge_run(cu, cw, False)
    right = _edge_run(cu[::-1], cw[::-1], False)
    if top + bottom > MAX_CUT_FRACTION * H:
        top = bottom = 0
    if left + right > MAX_CUT_FRACTION * W:
        left = right = 0
    y0, y1, x0, x1 = top, H - bottom, left, W - right
    # 2. White padding: cut only what restores the canvas aspect ratio.
    aspect = canvas_size[0] / canvas_size[1]
    h, w = y1 - y0, x1 - x0
    if w > aspect * h * 1.01:
        x0, x1 = _cut_white(x0, x1, w - int(round(aspect * h)), cu[x0:x1], cw[x0:x1])
    elif h * aspect > w * 1.01:
        y0, y1 = _cut_white(y0, y1, h - int(round(w / aspect)), ru[y0:y1], rw[y0:y1])
    return y0, y1, x0, x1


def _cut_white(a: int, b: int, excess: int, uniform, white) -> tuple[int, int]:
    """Cut ``excess`` lines of uniform white from the two ends of [a, b), balanced when possible."""
    lo_room = _edge_run(uniform, white, True)
    hi_room = _edge_run(uniform[::-1], white[::-1], True)
    lo = min(lo_room, excess // 2)
    hi = min(hi_room, excess - lo)
    lo = min(lo_room, excess - hi)
    return a + lo, b - hi
