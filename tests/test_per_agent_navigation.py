"""Per-agent parameters of the navigators: a batch whose agents each have their own parameter
values (and their own routes) equals each agent's scalar navigator with its own record, bit for
bit, frame after frame (``steerlab._per_agent``).

The scalar navigator is the reference: its kernel runs on a record of plain numbers; the batch
runs the same kernel inside its loop on ``agent_params(params, i)``. Between frames a BaseEngine
moves the agents (its batch equals its scalar step, ``tests/test_per_agent.py``), so that the
navigators' memories (switches, latches) change. Which fields are arrays is a type to numba, so
each navigator is tested with two fixed patterns, each compiled once (the loop body over a range
of agents, the whole navigator inlined, which the serial and parallel builds share): one mixed,
through the serial build, and every field per agent, through the parallel build, which the
hand-picked parallel cases and the checks of entries share.
"""

import contextlib
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.strategies import each_agent, per_agent_records, states

import steerlab._jit
from steerlab.engines import AgentBatch, AgentState, BaseEngine, BaseEngineParams
from steerlab.engines.halflife import HalfLifeParams
from steerlab.navigation import (
    AlongParams,
    AlongSegments,
    AroundPoints,
    AroundPointsParams,
    TowardsParams,
    TowardsPoints,
    find_route,
    load_navdata,
)
from steerlab.navigation.along import ENGINES
from steerlab.navigation.around import CHECKS

AGENTS = 4
FRAMES = 6
DT = 0.05
ENGINE = BaseEngine(BaseEngineParams(k_yaw=6.0, k_speed=3.0))
CATEGORICAL = {"engine", "check"}
NAV = load_navdata("examples/navdata/level.toml")
CORRIDORS = load_navdata("examples/navdata/corridors1.toml")
ROUTES = [
    find_route(NAV, "s1", "g1"),
    find_route(NAV, "s1", "g2"),
    find_route(CORRIDORS, "a", "f"),
    find_route(NAV, "s1", "s1"),
]
SLALOM = load_navdata("examples/navdata/slalom.toml")


def _starts(routes_start, offsets):
    return [
        AgentState(x + state.x * 0.1, y + state.y * 0.1, state.vx, state.vy, state.yaw)
        for (x, y), state in zip(routes_start, offsets, strict=True)
    ]


def _check_against_scalar(batch_navigator, scalar_navigators, starts):
    """``FRAMES`` frames of navigator then engine: the batch equals each scalar navigator, its
    commands and its memory."""
    batch = AgentBatch.from_states(starts)
    agents = list(starts)
    out = None
    for _ in range(FRAMES):
        out = batch_navigator.step_batch(batch, DT, out)
        for i, navigator in enumerate(scalar_navigators):
            command = navigator.step(agents[i], DT)
            assert (out.yaw[i], out.speed[i]) == tuple(command)
            memory = [np.asarray(field)[i].item() for field in batch_navigator.batch_memory]
            assert np.array_equal(np.array(memory), np.array(navigator.memory), equal_nan=True)
            agents[i] = ENGINE.step(agents[i], command, DT)
        ENGINE.step_batch(batch, out.yaw, out.speed, DT)


gains = st.one_of(st.floats(0.05, 1.0 / DT), st.just(math.inf))
positive_or_inf = st.one_of(st.floats(1.0, 1e3), st.just(math.inf))
agent_states = st.lists(states, min_size=AGENTS, max_size=AGENTS)

towards_fields = {
    "k_d": gains,
    "speed_bound": positive_or_inf,
    "switch_radius": st.one_of(st.floats(0.5, 100.0), st.just(math.inf)),
    "speed_to_next_segment": st.booleans(),
    "speed_floor": st.floats(0.0, 100.0),
    "touch_radius": st.floats(0.5, 100.0),
    "min_turn_radius": st.one_of(st.just(0.0), st.floats(1.0, 400.0)),
    "yaw_rate_max": st.one_of(st.floats(0.2, 10.0), st.just(math.inf)),
}
along_fields = {
    "version": st.sampled_from((1, 2)),
    "k_y": st.floats(0.1, 8.0),
    "k_d": st.floats(0.1, 0.99 / DT),
    "intercept_max": st.floats(0.05, math.pi / 2.0),
    "k_margin": st.floats(0.0, 20.0),
    "speed_bound": st.floats(1.0, 1e3),  # without speed control, inf is commanded
    "predict": st.booleans(),
    "speed_control": st.booleans(),
    "prediction_horizon": st.one_of(st.floats(0.0, 0.5), st.just(math.inf)),
    "switch_radius": st.one_of(st.floats(0.0, 100.0), st.just(math.inf)),
    "ladder_k_y": st.floats(0.1, 8.0),
    "engine": st.sampled_from(ENGINES),
    "engine_rate": st.one_of(st.floats(0.5, 10.0), st.just(math.inf)),
    "floor": st.floats(0.0, 100.0),
    "accelerate": st.floats(0.0, 10.0),
    "maxspeed": st.floats(0.0, 500.0),
    "touch_radius": st.floats(0.5, 100.0),
}
around_fields = {
    "k_d": gains,
    "speed_bound": positive_or_inf,
    "check": st.sampled_from(CHECKS),
    "prediction_horizon": st.floats(0.0, 0.5),
    "max_turns": st.one_of(st.floats(0.1, 3.0), st.just(math.inf)),
}


def patterns(record_class, fields, shared):
    """The strategy of records each build is tested with (module docstring): ``"serial"`` the
    fields named in ``shared`` one value for all, ``"parallel"`` every field per agent."""
    return {
        "serial": per_agent_records(record_class, fields, AGENTS, shared, CATEGORICAL),
        "parallel": per_agent_records(record_class, fields, AGENTS, categorical=CATEGORICAL),
    }


@contextlib.contextmanager
def build_forced(build):
    """The serial build (4 agents), or the parallel one (``SERIAL_LIMIT`` 0)."""
    with pytest.MonkeyPatch.context() as patch:
        if build == "parallel":
            patch.setattr(steerlab._jit, "SERIAL_LIMIT", 0)
        yield


def every_field_per_agent(record_class, fields, size=AGENTS, **values):
    """A record of the ``"parallel"`` pattern: one value per agent in each field named in
    ``fields``, those of ``values`` or else the field's default for every agent."""
    defaults = record_class._field_defaults
    record = {}
    for name in fields:
        value = values.get(name, [defaults[name]] * size)
        record[name] = tuple(value) if name in CATEGORICAL else np.array(value)
    return record_class(**record)


TOWARDS_PATTERNS = patterns(TowardsParams, towards_fields, ("k_d", "speed_to_next_segment"))
ALONG_PATTERNS = patterns(AlongParams, along_fields, ("version", "engine", "predict", "k_d"))
AROUND_PATTERNS = patterns(AroundPointsParams, around_fields, ("check", "prediction_horizon"))


@pytest.mark.parametrize("build", ["serial", "parallel"])
@given(st.data(), agent_states)
def test_towards_batch_with_own_parameters_equals_each_scalar_navigator(build, data, offsets):
    params = data.draw(TOWARDS_PATTERNS[build])
    batch_navigator = TowardsPoints.from_params(ROUTES, params, offset_rng=np.random.default_rng(1))
    shared = batch_navigator.offsets
    singles = []
    first = 0
    for i, route in enumerate(ROUTES):
        own = shared[first : first + route.waypoint_count]
        singles.append(TowardsPoints.from_params(route, each_agent(params, i), offsets=own))
        first += route.waypoint_count
    starts = _starts([route.positions[0, :2] for route in ROUTES], offsets)
    with build_forced(build):
        _check_against_scalar(batch_navigator, singles, starts)


@pytest.mark.parametrize("build", ["serial", "parallel"])
@given(st.data(), agent_states)
def test_along_batch_with_own_parameters_equals_each_scalar_navigator(build, data, offsets):
    params = data.draw(ALONG_PATTERNS[build])
    batch_navigator = AlongSegments.from_params(ROUTES, params)
    singles = [
        AlongSegments.from_params(route, each_agent(params, i)) for i, route in enumerate(ROUTES)
    ]
    starts = _starts([route.positions[0, :2] for route in ROUTES], offsets)
    with build_forced(build):
        _check_against_scalar(batch_navigator, singles, starts)


@pytest.mark.parametrize("build", ["serial", "parallel"])
@given(st.data(), agent_states)
def test_around_batch_with_own_parameters_equals_each_scalar_navigator(build, data, offsets):
    params = data.draw(AROUND_PATTERNS[build])
    batch_navigator = AroundPoints.from_params(SLALOM, params)
    singles = [AroundPoints.from_params(SLALOM, each_agent(params, i)) for i in range(AGENTS)]
    start = SLALOM.points[0].center[:2]
    with build_forced(build):
        _check_against_scalar(batch_navigator, singles, _starts([start] * AGENTS, offsets))


def test_the_public_constructors_build_the_records():
    towards = TowardsPoints(ROUTES[0], switch_radius=None, speed_floor=5.0)
    assert towards.params == TowardsParams(math.inf, 320.0, math.inf, False, 5.0)
    assert towards.k_d is None and towards.switch_radius is None
    engine = HalfLifeParams()
    along = AlongSegments(ROUTES[0], version=1, engine=engine, k_d=10.0, predict=False)
    expected = AlongParams(
        version=1,
        k_y=1.0,
        k_d=10.0,
        predict=False,
        engine="half-life",
        engine_rate=engine.friction,
        floor=engine.stopspeed * engine.friction / engine.accelerate,
        accelerate=engine.accelerate,
        maxspeed=engine.maxspeed,
    )
    assert along.params == expected
    assert along.prediction_horizon is None and along.switch_radius is None
    around = AroundPoints(SLALOM, k_d=2.0, check="yaw")
    assert around.params == AroundPointsParams(2.0, 320.0, "yaw", 0.0, 1.5)


def test_per_agent_navigators_refuse_a_scalar_step_and_a_batch_of_another_size():
    navigator = TowardsPoints.from_params(ROUTES[0], TowardsParams(k_d=[1.0, 2.0, 3.0]))
    assert navigator.agents == 3
    with pytest.raises(ValueError, match=r"TowardsPoints\.step takes one value per parameter"):
        navigator.step(AgentState(1.0, 0.0, 0.0, 0.0, 0.0), 0.1)
    with pytest.raises(ValueError, match="holds 3 values per field, one per agent, but the batch"):
        navigator.step_batch(AgentBatch.zeros(4), 0.1)
    with pytest.raises(ValueError, match="route holds 2 entries but AlongParams holds 3"):
        AlongSegments.from_params(ROUTES[:2], AlongParams(k_d=[1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="offset_rng with one switch_radius per agent needs one"):
        TowardsPoints.from_params(
            ROUTES[0], TowardsParams(switch_radius=[1.0, 2.0]), np.random.default_rng(0)
        )


def test_per_agent_values_are_checked_entry_by_entry():
    # the records of the property tests' patterns (their batch loops compiled once for both)
    around = AroundPointsParams(k_d=[1.0, 15.0, math.inf], speed_bound=[320.0] * 3)
    navigator = AroundPoints.from_params(SLALOM, around._replace(max_turns=[1.5] * 3))
    navigator.step_batch(AgentBatch.zeros(3), 0.05)  # 1/T = 20: inf stands for it
    with pytest.raises(ValueError, match=r"k_d\[1\] must be <= 1/dt = 10\.0 .*got 15\.0"):
        navigator.step_batch(AgentBatch.zeros(3), 0.1)
    params = every_field_per_agent(AlongParams, along_fields, 2, version=[2, 1], k_d=[30.0, 15.0])
    along = AlongSegments.from_params(ROUTES[0], params)
    with build_forced("parallel"):
        along.step_batch(AgentBatch.zeros(2), 0.05)  # version 2 takes k_D above 1/T
        with pytest.raises(ValueError, match=r"k_d\[1\] must be < 1/dt = 10\.0 for version 1"):
            along.step_batch(AgentBatch.zeros(2), 0.1)
    with pytest.raises(ValueError, match=r"version\[1\] must be 1 or 2, got 3"):
        AlongParams(version=[1, 3]).validated()
    with pytest.raises(ValueError, match=r"intercept_max\[0\] must be <= pi/2"):
        AlongParams(intercept_max=[2.0, 1.0]).validated()
    with pytest.raises(ValueError, match=r"check\[1\] must be one of"):
        AroundPointsParams(check=("yaw", "velocity")).validated()
    with pytest.raises(ValueError, match=r"speed_to_next_segment\[0\] must be True or False"):
        TowardsParams(speed_to_next_segment=[1, True]).validated()


PARALLEL_CASES = {  # hand-picked values, every other field its default for every agent
    "towards": (
        TowardsPoints,
        every_field_per_agent(
            TowardsParams,
            towards_fields,
            k_d=[2.0, 5.0, math.inf, 10.0],
            speed_bound=[100.0, 320.0, math.inf, 50.0],
            switch_radius=[math.inf, 20.0, 5.0, 60.0],
            speed_to_next_segment=[True, False, True, False],
            speed_floor=[0.0, 10.0, 5.0, 0.0],
        ),
    ),
    "along": (
        AlongSegments,
        every_field_per_agent(
            AlongParams,
            along_fields,
            version=[1, 2, 1, 2],
            k_y=[4.0, 1.0, 2.0, 6.0],
            k_d=[3.0, 15.0, 1.0, 8.0],
            engine=("half-life", "base", "none", "half-life"),
            engine_rate=[4.0, 6.0, 1.0, 2.0],
            floor=[0.0, 10.0, 5.0, 0.0],
            accelerate=[10.0, 0.0, 5.0, 10.0],
            maxspeed=[320.0, 0.0, 100.0, 320.0],
        ),
    ),
    "around": (
        AroundPoints,
        every_field_per_agent(
            AroundPointsParams,
            around_fields,
            k_d=[2.0, 5.0, math.inf, 10.0],
            speed_bound=[100.0, 320.0, math.inf, 50.0],
            check=("command", "yaw", "yaw", "command"),
            prediction_horizon=[0.0, 0.1, 0.3, 0.05],
            max_turns=[1.5, math.inf, 0.5, 1.0],
        ),
    ),
}


@pytest.mark.parametrize("name", sorted(PARALLEL_CASES))
def test_the_parallel_build_with_own_parameters_equals_each_scalar_navigator(name, monkeypatch):
    """The batch loop's parallel build (each agent's step a called kernel that writes its memory
    and command through records of arrays), every field of the property tests per agent: each
    agent equals its scalar navigator, frame after frame."""
    monkeypatch.setattr(steerlab._jit, "SERIAL_LIMIT", 0)  # the prange build, even for 4 agents
    navigator_class, params = PARALLEL_CASES[name]
    rng = np.random.default_rng(7)
    offsets = [AgentState(*rng.uniform(-50.0, 50.0, 4), rng.uniform(-3.0, 3.0)) for _ in ROUTES]
    if navigator_class is AroundPoints:
        lists, shared = [SLALOM] * AGENTS, SLALOM
        start_points = [SLALOM.points[0].center[:2]] * AGENTS
    else:
        lists, shared = ROUTES, ROUTES
        start_points = [route.positions[0, :2] for route in ROUTES]
    batch_navigator = navigator_class.from_params(shared, params)
    build = navigator_class.from_params
    singles = [build(own, each_agent(params, i)) for i, own in enumerate(lists)]
    _check_against_scalar(batch_navigator, singles, _starts(start_points, offsets))
