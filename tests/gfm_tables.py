"""Markdown tables read back into cells, by the rules of GitHub-Flavoured Markdown's table
extension (GFM spec 0.29, section 4.10 "Tables"), written here independently of the code under test.

The rules used:

- a table is a header row, a delimiter row, then zero or more data rows, each on its own line;
- a row's cells are separated by pipes (``|``); a leading and a trailing pipe are optional; a pipe
  preceded by a backslash (``\\|``) is part of the cell's text (the backslash is removed);
- a cell's text is trimmed of the spaces around it;
- a delimiter cell is an optional colon, one or more hyphens and an optional colon (spaces around
  allowed): ``:---:`` centre, ``---:`` right, ``:---`` left, ``---`` no alignment;
- the header row has exactly as many cells as the delimiter row (else it is not a table);
- a table ends at the first blank line or line that does not start a row (here: not a ``|``).
"""

import re

_DELIMITER = re.compile(r"\s*(:?)-+(:?)\s*")


def row_cells(line: str) -> list[str]:
    """The cells of one table row."""
    text = line.strip()
    if text.startswith("|"):
        text = text[1:]
    if text.endswith("|") and not text.endswith("\\|"):
        text = text[:-1]
    cells, current, index = [], [], 0
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text) and text[index + 1] == "|":
            current.append("|")
            index += 2
            continue
        if char == "|":
            cells.append("".join(current).strip())
            current = []
        else:
            current.append(char)
        index += 1
    cells.append("".join(current).strip())
    return cells


def alignments(line: str) -> list[str | None] | None:
    """The alignments of a delimiter row (``"left"``, ``"right"``, ``"center"`` or ``None``), or
    ``None`` when the line is not a delimiter row."""
    found = []
    for cell in row_cells(line):
        match = _DELIMITER.fullmatch(cell)
        if match is None:
            return None
        left, right = bool(match.group(1)), bool(match.group(2))
        found.append("center" if left and right else "right" if right else "left" if left else None)
    return found


def parse_table(text: str) -> tuple[list[str], list[str | None], list[list[str]]]:
    """The header, alignments and data rows of the table that ``text`` is (nothing else)."""
    tables = find_tables(text)
    assert len(tables) == 1, f"expected one table, found {len(tables)}"
    return tables[0]


def find_tables(text: str) -> list[tuple[list[str], list[str | None], list[list[str]]]]:
    """Every table of a markdown text, in order: (header, alignments, rows)."""
    lines = text.splitlines()
    tables = []
    index = 0
    while index + 1 < len(lines):
        header_line, delimiter_line = lines[index], lines[index + 1]
        aligns = alignments(delimiter_line) if header_line.lstrip().startswith("|") else None
        if aligns is None or len(row_cells(header_line)) != len(aligns):
            index += 1
            continue
        rows = []
        index += 2
        while index < len(lines) and lines[index].lstrip().startswith("|"):
            rows.append(row_cells(lines[index]))
            index += 1
        tables.append((row_cells(header_line), aligns, rows))
    return tables
