"""Per-agent parameters: a batch whose agents each have their own parameter values equals each
agent's scalar step with its own record, bit for bit (``steerlab._per_agent``).

The scalar step is the reference: it runs the kernel on a record of plain numbers, the batch
runs the same kernel inside its loop on ``agent_params(params, i)``. Any field may be per agent;
the strategies draw which.
"""

import math
from typing import NamedTuple

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.strategies import commands, each_agent, per_agent_patterns, states, timesteps

from steerlab._checks import check_negative, check_positive
from steerlab._per_agent import (
    agent_params,
    check_agent_count,
    check_shared,
    per_agent_size,
    set_agent,
)
from steerlab.engines import (
    AgentBatch,
    AgentState,
    BaseEngine,
    BaseEngineParams,
    Command,
    HalfLifeEngine,
    HalfLifeParams,
    Unicycle,
    UnicycleParams,
    UnicycleState,
)
from steerlab.engines.unicycle import UnicycleBatch, UnicycleCommand

AGENTS = 6


positive = st.floats(1e-2, 1e3, allow_nan=False)
positive_or_inf = st.one_of(positive, st.just(math.inf))
base_fields = {
    "k_yaw": positive_or_inf,
    "k_speed": positive_or_inf,
    "yaw_rate_max": positive_or_inf,
    "accel_trans_max": positive_or_inf,
    "accel_long_max": positive_or_inf,
    "decel_long_max": st.one_of(st.floats(-1e3, -1e-2), st.just(-math.inf)),
}
half_life_fields = {
    "accelerate": st.floats(0.5, 20.0),
    "friction": st.floats(0.5, 10.0),
    "stopspeed": st.floats(10.0, 200.0),
    "maxspeed": st.floats(50.0, 600.0),
    "maxvelocity": st.floats(100.0, 3000.0),
    "model": st.sampled_from(("engine", "simplified")),
}
unicycle_fields = {name: st.floats(0.1, 10.0) for name in UnicycleParams._fields}


@given(
    per_agent_patterns(BaseEngineParams, base_fields, AGENTS, shared=("k_yaw", "accel_long_max")),
    st.lists(states, min_size=AGENTS, max_size=AGENTS),
    st.lists(commands, min_size=AGENTS, max_size=AGENTS),
    timesteps,
)
def test_base_engine_batch_with_own_parameters_equals_each_scalar_step(params, starts, orders, dt):
    batch = AgentBatch.from_states(starts)
    BaseEngine(params).step_batch(batch, [c.yaw for c in orders], [c.speed for c in orders], dt)
    for i in range(AGENTS):
        alone = BaseEngine(each_agent(params, i)).step(starts[i], orders[i], dt)
        assert batch.state(i) == alone


@given(
    per_agent_patterns(HalfLifeParams, half_life_fields, AGENTS, shared=("model", "maxvelocity")),
    st.lists(states, min_size=AGENTS, max_size=AGENTS),
    st.lists(commands, min_size=AGENTS, max_size=AGENTS),
    timesteps,
)
def test_half_life_batch_with_own_parameters_equals_each_scalar_step(params, starts, orders, dt):
    if isinstance(params.model, np.ndarray):
        params = params._replace(model=tuple(params.model.tolist()))
    batch = AgentBatch.from_states(starts)
    HalfLifeEngine(params).step_batch(batch, [c.yaw for c in orders], [c.speed for c in orders], dt)
    for i in range(AGENTS):
        own = params._replace(
            model=params.model if isinstance(params.model, str) else params.model[i]
        )
        alone = HalfLifeEngine(each_agent(own, i)).step(starts[i], orders[i], dt)
        assert batch.state(i) == alone


unicycle_states = st.builds(
    UnicycleState,
    st.floats(-100, 100),
    st.floats(-100, 100),
    st.floats(-math.pi, math.pi, exclude_max=True),
    st.floats(0.0, 5.0),
    st.floats(-5.0, 5.0),
)
unicycle_commands = st.builds(UnicycleCommand, st.floats(-20, 20), st.floats(-50, 50))


@given(
    per_agent_patterns(UnicycleParams, unicycle_fields, AGENTS, shared=("speed_max",)),
    st.lists(unicycle_states, min_size=AGENTS, max_size=AGENTS),
    st.lists(unicycle_commands, min_size=AGENTS, max_size=AGENTS),
    timesteps,
)
def test_unicycle_batch_with_own_parameters_equals_each_scalar_step(params, starts, orders, dt):
    batch = UnicycleBatch.from_states(starts)
    Unicycle(params).step_batch(
        batch, [c.accel for c in orders], [c.angular_accel for c in orders], dt
    )
    for i in range(AGENTS):
        alone = Unicycle(each_agent(params, i)).step(starts[i], orders[i], dt)
        assert batch.state(i) == alone


def test_a_record_of_arrays_serves_batches_of_its_size_only():
    engine = HalfLifeEngine(HalfLifeParams(friction=[4.0, 5.0, 6.0]))
    assert engine.agents == 3
    with pytest.raises(ValueError, match=r"HalfLifeEngine\.step takes one value per parameter"):
        engine.step(AgentState(), Command(0.0, 100.0), 0.01)
    with pytest.raises(
        ValueError, match="holds 3 values per field, one per agent, but the batch has 4"
    ):
        engine.step_batch(AgentBatch.zeros(4), 0.0, 100.0, 0.01)
    with pytest.raises(ValueError, match="friction has 3, maxspeed has 2"):
        per_agent_size(HalfLifeParams(friction=np.ones(3), maxspeed=np.ones(2)))
    check_agent_count(HalfLifeParams(), 10)  # shared values serve any batch
    check_shared(HalfLifeParams(), "a closed form")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 6), st.integers(1, 6)), min_size=1, max_size=300))
def test_a_records_count_is_checked_at_every_call_not_only_the_first(pairs):
    """Counts are remembered per record object: asking again, for another batch size, or for
    more records than are remembered, answers as the first time did."""
    records = [HalfLifeParams(friction=np.full(held, 4.0)) for held, _ in pairs]
    for _ in range(2):
        for record, (held, size) in zip(records, pairs, strict=True):
            assert per_agent_size(record) == held
            if held == size:
                check_agent_count(record, size)
            else:
                with pytest.raises(ValueError, match=f"holds {held} values per field"):
                    check_agent_count(record, size)
            check_agent_count(record, held)


def test_per_agent_values_are_checked_entry_by_entry():
    with pytest.raises(ValueError, match=r"friction\[2\] must be > 0 and finite, got -1\.0"):
        HalfLifeEngine(HalfLifeParams(friction=[4.0, 5.0, -1.0]))
    with pytest.raises(ValueError, match=r"model\[1\] must be one of"):
        HalfLifeEngine(HalfLifeParams(model=("engine", "quake")))
    with pytest.raises(ValueError, match=r"decel_long_max\[0\] must be < 0"):
        BaseEngine(BaseEngineParams(decel_long_max=[0.0, -1.0]))
    with pytest.raises(ValueError, match=r"k_yaw must be a number or a 1-D sequence"):
        BaseEngine(BaseEngineParams(k_yaw=[[1.0]]))
    values = check_positive("k", [1.0, math.inf], allow_inf=True)
    assert values.tolist() == [1.0, math.inf] and not values.flags.writeable
    assert check_negative("d", -2) == -2.0


def test_agent_params_reads_array_fields_at_the_agent_and_keeps_the_others():
    params = BaseEngineParams(k_yaw=np.array([1.0, 2.0]), k_speed=3.0)
    assert agent_params(params, 1) == BaseEngineParams(k_yaw=2.0, k_speed=3.0)
    assert agent_params(BaseEngineParams(), 5) == BaseEngineParams()


class _Memory(NamedTuple):
    count: int
    level: float
    latched: bool


@numba.njit(parallel=True)
def _increment_all(memory):
    for i in numba.prange(memory.count.size):
        entry = agent_params(memory, i)
        set_agent(memory, i, (entry.count + i, entry.level * 2.0, not entry.latched))


@pytest.mark.parametrize("compiled", [False, True], ids=["python", "prange"])
def test_set_agent_writes_each_field_at_the_agent(compiled):
    """``set_agent`` is the inverse of ``agent_params``: each field of a record of arrays (of
    different dtypes) written at the agent, and in a parallel ``prange`` loop too, where numba
    loses writes made through a record's attribute."""
    size = 1000
    memory = _Memory(
        np.arange(size, dtype=np.int64), np.linspace(0.0, 1.0, size), np.zeros(size, np.bool_)
    )
    count, level = memory.count.copy(), memory.level.copy()
    if compiled:
        _increment_all(memory)
    else:
        _increment_all.py_func(memory)
    assert np.array_equal(memory.count, count + np.arange(size))
    assert np.array_equal(memory.level, 2.0 * level)
    assert memory.latched.all()
