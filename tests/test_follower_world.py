"""The path follower with real vehicles in a walled world (seed 001's stuck manager)."""

import numpy as np
import pytest

from steerlab.follower import FollowerParams, PathFollower
from steerlab.geometry import Polyline
from steerlab.vehicles import Vehicle, VehicleState
from steerlab.world import Walls, World, walls_along

DT = 0.02


def drive(vehicle, follower, world, frames, state=None):
    state = VehicleState() if state is None else state
    states, infos = [state], []
    for _ in range(frames):
        command = follower.step(state, DT)
        infos.append(follower.info)
        state = vehicle.step(state, command, DT, world=world)
        states.append(state)
    return states, infos


@pytest.mark.parametrize("name", ["zaha", "armata"])
def test_a_vehicle_driven_into_a_wall_is_declared_stuck_within_the_window_and_backs_off(name):
    # a wall straight across the path: every approach ends against it
    vehicle = Vehicle(name)
    world = World(walls=Walls.from_segments([((25.0, -30.0), (25.0, 30.0))]))
    params = FollowerParams()
    follower = PathFollower(vehicle.params, params, path=[(0.0, 0.0), (60.0, 0.0)])
    states, infos = drive(vehicle, follower, world, 1500)
    front = np.array([s.x for s in states]) + vehicle.params.half_length
    assert front.max() <= 25.0 + 1e-9  # the wall holds
    contact = int(np.flatnonzero(front > 25.0 - 0.01)[0])  # first frame against the wall
    first = follower.stuck_events[0]
    assert contact * DT < first.time <= contact * DT + params.stuck_window + 2 * DT
    # recovery: the throttle is inverted, so the vehicle backs off the wall
    recovering = [i for i, info in enumerate(infos) if info.recovering]
    start = recovering[0]
    assert states[start + params.recovery_frames].x < states[start].x - 0.1
    # and, the wall being across the whole path, it is stuck again and again (counted)
    assert len(follower.stuck_events) >= 2


def test_walled_corridor_is_followed_without_a_stuck_event():
    # an S-bend walled at the corridor's width: the follower keeps the Storm off the walls
    path = [(0.0, 0.0), (40.0, 0.0), (60.0, 20.0), (100.0, 20.0), (120.0, 0.0), (160.0, 0.0)]
    world = World(walls=walls_along(Polyline(path, 8.0), 0.5))
    vehicle = Vehicle("storm")
    follower = PathFollower(vehicle.params, FollowerParams(), path=path)
    drive(vehicle, follower, world, 2500)
    assert follower.memory.arrived
    assert follower.stuck_events == []
