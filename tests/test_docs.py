"""The documentation site: the guide's examples run as written, and the site builds strictly.

The guide (``docs/guide/``, ``docs/seeds/``, ``docs/index.md``) promises that every ``python``
code block runs as written, from any folder; the blocks of one page run in order in one
namespace. A block not meant to run is marked by the HTML comment ``<!-- no-run: reason -->`` on
the line just before its opening fence (documented in ``docs/guide/index.md``). The strict build
(``mkdocs build --strict``: a warning or a broken reference fails) runs where the ``docs`` extra
is installed, and skips cleanly where it is not.
"""

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")  # before any example imports pyplot: no window, ever
import matplotlib.pyplot as plt

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
GUIDE_PAGES = sorted(
    page
    for page in (DOCS / "index.md", *(DOCS / "guide").glob("*.md"), *(DOCS / "seeds").glob("*.md"))
    if page.is_file()
)
# the guide's pages, each with at least one example that runs
PAGES_WITH_EXAMPLES = (
    "guide/quickstart.md",
    "guide/game-loop.md",
    "guide/batch.md",
    "guide/your-own.md",
    "guide/benchmarks.md",
    "guide/gym.md",
)
NO_RUN = re.compile(r"<!--\s*no-run:\s*\S.*-->")
FENCE = re.compile(r"^```(\S*)\s*$")


def code_blocks(text: str) -> list[tuple[str, str, bool]]:
    """The fenced code blocks of a markdown text: ``(language, code, runs)`` in order.

    Read line by line from the fence rules of CommonMark for unindented fences: an opening
    ````` ```lang````` line, the code, a closing ````` ``` ````` line. ``runs`` is False for a
    block whose opening fence follows a ``<!-- no-run: reason -->`` line.
    """
    blocks = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        language = opening.group(1)
        marked = i > 0 and NO_RUN.fullmatch(lines[i - 1].strip()) is not None
        end = i + 1
        while end < len(lines) and lines[end].rstrip() != "```":
            end += 1
        if end == len(lines):
            raise ValueError(f"unclosed code fence at line {i + 1}")
        blocks.append((language, "\n".join(lines[i + 1 : end]) + "\n", not marked))
        i = end + 1
    return blocks


def python_blocks(page: Path) -> list[tuple[str, bool]]:
    return [(code, runs) for lang, code, runs in code_blocks(page.read_text()) if lang == "python"]


def test_code_blocks_reads_fences_and_the_no_run_marker():
    text = (
        "intro\n\n```python\nx = 1\n```\n\ntext\n<!-- no-run: needs a window -->\n"
        "```python\nshow()\n```\n\n```sh\nmake docs\n```\n"
        "<!-- a comment -->\n```python\ny = 2\n```\n"
    )
    assert code_blocks(text) == [
        ("python", "x = 1\n", True),
        ("python", "show()\n", False),
        ("sh", "make docs\n", True),
        ("python", "y = 2\n", True),
    ]
    with pytest.raises(ValueError, match="unclosed"):
        code_blocks("```python\nx = 1\n")


def test_every_python_fence_of_the_guide_is_read():
    """No block escapes the test: as many blocks read as ```python lines in the page."""
    for page in GUIDE_PAGES:
        text = page.read_text()
        assert len(python_blocks(page)) == text.count("\n```python\n") + text.startswith(
            "```python\n"
        ), page


def test_the_guide_has_its_pages_and_their_examples():
    for name in PAGES_WITH_EXAMPLES:
        page = DOCS / name
        assert page.is_file(), name
        assert any(runs for _, runs in python_blocks(page)), f"{name}: no example that runs"
    assert {f"seeds/{seed}.md" for seed in ("000", "001", "002", "003", "004")} <= {
        str(page.relative_to(DOCS)) for page in GUIDE_PAGES
    }


@pytest.mark.parametrize(
    "page",
    [page for page in GUIDE_PAGES if any(runs for _, runs in python_blocks(page))],
    ids=lambda page: str(page.relative_to(DOCS)),
)
def test_guide_examples_run_from_any_folder(page, tmp_path, monkeypatch):
    """Each page's examples, in order, in one namespace, from an empty folder."""
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__docs__"}
    for index, (code, runs) in enumerate(python_blocks(page)):
        if runs:
            exec(compile(code, f"{page.relative_to(DOCS)} block {index}", "exec"), namespace)
    plt.close("all")


def test_api_md_names_are_in_the_reference_pages():
    """Each package of docs/api.md has its reference page, which documents the package."""
    packages = set(re.findall(r"^from (steerlab\.\w+)", (DOCS / "api.md").read_text(), re.M))
    packages.discard("steerlab.experiments")  # the measurement layer: not a user API
    for package in packages:
        page = DOCS / "reference" / f"{package.removeprefix('steerlab.')}.md"
        assert page.is_file(), package
        assert f"::: {package}" in page.read_text(), package


def _api_names() -> list[tuple[str, str]]:
    """``(module, name)`` for every name docs/api.md imports (line continuations joined)."""
    text = (DOCS / "api.md").read_text().replace("\\\n", " ")
    names = []
    for module, imported in re.findall(r"^from (steerlab[\w.]*) import ([^#\n]+)", text, re.M):
        if not module.startswith("steerlab.experiments"):
            names += [(module, name.strip()) for name in imported.split(",") if name.strip()]
    return names


@pytest.mark.skipif(
    importlib.util.find_spec("mkdocs") is None,
    reason="the docs extra is not installed (pip install 'steerlab[docs]')",
)
def test_site_builds_strictly_and_documents_every_stable_name(tmp_path):
    """``mkdocs build --strict`` passes with no warning, and each name of docs/api.md has its
    entry (an anchor ``module....name``) in the built API reference."""
    site = tmp_path / "site"
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        timeout=300,
    )
    log = result.stdout + result.stderr
    assert result.returncode == 0, log
    assert "WARNING" not in log, log
    anchors = set()
    for html in (site / "reference").rglob("index.html"):
        anchors |= set(re.findall(r'id="(steerlab\.[\w.]+)"', html.read_text()))
    missing = [
        f"{module}.{name}"
        for module, name in _api_names()
        if not any(a.startswith(module + ".") and a.endswith("." + name) for a in anchors)
    ]
    assert not missing, missing
