"""What every benchmark does at its start: check the packages it needs beyond the package's own
dependencies, and describe itself in ``--help``.

A benchmark that needs an extra calls :func:`require` before anything else, so that a missing
package is one line at once, not a ``ModuleNotFoundError`` minutes into the run; ``--help``
still prints the help without them. :func:`description` is the first paragraph of a
benchmark's docstring as one sentence for argparse.

Examples
--------
>>> require("json", extra="bench", script="bench_x.py")  # present: nothing happens
>>> missing(["json", "no_such_module_here"])
['no_such_module_here']
>>> description("Time the thing: fast\\nand slow.\\n\\nDetails.")
'Time the thing: fast and slow.'
"""
from __future__ import annotations

import importlib.util
import os
import sys

__all__ = ["require", "missing", "description"]

#: Exit status of a benchmark that cannot run (as for a usage error of the command line).
EXIT_MISSING = 2
#: Arguments that ask for the help, which a benchmark prints whatever is installed.
HELP_FLAGS = {"-h", "--help"}


def missing(modules) -> list[str]:
    """The modules of ``modules`` that cannot be imported."""
    return [m for m in modules if importlib.util.find_spec(m) is None]


def require(*modules: str, extra: str, script: str | None = None) -> None:
    """Exit with one line naming the ``modules`` that are missing and the extra that installs
    them (``pip install -e ".[extra]"`` from the checkout)."""
    if HELP_FLAGS & set(sys.argv[1:]):
        return  # the help needs none of them
    absent = missing(modules)
    if absent:
        name = script or os.path.basename(sys.argv[0])
        print(f"{name} needs {', '.join(absent)}, which the [{extra}] extra installs: "
              f"pip install -e \".[{extra}]\" (in the objsub-fast checkout)", file=sys.stderr)
        raise SystemExit(EXIT_MISSING)


def description(doc: str) -> str:
    """The first paragraph of ``doc`` on one line (argparse's ``description``); a paragraph
    that introduces a list (ends with ":") ends with a full stop instead."""
    first = " ".join(doc.strip().split("\n\n")[0].split())
    return first[:-1] + "." if first.endswith(":") else first
