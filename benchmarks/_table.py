"""A benchmark's table as printed: a header row, a rule under it, the first ``left`` columns
aligned left and the numbers right.

Examples
--------
>>> print_table([["code", "tasks/s"], ["before", "20.8"], ["after", "20.7"]], left=1)
code    tasks/s
------  -------
before     20.8
after      20.7
>>> print(table("PNG", ["frames", "ms"], [["first", 1.5], ["final", 12.25]]))
PNG
frames     ms
------  -----
first     1.5
final   12.25
"""
from __future__ import annotations

__all__ = ["print_table", "table", "table_lines"]


def table_lines(cells, left: int = 1) -> list[str]:
    """The rows ``cells`` (the first is the header) as fixed-width lines, a rule under the
    header."""
    widths = [max(len(r[i]) for r in cells) for i in range(len(cells[0]))]
    lines = []
    for k, row in enumerate(cells):
        lines.append("  ".join(c.ljust(w) if i < left else c.rjust(w)
                               for i, (c, w) in enumerate(zip(row, widths))))
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    return lines


def print_table(cells, left: int = 1) -> None:
    """Print the rows ``cells`` (the first is the header) as a fixed-width table."""
    print("\n".join(table_lines(cells, left)))


def table(title: str, header: list[str], rows: list[list]) -> str:
    """A titled plain-text table: the first column left, the others right (cells made str)."""
    return "\n".join([title, *table_lines([header] + [[str(c) for c in r] for r in rows])])
