"""A run's configuration in command-line terms: the ``generate`` option of each recorded field.

``manifest.json`` records a run's configuration (``RunConfig.to_json``); this module writes it
back as the ``objsub-fast generate`` command that reproduces it (``generate_command``, what
``verify`` prints to finish an interrupted run) and names the options in which two
configurations differ (``option_differences``, the message of a configuration mismatch).
``OPTIONS`` is the one table: a field of ``RunConfig`` either has a row there or is listed in
``NO_OPTION`` (a test keeps the two complete).
"""
from __future__ import annotations

import shlex

__all__ = ["OPTIONS", "NO_OPTION", "generate_command", "option_differences", "option_value"]


def _flag(value) -> str | None:
    return "" if value else None


def _range(value) -> str:
    lo, hi = value
    return f"{lo}-{hi}"


def _weights(value) -> str:
    return ";".join(f"{level}:" + ",".join(f"{kind}={weight!r}" for kind, weight in row.items())
                    for level, row in value.items())


def _names(value) -> str:
    return ",".join(value)


#: Recorded field -> (``generate`` option, how the recorded value is written; a flag's writer
#: gives "" for on and None for off). In the order the command lists them.
OPTIONS = {
    "count": ("--count", str),
    "levels": ("--levels", _names),
    "seed": ("--seed", str),
    "format": ("--format", str),
    "shard_size": ("--shard-size", str),
    "canvas_size": ("--canvas-size", lambda v: f"{v[0]}x{v[1]}"),
    "masks": ("--masks", _flag),
    "num_objects": ("--num-objects", _range),
    "object_size": ("--object-size", _range),
    "kind_weights": ("--kind-weights", _weights),
    "vocabulary": ("--vocabulary", str),
    "colors": ("--colors", _names),
    "shapes": ("--shapes", _names),
    "shape_names": ("--shape-names", str),
    "prompt_variants": ("--prompt-variants", str),
    "look": ("--look", str),
    "videos": ("--videos", _flag),
    "video_style": ("--video-style", str),
    "fps": ("--fps", str),
    "video_frames": ("--video-frames", str),
    "encoder": ("--video-encoder", str),
    "vbvr_pack": ("--vbvr-pack", str),
    "vbvr_split": ("--vbvr-split", str),
    "split": ("--split", str),
}
#: Recorded fields no option sets, and why: the generator version (the installed package's),
#: whether VBVR's index has a parquet copy (pyarrow installed or not) and the video encoder's
#: settings and build (the installed encoder's).
NO_OPTION = {"generator_version": "the installed objsub-fast",
             "vbvr_parquet": "whether pyarrow is installed",
             "video_encoder": "the installed video encoder"}


def option_value(field: str, value) -> str | None:
    """``field``'s recorded ``value`` as its option's argument ("" for a flag that is on, None
    for one that is off).

    Examples
    --------
    >>> option_value("canvas_size", [1024, 1024]), option_value("num_objects", [5, 9])
    ('1024x1024', '5-9')
    >>> option_value("kind_weights", {"L1": {"color": 2.0, "shape": 1.0}})
    'L1:color=2.0,shape=1.0'
    """
    return OPTIONS[field][1](value)


def generate_command(config: dict, out) -> str:
    """The ``objsub-fast generate`` command that writes the run ``config`` records (a
    manifest's ``config``) into ``out``: every recorded option, so that it resumes the run.

    Examples
    --------
    >>> generate_command({"count": 20, "levels": ["L1", "L2"], "seed": 0,
    ...                   "format": "webdataset", "shard_size": 5, "canvas_size": [256, 256],
    ...                   "masks": False, "generator_version": "0.1.0"}, "my data")
    "objsub-fast generate --out 'my data' --count 20 --levels L1,L2 --seed 0 --format \
webdataset --shard-size 5 --canvas-size 256x256"
    """
    words = ["objsub-fast", "generate", "--out", str(out)]
    for field, (option, write) in OPTIONS.items():
        if field in config:
            value = write(config[field])
            words += [] if value is None else [option] if value == "" else [option, value]
    return shlex.join(words)


def _said(config: dict, field: str) -> str:
    if field in OPTIONS and OPTIONS[field][1] is _flag:
        return "on" if config.get(field) else "off"
    if field not in config:
        return "not given"
    if field in OPTIONS:
        return option_value(field, config[field])
    return str(config[field])


#: A configuration mismatch spells out this many differences, then names the others.
SHOWN_DIFFERENCES = 3
#: ... at most this many of them.
NAMED_DIFFERENCES = 6


def option_differences(old: dict, new: dict) -> str:
    """The options in which the run recorded in ``old`` and the run of ``new`` differ (two
    manifest ``config`` dicts), in command-line terms: the first :data:`SHOWN_DIFFERENCES`
    with both values, the others by name (at most :data:`NAMED_DIFFERENCES`), so that the
    message stays a line a terminal shows.

    Examples
    --------
    >>> option_differences({"count": 8, "fps": 16, "videos": True}, {"count": 8})
    '--videos (there: on, now: off), --fps (there: 16, now: not given)'
    >>> option_differences({"generator_version": "0.1.0"}, {"generator_version": "0.2.0"})
    'generator_version, set by the installed objsub-fast (there: 0.1.0, now: 0.2.0)'
    >>> many = option_differences({"count": 8, "seed": 1, "fps": 8, "look": "solid"},
    ...                           {"count": 9})
    >>> many.startswith("--count (there: 8, now: 9), --seed"), many.split(") and ")[1]
    (True, '1 more: --fps')
    """
    fields = list(dict.fromkeys(f for f in (*OPTIONS, *NO_OPTION, *old, *new)
                                if old.get(f) != new.get(f)))
    said = _spelled_out(old, new, fields[:SHOWN_DIFFERENCES])
    rest = [OPTIONS[f][0] if f in OPTIONS else f for f in fields[SHOWN_DIFFERENCES:]]
    if not said:
        return "unknown difference"
    if not rest:
        return ", ".join(said)
    named = ", ".join(rest[:NAMED_DIFFERENCES]) + (", ..." if len(rest) > NAMED_DIFFERENCES
                                                   else "")
    return f"{', '.join(said)} and {len(rest)} more: {named}"


def _spelled_out(old: dict, new: dict, fields: list) -> list[str]:
    """Each field of ``fields`` with its value there (``old``) and now (``new``)."""
    said = []
    for field in fields:
        if field in OPTIONS:
            said.append(f"{OPTIONS[field][0]} (there: {_said(old, field)}, now: "
                        f"{_said(new, field)})")
        elif isinstance(old.get(field), dict) or isinstance(new.get(field), dict):
            said.append(f"{field} (set by {NO_OPTION.get(field, 'no option')}) differs")
        else:
            said.append(f"{field}, set by {NO_OPTION.get(field, 'no option')} (there: "
                        f"{_said(old, field)}, now: {_said(new, field)})")
    return said
