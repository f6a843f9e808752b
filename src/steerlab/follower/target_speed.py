"""Target speed generation (seed 001, Algorithm 1): Bezier curvature of the path ahead.

Seed 001, Algorithm 1 "Compute Target Speed", with inputs ``r`` (vehicle position), ``P``
(path), ``a_lat``, ``dh``, ``N``, ``v_min``, ``v_max``::

    1: Initialize empty array P~ with r
    2: for i = 2, 3, ..., N do
    3:     Compute next point p_i on path P a distance dh away from P~[i-1]
    4:     Append p_i to P~
    5: kappa_max <- 0
    6: for i = 1, 2, ..., N-2 do
    7:     c_i <- P~[i], P~[i+1], P~[i+2]
    8:     Compute max curvature kappa_i for Bezier curve with control points c_i   (Eq. 3 / 4)
    9:     kappa_max <- max(kappa_max, kappa_i)
    10: v_target <- sqrt((a_lat g) (kappa_max)^-1)                                 (Eq. 1)
    11: v_target <- clamp(v_target, v_min, v_max)

``_target_speed`` is that algorithm line for line; the maximum curvature of line 8 is the
geometry kernel ``steerlab.geometry.kernels.bezier_max_curvature`` (Eq. 3 / 4), and line 3 is
``steerlab.geometry.kernels.next_point``'s definition, computed by its walk
``next_point_walk`` continued from each point found (no search of the path per point).
``g = 9.81 m/s^2``.

Readings (``docs/design.md``, "Path follower"):

- **Line 3.** "A distance dh away from P~[i-1]" is read as the first point of the path, at or
  after the previous point's arc length, whose Euclidean distance from ``P~[i-1]`` is at least
  ``dh``: ``s_i = min{s >= s_(i-1) : |P(s) - P~[i-1]| >= dh}``, or the path end if there is
  none (``next_point``). For ``i = 2`` the arc length starts at the projection of ``r`` on the
  path. On the path this is the point exactly ``dh`` ahead. For a vehicle ``dh`` or more off the
  path, ``p_2`` is its projection, so the first curve ``(r, projection, p_3)`` turns by about 90
  degrees and the target speed drops, more the farther the vehicle is: the paper's promise "since
  the first Bezier curve is always defined by the vehicle position and two points on the path P,
  we ensure the target speed is decreased whenever the vehicle is too far away from the path"
  (tested). A vehicle closer than ``dh`` gets a ``p_2`` that is ``dh`` from it, and a first curve
  that bends more the farther it is from the path. Measured on a straight path with the
  paper's values: not slowed up to about 2 m off, then slower and slower up to ``dh``; from
  ``dh`` on, the first curve is a right angle with legs ``d`` and ``dh``, whose maximum curvature
  ``(d^2 + dh^2)^1.5 / (2 d^2 dh^2)`` is smallest at ``d = dh sqrt(2)``: the speed stays below
  Eq. 1 of ``3 sqrt(3) / (4 dh)`` (4.26 m/s), rising a little from 4.08 m/s at 6 m to that
  bound at 8.5 m (not monotone there), then falls to ``v_min`` (1 m/s from about 190 m).
  Reading "dh along the path from the projection" instead would make ``p_2 .. p_N``
  independent of the distance to the path and only the first curve's first leg would carry it;
  the chosen reading keeps the spacing of ``P~`` at ``dh`` (the paper's "sampling points ...
  at regular intervals of size dh").
- **Path end.** When ``p_i`` reaches the end of ``P``, sampling stops: ``P~`` has fewer than
  ``N`` points and fewer than ``N - 2`` curves (none if it has two points, then ``kappa_max = 0``
  and the speed is ``v_max``). A path end is not a curvature. Repeating the end point would give
  the same result (a Bezier curve whose last two control points coincide is straight, Eq. 4 with
  the geometry kernel's degenerate cases); stopping is cheaper.
- **Degenerate curves** (the geometry kernel's rules): straight -> 0, a reversal (e.g. a
  180-degree hairpin shorter than ``dh``) -> ``inf``, so the speed is ``v_min``. Eq. 1 with
  ``kappa_max = 0`` is ``inf`` before the clamp, so ``v_max``.
- **Planar or 3-D.** ``target_speed`` takes 2-D or 3-D positions and paths (the paper's ``r`` and
  ``p_i`` are in R^3; Eq. 3 / 4 hold in 3-D); the follower works in the ground plane.

``_end_speed`` is not part of Algorithm 1: the follower caps the target speed near the path end
so that the vehicle arrives at ``v_min`` (``FollowerParams.stop_decel``).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np

from steerlab._checks import check_finite_array, check_nonnegative, check_positive
from steerlab._jit import batch_kernel, kernel
from steerlab._per_agent import agent_params, set_agent
from steerlab.follower.params import GRAVITY, MOST_SAMPLES
from steerlab.follower.paths import _agent_path
from steerlab.geometry.kernels import bezier_max_curvature, next_point_walk, project, unit_leg
from steerlab.geometry.polyline import Polyline

__all__ = ["Algorithm1Params", "sampled_path", "target_speed"]

_NO_RECORD = np.empty((0, 3))  # pass as ``record`` when P~ is not wanted


class Algorithm1Params(NamedTuple):
    """The inputs of Algorithm 1 besides ``r`` and ``P`` (seed 001, Section III values).

    ``_target_speed`` reads them by name, so the follower's ``TargetSpeedParams``, which holds
    the same fields, serves as well.
    """

    a_lat: float = 0.4  # [g] maximum lateral acceleration of Eq. 1
    dh: float = 6.0  # [m] spacing of P~
    n: int = 5  # [-] points of P~ (N)
    v_min: float = 1.0  # [m/s] clamp of the target speed
    v_max: float = 10.0  # [m/s]


@kernel
def _target_speed(points, cum, position, projection, params, record):
    """Seed 001, Algorithm 1: ``(v_target, kappa_max, count)`` for the vehicle at ``r``.

    ``points`` ``(m, 3)`` and ``cum`` ``(m,)`` are the path (``Polyline.points_3d`` and
    ``cumulative_length``, or slices of packed paths). ``position`` ``(rx, ry, rz)`` is ``r``;
    ``projection`` ``(s, x, y, z, segment)`` its projection on the path (arc length, the point,
    its segment, as ``target_point._project_window`` returns it and ``project`` begins), where
    line 3 starts looking for ``p_2``. ``params``: ``a_lat`` [g], ``dh`` [m], ``n`` (the number
    of points of ``P~``), ``v_min``, ``v_max`` [m/s], read by name (an ``Algorithm1Params``, or
    the follower's ``TargetSpeedParams``).
    ``count`` is the number of points of ``P~`` (``<= n``: sampling stops at the path end).
    ``record``: an ``(n, 3)`` array receives ``P~`` (rows ``0 .. count - 1``), or pass an array
    with no rows to skip recording.
    """
    rx, ry, rz = position
    s_from, sx, sy, sz, segment = projection
    dh = params.dh
    keep = record.shape[0] > 0
    if keep:  # line 1: P~ = [r]
        record[0, 0] = rx
        record[0, 1] = ry
        record[0, 2] = rz
    # lines 2-4 for i = 2: line 3 walks the path forward from the projection of r; each later
    # search starts at the previous point found (its arc length, segment and exact coordinates)
    s, bx, by, bz, segment = next_point_walk(
        points, cum, segment, s_from, sx, sy, sz, rx, ry, rz, dh
    )
    if keep:
        record[1, 0] = bx
        record[1, 1] = by
        record[1, 2] = bz
    count = 2
    # the last two points of P~ are kept, (ax, ay, az) = P~[i-2] and (bx, by, bz) = P~[i-1]; the
    # curves of lines 6-9 are evaluated as soon as their third point is known
    ax, ay, az = rx, ry, rz
    kappa_max = 0.0  # line 5
    # the path end, up to rounding: a point found a few ulps short of the end (arc lengths are
    # sums) would otherwise be followed by the end itself, a second point at the same place,
    # whose "curve" turns by an arbitrary angle (a false cusp, kappa ~ 1e28)
    end = cum[cum.size - 1] - 1e-9 * dh
    for _ in range(3, params.n + 1):  # lines 2-4 for i = 3 .. N
        if s >= end:
            break  # the previous point is the path end: no further point, no further curve
        if cum[segment + 1] - s >= dh:
            # P~[i-1] is on this segment, which goes on for dh or more: the walk's first step
            # from P~[i-1] itself (w = 0, u = sqrt(fl(dh^2)) = dh exactly) is the point dh
            # further on it
            s += dh
            tx, ty, tz = unit_leg(points, cum, segment)
            px = bx + dh * tx
            py = by + dh * ty
            pz = bz + dh * tz
        else:
            # the segment ends within dh of P~[i-1] (the first step fails): the walk goes on
            # from the segment's end
            segment += 1
            s, px, py, pz, segment = next_point_walk(
                points,
                cum,
                segment,
                cum[segment],
                points[segment, 0],
                points[segment, 1],
                points[segment, 2],
                bx,
                by,
                bz,
                dh,
            )  # line 3
        # lines 7-9 for the curve (P~[i-2], P~[i-1], p_i)
        kappa_max = max(kappa_max, bezier_max_curvature(ax, ay, az, bx, by, bz, px, py, pz))
        if keep:
            record[count, 0] = px
            record[count, 1] = py
            record[count, 2] = pz
        ax, ay, az = bx, by, bz
        bx, by, bz = px, py, pz  # line 4
        count += 1
    # line 10 (Eq. 1); kappa_max = 0 is a straight path: inf before the clamp; inf -> 0
    speed = math.sqrt(params.a_lat * GRAVITY / kappa_max) if kappa_max > 0.0 else math.inf
    speed = min(max(speed, params.v_min), params.v_max)  # line 11
    return speed, kappa_max, count


@kernel
def _end_speed(v_target, remaining, stop_decel, v_min):
    """The target speed capped ``remaining`` metres of path before its end [m/s].

    ``min(v_target, max(sqrt(2 stop_decel remaining), v_min))``: the cap is the speed from which a
    constant deceleration ``stop_decel`` stops at the end, but never below ``v_min`` (the vehicle
    reaches the end). ``stop_decel = inf``: no cap. The square root is only taken when the cap
    binds (``2 stop_decel remaining < v_target^2``; same result, ``sqrt(fl(v^2)) = v``).
    """
    reach2 = 2.0 * stop_decel * max(remaining, 0.0)
    if stop_decel == math.inf or reach2 >= v_target * v_target:
        return v_target
    return min(v_target, max(math.sqrt(reach2), v_min))


@batch_kernel
def _target_speed_batch(positions, projections, paths, params, out):
    """Algorithm 1 for many vehicles, each on its own path of the packed ``paths`` (a
    ``paths._PackedPaths``). ``positions`` ``(x, y, z)`` and ``projections`` ``(s, x, y, z,
    segment)``: arrays, one entry per vehicle; a vehicle's projection of ``r`` if known (the
    follower has it), or a NaN ``s`` to project ``r`` on the whole path first, as
    ``target_speed`` does. ``params`` an ``Algorithm1Params``, any field one value per vehicle
    (``agent_params``). ``out`` ``(v_target, kappa_max)`` arrays, written by index in the loop
    (``set_agent``), ``_target_speed`` inlined: no call per vehicle."""
    for i in numba.prange(positions[0].size):
        # fields read by name: numba's parfor analysis fails on unpacking arrays of two ranks
        path = _agent_path(paths, i)
        position = (positions[0][i], positions[1][i], positions[2][i])
        projection = (
            projections[0][i],
            projections[1][i],
            projections[2][i],
            projections[3][i],
            projections[4][i],
        )
        if projection[0] != projection[0]:  # not known: on the whole path
            projection = project(path.points, path.cum, position[0], position[1], position[2])[:5]
        speed, kappa, _ = _target_speed(
            path.points, path.cum, position, projection, agent_params(params, i), path.points[:0]
        )
        set_agent(out, i, (speed, kappa))


# --------------------------------------------------------------------------------------------------
# public functions


def target_speed(position, path_points, a_lat=0.4, dh=6.0, n=5, v_min=1.0, v_max=10.0) -> float:
    """Target speed [m/s] of a vehicle at ``position`` on ``path_points``: seed 001, Algorithm 1.

    Samples ``P~``: ``r``, then ``n - 1`` points of the path, each the first one at least ``dh``
    from the previous (from the projection of ``r`` on), takes the largest Eq. 3 / 4 curvature of
    the ``n - 2`` quadratic Bezier curves of three consecutive points, and returns Eq. 1,
    ``sqrt(a_lat g / kappa_max)`` with ``g = 9.81``, clamped to ``[v_min, v_max]``. See the
    module docstring for the reading of line 3 and the path end.

    Parameters
    ----------
    position : array_like, shape (dim,)
        The vehicle position ``r`` [m], of the path's dimension (2 or 3).
    path_points : array_like of shape (k, dim), or Polyline
        The path ``P`` [m]: at least 2 distinct finite points.
    a_lat : float
        Maximum lateral acceleration [g], > 0 (seed 001: 0.4).
    dh : float
        Spacing [m] of ``P~``, > 0 (seed 001: 6).
    n : int
        Number of points of ``P~``, >= 2 (seed 001: 5).
    v_min, v_max : float
        Speed clamp [m/s], ``0 <= v_min <= v_max`` (seed 001: 1 and 10); ``v_max`` may be inf.

    Returns
    -------
    float
        The target speed [m/s], in ``[v_min, v_max]``.
    """
    path, point, params = _prepare(position, path_points, a_lat, dh, n, v_min, v_max)
    speed, _, _ = _target_speed(*_along(path, point), params, _NO_RECORD)
    return float(speed)


def sampled_path(position, path_points, dh=6.0, n=5) -> np.ndarray:
    """The points ``P~`` Algorithm 1 samples (lines 1-4), shape ``(count, dim)``, ``count <= n``.

    Row 0 is ``position``; sampling stops at the path end. Same kernel as ``target_speed``.
    """
    path, point, params = _prepare(position, path_points, 0.4, dh, n, 0.0, math.inf)
    record = np.empty((params.n, 3))
    _, _, count = _target_speed(*_along(path, point), params, record)
    return record[:count, : path.dim]


def _along(path: Polyline, point: tuple) -> tuple:
    """``(points, cum, position, projection)`` of ``_target_speed`` for ``point`` on ``path``."""
    points, cum = path.points_3d, path.cumulative_length
    s, x, y, z, segment, _ = project(points, cum, *point)
    return points, cum, point, (s, x, y, z, segment)


def _prepare(position, path_points, a_lat, dh, n, v_min, v_max):
    path = path_points if isinstance(path_points, Polyline) else Polyline(path_points)
    try:
        array = np.asarray(position, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"position must be a {path.dim}-D point, got {position!r}") from None
    if array.shape != (path.dim,):
        raise ValueError(
            f"position must be a {path.dim}-D point like the path, got shape {array.shape}: "
            f"{position!r}"
        )
    array = check_finite_array("position", array)
    point = (float(array[0]), float(array[1]), float(array[2]) if path.dim == 3 else 0.0)
    a_lat = check_positive("a_lat", a_lat, per_agent=False)
    dh = check_positive("dh", dh, per_agent=False)
    most = MOST_SAMPLES
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or not 2 <= n <= most:
        raise ValueError(f"n must be an integer from 2 to {most}, got {n!r}")
    v_min = check_nonnegative("v_min", v_min, per_agent=False)
    v_max = check_positive("v_max", v_max, allow_inf=True, per_agent=False)
    if not v_min <= v_max:
        raise ValueError(f"v_max must be >= v_min ({v_min!r}), got {v_max!r}")
    return path, point, Algorithm1Params(a_lat, dh, int(n), v_min, v_max)
