"""Maximum curvature of a quadratic Bezier curve (seed 001, Eq. 2-4) against the curve itself."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from steerlab.geometry import bezier_max_curvature, kernels

SAMPLES = 4001
GOLDEN = (math.sqrt(5.0) - 1.0) / 2.0

coordinate = st.floats(-100.0, 100.0, allow_nan=False, allow_infinity=False)


def points(dimension):
    point = st.tuples(*[coordinate] * dimension).map(np.array)
    return st.tuples(point, point, point)


# -- the curve, sampled (independent of the module: Eq. 2 and kappa = |B' x B''| / |B'|^3) -------


def derivatives(p1, p2, p3, t):
    """B'(t) for an array of t, shape (len(t), dim), and the constant B''."""
    t = np.asarray(t, dtype=float)[:, None]
    first = -2.0 * (1.0 - t) * p1 + 2.0 * (1.0 - 2.0 * t) * p2 + 2.0 * t * p3
    second = 2.0 * p1 - 4.0 * p2 + 2.0 * p3
    return first, second


def sampled_curvature(p1, p2, p3, t):
    first, second = derivatives(p1, p2, p3, t)
    if p1.size == 2:
        cross = np.abs(first[:, 0] * second[1] - first[:, 1] * second[0])
    else:
        cross = np.linalg.norm(np.cross(first, second), axis=1)
    return cross / np.linalg.norm(first, axis=1) ** 3


def sampled_maximum(p1, p2, p3):
    """(t, kappa) of the largest curvature: dense samples, then golden-section refinement."""
    t = np.linspace(0.0, 1.0, SAMPLES)
    values = sampled_curvature(p1, p2, p3, t)
    best = int(np.argmax(values))
    low = t[max(best - 1, 0)]
    high = t[min(best + 1, SAMPLES - 1)]

    def curvature(x):
        return float(sampled_curvature(p1, p2, p3, [x])[0])

    for _ in range(60):
        left = high - GOLDEN * (high - low)
        right = low + GOLDEN * (high - low)
        if curvature(left) >= curvature(right):
            high = right
        else:
            low = left
    middle = 0.5 * (low + high)
    candidates = [(curvature(middle), middle), (values[best], t[best])]
    kappa, where = max(candidates)
    return where, kappa


def legs(p1, p2, p3):
    return p2 - p1, p3 - p2


def min_speed(p1, p2, p3):
    first, _ = derivatives(p1, p2, p3, np.linspace(0.0, 1.0, SAMPLES))
    return float(np.linalg.norm(first, axis=1).min())


def scale_of(p1, p2, p3):
    return max(np.linalg.norm(leg) for leg in legs(p1, p2, p3))


def assume_regular(p1, p2, p3):
    """Keep inputs where sampling is reliable: no near-cusp, not vanishingly small."""
    scale = scale_of(p1, p2, p3)
    assume(scale > 1e-3)
    assume(min_speed(p1, p2, p3) > 1e-3 * scale)
    return scale


# -- properties ------------------------------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(st.one_of(points(2), points(3)))
def test_formula_equals_sampled_maximum(control):
    p1, p2, p3 = control
    scale = assume_regular(p1, p2, p3)
    _, expected = sampled_maximum(p1, p2, p3)
    assert math.isclose(
        bezier_max_curvature(p1, p2, p3), expected, rel_tol=1e-6, abs_tol=1e-9 / scale
    )


def inside_sphere_margin(p1, p2, p3):
    """Seed 001's test written with distances: (|p2 - c| - r) / r for the nearer sphere."""
    middle = 0.5 * (p1 + p3)
    radius = 0.5 * np.linalg.norm(p1 - middle)
    distances = [
        np.linalg.norm(p2 - 0.5 * (p1 + middle)),
        np.linalg.norm(p2 - 0.5 * (p3 + middle)),
    ]
    return (min(distances) - radius) / radius


@settings(max_examples=100, deadline=None)
@given(st.one_of(points(2), points(3)))
def test_two_sphere_rule_locates_the_maximum(control):
    """p2 inside a sphere: the maximum is at an end; outside both: it is interior (seed 001)."""
    p1, p2, p3 = control
    assume_regular(p1, p2, p3)
    scale = scale_of(p1, p2, p3)
    first, second = legs(p1, p2, p3)
    twice_area = np.linalg.norm(np.cross(np.append(first, 0.0)[:3], np.append(second, 0.0)[:3]))
    assume(twice_area > 1e-3 * scale * scale)  # a bend worth locating
    margin = inside_sphere_margin(p1, p2, p3)
    assume(abs(margin) > 0.05)
    where, kappa = sampled_maximum(p1, p2, p3)
    at_ends = sampled_curvature(p1, p2, p3, [0.0, 1.0]).max()
    if margin < 0.0:
        assert kappa <= at_ends * (1.0 + 1e-12)
    else:
        assert 0.0 < where < 1.0
        assert kappa > at_ends * (1.0 + 1e-9)


@settings(max_examples=60, deadline=None)
@given(st.floats(1e-3, 1e3), st.floats(-1e3, 1e3).filter(lambda h: abs(h) > 1e-3))
def test_symmetric_parabola_vertex(half_span, height):
    """p1 = (-a, 0), p2 = (0, h), p3 = (a, 0): the maximum is at the vertex, t = 1/2."""
    p1, p2, p3 = np.array([-half_span, 0.0]), np.array([0.0, height]), np.array([half_span, 0.0])
    # by hand: B'(1/2) = p3 - p1 = (2a, 0), B'' = 2 (p1 - 2 p2 + p3) = (0, -4h)
    velocity = p3 - p1
    acceleration = 2.0 * (p1 - 2.0 * p2 + p3)
    vertex = abs(velocity[0] * acceleration[1] - velocity[1] * acceleration[0])
    vertex /= np.linalg.norm(velocity) ** 3
    assert math.isclose(bezier_max_curvature(p1, p2, p3), vertex, rel_tol=1e-12)


def rotation_3d(angles):
    yaw, pitch, roll = angles
    cz, sz = math.cos(yaw), math.sin(yaw)
    cy, sy = math.cos(pitch), math.sin(pitch)
    cx, sx = math.cos(roll), math.sin(roll)
    rz = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]])
    ry = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    rx = np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]])
    return rz @ ry @ rx


angle = st.floats(-math.pi, math.pi)


@settings(max_examples=100, deadline=None)
@given(
    points(3),
    st.tuples(angle, angle, angle),
    st.tuples(coordinate, coordinate, coordinate).map(np.array),
    st.floats(1e-2, 1e2),
)
def test_rigid_motion_and_scaling(control, angles, shift, factor):
    p1, p2, p3 = control
    scale = assume_regular(p1, p2, p3)
    reference = bezier_max_curvature(p1, p2, p3)
    rotation = rotation_3d(angles)
    moved = [rotation @ p + shift for p in control]
    assert math.isclose(bezier_max_curvature(*moved), reference, rel_tol=1e-6, abs_tol=1e-9 / scale)
    scaled = [factor * p for p in control]
    assert math.isclose(
        bezier_max_curvature(*scaled), reference / factor, rel_tol=1e-9, abs_tol=1e-9 / scale
    )


@settings(max_examples=100, deadline=None)
@given(st.one_of(points(2), points(3)))
def test_never_nan_and_nonnegative(control):
    value = bezier_max_curvature(*control)
    assert not math.isnan(value)
    assert value >= 0.0


def test_subnormal_control_points_are_not_nan():
    """Legs of subnormal length (found by hypothesis: ``1 / scale`` overflowed): a straight curve
    is 0, a bent one's curvature is beyond the double range (inf), and a bent one just inside the
    range keeps the 1 / s scaling law."""
    tiny = 2.225073858507e-311
    assert bezier_max_curvature([0.0, 0.0], [0.0, 0.0], [0.0, tiny]) == 0.0
    assert bezier_max_curvature([0.0, 0.0], [tiny, 0.0], [tiny, tiny]) == math.inf
    reference = bezier_max_curvature([0.0, 0.0], [1.0, 0.0], [1.0, 1.0])
    scale = 2.0**-1060  # subnormal; the curvature 2^1060 r overflows
    assert bezier_max_curvature([0.0, 0.0], [scale, 0.0], [scale, scale]) == math.inf
    scale = 2.0**-1000  # normal, below the rescaling bound: 2^1000 r is representable
    value = bezier_max_curvature([0.0, 0.0], [scale, 0.0], [scale, scale])
    assert math.isclose(value, reference / scale, rel_tol=1e-12)


@pytest.mark.parametrize("short", [1e-100, 1e-31, 1e-29, 1e-12])
def test_a_leg_far_shorter_than_the_other_gives_eq4(short):
    """Eq. 4, ``A / shorter^3``, with one leg many orders of magnitude shorter than the other
    (the curvature at that end is huge but representable): a leg of 1 along x and a leg
    ``(short, short)`` bent by 45 degrees, ``p2`` inside a sphere (so Eq. 4), ``A = short / 2``,
    ``shorter = short sqrt(2)``. The shorter leg's fourth power underflows below ~1e-77: the
    kernel must not form it."""
    expected = 1.0 / (4.0 * math.sqrt(2.0) * short * short)
    value = bezier_max_curvature((-1.0, 0.0), (0.0, 0.0), (short, short))
    assert math.isclose(value, expected, rel_tol=1e-12)
    value = bezier_max_curvature((-short, -short), (0.0, 0.0), (1.0, 0.0))  # the first leg
    assert math.isclose(value, expected, rel_tol=1e-12)


def test_two_dimensional_equals_three_dimensional_with_zero_z():
    p1, p2, p3 = (0.0, 0.0), (2.0, 1.0), (3.0, -1.0)
    flat = bezier_max_curvature(p1, p2, p3)
    padded = bezier_max_curvature(*[(*p, 0.0) for p in (p1, p2, p3)])
    assert flat == padded


def test_batch_equals_scalar():
    generator = np.random.default_rng(1)
    first, middle, last = (generator.uniform(-10.0, 10.0, (500, 3)) for _ in range(3))
    middle[:10] = first[:10]  # degenerate rows too
    last[10:20] = first[10:20]
    out = np.empty(500)
    kernels.bezier_max_curvature_batch(first, middle, last, out)
    expected = [kernels.bezier_max_curvature(*first[i], *middle[i], *last[i]) for i in range(500)]
    np.testing.assert_array_equal(out, expected)


# -- degenerate control points: the documented values ------------------------------------------


@pytest.mark.parametrize(
    ("control", "expected"),
    [
        (((0.0, 0.0), (1.0, 0.0), (3.0, 0.0)), 0.0),  # straight, p2 between
        (((1.0, 2.0, 3.0), (2.0, 4.0, 6.0), (3.0, 6.0, 9.0)), 0.0),  # straight in 3-D
        (((0.0, 0.0), (0.0, 0.0), (3.0, 4.0)), 0.0),  # p2 == p1
        (((0.0, 0.0), (3.0, 4.0), (3.0, 4.0)), 0.0),  # p2 == p3
        (((5.0, 5.0), (5.0, 5.0), (5.0, 5.0)), 0.0),  # all coincident
        (((0.0, 0.0), (4.0, 0.0), (2.0, 0.0)), math.inf),  # p2 beyond p3: reverses
        (((0.0, 0.0), (-1.0, 0.0), (2.0, 0.0)), math.inf),  # p2 before p1: reverses
        (((0.0, 0.0, 0.0), (1.0, 1.0, 1.0), (0.0, 0.0, 0.0)), math.inf),  # p1 == p3 != p2
        (((1.0, 1.0), (3.0, -2.0), (1.0, 1.0)), math.inf),  # p1 == p3 != p2
    ],
)
def test_degenerate_values(control, expected):
    assert bezier_max_curvature(*control) == expected


def test_degenerate_cases_are_limits_of_regular_ones():
    """Nearly straight -> near 0; nearly reversing -> very large; never NaN."""
    for epsilon in (1e-3, 1e-8, 1e-14, 1e-200, 1e-320):
        straight = bezier_max_curvature((0.0, 0.0), (1.0, epsilon), (2.0, 0.0))
        reversing = bezier_max_curvature((0.0, 0.0), (4.0, epsilon), (2.0, 0.0))
        cusp = bezier_max_curvature((0.0, 0.0), (1.0, 1.0), (epsilon, 0.0))
        assert straight <= 4.0 * epsilon
        assert reversing >= 1.0 / (16.0 * epsilon) or reversing == math.inf
        assert cusp >= 1.0 / (4.0 * epsilon) or cusp == math.inf
    # extreme scales: the symmetric parabola with a = h has curvature 1 / a at its vertex
    for size in (1e-300, 1e300):
        value = bezier_max_curvature((0.0, 0.0), (size, size), (2.0 * size, 0.0))
        assert math.isclose(value, 1.0 / size, rel_tol=1e-12)


# -- bad input -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("control", "name"),
    [
        (((math.nan, 0.0), (1.0, 1.0), (2.0, 0.0)), "p1"),
        (((0.0, 0.0), (1.0, math.inf), (2.0, 0.0)), "p2"),
        (((0.0, 0.0), (1.0, 1.0), (2.0,)), "p3"),
        (((0.0, 0.0, 0.0, 0.0), (1.0, 1.0), (2.0, 0.0)), "p1"),
        (((0.0, 0.0), (1.0, 1.0, 0.0), (2.0, 0.0)), "p2"),
        (((0.0, 0.0), (1.0, 1.0), (2.0, 0.0, 1.0)), "p3"),
        (((0.0, 0.0), "a point", (2.0, 0.0)), "p2"),
        (((-1e308, 0.0), (1e308, 1.0), (2.0, 0.0)), "p1"),
    ],
)
def test_bad_input_raises(control, name):
    with pytest.raises(ValueError, match=name):
        bezier_max_curvature(*control)
