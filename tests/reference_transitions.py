"""The transition planner as it was before ``TransitionPlan`` (object by object, frame by frame,
in plain Python): the reference the vectorised plan is tested against."""
import numpy as np

from objsub_fast.ground_truth.transitions import (CLASSIC_LOOK, Step, _clipped,
                                                  frame_progress, _sprite_mask, plan_slides)
from objsub_fast.task.vocabulary import OUTLINE_RGB


def _removed_painter(left, top, size, color, shape, removed, style, canvas_size, look):
    """A function ``paints(t)`` that lists how the removed objects are drawn at progress ``t``
    in (0, 1) onto the final frame, by the per-style rule of the module docstring and with
    ``look``: {object: (sprite mask, left, top, fill, outline)} for each object drawn."""
    ks = np.flatnonzero(removed)
    plans = (plan_slides(left, top, size, removed, canvas_size) if style == "slide"
             else [None] * len(size))
    line = tuple(OUTLINE_RGB)
    fills = {int(k): tuple(look.rgb[int(color[k])]) for k in ks}
    smallest = -(-3 * look.outline // 2)  # 1.5 outline widths, rounded up: 3 px at 256

    def place(k, tf):
        """(sprite side, left, top, fill, outline) of removed object k at progress tf, or None
        when it is not drawn (shrunk below ``smallest``)."""
        s, x, y = int(size[k]), int(left[k]), int(top[k])
        fill = fills[int(k)]
        if style == "slide" and plans[k] is not None:
            dx, dy, dist = plans[k]
            off = int(round(tf * dist))
            return s, x + dx * off, y + dy * off, fill, line
        if style == "shrink":
            s2 = int(round(s * (1.0 - tf)))
            if s2 < smallest:
                return None
            return (s2, int(round(left[k] + s / 2 - s2 / 2)), int(round(top[k] + s / 2 - s2 / 2)),
                    fill, line)
        # fade (also the fallback of a slide without a clear exit)
        keep = 1.0 - tf

        def blend(rgb):   # round half to even, as numpy's rint
            return tuple(round(keep * float(v) + tf * 255.0) for v in rgb)
        return s, x, y, blend(fill), blend(line)

    def paints(tf):
        out = {}
        for k in ks:
            placed = place(k, tf)
            if placed is not None:
                s, x, y, fill, outline = placed
                out[int(k)] = (_sprite_mask(look.shapes[int(shape[k])], s, look.outline), x, y,
                               fill, outline)
        return out

    return paints


def reference_steps(first, left, top, size, color, shape, removed, style, num_frames,
                     look=CLASSIC_LOOK) -> list:
    """The steps of one transition, planned object by object and frame by frame."""

    ks = np.flatnonzero(removed)
    h, w = first.shape[:2]
    paints = _removed_painter(left, top, size, color, shape, removed, style, (w, h), look)
    squares = [(max(int(top[k]), 0), min(int(top[k] + size[k]), h),
                max(int(left[k]), 0), min(int(left[k] + size[k]), w)) for k in ks]
    steps = []
    previous = None  # rectangles in which the frame differs from `final` (None: not drawn yet)
    placed = {int(k): (_sprite_mask(look.shapes[int(shape[k])], int(size[k]), look.outline),
                       int(left[k]), int(top[k])) for k in ks}   # as in the first frame
    for tf in frame_progress(num_frames).tolist():
        if tf <= 0.0:  # the held first frame: it differs from `final` in the removed squares
            steps.append(Step("first", [], [], None) if previous is None
                         else Step(None, [], [], []))
            previous = squares
            continue
        fresh = previous is None
        restored = [] if fresh else previous
        drawn = paints(tf) if tf < 1.0 else {}
        reshaped = any(mask is not placed[k][0] for k, (mask, *_) in drawn.items())
        motion = None if reshaped else sorted({(x - placed[k][1], y - placed[k][2])
                                               for k, (_, x, y, _, _) in drawn.items()
                                               if (x, y) != placed[k][1:]})
        placed.update({k: paint[:3] for k, paint in drawn.items()})
        drawn = list(drawn.values())
        rects = [_clipped(mask, x, y, h, w) for mask, x, y, _, _ in drawn]
        previous = [r for r in rects if r is not None]
        steps.append(Step("final" if fresh else None, restored, drawn,
                          None if fresh else restored + previous, motion))
    return steps

