"""Ground vehicles (seed 001): the physics each model promises, the paper's vehicle classes as
measured, batch == scalar, and bad input."""

import math

import numba
import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import steerlab._jit
from steerlab._jit import SERIAL_LIMIT
from steerlab.experiments.fidelity.vehicle_classes import (
    hard_reasons,
    measure_vehicle_classes,
    render_markdown,
)
from steerlab.vehicles import (
    EASY,
    GRAVITY,
    HARD,
    HOVER,
    PRESETS,
    TRACKED,
    WHEELED,
    DriveCommand,
    Vehicle,
    VehicleBatch,
    VehicleParams,
    VehicleState,
)
from steerlab.vehicles.dynamics import _vehicle_dynamics

WHEELED_PRESETS = [name for name, p in PRESETS.items() if p.kind == WHEELED]


class ConstantGrade:
    """A duck-typed world: a plane rising along +x at ``grade`` radians, nothing else.

    Gravity's pull along the slope is ``g sin(grade)`` towards -x; its body components are what
    the world passes to the dynamics kernel.
    """

    def __init__(self, grade):
        self.pull = GRAVITY * math.sin(grade)
        self.calls = 0

    def step_vehicle(self, params, state, command, dt):
        self.calls += 1
        forward = -self.pull * math.cos(state.yaw)
        left = self.pull * math.sin(state.yaw)
        return _vehicle_dynamics(state, command, params, forward, left, dt)


def drive(vehicle, state, command, dt, seconds, world=None):
    """States after each frame of ``seconds`` with a constant command."""
    states = []
    for _ in range(round(seconds / dt)):
        state = vehicle.step(state, command, dt, world=world)
        states.append(state)
    return states


def hold_speed(vehicle, target, steer, dt, seconds, state=None):
    """Proportional speed hold (throttle = clamp(target - v, -1, 1)) with a constant steer."""
    state = VehicleState(v=target) if state is None else state
    states = []
    for _ in range(round(seconds / dt)):
        throttle = min(max(target - state.v, -1.0), 1.0)
        state = vehicle.step(state, DriveCommand(steer, throttle), dt)
        states.append(state)
    return states


# --------------------------------------------------------------------------------------------
# longitudinal physics
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(PRESETS))
def test_coasts_down_to_rest_and_never_reverses_by_itself(name):
    vehicle = Vehicle(name)
    states = drive(vehicle, VehicleState(v=15.0, yaw=2.0), DriveCommand(0.0, 0.0), 0.05, 120.0)
    speeds = np.array([s.v for s in states])
    assert (speeds >= 0.0).all()
    assert (np.diff(speeds) <= 0.0).all()  # drag and rolling resistance only slow it down
    assert states[-1].v == 0.0 and states[-1].v_lat == 0.0 and states[-1].yaw_rate == 0.0
    # at rest it stays exactly there
    assert drive(vehicle, states[-1], DriveCommand(0.3, 0.0), 0.05, 2.0)[-1][:2] == states[-1][:2]


def closed_form_top_speed(params):
    """Speed where min(F_max, P / v) = rolling resistance + drag, by bisection (independent of
    the kernels)."""

    def surplus(v):
        return min(params.engine_force, params.engine_power / v) - (
            params.rolling_resistance * params.mass * GRAVITY + params.drag * v * v
        )

    low, high = 1e-6, 500.0
    for _ in range(200):
        middle = 0.5 * (low + high)
        low, high = (middle, high) if surplus(middle) > 0.0 else (low, middle)
    return low


@pytest.mark.parametrize(
    ("name", "seconds"), [("storm", 80.0), ("armata", 400.0), ("hovercraft", 120.0)]
)
def test_full_throttle_top_speed_balances_engine_force_and_resistances(name, seconds):
    params = PRESETS[name]._replace(max_speed=math.inf)  # no governor: the physical balance
    expected = closed_form_top_speed(params)
    states = drive(Vehicle(params), VehicleState(), DriveCommand(0.0, 1.0), 0.05, seconds)
    assert states[-1].v == pytest.approx(expected, rel=2e-3)
    assert max(s.v for s in states) <= expected * (1 + 1e-9)  # approached from below


@pytest.mark.parametrize("name", list(PRESETS))
def test_governed_top_speed_and_every_preset_beats_the_papers_v_max(name):
    params = PRESETS[name]
    states = drive(Vehicle(params), VehicleState(), DriveCommand(0.0, 1.0), 0.05, 150.0)
    assert max(s.v for s in states) <= params.max_speed + 1e-9
    assert states[-1].v >= 12.0  # seed 001's follower runs at up to v_max = 10 m/s


@pytest.mark.parametrize("name", list(PRESETS))
def test_braking_distance_matches_the_brake_force(name):
    params = PRESETS[name]
    v0, dt, mass = 15.0, 0.01, params.mass
    state = VehicleState(v=v0)
    while state.v > 0.0:
        state = Vehicle(params).step(state, DriveCommand(0.0, -1.0), dt)
    roll = params.rolling_resistance * GRAVITY
    if params.kind == HOVER:  # reverse thrust: not limited by the ground
        brake = params.brake_force / mass
    else:  # friction brakes, bounded by the ground's grip
        brake = min(params.brake_force, params.mu * mass * GRAVITY) / mass
    longest = v0 * v0 / (2.0 * (brake + roll))
    shortest = v0 * v0 / (2.0 * (brake + roll + params.drag * v0 * v0 / mass))
    assert shortest - v0 * dt <= state.x <= longest + v0 * dt


@pytest.mark.parametrize("name", list(PRESETS))
def test_throttle_axis_brakes_then_reverses_and_back(name):
    vehicle = Vehicle(name)
    params = vehicle.params
    # forward then throttle -1: brakes to a stop, then reverses up to the reverse governor
    states = drive(vehicle, VehicleState(v=8.0), DriveCommand(0.0, -1.0), 0.05, 60.0)
    speeds = np.array([s.v for s in states])
    assert (np.diff(speeds) <= 1e-12).all()
    assert speeds[-1] < -min(2.0, 0.5 * params.max_reverse_speed)
    assert speeds.min() >= -params.max_reverse_speed - 1e-9
    # rolling backwards, throttle +1: brakes, then drives forward
    states = drive(vehicle, VehicleState(v=-3.0, yaw=-math.pi), DriveCommand(0.0, 1.0), 0.05, 30.0)
    speeds = np.array([s.v for s in states])
    assert (np.diff(speeds) >= -1e-12).all() and speeds[-1] > 5.0


# --------------------------------------------------------------------------------------------
# turning
# --------------------------------------------------------------------------------------------


def circle_fit(x, y):
    """Least-squares circle (Kasa): centre, radius, rms of the radial residuals."""
    a = np.column_stack((x, y, np.ones_like(x)))
    d, e, f = np.linalg.lstsq(a, -(x * x + y * y), rcond=None)[0]
    cx, cy = -d / 2.0, -e / 2.0
    radius = math.sqrt(cx * cx + cy * cy - f)
    residual = np.sqrt(np.mean((np.hypot(x - cx, y - cy) - radius) ** 2))
    return (cx, cy), radius, residual


@pytest.mark.parametrize("name", WHEELED_PRESETS)
def test_low_speed_full_lock_is_the_kinematic_circle(name):
    vehicle = Vehicle(name)
    params = vehicle.params
    states = hold_speed(vehicle, 1.0, 1.0, 0.02, 90.0, VehicleState())[-2000:]
    rear = params.wheelbase - params.cg_to_front  # rear axle: centre of mass minus b ahead
    x = np.array([s.x - rear * math.cos(s.yaw) for s in states])
    y = np.array([s.y - rear * math.sin(s.yaw) for s in states])
    _, radius, residual = circle_fit(x, y)
    assert radius == pytest.approx(params.wheelbase / math.tan(params.max_steer), rel=0.02)
    assert residual < 0.01 * radius
    assert all(s.yaw_rate > 0.0 for s in states)  # steer +1 turns left (counter-clockwise)


@pytest.mark.parametrize("name", WHEELED_PRESETS)
def test_lateral_acceleration_saturates_at_mu_g(name):
    params = PRESETS[name]
    vehicle = Vehicle(params)
    speed = 15.0
    state = VehicleState(v=speed)
    lateral = []  # the path's centripetal acceleration: speed x rate of the velocity's direction
    for k in range(2500):  # steer ramped to full lock in 20 s, then held
        throttle = min(max(speed - state.v, -1.0), 1.0)
        new = vehicle.step(state, DriveCommand(min(1.0, k / 2000), throttle), 0.01)
        turn = math.atan2(new.v_lat, new.v) + new.yaw - math.atan2(state.v_lat, state.v) - state.yaw
        lateral.append(new.speed * abs(math.remainder(turn, 2 * math.pi)) / 0.01)
        state = new
    limit = params.mu * GRAVITY
    # full lock at 15 m/s would need v^2 tan(max_steer) / L, far above the grip
    assert speed**2 * math.tan(params.max_steer) / params.wheelbase > 2.5 * limit
    assert 0.88 * limit <= max(lateral) <= 1.01 * limit
    assert 0.8 * limit <= lateral[-1] <= 1.01 * limit  # held at the limit: a plough, no spin


def test_tracked_turns_in_place_counter_clockwise_slowly():
    vehicle = Vehicle("armata")
    states = drive(vehicle, VehicleState(), DriveCommand(1.0, 0.0), 0.02, 10.0)
    assert math.hypot(states[-1].x, states[-1].y) < 1e-9  # pivots about its centre
    assert states[-1].yaw_rate == pytest.approx(vehicle.params.max_yaw_rate)
    assert all(s.yaw_rate >= 0.0 for s in states)
    # right turn in place the other way
    assert drive(vehicle, VehicleState(), DriveCommand(-1.0, 0.0), 0.02, 3.0)[-1].yaw_rate < 0.0


def test_tracked_turn_at_speed_is_bounded_by_its_yaw_rate():
    vehicle = Vehicle("armata")
    states = hold_speed(vehicle, 8.0, 1.0, 0.02, 20.0)
    assert max(abs(s.yaw_rate) for s in states) <= vehicle.params.max_yaw_rate + 1e-12
    radius = states[-1].speed / states[-1].yaw_rate
    assert radius == pytest.approx(states[-1].speed / vehicle.params.max_yaw_rate)


def test_tracked_slips_down_a_slope_steeper_than_its_grip():
    params = PRESETS["armata"]
    grade = math.atan(params.mu) + math.radians(3.0)  # beyond tan(grade) = mu: tracks slip
    states = drive(
        Vehicle(params),
        VehicleState(),
        DriveCommand(0.0, 1.0),
        0.05,
        10.0,
        world=ConstantGrade(grade),
    )
    assert states[-1].x < -5.0 and states[-1].v < -1.0


def test_tracked_gentle_steer_keeps_the_grip_to_climb():
    # Wong's skid resistance falls with the turning radius and builds up with the tracks'
    # sideways sliding: a 1 % steer must not take the drive force a straight climb has
    params = PRESETS["armata"]
    grade = math.radians(29.0)  # below the straight climb from rest (class table: 33 degrees)
    for steer in (0.0, 0.01, -0.01):
        states = drive(
            Vehicle(params),
            VehicleState(),
            DriveCommand(steer, 1.0),
            0.02,
            15.0,
            world=ConstantGrade(grade),
        )
        assert max(s.v for s in states) > 1.0, steer


@given(
    v=st.floats(0.0, 20.0),
    rate=st.floats(1e-4, 2.0),
    wider=st.floats(1.0, 10.0),
)
def test_tracked_turning_resistance_is_bounded_and_falls_with_the_radius(v, rate, wider):
    from steerlab.vehicles.tracked import _turning_resistance

    params = PRESETS["armata"]
    full = 0.25 * params.lateral_friction * 1e5 * params.wheelbase  # mu_t N L / 4
    moment = _turning_resistance(v, rate, params.lateral_friction, 1e5, params.wheelbase, 3.0)
    assert 0.0 < moment <= full * (1.0 + 1e-12)
    # the same yaw rate at a higher speed is a wider turn: no more resistance
    faster = _turning_resistance(
        v * wider + 1.0, rate, params.lateral_friction, 1e5, params.wheelbase, 3.0
    )
    assert faster <= moment * (1.0 + 1e-12)
    assert _turning_resistance(v, 0.0, params.lateral_friction, 1e5, params.wheelbase, 3.0) == 0.0


def test_hovercraft_drifts_and_a_wheeled_vehicle_does_not():
    def sideslip(name):
        states = hold_speed(Vehicle(name), 8.0, 0.6, 0.02, 15.0)
        return max(abs(math.atan2(s.v_lat, s.v)) for s in states if s.speed > 1.0)

    hover = sideslip("hovercraft")
    assert hover > math.radians(30.0)
    for name in ("storm", "zaha"):
        assert sideslip(name) < hover / 3.0


# --------------------------------------------------------------------------------------------
# steer servo: the actual steer angle follows the command at steer_rate (every kind)
# --------------------------------------------------------------------------------------------

ROUNDING = 1e-12  # [rad] a few thousand ulps of an angle below pi / 2: float noise, no physics


@pytest.mark.parametrize("name", list(PRESETS))  # every kind has the servo: none left to chance
@given(
    start=st.floats(-1.0, 1.0),
    speed=st.floats(-5.0, 20.0),
    commands=st.lists(st.tuples(st.floats(-1.0, 1.0), st.floats(-1.0, 1.0)), max_size=40),
    dt=st.floats(1e-3, 0.1),
)
def test_steer_follows_its_command_at_most_steer_rate_per_frame(name, start, speed, commands, dt):
    """Through ``Vehicle.step`` on a moving vehicle: each frame the actual steer angle (wheels,
    tiller, rudder) moves towards ``command.steer * max_steer`` by ``min(gap, steer_rate * dt)``,
    so never faster than the servo, never slower while off target, never past the target, and
    never beyond ``max_steer``."""
    params = PRESETS[name]
    vehicle = Vehicle(params)
    reach = params.steer_rate * dt  # [rad] the most the servo turns in one frame
    state = VehicleState(v=speed, steer=start * params.max_steer)
    for steer, throttle in [(1.0, 0.5), (-1.0, 0.5), *commands]:  # full lock both ways, then any
        new = vehicle.step(state, DriveCommand(steer, throttle), dt)
        gap = steer * params.max_steer - state.steer
        turned = new.steer - state.steer
        assert abs(turned) <= reach + ROUNDING
        assert abs(new.steer) <= params.max_steer
        assert turned == pytest.approx(math.copysign(min(abs(gap), reach), gap), abs=ROUNDING)
        state = new


@pytest.mark.parametrize("name", list(PRESETS))
@given(
    side=st.sampled_from([1.0, -1.0]),
    speed=st.floats(1.0, 15.0),
    dt=st.floats(0.005, 0.1),
)
def test_full_lock_from_centre_takes_ceil_of_max_steer_over_steer_rate_dt_frames(
    name, side, speed, dt
):
    """From a centred steer, a full-lock command reaches ``max_steer`` after exactly
    ``ceil(max_steer / (steer_rate dt))`` frames (``k steer_rate dt`` after frame ``k`` before),
    not one frame earlier, and holds it; the vehicle is moving and driven meanwhile."""
    params = PRESETS[name]
    vehicle = Vehicle(params)
    reach = params.steer_rate * dt
    ratio = params.max_steer / reach
    assume(abs(ratio - round(ratio)) > 1e-6)  # the frame count is not a rounding coin toss
    frames = math.ceil(ratio)
    state = VehicleState(v=speed, yaw=1.0)
    for k in range(1, frames):
        state = vehicle.step(state, DriveCommand(side, 0.3), dt)
        assert state.steer == pytest.approx(side * k * reach, abs=ROUNDING)
    assert abs(state.steer) < params.max_steer - ROUNDING  # frame ceil - 1: not there yet
    for _ in range(3):  # frame ceil: at full lock, then held there
        state = vehicle.step(state, DriveCommand(side, 0.3), dt)
        assert state.steer == pytest.approx(side * params.max_steer, abs=ROUNDING)
    assert state.v > 0.0 and state.yaw_rate * side > 0.0  # it was moving and turning that way


# --------------------------------------------------------------------------------------------
# slopes
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def classes():
    return {row.name: row for row in measure_vehicle_classes()}


@pytest.mark.parametrize("name", list(PRESETS))
def test_beyond_the_climbable_grade_it_does_not_climb_and_rolls_back(name, classes):
    vehicle = Vehicle(name)
    grade = math.radians(classes[name].max_climb + 1.0)
    trying = drive(
        vehicle, VehicleState(), DriveCommand(0.0, 1.0), 0.05, 20.0, ConstantGrade(grade)
    )
    assert max(s.v for s in trying) < 1.0 and max(s.x for s in trying) < 0.5
    coasting = drive(
        vehicle, VehicleState(), DriveCommand(0.0, 0.0), 0.05, 5.0, ConstantGrade(grade)
    )
    assert coasting[-1].v < -1.0 and coasting[-1].x < -1.0
    # just below the limit it does climb
    below = math.radians(classes[name].max_climb - 1.0)
    climbing = drive(
        vehicle, VehicleState(), DriveCommand(0.0, 1.0), 0.05, 20.0, ConstantGrade(below)
    )
    assert max(s.v for s in climbing) >= 1.0


def test_hovercraft_slides_back_down_a_steep_hill_when_it_loses_speed(classes):
    vehicle = Vehicle("hovercraft")
    world = ConstantGrade(math.radians(classes["hovercraft"].max_climb + 3.0))
    # it arrives at 10 m/s, full throttle: it slows, stops and slides back down
    states = drive(vehicle, VehicleState(v=10.0), DriveCommand(0.0, 1.0), 0.05, 60.0, world)
    highest = max(s.x for s in states)
    assert states[-1].v < -1.0 and states[-1].x < highest - 10.0
    assert world.calls == len(states)


def test_downhill_gravity_accelerates_and_side_slope_is_held_by_tyres():
    params = PRESETS["bolte"].validated()
    rest = DriveCommand(0.0, 0.0)
    # facing downhill on a 20 % slope: rolls forward
    pull = GRAVITY * math.sin(math.atan(0.2))
    assert _vehicle_dynamics(VehicleState(), rest, params, pull, 0.0, 0.05).v > 0.0
    # across the same slope at rest: the tyres hold it; it creeps at most 2 mm/s
    state = VehicleState()
    for _ in range(100):
        state = _vehicle_dynamics(state, rest, params, 0.0, pull, 0.05)
    assert abs(state.v_lat) < 0.002 and abs(state.y) < 0.01


# --------------------------------------------------------------------------------------------
# seed 001's classes, measured
# --------------------------------------------------------------------------------------------


def test_measured_class_table_shows_the_papers_easy_and_hard_vehicles(classes):
    rows = list(classes.values())
    reasons = hard_reasons(rows)
    for name in HARD:
        assert reasons[name], f"{name} is not harder than every easy vehicle on anything"
    for name in EASY:
        assert not reasons[name], f"easy {name} is worse than every easy vehicle: {reasons[name]}"
    # Armata turns in place
    assert classes["armata"].turns_in_place and classes["armata"].min_radius < 0.05
    assert not any(classes[name].turns_in_place for name in WHEELED_PRESETS)
    # the hovercraft drifts: far more sideslip than any wheeled vehicle, and less grip
    assert classes["hovercraft"].max_sideslip > 3 * max(
        classes[n].max_sideslip for n in WHEELED_PRESETS
    )
    assert "poor traction" in reasons["hovercraft"]
    # Zaha's turning radius is larger than Storm's
    assert classes["zaha"].min_radius > 2 * classes["storm"].min_radius
    assert classes["zaha"].radius_5 > 2 * classes["storm"].radius_5
    # Armata: "slower turning rate"
    assert "slower turning rate" in reasons["armata"]
    text = render_markdown(rows)
    assert "Seed 001: vehicle classes" in text and all(name in text for name in PRESETS)
    assert "**holds**" in text


# --------------------------------------------------------------------------------------------
# integration: stable, finite, bit-identical batch
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(PRESETS))
def test_stable_at_dt_0_05_under_a_minute_of_random_inputs(name):
    rng = np.random.default_rng(7)
    vehicle = Vehicle(name)
    params = vehicle.params
    size = 64
    batch = VehicleBatch(
        rng.uniform(-50, 50, size), rng.uniform(-50, 50, size), rng.uniform(-math.pi, math.pi, size)
    )
    worst_speed = 0.0
    for frame in range(1200):  # 60 s
        if frame % 10 == 0:
            steer = rng.uniform(-1.0, 1.0, size)
            throttle = rng.choice([-1.0, 0.0, 1.0, 0.5], size)
        vehicle.step_batch(batch, steer, throttle, 0.05)
        assert all(np.isfinite(field).all() for field in batch.fields())
        worst_speed = max(worst_speed, float(np.hypot(batch.v, batch.v_lat).max()))
    assert worst_speed <= params.max_speed + 1e-9
    assert np.abs(batch.yaw_rate).max() < 5.0


motion = st.floats(-40.0, 60.0)
states = st.builds(
    VehicleState,
    st.floats(-1e4, 1e4),
    st.floats(-1e4, 1e4),
    st.floats(-math.pi, math.pi, exclude_max=True),
    motion,
    st.floats(-30.0, 30.0),
    st.floats(-6.0, 6.0),
    st.floats(-1.5, 1.5),
)
inputs = st.floats(-1.0, 1.0)


@given(
    name=st.sampled_from(list(PRESETS)),
    state=states,
    commands=st.lists(st.tuples(inputs, inputs), min_size=1, max_size=40),
    dt=st.floats(1e-4, 0.25),
)
def test_random_states_and_commands_never_produce_nan(name, state, commands, dt):
    vehicle = Vehicle(PRESETS[name])
    for steer, throttle in commands:
        state = vehicle.step(state, DriveCommand(steer, throttle), dt)
        assert all(math.isfinite(value) for value in state)
        assert -math.pi <= state.yaw < math.pi
        assert abs(state.steer) <= vehicle.params.max_steer


def random_fleet(rng, size):
    batch = VehicleBatch(
        rng.uniform(-1e3, 1e3, size),
        rng.uniform(-1e3, 1e3, size),
        rng.uniform(-math.pi, math.pi, size),
        rng.uniform(-8.0, 25.0, size),
        rng.normal(0.0, 2.0, size),
        rng.normal(0.0, 0.5, size),
        rng.uniform(-0.5, 0.5, size),
    )
    # at rest, in reverse, facing backwards
    batch.v[:3] = [0.0, -4.0, 0.0]
    batch.v_lat[:3] = 0.0
    batch.yaw_rate[:3] = 0.0
    batch.yaw[2] = -math.pi
    return batch


@pytest.mark.parametrize("name", list(PRESETS))
@pytest.mark.parametrize("build", ["serial", "prange-1", "prange-2"])
def test_batch_equals_scalar_bit_for_bit(name, build, monkeypatch):
    if build != "serial":
        monkeypatch.setattr(steerlab._jit, "SERIAL_LIMIT", 0)  # the prange build, even for few
    rng = np.random.default_rng(11)
    size, frames, dt = 97, 25, 0.03
    assert size < SERIAL_LIMIT
    vehicle = Vehicle(name)
    batch = random_fleet(rng, size)
    states = [batch.state(i) for i in range(size)]
    previous = numba.get_num_threads()
    numba.set_num_threads(min(2 if build == "prange-2" else 1, numba.config.NUMBA_NUM_THREADS))
    try:
        for _ in range(frames):
            steer = rng.uniform(-1.0, 1.0, size)
            throttle = rng.choice([-1.0, -0.3, 0.0, 0.7, 1.0], size)
            vehicle.step_batch(batch, steer, throttle, dt)
            states = [
                vehicle.step(s, DriveCommand(float(steer[i]), float(throttle[i])), dt)
                for i, s in enumerate(states)
            ]
    finally:
        numba.set_num_threads(previous)
    expected = VehicleBatch.from_states(states)
    for got, want in zip(batch.fields(), expected.fields(), strict=True):
        assert np.array_equal(got, want)


def test_scalar_commands_broadcast_and_world_receives_the_batch():
    vehicle = Vehicle("bolte")
    batch = VehicleBatch(np.zeros(4), np.zeros(4), np.zeros(4))
    vehicle.step_batch(batch, 0.5, 1.0, 0.05)
    assert (batch.v > 0.0).all() and np.all(batch.v == batch.v[0])

    class Recorder:
        def step_vehicle_batch(self, params, batch, steer, throttle, dt):
            self.args = (params, batch, steer, throttle, dt)

    world = Recorder()
    vehicle.step_batch(batch, 0.0, -1.0, 0.02, world=world)
    params, got, steer, throttle, dt = world.args
    assert params is vehicle.params and got is batch and dt == 0.02
    assert steer.shape == (4,) and (throttle == -1.0).all()


# --------------------------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"mass": -1200.0}, "mass must be > 0 and finite, got -1200.0"),
        ({"wheelbase": 0.0}, "wheelbase must be > 0 and finite, got 0.0"),
        ({"yaw_inertia": math.nan}, "yaw_inertia"),
        ({"mu": 0.0}, "mu must be > 0"),
        ({"max_steer": 1.6}, "max_steer must be < pi/2 rad, got 1.6"),
        ({"max_steer": -0.1}, "max_steer must be > 0"),
        ({"cg_to_front": 3.0}, "cg_to_front must be in (0, wheelbase = 2.7), got 3.0"),
        ({"rolling_resistance": -0.01}, "rolling_resistance must be >= 0, got -0.01"),
        ({"max_speed": 0.0}, "max_speed must be > 0 (inf allowed), got 0.0"),
        ({"engine_power": "lots"}, "engine_power must be a positive number, got 'lots'"),
        ({"kind": 3}, "kind must be WHEELED (0), TRACKED (1) or HOVER (2), got 3"),
    ],
)
def test_parameters_out_of_physical_range_raise_naming_the_field(changes, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Vehicle(VehicleParams()._replace(**changes))


def test_presets_are_valid_and_named():
    assert list(PRESETS) == ["storm", "bolte", "panhard_crab", "zaha", "armata", "hovercraft"]
    for params in PRESETS.values():
        assert params.validated() == params
    assert PRESETS["armata"].kind == TRACKED and PRESETS["hovercraft"].kind == HOVER
    with pytest.raises(ValueError, match="params: unknown vehicle 'tank'; presets: storm"):
        Vehicle("tank")
    with pytest.raises(TypeError):
        PRESETS["storm"] = PRESETS["bolte"]  # read-only


@pytest.mark.parametrize(
    ("command", "message"),
    [
        (DriveCommand(1.5, 0.0), r"command.steer must be in \[-1, 1\], got 1.5"),
        (DriveCommand(0.0, -2.0), r"command.throttle must be in \[-1, 1\], got -2.0"),
        (DriveCommand(0.0, math.nan), "command.throttle must be finite"),
        ((0.0, 1.0), "command must be a DriveCommand"),
    ],
)
def test_bad_commands_raise(command, message):
    with pytest.raises(ValueError, match=message):
        Vehicle("storm").step(VehicleState(), command, 0.02)


def test_bad_batch_input_and_timestep_raise():
    vehicle = Vehicle("zaha")
    batch = VehicleBatch(np.zeros(5), np.zeros(5), np.zeros(5))
    with pytest.raises(ValueError, match=r"throttle\[3\] must be in \[-1, 1\], got 2.0"):
        vehicle.step_batch(batch, 0.0, [0.0, 0.0, 0.0, 2.0, 0.0], 0.02)
    with pytest.raises(ValueError, match=r"steer\[1\] must be finite"):
        vehicle.step_batch(batch, [0.0, math.nan, 0.0, 0.0, 0.0], 0.0, 0.02)
    with pytest.raises(ValueError, match=r"steer must have shape \(5,\)"):
        vehicle.step_batch(batch, np.zeros(3), 0.0, 0.02)
    with pytest.raises(ValueError, match="dt must be > 0"):
        vehicle.step_batch(batch, 0.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="dt must be > 0"):
        vehicle.step(VehicleState(), DriveCommand(), -0.01)
    with pytest.raises(ValueError, match=r"state\.v must be finite"):
        vehicle.step(VehicleState(v=math.inf), DriveCommand(), 0.02)
    with pytest.raises(ValueError, match="batch must be a VehicleBatch"):
        vehicle.step_batch([VehicleState()], 0.0, 0.0, 0.02)
