"""Frame sources for scoring: stream frames from a video, a folder of images, a single image or
an array, and map every frame onto the task's canvas.

Canvas mapping
--------------
Models emit frames of any size and aspect ratio. The scorer registers frame 0 on the task's
objects (``register.register``) and maps every frame with that one mapping
(:class:`CanvasWarp`). Without a task (``FrameStream`` on its own), :func:`content_box` gives the
fallback mapping:

1. Bars: leading runs of uniform rows/columns at each edge whose colour is not background-white
   are cut (black or coloured letterbox/pillarbox bars, including the blurred grey transition
   row a codec leaves at the bar's edge).
2. White bars cannot be told apart from the canvas's own white margin by colour, so they are cut
   only as far as needed to restore the canvas aspect ratio, split between the two sides, and
   only from uniform white runs.
3. The box is resized to the canvas.

Frames are decoded one at a time; a video is never held in memory whole.
"""
from __future__ import annotations

import functools
import os
import re
import stat
from dataclasses import replace
from pathlib import Path

import numpy as np
from av.video.reformatter import VideoReformatter

from ...runtime._numba import kernel
from ...runtime.errors import VideoError
from .bars import content_box
from ..tracking.detect import _lut_cell
from .limits import Budget, LimitError, Limits
from .register import bars_mapping

__all__ = ["FrameStream", "CanvasWarp", "content_box", "VideoError", "IMAGE_EXTS",
           "VIDEO_EXTS"]

IMAGE_EXTS = (".png", ".jpg", ".jpeg", ".bmp", ".webp", ".tif", ".tiff")
VIDEO_EXTS = (".mp4", ".webm", ".gif", ".mov", ".mkv", ".avi", ".m4v")
#: A pixel a container declares more than this many times as wide as tall (or as tall) is no
#: picture a player shows.
MAX_SAMPLE_ASPECT = 8.0
#: A video's base frame rate more than this many times its average rate is a clock's, not
#: the rate its pictures are shown at (:func:`_frame_interval`).
MAX_RATE_OVER_AVERAGE = 4.0
#: How long a browser shows a picture of an animated image that states no duration (s).
UNTIMED_PICTURE_S = 0.1

class CanvasWarp:
    """Map the frames of one stream onto the canvas with a :class:`register.Mapping`.

    The part of the canvas the frame shows is resampled from the frame (bilinear, antialiased
    when shrinking); the rest (cut off by a crop) stays white and is reported as not visible.
    Decoded planar YUV video frames are sampled from their planes at the canvas pixels' exact
    sub-pixel places, each of the four source pixels converted to RGB as swscale's unscaled
    conversion does (only the canvas pixels are converted, not the whole frame); frame 0 checks
    the result against swscale (:data:`PLANE_TOLERANCE`), and other formats are converted to
    RGB by swscale and sampled from that. From frame 1 on, a canvas row is sampled again only
    when the source rows it reads differ from the previous frame's (compared as 64-bit words);
    the other rows are the previous canvas's, byte for byte the same. After :meth:`classify`
    each sampled pixel is classified too (:attr:`classes`).

    Parameters
    ----------
    mapping : register.Mapping
    first_rgb : (H, W, 3) uint8, optional
        Frame 0 as swscale converted it to RGB (for registration): the planes are checked
        against it rather than converted again.
    lut : ndarray, optional
        The colour table (``detect.class_lut``) to classify every frame sampled from YUV planes
        with, while it is sampled: see :attr:`classes`.

    Attributes
    ----------
    mapping : register.Mapping
    source_size : (W, H)
    box : (y0, y1, x0, x1)
        The frame region that covers the canvas (clipped to the frame).
    """

    def __init__(self, mapping, first_rgb=None, lut=None):
        self.mapping = m = mapping
        self.source_size = tuple(m.source_size)
        self.canvas_size = tuple(m.canvas_size)
        self.rect = u0, v0, u1, v1 = m.canvas_rect()
        w, h = self.source_size
        self.box = (max(0, int(round(m.sy * v0 + m.ty))), min(h, int(round(m.sy * v1 + m.ty))),
                    max(0, int(round(m.sx * u0 + m.tx))), min(w, int(round(m.sx * u1 + m.tx))))
        self.identity = (m.sx, m.sy, m.tx, m.ty) == (1.0, 1.0, 0.0, 0.0) and \
            self.source_size == self.canvas_size
        # Video path: swscale's unscaled YUV -> RGB conversion (its fast path, cheaper than any
        # of its scalers), then the canvas part sampled at its exact sub-pixel place (2-tap
        # linear per axis). Flat-coloured frames need no antialiasing filter.
        self._taps = _taps(u0, u1, m.sx, m.tx, w) + _taps(v0, v1, m.sy, m.ty, h)
        # Planar YUV video: the canvas is sampled from the planes themselves (only the canvas
        # pixels are converted, not the whole frame): None until frame 0 decides, then the
        # conversion or False (swscale).
        self._yuv = None
        self._lut = lut
        self._prev = None      # (canvas, classes, planes, frame) of the previous video frame
        #: Frame 0 converted to RGB by swscale when the stream already has it (registration).
        self.first_rgb = first_rgb
        #: The pixel classes of the canvas last returned (after :meth:`classify`), else None.
        self.classes = None
        #: Whether the pixel classes of the canvas last returned are exactly the previous
        #: canvas's (after :meth:`classify`; its colours may differ).
        self.repeated = False

    def _blank(self) -> np.ndarray:
        cw, ch = self.canvas_size
        return np.full((ch, cw, 3), 255, np.uint8)

    def from_array(self, frame: np.ndarray) -> np.ndarray:
        """Map one (H, W, 3) uint8 frame onto the canvas: a writeable C-contiguous array (a
        read-only one, as image decoders give, is copied), so that the scorer's kernels
        compile for one array type."""
        if self.identity:
            return np.require(frame, requirements=("C", "W"))
        from PIL import Image

        m, (u0, v0, u1, v1) = self.mapping, self.rect
        out = self._blank()
        if u1 > u0 and v1 > v0:
            box = (m.sx * u0 + m.tx, m.sy * v0 + m.ty, m.sx * u1 + m.tx, m.sy * v1 + m.ty)
            img = Image.fromarray(np.ascontiguousarray(frame)).resize(
                (u1 - u0, v1 - v0), Image.BILINEAR, box=box)
            out[v0:v1, u0:u1] = np.asarray(img)
        return out

    def from_video_frame(self, frame, reformatter) -> np.ndarray:
        """Map one decoded ``av.VideoFrame`` onto the canvas.

        After :meth:`classify`, also sets :attr:`classes` (the canvas's pixel classes) and
        :attr:`repeated` (the canvas's pixel classes are exactly the previous frame's).
        """
        self.classes, self.repeated = None, False
        if self.identity:
            return reformatter.reformat(frame, format="rgb24").to_ndarray()
        if self._yuv is None:
            self._yuv = self._yuv_sampling(frame)
            if self._yuv is not None and not self._planes_agree(frame, reformatter):
                self._yuv = False
        u0, v0, u1, v1 = self.rect
        if not (u1 > u0 and v1 > v0):
            return self._blank()
        if not self._yuv:
            out = self._blank()
            rgb = reformatter.reformat(frame, format="rgb24").to_ndarray()
            self._check_reads([rgb], ((0, 0),))
            _sample(rgb, out, u0, v0, *self._taps)
            return out
        return self._sample_planes(frame)

    def _check_reads(self, arrays, reads) -> None:
        """Raise VideoError unless every array holds the rows and columns the compiled
        samplers read from it (``reads``: per array, which taps index its rows and columns:
        0 luma / RGB, 1 chroma, 2 words of luma, 3 words of chroma). The kernels index with
        values derived from the file and have no bounds checks of their own: this is their
        entry check."""
        for array, (rows, cols) in zip(arrays, reads):
            need = (self._extent[rows][0], self._extent[cols][1])
            if array.ndim < 2 or array.shape[0] < need[0] or array.shape[1] < need[1]:
                raise VideoError(f"a frame of {array.shape[1]}x{array.shape[0]} samples where "
                                 f"{need[1]}x{need[0]} are read: the frame does not have "
                                 "frame 0's geometry")

    @functools.cached_property
    def _extent(self):
        """(rows, columns) each kind of read needs: 0 luma / RGB, 1 chroma, 2 luma words,
        3 chroma words (see :meth:`_check_reads`; fixed once frame 0 has decided how frames
        are sampled)."""
        xi, _, yi, _ = self._taps
        extent = [(int(yi.max()) + 2, int(xi.max()) + 2)]
        if self._yuv:
            xc, yc = self._yuv[0], self._yuv[1]
            chroma = (int(yc.max()) + 1, int(xc.max()) + 1)
            extent += [chroma, (extent[0][0], int(self._span[1])),
                       (chroma[0], int(self._span[3]))]
        return extent

    def _sample_planes(self, frame) -> np.ndarray:
        """The canvas sampled from ``frame``'s planes. Only the canvas rows whose source rows
        differ from the previous frame's are sampled again; the others are the previous
        canvas's (a frame is a new picture from the decoder, the previous one stays valid)."""
        planes = _planes(frame)
        words = _words(planes)
        prev = self._prev
        if prev is None or words is None or prev[2] is None:
            out, cls = self._blank(), np.zeros(self.canvas_size[::-1], np.uint8)
            old, compare = words or planes, False
        else:
            out, cls, old = prev[0].copy(), prev[1].copy(), prev[2]
            compare = True
        lut = self._lut if self._lut is not None else _NO_LUT
        u0, v0 = self.rect[:2]
        self._check_reads(planes, ((0, 0), (1, 1), (1, 1)))
        if words is not None:
            self._check_reads((*words, *old), ((2, 2), (3, 3), (3, 3)) * 2)
        changed = _sample_yuv(*planes, *(words or planes), *old, compare, out, cls, lut, u0, v0,
                              *self._taps, *self._yuv, self._span)
        self._prev = (out, cls, words, frame)
        if self._lut is not None:
            self.classes, self.repeated = cls, compare and changed == 0
        return out

    def _yuv_sampling(self, frame):
        """(chroma column (n, 2), chroma row (m, 2), coefficients) of the four source pixels of each
        canvas pixel, or None when ``frame`` is not 8-bit planar YUV."""
        conv = _yuv_conversion(frame)
        if conv is None:
            return None
        fy, fx, coefficients = conv
        xi, _, yi, _ = self._taps
        # Source columns the canvas reads, as 64-bit words (luma lo, hi, chroma lo, hi).
        self._span = np.array([xi[0] // 8, (xi[-1] + 9) // 8, xi[0] // fx // 8,
                               ((xi[-1] + 1) // fx + 8) // 8])
        return (np.stack([xi // fx, (xi + 1) // fx], axis=1),
                np.stack([yi // fy, (yi + 1) // fy], axis=1), coefficients)

    def _planes_agree(self, frame, reformatter) -> bool:
        """Whether sampling ``frame``'s planes gives the canvas that converting it to RGB with
        swscale does: at most :data:`PLANE_MISMATCH_FRACTION` of its channel values differ by
        more than :data:`PLANE_TOLERANCE` (checked once per stream, on frame 0)."""
        u0, v0, u1, v1 = self.rect
        if not (u1 > u0 and v1 > v0):
            return True
        slow, fast = self._blank(), self._blank()
        rgb = self.first_rgb if self.first_rgb is not None else \
            reformatter.reformat(frame, format="rgb24").to_ndarray()
        self.first_rgb = None
        planes = _planes(frame)
        self._check_reads([rgb, *planes], ((0, 0), (0, 0), (1, 1), (1, 1)))
        _sample(rgb, slow, u0, v0, *self._taps)
        words = _words(planes) or planes
        _sample_yuv(*planes, *words, *words, False, fast, np.zeros(fast.shape[:2], np.uint8),
                    _NO_LUT, u0, v0, *self._taps, *self._yuv, self._span)
        far = np.abs(slow[v0:v1, u0:u1].astype(np.int16) - fast[v0:v1, u0:u1]) > PLANE_TOLERANCE
        return far.mean() <= PLANE_MISMATCH_FRACTION


#: 8-bit planar YUV formats the canvas is sampled from directly, and whether they are full range.
PLANAR_YUV = {"yuv420p": False, "yuv422p": False, "yuv444p": False,
              "yuvj420p": True, "yuvj422p": True, "yuvj444p": True}
#: (Kr, Kb) of the YUV matrix by ``AVColorSpace`` code: BT.709 (1); unspecified (2), BT.470BG
#: (5) and SMPTE 170M (6) are BT.601, swscale's default.
YUV_MATRIX = {1: (0.2126, 0.0722), 2: (0.299, 0.114), 5: (0.299, 0.114), 6: (0.299, 0.114)}
#: The plane-sampled canvas of frame 0 may differ from the swscale-converted one by more than
#: PLANE_TOLERANCE (of 255) in at most this fraction of its channel values, else the stream is
#: converted by swscale. Interpolating before converting differs from converting before
#: interpolating only where a saturated colour meets another (the conversion clips there), a few
#: values per thousand on encoded task frames; a wrong matrix or range moves every pixel.
PLANE_TOLERANCE = 4
PLANE_MISMATCH_FRACTION = 0.01


def _yuv_conversion(frame):
    """``(fy, fx, coefficients)`` to sample ``frame``'s YUV planes, or None for other formats.

    ``fy``, ``fx`` are the chroma subsampling factors; chroma is read from the sample covering
    the pixel (no interpolation), as swscale's unscaled conversion does. The coefficients apply
    the BT.601/709 matrix in limited (16-235) or full range to planes interpolated in 16-bit
    fixed point: luma scale and offset, chroma scale and offset, R from V, G from U, G from V,
    B from U.
    """
    full = PLANAR_YUV.get(frame.format.name)
    matrix = YUV_MATRIX.get(int(frame.colorspace))
    if full is None or matrix is None or len(frame.planes) != 3:
        return None
    full = full or int(frame.color_range) == 2
    kr, kb = matrix
    kg = 1 - kr - kb
    ys, yo, cs = (1.0, 0.0, 1.0) if full else (255 / 219, 16.0, 255 / 224)
    fx = max(1, round(frame.width / frame.planes[1].width))
    fy = max(1, round(frame.height / frame.planes[1].height))
    return fy, fx, np.array([ys / 65536, yo * 65536, cs / 65536, 128 * cs, 2 * (1 - kr),
                             -2 * kb * (1 - kb) / kg, -2 * kr * (1 - kr) / kg, 2 * (1 - kb)])


def _planes(frame):
    """The Y, U and V planes of ``frame`` as (rows, line size) uint8 views (no copy)."""
    return tuple(np.frombuffer(p, np.uint8, count=p.height * p.line_size)
                 .reshape(p.height, p.line_size) for p in frame.planes[:3])


def _words(planes):
    """The planes viewed as rows of 64-bit words (for comparing rows), or None when a line size
    is not a multiple of 8 bytes."""
    if any(p.shape[1] % 8 for p in planes):
        return None
    return tuple(p.view(np.uint64) for p in planes)


def _taps(a: int, b: int, s: float, t: float, n: int):
    """Source index and weight of the next one, for canvas pixels a..b-1 along one axis.

    Canvas pixel centre u + 0.5 is frame point s (u + 0.5) + t, i.e. frame pixel
    s (u + 0.5) + t - 0.5 (of n pixels).
    """
    pos = np.clip(s * (np.arange(a, b) + 0.5) + t - 0.5, 0, n - 1)
    idx = np.minimum(np.floor(pos).astype(np.int64), n - 2)
    return idx, np.rint((pos - idx) * 256).astype(np.int64)


@kernel(nogil=True)
def _sample(src, out, u0, v0, xi, xw, yi, yw):
    """out[v0 + j, u0 + i] = src linearly interpolated at (yi[j] + yw[j] / 256,
    xi[i] + xw[i] / 256), in 8-bit fixed point."""
    for j in range(yi.shape[0]):
        y, wy = yi[j], yw[j]
        row0, row1, dst = src[y], src[y + 1], out[v0 + j]
        for i in range(xi.shape[0]):
            x, wx = xi[i], xw[i]
            for c in range(3):
                top = np.int64(row0[x, c]) * (256 - wx) + np.int64(row0[x + 1, c]) * wx
                bot = np.int64(row1[x, c]) * (256 - wx) + np.int64(row1[x + 1, c]) * wx
                dst[u0 + i, c] = (top * (256 - wy) + bot * wy + 32768) >> 16


@kernel(nogil=True, inline="always")
def _lerp(a, b, w):
    """``a (256 - w) + b w`` (the weight of ``b`` of 256) as ``256 a + w (b - a)``: one
    multiplication, the same integer."""
    return (a << 8) + (b - a) * w


@kernel(nogil=True, inline="always")
def _lerp_rows(a, b, w, out):
    """``out[x] = _lerp(a[x], b[x], w)`` for rows of bytes ``a``, ``b`` (a loop from 0 over
    contiguous rows, which compiles to vector code)."""
    for x in range(a.shape[0]):
        out[x] = _lerp(np.int32(a[x]), np.int32(b[x]), w)


@kernel(nogil=True, inline="always")
def _preread(yp, up, vp, y, cy0, cy1, lx0, lx1, cx0, cx1):
    """Read one byte of every 64 (a cache line) of the source rows the next canvas row
    samples (luma y, y + 1 over lx0..lx1-1, chroma cy0, cy1 over cx0..cx1-1), so that their
    loads from memory overlap this row's arithmetic; returns the bytes OR-ed together."""
    acc = np.uint8(0)
    for x in range(lx0, lx1, 64):
        acc |= yp[y, x] | yp[y + 1, x]
    for x in range(cx0, cx1, 64):
        acc |= up[cy0, x] | up[cy1, x] | vp[cy0, x] | vp[cy1, x]
    return acc


#: Stand-in colour table when pixels are not classified while sampled: read-only like
#: ``detect.class_lut``'s tables, so that ``_sample_yuv`` compiles once for both.
_NO_LUT = np.zeros(0, np.uint8)
_NO_LUT.flags.writeable = False


@kernel(nogil=True, inline="always")
def _row_differs(ra, rb, lo, hi):
    """Whether rows ``ra`` and ``rb`` (64-bit words) differ over words lo..hi-1, read in blocks
    of :data:`_BLOCK` words and left at the first block that differs (a changed row costs one
    block; a block of fixed length compiles to vector code, as the whole row would)."""
    x0 = lo
    while x0 + _BLOCK <= hi:
        a, b = ra[x0:x0 + _BLOCK], rb[x0:x0 + _BLOCK]   # read from 0: no negative indices
        acc = np.uint64(0)
        for x in range(_BLOCK):
            acc |= a[x] ^ b[x]
        if acc != 0:
            return True
        x0 += _BLOCK
    acc = np.uint64(0)
    for x in range(x0, hi):
        acc |= ra[x] ^ rb[x]
    return acc != 0


#: Words per block of :func:`_row_differs`.
_BLOCK = 32


@kernel(nogil=True, inline="always")
def _rows_differ(a, b, r0, r1, lo, hi):
    """Whether row r0 or r1 of planes ``a`` and ``b`` (64-bit words) differs over words
    lo..hi-1 (a row read twice is compared once)."""
    return _row_differs(a[r0], b[r0], lo, hi) or (r1 != r0 and _row_differs(a[r1], b[r1], lo,
                                                                             hi))


@kernel(nogil=True)
def _sample_yuv(yp, up, vp, wyp, wup, wvp, oyp, oup, ovp, compare, out, cls, lut, u0, v0,
                xi, xw, yi, yw, xc, yc, k, span):
    """:func:`_sample` reading planar YUV: the luma and chroma of the four source pixels of a
    canvas pixel are interpolated (source pixel (y, x) has its chroma at (yc[j, dy],
    xc[i, dx])) and converted once with the coefficients ``k`` of :func:`_yuv_conversion`.

    With ``compare``, a canvas row whose source rows (64-bit words ``span``: luma lo, hi, chroma
    lo, hi) in the word views ``wyp, wup, wvp`` of the planes equal those of the previous
    frame's ``oyp, oup, ovp`` is left as it is in ``out`` (and ``cls``). With a colour table
    ``lut`` (non-empty), each sampled pixel's class is written to ``cls``. Returns the number of
    pixels whose class changed (0 without a colour table).

    A row is done in three passes: the 16-bit fixed-point interpolations of Y, U and V (the
    vertical ones over the source rows' whole span, then the horizontal ones: the same integers
    as horizontal first), their conversion to RGB and colour-table cells (floating point over
    contiguous arrays), then the stores and classes; while a row is sampled, the next canvas
    row's source rows are read ahead (:func:`_preread`).
    """
    changed = 0
    n = xi.shape[0]
    classify = lut.shape[0] > 0
    # Coefficients in locals: read from the array, they would be reloaded after every store.
    k0, k1, k2, k3, k4, k5, k6, k7 = k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[7]
    # int32 holds a 16-bit fixed-point interpolation of bytes (at most 255 * 65536). Unsigned
    # indices need no test for negative (from the end) indices: the reads compile to plain loads.
    xs, ws = xi.astype(np.uint32), xw.astype(np.int32)
    xc0, xc1 = xc[:, 0].astype(np.uint32), xc[:, 1].astype(np.uint32)
    lum, cb, cr = np.empty(n, np.int32), np.empty(n, np.int32), np.empty(n, np.int32)
    rgb, cell = np.empty((3, n), np.uint8), np.empty(n, np.uint32)
    # Source columns read: luma lx0..lx1-1, chroma cx0..cx1-1.
    lx0, lx1, cx0, cx1 = xi[0], xi[n - 1] + 2, xc[0, 0], xc[n - 1, 1] + 1
    vl, vu, vv = np.empty(lx1, np.int32), np.empty(cx1, np.int32), np.empty(cx1, np.int32)
    sink = np.zeros(1, np.uint8)     # keeps the pre-reads (_preread) from being optimised away
    for j in range(yi.shape[0]):
        y, wy, cy0, cy1 = yi[j], np.int32(yw[j]), yc[j, 0], yc[j, 1]
        if compare and not (_rows_differ(wyp, oyp, y, y + 1, span[0], span[1])
                            or _rows_differ(wup, oup, cy0, cy1, span[2], span[3])
                            or _rows_differ(wvp, ovp, cy0, cy1, span[2], span[3])):
            continue
        if j + 1 < yi.shape[0]:
            sink[0] = _preread(yp, up, vp, yi[j + 1], yc[j + 1, 0], yc[j + 1, 1], lx0, lx1,
                               cx0, cx1)
        _lerp_rows(yp[y, lx0:lx1], yp[y + 1, lx0:lx1], wy, vl[lx0:])
        _lerp_rows(up[cy0, cx0:cx1], up[cy1, cx0:cx1], wy, vu[cx0:])
        _lerp_rows(vp[cy0, cx0:cx1], vp[cy1, cx0:cx1], wy, vv[cx0:])
        for i in range(n):
            x, wx, a, b = xs[i], ws[i], xc0[i], xc1[i]
            lum[i] = _lerp(vl[x], vl[x + 1], wx)
            cb[i] = _lerp(vu[a], vu[b], wx)
            cr[i] = _lerp(vv[a], vv[b], wx)
        for i in range(n):
            luma = k0 * (lum[i] - k1)
            u = k2 * cb[i] - k3
            v = k2 * cr[i] - k3
            # Rounded to nearest and clipped to 0..255: once clipped to >= 0, truncating is
            # flooring.
            red = np.uint8(min(max(luma + k4 * v + 0.5, 0.0), 255.0))
            green = np.uint8(min(max(luma + k5 * u + k6 * v + 0.5, 0.0), 255.0))
            blue = np.uint8(min(max(luma + k7 * u + 0.5, 0.0), 255.0))
            rgb[0, i], rgb[1, i], rgb[2, i] = red, green, blue
            cell[i] = _lut_cell(red, green, blue)
        dst, cdst = out[v0 + j, u0:u0 + n], cls[v0 + j, u0:u0 + n]
        for i in range(n):
            dst[i, 0], dst[i, 1], dst[i, 2] = rgb[0, i], rgb[1, i], rgb[2, i]
        if classify:
            for i in range(n):
                c = lut[cell[i]]
                changed += cdst[i] != c
                cdst[i] = c
    return changed


def _natural_key(name: str):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


def _open_regular(path: Path):
    """A binary file object of ``path`` opened without following a link and only if it is a
    regular file (a FIFO would block the run, a device never end); VideoError otherwise."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if path.is_symlink():
            raise VideoError(f"{path.name} is a symbolic link: links are not followed") \
                from None
        raise VideoError(f"unreadable {path.name}: {exc.strerror}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise VideoError(f"{path.name} is not a regular file")
    return os.fdopen(fd, "rb")


def _read_image(path: Path, budget: Budget) -> np.ndarray:
    """An image file as (H, W, 3) uint8, its size checked against ``budget`` before decoding."""
    from PIL import Image

    with _open_regular(path) as fh:
        try:
            with Image.open(fh) as im:
                budget.size(*im.size)
                return np.asarray(im.convert("RGB"))
        except LimitError:
            raise
        except Image.DecompressionBombError:   # Pillow refuses it before any size is known
            raise LimitError(f"over the limit of pixels a frame: {path.name} claims more than "
                             f"{2 * Image.MAX_IMAGE_PIXELS:,} ({Limits.FLAGS['pixels']})") \
                from None
        except Exception as exc:  # noqa: BLE001 - any decoder failure is a per-task error
            raise VideoError(f"undecodable image {path.name}: {exc}") from None


def _as_rgb(frame: np.ndarray) -> np.ndarray:
    """Accept (H, W), (H, W, 3) or (H, W, 4) arrays; return (H, W, 3) uint8."""
    a = np.asarray(frame)
    if a.dtype != np.uint8:
        raise VideoError(f"frames must be uint8, got {a.dtype}")
    if a.ndim == 2:
        a = np.repeat(a[:, :, None], 3, axis=2)
    if a.ndim != 3 or a.shape[2] not in (3, 4):
        raise VideoError(f"a frame must be (H, W, 3), got shape {a.shape}")
    return a[:, :, :3]


def _turns(frame) -> int:
    """Quarter turns counterclockwise a player gives ``frame`` (an ``av.VideoFrame``) for its
    container's display matrix (``rotate`` tag); VideoError for an angle that is not a
    multiple of 90 degrees (no player shows it upright, and the scorer cannot read it as
    shown)."""
    angle = getattr(frame, "rotation", 0) or 0
    if angle % 90:
        raise VideoError(f"the container turns the picture by {angle:g} degrees, not a multiple "
                         "of 90: the scorer cannot read it as a player shows it")
    return round(angle / 90) % 4


def _picture_times(path: Path) -> list:
    """Each picture's start (s) in the image file ``path``, as a browser plays it, and the
    end of the last: ``[0.0]`` for a still; an animated WebP, PNG (APNG) or multi-frame TIFF more (a picture without a
    duration is shown for :data:`UNTIMED_PICTURE_S`); ``[0.0]`` when it cannot be read (the
    still reader says why)."""
    from PIL import Image, ImageSequence

    with _open_regular(path) as fh:
        try:
            with Image.open(fh) as im:
                if int(getattr(im, "n_frames", 1)) == 1:
                    return [0.0]
                lasts = [(_loaded(picture).info.get("duration") or 0) / 1000
                         for picture in ImageSequence.Iterator(im)]
        except Exception:  # noqa: BLE001 - _read_image gives the reason
            return [0.0]
    lasts = [d if d > 0 else UNTIMED_PICTURE_S for d in lasts]
    return np.concatenate([[0.0], np.cumsum(lasts)]).tolist()


def _loaded(picture):
    """``picture`` (a PIL image at one of its frames) decoded: a WebP states its frame's
    duration only then."""
    picture.load()
    return picture


def _animated_frames(path: Path, budget: Budget, times: list):
    """Yield the pictures of an animated image as ((H, W, 3) uint8 array, its start ``times``
    [i]) pairs, one at a time, each counted against ``budget``."""
    from PIL import Image, ImageSequence

    with _open_regular(path) as fh:
        try:
            with Image.open(fh) as im:
                budget.size(*im.size)
                for picture, time in zip(ImageSequence.Iterator(im), times):
                    frame = np.asarray(picture.convert("RGB"))
                    budget.frame(frame.shape[1], frame.shape[0], frame.nbytes)
                    yield frame, time
        except VideoError:
            raise
        except Exception as exc:  # noqa: BLE001 - any decoder failure is a per-task error
            raise VideoError(f"undecodable image {path.name}: {exc}") from None


def _resized(frame: np.ndarray, shape) -> np.ndarray:
    """``frame`` (H, W, 3) scaled to ``shape``'s height and width, as a player shows a stream
    whose frames change size: in frame 0's geometry."""
    from PIL import Image

    img = Image.fromarray(np.ascontiguousarray(frame)).resize((shape[1], shape[0]),
                                                              Image.BILINEAR)
    return np.asarray(img)


def _shown(rgb: np.ndarray, sample_aspect: float) -> np.ndarray:
    """``rgb`` (H, W, 3) as a player shows it: each pixel ``sample_aspect`` times as wide."""
    if sample_aspect == 1:
        return rgb
    return _resized(rgb, (rgb.shape[0], max(1, int(round(rgb.shape[1] * sample_aspect)))))


def _decode_video(path: Path, threads: int, budget: Budget, info: dict):
    """Yield the decoded ``av.VideoFrame`` of the first video stream of ``path``, one at a
    time, each counted against ``budget`` (the frame size the container declares is checked
    before any frame is decoded). Once the stream is open, ``info`` holds its
    ``"sample_aspect"`` (:func:`_sample_aspect`) and ``"interval"``
    (:func:`_frame_interval`)."""
    import av

    _open_regular(path).close()
    try:
        container = av.open(str(path))
    except av.error.EOFError:
        raise VideoError(f"video has zero frames: {path.name} ends before any frame") from None
    except Exception as exc:  # noqa: BLE001
        raise VideoError(f"undecodable video {path.name}: {type(exc).__name__}: {exc}") from None
    with container:
        if not container.streams.video:
            raise VideoError(f"video has zero frames: no video stream in {path.name}")
        stream = container.streams.video[0]
        stream.codec_context.thread_count = threads
        budget.size(stream.codec_context.width or 0, stream.codec_context.height or 0)
        info["sample_aspect"] = _sample_aspect(stream)
        info["interval"] = _frame_interval(stream)
        declared = stream.frames
        count = 0
        try:
            for frame in container.decode(stream):
                count += 1
                budget.frame(frame.width, frame.height,
                             sum(p.buffer_size for p in frame.planes))
                yield frame
        except VideoError:
            raise
        except Exception as exc:  # noqa: BLE001
            raise VideoError(f"truncated or corrupt video {path.name} after {count} frames: "
                             f"{type(exc).__name__}: {exc}") from None
        if declared and count < declared:
            raise VideoError(f"truncated video {path.name}: decoded {count} of {declared} frames")


def _sample_aspect(stream) -> float:
    """The width a player gives each stored pixel of ``stream`` (its sample aspect ratio;
    1 where the container says none); VideoError beyond what any player shows as a picture
    (a pixel more than :data:`MAX_SAMPLE_ASPECT` times as wide as tall, or as tall)."""
    sar = stream.sample_aspect_ratio or stream.codec_context.sample_aspect_ratio
    if not sar or sar <= 0:
        return 1.0
    if not 1 / MAX_SAMPLE_ASPECT <= sar <= MAX_SAMPLE_ASPECT:
        raise VideoError(f"the container gives its pixels an aspect ratio of {sar}, outside "
                         f"1/{MAX_SAMPLE_ASPECT:g} to {MAX_SAMPLE_ASPECT:g}")
    return float(sar)


def _frame_interval(stream):
    """The interval (s) a player shows ``stream``'s pictures at: one over its base frame rate
    (the lowest rate its timestamps all fall on), or over its average rate where the base is
    more than :data:`MAX_RATE_OVER_AVERAGE` times that (timestamps on a fine clock); None
    when the container states neither."""
    base, average = stream.base_rate, stream.average_rate
    if average and average > 0 and not (base and 0 < base <= MAX_RATE_OVER_AVERAGE * average):
        base = average
    return float(1 / base) if base and base > 0 else None


def _as_shown(frames, info: dict, budget: Budget):
    """Yield ``(frame, time, again)``: ``frames``, (frame, time (s) or None) pairs, as a
    player at one picture every ``info["interval"]`` seconds shows them (variable frame
    timing): each frame from its time to the next one's (the last one's to ``info["end"]``
    where known), so a frame held for three intervals is shown three times (``again`` for the
    repeats) and a frame the next one replaces within half an interval is not shown at all;
    the first and the last frame are always shown.
    Frames without times, or no interval: each once, as they come. Every shown frame counts
    against ``budget``'s frame limit. ``info`` is read as each frame comes (a decoder fills it
    when it opens its stream).

    Examples
    --------
    >>> held = [("a", 0.0), ("b", 0.1), ("c", 0.3)]
    >>> shown = _as_shown(held, {"interval": 0.1}, Budget())
    >>> [(f, round(t, 1), again) for f, t, again in shown]
    [('a', 0.0, False), ('b', 0.1, False), ('b', 0.2, True), ('c', 0.3, False)]
    """
    clock = _ShowClock(budget)
    previous = None
    for frame, time in frames:
        interval = info.get("interval")
        if interval is None or time is None or clock.start is None:
            if previous is not None:
                yield clock.once(previous)
            previous = (frame, time)
            clock.start, clock.interval = (time, interval) if interval is not None else (None,
                                                                                       None)
            continue
        yield from clock.hold(previous[0], until=time, always=clock.shown == 0)
        previous = (frame, time)
    if previous is None:
        return
    end = info.get("end")
    if clock.start is None or end is None:
        last = previous[1]
        yield clock.once((previous[0], last if clock.start is None
                          else max(clock.start + clock.shown * clock.interval, last)))
        return
    yield from clock.hold(previous[0], until=end, always=True)


class _ShowClock:
    """:func:`_as_shown`'s count of shown pictures, one every ``interval`` s from ``start``,
    each counted against ``budget``'s frame limit."""

    def __init__(self, budget: Budget):
        self.budget, self.shown, self.start, self.interval = budget, 0, None, None

    def once(self, held):
        """``held`` = (frame, time) shown once, as it comes."""
        self.shown += 1
        self.budget.count(self.shown)
        return held[0], held[1], False

    def hold(self, frame, until: float, always: bool):
        """Show ``frame`` at each interval that starts more than half an interval before
        ``until`` (at least once when ``always``), the repeats marked ``again``."""
        again = False
        while (always and not again) or (
                self.start + self.shown * self.interval < until - self.interval / 2):
            self.shown += 1
            self.budget.count(self.shown)
            yield frame, self.start + (self.shown - 1) * self.interval, again
            again = True


def _frame_files(path: Path, budget: Budget) -> list[Path]:
    """The frame images of the folder ``path`` in natural order: regular files only (a link
    or a FIFO among them is an error: links are not followed), at most the frame limit."""
    files = []
    with os.scandir(path) as entries:
        for entry in entries:
            if Path(entry.name).suffix.lower() not in IMAGE_EXTS:
                continue
            if entry.is_symlink():
                raise VideoError(f"frame {entry.name} in {path.name} is a symbolic link: links "
                                 "are not followed")
            if not entry.is_file(follow_symlinks=False):
                raise VideoError(f"frame {entry.name} in {path.name} is not a regular file")
            files.append(Path(entry.path))
    if not files:
        raise VideoError(f"no frame images in folder {path}")
    budget.count(len(files))
    return sorted(files, key=lambda p: _natural_key(p.name))


def _raw_frames(source, threads: int, budget: Budget, info: dict):
    """Return (kind, iterator of raw frames) for any supported source (a video's stream
    facts go into ``info``: :func:`_decode_video`)."""
    if isinstance(source, np.ndarray):
        if source.ndim == 4:
            budget.count(source.shape[0])
            return "array", (source[i] for i in range(source.shape[0]))
        return "image", iter([source])
    if isinstance(source, (list, tuple)):
        budget.count(len(source))
        return "array", iter(source)
    path = Path(os.fspath(source))
    try:
        mode = path.stat().st_mode
    except OSError:
        raise VideoError(f"missing: {path}") from None
    if stat.S_ISDIR(mode):
        return "frames", (_read_image(p, budget) for p in _frame_files(path, budget))
    if not stat.S_ISREG(mode):
        raise VideoError(f"{path.name} is not a regular file")
    if path.stat().st_size == 0:
        raise VideoError(f"empty file: {path.name}")
    if path.suffix.lower() in IMAGE_EXTS:
        times = _picture_times(path)
        if len(times) > 1:     # an animated image is a video, as a browser plays it
            budget.count(len(times) - 1)
            info.update(timed=True, interval=float(np.diff(times).min()), end=times[-1])
            return "array", _animated_frames(path, budget, times[:-1])
        return "image", iter([_read_image(path, budget)])
    info["timed"] = True
    return "video", ((frame, frame.time) for frame in _decode_video(path, threads, budget, info))


class FrameStream:
    """Stream of canvas-sized frames from a video path, image folder, image or array.

    Parameters
    ----------
    source : path-like, (F, H, W, 3) / (H, W, 3) uint8 array, or list of arrays
        A video file (anything FFmpeg decodes: mp4 H.264/H.265, webm, gif, ...), a folder of
        frame images (natural sort order), a single final image, or frames in memory.
    canvas_size : (W, H)
    threads : int
        Decoder threads per video (1 when joblib parallelises over tasks).
    register : callable, optional
        ``register(first_frame, kind) -> register.Mapping``, called on frame 0 at its own
        resolution with the stream's :attr:`kind` (the scorer registers on the task's objects);
        default: bars cut, the rest stretched (:func:`register.bars_mapping`).
    lut : ndarray, optional
        The colour table (``detect.class_lut``) to classify the pixels of video frames with
        while they are sampled (see :meth:`canvas_frames`).
    limits : limits.Limits, optional
        What reading this source may cost (frames, pixels a frame, decoded bytes, seconds);
        default ``Limits()``. Over a limit, iteration raises ``limits.LimitError``.

    Every frame is brought to frame 0's size and pixel format before it is sampled (scaled as a
    player scales a stream whose resolution changes), so a source that changes its geometry
    midway is read in one geometry.

    Attributes
    ----------
    kind : str
        ``"video"``, ``"frames"``, ``"image"`` (only a final frame) or ``"array"``.
    mapper : CanvasWarp or None
        Set once the first frame is read.

    Examples
    --------
    >>> frames = np.full((3, 32, 32, 3), 255, np.uint8)
    >>> stream = FrameStream(frames, (32, 32))
    >>> [frame.shape for frame in stream], stream.kind
    ([(32, 32, 3), (32, 32, 3), (32, 32, 3)], 'array')
    """

    def __init__(self, source, canvas_size, threads: int = 1, register=None, lut=None,
                 limits: Limits | None = None):
        self.canvas_size = (int(canvas_size[0]), int(canvas_size[1]))
        self.budget = Budget(limits)
        self._info = {}
        self.kind, self._raw = _raw_frames(source, threads, self.budget, self._info)
        self._register = register
        self._lut = lut
        self.mapper = None
        self.count = 0
        self.time = None            # the latest video frame's time (s); None: not known
        self.shown_size = None      # (W, H) frame 0 as a player shows it, once read

    @property
    def sample_aspect(self) -> float:
        """The width a player gives each stored pixel of the video (its sample aspect ratio;
        1 for other sources and square pixels)."""
        return self._info.get("sample_aspect", 1.0)

    def _first(self, rgb, sar: float = 1.0):
        """Map the canvas onto frame 0 (``rgb``, as stored): registered on the picture a
        player shows (stretched by the sample aspect ratio ``sar``), then brought to stored
        pixels."""
        shown = _shown(rgb, sar)
        #: (W, H) frame 0 as a player shows it.
        self.shown_size = (shown.shape[1], shown.shape[0])
        mapping = (self._register(shown, self.kind) if self._register is not None
                   else bars_mapping(shown, self.canvas_size))
        if sar != 1:
            mapping = replace(mapping, sx=mapping.sx / sar, tx=mapping.tx / sar,
                              source_size=(rgb.shape[1], rgb.shape[0]))
        self.mapper = CanvasWarp(mapping, first_rgb=rgb, lut=self._lut)

    def _frames(self):
        """(raw frame, time or None, again) per frame shown: a video or an animated image as a
        player shows it (:func:`_as_shown`), other sources each frame once."""
        if self._info.get("timed"):
            return _as_shown(self._raw, self._info, self.budget)
        return ((raw, None, False) for raw in self._raw)

    def canvas_frames(self):
        """Yield ``(frame, classes, repeated)`` per frame: the (H, W, 3) uint8 canvas frame;
        its pixel classes when the stream classified them while sampling a video frame from its
        YUV planes (else None: the detector classifies); and whether those classes are exactly
        the previous frame's (the colours may differ, e.g. by grain). A video frame a player
        shows for several frame intervals is yielded for each (:func:`_as_shown`)."""
        # One reformatter per stream keeps its swscale context (a new one per frame is ~10x
        # slower).
        reformatter = VideoReformatter()
        geometry = None
        out = classes = None
        for raw, time, again in self._frames():
            self.budget.time()
            self.time = time
            if again:
                self.count += 1
                yield out, classes, classes is not None
                continue
            turns = 0 if isinstance(raw, (np.ndarray, list, tuple)) else _turns(raw)
            if turns:
                # shown turned by its container (a display matrix): read as a player shows it
                rgb = reformatter.reformat(raw, format="rgb24").to_ndarray()
                if self.sample_aspect != 1:
                    rgb = _shown(rgb, self.sample_aspect)
                raw = np.rot90(rgb, turns)
            if isinstance(raw, np.ndarray) or isinstance(raw, (list, tuple)):
                frame = _as_rgb(raw)
                if self.mapper is None:
                    self.budget.size(frame.shape[1], frame.shape[0])
                    self._first(frame)
                    geometry = frame.shape
                elif frame.shape != geometry:
                    frame = _resized(frame, geometry)
                out = self.mapper.from_array(frame)
                classes, repeated = None, False
            else:
                if self.mapper is None:
                    self._first(reformatter.reformat(raw, format="rgb24").to_ndarray(),
                                self.sample_aspect)
                    geometry = (raw.width, raw.height, raw.format.name)
                elif (raw.width, raw.height, raw.format.name) != geometry:
                    raw = reformatter.reformat(raw, width=geometry[0], height=geometry[1],
                                               format=geometry[2])
                out = self.mapper.from_video_frame(raw, reformatter)
                classes, repeated = self.mapper.classes, self.mapper.repeated
            self.count += 1
            yield out, classes, repeated
        if self.count == 0:
            raise VideoError("video has zero frames")

    def __iter__(self):
        return (frame for frame, _, _ in self.canvas_frames())
