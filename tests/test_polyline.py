"""Polyline: projection, arc length, next point at a distance (seed 001, Algorithm 1, line 3)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from steerlab.geometry import Polyline, kernels, planar_polyline

coordinate = st.floats(-100.0, 100.0, allow_nan=False, allow_infinity=False)


@st.composite
def paths(draw, dimension=None, max_points=8):
    """Waypoint arrays, sometimes with repeated consecutive points (zero-length segments)."""
    if dimension is None:
        dimension = draw(st.sampled_from((2, 3)))
    point = st.tuples(*[coordinate] * dimension)
    waypoints = draw(st.lists(point, min_size=2, max_size=max_points))
    repeats = draw(st.lists(st.booleans(), min_size=len(waypoints), max_size=len(waypoints)))
    with_repeats = []
    for waypoint, repeat in zip(waypoints, repeats, strict=True):
        with_repeats.append(waypoint)
        if repeat:
            with_repeats.append(waypoint)
    array = np.array(with_repeats, dtype=float)
    assume(np.linalg.norm(np.diff(array, axis=0), axis=1).sum() > 1e-3)
    return array


def query_point(dimension):
    return st.tuples(*[coordinate] * dimension).map(np.array)


def scale_of(array):
    return 1.0 + float(np.abs(array).max())


def brute_force_distance(array, point):
    """Distance from ``point`` to the polyline, per segment in closed form (numpy)."""
    starts, ends = array[:-1], array[1:]
    direction = ends - starts
    length2 = (direction * direction).sum(axis=1)
    safe = np.where(length2 > 0.0, length2, 1.0)
    fraction = np.clip(((point - starts) * direction).sum(axis=1) / safe, 0.0, 1.0)
    closest = starts + fraction[:, None] * direction
    return float(np.linalg.norm(point - closest, axis=1).min())


# -- projection ------------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_projection_is_the_nearest_point(data):
    array = data.draw(paths())
    point = data.draw(query_point(array.shape[1]))
    polyline = Polyline(array)
    s, closest, segment, cross_track = polyline.project(point)
    tolerance = 1e-9 * scale_of(np.vstack((array, point)))
    expected = brute_force_distance(array, point)
    assert abs(abs(cross_track) - expected) <= tolerance
    assert abs(np.linalg.norm(point - closest) - expected) <= tolerance
    assert 0.0 <= s <= polyline.length
    assert 0 <= segment < polyline.segment_count
    start, end = array[segment], array[segment + 1]
    assert np.linalg.norm(end - start) > 0.0  # never a zero-length segment
    # the closest point lies on the reported segment, at the reported arc length
    on_segment = np.linalg.norm(closest - start) + np.linalg.norm(end - closest)
    assert on_segment <= np.linalg.norm(end - start) + tolerance
    np.testing.assert_allclose(polyline.point_at(s), closest, rtol=0.0, atol=tolerance)


@settings(max_examples=100, deadline=None)
@given(
    st.sampled_from((2, 3)),
    st.tuples(coordinate, coordinate, coordinate).map(np.array),
    st.floats(-math.pi, math.pi),
    st.floats(-0.5, 0.5),
    st.floats(1.0, 50.0),
    st.floats(0.01, 0.99),
    st.floats(-20.0, 20.0),
)
def test_cross_track_sign_left_positive(dimension, start, yaw, slope, length, along, offset):
    """A point shifted by d to the left of a straight path has cross-track error +d."""
    direction = np.array([math.cos(yaw), math.sin(yaw), slope if dimension == 3 else 0.0])
    left = np.array([-math.sin(yaw), math.cos(yaw), 0.0])
    start = start if dimension == 3 else np.append(start[:2], 0.0)
    array = np.vstack((start, start + length * direction))[:, :dimension]
    polyline = Polyline(array)
    on_path = polyline.point_at(along * polyline.length)
    point = on_path + offset * left[:dimension]
    _, closest, _, cross_track = polyline.project(point)
    assert math.isclose(cross_track, offset, rel_tol=1e-9, abs_tol=1e-9)
    np.testing.assert_allclose(closest, on_path, atol=1e-9)


def regular_polygon(count, radius=10.0):
    """Counter-clockwise closed polygon (first point repeated at the end)."""
    angles = np.linspace(0.0, 2.0 * math.pi, count + 1)
    angles[-1] = 0.0
    return radius * np.column_stack((np.cos(angles), np.sin(angles)))


@settings(max_examples=200, deadline=None)
@given(st.sampled_from((4, 5, 12, 64)), st.floats(-20.0, 20.0), st.floats(-20.0, 20.0))
def test_counter_clockwise_polygon_inside_is_left(count, x, y):
    """Inside a counter-clockwise loop is left of travel (+); outside, corners included, is -."""
    array = regular_polygon(count)
    polyline = Polyline(array)
    point = np.array([x, y])
    cross_track = polyline.project(point).cross_track
    # inside test of a convex counter-clockwise polygon: left of every edge
    edges = np.diff(array, axis=0)
    to_point = point - array[:-1]
    left_of_edges = edges[:, 0] * to_point[:, 1] - edges[:, 1] * to_point[:, 0]
    assume(np.abs(left_of_edges).min() > 1e-6)
    if (left_of_edges > 0.0).all():
        assert cross_track > 0.0
    else:
        assert cross_track < 0.0


def test_corner_vertex_outside_is_negative_for_both_segments():
    # a left turn at (10, 0): the outside wedge x > 10, y < 0 is right of both segments
    polyline = Polyline([(0.0, 0.0), (10.0, 0.0), (10.0, 10.0)])
    for point in [(11.0, -1.0), (10.0, -3.0), (13.0, 0.0), (10.5, -0.1)]:
        s, closest, _, cross_track = polyline.project(point)
        assert s == 10.0
        np.testing.assert_array_equal(closest, (10.0, 0.0))
        assert cross_track == pytest.approx(-math.dist(point, (10.0, 0.0)))


def test_ties_take_the_smallest_arc_length():
    # a U: (0, 5) is as close to the first leg as to the last
    polyline = Polyline([(0.0, 0.0), (10.0, 0.0), (10.0, 10.0), (0.0, 10.0)])
    s, closest, segment, cross_track = polyline.project((0.0, 5.0))
    assert (s, segment) == (0.0, 0)
    np.testing.assert_array_equal(closest, (0.0, 0.0))
    assert cross_track == 5.0


def test_three_dimensional_projection_uses_height():
    polyline = Polyline([(0.0, 0.0, 0.0), (10.0, 0.0, 0.0), (10.0, 0.0, 10.0)])
    s, closest, segment, cross_track = polyline.project((9.0, 0.0, 5.0))
    assert segment == 1
    assert s == pytest.approx(15.0)
    np.testing.assert_allclose(closest, (10.0, 0.0, 5.0))
    assert cross_track == pytest.approx(1.0)  # vertical segment: no horizontal tangent, sign +


# -- arc length ------------------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(paths(), st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_point_at_is_one_lipschitz_and_ends_are_exact(array, first, second):
    polyline = Polyline(array)
    length = polyline.length
    tolerance = 1e-9 * scale_of(array)
    assert math.isclose(length, np.linalg.norm(np.diff(array, axis=0), axis=1).sum(), rel_tol=1e-12)
    np.testing.assert_array_equal(polyline.point_at(0.0), array[0])
    np.testing.assert_array_equal(polyline.point_at(length), array[-1])
    np.testing.assert_array_equal(polyline.point_at(-5.0), array[0])
    np.testing.assert_array_equal(polyline.point_at(length + 5.0), array[-1])
    s1, s2 = first * length, second * length
    step = np.linalg.norm(polyline.point_at(s2) - polyline.point_at(s1))
    assert step <= abs(s2 - s1) + tolerance
    for index, s in enumerate(polyline.cumulative_length):
        np.testing.assert_allclose(polyline.point_at(s), array[index], rtol=0.0, atol=tolerance)
        # continuity at the vertex, from both sides
        for side in (s - 1e-9 * length, s + 1e-9 * length):
            gap = np.linalg.norm(polyline.point_at(side) - array[index])
            assert gap <= 1e-9 * length + tolerance


@settings(max_examples=100, deadline=None)
@given(paths(), st.floats(-10.0, 1000.0))
def test_segment_heading_and_width_at(array, s):
    widths = np.arange(1.0, len(array), dtype=float)
    polyline = Polyline(array, widths=widths)
    segment = polyline.segment_at(s)
    clamped = min(max(s, 0.0), polyline.length)
    cum = polyline.cumulative_length
    assert cum[segment] <= clamped <= cum[segment + 1]
    assert cum[segment] < cum[segment + 1]
    assert polyline.width_at(s) == widths[segment]
    assert polyline.half_width_at(s) == widths[segment] / 2.0
    heading = polyline.heading_at(s)
    assert -math.pi <= heading <= math.pi
    direction = array[segment + 1] - array[segment]
    if np.hypot(direction[0], direction[1]) > 0.0:
        assert heading == math.atan2(direction[1], direction[0])


@given(st.data())
def test_segment_at_is_the_last_segment_of_positive_length_holding_s(data):
    """The definition read literally: of the segments of positive length with ``cum[i] <= s <=
    cum[i + 1]`` (``s`` clamped to the path), the last one (at a vertex the one starting there,
    at the end the last of positive length); 0 when every segment has zero length. s drawn also
    exactly on the vertices, and on paths with repeated points."""
    array = data.draw(paths())
    repeat = data.draw(st.lists(st.integers(0, len(array) - 1), max_size=3))
    array = np.insert(array, repeat, array[repeat], axis=0) if repeat else array
    cum = Polyline(array).cumulative_length
    s = data.draw(st.one_of(st.floats(-10.0, 1000.0), st.sampled_from(cum.tolist())))
    clamped = min(max(s, cum[0]), cum[-1])
    holding = [
        i for i in range(len(cum) - 1) if cum[i] < cum[i + 1] and cum[i] <= clamped <= cum[i + 1]
    ]
    assert kernels.segment_at(cum, s) == max(holding, default=0)


@given(st.data())
def test_walking_from_a_hint_finds_the_binary_search_segment_and_point(data):
    """``_segment_near`` / ``_point_near`` from any starting segment (even out of range) give
    exactly ``_segment_at`` / ``_point_at``: at vertices, after zero-length segments, past the
    ends; s drawn also exactly on the cumulative lengths."""
    array = data.draw(paths())
    polyline = Polyline(array)
    points, cum = polyline.points_3d, polyline.cumulative_length
    s = data.draw(st.one_of(st.floats(-10.0, 1000.0), st.sampled_from(cum.tolist())))
    hint = data.draw(st.integers(-3, len(cum) + 3))
    assert kernels.segment_near(cum, s, hint) == kernels.segment_at(cum, s)
    assert kernels.point_near(points, cum, s, hint) == kernels.point_at(points, cum, s)


def test_heading_and_width_at_vertices_and_degenerate_segments():
    polyline = Polyline(
        [(0.0, 0.0), (0.0, 0.0), (10.0, 0.0), (10.0, 0.0), (10.0, 10.0), (10.0, 10.0)],
        widths=[1.0, 2.0, 3.0, 4.0, 5.0],
    )
    assert polyline.segment_at(0.0) == 1
    assert polyline.heading_at(0.0) == 0.0
    assert polyline.segment_at(10.0) == 3  # the segment starting at the vertex
    assert polyline.heading_at(10.0) == pytest.approx(math.pi / 2)
    assert polyline.width_at(10.0) == 4.0
    assert polyline.segment_at(20.0) == 3  # the end: last segment of positive length
    assert polyline.segment_at(1e9) == 3
    vertical = Polyline([(0.0, 0.0, 0.0), (0.0, 0.0, 5.0), (0.0, 3.0, 5.0)])
    assert vertical.heading_at(1.0) == pytest.approx(math.pi / 2)  # next horizontal segment
    assert Polyline([(0.0, 0.0), (1.0, 1.0)]).width_at(0.5) == math.inf
    assert Polyline([(0.0, 0.0), (1.0, 1.0)]).half_width_at(0.5) == math.inf
    assert Polyline([(0.0, 0.0), (1.0, 0.0), (2.0, 0.0)], widths=3.0).width_at(1.5) == 3.0


def test_data_is_read_only_and_padded():
    source = np.array([(0.0, 0.0), (3.0, 4.0)])
    polyline = Polyline(source)
    source[1] = (100.0, 100.0)  # the polyline holds its own copy
    assert polyline.length == 5.0
    assert polyline.dim == 2
    assert polyline.points.shape == (2, 2)
    assert polyline.points_3d.shape == (2, 3)
    assert polyline.points_3d.flags.c_contiguous
    assert polyline.widths is None
    assert polyline.segment_count == 1
    for array in (polyline.points, polyline.points_3d, polyline.cumulative_length):
        with pytest.raises(ValueError):
            array[0] = 1.0


def test_kernels_work_on_slices_of_concatenated_paths():
    """Batch layout (docs/design.md): points and cumulative lengths concatenated, plus offsets."""
    first = Polyline([(0.0, 0.0), (10.0, 0.0), (10.0, 10.0)])
    second = Polyline([(5.0, 5.0), (5.0, 5.0), (-5.0, 5.0), (-5.0, -5.0)])
    points = np.concatenate((first.points_3d, second.points_3d))
    cum = np.concatenate((first.cumulative_length, second.cumulative_length))
    offsets = [0, 3, 7]
    query = (1.0, 3.0, 0.0)
    for index, polyline in enumerate((first, second)):
        start, stop = offsets[index], offsets[index + 1]
        own = kernels.project(polyline.points_3d, polyline.cumulative_length, *query)
        sliced = kernels.project(points[start:stop], cum[start:stop], *query)
        assert own == sliced
        own = kernels.next_point(polyline.points_3d, polyline.cumulative_length, *query, 4.0, 1.0)
        sliced = kernels.next_point(points[start:stop], cum[start:stop], *query, 4.0, 1.0)
        assert own == sliced


# -- next point ------------------------------------------------------------------------------------


def sample_distances(polyline, origin, start, stop, count=2000):
    """Distances from ``origin`` to P(s) for s in ``[start, stop)``, vertices in range included.

    P(s) by linear interpolation of the waypoints over the cumulative length (numpy).
    """
    if stop <= start:
        return np.empty(0)
    cum = polyline.cumulative_length
    arcs = np.concatenate((np.linspace(start, stop, count, endpoint=False), cum[cum >= start]))
    arcs = arcs[arcs < stop]
    array = polyline.points
    curve = np.column_stack([np.interp(arcs, cum, array[:, k]) for k in range(polyline.dim)])
    return np.linalg.norm(curve - origin, axis=1)


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_next_point_definition(data):
    """s* = min{s >= s_from : |P(s) - origin| >= dh}, or the end, for any origin."""
    array = data.draw(paths())
    polyline = Polyline(array)
    origin = data.draw(query_point(array.shape[1]))
    dh = data.draw(st.floats(0.1, 100.0))
    s_from = data.draw(st.floats(0.0, 1.0)) * polyline.length
    s, point = polyline.next_point(origin, dh, s_from=s_from)
    tolerance = 1e-9 * scale_of(np.vstack((array, origin)))
    assert s_from <= s <= polyline.length
    np.testing.assert_allclose(point, polyline.point_at(s), rtol=0.0, atol=tolerance)
    assert (sample_distances(polyline, origin, s_from, s) < dh + tolerance).all()
    distance = np.linalg.norm(point - origin)
    if s < polyline.length:
        assert distance >= dh - tolerance
    if s > s_from:  # left a sphere it started inside: the exit is on the sphere (or the end)
        assert distance <= dh + tolerance


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_next_point_from_the_path_is_dh_away(data):
    array = data.draw(paths())
    polyline = Polyline(array)
    s_from = data.draw(st.floats(0.0, 1.0)) * polyline.length
    dh = data.draw(st.floats(0.01, 1.0)) * polyline.length
    origin = polyline.point_at(s_from)
    s, point = polyline.next_point(origin, dh, s_from=s_from)
    tolerance = 1e-9 * scale_of(array)
    assert (sample_distances(polyline, origin, s_from, s) < dh + tolerance).all()
    if s < polyline.length:
        assert math.isclose(np.linalg.norm(point - origin), dh, rel_tol=1e-9, abs_tol=tolerance)
    else:
        assert np.linalg.norm(point - origin) <= dh + tolerance


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_next_point_far_from_the_path_is_the_projection(data):
    array = data.draw(paths())
    polyline = Polyline(array)
    origin = data.draw(query_point(array.shape[1]))
    s_projection, closest, _, cross_track = polyline.project(origin)
    assume(abs(cross_track) > 1e-6)
    # strictly inside: at dh == distance the sphere touches the path and rounding decides
    dh = data.draw(st.floats(0.01, 0.999)) * abs(cross_track)
    s, point = polyline.next_point(origin, dh)
    tolerance = 1e-9 * scale_of(np.vstack((array, origin)))
    assert abs(s - s_projection) <= tolerance
    np.testing.assert_allclose(point, closest, rtol=0.0, atol=tolerance)


@settings(max_examples=50, deadline=None)
@given(st.floats(-math.pi, math.pi), st.floats(1.0, 100.0), st.floats(0.05, 0.5), st.floats(-5, 5))
def test_next_point_marches_forward_by_dh_on_a_straight_path(yaw, length, fraction, start):
    direction = np.array([math.cos(yaw), math.sin(yaw)])
    polyline = Polyline([start * direction, (start + length) * direction])
    dh = fraction * length
    s, point = 0.0, polyline.point_at(0.0)
    arcs = []
    while s < polyline.length:
        s, point = polyline.next_point(point, dh, s_from=s)
        arcs.append(s)
    steps = np.diff([0.0, *arcs])
    np.testing.assert_allclose(steps[:-1], dh, rtol=1e-9)
    assert 0.0 < steps[-1] <= dh * (1.0 + 1e-9)  # the remaining piece, shorter than dh
    assert arcs[-1] == polyline.length
    # the last step is what remains (after a multiple of dh it may be a rounding-sized remainder)
    assert len(arcs) == 1 or arcs[-2] >= polyline.length - dh * (1.0 + 1e-9)


def test_next_point_keeps_going_forward_on_a_path_that_loops_back():
    # out along y = 0 and back along y = 1: the way back passes within dh of the start
    polyline = Polyline([(0.0, 0.0), (10.0, 0.0), (10.0, 1.0), (0.0, 1.0)])
    s, point, arcs = 0.0, polyline.point_at(0.0), []
    for _ in range(30):
        s, point = polyline.next_point(point, 2.0, s_from=s)
        arcs.append(s)
    assert all(later >= earlier for earlier, later in itertools.pairwise(arcs))
    assert arcs[-1] == polyline.length
    np.testing.assert_allclose(arcs[:5], [2.0, 4.0, 6.0, 8.0, 10.0])


def test_next_point_returns_the_end_when_the_rest_is_short():
    polyline = Polyline([(0.0, 0.0), (10.0, 0.0)])
    s, point = polyline.next_point((9.0, 0.0), 5.0)
    assert s == 10.0
    np.testing.assert_array_equal(point, (10.0, 0.0))
    s, point = polyline.next_point((9.0, 0.0), 5.0, s_from=50.0)  # clamped
    assert s == 10.0


# -- degenerate but legal --------------------------------------------------------------------------


def test_zero_length_segments_vertex_agents_and_hairpins_give_no_nan():
    paths_ = [
        [(0.0, 0.0), (5.0, 0.0), (5.0, 0.0), (5.0, 0.0), (5.0, 5.0)],  # repeats in the middle
        [(0.0, 0.0), (10.0, 0.0), (0.0, 0.0)],  # 180-degree hairpin
        [(0.0, 0.0), (0.0, 0.0), (10.0, 0.0), (10.0, 0.0)],  # repeats at both ends
        [(0.0, 0.0, 0.0), (0.0, 0.0, 5.0), (0.0, 0.0, 5.0), (0.0, 0.0, 0.0)],  # vertical hairpin
    ]
    for array in paths_:
        polyline = Polyline(array)
        queries = [np.array(p, dtype=float) for p in array]  # on every vertex
        queries += [np.array(p, dtype=float) + 0.5 for p in array]
        for query in queries:
            s, closest, _, cross_track = polyline.project(query)
            values = [s, *closest, cross_track]
            assert np.isfinite(values).all()
            for dh in (1e-9, 1.0, 3.0, 100.0):
                s_next, point = polyline.next_point(query, dh)
                assert np.isfinite([s_next, *point]).all()
        for s in np.linspace(-1.0, polyline.length + 1.0, 41):
            assert np.isfinite(polyline.point_at(s)).all()
            assert math.isfinite(polyline.heading_at(s))


def test_agent_on_a_vertex_projects_onto_it():
    polyline = Polyline([(0.0, 0.0), (10.0, 0.0), (10.0, 10.0)])
    s, closest, segment, cross_track = polyline.project((10.0, 0.0))
    assert (s, segment, cross_track) == (10.0, 0, 0.0)
    np.testing.assert_array_equal(closest, (10.0, 0.0))
    s, point = polyline.next_point((10.0, 0.0), 3.0)
    assert s == pytest.approx(13.0)
    np.testing.assert_allclose(point, (10.0, 3.0))


def test_hairpin_next_point_turns_around():
    polyline = Polyline([(0.0, 0.0), (10.0, 0.0), (0.0, 0.0)])
    s, point = polyline.next_point((8.0, 0.0), 3.0, s_from=8.0)
    # (10, 0) is only 2 away; on the way back the exit is at x = 5
    assert s == pytest.approx(15.0)
    np.testing.assert_allclose(point, (5.0, 0.0))


# -- bad input -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("points", "widths", "message"),
    [
        ([(0.0, 0.0), (1.0, math.nan), (2.0, 0.0)], None, r"points\[1\]"),
        ([(0.0, 0.0), (1.0, 1.0), (math.inf, 0.0)], None, r"points\[2\]"),
        ([(0.0, 0.0)], None, "at least 2 points"),
        ([(1.0, 1.0), (1.0, 1.0)], None, "distinct"),
        ([(1.0, 1.0, 1.0), (1.0, 1.0, 1.0), (1.0, 1.0, 1.0)], None, "distinct"),
        ([0.0, 1.0, 2.0], None, "shape"),
        ([(0.0, 0.0, 0.0, 0.0), (1.0, 1.0, 1.0, 1.0)], None, "shape"),
        ("not points", None, "points"),
        ([(-1e308, 0.0), (1e308, 0.0)], None, "points"),
        ([(0.0, 0.0), (1.0, 0.0), (2.0, 0.0)], -1.0, r"widths\[0\]"),
        ([(0.0, 0.0), (1.0, 0.0), (2.0, 0.0)], [1.0, -0.5], r"widths\[1\]"),
        ([(0.0, 0.0), (1.0, 0.0), (2.0, 0.0)], [1.0, math.nan], r"widths\[1\]"),
        ([(0.0, 0.0), (1.0, 0.0), (2.0, 0.0)], [1.0, 2.0, 3.0], "widths"),
        ([(0.0, 0.0), (1.0, 0.0), (2.0, 0.0)], [[1.0, 2.0]], "widths"),
    ],
)
def test_bad_construction_raises(points, widths, message):
    with pytest.raises(ValueError, match=message):
        Polyline(points, widths=widths)


def test_bad_queries_raise():
    polyline = Polyline([(0.0, 0.0), (1.0, 0.0)])
    with pytest.raises(ValueError, match="p"):
        polyline.project((0.0, 0.0, 0.0))
    with pytest.raises(ValueError, match="p"):
        polyline.project((math.nan, 0.0))
    with pytest.raises(ValueError, match="s"):
        polyline.point_at(math.nan)
    with pytest.raises(ValueError, match="dh"):
        polyline.next_point((0.0, 0.0), 0.0)
    with pytest.raises(ValueError, match="dh"):
        polyline.next_point((0.0, 0.0), -1.0)
    with pytest.raises(ValueError, match="origin"):
        polyline.next_point((0.0,), 1.0)
    with pytest.raises(ValueError, match="s_from"):
        polyline.next_point((0.0, 0.0), 1.0, s_from=math.inf)


# -- the planar path -------------------------------------------------------------------------------


def test_planar_polyline_drops_heights_and_keeps_widths():
    path = Polyline([[0.0, 0.0, 5.0], [3.0, 4.0, 9.0], [3.0, 8.0, 0.0]], [2.0, 3.0])
    planar = planar_polyline(path)
    assert planar.dim == 2
    np.testing.assert_array_equal(planar.points, [[0.0, 0.0], [3.0, 4.0], [3.0, 8.0]])
    np.testing.assert_array_equal(planar.widths, [2.0, 3.0])
    assert planar.length == 9.0  # measured in the plane
    np.testing.assert_array_equal(planar_polyline(path, 1.0).widths, [1.0, 1.0])
    flat = Polyline([[0.0, 0.0], [1.0, 0.0]], 2.0)
    assert planar_polyline(flat) is flat
    from_points = planar_polyline([[0.0, 0.0, 1.0], [0.0, 2.0, 1.0]], 4.0)
    assert from_points.dim == 2 and from_points.widths.tolist() == [4.0]


def test_planar_polyline_errors_name_the_path():
    with pytest.raises(ValueError, match=r"^paths\[3\]: points must contain at least 2 distinct"):
        planar_polyline([[1.0, 1.0, 0.0], [1.0, 1.0, 5.0]], name="paths[3]")  # vertical
    with pytest.raises(ValueError, match=r"^path: widths"):
        planar_polyline([[0.0, 0.0], [1.0, 0.0]], [1.0, 2.0])
    with pytest.raises(ValueError, match=r"^path: points"):
        planar_polyline("nope")


# -- many points at once ---------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_project_batch_is_project_point_by_point(data):
    array = data.draw(paths())
    points = data.draw(st.lists(query_point(array.shape[1]), min_size=0, max_size=12))
    polyline = Polyline(array)
    queries = np.array(points).reshape(len(points), array.shape[1])
    batch = polyline.project_batch(queries)
    assert batch.s.shape == (len(points),) and batch.point.shape == queries.shape
    assert batch.segment.dtype == np.int64
    for k, point in enumerate(points):
        s, closest, segment, cross_track = polyline.project(point)
        assert (batch.s[k], batch.segment[k], batch.cross_track[k]) == (s, segment, cross_track)
        assert np.array_equal(batch.point[k], closest)


def test_project_batch_refuses_bad_points():
    polyline = Polyline([(0.0, 0.0), (10.0, 0.0)])
    with pytest.raises(ValueError, match=r"p must have shape \(m, 2\)"):
        polyline.project_batch([1.0, 2.0])
    with pytest.raises(ValueError, match=r"p\[1\] must be finite"):
        polyline.project_batch([(1.0, 2.0), (math.nan, 0.0)])
    with pytest.raises(ValueError, match="p must be an"):
        polyline.project_batch("points")
