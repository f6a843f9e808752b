"""Reading the T_eta table: nearest entry and 5-D multilinear interpolation of eta.

The table (``steerlab.funnel.table``) samples five coordinates (seed 003, Section 3 and Figure
2): the target's distance ``D`` and radial angle ``alpha`` (its bearing from the forward
direction), the initial angular speed ``omega_c``, the initial forward speed ``v_c`` and the
desired forward speed ``v_d``. The kernels here see it as a ``TableData`` record (flat arrays and
the axes' definitions), so that one argument carries the whole table into a kernel.

Axes and the coordinate of a query on each:

- distance: the sampled distances (geometric from ``D_eta``, dense near the entity); linear in
  ``D`` between samples, clamped below the first. Beyond the last sample ``D_max`` eta is
  extrapolated as ``eta(D_max) D_max / D``: far away the seek path is the initial turn (which does
  not depend on ``D``) and then a straight line, so the final radial direction differs from the
  initial one by the angle the turn's lateral offset subtends from the target, ``~ offset / D``.
  Reachability beyond ``D_max`` is that of ``D_max``.
- radial angle: ``alpha_count`` samples at the centres of equal sectors, ``-pi + (k + 1/2) 2 pi /
  n`` (none exactly ahead or behind, where seek's turn direction flips), periodic.
- angular speed: the fraction ``s = omega_c / omega_lim(v_c)`` of the largest angular speed
  allowed at ``v_c`` (``omega_lim = min(angular_speed_max, A / v_c)``), uniform in ``[-1, 1]``:
  every sampled initial state satisfies ``|v w| <= A``.
- forward speed: uniform in ``[0, speed_max]``.
- desired speed: ``speed_max (k + 1) / n``, ``k = 0 .. n - 1`` (no zero: seek at zero desired
  speed never arrives); clamped.

**Mixed cells**: eta is the multilinear interpolation over the cell's 32
corners *that are reachable*, with their weights renormalised to sum to one; the unreachable
corners, which hold a speed and not an angle, take no part. When no reachable corner has a
positive weight the cell knows no eta: ``_interpolate_eta`` returns ``(0, 0)`` (eta 0, known
weight 0); the funnelling update then takes seek's arrival direction as the radial one, and a
bound on mu read from such a cell is 0 (seek for that frame). Whether a query is reachable at
all is decided, as in the seed's Figure 4 ("If closest T_eta element appears unreachable"), by
the *nearest* entry (``_nearest_entry``), whose stored value is then the desired speed to use.

The kernels read a float32 copy of the table (``TableData.entries``): 1e-7 rad on eta, and the
table stays in a core's cache. ``_interpolate_at`` is compiled once and called, not inlined
(``steerlab._jit.kernel(inline="never")``): inlined at its three call sites it multiplied the cold
compile of the funnel's batch kernels several times (``docs/performance.md``).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from steerlab._jit import kernel

__all__ = ["TableData"]

_TWO_PI = 2.0 * math.pi


class TableData(NamedTuple):
    """The T_eta table as the kernels read it (one argument for a kernel; ``table_data``).

    ``entries`` is the table flat, in C order of the shape ``(distance, alpha, angular, speed,
    desired)``, one pair of float32 per entry: ``(value, reachable)`` with ``value`` eta [rad]
    where ``reachable`` is 1, else the closest reachable desired speed [u/s] (0 if none). One
    array of 8-byte pairs keeps the table (345 kB) in a core's cache and gives the mixed-cell rule
    without a branch (the weight of a corner is multiplied by its ``reachable``). float32 is
    ample: 1e-7 rad on eta. The other fields are the axes and their precomputed scales (the
    kernels multiply, never divide).
    """

    distances: np.ndarray  # [u] sampled distances, increasing; distances[0] is D_eta
    distance_scales: np.ndarray  # [1/u] 1 / (distances[i + 1] - distances[i])
    alpha_count: int
    angular_count: int
    speed_count: int
    desired_count: int
    alpha_scale: float  # [1/rad] alpha_count / (2 pi)
    speed_scale: float  # [s/u] (speed_count - 1) / speed_max
    desired_low: float  # [u/s] the first desired speed, speed_max / desired_count
    desired_scale: float  # [s/u] (desired_count - 1) / (speed_max - desired_low)
    inverse_angular_speed_max: float  # [s/rad] 1 / angular_speed_max
    inverse_normal_accel_max: float  # [s^2/u] 1 / A
    entries: np.ndarray  # (size, 2) float32: (value, reachable)


def table_data(
    distances: np.ndarray,
    shape: tuple[int, ...],
    speed_max: float,
    angular_speed_max: float,
    normal_accel_max: float,
    reachable: np.ndarray,
    value: np.ndarray,
) -> TableData:
    """The kernels' record of a table (``reachable`` bool and ``value`` of shape ``shape``)."""
    distances = np.ascontiguousarray(distances, dtype=np.float64)
    scales = np.zeros_like(distances)
    scales[:-1] = 1.0 / np.diff(distances)
    entries = np.empty((int(np.prod(shape)), 2), np.float32)
    entries[:, 0] = np.ravel(value)
    entries[:, 1] = np.ravel(reachable)
    desired_count = int(shape[4])
    desired_low = speed_max / desired_count
    return TableData(
        distances,
        scales,
        int(shape[1]),
        int(shape[2]),
        int(shape[3]),
        desired_count,
        float(shape[1] / (2.0 * math.pi)),
        float((shape[3] - 1) / speed_max),
        float(desired_low),
        float((desired_count - 1) / (speed_max - desired_low)),
        float(1.0 / angular_speed_max),
        float(1.0 / normal_accel_max),
        entries,
    )


def empty_table_data() -> TableData:
    """A placeholder of the right types for kernels called without a table (never read)."""
    shape = (2, 4, 2, 2, 2)
    return table_data(
        np.array([1.0, 2.0]), shape, 1.0, 1.0, 1.0, np.zeros(shape, bool), np.zeros(shape)
    )


@kernel
def _uniform_axis(position, count):
    """Cell ``i`` and fraction ``t`` of a position in sample units on ``count`` uniform samples,
    clamped to the axis."""
    position = min(max(position, 0.0), count - 1.0)
    index = min(int(position), count - 2)
    return index, position - index


@kernel
def _distance_axis(distance, table):
    """Cell and fraction of ``distance`` on the sampled distances (clamped to the axis)."""
    distances = table.distances
    index = 0
    for k in range(1, distances.size - 1):  # branch-free count of the samples at or below
        index += distance >= distances[k]
    fraction = (distance - distances[index]) * table.distance_scales[index]
    return index, min(max(fraction, 0.0), 1.0)


@kernel
def _alpha_axis(alpha, table):
    """Cell (two neighbours, periodic) and fraction of a radial angle on the sector centres."""
    count = table.alpha_count
    position = (alpha + math.pi) * table.alpha_scale - 0.5
    low = math.floor(position)
    fraction = position - low
    first = int(low) % count  # any angle: the sectors repeat every 2 pi
    second = first + 1 if first + 1 < count else 0
    return first, second, fraction


@kernel
def _angular_fraction(speed, angular_speed, table):
    """``omega_c / omega_lim(v_c)``, the angular coordinate, with ``omega_lim = min(omega_max, A
    / v_c)`` the unicycle's bound (``steerlab.engines.unicycle.angular_speed_limit``, which the
    table's build multiplies by the fraction), computed as its reciprocal ``max(1 / omega_max,
    v_c / A)`` from the table's stored inverses: a query multiplies, never divides."""
    limit = max(table.inverse_angular_speed_max, speed * table.inverse_normal_accel_max)
    return angular_speed * limit


@kernel
def _position(table, distance, alpha, angular, speed):
    """Cell of a query on the first four axes (``angular`` is the fraction ``s``):
    ``(i_d, t_d, a_0, a_1, t_a, i_s, t_s, i_v, t_v)``."""
    i_d, t_d = _distance_axis(distance, table)
    a_0, a_1, t_a = _alpha_axis(alpha, table)
    i_s, t_s = _uniform_axis((angular + 1.0) * 0.5 * (table.angular_count - 1), table.angular_count)
    i_v, t_v = _uniform_axis(speed * table.speed_scale, table.speed_count)
    return i_d, t_d, a_0, a_1, t_a, i_s, t_s, i_v, t_v


@kernel
def _desired_axis(table, desired):
    """Cell and fraction of a desired speed."""
    return _uniform_axis((desired - table.desired_low) * table.desired_scale, table.desired_count)


@kernel(inline="never")
def _interpolate_at(table, position, i_u, t_u, distance):
    """Multilinear eta over the reachable corners of a cell: ``(eta, known_weight)``.

    The 32 corners are visited as nested pairs, one axis at a time, the partial weight carried
    down; the desired-speed pair is adjacent in memory. A corner's weight is multiplied by its
    ``reachable`` (0 or 1): the mixed-cell rule without a branch; pairs of zero weight are not
    read. ``distance`` gives the far-field factor.
    """
    i_d, t_d, a_0, a_1, t_a, i_s, t_s, i_v, t_v = position
    stride_v = table.desired_count
    stride_s = table.speed_count * stride_v
    stride_a = table.angular_count * stride_s
    stride_d = table.alpha_count * stride_a
    inner = i_s * stride_s + i_v * stride_v + i_u
    entries = table.entries
    total = 0.0
    known = 0.0
    for b_d in range(2):
        w_d = t_d if b_d else 1.0 - t_d
        offset_d = (i_d + b_d) * stride_d + inner
        for b_a in range(2):
            w_a = w_d * (t_a if b_a else 1.0 - t_a)
            offset_a = offset_d + (a_1 if b_a else a_0) * stride_a
            for b_s in range(2):
                w_s = w_a * (t_s if b_s else 1.0 - t_s)
                offset_s = offset_a + b_s * stride_s
                for b_v in range(2):
                    w_v = w_s * (t_v if b_v else 1.0 - t_v)
                    if w_v == 0.0:
                        continue
                    k = offset_s + b_v * stride_v
                    low = w_v * (1.0 - t_u) * entries[k, 1]
                    high = w_v * t_u * entries[k + 1, 1]
                    total += low * entries[k, 0] + high * entries[k + 1, 0]
                    known += low + high
    eta = total / known if known > 0.0 else 0.0
    last = table.distances[table.distances.size - 1]
    far = last / distance if distance > last else 1.0  # the far-field 1/D law
    return eta * far, known


@kernel
def _nearest_at(table, position, i_u, t_u):
    """The nearest entry of a cell (rounded coordinates): ``(reachable, value)``."""
    i_d, t_d, a_0, a_1, t_a, i_s, t_s, i_v, t_v = position
    a = a_1 if t_a >= 0.5 else a_0
    index = (
        (
            (
                ((i_d + (t_d >= 0.5)) * table.alpha_count + a) * table.angular_count
                + i_s
                + (t_s >= 0.5)
            )
            * table.speed_count
            + i_v
            + (t_v >= 0.5)
        )
        * table.desired_count
        + i_u
        + (t_u >= 0.5)
    )
    return table.entries[index, 1] != 0.0, np.float64(table.entries[index, 0])


@kernel
def _interpolate_eta(table, distance, alpha, angular, speed, desired):
    """Multilinear eta over the reachable corners (module docstring): ``(eta, known_weight)``.

    ``angular`` is the fraction ``s`` (``_angular_fraction``). ``known_weight`` in ``[0, 1]`` is
    the share of the interpolation weight held by reachable corners; 0 means "no eta here"
    (eta returned as 0).
    """
    position = _position(table, distance, alpha, angular, speed)
    i_u, t_u = _desired_axis(table, desired)
    return _interpolate_at(table, position, i_u, t_u, distance)


@kernel
def _nearest_entry(table, distance, alpha, angular, speed, desired):
    """The nearest entry (rounded coordinates): ``(reachable, value)``, the seed's "closest
    T_eta element"; value is eta if reachable, else the stored desired speed."""
    position = _position(table, distance, alpha, angular, speed)
    i_u, t_u = _desired_axis(table, desired)
    return _nearest_at(table, position, i_u, t_u)
