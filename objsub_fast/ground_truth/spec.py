"""What a ground-truth video is and which settings decide its bytes: :class:`VideoSpec` (style,
frame rate, frame count, encoder), the encoders' settings per look and what else their bytes
depend on (:func:`encoder_settings`, :func:`encoder_build`), as manifests record them.

Examples
--------
>>> VideoSpec(encoder="x264").validate().settings()["encoder"]["codec"]
'libx264'
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ..runtime.errors import ParameterError
from .transition_plan import STYLE_NAMES
from .x264 import ENCODER

__all__ = ["FPS_RANGE", "FRAMES_RANGE", "ENCODERS", "OBJSUB_CONTAINER", "OBJSUB_LOOK_SETTINGS",
           "VideoSpec", "look_settings", "encoder_settings", "encoder_build"]

FPS_RANGE = (1, 120)
FRAMES_RANGE = (2, 1000)
#: The ground-truth video encoders (``VideoSpec.encoder``); the first is the default.
ENCODERS = ("objsub", "x264")
#: The ``colr``/VUI codes and conversion every objsub video carries (recorded with its settings).
OBJSUB_CONTAINER = {
    "container": "mp4 (objsub_fast.ground_truth.h264.mp4)",
    "rgb_to_yuv": ENCODER["rgb_to_yuv"],
    "color_tags": ENCODER["color_tags"],
}
#: The objsub encoder's settings per look (``vocabulary.LOOKS``), as changes to the defaults
#: of ``EncoderSettings``: the flat look's outlined flat shapes keep them; the solid look's
#: shading and anti-aliased edges cost more at the same QPs, so its IDR and P pictures are
#: quantised finer (chosen by ``benchmarks/bench_video.py --solid-only``:
#: ``docs/video_encoder.md``). x264 has one setting for every look (:data:`ENCODER`).
OBJSUB_LOOK_SETTINGS = {
    "flat": {},
    "solid": {"qp_i": 18, "qp_p": 27},
}


@dataclass(frozen=True)
class VideoSpec:
    """What a ground-truth video shows: transition style, frame rate and frame count.

    Examples
    --------
    >>> VideoSpec().validate().settings()["num_frames"]
    61
    """

    style: str = "fade"
    fps: int = 16
    num_frames: int = 61
    encoder: str = ENCODERS[0]

    def validate(self) -> "VideoSpec":
        """Raise ParameterError naming the first bad field (as its command-line option)."""
        for option, value, allowed in (("--video-style", self.style, STYLE_NAMES),
                                       ("--video-encoder", self.encoder, ENCODERS)):
            if value not in allowed:
                raise ParameterError(f"{option} must be one of {', '.join(allowed)}, "
                                     f"got {value!r}")
        for option, value, (lo, hi) in (("--fps", self.fps, FPS_RANGE),
                                        ("--video-frames", self.num_frames, FRAMES_RANGE)):
            if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
                raise ParameterError(f"{option} must be an integer in [{lo}, {hi}], "
                                     f"got {value!r}")
        return self

    def settings(self, look: str = "flat") -> dict:
        """The video settings as recorded in a manifest: this spec, the encoder's settings
        for the frames' ``look`` (:func:`encoder_settings`) and its build
        (:func:`encoder_build`)."""
        return {"style": self.style, "fps": self.fps, "num_frames": self.num_frames,
                "encoder_name": self.encoder, "encoder": encoder_settings(self.encoder, look),
                "encoder_build": encoder_build(self.encoder)}


def look_settings(name: str = ENCODERS[0], look: str = "flat"):
    """The settings the encoder ``name`` encodes videos of the ``look`` with (what
    ``encode_transitions`` uses by default): :data:`ENCODER` for x264; for objsub, an
    ``EncoderSettings`` with the look's changes (:data:`OBJSUB_LOOK_SETTINGS`).

    Examples
    --------
    >>> look_settings("objsub", "flat") == look_settings("objsub")
    True
    >>> look_settings("objsub", "solid").qp_p < look_settings("objsub", "flat").qp_p
    True
    """
    if name == "x264":
        return ENCODER
    from .h264.encoder import EncoderSettings

    return EncoderSettings(**OBJSUB_LOOK_SETTINGS[look])


def encoder_settings(name: str = ENCODERS[0], look: str = "flat") -> dict:
    """Every setting that decides the bytes of the encoder ``name``'s videos of the ``look``,
    as JSON: :data:`ENCODER` for x264; for objsub, :data:`OBJSUB_CONTAINER` and the H.264
    encoder's ``look_settings(name, look).as_dict()`` under ``"h264"``.

    Examples
    --------
    >>> encoder_settings("x264")["codec"], sorted(encoder_settings("objsub"))[:2]
    ('libx264', ['color_tags', 'container'])
    >>> encoder_settings("x264", "solid") == encoder_settings("x264")
    True
    """
    if name == "x264":
        return dict(ENCODER)
    return {**OBJSUB_CONTAINER, "h264": look_settings(name, look).as_dict()}


@lru_cache(maxsize=None)
def encoder_build(name: str = ENCODERS[0]) -> dict:
    """What the video bytes depend on besides the pixels and :func:`encoder_settings`.

    objsub: this project's code only, named by the generator version of objsub videos (every
    change to their bytes bumps it). x264: PyAV, libavcodec, libavformat and x264's core.
    """
    if name == "objsub":
        from .._version import OBJSUB_VIDEOS

        return {"encoder": "objsub_fast.ground_truth.h264", "generator_version": OBJSUB_VIDEOS}
    from .x264 import x264_build

    return x264_build()
