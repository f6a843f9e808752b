"""BaseEngine (seed 000): what the pseudo-code promises, for any state and command."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from steerlab.engines import AgentState, BaseEngine, BaseEngineParams, Command
from steerlab.geometry import wrap_pi
from strategies import angles, commands, speeds, states, timesteps

bounded_params = st.builds(
    BaseEngineParams,
    k_yaw=st.one_of(st.just(math.inf), st.floats(0.1, 50.0)),
    k_speed=st.one_of(st.just(math.inf), st.floats(0.1, 50.0)),
    yaw_rate_max=st.floats(0.1, 10.0),
    accel_trans_max=st.floats(1.0, 5000.0),
    accel_long_max=st.floats(1.0, 5000.0),
    decel_long_max=st.floats(-5000.0, -1.0),
)
UNBOUNDED_NO_LAG = BaseEngineParams(k_yaw=math.inf, k_speed=math.inf)


@given(bounded_params, states, commands, timesteps)
def test_yaw_rate_and_acceleration_stay_within_bounds(params, state, command, dt):
    new = BaseEngine(params).step(state, command, dt)
    speed = state.speed
    yaw_rate = wrap_pi(new.yaw - state.yaw) / dt
    bound = params.yaw_rate_max
    if speed != 0.0:
        bound = min(bound, params.accel_trans_max / speed)
    assert abs(yaw_rate) <= bound * (1 + 1e-9) + 1e-9 / dt
    acceleration = (new.speed - speed) / dt
    assert acceleration <= params.accel_long_max * (1 + 1e-9) + 1e-9 / dt
    if new.speed > 0.0:  # the floor at zero may cut a deceleration short, never extend it
        assert acceleration >= params.decel_long_max * (1 + 1e-9) - 1e-9 / dt


@given(states, commands, timesteps)
def test_no_lag_and_no_bounds_reach_the_command_in_one_frame(state, command, dt):
    new = BaseEngine(UNBOUNDED_NO_LAG).step(state, command, dt)
    assert abs(wrap_pi(new.yaw - command.yaw)) < 1e-9
    assert new.speed == pytest.approx(command.speed, rel=1e-9, abs=1e-9)


@given(st.floats(0.1, 50.0), angles, st.floats(-3.0, 3.0), timesteps)
def test_unbounded_yaw_error_decays_by_one_minus_gain(k_yaw, yaw, error, dt):
    """First-order channel: the yaw error is multiplied by 1 - Ek_Yaw = exp(-k_yaw T)."""
    engine = BaseEngine(BaseEngineParams(k_yaw=k_yaw))
    start = AgentState(0.0, 0.0, 10.0 * math.cos(yaw), 10.0 * math.sin(yaw), wrap_pi(yaw))
    new = engine.step(start, Command(wrap_pi(yaw) + error, 10.0), dt)
    remaining = wrap_pi(wrap_pi(yaw) + error - new.yaw)
    assert remaining == pytest.approx(error * math.exp(-k_yaw * dt), abs=1e-9)


@given(bounded_params, states, commands, timesteps)
def test_no_backwards_move(params, state, command, dt):
    new = BaseEngine(params).step(state, command, dt)
    assert new.speed >= 0.0
    displacement = (new.x - state.x) * math.cos(new.yaw) + (new.y - state.y) * math.sin(new.yaw)
    assert displacement >= -1e-9 * (1 + abs(state.x) + abs(state.y))
    assert math.hypot(new.vx, new.vy) == pytest.approx(new.speed)


@given(states, st.floats(0.0, 500.0), timesteps)
def test_speed_converges_to_the_command(state, target, dt):
    engine = BaseEngine(BaseEngineParams(k_speed=4.0))
    for _ in range(int(10.0 / dt) + 1):  # 40 time constants
        state = engine.step(state, Command(state.yaw, target), dt)
    assert state.speed == pytest.approx(target, rel=1e-6, abs=1e-6)


def test_position_update_uses_updated_speed_and_yaw():
    engine = BaseEngine(UNBOUNDED_NO_LAG)
    new = engine.step(AgentState(), Command(math.pi / 2, 50.0), 0.1)
    assert new.x == pytest.approx(0.0, abs=1e-12)
    assert new.y == pytest.approx(5.0)


@pytest.mark.parametrize("dt", [1e-6, 1.0, 1e3, 1e6])
@pytest.mark.parametrize("speed", [0.0, 1e-300, 100.0])
def test_degenerate_but_legal_cases_never_give_nan(dt, speed):
    engine = BaseEngine(
        BaseEngineParams(
            yaw_rate_max=2.0, accel_trans_max=100.0, accel_long_max=50.0, decel_long_max=-80.0
        )
    )
    for command in (Command(0.0, 0.0), Command(math.pi, 300.0), Command(-3.0, 0.0)):
        new = engine.step(AgentState(0.0, 0.0, speed, 0.0, 0.0), command, dt)
        assert all(math.isfinite(value) for value in new)


@pytest.mark.parametrize(
    ("state", "command", "dt", "name"),
    [
        (AgentState(math.nan, 0, 0, 0, 0), Command(0, 1), 0.1, "state.x"),
        (AgentState(0, 0, 0, math.inf, 0), Command(0, 1), 0.1, "state.vy"),
        (AgentState(), Command(math.nan, 1), 0.1, "command.yaw"),
        (AgentState(), Command(0, -1.0), 0.1, "command.speed"),
        (AgentState(), Command(0, math.inf), 0.1, "command.speed"),
        (AgentState(), Command(0, 1), 0.0, "dt"),
        (AgentState(), Command(0, 1), -0.1, "dt"),
        (AgentState(), Command(0, 1), math.nan, "dt"),
    ],
)
def test_bad_input_raises_naming_the_argument(state, command, dt, name):
    with pytest.raises(ValueError, match=name.replace(".", r"\.")):
        BaseEngine().step(state, command, dt)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("k_yaw", 0.0),
        ("k_speed", -1.0),
        ("yaw_rate_max", math.nan),
        ("accel_trans_max", 0.0),
        ("accel_long_max", -3.0),
        ("decel_long_max", 2.0),
        ("decel_long_max", 0.0),
    ],
)
def test_bad_parameters_raise_naming_the_field(field, value):
    with pytest.raises(ValueError, match=field):
        BaseEngine(BaseEngineParams()._replace(**{field: value}))


@given(bounded_params, states, commands, timesteps)
def test_the_new_speed_is_non_negative_along_the_new_heading(params, state, command, dt):
    """Seed 000: the speed is floored at 0 ("no backwards move"): the new velocity points along
    the new heading (never backwards, nothing sideways) and the agent moves forward along it."""
    new = BaseEngine(params).step(state, command, dt)
    cos_yaw, sin_yaw = math.cos(new.yaw), math.sin(new.yaw)
    speed = math.hypot(new.vx, new.vy)
    assert new.vx * cos_yaw + new.vy * sin_yaw >= 0.0
    assert abs(new.vy * cos_yaw - new.vx * sin_yaw) <= 1e-9 * (1.0 + speed)
    forward = (new.x - state.x) * cos_yaw + (new.y - state.y) * sin_yaw
    assert forward >= -1e-9 * (1.0 + abs(new.x) + abs(new.y))


def test_a_backward_speed_command_is_refused():
    with pytest.raises(ValueError, match=r"command\.speed"):
        BaseEngine().step(AgentState(), Command(0.0, -1.0), 0.1)


@given(speeds)
def test_speed_property_is_the_velocity_modulus(speed):
    assert AgentState(0, 0, speed * 0.6, speed * 0.8, 0).speed == pytest.approx(speed)
