"""Routes over a waypoint graph (seed 002): A* search, the route record, ragged packing.

``find_route`` searches a ``WaypointGraph`` or ``Corridors1`` with A* (networkx) from a start to a
goal, each a waypoint id or a position. A position snaps to the nearest waypoint (Euclidean, 3-D
for a 3-D position, horizontal for a 2-D one; ties go to the first waypoint in the file), whether
or not a route leaves or reaches it. Edge weights are the 3-D segment lengths and the heuristic
the 3-D straight-line distance to the goal, which never overestimates, so the route is a shortest
one. A connection without a width gets twice the smaller radius of its two waypoints, a radius
of 0 ("touch this point", as bot files store it) counting as ``touch_radius``: a corridor through
touch points is as wide as the body that touches them, never zero. ``pack_routes`` concatenates
many routes (one per agent) for batch code: points plus offsets, ``docs/design.md``
"Conventions".
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import networkx as nx
import numpy as np

from steerlab._checks import as_float_array, check_positive
from steerlab.geometry.polyline import Polyline
from steerlab.navigation.flags import DRIVEN_FLAGS, driven_flags
from steerlab.navigation.navdata import (
    FLAG_BITS,
    TOUCH_RADIUS,
    Corridors1,
    Corridors2,
    WaypointGraph,
)

__all__ = ["NoRouteError", "PackedRoutes", "Route", "find_route", "pack_routes"]


class NoRouteError(ValueError):
    """No route joins the start and the goal (the graph's connections do not allow it)."""


def read_only(array: np.ndarray) -> np.ndarray:
    """``array``, made read-only (a route's and a metric's arrays are the caller's to read)."""
    array.flags.writeable = False
    return array


@dataclass(frozen=True, eq=False)
class Route:
    """A route through ``k >= 1`` waypoints and its ``k - 1`` segments.

    Attributes
    ----------
    waypoint_ids : tuple of str, length k
        The waypoints in order of travel, start first, goal last.
    positions : numpy.ndarray, shape (k, 3), float64, read-only
        Their positions [world units].
    radii : numpy.ndarray, shape (k,), read-only
        Their radii [world units], as stored: 0 is "touch this point" (navigators switch at their
        ``touch_radius``). A ``Corridors1`` waypoint without a radius gets half the narrowest
        width of the route's segments that meet it (0 on a one-waypoint route).
    waypoint_flags : tuple of frozenset of str, length k
        Their flags.
    widths : numpy.ndarray, shape (k - 1,), read-only
        Full corridor width [world units] of each segment: the connection's width, or, for a
        ``WaypointGraph`` connection without one, twice the smaller radius of its two waypoints
        (the largest corridor both waypoint circles span), a radius of 0 counting as
        ``find_route``'s ``touch_radius``.
    segment_flags : tuple of frozenset of str, length k - 1
        Flags of the connection each segment follows (``ladder``, ``jump``, ...).
    lengths : numpy.ndarray, shape (k - 1,), read-only
        3-D length [world units] of each segment; 0 for coincident waypoints.
    """

    waypoint_ids: tuple[str, ...]
    positions: np.ndarray
    radii: np.ndarray
    waypoint_flags: tuple[frozenset, ...]
    widths: np.ndarray
    segment_flags: tuple[frozenset, ...]
    lengths: np.ndarray

    @property
    def driven_flags(self) -> tuple[frozenset, ...]:
        """The flags each segment is driven by, length ``k - 1``: its connection's plus those its
        waypoints give it (``navigation.flags.driven_flags``: ``ladder`` between two ladder
        waypoints, ``jump`` into a jump waypoint, ``crouch`` and ``walk`` at either end)."""
        return tuple(
            driven_flags(flags, self.waypoint_flags[j], self.waypoint_flags[j + 1])
            for j, flags in enumerate(self.segment_flags)
        )

    @property
    def length(self) -> float:
        """Total 3-D length [world units], the sum of ``lengths``; 0 for one waypoint."""
        return float(self.lengths.sum())

    @property
    def waypoint_count(self) -> int:
        """``k``."""
        return len(self.waypoint_ids)

    @property
    def segment_count(self) -> int:
        """``k - 1``."""
        return len(self.waypoint_ids) - 1

    def polyline(self, dimension: int = 3) -> Polyline:
        """The route as a ``Polyline`` with the corridor widths.

        Parameters
        ----------
        dimension : 2 or 3
            3 (default): the 3-D points, so ``Polyline.length == Route.length``. 2: ``x, y``
            only, for agents moving in the plane; a vertical segment (a ladder) then has zero
            length, which ``Polyline`` keeps.

        Raises
        ------
        ValueError
            ``dimension`` not 2 or 3; fewer than two distinct points (a one-waypoint route, or
            waypoints that all coincide in that dimension): there is nothing to follow, the agent
            is at the goal waypoint already.
        """
        if dimension not in (2, 3):
            raise ValueError(f"dimension must be 2 or 3, got {dimension!r}")
        points = self.positions[:, :dimension]
        if self.waypoint_count < 2 or not (points != points[0]).any():
            raise ValueError(
                f"route {list(self.waypoint_ids)!r} has fewer than 2 distinct points in "
                f"{dimension}-D: no polyline to follow (the start is the goal)"
            )
        return Polyline(points, self.widths)

    def __repr__(self) -> str:
        return (
            f"Route({self.waypoint_count} waypoints {self.waypoint_ids[0]!r} -> "
            f"{self.waypoint_ids[-1]!r}, length={self.length:.6g})"
        )


# --------------------------------------------------------------------------------------------------
# search


class _GraphView(NamedTuple):
    ids: tuple[str, ...]
    index: dict[str, int]
    positions: np.ndarray  # (n, 3)
    graph: nx.DiGraph  # nodes: waypoint indices; edge attributes weight, width, flags


def _graph_view(nav) -> _GraphView:
    cached = nav._cache.get("graph")
    if cached is not None:
        return cached
    ids = tuple(waypoint.id for waypoint in nav.waypoints)
    index = {identifier: position for position, identifier in enumerate(ids)}
    positions = read_only(np.array([waypoint.position for waypoint in nav.waypoints], dtype=float))
    graph = nx.DiGraph()
    graph.add_nodes_from(range(len(ids)))
    for edge in nav._edges():
        source = index[edge.source]
        target = index[edge.target]
        weight = math.dist(positions[source], positions[target])
        flags = {"weight": weight, "width": edge.width, "flags": edge.flags}
        ends = (nav.waypoints[source].flags, nav.waypoints[target].flags)
        graph.add_edge(source, target, **flags, driven=driven_flags(edge.flags, *ends))
        if edge.bidirectional:
            back = driven_flags(edge.flags, *reversed(ends))
            graph.add_edge(target, source, **flags, driven=back)
    view = _GraphView(ids, index, positions, graph)
    nav._cache["graph"] = view
    return view


def _resolve(view: _GraphView, name: str, endpoint) -> int:
    """Waypoint index of ``endpoint``: an id, or a 2-D/3-D position snapped to the nearest."""
    if isinstance(endpoint, str):
        if endpoint not in view.index:
            raise ValueError(f"{name}: unknown waypoint id {endpoint!r}")
        return view.index[endpoint]
    point = as_float_array(name, endpoint, "a waypoint id or a position (x, y[, z])")
    if point.ndim != 1 or point.size not in (2, 3):
        raise ValueError(
            f"{name} must be a waypoint id or a position (x, y[, z]), got shape {point.shape}"
        )
    if not np.isfinite(point).all():
        raise ValueError(f"{name} must be finite, got {point.tolist()!r}")
    offsets = view.positions[:, : point.size] - point
    return int(np.argmin(np.einsum("ij,ij->i", offsets, offsets)))


def find_route(nav, start, goal, *, touch_radius: float = TOUCH_RADIUS, avoid=()) -> Route:
    """Shortest route from ``start`` to ``goal`` over a waypoint graph (A*, seed 002 nav data).

    Parameters
    ----------
    nav : WaypointGraph, Corridors1 or Corridors2
        Nav data with waypoints and connections (or path segments). A connection is followed
        ``from -> to``, and also ``to -> from`` if ``bidirectional``. Corridors of type 2 are
        searched as their ``as_corridors1()`` (segments cut at their crossings; waypoint ids
        ``"seg:start"``, ``"seg:end"``, ``"a+b"``).
    start, goal : str or array_like of shape (2,) or (3,)
        A waypoint id, or a position [world units] that snaps to the nearest waypoint: by 3-D
        distance for ``(x, y, z)``, by horizontal distance for ``(x, y)``; ties go to the waypoint
        that comes first in the file. Snapping ignores connectivity: the nearest waypoint may
        have no route, which is then reported.
    touch_radius : float
        ``> 0`` [world units], default ``TOUCH_RADIUS`` (16, Half-Life's player half width): the
        radius a waypoint of radius 0 ("touch this point") stands for in the default width of a
        connection without a width, ``2 min(r_from, r_to)``, so that a corridor through touch
        points is never zero wide. The route's ``radii`` keep the stored 0.
    avoid : iterable of str
        Flags among ``navigation.flags.DRIVEN_FLAGS`` (``"ladder"``, ``"jump"``, ``"walk"``,
        ``"crouch"``) a bot cannot take: the search leaves out every connection whose driven
        flags (``Route.driven_flags``: its own, and those its waypoints give it) hold one of them.
        Default none.

    Returns
    -------
    Route
        The waypoints from the start's to the goal's. Cost: the sum of 3-D segment lengths,
        minimised by A* with the 3-D straight-line heuristic. If both snap to the same waypoint,
        a one-waypoint route (no segments, length 0).

    Raises
    ------
    NoRouteError
        (a ``ValueError``) no route from the start waypoint to the goal waypoint (without the
        avoided flags); the message names both ids and the flags avoided.
    ValueError
        ``nav`` of another kind; an unknown id; a position that is not 2 or 3 finite numbers;
        ``touch_radius`` not a finite number > 0; ``avoid`` not names of ``DRIVEN_FLAGS``.
    """
    touch_radius = check_positive("touch_radius", touch_radius, per_agent=False)
    avoided = _check_avoid(avoid)
    if isinstance(nav, Corridors2):
        nav = nav.as_corridors1()
    if not isinstance(nav, (WaypointGraph, Corridors1)):
        raise ValueError(
            "nav must be a waypoint graph (kind 'waypoints') or corridors of type 1 or 2 (kind "
            f"'corridors1', 'corridors2'), got {type(nav).__name__}"
        )
    view = _graph_view(nav)
    source = _resolve(view, "start", start)
    target = _resolve(view, "goal", goal)
    positions = view.positions

    def heuristic(node, goal_node):
        return math.dist(positions[node], positions[goal_node])

    graph = view.graph
    if avoided:
        graph = nx.subgraph_view(
            graph, filter_edge=lambda a, b: not (view.graph.edges[a, b]["driven"] & avoided)
        )
    try:
        nodes = nx.astar_path(graph, source, target, heuristic=heuristic, weight="weight")
    except nx.NetworkXNoPath:
        without = f" without {sorted(avoided)!r} segments" if avoided else ""
        raise NoRouteError(
            f"no route from waypoint {view.ids[source]!r} (start {_shown(start)}) to waypoint "
            f"{view.ids[target]!r} (goal {_shown(goal)}){without}: the connections do not lead "
            "there"
        ) from None
    return _build_route(nav, view, nodes, touch_radius)


def _check_avoid(avoid) -> frozenset:
    """``avoid`` as a set of names of ``DRIVEN_FLAGS``; ``ValueError`` naming a bad entry."""
    if isinstance(avoid, str) or not isinstance(avoid, (Sequence, set, frozenset)):
        raise ValueError(
            f"avoid must be a sequence or set of flag names among {DRIVEN_FLAGS!r}, got {avoid!r}"
        )
    for name in avoid:
        if name not in DRIVEN_FLAGS:
            raise ValueError(f"avoid: unknown flag {name!r}: allowed {DRIVEN_FLAGS!r}")
    return frozenset(avoid)


def _shown(endpoint) -> str:
    if isinstance(endpoint, str):
        return repr(endpoint)
    return repr(np.asarray(endpoint, dtype=float).tolist())


def _build_route(nav, view: _GraphView, nodes: list[int], touch_radius: float) -> Route:
    waypoints = [nav.waypoints[node] for node in nodes]
    edges = [view.graph.edges[a, b] for a, b in itertools.pairwise(nodes)]
    lengths = np.array([edge["weight"] for edge in edges], dtype=float)
    radii = np.array(
        [math.nan if waypoint.radius is None else waypoint.radius for waypoint in waypoints]
    )
    widths = np.empty(len(edges))
    for index, edge in enumerate(edges):
        if edge["width"] is not None:
            widths[index] = edge["width"]
        else:  # a WaypointGraph connection without a width: its waypoints always have radii
            ends = [radius if radius > 0.0 else touch_radius for radius in radii[index : index + 2]]
            widths[index] = 2.0 * min(ends)
    for index in np.flatnonzero(np.isnan(radii)):  # Corridors1 waypoints without a radius
        touching = widths[max(index - 1, 0) : index + 1]
        radii[index] = 0.5 * touching.min() if touching.size else 0.0
    return Route(
        waypoint_ids=tuple(view.ids[node] for node in nodes),
        positions=read_only(view.positions[nodes]),
        radii=read_only(radii),
        waypoint_flags=tuple(waypoint.flags for waypoint in waypoints),
        widths=read_only(widths),
        segment_flags=tuple(edge["flags"] for edge in edges),
        lengths=read_only(lengths),
    )


# --------------------------------------------------------------------------------------------------
# packing for batch code


class PackedRoutes(NamedTuple):
    """Many routes concatenated (one per agent), for ``step_batch``.

    Route ``i`` owns rows ``offsets[i]:offsets[i + 1]`` of every per-point array. Segment ``j`` of
    a route starts at its point ``j``, so per-segment values are stored at their start point and
    the last point of each route holds a filler.

    Attributes
    ----------
    positions : numpy.ndarray, shape (N, 3)
        All waypoints [world units], ``N`` = the sum of the routes' ``k``.
    radii : numpy.ndarray, shape (N,)
        Waypoint radii [world units].
    widths : numpy.ndarray, shape (N,)
        Full width [world units] of the segment starting at each point; NaN at each route's last
        point (no segment starts there).
    offsets : numpy.ndarray, shape (n + 1,), int64
        ``offsets[0] = 0``, ``offsets[-1] = N``.
    segment_flags : numpy.ndarray, shape (N,), int64
        Flags of the segment starting at each point as a bit mask (``FLAG_BITS``); 0 at each
        route's last point.
    waypoint_flags : numpy.ndarray, shape (N,), int64
        Flags of each waypoint as a bit mask.
    """

    positions: np.ndarray
    radii: np.ndarray
    widths: np.ndarray
    offsets: np.ndarray
    segment_flags: np.ndarray
    waypoint_flags: np.ndarray


def flag_mask(flags) -> int:
    """The bit mask (``FLAG_BITS``) of a set of flag names."""
    mask = 0
    for flag in flags:
        mask |= FLAG_BITS[flag]
    return mask


def pack_routes(routes) -> PackedRoutes:
    """Concatenate routes (ragged, one per agent) into flat arrays plus offsets.

    Parameters
    ----------
    routes : iterable of Route
        Possibly empty; a one-waypoint route takes one row.

    Returns
    -------
    PackedRoutes
        ``(positions, radii, widths, offsets, segment_flags, waypoint_flags)``; see there.
    """
    routes = list(routes)
    for index, route in enumerate(routes):
        if not isinstance(route, Route):
            raise ValueError(f"routes[{index}] must be a Route, got {type(route).__name__}")
    counts = np.array([route.waypoint_count for route in routes], dtype=np.int64)
    offsets = np.zeros(len(routes) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    total = int(offsets[-1])
    positions = np.empty((total, 3))
    radii = np.empty(total)
    widths = np.full(total, np.nan)
    segment_flags = np.zeros(total, dtype=np.int64)
    waypoint_flags = np.empty(total, dtype=np.int64)
    for route, first, stop in zip(routes, offsets[:-1], offsets[1:], strict=True):
        positions[first:stop] = route.positions
        radii[first:stop] = route.radii
        widths[first : stop - 1] = route.widths
        segment_flags[first : stop - 1] = [flag_mask(flags) for flags in route.segment_flags]
        waypoint_flags[first:stop] = [flag_mask(flags) for flags in route.waypoint_flags]
    return PackedRoutes(positions, radii, widths, offsets, segment_flags, waypoint_flags)


def check_routes(route) -> list[Route]:
    """A navigator's ``route`` argument as a list of ``Route`` (one, or one per agent)."""
    if isinstance(route, Route):
        routes = [route]
    elif isinstance(route, Sequence) and not isinstance(route, (str, bytes)):
        routes = list(route)
        if not routes:
            raise ValueError("route must be a Route or a non-empty sequence of Routes, got []")
    else:
        raise ValueError(f"route must be a Route or a sequence of Routes, got {route!r}")
    for number, item in enumerate(routes):
        if not isinstance(item, Route):
            raise ValueError(f"route[{number}] must be a Route, got {type(item).__name__}")
        if item.waypoint_count < 1:
            raise ValueError(f"route[{number}] has no waypoint: nothing to navigate towards")
        positions = np.asarray(item.positions, dtype=float)
        radii = np.asarray(item.radii, dtype=float)
        if not (np.isfinite(positions).all() and np.isfinite(radii).all() and (radii >= 0).all()):
            raise ValueError(
                f"route[{number}] must have finite positions and finite radii >= 0, got "
                f"positions {positions.tolist()!r}, radii {radii.tolist()!r}"
            )
    return routes
