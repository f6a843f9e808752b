"""Vehicles in the world: terrain slope and walls around the vehicles' own dynamics kernel."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import steerlab._jit
from steerlab.vehicles import PRESETS, DriveCommand, Vehicle, VehicleBatch, VehicleState
from steerlab.vehicles.dynamics import _vehicle_dynamics
from steerlab.vehicles.params import GRAVITY
from steerlab.world import Walls, World, plane

WALL_X = 20.0
WALL = World(walls=Walls.from_segments([((WALL_X, -200.0), (WALL_X, 200.0))]))


def drive(vehicle, world, state, command, dt, frames):
    states = [state]
    for _ in range(frames):
        state = vehicle.step(state, command, dt, world=world)
        states.append(state)
    return states


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_full_throttle_into_a_wall_stops_at_it_and_never_crosses(name):
    vehicle = Vehicle(name)
    states = drive(vehicle, WALL, VehicleState(), DriveCommand(0.0, 1.0), 0.02, 600)
    # the box's front never goes past the wall (heading +x: its front is x + half_length)
    reach = max(s.x + vehicle.params.half_length for s in states)
    assert reach <= WALL_X + 1e-9
    final = states[-1]
    assert final.x == pytest.approx(WALL_X - vehicle.params.half_length, abs=1e-3)
    assert abs(final.v) < 0.5  # the speed into the wall is removed every frame


@settings(max_examples=25, deadline=None)
@given(
    st.sampled_from(sorted(PRESETS)),
    st.floats(-1.3, 1.3),
    st.floats(0.005, 0.1),
    st.floats(-1.0, 1.0),
)
def test_no_vehicle_crosses_the_wall(name, heading, dt, steer):
    vehicle = Vehicle(name)
    start = VehicleState(0.0, 0.0, heading, 25.0, 0.0, 0.0, 0.0)  # fast, towards the wall
    states = drive(vehicle, WALL, start, DriveCommand(steer, 1.0), dt, int(4.0 / dt))
    assert all(s.x < WALL_X for s in states)


def test_scraping_along_a_wall_keeps_the_tangential_motion():
    # heading 5 degrees into the wall under throttle: the box grinds along it, never through
    vehicle = Vehicle("bolte")
    start = VehicleState(WALL_X - 3.0, 0.0, math.radians(85.0), 8.0, 0.0, 0.0, 0.0)
    states = drive(vehicle, WALL, start, DriveCommand(0.0, 0.3), 0.02, 250)
    touching = [s for s in states if s.x > WALL_X - vehicle.params.half_width - 0.5]
    assert touching  # it reached the wall
    assert states[-1].y > 30.0  # and went on along it
    assert all(s.x < WALL_X for s in states)


def test_on_a_plane_the_world_step_is_the_dynamics_with_gravity_along_the_slope():
    # a plane rising 20 % along +x: a vehicle heading +x feels -g sin(atan(0.2)) forward
    slope = 0.2
    world = World(terrain=plane(slope, 0.0, (-100.0, 400.0), (-100.0, 100.0), 5.0))
    params = PRESETS["zaha"]
    state = VehicleState(0.0, 0.0, 0.0, 3.0, 0.0, 0.0, 0.0)
    vehicle = Vehicle(params)
    forward = -GRAVITY * math.sin(math.atan(slope))
    expected = state
    for _ in range(50):
        state = vehicle.step(state, DriveCommand(0.0, 0.5), 0.02, world=world)
        expected = VehicleState(
            *_vehicle_dynamics(*expected, 0.0, 0.5, 0.02, vehicle.params, forward, 0.0)
        )
        assert state.x == pytest.approx(expected.x, rel=1e-12, abs=1e-12)
        assert state.v == pytest.approx(expected.v, rel=1e-12, abs=1e-12)


def test_hovercraft_slides_back_down_a_steep_hill():
    world = World(terrain=plane(0.3, 0.0, (-500.0, 500.0), (-100.0, 100.0), 10.0))
    states = drive(Vehicle("hovercraft"), world, VehicleState(), DriveCommand(0.0, 0.0), 0.02, 300)
    assert states[-1].x < -1.0 and states[-1].v < 0.0  # downhill is -x


@pytest.mark.parametrize("parallel", [False, True])
def test_batch_in_the_world_equals_scalar(parallel, monkeypatch):
    if parallel:
        monkeypatch.setattr(steerlab._jit, "SERIAL_LIMIT", 0)
    world = World(
        terrain=plane(0.1, 0.5, (-100.0, 100.0), (-100.0, 100.0), 4.0),
        walls=Walls.from_segments([((15.0, -50.0), (15.0, 50.0)), ((-50.0, 12.0), (50.0, 12.0))]),
    )
    vehicle = Vehicle("panhard_crab")
    rng = np.random.default_rng(4)
    starts = [
        VehicleState(float(x), float(y), float(h), 8.0, 0.0, 0.0, 0.0)
        for x, y, h in zip(
            rng.uniform(-5, 5, 6), rng.uniform(-5, 5, 6), rng.uniform(-3, 3, 6), strict=True
        )
    ]
    steer = rng.uniform(-1, 1, 6)
    throttle = rng.uniform(-0.2, 1, 6)
    batch = VehicleBatch.from_states(starts)
    scalars = list(starts)
    for _ in range(200):
        vehicle.step_batch(batch, steer, throttle, 0.02, world=world)
        scalars = [
            vehicle.step(s, DriveCommand(float(a), float(b)), 0.02, world=world)
            for s, a, b in zip(scalars, steer, throttle, strict=True)
        ]
    for i, state in enumerate(scalars):
        assert batch.state(i) == state
