"""The H.264 encoder of the project's ground-truth videos (:class:`H264Encoder`).

One IDR picture, then P pictures; one slice per picture; fixed QPs (:class:`EncoderSettings`);
Constrained Baseline profile (Main with explicit weighted prediction for a video that fades:
:meth:`H264Encoder.use_weighted_prediction`), CAVLC, deblocking off. The caller says which
rectangles changed since the previous picture: macroblocks outside them are skipped without
looking at their pixels. Every decision is integer arithmetic, so the bytes are the same on
every machine and with Numba's JIT off.

Examples
--------
>>> import numpy as np
>>> enc = H264Encoder(48, 32)
>>> y = np.full((32, 48), 235, np.uint8); u = v = np.full((16, 24), 128, np.uint8)
>>> nals = enc.encode(y, u, v)
>>> enc.is_keyframe, nals[0][0] & 31        # an IDR slice NAL unit
(True, 5)
>>> y[4:12, 8:20] = 40
>>> nals = enc.encode(y, u, v, changed=[(4, 12, 8, 20)])
>>> enc.is_keyframe, bool((enc.reconstruction()[0] == y).mean() > 0.9)
(False, True)
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import lru_cache

import numpy as np

from ...runtime._numba import kernel, noalloc_kernel
from ...runtime.errors import ParameterError
from .bitstream import nal_unit, written
from .cavlc import N_STATS, STAT_NAMES
from .cavlc_tables import CHROMA_QP
from .macroblock import code_picture
from .params import (CONSTRAINED_BASELINE_FLAGS, LOG2_MAX_FRAME_NUM, MAIN_FLAGS, PROFILE_BASELINE,
                     PROFILE_MAIN, WEIGHTS_IDENTITY, WEIGHTS_NONE, Layout, pps_rbsp, sps_rbsp)

#: Lagrange multiplier of the SAD-based decisions by QP: round(2 ** ((qp - 12) / 6)), at least 1.
LAMBDA = (1,) * 16 + (2, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 6, 6, 7, 8, 9, 10, 11, 13, 14, 16, 18,
                      20, 23, 25, 29, 32, 36, 40, 45, 51, 57, 64, 72, 81, 91)
NAL_SLICE, NAL_IDR, NAL_SPS, NAL_PPS = 1, 5, 7, 8
QP_RANGE = (10, 51)
#: How many of the previous picture's commonest vectors the motion search tries.
COMMON_VECTORS = 4


@dataclass(frozen=True)
class EncoderSettings:
    """Fixed quantisers of the I (IDR) and P pictures.

    Examples
    --------
    >>> EncoderSettings().as_dict()["name"]
    'objsub-h264'
    """

    qp_i: int = 22
    qp_p: int = 28
    intra4x4: bool = True

    def __post_init__(self):
        if not isinstance(self.intra4x4, bool):
            raise ParameterError(f"intra4x4 must be True or False, got {self.intra4x4!r}")
        for name in ("qp_i", "qp_p"):
            value = getattr(self, name)
            lo, hi = QP_RANGE
            if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
                raise ParameterError(f"{name} must be an integer in [{lo}, {hi}], got {value!r}")

    def as_dict(self) -> dict:
        """The settings as recorded in a dataset manifest."""
        return {"name": "objsub-h264",
                "profile": "constrained baseline; main (weighted prediction) where a video fades",
                "entropy": "cavlc",
                "deblocking": "off", **asdict(self)}


@kernel(nogil=True)
def mark_changed(rects, code, height, width):  # pragma: no cover - compiled
    """Zero ``code``, then mark the macroblocks that the rectangles (y0, y1, x0, x1) of
    ``rects`` touch once widened to even bounds and clipped to the (height, width) picture.
    Returns the rectangles as widened and clipped (empty ones: y1 <= y0)."""
    code[:, :] = 0
    out = np.zeros_like(rects)
    for i in range(rects.shape[0]):
        y0, y1 = max(rects[i, 0], 0) & ~1, min(rects[i, 1] + (rects[i, 1] & 1), height)
        x0, x1 = max(rects[i, 2], 0) & ~1, min(rects[i, 3] + (rects[i, 3] & 1), width)
        out[i, 0], out[i, 1], out[i, 2], out[i, 3] = y0, y1, x0, x1
        if y1 <= y0 or x1 <= x0:
            continue
        for mby in range(y0 // 16, (y1 + 15) // 16):
            for mbx in range(x0 // 16, (x1 + 15) // 16):
                code[mby, mbx] = 1
    return out


@noalloc_kernel(nogil=True)
def load_changed(y, u, v, sy, su, sv, rects, code):  # pragma: no cover - compiled
    """Copy the rectangles of ``rects`` (:func:`mark_changed`) from the planes y, u, v into
    the padded source planes sy, su, sv, and mark the macroblocks they touch in ``code``."""
    clipped = mark_changed(rects, code, y.shape[0], y.shape[1])
    for i in range(clipped.shape[0]):
        y0, y1, x0, x1 = clipped[i, 0], clipped[i, 1], clipped[i, 2], clipped[i, 3]
        for r in range(y0, y1):
            for c in range(x0, x1):
                sy[r, c] = y[r, c]
        for r in range(y0 // 2, y1 // 2):
            for c in range(x0 // 2, x1 // 2):
                su[r, c] = u[r, c]
                sv[r, c] = v[r, c]


@noalloc_kernel(nogil=True)
def pad_edges(plane, height, width):  # pragma: no cover - compiled
    """Replicate the last row and column of the (height, width) picture in ``plane`` into
    the rest of it (a source plane padded to whole macroblocks)."""
    for r in range(height, plane.shape[0]):
        for c in range(width):
            plane[r, c] = plane[height - 1, c]
    for r in range(plane.shape[0]):
        for c in range(width, plane.shape[1]):
            plane[r, c] = plane[r, width - 1]


#: (profile_idc, constraint flags) of a video without and with weighted prediction.
PROFILES = {False: (PROFILE_BASELINE, CONSTRAINED_BASELINE_FLAGS),
            True: (PROFILE_MAIN, MAIN_FLAGS)}


@lru_cache(maxsize=64)
def parameter_sets(width: int, height: int, level_idc: int, weighted: bool) -> tuple:
    """The SPS and PPS NAL units of a video (Constrained Baseline, or Main with weighted
    prediction), kept: an encoder restarted for every video asks again and again.

    Examples
    --------
    >>> sps, pps = parameter_sets(64, 64, 10, False)
    >>> sps[0] & 31, sps[1], pps[0] & 31
    (7, 66, 8)
    """
    profile, flags = PROFILES[bool(weighted)]
    return (nal_unit(3, NAL_SPS, sps_rbsp(width, height, level_idc, profile, flags)),
            nal_unit(3, NAL_PPS, pps_rbsp(weighted_pred=weighted)))


def motion_hints(motion) -> np.ndarray:
    """The motion search's hints ((n, 2) int32 quarter-pel vectors: the zero vector, then one
    per displacement) for pixel displacements ``motion`` (None: no hints, an empty array).

    A part of the picture that moved by (dx, dy) is predicted from (-dx, -dy) away.

    Examples
    --------
    >>> motion_hints([(3, 0), (3, 0), (0, -2)]).tolist()
    [[0, 0], [-12, 0], [0, 8]]
    >>> motion_hints(None).shape
    (0, 2)
    """
    if motion is None:
        return np.zeros((0, 2), np.int32)
    vectors = [(0, 0)]
    for dx, dy in motion:
        vector = (-4 * int(dx), -4 * int(dy))
        if vector not in vectors:
            vectors.append(vector)
    return np.array(vectors, np.int32)


class H264Encoder:
    """Encode pictures of one video (see the module docstring).

    Parameters
    ----------
    width, height : int
        Even picture size (any, not only multiples of 16: the stream crops).
    settings : EncoderSettings
    fps : int
        Pictures per second: only the level signalled in the SPS depends on it (the lowest
        that allows the picture size at this rate, ``params.level_for``; ParameterError
        when no level does).
    """

    def __init__(self, width: int, height: int, settings: EncoderSettings = EncoderSettings(),
                 fps: int = 30):
        for name, value in (("width", width), ("height", height)):
            if not isinstance(value, (int, np.integer)) or value < 2 or value % 2:
                raise ParameterError(f"{name} must be an even integer >= 2, got {value!r}")
        if not isinstance(fps, (int, np.integer)) or isinstance(fps, bool) or fps < 1:
            raise ParameterError(f"fps must be an integer >= 1, got {fps!r}")
        self.width, self.height, self.settings = int(width), int(height), settings
        self.layout = Layout.of(self.width, self.height, int(fps))
        mbh, mbw = self.layout.mb_height, self.layout.mb_width
        self.level_idc = self.layout.level_idc
        self._weights = np.zeros(8, np.int64)     # this picture's (params.slice_header)
        self.use_weighted_prediction(False)
        h16, w16 = 16 * mbh, 16 * mbw
        self._src = (np.zeros((h16, w16), np.uint8), np.zeros((h16 // 2, w16 // 2), np.uint8),
                     np.zeros((h16 // 2, w16 // 2), np.uint8))
        self._cur = tuple(np.zeros_like(p) for p in self._src)
        self._ref = tuple(np.zeros_like(p) for p in self._src)
        self._mv = np.zeros((mbh, mbw, 2), np.int32)
        self._prev_mv = np.zeros((mbh, mbw, 2), np.int32)
        self._refidx = np.zeros((mbh, mbw), np.int32)
        self._rows = np.zeros((2, mbh), np.uint8)   # rows of the vectors that may be non-zero
        self._nz = (np.zeros((4 * mbh, 4 * mbw), np.int32), np.zeros((2 * mbh, 2 * mbw), np.int32),
                    np.zeros((2 * mbh, 2 * mbw), np.int32))
        self._i4m = np.full((4 * mbh, 4 * mbw), 2, np.int32)
        self._common = np.zeros((COMMON_VECTORS, 2), np.int32)
        self._code = np.ones((mbh, mbw), np.uint8)
        # Worst case of a macroblock in CAVLC is far below 3 bytes per sample at QP >= 10.
        self._buf, self._st = np.empty(h16 * w16 * 3 + 4096, np.uint8), np.zeros(3, np.int64)
        self.stats = np.zeros(N_STATS, np.int64)
        self.frame_index = 0
        self.is_keyframe = False

    def restart(self) -> None:
        """Begin a new video in the same buffers: the next picture is an IDR picture (which
        writes every sample and vector the later ones read) and the statistics start again;
        the video is Constrained Baseline again (:meth:`use_weighted_prediction`)."""
        self.stats[:] = 0
        self.frame_index = 0
        self.is_keyframe = False
        self.use_weighted_prediction(False)

    def use_weighted_prediction(self, on: bool) -> None:
        """Whether this video's P pictures may be predicted with explicit weights (a fade:
        ``transition_video`` sets them picture by picture). Weighted prediction is a Main
        profile tool: on, the SPS says Main profile and the PPS sets ``weighted_pred_flag``;
        off, Constrained Baseline. Only before the video's first picture."""
        if getattr(self, "frame_index", 0):
            raise ValueError("use_weighted_prediction: the video has begun")
        self.weighted = bool(on)
        self.profile_idc, self.constraint_flags = PROFILES[self.weighted]
        self.sps, self.pps = parameter_sets(self.width, self.height, self.level_idc,
                                            self.weighted)
        self._weights[:] = 0
        self._weights[0] = WEIGHTS_IDENTITY if on else WEIGHTS_NONE

    def stats_dict(self) -> dict:
        """What the encoder used so far (coeff_token tables, escapes, macroblock types, ...)."""
        return dict(zip(STAT_NAMES, self.stats.tolist()))

    def _load(self, planes, changed) -> None:
        """Copy the changed parts of the source planes into the padded buffers and mark the
        macroblocks to code."""
        h, w = self.height, self.width
        shapes = ((h, w), (h // 2, w // 2), (h // 2, w // 2))
        for plane, shape, name in zip(planes, shapes, "yuv"):
            if plane.shape != shape or plane.dtype != np.uint8:
                raise ParameterError(f"plane {name} must be {shape} uint8, got {plane.shape} "
                                     f"{plane.dtype}")
        if changed is None:
            for src, plane in zip(self._src, planes):
                ph, pw = plane.shape
                src[:ph, :pw] = plane
                pad_edges(src, ph, pw)
            self._code[:] = 1
            return
        rects = np.array(changed, np.int64).reshape(-1, 4)
        load_changed(*planes, *self._src, rects, self._code)

    def encode(self, y, u, v, changed=None, motion=None, weights=None) -> list:
        """Encode one picture; returns its NAL units (header byte, escaped, no start code).

        ``motion``: the (dx, dy) pixel displacements of everything that moved since the
        previous picture, when the caller knows them (``[]``: nothing moved); the motion search
        then tries only the zero vector and those. None: search. ``weights``: this P
        picture's ``params.slice_header`` weights (a fade's, ``transition_video.fade_weights``)
        in a video that uses weighted prediction (:meth:`use_weighted_prediction`); None:
        none."""
        idr = self.frame_index == 0
        self._set_weights(weights)
        self._load((y, u, v), None if idr else changed)
        code_picture(self._src, self._ref, self._cur, self._code, idr,
                     self.frame_index % (1 << LOG2_MAX_FRAME_NUM), *self.quantisers(idr),
                     *self.state(), motion_hints(motion))
        nal = nal_unit(3, NAL_IDR if idr else NAL_SLICE, written(self._buf, self._st))
        self.picture_coded()
        return [nal]

    def _set_weights(self, weights) -> None:
        """This picture's weights (:meth:`encode`); ValueError for weights in a video
        without weighted prediction."""
        self._weights[:] = 0
        if weights is not None and weights[0] != WEIGHTS_NONE:
            if not self.weighted:
                raise ValueError("weights given to a video without weighted prediction "
                                 "(use_weighted_prediction(True) before its first picture)")
            self._weights[:] = weights
        if self.weighted and self._weights[0] == WEIGHTS_NONE:
            self._weights[0] = WEIGHTS_IDENTITY

    def picture_coded(self) -> bool:
        """Count one more picture of the video as coded (by :meth:`encode`, or by a compiled
        loop that coded it with :meth:`planes`, :meth:`quantisers` and :meth:`state`, as
        ``ground_truth.transition_video`` does); return whether it was the IDR picture (the
        first). ``frame_index`` and ``is_keyframe`` change only here, in ``__init__`` and in
        :meth:`restart`."""
        self.is_keyframe = self.frame_index == 0
        self.frame_index += 1
        return self.is_keyframe

    def quantisers(self, idr: bool) -> tuple:
        """(qp, chroma qp, lambda, lambda squared-ish) of an IDR or a P picture."""
        qp = self.settings.qp_i if idr else self.settings.qp_p
        return qp, int(CHROMA_QP[qp]), LAMBDA[qp], max(1, LAMBDA[qp] ** 2 * 27 // 32)

    def planes(self) -> tuple:
        """The padded (Y, U, V) source, reference and reconstruction planes and the
        macroblocks to code: the picture arguments of ``code_picture``."""
        return self._src, self._ref, self._cur, self._code

    @property
    def picture_bound(self) -> int:
        """Bytes that one picture's slice data never exceeds (the output buffer's size)."""
        return self._buf.shape[0]

    def state(self) -> tuple:
        """The arguments of ``code_picture`` after the quantisers: the encoder's state."""
        return (self.settings.intra4x4, self._mv, self._refidx, self._prev_mv, self._rows,
                self._common, self._nz, self._i4m, self._weights, self._buf, self._st, self.stats)

    def reconstruction(self):
        """Copies of the decoder-side Y, U, V of the last picture (cropped)."""
        h, w = self.height, self.width
        return (self._cur[0][:h, :w].copy(), self._cur[1][:h // 2, :w // 2].copy(),
                self._cur[2][:h // 2, :w // 2].copy())


def annexb(sps: bytes, pps: bytes, pictures) -> bytes:
    """An Annex B byte stream: start code + SPS, PPS, then every picture's NAL units.

    Examples
    --------
    >>> annexb(b"\\x67", b"\\x68", [[b"\\x65"]]).hex()
    '000000016700000001680000000165'
    """
    out = [b"\x00\x00\x00\x01" + sps, b"\x00\x00\x00\x01" + pps]
    for nals in pictures:
        out.extend(b"\x00\x00\x00\x01" + nal for nal in nals)
    return b"".join(out)
