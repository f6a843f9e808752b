"""Follower batch == scalar, bit for bit: many vehicles, each on its own path (ragged, packed),
paths replaced during the run, stuck events and teleports included."""

import itertools
import math

import numba
import numpy as np
import pytest

from steerlab._jit import SERIAL_LIMIT
from steerlab.follower import BaselineFollower, FollowerParams, PathFollower
from steerlab.follower.paths import _PathPack
from steerlab.geometry import planar_polyline
from steerlab.vehicles import VehicleBatch

DT = 0.05


class Vehicle:
    def __init__(self, kind):
        self.kind = kind
        self.wheelbase = 2.8
        self.max_steer = 0.6


def random_path(rng):
    count = int(rng.integers(2, 10))
    headings = np.cumsum(rng.uniform(-2.5, 2.5, count - 1))
    legs = rng.choice([0.0, 1.0, 8.0, 30.0], count - 1) * rng.random(count - 1)
    steps = np.column_stack((legs * np.cos(headings), legs * np.sin(headings)))
    points = np.vstack((np.zeros(2), np.cumsum(steps, axis=0))) + rng.uniform(-20, 20, 2)
    if np.hypot(*(points[-1] - points[0])) == 0.0 and np.ptp(points, axis=0).max() == 0.0:
        points[-1] += 5.0
    if rng.random() < 0.1:
        points = np.array([(0.0, 0.0), (30.0, 0.0), (0.0, 0.0)])  # a 180-degree hairpin
    return points


def move(batch, out, rng):
    """A crude plant on the arrays; walls stop some vehicles (stuck events)."""
    batch.v += DT * (4.0 * out.throttle - 0.1 * batch.v)
    batch.yaw = np.remainder(batch.yaw + DT * batch.v * out.steer * 0.25 + math.pi, 2 * math.pi)
    batch.yaw -= math.pi
    x = batch.x + DT * batch.v * np.cos(batch.yaw)
    y = batch.y + DT * batch.v * np.sin(batch.yaw)
    blocked = (np.abs(x - 10.0) < 1.0) & (np.arange(batch.size) % 3 == 0)
    batch.x[:] = np.where(blocked, batch.x, x)
    batch.y[:] = np.where(blocked, batch.y, y)
    batch.v[:] = np.where(blocked, 0.0, batch.v)
    teleport = out.teleport
    batch.x[teleport] = out.teleport_x[teleport]
    batch.y[teleport] = out.teleport_y[teleport]
    batch.yaw[teleport] = out.teleport_yaw[teleport]
    batch.v[teleport] = 0.0


@pytest.mark.parametrize("follower_class", [PathFollower, BaselineFollower])
@pytest.mark.parametrize("kind", [0, 1, 2])  # wheeled, tracked, hover
@pytest.mark.parametrize(
    ("threads", "size", "frames"),
    [(1, 150, 140), (2, 150, 140), (2, SERIAL_LIMIT + 3, 3)],
    ids=["serial-1", "serial-2", "parallel-2"],
)
def test_batch_equals_scalar_bit_for_bit(follower_class, kind, threads, size, frames):
    rng = np.random.default_rng(606 + kind)
    params = FollowerParams(stuck_window=1.0, recovery_frames=8, teleport_after=2)
    paths = [random_path(rng) for _ in range(size)]
    starts = np.array([path[0] for path in paths]) + rng.normal(0.0, 3.0, (size, 2))
    starts[::7] += 25.0  # some far off their path
    batch = VehicleBatch(
        starts[:, 0].copy(),
        starts[:, 1].copy(),
        rng.uniform(-math.pi, math.pi, size),
        rng.uniform(-3.0, 10.0, size),
    )
    batch.yaw[::5] = math.pi  # some facing backwards along +x paths
    follower = follower_class(Vehicle(kind), params)
    follower.set_paths(paths)
    singles = [follower_class(Vehicle(kind), params, path=path) for path in paths]
    previous = numba.get_num_threads()
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        out = None
        for frame in range(frames):
            if frame in (frames // 3, frames // 2):  # replace some paths mid-run
                for index in rng.choice(size, 5, replace=False):
                    new_path = random_path(rng)
                    follower.set_path_batch(int(index), new_path)
                    singles[index].set_path(new_path)
            states = [batch.state(i) for i in range(size)]
            out = follower.step_batch(batch, DT, out)
            for i, single in enumerate(singles):
                command = single.step(states[i], DT)
                assert (command.steer, command.throttle) == (out.steer[i], out.throttle[i]), i
                assert single.info.target_speed == out.target_speed[i]
                assert single.info.s == out.s[i]
                assert single.info.cross_track == out.cross_track[i]
                assert (single.teleport_request is not None) == out.teleport[i]
            move(batch, out, rng)
    finally:
        numba.set_num_threads(previous)
    for i, single in enumerate(singles):
        for name, field in zip(single.memory._fields, follower.batch_memory, strict=True):
            ours, theirs = field[i], getattr(single.memory, name)
            assert ours == theirs or (math.isnan(ours) and math.isnan(theirs)), (i, name)
    batch_events = sorted(follower.stuck_events)
    scalar_events = sorted(
        event._replace(agent=i) for i, single in enumerate(singles) for event in single.stuck_events
    )
    assert batch_events == scalar_events
    if size < SERIAL_LIMIT:
        assert len(batch_events) > 0  # the walls did their job
        assert any(event.teleport for event in batch_events)


def test_one_path_broadcast_to_every_vehicle():
    follower = PathFollower(Vehicle(0), path=[(0.0, 0.0), (50.0, 0.0), (50.0, 50.0)])
    batch = VehicleBatch(np.array([0.0, 10.0, 40.0]), np.array([0.0, 2.0, -3.0]), np.zeros(3))
    out = follower.step_batch(batch, DT)
    single = PathFollower(Vehicle(0), path=follower.path)
    for i in range(3):
        command = single.step(batch.state(i), DT)
        assert (command.steer, command.throttle) == (out.steer[i], out.throttle[i])
        single.reset()


def test_path_pack_replace_in_place_append_and_compact():
    rng = np.random.default_rng(3)
    paths = [planar_polyline(random_path(rng)) for _ in range(50)]
    pack = _PathPack(paths)
    for step in range(400):
        index = int(rng.integers(50))
        path = planar_polyline(random_path(rng), rng.uniform(1, 5))
        if step % 7 == 0:  # a long one: appended
            path = planar_polyline(np.cumsum(rng.uniform(1, 5, (40, 2)), axis=0))
        pack.replace(index, path)
        paths[index] = path
    assert pack.points.shape[0] <= 4 * sum(p.points_3d.shape[0] for p in paths)
    for index, path in enumerate(paths):
        start, count = pack.first[index], pack.count[index]
        assert np.array_equal(pack.points[start : start + count], path.points_3d)
        assert np.array_equal(pack.cum[start : start + count], path.cumulative_length)
        rebuilt = pack.polyline(index)
        assert np.array_equal(rebuilt.points, path.points)
        if path.widths is not None:
            assert np.array_equal(rebuilt.widths, path.widths)
    # no two live slots overlap
    spans = sorted((pack.first[i], pack.first[i] + pack.count[i]) for i in range(50))
    assert all(a[1] <= b[0] for a, b in itertools.pairwise(spans))


def test_batch_errors():
    follower = PathFollower(Vehicle(0))
    batch = VehicleBatch(np.zeros(2), np.zeros(2), np.zeros(2))
    with pytest.raises(ValueError, match="no path"):
        follower.step_batch(batch, DT)
    follower.set_paths([[(0.0, 0.0), (1.0, 0.0)]] * 3)
    with pytest.raises(ValueError, match="3 paths but the batch has 2"):
        follower.step_batch(batch, DT)
    with pytest.raises(ValueError, match="index must be in"):
        follower.set_path_batch(3, [(0.0, 0.0), (1.0, 0.0)])
    with pytest.raises(ValueError, match="VehicleBatch"):
        follower.step_batch("no", DT)
    with pytest.raises(ValueError, match="non-empty sequence"):
        follower.set_paths([])
