"""CarRacingPlant (issue 9): Gymnasium CarRacing-v3's Box2D car driven as a steerlab plant.

Skipped without the ``plants`` extra (``gymnasium[box2d]``).
"""

import importlib
import itertools
import math
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("Box2D")
pytest.importorskip("gymnasium.envs.box2d.car_racing")

from gymnasium.envs.box2d import car_racing

from steerlab.follower.follower import PathFollower
from steerlab.follower.params import FollowerParams
from steerlab.plants.carracing import CarRacingPlant, PlantDiverged
from steerlab.sim import simulate
from steerlab.vehicles.state import DriveCommand, VehicleState

DT = 0.02  # the environment's own step


@pytest.fixture(scope="module")
def plant():
    plant = CarRacingPlant(seed=3)
    yield plant
    plant.close()


def _drive(plant, commands, dt=DT):
    state = plant.reset()
    states = [state]
    for command in commands:
        state = plant.step(state, command, dt)
        states.append(state)
    return states


def _angle_difference(a, b):
    return (a - b + math.pi) % (2.0 * math.pi) - math.pi


# -- the track as a path ---------------------------------------------------------------------------


def test_track_path_is_a_closed_lap_through_the_start_with_the_road_as_corridor(plant):
    state = plant.reset()
    path = plant.track_path()
    track = np.asarray(plant.env.track)[:, 2:4]
    assert np.array_equal(path.points[0], path.points[-1])  # closed
    assert len(path.points) == len(track) + 1
    # every track point is on the path, in order of travel
    assert np.array_equal(path.points[1:], track)
    assert path.half_width_at(0.5 * path.length) == pytest.approx(car_racing.TRACK_WIDTH)
    # the car starts on the path, facing along it, near its beginning (not at its end)
    projection = path.project((state.x, state.y))
    assert abs(projection.cross_track) < 0.5
    assert projection.s < 0.1 * path.length
    assert abs(_angle_difference(state.yaw, path.heading_at(projection.s))) < 0.1
    assert state.v == 0.0 and state.v_lat == 0.0 and state.yaw_rate == 0.0


# -- state round trip and sign conventions ---------------------------------------------------------


def test_reported_state_is_the_box2d_state_after_the_unit_mapping(plant):
    commands = [DriveCommand(0.0, 0.6)] * 30 + [DriveCommand(0.7, 0.2)] * 20
    state = _drive(plant, commands)[-1]
    hull = plant.env.car.hull
    # position: the hull's centre of mass
    assert (state.x, state.y) == pytest.approx(tuple(hull.worldCenter), abs=1e-9)
    # yaw: the direction of the body's local +y axis (the car's forward axis), counter-clockwise
    forward = hull.GetWorldVector((0.0, 1.0))
    assert _angle_difference(state.yaw, math.atan2(forward[1], forward[0])) == pytest.approx(
        0.0, abs=1e-6
    )
    assert -math.pi <= state.yaw < math.pi
    # body-frame velocity rotated back to the world is Box2D's linear velocity
    assert state.velocity == pytest.approx(tuple(hull.linearVelocity), abs=1e-6)
    assert state.yaw_rate == pytest.approx(hull.angularVelocity, abs=1e-9)
    joints = [wheel.joint.angle for wheel in plant.env.car.wheels[:2]]
    assert state.steer == pytest.approx(0.5 * sum(joints), abs=1e-9)
    assert plant.observe() == state


def test_throttle_drives_forward_and_positive_steer_turns_left(plant):
    states = _drive(plant, [DriveCommand(0.0, 0.5)] * 25)
    straight = states[-1]
    assert straight.v > 5.0
    assert abs(straight.v_lat) < 0.05 * straight.v
    # travelled along its heading
    start = states[0]
    moved = math.atan2(straight.y - start.y, straight.x - start.x)
    assert abs(_angle_difference(moved, start.yaw)) < 0.02
    # DriveCommand.steer > 0 is left: wheels turn counter-clockwise, the car yaws
    # counter-clockwise
    state = straight
    for _ in range(10):
        state = plant.step(state, DriveCommand(0.5, 0.0), DT)
    assert state.steer > 0.0
    assert state.yaw_rate > 0.0
    assert _angle_difference(state.yaw, straight.yaw) > 0.0


def test_steering_is_slew_limited_and_bounded_by_the_joint_limit(plant):
    state = plant.reset()
    max_steer = plant.vehicle_params.max_steer
    state = plant.step(state, DriveCommand(1.0, 0.0), DT)
    # the joint motor turns at <= 3 rad/s: one step of 0.02 s moves the wheels <= 0.06 rad
    assert 0.0 < state.steer <= plant.vehicle_params.max_steer_rate * DT + 1e-3
    for _ in range(30):
        state = plant.step(state, DriveCommand(1.0, 0.0), DT)
    assert state.steer == pytest.approx(max_steer, abs=0.03)  # Box2D's joint limit is soft


def test_negative_throttle_brakes_to_rest_without_reversing(plant):
    states = _drive(plant, [DriveCommand(0.0, 1.0)] * 20 + [DriveCommand(0.0, -1.0)] * 150)
    moving = states[20]
    assert moving.v > 5.0
    speeds = [state.v for state in states[21:]]
    assert all(b <= a + 1e-6 for a, b in itertools.pairwise(speeds))
    assert speeds[-1] == pytest.approx(0.0, abs=0.05)
    assert min(speeds) > -0.05  # no reverse gear


def test_vehicle_params_match_the_car_geometry(plant):
    params = plant.vehicle_params
    plant.reset()
    car = plant.env.car
    hull = car.hull
    front = [hull.GetLocalPoint(wheel.position) for wheel in car.wheels[:2]]
    rear = [hull.GetLocalPoint(wheel.position) for wheel in car.wheels[2:]]
    # front axle ahead of the rear one along local +y by the wheelbase
    assert params.kind == 0
    assert np.mean([p[1] for p in front]) - np.mean([p[1] for p in rear]) == pytest.approx(
        params.wheelbase, abs=0.05
    )
    assert params.max_steer == pytest.approx(car.wheels[0].joint.upperLimit)
    assert 0.0 < params.cg_to_front < params.wheelbase
    front_y = np.mean([p[1] for p in front])
    assert front_y - hull.localCenter[1] == pytest.approx(params.cg_to_front, abs=0.05)


# -- time steps, determinism -----------------------------------------------------------------------


def test_one_long_step_equals_the_same_substeps():
    a = CarRacingPlant(seed=5)
    b = CarRacingPlant(seed=5)
    state_a, state_b = a.reset(), b.reset()
    for command in (DriveCommand(0.3, 1.0), DriveCommand(-0.5, 0.4), DriveCommand(0.0, -0.5)):
        for _ in range(5):
            state_a = a.step(state_a, command, 2 * DT)
            state_b = b.step(b.step(state_b, command, DT), command, DT)
    assert state_a == state_b
    assert a.time == pytest.approx(b.time)


_SEEDED = (CarRacingPlant(seed=11), CarRacingPlant(seed=11))


@settings(max_examples=5, deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(-1.0, 1.0), st.floats(-1.0, 1.0)).map(lambda c: DriveCommand(*c)),
        min_size=1,
        max_size=40,
    )
)
def test_same_seed_same_trajectory(commands):
    first = _drive(_SEEDED[0], commands)
    second = _drive(_SEEDED[1], commands)
    assert first == second
    # a reset plant replays the same trajectory (nothing of the last run survives the reset)
    assert _drive(_SEEDED[0], commands) == first


def test_seeds_give_different_tracks():
    a = CarRacingPlant(seed=1).track_path()
    b = CarRacingPlant(seed=2).track_path()
    assert a.points.shape != b.points.shape or not np.array_equal(a.points, b.points)
    again = CarRacingPlant(seed=1)
    assert np.array_equal(again.track_path().points, a.points)


# -- the follower drives it ------------------------------------------------------------------------


def test_the_follower_completes_a_full_lap_inside_the_road():
    plant = CarRacingPlant(seed=3)
    path = plant.track_path()
    follower = PathFollower(plant.vehicle_params, FollowerParams(v_max=20.0), path=path)
    state = plant.reset()
    worst = 0.0
    steps = 0
    lap_time_bound = 2.0 * path.length / 5.0  # at least 5 m/s on average
    while not follower.info or not follower.info.arrived:
        command = follower.step(state, DT)
        state = plant.step(state, command, DT)
        worst = max(worst, abs(path.project((state.x, state.y)).cross_track))
        steps += 1
        assert steps * DT < lap_time_bound, "no lap in time"
    assert plant.lap_finished  # the environment's own lap criterion agrees
    assert plant.lap_fraction > 0.95
    assert worst < path.half_width_at(0.0)  # never left the road


def test_simulate_drives_the_plant_unchanged():
    plant = CarRacingPlant(seed=3)
    follower = PathFollower(
        plant.vehicle_params, FollowerParams(v_max=15.0), path=plant.track_path()
    )
    trace = simulate(plant, follower, plant.reset(), DT, 100)
    assert trace.states["v"][-1] > 3.0
    assert trace.states["x"][-1] == pytest.approx(plant.observe().x)


# -- bad input and failures ------------------------------------------------------------------------


@pytest.mark.parametrize("dt", [0.0, -0.02, math.nan, math.inf])
def test_bad_dt_is_a_value_error(plant, dt):
    state = plant.reset()
    with pytest.raises(ValueError, match="dt"):
        plant.step(state, DriveCommand(0.0, 0.5), dt)


@pytest.mark.parametrize("command", [DriveCommand(1.5, 0.0), DriveCommand(0.0, -1.01)])
def test_command_out_of_range_is_a_value_error(plant, command):
    state = plant.reset()
    with pytest.raises(ValueError, match="must be in"):
        plant.step(state, command, DT)


def test_a_foreign_state_is_a_value_error(plant):
    state = plant.reset()
    state = plant.step(state, DriveCommand(0.0, 1.0), DT)
    with pytest.raises(ValueError, match="last returned"):
        plant.step(state._replace(x=state.x + 1.0), DriveCommand(0.0, 1.0), DT)
    with pytest.raises(ValueError, match="last returned"):
        plant.step(VehicleState(), DriveCommand(0.0, 1.0), DT)
    # an equal copy is accepted
    plant.step(VehicleState(*state), DriveCommand(0.0, 1.0), DT)


@pytest.mark.parametrize("seed", [-1, 1.5, "3", True])
def test_bad_seed_is_a_value_error(seed):
    with pytest.raises(ValueError, match="seed"):
        CarRacingPlant(seed=seed)


def test_a_non_finite_simulator_state_raises_plant_diverged():
    plant = CarRacingPlant(seed=1)
    state = plant.reset()
    plant.env.car.hull.linearVelocity = (math.nan, 0.0)
    with pytest.raises(PlantDiverged, match="not finite"):
        plant.step(state, DriveCommand(0.0, 0.5), DT)
    assert issubclass(PlantDiverged, RuntimeError)


@pytest.mark.parametrize("missing", ["gymnasium", "Box2D", "pygame"])
def test_missing_simulator_is_an_import_error_naming_the_extra(monkeypatch, missing):
    # gymnasium itself missing, or its box2d extra's packages (gymnasium then raises its own
    # DependencyNotInstalled, which is not an ImportError)
    for name in list(sys.modules):
        if name.startswith(("gymnasium.envs.box2d", "steerlab.plants.carracing")):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, missing, None)
    with pytest.raises(ImportError, match=r"pip install 'steerlab\[plants\]'"):
        importlib.import_module("steerlab.plants.carracing")
