"""The follower in closed loop (seed 001): cross-track error, PI on a slope, stuck in a wall,
paths replaced every frame, hairpins, vehicles spawned backwards, bad input.

Plants: ``steerlab.vehicles.Vehicle`` with the paper's presets where the flat-ground dynamics
suffice (cross-track error, hairpin, backwards spawn); the test fixture ``follower_plant``
(a kinematic bicycle with a first-order throttle response, a constant grade and a wall region
where it stops) for the slope and the wall, which need terrain and collisions.
"""

import math

import numpy as np
import pytest

from follower_plant import FixtureParams, FixturePlant, cross_track
from steerlab.follower import BaselineFollower, FollowerParams, PathFollower
from steerlab.sim import simulate
from steerlab.vehicles import PRESETS, Vehicle, VehicleState

DT = 0.02
STORM = PRESETS["storm"]


class Recorder:
    """Wraps a follower; records its ``info`` and memory after every frame."""

    def __init__(self, follower, before_step=None):
        self.follower = follower
        self.before_step = before_step
        self.infos = []
        self.memories = []

    def step(self, state, dt):
        if self.before_step is not None:
            self.before_step(self.follower, state)
        command = self.follower.step(state, dt)
        self.infos.append(self.follower.info)
        self.memories.append(self.follower.memory)
        return command

    def reset(self):
        self.follower.reset()


def run(plant, follower, state, steps, before_step=None):
    recorder = Recorder(follower, before_step)
    trace = simulate(plant, recorder, state, DT, steps)
    return trace, recorder


def cross_tracks(path, trace):
    return np.array([cross_track(path, x, y) for x, y in zip(trace.x, trace.y, strict=True)])


def circle(radius, start=-0.5 * math.pi, turns=1.5, count=1500):
    angles = np.linspace(start, start + 2.0 * math.pi * turns, count)
    return np.column_stack((radius * np.cos(angles), radius * np.sin(angles)))


# --------------------------------------------------------------------------------------------------
# pure pursuit: the cross-track error decays


@pytest.mark.parametrize("plant_name", ["fixture", "storm"])
def test_cross_track_error_decays_on_a_straight_line(plant_name):
    plant, vehicle = (
        (FixturePlant(), FixtureParams()) if plant_name == "fixture" else (Vehicle(STORM), STORM)
    )
    follower = PathFollower(vehicle, path=[(0.0, 0.0), (500.0, 0.0)])
    trace, _ = run(plant, follower, VehicleState(0.0, 4.0, 0.3, 5.0), 1500)
    errors = cross_tracks(follower.path, trace)
    assert errors[0] == 4.0
    one_second = int(1.0 / DT)
    # decays: the error a few seconds in is a fraction of the start, then stays near zero
    assert errors[5 * one_second] < 0.1 * errors[0]
    assert errors[10 * one_second :].max() < 0.02
    assert not follower.stuck_events


@pytest.mark.parametrize("plant_name", ["fixture", "storm"])
def test_cross_track_error_decays_on_a_circle(plant_name):
    radius = 30.0
    plant, vehicle = (
        (FixturePlant(), FixtureParams()) if plant_name == "fixture" else (Vehicle(STORM), STORM)
    )
    follower = PathFollower(vehicle, path=circle(radius, turns=3.0))
    trace, recorder = run(plant, follower, VehicleState(0.0, -radius - 3.0, 0.0, 3.0), 1500)
    errors = cross_tracks(follower.path, trace)
    one_second = int(1.0 / DT)
    settled = errors[10 * one_second :]
    speeds = np.array([info.target_speed for info in recorder.infos])
    assert speeds[10 * one_second :].min() > 9.0  # at speed, not crawling round
    if plant_name == "fixture":
        # kinematic bicycle: pure pursuit on a circle has no steady-state error
        assert settled.max() < 0.05
    else:
        # the Storm's tyres slip at 10 m/s on a 30 m radius (0.34 g): a steady offset remains,
        # bounded well below the initial error, and it does not grow
        assert settled.max() < 0.25 * errors[0]
        assert settled[-one_second:].max() <= settled[: 2 * one_second].max() + 0.05


def test_tracked_vehicle_with_the_heading_law_converges_on_a_straight_line():
    tank = PRESETS["armata"]
    follower = PathFollower(tank, path=[(0.0, 0.0), (400.0, 0.0)])
    trace, _ = run(Vehicle(tank), follower, VehicleState(0.0, 4.0, 0.3, 3.0), 1500)
    errors = cross_tracks(follower.path, trace)
    assert errors[500:].max() < 0.05


# --------------------------------------------------------------------------------------------------
# PI speed control on a slope


def test_pi_removes_the_steady_state_speed_error_on_a_slope_where_p_keeps_one():
    grade = 0.1  # [rad] about 10 %, uphill
    plant_params = FixtureParams()
    path = [(0.0, 0.0), (2000.0, 0.0)]
    results = {}
    for name, params in [
        ("PI", FollowerParams()),
        ("P", FollowerParams(ti_speed=math.inf)),
    ]:
        follower = PathFollower(plant_params, params, path=path)
        trace, _ = run(FixturePlant(plant_params, grade=grade), follower, VehicleState(), 3000)
        results[name] = 10.0 - trace.v[-500:]  # v_target is v_max = 10 on a straight path
    # P: the throttle u = kp e must hold v = 10 - e against drag and gravity:
    # accel_full kp e = drag (10 - e) + g sin(grade)
    kp = FollowerParams().kp_speed
    p_error = results["P"].mean()
    expected = (plant_params.drag * 10.0 + 9.81 * math.sin(grade)) / (
        plant_params.accel_full * kp + plant_params.drag
    )
    assert p_error == pytest.approx(expected, rel=0.01)
    assert p_error > 0.8
    # PI: no steady-state error
    assert np.abs(results["PI"]).max() < 1e-3


def test_integral_stays_bounded_while_the_throttle_saturates_on_a_hill_too_steep():
    grade = 0.5  # g sin(0.5) = 4.7 m/s^2 > the plant's 4 m/s^2 at full throttle
    params = FollowerParams(stuck_window=1e6)  # watch the controller, not the stuck manager
    follower = PathFollower(FixtureParams(), params, path=[(0.0, 0.0), (100.0, 0.0)])
    trace, recorder = run(
        FixturePlant(grade=grade), follower, VehicleState(0.0, 0.0, 0.0, 0.0), 500
    )
    integrals = np.array([memory.integral for memory in recorder.memories])
    throttle = trace.commands["throttle"]
    assert np.all(throttle[5:] == 1.0)  # saturated from the start
    assert np.all(integrals == integrals[0])  # frozen from the first saturated frame on
    assert np.abs(integrals).max() <= params.ti_speed / params.kp_speed


# --------------------------------------------------------------------------------------------------
# stuck manager


def wall_course(**params):
    """A 90-degree left turn 3 m before a wall (x > 31), for a car that cannot turn that
    tightly (max steer 0.3 rad: 9.1 m radius): it drives into the wall."""
    vehicle = FixtureParams(max_steer=0.3)
    plant = FixturePlant(vehicle, blocked=lambda x, y: x > 31.0)
    follower = PathFollower(
        vehicle, FollowerParams(**params), path=[(0.0, 0.0), (30.0, 0.0), (30.0, 40.0)]
    )
    return plant, follower


def test_driven_into_a_wall_the_vehicle_is_declared_stuck_within_the_window_and_recovers():
    plant, follower = wall_course()
    params = follower.params
    trace, recorder = run(plant, follower, VehicleState(), 3000)
    assert plant.first_blocked_frame is not None  # it did hit the wall
    first = follower.stuck_events[0]
    hit_time = (plant.first_blocked_frame + 1) * DT
    assert hit_time < first.time <= hit_time + params.stuck_window + DT
    assert first.x == pytest.approx(31.0, abs=0.3)  # against the wall
    # recovery: recovery_frames frames of inverted throttle and mirrored steer
    frames = [i for i, info in enumerate(recorder.infos) if info.recovering]
    start = frames[0]
    assert frames[: params.recovery_frames] == list(range(start, start + params.recovery_frames))
    assert np.all(trace.commands["throttle"][start : start + params.recovery_frames] < 0.0)
    # then it resumes and completes the path
    assert len(follower.stuck_events) == 1
    assert follower.memory.arrived
    assert math.hypot(trace.x[-1] - 30.0, trace.y[-1] - 40.0) < params.arrival_radius + 0.5
    assert follower.stuck_count == follower.memory.stuck_count == 1


def test_teleport_after_failed_recoveries_is_requested_and_the_follower_starts_afresh():
    # a wall across the path: no recovery can pass it
    vehicle = FixtureParams()
    plant = FixturePlant(vehicle, blocked=lambda x, y: 20.0 < x < 22.0)
    follower = PathFollower(
        vehicle, FollowerParams(teleport_after=2), path=[(0.0, 0.0), (60.0, 0.0)]
    )
    state = VehicleState()
    requests = []
    for _ in range(4000):
        command = follower.step(state, DT)
        if follower.teleport_request is not None:
            requests.append(follower.teleport_request)
            assert command == (0.0, 0.0)
            assert math.isnan(follower.memory.s)  # whole-path projection next frame
            request = follower.teleport_request
            state = VehicleState(request.x, request.y, request.yaw)  # the simulation applies it
            continue
        state = plant.step(state, command, DT)
    events = follower.stuck_events
    assert len(requests) >= 1
    assert [event.teleport for event in events[:3]] == [False, False, True]
    assert requests[0].y == 0.0 and requests[0].yaw == 0.0
    assert requests[0].x == pytest.approx(events[2].x)  # the nearest path point


def test_off_by_default_no_teleport():
    vehicle = FixtureParams()
    plant = FixturePlant(vehicle, blocked=lambda x, y: 20.0 < x < 22.0)
    follower = PathFollower(vehicle, path=[(0.0, 0.0), (60.0, 0.0)])
    run(plant, follower, VehicleState(), 2000)
    assert len(follower.stuck_events) >= 3
    assert not any(event.teleport for event in follower.stuck_events)
    times = [event.time for event in follower.stuck_events]
    assert all(np.diff(times) > 0.0)


# --------------------------------------------------------------------------------------------------
# paths replaced, hairpins, backwards


def test_path_replaced_every_frame_by_a_planner_rooted_at_the_vehicle():
    route = np.array([(0.0, 0.0), (40.0, 0.0), (40.0, 30.0), (80.0, 30.0)])
    reference = PathFollower(FixtureParams(), path=route)

    def replan(follower, state):
        # the rest of the route from the vehicle's projection, starting at the vehicle
        s = reference.path.project((state.x, state.y)).s
        cum = reference.path.cumulative_length
        ahead = [point for point, c in zip(route, cum, strict=True) if c > s]
        follower.set_path([(state.x, state.y), *ahead])

    follower = PathFollower(FixtureParams())
    follower.set_path(route)
    trace, recorder = run(FixturePlant(), follower, VehicleState(), 2500, before_step=replan)
    speeds = np.array([info.target_speed for info in recorder.infos])
    assert np.isfinite(speeds).all()
    assert not follower.stuck_events  # progress is measured across the path changes
    assert follower.memory.arrived
    assert math.hypot(trace.x[-1] - 80.0, trace.y[-1] - 30.0) < 3.0
    assert cross_tracks(reference.path, trace).max() < 3.0


def test_path_jittering_every_frame_is_followed():
    rng = np.random.default_rng(5)
    route = np.array([(0.0, 0.0), (60.0, 0.0), (60.0, 60.0)])

    def jitter(follower, state):
        follower.set_path(route + rng.normal(0.0, 0.3, route.shape))

    follower = PathFollower(STORM, path=route)
    trace, _ = run(Vehicle(STORM), follower, VehicleState(), 2500, before_step=jitter)
    assert follower.memory.arrived
    assert not follower.stuck_events
    assert cross_tracks(PathFollower(STORM, path=route).path, trace).max() < 4.0


@pytest.mark.parametrize("plant_name", ["fixture", "storm"])
def test_180_degree_hairpin_is_driven_round(plant_name):
    plant, vehicle = (
        (FixturePlant(), FixtureParams()) if plant_name == "fixture" else (Vehicle(STORM), STORM)
    )
    follower = PathFollower(vehicle, path=[(0.0, 0.0), (50.0, 0.0), (0.0, 0.0)])
    trace, recorder = run(plant, follower, VehicleState(), 3000)
    s = np.array([info.s for info in recorder.infos])
    assert s.max() > 95.0  # the projection went round the hairpin (not back onto the first leg)
    assert follower.memory.arrived
    assert math.hypot(trace.x[-1], trace.y[-1]) < 3.0


@pytest.mark.parametrize("plant_name", ["fixture", "storm"])
def test_spawned_facing_backwards_turns_round_and_follows(plant_name):
    plant, vehicle = (
        (FixturePlant(), FixtureParams()) if plant_name == "fixture" else (Vehicle(STORM), STORM)
    )
    follower = PathFollower(vehicle, path=[(0.0, 0.0), (300.0, 0.0)])
    trace, _ = run(plant, follower, VehicleState(0.0, 0.0, math.pi, 0.0), 3000)
    assert trace.commands["steer"][0] in (1.0, -1.0)  # full lock from the first frame
    errors = cross_tracks(follower.path, trace)
    assert errors[-500:].max() < 0.05
    assert follower.memory.arrived or trace.x[-1] > 250.0


def test_zero_length_segments_in_the_path_are_harmless():
    path = [(0.0, 0.0), (20.0, 0.0), (20.0, 0.0), (20.0, 0.0), (40.0, 10.0), (40.0, 10.0)]
    follower = PathFollower(FixtureParams(), path=path)
    trace, _ = run(FixturePlant(), follower, VehicleState(), 1500)
    assert follower.memory.arrived
    assert np.isfinite(trace.commands["steer"]).all()


def test_baseline_follower_drives_the_course_with_a_p_controller():
    follower = BaselineFollower(STORM, path=[(0.0, 0.0), (60.0, 0.0), (60.0, 60.0)])
    _, recorder = run(Vehicle(STORM), follower, VehicleState(), 2500)
    assert follower.memory.arrived
    assert all(memory.integral == 0.0 for memory in recorder.memories)
    speeds = np.array([info.target_speed for info in recorder.infos])
    assert speeds.min() < 5.0  # slowed for the corner ...
    assert speeds.max() == 10.0  # ... v_max on the straights


# --------------------------------------------------------------------------------------------------
# bad input at the boundary


@pytest.mark.parametrize(
    ("points", "widths", "match"),
    [
        ([(0.0, 0.0)], None, r"path: points must contain at least 2 points"),
        ([(2.0, 2.0), (2.0, 2.0)], None, "at least 2 distinct points"),
        ([(0.0, 0.0), (0.0, 0.0, 1.0)], None, "points must"),
        ([(0.0, 0.0), (math.nan, 0.0)], None, r"points\[1\] must be finite"),
        ([(0.0, 0.0), (1.0, 0.0), (2.0, 0.0)], [1.0, -2.0], r"widths\[1\] must be >= 0"),
        ([(0.0, 0.0), (1.0, 0.0)], math.nan, r"widths\[0\]"),
        ([(0.0, 0.0, 0.0), (0.0, 0.0, 5.0)], None, "at least 2 distinct points"),
    ],
)
def test_bad_paths_are_clear_errors_at_the_boundary(points, widths, match):
    follower = PathFollower(STORM)
    with pytest.raises(ValueError, match=match):
        follower.set_path(points, widths)
    with pytest.raises(ValueError, match=r"paths\[1\]: .*" + match.removeprefix("path: ")):
        follower.set_paths([[(0.0, 0.0), (1.0, 0.0)], points], [None, widths])


def test_bad_state_dt_and_missing_path():
    follower = PathFollower(STORM)
    with pytest.raises(ValueError, match="no path"):
        follower.step(VehicleState(), DT)
    follower.set_path([(0.0, 0.0), (10.0, 0.0)])
    with pytest.raises(ValueError, match=r"state\.x"):
        follower.step(VehicleState(x=math.nan), DT)
    with pytest.raises(ValueError, match="dt"):
        follower.step(VehicleState(), 0.0)
    with pytest.raises(ValueError, match="follower_params"):
        PathFollower(STORM, {"a_lat": 0.4})


def test_3d_path_is_followed_in_the_plane_and_widths_are_kept():
    follower = PathFollower(STORM, path=[(0.0, 0.0, 5.0), (10.0, 0.0, 8.0)], widths=4.0)
    assert follower.path.dim == 2
    assert follower.path.length == 10.0
    assert follower.path.widths.tolist() == [4.0]
    command = follower.step(VehicleState(), DT)
    assert command.throttle == 1.0
