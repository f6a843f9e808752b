"""The README's examples run as written."""

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_has_an_example_for_each_way_of_use():
    assert len(BLOCKS) >= 2
    assert any(".step(" in block for block in BLOCKS)
    assert any(".step_batch(" in block for block in BLOCKS)


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_example_runs_from_any_folder(index, capsys, tmp_path, monkeypatch):
    """Each example, run from an empty folder: shipped data is found through the package."""
    monkeypatch.chdir(tmp_path)
    exec(compile(BLOCKS[index], f"README block {index}", "exec"), {})
    assert capsys.readouterr().out.strip()
    assert not any(tmp_path.iterdir())  # and it leaves nothing behind
