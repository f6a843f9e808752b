"""Target speed (seed 001, Algorithm 1): straight, circles, off the path, path end, bad input."""

import math

import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

import steerlab._jit
from steerlab.follower import GRAVITY, FollowerParams, target_speed
from steerlab.follower.paths import _PackedPaths
from steerlab.follower.target_speed import Algorithm1Params, _target_speed_batch, sampled_path
from steerlab.geometry import Polyline

DEFAULTS = FollowerParams()


def circle(radius, count=4000, turns=1.0, center=(0.0, 0.0)):
    """A polyline circle, counter-clockwise from angle 0."""
    angles = np.linspace(0.0, 2.0 * math.pi * turns, count + 1)
    return np.column_stack(
        (center[0] + radius * np.cos(angles), center[1] + radius * np.sin(angles))
    )


# --------------------------------------------------------------------------------------------------
# an independent Algorithm 1: brute-force sampling of P~, dense sampling of each Bezier curvature


def dense_bezier_max_curvature(p1, p2, p3, samples=20001):
    """max over t of |B' x B''| / |B'|^3, sampled (seed 001's 'sampling strategy')."""
    p1, p2, p3 = (np.asarray(p, dtype=float) for p in (p1, p2, p3))
    t = np.linspace(0.0, 1.0, samples)[:, None]
    first = 2.0 * ((1.0 - t) * (p2 - p1) + t * (p3 - p2))
    second = 2.0 * (p3 - 2.0 * p2 + p1)
    cross = first[:, 0] * second[1] - first[:, 1] * second[0]
    speed = np.hypot(first[:, 0], first[:, 1])
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = np.abs(cross) / speed**3
    kappa = kappa[np.isfinite(kappa)]
    return float(kappa.max()) if kappa.size else 0.0


def independent_target_speed(position, points, a_lat, dh, n, v_min, v_max, step=0.002):
    """Algorithm 1 with P~ found by brute force on a dense resampling of the path (every
    ``step`` metres of arc length) and the curvature of each curve sampled densely."""
    points = np.asarray(points, dtype=float)
    lengths = np.hypot(*np.diff(points, axis=0).T)
    cum = np.concatenate(([0.0], np.cumsum(lengths)))
    arc = np.linspace(0.0, cum[-1], int(cum[-1] / step) + 2)
    dense = np.column_stack([np.interp(arc, cum, points[:, j]) for j in range(2)])
    r = np.asarray(position, dtype=float)
    s_index = int(np.argmin(np.hypot(*(dense - r).T)))  # the projection of r
    tilde = [r]
    for _ in range(n - 1):
        if len(tilde) > 1 and s_index == arc.size - 1:
            break
        far = np.hypot(*(dense[s_index:] - tilde[-1]).T) >= dh
        s_index = s_index + int(np.argmax(far)) if far.any() else arc.size - 1
        tilde.append(dense[s_index])
    kappa = max(
        (dense_bezier_max_curvature(*tilde[i : i + 3]) for i in range(len(tilde) - 2)),
        default=0.0,
    )
    speed = math.sqrt(a_lat * 9.81 / kappa) if kappa > 0 else math.inf
    return min(max(speed, v_min), v_max)


# --------------------------------------------------------------------------------------------------
# the paper's promises


@given(
    st.floats(-math.pi, math.pi),
    st.floats(10.0, 500.0),
    st.floats(0.0, 1.0),
    st.floats(-1e3, 1e3),
    st.floats(-1e3, 1e3),
)
@example(yaw=1.0, length=18.0, fraction=0.0, x0=0.0, y0=0.0)  # 3 dh ends a few ulps short
def test_straight_path_gives_v_max(yaw, length, fraction, x0, y0):
    direction = np.array((math.cos(yaw), math.sin(yaw)))
    start = np.array((x0, y0))
    points = [start, start + length * direction]
    position = start + fraction * length * direction
    assert target_speed(position, points) == DEFAULTS.v_max
    # 3-D too, and a straight path made of many collinear segments
    points3 = [(*start, 5.0), (*(start + 0.3 * length * direction), 5.0)]
    points3.append((*(start + length * direction), 5.0))
    assert target_speed((*position, 5.0), points3) == DEFAULTS.v_max


def test_circles_speed_falls_with_the_radius_and_equals_eq1_of_the_sampled_beziers():
    radii = (3.5, 4.0, 5.0, 6.0, 8.0, 10.0, 15.0, 25.0, 50.0)
    speeds = []
    for radius in radii:
        points = circle(radius)
        position = points[100]
        ours = target_speed(position, points, v_max=math.inf)
        independent = independent_target_speed(position, points, 0.4, 6.0, 5, 1.0, math.inf)
        assert ours == pytest.approx(independent, rel=2e-3), radius
        speeds.append(ours)
        # with the paper's clamp as well
        clamped = target_speed(position, points)
        assert clamped == min(max(ours, DEFAULTS.v_min), DEFAULTS.v_max)
    assert all(np.diff(speeds) > 0.0)  # larger radius, faster
    assert target_speed(circle(8.0)[0], circle(8.0)) < DEFAULTS.v_max  # the clamp not reached


@given(st.floats(4.0, 200.0), st.floats(0.0, 1.0), st.floats(1.0, 12.0))
def test_circle_against_the_independent_computation(radius, start, dh):
    points = circle(radius, count=2000, turns=0.95)  # open: every projection is unique
    dh = min(dh, 1.9 * radius)
    length = 0.95 * 2.0 * math.pi * radius
    assume(4.5 * dh < length)  # P~ within the path: the end's short last leg is resolution-bound
    index = int(start * 2000 * (1.0 - 4.5 * dh / length))
    ours = target_speed(points[index], points, dh=dh, v_max=math.inf)
    independent = independent_target_speed(points[index], points, 0.4, dh, 5, 1.0, math.inf)
    assert ours == pytest.approx(independent, rel=5e-3)


def test_a_vehicle_far_off_the_path_is_slowed():
    """Seed 001: 'Since the first Bezier curve is always defined by the vehicle position and two
    points on the path P, we ensure the target speed is decreased whenever the vehicle is too far
    away from the path.'"""
    points = [(0.0, 0.0), (200.0, 0.0)]
    offsets = (0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 8.5, 10.0, 20.0, 50.0, 200.0, 1000.0)
    speeds = dict(zip(offsets, (target_speed((100.0, d), points) for d in offsets), strict=True))
    for offset, speed in speeds.items():
        independent = independent_target_speed((100.0, offset), points, 0.4, 6.0, 5, 1.0, 10.0)
        assert speed == pytest.approx(independent, rel=2e-3), offset
    assert speeds[0.0] == speeds[2.0] == DEFAULTS.v_max  # a couple of metres off: not slowed
    near = [speeds[d] for d in (2.0, 3.0, 4.0, 5.0, 6.0)]
    assert all(np.diff(near) < 0.0)  # slower and slower up to dh
    # from dh on, the first curve is (r, projection, projection + dh ahead): a right angle with
    # legs d and dh, whose Eq. 3 curvature (d^2 + dh^2)^1.5 / (2 d^2 dh^2) is smallest at
    # d = dh sqrt(2), where it is 3 sqrt(3) / (4 dh); so the speed is at most Eq. 1 of that ...
    bound = math.sqrt(0.4 * 9.81 / (3.0 * math.sqrt(3.0) / (4.0 * 6.0)))
    assert bound < 0.43 * DEFAULTS.v_max
    assert all(speed <= bound + 1e-12 for d, speed in speeds.items() if d >= 6.0)
    # ... and falls monotonically beyond dh sqrt(2), down to v_min
    far = [speeds[d] for d in (8.5, 10.0, 20.0, 50.0, 200.0)]
    assert all(np.diff(far) < 0.0)
    assert speeds[1000.0] == DEFAULTS.v_min


@given(st.floats(6.0, 100.0), st.floats(-math.pi, math.pi))
def test_far_off_any_path_the_first_curve_turns_to_the_path(distance, side):
    """At dh or more from the path, p_2 is the projection of r (line 3 as read)."""
    points = circle(30.0, count=500)
    projection = points[37]
    normal = projection / np.linalg.norm(projection)
    position = projection + distance * normal  # outside the circle, projecting on points[37]
    sampled = sampled_path(position, points)
    assert np.allclose(sampled[1], projection, atol=1e-9)
    assert target_speed(position, points) < target_speed(projection, points)


def test_path_end_gives_fewer_curves_not_a_curvature():
    # a straight path shorter than the horizon: straight, v_max; P~ stops at the end
    points = [(0.0, 0.0), (10.0, 0.0)]
    sampled = sampled_path((1.0, 0.0), points)
    assert sampled.shape[0] == 3
    assert np.array_equal(sampled[-1], (10.0, 0.0))
    assert target_speed((1.0, 0.0), points) == DEFAULTS.v_max
    # on the end itself: P~ = (r, end), no curve
    assert sampled_path((10.0, 0.0), points).shape[0] == 2
    assert target_speed((10.0, 0.0), points) == DEFAULTS.v_max
    # a turn before the end still counts
    bent = [(0.0, 0.0), (10.0, 0.0), (10.0, 3.0)]
    assert target_speed((0.0, 0.0), bent) < DEFAULTS.v_max


def test_hairpin_gives_v_min_and_nothing_crashes():
    hairpin = [(0.0, 0.0), (50.0, 0.0), (0.0, 0.0)]
    assert target_speed((40.0, 0.0), hairpin) == DEFAULTS.v_min  # the curve reverses: inf
    narrow = [(0.0, 0.0), (50.0, 0.0), (50.0, 1.0), (0.0, 1.0)]
    assert DEFAULTS.v_min <= target_speed((44.0, 0.0), narrow) < 3.0


def test_zero_length_segments_and_coincident_points():
    points = [(0.0, 0.0), (5.0, 0.0), (5.0, 0.0), (5.0, 0.0), (10.0, 5.0), (10.0, 5.0)]
    for x in np.linspace(-3.0, 12.0, 31):
        speed = target_speed((x, 0.5), points)
        assert DEFAULTS.v_min <= speed <= DEFAULTS.v_max
    assert target_speed((10.0, 5.0), points) == DEFAULTS.v_max  # at the end


@pytest.mark.parametrize("parallel", [False, True], ids=["serial", "parallel"])
def test_batch_kernel_equals_the_scalar_function(parallel, monkeypatch):
    if parallel:
        monkeypatch.setattr(steerlab._jit, "SERIAL_LIMIT", 0)  # the prange build, even for few
    rng = np.random.default_rng(11)
    paths = [np.cumsum(rng.uniform(-20, 20, (rng.integers(2, 12), 3)), axis=0) for _ in range(200)]
    polylines = [Polyline(points) for points in paths]
    first = np.zeros(200, dtype=np.int64)
    count = np.array([p.points_3d.shape[0] for p in polylines], dtype=np.int64)
    first[1:] = np.cumsum(count[:-1])
    packed = _PackedPaths(
        np.concatenate([p.points_3d for p in polylines]),
        np.concatenate([p.cumulative_length for p in polylines]),
        first,
        count,
    )
    positions = np.array([p.points_3d[0] for p in polylines]) + rng.normal(0, 5, (200, 3))
    speed = np.empty(200)
    kappa = np.empty(200)
    xyz = tuple(np.ascontiguousarray(positions[:, j]) for j in range(3))
    unknown = np.full(200, np.nan)  # the projection of r not known: on the whole path
    projection = (unknown, unknown, unknown, unknown, np.zeros(200, dtype=np.int64))
    settings = Algorithm1Params(0.4, 6.0, 5, 1.0, 10.0)
    _target_speed_batch(xyz, projection, packed, settings, (speed, kappa))
    expected = [target_speed(positions[i], paths[i]) for i in range(200)]
    assert speed.tolist() == expected
    # with the projection given, the same bits
    known = [p.project(positions[i]) for i, p in enumerate(polylines)]
    s = np.array([k.s for k in known])
    segment = np.array([k.segment for k in known], dtype=np.int64)
    start = np.array([k.point for k in known])
    starts = (start[:, 0].copy(), start[:, 1].copy(), start[:, 2].copy())
    again = np.empty(200)
    _target_speed_batch(xyz, (s, *starts, segment), packed, settings, (again, kappa))
    assert again.tolist() == expected


@st.composite
def level_paths(draw):
    """Polylines like a level's: 2-9 waypoints, legs of 0 (repeated points) to 30 m, any turn."""
    count = draw(st.integers(2, 9))
    lengths = draw(
        st.lists(
            st.sampled_from((0.0, 0.3, 2.0, 5.9, 6.0, 6.1, 13.0, 30.0)) | st.floats(0.0, 30.0),
            min_size=count - 1,
            max_size=count - 1,
        )
    )
    headings = draw(st.lists(st.floats(-math.pi, math.pi), min_size=count - 1, max_size=count - 1))
    legs = np.column_stack((np.cos(headings), np.sin(headings))) * np.array(lengths)[:, None]
    points = np.vstack(([0.0, 0.0], np.cumsum(legs, axis=0)))
    assume(np.hypot(*np.diff(points, axis=0).T).sum() > 0.1)
    return points


@settings(max_examples=150, deadline=None)
@given(level_paths(), st.floats(-5.0, 5.0), st.floats(-5.0, 5.0), st.sampled_from((2.0, 6.0)))
def test_sampled_points_follow_the_definition_of_line_3(points, dx, dy, dh):
    """Each point of ``P~`` after ``r`` is the first point of the path, from the previous one's
    arc length on, at least dh from the previous one (``Polyline.next_point``, the reading of line
    3), on paths mixing long legs (the kernel's step of dh along the segment), short ones and
    repeated points (its walk resumed at the segment's end) and the path end (sampling stops)."""
    polyline = Polyline(points)
    position = points[0] + (dx, dy)
    tilde = sampled_path(position, polyline, dh=dh, n=6)
    tolerance = 1e-9 * (1.0 + polyline.length)
    np.testing.assert_array_equal(tilde[0], position)
    s = polyline.project(position).s
    for i in range(1, len(tilde)):
        s, point = polyline.next_point(tilde[i - 1], dh, s_from=s)
        np.testing.assert_allclose(tilde[i], point, rtol=0.0, atol=tolerance)
    # fewer than n points only at the path end
    assert len(tilde) == 6 or s >= polyline.length - 1e-9 * dh - tolerance


def test_eq1_constant():
    # a curvature of exactly 1/R seen by Algorithm 1 gives sqrt(a_lat g R)
    assert GRAVITY == 9.81
    points = [(0.0, 0.0), (6.0, 0.0), (6.0, 6.0)]
    kappa = dense_bezier_max_curvature((0.0, 0.0), (6.0, 0.0), (6.0, 6.0))
    expected = min(max(math.sqrt(0.4 * 9.81 / kappa), 1.0), 10.0)
    assert target_speed((0.0, 0.0), points) == pytest.approx(expected, rel=1e-6)


# --------------------------------------------------------------------------------------------------
# bad input


@pytest.mark.parametrize(
    ("points", "match"),
    [
        ([(0.0, 0.0)], "at least 2 points"),
        ([(1.0, 1.0), (1.0, 1.0), (1.0, 1.0)], "at least 2 distinct"),
        ([(0.0, 0.0), (math.nan, 1.0)], r"points\[1\] must be finite"),
        ([(0.0, 0.0), (1.0, math.inf)], r"points\[1\] must be finite"),
        ([], "points must"),
    ],
)
def test_bad_paths_are_clear_errors(points, match):
    with pytest.raises(ValueError, match=match):
        target_speed((0.0, 0.0), points)


@pytest.mark.parametrize(
    ("arguments", "match"),
    [
        ({"position": (math.nan, 0.0)}, r"position\[0\] must be finite"),
        ({"position": (0.0, 0.0, 0.0)}, "position must be a 2-D point"),
        ({"a_lat": 0.0}, "a_lat"),
        ({"dh": -1.0}, "dh"),
        ({"n": 1}, "n must be an integer from 2 to 1000"),
        ({"n": 2.5}, "n must be an integer"),
        ({"v_min": 5.0, "v_max": 2.0}, "v_max must be >= v_min"),
        ({"v_min": -1.0}, "v_min"),
    ],
)
def test_bad_settings_are_clear_errors(arguments, match):
    settings = {"position": (0.0, 0.0), "path_points": [(0.0, 0.0), (10.0, 0.0)]} | arguments
    with pytest.raises(ValueError, match=match):
        target_speed(**settings)


def test_n_two_has_no_curve():
    assert target_speed((0.0, 0.0), [(0.0, 0.0), (6.0, 0.0), (6.0, 6.0)], n=2) == 10.0
