"""The package version and the generator version of each configuration.

``__version__`` is the package version, written only here (``pyproject.toml`` reads it).

:func:`generator_version` is what task records (and dataset manifests) carry: the version of the
newest generator change that changes the output of a given configuration. Output of a
configuration no change has touched keeps its old version, so a dataset made before a change
stays valid and byte-identical. The rule:

=========  =======================================================================
version    configurations whose output it last changed
=========  =======================================================================
0.1.0      min(W, H) = 256, classic vocabulary, exact prompts (everything so far)
0.2.0      lengths scaled with the canvas (min(W, H) != 256), and every extended
           vocabulary, shape naming or prompt-variant configuration (new output)
0.3.0      every configuration with videos encoded by this project's own H.264
           encoder (``video_encoder="objsub"``, new output); x264 videos and runs
           without videos keep their version
=========  =======================================================================

A future change adds a row here for the configurations it changes. The package version is the
release's and may lag the newest row until the release that ships it is cut (records and, via
this function, manifests carry the generator version; the default 256 px output keeps 0.1.0).

Examples
--------
>>> generator_version(256), generator_version((320, 256)), generator_version(1024)
('0.1.0', '0.1.0', '0.2.0')
>>> generator_version(256, classic=False)
'0.2.0'
>>> generator_version(256, video_encoder="objsub"), generator_version(256, video_encoder="x264")
('0.3.0', '0.1.0')
"""
from __future__ import annotations

__all__ = ["__version__", "generator_version", "OBJSUB_VIDEOS"]

__version__ = "0.1.0"

#: The first generator version, and the one that scaled scenes and the extended vocabulary.
_ORIGINAL, _SCALED_AND_EXTENDED = "0.1.0", "0.2.0"
#: The version that made the own H.264 encoder write ground-truth videos (``objsub_fast.h264``).
OBJSUB_VIDEOS = "0.3.0"


def generator_version(canvas_size=256, *, classic: bool = True,
                      video_encoder: str | None = None) -> str:
    """The generator version of a configuration's output.

    Parameters
    ----------
    canvas_size : int or (int, int)
        Canvas (width, height), or one side of a square canvas.
    classic : bool
        True for the classic vocabulary (six colours, four shapes, solid names) with the exact
        original prompts (``prompt_variants=1``).
    video_encoder : str, optional
        The encoder of the run's videos (``"objsub"`` or ``"x264"``); None without videos.
    """
    if video_encoder == "objsub":
        return OBJSUB_VIDEOS
    width, height = (canvas_size, canvas_size) if isinstance(canvas_size, int) else canvas_size
    if classic and min(int(width), int(height)) == 256:
        return _ORIGINAL
    return _SCALED_AND_EXTENDED
