"""Layers: the frame of a vehicle in a world is steerlab.sim's; vehicles and world stay apart.

Read from the source (the syntax tree of every module), not from what an import happens to load.
"""

import ast
from pathlib import Path

import pytest

import steerlab

PACKAGE = Path(steerlab.__file__).parent


def imports(path):
    """``(module imported, at module level)`` for every import statement of the file."""
    tree = ast.parse(path.read_text(), filename=str(path))
    top_level = {id(node) for node in tree.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, id(node) in top_level) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.module, id(node) in top_level))
        elif isinstance(node, ast.ImportFrom):  # relative: steerlab uses absolute imports only
            pytest.fail(f"{path}: relative import of {node.module!r}")
    return found


def within(module, package):
    return module == package or module.startswith(package + ".")


def test_the_vehicles_import_neither_the_world_nor_sim():
    files = sorted((PACKAGE / "vehicles").glob("*.py"))
    assert files
    for path in files:
        for module, _ in imports(path):
            assert not within(module, "steerlab.world"), f"{path.name} imports {module}"
            assert not within(module, "steerlab.sim"), f"{path.name} imports {module}"


def test_the_world_does_not_import_the_vehicles_and_reaches_sim_only_from_its_entry_points():
    # World.step_vehicle and step_vehicle_batch hand the call to steerlab.sim, importing it when
    # called; nothing in the world imports it when loaded, nor anything of the vehicles
    files = sorted((PACKAGE / "world").glob("*.py"))
    assert files
    for path in files:
        for module, top_level in imports(path):
            assert not within(module, "steerlab.vehicles"), f"{path.name} imports {module}"
            if within(module, "steerlab.sim"):
                assert not top_level, f"{path.name} imports {module} at module level"
