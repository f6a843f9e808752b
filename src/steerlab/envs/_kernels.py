"""Kernels of the path-following environment: observation, reward and episode end, one env or many.

``_observe`` is one environment's observation, reward and status after its vehicle has moved, a
chain of the named sub-steps of the follower and of the Table I observer (no formula copied)::

    projection    -> s, closest point   (follower.target_point._project_window, tracked)
    arrival       -> arrived            (follower.follower._arrived, Table I's end rule)
    errors        -> cross-track        (geometry.kernels.signed_cross_track: Polyline.project's,
                                         the Table I observer's; left of travel positive)
                     heading error      (yaw - heading of the tracked projection's segment)
    target speed  -> v_target           (follower.target_speed._target_speed: seed 001,
                                         Algorithm 1, then _end_speed: the follower's cap)
    curvatures    -> kappa(s + k spacing), k = 1..K  (a table built once per path)
    reward        -> progress - cross-track and stuck penalties

The kernel follows the library's convention, ``_observe(state, progress, settings, path, dt,
out)``: the vehicle's ``VehicleState``, the tracked projection of the previous frame
(``Progress``), the task's settings (``ObserveSettings``) and path (``ObservePath``), one record
each. ``_observe_batch`` calls it in ``prange`` on records of arrays, so a vector environment
equals N single ones bit for bit. No gymnasium import here: the kernels only
need numba.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np

from steerlab._jit import HEAVY_SERIAL_LIMIT, batch_kernel, kernel
from steerlab._per_agent import agent_params, set_agent
from steerlab.follower.follower import _arrived
from steerlab.follower.target_point import _project_window
from steerlab.follower.target_speed import Algorithm1Params, _end_speed, _target_speed
from steerlab.geometry.kernels import menger_curvature, point_at, signed_cross_track, wrap_pi

__all__ = ["ObservePath", "ObserveSettings", "Outcome", "Progress"]

RUNNING, ARRIVED, FAILED = 0, 1, 2  # status of an environment after a step


class ObserveSettings(NamedTuple):
    """What every environment of a task observes and rewards with (one read-only record)."""

    back: float  # [m] the tracked projection's window behind the last frame's s ...
    ahead: float  # [m] ... and ahead of it (the follower's and Table I's)
    arrival_radius: float  # [m] Table I's end rule
    a_lat: float  # [m/s^2] the follower's target speed (seed 001, Algorithm 1): lateral bound
    dh: float  # [m] its look-ahead spacing
    n: int  # its look-ahead points
    v_min: float  # [m/s] its speed bounds
    v_max: float  # [m/s]
    stop_decel: float  # [m/s^2] the follower's end-of-path cap
    spacing: float  # [m] arc length between the curvatures observed ahead
    cross_track_weight: float  # [1/s] the reward's weights (RewardWeights)
    stuck_penalty: float  # [m/s]
    stuck_speed: float  # [m/s]


class ObservePath(NamedTuple):
    """The path as the observation reads it (arrays built once per path)."""

    points: np.ndarray  # (m, 3) the planar path
    cum: np.ndarray  # (m,) its cumulative arc length
    table: np.ndarray  # its curvature table at the settings' spacing (_curvature_table)
    no_record: np.ndarray  # a writable (0, 3) array: Algorithm 1's P~ is not recorded


class Progress(NamedTuple):
    """The tracked projection of the previous frame (numbers, or one array entry per env)."""

    s: float  # [m] its arc length
    segment: int  # its segment


class Outcome(NamedTuple):
    """A step's reward and status (``_observe``'s last two results; arrays in a batch)."""

    reward: float  # float64
    status: int  # int8 in a batch: RUNNING, ARRIVED or FAILED


@kernel(inline="never")
def _curvature_table(points, cum, spacing, out):
    """``out[j]`` = signed curvature of the path at arc length ``j spacing``: the Menger
    curvature of the path points at ``s - spacing``, ``s``, ``s + spacing`` (clamped to the
    path, so 0 at the ends). Built once per path; ``_curvature_ahead`` interpolates it."""
    for j in range(out.size):
        s = j * spacing
        ax, ay, _ = point_at(points, cum, s - spacing)
        bx, by, _ = point_at(points, cum, s)
        cx, cy, _ = point_at(points, cum, s + spacing)
        out[j] = menger_curvature(ax, ay, bx, by, cx, cy)


@kernel
def _curvature_ahead(table, spacing, s):
    """Curvature [1/m] at arc length ``s``: linear between the table's nodes; 0 past its end."""
    position = s / spacing
    if not position >= 0.0:
        position = 0.0
    index = math.floor(position)
    last = table.size - 1
    if index >= last:
        return table[last] if index == last and position == last else 0.0
    fraction = position - index
    return table[index] + fraction * (table[index + 1] - table[index])


@kernel
def _observe(state, progress, settings, path, dt, out):
    """One environment's observation (into ``out``), reward and status after a step.

    ``state`` the vehicle's ``VehicleState`` now, ``progress`` the tracked projection of the
    previous frame (``Progress``), ``settings`` an ``ObserveSettings``, ``path`` an
    ``ObservePath``, ``dt`` [s].

    ``out`` = ``[v, cross_track, heading_error, kappa_1 .. kappa_K, v_target]`` with ``K =
    out.size - 4``, ``kappa_k`` the path's curvature at ``s + k spacing``.

    Reward: ``(s - s_last) - cross_track_weight |cross_track| dt - stuck_penalty dt [ground
    speed < stuck_speed]``. Returns ``(s, segment, reward, status)``; a non-finite vehicle state
    is ``FAILED`` (observation zeros, reward 0, ``s`` unchanged).
    """
    x = state.x
    y = state.y
    v = state.v
    v_lat = state.v_lat
    s_last = progress.s
    points = path.points
    cum = path.cum
    no_record = path.no_record
    a_lat = settings.a_lat
    dh = settings.dh
    n = settings.n
    v_min = settings.v_min
    v_max = settings.v_max
    if not (
        math.isfinite(x)
        and math.isfinite(y)
        and math.isfinite(state.yaw)
        and math.isfinite(v)
        and math.isfinite(v_lat)
    ):
        for k in range(out.size):
            out[k] = 0.0
        return s_last, progress.segment, 0.0, FAILED
    # projection, tracked on [s_last - back, s_last + ahead] (the follower's and Table I's)
    s, closest_x, closest_y, closest_z, segment = _project_window(
        points,
        cum,
        x,
        y,
        0.0,
        s_last - settings.back,
        s_last + settings.ahead,
        progress.segment,
    )
    status = ARRIVED if _arrived(points, cum, x, y, s, settings.arrival_radius) else RUNNING
    # errors: the cross-track error is the library's (Polyline.project's, as the Table I
    # observer measures it); the tracked projection's segment gives the path's direction
    cross_track = signed_cross_track(points, cum, x, y, 0.0)
    tangent_x = points[segment + 1, 0] - points[segment, 0]
    tangent_y = points[segment + 1, 1] - points[segment, 1]
    heading_error = wrap_pi(state.yaw - math.atan2(tangent_y, tangent_x))
    # the follower's target speed: Algorithm 1 from the projection, then the end-of-path cap
    speed_target, _, _ = _target_speed(
        points,
        cum,
        (x, y, 0.0),
        (s, closest_x, closest_y, closest_z, segment),
        Algorithm1Params(a_lat, dh, n, v_min, v_max),
        no_record,
    )
    speed_target = _end_speed(speed_target, cum[cum.size - 1] - s, settings.stop_decel, v_min)
    count = out.size - 4
    out[0] = v
    out[1] = cross_track
    out[2] = heading_error
    for k in range(count):
        out[3 + k] = _curvature_ahead(path.table, settings.spacing, s + (k + 1) * settings.spacing)
    out[3 + count] = speed_target
    ground_speed = math.sqrt(v * v + v_lat * v_lat)
    reward = (s - s_last) - settings.cross_track_weight * abs(cross_track) * dt
    if ground_speed < settings.stuck_speed:
        reward -= settings.stuck_penalty * dt
    return s, segment, reward, status


@batch_kernel(serial_limit=HEAVY_SERIAL_LIMIT)
def _observe_batch(state, progress, settings, path, dt, observation, out):
    """``_observe`` for every environment of a batch: ``state`` a ``VehicleState`` of arrays,
    ``progress`` a ``Progress`` of arrays (updated in place), ``observation`` ``(N, 4 + K)``,
    ``out`` an ``Outcome`` of arrays (written); records written by index (``set_agent``)."""
    for i in numba.prange(state.x.size):
        result = _observe(
            agent_params(state, i), agent_params(progress, i), settings, path, dt, observation[i]
        )
        set_agent(progress, i, result[:2])
        set_agent(out, i, result[2:])
