"""Stall episodes and exposure of one trial: how often a vehicle stalls, per km and per minute.

The observer (``steerlab.trials.observer``) declares a stuck event every ``STUCK_WINDOW = 3 s``
without ``STUCK_DISTANCE = 1 m`` of progress: one long stall is many events (20 to 40 in a
minute against a slope). Table I version 2 reports **episodes** beside them: a stall
counted once however long it lasts, and both as rates of the driving they happened in.

Episode rule (``EPISODE_DISTANCE``), on the observer's per-frame progress ``s`` (the tracked arc
length, ``FrameMetrics.s``) and its stuck events (``FrameMetrics.stuck_event``), frames ``0 ..
end``:

- an episode **starts** at a stuck event when no episode is open; its anchor is the best
  progress reached so far, ``max(s[0 .. i])`` at the event's frame ``i``;
- it **closes** at the first later frame whose progress is at least ``anchor +
  EPISODE_DISTANCE``: the vehicle has driven past the place where it stalled. Stuck events while
  it is open belong to it (a vehicle that backs off, comes back and stalls at the same place
  again is still in the same stall);
- a frame is checked for closing before it is checked for an event, so an event on the frame
  that closes an episode starts the next one.

``EPISODE_DISTANCE = 5 m``, declared with its reasons before any result: more than the
observer's own ``d = 1 m``, so the progress that ends an event's window cannot end the episode by
itself; five such windows of progress, so resuming is sustained driving (at ``v_min = 1 m/s``, 5 s,
more than the 3 s window), not a lurch; about a vehicle length (the presets' bodies are 3 to 8.7
m long), so a vehicle that has gone that far past its best has cleared what stopped it.

Exposure, over the counted frames ``0 .. end`` (a trial ends at arrival):

- ``driving_km``: the length of the trajectory (the observer's ``distance``, the polyline of the
  positions) in km;
- ``driving_minutes``: the time driven, ``t[end] - t[0]``, in minutes (what the trial ran, not
  the time limit the observer charges an uncompleted trial);
- rates ``count / exposure``, 0 when both are 0, ``inf`` for events without exposure (a vehicle
  stalled at its spawn). Across trials, sum the counts and the exposures and divide once (a mean
  of per-trial rates weighs a short trial like a long one).

``timed_out``: the trial ended at its time limit (``DrivenTrial.ended == "time_limit"``),
reported beside the rates: a stall that lasts to the limit is one episode, and its trial's
exposure stops there.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from steerlab._checks import as_float_array, check_index
from steerlab._jit import kernel
from steerlab.trials.observer import trajectory_length

__all__ = [
    "ENDINGS",
    "EPISODE_DISTANCE",
    "StallCounts",
    "judged_stalls",
    "rate",
    "stall_counts",
    "trial_stalls",
]

EPISODE_DISTANCE = 5.0  # [m] progress past the best before a stall that closes it (docstring)

ENDINGS = ("arrived", "time_limit", "stopped_short", "failed")
"""How a trial may end (``steerlab.trials.trial.DrivenTrial.ended``)."""


class StallCounts(NamedTuple):
    """Stalls of one trial and the driving they happened in (module docstring)."""

    episodes: int  # stall episodes
    events: int  # the observer's stuck events (paper-style)
    driving_km: float  # [km] length of the trajectory
    driving_minutes: float  # [min] time driven
    episodes_per_km: float  # [1/km]
    episodes_per_minute: float  # [1/min]
    events_per_km: float  # [1/km]
    events_per_minute: float  # [1/min]
    timed_out: bool  # the trial ended at its time limit


@kernel
def _episodes(s, stuck_event, end, distance):
    """``(episodes, events)`` over frames ``0 .. end`` by the module docstring's rule."""
    episodes = 0
    events = 0
    best = -math.inf
    anchor = 0.0
    open_episode = False
    for i in range(end + 1):
        best = max(best, s[i])
        if open_episode and s[i] >= anchor + distance:
            open_episode = False
        if stuck_event[i]:
            events += 1
            if not open_episode:
                episodes += 1
                anchor = best
                open_episode = True
    return episodes, events


def rate(count: float, exposure: float) -> float:
    """``count / exposure``; 0 when both are 0, ``inf`` for counts without exposure (module
    docstring). Across trials, sum the counts and the exposures first."""
    if exposure > 0.0:
        return count / exposure
    return 0.0 if count == 0 else math.inf


def _array(name: str, values, dtype) -> np.ndarray:
    if dtype is np.bool_:  # flags: booleans, or the integers 0 and 1
        try:
            raw = np.asarray(values)
        except (TypeError, ValueError):
            raw = np.asarray(None)
        flags = raw.dtype.kind == "b" or (raw.dtype.kind in "iu" and np.isin(raw, (0, 1)).all())
        if not flags:
            raise ValueError(f"{name} must be a 1-D array of booleans (or 0 and 1), got {values!r}")
        array = raw.astype(np.bool_)
    else:
        array = as_float_array(name, values, "a 1-D array of numbers", copy=True)
    if array.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {array.shape}")
    if dtype is not np.bool_:
        finite = np.isfinite(array)
        if not finite.all():
            index = int(np.argmin(finite))
            raise ValueError(f"{name}[{index}] must be finite, got {array[index]!r}")
    return array


def stall_counts(
    t,
    x,
    y,
    s,
    stuck_event,
    *,
    end: int | None = None,
    ended: str = "arrived",
    distance: float = EPISODE_DISTANCE,
) -> StallCounts:
    """Stall episodes, stuck events and exposure of one trial (module docstring).

    Parameters
    ----------
    t : array_like, shape (n,)
        Frame times [s], increasing; frame 0 is the spawn.
    x, y : array_like, shape (n,)
        Positions [m].
    s : array_like, shape (n,)
        The observer's progress [m] (``FrameMetrics.s``).
    stuck_event : array_like of bool, shape (n,)
        The observer's stuck events (``FrameMetrics.stuck_event``); ``0`` / ``1`` are taken.
    end : int, optional
        The last counted frame (``FrameMetrics.end``); default the last frame.
    ended : str, optional
        How the trial ended (``ENDINGS``); ``"time_limit"`` sets ``timed_out``.
    distance : float, optional
        [m] the progress past the best that closes an episode (default ``EPISODE_DISTANCE``).

    Raises
    ------
    ValueError
        Arrays of different lengths, empty, not 1-D, not finite; ``t`` not increasing;
        ``stuck_event`` not booleans; ``end`` outside ``[0, n)``; ``ended`` not one of
        ``ENDINGS``; ``distance`` not ``> 0`` and finite. Each message names the argument.
    """
    times = _array("t", t, np.float64)
    xs = _array("x", x, np.float64)
    ys = _array("y", y, np.float64)
    progress = _array("s", s, np.float64)
    try:
        events = np.asarray(stuck_event)
    except (TypeError, ValueError):
        events = np.array([None])  # refused below
    booleans = events.dtype == np.bool_ or (
        events.dtype.kind in "iu" and np.isin(events, (0, 1)).all()
    )
    if events.size and not booleans:
        raise ValueError(f"stuck_event must be a 1-D array of booleans, got {stuck_event!r}")
    events = events.astype(np.bool_)
    events = _array("stuck_event", events, np.bool_)
    sizes = [array.size for array in (times, xs, ys, progress, events)]
    if len(set(sizes)) != 1:
        raise ValueError(f"t, x, y, s, stuck_event must have the same length, got {sizes}")
    count = sizes[0]
    if count == 0:
        raise ValueError("t must hold at least one frame (the spawn), got 0")
    steps = np.diff(times)
    if (steps <= 0.0).any():
        index = int(np.argmax(steps <= 0.0)) + 1
        raise ValueError(
            f"t must increase, got t[{index}] = {times[index]!r} after {times[index - 1]!r}"
        )
    last = count - 1 if end is None else check_index("end", end, count, "a frame index")
    if not isinstance(ended, str) or ended not in ENDINGS:
        raise ValueError(f"ended must be one of {list(ENDINGS)}, got {ended!r}")
    if (
        isinstance(distance, bool)
        or not isinstance(distance, int | float | np.integer | np.floating)
        or not (0.0 < float(distance) < math.inf)
    ):
        raise ValueError(f"distance must be a number > 0 and finite, got {distance!r}")
    return judged_stalls(
        progress,
        events,
        last,
        trajectory_length(xs, ys, last),
        float(times[last] - times[0]),
        ended,
        float(distance),
    )


def judged_stalls(
    s: np.ndarray,
    stuck_event: np.ndarray,
    end: int,
    metres: float,
    seconds: float,
    ended: str,
    distance: float = EPISODE_DISTANCE,
) -> StallCounts:
    """``stall_counts``' last step: the episodes and events of frames ``0 .. end`` of the
    observer's judgements ``s`` (float64) and ``stuck_event`` (bool), over the exposure
    ``metres`` (``observer.trajectory_length``) and ``seconds`` (``t[end] - t[0]``). Checks
    nothing."""
    episodes, event_count = _episodes(s, stuck_event, end, distance)
    episodes, event_count = int(episodes), int(event_count)
    kilometres = metres / 1000.0
    minutes = seconds / 60.0
    return StallCounts(
        episodes=episodes,
        events=event_count,
        driving_km=kilometres,
        driving_minutes=minutes,
        episodes_per_km=rate(episodes, kilometres),
        episodes_per_minute=rate(episodes, minutes),
        events_per_km=rate(event_count, kilometres),
        events_per_minute=rate(event_count, minutes),
        timed_out=ended == "time_limit",
    )


def trial_stalls(records, ended: str, distance: float = EPISODE_DISTANCE) -> StallCounts:
    """``stall_counts`` of a driven trial: its ``TrialRecords`` (positions, times and the
    observer's ``metrics``) and how it ended (``DrivenTrial.ended``)."""
    frames = getattr(records, "metrics", None)
    if frames is None or not hasattr(frames, "stuck_event"):
        raise ValueError(f"records must be a trial's TrialRecords, got {records!r}")
    return stall_counts(
        records.t,
        records.x,
        records.y,
        frames.s,
        frames.stuck_event,
        end=frames.end,
        ended=ended,
        distance=distance,
    )
