"""Each module of the follower alone (seed 001, Figure 2): speed control, target point, steering,
stuck manager, baseline target speed; parameters and their validation."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from steerlab.follower import FollowerParams
from steerlab.follower.baseline import _baseline_target_speed
from steerlab.follower.params import StuckParams, check_follower_params, check_vehicle_params
from steerlab.follower.speed_control import _pi_speed
from steerlab.follower.steering import _heading_steer, _line_of_sight, _pure_pursuit, _steering
from steerlab.follower.stuck import StuckMemory, _recovery_command, _stuck_check
from steerlab.follower.target_point import _lookahead_distance, _project_window, _target_point
from steerlab.geometry import Polyline

finite = st.floats(-1e3, 1e3)

# --------------------------------------------------------------------------------------------------
# speed control


@given(st.floats(-20, 20), st.floats(-20, 20), st.floats(0.05, 5.0), st.floats(0.5, 20.0))
def test_p_control_is_kp_times_the_error_clamped(v_target, v, kp, _):
    throttle, integral = _pi_speed(v_target, v, 0.0, kp, math.inf, 0.02)
    assert integral == 0.0
    assert throttle == min(max(kp * (v_target - v), -1.0), 1.0)


@given(
    st.floats(-30, 30),
    st.floats(0.05, 5.0),
    st.floats(0.1, 20.0),
    st.floats(1e-3, 0.2),
    st.floats(-100.0, 100.0),
)
def test_integral_frozen_while_saturated_and_always_bounded(error, kp, ti, dt, integral0):
    bound = ti / kp
    integral = min(max(integral0, -bound), bound)
    for _ in range(200):
        output_before = kp * (error + integral / ti)
        throttle, new_integral = _pi_speed(error, 0.0, integral, kp, ti, dt)
        assert -1.0 <= throttle <= 1.0
        assert abs(new_integral) <= bound
        if (output_before >= 1.0 and error > 0) or (output_before <= -1.0 and error < 0):
            assert new_integral == integral  # conditional integration: no windup
        integral = new_integral


def test_integral_stops_growing_once_the_throttle_saturates():
    integral = 0.0
    history = []
    for _ in range(5000):  # 100 s of an unreachable target speed
        throttle, integral = _pi_speed(10.0, 8.5, integral, 0.5, 2.0, 0.02)
        history.append((throttle, integral))
    throttles, integrals = np.array(history).T
    saturated = np.flatnonzero(throttles >= 1.0)
    assert saturated.size > 4000
    assert np.all(integrals[saturated[0] :] == integrals[saturated[0]])
    assert integrals.max() <= 2.0 / 0.5


# --------------------------------------------------------------------------------------------------
# target point


def test_lookahead_fixed_or_speed_scaled():
    assert _lookahead_distance(15.0, 6.0, 0.0) == 6.0
    assert _lookahead_distance(-15.0, 6.0, 0.8) == 12.0
    assert _lookahead_distance(2.0, 6.0, 0.8) == 6.0


def test_target_point_is_lookahead_ahead_of_the_projection_along_the_path():
    path = Polyline([(0.0, 0.0), (10.0, 0.0), (10.0, 10.0)])
    s, x, y, _ = _target_point(path.points_3d, path.cumulative_length, 7.0, 0, 6.0)
    assert (s, x, y) == (13.0, 10.0, 3.0)
    s, x, y, _ = _target_point(path.points_3d, path.cumulative_length, 18.0, 1, 6.0)
    assert (s, x, y) == (20.0, 10.0, 10.0)  # clamped to the end


def test_windowed_projection_stays_on_the_leg_of_a_hairpin():
    hairpin = Polyline([(0.0, 0.0), (50.0, 0.0), (0.0, 0.0)])
    points, cum = hairpin.points_3d, hairpin.cumulative_length
    # on the return leg at x = 40 (s = 60): the whole-path projection goes back to s = 40
    assert hairpin.project((40.0, 0.0)).s == 40.0
    s, x, y, _, segment = _project_window(points, cum, 40.0, 0.0, 0.0, 58.0, 80.0, 0)
    assert (s, x, y, segment) == (60.0, 40.0, 0.0, 1)
    # the window is honoured at both ends, and ties go to the smallest s inside it
    s, *_ = _project_window(points, cum, 70.0, 5.0, 0.0, 10.0, 30.0, 1)
    assert s == 30.0
    s, *_ = _project_window(points, cum, -5.0, 1.0, 0.0, 10.0, 30.0, 0)
    assert s == 10.0


@given(finite, finite, st.integers(-2, 6))
def test_windowed_projection_over_the_whole_path_is_the_projection(x, y, hint):
    path = Polyline([(0.0, 0.0), (10.0, 0.0), (10.0, 0.0), (10.0, 10.0), (-5.0, 3.0)])
    args = (path.points_3d, path.cumulative_length, x, y, 0.0, -1.0, 1e9, hint)
    _, cx, cy, _, _ = _project_window(*args)
    expected = path.project((x, y))
    assert math.hypot(cx - x, cy - y) == pytest.approx(abs(expected.cross_track), abs=1e-9)


@given(finite, finite, st.floats(-5.0, 60.0), st.floats(0.0, 30.0), st.integers(-1, 7))
def test_windowed_projection_is_the_closest_point_of_the_arc_whatever_the_hint(
    x, y, s_low, width, hint
):
    path = Polyline([(0.0, 0.0), (10.0, 0.0), (10.0, 0.0), (10.0, 10.0), (-5.0, 3.0), (-5.0, 3.0)])
    points, cum = path.points_3d, path.cumulative_length
    s, cx, cy, _, segment = _project_window(points, cum, x, y, 0.0, s_low, s_low + width, hint)
    same = _project_window(points, cum, x, y, 0.0, s_low, s_low + width, 0)
    assert (s, cx, cy, segment) == (same[0], same[1], same[2], same[4])
    low = min(max(s_low, 0.0), path.length)
    high = min(max(s_low + width, low), path.length)
    assert low <= s <= high
    assert np.allclose(path.point_at(s), (cx, cy), atol=1e-9)
    # brute force over the arc
    arc = np.linspace(low, high, 4001)
    distances = [math.hypot(*(path.point_at(t) - (x, y))) for t in arc]
    assert math.hypot(cx - x, cy - y) <= min(distances) + 1e-9


# --------------------------------------------------------------------------------------------------
# steering


@given(finite, finite, st.floats(-math.pi, math.pi), finite, finite)
def test_pure_pursuit_is_the_formula(x, y, yaw, target_x, target_y):
    wheelbase, max_steer = 2.8, 0.6
    distance = math.hypot(target_x - x, target_y - y)
    steer = _steering(0, x, y, yaw, target_x, target_y, wheelbase, max_steer, 1.0, False)
    if distance < 1e-6:
        return
    alpha = math.remainder(math.atan2(target_y - y, target_x - x) - yaw, 2.0 * math.pi)
    if abs(alpha) <= math.pi / 2 - 1e-9:
        delta = math.atan(2.0 * wheelbase * math.sin(alpha) / distance)
        expected = min(max(delta / max_steer, -1.0), 1.0)
        assert steer == pytest.approx(expected, abs=1e-9)
    elif abs(alpha) >= math.pi / 2 + 1e-9 and abs(abs(alpha) - math.pi) > 1e-9:
        assert steer == math.copysign(1.0, alpha)  # behind: full lock towards the target


def test_pure_pursuit_special_cases():
    assert _pure_pursuit(0.0, 0.0, 0.0, 2.8, 0.6) == 0.0  # target on the vehicle
    assert _pure_pursuit(10.0, 0.0, 100.0, 2.8, 0.6) == 0.0  # straight ahead
    assert _pure_pursuit(-10.0, 0.0, 100.0, 2.8, 0.6) == 1.0  # straight behind: full left
    assert _pure_pursuit(-10.0, -1e-12, 100.0, 2.8, 0.6) == -1.0
    forward, left, distance2 = _line_of_sight(0.0, 0.0, math.pi / 2, 0.0, 10.0)
    assert forward == pytest.approx(10.0) and abs(left) < 1e-12 and distance2 == 100.0


@given(st.floats(-math.pi, math.pi), st.floats(0.1, 5.0), st.floats(0.1, 1.5))
def test_heading_law(alpha, gain, max_steer):
    steer = _heading_steer(math.cos(alpha), math.sin(alpha), gain, max_steer)
    assert steer == pytest.approx(min(max(gain * alpha / max_steer, -1.0), 1.0), abs=1e-9)


def test_tracked_and_hover_use_the_heading_law_unless_pure_pursuit_all():
    for kind in (1, 2):
        steer = _steering(kind, 0.0, 0.0, 0.0, 10.0, 2.0, 5.0, 0.8, 1.0, False)
        assert steer == pytest.approx(math.atan2(2.0, 10.0) / 0.8)
        steer = _steering(kind, 0.0, 0.0, 0.0, 10.0, 2.0, 5.0, 0.8, 1.0, True)
        assert steer == _steering(0, 0.0, 0.0, 0.0, 10.0, 2.0, 5.0, 0.8, 1.0, False)


# --------------------------------------------------------------------------------------------------
# stuck manager


def run_stuck(progress_per_frame, frames, dt=0.1, recovery_frames=5, teleport_after=0, d=1.0):
    """Frames of the stuck manager alone; rows of (..., stuck_count, event, teleport,
    recovering)."""
    memory = StuckMemory()
    params = StuckParams(d, 3.0, recovery_frames, teleport_after)
    rows = []
    for frame in range(frames):
        step = progress_per_frame(frame) if callable(progress_per_frame) else progress_per_frame
        memory, event, teleport, recovering = _stuck_check(step, True, memory, params, dt)
        rows.append((*memory, event, teleport, recovering))
    return rows


COUNT, EVENT, TELEPORT, RECOVERING = 5, 6, 7, 8


def test_no_stuck_while_progressing_faster_than_d_per_window():
    rows = run_stuck(0.05, 1000)  # 0.5 m/s: 1.5 m per 3 s window, d = 1 m
    assert not any(row[EVENT] for row in rows)


def test_stuck_within_the_window_then_recovery_frames_then_a_fresh_window():
    rows = run_stuck(lambda frame: 0.5 if frame < 10 else 0.0, 200)
    events = [frame for frame, row in enumerate(rows) if row[EVENT]]
    # progress stopped after frame 9 (1 s); the last anchor was at frame 9 at the latest
    assert 10 <= events[0] <= 9 + 30
    recovering = [frame for frame, row in enumerate(rows) if row[RECOVERING]]
    assert recovering[:5] == list(range(events[0], events[0] + 5))  # 5 frames, event's included
    assert events[1] == events[0] + 5 + 30 - 1  # a fresh 3 s window after the recovery
    assert rows[-1][COUNT] == len(events)  # every event counted


def test_teleport_after_n_failed_recoveries():
    rows = run_stuck(0.0, 400, teleport_after=2)
    events = [frame for frame, row in enumerate(rows) if row[EVENT]]
    teleports = [frame for frame, row in enumerate(rows) if row[TELEPORT]]
    assert teleports[0] == events[2]  # third event in a row: two recoveries failed
    assert not rows[events[2]][RECOVERING]  # no recovery on a teleport
    assert teleports[1] == events[5]

    # backing up during each recovery, then regaining the same ground: still failures
    def back_and_forth(frame):
        return -0.4 if any(rows[frame][RECOVERING] for rows in [reference]) else 0.0

    reference = run_stuck(0.0, 400, teleport_after=2)
    assert [row[TELEPORT] for row in run_stuck(back_and_forth, 400, teleport_after=2)] == [
        row[TELEPORT] for row in reference
    ]
    # getting d past the stuck point between the events clears the count
    rows = run_stuck(lambda frame: 2.0 if frame % 70 == 69 else 0.0, 700, teleport_after=2)
    assert sum(row[EVENT] for row in rows) >= 6
    assert not any(row[TELEPORT] for row in rows)


def test_recovery_inverts_the_throttle_and_mirrors_the_steer():
    assert _recovery_command(0.3, 0.8, True) == (-0.3, -0.8)
    assert _recovery_command(0.3, 0.8, False) == (0.3, 0.8)


# --------------------------------------------------------------------------------------------------
# baseline target speed


@given(st.floats(-math.pi, math.pi), st.floats(0.0, 60.0))
def test_baseline_speed_is_k_over_the_largest_angle(yaw, s_from):
    path = Polyline([(0.0, 0.0), (20.0, 0.0), (20.0, 0.0), (35.0, 15.0), (35.0, 60.0)])
    horizon, k = 30.0, 2.5
    speed, theta = _baseline_target_speed(
        path.points_3d, path.cumulative_length, yaw, s_from, horizon, k, 1.0, 10.0
    )
    # independently: the segments holding arc length in [s_from, s_from + horizon]
    cum = path.cumulative_length
    s_end = min(s_from + horizon, cum[-1])
    angles = []
    for i in range(path.segment_count):
        a, b = path.points[i], path.points[i + 1]
        holds = cum[i + 1] > s_from and cum[i] < s_end
        at_the_end = s_from >= cum[-1] and i == path.segment_count - 1
        if cum[i + 1] > cum[i] and (holds or at_the_end):
            heading = math.atan2(b[1] - a[1], b[0] - a[0])
            angles.append(abs(math.remainder(heading - yaw, 2.0 * math.pi)))
    assert theta == pytest.approx(max(angles), abs=1e-12)
    expected = min(max(k / theta, 1.0), 10.0) if theta > 0 else 10.0
    assert speed == pytest.approx(expected, rel=1e-12)


def test_baseline_aligned_gives_v_max_and_reversed_gives_v_min():
    path = Polyline([(0.0, 0.0), (100.0, 0.0)])
    args = (path.points_3d, path.cumulative_length)
    assert _baseline_target_speed(*args, 0.0, 10.0, 30.0, 2.5, 1.0, 10.0) == (10.0, 0.0)
    assert _baseline_target_speed(*args, math.pi, 10.0, 30.0, 2.5, 1.0, 10.0)[0] == 1.0


# --------------------------------------------------------------------------------------------------
# parameters


def test_defaults_are_the_papers():
    params = FollowerParams()
    assert (params.a_lat, params.dh, params.n, params.v_min, params.v_max) == (
        0.4,
        6.0,
        5,
        1.0,
        10.0,
    )
    assert check_follower_params(params) == params
    assert params.teleport_after == 0  # off, as in the paper's benchmark


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"a_lat": 0.0}, "a_lat"),
        ({"dh": math.nan}, "dh"),
        ({"n": 1}, r"n must be an integer from 2 to 1000, got 1"),
        ({"n": 10**30}, r"n must be an integer from 2 to 1000, got 10+\b"),
        ({"n": 2.5}, "n must be an integer"),
        ({"n": math.inf}, r"follower_params\.n must be an integer, got inf"),
        ({"recovery_frames": math.nan}, r"follower_params\.recovery_frames must be an integer"),
        ({"teleport_after": 2**40}, r"teleport_after must be an integer from 0 to 2147483647"),
        ({"v_min": 11.0}, "v_min must be <= v_max"),
        ({"lookahead": -1.0}, "lookahead"),
        ({"ti_speed": 0.0}, "ti_speed"),
        ({"stuck_window": math.inf}, "stuck_window"),
        ({"recovery_frames": -1}, "recovery_frames"),
        ({"pure_pursuit_all": 1}, "pure_pursuit_all"),
    ],
)
def test_bad_params_are_clear_errors(change, match):
    with pytest.raises(ValueError, match=match):
        check_follower_params(FollowerParams()._replace(**change))


def test_vehicle_params_are_read_by_duck_typing():
    class Car:
        kind = 0
        wheelbase = 2.5
        max_steer = 0.5
        mass = "ignored"

    assert check_vehicle_params(Car()) == (0, 2.5, 0.5)
    for bad, match in [
        ({"kind": 3}, "kind"),
        ({"wheelbase": 0.0}, "wheelbase"),
        ({"max_steer": 2.0}, "max_steer"),
        ({"max_steer": -0.1}, "max_steer"),
    ]:
        car = Car()
        for name, value in bad.items():
            setattr(car, name, value)
        with pytest.raises(ValueError, match=match):
            check_vehicle_params(car)
    with pytest.raises(ValueError, match="kind, wheelbase and max_steer"):
        check_vehicle_params(object())
