"""Half-Life ground movement (seed 004): the page's analytics against simulation of its models."""

import math
import multiprocessing

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from steerlab.engines import AgentState, Command, HalfLifeEngine, HalfLifeParams
from steerlab.engines.halflife import (
    emergency_stop_distance,
    low_speed_steady_speed,
    low_speed_threshold,
    stop_distance,
    stop_speed,
    turn_crossing_distance,
)
from strategies import commands, states

SEED = HalfLifeParams()
MODELS = ["engine", "simplified"]
# frame times the page considers: T < 1/friction = 0.25 s ("T in max allowed range < 0.25")
frame_times = st.floats(0.002, 0.24)
initial_speeds = st.floats(0.0, 2000.0)


def run_until_reversal(speed, dt, model, opposite_speed=0.0, params=SEED):
    """Simulate a straight move along +x from ``speed`` under a zero (or backwards) command.

    Returns the largest x reached before the velocity stops being positive.
    """
    engine = HalfLifeEngine(params._replace(model=model))
    state = AgentState(0.0, 0.0, speed, 0.0, 0.0)
    command = Command(math.pi, opposite_speed) if opposite_speed > 0 else Command(0.0, 0.0)
    reached = 0.0
    for _ in range(100_000):
        state = engine.step(state, command, dt)
        if state.vx <= 0.0:
            return reached
        reached = state.x
    raise AssertionError("never stopped")


@given(initial_speeds, frame_times)
def test_exact_stop_distance_equals_the_simulated_page_model(speed, dt):
    simulated = run_until_reversal(speed, dt, "simplified")
    assert stop_distance(speed, dt) == pytest.approx(simulated, rel=1e-9, abs=1e-9)


@given(initial_speeds, frame_times)
def test_engine_model_stops_short_only_by_the_frames_under_one_unit_per_second(speed, dt):
    """The SDK zeroes speeds under 1 unit/s without moving. In the final linear decay the speed
    falls by d = F S T per frame, so at most 1/d + 1 frames run under 1 unit/s, each moving less
    than T: the engine stops at most T (1/d + 1) = 1/(F S) + T short of the page's model."""
    simulated = run_until_reversal(speed, dt, "engine")
    exact = stop_distance(speed, dt)
    lost = 1.0 / (SEED.friction * SEED.stopspeed) + dt
    assert exact - lost - 1e-9 <= simulated <= exact + 1e-9


@given(initial_speeds, st.floats(1.0, 320.0), frame_times)
def test_exact_emergency_stop_equals_the_simulated_page_model(speed, opposite, dt):
    simulated = run_until_reversal(speed, dt, "simplified", opposite)
    exact = emergency_stop_distance(speed, opposite, dt)
    assert exact == pytest.approx(simulated, rel=1e-9, abs=1e-9)


@given(initial_speeds, st.floats(1.0, 320.0), frame_times)
def test_engine_model_emergency_stop_short_only_by_frames_under_one_unit_per_second(
    speed, opposite, dt
):
    simulated = run_until_reversal(speed, dt, "engine", opposite)
    exact = emergency_stop_distance(speed, opposite, dt)
    decel = SEED.friction * SEED.stopspeed + SEED.accelerate * opposite
    lost = 1.0 / decel + dt
    assert exact - lost - 1e-9 <= simulated <= exact + 1e-9


@given(initial_speeds, st.floats(0.001, 0.2))
def test_approximate_stop_distance_within_one_and_a_half_units_up_to_t_0_2(speed, dt):
    """Seed 004: "the largest discrepancy ... is for T=0.2 seconds, where the error is less
    than 1.5 unit"."""
    assert abs(stop_distance(speed, dt, exact=False) - stop_distance(speed, dt)) < 1.5


@given(st.floats(0.0, 2000.0))
def test_approximate_stop_distance_is_continuous_and_increasing(speed):
    dt = 0.05
    here = stop_distance(speed, dt, exact=False)
    there = stop_distance(speed + 1e-6, dt, exact=False)
    assert 0.0 <= here <= there <= here + 1e-6 * (1.0 / SEED.friction) + 1e-12


def seed_get_stop_dist(speed, dt, friction, stopspeed):
    """Seed 004's ``getStopDist``, as the page writes it (``max(0, ...)`` on the first branch
    too, as steerlab's docstring promises past ``F T = 1``)."""
    if speed > stopspeed:
        return max(0.0, (speed - 0.5 * stopspeed) * (1.0 / friction - dt))
    return max(0.0, 0.5 * speed * (speed / (stopspeed * friction) - dt))


@given(
    distance=st.floats(0.0, 2000.0),
    dt=st.floats(0.001, 0.24),
    friction=st.floats(1.0, 4.0),
    stopspeed=st.floats(20.0, 200.0),
)
def test_stop_speed_inverts_the_seeds_continuous_stop_distance(distance, dt, friction, stopspeed):
    """Seed 004: the continuous form is there so that "one can compute the reciprocal
    function". The largest speed whose ``getStopDist`` is within the distance, found in the test
    by bisection on the page's formula."""
    params = HalfLifeParams(friction=friction, stopspeed=stopspeed)
    speed = stop_speed(distance, dt, params)
    low, high = 0.0, 1e6
    for _ in range(200):
        middle = 0.5 * (low + high)
        if seed_get_stop_dist(middle, dt, friction, stopspeed) <= distance:
            low = middle
        else:
            high = middle
    assert speed == pytest.approx(low, rel=1e-9, abs=1e-9)


def test_stop_speed_is_unbounded_once_every_speed_stops_in_a_frame():
    assert stop_speed(10.0, 0.3) == math.inf  # F T = 1.2
    with pytest.raises(ValueError, match="distance must be >= 0"):
        stop_speed(-1.0, 0.01)


@pytest.mark.parametrize("model", MODELS)
@given(speed=st.floats(150.0, 320.0), turn=st.floats(0.05, math.pi / 2), dt=st.floats(0.005, 0.2))
def test_turn_crosses_the_initial_line_at_the_predicted_distance(model, speed, turn, dt):
    """Seed 004, "Turns": after a step change of wished direction from a straight move at
    ``speed`` (wished speed unchanged), the final line crosses the initial one at
    ``(1/friction - T) * speed``. The derivation holds while the speed stays above stopspeed
    (proportional friction), so the test checks that premise on the simulated run."""
    engine = HalfLifeEngine(SEED._replace(model=model))
    state = AgentState(0.0, 0.0, speed, 0.0, 0.0)
    command = Command(turn, speed)
    lowest = math.inf
    for _ in range(int(6.0 / dt)):
        state = engine.step(state, command, dt)
        lowest = min(lowest, state.speed)
    assume(lowest > SEED.stopspeed)
    # lateral velocity gone: the agent moves on the final line; where does it cut y = 0?
    assert abs(-state.vx * math.sin(turn) + state.vy * math.cos(turn)) < 1e-6
    crossing = state.x - state.y / math.tan(turn)
    assert crossing == pytest.approx(turn_crossing_distance(speed, dt), rel=1e-6, abs=1e-6)


@pytest.mark.parametrize("model", MODELS)
@given(fraction=st.floats(0.05, 1.0), dt=st.floats(0.005, 0.2))
def test_low_speed_trap_steady_speed(model, fraction, dt):
    """Seed 004, "Low speed commands": under stopspeed*friction/accelerate (60) the steady speed
    is accelerate*T*command, not the command."""
    params = SEED._replace(model=model)
    command_speed = fraction * low_speed_threshold(params)
    assert low_speed_threshold(params) == pytest.approx(60.0)
    engine = HalfLifeEngine(params)
    state = AgentState()
    for _ in range(int(3.0 / dt) + 5):
        state = engine.step(state, Command(0.3, command_speed), dt)
    expected = low_speed_steady_speed(command_speed, dt, params)
    steady = SEED.accelerate * dt * command_speed
    if model == "engine" and steady < 1.0:
        steady = 0.0
    assert expected == pytest.approx(steady)
    assert state.speed == pytest.approx(expected, rel=1e-9, abs=1e-9)
    if SEED.accelerate * dt < 1.0:  # at A T >= 1 one frame of acceleration reaches the command
        assert state.speed < command_speed


@pytest.mark.parametrize("model", MODELS)
@given(fraction=st.floats(1.05, 5.0), dt=st.floats(0.005, 0.1))
def test_speeds_above_the_trap_are_reached(model, fraction, dt):
    params = SEED._replace(model=model)
    command_speed = min(fraction * low_speed_threshold(params), params.maxspeed)
    engine = HalfLifeEngine(params)
    state = AgentState()
    for _ in range(int(5.0 / dt)):
        state = engine.step(state, Command(1.0, command_speed), dt)
    # the friction of one frame is paid before moving, so the steady speed stays within one
    # frame's acceleration of the command
    assert command_speed * (1 - SEED.friction * dt) - 1e-9 <= state.speed
    assert state.speed <= command_speed + 1e-9


@pytest.mark.parametrize("model", MODELS)
@given(state=states, dt=frame_times)
def test_friction_alone_never_reverses_the_velocity(model, state, dt):
    engine = HalfLifeEngine(SEED._replace(model=model))
    for _ in range(5):
        new = engine.step(state, Command(state.yaw, 0.0), dt)
        # the new velocity is a non-negative multiple of the old one
        assert new.vx * state.vx >= 0.0 and new.vy * state.vy >= 0.0
        assert new.speed <= state.speed + 1e-9
        assert abs(new.vx * state.vy - new.vy * state.vx) <= 1e-9 * (1 + state.speed**2)
        state = new


@pytest.mark.parametrize("model", MODELS)
@given(state=states, command=commands, dt=frame_times)
def test_yaw_follows_the_command_and_wished_speed_is_capped(model, state, command, dt):
    engine = HalfLifeEngine(SEED._replace(model=model))
    new = engine.step(state, command, dt)
    assert -math.pi <= new.yaw < math.pi
    assert math.cos(new.yaw - command.yaw) == pytest.approx(1.0)
    # acceleration never pushes the speed along the wish direction past min(command, maxspeed)
    along = new.vx * math.cos(command.yaw) + new.vy * math.sin(command.yaw)
    before = max(state.speed, 0.0)
    assert along <= max(min(command.speed, SEED.maxspeed), before) + 1e-9


def test_engine_model_bounds_each_axis_to_maxvelocity():
    engine = HalfLifeEngine(SEED)
    new = engine.step(AgentState(0, 0, 5000.0, -5000.0, 0), Command(0.0, 0.0), 0.001)
    assert abs(new.vx) <= SEED.maxvelocity and abs(new.vy) <= SEED.maxvelocity


def test_engine_model_zeroes_speeds_under_one_unit_per_second_without_moving():
    engine = HalfLifeEngine(SEED)
    new = engine.step(AgentState(3.0, 4.0, 0.5, 0.0, 0.0), Command(0.0, 0.0), 0.01)
    assert (new.x, new.y, new.vx, new.vy) == (3.0, 4.0, 0.0, 0.0)


def test_stock_parameters():
    stock = HalfLifeParams.stock()
    assert (stock.accelerate, stock.friction, stock.stopspeed) == (10.0, 4.0, 100.0)
    assert (SEED.accelerate, SEED.friction, SEED.stopspeed) == (5.0, 4.0, 75.0)
    assert (SEED.maxspeed, SEED.maxvelocity) == (320.0, 2000.0)


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("dt", [1e-6, 0.25, 1.0, 1e4])
def test_zero_speed_and_large_frame_times_never_give_nan(model, dt):
    engine = HalfLifeEngine(SEED._replace(model=model))
    for state in (AgentState(), AgentState(0, 0, 300.0, 0, 0)):
        for command in (Command(0.0, 0.0), Command(2.0, 320.0), Command(math.pi, 1e9)):
            assert all(math.isfinite(v) for v in engine.step(state, command, dt))
    for exact in (True, False):
        assert math.isfinite(stop_distance(300.0, dt, exact=exact))
        assert math.isfinite(emergency_stop_distance(300.0, 100.0, dt, exact=exact))


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("accelerate", 0.0),
        ("friction", -4.0),
        ("stopspeed", math.nan),
        ("maxspeed", 0.0),
        ("maxvelocity", math.inf),
        ("model", "quake"),
    ],
)
def test_bad_parameters_raise_naming_the_field(field, value):
    with pytest.raises(ValueError, match=field):
        HalfLifeEngine(SEED._replace(**{field: value}))


def test_bad_analytics_input_raises():
    with pytest.raises(ValueError, match="speed"):
        stop_distance(-1.0, 0.1)
    with pytest.raises(ValueError, match="dt"):
        stop_distance(100.0, 0.0)
    with pytest.raises(ValueError, match="opposite_speed"):
        emergency_stop_distance(100.0, 0.0, 0.1)
    with pytest.raises(ValueError, match="speed"):
        turn_crossing_distance(math.nan, 0.1)


# past F T = 1 (outside the seed's range, T < 1 / friction): friction removes the whole velocity
# in one frame; the analytics say so instead of turning negative


@given(initial_speeds, st.floats(0.5, 10.0), st.floats(1.0, 4.0))
def test_past_f_t_one_every_speed_stops_in_one_frame_without_moving(speed, friction, f_t):
    dt = f_t / friction
    params = SEED._replace(friction=friction)
    assert run_until_reversal(speed, dt, "simplified", params=params) == 0.0
    assert stop_distance(speed, dt, params) == 0.0
    assert stop_distance(speed, dt, params, exact=False) == 0.0


@pytest.mark.parametrize("model", MODELS)
@given(speed=st.floats(150.0, 320.0), turn=st.floats(0.05, math.pi / 2), f_t=st.floats(1.0, 4.0))
def test_past_f_t_one_a_turn_leaves_from_where_the_command_changed(model, speed, turn, f_t):
    dt = f_t / SEED.friction
    engine = HalfLifeEngine(SEED._replace(model=model))
    state = AgentState(0.0, 0.0, speed, 0.0, 0.0)
    for _ in range(20):
        state = engine.step(state, Command(turn, speed), dt)
    crossing = state.x - state.y / math.tan(turn)
    assert crossing == pytest.approx(0.0, abs=1e-9 * math.hypot(state.x, state.y))
    assert turn_crossing_distance(speed, dt) == 0.0


@pytest.mark.parametrize("model", MODELS)
@given(command_speed=st.floats(320.0, 2000.0), dt=st.floats(0.005, 0.1))
def test_a_wished_speed_above_maxspeed_settles_at_maxspeed(model, command_speed, dt):
    params = SEED._replace(model=model)
    engine = HalfLifeEngine(params)
    state = AgentState()
    for _ in range(int(5.0 / dt)):
        state = engine.step(state, Command(1.0, command_speed), dt)
    assert low_speed_steady_speed(command_speed, dt, params) == params.maxspeed
    assert params.maxspeed * (1 - SEED.friction * dt) - 1e-9 <= state.speed
    assert state.speed <= params.maxspeed + 1e-9


# frame times so short that 1 - friction * dt rounds to 1: no frame of decay shows in float64


def _continuous_limit(speed, opposite_speed, params=SEED):
    """The laws' limit as T -> 0, integrated by hand: above S, dv/dt = -F (v - E) with E = -A U /
    F, so dx = v dv / (-F (v - E)); below S, dv/dt = -(F S + A U)."""
    friction, stopspeed = params.friction, params.stopspeed
    equivalent = -params.accelerate * opposite_speed / friction
    decel = friction * stopspeed + params.accelerate * opposite_speed
    if speed <= stopspeed:
        return speed**2 / (2 * decel)
    above = (speed - stopspeed) + equivalent * math.log(
        (speed - equivalent) / (stopspeed - equivalent)
    )
    return above / friction + stopspeed**2 / (2 * decel)


def _tiny_frame_distances(speed, opposite_speed, dt, queue):
    from steerlab.laws import StopAt

    law = StopAt((50.0, 20.0), method="predict", engine=HalfLifeEngine())
    command = law.step(AgentState(0.0, 0.0, speed, 0.0, 0.0), dt)  # predicts with the sum
    queue.put(
        (
            stop_distance(speed, dt),
            stop_distance(speed, dt, exact=False),
            emergency_stop_distance(speed, opposite_speed, dt),
            emergency_stop_distance(speed, opposite_speed, dt, exact=False),
            tuple(command),
        )
    )


@pytest.mark.parametrize("dt", [1e-300, 1e-17])
def test_frame_times_too_short_for_float64_end_at_once_with_the_continuous_limit(dt):
    """These hung for ever (a frame count with no finite value), and so did a stop law predicting
    with them; now each call returns within a minute, in a process of its own, the limit the
    per-frame sums tend to (the law, a finite command)."""
    context = multiprocessing.get_context("spawn")
    for speed, opposite in ((100.0, 50.0), (2000.0, 320.0), (30.0, 1.0)):
        queue = context.Queue()
        worker = context.Process(target=_tiny_frame_distances, args=(speed, opposite, dt, queue))
        worker.start()
        worker.join(timeout=60)
        if worker.is_alive():
            worker.kill()
            pytest.fail(f"stop distances at dt={dt} from {speed} did not end within a minute")
        exact, approximate, emergency, emergency_approximate, command = queue.get(timeout=10)
        assert all(math.isfinite(value) for value in command)
        assert exact == pytest.approx(_continuous_limit(speed, 0.0), rel=1e-12)
        assert approximate == pytest.approx(_continuous_limit(speed, 0.0), rel=1e-12)
        assert emergency == pytest.approx(_continuous_limit(speed, opposite), rel=1e-12)
        assert emergency_approximate == pytest.approx(_continuous_limit(speed, opposite), rel=1e-12)


@given(speed=st.floats(1.0, 2000.0), opposite=st.floats(1.0, 320.0))
def test_the_sums_approach_the_continuous_limit_as_the_frame_time_shrinks(speed, opposite):
    """At T = 1e-9 (the per-frame path) the sums are within 1e-6 of the limit used below it."""
    assert stop_distance(speed, 1e-9) == pytest.approx(_continuous_limit(speed, 0.0), rel=1e-6)
    assert emergency_stop_distance(speed, opposite, 1e-9) == pytest.approx(
        _continuous_limit(speed, opposite), rel=1e-6
    )
