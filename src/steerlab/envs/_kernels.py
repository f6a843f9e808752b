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

``_observe_batch`` calls it in ``prange``, so a vector environment equals N single ones bit for
bit. No gymnasium import here: the kernels only need numba.
"""

from __future__ import annotations

import math

import numba

from steerlab._jit import HEAVY_SERIAL_LIMIT, batch_kernel, kernel
from steerlab.follower.follower import _arrived
from steerlab.follower.target_point import _project_window
from steerlab.follower.target_speed import Algorithm1Params, _end_speed, _target_speed
from steerlab.geometry.kernels import point_at, signed_cross_track, wrap_pi

__all__: list[str] = []

RUNNING, ARRIVED, FAILED = 0, 1, 2  # status of an environment after a step


@kernel
def _menger_curvature(ax, ay, bx, by, cx, cy):
    """Signed curvature [1/m] of the circle through three points (Menger curvature):
    ``2 ((b - a) x (c - a)) / (|b - a| |c - b| |c - a|)``, positive turning left; 0 when two
    points coincide (a path end) or the three are collinear."""
    abx = bx - ax
    aby = by - ay
    acx = cx - ax
    acy = cy - ay
    bcx = cx - bx
    bcy = cy - by
    denominator = math.sqrt(
        (abx * abx + aby * aby) * (bcx * bcx + bcy * bcy) * (acx * acx + acy * acy)
    )
    if denominator == 0.0:
        return 0.0
    return 2.0 * (abx * acy - aby * acx) / denominator


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
        out[j] = _menger_curvature(ax, ay, bx, by, cx, cy)


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
def _observe(
    points,
    cum,
    table,
    spacing,
    no_record,
    x,
    y,
    yaw,
    v,
    v_lat,
    s_last,
    segment_last,
    dt,
    settings,
    out,
):
    """One environment's observation (into ``out``), reward and status after a step.

    ``points`` ``(m, 3)``, ``cum`` ``(m,)``: the planar path; ``table``: its curvature table at
    ``spacing`` [m]; ``no_record``: a writable ``(0, 3)`` array (Algorithm 1's ``P~`` is not
    recorded). ``(x, y, yaw, v, v_lat)``: the vehicle now; ``s_last``, ``segment_last``:
    the tracked projection of the previous frame; ``dt`` [s]. ``settings`` = ``(back, ahead,
    arrival_radius, a_lat, dh, n, v_min, v_max, stop_decel, cross_track_weight, stuck_penalty,
    stuck_speed)``.

    ``out`` = ``[v, cross_track, heading_error, kappa_1 .. kappa_K, v_target]`` with ``K =
    out.size - 4``, ``kappa_k`` the path's curvature at ``s + k spacing``.

    Reward: ``(s - s_last) - cross_track_weight |cross_track| dt - stuck_penalty dt [ground
    speed < stuck_speed]``. Returns ``(s, segment, reward, status)``; a non-finite vehicle state
    is ``FAILED`` (observation zeros, reward 0, ``s`` unchanged).
    """
    (
        back,
        ahead,
        arrival_radius,
        a_lat,
        dh,
        n,
        v_min,
        v_max,
        stop_decel,
        cross_track_weight,
        stuck_penalty,
        stuck_speed,
    ) = settings
    if not (
        math.isfinite(x)
        and math.isfinite(y)
        and math.isfinite(yaw)
        and math.isfinite(v)
        and math.isfinite(v_lat)
    ):
        for k in range(out.size):
            out[k] = 0.0
        return s_last, segment_last, 0.0, FAILED
    # projection, tracked on [s_last - back, s_last + ahead] (the follower's and Table I's)
    s, closest_x, closest_y, closest_z, segment = _project_window(
        points, cum, x, y, 0.0, s_last - back, s_last + ahead, segment_last
    )
    status = ARRIVED if _arrived(points, cum, x, y, s, arrival_radius) else RUNNING
    # errors: the cross-track error is the library's (Polyline.project's, as the Table I
    # observer measures it); the tracked projection's segment gives the path's direction
    cross_track = signed_cross_track(points, cum, x, y, 0.0)
    tangent_x = points[segment + 1, 0] - points[segment, 0]
    tangent_y = points[segment + 1, 1] - points[segment, 1]
    heading_error = wrap_pi(yaw - math.atan2(tangent_y, tangent_x))
    # the follower's target speed: Algorithm 1 from the projection, then the end-of-path cap
    speed_target, _, _ = _target_speed(
        points,
        cum,
        (x, y, 0.0),
        (s, closest_x, closest_y, closest_z, segment),
        Algorithm1Params(a_lat, dh, n, v_min, v_max),
        no_record,
    )
    speed_target = _end_speed(speed_target, cum[cum.size - 1] - s, stop_decel, v_min)
    count = out.size - 4
    out[0] = v
    out[1] = cross_track
    out[2] = heading_error
    for k in range(count):
        out[3 + k] = _curvature_ahead(table, spacing, s + (k + 1) * spacing)
    out[3 + count] = speed_target
    ground_speed = math.sqrt(v * v + v_lat * v_lat)
    reward = (s - s_last) - cross_track_weight * abs(cross_track) * dt
    if ground_speed < stuck_speed:
        reward -= stuck_penalty * dt
    return s, segment, reward, status


@batch_kernel(serial_limit=HEAVY_SERIAL_LIMIT)
def _observe_batch(
    x,
    y,
    yaw,
    v,
    v_lat,
    s,
    segment,
    points,
    cum,
    table,
    spacing,
    no_record,
    dt,
    settings,
    out,
    reward,
    status,
):
    """``_observe`` for every environment of a batch: ``s`` and ``segment`` updated in place,
    ``out`` ``(N, 4 + K)``, ``reward`` ``(N,)`` float64, ``status`` ``(N,)`` int8."""
    for i in numba.prange(x.size):
        s[i], segment[i], reward[i], status[i] = _observe(
            points,
            cum,
            table,
            spacing,
            no_record,
            x[i],
            y[i],
            yaw[i],
            v[i],
            v_lat[i],
            s[i],
            segment[i],
            dt,
            settings,
            out[i],
        )
