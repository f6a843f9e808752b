"""The layers hold: no library module imports the measurement code, and packages form no cycle.

Read from the source (every ``import`` and ``from ... import`` statement, at any depth, including
imports inside functions), not from what happens to be imported at run time.
"""

import ast
from pathlib import Path

import networkx as nx
import pytest

SOURCE = Path(__file__).resolve().parent.parent / "src" / "steerlab"
# the layers above the library: measurements, the command line, the former names of both
ABOVE_LIBRARY = {"experiments", "cli", "bench"}


def _modules():
    for path in sorted(SOURCE.rglob("*.py")):
        parts = path.relative_to(SOURCE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        yield ".".join(parts), path


def _imports(name: str, path: Path) -> set[str]:
    """Absolute names of the steerlab modules that ``path`` imports (relative imports resolved)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {module for module in found if module.split(".")[0] == "steerlab"}


def _package(module: str) -> str:
    """The top-level part of steerlab a module belongs to (``steerlab.world.collide`` -> world)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


MODULES = dict(_modules())
IMPORTS = {name: _imports(name, path) for name, path in MODULES.items()}


def test_the_walk_sees_the_imports_it_must():
    # a check of the walker itself, on imports known to exist
    assert "steerlab.trials.suite" in IMPORTS["steerlab.trials.trial"]
    assert any(_package(module) == "trials" for module in IMPORTS["steerlab.experiments.table1"])


@pytest.mark.parametrize("module", sorted(m for m in MODULES if _package(m) not in ABOVE_LIBRARY))
def test_library_modules_do_not_import_the_layers_above(module):
    upward = sorted(m for m in IMPORTS[module] if _package(m) in ABOVE_LIBRARY)
    assert not upward, f"{module} imports {upward}"


def test_packages_form_no_cycle():
    graph = nx.DiGraph()
    for module, imported in IMPORTS.items():
        for target in imported:
            source_package, target_package = _package(module), _package(target)
            if source_package != target_package and "" not in (source_package, target_package):
                graph.add_edge(source_package, target_package)
    cycles = list(nx.simple_cycles(graph))
    assert not cycles, f"package import cycles: {cycles}"


def test_package_data_is_found_without_file_arithmetic():
    offenders = [name for name, path in MODULES.items() if "__file__" in path.read_text()]
    assert not offenders


def test_former_module_names_are_the_moved_modules():
    import importlib

    from steerlab.bench import MOVED

    for former, current in MOVED.items():
        assert importlib.import_module(f"steerlab.bench.{former}") is importlib.import_module(
            current
        )
    import steerlab.bench.trial

    import steerlab.trials.trial

    assert steerlab.bench.trial.TrialSpec is steerlab.trials.trial.TrialSpec
