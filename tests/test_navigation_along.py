"""AlongSegments (seed 002, "Navigation along segments"): both pseudo-codes, corridors, batch."""

import math

import numba
import numpy as np
import pytest
from hypothesis import given, settings
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
from steerlab.engines.halflife import stop_distance
from steerlab.geometry import wrap_pi
from steerlab.navigation import find_route, load_navdata
from steerlab.navigation.along import AlongMemory, AlongSegments
from steerlab.navigation.metrics import corridor_metrics
from steerlab.navigation.route import Route
from steerlab.sim import simulate

NAV = load_navdata("examples/navdata/level.toml")
CORRIDORS = load_navdata("examples/navdata/corridors1.toml")
HALF_LIFE = HalfLifeParams()
DT = 0.01


def make_route(points, widths, radii=None, segment_flags=None):
    """A Route from plane points (z = 0), full widths and radii."""
    points = np.asarray(points, dtype=float)
    k = len(points)
    positions = np.column_stack(
        (points[:, :2], points[:, 2] if points.shape[1] > 2 else 0.0 * points[:, 0])
    )
    radii = np.broadcast_to(16.0 if radii is None else np.asarray(radii, dtype=float), (k,)).copy()
    flags = segment_flags or [frozenset()] * (k - 1)
    return Route(
        waypoint_ids=tuple(f"w{i}" for i in range(k)),
        positions=positions,
        radii=radii,
        waypoint_flags=(frozenset(),) * k,
        widths=np.broadcast_to(np.asarray(widths, dtype=float), (k - 1,)).copy(),
        segment_flags=tuple(flags),
        lengths=np.linalg.norm(np.diff(positions, axis=0), axis=1),
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


def run(navigator, steps, state=None, engine=None, dt=DT):
    engine = HalfLifeEngine(HALF_LIFE) if engine is None else engine
    state = AgentState(*navigator.segments[0][0], 0.0, 0.0, 0.0) if state is None else state
    recorder = Recorder(navigator)
    trace = simulate(engine, recorder, state, dt, steps)
    return trace, np.array([memory.index for memory in recorder.memories])


def excursion(route, x, y):
    """Distance outside the route's corridor (union of capsules of half width), per frame."""
    return corridor_metrics(np.column_stack((x, y)), route).excursion


# ---------------------------------------------------------------------------------------------
# the seed's promises


LEVEL_ROUTES = [("s1", "g1"), ("s1", "g2"), ("g1", "s1"), ("h1", "j1")]


@pytest.mark.parametrize(("start", "goal"), LEVEL_ROUTES)
def test_version_2_with_prediction_and_speed_control_stays_inside_the_corridor(start, goal):
    # seed 002: "Adding speed control, the trajectory is perfect in the sense that the bot stays
    # within bounds"
    route = find_route(NAV, start, goal)
    navigator = AlongSegments(route, version=2, engine=HALF_LIFE)
    trace, _ = run(navigator, 6000)
    assert navigator.memory.arrived
    assert excursion(route, trace.x, trace.y).max() == 0.0


def test_version_2_stays_inside_the_narrow_beam_of_the_corridors_file():
    route = find_route(CORRIDORS, "a", "f")  # a 16-unit beam, a vertical ladder
    navigator = AlongSegments(route, version=2, engine=HALF_LIFE)
    trace, _ = run(navigator, 6000)
    assert navigator.memory.arrived
    assert excursion(route, trace.x, trace.y).max() == 0.0


def check_version_1_switches(navigator, route, trace, index):
    """Seed 002's first pseudo-code switches to the next segment while the agent is within its
    corridor (``abs(XTDNext) < Width``, the half width), or once past the current destination's
    plane: every segment entered during a frame must meet one of those on the frame's swept
    segment (either end inside, or the two ends on both sides of the next line), computed here
    from the route's points."""
    (points,) = navigator.segments
    half = 0.5 * route.widths
    index = np.concatenate(([0], index))
    for frame in np.flatnonzero(np.diff(index)):
        ends = [(trace.x[k], trace.y[k]) for k in (frame, frame + 1)]
        for n in range(index[frame] + 1, index[frame + 1] + 1):
            p, q = points[n], points[n + 1]
            unit = (q - p) / np.linalg.norm(q - p)
            xtd = [unit[0] * (y - p[1]) - unit[1] * (x - p[0]) for x, y in ends]
            inside = min(abs(xtd[0]), abs(xtd[1])) < half[n] or xtd[0] * xtd[1] < 0.0
            previous = (points[n] - points[n - 1]) / np.linalg.norm(points[n] - points[n - 1])
            past_plane = previous @ (points[n] - np.array(ends[1])) <= 0.0
            # the to-and-fro reading also lets a turn back switch within the destination's reach
            reach = max(half[n], route.radii[n])
            near = previous @ (points[n] - np.array(ends[1])) < reach
            assert inside or past_plane or near, (frame, n)


def test_every_segment_is_switched_in_order_and_the_agent_stops_on_the_goal():
    route = find_route(NAV, "s1", "g1")
    engine = HalfLifeEngine(HALF_LIFE)
    for version in (1, 2):
        navigator = AlongSegments(route, version=version, engine=HALF_LIFE)
        trace, index = run(navigator, 6000, engine=engine)
        steps = set(np.unique(np.diff(index)))
        # version 2: one segment at a time; version 1's loop may switch several in a frame
        assert steps <= ({0, 1} if version == 2 else set(range(route.segment_count)))
        assert index[-1] == route.segment_count - 1
        if version == 1:
            check_version_1_switches(navigator, route, trace, index)
        goal = route.positions[-1, :2]
        error = math.hypot(trace.x[-1] - goal[0], trace.y[-1] - goal[1])
        speed = np.hypot(trace.vx, trace.vy)
        arrival = np.flatnonzero(trace.commands["speed"] == 0.0)[0]
        # stopped within the goal's radius plus a frame of travel plus the engine's stop distance
        margin = route.radii[-1] + speed[arrival] * DT + engine.stop_distance(speed[arrival], DT)
        assert error <= margin
        assert speed[-1] == 0.0


def test_version_2_does_not_switch_to_the_last_segment_from_the_start():
    # seed 002 on its first pseudo-code: with almost aligned waypoints and wide corridors "the
    # system will switch to the last path segment right from the start"; version 2 waits for
    # the plane near each destination
    route = make_route([(0, 0), (300, 5), (600, 0), (900, 5)], widths=200.0, radii=16.0)
    first = AlongSegments(route, version=1, engine=HALF_LIFE)
    first.step(AgentState(0.0, 0.0, 0.0, 0.0, 0.0), DT)
    assert first.memory.index == 2
    navigator = AlongSegments(route, version=2, engine=HALF_LIFE)
    trace, index = run(navigator, 2000)
    for frame in np.flatnonzero(np.diff(index)) + 1:
        j = index[frame] - 1  # the segment just left
        p, q = route.positions[j, :2], route.positions[j + 1, :2]
        unit = (q - p) / np.linalg.norm(q - p)
        along = unit @ (q - (trace.x[frame], trace.y[frame]))
        assert along < max(0.5 * route.widths[j + 1], route.radii[j + 1])


def test_version_2_never_skips_a_segment_even_faster_than_a_corridor_per_frame():
    # speed * T larger than the corridor widths: each switch still happens, one per frame
    route = make_route([(0, 0), (400, 0), (400, 400), (800, 400), (800, 0)], widths=24.0)
    engine = BaseEngine(BaseEngineParams(k_yaw=math.inf, k_speed=math.inf))
    dt = 0.1  # 320 u/s: 32 units per frame
    for version in (1, 2):
        navigator = AlongSegments(route, version=version, k_d=3.0, engine=None)
        _, index = run(navigator, 400, engine=engine, dt=dt)
        assert (np.diff(index) >= 0).all()
        assert version == 1 or set(np.unique(np.diff(index))) <= {0, 1}
        assert index[-1] == 3 and navigator.memory.arrived


def test_version_1_switch_is_caught_on_the_swept_segment():
    # the agent jumps over the next (narrow) corridor between two frames
    route = make_route([(0, 0), (100, 0), (100, 100), (200, 100)], widths=[40.0, 4.0, 40.0])
    navigator = AlongSegments(route, version=1, engine=None, predict=False)
    navigator.step(AgentState(80.0, 0.0, 0.0, 0.0, 0.0), DT)
    assert navigator.memory.index == 0
    navigator.step(AgentState(110.0, 0.0, 3000.0, 0.0, 0.0), DT)  # crossed x = 100 +- 2
    assert navigator.memory.index >= 1


def test_version_1_to_and_fro_waits_for_the_destination():
    # seed 002: "for a bot to be able to patrol to and fro between 2 waypoints, a supplementary
    # condition on the distance to the current destination waypoint must obviously be introduced"
    route = make_route([(0, 0), (500, 0), (0, 0)], widths=64.0, radii=24.0)
    navigator = AlongSegments(route, version=1, engine=HALF_LIFE)
    trace, index = run(navigator, 3000)
    turn = np.flatnonzero(index == 1)[0]
    assert trace.x[turn] > 500.0 - max(32.0, 24.0) - 1e-9
    assert navigator.memory.arrived and abs(trace.x[-1]) < 24.0 + 40.0


def test_safety_fallback_heads_for_the_destination_behind():
    # seed 002 version 2: "safety: in case the bot is deviated ... or overshoots on a final dest
    # point (in particular: case where AngDevCmd_a=0 with the destination right in the back)"
    route = make_route([(0, 0), (500, 0)], widths=64.0, radii=24.0)
    navigator = AlongSegments(route, version=2, engine=HALF_LIFE)
    for x, y in [(600.0, 100.0), (560.0, -40.0), (700.0, 0.5)]:  # past Q, outside its reach
        navigator.reset()
        command = navigator.step(AgentState(x, y, 300.0, 0.0, 0.0), DT)
        assert not navigator.memory.arrived
        assert command.yaw == pytest.approx(math.atan2(0.0 - y, 500.0 - x), abs=1e-12)
    # before Q, on the line: the course, no fallback
    navigator.reset()
    assert navigator.step(AgentState(100.0, 0.0, 300.0, 0.0, 0.0), DT).yaw == 0.0


def test_version_2_intercept_is_bounded_or_is_the_bearing():
    route = make_route([(0, 0), (1000, 0), (1000, 1000)], widths=32.0, radii=24.0)

    @given(
        st.floats(-200.0, 900.0),
        st.floats(-400.0, 400.0),
        st.floats(-320.0, 320.0),
        st.floats(-320.0, 320.0),
        st.floats(-math.pi, math.pi),
    )
    def check(x, y, vx, vy, yaw):
        navigator = AlongSegments(route, version=2, engine=HALF_LIFE, intercept_max=math.pi / 3)
        command = navigator.step(AgentState(x, y, vx, vy, yaw), DT)
        assert math.isfinite(command.yaw) and math.isfinite(command.speed)
        assert 0.0 <= command.speed <= 320.0
        if navigator.memory.index == 0 and not navigator.memory.arrived:
            bearing = math.atan2(0.0 - y, 1000.0 - x)
            bounded = abs(wrap_pi(command.yaw - 0.0)) <= math.pi / 3 + 1e-12
            assert bounded or command.yaw == pytest.approx(bearing, abs=1e-12)

    check()


def test_speed_never_falls_into_the_half_life_low_speed_trap():
    # seed 002: UE_mVel = max(stopspeed * friction / accelerate, UE_mVel) "to work around
    # Half-life engine behavior" (seed 004's trap: commands under it freeze the bot)
    route = find_route(NAV, "s1", "g1")
    floor = HALF_LIFE.stopspeed * HALF_LIFE.friction / HALF_LIFE.accelerate
    for version in (1, 2):
        navigator = AlongSegments(route, version=version, engine=HALF_LIFE)
        trace, _ = run(navigator, 6000)
        speed = trace.commands["speed"]
        moving = speed[speed > 0.0]
        assert moving.min() >= floor


def test_prediction_and_speed_control_reduce_the_excursion_on_a_tight_route():
    # seed 002: without them the bot "overshoots"; with prediction it "rallies the centre line
    # but overshoots on turns"; with both it stays within bounds
    route = make_route(
        [(0, 0), (400, 0), (400, 300), (100, 300), (100, 600), (500, 600)], widths=16.0
    )
    results = {}
    for predict, control in [(False, False), (True, False), (True, True)]:
        navigator = AlongSegments(
            route, version=2, engine=HALF_LIFE, predict=predict, speed_control=control
        )
        trace, _ = run(navigator, 5000)
        results[predict, control] = excursion(route, trace.x, trace.y).max()
    assert results[True, True] == 0.0
    assert results[False, False] > 0.0 and results[True, False] > 0.0


# ---------------------------------------------------------------------------------------------
# defaults a user can rely on


@settings(max_examples=20, deadline=None)
@given(
    version=st.sampled_from([1, 2]),
    switch_radius=st.floats(1.0, 8.0),
    length=st.floats(100.0, 600.0),
    dt=st.sampled_from([0.01, 0.02, 0.05]),
)
def test_by_default_a_half_life_bot_arrives_within_its_switch_radius(
    version, switch_radius, length, dt
):
    """The default engine is the seed's, Half-Life, with its low-speed floor: a bot's command
    never falls under the 60 u/s it can reach near the goal, and it arrives."""
    route = make_route([(0, 0), (length, 0), (length, length)], widths=64.0)
    recorder = Recorder(AlongSegments(route, version=version, switch_radius=switch_radius))
    start = AgentState(0.0, 0.0, 0.0, 0.0, 0.0)
    trace = simulate(HalfLifeEngine(), recorder, start, dt, int(20.0 / dt))
    assert recorder.navigator.memory.arrived
    # latched when the frame's swept segment came within the reach (or the goal within the
    # frame's travel), it coasts the engine's stop distance from its speed then
    latch = next(k for k, memory in enumerate(recorder.memories) if memory.arrived)
    speed = math.hypot(trace.vx[latch], trace.vy[latch])
    latch_distance = math.hypot(trace.x[latch] - length, trace.y[latch] - length)
    assert latch_distance <= switch_radius + speed * dt + 1e-9
    goal_distance = math.hypot(trace.x[-1] - length, trace.y[-1] - length)
    assert goal_distance <= latch_distance + stop_distance(speed, dt) + 1e-9


@pytest.mark.parametrize("version", [1, 2])
@given(offset=st.floats(30.0, 150.0), side=st.sampled_from([1.0, -1.0]))
@settings(max_examples=10, deadline=None)
def test_arrived_only_within_the_goals_reach(version, offset, side):
    """In a corridor 400 u wide, crossing the goal's plane far off the axis is not an arrival:
    ``arrived`` means the agent came within the goal's reach (or within a frame's travel)."""
    route = make_route([(0, 0), (300, 0)], widths=400.0, radii=24.0)
    navigator = AlongSegments(route, version=version, predict=False)
    start = AgentState(0.0, side * offset, 0.0, 0.0, 0.0)
    trace = simulate(HalfLifeEngine(), navigator, start, DT, 1500)
    assert navigator.memory.arrived
    distances = np.hypot(trace.x - 300.0, trace.y)
    assert distances.min() <= 24.0 + 320.0 * DT


# ---------------------------------------------------------------------------------------------
# degenerate routes, batch, errors


def test_vertical_ladder_is_merged_and_sloped_ladder_uses_ladder_mode():
    route = find_route(CORRIDORS, "a", "f")
    navigator = AlongSegments(route)
    (points,) = navigator.segments
    assert len(points) == route.waypoint_count - 1  # d -> e is vertical: merged
    assert not (np.hypot(*np.diff(points, axis=0).T) == 0.0).any()
    ladder = frozenset({"ladder"})
    sloped = make_route(
        [(0, 0), (200, 0), (260, 0), (460, 0)],
        widths=[64.0, 32.0, 64.0],
        segment_flags=[frozenset(), ladder, frozenset()],
    )
    navigator = AlongSegments(sloped, version=2, engine=HALF_LIFE, speed_bound=100.0)
    navigator.memory = AlongMemory(index=1)
    command = navigator.step(AgentState(210.0, 10.0, 50.0, 0.0, 0.0), DT)
    assert navigator.memory.index == 1
    # ladder mode: U_IcptAng = -k_Y XTD / UE_mVelMax, UE_mVel = min(|MQ| / T, UE_mVelMax)
    assert command.yaw == pytest.approx(-2.0 * 10.0 / 100.0, abs=1e-12)
    assert command.speed == 100.0


def test_coincident_waypoints_and_one_point_routes_do_not_break():
    route = make_route([(0, 0), (0, 0), (200, 0), (200, 0), (200, 200)], widths=32.0)
    for version in (1, 2):
        navigator = AlongSegments(route, version=version, engine=HALF_LIFE)
        trace, _ = run(navigator, 2000, state=AgentState(0.0, 0.0, 0.0, 0.0, 0.0))
        assert navigator.memory.arrived
        assert np.isfinite(trace.commands["yaw"]).all()
    single = make_route([(100, 50)], widths=np.zeros(0))
    navigator = AlongSegments(single, engine=HALF_LIFE)
    trace, _ = run(navigator, 1000, state=AgentState(0.0, 0.0, 0.0, 0.0, 0.0))
    assert navigator.memory.arrived
    assert math.hypot(trace.x[-1] - 100.0, trace.y[-1] - 50.0) <= 16.0 + 320.0 * DT + 30.0


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("parallel", [False, True])
def test_batch_equals_scalar_bit_for_bit(version, parallel, monkeypatch):
    if parallel:
        monkeypatch.setattr(steerlab._jit, "SERIAL_LIMIT", 0)
    routes = [
        find_route(NAV, "s1", "g1"),
        find_route(NAV, "s1", "g2"),
        find_route(NAV, "g1", "s1"),
        find_route(CORRIDORS, "a", "f"),
        find_route(NAV, "e1", "e1"),
    ]
    starts = [AgentState(*route.positions[0, :2] + (5.0, -3.0), 0.0, 0.0, 0.2) for route in routes]
    engine = HalfLifeEngine(HALF_LIFE)
    frames = 1500
    expected = [
        simulate(engine, AlongSegments(route, version=version, engine=HALF_LIFE), s, DT, frames)
        for route, s in zip(routes, starts, strict=True)
    ]
    navigator = AlongSegments(routes, version=version, engine=HALF_LIFE)
    batch = AgentBatch.from_states(starts)
    previous = numba.get_num_threads()
    numba.set_num_threads(2 if parallel else 1)
    try:
        out = None
        for frame in range(frames):
            out = navigator.step_batch(batch, DT, out)
            for i in range(len(routes)):
                assert out.yaw[i] == expected[i].commands["yaw"][frame]
                assert out.speed[i] == expected[i].commands["speed"][frame]
            engine.step_batch(batch, out.yaw, out.speed, DT)
    finally:
        numba.set_num_threads(previous)
    assert navigator.batch_memory.arrived.all()


def test_reset_returns_to_the_first_segment():
    navigator = AlongSegments(find_route(NAV, "s1", "h3"), engine=HALF_LIFE)
    run(navigator, 2000)
    assert navigator.memory.arrived
    navigator.reset()
    assert navigator.memory == AlongMemory()
    assert navigator.batch_memory is None


def test_bad_input_names_the_argument():
    route = find_route(NAV, "s1", "g1")
    with pytest.raises(ValueError, match="version"):
        AlongSegments(route, version=3)
    with pytest.raises(ValueError, match="engine"):
        AlongSegments(route, engine="halflife")
    with pytest.raises(ValueError, match="intercept_max"):
        AlongSegments(route, intercept_max=2.0)
    with pytest.raises(ValueError, match="k_d"):
        AlongSegments(route, k_d=0.0)
    with pytest.raises(ValueError, match="k_d"):
        AlongSegments(route, version=1, k_d=200.0).step(AgentState(0, 0, 0, 0, 0), DT)
    with pytest.raises(ValueError, match="predict"):
        AlongSegments(route, predict="yes")
    with pytest.raises(ValueError, match="width"):
        AlongSegments(make_route([(0, 0), (10, 0)], widths=-1.0))
    with pytest.raises(ValueError, match="route"):
        AlongSegments([])
    with pytest.raises(ValueError, match="step_batch"):
        AlongSegments([route, route]).step(AgentState(0, 0, 0, 0, 0), DT)
