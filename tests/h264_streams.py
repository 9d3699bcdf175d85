"""Helpers of the H.264 tests: strict decoding with FFmpeg (PyAV) and synthetic videos."""
from __future__ import annotations

import io

import numpy as np

from objsub_fast.ground_truth.h264.encoder import EncoderSettings, H264Encoder, annexb

#: FFmpeg's strictest error detection: any inconsistency in the stream raises.
STRICT = {"err_detect": "explode+crccheck+bitstream+buffer+careful"}


def decode_annexb(data: bytes):
    """The (Y, U, V) planes of every picture of an Annex B stream, decoded by FFmpeg with
    :data:`STRICT` error detection."""
    import av

    pictures = []
    with av.open(io.BytesIO(data), format="h264") as container:
        stream = container.streams.video[0]
        stream.codec_context.options = dict(STRICT)
        for frame in container.decode(stream):
            planes = []
            for k, plane in enumerate(frame.planes):
                h = frame.height if k == 0 else frame.height // 2
                w = frame.width if k == 0 else frame.width // 2
                rows = np.frombuffer(bytes(plane), np.uint8).reshape(-1, plane.line_size)
                planes.append(rows[:h, :w].copy())
            pictures.append(tuple(planes))
    return pictures


def encode(frames, changed=None, settings=EncoderSettings()):
    """Encode (y, u, v) pictures; returns (Annex B bytes, reconstructions, encoder)."""
    h, w = frames[0][0].shape
    enc = H264Encoder(w, h, settings)
    pictures, recon = [], []
    for k, planes in enumerate(frames):
        pictures.append(enc.encode(*planes, changed=None if changed is None else changed[k]))
        recon.append(enc.reconstruction())
    return annexb(enc.sps, enc.pps, pictures), recon, enc


def mismatch(data: bytes, recon) -> str | None:
    """Why FFmpeg's pictures of ``data`` are not exactly ``recon`` (None if they are)."""
    decoded = decode_annexb(data)
    if len(decoded) != len(recon):
        return f"{len(decoded)} pictures decoded, {len(recon)} encoded"
    for k, (got, want) in enumerate(zip(decoded, recon)):
        for name, a, b in zip("YUV", got, want):
            if a.shape != b.shape or not np.array_equal(a, b):
                where = np.argwhere(a != b)[:3].tolist() if a.shape == b.shape else a.shape
                return f"picture {k} plane {name} differs at {where}"
    return None


def _paint(planes, y0, y1, x0, x1, colour):
    """Fill a rectangle (luma coordinates, clipped) with a (Y, U, V) colour."""
    y, u, v = planes
    h, w = y.shape
    y0, y1, x0, x1 = max(y0, 0), min(y1, h), max(x0, 0), min(x1, w)
    if y1 <= y0 or x1 <= x0:
        return None
    y[y0:y1, x0:x1] = colour[0]
    u[y0 // 2:(y1 + 1) // 2, x0 // 2:(x1 + 1) // 2] = colour[1]
    v[y0 // 2:(y1 + 1) // 2, x0 // 2:(x1 + 1) // 2] = colour[2]
    return (y0 - y0 % 2, y1 + y1 % 2, x0 - x0 % 2, x1 + x1 % 2)


def synthetic_video(seed: int, height: int, width: int, frames: int, kind: str):
    """Pictures and changed rectangles of a synthetic video.

    kind: ``rects`` (flat rectangles moving by integer steps, across the borders, and
    fading), ``noise`` (noise patches: large coefficients), ``gradient`` (smooth ramps that
    suit the plane modes), ``whole`` (every picture new, changed=None).
    """
    rng = np.random.default_rng(seed)
    h, w = height, width
    planes = [np.full((h, w), 235, np.uint8), np.full((h // 2, w // 2), 128, np.uint8),
              np.full((h // 2, w // 2), 128, np.uint8)]
    if kind == "gradient":
        yy, xx = np.mgrid[0:h, 0:w]
        planes[0][:] = (16 + (xx * 3 + yy * 2) * 200 // (3 * w + 2 * h)).astype(np.uint8)
        planes[1][:] = (60 + xx[::2, ::2] * 100 // w).astype(np.uint8)
        planes[2][:] = (200 - yy[::2, ::2] * 100 // h).astype(np.uint8)
    objects = []
    for _ in range(int(rng.integers(1, 5))):
        size = int(rng.integers(4, max(5, min(h, w) // 2)))
        objects.append([int(rng.integers(-size // 2, h)), int(rng.integers(-size // 2, w)), size,
                        tuple(int(c) for c in rng.integers(16, 240, 3)),
                        int(rng.integers(-9, 10)), int(rng.integers(-9, 10))])
    out, changed = [], []
    for f in range(frames):
        rects = []
        if kind == "whole" or f == 0:
            if kind == "whole" and f > 0:
                planes[0][:] = rng.integers(0, 256, (h, w)) if f % 2 else planes[0] // 2 + 60
                planes[1][:] = rng.integers(0, 256, (h // 2, w // 2))
        if kind in ("noise",) and f > 0:
            y0, x0 = int(rng.integers(0, h)), int(rng.integers(0, w))
            y1, x1 = min(h, y0 + int(rng.integers(2, 40))), min(w, x0 + int(rng.integers(2, 40)))
            y0, x0 = y0 - y0 % 2, x0 - x0 % 2
            y1, x1 = y1 + y1 % 2, x1 + x1 % 2
            if y1 > y0 and x1 > x0:
                planes[0][y0:y1, x0:x1] = rng.integers(0, 256, (y1 - y0, x1 - x0))
                planes[2][y0 // 2:y1 // 2, x0 // 2:x1 // 2] = rng.integers(0, 256, ((y1 - y0) // 2,
                                                                                    (x1 - x0) // 2))
                rects.append((y0, y1, x0, x1))
        for obj in objects:
            top, left, size, colour, dy, dx = obj
            if f > 0:   # erase, move, and fade toward white a little
                rect = _paint(planes, top, top + size, left, left + size, (235, 128, 128))
                if rect:
                    rects.append(rect)
                obj[0], obj[1] = top + dy, left + dx
                obj[3] = tuple(c + (235 - c) // 8 if k == 0 else c + (128 - c) // 8
                               for k, c in enumerate(colour))
                top, left, colour = obj[0], obj[1], obj[3]
            rect = _paint(planes, top, top + size, left, left + size, colour)
            if rect:
                rects.append(rect)
        if kind == "noise" and f == 0:
            planes[0][: h // 2, : w // 2] = rng.integers(0, 256, (h // 2, w // 2))
        out.append(tuple(p.copy() for p in planes))
        changed.append(None if (f == 0 or kind == "whole") else rects)
    return out, changed
