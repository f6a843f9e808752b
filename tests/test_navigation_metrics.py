"""Corridor metrics (seed 002): inside share, excursion, overshoot at turns, time to goal."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from steerlab.navigation import find_route, load_navdata
from steerlab.navigation import metrics as metrics_module
from steerlab.navigation.metrics import CorridorMetrics, corridor_metrics
from steerlab.navigation.route import Route
from steerlab.sim import Trace

LEVEL = load_navdata("examples/navdata/level.toml")
CORRIDORS1 = load_navdata("examples/navdata/corridors1.toml")


def make_route(points, widths, radii=None) -> Route:
    """A route through 2-D or 3-D ``points`` (built directly, as ``find_route`` would)."""
    positions = np.zeros((len(points), 3))
    positions[:, : np.shape(points)[1]] = points
    count = positions.shape[0]
    widths = np.broadcast_to(np.asarray(widths, dtype=float), (count - 1,)).copy()
    radii = np.full(count, 1.0) if radii is None else np.asarray(radii, dtype=float)
    return Route(
        waypoint_ids=tuple(f"w{index}" for index in range(count)),
        positions=positions,
        radii=radii,
        waypoint_flags=tuple(frozenset() for _ in range(count)),
        widths=widths,
        segment_flags=tuple(frozenset() for _ in range(count - 1)),
        lengths=np.linalg.norm(np.diff(positions, axis=0), axis=1),
    )


def centreline(route, spacing):
    """Points along the route's horizontal polyline, about ``spacing`` apart, every vertex kept.

    Returns ``(points (n, 2), horizontal arc length (n,))``.
    """
    points = route.positions[:, :2]
    pieces = [points[:1]]
    arcs = [np.zeros(1)]
    travelled = 0.0
    for start, end in itertools.pairwise(points):
        length = float(np.hypot(*(end - start)))
        count = max(1, math.ceil(length / spacing))
        fraction = np.arange(1, count + 1) / count
        pieces.append(start + fraction[:, None] * (end - start))
        arcs.append(travelled + fraction * length)
        travelled += length
    return np.vstack(pieces), np.concatenate(arcs)


def rotate(points, angle, shift):
    cosine, sine = math.cos(angle), math.sin(angle)
    matrix = np.array([[cosine, -sine], [sine, cosine]])
    return points[:, :2] @ matrix.T + shift


def scale_of(*arrays):
    return 1.0 + max(float(np.abs(array).max()) for array in arrays)


# -- on the centre line ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "route",
    [find_route(LEVEL, "s1", "g1"), find_route(LEVEL, "s1", "u1")],
    ids=["level-beam", "level-ladder"],
)
def test_centreline_trajectory_is_inside_without_overshoot(route):
    points, arc = centreline(route, spacing=7.0)
    speed = 250.0
    result = corridor_metrics(points, route, t=arc / speed)
    tolerance = 1e-9 * scale_of(points)
    assert result.frames == points.shape[0]
    assert result.inside_share == 1.0 and result.inside.all()
    assert result.max_excursion == 0.0 and (result.excursion == 0.0).all()
    assert 0.0 <= result.mean_abs_cross_track <= tolerance
    assert result.turn_count > 0
    assert np.all(result.turn_overshoot <= tolerance)  # reached (not NaN) and zero
    assert np.all(result.turn_overshoot_beyond_bound == 0.0)
    assert result.final_error == 0.0
    # constant speed along a last segment longer than the goal radius: it enters the goal circle
    # at the arc length ``total - radius``
    total = arc[-1]
    last = route.positions[-2:, :2]
    assert np.hypot(*(last[1] - last[0])) > route.radii[-1]
    expected = (total - route.radii[-1]) / speed
    assert result.time_to_goal == pytest.approx(expected, rel=1e-12)
    rectangles = corridor_metrics(points, route, t=arc / speed, shape="rectangle")
    assert rectangles.max_excursion <= tolerance  # the last waypoint may round past the end
    np.testing.assert_array_equal(rectangles.turn_overshoot, result.turn_overshoot)


def test_a_route_over_itself_in_the_plane_gives_ties_to_the_later_segment():
    # corridors1 a -> f climbs a ladder (d -> e) and comes back above c -> d: in the plane e -> f
    # covers c -> d, so frames on c -> d are as close to e -> f and belong to it (ties to the
    # later segment); the turn at c, whose next segment is c -> d, is then never reached
    route = find_route(CORRIDORS1, "a", "f")
    points, arc = centreline(route, spacing=7.0)
    result = corridor_metrics(points, route, t=arc)
    assert result.inside_share == 1.0 and result.max_excursion == 0.0
    np.testing.assert_array_equal(result.turn_waypoints, [1, 2])
    assert result.turn_overshoot[0] <= 1e-9 * scale_of(points)
    assert math.isnan(result.turn_overshoot[1])


def test_turns_skip_zero_length_segments_and_straight_waypoints():
    # corridors1 a -> f: left at b, right at c; d -> e is a ladder (zero length horizontally)
    route = find_route(CORRIDORS1, "a", "f")
    result = corridor_metrics(route.positions[:, :2], route)
    np.testing.assert_array_equal(result.turn_waypoints, [1, 2])
    # a straight waypoint is no turn
    straight = make_route([(0.0, 0.0), (5.0, 0.0), (10.0, 0.0), (10.0, 5.0)], 2.0)
    result = corridor_metrics([(0.0, 0.0)], straight)
    np.testing.assert_array_equal(result.turn_waypoints, [2])


# -- excursion -------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", ["capsule", "rectangle"])
@pytest.mark.parametrize("side", [1.0, -1.0])
def test_excursion_beside_a_straight_corridor_is_offset_minus_half_width(shape, side):
    width = 3.0
    route = make_route([(0.0, 0.0), (10.0, 0.0)], width)
    offsets = np.array([0.0, 1.0, 1.5, 2.75, 40.0])
    positions = np.column_stack((np.full(offsets.size, 5.0), side * offsets))
    result = corridor_metrics(positions, route, shape=shape)
    expected = np.maximum(offsets - width / 2, 0.0)
    np.testing.assert_array_equal(result.excursion, expected)
    np.testing.assert_array_equal(result.inside, offsets <= width / 2)
    assert result.max_excursion == expected.max()
    assert result.inside_share == pytest.approx(3 / 5)
    np.testing.assert_allclose(result.mean_abs_cross_track, offsets.mean(), rtol=1e-15)


def test_beyond_the_end_the_capsule_is_round_and_the_rectangle_square():
    route = make_route([(0.0, 0.0), (10.0, 0.0)], 4.0)  # half width 2
    positions = [(13.0, 0.0), (12.0, 3.0), (11.0, 1.0), (-1.0, -1.5)]
    capsule = corridor_metrics(positions, route)
    rectangle = corridor_metrics(positions, route, shape="rectangle")
    np.testing.assert_allclose(capsule.excursion, [1.0, math.hypot(2, 3) - 2, 0.0, 0.0], rtol=1e-15)
    np.testing.assert_allclose(rectangle.excursion, [3.0, math.hypot(2, 1), 1.0, 1.0], rtol=1e-15)


@pytest.mark.parametrize("mirror", [1.0, -1.0], ids=["left-turn", "right-turn"])
def test_outer_corner_wedge_capsule_versus_rectangle(mirror):
    # turn at (10, 0) from +x to +y (left; mirrored: to -y, right); the outer wedge is x > 10
    # on the far side of the first segment's line from the turn
    route = make_route([(0.0, 0.0), (10.0, 0.0), (10.0, 10.0 * mirror)], 4.0)  # half width 2
    in_wedge = np.array([(11.0, -1.0), (13.0, -4.0)]) * (1.0, mirror)
    capsule = corridor_metrics(in_wedge, route)
    rectangle = corridor_metrics(in_wedge, route, shape="rectangle")
    # capsule: the disc of radius 2 around the corner; rectangles: the nearest rectangle
    np.testing.assert_allclose(capsule.excursion, [0.0, 5.0 - 2.0], rtol=1e-15)
    np.testing.assert_allclose(rectangle.excursion, [1.0, math.hypot(3.0, 2.0)], rtol=1e-15)
    assert capsule.inside.tolist() == [True, False]
    assert rectangle.inside.tolist() == [False, False]
    # inside the turn both shapes agree
    inner = np.array([(9.0, 1.0), (8.5, 1.5)]) * (1.0, mirror)
    assert corridor_metrics(inner, route).inside.all()
    assert corridor_metrics(inner, route, shape="rectangle").inside.all()


# -- overshoot -------------------------------------------------------------------------------------


def corner_route(mirror=1.0):
    """A 90-degree turn at waypoint 1, (10, 0): left from +x to +y (mirror -1: right)."""
    return make_route([(0.0, 0.0), (10.0, 0.0), (10.0, 10.0 * mirror)], 2.0)  # half width 1


@pytest.mark.parametrize("mirror", [1.0, -1.0], ids=["left-turn", "right-turn"])
@pytest.mark.parametrize("past", [0.25, 3.0])
def test_overshoot_past_the_corner_on_the_outside(mirror, past):
    # along the first segment to past the corner, then parallel to the second, then back to it
    route = corner_route(mirror)
    leg_one = np.column_stack((np.linspace(0.0, 10.0 + past, 41), np.zeros(41)))
    leg_two = np.column_stack((np.full(21, 10.0 + past), np.linspace(0.0, 6.0, 21)))
    leg_three = np.column_stack((np.linspace(10.0 + past, 10.0, 11), np.linspace(6.0, 10.0, 11)))
    positions = np.vstack((leg_one, leg_two, leg_three)) * (1.0, mirror)
    result = corridor_metrics(positions, route)
    np.testing.assert_array_equal(result.turn_waypoints, [1])
    assert result.turn_overshoot[0] == pytest.approx(past, rel=1e-12)
    beyond = max(past - 1.0, 0.0)
    assert result.turn_overshoot_beyond_bound[0] == pytest.approx(beyond, rel=1e-12, abs=1e-12)
    assert result.max_turn_overshoot == result.turn_overshoot[0]
    # the same in any frame of reference
    for angle, shift in ((0.7, (3.0, -2.0)), (-2.1, (-50.0, 8.0))):
        moved_route = make_route(rotate(route.positions, angle, shift), route.widths)
        moved = corridor_metrics(rotate(positions, angle, shift), moved_route)
        assert moved.turn_overshoot[0] == pytest.approx(past, rel=1e-9)


@pytest.mark.parametrize("mirror", [1.0, -1.0], ids=["left-turn", "right-turn"])
def test_overshoot_is_zero_when_cutting_the_corner_on_the_inside(mirror):
    route = corner_route(mirror)
    cut = np.array([(0.0, 0.0), (6.0, 0.0), (8.0, 1.0), (9.5, 3.0), (10.0, 6.0), (10.0, 10.0)])
    result = corridor_metrics(cut * (1.0, mirror), route)
    assert result.turn_overshoot.tolist() == [0.0]
    assert result.turn_overshoot_beyond_bound.tolist() == [0.0]


def test_overshoot_is_nan_when_the_turn_is_never_reached():
    route = corner_route()
    positions = np.column_stack((np.linspace(0.0, 4.0, 5), np.full(5, 0.5)))
    result = corridor_metrics(positions, route)
    assert np.isnan(result.turn_overshoot).all()
    assert np.isnan(result.turn_overshoot_beyond_bound).all()
    assert math.isnan(result.max_turn_overshoot)
    assert math.isnan(result.max_turn_overshoot_beyond_bound)


# -- properties ------------------------------------------------------------------------------------

coordinate = st.floats(-50.0, 50.0, allow_nan=False, allow_infinity=False)
point = st.tuples(coordinate, coordinate)


@st.composite
def scenes(draw):
    """A route with ladders (repeated points) now and then, and a few frames."""
    waypoints = draw(st.lists(point, min_size=1, max_size=6))
    repeats = draw(st.lists(st.booleans(), min_size=len(waypoints), max_size=len(waypoints)))
    route_points = []
    for waypoint, repeat in zip(waypoints, repeats, strict=True):
        route_points.extend([waypoint, waypoint] if repeat else [waypoint])
    count = len(route_points)
    widths = draw(st.lists(st.floats(0.0, 30.0), min_size=count - 1, max_size=count - 1))
    radii = draw(st.lists(st.floats(0.0, 20.0), min_size=count, max_size=count))
    frames = draw(st.lists(point, min_size=1, max_size=25))
    return make_route(route_points, widths or [], radii), np.array(frames)


@given(scenes())
def test_excursion_and_inside_are_consistent(scene):
    route, positions = scene
    capsule = corridor_metrics(positions, route)
    rectangle = corridor_metrics(positions, route, shape="rectangle")
    tolerance = 1e-9 * scale_of(positions, route.positions)
    for result in (capsule, rectangle):
        assert (result.excursion >= 0.0).all()
        np.testing.assert_array_equal(result.inside, result.excursion == 0.0)
        assert result.inside_share == result.inside.mean()
        assert result.max_excursion == result.excursion.max()
        assert result.mean_abs_cross_track >= 0.0
        assert (
            np.isnan(result.turn_overshoot).tolist()
            == np.isnan(result.turn_overshoot_beyond_bound).tolist()
        )
        reached = ~np.isnan(result.turn_overshoot)
        assert (result.turn_overshoot[reached] >= 0.0).all()
        assert (result.turn_overshoot_beyond_bound[reached] <= result.turn_overshoot[reached]).all()
        assert not np.isnan(result.final_error)
    # every rectangle lies in its capsule
    assert (capsule.inside | ~rectangle.inside).all()
    assert (capsule.excursion <= rectangle.excursion + tolerance).all()


@st.composite
def generic_scenes(draw):
    """Continuous random scenes (no exact ties), sized by hypothesis."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    count = draw(st.integers(1, 7))
    route_points = rng.uniform(-50.0, 50.0, (count, 2))
    if count > 2 and draw(st.booleans()):  # a ladder
        ladder = int(rng.integers(1, count - 1))
        route_points = np.insert(route_points, ladder, route_points[ladder], axis=0)
    widths = rng.uniform(0.5, 25.0, route_points.shape[0] - 1)
    radii = rng.uniform(0.0, 15.0, route_points.shape[0])
    frames = draw(st.integers(1, 40))
    # a noisy walk along the route
    along, _ = centreline(make_route(route_points, widths), spacing=5.0)
    chosen = np.sort(rng.integers(0, along.shape[0], frames))
    positions = along[chosen] + rng.normal(0.0, 6.0, (frames, 2))
    return make_route(route_points, widths, radii), positions


@given(
    generic_scenes(),
    st.floats(-math.pi, math.pi),
    st.tuples(st.floats(-1e3, 1e3), st.floats(-1e3, 1e3)),
    st.sampled_from(["capsule", "rectangle"]),
)
def test_metrics_do_not_depend_on_the_frame_of_reference(scene, angle, shift, shape):
    route, positions = scene
    times = np.cumsum(np.full(positions.shape[0], 0.1))
    original = corridor_metrics(positions, route, t=times, shape=shape)
    moved_route = make_route(rotate(route.positions, angle, shift), route.widths, route.radii)
    moved_positions = rotate(positions, angle, shift)
    moved = corridor_metrics(moved_positions, moved_route, t=times, shape=shape)
    tolerance = 1e-9 * scale_of(positions, route.positions, moved_positions)
    for name, value in original.as_dict().items():
        if isinstance(value, str):
            assert moved.as_dict()[name] == value
        else:
            np.testing.assert_allclose(moved.as_dict()[name], value, rtol=1e-9, atol=tolerance)
    np.testing.assert_allclose(moved.excursion, original.excursion, rtol=1e-9, atol=tolerance)
    np.testing.assert_array_equal(moved.turn_waypoints, original.turn_waypoints)
    np.testing.assert_allclose(moved.turn_overshoot, original.turn_overshoot, atol=tolerance)


def test_chunks_give_the_same_result(monkeypatch):
    route = find_route(LEVEL, "s1", "g1")
    rng = np.random.default_rng(5)
    points, _ = centreline(route, spacing=20.0)
    positions = points + rng.normal(0.0, 30.0, points.shape)
    whole = corridor_metrics(positions, route)
    for cells in (7, 50):  # 9 segments: one frame per chunk, then five
        monkeypatch.setattr(metrics_module, "_CHUNK_CELLS", cells)
        chunked = corridor_metrics(positions, route)
        assert json.dumps(chunked.as_dict()) == json.dumps(whole.as_dict())  # NaN-safe
        np.testing.assert_array_equal(chunked.excursion, whole.excursion)
        np.testing.assert_array_equal(chunked.turn_overshoot, whole.turn_overshoot)


# -- goal ------------------------------------------------------------------------------------------


def goal_route():
    return make_route([(0.0, 0.0), (100.0, 0.0)], 10.0, radii=[5.0, 5.0])


@pytest.mark.parametrize("lateral", [0.0, 3.0, -4.0])
def test_time_to_goal_catches_a_jump_over_the_goal_circle(lateral):
    # frames at x = 90 and 110: both 10 from the goal, radius 5; the straight step between them
    # enters the circle at x = 100 - sqrt(25 - lateral^2)
    route = goal_route()
    positions = [(0.0, lateral), (90.0, lateral), (110.0, lateral)]
    times = [0.0, 2.0, 3.0]
    result = corridor_metrics(positions, route, t=times)
    entry = 100.0 - math.sqrt(25.0 - lateral**2)
    assert 2.0 < result.time_to_goal < 3.0
    assert result.time_to_goal == pytest.approx(2.0 + (entry - 90.0) / 20.0, rel=1e-12)
    assert result.final_error == pytest.approx(math.hypot(10.0, lateral), rel=1e-15)
    assert result.goal_radius == 5.0


def test_time_to_goal_never_reached_start_inside_and_radius():
    route = goal_route()
    past = corridor_metrics([(0.0, 0.0), (90.0, 6.0), (110.0, 6.0)], route)  # passes 6 away
    assert math.isnan(past.time_to_goal)
    assert past.final_error == pytest.approx(math.hypot(10.0, 6.0), rel=1e-15)
    assert corridor_metrics([(90.0, 6.0), (110.0, 6.0)], route, goal_radius=6.5).time_to_goal > 0
    # a zero radius is reached by a step through the goal itself (frames count as times)
    through = corridor_metrics([(0.0, 0.0), (90.0, 0.0), (110.0, 0.0)], route, goal_radius=0.0)
    assert through.time_to_goal == pytest.approx(1.5, rel=1e-15)
    assert through.goal_radius == 0.0
    inside = corridor_metrics([(97.0, 1.0), (0.0, 0.0)], route, t=[4.0, 5.0])
    assert inside.time_to_goal == 4.0
    standing = corridor_metrics([(0.0, 0.0), (0.0, 0.0)], route)
    assert math.isnan(standing.time_to_goal)


def test_a_trace_gives_positions_and_times():
    route = goal_route()
    x = np.array([0.0, 50.0, 90.0, 110.0])
    y = np.array([0.0, 1.0, 2.0, 2.0])
    t = np.array([0.0, 0.5, 1.0, 1.5])
    zeros = np.zeros(4)
    trace = Trace(t, {"x": x, "y": y, "vx": zeros, "vy": zeros, "yaw": zeros}, {})
    from_trace = corridor_metrics(trace, route)
    from_array = corridor_metrics(np.column_stack((x, y, zeros)), route, t=t)  # z ignored
    assert json.dumps(from_trace.as_dict()) == json.dumps(from_array.as_dict())  # NaN-safe
    assert 1.0 < from_trace.time_to_goal < 1.5


# -- degenerate routes -----------------------------------------------------------------------------


def test_one_waypoint_route_is_the_disc_of_its_radius():
    route = find_route(LEVEL, "hc", "hc")  # radius 64 at (896, 0)
    positions = np.array([(906.0, 0.0), (896.0, 100.0), (896.0, 64.0)])
    for shape in ("capsule", "rectangle"):
        result = corridor_metrics(positions, route, shape=shape)
        np.testing.assert_array_equal(result.excursion, [0.0, 36.0, 0.0])
        assert result.mean_abs_cross_track == pytest.approx((10.0 + 100.0 + 64.0) / 3)
        assert result.turn_count == 0 and result.turn_overshoot.shape == (0,)
        assert math.isnan(result.max_turn_overshoot)
        assert result.time_to_goal == 0.0
        assert result.final_error == 64.0


def test_ladder_only_route_is_a_disc_for_both_shapes():
    route = find_route(LEVEL, "l1", "l2")  # same x, y; width 32
    positions = np.array([(1600.0, 10.0), (1600.0, 20.0)])
    for shape in ("capsule", "rectangle"):
        result = corridor_metrics(positions, route, shape=shape)
        np.testing.assert_array_equal(result.excursion, [0.0, 4.0])
        assert result.mean_abs_cross_track == 15.0
        assert result.turn_count == 0


def test_zero_length_segments_produce_no_nan():
    route = find_route(LEVEL, "s1", "u1")  # e2 -> l1 -> l2 (ladder) -> u1
    assert 0.0 in np.hypot(*np.diff(route.positions[:, :2], axis=0).T)
    rng = np.random.default_rng(3)
    points, _ = centreline(route, spacing=16.0)
    positions = points + rng.normal(0.0, 40.0, points.shape)
    positions[-5:] = route.positions[7, :2]  # standing at the ladder's foot (and top)
    for shape in ("capsule", "rectangle"):
        result = corridor_metrics(positions, route, shape=shape)
        assert np.isfinite(result.excursion).all()
        for name, value in result.as_dict().items():
            if name not in ("time_to_goal", "shape"):
                assert not (isinstance(value, float) and math.isnan(value)), name


# -- records and errors ----------------------------------------------------------------------------


def test_record_is_read_only_and_its_dict_is_json():
    route = corner_route()
    result = corridor_metrics([(0.0, 0.0), (12.0, 0.0), (12.0, 5.0)], route, t=[0.0, 1.0, 2.0])
    assert isinstance(result, CorridorMetrics)
    with pytest.raises(ValueError):
        result.excursion[0] = 1.0
    row = result.as_dict()
    assert json.dumps(json.loads(json.dumps(row))) == json.dumps(row)  # NaN-safe round trip
    assert row["frames"] == 3 and row["shape"] == "capsule" and row["turn_count"] == 1
    assert {type(value) for value in row.values()} <= {int, float, str}
    assert "CorridorMetrics(frames=3" in repr(result)


@pytest.mark.parametrize(
    ("arguments", "match"),
    [
        ({"positions": np.zeros((0, 2))}, "positions must contain at least one frame"),
        ({"positions": np.zeros(4)}, r"positions must have shape \(n, 2\)"),
        ({"positions": np.zeros((3, 1))}, r"positions must have shape \(n, 2\)"),
        ({"positions": [(0.0, 0.0), (math.nan, 1.0)]}, r"positions\[1\] must be finite"),
        ({"positions": "abc"}, "positions must be"),
        ({"t": [0.0, 1.0]}, r"t must have shape \(3,\)"),
        ({"t": [0.0, math.inf, 2.0]}, r"t\[1\] must be finite"),
        ({"t": [0.0, 2.0, 1.0]}, r"t must be non-decreasing, got t\[2\]"),
        ({"goal_radius": -1.0}, "goal_radius must be >= 0, got -1.0"),
        ({"goal_radius": math.nan}, "goal_radius must be finite"),
        ({"shape": "square"}, "shape must be one of .* got 'square'"),
        ({"route": "s1-g1"}, "route must be a Route"),
        ({"route": make_route([(0.0, 0.0), (1.0, 0.0)], -1.0)}, r"route.widths\[0\] must be >= 0"),
        ({"route": make_route([(0.0, 0.0), (1.0, 0.0)], 1.0, [1.0, math.nan])}, "goal_radius"),
    ],
)
def test_bad_inputs_name_the_argument(arguments, match):
    call = {"positions": [(0.0, 0.0), (1.0, 0.0), (2.0, 0.0)], "route": corner_route()}
    call.update(arguments)
    with pytest.raises(ValueError, match=match):
        corridor_metrics(call.pop("positions"), call.pop("route"), **call)


def test_t_with_a_trace_is_an_error():
    zeros = np.zeros(2)
    trace = Trace(np.array([0.0, 1.0]), {"x": zeros, "y": zeros}, {})
    with pytest.raises(ValueError, match="t must be omitted when positions is a Trace"):
        corridor_metrics(trace, corner_route(), t=[0.0, 1.0])
    with pytest.raises(ValueError, match="Trace has no state field 'y'"):
        corridor_metrics(Trace([0.0], {"x": [0.0]}, {}), corner_route())


def test_cutting_the_next_corner_is_not_an_overshoot_of_this_turn():
    # a left turn at b, then a right turn at c: the agent takes b on the centreline, then cuts
    # the corner at c (on the right of segment b -> c, which is the outside of turn b)
    points = np.array([[0, 0, 0], [100, 0, 0], [100, 100, 0], [200, 100, 0.0]])
    route = Route(
        ("a", "b", "c", "d"),
        points,
        np.full(4, 4.0),
        (frozenset(),) * 4,
        np.full(3, 8.0),
        (frozenset(),) * 3,
        np.full(3, 100.0),
    )
    xy = [(0, 0), (50, 0), (100, 0), (100, 30), (100, 60), (103, 85), (110, 97), (150, 100)]
    metrics = corridor_metrics(np.array(xy, dtype=float), route)
    assert metrics.turn_overshoot[0] == 0.0
    # the same excursion in the first half of the segment after b is an overshoot of b
    xy[3] = (103.0, 30.0)
    metrics = corridor_metrics(np.array(xy, dtype=float), route)
    assert metrics.turn_overshoot[0] == pytest.approx(3.0)
