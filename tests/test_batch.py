"""Batch == scalar, bit for bit: both speeds run one kernel (docs/design.md)."""

import math

import numba
import numpy as np
import pytest

from steerlab._jit import SERIAL_LIMIT
from steerlab.engines import (
    AgentBatch,
    AgentState,
    BaseEngine,
    BaseEngineParams,
    Command,
    HalfLifeEngine,
    HalfLifeParams,
)
from steerlab.engines.unicycle import UnicycleBatch
from steerlab.vehicles import VehicleBatch

ENGINES = {
    "base-unbounded": BaseEngine(),
    "base-bounded": BaseEngine(
        BaseEngineParams(
            k_yaw=6.0,
            k_speed=math.inf,
            yaw_rate_max=2.5,
            accel_trans_max=400.0,
            accel_long_max=200.0,
            decel_long_max=-500.0,
        )
    ),
    "halflife-engine": HalfLifeEngine(HalfLifeParams(model="engine")),
    "halflife-simplified": HalfLifeEngine(HalfLifeParams(model="simplified")),
    "halflife-stock": HalfLifeEngine(HalfLifeParams.stock()),
}


def random_agents(rng, size):
    batch = AgentBatch(
        rng.uniform(-1e3, 1e3, size),
        rng.uniform(-1e3, 1e3, size),
        rng.normal(0.0, 200.0, size),
        rng.normal(0.0, 200.0, size),
        rng.uniform(-math.pi, math.pi, size),
    )
    # a few agents exactly at rest, exactly on a boundary speed, or very slow
    batch.vx[:3] = [0.0, 75.0, 0.05]
    batch.vy[:3] = 0.0
    return batch


@pytest.mark.parametrize("name", list(ENGINES))
@pytest.mark.parametrize(
    ("threads", "size", "frames"),
    [(1, 257, 30), (2, 257, 30), (1, SERIAL_LIMIT + 5, 4), (2, SERIAL_LIMIT + 5, 4)],
    ids=["serial-1", "serial-2", "parallel-1", "parallel-2"],
)
def test_batch_equals_scalar_bit_for_bit(name, threads, size, frames):
    """Small batches run the serial build, large ones the multi-threaded build: both equal the
    scalar step."""
    engine = ENGINES[name]
    rng = np.random.default_rng(20261122)
    batch = random_agents(rng, size)
    scalar = [batch.state(i) for i in range(size)]
    previous = numba.get_num_threads()
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        for _ in range(frames):
            dt = float(rng.choice([0.005, 0.014, 0.1, 0.2]))
            yaw_command = rng.uniform(-10.0, 10.0, size)
            speed_command = rng.choice([0.0, 30.0, 320.0, 1000.0], size) * rng.random(size)
            engine.step_batch(batch, yaw_command, speed_command, dt)
            scalar = [
                engine.step(state, Command(yaw_command[i], speed_command[i]), dt)
                for i, state in enumerate(scalar)
            ]
    finally:
        numba.set_num_threads(previous)
    for i, state in enumerate(scalar):
        assert batch.state(i) == state, f"agent {i}"


def test_batch_accepts_scalar_commands_for_everyone():
    engine = ENGINES["halflife-engine"]
    batch = AgentBatch.zeros(4)
    engine.step_batch(batch, 0.5, 320.0, 0.01)
    expected = engine.step(AgentState(), Command(0.5, 320.0), 0.01)
    assert all(batch.state(i) == expected for i in range(4))


def test_batch_updates_the_callers_arrays_in_place():
    x = np.zeros(3)
    batch = AgentBatch(x, np.zeros(3), np.zeros(3), np.zeros(3), np.zeros(3))
    BaseEngine(BaseEngineParams(k_speed=math.inf)).step_batch(batch, 0.0, 10.0, 0.1)
    assert np.all(x == pytest.approx(1.0))


@pytest.mark.parametrize(
    ("yaw", "speed", "dt", "message"),
    [
        ([0.0, math.nan], [1.0, 1.0], 0.1, r"yaw_command\[1\]"),
        ([0.0, 0.0], [1.0, math.inf], 0.1, r"speed_command\[1\]"),
        ([0.0, 0.0], [-1.0, 1.0], 0.1, r"speed_command\[0\].*no backwards"),
        ([0.0, 0.0], [1.0, 1.0], 0.0, "dt"),
        ([0.0, 0.0, 0.0], [1.0, 1.0], 0.1, "yaw_command"),
    ],
)
def test_bad_batch_input_raises(yaw, speed, dt, message):
    with pytest.raises(ValueError, match=message):
        ENGINES["base-bounded"].step_batch(AgentBatch.zeros(2), yaw, speed, dt)


def test_bad_batch_state_raises_naming_field_and_index():
    with pytest.raises(ValueError, match=r"vy\[1\]"):
        AgentBatch(np.zeros(2), np.zeros(2), np.zeros(2), [0.0, math.nan], np.zeros(2))
    with pytest.raises(ValueError, match="yaw"):
        AgentBatch(np.zeros(2), np.zeros(2), np.zeros(2), np.zeros(2), np.zeros(3))


def test_from_states_round_trip():
    states = [AgentState(1, 2, 3, 4, 0.5), AgentState(-1, -2, 0, 0, -3.0)]
    batch = AgentBatch.from_states(states)
    assert [batch.state(i) for i in range(2)] == states
    assert len(batch) == 2 and batch.size == 2


@pytest.mark.parametrize(
    "batch_of",
    [
        lambda n: AgentBatch.zeros(n),
        lambda n: VehicleBatch(*np.zeros((4, n))),
        lambda n: UnicycleBatch(*np.zeros((3, n))),
    ],
)
def test_a_field_replaced_after_construction_is_checked_like_the_constructor_s(batch_of):
    """A field of another size would let a batch kernel run past the end of the shorter arrays
    (this crashed the process); a NaN, a 2-D array or text is refused the same way."""
    batch = batch_of(7)
    for bad in (np.zeros(50_000), np.zeros((7, 1)), [0.0] * 6 + [math.nan], "seven"):
        with pytest.raises(ValueError, match=r"\bx\b"):
            batch.x = bad
        assert batch.x.size == 7
    batch.x = [1.0] * 7  # converted, as the constructor converts
    assert batch.x.dtype == np.float64 and batch.x.tolist() == [1.0] * 7
