"""Intra 4x4 prediction (``h264.intra4``): the table of where each mode's samples come from
(``MODE_SOURCE``) against the standard's equations for the nine modes (8.3.1.2.1-9) written
out one case at a time, for every mode and every availability of the neighbours."""
import numpy as np
from hypothesis import given, settings, strategies as st

from objsub_fast.ground_truth.h264.intra4 import N_MODES, mode4x4_ok, predict4x4


def standard_prediction(p, mode, left, top):
    """The 4x4 prediction from ``p`` (a dict (x, y) -> sample, x and y from -1: the
    neighbours as 8.3.1.2 names them, the top-right already substituted)."""
    out = np.zeros((4, 4), np.int64)
    for y in range(4):
        for x in range(4):
            if mode == 0:
                v = p[x, -1]
            elif mode == 1:
                v = p[-1, y]
            elif mode == 2:
                top_sum = sum(p[i, -1] for i in range(4))
                left_sum = sum(p[-1, j] for j in range(4))
                v = ((top_sum + left_sum + 4) >> 3 if left and top else
                     (left_sum + 2) >> 2 if left else (top_sum + 2) >> 2 if top else 128)
            elif mode == 3:
                v = ((p[6, -1] + 3 * p[7, -1] + 2) >> 2 if x == 3 and y == 3 else
                     (p[x + y, -1] + 2 * p[x + y + 1, -1] + p[x + y + 2, -1] + 2) >> 2)
            elif mode == 4:
                if x > y:
                    v = (p[x - y - 2, -1] + 2 * p[x - y - 1, -1] + p[x - y, -1] + 2) >> 2
                elif x < y:
                    v = (p[-1, y - x - 2] + 2 * p[-1, y - x - 1] + p[-1, y - x] + 2) >> 2
                else:
                    v = (p[0, -1] + 2 * p[-1, -1] + p[-1, 0] + 2) >> 2
            elif mode == 5:
                z = 2 * x - y
                if z >= 0 and z % 2 == 0:
                    v = (p[x - (y >> 1) - 1, -1] + p[x - (y >> 1), -1] + 1) >> 1
                elif z > 0:
                    v = (p[x - (y >> 1) - 2, -1] + 2 * p[x - (y >> 1) - 1, -1]
                         + p[x - (y >> 1), -1] + 2) >> 2
                elif z == -1:
                    v = (p[-1, 0] + 2 * p[-1, -1] + p[0, -1] + 2) >> 2
                else:
                    v = (p[-1, y - 1] + 2 * p[-1, y - 2] + p[-1, y - 3] + 2) >> 2
            elif mode == 6:
                z = 2 * y - x
                if z >= 0 and z % 2 == 0:
                    v = (p[-1, y - (x >> 1) - 1] + p[-1, y - (x >> 1)] + 1) >> 1
                elif z > 0:
                    v = (p[-1, y - (x >> 1) - 2] + 2 * p[-1, y - (x >> 1) - 1]
                         + p[-1, y - (x >> 1)] + 2) >> 2
                elif z == -1:
                    v = (p[-1, 0] + 2 * p[-1, -1] + p[0, -1] + 2) >> 2
                else:
                    v = (p[x - 1, -1] + 2 * p[x - 2, -1] + p[x - 3, -1] + 2) >> 2
            elif mode == 7:
                if y % 2 == 0:
                    v = (p[x + (y >> 1), -1] + p[x + (y >> 1) + 1, -1] + 1) >> 1
                else:
                    v = (p[x + (y >> 1), -1] + 2 * p[x + (y >> 1) + 1, -1]
                         + p[x + (y >> 1) + 2, -1] + 2) >> 2
            else:
                z = x + 2 * y
                if z < 5 and z % 2 == 0:
                    v = (p[-1, y + (x >> 1)] + p[-1, y + (x >> 1) + 1] + 1) >> 1
                elif z < 5:
                    v = (p[-1, y + (x >> 1)] + 2 * p[-1, y + (x >> 1) + 1]
                         + p[-1, y + (x >> 1) + 2] + 2) >> 2
                elif z == 5:
                    v = (p[-1, 2] + 3 * p[-1, 3] + 2) >> 2
                else:
                    v = p[-1, 3]
            out[y, x] = v
    return out


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), left=st.booleans(), top=st.booleans(),
       top_right=st.booleans(), flat=st.booleans())
def test_every_mode_predicts_as_the_standard_says(seed, left, top, top_right, flat):
    rng = np.random.default_rng(seed)
    pic = rng.integers(0, 256, (8, 12), dtype=np.uint8)
    if flat:   # few distinct values: ties and equal neighbours
        pic = (pic // 128 * 255).astype(np.uint8)
    y0, x0 = 4, 4
    p = {(x, -1): int(pic[y0 - 1, x0 + x]) for x in range(-1, 8)}
    p.update({(-1, y): int(pic[y0 + y, x0 - 1]) for y in range(4)})
    if not top_right:
        p.update({(x, -1): p[3, -1] for x in range(4, 8)})
    checked = 0
    for mode in range(N_MODES):
        if not mode4x4_ok(mode, left, top):
            continue
        out = np.full((4, 4), -1, np.int64)
        predict4x4(pic, y0, x0, mode, left, top, top_right, out, 0, 0)
        assert (out == standard_prediction(p, mode, left, top)).all(), mode
        checked += 1
    assert checked == 1 + 3 * top + 2 * left + 3 * (left and top)
