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
>>> generator_version(256, classic=False, shapes=("cube", "hourglass"))
'0.3.0'
"""
from __future__ import annotations

__all__ = ["__version__", "generator_version", "GENERATOR_VERSIONS", "version_text"]

__version__ = "0.1.0"

#: The first generator version, the one that scaled scenes and the extended vocabulary, and the
#: one that wrote English plurals.
_ORIGINAL, _SCALED_AND_EXTENDED, _ENGLISH_PLURALS = "0.1.0", "0.2.0", "0.3.0"
#: Each generator version and the configurations whose output it last changed (the table
#: above, as ``--version`` prints it).
GENERATOR_VERSIONS = (
    (_ORIGINAL, "256 px canvases (min side), classic vocabulary, exact prompts"),
    (_SCALED_AND_EXTENDED, "other canvas sizes; opt-in vocabularies, shape names, wordings"),
    (_ENGLISH_PLURALS, "vocabularies with a shape whose plural takes -es (hourglasses)"),
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


def generator_version(canvas_size=256, *, classic: bool = True, shapes=()) -> str:
    """The generator version of a configuration's output.

    Parameters
    ----------
    canvas_size : int or (int, int)
        Canvas (width, height), or one side of a square canvas.
    classic : bool
        True for the classic vocabulary (six colours, four shapes, solid names) with the exact
        original prompts (``prompt_variants=1``).
    shapes : sequence of str
        The shape names the configuration's prompts use.
    """
    from .vocabulary import plural

    if any(plural(name) != name + "s" for name in shapes):
        return _ENGLISH_PLURALS
    width, height = (canvas_size, canvas_size) if isinstance(canvas_size, int) else canvas_size
    if classic and min(int(width), int(height)) == 256:
        return _ORIGINAL
    return _SCALED_AND_EXTENDED
