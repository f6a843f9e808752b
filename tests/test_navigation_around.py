"""AroundPoints (seed 002, "Navigation around points"): order, sides, circles, locks, batch."""

import math

import numba
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import steerlab._jit
from steerlab.engines import (
    AgentBatch,
    AgentState,
    BaseEngine,
    BaseEngineParams,
    HalfLifeEngine,
    HalfLifeParams,
)
from steerlab.geometry import wrap_pi
from steerlab.laws import AroundPoint
from steerlab.navigation import PointsNav, SlalomPoint, half_life_prediction_horizon, load_navdata
from steerlab.navigation.around import AroundMemory, AroundPoints
from steerlab.sim import simulate
from strategies import states

SLALOM = load_navdata("examples/navdata/slalom.toml")
CENTERS = np.array([point.center[:2] for point in SLALOM.points])
SIDES = np.array([point.side for point in SLALOM.points], dtype=float)
RADII = np.array([point.radius for point in SLALOM.points])
START = AgentState(0.0, 0.0, 0.0, 0.0, 0.0)
IDEAL = BaseEngine(BaseEngineParams(k_yaw=math.inf, k_speed=math.inf))
# a slow-turning engine: turn radius 320 / 2 = 160 units at full speed
SLOW_TURN = BaseEngine(BaseEngineParams(k_yaw=math.inf, k_speed=math.inf, yaw_rate_max=2.0))
# two close points with small radii, then a far one (the seed's lock configuration)
CLOSE = np.array([[0.0, 0.0], [40.0, 40.0], [400.0, 200.0]])
CLOSE_SIDES = np.array([1.0, 1.0, -1.0])
CLOSE_RADII = np.array([16.0, 16.0, 16.0])
CLOSE_START = AgentState(-400.0, -100.0, 0.0, 0.0, 0.0)


def nav_of(rows) -> PointsNav:
    """A PointsNav from ``(x, y, side, radius)`` rows."""
    return PointsNav(
        points=[
            SlalomPoint(position=(x, y, 0.0), side=int(side), radius=r) for x, y, side, r in rows
        ]
    )


class Recorder:
    """Wraps a navigator; records its memory after each frame."""

    def __init__(self, navigator):
        self.navigator = navigator
        self.memories = []

    def step(self, state, dt):
        command = self.navigator.step(state, dt)
        self.memories.append(self.navigator.memory)
        return command

    def reset(self):
        self.navigator.reset()
        self.memories = []


def run(navigator, engine, dt, seconds, state=START):
    recorder = Recorder(navigator)
    trace = simulate(engine, recorder, state, dt, round(seconds / dt))
    return trace, recorder.memories


def state_at(trace, frame) -> AgentState:
    return AgentState(*(float(getattr(trace, name)[frame]) for name in AgentState._fields))


def indices(memories) -> np.ndarray:
    return np.array([memory.index for memory in memories])


def check_slalom(trace, memories, centers, sides, radii):
    """Every point switched in order, passed on its side; the agent finishes and stops."""
    index = indices(memories)
    steps = np.diff(np.concatenate(([0], index)))
    assert set(np.unique(steps)) <= {0, 1}  # one point at a time, never a skipped one
    assert index[-1] == len(radii) - 1
    assert memories[-1].finished
    finish = next(frame for frame, memory in enumerate(memories) if memory.finished)
    assert all(memory.finished for memory in memories[finish:])  # latched
    assert trace.commands["speed"][finish:].max() == 0.0
    assert math.hypot(trace.vx[-1], trace.vy[-1]) < 1e-6  # stopped
    frames = len(memories)
    for k in range(len(radii)):
        # from the switch to point k until the switch to point k + 2: point k is passed
        begin = int(np.argmax(index >= k))
        end = int(np.argmax(index >= k + 2)) if index[-1] >= k + 2 else frames
        offset_x = centers[k, 0] - trace.x[begin:end]
        offset_y = centers[k, 1] - trace.y[begin:end]
        closest = int(np.argmin(np.hypot(offset_x, offset_y)))
        cross = (
            trace.vx[begin + closest] * offset_y[closest]
            - trace.vy[begin + closest] * offset_x[closest]
        )
        assert np.sign(cross) == sides[k], f"point {k} passed on the wrong side"


@pytest.mark.parametrize("check", ["command", "yaw"])
@pytest.mark.parametrize("dt", [0.01, 0.05])
@pytest.mark.parametrize(
    "engine", [BaseEngine(BaseEngineParams()), HalfLifeEngine(HalfLifeParams())], ids=["base", "hl"]
)
def test_slalom_switches_in_order_passes_each_side_and_stops(engine, dt, check):
    navigator = AroundPoints(SLALOM, check=check)
    trace, memories = run(navigator, engine, dt, 20.0)
    check_slalom(trace, memories, CENTERS, SIDES, RADII)
    assert memories[-1].locks_broken == 0
    # the first poles alternate sides along a nearly straight line: each is passed without
    # circling it (less than half a turn around it before the switch), on a lagging engine too
    index = indices(memories)
    for k in range(4):
        switch = int(np.argmax(index == k + 1))
        assert memories[switch - 1].turned < math.pi


@pytest.mark.parametrize("check", ["command", "yaw"])
@pytest.mark.parametrize("dt", [0.01, 0.05])
def test_ideal_engine_stays_outside_the_current_circle(dt, check):
    # seed 000: the trajectory is tangential to the circle, then on it: never inside
    navigator = AroundPoints(SLALOM, check=check)
    trace, memories = run(navigator, IDEAL, dt, 20.0)
    check_slalom(trace, memories, CENTERS, SIDES, RADII)
    index = indices(memories)
    # the command of frame f (for point index[f]) moves the agent to trace[f + 1]
    distance = np.hypot(trace.x[1:] - CENTERS[index, 0], trace.y[1:] - CENTERS[index, 1])
    assert (distance >= RADII[index] * (1.0 - 1e-9)).all()


def test_the_law_is_seed_000_around_the_current_point_at_the_predicted_position():
    state = AgentState(-100.0, 30.0, 200.0, -50.0, 0.3)
    for horizon in (0.0, 0.2):
        command = AroundPoints(SLALOM, prediction_horizon=horizon).step(state, 0.02)
        predicted = state._replace(x=state.x + horizon * state.vx, y=state.y + horizon * state.vy)
        law = AroundPoint(CENTERS[0], RADII[0], int(SIDES[0]))
        assert command == law.step(predicted, 0.02)


@pytest.mark.parametrize("engine", [IDEAL, BaseEngine(BaseEngineParams()), HalfLifeEngine()])
def test_command_check_switches_on_a_crossing_with_at_most_one_frame_of_jump(engine):
    # go around A (counter-clockwise) until the command is tangent to B's circle (B on the
    # right): a genuine crossing while circling, not an "already past" tangent
    rows = [(500.0, 0.0, 1, 48.0), (200.0, 500.0, -1, 40.0), (-300.0, 500.0, 1, 0.0)]
    navigator = AroundPoints(nav_of(rows), check="command")
    dt = 0.02
    trace, memories = run(navigator, engine, dt, 12.0, AgentState(0.0, -48.0, 0.0, 0.0, 0.0))
    index = indices(memories)
    frame = int(np.argmax(index == 1))  # the switch from A to B
    around_a = AroundPoint(rows[0][:2], rows[0][3], rows[0][2])
    tangent_b = AroundPoint(rows[1][:2], rows[1][3], rows[1][2])
    h_now = around_a.step(state_at(trace, frame), dt).yaw
    h_before = around_a.step(state_at(trace, frame - 1), dt).yaw
    t_now = tangent_b.step(state_at(trace, frame), dt).yaw
    t_before = tangent_b.step(state_at(trace, frame - 1), dt).yaw
    assert trace.commands["yaw"][frame] == t_now  # the new command is B's tangent
    assert wrap_pi(t_before - h_before) > 0.0  # not reached the frame before: a crossing
    rotation = abs(wrap_pi(h_now - h_before)) + abs(wrap_pi(t_now - t_before))
    assert abs(wrap_pi(t_now - h_now)) <= rotation + 1e-12
    assert rotation < 0.5  # one frame's rotation, not a half-turn jump


def test_prediction_reduces_the_overshoot_on_half_life():
    # overshoot: the largest distance between Half-Life's path (while moving, before the
    # finish) and the path an ideal engine draws with the same navigator (the law's own path)
    dt = 0.01
    reference, _ = run(AroundPoints(SLALOM), IDEAL, dt, 20.0)
    start = np.column_stack((reference.x[:-1], reference.y[:-1]))
    segment = np.column_stack((np.diff(reference.x), np.diff(reference.y)))
    length2 = np.maximum((segment**2).sum(axis=1), 1e-300)

    def overshoot(horizon):
        navigator = AroundPoints(SLALOM, prediction_horizon=horizon)
        trace, memories = run(navigator, HalfLifeEngine(), dt, 20.0)
        check_slalom(trace, memories, CENTERS, SIDES, RADII)
        finish = next(frame for frame, memory in enumerate(memories) if memory.finished)
        points = np.column_stack((trace.x[:finish], trace.y[:finish]))
        relative = points[:, None, :] - start[None, :, :]
        t = np.clip((relative * segment).sum(axis=2) / length2, 0.0, 1.0)
        gap = relative - t[:, :, None] * segment[None, :, :]
        return np.sqrt((gap**2).sum(axis=2)).min(axis=1).max()

    horizon = half_life_prediction_horizon(HalfLifeParams(), dt)
    assert horizon == pytest.approx(1.0 / 4.0 - dt)
    without, seed, half = overshoot(0.0), overshoot(horizon), overshoot(horizon / 2)
    assert seed < without
    assert half < without


def test_half_life_prediction_horizon():
    assert half_life_prediction_horizon(HalfLifeParams(), 0.05) == pytest.approx(0.2)
    assert half_life_prediction_horizon(HalfLifeParams(friction=2.0), 0.1) == pytest.approx(0.4)
    assert half_life_prediction_horizon(HalfLifeParams(), 0.3) == 0.0
    with pytest.raises(ValueError, match="params"):
        half_life_prediction_horizon(BaseEngineParams(), 0.02)
    with pytest.raises(ValueError, match="dt"):
        half_life_prediction_horizon(HalfLifeParams(), 0.0)
    with pytest.raises(ValueError, match="friction"):
        half_life_prediction_horizon(HalfLifeParams(friction=-1.0), 0.02)


def close_run(check, max_turns):
    navigator = AroundPoints.from_arrays(
        CLOSE, CLOSE_SIDES, CLOSE_RADII, check=check, max_turns=max_turns
    )
    return run(navigator, SLOW_TURN, 0.02, 20.0, CLOSE_START)


def test_yaw_check_locks_on_close_points_and_the_breaker_breaks_it():
    trace, memories = close_run("yaw", math.inf)
    assert (indices(memories) == 0).all()  # never leaves the first point
    assert memories[-1].turned > 4 * 2 * math.pi  # continuous circling
    # the seed's cause: the agent's turn circle (radius speed / yaw_rate_max) holds the next
    # point's circle, so no line along its course touches that circle
    late = slice(len(trace.x) // 2, None)
    radius = np.hypot(trace.vx[late], trace.vy[late]) / 2.0
    center_x = trace.x[late] - radius * np.sin(trace.yaw[late])
    center_y = trace.y[late] + radius * np.cos(trace.yaw[late])
    reach = np.hypot(center_x - CLOSE[1, 0], center_y - CLOSE[1, 1]) + CLOSE_RADII[1]
    assert (reach < radius).all()

    trace, memories = close_run("yaw", 1.5)
    index = indices(memories)
    assert memories[-1].locks_broken == 1 and memories[-1].finished
    check_slalom(trace, memories, CLOSE, CLOSE_SIDES, CLOSE_RADII)
    frame = int(np.argmax(index == 1))
    assert memories[frame - 1].turned <= 1.5 * 2 * math.pi < memories[frame - 1].turned + 0.2


def test_command_check_does_not_lock_on_close_points():
    trace, memories = close_run("command", math.inf)
    assert memories[-1].locks_broken == 0
    check_slalom(trace, memories, CLOSE, CLOSE_SIDES, CLOSE_RADII)


def test_inside_the_next_circle_switches_at_once():
    navigator = AroundPoints.from_arrays([(0.0, 0.0), (10.0, 0.0)], [1, -1], [50.0, 50.0])
    navigator.step(AgentState(5.0, 0.0, 0.0, 0.0, 0.0), 0.02)
    assert navigator.memory.index == 1


def first_step_memory(centers, sides, radii, state, check="command"):
    navigator = AroundPoints.from_arrays(centers, sides, radii, check=check)
    navigator.step(state, 0.02)
    return navigator.memory


def test_a_common_tangent_counts_only_if_the_current_circle_comes_first():
    # two equal circles side by side, both on the left: the line y = -10 heading +x touches the
    # current circle first, the line y = +10 heading -x touches the next one first
    centers, sides, radii = [(0.0, 0.0), (30.0, 0.0)], [1, 1], [10.0, 10.0]
    forward = first_step_memory(centers, sides, radii, AgentState(-100.0, -10.0, 320.0, 0.0, 0.0))
    assert forward.previous_difference == pytest.approx(0.0, abs=1e-9)
    assert forward.tangent_reached
    backward = AgentState(100.0, 10.0, -320.0, 0.0, math.pi)
    backward_memory = first_step_memory(centers, sides, radii, backward)
    assert backward_memory.previous_difference == pytest.approx(0.0, abs=1e-9)
    assert not backward_memory.tangent_reached


def reach_geometry(past, current_left=300.0):
    """Agent at the origin whose course is past the next tangent by ``past`` [rad].

    Next point (200, 0), radius 10, side -1; current point (side +1, radius 10) placed
    300 units behind the next one along the course and ``current_left`` to its left.
    """
    tangent = AroundPoint((200.0, 0.0), 10.0, -1).step(AgentState(), 0.02).yaw
    heading = tangent + past  # d = side_cur * wrap(t_next - h) = -past
    along = np.array([math.cos(heading), math.sin(heading)])
    left = np.array([-along[1], along[0]])
    current = np.array([200.0, 0.0]) - 300.0 * along + current_left * left
    state = AgentState(0.0, 0.0, 320.0 * along[0], 320.0 * along[1], heading)
    return [tuple(current), (200.0, 0.0)], [1, -1], [10.0, 10.0], state


def test_yaw_check_reaches_the_tangent_only_recently_and_with_the_current_point_on_its_side():
    memory = first_step_memory(*reach_geometry(0.2), check="yaw")
    assert memory.previous_difference == pytest.approx(-0.2)
    assert memory.tangent_reached
    # more than a quarter turn past: the opposite branch, not a tangency
    memory = first_step_memory(*reach_geometry(2.0), check="yaw")
    assert memory.previous_difference == pytest.approx(-2.0)
    assert not memory.tangent_reached
    # the actual course would pass the current point on its wrong side
    memory = first_step_memory(*reach_geometry(0.2, current_left=-300.0), check="yaw")
    assert not memory.tangent_reached


def test_final_point_passed_wide_finishes_after_half_a_turn():
    # the slow-turning engine cannot turn around a radius of 16: it passes the point 47 units
    # away; the navigator finishes once it has turned half a turn around the point
    navigator = AroundPoints.from_arrays([(300.0, 0.0)], [1], [16.0])
    trace, memories = run(navigator, SLOW_TURN, 0.02, 10.0, AgentState(250.0, -60.0, 0.0, 0.0, 0.0))
    finish = next(frame for frame, memory in enumerate(memories) if memory.finished)
    distance = np.hypot(trace.x[: finish + 1] - 300.0, trace.y[: finish + 1])
    assert distance.min() > 2 * 16.0 + 320.0 * 0.02  # never within the pass distance
    assert memories[finish].turned >= math.pi > memories[finish - 1].turned
    assert trace.commands["speed"][finish:].max() == 0.0


def test_single_point_goes_around_it_and_stops():
    navigator = AroundPoints(nav_of([(300.0, 50.0, -1, 40.0)]))
    trace, memories = run(navigator, IDEAL, 0.02, 5.0)
    assert (indices(memories) == 0).all() and memories[-1].finished
    finish = next(frame for frame, memory in enumerate(memories) if memory.finished)
    # gone past at the tangent point, not after half a turn: a straight approach from distance
    # D sweeps acos(r / D) around the point up to the tangent point, then one frame of travel
    sweep = math.acos(40.0 / math.hypot(300.0, 50.0)) + 320.0 * 0.02 / 40.0
    assert memories[finish].turned <= sweep < math.pi
    distance = math.hypot(trace.x[-1] - 300.0, trace.y[-1] - 50.0)
    assert 40.0 * (1 - 1e-9) <= distance <= 2 * 40.0 + 320.0 * 0.02
    assert trace.y[-1] > 50.0  # passed with the point on its right: above it


def test_reset_returns_to_the_first_point():
    navigator = AroundPoints(SLALOM)
    run(navigator, IDEAL, 0.02, 20.0)  # the walk point is passed at 96 u/s
    assert navigator.memory.finished
    navigator.step_batch(AgentBatch.from_states([START]), 0.02)
    navigator.reset()
    assert navigator.memory == AroundMemory()
    assert navigator.batch_memory is None
    assert "AroundPoints(1 point list(s)" in repr(navigator)


def batch_agrees_with_scalar(engine, navigators, batch_navigator, starts, dt, frames):
    expected = [
        simulate(engine, navigator, start, dt, frames)
        for navigator, start in zip(navigators, starts, strict=True)
    ]
    batch = AgentBatch.from_states(starts)
    out = None
    for frame in range(frames):
        out = batch_navigator.step_batch(batch, dt, out)
        for i in range(len(starts)):
            assert out.yaw[i] == expected[i].commands["yaw"][frame]
            assert out.speed[i] == expected[i].commands["speed"][frame]
        engine.step_batch(batch, out.yaw, out.speed, dt)
    for i, navigator in enumerate(navigators):
        assert batch.x[i] == expected[i].x[-1] and batch.y[i] == expected[i].y[-1]
        for field, value in zip(AroundMemory._fields, navigator.memory, strict=True):
            batch_value = getattr(batch_navigator.batch_memory, field)[i]
            assert batch_value == value or (math.isnan(batch_value) and math.isnan(value))


LISTS = [
    SLALOM,
    nav_of([(500.0, 0.0, 1, 48.0), (200.0, 500.0, -1, 40.0), (-300.0, 500.0, 1, 0.0)]),
    nav_of([(300.0, -200.0, -1, 30.0)]),  # one point: go around it and stop
    nav_of(np.column_stack((CLOSE, CLOSE_SIDES, CLOSE_RADII)).tolist()),  # the lock
]
BATCH_STARTS = [
    START,
    AgentState(0.0, -48.0, 0.0, 0.0, 0.0),
    AgentState(20.0, 10.0, 100.0, 0.0, 1.0),
    CLOSE_START,
]


@pytest.mark.parametrize("parallel", ["serial", "prange-1", "prange-2"])
@pytest.mark.parametrize(
    ("engine", "check"), [(HalfLifeEngine(), "command"), (SLOW_TURN, "yaw")], ids=["hl", "slow"]
)
def test_batch_equals_scalar_bit_for_bit(engine, check, parallel, monkeypatch):
    if parallel != "serial":
        monkeypatch.setattr(steerlab._jit, "SERIAL_LIMIT", 0)  # the prange build
    assert len(LISTS) < steerlab._jit.SERIAL_LIMIT or parallel != "serial"
    options = {"check": check, "prediction_horizon": 0.05, "max_turns": 1.5}
    navigators = [AroundPoints(points, **options) for points in LISTS]
    batch_navigator = AroundPoints(LISTS, **options)
    previous = numba.get_num_threads()
    numba.set_num_threads(2 if parallel == "prange-2" else 1)
    try:
        batch_agrees_with_scalar(engine, navigators, batch_navigator, BATCH_STARTS, 0.02, 600)
    finally:
        numba.set_num_threads(previous)
    if check == "yaw":  # the close points locked and were broken, in both paths
        assert batch_navigator.batch_memory.locks_broken[3] == 1


def test_one_point_list_serves_every_agent_of_a_batch():
    starts = [
        START,
        AgentState(0.0, 100.0, 0.0, 0.0, -0.5),
        AgentState(-50.0, -80.0, 0.0, 0.0, 1.0),
    ]
    navigators = [AroundPoints(SLALOM) for _ in starts]
    batch_agrees_with_scalar(HalfLifeEngine(), navigators, AroundPoints(SLALOM), starts, 0.02, 400)


point_rows = st.lists(
    st.tuples(
        st.floats(-500.0, 500.0),
        st.floats(-500.0, 500.0),
        st.sampled_from([1, -1]),
        st.floats(0.0, 100.0),
    ),
    min_size=1,
    max_size=4,
)


@given(
    rows=point_rows,
    path=st.lists(states, min_size=1, max_size=12),
    check=st.sampled_from(["command", "yaw"]),
    horizon=st.sampled_from([0.0, 0.1]),
    max_turns=st.sampled_from([0.2, 1.5, math.inf]),
)
def test_commands_are_finite_and_the_index_never_goes_back(rows, path, check, horizon, max_turns):
    centers = [(x, y) for x, y, _, _ in rows]
    sides = [side for _, _, side, _ in rows]
    radii = [radius for _, _, _, radius in rows]
    options = {"check": check, "prediction_horizon": horizon, "max_turns": max_turns}
    navigator = AroundPoints.from_arrays(centers, sides, radii, **options)
    batch_navigator = AroundPoints.from_arrays(centers, sides, radii, **options)
    previous = navigator.memory
    for state in path:
        command = navigator.step(state, 0.02)
        memory = navigator.memory
        assert math.isfinite(command.yaw) and 0.0 <= command.speed <= 320.0
        assert previous.index <= memory.index <= previous.index + 1 <= len(rows)
        assert memory.index <= len(rows) - 1
        assert previous.locks_broken <= memory.locks_broken
        assert memory.finished >= previous.finished  # latched
        if memory.finished:
            assert command == (state.yaw, 0.0)
        out = batch_navigator.step_batch(AgentBatch.from_states([state]), 0.02)
        assert (out.yaw[0], out.speed[0]) == tuple(command)
        previous = memory


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="points"):
        AroundPoints([])
    with pytest.raises(ValueError, match="points"):
        AroundPoints("slalom")
    with pytest.raises(ValueError, match=r"points\[1\]"):
        AroundPoints([SLALOM, 3])
    good = (CENTERS, SIDES, RADII)
    with pytest.raises(ValueError, match="centers"):
        AroundPoints.from_arrays(np.zeros((0, 2)), [], [])
    with pytest.raises(ValueError, match="centers"):
        AroundPoints.from_arrays(np.zeros((3, 3)), [1, 1, 1], [1, 1, 1])
    with pytest.raises(ValueError, match=r"centers\[1\]"):
        AroundPoints.from_arrays([(0.0, 0.0), (math.nan, 0.0)], [1, 1], [1.0, 1.0])
    with pytest.raises(ValueError, match=r"sides\[0\]"):
        AroundPoints.from_arrays([(0.0, 0.0)], [0], [1.0])
    with pytest.raises(ValueError, match="sides"):
        AroundPoints.from_arrays([(0.0, 0.0)], [1, 1], [1.0])
    with pytest.raises(ValueError, match=r"radii\[0\]"):
        AroundPoints.from_arrays([(0.0, 0.0)], [1], [-1.0])
    with pytest.raises(ValueError, match=r"radii\[0\]"):
        AroundPoints.from_arrays([(0.0, 0.0)], [1], [math.inf])
    for name, value in [
        ("k_d", -1.0),
        ("speed_bound", 0.0),
        ("check", "heading"),
        ("prediction_horizon", -0.1),
        ("prediction_horizon", math.nan),
        ("max_turns", 0.0),
    ]:
        with pytest.raises(ValueError, match=name):
            AroundPoints.from_arrays(*good, **{name: value})
        with pytest.raises(ValueError, match=name):
            AroundPoints(SLALOM, **{name: value})
    navigator = AroundPoints(SLALOM)
    with pytest.raises(ValueError, match=r"state\.x"):
        navigator.step(AgentState(math.nan, 0.0, 0.0, 0.0, 0.0), 0.02)
    with pytest.raises(ValueError, match="dt"):
        navigator.step(START, 0.0)
    with pytest.raises(ValueError, match="k_d"):
        AroundPoints(SLALOM, k_d=100.0).step(START, 0.02)
    with pytest.raises(ValueError, match="step_batch"):
        AroundPoints([SLALOM, SLALOM]).step(START, 0.02)
    with pytest.raises(ValueError, match="batch"):
        AroundPoints([SLALOM, SLALOM]).step_batch(AgentBatch.zeros(3), 0.02)
    with pytest.raises(ValueError, match="batch"):
        navigator.step_batch([START], 0.02)
