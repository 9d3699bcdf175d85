"""JSON read from files this project did not necessarily write intact (manifests, progress
records, indexes, task records): every malformed document is a ``ValueError``.

``json.loads`` raises ``RecursionError`` on a document nested deeper than Python's recursion
limit (100,000 ``[``); that is a malformed document like any other, and callers that turn a
``ValueError`` into one line (or "this shard is not done") handle it with no other case.

Examples
--------
>>> loads('{"a": [1]}')
{'a': [1]}
>>> try:
...     loads("[" * 100_000)
... except ValueError as e:
...     print(e)
JSON nested too deeply (more than the 1000s of levels Python reads)
"""
from __future__ import annotations

import json

__all__ = ["loads"]


def loads(text):
    """``json.loads(text)``; a document nested too deeply is a ValueError, not a
    RecursionError."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("JSON nested too deeply (more than the 1000s of levels Python "
                         "reads)") from None
