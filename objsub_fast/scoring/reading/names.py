"""Names taken from submitted folders, made safe for every place they go.

Model, task and run names come from the folder names of a submission: any bytes a file system
allows. Before they name a file, an HTML anchor, a spreadsheet cell or a line on a terminal they
pass through one of these functions, so that two names never share a file, a name never becomes
a formula, and a name never moves a terminal's cursor.

Examples
--------
>>> file_stem("team 1") != file_stem("team_1")
True
>>> len(file_stem("m" * 400).encode()) <= 120
True
>>> spreadsheet_cell("=HYPERLINK(1)")
"'=HYPERLINK(1)"
>>> printable("model\\x1b[2J\\nPASS")
'model\\\\x1b[2J\\\\nPASS'
"""
from __future__ import annotations

import hashlib
import re

__all__ = ["file_stem", "printable", "spreadsheet_cell", "model_label", "TOTAL"]

#: The model, level or rule kind of a summary row that totals the others. A model folder of
#: that name is shown as :func:`model_label` makes it (never merged with the totals).
TOTAL = "*"
#: Characters a file stem keeps as they are; the others become ``_``.
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
#: Readable characters kept in front of a stem's hash.
STEM_PREFIX = 96
#: Hex digits of the hash that makes a stem unique.
STEM_HASH = 16
#: First characters of a spreadsheet cell that make it a formula (OWASP's CSV injection list).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
#: Control characters (C0, DEL, C1) and the Unicode line and bidi controls.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def file_stem(name: str) -> str:
    """A file name stem (and HTML id) for ``name``: its readable part, then a hash of the whole.

    Distinct names give distinct stems (``team 1`` and ``team_1`` too), the same name the same
    stem in every run, and a stem is at most ``STEM_PREFIX + 1 + STEM_HASH`` bytes of
    ``[A-Za-z0-9._-]`` whatever ``name`` is, within every file system's 255-byte limit.

    Examples
    --------
    >>> file_stem("m1__00004__run")
    'm1__00004__run-857c8a09582ca3fc'
    """
    readable = _UNSAFE.sub("_", str(name)).strip("._-")[:STEM_PREFIX] or "output"
    digest = hashlib.sha256(str(name).encode("utf-8", "surrogatepass")).hexdigest()
    return f"{readable}-{digest[:STEM_HASH]}"


def printable(text) -> str:
    """``text`` with its control characters written as escapes (``\\x1b``, ``\\n``), for a
    terminal or a one-line message: a name cannot start a new line or move the cursor.

    Examples
    --------
    >>> printable("a\\tb")
    'a\\\\tb'
    """
    def escape(m):
        return m.group().encode("unicode_escape").decode("ascii")

    return _CONTROL.sub(escape, str(text))


def spreadsheet_cell(value):
    """``value`` as a CSV cell no spreadsheet reads as a formula: text that starts with ``=``,
    ``+``, ``-``, ``@``, a tab or a carriage return gets a leading ``'`` (numbers are kept).

    Examples
    --------
    >>> spreadsheet_cell("-0.5"), spreadsheet_cell(-0.5), spreadsheet_cell("L1")
    ("'-0.5", -0.5, 'L1')
    """
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def model_label(name: str) -> str:
    """The name a model folder is shown and grouped by: its own, except a name that reads as
    the totals (:data:`TOTAL`), which is written as the folder path ``./*``.

    Examples
    --------
    >>> model_label("*"), model_label("team/a")
    ('./*', 'team/a')
    """
    return f"./{name}" if name == TOTAL else name
