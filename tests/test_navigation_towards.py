"""TowardsPoints (seed 002, "Navigation towards points"): order, no tunnelling, offsets, batch."""

import math

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import steerlab._jit
from steerlab.engines import AgentBatch, AgentState, BaseEngine, BaseEngineParams, HalfLifeEngine
from steerlab.geometry import wrap_pi
from steerlab.navigation import find_route, load_navdata
from steerlab.navigation.route import Route
from steerlab.navigation.towards import TowardsMemory, TowardsPoints
from steerlab.sim import simulate

IDEAL = BaseEngine(BaseEngineParams(k_yaw=math.inf, k_speed=math.inf))
NAV = load_navdata("examples/navdata/level.toml")
ROUTE = find_route(NAV, (0.0, 0.0), "g1")
START = AgentState(0.0, 0.0, 0.0, 0.0, 0.0)


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


def run(navigator, engine, dt, steps, state=START):
    recorder = Recorder(navigator)
    trace = simulate(engine, recorder, state, dt, steps)
    return trace, np.array([memory.index for memory in recorder.memories])


def check_visits_in_order_and_stops(navigator, route, trace, index, dt, stop_margin):
    steps = np.diff(np.concatenate(([0], index)))
    assert set(np.unique(steps)) <= {0, 1}  # one waypoint at a time, never skips
    assert index[-1] == route.waypoint_count - 1
    assert navigator.memory.arrived
    # each switch happened when the frame's swept segment came within the waypoint radius
    for frame in np.flatnonzero(steps):
        waypoint = route.positions[index[frame] - 1, :2]
        start = np.array([trace.x[max(frame - 1, 0)], trace.y[max(frame - 1, 0)]])
        end = np.array([trace.x[frame], trace.y[frame]])
        samples = start + np.linspace(0.0, 1.0, 201)[:, None] * (end - start)
        reach = np.hypot(*(samples - waypoint).T).min()
        assert reach <= route.radii[index[frame] - 1] + 1e-6 + np.hypot(*(end - start)) / 200
    final = route.positions[-1, :2]
    speed = np.hypot(trace.vx, trace.vy).max()
    error = math.hypot(trace.x[-1] - final[0], trace.y[-1] - final[1])
    assert error <= route.radii[-1] + speed * dt + stop_margin
    assert math.hypot(trace.vx[-1], trace.vy[-1]) < 1e-6


@pytest.mark.parametrize("dt", [0.01, 0.05])
def test_ideal_engine_visits_every_waypoint_in_order_and_stops(dt):
    navigator = TowardsPoints(ROUTE)
    trace, index = run(navigator, IDEAL, dt, int(30.0 / dt))
    check_visits_in_order_and_stops(navigator, ROUTE, trace, index, dt, 0.0)


@pytest.mark.parametrize("goal", ["g1", "g2", "j1"])
def test_half_life_visits_every_waypoint_in_order_and_stops(goal):
    route = find_route(NAV, "s1", goal)
    engine = HalfLifeEngine()
    dt = 0.01
    navigator = TowardsPoints(route)
    trace, index = run(navigator, engine, dt, 3000)
    arrival_speed = 330.0  # Half-Life overshoots the 320 bound slightly; its stop distance
    margin = engine.stop_distance(arrival_speed, dt)
    check_visits_in_order_and_stops(navigator, route, trace, index, dt, margin)


def test_no_tunnelling_at_a_frame_step_of_several_radii():
    # a speed lag keeps the agent fast past each waypoint: speed * T is several radii
    engine = BaseEngine(BaseEngineParams(k_yaw=math.inf, k_speed=3.0))
    dt = 0.1
    # the walk bound of the beam off: the agent must stay fast to the end
    navigator = TowardsPoints(ROUTE, speed_bound=1500.0, walk_factor=1.0)
    trace, index = run(navigator, engine, dt, 400)
    steps = np.diff(np.concatenate(([0], index)))
    assert set(np.unique(steps)) <= {0, 1}
    assert index[-1] == ROUTE.waypoint_count - 1
    frame_steps = np.hypot(np.diff(trace.x), np.diff(trace.y))
    missed_by_end_position = 0
    for frame in np.flatnonzero(steps)[1:]:
        waypoint = ROUTE.positions[index[frame] - 1, :2]
        radius = ROUTE.radii[index[frame] - 1]
        assert frame_steps[frame - 1] > 2.0 * radius  # the frame jumped over the circle
        if math.hypot(trace.x[frame] - waypoint[0], trace.y[frame] - waypoint[1]) > radius:
            missed_by_end_position += 1
    assert missed_by_end_position >= 3  # an end-position test would have circled back
    # never circles back: the path is not much longer than the route
    assert frame_steps[: np.flatnonzero(steps)[-1]].sum() < 1.5 * ROUTE.length


def offset_run(seed):
    navigator = TowardsPoints(ROUTE, offset_rng=np.random.default_rng(seed))
    trace, index = run(navigator, IDEAL, 0.02, 1500)
    return navigator, trace, index


def test_offsets_are_inside_the_radius_and_reproducible():
    navigator, trace, index = offset_run(7)
    offsets = navigator.offsets
    assert (np.hypot(*offsets.T) <= ROUTE.radii).all()
    assert (offsets[-1] == 0.0).all()  # stop on the final waypoint itself
    assert np.abs(offsets[:-1]).max() > 0.0
    assert index[-1] == ROUTE.waypoint_count - 1 and navigator.memory.arrived
    _, same, _ = offset_run(7)
    _, other, _ = offset_run(8)
    assert np.array_equal(trace.x, same.x) and np.array_equal(trace.y, same.y)
    assert not np.array_equal(trace.x, other.x)


def test_speed_to_next_segment_reading():
    # route s1 (0, 0, r 32) -> s2 (256, 0) -> ...; the agent at (100, 50) still heads for s1
    state = AgentState(100.0, 50.0, 0.0, 0.0, 0.0)
    plain = TowardsPoints(ROUTE, k_d=3.0).step(state, 0.02)
    slowed = TowardsPoints(ROUTE, k_d=3.0, speed_to_next_segment=True).step(state, 0.02)
    assert plain.yaw == slowed.yaw == pytest.approx(math.atan2(-50.0, -100.0))
    assert plain.speed == 320.0  # min(3 * 111.8, 320)
    # D = max(distance to segment s1-s2 = 50, distance to s1's circle = 111.8 - 32)
    assert slowed.speed == pytest.approx(3.0 * (math.hypot(100.0, 50.0) - 32.0))


def test_speed_to_next_segment_follows_the_route_on_half_life():
    navigator = TowardsPoints(ROUTE, k_d=3.0, speed_to_next_segment=True)
    trace, index = run(navigator, HalfLifeEngine(), 0.02, 2500)
    check_visits_in_order_and_stops(navigator, ROUTE, trace, index, 0.02, 60.0)


@pytest.mark.parametrize("threads", [1, 2])
def test_batch_equals_scalar_bit_for_bit(threads, monkeypatch):
    monkeypatch.setattr(steerlab._jit, "SERIAL_LIMIT", 0)  # the prange build, even for 4 agents
    routes = [
        ROUTE,
        find_route(NAV, "s1", "g2"),
        find_route(NAV, "g1", "s1"),
        find_route(NAV, "e1", "e1"),  # one waypoint: go there and stop
    ]
    rng = np.random.default_rng(3)
    batch_navigator = TowardsPoints(routes, offset_rng=rng, speed_to_next_segment=True, k_d=20.0)
    offsets = batch_navigator.offsets
    bounds = np.cumsum([0] + [route.waypoint_count for route in routes])
    starts = [AgentState(10.0 * i, -5.0 * i, 0.0, 0.0, 0.3 * i) for i in range(len(routes))]
    engine = HalfLifeEngine()
    dt = 0.02
    frames = 1000
    expected = []
    for i, route in enumerate(routes):
        navigator = TowardsPoints(
            route,
            k_d=20.0,
            speed_to_next_segment=True,
            offsets=offsets[bounds[i] : bounds[i + 1]],
        )
        expected.append(simulate(engine, navigator, starts[i], dt, frames))
    batch = AgentBatch.from_states(starts)
    previous = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        out = None
        for frame in range(frames):
            out = batch_navigator.step_batch(batch, dt, out)
            for i in range(len(routes)):
                assert out.yaw[i] == expected[i].commands["yaw"][frame]
                assert out.speed[i] == expected[i].commands["speed"][frame]
            engine.step_batch(batch, out.yaw, out.speed, dt)
    finally:
        numba.set_num_threads(previous)
    for i in range(len(routes)):
        assert batch.x[i] == expected[i].x[-1] and batch.y[i] == expected[i].y[-1]
    assert batch_navigator.batch_memory.arrived.all()


def test_one_waypoint_route_goes_there_and_stops():
    route = find_route(NAV, "h2", "h2")
    navigator = TowardsPoints(route)
    trace, index = run(navigator, IDEAL, 0.02, 500)
    assert (index == 0).all() and navigator.memory.arrived
    error = math.hypot(trace.x[-1] - route.positions[0, 0], trace.y[-1] - route.positions[0, 1])
    assert error <= route.radii[0] + 320.0 * 0.02


def test_reset_returns_to_the_first_waypoint():
    navigator = TowardsPoints(ROUTE)
    run(navigator, IDEAL, 0.02, 1500)
    assert navigator.memory.arrived
    navigator.reset()
    assert navigator.memory == TowardsMemory()
    assert navigator.batch_memory is None


def test_bad_input_names_the_argument():
    empty = Route((), np.zeros((0, 3)), np.zeros(0), (), np.zeros(0), (), np.zeros(0))
    with pytest.raises(ValueError, match="route"):
        TowardsPoints(empty)
    with pytest.raises(ValueError, match="route"):
        TowardsPoints([])
    with pytest.raises(ValueError, match="route"):
        TowardsPoints("s1")
    with pytest.raises(ValueError, match="k_d"):
        TowardsPoints(ROUTE, k_d=-1.0)
    with pytest.raises(ValueError, match="switch_radius"):
        TowardsPoints(ROUTE, switch_radius=math.nan)
    with pytest.raises(ValueError, match="offset_rng"):
        TowardsPoints(ROUTE, offset_rng=3)
    with pytest.raises(ValueError, match="offsets"):
        TowardsPoints(ROUTE, offsets=np.zeros((2, 2)))
    navigator = TowardsPoints(ROUTE)
    with pytest.raises(ValueError, match=r"state\.x"):
        navigator.step(AgentState(math.nan, 0.0, 0.0, 0.0, 0.0), 0.02)
    with pytest.raises(ValueError, match="k_d"):
        TowardsPoints(ROUTE, k_d=100.0).step(START, 0.02)
    with pytest.raises(ValueError, match="step_batch"):
        TowardsPoints([ROUTE, ROUTE]).step(START, 0.02)
    with pytest.raises(ValueError, match="batch"):
        TowardsPoints([ROUTE, ROUTE]).step_batch(AgentBatch.zeros(3), 0.02)


def test_speed_floor_keeps_speed_control_out_of_the_half_life_trap():
    # seed 004: wished speeds under stopspeed * friction / accelerate are never reached; the
    # speed-to-next-segment law asks for less before turns, and without a floor the agent stalls
    from steerlab.engines.halflife import low_speed_threshold

    route = find_route(NAV, "s1", "g1")
    engine = HalfLifeEngine()
    results = {}
    for floor in (0.0, low_speed_threshold()):
        navigator = TowardsPoints(
            route, k_d=4.0, switch_radius=2.0, speed_to_next_segment=True, speed_floor=floor
        )
        trace, index = run(navigator, engine, 0.01, 4000)
        results[floor] = (navigator.memory.arrived, index[-1])
        assert (trace.commands["speed"][trace.commands["speed"] > 0.0] >= floor).all()
    assert results[low_speed_threshold()] == (True, route.waypoint_count - 1)
    assert not results[0.0][0]  # stalled short of the goal


# ---------------------------------------------------------------------------------------------
# the rally phase (seed 002: "for mobiles that cannot turn at null speed")


def one_waypoint(x, y, radius=8.0):
    return Route(
        waypoint_ids=("a",),
        positions=np.array([[x, y, 0.0]]),
        radii=np.array([radius]),
        waypoint_flags=(frozenset(),),
        widths=np.zeros(0),
        segment_flags=(),
        lengths=np.zeros(0),
    )


SPEED = 320.0


@settings(max_examples=12, deadline=None)
@given(
    rate=st.floats(0.8, 3.0),
    fraction=st.floats(0.1, 0.9),
    side=st.sampled_from([1.0, -1.0]),
    told=st.sampled_from(["yaw_rate_max", "min_turn_radius", "nothing"]),
)
def test_a_waypoint_inside_the_turning_circle_is_reached_after_a_rally(rate, fraction, side, told):
    """The waypoint lies inside the turning circle (radius v / rate, closed form):
    the seed's law alone circles it; with the rally phase (told the yaw rate, or the turning
    radius, or learning it from one orbit) the bot reaches it."""
    radius = SPEED / rate
    waypoint = (0.0, side * fraction * 2.0 * radius)  # on the diameter: inside the circle
    engine = BaseEngine(BaseEngineParams(k_yaw=math.inf, k_speed=math.inf, yaw_rate_max=rate))
    keywords = {
        "yaw_rate_max": {"yaw_rate_max": rate},
        "min_turn_radius": {"min_turn_radius": radius},
        "nothing": {},
    }[told]
    navigator = TowardsPoints(one_waypoint(*waypoint), **keywords)
    dt = 0.01
    # two laps to learn the radius, a straight run, a turn: bounded by a few laps of the circle
    seconds = 4.0 * 2.0 * math.pi * radius / SPEED + 4.0 * radius / SPEED
    state = AgentState(0.0, 0.0, SPEED, 0.0, 0.0)
    trace = simulate(engine, navigator, state, dt, int(seconds / dt))
    assert navigator.memory.arrived
    assert np.hypot(trace.x - waypoint[0], trace.y - waypoint[1]).min() <= 8.0 + SPEED * dt


@settings(max_examples=10, deadline=None)
@given(rate=st.floats(0.8, 3.0), fraction=st.floats(0.2, 0.9))
def test_one_orbit_teaches_the_turning_radius(rate, fraction):
    """Orbit detection: after a second full turn about the waypoint, the learnt radius is the mean
    of the least and greatest distances over it, the orbit's own radius: ``v / rate`` here."""
    radius = SPEED / rate
    engine = BaseEngine(BaseEngineParams(k_yaw=math.inf, k_speed=math.inf, yaw_rate_max=rate))
    navigator = TowardsPoints(one_waypoint(0.0, fraction * 2.0 * radius))
    state = AgentState(0.0, 0.0, SPEED, 0.0, 0.0)
    simulate(engine, navigator, state, 0.01, int(2.2 * 2.0 * math.pi / rate / 0.01))
    assert navigator.memory.orbit_radius == pytest.approx(radius, rel=0.02)


@settings(max_examples=20, deadline=None)
@given(x=st.floats(-500.0, 500.0), y=st.floats(-500.0, 500.0), yaw=st.floats(-3.1, 3.1))
def test_a_mobile_that_turns_in_place_never_rallies(x, y, yaw):
    """With no turning radius the command is the seed's law every frame: the heading is the
    destination's bearing (computed here from the positions) until the arrival latch."""
    navigator = TowardsPoints(ROUTE)
    state = AgentState(x, y, 0.0, 0.0, yaw)
    for _ in range(300):
        command = navigator.step(state, 0.02)
        memory = navigator.memory
        assert not memory.rallying and memory.orbit_radius == 0.0
        if not memory.arrived:
            dx, dy = memory.target_x - state.x, memory.target_y - state.y
            if math.hypot(dx, dy) > 0.0:
                assert abs(wrap_pi(command.yaw - math.atan2(dy, dx))) <= 1e-12
        state = IDEAL.step(state, command, 0.02)
