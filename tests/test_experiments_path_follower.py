"""Seed 001's sections of docs/fidelity.md (target speed, vehicle classes) and figures."""

import math
from pathlib import Path

import pytest

from steerlab.experiments.fidelity import path_follower_figures as seed001
from steerlab.experiments.fidelity import vehicle_classes
from steerlab.experiments.fidelity.path_follower import (
    measure_bezier_vs_arc,
    measure_off_path,
    render_markdown,
)
from steerlab.vehicles import PRESETS

DOCS = Path(__file__).parent.parent / "docs" / "fidelity.md"


@pytest.fixture(scope="module")
def rows():
    return measure_bezier_vs_arc()


def test_algorithm1_on_a_circle_sees_the_closed_form_curvature(rows):
    for row in rows:
        assert row.kappa_exact_arc == pytest.approx(row.kappa_closed_form, rel=1e-9)
        assert row.kappa_algorithm1 == pytest.approx(row.kappa_closed_form, rel=1e-3)
        # the quadratic Bezier through three points of an arc is flatter than the arc above
        # R = dh / sqrt(2), where theta = 90 degrees
        if row.radius > 6.0 / math.sqrt(2.0) + 0.01:
            assert row.kappa_algorithm1 < 1.0 / row.radius
    wide = [row for row in rows if row.radius >= 100.0]
    assert all(row.kappa_algorithm1 * row.radius == pytest.approx(0.5, abs=1e-3) for row in wide)
    assert all(row.lateral_g == pytest.approx(0.8, abs=2e-3) for row in wide)  # 2 a_lat


def test_the_section_in_docs_is_the_rendered_one(rows):
    text = render_markdown(rows, measure_off_path())
    assert text.startswith("## Seed 001: target speed (Algorithm 1)")
    documented = Path(__file__).parent.parent / "docs" / "fidelity.md"
    section = documented.read_text().split("## Seed 001: target speed (Algorithm 1)")[1]
    section = section.split("\n## ")[0].split("\n<!-- end:")[0]
    assert section.strip() == text.split("(Algorithm 1)", 1)[1].strip()


@pytest.fixture(scope="module")
def classes():
    return vehicle_classes.measure_vehicle_classes()


def test_the_vehicle_class_section_in_docs_is_the_measured_one(classes):
    """The table of docs/fidelity.md (turning radius, lateral acceleration, 0-10 m/s, climb, ...)
    and its verdict are what the presets measure now: the docs cannot drift from the code."""
    heading = "## Seed 001: vehicle classes"
    text = vehicle_classes.render_markdown(classes)
    assert text.startswith(heading + "\n")
    documented = DOCS.read_text()
    assert documented.count(heading) == 1  # one copy, so no stale one left elsewhere
    section = documented.split(heading)[1].split("\n## ")[0]
    assert section.strip() == text[len(heading) :].strip()
    assert [row.name for row in classes] == list(PRESETS)  # every preset, in the seed's order


def test_figures_are_written(tmp_path):
    paths = seed001.make_figures(tmp_path)
    assert [path.name for path in paths] == [f"{name}.png" for name in seed001.FIGURE_NAMES]
    assert all(path.stat().st_size > 10_000 for path in paths)
