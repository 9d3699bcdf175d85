"""Raw H.264 streams made as a hostile or careless writer makes them: pieces encoded apart and
joined, so that the frame size or pixel format changes midway (what a player scales, and what
a reader must never index with frame 0's geometry).

Examples
--------
>>> import numpy as np
>>> data = h264_stream([np.full((32, 32, 3), 255, np.uint8)] * 2)
>>> data[:4] == b"\\x00\\x00\\x00\\x01"
True
"""
from __future__ import annotations

import io

import numpy as np

__all__ = ["h264_stream"]


def h264_stream(frames, pix_fmt: str = "yuv420p", crf: int = 8) -> bytes:
    """An Annex B H.264 stream of ``frames`` ((H, W, 3) uint8 RGB), libx264 at ``crf`` in
    ``pix_fmt``: joined with another, a stream whose geometry changes midway (FFmpeg reads the
    new parameter sets)."""
    import av

    buf = io.BytesIO()
    with av.open(buf, "w", format="h264") as c:
        s = c.add_stream("libx264", rate=16)
        s.height, s.width = frames[0].shape[:2]
        s.pix_fmt = pix_fmt
        s.options = {"crf": str(crf), "preset": "ultrafast"}
        for f in frames:
            for p in s.encode(av.VideoFrame.from_ndarray(np.ascontiguousarray(f),
                                                         format="rgb24")):
                c.mux(p)
        for p in s.encode():
            c.mux(p)
    return buf.getvalue()
