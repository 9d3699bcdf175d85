"""A benchmark's table as printed: a header row, a rule under it, the first ``left`` columns
aligned left and the numbers right.

Examples
--------
>>> print_table([["code", "tasks/s"], ["before", "20.8"], ["after", "20.7"]], left=1)
code    tasks/s
------  -------
before     20.8
after      20.7
"""
from __future__ import annotations

__all__ = ["print_table"]


def print_table(cells, left: int = 1) -> None:
    """Print the rows ``cells`` (the first is the header) as a fixed-width table."""
    widths = [max(len(r[i]) for r in cells) for i in range(len(cells[0]))]
    for k, row in enumerate(cells):
        print("  ".join(c.ljust(w) if i < left else c.rjust(w)
                        for i, (c, w) in enumerate(zip(row, widths))))
        if k == 0:
            print("  ".join("-" * w for w in widths))
