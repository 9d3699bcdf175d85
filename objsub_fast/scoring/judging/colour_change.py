"""A kept object's own colour, judged in the video's own colours.

A model may render the whole picture warmer, darker or with more contrast, at once or drifting
slowly: that is the camera, and it passes. One kept object changing its lightness or saturation
against the rest of the scene is a change to that object. So each kept object's median colour in
each frame (``appearance.object_colours``) is compared with its own colour in its first frames
brought through the scene's tone change since then: per channel, a line fitted through the
background's and the *other* kept objects' colours then and now (:func:`tone_map`). The
difference is measured in CIEDE2000 and as lightness and saturation ratios, and voted over the
frames around each (``kept_object_stability``'s ``vote_frames``), against
``max_colour_delta_e``, ``max_lightness_change`` and ``max_saturation_change``
(:func:`colour_changes`).
"""
from __future__ import annotations

import numpy as np
from skimage.color import deltaE_ciede2000, rgb2lab

from ...runtime._numba import kernel
from .thresholds import THRESHOLDS
from .votes import change_start, voted

__all__ = ["tone_map", "colour_changes", "own_tones", "frame_tones"]

_LUMA = np.array([0.299, 0.587, 0.114])
#: The tone fit's and the codec drift's limits (``tone_min_span``, ``tone_max_reference_off``,
#: ``tone_gain_range``, ``own_steps``), with their reasons in ``thresholds``.
_LIMITS = THRESHOLDS["kept_object_stability"]


def _fit(before: np.ndarray, after: np.ndarray, use: np.ndarray):
    """Per frame and channel, the (gain, offset) lines taking reference colours ``before``
    (J, 3) to ``after`` (F, J, 3), least squares over the references ``use`` (F, J) holds;
    a gain through reference 0 (the background) where those span less than
    ``tone_min_span`` levels. Returns (gain, offset), each (F, 3)."""
    gain, offset = np.empty((after.shape[0], 3)), np.empty((after.shape[0], 3))
    _fit_lines(np.asarray(before, np.float64), np.asarray(after, np.float64),
               np.asarray(use, np.bool_), *_LIMITS["tone_gain_range"],
               float(_LIMITS["tone_min_span"]), gain, offset)
    return gain, offset


@kernel(nogil=True, error_model="numpy")
def _fit_lines(before, after, use, gain_lo, gain_hi, min_span, gain, offset):
    """:func:`_fit`'s lines into ``gain`` and ``offset`` (F, 3): the gain clipped to
    ``gain_lo`` .. ``gain_hi``, the background's own gain where the used references span
    less than ``min_span`` or the fit has none."""
    for f in range(after.shape[0]):
        for c in range(3):
            n = sx = sy = sxx = sxy = 0.0
            top, bottom = -np.inf, np.inf
            for j in range(after.shape[1]):
                w = 1.0 if use[f, j] else 0.0
                x, y = before[j, c], after[f, j, c]
                n += w
                sx += w * x
                sy += w * y
                sxx += w * x * x
                sxy += w * x * y
                if use[f, j]:
                    top, bottom = max(top, x), min(bottom, x)
            g = (n * sxy - sx * sy) / (n * sxx - sx * sx)
            if g < gain_lo:
                g = gain_lo
            elif g > gain_hi:
                g = gain_hi
            if top - bottom >= min_span and np.isfinite(g):
                gain[f, c], offset[f, c] = g, (sy - g * sx) / n
            else:
                background = before[0, c]
                gain[f, c] = after[f, 0, c] / max(background, 1.0) if background > 0 else 1.0
                offset[f, c] = 0.0


def tone_map(before: np.ndarray, after: np.ndarray, use: np.ndarray | None = None):
    """Per frame, the scene's tone: per channel (gain, offset) lines taking the reference
    colours ``before`` (J, 3; row 0 the background) to ``after`` (F, J, 3), fitted on the
    references ``use`` (F, J; default all) with the worst one left out, twice, while it is
    more than ``tone_max_reference_off`` levels off and three or more remain (a second changed
    object must not bend the scene's tone). Returns (gain, offset, used), (F, 3), (F, 3) and
    (F, J).

    Examples
    --------
    >>> before = np.array([[255., 255, 255], [255, 0, 0], [0, 0, 255], [255, 165, 0]])
    >>> after = before[None] * 0.9
    >>> after[0, 3] = (180, 115, 0)              # the orange one turned darker
    >>> gain, offset, used = tone_map(before, after)
    >>> np.round(gain, 2).tolist(), used.tolist()
    ([[0.9, 0.9, 0.9]], [[True, True, True, False]])
    """
    use = np.ones(after.shape[:2], bool) if use is None else np.array(use, np.bool_)
    gain, offset = np.empty((after.shape[0], 3)), np.empty((after.shape[0], 3))
    _tone_lines(np.asarray(before, np.float64), np.asarray(after, np.float64), use,
                *_LIMITS["tone_gain_range"], float(_LIMITS["tone_min_span"]),
                float(_LIMITS["tone_max_reference_off"]), gain, offset)
    return gain, offset, use


@kernel(nogil=True, error_model="numpy")
def _tone_lines(before, after, use, gain_lo, gain_hi, min_span, max_off, gain, offset):
    """:func:`tone_map`'s lines into ``gain`` and ``offset``, leaving references out of
    ``use`` (in place): twice, per frame, the one farthest (in its worst channel) from the
    lines fitted, if more than ``max_off`` levels and more than three are used; never the
    background (reference 0)."""
    for _ in range(2):
        _fit_lines(before, after, use, gain_lo, gain_hi, min_span, gain, offset)
        for f in range(after.shape[0]):
            worst, farthest, used = 0, -1.0, 0
            for j in range(after.shape[1]):
                used += use[f, j]
                off = -1.0
                if j > 0 and use[f, j]:
                    for c in range(3):
                        off = max(off, abs(gain[f, c] * before[j, c] + offset[f, c]
                                           - after[f, j, c]))
                if off > farthest:
                    worst, farthest = j, off
            if farthest > max_off and used > 3:
                use[f, worst] = False
    _fit_lines(before, after, use, gain_lo, gain_hi, min_span, gain, offset)


def own_tones(before: np.ndarray, after: np.ndarray, gain: np.ndarray,
              offset: np.ndarray) -> np.ndarray:
    """(J - 1, 2, 3) per object its own tone: per channel the (gain, offset) line taking the
    background's colour ``before[0]`` to ``after[0]`` and the object's ``before[j]`` to
    ``after[j]``; the scene's ``gain`` and ``offset`` (3,) in a channel where the two are less
    than ``tone_min_span`` levels apart (a line through close points swings with a codec's
    noise) or the object is not seen (NaN), or where the line's gain falls outside
    ``tone_gain_range``.

    Examples
    --------
    >>> before = np.array([[255., 255, 255], [200, 40, 40]])
    >>> after = np.array([[230., 230, 230], [150, 36, 36]])    # the object darker still
    >>> line = own_tones(before, after, np.full(3, 230 / 255), np.zeros(3))[0]
    >>> np.round(line[0] * before[1] + line[1], 1).tolist()     # its line meets its colour
    [150.0, 36.0, 36.0]
    """
    span = before[1:] - before[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        g = (after[1:] - after[0]) / span
    lo, hi = _LIMITS["tone_gain_range"]
    ok = (np.abs(span) >= _LIMITS["tone_min_span"]) & np.isfinite(g) & (g >= lo) & (g <= hi)
    g = np.where(ok, g, gain[None])
    o = np.where(ok, after[0] - g * before[0], offset[None])
    return np.stack([g, o], axis=1)


def _first_colours(series: np.ndarray, window: int) -> np.ndarray:
    """(M, 3) each object's median colour over the first ``window`` frames it is seen in."""
    out = np.full(series.shape[1:], np.nan)
    for k in range(series.shape[1]):
        seen = np.flatnonzero(np.isfinite(series[:, k, 0]))[:window]
        if seen.size:
            out[k] = np.median(series[seen, k], axis=0)
    return out


def expected_colours(track) -> np.ndarray:
    """(F, M, 3): each kept object's first colour through the scene's tone in each frame
    (:func:`tone_map`), fitted on the background and the *other* kept objects seen there
    (NaN: not seen)."""
    m = track.model
    window = THRESHOLDS["kept_object_stability"]["vote_frames"]
    colours = track.colours
    first = _first_colours(colours, window)
    kept = ~m.removed & track.visible & np.isfinite(first[:, 0])
    before = np.vstack([np.median(track.background[:window], axis=0), np.nan_to_num(first)])
    after = np.concatenate([track.background[:, None], np.nan_to_num(colours)], axis=1)
    seen = np.concatenate([np.ones((len(colours), 1), bool),
                           kept[None] & np.isfinite(colours[..., 0])], axis=1)
    # An object whose colour reads as another class there is no reference for the scene's tone.
    own = np.concatenate([np.ones((len(colours), 1), bool), track.color_read == m.color], axis=1)
    _, _, used = tone_map(before, after, seen & own)
    out = np.full(colours.shape, np.nan)
    for k in np.flatnonzero(kept).tolist():
        others = used.copy()
        others[:, 1 + k] = False
        gain, offset = _fit(before, after, others)
        out[:, k] = np.clip(gain * first[k] + offset, 0, 255)
        out[~seen[:, 1 + k], k] = np.nan
    return out


def _words(luma: float, chroma: float) -> tuple[str, int]:
    """A colour change in words and its size in percent, from its lightness and saturation
    ratios (seen over expected): lightness first, then saturation, else hue.

    Examples
    --------
    >>> _words(0.7, 1.0), _words(1.0, 0.4), _words(1.02, 0.97)
    (('turned 30% darker', 30), ('turned 60% less saturated', 60), ('changed hue', 0))
    """
    if abs(luma - 1) >= 0.1:
        pct = round(abs(luma - 1) * 100)
        return f"turned {pct}% {'darker' if luma < 1 else 'lighter'}", pct
    if abs(chroma - 1) >= 0.1:
        pct = round(abs(chroma - 1) * 100)
        return f"turned {pct}% {'less' if chroma < 1 else 'more'} saturated", pct
    return "changed hue", 0


def _levels(seen: np.ndarray, expected: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(lightness, saturation) of ``seen`` minus those of ``expected`` colours (..., 3), in
    levels: luma (Rec. 601) and chroma (max - min channel)."""
    return (seen - expected) @ _LUMA, np.ptp(seen, axis=-1) - np.ptp(expected, axis=-1)


def _ratio(a: float, b: float) -> float:
    return a / b if b >= 1 else 1.0


def codec_drift(colours: np.ndarray) -> float:
    """How far the codec alone may carry an object's colour over the video: the sum of the
    changes (CIEDE2000) between consecutive frames it is seen in, but the ``own_steps``
    largest. A model's change is a step or two and adds nothing; at a very low bitrate the
    codec re-quantises a small object's colour in many frames (under a zoom it carries it 7-30
    units in small steps; it pales a 23 px outlined dome's fill in some frames and restores it
    in others).

    Examples
    --------
    >>> still = np.tile([[200.0, 40.0, 40.0]], (9, 1))
    >>> stepped = still.copy(); stepped[5:] *= 0.7        # one step: no drift
    >>> codec_drift(still), codec_drift(stepped)
    (0.0, 0.0)
    """
    own = _LIMITS["own_steps"]
    if len(colours) <= own + 1:
        return 0.0
    lab = rgb2lab(colours[None] / 255.0)[0]
    steps = np.sort(deltaE_ciede2000(lab[1:], lab[:-1]))
    return float(steps[:-own].sum())


def colour_changes(track) -> list[dict]:
    """The kept objects whose own colour changed against the scene's tone: ``{"id", "change":
    "turned 30% darker", "kind": "tone", "value": 30, "delta_e": 14.2, "frame": 16}`` each.

    A frame reads changed when the object's colour is more than ``max_colour_delta_e``
    (CIEDE2000) from its expected colour (:func:`expected_colours`), or its lightness (luma)
    or its saturation (chroma) is more than ``max_lightness_change`` /
    ``max_saturation_change`` levels off the expected one's (CIEDE2000 compresses differences
    among light, saturated colours: a green a quarter of the way to white is 2.2 from it, yet
    64 levels less saturated). Each limit is widened by the codec's own drift on the object
    (:func:`codec_drift`: ``1 + drift / max_colour_delta_e`` times). The object changed where
    most of the ``vote_frames`` frames around read changed.
    """
    m, st = track.model, THRESHOLDS["kept_object_stability"]
    expected = expected_colours(track)
    ok = np.isfinite(expected[..., 0])
    if not ok.any():
        return []
    seen = np.where(ok[..., None], track.colours, 0.0)
    diff = np.zeros(ok.shape)
    lab = rgb2lab(np.stack([seen[ok], expected[ok]])[:, None] / 255.0)[:, 0]
    diff[ok] = deltaE_ciede2000(lab[0], lab[1])
    luma, chroma = _levels(seen, np.where(ok[..., None], expected, 0.0))
    out = []
    for k in np.flatnonzero(ok.any(axis=0)).tolist():
        frames = np.flatnonzero(ok[:, k])
        widen = codec_drift(track.colours[frames, k]) / st["max_colour_delta_e"] + 1.0
        flags = ok[:, k] & ((diff[:, k] > widen * st["max_colour_delta_e"])
                            | (np.abs(luma[:, k]) > widen * st["max_lightness_change"])
                            | (np.abs(chroma[:, k]) > widen * st["max_saturation_change"]))
        bad = voted(flags[frames].astype(float), st["vote_frames"]) > 0.5
        if not bad.any():
            continue
        at = frames[bad]
        worst = int(at[np.argmax(diff[at, k])])
        e = expected[worst, k]
        words, pct = _words(_ratio(float(seen[worst, k] @ _LUMA), float(e @ _LUMA)),
                            _ratio(float(np.ptp(seen[worst, k])), float(np.ptp(e))))
        out.append({"id": int(m.ids[k]), "change": words, "kind": "tone", "value": pct,
                    "delta_e": round(float(diff[worst, k]), 1),
                    "frame": int(frames[change_start(bad, flags[frames])])})
    return out


def frame_tones(before: np.ndarray, after: np.ndarray, use: np.ndarray, kept: np.ndarray):
    """The tones one frame is seen through: ``(gain, offset)`` (3,) each, the scene's
    (:func:`tone_map` of reference colours ``before`` (J, 3; row 0 the background) to
    ``after`` (J, 3) over the references ``use`` (J,)), and (K, 2, 3) each kept object's
    ``kept`` (indices into rows 1..) own line (:func:`own_tones`).

    Examples
    --------
    >>> before = np.array([[255., 255, 255], [200, 40, 40], [40, 40, 200]])
    >>> (gain, offset), lines = frame_tones(before, before * 0.9, np.ones(3, bool),
    ...                                     np.array([0, 1]))
    >>> np.round(gain, 2).tolist(), lines.shape
    ([0.9, 0.9, 0.9], (2, 2, 3))
    """
    use = use & np.isfinite(after[:, 0]) & np.isfinite(before[:, 0])
    gain, offset, _ = tone_map(np.nan_to_num(before), np.nan_to_num(after)[None], use[None])
    rows = np.r_[0, 1 + np.asarray(kept, int)]
    return (gain[0], offset[0]), own_tones(before[rows], after[rows], gain[0], offset[0])
