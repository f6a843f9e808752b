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


def _imports(name: str, path: Path, *, module_level_only: bool = False) -> set[str]:
    """Absolute names of the steerlab modules that ``path`` imports (relative imports resolved):
    every import statement, or only those run when the module loads."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(), str(path))
    nodes = tree.body if module_level_only else ast.walk(tree)
    found = set()
    for node in nodes:
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
# Imports made inside a function to reach a layer above, each a convenience entry point kept for
# code written against it: (importing module, imported package).
DEFERRED_UPWARD = {
    # World.step_vehicle / step_vehicle_batch, which Vehicle.step(world=) calls, hand the frame
    # to steerlab.sim (terrain, the vehicle's dynamics, this world's contacts)
    ("steerlab.world.world", "sim"),
}


def test_the_walk_sees_the_imports_it_must():
    # a check of the walker itself, on imports known to exist
    assert "steerlab.trials.suite" in IMPORTS["steerlab.trials.trial"]
    assert any(
        _package(module) == "trials" for module in IMPORTS["steerlab.experiments.benchmark.table1"]
    )


@pytest.mark.parametrize("module", sorted(m for m in MODULES if _package(m) not in ABOVE_LIBRARY))
def test_library_modules_do_not_import_the_layers_above(module):
    upward = sorted(m for m in IMPORTS[module] if _package(m) in ABOVE_LIBRARY)
    assert not upward, f"{module} imports {upward}"


def test_packages_form_no_cycle():
    graph = nx.DiGraph()
    for module, imported in IMPORTS.items():
        loaded = _imports(module, MODULES[module], module_level_only=True)
        for target in imported:
            source_package, target_package = _package(module), _package(target)
            if (module, target_package) in DEFERRED_UPWARD and target not in loaded:
                continue
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


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_the_vehicles_import_neither_the_world_nor_sim():
    modules = [m for m in MODULES if _package(m) == "vehicles"]
    assert modules
    for module in modules:
        for target in IMPORTS[module]:
            assert not _within(target, "steerlab.world"), f"{module} imports {target}"
            assert not _within(target, "steerlab.sim"), f"{module} imports {target}"


def test_the_world_imports_no_vehicle_and_reaches_sim_only_from_its_entry_points():
    modules = [m for m in MODULES if _package(m) == "world"]
    assert modules
    for module in modules:
        loaded = _imports(module, MODULES[module], module_level_only=True)
        for target in IMPORTS[module]:
            assert not _within(target, "steerlab.vehicles"), f"{module} imports {target}"
            if _within(target, "steerlab.sim"):
                assert (module, "sim") in DEFERRED_UPWARD and target not in loaded
