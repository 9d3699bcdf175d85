"""The own encoder's driver: :class:`ObjsubEncoder` turns RGB frames (or a whole transition
plan) into mp4 bytes with this project's H.264 encoder (``h264.encoder.H264Encoder``) and MP4
muxer (``h264.mp4``), in memory. A video's bytes are a function of its pixels and this
project's code only (``docs/video_encoder.md``).
"""
from __future__ import annotations

import numpy as np

from .yuv import YuvPicture

__all__ = ["OUTPUT_PICTURES", "ObjsubEncoder"]


#: ``ObjsubEncoder.add_transition``'s output buffer, in worst-case pictures (at least 1).
OUTPUT_PICTURES = 2


class ObjsubEncoder:
    """Encode one video of RGB frames into mp4 bytes in memory with this project's own H.264
    encoder (``objsub_fast.ground_truth.h264``) and MP4 muxer; the same surface as :class:`Mp4Encoder`.

    The encoder is told which rectangles changed (``add(rgb, changed)``), so it skips every
    macroblock outside them without looking at its pixels.
    ``settings`` is an ``objsub_fast.ground_truth.h264.encoder.EncoderSettings`` (default: its defaults).

    Examples
    --------
    >>> enc = ObjsubEncoder(64, 48, fps=16)
    >>> for _ in range(4):
    ...     enc.add(np.full((48, 64, 3), 255, np.uint8), changed=[])
    >>> enc.finish()[4:8]
    b'ftyp'
    """

    def __init__(self, width: int, height: int, fps: int = 16, settings=None):
        from .h264.encoder import EncoderSettings, H264Encoder
        from .h264.mp4 import Mp4Muxer

        self._picture = YuvPicture(width, height)
        self._encoder = enc = H264Encoder(width, height,
                                          EncoderSettings() if settings is None else settings,
                                          fps=fps)
        self._new_muxer = lambda: Mp4Muxer(width, height, fps, enc.sps, enc.pps, enc.profile_idc,
                                           enc.constraint_flags, enc.level_idc)
        self._muxer = self._new_muxer()

    def restart(self) -> None:
        """Begin a new video, keeping the encoder's buffers (a 1024x1024 encoder's take longer
        to set up than a small video to encode)."""
        self._encoder.restart()
        self._muxer = self._new_muxer()
        self._picture.count = 0

    def use_weighted_prediction(self, on: bool) -> None:
        """Whether the video's P pictures may carry weights (``H264Encoder``'s method of the
        name; before the first frame): :meth:`add_transition` decides it itself."""
        self._encoder.use_weighted_prediction(on)
        self._muxer = self._new_muxer()

    def add(self, rgb: np.ndarray, changed=None, motion=None, weights=None) -> None:
        """Encode one (H, W, 3) uint8 RGB frame; ``changed`` as in :meth:`Mp4Encoder.add`;
        ``motion`` and ``weights`` as in ``H264Encoder.encode`` (what moved, if the caller
        knows; a fade's weights)."""
        widened = self._picture.update(rgb, changed)
        nals = self._encoder.encode(*self._picture.planes, changed=widened, motion=motion,
                                    weights=weights)
        self._muxer.add(nals, self._encoder.is_keyframe)

    def add_transition(self, plan, first: np.ndarray, final: np.ndarray, rgb=None) -> None:
        """Encode the frames of a transition (``transitions.plan_transition``) from ``first``
        to ``final``, all in one compiled call (``transition_video``): the same bytes as
        adding the frames ``transitions.draw_steps(plan.steps(), ...)`` yields, faster.
        ``rgb``: an (H, W, 3) uint8 buffer to draw in (default a new one)."""
        from .transition_video import encode_steps, pack_plan

        enc = self._encoder
        if first.shape != self._picture._shape or final.shape != first.shape:
            raise ValueError(f"frames must be {self._picture._shape} uint8, got "
                             f"{first.shape} and {final.shape}")
        packed = pack_plan(plan)
        if enc.frame_index == 0 and enc.weighted != packed.weighted:
            self.use_weighted_prediction(packed.weighted)
        packed = packed.for_encoder(enc.weighted)
        frames = len(packed.start)
        rgb = np.empty_like(first) if rgb is None else rgb
        sizes = np.zeros(frames, np.int64)
        out = self._output()
        done = 0
        while done < frames:
            count = encode_steps(packed, done, first, final, rgb, *enc.planes(),
                                 enc.frame_index, enc.quantisers(True), enc.quantisers(False),
                                 enc.state(), out, sizes)
            pos = 0
            for f in range(done, done + count):
                self._muxer.add([out[pos:pos + sizes[f]].tobytes()], enc.picture_coded())
                pos += sizes[f]
            done += count
        self._picture.count = 0    # the next add() converts a whole frame

    def _output(self) -> np.ndarray:
        """The buffer ``add_transition`` writes NAL units into: room for OUTPUT_PICTURES
        escaped pictures of the worst case (about 7 MB each at 1024x1024; only the pages
        written are ever touched), kept from one video to the next."""
        size = OUTPUT_PICTURES * (self._encoder.picture_bound * 3 // 2 + 2)
        if getattr(self, "_out", None) is None or self._out.shape[0] != size:
            self._out = np.empty(size, np.uint8)
        return self._out

    def reconstruction(self):
        """The decoder-side (y, u, v) planes of the last picture (the encoder's reference)."""
        return self._encoder.reconstruction()

    def finish(self) -> bytes:
        """The mp4 bytes."""
        return self._muxer.finish()
