"""Stall episodes and exposure (issue 18) on hand-built traces: every expected count and rate
is worked out here from the trace's construction, not read from the code."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from steerlab.trials.stalls import EPISODE_DISTANCE, StallCounts, stall_counts, trial_stalls

DT = 0.5  # [s]


def trace(pieces):
    """A trace along the x axis from ``pieces``: ``(frames, speed, events)`` each, ``events`` the
    frame offsets (within the piece) of the observer's stuck events. Returns ``t, x, y, s,
    stuck_event``; ``s = x`` (a straight path along x from the origin)."""
    x = [0.0]
    events = [False]
    for frames, speed, marks in pieces:
        for k in range(frames):
            x.append(x[-1] + speed * DT)
            events.append(k in marks)
    x = np.array(x)
    t = DT * np.arange(x.size)
    return t, x, np.zeros_like(x), x.copy(), np.array(events)


def test_one_long_stall_is_one_episode_however_long_it_lasts():
    for stalled_frames in (6, 60, 600):  # 3 s, 30 s, 300 s at a standstill
        marks = set(range(5, stalled_frames, 6))  # an event every 3 s, as the observer would
        t, x, y, s, events = trace([(20, 2.0, ()), (stalled_frames, 0.0, marks), (20, 2.0, ())])
        counts = stall_counts(t, x, y, s, events)
        assert counts.events == len(marks)
        assert counts.episodes == 1


def test_two_stalls_separated_by_progress_beyond_the_distance_are_two():
    gap = EPISODE_DISTANCE + 1.0  # [m] driven between the stalls
    t, x, y, s, events = trace(
        [(10, 2.0, ()), (12, 0.0, {5, 11}), (round(gap / (2.0 * DT)), 2.0, ()), (12, 0.0, {5, 11})]
    )
    counts = stall_counts(t, x, y, s, events)
    assert (counts.events, counts.episodes) == (4, 2)


def test_two_stalls_separated_by_less_progress_are_one():
    gap = EPISODE_DISTANCE - 1.0
    t, x, y, s, events = trace(
        [(10, 2.0, ()), (12, 0.0, {5, 11}), (round(gap / (2.0 * DT)), 2.0, ()), (12, 0.0, {5, 11})]
    )
    counts = stall_counts(t, x, y, s, events)
    assert (counts.events, counts.episodes) == (4, 1)


def test_backing_off_and_coming_back_is_the_same_stall():
    # stalled at 20 m; backs 8 m off (recovery), drives 10 m forward (2 m past the stall, less
    # than the distance) and stalls again: one episode. Then 10 m more, and a third stall: two
    t, x, y, s, events = trace(
        [
            (10, 4.0, ()),  # to 20 m
            (6, 0.0, {5}),
            (4, -4.0, ()),  # back to 12 m
            (5, 4.0, ()),  # to 22 m: 2 m past the best
            (6, 0.0, {5}),
            (5, 4.0, ()),  # to 32 m: 12 m past
            (6, 0.0, {5}),
        ]
    )
    counts = stall_counts(t, x, y, s, events)
    assert (counts.events, counts.episodes) == (3, 2)


def test_the_anchor_is_the_best_progress_not_where_the_event_fires():
    # drives to 20 m, backs off to 12 m and is declared stuck there; drives on to 22 m (10 m past
    # where the event fired, 2 m past its best) and stalls again: still the first stall
    t, x, y, s, events = trace(
        [(10, 4.0, ()), (4, -4.0, ()), (6, 0.0, {5}), (5, 4.0, ()), (6, 0.0, {5})]
    )
    assert x.max() == pytest.approx(22.0)
    counts = stall_counts(t, x, y, s, events)
    assert (counts.events, counts.episodes) == (2, 1)


def test_rates_by_hand():
    # 60 frames of 0.5 s at 2 m/s (60 m, 30 s), a 30 s stall with 10 events (one episode), then
    # 60 frames more (60 m, 30 s): 120 m and 90 s in all
    t, x, y, s, events = trace([(60, 2.0, ()), (60, 0.0, set(range(5, 60, 6))), (60, 2.0, ())])
    counts = stall_counts(t, x, y, s, events, ended="time_limit")
    assert counts.driving_km == pytest.approx(0.120, rel=1e-12)
    assert counts.driving_minutes == pytest.approx(1.5, rel=1e-12)
    assert counts.episodes == 1 and counts.events == 10
    assert counts.episodes_per_km == pytest.approx(1 / 0.120)
    assert counts.episodes_per_minute == pytest.approx(1 / 1.5)
    assert counts.events_per_km == pytest.approx(10 / 0.120)
    assert counts.events_per_minute == pytest.approx(10 / 1.5)
    assert counts.timed_out


def test_only_the_counted_frames_count():
    # frames after ``end`` (the arrival) are neither driving nor stalls
    t, x, y, s, events = trace([(20, 3.0, ()), (12, 0.0, {5, 11})])
    counts = stall_counts(t, x, y, s, events, end=20)
    assert (counts.events, counts.episodes) == (0, 0)
    assert counts.driving_km == pytest.approx(20 * 3.0 * DT / 1000.0)
    assert counts.driving_minutes == pytest.approx(20 * DT / 60.0)
    assert not counts.timed_out


def test_a_diagonal_trajectory_is_measured_along_itself():
    # 3-4-5 steps: 10 steps of 5 m
    t = np.arange(11.0)
    x = 3.0 * np.arange(11.0)
    y = 4.0 * np.arange(11.0)
    counts = stall_counts(t, x, y, np.zeros(11), np.zeros(11, dtype=bool))
    assert counts.driving_km == pytest.approx(0.050)


def test_no_exposure():
    counts = stall_counts([0.0], [1.0], [2.0], [0.0], [False])
    assert counts == StallCounts(0, 0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, False)
    # stalled at the spawn: events without distance
    t = DT * np.arange(13)
    events = np.zeros(13, dtype=bool)
    events[[6, 12]] = True
    counts = stall_counts(t, np.zeros(13), np.zeros(13), np.zeros(13), events)
    assert counts.episodes == 1 and counts.events == 2
    assert counts.episodes_per_km == math.inf
    assert counts.episodes_per_minute == pytest.approx(1 / (12 * DT / 60.0))


@st.composite
def traces(draw):
    n = draw(st.integers(1, 80))
    steps = draw(st.lists(st.floats(-3.0, 6.0), min_size=n - 1, max_size=n - 1))
    events = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    s = np.concatenate(([0.0], np.cumsum(steps)))
    return np.arange(n, dtype=float), s, np.array(events)


@given(traces(), st.floats(0.5, 20.0))
def test_episodes_are_bounded_by_events(drawn, distance):
    t, s, events = drawn
    counts = stall_counts(t, s, np.zeros_like(s), s, events, distance=distance)
    assert counts.events == int(events.sum())
    assert counts.episodes <= counts.events
    assert (counts.episodes >= 1) == (counts.events >= 1)


@given(traces())
def test_a_longer_distance_never_counts_more_episodes(drawn):
    t, s, events = drawn
    short = stall_counts(t, s, s, s, events, distance=1.0).episodes
    long = stall_counts(t, s, s, s, events, distance=10.0).episodes
    assert long <= short


def test_from_a_driven_trial():
    from steerlab.trials.trial import TrialSpec, simulate_trial

    row, records = simulate_trial(TrialSpec("table1", "s_bends", "storm", "ours", 0))
    counts = trial_stalls(records, row["ended"])
    assert counts.events == row["stuck_events"]
    assert counts.driving_km == pytest.approx(row["distance"] / 1000.0, rel=1e-12)
    assert counts.timed_out == (row["ended"] == "time_limit")


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"t": [0.0, 0.0, 1.0]}, "t must increase"),
        ({"x": [0.0, math.nan, 1.0]}, r"x\[1\] must be finite"),
        ({"s": [0.0, 1.0]}, "same length"),
        ({"stuck_event": [0.0, 0.5, 1.0]}, "stuck_event"),
        ({"end": 3}, "end must be"),
        ({"end": True}, "end must be"),
        ({"ended": "crashed"}, "ended must be one of"),
        ({"distance": 0.0}, "distance must be"),
        ({"distance": math.inf}, "distance must be"),
    ],
)
def test_bad_input_names_the_argument(change, match):
    arguments = {
        "t": [0.0, 1.0, 2.0],
        "x": [0.0, 1.0, 2.0],
        "y": [0.0, 0.0, 0.0],
        "s": [0.0, 1.0, 2.0],
        "stuck_event": [False, False, True],
    }
    arguments.update(change)
    keywords = {key: arguments.pop(key) for key in ("end", "ended", "distance") if key in arguments}
    with pytest.raises(ValueError, match=match):
        stall_counts(*arguments.values(), **keywords)


def test_an_empty_trace_is_refused():
    with pytest.raises(ValueError, match="t must hold at least one frame"):
        stall_counts([], [], [], [], [])
