"""An HTML page read back with the standard library's parser (``html.parser``): its tables as rows
of cell texts, every element with its attributes and text, entities decoded."""

from html.parser import HTMLParser

_VOID = {"meta", "img", "br", "link", "input", "hr"}  # elements without an end tag


class Page(HTMLParser):
    """``tables``: per ``<table>``, its rows (header row included), each a list of the texts of its
    ``<th>``/``<td>`` cells; ``elements``: ``(tag, attributes, text)`` of every element in document
    order, its text being all the text inside it, spaces collapsed; ``errors``: tags closed
    without being open."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tables: list[list[list[str]]] = []
        self.elements: list[tuple[str, dict, str]] = []
        self.errors: list[str] = []
        self._open: list[tuple[str, dict, list[str]]] = []
        self._cell: list[str] | None = None
        self.feed(text)
        self.close()
        assert not self._open, f"elements never closed: {[tag for tag, _, _ in self._open]}"

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []
        if tag in _VOID:
            self.elements.append((tag, attributes, ""))
        else:
            self._open.append((tag, attributes, []))

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self.tables[-1][-1].append(" ".join("".join(self._cell).split()))
            self._cell = None
        if not self._open or self._open[-1][0] != tag:
            self.errors.append(tag)
            return
        name, attributes, texts = self._open.pop()
        self.elements.append((name, attributes, " ".join("".join(texts).split())))

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)
        for _, _, texts in self._open:
            texts.append(data)

    def find(self, tag: str) -> list[tuple[dict, str]]:
        """``(attributes, text)`` of every ``tag`` element."""
        return [(attributes, text) for name, attributes, text in self.elements if name == tag]
