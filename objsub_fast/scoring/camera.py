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
  into a zoom). Without that agreement, and always with two points (a pair fits a zoom and a
  pan exactly, so it cannot tell a zoom from one object moving), the zoom is kept and only the
  pan is estimated, from the per-axis median offset, when the points agree within
  :data:`INLIER_PX` (both of two, two of three).
- Fewer points, or no agreement: the previous frame's camera is kept (the camera of frame 0 is
  the identity).
"""
from __future__ import annotations

import numpy as np

__all__ = ["estimate_camera", "apply_camera", "fit_camera", "INLIER_PX"]

#: Residual (canvas px at 256x256) within which a point agrees with a camera.
INLIER_PX = 1.5


def apply_camera(q: np.ndarray, cam, center) -> np.ndarray:
    """Where camera ``cam = (s, tx, ty)`` shows canvas points ``q`` (N, 2)."""
    s, tx, ty = cam
    return center + s * (q - center) + np.array([tx, ty])


def fit_camera(p, q, center):
    """Least-squares (s, tx, ty) of p = c + s (q - c) + t."""
    a = q - center
    b = p - center
    am, bm = a.mean(axis=0), b.mean(axis=0)
    den = float(((a - am) ** 2).sum())
    s = float(((a - am) * (b - bm)).sum() / den) if den > 1e-9 else 1.0
    t = bm - s * am
    return s, float(t[0]), float(t[1])


def _pair_fits(p, q, center) -> np.ndarray:
    """Least-squares (s, tx, ty) of every pair of points, (n (n - 1) / 2, 3)."""
    i, j = np.triu_indices(len(p), 1)
    a = np.stack([q[i], q[j]], axis=1) - center        # (P, 2, 2)
    b = np.stack([p[i], p[j]], axis=1) - center
    a0, b0 = a - a.mean(axis=1, keepdims=True), b - b.mean(axis=1, keepdims=True)
    den = (a0 ** 2).sum(axis=(1, 2))
    s = np.where(den > 1e-9, (a0 * b0).sum(axis=(1, 2)) / np.maximum(den, 1e-9), 1.0)
    t = b.mean(axis=1) - s[:, None] * a.mean(axis=1)
    return np.column_stack([s, t])


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
    n = len(p)
    tol = INLIER_PX * unit
    if n == 3:
        cam = _three_point_zoom(p, q, center, tol)
        if cam is not None:
            return cam
    if n in (2, 3):
        return _pan_only(p, q, center, prev, tol)
    if n >= 4:
        cands = np.vstack([np.asarray(prev, float)[None], _pair_fits(p, q, center)])  # (C, 3)
        seen = center + cands[:, :1, None] * (q - center)[None] + cands[:, None, 1:]  # (C, n, 2)
        resid = np.hypot(*(p[None] - seen).transpose(2, 0, 1))                      # (C, n)
        inliers = (resid <= tol).sum(axis=1)
        b = int(np.lexsort((np.where(resid <= tol, resid, 0).sum(axis=1), -inliers))[0])
        if inliers[b] < max(3, n // 2 + 1):
            return tuple(prev)
        inl = resid[b] <= tol
        return fit_camera(p[inl], q[inl], center)
    return tuple(prev)


def _three_point_zoom(p, q, center, tol):
    """Zoom and pan from three points, or None: accepted only when each point lies within
    ``tol`` of where the fit of the *other two* puts it (and of the joint fit). One object that
    moved on its own is then at least ``tol`` from the fit of the two that did not, so it can
    never be absorbed into a zoom; the camera of three points that agree is estimated whole."""
    fits = _pair_fits(p, q, center)                     # pairs (0, 1), (0, 2), (1, 2)
    for cam, other in zip(fits, (2, 1, 0)):
        if np.hypot(*(p[other] - apply_camera(q[other], cam, center))) > tol:
            return None
    cam = fit_camera(p, q, center)
    if (np.hypot(*(p - apply_camera(q, cam, center)).T) > tol).any():
        return None
    return cam


def _pan_only(p, q, center, prev, tol):
    """With two or three points the zoom is kept and only the pan is estimated: each axis's
    median offset, refitted over the points within ``tol`` of it; all must agree with two
    points, two of three with three (else the previous camera)."""
    s = prev[0]
    off = p - center - s * (q - center)                      # each point's pan
    med = np.median(off, axis=0)
    inl = np.hypot(*(off - med).T) <= tol
    if inl.sum() < max(2, len(p) - 1):
        return tuple(prev)
    t = off[inl].mean(axis=0)
    return s, float(t[0]), float(t[1])
