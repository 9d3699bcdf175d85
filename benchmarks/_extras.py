"""The packages a benchmark needs beyond the package's own dependencies, checked at its start.

A benchmark that needs an extra calls :func:`require` before anything else, so that a missing
package is one line at once, not a ``ModuleNotFoundError`` minutes into the run.

Examples
--------
>>> require("json", extra="bench", script="bench_x.py")  # present: nothing happens
>>> missing(["json", "no_such_module_here"])
['no_such_module_here']
"""
from __future__ import annotations

import importlib.util
import os
import sys

__all__ = ["require", "missing"]

#: Exit status of a benchmark that cannot run (as for a usage error of the command line).
EXIT_MISSING = 2


def missing(modules) -> list[str]:
    """The modules of ``modules`` that cannot be imported."""
    return [m for m in modules if importlib.util.find_spec(m) is None]


def require(*modules: str, extra: str, script: str | None = None) -> None:
    """Exit with one line naming the ``modules`` that are missing and the extra that installs
    them (``pip install -e ".[extra]"`` from the checkout)."""
    absent = missing(modules)
    if absent:
        name = script or os.path.basename(sys.argv[0])
        print(f"{name} needs {', '.join(absent)}, which the [{extra}] extra installs: "
              f"pip install -e \".[{extra}]\" (in the objsub-fast checkout)", file=sys.stderr)
        raise SystemExit(EXIT_MISSING)
