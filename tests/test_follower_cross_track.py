"""The follower's cross-track error (``FollowerBatchOutput.cross_track``, ``FollowerInfo``): the
signed distance from its projection, left of the path positive.

Checked by routes independent of the projection kernels: the distance to densely sampled points
of the path (unsigned), the sign by the cross product of the nearest sample's segment direction
with the offset, and on a hairpin, the distance to the leg being driven in closed form.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from steerlab.follower import PathFollower
from steerlab.geometry import Polyline
from steerlab.vehicles import VehicleBatch, VehicleState

DT = 0.05
SPACING = 1e-3  # [m] between the dense samples of a path


class Vehicle:
    kind = 0
    wheelbase = 2.8
    max_steer = 0.6


def dense_signed_distance(points, position):
    """Distance from ``position`` to the nearest of samples ``SPACING`` apart along the path,
    signed by the cross product of that sample's segment direction with the offset."""
    samples, directions = [], []
    for a, b in itertools.pairwise(points):
        length = float(np.hypot(*(b - a)))
        count = max(2, math.ceil(length / SPACING) + 1)
        fractions = np.linspace(0.0, 1.0, count)[:, None]
        samples.append(a + fractions * (b - a))
        directions.append(np.broadcast_to((b - a) / length, (count, 2)))
    samples = np.concatenate(samples)
    directions = np.concatenate(directions)
    offsets = position - samples
    distances = np.hypot(offsets[:, 0], offsets[:, 1])
    nearest = int(np.argmin(distances))
    direction, offset = directions[nearest], offsets[nearest]
    left = direction[0] * offset[1] - direction[1] * offset[0]
    return math.copysign(float(distances[nearest]), left)


@st.composite
def drives(draw):
    """A path of legs >= 12 m turning by at most 45 degrees, and positions along it at
    increasing arc length (0.6 m apart) with lateral offsets of at most 2 m."""
    legs = draw(st.lists(st.floats(12.0, 40.0), min_size=1, max_size=4))
    turns = draw(st.lists(st.floats(-math.pi / 4, math.pi / 4), min_size=3, max_size=3))
    heading = draw(st.floats(-math.pi, math.pi))
    points = [np.zeros(2)]
    for k, leg in enumerate(legs):
        heading += turns[k - 1] if k else 0.0
        points.append(points[-1] + leg * np.array((math.cos(heading), math.sin(heading))))
    path = Polyline(np.array(points))
    count = int(path.length / 0.6)
    offsets = draw(st.lists(st.floats(-2.0, 2.0), min_size=count, max_size=count).map(np.array))
    return path, offsets


def positions_along(path, offsets):
    positions = []
    for k, offset in enumerate(offsets):
        s = 0.6 * k
        yaw = path.heading_at(s)
        normal = np.array((-math.sin(yaw), math.cos(yaw)))
        positions.append(path.point_at(s) + offset * normal)
    return np.array(positions)


@settings(max_examples=15, deadline=None)
@given(drives())
def test_cross_track_is_the_signed_distance_to_the_path(drive):
    path, offsets = drive
    positions = positions_along(path, offsets)
    follower = PathFollower(Vehicle(), path=path)
    # one vehicle per frame's position in a batch too: its first (whole-path) projection
    batch = VehicleBatch(positions[:, 0].copy(), positions[:, 1].copy(), np.zeros(len(positions)))
    first = PathFollower(Vehicle(), path=path).step_batch(batch, DT)
    for k, position in enumerate(positions):
        state = VehicleState(float(position[0]), float(position[1]), path.heading_at(0.6 * k), 8.0)
        follower.step(state, DT)  # after the first frame: the windowed projection
        expected = dense_signed_distance(path.points, position)
        tolerance = 2.0 * SPACING
        for measured in (follower.info.cross_track, first.cross_track[k]):
            assert abs(abs(measured) - abs(expected)) <= tolerance
            if abs(expected) > tolerance:
                assert math.copysign(1.0, measured) == math.copysign(1.0, expected)
        # and Polyline.project's, for the same position (the nearest point is in the window)
        assert follower.info.cross_track == pytest.approx(
            path.project(position).cross_track, abs=1e-9
        )


def test_cross_track_on_a_hairpin_is_to_the_leg_being_driven():
    # out along y = 0 (+x), back along y = 4 (-x). Driving back 1 m off the way back, then at
    # y = 1.5 from x = 20 on: there the vehicle is 1.5 m left of the way out (the nearest point
    # of the whole path: Polyline.project) and 2.5 m left of the way back (left of -x is -y), the
    # leg the follower's projection keeps to.
    path = Polyline([(0.0, 0.0), (30.0, 0.0), (30.0, 4.0), (0.0, 4.0)])
    outbound = [(x, 0.5, 0.0) for x in np.arange(0.0, 30.0, 0.5)]
    back = [(x, 3.0 if x > 20.0 else 1.5, math.pi) for x in np.arange(30.0, 0.0, -0.5)]
    follower = PathFollower(Vehicle(), path=path)
    batch_follower = PathFollower(Vehicle(), path=path)
    batch = VehicleBatch(np.zeros(1), np.zeros(1), np.zeros(1), np.full(1, 10.0))
    out = None
    for x, y, yaw in outbound + back:
        follower.step(VehicleState(x, y, yaw, 10.0), DT)
        batch.x[0], batch.y[0], batch.yaw[0] = x, y, yaw
        out = batch_follower.step_batch(batch, DT, out)
        assert out.cross_track[0] == follower.info.cross_track
        assert out.s[0] == follower.info.s
        whole_path = path.project((x, y)).cross_track
        if y == 0.5:
            assert follower.info.cross_track == pytest.approx(0.5, abs=1e-12) == whole_path
        elif y == 3.0 and x <= 29.0:
            assert follower.info.cross_track == pytest.approx(1.0, abs=1e-12) == whole_path
        elif y == 1.5:
            assert follower.info.cross_track == pytest.approx(2.5, abs=1e-12)
            assert whole_path == pytest.approx(1.5, abs=1e-12)


def test_cross_track_field_is_last_so_positional_unpacking_keeps_working():
    follower = PathFollower(Vehicle(), path=[(0.0, 0.0), (10.0, 0.0)])
    out = follower.step_batch(VehicleBatch(np.zeros(2), np.array((2.0, -3.0)), np.zeros(2)), DT)
    _steer, _throttle, _target_speed, _target_x, _target_y, s, *_ = out  # the old order
    assert s is out.s
    assert out._fields[-1] == "cross_track"
    np.testing.assert_array_equal(out.cross_track, (2.0, -3.0))  # left +, right -
