"""The closest point of a 2-D segment: the kernel, and over NumPy arrays."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from steerlab.geometry import closest_on_segments, kernels

coordinate = st.floats(-100.0, 100.0, allow_nan=False, allow_infinity=False)
point = st.tuples(coordinate, coordinate)


@settings(max_examples=300, deadline=None)
@given(point, point, point)
def test_closest_point_is_on_the_segment_and_nearest(a, b, p):
    """The point lies on the segment, no sampled point of the segment is nearer, and the
    distance is the distance to it."""
    cx, cy, distance = kernels.closest_on_segment(*a, *b, *p)
    a, b, p = np.array(a), np.array(b), np.array(p)
    scale = 1.0 + np.abs(np.concatenate((a, b, p))).max()
    segment = b - a
    offset = np.array((cx, cy)) - a
    assert abs(segment[0] * offset[1] - segment[1] * offset[0]) <= 1e-9 * scale**2  # on the line
    assert min(a[0], b[0]) - 1e-9 * scale <= cx <= max(a[0], b[0]) + 1e-9 * scale
    assert min(a[1], b[1]) - 1e-9 * scale <= cy <= max(a[1], b[1]) + 1e-9 * scale
    assert distance == pytest.approx(math.dist((cx, cy), p), rel=1e-12, abs=1e-12)
    samples = a + np.linspace(0.0, 1.0, 1001)[:, None] * segment
    assert distance <= np.linalg.norm(samples - p, axis=1).min() + 1e-9 * scale


def test_closest_point_cases():
    assert kernels.closest_on_segment(0.0, 0.0, 4.0, 0.0, 1.0, 3.0) == (1.0, 0.0, 3.0)  # inside
    assert kernels.closest_on_segment(0.0, 0.0, 4.0, 0.0, -3.0, 4.0) == (0.0, 0.0, 5.0)  # before
    assert kernels.closest_on_segment(0.0, 0.0, 4.0, 0.0, 7.0, 4.0) == (4.0, 0.0, 5.0)  # after
    assert kernels.closest_on_segment(1.0, 1.0, 1.0, 1.0, 4.0, 5.0) == (1.0, 1.0, 5.0)  # a point


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(point, point, point), min_size=1, max_size=12))
def test_arrays_equal_the_kernel_bit_for_bit(triples):
    a, b, p = (np.array(column) for column in zip(*triples, strict=True))
    cx, cy, distance = closest_on_segments(a[:, 0], a[:, 1], b[:, 0], b[:, 1], p[:, 0], p[:, 1])
    expected = np.array([kernels.closest_on_segment(*t[0], *t[1], *t[2]) for t in triples])
    np.testing.assert_array_equal(np.column_stack((cx, cy, distance)), expected)


def test_arrays_broadcast():
    """Every point against every segment: shapes broadcast as NumPy's."""
    segments = np.array([[0.0, 0.0, 4.0, 0.0], [0.0, 1.0, 0.0, 5.0]])
    points = np.array([[1.0, 3.0], [-3.0, 4.0], [7.0, 4.0]])
    ax, ay, bx, by = (segments[None, :, i] for i in range(4))
    _, _, distance = closest_on_segments(ax, ay, bx, by, points[:, 0:1], points[:, 1:2])
    assert distance.shape == (3, 2)
    for i, p in enumerate(points):
        for j, s in enumerate(segments):
            assert distance[i, j] == kernels.closest_on_segment(*s, *p)[2]
    assert closest_on_segments(0.0, 0.0, 4.0, 0.0, 1.0, 3.0)[2].shape == ()


@pytest.mark.parametrize(
    ("arguments", "word"),
    [
        ((0.0, math.nan, 1.0, 1.0, 0.0, 0.0), "ay"),
        ((0.0, 0.0, 1.0, 1.0, [0.0, math.inf], 0.0), r"px\[1\]"),
        ((0.0, 0.0, 1.0, 1.0, "x", 0.0), "px"),
        ((np.zeros(2), 0.0, 1.0, 1.0, np.zeros(3), 0.0), "broadcast"),
    ],
)
def test_arrays_bad_input_names_the_argument(arguments, word):
    with pytest.raises(ValueError, match=word):
        closest_on_segments(*arguments)
