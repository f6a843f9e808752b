"""Markdown tables (``steerlab.experiments.markdown``) read back by GFM's table rules
(``tests/gfm_tables.py``, written from the spec) give the cells and alignments they were made from.
"""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gfm_tables import find_tables, parse_table
from steerlab.experiments.markdown import ALIGNMENTS, markdown_table

# cell text: anything on one line but backslashes (inline escapes are markdown's, not the table's);
# pipes, colons, hyphens, digits and non-ASCII letters included
_TEXT = st.text(
    st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"), blacklist_characters="\\"),
    max_size=12,
)


@st.composite
def tables(draw):
    columns = draw(st.integers(1, 5))
    header = draw(st.lists(_TEXT, min_size=columns, max_size=columns))
    rows = draw(st.lists(st.lists(_TEXT, min_size=columns, max_size=columns), max_size=6))
    align = draw(st.lists(st.sampled_from(ALIGNMENTS), min_size=columns, max_size=columns))
    return header, rows, align


def _trimmed(cells):
    # GFM trims the spaces around a cell's text (and the helper writes a line break as a space)
    return [cell.strip() for cell in cells]


@given(tables())
def test_a_table_reads_back_as_its_cells_and_alignments(table):
    header, rows, align = table
    text = markdown_table(header, rows, align)
    lines = text.split("\n")
    assert len(lines) == len(rows) + 2
    assert all(line.startswith("|") and line.endswith("|") for line in lines)
    read_header, read_align, read_rows = parse_table(text)
    assert read_header == _trimmed(header)
    assert read_align == align
    assert read_rows == [_trimmed(row) for row in rows]


def test_numbers_stay_as_written_and_an_aligned_column_is_padded_to_one_width():
    text = markdown_table(
        ["name", "value"], [["a", "1.50"], ["bb", "007"], ["c", "1e3"]], [None, "right"]
    )
    _, align, rows = parse_table(text)
    assert align == [None, "right"] and rows == [["a", "1.50"], ["bb", "007"], ["c", "1e3"]]
    lines = text.split("\n")
    # the aligned column: the same width on every line, its text flush right
    widths = {len(line.rstrip("|").rpartition("|")[2]) for line in lines}
    assert len(widths) == 1
    assert all(line.endswith(" |") for line in lines if not line.startswith("|-"))
    # the column without an alignment: each cell as written, not padded
    assert [line.split("|")[1] for line in lines[2:]] == [" a ", " bb ", " c "]


def test_pipes_and_line_breaks_never_split_a_row():
    text = markdown_table(["a|b", "c"], [["x | y", "two\nlines"], ["|", "\r\n"]])
    header, _, rows = parse_table(text)
    assert header == ["a|b", "c"]
    assert rows == [["x | y", "two lines"], ["|", ""]]


def test_a_single_alignment_applies_to_every_column():
    _, align, _ = parse_table(markdown_table(["a", "b", "c"], [["1", "2", "3"]], "center"))
    assert align == ["center"] * 3


def test_rows_may_be_any_iterable_and_cells_anything_printable():
    rows = ((i, i / 2) for i in range(3))
    _, _, read = parse_table(markdown_table(["i", "half"], rows))
    assert read == [["0", "0.0"], ["1", "0.5"], ["2", "1.0"]]


def test_an_empty_table_is_its_header():
    assert find_tables(markdown_table(["a", "b"], [])) == [(["a", "b"], [None, None], [])]


@pytest.mark.parametrize(
    ("header", "rows", "align", "match"),
    [
        ([], [], None, r"header must be a non-empty sequence of column titles, got \[\]"),
        ("ab", [], None, "header must be a non-empty sequence"),
        (["a", "b"], [["1"]], None, r"rows\[0\] must be a sequence of 2 cells.*got \['1'\]"),
        (["a"], ["x"], None, r"rows\[0\] must be a sequence of 1 cells"),
        (["a"], [["1"]], "middle", "align must be one of .* got 'middle'"),
        (["a", "b"], [], ["left"], r"align must be .* 2 of them .* got \['left'\]"),
    ],
)
def test_bad_input_is_a_value_error_naming_the_argument(header, rows, align, match):
    with pytest.raises(ValueError, match=match):
        markdown_table(header, rows, align)
