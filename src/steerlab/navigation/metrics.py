"""Metrics of a trajectory along a corridor route (seed 002): inside share, excursion, overshoot.

``corridor_metrics(positions, route)`` measures one agent's recorded frames against a ``Route``
for tests, figures and benchmarks. Agents move in the plane: only ``x, y`` of the route's
positions are used and every distance is horizontal. Segment ``i`` joins waypoints ``i`` and
``i + 1``; its half width is ``h_i = widths[i] / 2`` (``Route.widths`` are full widths). A
segment whose two waypoints coincide horizontally (a ladder) has zero length: it is a point.

Definitions (``P`` a frame's position, ``d_i(P)`` its distance to the closed segment ``i``):

- **Corridor, ``shape="capsule"``** (default). Segment ``i``'s corridor is the set of points
  within ``h_i`` of the segment: a rectangle with round caps (a disc for a zero-length segment).
  The route's corridor is their union, so the outer corner of a turn is covered by an arc.
- **Corridor, ``shape="rectangle"``**. Segment ``i``'s corridor is the seed's strict rectangle:
  ``|XTD_i| <= h_i`` (``XTD_i`` the signed distance to the segment's line) with the projection
  within ``[0, L_i]``. Zero-length segments contribute nothing, unless no segment has positive
  length (the route is one point in the plane): then the discs of the capsule shape are used, so
  the corridor is never empty. Every rectangle lies in its capsule, and this holds exactly in
  floating point too (the capsule's distance inside the segment's span is the same ``|XTD_i|``),
  so a frame inside the rectangles is inside the capsules.
- **Why capsules by default.** The seed's bot is in a corridor while it switches segments, and at
  a turn it switches from one corridor to the next. The two rectangles of a turn leave a wedge
  uncovered at the outer corner, between the end of the first and the side of the second: an
  agent rounding the corner there, within half a width of the waypoint, cuts no wall, yet the
  rectangles would count it outside. The capsules fill that wedge up to the arc of radius
  ``max(h_{j-1}, h_j)`` around the waypoint ``j`` (the round caps of both segments).
- **One-waypoint route** (start == goal): no segment; the corridor is the disc of radius
  ``radii[0]`` around the waypoint, for both shapes, and "the route" is that point.
- **``excursion``** (per frame): the distance from ``P`` to the corridor, 0 inside. Capsules:
  ``max(0, min_i (d_i(P) - h_i))``, exact (the distance to a union is the smallest distance to
  its parts). Rectangles: the smallest exact distance to a rectangle,
  ``hypot(max(-u, u - L_i, 0), max(|XTD_i| - h_i, 0))`` with ``u`` the projection.
  ``inside`` (per frame) is ``excursion == 0``; ``inside_share`` the fraction of frames inside;
  ``max_excursion`` the largest excursion.
- **``mean_abs_cross_track``**: the mean over frames of the distance to the route's polyline,
  ``min_i d_i(P)`` (widths play no part).
- **Turns and overshoot.** A turn is an interior waypoint ``j`` (``1 <= j <= k - 2``) whose
  segments ``j - 1`` and ``j`` both have positive horizontal length and are not parallel (the 2-D
  cross product of their directions is non-zero; a straight continuation and a 180-degree
  hairpin have no inside and outside and are not turns). Its direction is the sign of that cross
  product (positive: left). Each frame belongs to its closest segment (smallest ``d_i(P)``, ties
  to the later segment, so the outer wedge of a corner, closest to the waypoint itself, belongs
  to the segment after the turn). The overshoot at turn ``j`` is the largest distance to the
  outside of the turn beyond segment ``j``'s line (the signed cross-track error relative to the
  next segment, the seed's ``XTDNextSeg``, taken on the side opposite to the turn direction) over
  the frames that belong to segment ``j`` and project on its first half (so that cutting the
  *next* corner, where the route turns the other way, does not count as an overshoot of this
  one): 0 if none of them is on the outside, NaN if no frame belongs to segment ``j`` (the
  agent never got there). ``turn_overshoot_beyond_bound`` is
  ``max(0, overshoot - h_j)``, the part beyond the next corridor's bound (NaN stays NaN).
  ``max_turn_overshoot`` and ``max_turn_overshoot_beyond_bound`` are the largest over the turns
  the agent reached, NaN if there is none (no turn, or none reached).
- **``time_to_goal``**: the first time the agent is within ``goal_radius`` of the last waypoint,
  by the swept test: if frame 0 is within the radius, ``t[0]``; otherwise the first frame step
  whose swept segment (frame ``f - 1`` to frame ``f``, straight) comes within the radius, at the
  time interpolated linearly to the segment's first point on the circle,
  ``t[f - 1] + u (t[f] - t[f - 1])`` with ``u`` in ``(0, 1]``. A fast agent that jumps over the
  goal circle between two frames (as ``TowardsPoints`` switches waypoints) is thereby not missed.
  NaN if it never comes within the radius. ``goal_radius`` defaults to ``route.radii[-1]``.
  Without ``t`` the times are the frame indices ``0, 1, ..., n - 1`` (``time_to_goal`` in frames).
- **``final_error``**: the distance from the last frame's position to the last waypoint.

**Plane only.** Heights are ignored, so a route that passes over itself in the plane (a ladder up
to a floor above the one it left, as in ``examples/navdata/corridors1.toml``) has overlapping
segments there: a frame on the lower one is as close to the upper one and belongs to the later
segment, and a turn whose next segment is covered by a later one may be reported as never reached
(NaN). The corridor and the excursion are not affected (a union does not care which part covers).

The computation is numpy over a frames x segments array, in chunks of about a million cells.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from steerlab._checks import as_float_array, check_nonnegative
from steerlab.navigation.route import Route, read_only
from steerlab.sim.trace import Trace

__all__ = ["CorridorMetrics", "corridor_metrics"]

SHAPES = ("capsule", "rectangle")
_CHUNK_CELLS = 1 << 20  # frames x segments per chunk: about 8 MB per float64 array


@dataclass(frozen=True, eq=False)
class CorridorMetrics:
    """Metrics of one trajectory on a route; definitions in ``steerlab.navigation.metrics``.

    Attributes
    ----------
    frames : int
        Number of frames ``n``.
    shape : str
        ``"capsule"`` or ``"rectangle"``: the corridor used.
    goal_radius : float
        Radius [world units] of the goal circle used by ``time_to_goal``.
    inside_share : float
        Fraction of frames inside the corridor, in ``[0, 1]``.
    max_excursion : float
        Largest distance [world units] outside the corridor, 0 if always inside.
    mean_abs_cross_track : float
        Mean distance [world units] to the route's polyline.
    time_to_goal : float
        First time [units of ``t``] within ``goal_radius`` of the last waypoint (swept test);
        NaN if never.
    final_error : float
        Distance [world units] from the last position to the last waypoint.
    max_turn_overshoot, max_turn_overshoot_beyond_bound : float
        Largest of ``turn_overshoot`` / ``turn_overshoot_beyond_bound`` over the turns reached;
        NaN if none.
    excursion : numpy.ndarray, shape (n,), read-only
        Distance [world units] outside the corridor per frame, 0 inside.
    inside : numpy.ndarray of bool, shape (n,), read-only
        ``excursion == 0``.
    turn_waypoints : numpy.ndarray of int64, shape (turns,), read-only
        Waypoint index ``j`` of each turn, increasing.
    turn_overshoot : numpy.ndarray, shape (turns,), read-only
        Overshoot [world units] to the outside of each turn beyond the next segment's centre
        line; NaN where the agent never got to the next segment.
    turn_overshoot_beyond_bound : numpy.ndarray, shape (turns,), read-only
        ``max(0, turn_overshoot - widths[j] / 2)``.
    """

    frames: int
    shape: str
    goal_radius: float
    inside_share: float
    max_excursion: float
    mean_abs_cross_track: float
    time_to_goal: float
    final_error: float
    max_turn_overshoot: float
    max_turn_overshoot_beyond_bound: float
    excursion: np.ndarray
    inside: np.ndarray
    turn_waypoints: np.ndarray
    turn_overshoot: np.ndarray
    turn_overshoot_beyond_bound: np.ndarray

    @property
    def turn_count(self) -> int:
        """Number of turns of the route."""
        return int(self.turn_waypoints.size)

    def as_dict(self) -> dict[str, int | float | str]:
        """The scalar fields (and ``turn_count``) as plain Python values, for JSON and CSV rows.

        Values that are not defined stay NaN (``json.dumps`` writes ``NaN``).
        """
        return {
            "frames": int(self.frames),
            "shape": str(self.shape),
            "goal_radius": float(self.goal_radius),
            "inside_share": float(self.inside_share),
            "max_excursion": float(self.max_excursion),
            "mean_abs_cross_track": float(self.mean_abs_cross_track),
            "time_to_goal": float(self.time_to_goal),
            "final_error": float(self.final_error),
            "turn_count": self.turn_count,
            "max_turn_overshoot": float(self.max_turn_overshoot),
            "max_turn_overshoot_beyond_bound": float(self.max_turn_overshoot_beyond_bound),
        }

    def __repr__(self) -> str:
        return (
            f"CorridorMetrics(frames={self.frames}, shape={self.shape!r}, "
            f"inside_share={self.inside_share:.6g}, max_excursion={self.max_excursion:.6g}, "
            f"time_to_goal={self.time_to_goal:.6g}, final_error={self.final_error:.6g}, "
            f"turns={self.turn_count})"
        )


def corridor_metrics(positions, route, *, t=None, goal_radius=None, shape="capsule"):
    """Corridor metrics of a trajectory on a route (seed 002, "Navigation along segments").

    Parameters
    ----------
    positions : array_like of shape (n, 2) or (n, m >= 2), or Trace
        Position [world units] per frame, ``n >= 1``; columns 0 and 1 are ``x, y``, further
        columns are ignored. A ``steerlab.sim.Trace`` gives its ``x``, ``y`` states and its
        times ``t``.
    route : Route
        The route followed (``find_route``); only the ``x, y`` of its positions are used.
    t : array_like of shape (n,), optional
        Time of each frame, finite and non-decreasing. Default: the trace's times, or the frame
        indices ``0, ..., n - 1`` for an array. Must be omitted with a Trace.
    goal_radius : float, optional
        Radius [world units] ``>= 0`` of the goal circle for ``time_to_goal``. Default:
        ``route.radii[-1]``.
    shape : {"capsule", "rectangle"}
        The corridor of a segment: within half its width of the segment (default), or the seed's
        strict rectangle. See the module docstring for why capsules are the default.

    Returns
    -------
    CorridorMetrics
        Scalars, per-frame ``excursion`` and ``inside``, and per-turn overshoots.

    Raises
    ------
    ValueError
        ``route`` not a ``Route`` (or without waypoints, with a NaN or negative width, or, for a
        one-waypoint route, without a radius); ``positions`` empty, of the wrong shape or not
        finite; ``t`` of the wrong length, not finite or decreasing, or given with a Trace;
        ``goal_radius`` negative or not finite; ``shape`` not one of ``SHAPES``. The message
        names the argument and the value.
    """
    points, half_widths, radius = _check_route(route, goal_radius)
    xy, times = _check_positions(positions, t)
    if not isinstance(shape, str) or shape not in SHAPES:
        raise ValueError(f"shape must be one of {SHAPES!r}, got {shape!r}")

    starts, ends, halves = points[:-1], points[1:], half_widths
    if starts.shape[0] == 0:  # one waypoint: the disc of its radius, as a zero-length segment
        starts, ends = points, points
        halves = np.array([float(route.radii[0])])
    rectangles = shape == "rectangle" and bool(((ends - starts) != 0.0).any())
    excursion, distance, closest, offset, along = _frame_geometry(
        xy, starts, ends, halves, rectangles
    )

    turns, turn_sides = _turns(points)
    overshoot = np.full(turns.size, np.nan)
    if turns.size:
        reached = np.zeros(starts.shape[0], dtype=bool)
        reached[closest] = True
        outside = np.full(starts.shape[0], -np.inf)
        sides = np.zeros(starts.shape[0])
        sides[turns] = turn_sides
        lengths = np.hypot(*(ends - starts).T)
        near = along <= 0.5 * lengths[closest]  # the first half of the segment after the turn
        np.maximum.at(outside, closest[near], -sides[closest[near]] * offset[near])
        overshoot = np.where(reached[turns], np.maximum(outside[turns], 0.0) + 0.0, np.nan)
    beyond = np.maximum(overshoot - half_widths[turns], 0.0)  # NaN stays NaN
    beyond[np.isnan(overshoot)] = np.nan

    goal = points[-1]
    inside = excursion == 0.0
    return CorridorMetrics(
        frames=int(xy.shape[0]),
        shape=shape,
        goal_radius=radius,
        inside_share=float(inside.mean()),
        max_excursion=float(excursion.max()),
        mean_abs_cross_track=float(distance.mean()),
        time_to_goal=_time_to_goal(xy, times, goal, radius),
        final_error=float(math.hypot(xy[-1, 0] - goal[0], xy[-1, 1] - goal[1])),
        max_turn_overshoot=_nanmax(overshoot),
        max_turn_overshoot_beyond_bound=_nanmax(beyond),
        excursion=read_only(excursion),
        inside=read_only(inside),
        turn_waypoints=read_only(turns.astype(np.int64)),
        turn_overshoot=read_only(overshoot),
        turn_overshoot_beyond_bound=read_only(beyond),
    )


# --------------------------------------------------------------------------------------------------
# geometry


def _frame_geometry(xy, starts, ends, halves, rectangles):
    """Per frame: excursion, distance to the polyline, closest segment, XTD and projection on it.

    ``starts``, ``ends`` ``(m, 2)``, ``halves`` ``(m,)``, ``m >= 1``. Distances to a segment are
    taken from the exact end point when the projection falls before or after the segment, so a
    point closest to a shared waypoint gets bit-identical distances from both segments and the
    tie goes to the later segment as documented.
    """
    frames = xy.shape[0]
    count = starts.shape[0]
    direction = ends - starts
    length = np.hypot(direction[:, 0], direction[:, 1])
    degenerate = length == 0.0
    safe_length = np.where(degenerate, 1.0, length)
    unit = direction / safe_length[:, None]
    excursion = np.empty(frames)
    distance = np.empty(frames)
    closest = np.empty(frames, dtype=np.intp)
    offset = np.empty(frames)
    position = np.empty(frames)
    rows = max(1, _CHUNK_CELLS // count)
    for first in range(0, frames, rows):
        chunk = slice(first, min(first + rows, frames))
        px = xy[chunk, 0, None]
        py = xy[chunk, 1, None]
        wx = px - starts[:, 0]
        wy = py - starts[:, 1]
        along = wx * unit[:, 0] + wy * unit[:, 1]  # projection u, measured from the start
        across = unit[:, 0] * wy - unit[:, 1] * wx  # signed XTD, positive left
        before = degenerate | (along < 0.0)
        after = ~degenerate & (along > length)
        to_segment = np.where(
            before,
            np.hypot(wx, wy),
            np.where(after, np.hypot(px - ends[:, 0], py - ends[:, 1]), np.abs(across)),
        )
        if rectangles:
            out_along = np.maximum(np.maximum(-along, along - length), 0.0)
            out_across = np.maximum(np.abs(across) - halves, 0.0)
            gap = np.where(degenerate, np.inf, np.hypot(out_along, out_across))
            excursion[chunk] = gap.min(axis=1)
        else:
            excursion[chunk] = np.maximum((to_segment - halves).min(axis=1), 0.0)
        distance[chunk] = to_segment.min(axis=1)
        nearest = count - 1 - np.argmin(to_segment[:, ::-1], axis=1)  # ties: the later segment
        closest[chunk] = nearest
        offset[chunk] = np.where(
            degenerate[nearest], 0.0, np.take_along_axis(across, nearest[:, None], 1)[:, 0]
        )
        position[chunk] = np.take_along_axis(along, nearest[:, None], 1)[:, 0]
    return excursion, distance, closest, offset, position


def _turns(points):
    """Indices ``j`` of the turns and their directions (+1 left, -1 right)."""
    direction = np.diff(points, axis=0)
    if direction.shape[0] < 2:
        return np.zeros(0, dtype=np.intp), np.zeros(0)
    before, after = direction[:-1], direction[1:]
    cross = before[:, 0] * after[:, 1] - before[:, 1] * after[:, 0]
    moving = (before != 0.0).any(axis=1) & (after != 0.0).any(axis=1)
    turning = moving & (cross != 0.0)
    return np.flatnonzero(turning) + 1, np.sign(cross[turning])


def _time_to_goal(xy, times, goal, radius):
    """First time within ``radius`` of ``goal``, swept between frames; NaN if never."""
    wx = xy[:, 0] - goal[0]
    wy = xy[:, 1] - goal[1]
    if math.hypot(wx[0], wy[0]) <= radius:
        return float(times[0])
    # step f - 1 -> f: |w + u e|^2 = r^2, c = |w|^2 - r^2 > 0 until the first hit
    ex = np.diff(xy[:, 0])
    ey = np.diff(xy[:, 1])
    wx = wx[:-1]
    wy = wy[:-1]
    a = ex * ex + ey * ey
    half_b = wx * ex + wy * ey
    c = (np.hypot(wx, wy) - radius) * (np.hypot(wx, wy) + radius)
    discriminant = half_b * half_b - a * c
    with np.errstate(invalid="ignore", divide="ignore"):
        root = np.sqrt(np.maximum(discriminant, 0.0))
        fraction = c / (root - half_b)  # the smaller root, without cancellation (half_b < 0)
    end_inside = np.hypot(xy[1:, 0] - goal[0], xy[1:, 1] - goal[1]) <= radius
    crossing = (discriminant >= 0.0) & (half_b < 0.0) & (fraction <= 1.0)
    hits = np.flatnonzero(end_inside | crossing)
    if hits.size == 0:
        return math.nan
    step = int(hits[0])
    u = float(fraction[step]) if crossing[step] else 1.0
    u = min(max(u, 0.0), 1.0)
    return float(times[step] + u * (times[step + 1] - times[step]))


def _nanmax(values):
    finite = values[~np.isnan(values)]
    return float(finite.max()) if finite.size else math.nan


# --------------------------------------------------------------------------------------------------
# validation


def _check_route(route, goal_radius):
    """``(points (k, 2), half widths (k - 1,), goal radius)`` of a valid route."""
    if not isinstance(route, Route):
        raise ValueError(f"route must be a Route (find_route), got {type(route).__name__}")
    positions = np.asarray(route.positions, dtype=np.float64)
    if positions.ndim != 2 or positions.shape[0] < 1 or positions.shape[1] < 2:
        raise ValueError(f"route must have at least one waypoint, got positions {positions.shape}")
    points = np.ascontiguousarray(positions[:, :2])
    finite = np.isfinite(points).all(axis=1)
    if not finite.all():
        index = int(np.argmin(finite))
        raise ValueError(
            f"route.positions[{index}] must be finite, got {positions[index].tolist()!r}"
        )
    widths = np.asarray(route.widths, dtype=np.float64)
    if widths.shape != (points.shape[0] - 1,):
        raise ValueError(
            f"route.widths must have one entry per segment ({points.shape[0] - 1}), "
            f"got shape {widths.shape}"
        )
    if widths.size:
        check_nonnegative("route.widths", widths, allow_inf=True)
    if points.shape[0] == 1:
        check_nonnegative(
            "route.radii[0] (the corridor of a one-waypoint route)", route.radii[0], per_agent=False
        )
    if goal_radius is None:
        radius = check_nonnegative(
            "goal_radius (default: route.radii[-1])", route.radii[-1], per_agent=False
        )
    else:
        radius = check_nonnegative("goal_radius", goal_radius, per_agent=False)
    return points, 0.5 * widths, radius


def _check_positions(positions, t):
    """``(xy (n, 2), times (n,))`` from an array or a Trace."""
    if isinstance(positions, Trace):
        if t is not None:
            raise ValueError("t must be omitted when positions is a Trace (its own t is used)")
        missing = [name for name in ("x", "y") if name not in positions.states]
        if missing:
            raise ValueError(
                f"positions: the Trace has no state field {missing[0]!r}, "
                f"got fields {list(positions.states)!r}"
            )
        array = np.column_stack((positions.states["x"], positions.states["y"])).astype(float)
        name = "positions (Trace x, y)"
        t = positions.t
    else:
        array = as_float_array("positions", positions, "an (n, 2) array of x, y or a Trace")
        name = "positions"
    if array.ndim != 2 or array.shape[1] < 2:
        raise ValueError(f"{name} must have shape (n, 2) or (n, m >= 2), got shape {array.shape}")
    if array.shape[0] == 0:
        raise ValueError(f"{name} must contain at least one frame, got 0")
    xy = np.ascontiguousarray(array[:, :2])
    finite = np.isfinite(xy).all(axis=1)
    if not finite.all():
        index = int(np.argmin(finite))
        raise ValueError(f"{name}[{index}] must be finite, got {xy[index].tolist()!r}")
    if t is None:
        return xy, np.arange(xy.shape[0], dtype=np.float64)
    try:
        times = np.asarray(t, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"t must be an array of times, got {t!r}") from None
    if times.shape != (xy.shape[0],):
        raise ValueError(f"t must have shape ({xy.shape[0]},) like positions, got {times.shape}")
    finite = np.isfinite(times)
    if not finite.all():
        index = int(np.argmin(finite))
        raise ValueError(f"t[{index}] must be finite, got {float(times[index])!r}")
    decreasing = np.flatnonzero(np.diff(times) < 0.0)
    if decreasing.size:
        index = int(decreasing[0]) + 1
        raise ValueError(
            f"t must be non-decreasing, got t[{index}] = {float(times[index])!r} < "
            f"t[{index - 1}] = {float(times[index - 1])!r}"
        )
    return xy, times
