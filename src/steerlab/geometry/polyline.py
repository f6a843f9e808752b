"""Polylines: arc length, projection, point at an arc length, next point at a distance.

A path is a list of 2-D or 3-D waypoints joined by straight segments, with an optional corridor
width per segment (``docs/design.md``, "Files and formats"). ``Polyline`` validates once and holds
the points as an ``(n, 3)`` float64 array (2-D points padded with ``z = 0``) with the cumulative arc
length ``cum`` of shape ``(n,)``. Every geometric query is a numba kernel of ``(points, cum, ...)``
so that batch code (many agents, one path each: points concatenated, plus offsets) calls the same
kernels on slices ``points[start:stop]``, ``cum[start:stop]``. The kernels measure arc length in the
units of ``cum``: ``s`` runs from ``cum[0]`` (0 for a ``Polyline``) to ``cum[-1]``.

Segment ``i`` joins ``points[i]`` and ``points[i + 1]``, in the user's numbering. Repeated
consecutive points (zero-length segments) are kept; queries never land on them: the segment of an
arc length is always one that advances ``cum``, and projection skips segments of zero length (their
point is also the end of a neighbouring segment). Lengths are floating point: a segment too short to
change ``cum`` (shorter than about ``1e-16`` times the arc length before it, or than ``1e-154`` m,
where its squared length underflows) is not the segment of any arc length.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from steerlab._checks import check_finite, check_finite_array, check_positive
from steerlab._jit import kernel

__all__ = ["Polyline", "Projection"]


# --------------------------------------------------------------------------------------------------
# kernels


@kernel
def _cumulative_length(points, out):
    """``out[i]`` = arc length from ``points[0]`` to ``points[i]``; ``points`` ``(n, 3)``."""
    out[0] = 0.0
    for i in range(points.shape[0] - 1):
        dx = points[i + 1, 0] - points[i, 0]
        dy = points[i + 1, 1] - points[i, 1]
        dz = points[i + 1, 2] - points[i, 2]
        out[i + 1] = out[i] + math.sqrt(dx * dx + dy * dy + dz * dz)


@kernel
def _segment_at(cum, s):
    """Index ``i`` of the segment of positive length with ``cum[i] <= s <= cum[i + 1]``.

    ``s`` is clamped to ``[cum[0], cum[-1]]``. At a vertex the segment that starts there is
    returned, at the path end the last segment of positive length. Returns 0 if every segment has
    zero length.
    """
    last = cum.size - 1
    s = min(max(s, cum[0]), cum[last])
    index = np.searchsorted(cum, s, side="right") - 1
    if index > last - 1:
        index = last - 1
    if index < 0:
        index = 0
    while index > 0 and cum[index + 1] <= cum[index]:
        index -= 1
    return index


@kernel
def _segment_near(cum, s, hint):
    """``_segment_at(cum, s)`` found by walking from segment ``hint`` instead of a binary search:
    the same index, cheaper when ``hint`` is near (a few segments from ``s``)."""
    last = cum.size - 1
    s = min(max(s, cum[0]), cum[last])
    index = min(max(hint, 0), last - 1)
    while index > 0 and cum[index] > s:
        index -= 1
    while index < last - 1 and cum[index + 1] <= s:
        index += 1  # the last segment (before the last point) starting at or before s
    while index > 0 and cum[index + 1] <= cum[index]:
        index -= 1
    return index


@kernel
def _point_at(points, cum, s):
    """``(x, y, z)`` of the point at arc length ``s``, clamped to ``[cum[0], cum[-1]]``.

    The ends of a segment are returned exactly (no rounding of ``a + 1 (b - a)``), and the ends
    of the path too (even after a segment too short to change ``cum``).
    """
    return _point_near(points, cum, s, _segment_at(cum, s))


@kernel
def _point_near(points, cum, s, hint):
    """``_point_at(points, cum, s)``, its segment found from segment ``hint`` near ``s``
    (``_segment_near``; from ``_segment_at``'s own index the walk takes no step): the same
    point."""
    last = cum.size - 1
    if s <= cum[0]:
        return points[0, 0], points[0, 1], points[0, 2]
    if s >= cum[last]:
        return points[last, 0], points[last, 1], points[last, 2]
    return _point_on_segment(points, cum, _segment_near(cum, s, hint), s)


@kernel
def _point_on_segment(points, cum, index, s):
    """``(x, y, z)`` of the point at arc length ``s`` of segment ``index`` (``cum[index] <= s <=
    cum[index + 1]``); its ends exactly, a zero-length segment gives its start."""
    span = cum[index + 1] - cum[index]
    fraction = (s - cum[index]) / span if span > 0.0 else 0.0
    if fraction <= 0.0:
        return points[index, 0], points[index, 1], points[index, 2]
    if fraction >= 1.0:
        return points[index + 1, 0], points[index + 1, 1], points[index + 1, 2]
    x = points[index, 0] + fraction * (points[index + 1, 0] - points[index, 0])
    y = points[index, 1] + fraction * (points[index + 1, 1] - points[index, 1])
    z = points[index, 2] + fraction * (points[index + 1, 2] - points[index, 2])
    return x, y, z


@kernel
def _heading_at(points, cum, s):
    """Yaw [rad] of the segment at arc length ``s`` (``atan2`` of its xy direction).

    The segment is the one ``_segment_at`` returns. If its xy direction is zero (a vertical
    segment in 3-D) the next segment with a horizontal direction is used, else the previous one,
    else the heading is 0.
    """
    index = _segment_at(cum, s)
    for candidate in range(index, cum.size - 1):
        dx = points[candidate + 1, 0] - points[candidate, 0]
        dy = points[candidate + 1, 1] - points[candidate, 1]
        if dx != 0.0 or dy != 0.0:
            return math.atan2(dy, dx)
    for candidate in range(index - 1, -1, -1):
        dx = points[candidate + 1, 0] - points[candidate, 0]
        dy = points[candidate + 1, 1] - points[candidate, 1]
        if dx != 0.0 or dy != 0.0:
            return math.atan2(dy, dx)
    return 0.0


@kernel
def _project(points, cum, px, py, pz):
    """Closest point of the path to ``(px, py, pz)`` (Euclidean, in 3-D).

    Returns ``(s, x, y, z, segment, cross_track)``: arc length of the closest point, the closest
    point, the index of its segment, and the signed distance to it. The sign is that of the
    z-component of ``tangent_xy x (p - closest)_xy`` (positive: left of the direction of travel)
    with the tangent of the closest point's segment; if that is zero and the closest point is a
    vertex, the other segment meeting there decides; if that is zero too, positive. On ties the
    smallest ``s`` wins; at a vertex that is the segment ending there. Zero-length segments are
    skipped; if every segment has zero length the result is ``points[0]`` with segment 0.
    """
    count = points.shape[0] - 1
    best_distance2 = math.inf
    best_segment = -1
    best_end = 0  # -1: closest point is the segment's start vertex, +1: its end, 0: in between
    best_s = cum[0]
    best_x = points[0, 0]
    best_y = points[0, 1]
    best_z = points[0, 2]
    for i in range(count):
        ax = points[i, 0]
        ay = points[i, 1]
        az = points[i, 2]
        dx = points[i + 1, 0] - ax
        dy = points[i + 1, 1] - ay
        dz = points[i + 1, 2] - az
        length2 = dx * dx + dy * dy + dz * dz
        if length2 == 0.0:
            continue
        fraction = ((px - ax) * dx + (py - ay) * dy + (pz - az) * dz) / length2
        if fraction <= 0.0:
            end = -1
            cx, cy, cz = ax, ay, az
            s = cum[i]
        elif fraction >= 1.0:
            end = 1
            cx, cy, cz = points[i + 1, 0], points[i + 1, 1], points[i + 1, 2]
            s = cum[i + 1]
        else:
            end = 0
            cx = ax + fraction * dx
            cy = ay + fraction * dy
            cz = az + fraction * dz
            s = cum[i] + fraction * (cum[i + 1] - cum[i])
        ex = px - cx
        ey = py - cy
        ez = pz - cz
        distance2 = ex * ex + ey * ey + ez * ez
        if distance2 < best_distance2:
            best_distance2 = distance2
            best_segment = i
            best_end = end
            best_s = s
            best_x, best_y, best_z = cx, cy, cz
    if best_segment < 0:
        ex = px - best_x
        ey = py - best_y
        ez = pz - best_z
        return best_s, best_x, best_y, best_z, 0, math.sqrt(ex * ex + ey * ey + ez * ez)
    distance = math.sqrt(best_distance2)
    offset_x = px - best_x
    offset_y = py - best_y
    tangent_x = points[best_segment + 1, 0] - points[best_segment, 0]
    tangent_y = points[best_segment + 1, 1] - points[best_segment, 1]
    left = tangent_x * offset_y - tangent_y * offset_x
    if left == 0.0 and best_end != 0:
        # on the extension of the segment past a vertex: the neighbour at the vertex decides
        neighbour = best_segment + best_end
        while 0 <= neighbour < count:
            tangent_x = points[neighbour + 1, 0] - points[neighbour, 0]
            tangent_y = points[neighbour + 1, 1] - points[neighbour, 1]
            tangent_z = points[neighbour + 1, 2] - points[neighbour, 2]
            if tangent_x != 0.0 or tangent_y != 0.0 or tangent_z != 0.0:
                left = tangent_x * offset_y - tangent_y * offset_x
                break
            neighbour += best_end
    cross_track = distance if left >= 0.0 else -distance
    return best_s, best_x, best_y, best_z, best_segment, cross_track


@kernel
def _next_point(points, cum, ox, oy, oz, dh, s_from):
    """First point at or after ``s_from`` that is at least ``dh`` from ``(ox, oy, oz)``.

    Seed 001, Algorithm 1, line 3. Returns ``(s, x, y, z)`` with
    ``s = min{s >= s_from : |P(s) - origin| >= dh}``, or the path end if there is no such ``s``.
    ``s_from`` is clamped to ``[cum[0], cum[-1]]``; ``dh > 0``. Locates ``s_from`` (its segment
    and point), then walks with ``_next_point_walk``.
    """
    last = points.shape[0] - 1
    s_start = min(max(s_from, cum[0]), cum[last])
    sx, sy, sz = _point_at(points, cum, s_start)
    s, x, y, z, _ = _next_point_walk(
        points, cum, _segment_at(cum, s_start), s_start, sx, sy, sz, ox, oy, oz, dh
    )
    return s, x, y, z


@kernel
def _unit_leg(points, cum, index):
    """Direction of segment ``index`` per metre of arc length: ``(points[index + 1] -
    points[index]) / (cum[index + 1] - cum[index])``, zero for a zero-length segment. One
    division and no square root.

    The arc-length span differs from the segment's length by at most half an ulp of
    ``cum[index + 1]`` (the rounding of the sum), so the norm is 1 within that half ulp over the
    length, and a point placed at most the span along the direction is within about that half ulp
    of where the exact unit vector puts it: the precision the arc length itself has.
    """
    span = cum[index + 1] - cum[index]
    inverse = 1.0 / span if span > 0.0 else 0.0
    return (
        (points[index + 1, 0] - points[index, 0]) * inverse,
        (points[index + 1, 1] - points[index, 1]) * inverse,
        (points[index + 1, 2] - points[index, 2]) * inverse,
    )


@kernel
def _next_point_walk(points, cum, index, s_start, sx, sy, sz, ox, oy, oz, dh):
    """``_next_point`` from a known start: the point ``(sx, sy, sz)`` at arc length ``s_start``
    on segment ``index``.

    Returns ``(s, x, y, z, segment)``, ``segment`` the segment holding the result, so that a
    caller sampling points one after another (Algorithm 1) continues from the exact point found
    without locating it again. Walks the segments from ``index``; on a segment whose start ``S``
    is inside the sphere of radius ``dh``, with ``t`` its unit direction (``_unit_leg``), the exit
    is ``S + u t`` with ``u`` the positive root of ``|S + u t - origin|^2 = dh^2``,
    ``u = sqrt(b^2 - inside) - b`` (``b = (S - origin) . t``, ``inside = |S - origin|^2 - dh^2
    < 0``), if ``u`` is within the segment. No division depends on the start (the direction's
    depends on the path only), so none delays a caller's next search. Where ``b > 0`` the
    subtraction cancels, but ``|b| < dh``, so ``u`` is still within a few ulps of ``dh`` of the
    exact root (the precision of the coordinates).

    From a start that is the origin itself (``w = S - origin = 0`` exactly: Algorithm 1's
    ``P~[i-1]``), the first step gives exactly ``u = sqrt(fl(dh^2)) = dh``: the point ``dh``
    further along the segment when it goes on that far.
    """
    last = points.shape[0] - 1
    radius2 = dh * dh
    for i in range(index, last):
        wx = sx - ox
        wy = sy - oy
        wz = sz - oz
        inside = wx * wx + wy * wy + wz * wz - radius2
        if inside >= 0.0:
            return s_start, sx, sy, sz, i
        tx, ty, tz = _unit_leg(points, cum, i)
        along = wx * tx + wy * ty + wz * tz
        exit_distance = math.sqrt(along * along - inside) - along
        if exit_distance <= cum[i + 1] - s_start:
            return (
                s_start + exit_distance,
                sx + exit_distance * tx,
                sy + exit_distance * ty,
                sz + exit_distance * tz,
                i,
            )
        sx = points[i + 1, 0]
        sy = points[i + 1, 1]
        sz = points[i + 1, 2]
        s_start = cum[i + 1]
    return cum[last], points[last, 0], points[last, 1], points[last, 2], max(last - 1, 0)


# --------------------------------------------------------------------------------------------------
# public class


class Projection(NamedTuple):
    """Result of ``Polyline.project``; unpacks as ``s, point, segment, cross_track``."""

    s: float  # arc length of the closest point [m]
    point: np.ndarray  # closest point on the path [m], shape (dim,)
    segment: int  # index of the segment holding the closest point (user's numbering)
    cross_track: float  # signed distance to the path [m], positive left of travel


class Polyline:
    """A path of straight segments through 2-D or 3-D waypoints, with an optional corridor.

    Parameters
    ----------
    points : array_like, shape (n, 2) or (n, 3)
        Waypoints [m] in order of travel, ``n >= 2``, at least two of them distinct. Repeated
        consecutive points (zero-length segments) are allowed and keep their segment numbers.
    widths : None, float or array_like of shape (n - 1,), optional
        Full corridor width [m] (wall to wall), one for all segments or one per segment (segment
        ``i`` joins ``points[i]`` and ``points[i + 1]``). Each is ``>= 0``; ``inf`` means no
        corridor. ``None`` (default): no corridor at all.

    Raises
    ------
    ValueError
        ``points`` not finite (the message gives the index), not of shape ``(n, 2)`` or
        ``(n, 3)``, fewer than 2 distinct points; ``widths`` of the wrong length, negative or NaN.

    Notes
    -----
    Arc-length queries clamp ``s`` to ``[0, length]``. At a vertex, ``segment_at``, ``heading_at``
    and ``width_at`` use the segment that starts there (at ``s = length``, the last one), and
    always a segment of positive length.
    """

    def __init__(self, points, widths=None):
        self._dim, padded = _validate_points(points)
        cumulative = np.empty(padded.shape[0])
        _cumulative_length(padded, cumulative)
        if not math.isfinite(cumulative[-1]):
            raise ValueError(
                "points are too far apart: the path length overflows, got coordinates up to "
                f"{np.abs(padded).max()!r}"
            )
        if cumulative[-1] <= 0.0:
            raise ValueError(
                "points must contain at least 2 distinct points (the path has zero length), got "
                f"{padded.shape[0]} copies of {padded[0, : self._dim].tolist()!r}"
            )
        padded.flags.writeable = False
        cumulative.flags.writeable = False
        self._points = padded
        self._cum = cumulative
        self._widths = _validate_widths(widths, padded.shape[0] - 1)

    # -- data ---------------------------------------------------------------------------------

    @property
    def points(self) -> np.ndarray:
        """Waypoints [m], shape ``(n, dim)``, read-only."""
        return self._points[:, : self._dim]

    @property
    def points_3d(self) -> np.ndarray:
        """Waypoints [m] padded to 3-D (``z = 0`` for a 2-D path), shape ``(n, 3)``, read-only.

        The array the kernels take, with ``cumulative_length``.
        """
        return self._points

    @property
    def dim(self) -> int:
        """2 or 3."""
        return self._dim

    @property
    def length(self) -> float:
        """Total arc length [m]."""
        return float(self._cum[-1])

    @property
    def cumulative_length(self) -> np.ndarray:
        """Arc length [m] from the first waypoint to each waypoint, shape ``(n,)``, read-only."""
        return self._cum

    @property
    def widths(self) -> np.ndarray | None:
        """Full corridor width [m] per segment, shape ``(n - 1,)``, read-only; or ``None``."""
        return self._widths

    @property
    def segment_count(self) -> int:
        """Number of segments, ``n - 1`` (zero-length ones included)."""
        return self._points.shape[0] - 1

    def __repr__(self) -> str:
        return (
            f"Polyline({self._points.shape[0]} points, dim={self._dim}, "
            f"length={self.length:.6g}, widths={'None' if self._widths is None else 'set'})"
        )

    # -- queries ------------------------------------------------------------------------------

    def project(self, p) -> Projection:
        """Closest point of the path to ``p``.

        Parameters
        ----------
        p : array_like, shape (dim,)
            Query point [m], of the path's dimension.

        Returns
        -------
        Projection
            ``(s, point, segment, cross_track)``: arc length [m] of the closest point, the closest
            point [m] (Euclidean distance, in 3-D for a 3-D path), the index of its segment, and
            the signed cross-track error [m]: ``|p - point|``, positive when ``p`` is left of the
            direction of travel (sign of the z-component of ``tangent_xy x (p - point)_xy``, with
            the tangent of the closest point's segment). If that is zero and the closest point is
            a vertex (``p`` on the extension of the segment), the other segment at the vertex
            decides; if that is zero too (``p`` on the path, straight above it, or beyond an end
            of the path along its last direction), the sign is positive. Ties go to the smallest
            ``s``.

        Notes
        -----
        When the closest point is a corner vertex, ``p`` lies outside the corner and both
        segments at the vertex give the same sign (the outside of a left turn is on the right of
        both), so the sign does not depend on which of them is reported; on the two rays bounding
        that outside region one segment gives zero and the other decides. The exception is a
        180-degree hairpin, where left of one segment is right of the other; the tie rule then
        picks the segment before the vertex. The path is open even if its first and last points
        coincide: at those points only the first or the last segment counts.
        """
        x, y, z = self._query_point("p", p)
        s, cx, cy, cz, segment, cross_track = _project(self._points, self._cum, x, y, z)
        point = np.array((cx, cy, cz))[: self._dim]
        return Projection(float(s), point, int(segment), float(cross_track))

    def point_at(self, s) -> np.ndarray:
        """Point [m] at arc length ``s`` [m], shape ``(dim,)``; ``s`` clamped to ``[0, length]``."""
        arc = check_finite("s", s)
        return np.array(_point_at(self._points, self._cum, arc))[: self._dim]

    def heading_at(self, s) -> float:
        """Yaw [rad] of the path at arc length ``s`` [m] (clamped), ``atan2`` of the xy direction.

        The segment is the one of ``segment_at(s)``; if it is vertical (3-D), the next segment
        with a horizontal direction is used (else the previous one, else 0).
        """
        arc = check_finite("s", s)
        return float(_heading_at(self._points, self._cum, arc))

    def segment_at(self, s) -> int:
        """Index of the segment (positive length) at arc length ``s`` [m], clamped.

        At a vertex, the segment that starts there; at ``s >= length``, the last segment of
        positive length.
        """
        arc = check_finite("s", s)
        return int(_segment_at(self._cum, arc))

    def width_at(self, s) -> float:
        """Full corridor width [m] at arc length ``s`` [m]; ``math.inf`` when there is none."""
        if self._widths is None:
            check_finite("s", s)
            return math.inf
        return float(self._widths[self.segment_at(s)])

    def half_width_at(self, s) -> float:
        """Half the corridor width [m] at arc length ``s`` [m] (centre line to wall)."""
        return 0.5 * self.width_at(s)

    def next_point(self, origin, dh, s_from=None) -> tuple[float, np.ndarray]:
        """The next point on the path a distance ``dh`` away from ``origin``.

        Seed 001, Algorithm 1, line 3 ("compute next point on path P a distance dh away from
        P~[i-1]"), where the given point may be off the path. Defined as

            s* = min{ s >= s_from : |P(s) - origin| >= dh },  or  s* = length  if there is none,

        with ``P(s)`` the point at arc length ``s``. Consequences:

        - ``origin`` on the path at ``s_from``: ``P(s*)`` is exactly ``dh`` from ``origin``, the
          first exit from the sphere of radius ``dh`` around it (unless the path ends first).
        - ``origin`` ``dh`` or more from the path (and ``s_from`` its projection): ``s* = s_from``
          and the result is the closest point. The first Bezier curve of Algorithm 1
          (vehicle, closest point, next point) then bends sharply and the target speed drops
          while the vehicle is far from the path, as seed 001 intends.
        - Passing ``s_from`` = the previous ``s*`` makes successive calls march forward, even on a
          path that loops back near ``origin``.

        Parameters
        ----------
        origin : array_like, shape (dim,)
            Point [m] to measure the distance from.
        dh : float
            Distance [m], ``> 0`` (seed 001: waypoint spacing, 6 m).
        s_from : float, optional
            Arc length [m] to start from, clamped to ``[0, length]``. Default: the arc length of
            the projection of ``origin`` (``project(origin).s``).

        Returns
        -------
        (s, point) : (float, numpy.ndarray of shape (dim,))
            Arc length [m] and the point [m].
        """
        x, y, z = self._query_point("origin", origin)
        distance = check_positive("dh", dh)
        if s_from is None:
            start = _project(self._points, self._cum, x, y, z)[0]
        else:
            start = check_finite("s_from", s_from)
        s, px, py, pz = _next_point(self._points, self._cum, x, y, z, distance, start)
        return float(s), np.array((px, py, pz))[: self._dim]

    def _query_point(self, name, value) -> tuple[float, float, float]:
        try:
            point = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be a {self._dim}-D point, got {value!r}") from None
        if point.ndim != 1 or point.size != self._dim:
            raise ValueError(
                f"{name} must be a {self._dim}-D point like the path, got shape {point.shape}: "
                f"{value!r}"
            )
        point = check_finite_array(name, point)
        if self._dim == 2:
            return float(point[0]), float(point[1]), 0.0
        return float(point[0]), float(point[1]), float(point[2])


# --------------------------------------------------------------------------------------------------
# validation


def _validate_points(points) -> tuple[int, np.ndarray]:
    """``(dim, padded)``: the dimension and a fresh ``(n, 3)`` C-contiguous float64 copy."""
    try:
        array = np.array(points, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"points must be an (n, 2) or (n, 3) array, got {points!r}") from None
    if array.ndim != 2 or array.shape[1] not in (2, 3):
        raise ValueError(f"points must have shape (n, 2) or (n, 3), got shape {array.shape}")
    if array.shape[0] < 2:
        raise ValueError(f"points must contain at least 2 points, got {array.shape[0]}")
    finite = np.isfinite(array).all(axis=1)
    if not finite.all():
        index = int(np.argmin(finite))
        raise ValueError(f"points[{index}] must be finite, got {array[index].tolist()!r}")
    dim = array.shape[1]
    padded = np.zeros((array.shape[0], 3))
    padded[:, :dim] = array
    return dim, padded


def _validate_widths(widths, segment_count: int) -> np.ndarray | None:
    if widths is None:
        return None
    try:
        array = np.array(widths, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            f"widths must be None, a number or one number per segment, got {widths!r}"
        ) from None
    if array.ndim == 0:
        array = np.full(segment_count, float(array))
    elif array.ndim != 1 or array.size != segment_count:
        raise ValueError(
            f"widths must be one number or one per segment ({segment_count}), "
            f"got shape {array.shape}"
        )
    valid = array >= 0.0  # False for NaN
    if not valid.all():
        index = int(np.argmin(valid))
        raise ValueError(f"widths[{index}] must be >= 0 (inf: no corridor), got {array[index]!r}")
    array.flags.writeable = False
    return array
