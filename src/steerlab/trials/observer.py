"""Per-trial metrics of seed 001's Table I, from per-frame records, judged by one fixed observer.

Seed 001, Section III: "During each frame, we recorded the cross track error, and indicators
whether the vehicle is inside the path corridor and whether the vehicle is stuck." Table I then
reports, per follower, stuck trials (at least one stuck event), stuck events, the mean cross-track
error, the time inside the corridor, the total time and the mean speed.

Records: frame times ``t`` [s] (frame 0 is the spawn), positions ``x, y`` [m] and ground speeds
``speed`` [m/s], and the path (a ``Polyline`` with corridor widths; heights are ignored, as by
the follower). ``trial_metrics`` computes, frame by frame (``FrameMetrics``):

- **cross-track error**: the signed distance to the path polyline in the ground plane (the
  nearest point of the whole path, ``Polyline.project``'s rules; on a hairpin whose legs are
  close that may be the other leg: the distance to the path, as the paper's words say);
- **inside**: ``|cross-track error| <= width / 2``, the full corridor width of the segment of that
  nearest point (a path without widths is never left);
- **progress** ``s``: the arc length of the vehicle's projection, *tracked* the way the follower
  tracks it, on the arc ``[s - 2 m, s + 20 m]`` around the previous frame's ``s``
  (``FollowerParams``' default ``projection_back`` / ``projection_ahead``), starting from ``s = 0``
  (a trial starts at the path's start, so a path whose end passes near its start is not judged
  finished at frame 0): a hairpin's other leg never counts as progress;
- **stuck events**: the follower's own stuck rule (``steerlab.follower.stuck._stuck_check``, the
  same kernel, not a copy) run as an *observer* with fixed settings, the ``FollowerParams``
  defaults ``d = 1 m``, ``w = 3 s``, on that progress: a stuck event whenever ``w`` seconds pass
  with less than ``d`` metres of progress since the window's anchor, then a new window. The
  observer has no recovery phase (``recovery_frames = 0``): it only watches. Every follower is
  judged by it, whatever its own stuck manager's settings, so tuning cannot hide stuck events
  (a follower whose own window is longer is still seen stuck every 3 s it makes no progress);
- **arrived**: the follower's arrival rule (``steerlab.follower.follower._arrived``) with the fixed
  radius ``ARRIVAL_RADIUS = 2 m`` (``FollowerParams``' default): within 2 m of the last waypoint
  (and of arc length from the end), or past the plane through it normal to the last segment.

A trial ends at its first arrived frame: frames after it are not counted. Per trial
(``TrialMetrics``): ``completed`` (arrived within the time limit), ``stuck_events`` and ``stuck``
(``>= 1``), ``cte_mean`` (mean ``|cross-track error|``), ``inside_corridor`` (per cent of the
frames inside), ``speed_mean`` (mean of the frames' ground speeds), ``distance`` (the polyline
length of the trajectory) over frames ``0 .. end`` (``end`` the arrival frame, else the last
frame), and ``time``:

- **total time** of a completed trial is the arrival time ``t[end] - t[0]``;
- of an uncompleted trial it is the **time limit** (the trial ran that long, or would have: a
  trial that failed early or whose follower stopped short is charged the whole limit). This keeps
  "time" comparable across followers: giving up early never looks fast. Without a time limit it is
  the recorded duration.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from steerlab._checks import check_index
from steerlab._jit import kernel
from steerlab._sums import numpy_sum
from steerlab.follower.follower import _arrived
from steerlab.follower.params import FollowerParams, StuckParams
from steerlab.follower.stuck import StuckMemory, _stuck_check
from steerlab.follower.target_point import _project_window
from steerlab.geometry import Polyline, planar_polyline
from steerlab.geometry.kernels import project

__all__ = [
    "ARRIVAL_RADIUS",
    "OBSERVER",
    "PROJECTION_AHEAD",
    "PROJECTION_BACK",
    "STUCK_DISTANCE",
    "STUCK_WINDOW",
    "FrameMetrics",
    "ObserverSettings",
    "TrialMetrics",
    "check_observer",
    "half_widths",
    "planar_path",
    "reduce_frames",
    "trajectory_length",
    "trial_metrics",
]

_DEFAULTS = FollowerParams()
STUCK_DISTANCE = _DEFAULTS.stuck_distance  # [m] d of the observer (FollowerParams default)
STUCK_WINDOW = _DEFAULTS.stuck_window  # [s] w of the observer
ARRIVAL_RADIUS = _DEFAULTS.arrival_radius  # [m] the trial's end (FollowerParams default)
PROJECTION_BACK = _DEFAULTS.projection_back  # [m] tracked projection: arc searched behind ...
PROJECTION_AHEAD = _DEFAULTS.projection_ahead  # [m] ... and ahead of the last frame's s


class ObserverSettings(NamedTuple):
    """The observer's fixed settings (module docstring); the defaults are Table I's.

    A benchmark of vehicles of another size (``steerlab.experiments.benchmark.external``: a 0.3 m
    RC car) gives
    its own, the same for every follower it compares.
    """

    stuck_distance: float = STUCK_DISTANCE  # [m] d
    stuck_window: float = STUCK_WINDOW  # [s] w
    arrival_radius: float = ARRIVAL_RADIUS  # [m]
    projection_back: float = PROJECTION_BACK  # [m]
    projection_ahead: float = PROJECTION_AHEAD  # [m]


OBSERVER = ObserverSettings()
"""Table I's observer."""


class FrameMetrics(NamedTuple):
    """Per-frame judgements (arrays of the records' length; frames after ``end`` are not set)."""

    s: np.ndarray  # [m] tracked arc length of the projection (the progress)
    cross_track: np.ndarray  # [m] signed distance to the path, left of travel positive
    inside: np.ndarray  # bool: |cross_track| <= width / 2
    stuck_event: np.ndarray  # bool: the observer declares a stuck event at this frame
    end: int  # index of the last counted frame (the arrival frame, else the last frame)


class TrialMetrics(NamedTuple):
    """The per-trial figures of Table I (module docstring for each definition)."""

    completed: bool  # arrived within the time limit
    stuck_events: int
    stuck: bool  # stuck_events >= 1
    cte_mean: float  # [m] mean |cross-track error|
    inside_corridor: float  # [%] share of frames inside the corridor
    time: float  # [s] arrival time, or the time limit when not completed
    speed_mean: float  # [m/s] mean ground speed over the frames
    distance: float  # [m] distance driven
    frames: int  # steps recorded (len(t) - 1)


# --------------------------------------------------------------------------------------------------
# kernels


@kernel
def _tracked_projection(points, cum, x, y, s_last, segment_last, back, ahead):
    """``(s, segment)``: the projection of ``(x, y)`` on the arc ``[s_last - back, s_last +
    ahead]`` around the last frame's (``_project_window``, the follower's kernel)."""
    s, _, _, _, segment = _project_window(
        points, cum, x, y, 0.0, s_last - back, s_last + ahead, segment_last
    )
    return s, segment


@kernel
def _observer_arrived(points, cum, x, y, s_last, segment_last, back, ahead, radius):
    """One frame of the trial's end test: ``(s, segment, arrived)`` (``_tracked_projection``,
    then the follower's ``_arrived`` rule with ``radius``)."""
    s, segment = _tracked_projection(points, cum, x, y, s_last, segment_last, back, ahead)
    return s, segment, _arrived(points, cum, x, y, s, radius)


@kernel
def _observer_frame(
    points, cum, half_widths, x, y, s_last, segment_last, stuck, first, frame_time, settings
):
    """The observer's judgements of one frame at ``(x, y)``: ``(s, segment, arrived,
    cross_track, inside, stuck, event)``.

    ``s_last``, ``segment_last`` the last frame's tracked projection (``0, 0`` before the first
    frame); ``stuck`` the observer's ``StuckMemory``, returned updated; ``first``: the trial's
    first frame (no stuck check: no progress to judge yet); ``frame_time`` [s] the time since the
    last frame; ``points``, ``cum``, ``half_widths`` and ``settings`` as ``_frame_metrics``'.
    """
    stuck_distance, stuck_window, arrival_radius, back, ahead = settings
    # no recovery (an observer only watches), never a teleport
    rule = StuckParams(stuck_distance, stuck_window, 0, 0)
    s, segment, arrived = _observer_arrived(
        points, cum, x, y, s_last, segment_last, back, ahead, arrival_radius
    )
    _, _, _, _, nearest, cross_track = project(points, cum, x, y, 0.0)
    inside = abs(cross_track) <= half_widths[nearest]
    event = False
    if not first:
        stuck, event, _, _ = _stuck_check(s - s_last, True, stuck, rule, frame_time)
    return s, segment, arrived, cross_track, inside, stuck, event


@kernel(inline="never")
def _frame_metrics(
    points,
    cum,
    half_widths,
    t,
    x,
    y,
    settings,
    out_s,
    out_cross_track,
    out_inside,
    out_stuck,
):
    """Fill the per-frame arrays (``_observer_frame`` frame by frame); return ``(end,
    arrived)``: the index of the last counted frame and whether the vehicle arrived there.

    ``points`` ``(n, 3)`` with ``z = 0`` and ``cum`` (planar arc length); ``half_widths`` per
    segment (``inf``: no corridor); ``settings = (stuck_distance, stuck_window, arrival_radius,
    projection_back, projection_ahead)``. Stops at the first arrived frame.
    """
    stuck = StuckMemory(0.0, 0.0, 0.0, 0, 0, 0)  # (numba reads no defaults)
    s_last = 0.0  # a trial starts at the path's start
    segment_last = 0
    end = t.size - 1
    arrived = False
    for i in range(t.size):
        frame_time = t[i] - t[i - 1] if i > 0 else 0.0
        s, segment, arrived, cross_track, inside, stuck, event = _observer_frame(
            points,
            cum,
            half_widths,
            x[i],
            y[i],
            s_last,
            segment_last,
            stuck,
            i == 0,
            frame_time,
            settings,
        )
        out_s[i] = s
        out_cross_track[i] = cross_track
        out_inside[i] = inside
        out_stuck[i] = event
        s_last = s
        segment_last = segment
        if arrived:
            end = i
            break
    return end, arrived


# --------------------------------------------------------------------------------------------------
# public functions


def planar_path(path) -> Polyline:
    """The path in the ground plane (``steerlab.geometry.planar_polyline``: heights dropped,
    widths kept); ``ValueError`` if it is not a ``Polyline`` with at least two distinct points in
    the plane."""
    if not isinstance(path, Polyline):
        raise ValueError(f"path must be a Polyline, got {path!r}")
    return planar_polyline(path, name="path in the ground plane")


def check_observer(observer) -> ObserverSettings:
    """Validate an ``ObserverSettings``; return it with float fields (``ValueError`` naming the
    field otherwise)."""
    if not isinstance(observer, ObserverSettings):
        raise ValueError(f"observer must be an ObserverSettings, got {observer!r}")
    values = []
    for name, value in zip(ObserverSettings._fields, observer, strict=True):
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"observer.{name} must be a number, got {value!r}") from None
        low_ok = number >= 0.0 if name == "projection_back" else number > 0.0
        if not (low_ok and math.isfinite(number)):
            bound = ">= 0" if name == "projection_back" else "> 0"
            raise ValueError(f"observer.{name} must be {bound} and finite, got {value!r}")
        values.append(number)
    return ObserverSettings(*values)


def _records(t, x, y, speed) -> tuple[np.ndarray, ...]:
    arrays = []
    for name, values in (("t", t), ("x", x), ("y", y), ("speed", speed)):
        try:
            array = np.array(values, dtype=np.float64)  # a fresh, writable copy: one signature
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be a 1-D array of numbers, got {values!r}") from None
        if array.ndim != 1:
            raise ValueError(f"{name} must be 1-D, got shape {array.shape}")
        finite = np.isfinite(array)
        if not finite.all():
            index = int(np.argmin(finite))
            raise ValueError(f"{name}[{index}] must be finite, got {array[index]!r}")
        arrays.append(array)
    if len({array.size for array in arrays}) != 1:
        raise ValueError(
            f"t, x, y, speed must have the same length, got {[a.size for a in arrays]}"
        )
    if arrays[0].size == 0:
        raise ValueError("t must hold at least one frame (the spawn), got 0")
    steps = np.diff(arrays[0])
    if (steps <= 0.0).any():
        index = int(np.argmax(steps <= 0.0)) + 1
        raise ValueError(
            f"t must increase, got t[{index}] = {arrays[0][index]!r} after {arrays[0][index - 1]!r}"
        )
    return tuple(arrays)


def trial_metrics(
    path, t, x, y, speed, time_limit=None, observer: ObserverSettings = OBSERVER
) -> tuple[TrialMetrics, FrameMetrics]:
    """Table I's figures of one trial, and the per-frame judgements (module docstring).

    Parameters
    ----------
    path : Polyline
        The path followed, with its corridor widths (``None``: no corridor, always inside).
    t : array_like, shape (n,)
        Frame times [s], increasing; frame 0 is the spawn.
    x, y : array_like, shape (n,)
        Vehicle positions [m] (the centre of mass).
    speed : array_like, shape (n,)
        Ground speeds [m/s] (``VehicleState.speed``).
    time_limit : float, optional
        [s] the trial's limit, counted from ``t[0]``: a trial that has not arrived by then is not
        completed and its time is the limit. ``None``: no limit.
    observer : ObserverSettings, optional
        The observer's settings (default ``OBSERVER``, Table I's: every module constant above).

    Raises
    ------
    ValueError
        Arrays of different lengths, empty, not finite, or ``t`` not increasing; ``path`` not a
        ``Polyline``; ``time_limit`` not ``> 0``; ``observer`` not an ``ObserverSettings`` of
        positive finite numbers (``projection_back`` may be 0).
    """
    planar = planar_path(path)
    observer = check_observer(observer)
    times, xs, ys, speeds = _records(t, x, y, speed)
    if time_limit is not None:
        limit = float(time_limit)
        if not limit > 0.0:
            raise ValueError(f"time_limit must be > 0, got {time_limit!r}")
    count = times.size
    frames = FrameMetrics(
        np.full(count, math.nan),
        np.full(count, math.nan),
        np.zeros(count, dtype=np.bool_),
        np.zeros(count, dtype=np.bool_),
        0,
    )
    end, arrived = _frame_metrics(
        planar.points_3d,
        planar.cumulative_length,
        half_widths(planar),
        times,
        xs,
        ys,
        tuple(observer),
        frames.s,
        frames.cross_track,
        frames.inside,
        frames.stuck_event,
    )
    frames = frames._replace(end=int(end))
    return reduce_frames(times, xs, ys, speeds, frames, bool(arrived), time_limit), frames


def half_widths(planar: Polyline) -> np.ndarray:
    """Half the corridor width of each segment of a path in the ground plane (``planar_path``),
    ``inf`` where it has no widths: what the observer's ``inside`` compares ``|cross_track|``
    with."""
    widths = planar.widths
    halves = np.full(planar.segment_count, math.inf) if widths is None else 0.5 * np.asarray(widths)
    return np.ascontiguousarray(halves, dtype=np.float64)


@kernel
def _trajectory_length(x, y, end):
    """[m] ``np.hypot(np.diff(x[: end + 1]), np.diff(y[: end + 1])).sum()``, bit for bit: C's
    ``hypot`` of each step (numpy's and numba's), summed in numpy's order (``numpy_sum``)."""
    steps = np.empty(end)
    for i in range(end):
        steps[i] = math.hypot(x[i + 1] - x[i], y[i + 1] - y[i])
    return numpy_sum(steps, 0, end)


@kernel
def _frame_sums(x, y, speed, cross_track, inside, stuck_event, end):
    """``(events, cte_sum, inside_count, speed_sum, distance)`` over frames ``0 .. end``: the sums
    ``reduce_frames`` divides, each what numpy's reduction of the same frames gives, bit for bit
    (``numpy_sum``; counts are exact in either order). One compiled pass instead of a dozen numpy
    calls: a batch of trials makes its rows while its next trials run."""
    count = end + 1
    magnitudes = np.empty(count)
    events = 0
    inside_count = 0
    for i in range(count):
        magnitudes[i] = abs(cross_track[i])
        events += 1 if stuck_event[i] else 0
        inside_count += 1 if inside[i] else 0
    return (
        events,
        numpy_sum(magnitudes, 0, count),
        inside_count,
        numpy_sum(speed, 0, count),
        _trajectory_length(x, y, end),
    )


def trajectory_length(x: np.ndarray, y: np.ndarray, end: int) -> float:
    """[m] The length of the polyline through the positions of frames ``0 .. end``:
    ``np.hypot(np.diff(x), np.diff(y)).sum()`` over them. ``x``, ``y`` 1-D float64 arrays.

    Raises ``ValueError`` if ``end`` is not a frame of both (the sum is compiled: it reads
    frames ``0 .. end`` without bounds checks)."""
    x, y = _contiguous(x), _contiguous(y)
    return float(_trajectory_length(x, y, _frame_index(end, x, y)))


def _contiguous(values: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(values, dtype=np.float64)


def _frame_index(end, *arrays: np.ndarray) -> int:
    """``end`` as an int, once it is a frame of every 1-D array given (their shortest length)."""
    frames = min(array.size if array.ndim == 1 else 0 for array in arrays)
    return check_index("end", end, frames, "a frame index")


def reduce_frames(
    t: np.ndarray,
    x: np.ndarray,
    y: np.ndarray,
    speed: np.ndarray,
    frames: FrameMetrics,
    arrived: bool,
    time_limit: float | None,
) -> TrialMetrics:
    """Table I's figures of a trial from its records and the observer's per-frame judgements
    (``trial_metrics``' last step, module docstring) over frames ``0 .. frames.end``: the means
    and the count numpy's reductions give (``np.abs(cross_track).mean()``, ``inside.mean()``,
    ``speed.mean()``, ``stuck_event.sum()``), bit for bit, from one compiled pass
    (``_frame_sums``). ``t``, ``x``, ``y``, ``speed`` 1-D float64 arrays of one length, as
    ``trial_metrics`` checks them; ``frames`` set over frames ``0 .. frames.end`` at least;
    ``arrived``: the vehicle arrived at frame ``frames.end``; ``time_limit`` [s] (``> 0``) or
    ``None``. Checks only that ``frames.end`` is a frame of every array (``ValueError``: the
    sums are compiled, without bounds checks)."""
    x, y, speed = _contiguous(x), _contiguous(y), _contiguous(speed)
    cross_track = _contiguous(frames.cross_track)
    inside = np.ascontiguousarray(frames.inside, dtype=np.bool_)
    stuck_event = np.ascontiguousarray(frames.stuck_event, dtype=np.bool_)
    end = _frame_index(frames.end, np.asarray(t), x, y, speed, cross_track, inside, stuck_event)
    duration = float(t[end] - t[0])
    if time_limit is not None:
        time_limit = float(time_limit)
    completed = arrived and (time_limit is None or duration <= time_limit)
    if completed:
        total_time = duration
    elif time_limit is not None:
        total_time = time_limit
    else:
        total_time = float(t[-1] - t[0])
    events, cte_sum, inside_count, speed_sum, distance = _frame_sums(
        x, y, speed, cross_track, inside, stuck_event, end
    )
    count = end + 1
    return TrialMetrics(
        completed=bool(completed),
        stuck_events=int(events),
        stuck=events > 0,
        cte_mean=float(cte_sum / count),
        inside_corridor=float(100.0 * (inside_count / count)),
        time=total_time,
        speed_mean=float(speed_sum / count),
        distance=float(distance),
        frames=t.size - 1,
    )
