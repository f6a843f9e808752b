"""SeekPoint and AroundPoint (seed 000): bearing, speed law, arrival, staying outside the circle."""

import math

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from steerlab._jit import SERIAL_LIMIT
from steerlab.engines import AgentBatch, AgentState, BaseEngine, BaseEngineParams
from steerlab.engines.halflife import HalfLifeEngine, HalfLifeParams
from steerlab.geometry import wrap_pi
from steerlab.laws import AroundPoint, SeekPoint
from steerlab.sim import simulate

IDEAL = BaseEngine(BaseEngineParams(k_yaw=math.inf, k_speed=math.inf))
positions = st.floats(-500.0, 500.0)
frame_times = st.floats(0.005, 0.1)


@given(positions, positions, positions, positions, st.floats(0.1, 10.0), frame_times)
def test_seek_heads_for_the_target_at_the_bounded_distance_speed(x, y, tx, ty, k_d, dt):
    k_d = min(k_d, 1.0 / dt)
    remaining = math.hypot(tx - x, ty - y)
    law = SeekPoint((tx, ty), k_d=k_d, speed_bound=250.0, arrival_radius=None)
    command = law.step(AgentState(x, y, 0, 0, 0), dt)
    if remaining < 1e-150:  # on the point (squares underflow below 1e-154)
        assert command.speed <= k_d * 1e-150
        # the bearing is undefined where the law's distance underflows to 0: the heading is held
        bearing = math.atan2(ty - y, tx - x)
        assert command.yaw == 0.0 or abs(wrap_pi(command.yaw - bearing)) <= 1e-12
        return
    assert command.speed == pytest.approx(min(k_d * remaining, 250.0))
    assert wrap_pi(command.yaw - math.atan2(ty - y, tx - x)) == pytest.approx(0.0, abs=1e-12)


@given(positions, positions, frame_times)
def test_seek_on_an_ideal_engine_closes_in_monotonically_and_arrives(x, y, dt):
    law = SeekPoint((0.0, 0.0), k_d=0.5 / dt, speed_bound=300.0)
    trace = simulate(IDEAL, law, AgentState(x, y, 0.0, 0.0, 0.0), dt, int(10.0 / dt))
    remaining = np.hypot(trace.x, trace.y)
    assert np.all(np.diff(remaining) <= 1e-9)
    assert remaining[-1] <= 300.0 * dt + 1e-9


def heading_jumps_near(trace, radius):
    """Frames, once the agent has first come within ``radius`` of the origin, where its heading
    jumps by more than 90 degrees."""
    inside = np.flatnonzero(np.hypot(trace.x, trace.y) <= radius)
    if inside.size == 0:
        return 0
    jumps = np.abs([wrap_pi(a) for a in np.diff(trace.yaw[inside[0] :])])
    return int(np.count_nonzero(jumps > math.pi / 2))


@pytest.mark.parametrize("k_d", [2.0, 10.0, 20.0])
def test_the_seed_law_dances_on_the_destination_and_the_engine_aware_seek_does_not(k_d):
    """Seed 000: "numerical simulation will generate undesirable jittery velocity direction
    changes when the mobile is on or very close to the destination point (bot dancing around its
    center point)". An engine with a speed lag steps over the point again and again; told the
    engine, SeekPoint brakes on its stop distance, latches, and stays on the point."""
    engine = BaseEngine(BaseEngineParams(k_yaw=math.inf, k_speed=4.0))
    start = AgentState(-300.0, 40.0, 0.0, 0.0, 0.0)
    dt = 0.05
    seed_law = SeekPoint((0.0, 0.0), k_d=k_d, speed_bound=320.0, arrival_radius=None)
    dancing = simulate(engine, seed_law, start, dt, 600)
    assert heading_jumps_near(dancing, 2.0) > 10

    # with the seed's k_D the approach is exponential (rate k_D): no latch, and no dance either
    braking = SeekPoint((0.0, 0.0), k_d=k_d, speed_bound=320.0, engine=engine.params)
    settled = simulate(engine, braking, start, dt, 600)
    assert heading_jumps_near(settled, 2.0) == 0
    assert math.hypot(settled.x[-1], settled.y[-1]) <= 1.0

    # with k_D = 1/T (the default) it comes in on the engine's deceleration, which a speed lag
    # makes geometric: the point is approached, never passed, and the latch needs a tolerance
    latched = SeekPoint((0.0, 0.0), speed_bound=320.0, engine=engine.params, arrival_radius=0.5)
    settled = simulate(engine, latched, start, dt, 600)
    assert latched.memory.arrived
    assert np.all(settled.commands["speed"][-200:] == 0.0)
    assert np.ptp(settled.yaw[-200:]) == 0.0  # latched: no heading change at all
    assert heading_jumps_near(settled, 2.0) == 0
    assert math.hypot(settled.x[-1], settled.y[-1]) <= 1.0


def _closed_loop(engine, law, start, dt, seconds):
    trace = simulate(engine, law, start, dt, int(seconds / dt))
    return trace, np.hypot(trace.x, trace.y)


SIMPLIFIED = HalfLifeParams.stock("simplified")
BOUNDED = BaseEngineParams(
    k_yaw=6.0,
    k_speed=3.0,
    yaw_rate_max=math.pi / 2,
    accel_trans_max=800.0,
    accel_long_max=400.0,
    decel_long_max=-400.0,
)
ENGINES_TO_SEEK_ON = {
    "half-life": (HalfLifeEngine(), HalfLifeParams()),
    "half-life simplified": (HalfLifeEngine(SIMPLIFIED), SIMPLIFIED),
    "base, lags": (BaseEngine(), BaseEngineParams()),
    "base, bounded": (BaseEngine(BOUNDED), BOUNDED),
}


@pytest.mark.parametrize("name", list(ENGINES_TO_SEEK_ON))
@settings(max_examples=15, deadline=None)
@given(
    distance=st.floats(5.0, 800.0),
    bearing=st.floats(-math.pi, math.pi),
    yaw=st.floats(-math.pi, math.pi),
    dt=st.floats(0.005, 0.05),
)
def test_told_its_engine_seek_arrives_on_the_point_without_passing_it(
    name, distance, bearing, yaw, dt
):
    """Told the engine, the agent comes to rest within a unit of the point, and once it has come
    closest it never gets more than a unit away (no overshoot, no orbit)."""
    engine, params = ENGINES_TO_SEEK_ON[name]
    start = AgentState(distance * math.cos(bearing), distance * math.sin(bearing), 0.0, 0.0, yaw)
    law = SeekPoint((0.0, 0.0), engine=params)
    trace, remaining = _closed_loop(engine, law, start, dt, 12.0)
    # Half-Life's friction ends the run in finite time: the latch fires on its own
    assert law.memory.arrived or not isinstance(params, HalfLifeParams)
    assert remaining[-1] <= 1.0
    assert remaining[int(np.argmin(remaining)) :].max() <= 1.0
    assert math.hypot(trace.vx[-1], trace.vy[-1]) <= 1e-3 * 320.0


@settings(max_examples=50, deadline=None)
@given(positions, positions, positions, positions, st.floats(0.0, 320.0), frame_times)
def test_without_an_engine_the_default_seek_is_the_seed_law_outside_its_arrival_radius(
    x, y, vx, vy, speed, dt
):
    """The default latch holds only within ``arrival_radius`` (0): a frame's travel away at full
    speed, the command is still the seed's law, not a zero speed the agent would coast past."""
    remaining = math.hypot(x, y)
    state = AgentState(x, y, vx, vy, 0.3)
    default = SeekPoint((0.0, 0.0)).step(state, dt)
    seed = SeekPoint((0.0, 0.0), arrival_radius=None).step(state, dt)
    if remaining > 0.0:
        assert default == seed


def test_rearm_distance_releases_the_latch():
    law = SeekPoint((0.0, 0.0), arrival_radius=1.0, rearm_distance=10.0)
    assert law.step(AgentState(0.5, 0.0, 0.0, 0.0, 0.0), 0.1).speed == 0.0
    assert law.memory.arrived
    assert law.step(AgentState(5.0, 0.0, 0.0, 0.0, 0.0), 0.1).speed == 0.0  # still latched
    assert law.step(AgentState(50.0, 0.0, 0.0, 0.0, 0.0), 0.1).speed > 0.0  # pushed away
    assert not law.memory.arrived


@given(
    start_x=st.floats(-600.0, 600.0),
    start_y=st.floats(-600.0, 600.0),
    radius=st.floats(5.0, 150.0),
    side=st.sampled_from([1, -1]),
    speed=st.floats(20.0, 320.0),
    dt=st.floats(0.005, 0.25),
)
def test_around_point_never_enters_the_circle_with_no_yaw_lag(
    start_x, start_y, radius, side, speed, dt
):
    """Seed 000: "the trajectory remains ouside the circle" (Ek_Yaw = 1): every frame moves
    along a line tangent to (or leading out of) the circle."""
    if math.hypot(start_x, start_y) < radius:
        start_x, start_y = radius * 1.5, 0.0
    law = AroundPoint((0.0, 0.0), radius, side=side, speed_bound=speed)
    engine = BaseEngine(BaseEngineParams(k_yaw=math.inf, k_speed=4.0))
    trace = simulate(engine, law, AgentState(start_x, start_y, 0.0, 0.0, 0.0), dt, 300)
    assert np.hypot(trace.x, trace.y).min() >= radius * (1.0 - 1e-9)


@pytest.mark.parametrize("side", [1, -1])
def test_around_point_circles_on_the_chosen_side(side):
    law = AroundPoint((0.0, 0.0), 50.0, side=side, speed_bound=100.0)
    trace = simulate(IDEAL, law, AgentState(-400.0, 10.0, 0.0, 0.0, 0.0), 0.01, 2000)
    # angular momentum about the centre: +1 keeps the point on the left (counter-clockwise)
    momentum = trace.x[-500:] * trace.vy[-500:] - trace.y[-500:] * trace.vx[-500:]
    assert np.all(np.sign(momentum) == side)
    radius = np.hypot(trace.x[-500:], trace.y[-500:])
    assert np.all(radius >= 50.0 - 1e-9) and radius.max() <= 50.0 + 100.0 * 0.01


@given(positions, positions, positions, positions, frame_times)
def test_around_point_with_zero_distance_is_towards_a_point(x, y, tx, ty, dt):
    """Seed 000: "Setting U_Dist= 0 gives 'Moving towards a destination point'": the bearing
    of the point and min(k_D MQ, SPEEDBOUND), computed here from their definitions."""
    state = AgentState(x, y, 3.0, -2.0, 0.4)
    k_d = min(2.0, 1.0 / dt)
    around = AroundPoint((tx, ty), 0.0, k_d=k_d, speed_bound=200.0).step(state, dt)
    remaining = math.hypot(tx - x, ty - y)
    if remaining < 1e-150:  # on the point (squares underflow): no speed, any heading is fine
        assert around.speed <= k_d * 1e-150
        return
    assert around.speed == pytest.approx(min(k_d * remaining, 200.0))
    assert wrap_pi(around.yaw - math.atan2(ty - y, tx - x)) == pytest.approx(0.0, abs=1e-12)
    seek = SeekPoint((tx, ty), k_d=k_d, speed_bound=200.0, arrival_radius=None).step(state, dt)
    assert seek == around  # and SeekPoint without its latch is that same law


@pytest.mark.parametrize(
    ("threads", "size", "frames"),
    [(1, 120, 60), (2, 120, 60), (2, SERIAL_LIMIT + 3, 3)],
    ids=["serial-1", "serial-2", "parallel-2"],
)
def test_batch_equals_scalar_bit_for_bit_over_frames(threads, size, frames):
    rng = np.random.default_rng(5)
    dt = 0.05
    start = AgentBatch(
        rng.uniform(-100, 100, size),
        rng.uniform(-100, 100, size),
        rng.normal(0, 50, size),
        rng.normal(0, 50, size),
        rng.uniform(-3, 3, size),
    )
    targets = rng.uniform(-100, 100, (size, 2))
    targets[0] = start.x[0], start.y[0]  # one agent exactly on its target
    engine = BaseEngine(BaseEngineParams(k_yaw=6.0, k_speed=3.0))
    builders = [
        lambda t: SeekPoint(t, k_d=5.0, speed_bound=250.0),
        lambda t: SeekPoint(t, arrival_radius=None),
        lambda t: SeekPoint(t, arrival_radius=3.0, rearm_distance=20.0),
        lambda t: AroundPoint(t, 20.0, side=-1, speed_bound=250.0),
    ]
    previous = numba.get_num_threads()
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        for build in builders:
            law, singles = build(targets), [build(targets[i]) for i in range(size)]
            batch, states = start.copy(), [start.state(i) for i in range(size)]
            for _ in range(frames):
                out = law.step_batch(batch, dt)
                commands = [
                    single.step(state, dt) for single, state in zip(singles, states, strict=True)
                ]
                for i, command in enumerate(commands):
                    assert (out.yaw[i], out.speed[i]) == tuple(command), (law, i)
                engine.step_batch(batch, out.yaw, out.speed, dt)
                states = [engine.step(s, c, dt) for s, c in zip(states, commands, strict=True)]
    finally:
        numba.set_num_threads(previous)


def test_no_nan_on_the_target_at_zero_speed_or_with_the_target_behind():
    for law in (
        SeekPoint((0, 0)),
        SeekPoint((0, 0), arrival_radius=None),
        AroundPoint((0, 0), 10.0),
        AroundPoint((0, 0), 0.0),
    ):
        for state in (AgentState(), AgentState(0, 0, 100.0, 0, 0), AgentState(50, 0, 100.0, 0, 0)):
            for dt in (1e-4, 0.1, 100.0):
                command = law.step(state, dt)  # k_d = None means 1/dt: always allowed
                assert math.isfinite(command.yaw) and math.isfinite(command.speed)


@pytest.mark.parametrize(
    ("build", "name"),
    [
        (lambda: SeekPoint((math.nan, 0.0)), "target"),
        (lambda: SeekPoint((0.0, 0.0, 0.0)), "target"),
        (lambda: SeekPoint((0.0, 0.0), k_d=-1.0), "k_d"),
        (lambda: SeekPoint((0.0, 0.0), speed_bound=0.0), "speed_bound"),
        (lambda: SeekPoint((0.0, 0.0), arrival_radius=-1.0), "arrival_radius"),
        (lambda: AroundPoint((0.0, 0.0), -5.0), "distance"),
        (lambda: AroundPoint((0.0, 0.0), 5.0, side=0), "side"),
        (lambda: AroundPoint((0.0, math.inf), 5.0), "center"),
    ],
)
def test_bad_construction_raises(build, name):
    with pytest.raises(ValueError, match=name):
        build()


def test_gain_above_one_over_the_frame_time_raises():
    law = SeekPoint((10.0, 0.0), k_d=20.0)
    law.step(AgentState(), 0.05)  # 20 = 1 / 0.05 is allowed
    with pytest.raises(ValueError, match="k_d"):
        law.step(AgentState(), 0.1)


def test_step_needs_one_target_and_batch_sizes_must_match():
    law = SeekPoint(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="step_batch"):
        law.step(AgentState(), 0.1)
    with pytest.raises(ValueError, match="3 targets"):
        law.step_batch(AgentBatch.zeros(4), 0.1)
