import math

import numpy as np
import pytest

from steerlab.engines import AgentState, BaseEngine, BaseEngineParams, Command, HalfLifeEngine
from steerlab.sim import ConstantCommand, Trace, simulate


def test_simulate_records_every_frame_and_matches_stepping_by_hand():
    engine = HalfLifeEngine()
    controller = ConstantCommand(Command(0.7, 250.0))
    start = AgentState(1.0, -2.0, 0.0, 0.0, 0.0)
    trace = simulate(engine, controller, start, 0.02, 50)
    assert len(trace) == 51 and trace.steps == 50
    assert trace.t[-1] == pytest.approx(1.0)
    state = start
    for k in range(50):
        state = engine.step(state, Command(0.7, 250.0), 0.02)
        assert trace.state_at(k + 1) == state._asdict()
    assert np.all(trace.commands["speed"] == 250.0)
    assert trace.state_type == "AgentState" and trace.command_type == "Command"


def test_constant_speed_on_straight_line_covers_speed_times_time():
    engine = BaseEngine(BaseEngineParams(k_yaw=math.inf, k_speed=math.inf))
    trace = simulate(engine, ConstantCommand(Command(0.0, 10.0)), AgentState(), 0.1, 100)
    assert trace.x[-1] == pytest.approx(100.0)
    assert np.allclose(trace.y, 0.0)


def test_trace_save_load_round_trip(tmp_path):
    trace = simulate(HalfLifeEngine(), ConstantCommand(Command(1.0, 100.0)), AgentState(), 0.01, 20)
    path = trace.save(tmp_path / "run" / "trace.npz")
    loaded = Trace.load(path)
    assert np.array_equal(loaded.t, trace.t)
    for name in trace.states:
        assert np.array_equal(loaded.states[name], trace.states[name])
    for name in trace.commands:
        assert np.array_equal(loaded.commands[name], trace.commands[name])
    assert loaded.state_type == "AgentState"


def test_trace_load_rejects_other_files(tmp_path):
    other = tmp_path / "other.npz"
    np.savez(other, a=np.zeros(3))
    with pytest.raises(ValueError, match=r"other\.npz"):
        Trace.load(other)
    with pytest.raises(ValueError, match=r"\.npz"):
        simulate(HalfLifeEngine(), ConstantCommand(Command()), AgentState(), 0.1, 1).save(
            tmp_path / "x.txt"
        )


def test_zero_steps_gives_the_initial_state_only():
    trace = simulate(
        HalfLifeEngine(), ConstantCommand(Command()), AgentState(5, 0, 0, 0, 0), 0.1, 0
    )
    assert len(trace) == 1 and trace.x[0] == 5.0 and trace.commands == {}


@pytest.mark.parametrize(
    ("dt", "steps", "name"), [(0.0, 1, "dt"), (0.1, -1, "steps"), (0.1, 1.5, "steps")]
)
def test_bad_simulation_arguments(dt, steps, name):
    with pytest.raises(ValueError, match=name):
        simulate(HalfLifeEngine(), ConstantCommand(Command()), AgentState(), dt, steps)


def test_dir_of_a_trace_lists_its_state_fields():
    trace = simulate(HalfLifeEngine(), ConstantCommand(Command(0.0, 1.0)), AgentState(), 0.1, 2)
    names = dir(trace)
    assert {"x", "y", "vx", "vy", "yaw"} <= set(names)  # AgentState's fields
    assert {"t", "states", "commands", "save", "state_at"} <= set(names)  # and the class's
    assert all(hasattr(trace, name) for name in names)
