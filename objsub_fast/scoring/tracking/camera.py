"""Camera motion per frame: a zoom about the canvas centre and a pan, from the kept objects.

Model: an object drawn at ``q`` (canvas px) is seen at ``p = c + s * (q - c) + t``, with ``c`` the
canvas centre, ``s`` the zoom and ``t`` the pan of the centre. Generated video often pushes in
(3-5%), pans a few pixels or jitters by a pixel; kept objects are judged where the camera puts
them, so none of that fails a correct removal, while one kept object moving relative to the
others still does.

Estimation (:func:`estimate_camera`), robust by construction:

- Points are the kept objects matched in the frame; the removed objects never vote, except that
  when fewer than three kept objects are matched, the removed objects are added as long as every
  one of them is still whole and where frame 0 showed it (``metrics.Tracker``); from the first
  frame one of them changes, they never vote again.
- Four or more points: a consensus over the similarity transforms of every pair of points (and
  the previous camera): the one that puts most points within :data:`INLIER_PX` of where they are
  seen wins (then the smaller residual), and it must explain a strict majority of them and at
  least three; a least-squares refit over those follows. One drifting object cannot pull it.
- Three points: the zoom and pan are estimated from all three when each point lies within
  :data:`INLIER_PX` of where the fit of the other two puts it (a leave-one-out check: an
  object that moved on its own is off the fit of the two that did not, so it is never absorbed
  into a zoom), and of the joint fit. Without that agreement, and always with two points (a
  pair fits a zoom and a pan exactly, so it cannot tell a zoom from one object moving), the
  zoom is kept and only the pan is estimated, from the per-axis median offset, when the points
  agree within :data:`INLIER_PX` (both of two, two of three).
- Fewer points, or no agreement: the previous frame's camera is kept (the camera of frame 0 is
  the identity).
"""
from __future__ import annotations

import numpy as np

from ...runtime._numba import kernel

__all__ = ["estimate_camera", "apply_camera", "fit_camera", "INLIER_PX", "object_cameras",
           "search_places"]

#: Residual (canvas px at 256x256) within which a point agrees with a camera.
INLIER_PX = 1.5


def apply_camera(q: np.ndarray, cam, center) -> np.ndarray:
    """Where camera ``cam = (s, tx, ty)`` shows canvas points ``q`` (N, 2)."""
    s, tx, ty = cam
    return center + s * (q - center) + np.array([tx, ty])


def object_cameras(model, cam, positions, present, k) -> np.ndarray:
    """(K, 3) the camera (s, tx, ty) each of objects ``k`` of ``model`` is seen through in a
    frame whose camera is ``cam``, where ``positions`` (M, 2) and ``present`` (M,) say it is:
    the scene's zoom, and the pan that puts its drawn centroid where it is seen (NaN rows: not
    seen).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> model = SimpleNamespace(cx=np.array([10.0]), cy=np.array([20.0]), center=(16.0, 16.0))
    >>> object_cameras(model, (1.0, 0.0, 0.0), np.array([[13.0, 19.0]]), np.array([True]),
    ...                np.array([0])).tolist()
    [[1.0, 3.0, -1.0]]
    """
    s = cam[0]
    c = np.asarray(model.center, float)
    q = np.stack([model.cx[k], model.cy[k]], axis=1)
    out = np.column_stack([np.full(len(k), s), positions[k] - c - s * (q - c)])
    out[~present[k]] = np.nan
    return out


def search_places(model, ref_x, ref_y, last_seen, cameras, lost, gate):
    """(ref_x, ref_y, reach) to match ``model``'s objects in the latest frame of ``cameras``:
    a ``lost`` removed object is looked for only within ``gate`` of where it was last seen
    (frame ``last_seen``), moved by the camera since then (identity follows place); a lost
    kept object anywhere (a teleport is then seen as a jump)."""
    reach = np.full(len(model.cx), np.inf)
    away = lost & model.removed & (last_seen >= 0)
    if not away.any() or not cameras:
        return ref_x, ref_y, reach
    reach[away] = gate
    ref_x, ref_y = ref_x.copy(), ref_y.copy()
    s1, tx1, ty1 = cameras[-1]
    c = model.center
    for k in np.flatnonzero(away):
        s0, tx0, ty0 = cameras[last_seen[k]]
        f = s1 / s0
        ref_x[k] = c[0] + f * (ref_x[k] - c[0] - tx0) + tx1
        ref_y[k] = c[1] + f * (ref_y[k] - c[1] - ty0) + ty1
    return ref_x, ref_y, reach


def fit_camera(p, q, center):
    """Least-squares (s, tx, ty) of p = c + s (q - c) + t."""
    p, q = np.ascontiguousarray(p, float), np.ascontiguousarray(q, float)
    return _fit(p, q, float(center[0]), float(center[1]), np.ones(len(p), np.bool_))


def estimate_camera(p: np.ndarray, q: np.ndarray, center, prev, unit: float = 1.0):
    """Camera ``(s, tx, ty)`` of one frame from seen points ``p`` of drawn points ``q``.

    Parameters
    ----------
    p, q : (N, 2) float arrays
        Seen and drawn centroids (canvas px) of the points that vote (see the module docstring).
    center : (2,) canvas centre
    prev : (s, tx, ty)
        The previous frame's camera, kept when the points cannot decide.
    unit : float
        Canvas scale (min(W, H) / 256): :data:`INLIER_PX` is multiplied by it.

    Examples
    --------
    >>> import numpy as np
    >>> q = np.array([[50., 50.], [200., 60.], [120., 200.], [60., 180.]])
    >>> c = np.array([127.5, 127.5])
    >>> p = c + 1.04 * (q - c) + [3, -2]
    >>> p[3] += [9, 0]                      # one object moves on its own
    >>> [round(v, 3) for v in estimate_camera(p, q, c, (1.0, 0.0, 0.0))]
    [1.04, 3.0, -2.0]
    """
    return _estimate(np.ascontiguousarray(p, float), np.ascontiguousarray(q, float),
                     float(center[0]), float(center[1]), np.asarray(prev, float),
                     INLIER_PX * unit)


@kernel(nogil=True)
def _fit(p, q, cx, cy, use):
    """Least-squares (s, tx, ty) of p = c + s (q - c) + t over the points ``use``."""
    n = 0
    am0 = am1 = bm0 = bm1 = 0.0
    for i in range(p.shape[0]):
        if use[i]:
            n += 1
            am0 += q[i, 0] - cx
            am1 += q[i, 1] - cy
            bm0 += p[i, 0] - cx
            bm1 += p[i, 1] - cy
    am0, am1, bm0, bm1 = am0 / n, am1 / n, bm0 / n, bm1 / n
    den = num = 0.0
    for i in range(p.shape[0]):
        if use[i]:
            a0, a1 = q[i, 0] - cx - am0, q[i, 1] - cy - am1
            den += a0 * a0 + a1 * a1
            num += a0 * (p[i, 0] - cx - bm0) + a1 * (p[i, 1] - cy - bm1)
    s = num / den if den > 1e-9 else 1.0
    return s, bm0 - s * am0, bm1 - s * am1


@kernel(nogil=True)
def _estimate(p, q, cx, cy, prev, tol):
    """:func:`estimate_camera` on (N, 2) arrays: the consensus over ``prev`` and the pair fits,
    the agreeing fit of three, or the pan of two or three points (see the module docstring)."""
    n = p.shape[0]
    if n == 3:
        agree, cam = _three_point_fit(p, q, cx, cy, tol)
        if agree:
            return cam
    if n == 2 or n == 3:
        return _pan_only(p, q, cx, cy, prev, tol)
    if n < 4:
        return prev[0], prev[1], prev[2]
    best = (prev[0], prev[1], prev[2])        # the previous camera is the first candidate
    best_inl, best_res = _agreement(p, q, cx, cy, best, tol)
    pair = np.zeros(n, np.bool_)
    for a in range(n):
        for b in range(a + 1, n):
            pair[:] = False
            pair[a] = pair[b] = True
            cam = _fit(p, q, cx, cy, pair)
            inl, res = _agreement(p, q, cx, cy, cam, tol)
            if inl > best_inl or (inl == best_inl and res < best_res):
                best_inl, best_res, best = inl, res, cam
    if best_inl < max(3, n // 2 + 1):
        return prev[0], prev[1], prev[2]
    use = np.zeros(n, np.bool_)
    for i in range(n):
        use[i] = _off_fit(p, q, cx, cy, best, i) <= tol
    return _fit(p, q, cx, cy, use)


@kernel(nogil=True)
def _off_fit(p, q, cx, cy, cam, i):
    """Distance of point ``i`` from where camera ``cam`` puts it."""
    return np.hypot(p[i, 0] - (cx + cam[0] * (q[i, 0] - cx) + cam[1]),
                    p[i, 1] - (cy + cam[0] * (q[i, 1] - cy) + cam[2]))


@kernel(nogil=True)
def _agreement(p, q, cx, cy, cam, tol):
    """(how many points lie within ``tol`` of where camera ``cam`` puts them, the sum of their
    distances)."""
    inl, res = 0, 0.0
    for i in range(p.shape[0]):
        r = _off_fit(p, q, cx, cy, cam, i)
        if r <= tol:
            inl += 1
            res += r
    return inl, res


@kernel(nogil=True)
def _three_point_fit(p, q, cx, cy, tol):
    """(whether three points agree, their joint fit): each must lie within ``tol`` of the fit of
    the other two (one object that moved on its own is off the fit of the two that did not, so
    it is never absorbed into a zoom) and of the joint fit."""
    use = np.ones(3, np.bool_)
    for other in range(3):
        use[:] = True
        use[other] = False
        if _off_fit(p, q, cx, cy, _fit(p, q, cx, cy, use), other) > tol:
            return False, (1.0, 0.0, 0.0)
    use[:] = True
    cam = _fit(p, q, cx, cy, use)
    for i in range(3):
        if _off_fit(p, q, cx, cy, cam, i) > tol:
            return False, cam
    return True, cam


@kernel(nogil=True)
def _pan_only(p, q, cx, cy, prev, tol):
    """With two or three points the zoom is kept and only the pan is estimated: each axis's
    median offset, refitted over the points within ``tol`` of it; all must agree with two
    points, two of three with three (else the previous camera)."""
    s = prev[0]
    n = p.shape[0]
    off = np.empty((n, 2))
    for i in range(n):
        off[i, 0] = p[i, 0] - cx - s * (q[i, 0] - cx)
        off[i, 1] = p[i, 1] - cy - s * (q[i, 1] - cy)
    m0, m1 = np.median(off[:, 0]), np.median(off[:, 1])
    k, t0, t1 = 0, 0.0, 0.0
    for i in range(n):
        if np.hypot(off[i, 0] - m0, off[i, 1] - m1) <= tol:
            k += 1
            t0 += off[i, 0]
            t1 += off[i, 1]
    if k < max(2, n - 1):
        return prev[0], prev[1], prev[2]
    return s, t0 / k, t1 / k


class CameraVote:
    """Each frame's camera from the objects seen (:func:`estimate_camera`): the kept objects,
    and the removed ones while fewer than three kept objects are seen and none of the removed
    has started to change (moved off its frame-0 place, changed size or gone)."""

    #: Removed objects vote while their area is within this range of the drawn area ...
    WHOLE_RANGE = (0.75, 1.33)
    #: ... and while each stays within this many px (at 256) of where frame 0 showed it.
    NEAR_PX = 1.5

    def __init__(self, model):
        self.model = model
        self.removed_vote, self.first_seen = True, None
        self._drawn = np.stack([model.cx, model.cy], axis=1)

    def __call__(self, hit, comps, idx, prev, visible):
        """(this frame's camera, (M, 2) each object's centroid, NaN where not seen), from the
        objects ``hit`` matched to components ``idx`` of ``comps``, ``prev`` the last frame's
        camera, ``visible`` the objects the frames show."""
        m = self.model
        p = np.full((len(hit), 2), np.nan)
        p[hit, 0], p[hit, 1] = comps.cx[idx], comps.cy[idx]
        q = self._drawn
        if self.first_seen is None:      # frame 0: where each object starts
            self.first_seen = p.copy()
        kept = hit & ~m.removed & visible
        vote = kept
        if kept.sum() < 3 and self.removed_vote:
            # Removed objects vote only until the first of them changes (moves off its frame-0
            # place, changes size or goes): after that they could drag the camera along.
            area = np.full(len(hit), np.nan)
            area[hit] = comps.area[idx]
            ratio = area / m.area
            rem = m.removed & visible & np.isfinite(self.first_seen[:, 0])
            still = hit & (np.hypot(*(p - self.first_seen).T) <= self.NEAR_PX * m.unit) \
                & (ratio >= self.WHOLE_RANGE[0]) & (ratio <= self.WHOLE_RANGE[1])
            self.removed_vote = bool(still[rem].all())
            if self.removed_vote:
                vote = kept | rem
        if vote.sum() == 2 and (vote & m.removed).any():
            return prev, p      # two points decide a camera only when both are kept objects
        return estimate_camera(p[vote], q[vote], m.center, prev, m.unit), p
