"""Polylines: arc length, projection, point at an arc length, next point at a distance.

A path is a list of 2-D or 3-D waypoints joined by straight segments, with an optional corridor
width per segment (``docs/design.md``, "Files and formats"). ``Polyline`` validates once and holds
the points as an ``(n, 3)`` float64 array (2-D points padded with ``z = 0``) with the cumulative arc
length ``cum`` of shape ``(n,)``. Every geometric query is a numba kernel of ``(points, cum, ...)``
(``steerlab.geometry.kernels``) so that batch code (many agents, one path each: points
concatenated, plus offsets) calls the same kernels on slices ``points[start:stop]``,
``cum[start:stop]``. The kernels measure arc length in the units of ``cum``: ``s`` runs from
``cum[0]`` (0 for a ``Polyline``) to ``cum[-1]``. ``planar_polyline`` gives a path in the ground
plane, as the followers, the Table I observer and the environment use it.

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

from steerlab._checks import as_float_array, check_finite, check_finite_array, check_positive
from steerlab.geometry import kernels

__all__ = ["Polyline", "Projection", "planar_polyline"]


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
        kernels.cumulative_length(padded, cumulative)
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
            ``(s, point, segment, cross_track)`` (``project_batch``: many points at once): arc
            length [m] of the closest point, the closest
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
        s, cx, cy, cz, segment, cross_track = kernels.project(self._points, self._cum, x, y, z)
        point = np.array((cx, cy, cz))[: self._dim]
        return Projection(float(s), point, int(segment), float(cross_track))

    def project_batch(self, p) -> Projection:
        """``project`` of many points at once: one compiled loop, the same bits point by point.

        Parameters
        ----------
        p : array_like, shape (m, dim)
            Query points [m], of the path's dimension, finite; ``m >= 0``.

        Returns
        -------
        Projection
            Arrays: ``s`` [m] shape ``(m,)``, ``point`` [m] shape ``(m, dim)``, ``segment``
            (int64) shape ``(m,)``, ``cross_track`` [m] shape ``(m,)``, each row as ``project``
            gives it (same rules: nearest point, ties to the smallest ``s``, left positive).

        Raises
        ------
        ValueError
            ``p`` not an ``(m, dim)`` array of numbers, or a non-finite coordinate (the message
            gives its row).

        Examples
        --------
        >>> from steerlab.geometry import Polyline
        >>> path = Polyline([(0.0, 0.0), (10.0, 0.0)])
        >>> path.project_batch([(2.0, 1.0), (5.0, -3.0)]).cross_track.tolist()
        [1.0, -3.0]
        """
        array = as_float_array("p", p, f"an (m, {self._dim}) array of points")
        if array.ndim != 2 or array.shape[1] != self._dim:
            raise ValueError(
                f"p must have shape (m, {self._dim}) like the path's points, got shape "
                f"{array.shape}"
            )
        finite = np.isfinite(array).all(axis=1)
        if not finite.all():
            row = int(np.argmin(finite))
            raise ValueError(f"p[{row}] must be finite, got {array[row].tolist()!r}")
        size = array.shape[0]
        coordinates = [np.ascontiguousarray(array[:, k]) for k in range(self._dim)]
        if self._dim == 2:
            coordinates.append(np.zeros(size))
        s, x, y, z, cross_track = (np.empty(size) for _ in range(5))
        segment = np.empty(size, dtype=np.int64)
        if size:
            outputs = (s, x, y, z, segment, cross_track)
            kernels.project_array(self._points, self._cum, *coordinates, *outputs)
        point = np.column_stack((x, y, z))[:, : self._dim]
        return Projection(s, point, segment, cross_track)

    def point_at(self, s) -> np.ndarray:
        """Point [m] at arc length ``s`` [m], shape ``(dim,)``; ``s`` clamped to ``[0, length]``."""
        arc = check_finite("s", s, per_agent=False)
        return np.array(kernels.point_at(self._points, self._cum, arc))[: self._dim]

    def heading_at(self, s) -> float:
        """Yaw [rad] of the path at arc length ``s`` [m] (clamped), ``atan2`` of the xy direction.

        The segment is the one of ``segment_at(s)``; if it is vertical (3-D), the next segment
        with a horizontal direction is used (else the previous one, else 0).
        """
        arc = check_finite("s", s, per_agent=False)
        return float(kernels.heading_at(self._points, self._cum, arc))

    def segment_at(self, s) -> int:
        """Index of the segment (positive length) at arc length ``s`` [m], clamped.

        At a vertex, the segment that starts there; at ``s >= length``, the last segment of
        positive length.
        """
        arc = check_finite("s", s, per_agent=False)
        return int(kernels.segment_at(self._cum, arc))

    def width_at(self, s) -> float:
        """Full corridor width [m] at arc length ``s`` [m]; ``math.inf`` when there is none."""
        if self._widths is None:
            check_finite("s", s, per_agent=False)
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
        distance = check_positive("dh", dh, per_agent=False)
        if s_from is None:
            start = kernels.project(self._points, self._cum, x, y, z)[0]
        else:
            start = check_finite("s_from", s_from, per_agent=False)
        s, px, py, pz = kernels.next_point(self._points, self._cum, x, y, z, distance, start)
        return float(s), np.array((px, py, pz))[: self._dim]

    def _query_point(self, name, value) -> tuple[float, float, float]:
        point = as_float_array(name, value, f"a {self._dim}-D point")
        if point.ndim != 1 or point.size != self._dim:
            raise ValueError(
                f"{name} must be a {self._dim}-D point like the path, got shape {point.shape}: "
                f"{value!r}"
            )
        point = check_finite_array(name, point)
        if self._dim == 2:
            return float(point[0]), float(point[1]), 0.0
        return float(point[0]), float(point[1]), float(point[2])


def planar_polyline(path, widths=None, *, name: str = "path") -> Polyline:
    """The path in the ground plane: heights dropped, corridor widths kept, validated.

    Parameters
    ----------
    path : Polyline or array_like, shape (n, 2) or (n, 3)
        The path, or its waypoints [m].
    widths : None, float or array_like, shape (n - 1,)
        Full corridor width [m] per segment (as ``Polyline``); ``None``: the widths of ``path``
        when it is a ``Polyline``, else no corridor.
    name : str
        What the error messages call the path.

    Returns
    -------
    Polyline
        A 2-D path: ``path`` itself when it is a 2-D ``Polyline`` keeping its widths, else a new
        one with the points' first two coordinates.

    Raises
    ------
    ValueError
        ``"{name}: ..."`` when the points or widths are invalid (``Polyline``), or when the path
        has fewer than two distinct points in the ground plane (a vertical path).
    """
    try:
        if not isinstance(path, Polyline) or widths is not None:
            points = path.points if isinstance(path, Polyline) else path
            path = Polyline(points, widths)  # validates every coordinate and the widths
        if path.dim == 3:
            path = Polyline(path.points[:, :2], path.widths)
    except ValueError as error:
        raise ValueError(f"{name}: {error}") from None
    return path


# --------------------------------------------------------------------------------------------------
# validation


def _validate_points(points) -> tuple[int, np.ndarray]:
    """``(dim, padded)``: the dimension and a fresh ``(n, 3)`` C-contiguous float64 copy."""
    array = as_float_array("points", points, "an (n, 2) or (n, 3) array", copy=True)
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
    array = as_float_array("widths", widths, "None, a number or one number per segment", copy=True)
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
