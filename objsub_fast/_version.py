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
0.7.0      objsub videos again: a 92-byte ``tkhd`` (identity matrix, the movie's
           duration; 0.6.0 wrote 96 bytes that readers took for a turned, empty track)
           and the SPS level worked out for the video's real frame rate (was 30 fps)
0.8.0      min(W, H) not a multiple of 256 (a fractional scale factor): every guarantee
           holds in whole pixels; a task whose rounded pixels broke one draws another scene
0.9.0      the solid look (``look="solid"``, ``--look solid``: objects drawn as lit
           solids); flat-look output keeps its version
0.10.0     objsub videos again: a fade's pictures are predicted from the previous one
           with explicit weights (Main profile, weighted prediction): about half the
           bytes, faster to encode
0.11.0     objsub videos again: a fading macroblock within half a quantiser step of
           its weighted prediction is coded as that prediction alone (no residual)
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
>>> generator_version(256, classic=False, irregular_plurals=True)  # "hourglasses"
'0.3.0'
>>> generator_version(1024, video_encoder="objsub"), generator_version(256, video_encoder="x264")
('0.11.0', '0.1.0')
>>> generator_version(1000), generator_version((1000, 700), video_encoder="objsub")
('0.8.0', '0.11.0')
>>> generator_version(256, look="solid"), generator_version(4096, look="solid", video_encoder="objsub")
('0.9.0', '0.11.0')
"""
from __future__ import annotations

__all__ = ["__version__", "generator_version", "GENERATOR_VERSIONS", "OBJSUB_VIDEOS",
           "version_text"]

__version__ = "0.1.0"

_ORIGINAL, _SCALED_AND_EXTENDED, _ENGLISH_PLURALS = "0.1.0", "0.2.0", "0.3.0"
#: The version that decided every scene in 256 units (the same scene at every canvas size).
SCENE_IN_256_UNITS = "0.4.0"
#: The version that made the own H.264 encoder write ground-truth videos (``objsub_fast.ground_truth.h264``).
_FIRST_OBJSUB_VIDEOS = "0.5.0"
#: The version that told the own encoder what moved and changed its QPs.
_MOTION_TOLD = "0.6.0"
#: The version that wrote a right-sized tkhd and the level from the frame rate.
_SIZED_TKHD = "0.7.0"
#: The version that made every guarantee hold in whole pixels at fractional scale factors.
WHOLE_PIXEL_GUARANTEES = "0.8.0"
#: The version that added the solid look (every solid-look configuration carries it).
SOLID_LOOK = "0.9.0"
#: The version that weighted-predicted the own encoder's fades.
_WEIGHTED_FADES = "0.10.0"
#: The version of the newest change to the own encoder's videos (what objsub runs carry).
OBJSUB_VIDEOS = "0.11.0"
#: Each generator version and the configurations whose output it last changed (the table
#: above, as ``--version`` prints it).
GENERATOR_VERSIONS = (
    (_ORIGINAL, "256 px canvases (min side), classic vocabulary, exact prompts"),
    (_SCALED_AND_EXTENDED, "other canvas sizes; opt-in vocabularies, shape names, wordings"),
    (_ENGLISH_PLURALS, "vocabularies with a shape whose plural takes -es (hourglasses)"),
    (SCENE_IN_256_UNITS, "canvases whose shorter side is not 256 px (scene in 256 units)"),
    (_FIRST_OBJSUB_VIDEOS, "datasets with videos from the own H.264 encoder "
                           "(--video-encoder objsub)"),
    (_MOTION_TOLD, "the own encoder's videos again: motion told by the transition, new QPs"),
    (_SIZED_TKHD, "the own encoder's videos again: a right-sized tkhd, the level from the fps"),
    (WHOLE_PIXEL_GUARANTEES, "canvases whose shorter side is not a multiple of 256 px "
                             "(guarantees in whole pixels)"),
    (SOLID_LOOK, "the solid look (--look solid: objects drawn as lit solids)"),
    (_WEIGHTED_FADES, "the own encoder's videos again: fades weighted-predicted (Main profile)"),
    (OBJSUB_VIDEOS, "the own encoder's videos again: fades within half a quantiser step of "
                    "the weighted prediction coded without a residual"),
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


def generator_version(canvas_size=256, *, classic: bool = True, irregular_plurals: bool = False,
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
    irregular_plurals : bool
        True when a shape name the configuration's prompts use has an English plural other
        than name + "s" (``vocabulary.plural``: "hourglasses"); the caller tells, so this
        module imports nothing of the package (it sits above the parts).
    video_encoder : str, optional
        The encoder of the run's videos (``"objsub"`` or ``"x264"``); None without videos.
    look : str
        How objects are drawn (``"flat"`` or ``"solid"``).
    """
    width, height = (canvas_size, canvas_size) if isinstance(canvas_size, int) else canvas_size
    other_size = min(int(width), int(height)) != 256
    fractional_scale = min(int(width), int(height)) % 256 != 0
    touched = ((_SCALED_AND_EXTENDED, other_size or not classic),
               (_ENGLISH_PLURALS, irregular_plurals),
               (SCENE_IN_256_UNITS, other_size),
               (_FIRST_OBJSUB_VIDEOS, video_encoder == "objsub"),
               (_MOTION_TOLD, video_encoder == "objsub"),
               (_SIZED_TKHD, video_encoder == "objsub"),
               (WHOLE_PIXEL_GUARANTEES, fractional_scale),
               (SOLID_LOOK, look == "solid"),
               (OBJSUB_VIDEOS, video_encoder == "objsub"))
    newest = [version for version, applies in touched if applies]
    return newest[-1] if newest else _ORIGINAL
