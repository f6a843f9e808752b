"""StopAt (seed 000, "Decelerating & stopping") and the BaseEngine stop distance it uses."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from steerlab.engines import (
    AgentBatch,
    AgentState,
    BaseEngine,
    BaseEngineParams,
    Command,
    HalfLifeEngine,
    HalfLifeParams,
)
from steerlab.engines.base import base_engine_stop_distance, base_engine_stop_speed
from steerlab.engines.halflife import emergency_stop_distance, stop_distance
from steerlab.laws.stop import StopAt, StopParams
from steerlab.sim import simulate


@given(
    speed=st.floats(0.0, 1000.0),
    dt=st.floats(0.002, 0.25),
    k_speed=st.floats(0.5, 50.0),
    decel=st.one_of(st.just(-math.inf), st.floats(-3000.0, -10.0)),
)
def test_base_engine_stop_distance_equals_simulation(speed, dt, k_speed, decel):
    params = BaseEngineParams(k_speed=k_speed, decel_long_max=decel)
    engine = BaseEngine(params)
    state = AgentState(0.0, 0.0, speed, 0.0, 0.0)
    for _ in range(200_000):
        new = engine.step(state, Command(0.0, 0.0), dt)
        if new.x == state.x:
            break
        state = new
    assert base_engine_stop_distance(speed, dt, params) == pytest.approx(
        state.x, rel=1e-9, abs=1e-9
    )


ENGINES = {
    "halflife": HalfLifeEngine(),
    "halflife-simplified": HalfLifeEngine(HalfLifeParams(model="simplified")),
    "base-lagged": BaseEngine(BaseEngineParams(k_speed=4.0, k_yaw=8.0)),
    "base-bounded": BaseEngine(BaseEngineParams(k_speed=4.0, decel_long_max=-400.0)),
}


@pytest.mark.parametrize("name", list(ENGINES))
@given(extra=st.floats(0.0, 2000.0), dt=st.floats(0.005, 0.1), speed=st.floats(100.0, 320.0))
def test_open_loop_prediction_stops_within_one_frame_of_travel(name, extra, dt, speed):
    """Seed 000 (open-loop prediction) with seed 004's bound: "a point cannot be targetted with
    an accuracy better than T*speed"; braking at the first frame within the stop distance
    overshoots by less than one frame of travel, and never stops short by more. The target is
    placed beyond the stop distance of the starting speed plus one frame, so that braking can
    start in time."""
    engine = ENGINES[name]
    law_for_distance = StopAt((1.0, 0.0), method="predict", engine=engine)
    own_stop = law_for_distance.stop_distance(speed, dt)
    distance = own_stop + dt * speed + extra
    law = StopAt((distance, 0.0), method="predict", engine=engine, speed=speed)
    trace = simulate(engine, law, AgentState(0.0, 0.0, speed, 0.0, 0.0), dt, int(60.0 / dt))
    assert trace.commands["speed"][-1] == 0.0
    triggered = int(np.argmax(trace.commands["speed"] == 0.0))
    assert np.all(trace.commands["speed"][triggered:] == 0.0)  # latched
    speed_at_trigger = math.hypot(trace.vx[triggered], trace.vy[triggered])
    assert abs(trace.x[-1] - distance) <= dt * speed_at_trigger + 1e-6
    assert math.hypot(trace.vx[-1], trace.vy[-1]) < 1.0


@given(start=st.floats(-1000.0, 1000.0), k_d=st.floats(0.05, 1.0), dt=st.floats(0.005, 0.1))
def test_distance_law_converges_on_an_engine_without_deceleration_bound(start, k_d, dt):
    """Seed 000: UE_mVel = k_D MQ / T "works with an engine such as the base engine without
    bound on decceleration"."""
    engine = BaseEngine(BaseEngineParams(k_yaw=math.inf, k_speed=math.inf))
    law = StopAt((0.0, 0.0), k_d=k_d, speed=math.inf)
    trace = simulate(engine, law, AgentState(start, 0.0, 0.0, 0.0, math.pi), dt, 400)
    remaining = np.abs(trace.x)
    assert np.all(np.diff(remaining) <= 1e-9)  # never overshoots
    assert remaining[-1] <= abs(start) * (1.0 - k_d) ** 300 + 1e-9


def test_batch_equals_scalar_with_latches():
    rng = np.random.default_rng(11)
    size = 64
    engine = ENGINES["halflife"]
    targets = np.column_stack([rng.uniform(200, 800, size), rng.uniform(-50, 50, size)])
    batch = AgentBatch(
        np.zeros(size), np.zeros(size), np.full(size, 250.0), np.zeros(size), np.zeros(size)
    )
    for method in ("predict", "distance", "emergency"):
        law = StopAt(targets, method=method, engine=engine, speed=250.0)
        singles = [
            StopAt(targets[i], method=method, engine=engine, speed=250.0) for i in range(size)
        ]
        states = [batch.state(i) for i in range(size)]
        work = batch.copy()
        for _ in range(300):
            out = law.step_batch(work, 0.02)
            commands = [
                single.step(state, 0.02) for single, state in zip(singles, states, strict=True)
            ]
            for i, command in enumerate(commands):
                assert (out.yaw[i], out.speed[i]) == tuple(command)
            engine.step_batch(work, out.yaw, out.speed, 0.02)
            states = [
                engine.step(state, command, 0.02)
                for state, command in zip(states, commands, strict=True)
            ]
        if method != "distance":
            assert law.batch_stopping.all()
            assert all(single.memory.stopping for single in singles)


def test_reset_clears_the_latch():
    engine = ENGINES["halflife"]
    law = StopAt((10.0, 0.0), method="predict", engine=engine)
    law.step(AgentState(0, 0, 300.0, 0, 0), 0.02)
    assert law.memory.stopping
    law.reset()
    assert not law.memory.stopping


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"method": "hover"}, "method"),
        ({"k_d": 1.5}, "k_d"),
        ({"k_d": 0.0}, "k_d"),
        ({"method": "predict"}, "engine"),
        ({"method": "predict", "engine": "hl"}, "engine"),
        ({"speed": -1.0}, "speed"),
    ],
)
def test_bad_construction_raises(kwargs, name):
    with pytest.raises(ValueError, match=name):
        StopAt((0.0, 0.0), **kwargs)


def _simulated_stop_distance(params, speed, dt):
    """Distance the BaseEngine runs from ``speed`` under a zero command, by simulation."""
    engine = BaseEngine(params)
    state = AgentState(0.0, 0.0, speed, 0.0, 0.0)
    for _ in range(200_000):
        new = engine.step(state, Command(0.0, 0.0), dt)
        if new.x == state.x:
            break
        state = new
    return state.x


@given(
    distance=st.floats(0.0, 500.0),
    dt=st.floats(0.005, 0.1),
    k_speed=st.floats(1.0, 20.0),
    decel=st.one_of(st.just(-math.inf), st.floats(-3000.0, -50.0)),
)
def test_base_engine_stop_speed_is_the_largest_speed_that_stops_within_the_distance(
    distance, dt, k_speed, decel
):
    """The inverse of the stop distance, checked against simulated stops: from the returned
    speed the engine stops within the distance, from a slightly larger one it does not."""
    params = BaseEngineParams(k_speed=k_speed, decel_long_max=decel)
    speed = base_engine_stop_speed(distance, dt, params)
    assert _simulated_stop_distance(params, speed, dt) <= distance * (1.0 + 1e-9) + 1e-9
    if distance > 1e-3:
        faster = speed * (1.0 + 1e-6) + 1e-9
        assert _simulated_stop_distance(params, faster, dt) > distance


def test_base_engine_stop_speed_without_lag_or_bound_is_unbounded():
    params = BaseEngineParams(k_speed=math.inf)
    assert base_engine_stop_speed(0.0, 0.05, params) == math.inf
    with pytest.raises(ValueError, match="distance must be >= 0"):
        base_engine_stop_speed(-1.0, 0.05)


@pytest.mark.parametrize("model", ["engine", "simplified"])
@given(extra=st.floats(0.0, 500.0), dt=st.floats(0.005, 0.05), speed=st.floats(100.0, 320.0))
def test_emergency_stop_ends_on_the_point_without_moving_back(model, extra, dt, speed):
    """Seed 004's emergency stop: the backwards button "should ideally be depressed until speed is
    zero then released to avoid moving back ... a bot ... can be more accurate". Triggered at the
    first frame within ``getEmergStopDistDetailed``, the bot ends within one frame of travel of
    the point (seed 004: "a point cannot be targetted with an accuracy better than T*speed") and
    never moves back. From the trigger it runs less far than a plain stop would (the reason for
    it: "another faster way to stop"), by the seed's own formulas."""
    params = HalfLifeParams(model=model)
    engine = HalfLifeEngine(params)
    distance = emergency_stop_distance(speed, params.maxspeed, dt, params) + dt * speed + extra
    law = StopAt((distance, 0.0), method="emergency", engine=engine, speed=speed)
    trace = simulate(engine, law, AgentState(0.0, 0.0, speed, 0.0, 0.0), dt, int(30.0 / dt))
    assert law.memory.stopping and not law.memory.braking
    assert np.all(np.diff(trace.x) >= -1e-9)  # never back
    assert math.hypot(trace.vx[-1], trace.vy[-1]) < 1.0
    assert abs(trace.x[-1] - distance) <= dt * speed + 1e-6
    triggered = int(np.argmax(trace.commands["yaw"] != 0.0))
    from_trigger = trace.x[-1] - trace.x[triggered]
    assert from_trigger <= stop_distance(math.hypot(trace.vx[triggered], 0.0), dt, params) + 1e-9


def test_emergency_needs_half_life():
    with pytest.raises(ValueError, match="HalfLifeEngine for method='emergency'"):
        StopAt((10.0, 0.0), method="emergency", engine=BaseEngine())
    with pytest.raises(ValueError, match="method 'emergency' needs engine 'half-life'"):
        StopParams(method="emergency", engine="base").validated()
