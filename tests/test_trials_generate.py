"""Generated test paths (issue 18): determinism, each kind's geometry by closed forms, validity
through the suite files, the [generated] table's errors, the shipped generated suites."""

import itertools
import json
import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from steerlab.trials import generate
from steerlab.trials.generate import (
    GRADE_LIMITS_DEG,
    KINDS,
    LENGTH_RANGE,
    WIDTH_LIMITS,
    generate_path,
    generate_paths,
    generated_seeds,
    kind_counts,
)
from steerlab.trials.suite import GENERATED_SUITES, load_suite
from steerlab.world.terrain import MAX_GRID_NODES

HEADER = """name = "gen"
version = 1
"""


# --------------------------------------------------------------------------------------------------
# helpers: geometry computed here, from the waypoints alone


def toml_value(value):
    """A TOML literal of a JSON-like value (the test's own writer: the venv has none)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    items = ", ".join(f"{key} = {toml_value(item)}" for key, item in value.items())
    return "{ " + items + " }"


def suite_text(paths, header=HEADER):
    """A suite file holding ``paths`` as ``[[paths]]`` entries."""
    lines = [header]
    for path in paths:
        lines.append("[[paths]]")
        for key, value in path.model_dump(mode="json").items():
            if value is not None:
                lines.append(f"{key} = {toml_value(value)}")
    return "\n".join(lines) + "\n"


def points_of(path):
    return np.array([point[:2] for point in path.waypoints], dtype=float)


def directions(points):
    steps = np.diff(points, axis=0)
    return steps / np.hypot(steps[:, 0], steps[:, 1])[:, None]


def turns(points):
    """Signed turn [rad] at each interior vertex (counter-clockwise positive)."""
    unit = directions(points)
    cross = unit[:-1, 0] * unit[1:, 1] - unit[:-1, 1] * unit[1:, 0]
    dot = np.sum(unit[:-1] * unit[1:], axis=1)
    return np.arctan2(cross, dot)


def cross(u, v):
    return float(u[0] * v[1] - u[1] * v[0])


def length_of(points):
    return float(np.hypot(*np.diff(points, axis=0).T).sum())


def widths_of(path):
    width = path.corridor_width
    return (width,) if isinstance(width, float) else width


def segments_distance(a, b, c, d):
    """Distance between the closed 2-D segments a-b and c-d (0 if they cross)."""

    def point_segment(p, q, r):
        t = float(np.clip(np.dot(p - q, r - q) / np.dot(r - q, r - q), 0.0, 1.0))
        return float(np.hypot(*(p - q - t * (r - q))))

    def orient(p, q, r):
        return np.sign((q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]))

    if orient(a, b, c) * orient(a, b, d) < 0 and orient(c, d, a) * orient(c, d, b) < 0:
        return 0.0
    return min(point_segment(a, c, d), point_segment(b, c, d), point_segment(c, a, b),
               point_segment(d, a, b))  # fmt: skip


def kind_paths(kind, count=12, seed=5):
    return [generate_path(kind, seed, index) for index in range(count)]


# --------------------------------------------------------------------------------------------------
# determinism


def test_same_seed_same_paths_and_path_i_does_not_depend_on_the_count():
    few = generate_paths(7, seed=11)
    many = generate_paths(60, seed=11)
    assert generate_paths(7, seed=11) == few
    by_name = {path.name: path for path in many}
    for path in few:
        assert by_name[path.name] == path
    # nor on the other kinds' counts
    only_hairpins = generate_paths({"hairpin": 3}, seed=11)
    assert [path.name for path in only_hairpins] == [f"gen-11-{i}-hairpin" for i in range(3)]
    assert all(by_name[path.name] == path for path in only_hairpins)


def test_another_seed_gives_other_paths():
    first = {path.name.split("-", 2)[2]: path.waypoints for path in generate_paths(12, seed=1)}
    second = {path.name.split("-", 2)[2]: path.waypoints for path in generate_paths(12, seed=2)}
    assert first.keys() == second.keys()
    assert all(first[key] != second[key] for key in first)


def test_a_count_is_spread_over_the_kinds_in_order():
    assert kind_counts(6) == dict.fromkeys(KINDS, 1)
    counts = kind_counts(104)
    assert sum(counts.values()) == 104
    assert list(counts.values()) == [18, 18, 17, 17, 17, 17]
    paths = generate_paths(104, seed=0)
    assert [path.name for path in paths][:2] == ["gen-0-0-hill", "gen-0-1-hill"]
    assert {path.tags for path in paths} == {("generated", kind, "seed-0") for kind in KINDS}


# --------------------------------------------------------------------------------------------------
# every path


@pytest.mark.parametrize("kind", KINDS)
def test_every_path_starts_at_the_origin_with_its_declared_length_widths_and_limit(kind):
    for path in kind_paths(kind):
        points = points_of(path)
        assert points[0].tolist() == [0.0, 0.0]
        length = length_of(points)
        assert LENGTH_RANGE[0] - 1e-9 <= length <= LENGTH_RANGE[1] + 1e-9, path.name
        assert all(WIDTH_LIMITS[0] <= width <= WIDTH_LIMITS[1] for width in widths_of(path))
        # the hand-made paths' rule: the length at 2.5 m/s, rounded up to 10 s
        assert path.time_limit % 10.0 == 0.0
        assert 0.0 <= path.time_limit - length / 2.5 < 10.0, path.name
        assert path.walled == KINDS[kind][2]
        assert np.hypot(*(points[-1] - points[-2])) >= generate.LEAD_OUT_MIN - 1e-9


@pytest.mark.parametrize("kind", ["hill", "narrow_walled", "right_angles", "hairpin"])
def test_straight_leg_corridors_never_come_back_near_themselves(kind):
    # exact distances between segments that are not neighbours: at least the widest corridor
    # with its walls (the generator itself checks points sampled every metre)
    for path in kind_paths(kind, count=20):
        points = points_of(path)
        clearance = max(widths_of(path)) + 2.0 * path.wall_margin
        for i, j in itertools.combinations(range(len(points) - 1), 2):
            if j - i >= 2:
                gap = segments_distance(points[i], points[i + 1], points[j], points[j + 1])
                assert gap >= clearance, (path.name, i, j, gap)


@pytest.mark.parametrize("kind", KINDS)
def test_no_corridor_comes_back_near_itself(kind):
    # segments more than twice the clearance apart along the path are the clearance apart in the
    # plane, up to 1 m (the generator checks points sampled every metre; exact distances here).
    # Seed 5's mixed paths 0 and 13 had a first draw that came back onto itself.
    for path in kind_paths(kind, count=20):
        points = points_of(path)
        clearance = max(widths_of(path)) + 2.0 * path.wall_margin
        lengths = np.hypot(*np.diff(points, axis=0).T)
        starts = np.concatenate([[0.0], np.cumsum(lengths)])
        for i, j in itertools.combinations(range(len(points) - 1), 2):
            if starts[j] - starts[i + 1] > 2.0 * clearance:
                gap = segments_distance(points[i], points[i + 1], points[j], points[j + 1])
                assert gap >= clearance - 1.0, (path.name, i, j, gap)


# --------------------------------------------------------------------------------------------------
# each kind's geometry


def test_right_angles_turn_by_90_degrees_at_every_corner():
    for path in kind_paths("right_angles"):
        unit = directions(points_of(path))
        dots = np.sum(unit[:-1] * unit[1:], axis=1)
        assert len(dots) >= 2
        assert np.all(np.abs(dots) <= 1e-9), (path.name, dots)
        # a staircase: every leg within 90 degrees of the lead-in's heading
        assert np.all(unit @ unit[0] >= -1e-9), path.name
        assert path.walled


def test_hairpins_reverse_the_heading_between_parallel_legs_alternating_sides():
    for path in kind_paths("hairpin"):
        points = points_of(path)
        unit = directions(points)
        count = (len(unit) - 1) // 3  # a lead-in, then per hairpin two flanks and a leg
        assert len(unit) == 1 + 3 * count and count >= 1, path.name
        sides = []
        for k in range(count):
            before, after = unit[3 * k], unit[3 * k + 3]
            assert float(before @ after) == pytest.approx(-1.0, abs=1e-9)
            # the two legs' lines are the spacing apart; the turn is the sum of three
            offset = points[3 * k + 3] - points[3 * k + 1]
            spacing = abs(before[0] * offset[1] - before[1] * offset[0])
            assert generate.HAIRPIN_SPACING_RANGE[0] - 1e-9 <= spacing
            assert spacing <= generate.HAIRPIN_SPACING_RANGE[1] + 1e-9
            total = turns(points)[3 * k : 3 * k + 3].sum()
            assert abs(total) == pytest.approx(math.pi, abs=1e-9)
            sides.append(np.sign(total))
        assert all(a == -b for a, b in itertools.pairwise(sides)), path.name


def circumradius(a, b, c):
    """Radius [m] of the circle through three points: abc / (4 area)."""
    ab, bc, ca = (float(np.hypot(*(q - p))) for p, q in ((a, b), (b, c), (c, a)))
    area = 0.5 * abs((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]))
    return ab * bc * ca / (4.0 * area)


def test_s_bends_are_arcs_of_alternating_sign_returning_to_the_first_heading():
    for path in kind_paths("s_bend"):
        points = points_of(path)
        angles = turns(points)
        assert np.all(np.abs(angles) > 1e-6), path.name  # a straight between every two arcs
        signs = np.sign(angles)
        runs = [
            list(group) for _, group in itertools.groupby(range(len(angles)), signs.__getitem__)
        ]
        assert len(runs) >= 2, path.name  # at least an S
        totals = [float(angles[run].sum()) for run in runs]
        # half an arc first and last, full arcs between: the heading swings either side of the
        # lead-in's and comes back to it
        swing = 2.0 * abs(totals[0])
        assert abs(totals[-1]) == pytest.approx(abs(totals[0]), abs=1e-9)
        assert math.radians(generate.S_BEND_ARC_DEG[0]) - 1e-9 <= swing
        assert swing <= math.radians(generate.S_BEND_ARC_DEG[1]) + 1e-9
        for total in totals[1:-1]:
            assert abs(total) == pytest.approx(swing, abs=1e-9)
        assert sum(totals) == pytest.approx(0.0, abs=1e-9)
        # every three vertices of one arc lie on a circle of the arc's radius, the same for all
        radii = [
            circumradius(points[i], points[i + 1], points[i + 2])
            for run in runs
            for i in range(run[0] + 1, run[-1])  # points i .. i + 2: the arc's chord ends
        ]
        assert radii, path.name
        assert max(radii) == pytest.approx(min(radii), rel=1e-9)
        assert generate.S_BEND_RADIUS_RANGE[0] - 1e-9 <= radii[0]
        assert radii[0] <= generate.S_BEND_RADIUS_RANGE[1] + 1e-9


def test_narrow_corridors_are_walled_in_the_lowest_quarter_of_the_widths_with_bounded_bends():
    low, high = 6.0, 12.0
    for index in range(12):
        path = generate_path("narrow_walled", 5, index, widths=(low, high))
        (width,) = widths_of(path)
        assert low <= width <= low + generate.NARROW_SHARE * (high - low)
        assert path.walled
        angles = np.degrees(np.abs(turns(points_of(path))))
        assert len(angles) >= 2
        assert np.all(angles >= generate.NARROW_BEND_DEG[0] - 1e-9), path.name
        assert np.all(angles <= generate.NARROW_BEND_DEG[1] + 1e-9), path.name
        unit = directions(points_of(path))
        assert np.all(unit @ unit[0] >= -1e-9), path.name  # within 90 degrees of the lead-in


def test_mixed_paths_are_walled_and_chain_several_kinds_of_turn():
    for path in kind_paths("mixed"):
        assert path.walled
        assert len(points_of(path)) >= 4, path.name


def sample_along(points, step):
    """Points every ``step`` m (or less) along the polyline, and their arc lengths."""
    xy, arc, travelled = [points[:1]], [np.zeros(1)], 0.0
    for a, b in itertools.pairwise(points):
        length = float(np.hypot(*(b - a)))
        n = max(1, math.ceil(length / step))
        f = np.arange(1, n + 1) / n
        xy.append(a + f[:, None] * (b - a))
        arc.append(travelled + f * length)
        travelled += length
    return np.concatenate(xy), np.concatenate(arc)


def test_hills_are_driven_up_and_down_through_their_tops_within_the_declared_grades(tmp_path):
    grades = (8.0, 24.0)
    paths = [generate_path("hill", 9, index, grades_deg=grades) for index in range(10)]
    suite = load_suite_of(tmp_path, paths)
    for path in paths:
        assert path.hills, path.name
        points = points_of(path)
        terrain = suite.terrain(path.name)
        xy, arc = sample_along(points, 0.25)
        z = terrain.height(xy[:, 0], xy[:, 1])
        assert z[0] == 0.0 and z[-1] == 0.0  # flat at both ends: every climb comes back down
        for hill in path.hills:
            assert grades[0] <= hill.max_grade_deg <= grades[1]
            # the Hill's closed form: steepest grade atan(pi h / (2 R)), R its flat radius
            radius = math.pi * abs(hill.height) / (2.0 * math.tan(math.radians(hill.max_grade_deg)))
            assert generate.HILL_RADIUS_RANGE[0] - 1e-9 <= radius
            assert radius <= generate.HILL_RADIUS_RANGE[1] + 1e-9
            # the path runs straight through the top, R either side: the centre on a segment
            # that reaches R beyond it both ways
            centre = np.array(hill.center)
            straight_through = any(
                abs(cross(b - a, centre - a)) / np.hypot(*(b - a)) < 1e-6
                and float((centre - a) @ (b - a)) / np.hypot(*(b - a)) >= radius - 1e-6
                and float((b - centre) @ (b - a)) / np.hypot(*(b - a)) >= radius - 1e-6
                for a, b in itertools.pairwise(points)
            )
            assert straight_through, (path.name, hill)
            # measured on the terrain the suite builds (1 m grid, bilinear): the top's height and
            # the steepest grade along the path within the hill
            assert terrain.height(*centre) == pytest.approx(hill.height, abs=0.05)
            near = np.hypot(*(xy - centre).T) < radius
            slope = np.abs(np.diff(z) / np.diff(arc))[near[1:] & near[:-1]]
            assert math.degrees(math.atan(slope.max())) == pytest.approx(
                hill.max_grade_deg, abs=0.5
            )
        # hills never overlap, so nowhere is the terrain steeper than the steepest grade declared
        heights = terrain.heights
        dz_dy, dz_dx = np.gradient(heights, terrain.cell_size)
        steepest = math.degrees(math.atan(float(np.hypot(dz_dx, dz_dy).max())))
        assert steepest <= grades[1] + 0.5, path.name


def load_suite_of(tmp_path, paths, name="written.toml"):
    file = tmp_path / name
    file.write_text(suite_text(paths), encoding="utf-8")
    return load_suite(file)


# --------------------------------------------------------------------------------------------------
# validity through the suite files


def test_two_hundred_generated_paths_load_from_a_written_toml_file(tmp_path):
    paths = generate_paths(200, seed=3)
    suite = load_suite_of(tmp_path, paths)
    assert suite.path_names == tuple(path.name for path in paths)
    for path in paths:
        assert suite.path(path.name) == path  # floats written by repr come back exact
        world = suite.world(path.name)
        if path.hills:
            assert terrain_nodes(suite.terrain(path.name)) <= MAX_GRID_NODES
        assert (len(world.walls.segments) > 0) == path.walled


def terrain_nodes(terrain):
    return terrain.heights.size


def test_a_generated_table_expands_to_the_paths_it_declares_and_hashes_as_their_content(tmp_path):
    hand_made = """
[[paths]]
name = "straight"
waypoints = [[0, 0], [100, 0]]
corridor_width = 8.0
"""
    table = """
[generated]
seed = 4
kinds = { hairpin = 2, s_bend = 1 }
grades_deg = [6.0, 20.0]
widths = [7.0, 11.0]
"""
    declared = tmp_path / "declared.toml"
    declared.write_text(HEADER + hand_made + table, encoding="utf-8")
    suite = load_suite(declared)
    expected = generate_paths(
        {"hairpin": 2, "s_bend": 1}, 4, grades_deg=(6.0, 20.0), widths=(7.0, 11.0)
    )
    assert suite.path_names == ("straight", *(path.name for path in expected))
    assert [suite.path(path.name) for path in expected] == expected
    # the same paths written out in full: the same hash (the table is the paths, nothing else)
    explicit = tmp_path / "explicit.toml"
    explicit.write_text(suite_text(expected, header=HEADER + hand_made), encoding="utf-8")
    assert load_suite(explicit).hash == suite.hash
    other = tmp_path / "other.toml"
    other.write_text(HEADER + hand_made + table.replace("seed = 4", "seed = 5"), encoding="utf-8")
    assert load_suite(other).hash != suite.hash


BAD_TABLES = [
    ("seed = 1\nkinds = { hil = 3 }", r"generated\.kinds\['hil'\]: unknown kind of path; kinds:"),
    ("seed = 1\nkinds = { hill = -1 }", r"generated\.kinds\['hill'\]: must be an integer >= 0"),
    ("seed = 1\nkinds = { hill = 1.5 }", r"generated\.kinds\['hill'\]: must be an integer >= 0"),
    ("seed = 1\nkinds = { hill = 0 }", r"generated\.kinds: must ask for at least one path"),
    ("seed = 1\ncount = 3\ngrades_deg = [2.0, 20.0]", r"generated\.grades_deg: must lie within"),
    ("seed = 1\ncount = 3\ngrades_deg = [5.0, 40.0]", r"generated\.grades_deg: must lie within"),
    ("seed = 1\ncount = 3\nwidths = [3.0, 8.0]", r"generated\.widths: must lie within \[4.0, 12"),
    ("seed = 1\ncount = 3\nwidths = [10.0, 8.0]", r"generated\.widths: is an empty range"),
    ("seed = 1\ncount = 3\ngrades_deg = [5.0, inf]", r"generated\.grades_deg\[1\]: .*finite"),
    ("seed = 1\ncount = 3\nwidths = [nan, 8.0]", r"generated\.widths\[0\]: .*finite"),
    ("seed = 1\ncount = 3\nwidths = [8.0]", r"generated\.widths\[1\]: Field required"),
    ("seed = 1", r"generated\.count: give either count .* or kinds"),
    ("seed = 1\ncount = 2\nkinds = { hill = 1 }", r"generated\.count: give either count"),
    ("seed = -1\ncount = 2", r"generated\.seed: Input should be greater than or equal to 0"),
    ("count = 2", r"generated\.seed: Field required"),
    ("seed = 1\ncount = 0", r"generated\.count: Input should be greater than or equal to 1"),
    ("seed = 1\ncount = 2\nsed = 3", r"generated\.sed: Extra inputs are not permitted"),
]


@pytest.mark.parametrize(("table", "expected"), BAD_TABLES)
def test_a_bad_generated_table_names_file_entry_and_field(tmp_path, table, expected):
    file = tmp_path / "bad.toml"
    file.write_text(HEADER + "[generated]\n" + table + "\n", encoding="utf-8")
    with pytest.raises(ValueError) as caught:
        load_suite(file)
    message = str(caught.value)
    assert message.startswith(f"{file}: "), message
    assert re.search(expected, message), message


def test_a_json_suite_declares_generated_paths_too(tmp_path):
    file = tmp_path / "bad.json"
    table = {"seed": 1, "count": 2, "grades_deg": [5.0, float("nan")]}
    file.write_text(json.dumps({"name": "g", "version": 1, "generated": table}), encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.json: generated\.grades_deg\[1\]: .*finite"):
        load_suite(file)
    table["grades_deg"] = [5.0, 10.0]
    file.write_text(json.dumps({"name": "g", "version": 1, "generated": table}), encoding="utf-8")
    assert load_suite(file).path_names == ("gen-1-0-hill", "gen-1-0-narrow_walled")


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (lambda: generate_path("spiral", 1, 0), r"kind must be one of \['hill'.*got 'spiral'"),
        (lambda: generate_path("hill", -1, 0), "seed must be an integer >= 0, got -1"),
        (lambda: generate_path("hill", 1, 0.5), "index must be an integer >= 0, got 0.5"),
        (lambda: generate_path("hill", True, 0), "seed must be an integer >= 0, got True"),
        (
            lambda: generate_path("hill", 1, 0, grades_deg=(5.0, math.inf)),
            r"grades_deg must be finite",
        ),
        (lambda: generate_path("hill", 1, 0, widths=(9.0, 8.0)), "widths is an empty range"),
        (lambda: generate_path("hill", 1, 0, widths=(2.0, 8.0)), r"widths must lie within"),
        (lambda: generate_path("hill", 1, 0, widths=8.0), r"widths must be \[min, max\]"),
        (lambda: generate_paths({"spiral": 1}, 1), r"counts: unknown kind 'spiral'; kinds:"),
        (lambda: generate_paths({"hill": -2}, 1), r"counts\['hill'\] must be an integer >= 0"),
        (lambda: generate_paths(-1, 1), "count must be an integer >= 0, got -1"),
    ],
)
def test_bad_arguments_are_named(call, expected):
    with pytest.raises(ValueError, match=expected):
        call()


@settings(max_examples=20, deadline=None)
@given(
    st.sampled_from(list(KINDS)),
    st.integers(0, 2**31),
    st.integers(0, 10_000),
    st.tuples(st.floats(*GRADE_LIMITS_DEG), st.floats(*GRADE_LIMITS_DEG)).map(sorted),
    st.tuples(st.floats(*WIDTH_LIMITS), st.floats(*WIDTH_LIMITS)).map(sorted),
)
def test_any_seed_index_and_ranges_give_a_valid_path_within_them(kind, seed, index, grades, widths):
    path = generate_path(kind, seed, index, grades_deg=grades, widths=widths)
    assert all(widths[0] <= width <= widths[1] for width in widths_of(path))
    assert all(grades[0] <= hill.max_grade_deg <= grades[1] for hill in path.hills)
    assert LENGTH_RANGE[0] - 1e-9 <= length_of(points_of(path)) <= LENGTH_RANGE[1] + 1e-9


# --------------------------------------------------------------------------------------------------
# the shipped generated suites


def test_the_shipped_generated_suite_holds_a_hundred_paths_of_every_kind():
    suite = load_suite("generated")
    assert len(suite.path_names) >= 100
    kinds = [suite.path(name).tags[1] for name in suite.path_names]
    assert {kind: kinds.count(kind) for kind in KINDS} == dict.fromkeys(KINDS, 17)
    assert generated_seeds(suite) == {1}


def test_tuning_sees_only_generated_paths_of_other_seeds():
    evaluation, tuning = (load_suite(name) for name in GENERATED_SUITES)
    assert generated_seeds(evaluation) and generated_seeds(tuning)
    assert not generated_seeds(evaluation) & generated_seeds(tuning)
    seen = {load_suite("train").path(name).waypoints for name in load_suite("train").path_names}
    seen |= {tuning.path(name).waypoints for name in tuning.path_names}
    assert not any(evaluation.path(name).waypoints in seen for name in evaluation.path_names)
    # the hand-made suites hold no generated path
    assert not generated_seeds(load_suite("table1")) and not generated_seeds(load_suite("train"))
