"""PyBulletRacecarPlant (issue 9): the follower drives PyBullet's racecar; the adapter reports the
simulator's own state after the documented mapping; bad input; determinism; divergence."""

import importlib
import math
import sys

import numpy as np
import pytest

pybullet = pytest.importorskip("pybullet")

from steerlab.follower import FollowerParams, PathFollower  # noqa: E402
from steerlab.geometry import Polyline  # noqa: E402
from steerlab.plants.pybullet_racecar import (  # noqa: E402
    PlantDiverged,
    PyBulletRacecarPlant,
    RacecarParams,
)
from steerlab.sim import ConstantCommand, simulate  # noqa: E402
from steerlab.vehicles import DriveCommand, VehicleState  # noqa: E402

DT = 1.0 / 60.0
HALF_WIDTH = (
    0.25  # [m] corridor half-width of the test paths: about the car's width (0.244 m track)
)
# the paper's settings scaled to a 0.325 m wheelbase RC car (parameters only, no code change)
SMALL_CAR = FollowerParams(
    dh=0.5,
    v_min=0.3,
    v_max=2.0,
    lookahead=0.6,
    projection_back=0.5,
    projection_ahead=3.0,
    arrival_radius=0.3,
    stop_decel=1.0,
    stuck_distance=0.2,
)


@pytest.fixture(scope="module")
def plant():
    with PyBulletRacecarPlant() as plant:
        yield plant


class ArrivalRecorder:
    """Wraps a follower; records whether it had arrived before each frame's command."""

    def __init__(self, follower):
        self.follower = follower
        self.arrived = []

    def step(self, state, dt):
        command = self.follower.step(state, dt)
        self.arrived.append(self.follower.info.arrived)
        return command

    def reset(self):
        self.follower.reset()
        self.arrived = []


def drive(plant, path, seconds):
    """Follow ``path`` from its start; the cross-track errors until the follower arrives (after
    that the car brakes to rest past the end, off the path by design)."""
    follower = PathFollower(plant.vehicle_params, SMALL_CAR, path)
    recorder = ArrivalRecorder(follower)
    state = plant.reset(VehicleState(float(path[0, 0]), float(path[0, 1]), _start_yaw(path)))
    trace = simulate(plant, recorder, state, DT, round(seconds / DT))
    polyline = Polyline(path)
    driving = ~np.array(recorder.arrived)
    cross = np.array(
        [
            abs(polyline.project((x, y))[3])
            for x, y in zip(trace.x[:-1][driving], trace.y[:-1][driving], strict=True)
        ]
    )
    return trace, follower, cross


def _start_yaw(path):
    return math.atan2(path[1, 1] - path[0, 1], path[1, 0] - path[0, 0])


def circle(radius, count=400):
    angles = np.linspace(-0.5 * math.pi, 1.5 * math.pi, count)
    return np.column_stack((radius * np.cos(angles), radius * np.sin(angles) + radius))


def s_bend(radius, count=200):
    first = np.linspace(-0.5 * math.pi, 0.0, count)
    second = np.linspace(math.pi, 0.5 * math.pi, count)[1:]
    left = np.column_stack((radius * np.cos(first), radius * np.sin(first) + radius))
    right = np.column_stack(
        (radius * np.cos(second) + 2.0 * radius, radius * np.sin(second) + radius)
    )
    return np.vstack((left, right))


@pytest.mark.parametrize("path", [circle(3.0), s_bend(2.5)], ids=["circle", "s_bend"])
def test_follower_completes_path_within_corridor(plant, path):
    trace, follower, cross = drive(plant, path, 20.0)
    assert follower.info.arrived
    assert cross.max() < HALF_WIDTH
    assert np.hypot(trace.x[-1] - path[-1, 0], trace.y[-1] - path[-1, 1]) < 1.0
    assert trace.v.max() > 1.0  # it drove, not crawled


def test_observe_equals_simulator_readings(plant):
    state = plant.reset(VehicleState(0.5, -1.0, 2.5, 1.0))
    for _ in range(30):
        state = plant.step(state, DriveCommand(0.7, 0.5), DT)
    position, orientation = pybullet.getBasePositionAndOrientation(
        plant.body, physicsClientId=plant.client
    )
    velocity, angular = pybullet.getBaseVelocity(plant.body, physicsClientId=plant.client)
    hinges = pybullet.getJointStates(plant.body, [4, 6], physicsClientId=plant.client)
    matrix = np.array(pybullet.getMatrixFromQuaternion(orientation)).reshape(3, 3)
    forward = matrix[:2, 0] / np.hypot(*matrix[:2, 0])
    left = np.array([-forward[1], forward[0]])
    yaw = pybullet.getEulerFromQuaternion(orientation)[2]
    assert state == plant.observe()
    assert (state.x, state.y) == (position[0], position[1])
    assert state.yaw == pytest.approx(yaw, abs=1e-3)  # equal while level; the car is nearly so
    assert math.atan2(forward[1], forward[0]) == pytest.approx(state.yaw, abs=1e-12)
    assert state.v == pytest.approx(forward @ velocity[:2], abs=1e-12)
    assert state.v_lat == pytest.approx(left @ velocity[:2], abs=1e-12)
    assert state.yaw_rate == angular[2]
    assert state.steer == pytest.approx(0.5 * (hinges[0][0] + hinges[1][0]), abs=1e-15)
    assert state.v > 0.5 and state.yaw_rate > 0.0 and state.steer > 0.0  # moving, turning left


def test_reset_places_the_given_state(plant):
    wanted = VehicleState(-2.0, 3.0, -2.0, 1.5, 0.1, 0.3, -0.2)
    got = plant.reset(wanted)
    np.testing.assert_allclose(tuple(got), tuple(wanted), atol=1e-9)


def test_wheelbase_and_reference_point_match_the_urdf(plant):
    plant.reset(VehicleState(1.0, 2.0, 0.7))
    links = pybullet.getLinkStates(plant.body, [2, 3, 4, 6], physicsClientId=plant.client)
    rear = 0.5 * (np.array(links[0][4][:2]) + np.array(links[1][4][:2]))
    front = 0.5 * (np.array(links[2][4][:2]) + np.array(links[3][4][:2]))
    np.testing.assert_allclose(rear, (1.0, 2.0), atol=1e-6)  # (x, y) is the rear-axle centre
    axle = front - rear
    assert np.hypot(*axle) == pytest.approx(plant.vehicle_params.wheelbase, abs=1e-6)
    assert math.atan2(axle[1], axle[0]) == pytest.approx(0.7, abs=1e-6)  # forward is body +x


def test_throttle_and_steer_signs(plant):
    state = plant.reset()
    trace = simulate(plant, ConstantCommand(DriveCommand(-1.0, 1.0)), state, DT, 90)
    assert trace.v[-1] > 1.0 and trace.yaw_rate[-1] < 0.0  # forward, turning right (clockwise)
    braking = simulate(plant, ConstantCommand(DriveCommand(0.0, -1.0)), plant.observe(), DT, 240)
    assert braking.v[15] < braking.v[0] - 0.2  # brakes ...
    assert braking.v[-1] < -0.5  # ... then reverses


def test_dt_need_not_be_a_multiple_of_the_physics_step(plant):
    # coasting straight from 1 m/s for 1 s: the distance does not depend on the control rate
    distances = []
    for dt, steps in ((DT, 60), (0.05, 20), (0.01, 100)):
        state = plant.reset(VehicleState(v=1.0))
        for _ in range(steps):
            state = plant.step(state, DriveCommand(), dt)
        distances.append(state.x)
    assert 0.5 < distances[0] < 1.0  # it rolled, and the contact slows it
    assert distances[1] == pytest.approx(distances[0], abs=1e-9)  # the same 240 Hz steps
    assert distances[2] == pytest.approx(distances[0], rel=0.05)  # 300 Hz steps: close


def test_same_commands_same_bits():
    commands = ConstantCommand(DriveCommand(0.4, 0.8))
    traces = []
    for _ in range(2):
        with PyBulletRacecarPlant() as plant:
            traces.append(
                simulate(plant, commands, plant.reset(VehicleState(1.0, 1.0, 1.0)), DT, 60)
            )
    for field in VehicleState._fields:
        np.testing.assert_array_equal(getattr(traces[0], field), getattr(traces[1], field))


def test_reset_forgets_the_history():
    """``reset(state)`` then the same commands give the same bits whatever the plant did before
    (a fresh plant; after driving far away, steering, braking, reversing at other frame times):
    the simulator's hidden state (contact caches, the order of its overlapping pairs) is reset
    too, so a trial does not depend on the trials run before it on the same plant."""
    commands = ConstantCommand(DriveCommand(0.0, 0.0))  # coasting: the contacts decide
    start = VehicleState(v=1.0)
    with PyBulletRacecarPlant() as plant:
        traces = [simulate(plant, commands, plant.reset(start), DT, 60)]
        for steer, throttle, dt, frames in ((1.0, 1.0, DT, 100), (-1.0, -1.0, 0.013, 150)):
            state = plant.reset(VehicleState(50.0, 3.0, 2.0))
            for _ in range(frames):
                state = plant.step(state, DriveCommand(steer, throttle), dt)
            traces.append(simulate(plant, commands, plant.reset(start), DT, 60))
    for trace in traces[1:]:
        for field in VehicleState._fields:
            np.testing.assert_array_equal(getattr(trace, field), getattr(traces[0], field))


def test_foreign_state_resyncs_or_raises(plant):
    other = VehicleState(5.0, 5.0, 0.0, 0.5)
    resynced = plant.step(other, DriveCommand(0.2, 0.3), DT)
    expected = plant.step(plant.reset(other), DriveCommand(0.2, 0.3), DT)
    # not to the bit: PyBullet keeps its contact cache across a teleport, and it differs here
    np.testing.assert_allclose(tuple(resynced), tuple(expected), atol=1e-2)
    assert resynced.x > other.x  # resynced: stepped from (5, 5), not from where the car was
    with PyBulletRacecarPlant(on_mismatch="raise") as strict:
        state = strict.step(strict.observe(), DriveCommand(), DT)
        with pytest.raises(ValueError, match="state must be the plant's last returned state"):
            strict.step(state._replace(x=state.x + 1.0), DriveCommand(), DT)


@pytest.mark.parametrize("dt", [0.0, -0.01, math.nan, math.inf])
def test_bad_dt(plant, dt):
    with pytest.raises(ValueError, match="dt"):
        plant.step(plant.observe(), DriveCommand(), dt)


@pytest.mark.parametrize("command", [DriveCommand(1.5, 0.0), DriveCommand(0.0, -1.01)])
def test_command_out_of_range(plant, command):
    with pytest.raises(ValueError, match=r"must be in \[-1, 1\]"):
        plant.step(plant.observe(), command, DT)


@pytest.mark.parametrize(
    ("params", "match"),
    [
        (RacecarParams(max_steer=1.2), "max_steer"),
        (RacecarParams(max_torque=-1.0), "max_torque"),
        (RacecarParams(physics_rate=0.0), "physics_rate"),
        (RacecarParams(kind=1), "kind"),
    ],
)
def test_bad_params(params, match):
    with pytest.raises(ValueError, match=match):
        PyBulletRacecarPlant(params)


def test_bad_state_and_on_mismatch():
    with pytest.raises(ValueError, match="on_mismatch"):
        PyBulletRacecarPlant(on_mismatch="ignore")
    with PyBulletRacecarPlant() as plant, pytest.raises(ValueError, match=r"state\.x"):
        plant.step(VehicleState(x=math.nan), DriveCommand(), DT)


def test_exploded_and_rolled_over_states_raise_plant_diverged(plant):
    state = plant.reset()
    pybullet.resetBaseVelocity(plant.body, [math.nan, 0.0, 0.0], physicsClientId=plant.client)
    with pytest.raises(PlantDiverged, match="not finite"):
        plant.step(state, DriveCommand(), DT)
    state = plant.reset()
    upside_down = pybullet.getQuaternionFromEuler([math.pi, 0.0, 0.0])
    pybullet.resetBasePositionAndOrientation(
        plant.body, [0.0, 0.0, 0.3], upside_down, physicsClientId=plant.client
    )
    with pytest.raises(PlantDiverged, match="rolled over") as error:
        plant.step(state, DriveCommand(), DT)
    assert isinstance(error.value, RuntimeError) and "rolled over" in error.value.reason
    plant.reset()  # usable again


def test_missing_pybullet_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pybullet", None)
    monkeypatch.delitem(sys.modules, "steerlab.plants.pybullet_racecar")
    with pytest.raises(ImportError, match=r"pip install 'steerlab\[plants\]'"):
        importlib.import_module("steerlab.plants.pybullet_racecar")
