"""FollowLine (seed 000, "Rallying & moving along a directed line"): properties the seed and the
maths promise, batch == scalar, degenerate cases and bad input."""

import math

import numba
import numpy as np
import pytest
from hypothesis import assume, example, given
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
from steerlab.laws.line import EngineBound, FollowLine, half_life_k_y
from steerlab.sim import simulate

SPEED = 250.0  # [u/s] the seed's figures
DT = 0.05  # [s]
NO_LAG = BaseEngineParams(k_yaw=math.inf)  # b0: Ek_Yaw = 1
courses = st.floats(-math.pi, math.pi, allow_nan=False)
headings = st.floats(-math.pi, math.pi, allow_nan=False, exclude_max=True)
intercept_maxima = st.floats(0.05, math.pi / 2, allow_nan=False)


def wrap(angle):
    return (angle + math.pi) % (2 * math.pi) - math.pi


def line_through_origin(course, length=1000.0):
    """P, Q of a directed line through the origin along ``course``."""
    return (0.0, 0.0), (length * math.cos(course), length * math.sin(course))


def state_in_line_frame(course, along, across, heading, speed=SPEED):
    """An AgentState at ``along`` / ``across`` (left positive) in the frame of the line through
    the origin along ``course``, heading ``heading`` relative to the course."""
    c, s = math.cos(course), math.sin(course)
    yaw = wrap(course + heading)
    return AgentState(
        along * c - across * s,
        along * s + across * c,
        speed * math.cos(yaw),
        speed * math.sin(yaw),
        yaw,
    )


def cross_track_of(trace, course):
    """XTD along a trace, for the line through the origin along ``course``."""
    return math.cos(course) * trace.y - math.sin(course) * trace.x


# --- definitions ---------------------------------------------------------------------------


@given(courses, st.floats(-1e3, 1e3), st.floats(-1e3, 1e3), headings)
def test_cross_track_is_positive_on_the_left_and_its_rate_towards_the_left(
    course, along, across, heading
):
    """Seed 000: XTD = z of cross(uvPQ, vQM), XTDVel = z of cross(uvPQ, vVel) = mVel sin(aVel -
    Course): both positive on the +90 degree side of P -> Q."""
    law = FollowLine(*line_through_origin(course))
    state = state_in_line_frame(course, along, across, heading)
    error, velocity = law.cross_track(state)
    assert error == pytest.approx(across, abs=1e-9)
    assert velocity == pytest.approx(SPEED * math.sin(heading), abs=1e-9)


def test_cross_track_is_the_same_with_p_or_q_and_any_line_length():
    state = AgentState(3.0, 7.0, 1.0, 2.0, 0.0)
    short = FollowLine((0.0, 0.0), (1.0, 0.0))
    long = FollowLine((-50.0, 0.0), (9000.0, 0.0))
    assert short.cross_track(state) == long.cross_track(state) == (7.0, 2.0)
    reversed_line = FollowLine((1.0, 0.0), (0.0, 0.0))  # direction Q -> P: the left flips
    assert reversed_line.cross_track(state) == (-7.0, -2.0)


def test_a_far_agent_heads_for_the_line_at_the_bound_in_the_right_direction():
    """Whatever the position, the agent moves towards the line, forwards along P -> Q."""
    law = FollowLine((0.0, 0.0), (1000.0, 0.0), intercept_max=math.radians(60.0), speed=SPEED)
    for x in (-5000.0, 0.0, 5000.0):  # before P, between, past Q (the line is infinite)
        for heading in (0.0, 2.0, -2.5):
            left = law.step(AgentState(x, 800.0, 0.0, 100.0, heading), DT)
            right = law.step(AgentState(x, -800.0, 0.0, 100.0, heading), DT)
            assert left.yaw == pytest.approx(-math.radians(60.0))
            assert right.yaw == pytest.approx(math.radians(60.0))
            assert left.speed == right.speed == SPEED


@given(
    courses,
    st.floats(-3e3, 3e3),
    headings,
    st.floats(1.0, 600.0),
    intercept_maxima,
    st.floats(0.1, 20.0),
    st.sampled_from(["linear", "asin"]),
)
def test_the_laws_follow_the_seed_formulas_and_never_exceed_the_bound(
    course, across, heading, speed, intercept_max, k_y, law_name
):
    law = FollowLine(
        *line_through_origin(course), k_y=k_y, intercept_max=intercept_max, law=law_name
    )
    command = law.step(state_in_line_frame(course, 10.0, across, heading, speed), DT)
    intercept = wrap(command.yaw - course)
    assert abs(intercept) <= intercept_max + 1e-12
    ratio = -k_y * across / speed
    expected = math.asin(min(max(ratio, -1.0), 1.0)) if law_name == "asin" else ratio
    expected = min(max(expected, -intercept_max), intercept_max)
    assert intercept == pytest.approx(expected, abs=1e-9)


@given(
    courses,
    st.floats(-3e3, 3e3),
    headings,
    st.floats(0.0, 600.0),
    intercept_maxima,
    st.floats(0.2, 10.0),
    st.floats(10.0, 1e4),
    st.booleans(),
)
# found by the thorough profile: a speed whose square underflows is not "at rest"
@example(0.0, 2.3745260551720267e-299, 0.0, 2.3745260551720267e-299, 1.0, 0.25, 10.0, False)
def test_the_engine_bound_is_the_tangent_circle(
    course, across, heading, speed, intercept_max, yaw_rate_max, accel, predict
):
    """Seed 000: the intercept angle stays within min(INTERCEPTANGLEMAX, acos(1 - |XTD| /
    RadiusMin)), RadiusMin = max(mVel / OMEGAMAX, mVel^2 / ACCTMAX); with XTDPred when
    predicting (on the agent's side of the line, see the module docstring)."""
    bound = EngineBound(yaw_rate_max=yaw_rate_max, accel_trans_max=accel, k_yaw=4.0)
    law = FollowLine(
        *line_through_origin(course),
        k_y=1.0,
        intercept_max=intercept_max,
        engine_bound=bound,
        predict=predict,
    )
    state = state_in_line_frame(course, 0.0, across, heading, speed)
    command = law.step(state, DT)
    intercept = wrap(command.yaw - course)
    radius = max(speed / yaw_rate_max, speed * speed / accel)
    error, velocity = law.cross_track(state)  # ~ (across, speed sin(heading)), tested above
    xtd = error
    if predict:
        horizon = DT / (1.0 - math.exp(-4.0 * DT))
        xtd = math.copysign(1.0, error) * max(
            math.copysign(1.0, error) * (error + horizon * velocity), 0.0
        )
    engine_limit = math.acos(min(max(1.0 - abs(xtd) / radius, -1.0), 1.0)) if radius else math.pi
    assert abs(intercept) <= min(intercept_max, engine_limit) + 1e-9
    assert intercept * error <= 0.0  # always towards the line (or along it)


# --- trajectories on the BaseEngine ----------------------------------------------------------


@given(
    courses,
    st.floats(30.0, 3000.0),
    st.sampled_from([1.0, -1.0]),
    headings,
    intercept_maxima,
    st.floats(0.005, 0.1),
)
def test_no_yaw_lag_and_k_y_one_over_t_gives_a_straight_interception_at_the_bound(
    course, distance, side, heading, intercept_max, dt
):
    """Seed 000: "if Ek_Yaw=1 and k_Y= k_Ymax= 1/T, the resulting trajectory is basically a
    straight line intercepting the directed line under an angle of +-INTERCEPTANGLEMAX"."""
    assume(distance > 2.0 * SPEED * dt)
    law = FollowLine(
        *line_through_origin(course), k_y=None, intercept_max=intercept_max, speed=SPEED
    )
    start = state_in_line_frame(course, 0.0, side * distance, heading)
    frames = math.ceil(distance / (SPEED * dt * math.sin(intercept_max))) + 6
    trace = simulate(BaseEngine(NO_LAG), law, start, dt, frames)
    xtd = cross_track_of(trace, course)
    target = wrap(course - side * intercept_max)
    saturated = np.abs(np.abs(np.angle(np.exp(1j * (trace.commands["yaw"] - course))))) > (
        intercept_max - 1e-12
    )
    last = int(np.argmin(saturated))  # the first frame whose command is below the bound
    assert last >= 1
    # frames 1 .. last: heading on the bound, positions on one straight line
    for k in range(1, last + 1):
        assert abs(wrap(trace.yaw[k] - target)) < 1e-12
    direction = np.array([math.cos(target), math.sin(target)])
    offsets = np.stack([trace.x[1 : last + 1] - trace.x[1], trace.y[1 : last + 1] - trace.y[1]])
    deviation = np.abs(direction[0] * offsets[1] - direction[1] * offsets[0])
    assert deviation.max() <= 1e-9 * (distance + abs(trace.x[1]) + abs(trace.y[1]))
    # ... and then onto the line without crossing it
    assert (side * xtd >= -1e-9 * distance).all()
    assert abs(xtd[-1]) < 1e-6 * distance


@pytest.mark.parametrize(("k_y", "dt"), [(0.5, 0.05), (2.0, 0.05), (5.0, 0.05), (3.0, 0.01)])
def test_a_gain_below_one_over_t_gives_an_exponential_decay_at_the_rate_k_y(k_y, dt):
    """Seed 000: "if Ek_Yaw=1 and k_Y< 1/T, the straight line is followed by a
    close-to-exponentially decaying y". Small angles: d(XTD)/dt = mVel sin(U_IcptAng) ~ -k_Y
    XTD, so the rate is k_Y; per frame XTD is multiplied by 1 - k_Y T: rate -ln(1 - k_Y T)/T."""
    law = FollowLine((0.0, 0.0), (1.0, 0.0), k_y=k_y, speed=SPEED)
    trace = simulate(BaseEngine(NO_LAG), law, AgentState(0.0, 500.0, SPEED, 0.0, 0.0), dt, 3000)
    xtd = trace.y
    # the linear regime: |k_Y XTD / v| < 0.05 rad, above rounding
    window = (np.abs(k_y * xtd / SPEED) < 0.05) & (np.abs(xtd) > 1e-6)
    assert window.sum() > 20
    assert (np.diff(np.flatnonzero(window)) == 1).all()  # one stretch: monotone decay
    slope, intercept = np.polyfit(trace.t[window], np.log(np.abs(xtd[window])), 1)
    residual = np.log(np.abs(xtd[window])) - (intercept + slope * trace.t[window])
    discrete_rate = -math.log(1.0 - k_y * dt) / dt
    assert -slope == pytest.approx(discrete_rate, rel=2e-3)
    assert k_y < -slope < k_y / (1.0 - k_y * dt)  # -ln(1 - x) lies between x and x / (1 - x)
    assert np.abs(residual).max() < 1e-2
    assert (xtd > 0).all()  # no overshoot


def overshoot(trace, side):
    return max(float((-side * trace.y).max()), 0.0)


@pytest.mark.parametrize("k_yaw", [math.inf, 4.0])
@pytest.mark.parametrize("heading", [0.0, -math.pi / 4, -math.pi / 2, math.pi / 2])
def test_the_engine_bound_and_the_prediction_reduce_the_overshoot(k_yaw, heading):
    """Seed 000: without engine bound the rally starts too late and overshoots when the yaw
    speed is bounded; IcptMax_Engine reduces the overshoot, XTDPred reduces it further."""
    params = BaseEngineParams(k_yaw=k_yaw, yaw_rate_max=math.pi / 2)
    engine = BaseEngine(params)
    start = AgentState(0.0, 500.0, SPEED * math.cos(heading), SPEED * math.sin(heading), heading)
    results = []
    for bound, predict in ((None, False), (params, False), (params, True)):
        law = FollowLine(
            (0.0, 0.0), (1.0, 0.0), k_y=None, engine_bound=bound, predict=predict, speed=SPEED
        )
        results.append(overshoot(simulate(engine, law, start, DT, 400), 1.0))
    plain, bounded, predicted = results
    assert plain > 1.0  # the seed's case overshoots markedly (more than a game unit)
    assert bounded < plain
    assert predicted <= bounded
    assert predicted < 0.1 * plain


@given(headings, st.sampled_from([1.0, -1.0]), st.floats(100.0, 2000.0), st.booleans())
def test_the_initial_turn_follows_the_seed_sign_rule(heading, side, distance, lag):
    """Seed 000: with a yaw-speed bound "the sign of this initial turn depends on the sign of
    (initialRBear - (180+-INTERCEPTANGLEMAX))": the engine turns the shortest way towards
    Course -+ INTERCEPTANGLEMAX, counter-clockwise on the left of the line (XTD > 0) for RBear
    in (180 - IAM, 360 - IAM), clockwise elsewhere; mirrored on the right."""
    intercept_max = math.pi / 4
    relative = heading % (2 * math.pi)  # initialRBear in [0, 360) degrees
    flip = math.pi - side * intercept_max
    target = (-side * intercept_max) % (2 * math.pi)
    assume(min(abs(relative - flip), abs(relative - target)) > 1e-6)
    params = BaseEngineParams(k_yaw=4.0 if lag else math.inf, yaw_rate_max=math.pi / 2)
    law = FollowLine((0.0, 0.0), (1.0, 0.0), intercept_max=intercept_max, speed=SPEED)
    start = AgentState(0.0, side * distance, 0.0, 0.0, wrap(heading))
    after = BaseEngine(params).step(start, law.step(start, DT), DT)
    turn = math.copysign(1.0, wrap(after.yaw - start.yaw))
    # counter-clockwise iff the heading lies between the flip and the target, going round
    # counter-clockwise from the flip
    expected = 1.0 if (relative - flip) % (2 * math.pi) < (target - flip) % (2 * math.pi) else -1.0
    assert turn == expected


@given(headings, st.sampled_from([1.0, -1.0]), st.sampled_from([0.0, 0.5, math.pi / 2]))
def test_a_turn_limit_moves_the_flip_and_the_turn_never_sweeps_the_avoided_heading(
    heading, side, limit
):
    """Seed 000: "It is possible to tune the limit angle independently from INTERCEPTANGLEMAX":
    with turn_limit = L the initial turn flips at 180 -+ L, and the heading never sweeps
    through Course + 180 - sign(XTD) L while the agent stays on its side of the line."""
    avoided = math.pi - side * limit
    relative = heading % (2 * math.pi)
    assume(
        min(abs(relative - avoided), abs(relative - (-side * math.pi / 4) % (2 * math.pi))) > 1e-3
    )
    params = BaseEngineParams(k_yaw=4.0, yaw_rate_max=math.pi / 2)
    law = FollowLine((0.0, 0.0), (1.0, 0.0), speed=SPEED, turn_limit=limit)
    start = AgentState(
        0.0, side * 1500.0, SPEED * math.cos(heading), SPEED * math.sin(heading), heading
    )
    trace = simulate(BaseEngine(params), law, start, DT, 100)
    same_side = side * trace.y > 0
    yaw = trace.yaw[same_side]
    # heading relative to the avoided one, unwrapped: it must never cross a multiple of 2 pi
    relative_path = np.unwrap(yaw - avoided)
    assert (
        np.floor(relative_path / (2 * math.pi)).min()
        == np.floor(relative_path / (2 * math.pi)).max()
    )
    # and the turn ends heading at the bound
    assert abs(wrap(trace.yaw[-1] + side * math.pi / 4)) < math.radians(1.0)


def test_without_turn_limit_the_law_is_the_plain_shortest_way():
    law = FollowLine((0.0, 0.0), (1.0, 0.0), speed=SPEED)
    limited = FollowLine((0.0, 0.0), (1.0, 0.0), speed=SPEED, turn_limit=math.pi / 4)
    # saturated law, L = INTERCEPTANGLEMAX: the rule is the engine's shortest way
    for degrees in range(-179, 180, 2):
        state = AgentState(0.0, 800.0, 0.0, 0.0, math.radians(degrees))
        plain = law.step(state, DT)
        assert plain.yaw == pytest.approx(-math.pi / 4)
        forced = limited.step(state, DT)
        assert math.copysign(1.0, wrap(forced.yaw - state.yaw)) == math.copysign(
            1.0, wrap(plain.yaw - state.yaw)
        )


# --- Half-Life --------------------------------------------------------------------------------


@pytest.mark.parametrize("dt", [0.014, 0.05, 0.1])
def test_half_life_friction_over_four_rallies_without_overshoot(dt):
    """Seed 000: "k_Y= sv_friction/4 is a low conservative value, and twice that value is OK":
    friction/4 never crosses the line; twice that settles faster."""
    params = HalfLifeParams()
    start = AgentState(0.0, 500.0, SPEED, 0.0, 0.0)
    traces = {}
    for gain in (params.friction / 4, params.friction / 2):
        law = FollowLine((0.0, 0.0), (1.0, 0.0), k_y=gain, speed=SPEED)
        traces[gain] = simulate(HalfLifeEngine(params), law, start, dt, round(20.0 / dt))
    conservative, double = traces.values()
    assert overshoot(conservative, 1.0) == 0.0
    assert abs(double.y[-1]) < 1.0 and abs(conservative.y[-1]) < 1.0

    def settle(trace):
        outside = np.flatnonzero(np.abs(trace.y) > 1.0)
        return trace.t[outside[-1] + 1]

    assert settle(double) < settle(conservative)


@given(dt=st.floats(1e-9, 0.24), friction=st.floats(1.0, 8.0))
def test_half_life_k_y_is_critical_damping_of_the_lateral_decay(dt, friction):
    """``half_life_k_y``: a quarter of the rate at which seed 004's lateral speed decays (``1 - F
    T`` per frame), checked as ``exp(-4 k_Y T) = 1 - F T`` (the decay rebuilt from the gain),
    capped at ``1/T``; it tends to the seed's ``F / 4`` as ``T -> 0``."""
    params = HalfLifeParams(friction=friction)
    k_y = half_life_k_y(dt, params)
    if friction * dt >= 1.0 - math.exp(-4.0):
        assert k_y == 1.0 / dt
    else:
        assert math.exp(-4.0 * k_y * dt) == pytest.approx(1.0 - friction * dt, rel=1e-12)
        assert friction / 4.0 <= k_y <= 1.0 / dt
    assert half_life_k_y(1e-12, params) == pytest.approx(friction / 4.0, rel=1e-9)


@pytest.mark.parametrize("dt", [0.014, 0.05, 0.1, 0.2])
def test_half_life_k_y_rallies_the_line_without_overshoot(dt):
    """The seed: friction/4 is "conservative"; the frame-time gain is critical damping, so it
    does not cross the line either (by under a thousandth of a unit from 500 u at T = 0.2 s)."""
    params = HalfLifeParams()
    start = AgentState(0.0, 500.0, SPEED, 0.0, 0.0)
    law = FollowLine((0.0, 0.0), (1.0, 0.0), k_y=half_life_k_y(dt, params), speed=SPEED)
    trace = simulate(HalfLifeEngine(params), law, start, dt, round(20.0 / dt))
    # critical damping of the linearised, continuous loop: the frames leave at most a trace
    assert overshoot(trace, 1.0) <= 1e-3
    assert abs(trace.y[-1]) < 1.0


# --- degenerate cases -------------------------------------------------------------------------


OPTIONS = [
    {},
    {"law": "asin", "intercept_max": math.pi / 2},
    {"engine_bound": BaseEngineParams(yaw_rate_max=1.0, accel_trans_max=300.0)},
    {"engine_bound": EngineBound(yaw_rate_max=2.0, k_yaw=4.0), "predict": True},
    {"engine_bound": NO_LAG._replace(yaw_rate_max=1.5), "predict": True, "turn_limit": 0.0},
    {"turn_limit": math.pi / 2, "k_y": None},
]


@pytest.mark.parametrize("options", OPTIONS)
def test_no_nan_on_the_line_at_rest_or_with_the_line_behind(options):
    law = FollowLine((100.0, 0.0), (200.0, 0.0), **options)
    course = 0.0
    states = [
        AgentState(150.0, 0.0, 0.0, 0.0, 0.0),  # on the line, at rest
        AgentState(100.0, 0.0, 0.0, 0.0, 1.0),  # exactly on P
        AgentState(200.0, 0.0, 0.0, 0.0, -3.0),  # exactly on Q
        AgentState(150.0, 0.0, 300.0, 0.0, 0.0),  # on the line, moving along it
        AgentState(150.0, 0.0, -300.0, 0.0, -math.pi),  # on the line, moving backwards
        AgentState(150.0, 30.0, 0.0, 0.0, 2.0),  # off the line at rest
        AgentState(150.0, -30.0, 0.0, 0.0, 2.0),
        AgentState(-5e3, 0.0, 0.0, 5.0, 0.0),  # the line is ahead ...
        AgentState(5e3, 30.0, 300.0, 0.0, 0.0),  # ... or behind: it is infinite
        AgentState(150.0, 1e-300, 1e-300, 0.0, 0.0),  # underflowing distances and speeds
        AgentState(150.0, -1e-12, 5e-324, 5e-324, 0.0),
        AgentState(150.0, 5e-324, 0.0, 0.0, 0.0),
        AgentState(1e15, -1e15, 1e6, -1e6, 0.0),
    ]
    for state in states:
        command = law.step(state, DT)
        assert math.isfinite(command.yaw) and math.isfinite(command.speed), state
        assert -math.pi <= command.yaw < math.pi
    # at rest the law is its limit as mVel -> 0+: the full bound towards the line
    if "turn_limit" not in options:
        bound = options.get("intercept_max", math.pi / 4)
        assert law.step(states[5], DT).yaw == pytest.approx(course - bound)
        assert law.step(states[6], DT).yaw == pytest.approx(course + bound)
        assert law.step(states[0], DT).yaw == course


@given(st.floats(1e-300, 1e-3), st.floats(-1e3, 1e3).filter(lambda v: abs(v) > 1e-3))
def test_zero_speed_is_the_limit_of_slow_speeds(speed, across):
    law = FollowLine((0.0, 0.0), (1.0, 0.0), k_y=1.0)
    at_rest = law.step(AgentState(0.0, across, 0.0, 0.0, 0.0), DT)
    slow = law.step(AgentState(0.0, across, speed, 0.0, 0.0), DT)
    assert at_rest == slow


# --- batch == scalar ---------------------------------------------------------------------------


def random_agents(rng, size):
    batch = AgentBatch(
        rng.uniform(-2e3, 2e3, size),
        rng.uniform(-2e3, 2e3, size),
        rng.normal(0.0, 200.0, size),
        rng.normal(0.0, 200.0, size),
        rng.uniform(-math.pi, math.pi, size),
    )
    batch.vx[:4] = 0.0  # at rest
    batch.vy[:4] = 0.0
    return batch


@pytest.mark.parametrize("options", OPTIONS)
@pytest.mark.parametrize("threads", [1, 2])
def test_batch_equals_scalar_bit_for_bit(options, threads):
    rng = np.random.default_rng(20261123)
    size, frames = 131, 25
    p = rng.uniform(-1e3, 1e3, (size, 2))
    q = p + rng.normal(0.0, 500.0, (size, 2))
    batch = random_agents(rng, size)
    # a few agents exactly on their line, on P, on Q
    batch.x[4:6] = p[4:6, 0]
    batch.y[4:6] = p[4:6, 1]
    batch.x[6] = q[6, 0]
    batch.y[6] = q[6, 1]
    batch.x[7] = 0.5 * (p[7, 0] + q[7, 0])
    batch.y[7] = 0.5 * (p[7, 1] + q[7, 1])
    engine = BaseEngine(BaseEngineParams(yaw_rate_max=2.0, accel_trans_max=500.0))
    law = FollowLine(p, q, **options)
    singles = [FollowLine(p[i], q[i], **options) for i in range(size)]
    scalar = [batch.state(i) for i in range(size)]
    previous = numba.get_num_threads()
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        out = None
        for _ in range(frames):
            dt = float(rng.choice([0.01, 0.05, 0.1]))
            out = law.step_batch(batch, dt, out)
            commands = [
                single.step(state, dt) for single, state in zip(singles, scalar, strict=True)
            ]
            for i, command in enumerate(commands):
                assert (out.yaw[i], out.speed[i]) == tuple(command), f"agent {i}"
            engine.step_batch(batch, out.yaw, out.speed, dt)
            scalar = [engine.step(s, c, dt) for s, c in zip(scalar, commands, strict=True)]
    finally:
        numba.set_num_threads(previous)
    for i, state in enumerate(scalar):
        assert batch.state(i) == state, f"agent {i}"


def test_a_single_line_is_broadcast_to_every_agent():
    rng = np.random.default_rng(5)
    batch = random_agents(rng, 17)
    one = FollowLine((1.0, 2.0), (30.0, -4.0), k_y=2.0)
    many = FollowLine(np.tile([1.0, 2.0], (17, 1)), (30.0, -4.0), k_y=2.0)
    first = one.step_batch(batch, 0.02)
    second = many.step_batch(batch, 0.02)
    assert np.array_equal(first.yaw, second.yaw)
    assert np.array_equal(first.speed, second.speed)
    error, velocity = one.cross_track_batch(batch)
    for i in range(batch.size):
        assert (error[i], velocity[i]) == one.cross_track(batch.state(i))


# --- bad input ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"p": (1.0, 1.0), "q": (1.0, 1.0)}, "p and q must differ"),
        ({"p": [(0.0, 0.0), (2.0, 2.0)], "q": [(1.0, 0.0), (2.0, 2.0)]}, "line 1"),
        ({"p": (math.nan, 0.0)}, r"p\[:, 0\]"),
        ({"q": (0.0, math.inf)}, r"q\[:, 1\]"),
        ({"p": (0.0, 0.0, 0.0)}, "p must be"),
        ({"p": np.zeros((3, 2)), "q": np.ones((2, 2))}, "p holds 3"),
        ({"k_y": 0.0}, "k_y"),
        ({"k_y": -1.0}, "k_y"),
        ({"k_y": math.nan}, "k_y"),
        ({"intercept_max": 0.0}, "intercept_max"),
        ({"intercept_max": math.pi / 2 + 1e-9}, "intercept_max"),
        ({"intercept_max": math.nan}, "intercept_max"),
        ({"speed": -1.0}, "speed"),
        ({"speed": math.nan}, "speed"),
        ({"law": "quadratic"}, "law"),
        ({"turn_limit": -0.1}, "turn_limit"),
        ({"turn_limit": 2.0}, "turn_limit"),
        ({"predict": True}, "predict=True needs an engine_bound"),
        ({"predict": "yes", "engine_bound": EngineBound()}, "predict"),
        ({"engine_bound": HalfLifeParams()}, "Half-Life"),
        ({"engine_bound": (1.0, 2.0)}, "engine_bound"),
        ({"engine_bound": EngineBound(yaw_rate_max=-1.0)}, "engine_bound.yaw_rate_max"),
        ({"engine_bound": BaseEngineParams(accel_trans_max=math.nan)}, "accel_trans_max"),
    ],
)
def test_bad_input_is_a_value_error_naming_the_argument(kwargs, match):
    arguments = {"p": (0.0, 0.0), "q": (1.0, 0.0)} | kwargs
    with pytest.raises(ValueError, match=match):
        FollowLine(**arguments)


def test_bad_step_input_is_a_value_error():
    law = FollowLine((0.0, 0.0), (1.0, 0.0), k_y=5.0)
    state = AgentState(0.0, 1.0, 1.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="k_y must be <= 1/dt"):
        law.step(state, 0.5)
    with pytest.raises(ValueError, match="dt"):
        law.step(state, 0.0)
    with pytest.raises(ValueError, match=r"state\.vy"):
        law.step(state._replace(vy=math.nan), 0.01)
    many = FollowLine(np.zeros((3, 2)), (1.0, 0.0))
    with pytest.raises(ValueError, match="step_batch"):
        many.step(state, 0.01)
    with pytest.raises(ValueError, match="3 targets but the batch has 2"):
        many.step_batch(AgentBatch.zeros(2), 0.01)
    with pytest.raises(ValueError, match="out must be"):
        law.step_batch(AgentBatch.zeros(2), 0.01, out=Command())


def test_accessors_and_reset():
    law = FollowLine((0.0, 0.0), (0.0, 5.0), speed=100.0)
    assert law.course == pytest.approx(math.pi / 2)
    assert law.p.tolist() == [0.0, 0.0] and law.q.tolist() == [0.0, 5.0]
    law.reset()  # no memory: nothing to clear, and the law stays usable
    assert law.step(AgentState(), 0.1) == Command(math.pi / 2, 100.0)
    assert "FollowLine(p=[0.0, 0.0]" in repr(law)
    lines = FollowLine([(0.0, 0.0), (1.0, 1.0)], [(1.0, 0.0), (1.0, 2.0)])
    assert lines.course.tolist() == pytest.approx([0.0, math.pi / 2])
