"""CommonRoadPlant (issue 9): CommonRoad's KS and ST models driven by the follower.

Skipped without ``commonroad-vehicle-models`` (the ``plants`` extra).
"""

import functools
import importlib
import math
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

pytest.importorskip("vehiclemodels")

from vehiclemodels.vehicle_dynamics_ks import vehicle_dynamics_ks
from vehiclemodels.vehicle_dynamics_st import vehicle_dynamics_st

from follower_plant import cross_track
from steerlab.follower import FollowerParams, PathFollower
from steerlab.geometry import Polyline, wrap_pi
from steerlab.plants import PlantDiverged
from steerlab.plants.commonroad import CommonRoadPlant, _rk4
from steerlab.sim import ConstantCommand, simulate
from steerlab.vehicles import DriveCommand, VehicleState

DT = 0.02
LANE_HALF_WIDTH = 1.75  # [m] half of a 3.5 m road lane


def s_bend(radius=60.0, straight=30.0):
    """Straight, left arc of a quarter turn, right arc of a quarter turn, straight (metres)."""
    first = np.column_stack((np.linspace(0.0, straight, 31), np.zeros(31)))
    angles = np.linspace(-0.5 * math.pi, 0.0, 60)[1:]
    left = np.column_stack((straight + radius * np.cos(angles), radius + radius * np.sin(angles)))
    cx, cy = straight + 2.0 * radius, radius
    angles = np.linspace(math.pi, 0.5 * math.pi, 60)[1:]
    right = np.column_stack((cx + radius * np.cos(angles), cy + radius * np.sin(angles)))
    end = right[-1]
    last = np.column_stack((end[0] + np.linspace(0.0, straight, 31)[1:], np.full(30, end[1])))
    return Polyline(np.vstack((first, left, right, last)))


@pytest.mark.parametrize("model", ["ks", "st"])
def test_follower_drives_the_s_bend_at_road_speed(model):
    path = s_bend()
    plant = CommonRoadPlant(model, vehicle=2)
    follower = PathFollower(plant.vehicle_params, FollowerParams(v_max=15.0), path)
    trace = simulate(plant, follower, plant.observe(), DT, 2500)
    assert follower.info.arrived
    errors = [cross_track(path, x, y) for x, y in zip(trace.x, trace.y, strict=True)]
    assert max(errors) < LANE_HALF_WIDTH  # stays in its lane
    assert trace.v.max() > 10.0  # road speed reached (the follower asked for 15 m/s)
    assert abs(trace.v[-1]) < 1.0  # and it stopped at the end


@pytest.mark.parametrize("model", ["ks", "st"])
def test_reported_velocity_is_the_reported_position_derivative(model):
    """Round trip of the unit mapping: the centre of mass the adapter reports moves with the
    velocity (body frame, yaw) it reports, whatever reference point the model integrates."""
    plant = CommonRoadPlant(model, vehicle=1, max_substep=1e-4)
    state = plant.observe()
    for frame in range(150):
        state = plant.step(state, DriveCommand(0.5, 0.3 if frame < 100 else 0.0), DT)
    h = 1e-4
    after = plant.step(state, DriveCommand(state.steer / plant.vehicle_params.max_steer, 0.0), h)
    vx, vy = state.velocity
    assert (after.x - state.x) / h == pytest.approx(vx, rel=1e-3, abs=1e-3)
    assert (after.y - state.y) / h == pytest.approx(vy, rel=1e-3, abs=1e-3)
    assert math.remainder(after.yaw - state.yaw, 2 * math.pi) / h == pytest.approx(
        state.yaw_rate, rel=1e-3, abs=1e-3
    )
    assert state.steer == plant.model_state[2]  # the road-wheel angle, same unit and sign
    assert state.yaw_rate > 0.0  # steer > 0 turns left (counter-clockwise)


@pytest.mark.parametrize("model", ["ks", "st"])
def test_reset_observe_round_trips_the_model_state(model):
    plant = CommonRoadPlant(model, vehicle=3)
    state = plant.observe()
    for _ in range(300):  # more than a turn: the model's yaw leaves [-pi, pi)
        state = plant.step(state, DriveCommand(0.8, 0.2), DT)
    before = plant.model_state
    assert abs(before[4]) > math.pi
    reported = plant.observe()
    assert plant.reset(reported) == pytest.approx(reported, abs=1e-12)
    after = plant.model_state
    assert math.remainder(after[4] - before[4], 2 * math.pi) == pytest.approx(0.0, abs=1e-12)
    for index in set(range(len(before))) - {4}:
        assert after[index] == pytest.approx(before[index], abs=1e-12)


def test_ks_reset_replaces_the_dependent_lateral_fields():
    plant = CommonRoadPlant("ks", vehicle=2)
    given_state = VehicleState(1.0, 2.0, 0.3, 5.0, v_lat=4.0, yaw_rate=-2.0, steer=0.1)
    state = plant.reset(given_state)
    p = plant.vehicle_params
    assert state[:4] == pytest.approx(given_state[:4]) and state.steer == given_state.steer
    assert state.yaw_rate == pytest.approx(5.0 * math.tan(0.1) / p.wheelbase)
    assert state.v_lat == pytest.approx(state.yaw_rate * (p.wheelbase - p.cg_to_front))


@functools.cache
def st_plant():
    return CommonRoadPlant("st", vehicle=2)


@given(
    v=st.floats(-10.0, 30.0),
    v_lat=st.floats(-3.0, 3.0),
    yaw_rate=st.floats(-1.0, 1.0),
    yaw=st.floats(-math.pi, math.pi, exclude_max=True),
)
def test_st_reset_keeps_every_field(v, v_lat, yaw_rate, yaw):
    plant = st_plant()  # reset sets all of ST's state: one plant serves every example
    state = VehicleState(3.0, -4.0, yaw, v, v_lat, yaw_rate, 0.05)
    back = plant.reset(state)
    # yaw is the same angle: a yaw a few ulps under pi may come back as -pi (wrap_pi's [-pi, pi);
    # found by hypothesis)
    assert abs(wrap_pi(back.yaw - yaw)) <= 1e-9
    assert back._replace(yaw=yaw) == pytest.approx(state, abs=1e-9)


@functools.cache
def plants():
    return {model: CommonRoadPlant(model, vehicle=2) for model in ("ks", "st")}


@given(
    model=st.sampled_from(["ks", "st"]),
    v=st.floats(-0.5, 35.0),
    v_lat=st.floats(-1.0, 1.0),
    yaw=st.floats(-math.pi, math.pi, exclude_max=True),
    yaw_rate=st.floats(-1.0, 1.0),
    wheel=st.floats(-0.4, 0.4),
    steer=st.floats(-1.0, 1.0),
    throttle=st.floats(-1.0, 1.0),
    dt=st.sampled_from([1e-3, 1.0 / 60.0, 0.02, 0.05, 0.1]),
)
def test_step_is_the_package_rhs_integrated_with_the_reported_inputs(
    model, v, v_lat, yaw, yaw_rate, wheel, steer, throttle, dt
):
    """``step`` integrates the package's own right-hand side (not a copy) with the inputs and
    the substeps the adapter reports (``inputs``, ``substeps``, which the benchmark replays) and
    reports the result as ``observe`` maps it, bit for bit; ST's low-speed (stiff) range
    included. ``step``'s hot path writes these out inline: this holds them together."""
    plant = plants()[model]
    state = plant.reset(VehicleState(1.0, -2.0, yaw, v, v_lat, yaw_rate, wheel))
    before = list(plant.model_state)
    command = DriveCommand(steer, throttle)
    u = plant.inputs(command, dt)
    count = plant.substeps(dt, u[1])
    rhs = vehicle_dynamics_st if model == "st" else vehicle_dynamics_ks
    try:
        expected = _rk4(rhs, before, u, plant.p, dt / count, count)
        after = plant.step(state, command, dt)
    except PlantDiverged:  # ST beyond -0.1 m/s in reverse (module docstring): another test's
        assert model == "st" and min(before[3], before[3] + u[1] * dt) < -0.1
        return
    assert plant.model_state == tuple(expected)
    assert after == plant.observe()
    assert type(after) is VehicleState and all(type(value) is float for value in after)
    # the held steering velocity turns the wheels towards the target, never past it
    target = steer * plant.vehicle_params.max_steer
    assert abs(u[0]) <= plant.vehicle_params.max_steer_rate
    assert (target - wheel) * u[0] >= 0.0
    assert abs(wheel + u[0] * dt - target) <= abs(wheel - target) + 1e-12


def test_steering_is_rate_limited_towards_the_target_angle():
    plant = CommonRoadPlant("ks", vehicle=2)
    p = plant.vehicle_params
    state = plant.observe()
    state = plant.step(state, DriveCommand(1.0, 0.0), DT)
    assert state.steer == pytest.approx(p.max_steer_rate * DT)
    for _ in range(int(p.max_steer / (p.max_steer_rate * DT)) + 10):
        state = plant.step(state, DriveCommand(1.0, 0.0), DT)
    assert state.steer == pytest.approx(p.max_steer)  # reached and held, never beyond
    target = 0.5 * p.max_steer
    for _ in range(200):
        state = plant.step(state, DriveCommand(0.5, 0.0), DT)
    assert state.steer == pytest.approx(target)  # settles on the target, no overshoot


def test_throttle_is_the_acceleration_below_the_switching_speed():
    plant = CommonRoadPlant("ks", vehicle=2)
    p = plant.vehicle_params
    state = plant.step(plant.observe(), DriveCommand(0.0, 0.5), DT)
    assert state.v == pytest.approx(0.5 * p.max_accel * DT)
    for _ in range(2000):  # full throttle for 40 s: the model's top speed, not beyond
        state = plant.step(state, DriveCommand(0.0, 1.0), DT)
    # the package's limit is a switch in the right-hand side: an RK4 substep may end past it by
    # at most one substep of the power-limited acceleration a_max v_switch / v
    overshoot = p.max_accel * p.switching_speed / p.max_speed * plant.max_substep
    assert p.max_speed <= state.v <= p.max_speed + overshoot


def test_st_is_stable_from_rest():
    """From rest at full throttle and full lock, the adaptive substeps agree with a tiny fixed
    substep (the stiff low-speed range is crossed without instability)."""
    command = ConstantCommand(DriveCommand(1.0, 1.0))
    coarse = simulate(CommonRoadPlant("st", 2), command, VehicleState(), DT, 150)
    fine = simulate(CommonRoadPlant("st", 2, max_substep=2e-4), command, VehicleState(), DT, 150)
    assert np.isfinite(coarse.yaw_rate).all()
    np.testing.assert_allclose(coarse.x, fine.x, atol=1e-2)
    np.testing.assert_allclose(coarse.y, fine.y, atol=1e-2)
    np.testing.assert_allclose(coarse.yaw_rate, fine.yaw_rate, atol=1e-2)


def test_st_reversing_diverges_as_a_plant_error():
    """ST's lateral dynamics are unstable for v < 0 (module docstring): a clear exception."""
    plant = CommonRoadPlant("st", 2)
    with pytest.raises(PlantDiverged, match="diverged") as raised:
        simulate(plant, ConstantCommand(DriveCommand(0.3, -1.0)), VehicleState(), DT, 500)
    assert isinstance(raised.value, RuntimeError) and "ST model" in raised.value.reason
    assert all(map(math.isfinite, plant.model_state))  # left as before the bad step


def test_same_commands_give_identical_states_and_step_resyncs():
    def run():
        plant = CommonRoadPlant("st", 1)
        follower = PathFollower(plant.vehicle_params, FollowerParams(v_max=12.0), s_bend())
        return simulate(plant, follower, VehicleState(0.0, 0.5, 0.1), DT, 400)

    first, second = run(), run()
    for field in VehicleState._fields:
        np.testing.assert_array_equal(getattr(first, field), getattr(second, field))
    assert first.y[0] == 0.5  # simulate's initial state was taken (resync)
    plant = CommonRoadPlant("ks", 2)
    plant.step(plant.observe(), DriveCommand(0.0, 1.0), DT)
    moved = VehicleState(10.0, 0.0, 0.0, 0.0)
    assert plant.step(moved, DriveCommand(0.0, 0.0), DT).x == pytest.approx(10.0)


def test_bad_input():
    plant = CommonRoadPlant("ks", 2)
    state = plant.observe()
    for dt in (0.0, -0.02, math.nan):
        with pytest.raises(ValueError, match="dt"):
            plant.step(state, DriveCommand(0.0, 0.0), dt)
    with pytest.raises(ValueError, match="steer"):
        plant.step(state, DriveCommand(1.5, 0.0), DT)
    with pytest.raises(ValueError, match="throttle"):
        plant.step(state, DriveCommand(0.0, -2.0), DT)
    for bad in (DriveCommand(math.nan, 0.0), DriveCommand(0.0, math.inf), DriveCommand(None, 0.0)):
        with pytest.raises(ValueError, match="command"):
            plant.step(state, bad, DT)
    with pytest.raises(ValueError, match="command"):
        plant.step(state, (0.0, 0.0), DT)  # a plain tuple is not a DriveCommand
    with pytest.raises(ValueError, match="dt"):
        plant.step(state, DriveCommand(0.0, 0.0), math.inf)
    assert plant.model_state == tuple(CommonRoadPlant("ks", 2).model_state)  # all refused
    # ints and numpy floats are numbers: the same step as with floats
    twin = CommonRoadPlant("ks", 2)
    stepped = plant.step(state, DriveCommand(1, np.float64(0.5)), 1)
    assert stepped == twin.step(twin.observe(), DriveCommand(1.0, 0.5), 1.0)
    with pytest.raises(ValueError, match="model"):
        CommonRoadPlant("mb", 2)
    with pytest.raises(ValueError, match="vehicle"):
        CommonRoadPlant("st", 4)
    with pytest.raises(ValueError, match="max_substep"):
        CommonRoadPlant("st", 2, max_substep=0.0)
    with pytest.raises(ValueError, match="state"):
        plant.reset(VehicleState(math.nan))


def test_missing_package_names_the_extra(monkeypatch):
    for name in list(sys.modules):
        if name == "vehiclemodels" or name.startswith("vehiclemodels."):
            monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "vehiclemodels", None)
    monkeypatch.delitem(sys.modules, "steerlab.plants.commonroad")
    with pytest.raises(ImportError, match=r"steerlab\[plants\]"):
        importlib.import_module("steerlab.plants.commonroad")
