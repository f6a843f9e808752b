"""Markdown tables: every table of the reports (``table1.md``, ``external.md``, ``soak.md``) and of
``docs/fidelity.md``, written by one function on ``tabulate``.

A table is a GitHub-flavoured markdown pipe table (``tabulate``'s ``"pipe"`` format): a header
row, a delimiter row, then one row per entry. Each column's alignment is one of ``ALIGNMENTS``:
``"left"``, ``"right"`` or ``"center"`` (a colon in the delimiter row, ``:---``, ``---:``,
``:---:``; the cells padded to the column's width) or ``None``, no alignment (``---``, the
renderer's default; the cells not padded). Cells are text as given (``str`` of anything else),
with ``|`` escaped as ``\\|`` and line breaks turned into spaces, so that a cell never splits a row;
numbers are not reparsed (``"1.50"`` stays ``"1.50"``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tabulate import tabulate

__all__ = ["ALIGNMENTS", "markdown_table", "numbers_table"]

ALIGNMENTS = (None, "left", "right", "center")


def _cell(value: object) -> str:
    return str(value).replace("|", "\\|").replace("\r\n", " ").replace("\n", " ").replace("\r", " ")


def markdown_table(
    header: Sequence[object],
    rows: Iterable[Sequence[object]],
    align: str | Sequence[str | None] | None = None,
) -> str:
    """A markdown pipe table (module docstring), without a trailing newline.

    Parameters
    ----------
    header : sequence of str, length n >= 1
        The column titles.
    rows : iterable of sequences, each of length n
        The cells, row by row; each cell is written as ``str(cell)``.
    align : one of ``ALIGNMENTS``, or a sequence of n of them
        Every column's alignment, or one per column. Default ``None``: no alignment.

    Returns
    -------
    str
        ``len(rows) + 2`` lines joined by ``"\\n"``.

    Raises
    ------
    ValueError
        If ``header`` is empty or a string, a row is a string or has another length than
        ``header``, or ``align`` holds anything but ``ALIGNMENTS``, or not one per column.
    """
    if isinstance(header, str | bytes) or not isinstance(header, Sequence) or not header:
        raise ValueError(f"header must be a non-empty sequence of column titles, got {header!r}")
    columns = len(header)
    rows = list(rows)
    for index, row in enumerate(rows):
        if isinstance(row, str | bytes) or not isinstance(row, Sequence) or len(row) != columns:
            raise ValueError(
                f"rows[{index}] must be a sequence of {columns} cells (one per column of the "
                f"header), got {row!r}"
            )
    aligns = [align] * columns if align is None or isinstance(align, str) else list(align)
    if len(aligns) != columns or any(a not in ALIGNMENTS for a in aligns):
        raise ValueError(
            f"align must be one of {ALIGNMENTS} or a sequence of {columns} of them (one per "
            f"column), got {align!r}"
        )
    # tabulate ignores the alignments of a table without rows: one row of empty cells (which
    # widens no column) is written, then dropped
    cells = [[_cell(value) for value in row] for row in rows] or [[""] * columns]
    text = tabulate(
        cells,
        headers=[_cell(title) for title in header],
        tablefmt="pipe",
        disable_numparse=True,  # cells are text: "1.50" stays "1.50"
        stralign=None,  # a column without an alignment is not padded ("global" below)
        colalign=["global" if a is None else a for a in aligns],
    )
    return text if rows else text.rpartition("\n")[0]


def numbers_table(
    header: Sequence[object], rows: Iterable[Sequence[object]], names: int = 1
) -> str:
    """The reports' usual table: the first ``names`` columns (names) without an alignment, the
    others (numbers) right-aligned (``markdown_table``)."""
    columns = len(header)
    names = min(names, columns)
    return markdown_table(header, rows, [None] * names + ["right"] * (columns - names))
