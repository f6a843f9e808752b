"""The accel-bounded unicycle of seed 003: bounds never exceeded, Euler integration, batch."""

import math

import numba
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import steerlab._jit
from steerlab.engines import Unicycle, UnicycleParams, UnicycleState
from steerlab.engines.unicycle import UnicycleBatch, UnicycleCommand, turning_radius

PARAMS = UnicycleParams()
PLANT = Unicycle(PARAMS)

speeds = st.floats(0.0, PARAMS.speed_max)
fractions = st.floats(-1.0, 1.0)
accelerations = st.floats(-1e3, 1e3, allow_nan=False)
timesteps = st.floats(1e-3, 0.25)
params = st.builds(
    UnicycleParams,
    st.floats(0.1, 50.0),
    st.floats(0.1, 20.0),
    st.floats(0.1, 50.0),
    st.floats(0.1, 100.0),
    st.floats(0.1, 50.0),
)


def valid_state(p, x, y, yaw, speed_share, turn_share):
    """A state within the bounds: v <= speed_max, |w| <= min(w_max, A / v)."""
    v = speed_share * p.speed_max
    limit = min(p.angular_speed_max, p.normal_accel_max / v if v > 0 else math.inf)
    return UnicycleState(x, y, yaw, v, turn_share * limit)


def assert_within_bounds(p, before, after, dt):
    tolerance = 1e-9
    assert 0.0 <= after.v <= p.speed_max * (1 + tolerance)
    assert abs(after.w) <= p.angular_speed_max * (1 + tolerance)
    assert abs(after.v * after.w) <= p.normal_accel_max * (1 + tolerance)
    assert abs(after.v - before.v) <= p.accel_max * dt * (1 + tolerance) + 1e-12
    assert abs(after.w - before.w) <= p.angular_accel_max * dt * (1 + tolerance) + 1e-12
    assert -math.pi <= after.yaw < math.pi


@given(
    params,
    st.floats(0.0, 1.0),
    fractions,
    st.lists(st.tuples(accelerations, accelerations), min_size=1, max_size=30),
    timesteps,
)
def test_bounds_are_never_exceeded(p, speed_share, turn_share, commands, dt):
    """Seed 003: bounded forward and angular accelerations and speeds, |v w| <= A, v >= 0."""
    plant = Unicycle(p)
    state = valid_state(p, 0.0, 0.0, 0.3, speed_share, turn_share)
    for accel, angular in commands:
        after = plant.step(state, UnicycleCommand(accel, angular), dt)
        assert_within_bounds(p, state, after, dt)
        state = after


@given(speeds, st.floats(-math.pi, math.pi, exclude_max=True), timesteps)
def test_straight_motion_is_euler(v, yaw, dt):
    """No acceleration, no turn: the position moves by v dt along the heading."""
    after = PLANT.step(UnicycleState(1.0, -2.0, yaw, v, 0.0), UnicycleCommand(), dt)
    assert after.v == v and after.w == 0.0 and after.yaw == yaw
    assert after.x == pytest.approx(1.0 + v * math.cos(yaw) * dt, abs=1e-12)
    assert after.y == pytest.approx(-2.0 + v * math.sin(yaw) * dt, abs=1e-12)


def test_semi_implicit_euler_uses_the_new_speeds():
    after = PLANT.step(UnicycleState(), UnicycleCommand(1.0, 2.0), 0.5)
    assert after.v == 0.5 and after.w == 1.0 and after.yaw == 0.5
    assert after.x == pytest.approx(0.5 * math.cos(0.5) * 0.5)


def test_turns_on_the_spot_at_rest_and_is_limited_by_the_normal_acceleration_at_speed():
    state = UnicycleState()
    for _ in range(100):
        state = PLANT.step(state, UnicycleCommand(0.0, 100.0), 0.01)
    assert state.w == PARAMS.angular_speed_max and state.x == 0.0 and state.y == 0.0
    state = UnicycleState(v=PARAMS.speed_max)
    for _ in range(100):  # full turn asked: the speed gives way first (angular priority)
        state = PLANT.step(state, UnicycleCommand(10.0, 100.0), 0.01)
        assert abs(state.v * state.w) <= PARAMS.normal_accel_max * (1 + 1e-12)
    assert state.w == PARAMS.angular_speed_max
    assert state.v == pytest.approx(PARAMS.normal_accel_max / PARAMS.angular_speed_max)


def test_turning_radius():
    assert turning_radius(0.0) == 0.0
    assert turning_radius(2.0) == pytest.approx(max(2.0 / 3.0, 4.0 / 2.0))
    assert turning_radius(0.5) == pytest.approx(max(0.5 / 3.0, 0.25 / 2.0))


@pytest.mark.parametrize("build", ["serial", "prange-1", "prange-2"])
def test_batch_equals_scalar_bit_for_bit(build, monkeypatch):
    if build != "serial":
        monkeypatch.setattr(steerlab._jit, "SERIAL_LIMIT", 0)
    rng = np.random.default_rng(3)
    size, frames, dt = 64, 30, 0.05
    share = rng.uniform(0, 1, size)
    v = share * PARAMS.speed_max
    limit = np.minimum(PARAMS.angular_speed_max, PARAMS.normal_accel_max / np.maximum(v, 1e-300))
    batch = UnicycleBatch(
        rng.uniform(-10, 10, size),
        rng.uniform(-10, 10, size),
        rng.uniform(-3, 3, size),
        v,
        rng.uniform(-1, 1, size) * limit,
    )
    states = [batch.state(i) for i in range(size)]
    previous = numba.get_num_threads()
    numba.set_num_threads(min(2 if build == "prange-2" else 1, numba.config.NUMBA_NUM_THREADS))
    try:
        for _ in range(frames):
            accel = rng.uniform(-5, 5, size)
            angular = rng.uniform(-20, 20, size)
            PLANT.step_batch(batch, accel, angular, dt)
            states = [
                PLANT.step(s, UnicycleCommand(float(accel[i]), float(angular[i])), dt)
                for i, s in enumerate(states)
            ]
    finally:
        numba.set_num_threads(previous)
    for i, state in enumerate(states):
        assert batch.state(i) == state


def test_scalar_commands_broadcast():
    batch = UnicycleBatch.from_states([UnicycleState(v=1.0), UnicycleState(yaw=1.0)])
    PLANT.step_batch(batch, 1.0, 0.0, 0.1)
    assert batch.state(0) == PLANT.step(UnicycleState(v=1.0), UnicycleCommand(1.0, 0.0), 0.1)


@pytest.mark.parametrize(
    ("build", "name"),
    [
        (lambda: UnicycleParams(normal_accel_max=0.0).validated(), "normal_accel_max"),
        (lambda: UnicycleParams(normal_accel_max=-1.0).validated(), "normal_accel_max"),
        (lambda: Unicycle(UnicycleParams(speed_max=math.nan)), "speed_max"),
        (lambda: Unicycle(UnicycleParams(accel_max=math.inf)), "accel_max"),
        (lambda: PLANT.step(UnicycleState(v=-1.0), UnicycleCommand(), 0.1), "v"),
        (lambda: PLANT.step(UnicycleState(x=math.nan), UnicycleCommand(), 0.1), "x"),
        (lambda: PLANT.step(UnicycleState(), UnicycleCommand(math.inf, 0.0), 0.1), "accel"),
        (lambda: PLANT.step(UnicycleState(), UnicycleCommand(), 0.0), "dt"),
        (lambda: PLANT.step((0, 0, 0, 0, 0), UnicycleCommand(), 0.1), "state"),
        (lambda: UnicycleBatch([0.0], [0.0], [0.0], [-1.0]), "v"),
        (lambda: PLANT.step_batch(UnicycleBatch([0.0], [0.0], [0.0]), [1, 2], 0.0, 0.1), "accel"),
    ],
)
def test_bad_input_names_the_argument(build, name):
    with pytest.raises(ValueError, match=name):
        build()
