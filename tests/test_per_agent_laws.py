"""Per-agent parameters of the guidance laws: a batch whose agents each have their own parameter
values (and their own targets) equals each agent's scalar law with its own record, bit for bit,
frame after frame (``steerlab._per_agent``).

The scalar law is the reference: its kernel runs on a record of plain numbers; the batch runs the
same kernel inside its loop on ``agent_params(params, i)``. Between frames a BaseEngine moves the
agents (its batch equals its scalar step, ``tests/test_per_agent.py``), so that the laws'
memories (arrival and stop latches) change. Which fields are arrays is a type to numba, so each
law is tested with two patterns: every field per agent, and one mixed.
"""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.strategies import each_agent, per_agent_patterns, states, timesteps

from steerlab.engines import AgentBatch, AgentState, BaseEngine, BaseEngineParams
from steerlab.laws import (
    AroundParams,
    AroundPoint,
    FollowLine,
    LineParams,
    OrientedParams,
    ReachOriented,
    SeekParams,
    SeekPoint,
    StopAt,
    StopParams,
)
from steerlab.laws._braking import ENGINES as SEEK_ENGINES
from steerlab.laws.line import LAWS
from steerlab.laws.oriented import FAMILIES
from steerlab.laws.stop import ENGINES, METHODS

AGENTS = 5
FRAMES = 3
ENGINE = BaseEngine(BaseEngineParams(k_yaw=6.0, k_speed=3.0))
CATEGORICAL = {"law", "family", "method", "engine"}


def _points(size):
    return st.lists(
        st.tuples(st.floats(-500.0, 500.0), st.floats(-500.0, 500.0)),
        min_size=size,
        max_size=size,
    ).map(np.array)


def _check_against_scalar(batch_law, scalar_laws, starts, dt):
    """``FRAMES`` frames of law then engine: the batch's commands equal each scalar law's."""
    batch = AgentBatch.from_states(starts)
    agents = list(starts)
    out = None
    for _ in range(FRAMES):
        out = batch_law.step_batch(batch, dt, out)
        for i, law in enumerate(scalar_laws):
            command = law.step(agents[i], dt)
            assert (out.yaw[i], out.speed[i]) == tuple(command)
            agents[i] = ENGINE.step(agents[i], command, dt)
        ENGINE.step_batch(batch, out.yaw, out.speed, dt)


gains = st.one_of(st.floats(0.05, 4.0), st.just(math.inf))  # <= 1/T for every timestep drawn
positive_or_inf = st.one_of(st.floats(1e-2, 1e3), st.just(math.inf))
agent_states = st.lists(states, min_size=AGENTS, max_size=AGENTS)

seek_fields = {
    "k_d": gains,
    "speed_bound": positive_or_inf,
    "arrival_radius": st.floats(0.0, 100.0),
    "rearm_distance": st.one_of(st.floats(1.0, 1e3), st.just(math.inf)),
    "arrive": st.booleans(),
    "engine": st.sampled_from(SEEK_ENGINES),
    "k_speed": positive_or_inf,
    "decel_long_max": st.one_of(st.floats(-1e3, -1e-2), st.just(-math.inf)),
    "k_yaw": positive_or_inf,
    "yaw_rate_max": positive_or_inf,
    "accel_trans_max": positive_or_inf,
    "friction": st.floats(0.5, 10.0),
    "stopspeed": st.floats(10.0, 200.0),
    "floor": st.floats(0.0, 100.0),
}
around_fields = {
    "distance": st.floats(0.0, 200.0),
    "side": st.sampled_from((1.0, -1.0)),
    "k_d": gains,
    "speed_bound": positive_or_inf,
}
line_fields = {
    "k_y": gains,
    "intercept_max": st.floats(0.01, math.pi / 2.0),
    "yaw_rate_max": positive_or_inf,
    "accel_trans_max": positive_or_inf,
    "k_yaw": positive_or_inf,
    "predict": st.booleans(),
    "speed": st.floats(0.0, 500.0),
    "law": st.sampled_from(LAWS),
    "turn_limit": st.floats(0.0, math.pi / 2.0),
    "turn_rule": st.booleans(),
}
oriented_fields = {
    "family": st.sampled_from(FAMILIES),
    "k": st.floats(1.01, 6.0),
    "b": st.floats(-3.0, 3.0),
    "c": st.floats(0.0, 3.0),
    "speed": st.floats(1.0, 500.0),
    "relative_bearing_max": st.floats(0.1, math.pi),
    "adapt": st.booleans(),
    "arrival_radius": st.floats(0.0, 100.0),
    "arrive": st.booleans(),
}
stop_fields = {
    "method": st.sampled_from(METHODS),
    "k_d": st.floats(0.01, 1.0),
    "speed": st.floats(1.0, 500.0),
    "engine": st.sampled_from(ENGINES),
    "k_speed": positive_or_inf,
    "decel_long_max": st.one_of(st.floats(-1e3, -1e-2), st.just(-math.inf)),
    "friction": st.floats(0.5, 10.0),
    "stopspeed": st.floats(10.0, 200.0),
    "accelerate": st.floats(1.0, 20.0),
    "opposite_speed": st.floats(10.0, 500.0),
}


@given(
    per_agent_patterns(
        SeekParams, seek_fields, AGENTS, shared=("k_d", "arrive"), categorical=CATEGORICAL
    ),
    _points(AGENTS),
    agent_states,
    timesteps,
)
def test_seek_batch_with_own_parameters_equals_each_scalar_law(params, targets, starts, dt):
    batch_law = SeekPoint.from_params(targets, params)
    singles = [SeekPoint.from_params(targets[i], each_agent(params, i)) for i in range(AGENTS)]
    _check_against_scalar(batch_law, singles, starts, dt)
    assert batch_law.batch_arrived.tolist() == [law.memory.arrived for law in singles]


@given(
    per_agent_patterns(
        AroundParams, around_fields, AGENTS, shared=("side", "speed_bound"), categorical=CATEGORICAL
    ),
    _points(AGENTS),
    agent_states,
    timesteps,
)
def test_around_batch_with_own_parameters_equals_each_scalar_law(params, centers, starts, dt):
    batch_law = AroundPoint.from_params(centers, params)
    singles = [AroundPoint.from_params(centers[i], each_agent(params, i)) for i in range(AGENTS)]
    _check_against_scalar(batch_law, singles, starts, dt)


@given(
    per_agent_patterns(
        LineParams, line_fields, AGENTS, shared=("law", "predict", "k_yaw"), categorical=CATEGORICAL
    ),
    _points(AGENTS),
    agent_states,
    timesteps,
)
def test_line_batch_with_own_parameters_equals_each_scalar_law(params, starts_of_lines, starts, dt):
    ends = starts_of_lines + np.array([[300.0, -40.0]])
    batch_law = FollowLine.from_params(starts_of_lines, ends, params)
    singles = [
        FollowLine.from_params(starts_of_lines[i], ends[i], each_agent(params, i))
        for i in range(AGENTS)
    ]
    _check_against_scalar(batch_law, singles, starts, dt)


@given(
    per_agent_patterns(
        OrientedParams,
        oriented_fields,
        AGENTS,
        shared=("family", "k", "arrive"),
        categorical=CATEGORICAL,
    ),
    _points(AGENTS),
    st.lists(st.floats(-math.pi, math.pi), min_size=AGENTS, max_size=AGENTS),
    agent_states,
    timesteps,
)
def test_oriented_batch_with_own_parameters_equals_each_scalar_law(
    params, targets, courses, starts, dt
):
    batch_law = ReachOriented.from_params(targets, courses, params)
    singles = [
        ReachOriented.from_params(targets[i], courses[i], each_agent(params, i))
        for i in range(AGENTS)
    ]
    _check_against_scalar(batch_law, singles, starts, dt)


def _emergency_on_half_life(params):
    """Seed 004's emergency stop is Half-Life's: agents that use it get that engine."""
    if isinstance(params.method, str):
        return params._replace(engine="half-life") if params.method == "emergency" else params
    engines = np.broadcast_to(np.array(params.engine, dtype=object), (len(params.method),))
    engines = tuple(
        "half-life" if method == "emergency" else engine
        for method, engine in zip(params.method, engines, strict=True)
    )
    return params._replace(engine=engines)


@given(
    per_agent_patterns(
        StopParams,
        stop_fields,
        AGENTS,
        shared=("method", "engine", "friction"),
        categorical=CATEGORICAL,
    ).map(_emergency_on_half_life),
    _points(AGENTS),
    agent_states,
    timesteps,
)
def test_stop_batch_with_own_parameters_equals_each_scalar_law(params, targets, starts, dt):
    batch_law = StopAt.from_params(targets, params)
    singles = [StopAt.from_params(targets[i], each_agent(params, i)) for i in range(AGENTS)]
    _check_against_scalar(batch_law, singles, starts, dt)
    assert batch_law.batch_stopping.tolist() == [law.memory.stopping for law in singles]
    memory = batch_law.batch_memory
    assert memory.braking.tolist() == [law.memory.braking for law in singles]
    assert memory.brake_yaw.tolist() == [law.memory.brake_yaw for law in singles]


def test_the_public_constructors_build_the_records():
    seek = SeekPoint((1.0, 2.0), arrival_radius=None)
    assert seek.params == SeekParams(k_d=math.inf, arrive=False)
    assert seek.k_d is None and seek.arrival_radius is None
    around = AroundPoint((0.0, 0.0), 40.0, side=-1, k_d=2.0)
    assert around.params == AroundParams(40.0, -1.0, 2.0, 320.0)
    line = FollowLine((0.0, 0.0), (1.0, 0.0), k_y=None, turn_limit=0.5, law="asin")
    assert line.params == LineParams(k_y=math.inf, law="asin", turn_limit=0.5, turn_rule=True)
    assert line.k_y is None and line.turn_limit == 0.5
    oriented = ReachOriented((0.0, 0.0), 0.0, "CIRCLE", relative_bearing_max=None)
    assert (oriented.params.family, oriented.params.b, oriented.params.c) == ("CIRCLE", 0.0, 1.0)
    assert oriented.relative_bearing_max is None and oriented.params.adapt is False
    stop = StopAt((0.0, 0.0), "predict", engine=ENGINE, speed=200.0)
    assert stop.params == StopParams("predict", 0.5, 200.0, "base", 3.0, -math.inf)


def test_per_agent_laws_refuse_a_scalar_step_and_a_batch_of_another_size():
    law = SeekPoint.from_params((0.0, 0.0), SeekParams(k_d=[1.0, 2.0, 3.0]))
    assert law.agents == 3
    with pytest.raises(ValueError, match=r"SeekPoint\.step takes one value per parameter"):
        law.step(AgentState(1.0, 0.0, 0.0, 0.0, 0.0), 0.1)
    with pytest.raises(ValueError, match="holds 3 values per field, one per agent, but the batch"):
        law.step_batch(AgentBatch.zeros(4), 0.1)
    with pytest.raises(ValueError, match="target holds 2 targets but SeekParams holds 3"):
        SeekPoint.from_params(np.zeros((2, 2)), SeekParams(k_d=[1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match=r"course holds 2 angles but OrientedParams holds 3"):
        ReachOriented.from_params((0.0, 0.0), [0.0, 1.0], OrientedParams(k=[2.0, 3.0, 4.0]))


def test_per_agent_values_are_checked_entry_by_entry():
    law = AroundPoint.from_params((0.0, 0.0), AroundParams(k_d=[1.0, 15.0, math.inf]))
    law.step_batch(AgentBatch.zeros(3), 0.05)  # 1/T = 20: inf stands for it
    with pytest.raises(ValueError, match=r"k_d\[1\] must be <= 1/dt = 10\.0 .*got 15\.0"):
        law.step_batch(AgentBatch.zeros(3), 0.1)
    with pytest.raises(ValueError, match=r"side\[1\] must be \+1 or -1, got 0\.5"):
        AroundPoint.from_params((0.0, 0.0), AroundParams(side=[1.0, 0.5]))
    with pytest.raises(ValueError, match=r"arrive\[1\] must be True or False, got 2"):
        SeekPoint.from_params((0.0, 0.0), SeekParams(arrive=[True, 2]))
    with pytest.raises(ValueError, match=r"law\[0\] must be one of"):
        FollowLine.from_params((0.0, 0.0), (1.0, 0.0), LineParams(law=("cubic", "asin")))
    with pytest.raises(ValueError, match=r"intercept_max\[1\] must be in \(0, pi/2\]"):
        FollowLine.from_params((0.0, 0.0), (1.0, 0.0), LineParams(intercept_max=[0.5, 2.0]))
    with pytest.raises(ValueError, match=r"k\[1\] must be > 1 for family 'F4', got 1\.0"):
        ReachOriented.from_params(
            (0.0, 0.0), 0.0, OrientedParams(family=("F2", "F4"), k=[1.0, 1.0])
        )
    # a named family writes its own K, B, c: LINE's K = 1 is not F2's domain check
    named = OrientedParams(family=("LINE", "F1"), k=0.5, c=[2.0, 3.0]).validated()
    assert named.k.tolist() == [1.0, 0.5] and named.c.tolist() == [0.0, 3.0]
    with pytest.raises(ValueError, match=r"speed\[1\] must be > 0 and finite, got inf"):
        StopAt.from_params(
            (0.0, 0.0), StopParams(method=("distance", "predict"), speed=[math.inf, math.inf])
        )
    with pytest.raises(ValueError, match=r"k_d\[0\] must be <= 1 \(seed 000"):
        StopAt.from_params((0.0, 0.0), StopParams(k_d=[2.0, 0.5]))
