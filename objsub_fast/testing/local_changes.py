"""Local changes to one kept object (or one place) that leave its place, size and median colour
alone: what a model does that no feature names, and a person sees at once.

Each kind in :data:`LOCAL_CHANGES` is ``fn(patch, mask, rng, strength) -> patch``: ``patch``
(h, w, 3) float is the object's square and a ring around it (a quarter of its size), ``mask``
(h, w) bool the object's pixels in it, ``strength`` in [0, 1] how visible the change is (1:
the full change), ``rng`` a ``numpy.random.Generator`` for kinds drawn at random.
:func:`apply_local_change` applies one kind to frames from a start frame on.

Global changes of the whole picture (:data:`GLOBAL_CHANGES`) are what every camera and codec do
to an unchanged picture; a correct video under any of them must still pass.
"""
from __future__ import annotations

import numpy as np
from scipy import ndimage

from .outputs import blurred, grainy, panned, push_in, toned

__all__ = ["LOCAL_CHANGES", "GLOBAL_CHANGES", "apply_local_change", "apply_global_change",
           "object_patch"]


def _blend(patch, changed, strength):
    return patch + (changed - patch) * strength


def _blur(patch, mask, rng, strength):
    """The object blurred (a Gaussian of sigma 3 px at full strength)."""
    sigma = 0.5 + 2.5 * strength
    return ndimage.gaussian_filter(patch, (sigma, sigma, 0), mode="nearest")


def _copy(patch, mask, rng, strength, alpha=0.4):
    """A faint copy of the object (40% at full strength) beside it, offset 6 px."""
    off = rng.choice([-1, 1], 2) * np.maximum(1, np.round(6 * patch.shape[0] / 48))
    moved = np.roll(patch, (int(off[0]), int(off[1])), axis=(0, 1))
    shifted = np.roll(mask, (int(off[0]), int(off[1])), axis=(0, 1))
    out = patch.copy()
    out[shifted] = _blend(patch[shifted], moved[shifted], alpha * strength)
    return out


def _square_in(mask, fraction):
    """(y0, y1, x0, x1) of a square of ``fraction`` of the object's side inside it."""
    rr, cc = np.nonzero(mask)
    side = max(2, int(round(fraction * (np.ptp(rr) + 1))))
    cy, cx = int(np.median(rr)), int(np.median(cc))
    y0, x0 = cy - side // 2, cx - side // 2
    return y0, y0 + side, x0, x0 + side


def _hole(patch, mask, rng, strength):
    """A square hole of background (35% of the object's side at full strength)."""
    y0, y1, x0, x1 = _square_in(mask, 0.2 + 0.15 * strength)
    out = patch.copy()
    out[y0:y1, x0:x1] = patch[0, 0]
    return out


def _scratch(patch, mask, rng, strength):
    """A band of background across the object (a scratch), 2-4 px wide."""
    out = patch.copy()
    width = 1 + int(round(3 * strength))
    rr, _ = np.nonzero(mask)
    y = int(np.median(rr)) + int(rng.integers(-2, 3))
    band = np.zeros_like(mask)
    band[max(y - width // 2, 0):y + (width + 1) // 2] = True
    sel = band & mask
    out[sel] = _blend(patch[sel], patch[0, 0], 1.0)
    return out


def _speckle(patch, mask, rng, strength):
    """Salt-and-pepper specks on the object (a third of its pixels at full strength)."""
    out = patch.copy()
    hit = mask & (rng.random(mask.shape) < strength / 3)
    out[hit] = np.where(rng.random((int(hit.sum()), 1)) < 0.5, 0.0, 255.0)
    return out


def _halo(patch, mask, rng, strength):
    """A dark halo around the object (3 px wide), as a drawn shadow or outline."""
    ring = ndimage.binary_dilation(mask, iterations=3) & ~mask
    out = patch.copy()
    out[ring] = _blend(patch[ring], np.zeros(3), 0.6 * strength)
    return out


def _glow(patch, mask, rng, strength):
    """A glow of the object's own colour spreading 4 px around it."""
    colour = np.median(patch[mask], axis=0)
    ring = ndimage.binary_dilation(mask, iterations=4) & ~mask
    out = patch.copy()
    out[ring] = _blend(patch[ring], colour, 0.5 * strength)
    return out


def _checker(patch, mask, rng, strength):
    """A checker texture on the fill (4 px cells, +-40 levels at full strength): its median
    colour stays where it was."""
    yy, xx = np.indices(mask.shape)
    sign = np.where(((yy // 4) + (xx // 4)) % 2 == 0, 1.0, -1.0)[..., None]
    out = patch.copy()
    out[mask] = np.clip(patch + 40.0 * strength * sign, 0, 255)[mask]
    return out


def _two_tone(patch, mask, rng, strength):
    """The object's left half lighter and its right half darker (+-35% of the way)."""
    _, cc = np.nonzero(mask)
    mid = int(np.median(cc))
    out = patch.copy()
    left = mask.copy()
    left[:, mid:] = False
    right = mask & ~left
    out[left] = _blend(patch[left], 255.0, 0.35 * strength)
    out[right] = _blend(patch[right], 0.0, 0.35 * strength)
    return out


def _smear(patch, mask, rng, strength):
    """A motion smear: the object averaged over 8 px along one axis."""
    length = 2 + int(round(6 * strength))
    axis = int(rng.integers(0, 2))
    return ndimage.uniform_filter1d(patch, length, axis=axis, mode="nearest")


def _mosaic(patch, mask, rng, strength):
    """The object pixelated into cells of 4-6 px."""
    cell = 3 + int(round(3 * strength))
    h, w = mask.shape
    out = patch.copy()
    for y in range(0, h, cell):
        for x in range(0, w, cell):
            out[y:y + cell, x:x + cell] = patch[y:y + cell, x:x + cell].mean(axis=(0, 1))
    return out


def _spot(patch, mask, rng, strength):
    """A dark spot (a fifth of the object's side) appearing on the ring beside it."""
    h, w = mask.shape
    side = max(3, int(round(0.2 * h * (0.6 + 0.4 * strength))))
    y0 = int(rng.integers(0, 2)) * (h - side)
    x0 = int(rng.integers(0, max(w - side, 1)))
    out = patch.copy()
    out[y0:y0 + side, x0:x0 + side] = _blend(patch[y0:y0 + side, x0:x0 + side], 40.0,
                                             0.8 * strength)
    return out


#: kind -> fn(patch, mask, rng, strength) -> patch (see the module docstring).
LOCAL_CHANGES = {
    "blur": _blur, "copy": _copy, "hole": _hole, "scratch": _scratch, "speckle": _speckle,
    "halo": _halo, "glow": _glow, "checker": _checker, "two_tone": _two_tone,
    "smear": _smear, "mosaic": _mosaic, "spot": _spot,
}


def object_patch(left: int, top: int, size: int, shape) -> tuple[int, int, int, int]:
    """(y0, y1, x0, x1): an object's square with a ring of a quarter of its size, clipped to
    a canvas of ``shape`` (H, W)."""
    ring = max(2, size // 4)
    h, w = shape
    return (max(top - ring, 0), min(top + size + ring, h), max(left - ring, 0),
            min(left + size + ring, w))


def apply_local_change(frames, first, box, kind: str, start: int, strength: float = 1.0,
                       seed: int = 0) -> np.ndarray:
    """``frames`` (F, H, W, 3) with ``kind`` applied to the patch ``box`` = (y0, y1, x0, x1)
    (``object_patch``) from frame ``start`` on: the object's pixels are those of the first
    frame ``first`` that differ from its corner (the background).

    Examples
    --------
    >>> frames = np.full((4, 32, 32, 3), 255, np.uint8); frames[:, 10:20, 10:20] = (200, 0, 0)
    >>> out = apply_local_change(frames, frames[0], (7, 23, 7, 23), "hole", 2)
    >>> out[1, 15, 15].tolist(), out[3, 15, 15].tolist()
    ([200, 0, 0], [255, 255, 255])
    """
    y0, y1, x0, x1 = box
    mask = (first[y0:y1, x0:x1] != first[y0, x0]).any(axis=-1)
    out = frames.copy()
    for f in range(start, len(frames)):
        rng = np.random.default_rng(seed)          # the same change in every frame
        patch = frames[f, y0:y1, x0:x1].astype(float)
        changed = LOCAL_CHANGES[kind](patch, mask, rng, strength)
        out[f, y0:y1, x0:x1] = np.clip(np.rint(changed), 0, 255)
    return out


def _zoom(frames, amount, rng):
    return push_in(frames, zoom=0.03 * amount)


def _pan(frames, amount, rng):
    return panned(frames, shift=(6.0 * amount, -4.0 * amount))


def _tone(frames, amount, rng):
    n = len(frames)
    ramp = np.linspace(1.0, 1.0 - 0.12 * amount, n)
    return toned(frames, gain=np.stack([ramp, ramp * 0.99, ramp * 0.97], axis=1))


def _global_blur(frames, amount, rng):
    return blurred(frames, sigma=0.5 + 1.0 * amount)


def _grain(frames, amount, rng):
    return grainy(frames, sigma=1.0 + 4.0 * amount, seed=int(rng.integers(1 << 30)))


def _sharpen(frames, amount, rng):
    out = np.empty_like(frames)
    for f, frame in enumerate(frames):
        soft = ndimage.gaussian_filter(frame.astype(float), (1.0, 1.0, 0))
        out[f] = np.clip(np.rint(frame + 1.0 * amount * (frame - soft)), 0, 255)
    return out


#: kind -> fn(frames, amount in [0, 1], rng) -> frames: a change of the whole picture a
#: correct video may show (camera zoom to 3% and pan, a tone drift to 12% darker, a blur of
#: sigma up to 1.5, grain up to sigma 5, an unsharp mask up to 1.0).
GLOBAL_CHANGES = {"zoom": _zoom, "pan": _pan, "tone": _tone, "blur": _global_blur,
                  "grain": _grain, "sharpen": _sharpen}


def apply_global_change(frames, kind: str, amount: float = 1.0, seed: int = 0) -> np.ndarray:
    """``frames`` under global change ``kind`` (:data:`GLOBAL_CHANGES`) of ``amount``.

    Examples
    --------
    >>> frames = np.full((3, 16, 16, 3), 200, np.uint8)
    >>> apply_global_change(frames, "tone", 1.0)[-1, 0, 0].tolist()
    [176, 174, 171]
    """
    return GLOBAL_CHANGES[kind](frames, float(amount), np.random.default_rng(seed))
