"""The path followers of seed 001: the five modules of Figure 2 composed, one vehicle or many.

Seed 001, Figure 2, "Core modules of the proposed path follower": target speed generation,
target point generation, speed control, steering control and stuck manager. ``_follow`` is one
frame of the follower, a chain of named sub-steps, each its own kernel (``docs/design.md``;
``../shared/STYLE.md``)::

    projection   -> s                    (target_point._project_window, or the whole path)
    target_speed -> v_target             (target_speed._target_speed: Algorithm 1; or
                                          baseline._baseline_target_speed; then _end_speed;
                                          or regulated._regulated_pure_pursuit)
    speed_control -> throttle            (speed_control._pi_speed: PI, or P for the baseline)
    stuck_check  -> recovering, teleport (stuck._stuck_check)
    target_point -> (x_t, y_t)           (target_point._target_point; regulated: its carrot)
    steering     -> steer                (steering._steering: pure pursuit / heading error;
                                          stanley._stanley_steering; regulated: pure pursuit)
    override     -> command              (stuck._recovery_command)

``mode`` picks the modules: ``BEZIER`` (seed 001's follower), ``BASELINE`` (its baseline),
``STANLEY`` (Algorithm 1 speed, Stanley steering) and ``REGULATED`` (regulated pure pursuit:
carrot, its own speed law and pure pursuit, one call of ``regulated._regulated_pure_pursuit``
since its speed reads its steering arc), the last two the peers of issue 7. The stuck check
comes before the steering because Stanley's reversing law depends on whether the stuck manager
is recovering; the check reads neither command, so the order changes no result.

``PathFollower.step(state, dt)`` calls it once; ``step_batch(batch, dt)`` calls it in ``prange``
over vehicles, each on its own path (ragged paths packed: points concatenated, ``first`` /
``count`` per vehicle), with the same bits. The follower works in the ground plane: paths may be
2-D or 3-D, their heights are dropped (``VehicleState`` has none); ``target_speed()`` itself
takes 3-D input.

End of the path (not in the paper, whose trials end at the final waypoint): the target speed is
capped so the vehicle reaches the end at ``v_min`` (``FollowerParams.stop_decel``); the follower
has *arrived* (latched until the path changes) within ``arrival_radius`` of the last waypoint
(and of arc length from the end) or once past the plane through it normal to the last segment;
then it commands zero speed (P control, braking) and straight wheels, and the stuck manager
stops checking. Regulated pure pursuit has its own approach slow-down instead of the cap.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numba
import numpy as np

from steerlab._checks import check_timestep
from steerlab._jit import batch_kernel, kernel
from steerlab.follower.baseline import _baseline_target_speed
from steerlab.follower.params import (
    FollowerParams,
    check_axles,
    check_follower_params,
    check_vehicle_params,
)
from steerlab.follower.regulated import _regulated_pure_pursuit
from steerlab.follower.speed_control import _pi_speed
from steerlab.follower.stanley import _stanley_steering
from steerlab.follower.steering import _steering
from steerlab.follower.stuck import _recovery_command, _stuck_check
from steerlab.follower.target_point import _lookahead_distance, _project_window, _target_point
from steerlab.follower.target_speed import _end_speed, _target_speed
from steerlab.geometry.kernels import heading_at, project, sincos
from steerlab.geometry.polyline import Polyline, planar_polyline
from steerlab.vehicles.state import DriveCommand, VehicleBatch, VehicleState, check_vehicle_state

__all__ = [
    "BaselineFollower",
    "FollowerBatchOutput",
    "FollowerInfo",
    "FollowerMemory",
    "PathFollower",
    "RegulatedPurePursuitFollower",
    "StanleyFollower",
    "StuckEvent",
    "TeleportRequest",
]

# the follower's modules (``_follow``'s ``mode``): seed 001's follower, its baseline, and the peers
# of issue 7, Stanley steering and regulated pure pursuit
BEZIER, BASELINE, STANLEY, REGULATED = 0, 1, 2, 3


# --------------------------------------------------------------------------------------------------
# kernels


@kernel
def _arrived(points, cum, x, y, s, arrival_radius):
    """At the path end: the projection within ``arrival_radius`` of arc length from the end and
    the vehicle within ``arrival_radius`` of the last waypoint, or the projection on the end and
    the vehicle past the plane through the last waypoint normal to the last segment. (Arc length
    matters: on a closed path the last waypoint is also the first.)"""
    last = cum.size - 1
    if s < cum[last] - arrival_radius:
        return False
    dx = x - points[last, 0]
    dy = y - points[last, 1]
    if dx * dx + dy * dy <= arrival_radius * arrival_radius:
        return True
    if s < cum[last]:
        return False
    end_sin, end_cos = sincos(heading_at(points, cum, cum[last]))
    return dx * end_cos + dy * end_sin >= 0.0


@kernel(inline="serial")
def _follow(
    x,
    y,
    yaw,
    v,
    s_last,
    segment_last,
    previous_x,
    previous_y,
    integral,
    time,
    progress,
    window_time,
    since_stuck,
    recovery,
    failures,
    stuck_count,
    arrived,
    points,
    cum,
    kind,
    wheelbase,
    max_steer,
    front_axle,
    rear_axle,
    params,
    mode,
    dt,
):
    """One frame of the follower for one vehicle (seed 001, Figure 2).

    Vehicle: ``x, y`` [m], ``yaw`` [rad], ``v`` [m/s] (signed forward speed). Memory (see
    ``FollowerMemory``): ``s_last`` (NaN: the path is new), ``segment_last``, ``previous_x,
    previous_y`` (NaN: none), ``integral``, ``time``, ``progress``, ``window_time``,
    ``since_stuck``, ``recovery``, ``failures``, ``stuck_count``, ``arrived``. Path: ``points``
    ``(m, 3)`` with ``z = 0`` and ``cum`` (planar arc length). Vehicle parameters as floats
    (``kind`` 0 wheeled, 1 tracked, 2 hover; ``front_axle``, ``rear_axle`` [m] ahead of and
    behind the position, for Stanley: ``params.check_axles``); ``params`` a ``FollowerParams``;
    ``mode`` ``BEZIER``, ``BASELINE``, ``STANLEY`` or ``REGULATED`` (module docstring).

    Returns ``(steer, throttle, v_target, target_x, target_y, s, stuck_event, recovering,
    teleport, teleport_x, teleport_y, teleport_yaw)`` followed by the thirteen new memory fields in
    ``FollowerMemory`` order.

    Called, not inlined, by the parallel batch build (``kernel(inline="serial")``): inlined,
    the parallel build took 97 s to compile (numba's parfor passes over the whole chain) against
    19 s called, for 15 % of the batch's speed (2.6 -> 2.2 M steps/s per core, measured);
    the bits are the same either way. One build serves every mode (``mode`` is a runtime
    value), so the peers' kernels are compiled with it: the first ``step`` after a cold cache
    went from 12 to 17 s to 19 to 26 s (three alternating runs each on the shared 2-core
    machine), the first parallel ``step_batch`` from about 3 s to 4 to 6 s. The peers' kernels
    are called, not inlined (``stanley._stanley_steering``, ``regulated._regulated_pure_pursuit``):
    inlined, the compile took about 1.8 times the original instead of 1.4 (one run).
    """
    p = params
    time = time + dt
    path_end = cum[cum.size - 1]

    # projection: near the last frame's s; on a new path, on the whole path
    if s_last == s_last:
        s, closest_x, closest_y, closest_z, segment = _project_window(
            points,
            cum,
            x,
            y,
            0.0,
            s_last - p.projection_back,
            s_last + p.projection_ahead,
            segment_last,
        )
        progress_step = s - s_last
    else:
        s, closest_x, closest_y, closest_z, segment, _ = project(points, cum, x, y, 0.0)
        progress_step = 0.0
        if previous_x == previous_x:  # displacement along the new path's direction
            tangent_sin, tangent_cos = sincos(heading_at(points, cum, s))
            progress_step = (x - previous_x) * tangent_cos + (y - previous_y) * tangent_sin

    # regulated pure pursuit: its carrot, its own speed law and its steering, in one call
    regulated_steer = 0.0
    if mode == REGULATED:
        v_target, regulated_steer, target_x, target_y = _regulated_pure_pursuit(
            points,
            cum,
            x,
            y,
            yaw,
            v,
            s,
            wheelbase,
            max_steer,
            p.v_max,
            p.regulated_lookahead_time,
            p.regulated_min_lookahead,
            p.regulated_max_lookahead,
            p.regulated_min_radius,
            p.regulated_min_speed,
            p.regulated_approach_distance,
            p.regulated_approach_min_speed,
        )

    # target speed
    if mode == BASELINE:
        v_target, _ = _baseline_target_speed(
            points, cum, yaw, s, p.baseline_horizon, p.baseline_k, p.v_min, p.v_max
        )
    elif mode != REGULATED:  # BEZIER, STANLEY: Algorithm 1
        v_target, _, _ = _target_speed(
            points,
            cum,
            x,
            y,
            0.0,
            s,
            segment,
            closest_x,
            closest_y,
            closest_z,
            p.a_lat,
            p.dh,
            p.n,
            p.v_min,
            p.v_max,
            points[:0],
        )
    if mode != REGULATED:
        v_target = _end_speed(v_target, path_end - s, p.stop_decel, p.v_min)
    arrived = arrived or _arrived(points, cum, x, y, s, p.arrival_radius)
    v_target = 0.0 if arrived else v_target

    # speed control: PI (P for the baseline, and to brake once arrived)
    integral_time = math.inf if (mode == BASELINE or arrived) else p.ti_speed
    throttle, new_integral = _pi_speed(v_target, v, integral, p.kp_speed, integral_time, dt)

    # stuck check
    (
        progress,
        window_time,
        since_stuck,
        recovery,
        failures,
        stuck_count,
        event,
        teleport,
        recovering,
    ) = _stuck_check(
        progress_step,
        dt,
        progress,
        window_time,
        since_stuck,
        recovery,
        failures,
        stuck_count,
        not arrived,
        p.stuck_distance,
        p.stuck_window,
        p.recovery_frames,
        p.teleport_after,
    )

    # target point: the arc length lookahead ahead of s (seed 001); regulated pure pursuit has
    # its carrot (above), Stanley the closest path point of its steering axle (below)
    if mode in (BEZIER, BASELINE):
        lookahead = _lookahead_distance(v, p.lookahead, p.lookahead_time)
        _, target_x, target_y, _ = _target_point(points, cum, s, segment, lookahead)

    # steering
    if mode == STANLEY:  # the target point reported is the steering axle's closest point
        steer, target_x, target_y = _stanley_steering(
            points,
            cum,
            x,
            y,
            yaw,
            v,
            recovering,
            s,
            p.projection_back + rear_axle,
            p.projection_ahead + front_axle,
            segment,
            front_axle,
            rear_axle,
            p.stanley_gain,
            p.stanley_softening,
            max_steer,
        )
    elif mode == REGULATED:  # pure pursuit towards the carrot, for every kind
        steer = regulated_steer
    else:
        steer = _steering(
            kind,
            x,
            y,
            yaw,
            target_x,
            target_y,
            wheelbase,
            max_steer,
            p.heading_gain,
            p.pure_pursuit_all,
        )
    steer = 0.0 if arrived else steer

    # the stuck manager's override
    steer, throttle = _recovery_command(steer, throttle, recovering)
    new_integral = integral if recovering else new_integral
    teleport_x = math.nan
    teleport_y = math.nan
    teleport_yaw = math.nan
    new_s = s
    new_segment = segment
    new_previous_x = x
    new_previous_y = y
    if teleport:  # to the nearest path point, facing along the path; then start afresh
        teleport_s, teleport_x, teleport_y, _, _, _ = project(points, cum, x, y, 0.0)
        teleport_yaw = heading_at(points, cum, teleport_s)
        steer = 0.0
        throttle = 0.0
        new_integral = 0.0
        new_s = math.nan
        new_segment = 0
        new_previous_x = math.nan
        new_previous_y = math.nan
    return (
        steer,
        throttle,
        v_target,
        target_x,
        target_y,
        s,
        event,
        recovering,
        teleport,
        teleport_x,
        teleport_y,
        teleport_yaw,
        new_s,
        new_segment,
        new_previous_x,
        new_previous_y,
        new_integral,
        time,
        progress,
        window_time,
        since_stuck,
        recovery,
        failures,
        stuck_count,
        arrived,
    )


@batch_kernel(composite=True)
def _follow_batch(
    x,
    y,
    yaw,
    v,
    memory_s,
    memory_segment,
    memory_previous_x,
    memory_previous_y,
    memory_integral,
    memory_time,
    memory_progress,
    memory_window_time,
    memory_since_stuck,
    memory_recovery,
    memory_failures,
    memory_stuck_count,
    memory_arrived,
    points,
    cum,
    first,
    count,
    kind,
    wheelbase,
    max_steer,
    front_axle,
    rear_axle,
    params,
    mode,
    dt,
    out_steer,
    out_throttle,
    out_target_speed,
    out_target_x,
    out_target_y,
    out_s,
    out_stuck_event,
    out_recovering,
    out_teleport,
    out_teleport_x,
    out_teleport_y,
    out_teleport_yaw,
):
    """``_follow`` for every vehicle ``i`` on its packed path ``first[i] : first[i] + count[i]``;
    the memory arrays (``FollowerMemory`` fields) updated in place, results into the ``out_``
    arrays (``FollowerBatchOutput`` fields). Arrays are passed one by one, not in tuples: numba's
    parallel loop loses writes made through arrays unpacked from a tuple argument (numba 0.68,
    measured). The quick build (small batches) and the parallel build call ``_follow``; the
    serial one (large batches on one thread) inlines it: 352 -> 302 ns per vehicle at 1e5 on one
    thread, same bits, for about 40 s more cold compile (measured in one process)."""
    for i in numba.prange(x.size):
        start = first[i]
        stop = start + count[i]
        (
            out_steer[i],
            out_throttle[i],
            out_target_speed[i],
            out_target_x[i],
            out_target_y[i],
            out_s[i],
            out_stuck_event[i],
            out_recovering[i],
            out_teleport[i],
            out_teleport_x[i],
            out_teleport_y[i],
            out_teleport_yaw[i],
            memory_s[i],
            memory_segment[i],
            memory_previous_x[i],
            memory_previous_y[i],
            memory_integral[i],
            memory_time[i],
            memory_progress[i],
            memory_window_time[i],
            memory_since_stuck[i],
            memory_recovery[i],
            memory_failures[i],
            memory_stuck_count[i],
            memory_arrived[i],
        ) = _follow(
            x[i],
            y[i],
            yaw[i],
            v[i],
            memory_s[i],
            memory_segment[i],
            memory_previous_x[i],
            memory_previous_y[i],
            memory_integral[i],
            memory_time[i],
            memory_progress[i],
            memory_window_time[i],
            memory_since_stuck[i],
            memory_recovery[i],
            memory_failures[i],
            memory_stuck_count[i],
            memory_arrived[i],
            points[start:stop],
            cum[start:stop],
            kind,
            wheelbase,
            max_steer,
            front_axle,
            rear_axle,
            params,
            mode,
            dt,
        )


# --------------------------------------------------------------------------------------------------
# records


class FollowerMemory(NamedTuple):
    """What a follower remembers between frames (scalars for ``step``, arrays for a batch).

    Attributes
    ----------
    s : float
        [m] arc length of the last frame's projection on the current path; NaN: the path is new
        (the next frame projects on the whole path).
    segment : int
        The segment of that projection (where the next frame's search starts).
    previous_x, previous_y : float
        [m] the last frame's position (NaN: none); measures progress across a path change.
    integral : float
        [m] the PI integral of the speed error.
    time : float
        [s] the follower's clock since ``reset`` (the stuck log's time).
    progress : float
        [m] progress along the path since the stuck window's anchor.
    window_time : float
        [s] time since the anchor.
    since_stuck : float
        [m] net progress since the last stuck event (a recovery succeeded once it reaches d).
    recovery : int
        Recovery frames left (throttle inverted, steer mirrored).
    failures : int
        Stuck events since the vehicle last got d past one (failed recoveries in a row + 1).
    stuck_count : int
        Stuck events so far.
    arrived : bool
        At the path end (latched until the path changes).
    """

    s: float = math.nan
    segment: int = 0
    previous_x: float = math.nan
    previous_y: float = math.nan
    integral: float = 0.0
    time: float = 0.0
    progress: float = 0.0
    window_time: float = 0.0
    since_stuck: float = 0.0
    recovery: int = 0
    failures: int = 0
    stuck_count: int = 0
    arrived: bool = False

    @classmethod
    def arrays(cls, size: int) -> FollowerMemory:
        """A fresh memory for ``size`` vehicles, one array per field."""
        fresh = cls()
        return cls(
            *(
                np.full(size, value, dtype=_FIELD_DTYPES[name])
                for name, value in zip(cls._fields, fresh, strict=True)
            )
        )


_FIELD_DTYPES = {
    "segment": np.int64,
    "recovery": np.int64,
    "failures": np.int64,
    "stuck_count": np.int64,
    "arrived": np.bool_,
}
_FIELD_DTYPES.update(
    {name: np.float64 for name in FollowerMemory._fields if name not in _FIELD_DTYPES}
)


class FollowerInfo(NamedTuple):
    """What the last ``step`` computed besides the command (for traces, plots and tests)."""

    target_speed: float  # [m/s] after the end-of-path cap; 0 once arrived
    target_x: float  # [m] the target point
    target_y: float
    s: float  # [m] arc length of the vehicle's projection
    stuck_event: bool  # a stuck event happened this frame
    recovering: bool  # the command is the stuck manager's override
    teleport: bool  # a teleport is requested (see ``PathFollower.teleport_request``)
    arrived: bool


class StuckEvent(NamedTuple):
    """One stuck event: which vehicle, when, where."""

    agent: int  # index in the batch (0 for ``step``)
    time: float  # [s] on the follower's clock (since ``reset``)
    x: float  # [m] vehicle position
    y: float
    s: float  # [m] arc length of its projection on its path
    teleport: bool  # the event requested a teleport instead of a recovery


class TeleportRequest(NamedTuple):
    """Where the stuck manager asks the simulation to put the vehicle (at rest)."""

    x: float  # [m] the nearest path point
    y: float
    yaw: float  # [rad] the path's direction there


class FollowerBatchOutput(NamedTuple):
    """Arrays written by ``step_batch`` (reused when passed back as ``out``)."""

    steer: np.ndarray  # [-1, 1]
    throttle: np.ndarray  # [-1, 1]
    target_speed: np.ndarray  # [m/s]
    target_x: np.ndarray  # [m]
    target_y: np.ndarray  # [m]
    s: np.ndarray  # [m]
    stuck_event: np.ndarray  # bool
    recovering: np.ndarray  # bool
    teleport: np.ndarray  # bool: move vehicle i to (teleport_x, teleport_y, teleport_yaw)
    teleport_x: np.ndarray  # [m] (NaN when no teleport)
    teleport_y: np.ndarray
    teleport_yaw: np.ndarray  # [rad]

    @classmethod
    def empty(cls, size: int) -> FollowerBatchOutput:
        booleans = {"stuck_event", "recovering", "teleport"}
        return cls(
            *(
                np.zeros(size, dtype=np.bool_) if name in booleans else np.zeros(size)
                for name in cls._fields
            )
        )


# --------------------------------------------------------------------------------------------------
# paths


class _PathPack:
    """Ragged paths packed for the batch kernel: one ``(rows, 3)`` array of points (``z = 0``),
    their arc lengths (each path from 0), and ``first`` / ``count`` per vehicle.

    ``replace(i, path)`` writes a path in place when it fits in vehicle ``i``'s slot (``count <=
    capacity``), else appends it at the end of the arrays (which grow geometrically), leaving the
    old slot unused; the arrays are compacted when unused rows outnumber the used ones. Cost: O(new
    path's points) amortised, O(all points) on a growth or a compaction.
    """

    def __init__(self, paths: Sequence[Polyline]):
        counts = np.array([path.points_3d.shape[0] for path in paths], dtype=np.int64)
        self.count = counts
        self.capacity = counts.copy()
        self.first = np.zeros(len(paths), dtype=np.int64)
        if len(paths) > 1:
            self.first[1:] = np.cumsum(counts[:-1])
        self.used = int(counts.sum())
        self.points = np.empty((self.used, 3))
        self.cum = np.empty(self.used)
        self.widths = np.full(self.used, np.nan)  # per segment, at its first point
        for index, path in enumerate(paths):
            self._write(index, path)

    @property
    def size(self) -> int:
        return self.count.size

    def _write(self, index: int, path: Polyline) -> None:
        start = self.first[index]
        stop = start + path.points_3d.shape[0]
        self.points[start:stop] = path.points_3d
        self.cum[start:stop] = path.cumulative_length
        self.widths[start:stop] = np.nan
        if path.widths is not None:
            self.widths[start : stop - 1] = path.widths
        self.count[index] = stop - start

    def replace(self, index: int, path: Polyline) -> None:
        rows = path.points_3d.shape[0]
        if rows > self.capacity[index]:
            if self.used + rows > self.points.shape[0]:
                live = int(self.count.sum()) - int(self.count[index]) + rows
                if live <= self.points.shape[0] // 2:
                    self._compact()
                if self.used + rows > self.points.shape[0]:
                    self._grow(max(2 * self.points.shape[0], self.used + rows))
            self.first[index] = self.used
            self.capacity[index] = rows
            self.used += rows
        self._write(index, path)

    def _grow(self, rows: int) -> None:
        points = np.empty((rows, 3))
        cum = np.empty(rows)
        widths = np.full(rows, np.nan)
        points[: self.used] = self.points[: self.used]
        cum[: self.used] = self.cum[: self.used]
        widths[: self.used] = self.widths[: self.used]
        self.points, self.cum, self.widths = points, cum, widths

    def _compact(self) -> None:
        order = np.argsort(self.first, kind="stable")
        position = 0
        points = np.empty_like(self.points)
        cum = np.empty_like(self.cum)
        widths = np.full_like(self.widths, np.nan)
        for index in order:
            start, rows = self.first[index], self.count[index]
            points[position : position + rows] = self.points[start : start + rows]
            cum[position : position + rows] = self.cum[start : start + rows]
            widths[position : position + rows] = self.widths[start : start + rows]
            self.first[index] = position
            self.capacity[index] = rows
            position += rows
        self.points, self.cum, self.widths = points, cum, widths
        self.used = position

    def polyline(self, index: int) -> Polyline:
        start, rows = self.first[index], self.count[index]
        widths = self.widths[start : start + rows - 1]
        return Polyline(
            self.points[start : start + rows, :2], None if np.isnan(widths).all() else widths
        )


# --------------------------------------------------------------------------------------------------
# public classes


class PathFollower:
    """Seed 001's path follower: target speed (Algorithm 1), target point, PI speed control,
    pure pursuit (or heading-error) steering and stuck manager (seed 001, Figure 2).

    Parameters
    ----------
    vehicle_params : VehicleParams (or any object with ``kind``, ``wheelbase``, ``max_steer``)
        ``kind`` 0 wheeled (pure pursuit with ``wheelbase`` [m] and ``max_steer`` [rad]), 1
        tracked, 2 hover (heading-error law with ``max_steer``). Nothing else is read.
    follower_params : FollowerParams
        Every setting, defaults from seed 001's Section III (``FollowerParams``).
    path : array_like of shape (k, 2) or (k, 3), or Polyline, optional
        The path for ``step`` (and for every vehicle of ``step_batch`` unless ``set_paths``);
        same as calling ``set_path``.
    widths : optional
        Full corridor widths [m] of ``path`` (``Polyline``'s rules); stored, not used to steer.

    Attributes
    ----------
    memory : FollowerMemory
        The scalar follower's memory.
    batch_memory : FollowerMemory of arrays, or None
        One array per field for ``step_batch``.
    info : FollowerInfo or None
        What the last ``step`` computed.
    teleport_request : TeleportRequest or None
        Set by the last ``step`` when the stuck manager asks for a teleport.
    stuck_events : list of StuckEvent
        Every stuck event so far (``step`` and ``step_batch``), in order.
    """

    _mode = BEZIER

    def __init__(
        self,
        vehicle_params,
        follower_params: FollowerParams = FollowerParams(),  # noqa: B008 (immutable record)
        path=None,
        widths=None,
    ):
        self._kind, self._wheelbase, self._max_steer = check_vehicle_params(vehicle_params)
        # where the axles are: read by Stanley only (the other followers read kind, wheelbase and
        # max_steer alone)
        self._front_axle, self._rear_axle = (
            check_axles(vehicle_params, self._kind, self._wheelbase)
            if self._mode == STANLEY
            else (0.0, 0.0)
        )
        self.params = check_follower_params(follower_params)
        self._path: Polyline | None = None
        self._pack: _PathPack | None = None
        self._single: _PathPack | None = None
        self.memory = FollowerMemory()
        self.batch_memory: FollowerMemory | None = None
        self.info: FollowerInfo | None = None
        self.teleport_request: TeleportRequest | None = None
        self.stuck_events: list[StuckEvent] = []
        if path is not None:
            self.set_path(path, widths)

    # -- paths -------------------------------------------------------------------------------

    @property
    def path(self) -> Polyline | None:
        """The current path of ``step`` in the ground plane (a ``Polyline``), or None."""
        return self._path

    def path_of(self, index: int) -> Polyline:
        """Vehicle ``index``'s path in the batch (``set_paths``), or the shared path."""
        if self._pack is not None:
            return self._pack.polyline(index)
        if self._path is None:
            raise ValueError("no path: call set_path or set_paths first")
        return self._path

    def set_path(self, points, widths=None) -> None:
        """Replace the path of ``step`` (any frame). Heights of a 3-D path are dropped.

        The next frame projects the vehicle on the whole new path; the stuck window goes on (its
        progress is measured across the change, see ``steerlab.follower.stuck``); the arrival
        latch is released. Without ``set_paths``, the path also serves every vehicle of
        ``step_batch``, whose memory is updated the same way.

        Raises
        ------
        ValueError
            Fewer than 2 distinct points (in the plane), a non-finite coordinate, or a negative
            or NaN width; the message names the point or width.
        """
        path = planar_polyline(points, widths, name="path")
        self._path = path
        self._single = _PathPack([path])
        self.memory = self.memory._replace(s=math.nan, arrived=False)
        if self._pack is None and self.batch_memory is not None:
            self.batch_memory.s[:] = math.nan
            self.batch_memory.arrived[:] = False

    def set_paths(self, paths: Sequence, widths: Sequence | None = None) -> None:
        """One path per vehicle for ``step_batch`` (packed; ``len(paths)`` = the batch size).

        ``widths``: None, or one entry per path (each ``Polyline``'s ``widths``). Every vehicle
        projects on its whole new path on the next frame. Cost: O(total points).
        """
        if isinstance(paths, np.ndarray) or len(paths) == 0:
            raise ValueError(
                f"paths must be a non-empty sequence of paths (one per vehicle), got {paths!r}"
            )
        if widths is not None and len(widths) != len(paths):
            raise ValueError(
                f"widths must have one entry per path ({len(paths)}), got {len(widths)}"
            )
        polylines = [
            planar_polyline(path, None if widths is None else widths[i], name=f"paths[{i}]")
            for i, path in enumerate(paths)
        ]
        self._pack = _PathPack(polylines)
        if self.batch_memory is not None and self.batch_memory.s.size == len(polylines):
            self.batch_memory.s[:] = math.nan
            self.batch_memory.arrived[:] = False

    def set_path_batch(self, index: int, points, widths=None) -> None:
        """Replace vehicle ``index``'s path (after ``set_paths``), any frame.

        Written in place when the new path has no more points than the slot holds, else appended
        to the packed arrays (amortised O(new points); a growth or a compaction copies all the
        points). The vehicle projects on its whole new path on the next frame.
        """
        if self._pack is None:
            raise ValueError("set_path_batch needs per-vehicle paths: call set_paths first")
        if not isinstance(index, int | np.integer) or not 0 <= index < self._pack.size:
            raise ValueError(f"index must be in [0, {self._pack.size}), got {index!r}")
        path = planar_polyline(points, widths, name=f"paths[{index}]")
        self._pack.replace(int(index), path)
        if self.batch_memory is not None and self.batch_memory.s.size == self._pack.size:
            self.batch_memory.s[index] = math.nan
            self.batch_memory.arrived[index] = False

    # -- stepping ------------------------------------------------------------------------------

    def step(self, state: VehicleState, dt: float) -> DriveCommand:
        """The command for this frame; updates ``memory``, ``info``, ``teleport_request``.

        Raises
        ------
        ValueError
            No path set, a non-finite ``state`` field, ``dt <= 0``.
        """
        if self._single is None:
            raise ValueError("no path: call set_path(points) before step")
        state = check_vehicle_state(state)
        dt = check_timestep(dt)
        pack = self._single
        result = _follow(
            state.x,
            state.y,
            state.yaw,
            state.v,
            *self.memory,
            pack.points,
            pack.cum,
            self._kind,
            self._wheelbase,
            self._max_steer,
            self._front_axle,
            self._rear_axle,
            self.params,
            self._mode,
            dt,
        )
        (steer, throttle, v_target, target_x, target_y, s, event, recovering, teleport) = result[:9]
        memory = FollowerMemory(*result[12:])
        self.memory = memory._replace(
            segment=int(memory.segment),
            recovery=int(memory.recovery),
            failures=int(memory.failures),
            stuck_count=int(memory.stuck_count),
            arrived=bool(memory.arrived),
        )
        self.info = FollowerInfo(
            v_target, target_x, target_y, s, bool(event), bool(recovering), bool(teleport),
            self.memory.arrived,
        )  # fmt: skip
        self.teleport_request = TeleportRequest(*result[9:12]) if teleport else None
        if event:
            self.stuck_events.append(
                StuckEvent(0, self.memory.time, state.x, state.y, s, bool(teleport))
            )
        return DriveCommand(float(steer), float(throttle))

    def step_batch(
        self, batch: VehicleBatch, dt: float, out: FollowerBatchOutput | None = None
    ) -> FollowerBatchOutput:
        """Commands for every vehicle of ``batch``, each on its own path (``set_paths``) or all
        on the one path (``set_path``). Memory in ``batch_memory`` (arrays) until ``reset``.

        Stuck events are appended to ``stuck_events``; teleport requests are in the output's
        ``teleport`` arrays (apply them before the next frame).
        """
        if not isinstance(batch, VehicleBatch):
            raise ValueError(f"batch must be a VehicleBatch, got {batch!r}")
        dt = check_timestep(dt)
        size = batch.size
        if self._pack is not None:
            pack = self._pack
            if pack.size != size:
                raise ValueError(
                    f"set_paths gave {pack.size} paths but the batch has {size} vehicles"
                )
            first, count = pack.first, pack.count
        elif self._single is not None:
            pack = self._single
            first = np.zeros(size, dtype=np.int64)
            count = np.full(size, pack.count[0], dtype=np.int64)
        else:
            raise ValueError("no path: call set_path or set_paths before step_batch")
        if out is None:
            out = FollowerBatchOutput.empty(size)
        elif not isinstance(out, FollowerBatchOutput) or out.steer.size != size:
            raise ValueError(f"out must be a FollowerBatchOutput of size {size}, got {out!r}")
        memory = self.batch_memory
        if memory is None or memory.s.size != size:
            memory = FollowerMemory.arrays(size)
            self.batch_memory = memory
        _follow_batch(
            batch.x,
            batch.y,
            batch.yaw,
            batch.v,
            *memory,
            pack.points,
            pack.cum,
            first,
            count,
            self._kind,
            self._wheelbase,
            self._max_steer,
            self._front_axle,
            self._rear_axle,
            self.params,
            self._mode,
            dt,
            *out,
        )
        if out.stuck_event.any():
            for i in np.flatnonzero(out.stuck_event):
                self.stuck_events.append(
                    StuckEvent(
                        int(i),
                        float(memory.time[i]),
                        float(batch.x[i]),
                        float(batch.y[i]),
                        float(out.s[i]),
                        bool(out.teleport[i]),
                    )
                )
        return out

    def reset(self) -> None:
        """Forget everything but the paths: memory (scalar and batch), events, requests."""
        self.memory = FollowerMemory()
        self.batch_memory = None
        self.info = None
        self.teleport_request = None
        self.stuck_events = []

    @property
    def stuck_count(self) -> int:
        """Stuck events so far (``step`` and ``step_batch``)."""
        return len(self.stuck_events)

    def __repr__(self) -> str:
        kind = ("wheeled", "tracked", "hover")[self._kind]
        return (
            f"{type(self).__name__}({kind}, wheelbase={self._wheelbase}, "
            f"max_steer={self._max_steer}, path={self._path!r})"
        )


class BaselineFollower(PathFollower):
    """Seed 001's baseline (Section III): the target speed inversely proportional to the largest
    angle between the vehicle's forward vector and the path segments ahead
    (``steerlab.follower.baseline``), a P speed controller (no integral), and the same target
    point, steering and stuck manager as ``PathFollower``, with the same ``FollowerParams``
    (``baseline_k``, ``baseline_horizon`` are its own; ``a_lat``, ``dh``, ``n``, ``ti_speed``
    are not used). Same constructor and methods as ``PathFollower``.
    """

    _mode = BASELINE


class StanleyFollower(PathFollower):
    """A peer of seed 001's follower (issue 7): Stanley steering (Hoffmann et al. 2007,
    ``steerlab.follower.stanley``) with seed 001's target speed (Algorithm 1 and the end-of-path
    cap), PI speed control and stuck manager, and the same arrival logic.

    Stanley's settings are ``FollowerParams.stanley_gain`` (k, 1/s) and ``stanley_softening``
    (k_soft, m/s); ``lookahead``, ``lookahead_time``, ``heading_gain`` and ``pure_pursuit_all``
    are not used (Stanley steers from the front axle's closest point, for every kind of
    vehicle). The front axle is ``cg_to_front`` ahead of the position of a wheeled
    ``VehicleParams``; a vehicle record without ``cg_to_front`` is taken to be positioned at its
    rear axle (``params.check_axles``). ``info.target_x, target_y`` is the closest path point of
    the axle that steers (the rear one while reversing). Same constructor and methods as
    ``PathFollower``.
    """

    _mode = STANLEY


class RegulatedPurePursuitFollower(PathFollower):
    """A peer of seed 001's follower (issue 7): regulated pure pursuit (Macenski et al. 2023,
    the ROS 2 Nav2 controller; ``steerlab.follower.regulated``): speed-scaled lookahead, pure
    pursuit towards the carrot for every kind of vehicle, its own speed law (curvature
    regulation of ``v_max``, floor, approach slow-down; no costmap term), which the PI loop
    tracks; the same stuck manager and arrival logic as ``PathFollower``.

    Its settings are ``FollowerParams.regulated_*`` and ``v_max`` (the desired speed); the
    target speed module (``a_lat``, ``dh``, ``n``, ``v_min``, ``stop_decel``), ``lookahead``,
    ``lookahead_time``, ``heading_gain`` and ``pure_pursuit_all`` are not used.
    ``info.target_x, target_y`` is the carrot. Same constructor and methods as ``PathFollower``;
    ``vehicle_params.wheelbase`` must be > 0 and finite for every kind (pure pursuit's ``L``).
    """

    _mode = REGULATED

    def __init__(
        self,
        vehicle_params,
        follower_params: FollowerParams = FollowerParams(),  # noqa: B008 (immutable record)
        path=None,
        widths=None,
    ):
        super().__init__(vehicle_params, follower_params, path, widths)
        if not (self._wheelbase > 0.0 and math.isfinite(self._wheelbase)):
            raise ValueError(
                "vehicle_params.wheelbase must be > 0 and finite for regulated pure pursuit, got "
                f"{vehicle_params.wheelbase!r}"
            )
