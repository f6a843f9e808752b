"""Per-trial metrics (issue 7, seed 001's Table I) on hand-built traces."""

import math

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from steerlab.follower import FollowerParams
from steerlab.geometry import Polyline
from steerlab.trials.observer import (
    ARRIVAL_RADIUS,
    STUCK_DISTANCE,
    STUCK_WINDOW,
    reduce_frames,
    trajectory_length,
    trial_metrics,
)

DT = 0.02
STRAIGHT = Polyline([(0.0, 0.0), (200.0, 0.0)], 6.0)


def trace(xs, ys=None, t=None):
    xs = np.asarray(xs, dtype=float)
    ys = np.zeros_like(xs) if ys is None else np.broadcast_to(np.asarray(ys, float), xs.shape)
    t = DT * np.arange(xs.size) if t is None else t
    speed = np.zeros_like(xs)
    speed[1:] = np.hypot(np.diff(xs), np.diff(ys)) / np.diff(t)
    return t, xs, ys, speed


def drive(speed, seconds, start=0.0):
    """x of a vehicle at constant speed for ``seconds`` (frames 1 ..), from ``start``."""
    return start + speed * DT * np.arange(1, round(seconds / DT) + 1)


def test_a_trace_inside_the_corridor_scores_100_percent_and_its_offset_as_cte():
    # a straight trace 1 m left of the path, corridor 6 m: inside everywhere, cte exactly 1
    xs = np.concatenate(([0.0], drive(5.0, 30.0)))
    metrics, frames = trial_metrics(STRAIGHT, *trace(xs, 1.0), time_limit=60.0)
    assert metrics.inside_corridor == 100.0
    assert metrics.cte_mean == 1.0
    assert (frames.cross_track[: frames.end + 1] == 1.0).all()  # left of travel: positive
    assert metrics.stuck_events == 0 and not metrics.stuck


def test_a_trace_on_the_right_has_negative_cross_track_and_leaves_the_corridor():
    xs = np.concatenate(([0.0], drive(5.0, 20.0)))
    ys = np.where(np.arange(xs.size) < xs.size // 2, -2.0, -4.0)  # half inside, half outside
    metrics, frames = trial_metrics(STRAIGHT, *trace(xs, ys))
    assert metrics.inside_corridor == pytest.approx(50.0, abs=0.1)
    assert (frames.cross_track < 0.0).all()
    assert metrics.cte_mean == pytest.approx(3.0, abs=0.01)


def test_a_trace_that_stalls_for_the_window_gives_one_stuck_event():
    # drive 10 s at 5 m/s, stand still a little longer than the window, drive on
    moving = drive(5.0, 10.0)
    stall = np.full(round((STUCK_WINDOW + 0.5) / DT), moving[-1])
    xs = np.concatenate(([0.0], moving, stall, drive(5.0, 10.0, moving[-1])))
    metrics, frames = trial_metrics(STRAIGHT, *trace(xs))
    assert metrics.stuck_events == 1 and metrics.stuck
    event = int(np.flatnonzero(frames.stuck_event)[0])
    stall_start = moving.size  # the frame of the last move
    # declared once the window has passed since the last progress of d metres, in the stall
    assert stall_start * DT < event * DT <= stall_start * DT + STUCK_WINDOW + 2 * DT
    assert metrics.completed is False  # never got to the end (200 m)


@pytest.mark.parametrize("windows", [2, 3, 5])
def test_a_longer_stall_gives_one_event_per_window(windows):
    moving = drive(5.0, 4.0)
    stall = np.full(round((windows * STUCK_WINDOW + 0.5) / DT), moving[-1])
    xs = np.concatenate(([0.0], moving, stall))
    metrics, _ = trial_metrics(STRAIGHT, *trace(xs))
    assert metrics.stuck_events == windows


def test_slow_but_steady_progress_is_never_stuck():
    # the paper's v_min (1 m/s) makes 3 m per 3 s window: three times d
    xs = np.concatenate(([0.0], drive(FollowerParams().v_min, 60.0)))
    metrics, _ = trial_metrics(STRAIGHT, *trace(xs))
    assert metrics.stuck_events == 0


def test_creeping_below_d_per_window_is_stuck():
    # 90 % of d per window: one event per window
    xs = np.concatenate(([0.0], drive(0.9 * STUCK_DISTANCE / STUCK_WINDOW, 31.0)))
    metrics, _ = trial_metrics(STRAIGHT, *trace(xs))
    assert metrics.stuck_events == 10


def test_going_backwards_is_not_progress():
    forward = drive(5.0, 4.0)
    back = drive(-1.0, 10.0, forward[-1])  # reversing 10 m over 10 s
    xs = np.concatenate(([0.0], forward, back))
    metrics, frames = trial_metrics(STRAIGHT, *trace(xs))
    assert metrics.stuck_events == 3
    assert frames.s[-1] == pytest.approx(xs[-1])


def test_progress_is_tracked_along_the_leg_driven_on_a_hairpin():
    # legs 3 m apart; a trace along the first leg 1.6 m left of it is nearer the second leg,
    # yet its progress follows the first leg, and a stall there is a stuck event
    hairpin = Polyline([(0.0, 0.0), (100.0, 0.0), (100.0, 3.0), (0.0, 3.0)], 4.0)
    moving = drive(5.0, 10.0)
    xs = np.concatenate(([0.0], moving, np.full(200, moving[-1])))
    metrics, frames = trial_metrics(hairpin, *trace(xs, 1.6))
    np.testing.assert_allclose(frames.s, xs, atol=1e-9)
    np.testing.assert_allclose(frames.cross_track, 1.4)  # the distance to the path: leg 2
    assert metrics.stuck_events == 1
    assert not metrics.completed  # the end (0, 3) is 2 m from the start, but never reached


def test_arrival_ends_the_trial_and_sets_its_time():
    xs = np.concatenate(([0.0], drive(5.0, 60.0)))  # runs past the end (200 m after 40 s)
    metrics, frames = trial_metrics(STRAIGHT, *trace(np.minimum(xs, 200.0)), time_limit=100.0)
    assert metrics.completed
    arrival = int(np.argmax(np.minimum(xs, 200.0) >= 200.0 - ARRIVAL_RADIUS))
    assert frames.end == arrival
    assert metrics.time == pytest.approx(arrival * DT)
    assert metrics.distance == pytest.approx(xs[arrival])
    # frames after the arrival are not judged (nor counted in the means)
    assert np.isnan(frames.cross_track[arrival + 1 :]).all()
    assert metrics.frames == xs.size - 1


def test_an_uncompleted_trial_is_charged_the_time_limit():
    xs = np.concatenate(([0.0], drive(2.0, 50.0)))  # 100 m of 200
    metrics, _ = trial_metrics(STRAIGHT, *trace(xs), time_limit=50.0)
    assert not metrics.completed
    assert metrics.time == 50.0
    metrics, _ = trial_metrics(STRAIGHT, *trace(xs))
    assert metrics.time == pytest.approx(50.0)  # no limit: the recorded duration


def test_arriving_after_the_time_limit_is_not_completed():
    xs = np.concatenate(([0.0], drive(5.0, 45.0)))
    metrics, _ = trial_metrics(STRAIGHT, *trace(np.minimum(xs, 200.0)), time_limit=30.0)
    assert not metrics.completed and metrics.time == 30.0


def test_passing_the_end_plane_away_from_the_last_waypoint_is_arrival():
    # the follower's rule: on the end of the path and past the plane through the last waypoint
    xs = np.concatenate(([0.0], drive(5.0, 45.0)))
    metrics, _ = trial_metrics(STRAIGHT, *trace(np.minimum(xs, 201.0), 2.9), time_limit=60.0)
    assert metrics.completed


def test_speed_and_distance_are_those_of_the_trace():
    xs = np.concatenate(([0.0], drive(4.0, 20.0)))
    t, x, y, speed = trace(xs)
    metrics, _ = trial_metrics(STRAIGHT, t, x, y, speed)
    assert metrics.distance == pytest.approx(80.0)
    assert metrics.speed_mean == pytest.approx(4.0 * (xs.size - 1) / xs.size)


@given(
    st.floats(0.1, 15.0),  # speed [m/s]
    st.floats(-2.9, 2.9),  # lateral offset [m], corridor 6 m
    st.floats(5.0, 40.0),  # seconds
)
def test_constant_offset_traces_are_inside_with_that_cte(speed, offset, seconds):
    xs = np.concatenate(([0.0], drive(speed, seconds)))
    metrics, _ = trial_metrics(STRAIGHT, *trace(np.minimum(xs, 190.0), offset))
    assert metrics.inside_corridor == 100.0
    assert metrics.cte_mean == pytest.approx(abs(offset), abs=1e-12)


def test_a_path_without_widths_is_never_left_and_heights_are_ignored():
    path = Polyline([(0.0, 0.0, 0.0), (100.0, 0.0, 30.0)])
    xs = np.concatenate(([0.0], drive(5.0, 10.0)))
    metrics, _ = trial_metrics(path, *trace(xs, 50.0))
    assert metrics.inside_corridor == 100.0
    assert metrics.cte_mean == pytest.approx(50.0)  # in the ground plane, not in 3-D


def test_bad_records_are_refused_with_the_argument_named():
    t, x, y, speed = trace(np.arange(5.0))
    with pytest.raises(ValueError, match="same length"):
        trial_metrics(STRAIGHT, t, x[:-1], y, speed)
    with pytest.raises(ValueError, match=r"x\[2\] must be finite"):
        trial_metrics(STRAIGHT, t, np.where(np.arange(5) == 2, math.nan, x), y, speed)
    with pytest.raises(ValueError, match=r"t must increase, got t\[3\]"):
        trial_metrics(STRAIGHT, np.array([0.0, 1.0, 2.0, 2.0, 3.0]), x, y, speed)
    with pytest.raises(ValueError, match="at least one frame"):
        trial_metrics(STRAIGHT, [], [], [], [])
    with pytest.raises(ValueError, match="time_limit must be > 0"):
        trial_metrics(STRAIGHT, t, x, y, speed, time_limit=0.0)
    with pytest.raises(ValueError, match="path must be a Polyline"):
        trial_metrics([(0, 0), (1, 0)], t, x, y, speed)


# every frame's cross-track error is the signed distance to the whole path by
# Polyline.project's rules (the public projection, checked against a brute-force nearest point in
# tests/test_polyline.py), and inside by the corridor of its segment (the rule written here): on
# small integer grids (ties between segments: the first wins; feet on vertices and on segments'
# extensions: the vertex-neighbour sign rule); frames up to the trial's end (its arrival)
_grid = st.integers(-4, 4).map(float)


@given(
    st.lists(st.tuples(_grid, _grid), min_size=2, max_size=8, unique=True),
    st.lists(st.tuples(st.integers(-10, 10), st.integers(-10, 10)), min_size=1, max_size=30),
    st.lists(st.integers(1, 8), min_size=7, max_size=7),
)
@example([(0.0, 0.0), (4.0, 0.0)], [(2, 2), (2, -2)], [2] * 7)  # on the corridor's edges
@example([(0.0, 0.0), (2.0, 0.0), (1.0, 0.0)], [(2, 1), (6, 0), (3, 0)], [1] * 7)  # a reversal
def test_each_frames_cross_track_is_polyline_project_on_the_whole_path(points, positions, widths):
    path = Polyline(points, [float(w) for w in widths[: len(points) - 1]])
    xs = np.array([x / 2.0 for x, _ in positions])  # a half-metre grid
    ys = np.array([y / 2.0 for _, y in positions])
    _, frames = trial_metrics(path, *trace(xs, ys))
    for k in range(frames.end + 1):
        projection = path.project((xs[k], ys[k]))
        assert frames.cross_track[k] == projection.cross_track
        assert math.copysign(1.0, frames.cross_track[k]) == math.copysign(
            1.0, projection.cross_track
        )
        assert frames.inside[k] == (abs(projection.cross_track) <= widths[projection.segment] / 2)


@given(
    st.integers(0, 2**32 - 1),
    st.integers(1, 3000),
    st.floats(0.1, 15.0),
)
def test_the_figures_are_numpys_reductions_of_the_frames_bit_for_bit(seed, count, spread):
    """``reduce_frames`` sums in compiled code (``steerlab._sums.numpy_sum``); each figure must
    be the numpy expression that defines it, over the judged frames, to the last bit."""
    rng = np.random.default_rng(seed)
    xs = np.cumsum(rng.uniform(0.0, 0.3, count))
    ys = np.cumsum(rng.normal(0.0, spread * 0.05, count))
    t, xs, ys, speed = trace(xs, ys)
    metrics, frames = trial_metrics(STRAIGHT, t, xs, ys, speed)
    counted = slice(0, frames.end + 1)
    assert metrics.cte_mean == float(np.abs(frames.cross_track[counted]).mean())
    assert metrics.inside_corridor == float(100.0 * frames.inside[counted].mean())
    assert metrics.speed_mean == float(speed[counted].mean())
    assert metrics.stuck_events == int(frames.stuck_event[counted].sum())
    steps = np.hypot(np.diff(xs[counted]), np.diff(ys[counted]))
    assert metrics.distance == float(steps.sum())


@pytest.mark.parametrize("end", [-1, 5, 99, 2.0, True, None])
def test_a_frame_outside_the_records_is_refused_before_the_compiled_sums(end):
    """The sums read frames ``0 .. end`` without bounds checks: an ``end`` that is not a frame of
    every record is a ValueError naming it, never a read past an array."""
    t, xs, ys, speed = trace(np.arange(5.0))
    with pytest.raises(ValueError, match=r"end must be a frame index in \[0, 5\)"):
        trajectory_length(xs, ys, end)
    metrics, frames = trial_metrics(STRAIGHT, t, xs, ys, speed)
    with pytest.raises(ValueError, match="end must be"):
        reduce_frames(t, xs, ys, speed, frames._replace(end=end), False, None)
    assert trajectory_length(xs, ys, 4) == 4.0 == metrics.distance
