"""The peer followers of issue 7: Stanley steering (Hoffmann et al. 2007) and regulated pure
pursuit (Macenski et al. 2023, the ROS 2 Nav2 controller).

Stanley: the law's properties (zero on the path and aligned, steers towards the path, drives the
heading error down, bounded), the front axle's cross-track error decaying in closed loop on a
straight line and on a circle, the mirrored law stable when reversing. Regulated pure pursuit:
the lookahead clamp, the curvature regulation (equal above the radius, decreasing below it, the
lateral acceleration never above its value at the radius), the approach slow-down (monotone,
floored), a path followed to its end. Both: batch == scalar bit for bit, the shared stuck
manager, bad parameters rejected.
"""

import math

import numba
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from follower_plant import FixtureParams, FixturePlant, cross_track
from steerlab._jit import SERIAL_LIMIT
from steerlab.follower import (
    FollowerParams,
    RegulatedPurePursuitFollower,
    StanleyFollower,
)
from steerlab.follower.follower import _Vehicle
from steerlab.follower.params import STANLEY, SteeringParams, check_axles
from steerlab.follower.regulated import _approach_speed, _regulated_target_speed
from steerlab.follower.stanley import _stanley_steering
from steerlab.geometry import Polyline
from steerlab.sim import simulate
from steerlab.vehicles import PRESETS, Vehicle, VehicleBatch, VehicleState

DT = 0.02
STORM = PRESETS["storm"]
ONE_SECOND = int(1.0 / DT)


class Recorder:
    """Wraps a follower; records its ``info`` after every frame."""

    def __init__(self, follower):
        self.follower = follower
        self.infos = []

    def step(self, state, dt):
        command = self.follower.step(state, dt)
        self.infos.append(self.follower.info)
        return command

    def reset(self):
        self.follower.reset()


def run(plant, follower, state, steps):
    recorder = Recorder(follower)
    return simulate(plant, recorder, state, DT, steps), recorder


def circle(radius, turns=3.0, count=1500):
    angles = np.linspace(-0.5 * math.pi, -0.5 * math.pi + 2.0 * math.pi * turns, count)
    return np.column_stack((radius * np.cos(angles), radius * np.sin(angles)))


def axle_errors(path, trace, ahead):
    """Distance to the path of the point ``ahead`` metres in front of the traced position."""
    x = trace.x + ahead * np.cos(trace.yaw)
    y = trace.y + ahead * np.sin(trace.yaw)
    return np.array([cross_track(path, xi, yi) for xi, yi in zip(x, y, strict=True)])


# --------------------------------------------------------------------------------------------------
# Stanley: the law


def straight_path(heading, length=200.0):
    direction = np.array((math.cos(heading), math.sin(heading), 0.0))
    points = np.array((np.zeros(3), length * direction))
    return points, np.array((0.0, length)), direction


def stanley(points, cum, x, y, yaw, v, front, rear, gain, softening, max_steer, recovering=False):
    """The follower's call of the kernel: the axle searched on the whole path ahead of (behind)
    the vehicle's own projection."""
    s = Polyline(points[:, :2]).project((x, y)).s
    params = SteeringParams(STANLEY, 1.0, gain, softening, cum[-1], cum[-1])
    vehicle = _Vehicle(0, 1.0, max_steer, front, rear)
    return _stanley_steering(points, cum, (x, y, yaw, v), recovering, s, 0, params, vehicle)


angles = st.floats(-math.pi, math.pi)
speeds = st.floats(-15.0, 15.0)
gains = st.floats(0.1, 5.0)
softenings = st.floats(0.01, 5.0)
axles = st.floats(0.0, 5.0)
locks = st.floats(0.1, 1.2)


@given(angles, st.floats(60.0, 140.0), speeds, gains, softenings, axles, axles, locks)
def test_stanley_steers_straight_on_the_path_when_aligned(
    heading, s_axle, v, gain, softening, front, rear, max_steer
):
    points, cum, direction = straight_path(heading)
    # the steering axle (front, or rear when reversing) exactly on the path, the body along it
    offset = -rear if v < 0.0 else front
    x, y, _ = (s_axle - offset) * direction
    steer, closest_x, closest_y = stanley(
        points, cum, x, y, heading, v, front, rear, gain, softening, max_steer
    )
    assert abs(steer) < 1e-9
    axle = np.array((x, y)) + offset * direction[:2]
    assert math.hypot(closest_x - axle[0], closest_y - axle[1]) < 1e-9


@given(angles, st.floats(60.0, 140.0), st.floats(1e-3, 20.0), st.booleans(), speeds, gains,
       softenings, axles, axles, locks)  # fmt: skip
def test_stanley_steers_towards_the_path(
    heading, s_axle, distance, left_side, v, gain, softening, front, rear, max_steer
):
    points, cum, direction = straight_path(heading)
    normal = np.array((-direction[1], direction[0]))
    side = 1.0 if left_side else -1.0
    offset = -rear if v < 0.0 else front
    x, y = (s_axle - offset) * direction[:2] + side * distance * normal
    steer, _, _ = stanley(points, cum, x, y, heading, v, front, rear, gain, softening, max_steer)
    # aligned with the path, left of it: steer right (and left of it: right), whether the
    # vehicle drives forwards (front axle) or backwards (rear axle, mirrored law)
    assert steer != 0.0
    assert math.copysign(1.0, steer) == -side


@given(angles, st.floats(60.0, 140.0), st.floats(1e-3, math.pi - 1e-3), st.booleans(),
       st.floats(0.1, 15.0), st.booleans(), gains, softenings, axles, locks)  # fmt: skip
def test_stanley_turns_the_heading_back_to_the_path_forwards_and_backwards(
    heading, s_axle, error, turned_left, speed, backwards, gain, softening, axle, max_steer
):
    points, cum, direction = straight_path(heading)
    yaw = heading + (error if turned_left else -error)
    v = -speed if backwards else speed
    offset = -axle if backwards else axle
    x, y, _ = s_axle * direction  # the steering axle on the path
    x -= offset * math.cos(yaw)
    y -= offset * math.sin(yaw)
    steer, _, _ = stanley(points, cum, x, y, yaw, v, axle, axle, gain, softening, max_steer)
    # the commanded yaw rate v tan(steer max_steer) / L turns the yaw back towards the path
    yaw_rate_sign = math.copysign(1.0, v) * math.copysign(1.0, steer)
    assert steer != 0.0
    assert yaw_rate_sign == (-1.0 if turned_left else 1.0)


@given(st.floats(-300.0, 300.0), st.floats(-300.0, 300.0), st.floats(-10.0, 10.0), speeds,
       st.booleans(), gains, softenings, axles, axles, locks)  # fmt: skip
def test_stanley_steer_is_bounded_and_saturates_far_from_the_path(
    x, y, yaw, v, recovering, gain, softening, front, rear, max_steer
):
    points = np.array(((0.0, 0.0, 0.0), (40.0, 0.0, 0.0), (40.0, 40.0, 0.0), (80.0, 40.0, 0.0)))
    cum = np.array((0.0, 40.0, 80.0, 120.0))
    steer, _, _ = stanley(
        points, cum, x, y, yaw, v, front, rear, gain, softening, max_steer, recovering
    )
    assert -1.0 <= steer <= 1.0
    # aligned with a path 1 km away: the cross-track term alone asks for about 90 degrees
    far, _, _ = stanley(
        *straight_path(0.0)[:2], 50.0, 1000.0, 0.0, 1.0, front, rear, 1.0, 1.0, min(max_steer, 1.5)
    )
    assert far == -1.0


# --------------------------------------------------------------------------------------------------
# Stanley: closed loop


@pytest.mark.parametrize("plant_name", ["fixture", "storm"])
def test_stanley_front_axle_error_decays_on_a_straight_line(plant_name):
    plant, vehicle, ahead = (
        (FixturePlant(), FixtureParams(), FixtureParams().wheelbase)
        if plant_name == "fixture"
        else (Vehicle(STORM), STORM, STORM.cg_to_front)
    )
    follower = StanleyFollower(vehicle, path=[(0.0, 0.0), (600.0, 0.0)])
    trace, _ = run(plant, follower, VehicleState(0.0, 4.0, 0.3, 5.0), 1500)
    errors = axle_errors(follower.path, trace, ahead)
    assert errors[0] > 4.0
    assert errors[5 * ONE_SECOND] < 0.1 * errors[0]
    assert errors[10 * ONE_SECOND :].max() < 0.02
    assert not follower.stuck_events


@pytest.mark.parametrize("plant_name", ["fixture", "storm"])
def test_stanley_front_axle_error_decays_on_a_circle(plant_name):
    radius = 30.0
    plant, vehicle, ahead = (
        (FixturePlant(), FixtureParams(), FixtureParams().wheelbase)
        if plant_name == "fixture"
        else (Vehicle(STORM), STORM, STORM.cg_to_front)
    )
    follower = StanleyFollower(vehicle, path=circle(radius))
    trace, recorder = run(plant, follower, VehicleState(0.0, -radius - 3.0, 0.0, 3.0), 1500)
    errors = axle_errors(follower.path, trace, ahead)
    settled = errors[10 * ONE_SECOND :]
    speeds = np.array([info.target_speed for info in recorder.infos])
    assert speeds[10 * ONE_SECOND :].min() > 9.0  # at speed
    if plant_name == "fixture":
        # kinematic bicycle: the front axle runs on the path (the rear axle inside it, on a
        # circle of radius sqrt(R^2 - L^2)); the polygon's 0.38 m chords leave a few centimetres
        assert settled.max() < 0.05
    else:
        # the Storm's tyres slip at 10 m/s on a 30 m radius (0.34 g) and the kinematic law has
        # no steady-state yaw term: a steady offset remains, well below the start, not growing
        assert settled.max() < 0.25 * errors[0]
        assert settled[-ONE_SECOND:].max() <= settled[: 2 * ONE_SECOND].max() + 0.05


@pytest.mark.parametrize("gain", [0.5, 1.0, 2.5])
def test_stanley_reversing_brings_the_rear_axle_onto_the_path(gain):
    """Driven backwards at a constant 3 m/s (a kinematic bicycle whose reference is its rear
    axle), the mirrored law puts the rear axle on the path and the body along it; the forward law
    would turn the vehicle away."""
    vehicle = FixtureParams()
    params = FollowerParams(stanley_gain=gain, stuck_window=1e6)  # no stuck manager here
    follower = StanleyFollower(vehicle, params, path=[(0.0, 0.0), (300.0, 0.0)])
    x, y, yaw, v = 250.0, 2.0, 0.2, -3.0
    lateral = []
    for _ in range(40 * ONE_SECOND):
        command = follower.step(VehicleState(x, y, yaw, v), DT)
        # the steering axle is the rear one (here the reference point itself)
        assert follower.info.target_x == pytest.approx(x, abs=1e-9)
        yaw += v * math.tan(command.steer * vehicle.max_steer) / vehicle.wheelbase * DT
        x += v * math.cos(yaw) * DT
        y += v * math.sin(yaw) * DT
        lateral.append(abs(y))
    assert x < 250.0 - 100.0  # it did reverse along the path
    assert max(lateral[-10 * ONE_SECOND :]) < 0.01 < lateral[0]
    assert abs(yaw) < 0.01


@pytest.mark.parametrize("name", ["armata", "hovercraft"])
def test_stanley_tracked_and_hover_converge_on_a_straight_line(name):
    vehicle = PRESETS[name]
    follower = StanleyFollower(vehicle, path=[(0.0, 0.0), (600.0, 0.0)])
    trace, _ = run(Vehicle(vehicle), follower, VehicleState(0.0, 4.0, 0.3, 3.0), 1500)
    errors = axle_errors(follower.path, trace, 0.0)
    assert errors[20 * ONE_SECOND :].max() < 0.3 < errors[0]
    assert not follower.stuck_events


def test_axles_of_the_follower():
    assert check_axles(STORM, 0, STORM.wheelbase) == pytest.approx(
        (STORM.cg_to_front, STORM.wheelbase - STORM.cg_to_front)
    )
    fixture = FixtureParams()  # no cg_to_front: positioned at the rear axle
    assert check_axles(fixture, 0, fixture.wheelbase) == (fixture.wheelbase, 0.0)
    tank = PRESETS["armata"]
    assert check_axles(tank, 1, tank.wheelbase) == (tank.wheelbase, 0.0)
    with pytest.raises(ValueError, match=r"vehicle_params\.cg_to_front must be in"):
        StanleyFollower(STORM._replace(cg_to_front=3.0))


# --------------------------------------------------------------------------------------------------
# regulated pure pursuit: lookahead, curvature regulation, approach


@given(st.floats(-20.0, 20.0), st.floats(0.0, 3.0), st.floats(1.0, 10.0), st.floats(0.0, 20.0))
def test_regulated_lookahead_is_clamped_and_proportional_between(v, time, shortest, extra):
    longest = shortest + extra
    params = FollowerParams(
        regulated_lookahead_time=time,
        regulated_min_lookahead=shortest,
        regulated_max_lookahead=longest,
        stuck_window=1e6,
    )
    follower = RegulatedPurePursuitFollower(FixtureParams(), params, path=[(0, 0), (1000, 0)])
    follower.step(VehicleState(300.0, 0.0, 0.0, v), DT)
    # on a straight path through the vehicle, the carrot is the lookahead away along it
    distance = math.hypot(follower.info.target_x - 300.0, follower.info.target_y)
    assert shortest * (1 - 1e-12) <= distance <= longest * (1 + 1e-12)
    if shortest < abs(v) * time < longest:
        assert distance == pytest.approx(abs(v) * time, rel=1e-12)


def regulated(curvature, desired=10.0, radius=18.0, floor=5.0, remaining=1e9, forward=True):
    """The speed law for a carrot 1 m away on an arc of the given curvature (no approach)."""
    left = 0.5 * curvature  # kappa = 2 left / d^2 with d = 1
    ahead = math.sqrt(1.0 - left * left) * (1.0 if forward else -1.0)
    speed, _ = _regulated_target_speed(
        ahead, left, 1.0, remaining, 2.8, 0.6, desired, radius, floor, 12.0, 1.0
    )
    return speed


curvatures = st.floats(0.0, 1.99)


@given(curvatures, curvatures, st.floats(1.0, 30.0), st.floats(1.0, 50.0), st.floats(0.0, 5.0))
def test_curvature_regulation(kappa_1, kappa_2, desired, radius, floor):
    low, high = sorted((kappa_1, kappa_2))
    slow, fast = regulated(high, desired, radius, floor), regulated(low, desired, radius, floor)
    assert min(floor, desired) <= slow <= fast <= desired  # more curvature, never faster
    for kappa, speed in ((low, fast), (high, slow)):
        if kappa * radius <= 1.0:  # the arc's radius at or above the regulation radius
            assert speed == desired
        elif speed > floor:
            # regulated: proportional to the radius, so the lateral acceleration v^2 kappa on
            # the arc stays at most its value at the regulation radius
            assert speed < desired
            assert speed * speed * kappa <= desired * desired / radius * (1 + 1e-12)
    if low * radius > 1.0 and fast > floor and high > low * (1 + 1e-9):
        assert slow < fast  # strictly slower below the radius, until the floor


@given(curvatures)
def test_a_carrot_behind_regulates_by_the_full_lock_turn(kappa):
    # the car of regulated(): L = 2.8 m, max steer 0.6 rad, a 4.1 m radius at full lock, which
    # the steering commands when the carrot is behind, whatever the arc through it
    full_lock = math.tan(0.6) / 2.8
    behind = regulated(kappa, forward=False, floor=0.0)
    assert behind == pytest.approx(regulated(max(kappa, full_lock), floor=0.0), rel=1e-12)
    assert behind <= 10.0 / (full_lock * 18.0) * (1 + 1e-12)


@given(st.floats(0.0, 30.0), st.floats(0.0, 30.0), st.floats(0.0, 20.0), st.floats(0.1, 30.0),
       st.floats(0.01, 5.0))  # fmt: skip
def test_approach_slow_down_is_monotone_and_floored(remaining_1, remaining_2, speed, span, floor):
    near, far = sorted((remaining_1, remaining_2))
    slow = _approach_speed(speed, near, span, floor)
    fast = _approach_speed(speed, far, span, floor)
    assert min(speed, floor) <= slow <= fast <= speed
    if far >= span:
        assert fast == speed
    assert _approach_speed(speed, 0.0, span, floor) == min(speed, floor)


# --------------------------------------------------------------------------------------------------
# regulated pure pursuit: closed loop


@pytest.mark.parametrize("name", ["storm", "zaha"])
def test_regulated_pure_pursuit_follows_a_path_to_its_end(name):
    vehicle = PRESETS[name]
    route = [(0.0, 0.0), (80.0, 0.0), (80.0, 80.0), (140.0, 80.0)]
    follower = RegulatedPurePursuitFollower(vehicle, path=route)
    params = follower.params
    trace, recorder = run(Vehicle(vehicle), follower, VehicleState(), 3000)
    assert follower.memory.arrived
    assert not follower.stuck_events
    assert math.hypot(trace.x[-1] - 140.0, trace.y[-1] - 80.0) < 3.0
    errors = axle_errors(follower.path, trace, 0.0)
    assert errors.max() < 5.0
    infos = recorder.infos
    end = follower.path.length
    # before the approach: v_max on the straights, slowed in the corners, never below the floor
    cruise = [
        info.target_speed for info in infos if info.s < end - params.regulated_approach_distance
    ]
    assert max(cruise) == params.v_max
    assert params.regulated_min_speed <= min(cruise) < 0.8 * params.v_max
    # approach: over the last approach distance the target speed only falls, floored
    approach = [
        info.target_speed
        for info in infos
        if not info.arrived and info.s > end - params.regulated_approach_distance + 2.0
    ]
    assert len(approach) > ONE_SECOND
    assert np.all(np.diff(approach) <= 1e-12)
    assert min(approach) >= params.regulated_approach_min_speed
    assert approach[-1] < 0.5 * params.v_max


def test_regulated_pure_pursuit_facing_away_turns_round_without_full_speed():
    follower = RegulatedPurePursuitFollower(STORM, path=[(0.0, 0.0), (300.0, 0.0)])
    trace, recorder = run(Vehicle(STORM), follower, VehicleState(0.0, 0.0, math.pi, 0.0), 3000)
    first = recorder.infos[0]
    assert abs(trace.commands["steer"][0]) == 1.0
    assert first.target_speed < follower.params.v_max
    errors = axle_errors(follower.path, trace, 0.0)
    assert errors[-5 * ONE_SECOND :].max() < 0.05


# --------------------------------------------------------------------------------------------------
# the shared stuck manager and arrival logic


@pytest.mark.parametrize("follower_class", [StanleyFollower, RegulatedPurePursuitFollower])
def test_peers_share_the_stuck_manager(follower_class):
    """A 90-degree turn 3 m before a wall, for a car that cannot turn that tightly: it hits the
    wall, is declared stuck within the window, backs out and completes the path."""
    vehicle = FixtureParams(max_steer=0.3)
    plant = FixturePlant(vehicle, blocked=lambda x, y: x > 31.0)
    follower = follower_class(vehicle, path=[(0.0, 0.0), (30.0, 0.0), (30.0, 40.0)])
    params = follower.params
    trace, recorder = run(plant, follower, VehicleState(), 3000)
    assert plant.first_blocked_frame is not None
    first = follower.stuck_events[0]
    hit_time = (plant.first_blocked_frame + 1) * DT
    assert hit_time < first.time <= hit_time + params.stuck_window + DT
    frames = [i for i, info in enumerate(recorder.infos) if info.recovering]
    start = frames[0]
    assert np.all(trace.commands["throttle"][start : start + params.recovery_frames] < 0.0)
    assert follower.memory.arrived
    assert math.hypot(trace.x[-1] - 30.0, trace.y[-1] - 40.0) < params.arrival_radius + 0.5


# --------------------------------------------------------------------------------------------------
# batch == scalar, bit for bit


class Car:
    """A duck-typed vehicle record: wheeled with a centre of mass 1.2 m behind the front axle
    (Stanley reads cg_to_front), tracked or hover."""

    def __init__(self, kind):
        self.kind = kind
        self.wheelbase = 2.8
        self.cg_to_front = 1.2
        self.max_steer = 0.6


def random_path(rng):
    count = int(rng.integers(2, 10))
    headings = np.cumsum(rng.uniform(-2.5, 2.5, count - 1))
    legs = rng.choice([0.0, 1.0, 8.0, 30.0], count - 1) * rng.random(count - 1)
    steps = np.column_stack((legs * np.cos(headings), legs * np.sin(headings)))
    points = np.vstack((np.zeros(2), np.cumsum(steps, axis=0))) + rng.uniform(-20, 20, 2)
    if np.ptp(points, axis=0).max() == 0.0:
        points[-1] += 5.0
    return points


def move(batch, out):
    """A crude plant on the arrays; walls stop every third vehicle (stuck events, reversing)."""
    batch.v += DT * (4.0 * out.throttle - 0.1 * batch.v)
    batch.yaw = np.remainder(batch.yaw + DT * batch.v * out.steer * 0.25 + math.pi, 2 * math.pi)
    batch.yaw -= math.pi
    x = batch.x + DT * batch.v * np.cos(batch.yaw)
    y = batch.y + DT * batch.v * np.sin(batch.yaw)
    blocked = (np.abs(x - 10.0) < 1.0) & (np.arange(batch.size) % 3 == 0)
    batch.x[:] = np.where(blocked, batch.x, x)
    batch.y[:] = np.where(blocked, batch.y, y)
    batch.v[:] = np.where(blocked, 0.0, batch.v)
    teleport = out.teleport
    batch.x[teleport] = out.teleport_x[teleport]
    batch.y[teleport] = out.teleport_y[teleport]
    batch.yaw[teleport] = out.teleport_yaw[teleport]
    batch.v[teleport] = 0.0


@pytest.mark.parametrize("follower_class", [StanleyFollower, RegulatedPurePursuitFollower])
@pytest.mark.parametrize("kind", [0, 1, 2])  # wheeled, tracked, hover
@pytest.mark.parametrize(
    ("threads", "size", "frames"),
    [(2, 120, 150), (2, SERIAL_LIMIT + 3, 3)],
    ids=["serial", "parallel"],
)
def test_batch_equals_scalar_bit_for_bit(follower_class, kind, threads, size, frames):
    rng = np.random.default_rng(707 + kind)
    params = FollowerParams(stuck_window=1.0, recovery_frames=8, teleport_after=2)
    paths = [random_path(rng) for _ in range(size)]
    starts = np.array([path[0] for path in paths]) + rng.normal(0.0, 3.0, (size, 2))
    starts[::7] += 25.0  # some far off their path
    batch = VehicleBatch(
        starts[:, 0].copy(),
        starts[:, 1].copy(),
        rng.uniform(-math.pi, math.pi, size),
        rng.uniform(-4.0, 10.0, size),  # some reversing
    )
    follower = follower_class(Car(kind), params)
    follower.set_paths(paths)
    singles = [follower_class(Car(kind), params, path=path) for path in paths]
    previous = numba.get_num_threads()
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        out = None
        for frame in range(frames):
            if frame == frames // 2:  # replace some paths mid-run
                for index in rng.choice(size, 5, replace=False):
                    new_path = random_path(rng)
                    follower.set_path_batch(int(index), new_path)
                    singles[index].set_path(new_path)
            states = [batch.state(i) for i in range(size)]
            out = follower.step_batch(batch, DT, out)
            for i, single in enumerate(singles):
                command = single.step(states[i], DT)
                assert (command.steer, command.throttle) == (out.steer[i], out.throttle[i]), i
                info = single.info
                assert (info.target_speed, info.target_x, info.target_y) == (
                    out.target_speed[i],
                    out.target_x[i],
                    out.target_y[i],
                )
            move(batch, out)
    finally:
        numba.set_num_threads(previous)
    for i, single in enumerate(singles):
        for name, field in zip(single.memory._fields, follower.batch_memory, strict=True):
            ours, theirs = field[i], getattr(single.memory, name)
            assert ours == theirs or (math.isnan(ours) and math.isnan(theirs)), (i, name)
    batch_events = sorted(follower.stuck_events)
    scalar_events = sorted(
        event._replace(agent=i) for i, single in enumerate(singles) for event in single.stuck_events
    )
    assert batch_events == scalar_events
    if size < SERIAL_LIMIT:
        assert len(batch_events) > 0  # the walls did their job


# --------------------------------------------------------------------------------------------------
# bad parameters


@pytest.mark.parametrize(
    ("field", "value", "match"),
    [
        ("stanley_gain", 0.0, r"stanley_gain must be > 0 and finite, got 0\.0"),
        ("stanley_gain", math.inf, "stanley_gain must be > 0 and finite"),
        ("stanley_gain", math.nan, "stanley_gain must not be NaN"),
        ("stanley_softening", 0.0, r"stanley_softening must be > 0 and finite, got 0\.0"),
        ("regulated_lookahead_time", -0.5, "regulated_lookahead_time must be >= 0"),
        ("regulated_min_lookahead", 0.0, "regulated_min_lookahead must be > 0"),
        ("regulated_max_lookahead", -1.0, "regulated_max_lookahead must be > 0"),
        ("regulated_max_lookahead", 3.0, r"regulated_min_lookahead must be <= regulated_max_"),
        ("regulated_min_radius", -1.0, "regulated_min_radius must be >= 0"),
        ("regulated_min_radius", math.inf, "regulated_min_radius must be >= 0 and finite"),
        ("regulated_min_speed", -0.1, "regulated_min_speed must be >= 0"),
        ("regulated_approach_distance", -1.0, "regulated_approach_distance must be >= 0"),
        ("regulated_approach_min_speed", 0.0, "regulated_approach_min_speed must be > 0"),
        ("regulated_approach_min_speed", "fast", "regulated_approach_min_speed must be a num"),
    ],
)
def test_bad_peer_parameters_are_clear_errors(field, value, match):
    params = FollowerParams()._replace(**{field: value})
    for follower_class in (StanleyFollower, RegulatedPurePursuitFollower):
        with pytest.raises(ValueError, match=r"follower_params\." + match):
            follower_class(STORM, params)


def test_regulated_pure_pursuit_needs_a_wheelbase():
    tank = PRESETS["armata"]._replace(wheelbase=math.inf)
    with pytest.raises(ValueError, match=r"vehicle_params\.wheelbase must be > 0 and finite"):
        RegulatedPurePursuitFollower(tank)
    StanleyFollower(tank)  # Stanley's virtual front axle is then the reference point
