"""Race circuits (``steerlab.trials.circuit``): the reader against an independent decoding, the
asymmetric corridor against closed forms and dense sampling, and every bad input.

The real files are read from ``$STEERLAB_DATA/racetracks`` (default: the repository's
``../shared/data``), TUMFTM/racetrack-database's layout: ``tracks/NAME.csv`` holds a comment
header then ``x_m, y_m, w_tr_right_m, w_tr_left_m`` per row (a closed centre line, the last row not
repeating the first), ``racelines/NAME.csv`` ``x_m, y_m`` per row. Tests of those files skip
without the data.
"""

import csv
import math
import os
from importlib import resources
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from steerlab.trials.circuit import (
    INSIDE,
    LEFT,
    RIGHT,
    SHIPPED_CIRCUITS,
    Circuit,
    load_circuit,
    load_raceline,
    raceline_file,
    shipped_circuit,
    shipped_track_file,
)

DATA = Path(
    os.environ.get("STEERLAB_DATA", Path(__file__).resolve().parents[1].parent / "shared" / "data")
)
TRACKS = sorted((DATA / "racetracks" / "tracks").glob("*.csv"))
RACELINES = sorted((DATA / "racetracks" / "racelines").glob("*.csv"))
needs_data = pytest.mark.skipif(
    not TRACKS, reason=f"no race circuits at {DATA / 'racetracks'} (set STEERLAB_DATA)"
)


def _decode(path: Path) -> list[list[float]]:
    """The data rows as the README describes them: '#' lines are comments, the rest
    comma-separated numbers (decoded with the csv module, not the reader)."""
    with path.open(newline="") as handle:
        return [
            [float(cell) for cell in row]
            for row in csv.reader(handle)
            if row and not row[0].lstrip().startswith("#")
        ]


# --------------------------------------------------------------------------------------------------
# the real files


@needs_data
@pytest.mark.parametrize("track", TRACKS, ids=[p.stem for p in TRACKS])
def test_each_track_reads_as_its_rows_say(track):
    rows = _decode(track)
    assert all(len(row) == 4 for row in rows)
    circuit = load_circuit(track)
    assert circuit.name == track.stem
    assert circuit.closed
    assert circuit.points.shape == (len(rows), 2)
    assert circuit.points[0].tolist() == rows[0][:2]
    assert circuit.points[-1].tolist() == rows[-1][:2]
    assert circuit.width_right.tolist() == [row[2] for row in rows]
    assert circuit.width_left.tolist() == [row[3] for row in rows]
    # the closed path: the first point again at the end; its length the closed perimeter
    path = circuit.path.points
    assert path.shape == (len(rows) + 1, 2)
    assert path[-1].tolist() == rows[0][:2]
    perimeter = sum(math.dist(rows[i][:2], rows[(i + 1) % len(rows)][:2]) for i in range(len(rows)))
    assert circuit.length == pytest.approx(perimeter, rel=1e-12)
    assert min(a + b for _, _, a, b in rows) >= 7.0 and max(a + b for *_, a, b in rows) <= 30.0
    # every centre-line point is on the track
    assert (circuit.sides(circuit.points) == INSIDE).all()


@needs_data
@pytest.mark.parametrize("line", RACELINES, ids=[p.stem for p in RACELINES])
def test_each_raceline_reads_as_its_rows_say_and_lies_on_its_track(line):
    rows = _decode(line)
    points = load_raceline(line)
    assert points.shape == (len(rows), 2)
    assert points[0].tolist() == rows[0] and points[-1].tolist() == rows[-1]
    track = line.parent.parent / "tracks" / line.name
    assert raceline_file(track) == line
    circuit = load_circuit(track, raceline=line)
    assert np.array_equal(circuit.raceline, points)
    # a minimum-curvature line inside the boundaries: (almost) every point on the track
    assert (circuit.sides(points) == INSIDE).mean() > 0.99


@needs_data
def test_shipped_circuits_are_the_database_files_unchanged_with_their_licence():
    folder = resources.files("steerlab.trials").joinpath("circuits")
    assert "GNU LESSER GENERAL PUBLIC LICENSE" in folder.joinpath("LICENSE").read_text()
    assert "TUMFTM/racetrack-database" in folder.joinpath("README.md").read_text()
    for name in SHIPPED_CIRCUITS:
        for kind in ("tracks", "racelines"):
            shipped = folder.joinpath(kind, f"{name}.csv").read_bytes()
            assert shipped == (DATA / "racetracks" / kind / f"{name}.csv").read_bytes()
        circuit = shipped_circuit(name)
        assert circuit.name == name and circuit.raceline is not None
        assert shipped_track_file(name).name == f"{name}.csv"
    with pytest.raises(ValueError, match="unknown circuit 'Monza'"):
        shipped_circuit("Monza")


# --------------------------------------------------------------------------------------------------
# the corridor: closed forms


def _circle(radius, count, width_left, width_right, clockwise=False, name="circle"):
    angles = 2.0 * np.pi * np.arange(count) / count
    if clockwise:
        angles = -angles
    points = radius * np.column_stack((np.cos(angles), np.sin(angles)))
    left = np.broadcast_to(width_left(angles) if callable(width_left) else width_left, (count,))
    right = np.broadcast_to(width_right(angles) if callable(width_right) else width_right, (count,))
    return Circuit(name, points, right, left)


@pytest.mark.parametrize("clockwise", [False, True])
def test_boundaries_of_a_circle_are_circles_of_the_radius_minus_and_plus_the_widths(clockwise):
    radius, left, right = 100.0, 6.0, 4.5
    circuit = _circle(radius, 36, left, right, clockwise)
    inner, outer = (left, right) if not clockwise else (right, left)
    # counter-clockwise: the left is the inside of the circle; clockwise: the right
    left_radius = np.hypot(*circuit.left_boundary.T)
    right_radius = np.hypot(*circuit.right_boundary.T)
    expected_left = radius - left if not clockwise else radius + left
    expected_right = radius + right if not clockwise else radius - right
    np.testing.assert_allclose(left_radius, expected_left, rtol=0, atol=1e-9)
    np.testing.assert_allclose(right_radius, expected_right, rtol=0, atol=1e-9)
    assert min(left_radius.min(), right_radius.min()) == pytest.approx(radius - inner)
    assert max(left_radius.max(), right_radius.max()) == pytest.approx(radius + outer)
    assert circuit.left_boundary[-1].tolist() == circuit.left_boundary[0].tolist()  # closed
    # the circle's curvature, through any three of its points
    line = _circle(radius, 36, left, right, clockwise).points
    with_line = Circuit("c", line, np.full(36, right), np.full(36, left), raceline=line)
    np.testing.assert_allclose(
        with_line.raceline_curvature(), (-1.0 if clockwise else 1.0) / radius, rtol=1e-12
    )


def test_widths_are_interpolated_along_a_segment():
    square = np.array([(0.0, 0.0), (100.0, 0.0), (100.0, 100.0), (0.0, 100.0)])
    circuit = Circuit("square", square, [1.0, 3.0, 3.0, 1.0], [2.0, 6.0, 6.0, 2.0])
    where = circuit.locate([(25.0, 0.5), (50.0, -1.0), (0.0, 50.0)])
    np.testing.assert_allclose(where.width_left, [3.0, 4.0, 2.0])  # 2 + (6 - 2) x fraction
    np.testing.assert_allclose(where.width_right, [1.5, 2.0, 1.0])
    np.testing.assert_allclose(where.offset, [0.5, -1.0, 0.0])
    assert where.segment.tolist() == [0, 0, 3]  # the closing segment is the last
    # 3 m left of (50, 0) is within the 4 m there; 2.5 m right is beyond the 2 m
    assert circuit.sides([(50.0, 3.0), (50.0, 4.5), (50.0, -2.5)]).tolist() == [INSIDE, LEFT, RIGHT]


# --------------------------------------------------------------------------------------------------
# the corridor: dense sampling against polar coordinates


def _polar_side(radius, width_left, width_right, angle, distance, margin):
    """The side of a point at ``distance`` from the centre of a counter-clockwise circle track:
    left is inward. ``None`` within ``margin`` of a boundary (the polygon's chords differ)."""
    inner, outer = radius - width_left(angle), radius + width_right(angle)
    if min(abs(distance - inner), abs(distance - outer)) < margin:
        return None
    return LEFT if distance < inner else RIGHT if distance > outer else INSIDE


def test_inside_and_outside_on_a_dense_grid_match_the_polar_test():
    radius = 80.0

    def left(a):
        return 5.0 + 2.0 * np.cos(a)

    def right(a):
        return 4.0 + 1.5 * np.sin(2.0 * a)

    circuit = _circle(radius, 1440, left, right)
    xs, ys = np.meshgrid(np.linspace(-95, 95, 181), np.linspace(-95, 95, 181))
    grid = np.column_stack((xs.ravel(), ys.ravel()))
    distance = np.hypot(*grid.T)
    keep = (distance > radius - 40.0) & (distance < radius + 40.0)  # not across the centre
    grid, distance = grid[keep], distance[keep]
    angle = np.arctan2(grid[:, 1], grid[:, 0])
    sides = circuit.sides(grid)
    expected = [
        _polar_side(radius, left, right, a, d, 0.02) for a, d in zip(angle, distance, strict=True)
    ]
    checked = [i for i, side in enumerate(expected) if side is not None]
    assert len(checked) > 0.99 * len(expected)
    assert sides[checked].tolist() == [expected[i] for i in checked]
    assert {LEFT, RIGHT, INSIDE} <= set(sides.tolist())


@given(
    radius=st.floats(30.0, 300.0),
    base_left=st.floats(2.0, 10.0),
    base_right=st.floats(2.0, 10.0),
    angle=st.floats(-math.pi, math.pi),
    offset=st.floats(-25.0, 25.0),
)
def test_a_point_is_inside_exactly_when_its_offset_is_within_the_width_on_its_side(
    radius, base_left, base_right, angle, offset
):
    def left(a):
        return base_left * (1.0 + 0.3 * np.cos(a))

    def right(a):
        return base_right * (1.0 + 0.3 * np.sin(a))

    circuit = _circle(radius, 2000, left, right)
    distance = radius - offset  # left (inward) offset positive
    point = distance * np.array([[math.cos(angle), math.sin(angle)]])
    expected = _polar_side(radius, left, right, angle, distance, 0.01)
    assume(expected is not None)
    assert circuit.sides(point).tolist() == [expected]


# --------------------------------------------------------------------------------------------------
# bad input

HEADER = "# x_m,y_m,w_tr_right_m,w_tr_left_m\n"
GOOD = ["0.0,0.0,5.0,5.0", "50.0,0.0,5.0,5.0", "50.0,50.0,5.0,5.0", "0.0,50.0,5.0,5.0"]


def _write(tmp_path, lines, name="track.csv", header=HEADER):
    path = tmp_path / name
    path.write_text(header + "".join(line + "\n" for line in lines))
    return path


def test_a_good_small_file_loads_and_an_explicit_closing_row_is_the_same_circuit(tmp_path):
    circuit = load_circuit(_write(tmp_path, GOOD))
    closed = load_circuit(_write(tmp_path, [*GOOD, GOOD[0]], name="closed.csv"))
    assert np.array_equal(circuit.points, closed.points)
    assert circuit.length == pytest.approx(200.0)
    spaced = load_circuit(_write(tmp_path, [" 0 , 0 ,5,5", "", *GOOD[1:]], name="spaced.csv"))
    assert np.array_equal(spaced.points, circuit.points)


@pytest.mark.parametrize(
    ("lines", "header", "message"),
    [
        ([], "", r"no data rows \(empty file\)"),
        ([], HEADER, r"no data rows"),
        (GOOD[:2], HEADER, r"2 points, a closed circuit needs at least 3"),
        ([*GOOD[:2], "50.0,50.0,-1.0,5.0", GOOD[3]], HEADER, r"line 4: w_tr_right_m must be >= 0"),
        ([*GOOD[:3], "0.0,50.0,5.0,inf"], HEADER, r"line 5: w_tr_left_m must be finite"),
        ([GOOD[0], "nan,0.0,5.0,5.0", *GOOD[2:]], HEADER, r"line 3: x_m must be finite"),
        ([GOOD[0], "50.0,0.0,5.0", *GOOD[2:]], HEADER, r"line 3: 3 columns, expected 4"),
        ([GOOD[0], "50.0,0.0,5.0,5.0,1", *GOOD[2:]], HEADER, r"line 3: 5 columns"),
        ([GOOD[0], "50.0,zero,5.0,5.0", *GOOD[2:]], HEADER, r"line 3: y_m is not a number"),
        ([GOOD[0], GOOD[1], GOOD[1], *GOOD[2:]], HEADER, r"lines 3 and 4: the same point"),
        (GOOD, "# x_m,y_m,w_tr_left_m,w_tr_right_m\n", r"line 1: the header names the columns"),
    ],
    ids=[
        "empty",
        "header only",
        "two points",
        "negative width",
        "infinite width",
        "NaN coordinate",
        "three columns",
        "five columns",
        "unparsable",
        "duplicate",
        "swapped header",
    ],
)
def test_bad_track_files_are_refused_naming_the_file_and_what_is_wrong(
    tmp_path, lines, header, message
):
    path = _write(tmp_path, lines, header=header)
    with pytest.raises(ValueError, match=message) as error:
        load_circuit(path)
    assert str(path) in str(error.value)


def test_bad_raceline_files_and_unreadable_files_are_refused(tmp_path):
    line = _write(tmp_path, ["0,0", "1,0", "1,1", "1,1"], name="line.csv", header="# x_m,y_m\n")
    with pytest.raises(ValueError, match=r"line.csv, lines 4 and 5: the same point"):
        load_circuit(_write(tmp_path, GOOD), raceline=line)
    with pytest.raises(ValueError, match=r"the header names the columns x_m, y_m"):
        load_circuit(line)  # a race line given as a track
    missing = tmp_path / "missing.csv"
    with pytest.raises(ValueError, match=r"missing.csv: cannot read the file"):
        load_circuit(missing)
    binary = tmp_path / "binary.csv"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ValueError, match=r"binary.csv: not a UTF-8 text file"):
        load_raceline(binary)


def test_a_circuit_built_in_code_is_validated_naming_the_field():
    square = np.array([(0.0, 0.0), (10.0, 0.0), (10.0, 10.0), (0.0, 10.0)])
    with pytest.raises(ValueError, match=r"width_left\[2\] must be finite and >= 0"):
        Circuit("c", square, np.ones(4), [1.0, 1.0, -1.0, 1.0])
    with pytest.raises(ValueError, match=r"points must hold at least 3 points"):
        Circuit("c", square[:2], np.ones(2), np.ones(2))
    with pytest.raises(ValueError, match=r"points\[4\] and points\[0\] are the same point"):
        Circuit("c", [*square, square[0]], np.ones(5), np.ones(5))
    with pytest.raises(ValueError, match=r"width_right must have shape \(4,\)"):
        Circuit("c", square, np.ones(3), np.ones(4))
    with pytest.raises(ValueError, match=r"raceline\[1\] must be finite"):
        Circuit("c", square, np.ones(4), np.ones(4), raceline=[(0, 0), (np.nan, 1), (1, 1)])
    circuit = Circuit("c", square, np.ones(4), np.ones(4))
    with pytest.raises(ValueError):
        circuit.points[0, 0] = 1.0  # read-only
