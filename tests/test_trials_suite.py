"""Benchmark suites (issue 7): the shipped table1 and train files, validation, worlds, terrain."""

import itertools
import json
import math
import re

import numpy as np
import pytest

from steerlab.trials.suite import SHIPPED_SUITES, Suite, load_suite
from steerlab.vehicles import PRESETS
from steerlab.world import Heightfield, World
from steerlab.world.terrain import Hill, Ramp, hill, ramp, terrain_from_features

# seed 001, Table I: mean speeds 4.55 (baseline) to 6.84 m/s (tuned); mean total times 36-60 s
PAPER_SPEEDS = (4.55, 6.84)
WIDEST_HALF_WIDTH = max(params.half_width for params in PRESETS.values())  # the hovercraft


def segment_distance(p, a, b):
    """Distance [m] from point p to the closed segment a-b (2-D)."""
    p, a, b = (np.asarray(v, dtype=float) for v in (p, a, b))
    d = b - a
    t = 0.0 if not d.any() else float(np.clip(np.dot(p - a, d) / np.dot(d, d), 0.0, 1.0))
    return float(np.hypot(*(p - a - t * d)))


def segments_distance(a, b, c, d):
    """Distance between two closed 2-D segments (0 if they cross)."""
    a, b, c, d = (np.asarray(v, dtype=float) for v in (a, b, c, d))

    def orient(p, q, r):
        return np.sign((q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]))

    if orient(a, b, c) * orient(a, b, d) < 0 and orient(c, d, a) * orient(c, d, b) < 0:
        return 0.0
    return min(
        segment_distance(a, c, d),
        segment_distance(b, c, d),
        segment_distance(c, a, b),
        segment_distance(d, a, b),
    )


def distance_to_polyline(xs, ys, points):
    """Distance [m] from each point (arrays) to a 2-D polyline."""
    best = np.full(np.shape(xs), np.inf)
    for a, b in itertools.pairwise(points):
        d = b - a
        t = np.clip(((xs - a[0]) * d[0] + (ys - a[1]) * d[1]) / np.dot(d, d), 0.0, 1.0)
        best = np.minimum(best, np.hypot(xs - a[0] - t * d[0], ys - a[1] - t * d[1]))
    return best


def write(tmp_path, text, name="suite.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


MINIMAL = """
name = "mini"
version = 1
[[paths]]
name = "a"
waypoints = [[0, 0], [50, 0]]
corridor_width = 6.0
"""


# --------------------------------------------------------------------------------------------------
# the shipped suites


@pytest.mark.parametrize("name", SHIPPED_SUITES)
def test_shipped_suite_has_ten_distinct_sane_paths(name):
    suite = load_suite(name)
    assert suite.name == name and suite.version >= 1
    assert len(suite.path_names) == 10
    assert suite.dt == 0.02 and suite.seeds == 3
    for path_name in suite.path_names:
        spec = suite.path(path_name)
        line = suite.polyline(path_name)
        points = line.points[:, :2]
        steps = np.hypot(*np.diff(points, axis=0).T)
        assert steps.min() > 0.0, path_name  # consecutive waypoints distinct in the plane
        assert (line.widths > 2.0 * WIDEST_HALF_WIDTH).all(), path_name  # every vehicle fits
        # a trial lasts about 20-90 s at the paper's mean speeds
        assert line.length / PAPER_SPEEDS[1] >= 20.0, path_name
        assert line.length / PAPER_SPEEDS[0] <= 90.0, path_name
        # the time limit lets a vehicle averaging 3 m/s finish, and is not absurdly long
        assert 3.0 >= line.length / suite.time_limit(path_name) >= 1.0, path_name
        assert spec.tags, path_name


def test_table1_and_train_share_kinds_but_no_path():
    table1, train = load_suite("table1"), load_suite("train")
    kinds = {"hill", "walled", "turn90", "hairpin", "s_bend", "obstacles", "mix"}
    for suite in (table1, train):
        tags = {tag for name in suite.path_names for tag in suite.path(name).tags}
        assert kinds <= tags
    assert not set(table1.path_names) & set(train.path_names)
    shapes = {tuple(map(tuple, table1.polyline(n).points)) for n in table1.path_names}
    assert not shapes & {tuple(map(tuple, train.polyline(n).points)) for n in train.path_names}


@pytest.mark.parametrize("name", SHIPPED_SUITES)
def test_terrain_has_the_slopes_the_file_states(name):
    suite = load_suite(name)
    for path_name in suite.path_names:
        spec = suite.path(path_name)
        terrain = suite.world(path_name).terrain
        stated = [hill.max_grade_deg for hill in spec.hills]
        stated += [abs(ramp.max_grade_deg) for ramp in spec.ramps]
        # where vehicles drive: within the corridor and 10 m beyond it
        x0, x1, y0, y1 = terrain.extent
        xs, ys = np.meshgrid(np.arange(x0 + 0.25, x1, 0.5), np.arange(y0 + 0.25, y1, 0.5))
        line = suite.polyline(path_name)
        near = distance_to_polyline(xs, ys, line.points[:, :2]) <= line.widths.max() / 2 + 10.0
        gx, gy = terrain.gradient(xs[near], ys[near])
        steepest = math.degrees(math.atan(float(np.hypot(gx, gy).max())))
        if not stated:
            assert steepest == 0.0, path_name
            continue
        # features do not overlap near the paths of the shipped suites, so the steepest grade is
        # the steepest stated one (the bilinear grid: within a few per cent across cell diagonals)
        assert steepest <= 1.04 * max(stated), path_name
        assert steepest >= 0.97 * max(stated), path_name
        for hill_spec in spec.hills:  # the steepest point of a hill is at half its radius
            feature = hill_spec.feature()
            cx, cy = feature.center
            r = 0.5 * feature.radius
            grades = [
                math.degrees(math.atan(abs(terrain.slope_along(cx + r * c, cy + r * s, a))))
                for a in np.linspace(0.0, 2.0 * math.pi, 8, endpoint=False)
                for c, s in [(math.cos(a), math.sin(a))]
            ]
            assert max(grades) == pytest.approx(hill_spec.max_grade_deg, rel=0.03), path_name
        # vehicles spawn at rest on flat ground
        start = suite.polyline(path_name).points[0]
        assert terrain.gradient(float(start[0]), float(start[1])) == (0.0, 0.0), path_name


def test_the_climbs_include_grades_some_vehicles_cannot_take_and_all_wheeled_ones_can():
    # docs/fidelity.md, "Seed 001: vehicle classes": hovercraft 7.2 degrees from rest, zaha 31.6
    suite = load_suite("table1")
    grades = [
        abs(feature.max_grade_deg)
        for name in suite.path_names
        for feature in (*suite.path(name).hills, *suite.path(name).ramps)
    ]
    assert max(grades) > 7.2  # beyond the hovercraft
    assert max(grades) < 31.6  # within every ground vehicle's reach from rest


@pytest.mark.parametrize("name", SHIPPED_SUITES)
def test_walls_and_obstacles_leave_the_centre_line_clear_for_the_widest_vehicle(name):
    suite = load_suite(name)
    for path_name in suite.path_names:
        spec = suite.path(path_name)
        world = suite.world(path_name)
        points = suite.polyline(path_name).points[:, :2]
        walls = world.walls.segments
        if not spec.walled and not spec.wall_segments and not spec.obstacles:
            assert len(walls) == 0, path_name
            continue
        assert len(walls) > 0, path_name
        for wall in walls:
            gap = min(
                segments_distance(wall[0], wall[1], points[i], points[i + 1])
                for i in range(len(points) - 1)
            )
            assert gap > WIDEST_HALF_WIDTH + 0.5, (path_name, wall.tolist(), gap)


def test_world_is_built_once_per_path_and_suites_once_per_process():
    suite = load_suite("table1")
    assert load_suite("table1") is suite
    name = suite.path_names[0]
    assert suite.world(name) is suite.world(name)
    assert isinstance(suite.world(name), World)


def test_unknown_path_lists_the_paths():
    suite = load_suite("table1")
    with pytest.raises(ValueError, match=r"no path named 'nowhere'.*hill_climb"):
        suite.path("nowhere")


def test_suite_from_a_file_and_its_defaults(tmp_path):
    suite = load_suite(str(write(tmp_path, MINIMAL)))
    assert isinstance(suite, Suite)
    assert (suite.dt, suite.seeds, suite.time_limit("a")) == (0.02, 3, 120.0)
    assert suite.spawn_lateral == 0.5 and suite.spawn_yaw == pytest.approx(math.radians(5.0))
    world = suite.world("a")
    assert len(world.walls) == 0
    assert world.height(25.0, 3.0) == 0.0


def test_walled_path_gets_the_corridors_walls_plus_extra_walls(tmp_path):
    text = MINIMAL + (
        "walled = true\nwall_margin = 1.0\n"
        "wall_segments = [[[60, -5], [60, 5]]]\n"
        "obstacles = [[[20, 10], [22, 10], [22, 12]]]\n"
    )
    world = load_suite(write(tmp_path, text)).world("a")
    segments = world.walls.segments
    # the corridor's two sides at width / 2 + margin = 4 m, one gate wall, a triangle
    sides = [s for s in segments if s[0][1] == s[1][1] and abs(abs(s[0][1]) - 4.0) < 1e-12]
    assert len(sides) == 2
    assert any((s == [[60, -5], [60, 5]]).all() for s in segments)
    assert len(segments) == 2 + 1 + 3


def test_hash_follows_values_not_layout(tmp_path):
    base = load_suite(write(tmp_path, MINIMAL, "a.toml"))
    commented = load_suite(
        write(tmp_path, "# a comment\n" + MINIMAL.replace(" = ", "   =  "), "b.toml")
    )
    data = {
        "name": "mini",
        "version": 1,
        "paths": [{"name": "a", "waypoints": [[0, 0], [50, 0]], "corridor_width": 6.0}],
    }
    as_json = load_suite(write(tmp_path, json.dumps(data), "c.json"))
    changed = load_suite(write(tmp_path, MINIMAL.replace("6.0", "6.5"), "d.toml"))
    assert re.fullmatch("[0-9a-f]{64}", base.hash)
    assert base.hash == commented.hash == as_json.hash
    assert changed.hash != base.hash


def test_a_file_edited_on_disk_is_reloaded(tmp_path):
    path = write(tmp_path, MINIMAL)
    first = load_suite(path)
    path.write_text(MINIMAL.replace("50, 0]]", "50, 0], [80, 0]]"), encoding="utf-8")
    second = load_suite(path)
    assert second is not first and second.polyline("a").length == 80.0


# --------------------------------------------------------------------------------------------------
# malformed files: the error names the file, the entry and the field


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (MINIMAL.replace("6.0", "-1.0"), r"paths\[0\] \('a'\)\.corridor_width: must be > 0"),
        (
            MINIMAL.replace("corridor_width = 6.0", "corridor_width = [4.0, 5.0]"),
            r"paths\[0\] \('a'\)\.corridor_width: one width for all segments or one per segment",
        ),
        (
            MINIMAL + "hills = [{center = [1, 2], height = 3.0, max_grade_deg = 10, colour = 1}]",
            r"paths\[0\] \('a'\)\.hills\[0\]\.colour: Extra inputs are not permitted",
        ),
        (
            MINIMAL + "hills = [{center = [1, 2], height = 3.0, max_grade_deg = 95}]",
            r"paths\[0\] \('a'\)\.hills\[0\]\.max_grade_deg: Input should be less than 90",
        ),
        (
            MINIMAL
            + "ramps = [{start = [1, 2], direction_deg = 0, length = 5, max_grade_deg = nan}]",
            r"paths\[0\] \('a'\)\.ramps\[0\]\.max_grade_deg: .*finite",
        ),
        (
            MINIMAL.replace("[[0, 0], [50, 0]]", "[[0, 0], [50, 0], [50, 0, 3]]"),
            r"paths\[0\] \('a'\)\.waypoints: must all be 2-D or all 3-D",
        ),
        (
            MINIMAL.replace("[[0, 0], [50, 0]]", "[[0, 0], [50, 0], [50, 0]]"),
            r"paths\[0\] \('a'\)\.waypoints\[2\]: coincides with waypoints\[1\]",
        ),
        (
            MINIMAL + "obstacles = [[[0, 0], [1, 1], [2, 2]]]",
            r"paths\[0\] \('a'\)\.obstacles\[0\]: .*zero area",
        ),
        (
            MINIMAL + MINIMAL[MINIMAL.index("[[paths]]") :],
            r"paths\[1\] \('a'\)\.name: 'a' is already",
        ),
        (MINIMAL.replace("version = 1", "version = 0"), r"version: Input should be greater than"),
        (MINIMAL.replace('name = "mini"', 'name = "has space"'), r"^[^\n]*: name: String"),
        (
            MINIMAL[: MINIMAL.index("[[paths]]")] + "paths = []",
            r"paths: Tuple should have at least 1",
        ),
        (MINIMAL.replace("version = 1\n", ""), r"version: Field required"),
        (MINIMAL + "time_limit = 0\n", r"paths\[0\] \('a'\)\.time_limit: Input should be greater"),
        (
            MINIMAL.replace("[[paths]]", "[spawn_jitter]\nyaw_deg = -5\n[[paths]]"),
            r"spawn_jitter\.yaw_deg",
        ),
    ],
)
def test_malformed_file_names_file_entry_and_field(tmp_path, text, expected):
    path = write(tmp_path, text, "bad.toml")
    with pytest.raises(ValueError) as caught:
        load_suite(path)
    message = str(caught.value)
    assert message.startswith(str(path)), message
    assert re.search(expected, message, flags=re.MULTILINE), message


def test_every_problem_is_reported_at_once(tmp_path):
    text = MINIMAL.replace("6.0", "-1.0").replace("version = 1", "version = 0")
    text += "hills = [{center = [1, 2], height = 0.0, max_grade_deg = 10}]\n"
    with pytest.raises(ValueError) as caught:
        load_suite(write(tmp_path, text))
    message = str(caught.value)
    assert "3 problems" in message
    assert "version:" in message and ".corridor_width:" in message
    assert "paths[0] ('a').hills[0].height: must be non-zero" in message


def test_unreadable_or_unknown_suites_are_clear_errors(tmp_path):
    with pytest.raises(ValueError, match=r"neither a shipped suite \['table1', 'train'\]"):
        load_suite("table2")
    with pytest.raises(ValueError, match="TOML syntax error"):
        load_suite(write(tmp_path, "name = \n"))
    with pytest.raises(ValueError, match="JSON syntax error"):
        load_suite(write(tmp_path, "{", "s.json"))
    with pytest.raises(ValueError, match=r"\.toml or \.json"):
        load_suite(write(tmp_path, MINIMAL, "s.yaml"))
    with pytest.raises(ValueError, match="top level"):
        load_suite(write(tmp_path, "[1, 2]", "list.json"))


# --------------------------------------------------------------------------------------------------
# terrain made of several features (steerlab.world.terrain.terrain_from_features)


def test_features_add_up_at_every_node():
    features = [Hill((10.0, 0.0), 4.0, 0.3), Ramp(0.2, 30.0, 10.0), Hill((45.0, 5.0), -2.0, 0.25)]
    terrain = terrain_from_features(features, (-20.0, 70.0), (-25.0, 30.0), 0.5)
    x0, _, y0, _ = terrain.extent
    ny, nx = terrain.heights.shape
    xs, ys = np.meshgrid(x0 + 0.5 * np.arange(nx), y0 + 0.5 * np.arange(ny))
    expected = sum(feature.elevation(xs, ys) for feature in features)
    np.testing.assert_allclose(terrain.heights, expected, rtol=0, atol=1e-12)
    # the hollow digs, the ramp lifts everything beyond it
    assert terrain.height(45.0, 5.0) == pytest.approx(2.0 - 2.0)
    assert terrain.height(60.0, -20.0) == pytest.approx(2.0)


def test_a_lone_feature_gives_the_terrain_of_its_own_function():
    alone = terrain_from_features([Hill((0.0, 0.0), 5.0, 0.4)], (-30.0, 30.0), (-30.0, 30.0), 0.25)
    reference = hill((0.0, 0.0), 5.0, 0.4, 0.25, margin=30.0 - math.pi * 5.0 / 0.8)
    assert isinstance(alone, Heightfield)
    for point in [(0.0, 0.0), (3.3, -1.2), (9.8, 0.1), (-15.0, 12.0)]:
        assert alone.height(*point) == pytest.approx(reference.height(*point), abs=1e-9)
    sloped = terrain_from_features([Ramp(0.3, 5.0, 10.0, 0.5)], (-5.0, 30.0), (-5.0, 30.0), 0.5)
    direct = ramp(0.3, 5.0, 10.0, (-5.0, 30.0), (-5.0, 30.0), 0.5, direction=0.5)
    np.testing.assert_array_equal(sloped.heights, direct.heights)


def test_no_feature_is_flat_and_bad_features_name_their_field():
    flat = terrain_from_features([], (0.0, 10.0), (0.0, 10.0), 1.0)
    assert not flat.heights.any()
    with pytest.raises(ValueError, match=r"features\[1\]\.max_slope must be > 0"):
        terrain_from_features([Ramp(0.1, 0.0, 1.0), Hill((0, 0), 1.0, -0.2)], (0, 1), (0, 1), 1.0)
    with pytest.raises(ValueError, match=r"features\[0\]\.length"):
        terrain_from_features([Ramp(0.1, 0.0, 0.0)], (0, 1), (0, 1), 1.0)
    with pytest.raises(ValueError, match=r"features\[0\] must be a Hill or a Ramp"):
        terrain_from_features(["hill"], (0, 1), (0, 1), 1.0)
