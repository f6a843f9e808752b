"""The path followers of seed 001: the five modules of Figure 2 composed, one vehicle or many.

Seed 001, Figure 2, "Core modules of the proposed path follower": target speed generation,
target point generation, speed control, steering control and stuck manager. ``_follow`` is one
frame of the follower, a chain of named sub-steps, each a small kernel that reads its module's
record (``params.FollowerRecords``) and picks its law from the record's ``law`` field
(``docs/design.md``; ``../shared/STYLE.md``)::

    projection    -> s, cross-track     (_projection_step: target_point._project_window, or the
                                          whole path)
    target_point  -> (x_t, y_t)         (_target_point_step: LOOKAHEAD, seed 001; CARROT,
                                          regulated pure pursuit; STEERING_AXLE, Stanley: none)
    target_speed  -> v_target           (_target_speed_step: ALGORITHM_1, ANGLE_HEURISTIC, each
                                          then the end cap; REGULATED_SPEED)
    speed_control -> throttle           (_speed_control_step: PI; ti = inf, P, for the baseline)
    stuck_check   -> recovering, teleport (_stuck_step: stuck._stuck_check)
    steering      -> steer              (_steering_step: SEED_STEERING, PURE_PURSUIT, STANLEY)
    override      -> command            (stuck._recovery_command; the teleport)

A variant of the follower is a set of records (``params.VARIANTS``): seed 001's follower, its
baseline, and its peers Stanley steering and regulated pure pursuit. The target point comes before
the target speed because regulated pure pursuit's speed reads the carrot's arc (no other law reads
the target point before the steering). The stuck check comes before the steering because Stanley's
reversing law depends on whether the stuck manager is recovering; the check reads neither command,
so the order changes no result.

``PathFollower.step(state, dt)`` calls it once; ``step_batch(batch, dt)`` calls it in ``prange``
over vehicles, each on its own path (ragged paths packed: points concatenated, ``first`` /
``count`` per vehicle) and with its own parameters where a record's field holds one value per
vehicle (``steerlab._per_agent``), with the same bits. The follower works in the ground plane:
paths may be 2-D or 3-D, their heights are dropped (``VehicleState`` has none);
``target_speed()`` itself takes 3-D input.

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
from steerlab._per_agent import (
    agent_params,
    check_agent_count,
    check_shared,
    per_agent_size,
    set_agent,
)
from steerlab.follower.baseline import _baseline_target_speed
from steerlab.follower.params import (
    ANGLE_HEURISTIC,
    CARROT,
    LOOKAHEAD,
    PURE_PURSUIT,
    REGULATED_SPEED,
    STANLEY,
    VARIANTS,
    ArrivalParams,
    FollowerParams,
    FollowerRecords,
    SpeedControlParams,
    SteeringParams,
    StuckParams,
    TargetPointParams,
    TargetSpeedParams,
    check_axles,
    check_follower_params,
    check_vehicle_params,
)
from steerlab.follower.paths import _agent_path, _PackedPaths, _Path, _PathPack
from steerlab.follower.regulated import _carrot, _regulated_lookahead, _regulated_target_speed
from steerlab.follower.speed_control import _pi_speed
from steerlab.follower.stanley import _stanley_steering
from steerlab.follower.steering import _line_of_sight, _steering
from steerlab.follower.stuck import _recovery_command, _stuck_check
from steerlab.follower.target_point import _lookahead_distance, _project_window, _target_point
from steerlab.follower.target_speed import _end_speed, _target_speed
from steerlab.geometry.kernels import heading_at, project, signed_distance, sincos
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

# --------------------------------------------------------------------------------------------------
# kernels: the chain's steps, each reading its module's record (``params.FollowerRecords``)


class _Vehicle(NamedTuple):
    """What the follower reads of the vehicle: ``kind`` (0 wheeled, 1 tracked, 2 hover),
    ``wheelbase`` [m], ``max_steer`` [rad], and for Stanley ``front_axle``, ``rear_axle`` [m]
    ahead of and behind the position (``params.check_axles``)."""

    kind: int
    wheelbase: float
    max_steer: float
    front_axle: float
    rear_axle: float


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


@kernel
def _projection_step(x, y, memory, params, path):
    """The vehicle's projection on its path: near the last frame's ``s`` (``params``, a
    ``TargetPointParams``, gives the window); on a new path, on the whole path. Returns ``(s,
    closest_x, closest_y, closest_z, segment, progress_step, cross_track)``: ``progress_step``
    the progress along the path since the last frame (across a path change: the displacement
    along the new path), ``cross_track`` [m] the signed distance from that foot point, positive
    left of the path's direction (``geometry.kernels.signed_distance``, ``project``'s rule; the
    foot is a vertex where ``s`` is an end of its segment)."""
    points, cum = path
    if memory.s == memory.s:
        s, closest_x, closest_y, closest_z, segment = _project_window(
            points,
            cum,
            x,
            y,
            0.0,
            memory.s - params.projection_back,
            memory.s + params.projection_ahead,
            memory.segment,
        )
        progress_step = s - memory.s
        end = -1 if s <= cum[segment] else (1 if s >= cum[segment + 1] else 0)
        cross_track = signed_distance(
            points, segment, end, x, y, 0.0, closest_x, closest_y, closest_z
        )
    else:
        s, closest_x, closest_y, closest_z, segment, cross_track = project(points, cum, x, y, 0.0)
        progress_step = 0.0
        if memory.previous_x == memory.previous_x:
            tangent_sin, tangent_cos = sincos(heading_at(points, cum, s))
            progress_step = (x - memory.previous_x) * tangent_cos + (
                y - memory.previous_y
            ) * tangent_sin
    return s, closest_x, closest_y, closest_z, segment, progress_step, cross_track


@kernel
def _target_point_step(x, y, v, s, segment, params, path):
    """``(x, y)`` of the target point by ``params.law`` (``TargetPointParams``): the lookahead
    point (seed 001), the carrot (regulated pure pursuit), or NaN (Stanley: its steering gives
    the point)."""
    points, cum = path
    if params.law == LOOKAHEAD:
        lookahead = _lookahead_distance(v, params.lookahead, params.lookahead_time)
        _, target_x, target_y, _ = _target_point(points, cum, s, segment, lookahead)
        return target_x, target_y
    if params.law == CARROT:
        lookahead = _regulated_lookahead(
            v, params.lookahead_time, params.lookahead, params.max_lookahead
        )
        return _carrot(points, cum, x, y, s, lookahead)
    return math.nan, math.nan


@kernel
def _target_speed_step(state, projection, target, params, path, vehicle):
    """The target speed [m/s] by ``params.law`` (``TargetSpeedParams``): Algorithm 1 (seed 001)
    or the baseline's angle heuristic, each capped by the end of the path; or regulated pure
    pursuit's law, which reads the carrot ``target``."""
    x, y, yaw, _ = state
    s = projection[0]
    points, cum = path
    remaining = cum[cum.size - 1] - s
    if params.law == REGULATED_SPEED:
        forward, left, distance2 = _line_of_sight(x, y, yaw, target[0], target[1])
        v_target, _ = _regulated_target_speed(
            forward,
            left,
            distance2,
            remaining,
            vehicle.wheelbase,
            vehicle.max_steer,
            params.v_max,
            params.min_radius,
            params.min_speed,
            params.approach_distance,
            params.approach_min_speed,
        )
        return v_target
    if params.law == ANGLE_HEURISTIC:
        v_target, _ = _baseline_target_speed(
            points,
            cum,
            yaw,
            s,
            params.baseline_horizon,
            params.baseline_k,
            params.v_min,
            params.v_max,
        )
    else:
        v_target, _, _ = _target_speed(points, cum, (x, y, 0.0), projection[:5], params, points[:0])
    return _end_speed(v_target, remaining, params.stop_decel, params.v_min)


@kernel
def _speed_control_step(v_target, v, integral, params, arrived, dt):
    """``(throttle, integral)``: the PI loop (``SpeedControlParams``); P only once arrived (to
    brake)."""
    integral_time = math.inf if arrived else params.ti
    return _pi_speed(v_target, v, integral, params.kp, integral_time, dt)


@kernel
def _steering_step(state, target, recovering, s, segment, params, path, vehicle):
    """``(steer, target_x, target_y)`` by ``params.law`` (``SteeringParams``): towards the target
    point, seed 001's law (pure pursuit, or the heading law for tracked and hover vehicles) or
    pure pursuit for every kind; or Stanley's, whose target is the closest path point of the
    steering axle (the rear one while reversing, unless ``recovering``)."""
    x, y, yaw, _ = state
    target_x, target_y = target
    if params.law == STANLEY:
        points, cum = path
        return _stanley_steering(points, cum, state, recovering, s, segment, params, vehicle)
    steer = _steering(
        vehicle.kind,
        x,
        y,
        yaw,
        target_x,
        target_y,
        vehicle.wheelbase,
        vehicle.max_steer,
        params.heading_gain,
        params.law == PURE_PURSUIT,
    )
    return steer, target_x, target_y


@kernel(inline="serial")
def _follow(state, memory, params, path, vehicle, dt):
    """One frame of the follower for one vehicle (seed 001, Figure 2).

    ``state`` ``(x, y, yaw, v)`` ([m], [m], [rad], [m/s] signed forward speed); ``memory`` a
    ``FollowerMemory``; ``params`` a ``FollowerRecords`` (one value per field); ``path`` a
    ``_Path``; ``vehicle`` a ``_Vehicle``; ``dt`` [s].

    Returns ``(outputs, memory)``: ``(steer, throttle, v_target, target_x, target_y, s,
    stuck_event, recovering, teleport, teleport_x, teleport_y, teleport_yaw, cross_track)`` (the
    ``FollowerBatchOutput`` fields) and the new memory, a plain tuple of the ``FollowerMemory``
    fields (numba hands a plain tuple back to Python faster than a record).

    Called, not inlined, by the batch's per-agent kernel (``_follow_agent``) in the quick and
    parallel builds (``kernel(inline="serial")``): numba's parfor passes over the whole inlined
    chain would take minutes to compile, and the chain compiled by itself runs faster than
    inlined into the per-agent kernel (``docs/performance.md``); the serial build inlines it.
    The bits are the same either way. Stanley's steering is called, not inlined
    (``stanley._stanley_steering``), to keep the compile short.
    """
    x, y, _, v = state
    time = memory.time + dt
    points, cum = path
    projection = _projection_step(x, y, memory, params.target_point, path)
    s, _, _, _, segment, progress_step, cross_track = projection
    target = _target_point_step(x, y, v, s, segment, params.target_point, path)
    v_target = _target_speed_step(state, projection, target, params.target_speed, path, vehicle)
    arrived = memory.arrived or _arrived(points, cum, x, y, s, params.arrival.radius)
    v_target = 0.0 if arrived else v_target
    throttle, new_integral = _speed_control_step(
        v_target, v, memory.integral, params.speed_control, arrived, dt
    )
    stuck, event, teleport, recovering = _stuck_check(
        progress_step, not arrived, memory, params.stuck, dt
    )
    steer, target_x, target_y = _steering_step(
        state, target, recovering, s, segment, params.steering, path, vehicle
    )
    steer = 0.0 if arrived else steer

    # the stuck manager's override
    steer, throttle = _recovery_command(steer, throttle, recovering)
    new_integral = memory.integral if recovering else new_integral
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
    outputs = (
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
        cross_track,
    )
    new_memory = (
        new_s,
        new_segment,
        new_previous_x,
        new_previous_y,
        new_integral,
        time,
        stuck.progress,
        stuck.window_time,
        stuck.since_stuck,
        stuck.recovery,
        stuck.failures,
        stuck.stuck_count,
        arrived,
    )
    return outputs, new_memory


@kernel
def _follow_step(state, memory, records, path, vehicle, dt):
    """``_follow`` for ``PathFollower.step``, its records given as plain tuples: ``memory`` the
    ``FollowerMemory`` fields, ``records`` one tuple per ``FollowerRecords`` field, ``path``
    ``(points, cum)``, ``vehicle`` the ``_Vehicle`` fields; rebuilt into records here. numba
    reads plain tuples from Python several times faster than the records nested in
    ``FollowerRecords`` (``docs/performance.md``)."""
    target_point, target_speed, speed_control, stuck, steering, arrival = records
    return _follow(
        state,
        FollowerMemory(*memory),
        FollowerRecords(
            TargetPointParams(*target_point),
            TargetSpeedParams(*target_speed),
            SpeedControlParams(*speed_control),
            StuckParams(*stuck),
            SteeringParams(*steering),
            ArrivalParams(*arrival),
        ),
        _Path(*path),
        _Vehicle(*vehicle),
        dt,
    )


@kernel(inline="serial")
def _follow_agent(i, vehicles, memory, records, paths, vehicle, dt, out):
    """``_follow`` for vehicle ``i`` of ``_follow_batch``: its state and memory read at ``i``, its
    records ``agent_params(records, i)``, its path ``_agent_path(paths, i)``; the new memory
    and the outputs written at ``i``.

    Called, not inlined, by the quick and parallel builds (``kernel(inline="serial")``): numba's
    parallel loop loses writes made in its body through arrays held in a record; the serial
    build (large batches on one thread) inlines it, with the chain."""
    outputs, new_memory = _follow(
        (vehicles.x[i], vehicles.y[i], vehicles.yaw[i], vehicles.v[i]),
        agent_params(memory, i),
        agent_params(records, i),
        _agent_path(paths, i),
        vehicle,
        dt,
    )
    set_agent(out, i, outputs)
    set_agent(memory, i, new_memory)


@batch_kernel(composite=True)
def _follow_batch(
    vehicles,
    memory,
    paths,
    vehicle,
    target_point,
    target_speed,
    speed_control,
    stuck,
    steering,
    arrival,
    dt,
    out,
):
    """``_follow`` for every vehicle ``i`` (``_follow_agent``): ``vehicles`` a ``VehicleState`` of
    arrays (``x``, ``y``, ``yaw``, ``v`` read), ``memory`` a ``FollowerMemory`` of arrays updated
    in place, ``paths`` a ``_PackedPaths``, ``out`` a ``FollowerBatchOutput`` written. The records
    (the ``FollowerRecords`` fields, any field one value per vehicle) come one by one and are
    nested here: the parallel build refuses a record of records holding arrays as an argument
    (numba 0.68)."""
    for i in numba.prange(vehicles.x.size):
        records = FollowerRecords(
            target_point, target_speed, speed_control, stuck, steering, arrival
        )
        _follow_agent(i, vehicles, memory, records, paths, vehicle, dt, out)


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
    """What the last ``step`` computed besides the command (for traces, plots and tests);
    ``s`` and ``cross_track`` as in ``FollowerBatchOutput``."""

    target_speed: float  # [m/s] after the end-of-path cap; 0 once arrived
    target_x: float  # [m] the target point
    target_y: float
    s: float  # [m] arc length of the vehicle's projection
    stuck_event: bool  # a stuck event happened this frame
    recovering: bool  # the command is the stuck manager's override
    teleport: bool  # a teleport is requested (see ``PathFollower.teleport_request``)
    arrived: bool
    cross_track: float  # [m] signed distance from the projection, positive left of the path


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
    """Arrays written by ``step_batch`` (reused when passed back as ``out``).

    ``s`` and ``cross_track`` describe the vehicle's projection on its path this frame, the one
    the follower steers by: near the last frame's (``FollowerParams.projection_back``,
    ``projection_ahead``), on the whole path after a path change or a teleport. ``cross_track``
    is the signed distance [m] from the vehicle to that foot point, positive left of the path's
    direction (``Polyline.project``'s sign rule). It equals ``Polyline.project(p).cross_track``
    wherever the nearest point of the path lies in that window; on a path that comes back near
    itself (a hairpin, a crossing) it is the distance to the stretch being driven.
    """

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
    cross_track: np.ndarray  # [m] signed distance from the projection at s, left of the path +

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
# public classes

_DEFAULTS = FollowerParams()  # seed 001's settings (an immutable record)


class PathFollower:
    """Seed 001's path follower: target speed (Algorithm 1), target point, PI speed control,
    pure pursuit (or heading-error) steering and stuck manager (seed 001, Figure 2).

    Parameters
    ----------
    vehicle_params : VehicleParams (or any object with ``kind``, ``wheelbase``, ``max_steer``)
        ``kind`` 0 wheeled (pure pursuit with ``wheelbase`` [m] and ``max_steer`` [rad]), 1
        tracked, 2 hover (heading-error law with ``max_steer``). Nothing else is read.
    follower_params : FollowerParams
        Every setting, defaults from seed 001's Section III (``FollowerParams``); converted once
        into the modules' records (``records``). For ``step_batch`` any field may hold one value
        per vehicle (a 1-D sequence); ``step`` takes one value per field.
    path : array_like of shape (k, 2) or (k, 3), or Polyline, optional
        The path for ``step`` (and for every vehicle of ``step_batch`` unless ``set_paths``);
        same as calling ``set_path``.
    widths : optional
        Full corridor widths [m] of ``path`` (``Polyline``'s rules); stored, not used to steer.
    variant : str, keyword only
        A name in ``steerlab.follower.params.VARIANTS`` (``"ours"``, ``"baseline"``,
        ``"stanley"``, ``"regulated_pure_pursuit"``, and the ablations ``"ours_p"``,
        ``"baseline_pi"``): which laws the records hold.

    Attributes
    ----------
    records : FollowerRecords
        The modules' records the kernels read (``params.FollowerRecords``).
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

    def __init__(
        self,
        vehicle_params,
        follower_params: FollowerParams = _DEFAULTS,
        path=None,
        widths=None,
        *,
        variant: str = "ours",
    ):
        kind, wheelbase, max_steer = check_vehicle_params(vehicle_params)
        if not isinstance(variant, str) or variant not in VARIANTS:
            raise ValueError(f"variant must be one of {list(VARIANTS)}, got {variant!r}")
        self.variant = variant
        self.params = check_follower_params(follower_params)
        self.records = VARIANTS[variant](self.params)
        self._per_vehicle = per_agent_size(self.params) is not None
        laws = self.records
        if np.any(np.asarray(laws.target_speed.law) == REGULATED_SPEED) and not (
            wheelbase > 0.0 and math.isfinite(wheelbase)
        ):
            raise ValueError(
                "vehicle_params.wheelbase must be > 0 and finite for regulated pure pursuit, got "
                f"{vehicle_params.wheelbase!r}"
            )
        # where the axles are: read by Stanley's steering only
        front_axle, rear_axle = (
            check_axles(vehicle_params, kind, wheelbase)
            if np.any(np.asarray(laws.steering.law) == STANLEY)
            else (0.0, 0.0)
        )
        self._kind = kind
        self._wheelbase = wheelbase
        self._max_steer = max_steer
        self._vehicle = _Vehicle(kind, wheelbase, max_steer, front_axle, rear_axle)
        self._plain_vehicle = tuple(self._vehicle)  # for ``_follow_step``
        self._plain_records = tuple(tuple(record) for record in self.records)
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
        if not isinstance(paths, Sequence) or isinstance(paths, str) or len(paths) == 0:
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
        if self._per_vehicle:
            check_shared(self.params, "PathFollower.step")
        pack = self._single
        outputs, memory = _follow_step(
            (state.x, state.y, state.yaw, state.v),
            tuple(self.memory),
            self._plain_records,
            (pack.points, pack.cum),
            self._plain_vehicle,
            dt,
        )
        (steer, throttle, v_target, target_x, target_y, s, event, recovering, teleport) = outputs[
            :9
        ]
        memory = FollowerMemory(*memory)
        self.memory = memory._replace(
            segment=int(memory.segment),
            recovery=int(memory.recovery),
            failures=int(memory.failures),
            stuck_count=int(memory.stuck_count),
            arrived=bool(memory.arrived),
        )
        self.info = FollowerInfo(
            v_target, target_x, target_y, s, bool(event), bool(recovering), bool(teleport),
            self.memory.arrived, outputs[12],
        )  # fmt: skip
        self.teleport_request = TeleportRequest(*outputs[9:12]) if teleport else None
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
        check_agent_count(self.params, size)
        _follow_batch(
            VehicleState(*batch.fields()),
            memory,
            _PackedPaths(pack.points, pack.cum, first, count),
            self._vehicle,
            *self.records,
            dt,
            out,
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

    def __init__(
        self, vehicle_params, follower_params: FollowerParams = _DEFAULTS, path=None, widths=None
    ):
        super().__init__(vehicle_params, follower_params, path, widths, variant="baseline")


class StanleyFollower(PathFollower):
    """A peer of seed 001's follower: Stanley steering (Hoffmann et al. 2007,
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

    def __init__(
        self, vehicle_params, follower_params: FollowerParams = _DEFAULTS, path=None, widths=None
    ):
        super().__init__(vehicle_params, follower_params, path, widths, variant="stanley")


class RegulatedPurePursuitFollower(PathFollower):
    """A peer of seed 001's follower: regulated pure pursuit (Macenski et al. 2023,
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

    def __init__(
        self, vehicle_params, follower_params: FollowerParams = _DEFAULTS, path=None, widths=None
    ):
        super().__init__(
            vehicle_params, follower_params, path, widths, variant="regulated_pure_pursuit"
        )
