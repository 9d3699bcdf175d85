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
0.3.0      vocabularies with a shape whose plural is not name + "s" (L2 lists now
           say "all teal hourglasses", 0.2.0 wrote "hourglasss")
0.4.0      min(W, H) != 256: the scene is decided in 256 units and then scaled, so a
           seed gives the same scene at every canvas size
0.5.0      every configuration with ground-truth videos encoded by this project's own
           H.264 encoder (``video_encoder="objsub"``); x264 videos and runs without
           videos keep their version
0.6.0      objsub videos again: the transition tells the encoder what moved, the IDR
           picture is coded at QP 22 (was 24) and inter residuals round at 2/6 (was 1/6)
0.9.0      the solid look (``look="solid"``, ``--look solid``: objects drawn as lit
           solids); flat-look output keeps its version
=========  =======================================================================

A configuration that several changes touched carries the newest of their versions. A future
change adds a row here for the configurations it changes. The package version is the
release's and may lag the newest row until the release that ships it is cut (records and, via
this function, manifests carry the generator version; the default 256 px output keeps 0.1.0).

Examples
--------
>>> generator_version(256), generator_version((320, 256)), generator_version(1024)
('0.1.0', '0.1.0', '0.4.0')
>>> generator_version(256, classic=False), generator_version(512, classic=False)
('0.2.0', '0.4.0')
>>> generator_version(256, classic=False, shapes=("cube", "hourglass"))
'0.3.0'
>>> generator_version(1024, video_encoder="objsub"), generator_version(256, video_encoder="x264")
('0.6.0', '0.1.0')
>>> generator_version(256, look="solid"), generator_version(4096, look="solid", video_encoder="objsub")
('0.9.0', '0.9.0')
"""
from __future__ import annotations

__all__ = ["__version__", "generator_version", "GENERATOR_VERSIONS", "OBJSUB_VIDEOS",
           "version_text"]

__version__ = "0.1.0"

_ORIGINAL, _SCALED_AND_EXTENDED, _ENGLISH_PLURALS = "0.1.0", "0.2.0", "0.3.0"
#: The version that decided every scene in 256 units (the same scene at every canvas size).
SCENE_IN_256_UNITS = "0.4.0"
#: The version that made the own H.264 encoder write ground-truth videos (``objsub_fast.h264``).
_FIRST_OBJSUB_VIDEOS = "0.5.0"
#: The version of the newest change to the own encoder's videos (what objsub runs carry).
OBJSUB_VIDEOS = "0.6.0"
#: The version that added the solid look (every solid-look configuration carries it).
SOLID_LOOK = "0.9.0"
#: Each generator version and the configurations whose output it last changed (the table
#: above, as ``--version`` prints it).
GENERATOR_VERSIONS = (
    (_ORIGINAL, "256 px canvases (min side), classic vocabulary, exact prompts"),
    (_SCALED_AND_EXTENDED, "other canvas sizes; opt-in vocabularies, shape names, wordings"),
    (_ENGLISH_PLURALS, "vocabularies with a shape whose plural takes -es (hourglasses)"),
    (SCENE_IN_256_UNITS, "canvases whose shorter side is not 256 px (scene in 256 units)"),
    (_FIRST_OBJSUB_VIDEOS, "datasets with videos from the own H.264 encoder "
                           "(--video-encoder objsub)"),
    (OBJSUB_VIDEOS, "the own encoder's videos again: motion told by the transition, new QPs"),
    (SOLID_LOOK, "the solid look (--look solid: objects drawn as lit solids)"),
)


def version_text() -> str:
    """What ``objsub-fast --version`` prints: the package version, and the generator versions
    that task records and manifests carry.

    Examples
    --------
    >>> print(version_text().splitlines()[0])
    objsub-fast 0.1.0
    """
    rows = [f"  {version}  {what}" for version, what in GENERATOR_VERSIONS]
    return "\n".join([f"objsub-fast {__version__}",
                      "generator_version, as task records and manifest.json carry it: the "
                      "newest change to a configuration's output (docs/generating.md)", *rows])


def generator_version(canvas_size=256, *, classic: bool = True, shapes=(),
                      video_encoder: str | None = None, look: str = "flat") -> str:
    """The generator version of a configuration's output: the newest row of the table above
    whose change touched it.

    Parameters
    ----------
    canvas_size : int or (int, int)
        Canvas (width, height), or one side of a square canvas.
    classic : bool
        True for the classic vocabulary (six colours, four shapes, solid names) with the exact
        original prompts (``prompt_variants=1``).
    shapes : sequence of str
        The shape names the configuration's prompts use.
    video_encoder : str, optional
        The encoder of the run's videos (``"objsub"`` or ``"x264"``); None without videos.
    look : str
        How objects are drawn (``"flat"`` or ``"solid"``).
    """
    from .vocabulary import plural

    width, height = (canvas_size, canvas_size) if isinstance(canvas_size, int) else canvas_size
    other_size = min(int(width), int(height)) != 256
    touched = ((_SCALED_AND_EXTENDED, other_size or not classic),
               (_ENGLISH_PLURALS, any(plural(name) != name + "s" for name in shapes)),
               (SCENE_IN_256_UNITS, other_size),
               (_FIRST_OBJSUB_VIDEOS, video_encoder == "objsub"),
               (OBJSUB_VIDEOS, video_encoder == "objsub"),
               (SOLID_LOOK, look == "solid"))
    newest = [version for version, applies in touched if applies]
    return newest[-1] if newest else _ORIGINAL
