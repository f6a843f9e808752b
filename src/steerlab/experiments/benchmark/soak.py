"""The soak test of seed 001: 64 bots on a map with a road network, baseline
against ours, stuck events per second of driving.

Seed 001, Section IV: "These tests consisted of 5-minute game sessions in conquest mode and a
specific map with 64 AI-controlled bots divided into two teams. A total of 5 randomized trials
were ran for both the baseline and proposed path follower. We normalized the number of stuck
events by the total number of seconds spent driving a ground vehicle across all 64 players. For
the proposed approach, a ground vehicle was stuck on average every 131 s (sigma = 36) of driving
time and every 60 s (sigma = 7) with the baseline."

The game, its map and its bots are not public. Here:

**The map** (``build_map(seed)``, deterministic): a town of ``5 x 5`` junctions on a perturbed
grid (about 70 m blocks, each junction moved up to 8 m), its streets 9 to 12 m wide with two
14 m avenues, buildings as wall polygons in the blocks (set back ``SIDEWALK`` from the road's
edge, 1.5 m gaps between neighbours: narrower than any vehicle, so no alley traps a bot; a few
blocks are parks, without walls); six villages 300 to 380 m from the town centre, each joined to
the town by a winding country road, five of the six ring roads between neighbouring villages, two
farm tracks ending in dead ends; country roads 7 to 10 m wide, unwalled except two walled
stretches (a cutting or bridge: ``walls_along`` the middle of the road, 0.5 m beyond its edges);
hills (``Hill`` features, 4 to 10 m high, steepest grade 5 to 18 degrees) astride about half the
country roads, none in the town or at a junction; a few houses (wall polygons) at each village
and outside the town, kept ``HOUSE_CLEARANCE`` beyond every road's edge. The road network is a
``networkx.Graph`` (nodes: junction indices with ``pos``; edges: ``road`` index and ``length``
[m]); ``SoakMap.world`` the ``steerlab.world.World`` (terrain from ``terrain_from_features``,
walls from ``Walls.from_polygons`` and ``walls_along``). Every road is drivable: ``check_roads``
drives every turn of every junction (and every road both ways) with ``ours`` on a Storm.

**The bots** (``simulate_soak``): ``vehicles`` vehicles, presets cycled in ``PRESETS`` order
(vehicle ``i`` is ``PRESETS[i % 6]``), spawned at rest at random junctions, each facing along
its first route. A route is the shortest path by road length (``networkx``, Dijkstra) from
where the vehicle is to a random other junction, as a waypoint polyline made of the roads'
polylines with the roads' widths. When its follower has arrived (its own arrival latch,
``FollowerParams.arrival_radius``), the vehicle gets a new route at once, from that junction;
the new route does not leave by the road the vehicle came in on unless that road is the only way
out (``u_turns=False``, as a turn-around penalty in a vehicle route planner: a bot does not turn
back in a walled street; allowed, about half of the stuck events followed a turn-around at a
destination, for both followers: measured over a 64-bot minute, 41 of 84 with the baseline, 59 of
112 with ours, against 34 and 58 events without turn-arounds). A bot gives up a
route it is stuck on: at every ``replan_after``-th stuck event in a row without getting
``stuck_distance`` past the previous one (the follower's own ``failures`` count) it gets a new
random destination, the route starting where it is on its current road and leaving by the road's
end that makes the new route shortest (a game bot replans). That frees a bot stuck on a hill or
at a turn it cannot make, not one wedged against a building with its target point behind it:
that one keeps firing an event every 4.2 s (the 3 s window and the 1.2 s recovery) for the rest
of the session, as a game's bot would without a teleport (``FollowerParams.teleport_after`` is
0 by default; measured: a few such bots per session, mostly hovercraft, up to 62 events each;
respawning them at a random junction after 9 events in a row did not change the figures: they
got wedged again). Vehicles do not collide with each other (the world holds terrain and walls
only): every stuck event comes from the terrain, the walls or the vehicle's own driving.
Stepping is batched per preset: one follower (``BaselineFollower`` or ``PathFollower`` through
the follower registry, ``FollowerParams()`` for both) with ``set_paths`` / ``set_path_batch`` and
``step_batch``, and ``Vehicle(preset).step_batch(batch, steer, throttle, dt, world=world)``.

**The measure.** Stuck events are the followers' own stuck-manager events (``FollowerParams``
defaults for both followers: the same judge, ``stuck_distance`` 1 m in ``stuck_window`` 3 s).
Driving seconds: the time each vehicle spends driving a route (every frame but the one in which
its follower arrives; a stuck vehicle is still driving), summed over the vehicles. A trial's
figure is ``driving seconds / stuck events`` (``inf`` without events); over the trials, the mean
and the sample standard deviation (``ddof = 1``; the paper does not say which), beside the paper's
131 s (36) for ours and 60 s (7) for the baseline. Also per preset (pooled over the trials), and
where the events happened (``near_wall``, ``on_slope``, ``open``).

**The run** (``run_soak``): each (follower, trial) is one task of ``steerlab.runner``
(resumable, ``workers`` processes), then ``soak.json``, ``soak.md`` and ``soak_map.png`` are
written in the same folder. Cost (measured on the loaded 2-core machine, warm numba caches): a
5-minute session of 64 bots takes 15 to 20 s (15,000 frames of 6 preset groups: the Python calls
of ``step_batch``, not the kernels, dominate); the full run (5 trials x 2 followers, 2 workers)
about 2 to 3 minutes. Trial ``t`` draws its spawns and routes from ``SeedSequence([seed, t,
vehicle])``: both followers get the same spawns and the same sequence of destinations per
vehicle (common random numbers); the map is the same for every trial (built from ``seed``).
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import math
from collections.abc import Callable, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any, NamedTuple

import networkx as nx
import numpy as np

from steerlab.experiments.markdown import markdown_table
from steerlab.follower import FollowerParams
from steerlab.geometry import Polyline, closest_on_segments
from steerlab.trials.followers import follower_class
from steerlab.vehicles import EASY, HARD, PRESETS, Vehicle
from steerlab.vehicles.state import VehicleBatch
from steerlab.world import Walls, World, walls_along
from steerlab.world.terrain import Hill, terrain_from_features

__all__ = [
    "DT",
    "FOLLOWERS",
    "PAPER",
    "SOAK_FORMAT",
    "Road",
    "RoadCheck",
    "RouteLog",
    "SoakEvent",
    "SoakMap",
    "SoakRun",
    "SoakSpec",
    "build_map",
    "check_roads",
    "render_markdown",
    "run_soak",
    "run_soak_task",
    "simulate_soak",
    "stuck_metrics",
    "summarize",
    "trial_row",
]

SOAK_FORMAT = "steerlab.soak/1"
"""The ``format`` tag of ``soak.json`` and of the runner's manifest."""

DT = 0.02  # [s] frame time (50 Hz, the Table I suite's)
FOLLOWERS = ("baseline", "ours")
PAPER = {"baseline": (60.0, 7.0), "ours": (131.0, 36.0)}
"""Seed 001's soak figures: seconds of driving per stuck event, (mean, sigma) over 5 trials."""

# -- the map's design values (none from the paper, which names no map; chosen once, plausible) --
TOWN_SIZE = 5  # junctions per side of the town grid
BLOCK = 70.0  # [m] grid spacing between junctions (a city block with its streets)
JUNCTION_JITTER = 8.0  # [m] each town junction moved by up to this in x and y (uniform)
STREET_WIDTHS = (9.0, 10.0, 12.0)  # [m] full widths of town streets (drawn per street)
AVENUE_WIDTH = 14.0  # [m] the middle row and column
SIDEWALK = 2.5  # [m] from a street's edge to the buildings
BUILDING_GAP = 1.5  # [m] between the buildings of a block: narrower than any vehicle (1.63 m)
PARK_SHARE = 0.2  # share of blocks that are parks (no buildings)
VILLAGES = 6
VILLAGE_RADIUS = (300.0, 380.0)  # [m] from the town centre
COUNTRY_WIDTHS = (7.0, 8.0, 9.0, 10.0)  # [m] full widths of country roads
FARM_TRACKS = 2  # dead-end roads from villages outwards
FARM_LENGTH = (80.0, 130.0)  # [m]
WALLED_STRETCHES = 2  # country roads with walls on both sides over their middle
WALL_MARGIN = 0.5  # [m] from the road's edge to those walls
HILL_SHARE = 0.5  # share of country roads with a hill astride
HILL_HEIGHT = (4.0, 10.0)  # [m]
HILL_GRADE_DEG = (5.0, 18.0)  # [deg] steepest grade (the hovercraft climbs 7 from rest, the
#   others 31 and more: docs/fidelity.md, "vehicle classes")
HILL_KEEP_OUT = 15.0  # [m] between a hill's foot and the town or any junction
HOUSES_PER_ANCHOR = (3, 6)  # houses tried around each village and outer town junction
HOUSE_SIZE = ((8.0, 14.0), (6.0, 10.0))  # [m] length and width ranges
HOUSE_CLEARANCE = 3.0  # [m] from a road's edge to a house
TERRAIN_CELL = 2.0  # [m] terrain grid spacing (hills are 70 m and more across)
TERRAIN_MARGIN = 120.0  # [m] terrain grid beyond the outermost junction


class Road(NamedTuple):
    """One road of the map: an edge of the graph."""

    u: int  # junction at points[0]
    v: int  # junction at points[-1]
    points: np.ndarray  # (k, 2) [m] centre line from junction u to junction v
    width: float  # [m] full width
    kind: str  # "street", "avenue", "country", "farm"
    walled: bool  # walls on both sides over part of it (a cutting or a bridge)

    @property
    def length(self) -> float:
        return float(np.hypot(*np.diff(self.points, axis=0).T).sum())


class SoakMap(NamedTuple):
    """The soak test's map (``build_map``)."""

    seed: int
    junctions: np.ndarray  # (n, 2) [m]
    junction_kinds: tuple[str, ...]  # "town", "village", "farm"
    roads: tuple[Road, ...]
    graph: nx.Graph  # nodes 0..n-1 (pos), edges (road, length)
    buildings: tuple[np.ndarray, ...]  # wall polygons (k, 2) [m]: town buildings and houses
    hills: tuple[Hill, ...]
    world: World

    def road_between(self, a: int, b: int) -> tuple[Road, np.ndarray]:
        """The road joining junctions ``a`` and ``b``, and its centre line from ``a`` to ``b``."""
        road = self.roads[self.graph.edges[a, b]["road"]]
        return road, (road.points if road.u == a else road.points[::-1])

    def route_polyline(self, nodes: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """``(points (k, 2), widths (k - 1,))`` of the route through ``nodes`` (consecutive
        junctions joined by roads): the roads' centre lines end to end, the shared junctions once,
        each segment with its road's width."""
        pieces = [self.junctions[nodes[0]][None, :]]
        widths = []
        for a, b in itertools.pairwise(nodes):
            road, line = self.road_between(a, b)
            pieces.append(line[1:])
            widths += [road.width] * (len(line) - 1)
        return np.concatenate(pieces), np.array(widths)

    shortest_lengths: dict  # [a][b] -> [m] road length of the shortest route (Dijkstra)
    shortest_paths: dict  # [a][b] -> list of junctions

    def shortest_path(self, a: int, b: int) -> list[int]:
        """Junctions of the shortest route by road length from ``a`` to ``b``."""
        return self.shortest_paths[a][b]

    def distance(self, a: int, b: int) -> float:
        """[m] road length of the shortest route from ``a`` to ``b``."""
        return self.shortest_lengths[a][b]

    @property
    def town_bounds(self) -> tuple[float, float, float, float]:
        """``(x_min, y_min, x_max, y_max)`` [m] of the town's junctions."""
        town = self.junctions[np.array([kind == "town" for kind in self.junction_kinds])]
        return (*town.min(axis=0), *town.max(axis=0))

    def describe(self) -> dict[str, Any]:
        """Counts and sizes for reports."""
        kinds: dict[str, float] = {}
        for road in self.roads:
            kinds[road.kind] = kinds.get(road.kind, 0.0) + road.length
        return {
            "seed": self.seed,
            "junctions": len(self.junctions),
            "roads": len(self.roads),
            "road_km": round(sum(kinds.values()) / 1000.0, 3),
            "road_km_by_kind": {kind: round(length / 1000.0, 3) for kind, length in kinds.items()},
            "walled_stretches": sum(road.walled for road in self.roads),
            "buildings": len(self.buildings),
            "walls": len(self.world.walls),
            "hills": [
                {
                    "center": [round(float(c), 1) for c in hill.center],
                    "height": round(hill.height, 2),
                    "grade_deg": round(math.degrees(math.atan(hill.max_slope)), 2),
                }
                for hill in self.hills
            ],
            "digest": map_digest(self),
        }


def map_digest(soak_map: SoakMap) -> str:
    """SHA-256 of the map's geometry (junctions, roads, buildings, hills): results of another map
    are never mixed into a run."""
    digest = hashlib.sha256()
    digest.update(np.ascontiguousarray(soak_map.junctions).tobytes())
    for road in soak_map.roads:
        digest.update(f"{road.u},{road.v},{road.width!r},{road.kind},{road.walled}".encode())
        digest.update(np.ascontiguousarray(road.points).tobytes())
    for polygon in soak_map.buildings:
        digest.update(np.ascontiguousarray(polygon).tobytes())
    for hill in soak_map.hills:
        digest.update(repr(tuple(hill)).encode())
    return digest.hexdigest()


# --------------------------------------------------------------------------------------------------
# geometry helpers (plain NumPy: the map is built once)


def _segments_distance(p, q):
    """Distance between every segment of ``p`` (m, 4) and every one of ``q`` (n, 4): (m, n)."""
    a = p[:, None, :]
    b = q[None, :, :]
    ax, ay, bx, by = (a[..., i] for i in range(4))
    cx, cy, dx, dy = (b[..., i] for i in range(4))
    distance = np.minimum.reduce(
        [
            closest_on_segments(cx, cy, dx, dy, ax, ay)[2],
            closest_on_segments(cx, cy, dx, dy, bx, by)[2],
            closest_on_segments(ax, ay, bx, by, cx, cy)[2],
            closest_on_segments(ax, ay, bx, by, dx, dy)[2],
        ]
    )

    def cross(ox, oy, ux, uy, vx, vy):
        return (ux - ox) * (vy - oy) - (uy - oy) * (vx - ox)

    d1 = cross(cx, cy, dx, dy, ax, ay)
    d2 = cross(cx, cy, dx, dy, bx, by)
    d3 = cross(ax, ay, bx, by, cx, cy)
    d4 = cross(ax, ay, bx, by, dx, dy)
    crossing = (d1 * d2 < 0.0) & (d3 * d4 < 0.0)
    return np.where(crossing, 0.0, distance)


def _polygon_edges(polygon: np.ndarray) -> np.ndarray:
    return np.column_stack((polygon, np.roll(polygon, -1, axis=0)))


def _polyline_segments(points: np.ndarray) -> np.ndarray:
    return np.column_stack((points[:-1], points[1:]))


def _inside_convex(polygon: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Which ``points`` (k, 2) lie inside the convex counter-clockwise ``polygon``."""
    edges = np.roll(polygon, -1, axis=0) - polygon
    relative = points[:, None, :] - polygon[None, :, :]
    cross = edges[None, :, 0] * relative[..., 1] - edges[None, :, 1] * relative[..., 0]
    return (cross > 0.0).all(axis=1)


def _line_intersection(p, d, q, e):
    """Intersection of the lines ``p + t d`` and ``q + u e``."""
    denominator = d[0] * e[1] - d[1] * e[0]
    t = ((q[0] - p[0]) * e[1] - (q[1] - p[1]) * e[0]) / denominator
    return p + t * d


def _inset_quad(corners: np.ndarray, offsets: Sequence[float]) -> np.ndarray | None:
    """The counter-clockwise quad ``corners`` with each side ``i`` (corner ``i`` to ``i + 1``)
    moved inwards by ``offsets[i]``; None when the result is not a convex counter-clockwise quad
    with sides of at least 10 m."""
    lines = []
    for i in range(4):
        a, b = corners[i], corners[(i + 1) % 4]
        direction = b - a
        normal = np.array((-direction[1], direction[0])) / np.hypot(*direction)  # left: inwards
        lines.append((a + offsets[i] * normal, direction))
    inner = np.array([_line_intersection(*lines[i - 1], *lines[i]) for i in range(4)])
    edges = np.roll(inner, -1, axis=0) - inner
    turns = (
        edges[:, 0] * np.roll(edges, -1, axis=0)[:, 1] - edges[:, 1] * np.roll(edges, -1, 0)[:, 0]
    )
    if (turns <= 0.0).any() or np.hypot(*edges.T).min() < 10.0:
        return None
    return inner


def _bilinear(quad: np.ndarray, u: float, v: float) -> np.ndarray:
    """Point ``(u, v)`` of the bilinear map of ``quad`` (corners 0, 1, 2, 3 at (0,0), (1,0),
    (1,1), (0,1))."""
    return (
        (1 - u) * (1 - v) * quad[0]
        + u * (1 - v) * quad[1]
        + u * v * quad[2]
        + (1 - u) * v * quad[3]
    )


def _wavy_line(a, b, amplitude: float, waves: int, count: int) -> np.ndarray:
    """``count + 1`` points from ``a`` to ``b`` displaced sideways by ``amplitude sin(pi waves
    t)`` (zero at both ends): a winding country road."""
    t = np.linspace(0.0, 1.0, count + 1)
    direction = b - a
    normal = np.array((-direction[1], direction[0])) / np.hypot(*direction)
    offset = amplitude * np.sin(np.pi * waves * t)
    return a[None, :] + t[:, None] * direction[None, :] + offset[:, None] * normal[None, :]


def _sub_polyline(points: np.ndarray, start: float, stop: float) -> np.ndarray:
    """The part of the polyline between arc lengths ``start`` and ``stop``."""
    cumulative = np.concatenate(([0.0], np.cumsum(np.hypot(*np.diff(points, axis=0).T))))
    inside = points[(cumulative > start) & (cumulative < stop)]
    ends = [
        np.array([np.interp(s, cumulative, points[:, 0]), np.interp(s, cumulative, points[:, 1])])
        for s in (start, stop)
    ]
    return np.vstack((ends[0], inside, ends[1]))


# --------------------------------------------------------------------------------------------------
# the map


def build_map(seed: int = 0) -> SoakMap:
    """The soak map drawn from ``seed`` (module docstring): the same seed gives the same map, to
    the bit.

    Raises
    ------
    ValueError
        ``seed`` not a non-negative integer.
    """
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    seed = int(seed)
    return _build_map_cached(seed)


@functools.lru_cache(maxsize=4)
def _build_map_cached(seed: int) -> SoakMap:
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0x50A4]))
    junctions: list[np.ndarray] = []
    kinds: list[str] = []
    roads: list[Road] = []

    # -- town: a perturbed grid, junction (row, column) at index row * TOWN_SIZE + column ------
    half = 0.5 * (TOWN_SIZE - 1) * BLOCK
    for row in range(TOWN_SIZE):
        for column in range(TOWN_SIZE):
            jitter = rng.uniform(-JUNCTION_JITTER, JUNCTION_JITTER, size=2)
            junctions.append(np.array((column * BLOCK - half, row * BLOCK - half)) + jitter)
            kinds.append("town")
    middle = TOWN_SIZE // 2

    def town(row, column):
        return row * TOWN_SIZE + column

    width_of: dict[tuple[int, int], float] = {}
    for row in range(TOWN_SIZE):
        for column in range(TOWN_SIZE):
            for d_row, d_column in ((0, 1), (1, 0)):
                r2, c2 = row + d_row, column + d_column
                if r2 >= TOWN_SIZE or c2 >= TOWN_SIZE:
                    continue
                avenue = (d_row == 0 and row == middle) or (d_column == 0 and column == middle)
                width = AVENUE_WIDTH if avenue else float(rng.choice(STREET_WIDTHS))
                a, b = town(row, column), town(r2, c2)
                width_of[(a, b)] = width_of[(b, a)] = width
                points = np.vstack((junctions[a], junctions[b]))
                roads.append(Road(a, b, points, width, "avenue" if avenue else "street", False))

    # buildings in the blocks: the block's quad inset by each street's half width + sidewalk
    buildings: list[np.ndarray] = []
    for row in range(TOWN_SIZE - 1):
        for column in range(TOWN_SIZE - 1):
            corner_ids = (
                town(row, column),
                town(row, column + 1),
                town(row + 1, column + 1),
                town(row + 1, column),
            )
            park = rng.uniform() < PARK_SHARE
            split_u, split_v = (int(n) for n in rng.integers(1, 3, size=2))
            if park:
                continue
            corners = np.array([junctions[i] for i in corner_ids])
            offsets = [
                0.5 * width_of[(corner_ids[i], corner_ids[(i + 1) % 4])] + SIDEWALK
                for i in range(4)
            ]
            inner = _inset_quad(corners, offsets)
            if inner is None:
                continue
            sides = np.hypot(*(np.roll(inner, -1, axis=0) - inner).T)
            gap_u = BUILDING_GAP / min(sides[0], sides[2])
            gap_v = BUILDING_GAP / min(sides[1], sides[3])
            for i in range(split_u):
                for j in range(split_v):
                    u0 = i / split_u + (gap_u / 2 if i > 0 else 0.0)
                    u1 = (i + 1) / split_u - (gap_u / 2 if i < split_u - 1 else 0.0)
                    v0 = j / split_v + (gap_v / 2 if j > 0 else 0.0)
                    v1 = (j + 1) / split_v - (gap_v / 2 if j < split_v - 1 else 0.0)
                    buildings.append(
                        np.array(
                            [
                                _bilinear(inner, u0, v0),
                                _bilinear(inner, u1, v0),
                                _bilinear(inner, u1, v1),
                                _bilinear(inner, u0, v1),
                            ]
                        )
                    )

    # -- country: villages on a ring, each joined to the nearest town junction on the edge ----
    perimeter = [
        town(row, column)
        for row in range(TOWN_SIZE)
        for column in range(TOWN_SIZE)
        if row in (0, TOWN_SIZE - 1) or column in (0, TOWN_SIZE - 1)
    ]
    base_angle = rng.uniform(0.0, 2.0 * math.pi / VILLAGES)
    villages = []
    for k in range(VILLAGES):
        angle = base_angle + 2.0 * math.pi * k / VILLAGES + rng.uniform(-0.15, 0.15)
        radius = rng.uniform(*VILLAGE_RADIUS)
        villages.append(len(junctions))
        junctions.append(np.array((radius * math.cos(angle), radius * math.sin(angle))))
        kinds.append("village")
    used_perimeter: set[int] = set()
    for village in villages:
        position = junctions[village]
        choices = sorted(
            (p for p in perimeter if p not in used_perimeter),
            key=lambda p: float(np.hypot(*(junctions[p] - position))),
        )
        gate = choices[0]
        used_perimeter.add(gate)
        length = float(np.hypot(*(position - junctions[gate])))
        points = _wavy_line(
            junctions[gate],
            position,
            amplitude=float(rng.uniform(6.0, 18.0)) * float(rng.choice((-1.0, 1.0))),
            waves=int(rng.integers(1, 3)),
            count=max(6, int(length // 20.0)),
        )
        roads.append(
            Road(gate, village, points, float(rng.choice(COUNTRY_WIDTHS)), "country", False)
        )
    skipped = int(rng.integers(VILLAGES))
    for k in range(VILLAGES):
        if k == skipped:
            continue
        a, b = villages[k], villages[(k + 1) % VILLAGES]
        pa, pb = junctions[a], junctions[b]
        angle_a = math.atan2(pa[1], pa[0])
        angle_b = math.atan2(pb[1], pb[0])
        sweep = math.remainder(angle_b - angle_a, 2.0 * math.pi)
        radius_a, radius_b = float(np.hypot(*pa)), float(np.hypot(*pb))
        count = 16
        t = np.linspace(0.0, 1.0, count + 1)
        wobble = float(rng.uniform(10.0, 30.0)) * np.sin(np.pi * t) * float(rng.choice((-1, 1)))
        radius = radius_a + (radius_b - radius_a) * t + wobble
        angles = angle_a + sweep * t
        points = np.column_stack((radius * np.cos(angles), radius * np.sin(angles)))
        points[0], points[-1] = pa, pb
        roads.append(Road(a, b, points, float(rng.choice(COUNTRY_WIDTHS)), "country", False))
    for village in rng.choice(villages, size=FARM_TRACKS, replace=False):
        village = int(village)
        position = junctions[village]
        outwards = position / np.hypot(*position)
        turn = rng.uniform(-0.5, 0.5)
        direction = np.array(
            (
                outwards[0] * math.cos(turn) - outwards[1] * math.sin(turn),
                outwards[0] * math.sin(turn) + outwards[1] * math.cos(turn),
            )
        )
        farm = len(junctions)
        junctions.append(position + rng.uniform(*FARM_LENGTH) * direction)
        kinds.append("farm")
        points = _wavy_line(position, junctions[farm], float(rng.uniform(-8.0, 8.0)), 1, count=5)
        roads.append(Road(village, farm, points, 6.0, "farm", False))

    junction_array = np.array(junctions)
    country = [i for i, road in enumerate(roads) if road.kind == "country"]

    # -- walled stretches: the middle 40 % of a few country roads -------------------------------
    walls = []
    for index in rng.choice(country, size=WALLED_STRETCHES, replace=False):
        road = roads[int(index)]
        stretch = _sub_polyline(road.points, 0.3 * road.length, 0.7 * road.length)
        walls.append(walls_along(Polyline(stretch, road.width), WALL_MARGIN))
        roads[int(index)] = road._replace(walled=True)

    # -- hills astride country roads, away from the town and the junctions ---------------------
    x_min, y_min = junction_array[: TOWN_SIZE**2].min(axis=0)
    x_max, y_max = junction_array[: TOWN_SIZE**2].max(axis=0)
    hills: list[Hill] = []
    for index in country:
        height = float(rng.uniform(*HILL_HEIGHT))
        grade = math.radians(float(rng.uniform(*HILL_GRADE_DEG)))
        where = float(rng.uniform(0.35, 0.65))
        side = float(rng.uniform(-10.0, 10.0))
        if rng.uniform() >= HILL_SHARE:
            continue
        road = roads[index]
        s = where * road.length
        cumulative = np.concatenate(([0.0], np.cumsum(np.hypot(*np.diff(road.points, axis=0).T))))
        segment = min(int(np.searchsorted(cumulative, s, side="right")) - 1, len(cumulative) - 2)
        direction = road.points[segment + 1] - road.points[segment]
        normal = np.array((-direction[1], direction[0])) / np.hypot(*direction)
        center = (
            np.array([np.interp(s, cumulative, road.points[:, k]) for k in range(2)])
            + side * normal
        )
        hill = Hill((float(center[0]), float(center[1])), height, math.tan(grade))
        reach = hill.radius + HILL_KEEP_OUT
        outside_town = (
            center[0] + reach < x_min
            or center[0] - reach > x_max
            or center[1] + reach < y_min
            or center[1] - reach > y_max
        )
        clear_of_junctions = np.hypot(*(junction_array - center).T).min() > reach
        clear_of_hills = all(
            math.dist(center, other.center) > hill.radius + other.radius for other in hills
        )
        if outside_town and clear_of_junctions and clear_of_hills:
            hills.append(hill)

    # -- houses at the villages and outside the town, clear of every road -----------------------
    road_segments = np.concatenate([_polyline_segments(road.points) for road in roads])
    road_reach = np.concatenate(
        [np.full(len(road.points) - 1, 0.5 * road.width + HOUSE_CLEARANCE) for road in roads]
    )
    anchors = [*villages, *[p for p in perimeter if p not in used_perimeter]]
    extra = []
    for anchor in anchors:
        tries = int(rng.integers(*HOUSES_PER_ANCHOR, endpoint=True))
        for _ in range(tries):
            angle = rng.uniform(0.0, 2.0 * math.pi)
            distance = rng.uniform(15.0, 45.0)
            length = rng.uniform(*HOUSE_SIZE[0])
            width = rng.uniform(*HOUSE_SIZE[1])
            yaw = rng.uniform(0.0, math.pi)
            center = junction_array[anchor] + distance * np.array(
                (math.cos(angle), math.sin(angle))
            )
            c, s = math.cos(yaw), math.sin(yaw)
            local = (
                np.array([(-length, -width), (length, -width), (length, width), (-length, width)])
                / 2.0
            )
            house = center + local @ np.array([[c, s], [-s, c]])
            if _house_fits(house, road_segments, road_reach, buildings + extra):
                extra.append(house)
    buildings += extra

    walls_all = Walls.from_polygons(buildings)
    for stretch_walls in walls:
        walls_all = walls_all + stretch_walls
    terrain_low = junction_array.min(axis=0) - TERRAIN_MARGIN
    terrain_high = junction_array.max(axis=0) + TERRAIN_MARGIN
    terrain = terrain_from_features(
        hills,
        (float(terrain_low[0]), float(terrain_high[0])),
        (float(terrain_low[1]), float(terrain_high[1])),
        TERRAIN_CELL,
    )
    world = World(terrain, walls_all)

    graph = nx.Graph()
    for index, position in enumerate(junction_array):
        graph.add_node(index, pos=(float(position[0]), float(position[1])), kind=kinds[index])
    for index, road in enumerate(roads):
        graph.add_edge(road.u, road.v, road=index, length=road.length)
    lengths, paths = {}, {}
    for source, (length, path) in nx.all_pairs_dijkstra(graph, weight="length"):
        lengths[source], paths[source] = length, path
    return SoakMap(
        seed=seed,
        junctions=junction_array,
        junction_kinds=tuple(kinds),
        roads=tuple(roads),
        graph=graph,
        buildings=tuple(buildings),
        hills=tuple(hills),
        world=world,
        shortest_lengths=lengths,
        shortest_paths=paths,
    )


def _house_fits(house, road_segments, road_reach, others) -> bool:
    """A house clear of every road segment (by ``road_reach``: half the road's width plus
    ``HOUSE_CLEARANCE``) and of other buildings (``BUILDING_GAP``)."""
    edges = _polygon_edges(house)
    if (_segments_distance(edges, road_segments).min(axis=0) < road_reach).any():
        return False
    if _inside_convex(house, road_segments[:, :2]).any():
        return False
    center = house.mean(axis=0)
    for other in others:
        if np.hypot(*(other.mean(axis=0) - center)) > 40.0:
            continue
        if _segments_distance(edges, _polygon_edges(other)).min() < BUILDING_GAP:
            return False
        if _inside_convex(other, house).any() or _inside_convex(house, other).any():
            return False
    return True


# --------------------------------------------------------------------------------------------------
# routes


class RouteLog(NamedTuple):
    """A route given to a vehicle: the junctions it passes and the polyline its follower got.

    ``nodes`` are consecutive junctions of the graph; the polyline is ``route_polyline(nodes)``
    from arc length ``offset`` on (``offset > 0`` only for a replan, which starts where the
    vehicle is on the road ``nodes[0] - nodes[1]``).
    """

    vehicle: int
    time: float  # [s] when it was given
    reason: str  # "spawn", "arrived" (the previous route's end), "replan" (stuck)
    x: float  # [m] where the vehicle was then
    y: float
    nodes: tuple[int, ...]
    offset: float  # [m] along the first road where the polyline starts
    points: np.ndarray  # (k, 2) [m] the polyline given to the follower
    widths: np.ndarray  # (k - 1,) [m]


def _random_goal(rng: np.random.Generator, count: int, exclude: Sequence[int]) -> int:
    """A junction drawn uniformly among the ``count`` junctions but ``exclude`` (sorted)."""
    goal = int(rng.integers(count - len(exclude)))
    for excluded in sorted(exclude):
        if goal >= excluded:
            goal += 1
    return goal


def _route(soak_map: SoakMap, nodes: Sequence[int], offset: float = 0.0):
    """``(points, widths, node_s)`` of the route through ``nodes`` cut at ``offset``: node ``k``
    lies at arc length ``node_s[k]`` of the polyline (the first at ``-offset``)."""
    points, widths = soak_map.route_polyline(nodes)
    lengths = np.hypot(*np.diff(points, axis=0).T)
    cumulative = np.concatenate(([0.0], np.cumsum(lengths)))
    node_s = [0.0]
    for a, b in itertools.pairwise(nodes):
        node_s.append(node_s[-1] + soak_map.graph.edges[a, b]["length"])
    node_s = np.array(node_s) - offset
    if offset > 0.0:
        first = int(np.searchsorted(cumulative, offset, side="right")) - 1
        start = np.array([np.interp(offset, cumulative, points[:, k]) for k in range(2)])
        points = np.vstack((start, points[first + 1 :]))
        widths = widths[first:]
    return points, widths, node_s


class _Bot:
    """A vehicle's route state (its follower's memory lives in the group's batch)."""

    __slots__ = ("node_s", "nodes", "rng")

    def __init__(self, rng):
        self.rng = rng
        self.nodes: tuple[int, ...] = ()
        self.node_s = np.zeros(1)

    def edge_at(self, s: float) -> tuple[int, int]:
        """The road (junction, junction) under arc length ``s`` of the current route."""
        index = int(np.searchsorted(self.node_s, s, side="right")) - 1
        index = min(max(index, 0), len(self.nodes) - 2)
        return self.nodes[index], self.nodes[index + 1]


def _next_route(soak_map, bot, start, came_from=None):
    """A route from junction ``start`` to a random other junction: the shortest path, or, when
    the vehicle came in from junction ``came_from``, the shortest path that does not leave by
    that road (no turning back at a junction) unless it is the only way."""
    goal = _random_goal(bot.rng, len(soak_map.junctions), (start,))
    if came_from is None or soak_map.graph.degree[start] < 2:
        return tuple(soak_map.shortest_path(start, goal)), 0.0
    path = soak_map.shortest_path(start, goal)
    if path[1] != came_from:
        return tuple(path), 0.0

    def length(a, b, attributes):
        return None if {a, b} == {start, came_from} else attributes["length"]

    try:
        return tuple(nx.dijkstra_path(soak_map.graph, start, goal, weight=length)), 0.0
    except nx.NetworkXNoPath:
        return tuple(path), 0.0


def _replan_route(soak_map, bot, x, y, s):
    """A new random destination from where the vehicle is on its current road (module
    docstring): leave by the road's end that makes the route shortest."""
    a, b = bot.edge_at(s)
    goal = _random_goal(bot.rng, len(soak_map.junctions), (a, b))
    _, line = soak_map.road_between(a, b)
    along = Polyline(line).project((x, y)).s
    length = soak_map.graph.edges[a, b]["length"]
    options = []
    for end, other, to_end in ((b, a, length - along), (a, b, along)):
        nodes = tuple(soak_map.shortest_path(end, goal))
        if other not in nodes:  # (one option at least: both cannot pass the other end)
            options.append((to_end + soak_map.distance(end, goal), end, other, to_end, nodes))
    _, end, other, to_end, nodes = min(options, key=lambda option: option[0])
    if to_end < 1.0:  # at the junction already
        return nodes, 0.0
    return (other, *nodes), length - to_end


# --------------------------------------------------------------------------------------------------
# the simulation


class SoakEvent(NamedTuple):
    """A stuck event of the soak test (the follower's own stuck manager)."""

    vehicle: int
    preset: str
    time: float  # [s] since the session started
    x: float  # [m]
    y: float
    where: str  # "near_wall", "on_slope" or "open" (see ``_where``)


class SoakRun(NamedTuple):
    """Everything one soak session produced (``simulate_soak``)."""

    follower: str
    trial: int
    seed: int
    dt: float
    steps: int
    presets: tuple[str, ...]  # per vehicle
    driving_seconds: np.ndarray  # [s] per vehicle
    distance: np.ndarray  # [m] driven (ground speed integrated) per vehicle
    arrivals: np.ndarray  # routes completed per vehicle
    replans: np.ndarray  # routes given up (stuck) per vehicle
    events: tuple[SoakEvent, ...]  # in time order (vehicles in index order within a frame)
    routes: tuple[RouteLog, ...]  # in the order given


WHERE = ("near_wall", "on_slope", "open")
NEAR_WALL = 1.0  # [m] beyond the vehicle's half diagonal: a wall that close counts
ON_SLOPE_DEG = 4.0  # [deg] steepest grade under the vehicle above which it is on a slope


def _where(soak_map: SoakMap, preset: str, x: float, y: float) -> str:
    """``near_wall`` if a wall is within the vehicle's half diagonal + ``NEAR_WALL``, else
    ``on_slope`` if the ground's steepest grade there exceeds ``ON_SLOPE_DEG``, else ``open``."""
    walls = soak_map.world.walls
    params = PRESETS[preset]
    reach = math.hypot(params.half_length, params.half_width) + NEAR_WALL
    if len(walls) and (
        closest_on_segments(walls.ax, walls.ay, walls.bx, walls.by, x, y)[2].min() <= reach
    ):
        return "near_wall"
    gradient_x, gradient_y = soak_map.world.gradient(x, y)
    if math.hypot(float(gradient_x), float(gradient_y)) > math.tan(math.radians(ON_SLOPE_DEG)):
        return "on_slope"
    return "open"


def _check_count(name: str, value, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _check_positive(name: str, value) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number > 0, got {value!r}") from None
    if not (number > 0.0 and math.isfinite(number)):
        raise ValueError(f"{name} must be > 0 and finite, got {value!r}")
    return number


def _version() -> str:
    try:
        return metadata.version("steerlab")
    except metadata.PackageNotFoundError:  # pragma: no cover - run from a source tree
        return "unknown"


def _check_follower(name) -> str:
    if name not in FOLLOWERS:
        raise ValueError(f"unknown follower {name!r} for the soak test; followers: {FOLLOWERS}")
    return name


def simulate_soak(
    soak_map: SoakMap,
    follower: str,
    *,
    trial: int = 0,
    minutes: float = 5.0,
    vehicles: int = 64,
    dt: float = DT,
    replan_after: int = 3,
    u_turns: bool = False,
) -> SoakRun:
    """One soak session: ``vehicles`` bots driving random routes for ``minutes`` (module
    docstring).

    Parameters
    ----------
    soak_map : SoakMap
        The map (``build_map``); its ``seed`` and ``trial`` seed the spawns and routes.
    follower : str
        ``"baseline"`` or ``"ours"`` (``steerlab.trials.followers``, ``FollowerParams()``).
    trial : int
        Trial number ``>= 0``: trial ``t`` draws from ``SeedSequence([map seed, t, vehicle])``.
    minutes : float
        Simulated session length (``> 0``), run as ``round(60 minutes / dt)`` frames.
    vehicles : int
        Number of bots ``>= 1``, presets cycled in ``PRESETS`` order.
    dt : float
        Frame time [s] ``> 0``.
    replan_after : int
        A bot gives up its route at every ``replan_after``-th stuck event in a row (``0``:
        never).
    u_turns : bool
        Allow a new route to leave its first junction by the road the vehicle came in on
        (default False: as with a turn-around penalty, it goes round unless that road is the
        only way out).

    Raises
    ------
    ValueError
        A bad argument, named. ``RuntimeError`` if a vehicle's state stops being finite (a bug
        in a kernel; never seen).
    """
    if not isinstance(soak_map, SoakMap):
        raise ValueError(f"soak_map must be a SoakMap (build_map), got {soak_map!r}")
    follower = _check_follower(follower)
    trial = _check_count("trial", trial, 0)
    vehicles = _check_count("vehicles", vehicles)
    replan_after = _check_count("replan_after", replan_after, 0)
    minutes = _check_positive("minutes", minutes)
    dt = _check_positive("dt", dt)
    steps = max(1, round(60.0 * minutes / dt))
    names = tuple(PRESETS)
    presets = tuple(names[i % len(names)] for i in range(vehicles))
    count = len(soak_map.junctions)
    cls = follower_class(follower)
    world = soak_map.world

    bots = [
        _Bot(np.random.default_rng(np.random.SeedSequence([soak_map.seed, trial, i])))
        for i in range(vehicles)
    ]
    routes: list[RouteLog] = []

    def assign(i, nodes, offset, reason, time, x=None, y=None):
        points, widths, node_s = _route(soak_map, nodes, offset)
        bots[i].nodes, bots[i].node_s = nodes, node_s
        if x is None:
            x, y = (float(value) for value in points[0])
        routes.append(RouteLog(i, time, reason, x, y, nodes, offset, points, widths))
        return points, widths

    groups = []
    for name in names:
        members = np.array([i for i in range(vehicles) if presets[i] == name], dtype=np.int64)
        if members.size == 0:
            continue
        paths, widths, starts = [], [], []
        for i in members:
            start = int(bots[i].rng.integers(count))
            points, path_widths = assign(
                int(i), *_next_route(soak_map, bots[i], start), "spawn", 0.0
            )
            paths.append(points)
            widths.append(path_widths)
            starts.append(points[:2])
        x = np.array([first[0, 0] for first in starts])
        y = np.array([first[0, 1] for first in starts])
        yaw = np.array(
            [math.atan2(first[1, 1] - first[0, 1], first[1, 0] - first[0, 0]) for first in starts]
        )
        vehicle = Vehicle(PRESETS[name])
        path_follower = cls(vehicle.params, FollowerParams())
        path_follower.set_paths(paths, widths)
        groups.append((members, vehicle, path_follower, VehicleBatch(x, y, yaw)))

    arrivals = np.zeros(vehicles, dtype=np.int64)
    replans = np.zeros(vehicles, dtype=np.int64)
    distance = np.zeros(vehicles)
    outs = [None] * len(groups)
    for k in range(steps):
        time = (k + 1) * dt
        for g, (members, vehicle, path_follower, batch) in enumerate(groups):
            out = path_follower.step_batch(batch, dt, out=outs[g])
            outs[g] = out
            memory = path_follower.batch_memory
            if out.stuck_event.any() and replan_after:
                for j in np.flatnonzero(out.stuck_event):
                    if memory.failures[j] % replan_after == 0:
                        i = int(members[j])
                        x, y = float(batch.x[j]), float(batch.y[j])
                        nodes, offset = _replan_route(soak_map, bots[i], x, y, float(out.s[j]))
                        path_follower.set_path_batch(
                            int(j), *assign(i, nodes, offset, "replan", time, x, y)
                        )
                        replans[i] += 1
            if memory.arrived.any():
                for j in np.flatnonzero(memory.arrived):
                    i = int(members[j])
                    *_, came_from, goal = bots[i].nodes
                    nodes, offset = _next_route(
                        soak_map, bots[i], goal, None if u_turns else came_from
                    )
                    x, y = float(batch.x[j]), float(batch.y[j])
                    path_follower.set_path_batch(
                        int(j), *assign(i, nodes, offset, "arrived", time, x, y)
                    )
                    arrivals[i] += 1
            vehicle.step_batch(batch, out.steer, out.throttle, dt, world=world)
            distance[members] += np.hypot(batch.v, batch.v_lat) * dt
        if k % 500 == 499 or k == steps - 1:
            for members, _, _, batch in groups:
                for field, values in zip(("x", "y", "yaw", "v"), batch.fields(), strict=False):
                    if not np.isfinite(values).all():
                        j = int(np.flatnonzero(~np.isfinite(values))[0])
                        raise RuntimeError(
                            f"vehicle {int(members[j])} ({presets[members[j]]}): {field} = "
                            f"{values[j]!r} at t = {time:.6g} s"
                        )

    events = []
    for members, _, path_follower, _ in groups:
        for event in path_follower.stuck_events:
            i = int(members[event.agent])
            events.append(
                SoakEvent(i, presets[i], event.time, event.x, event.y,
                          _where(soak_map, presets[i], event.x, event.y))
            )  # fmt: skip
    events.sort(key=lambda event: (event.time, event.vehicle))
    driving = (steps - arrivals) * dt
    return SoakRun(
        follower=follower,
        trial=trial,
        seed=soak_map.seed,
        dt=dt,
        steps=steps,
        presets=presets,
        driving_seconds=driving.astype(np.float64),
        distance=distance,
        arrivals=arrivals,
        replans=replans,
        events=tuple(events),
        routes=tuple(routes),
    )


# --------------------------------------------------------------------------------------------------
# drivability


class RoadCheck(NamedTuple):
    """One route of ``check_roads``: junctions ``nodes`` (two roads through a junction, or one
    road into a dead end)."""

    nodes: tuple[int, ...]
    length: float  # [m]
    arrived: bool  # the follower arrived within the time limit
    time: float  # [s] to arrive (the time limit if not)
    stuck_events: int


def check_roads(
    soak_map: SoakMap,
    vehicle: str = "storm",
    follower: str = "ours",
    *,
    dt: float = DT,
    min_speed: float = 1.5,
    extra_time: float = 30.0,
) -> list[RoadCheck]:
    """Drive every turn of the map once: for every road ``a - j`` and every other road ``j - b``
    at its end, the route ``a, j, b`` (a dead end ``j``: the route ``a, j``), so that every road
    is driven both ways and every turn at every junction is taken. One vehicle per route, all in
    one batch (no collisions between them), spawned at rest at ``a`` facing along the road; each
    has ``length / min_speed + extra_time`` seconds to arrive.

    Returns one ``RoadCheck`` per route, sorted by ``nodes``.
    """
    if not isinstance(soak_map, SoakMap):
        raise ValueError(f"soak_map must be a SoakMap (build_map), got {soak_map!r}")
    if vehicle not in PRESETS:
        raise ValueError(f"unknown vehicle {vehicle!r}; vehicles: {list(PRESETS)}")
    follower = _check_follower(follower)
    dt = _check_positive("dt", dt)
    min_speed = _check_positive("min_speed", min_speed)
    graph = soak_map.graph
    routes = []
    for a, j in sorted({*graph.edges, *((j, a) for a, j in graph.edges)}):
        others = sorted(set(graph.neighbors(j)) - {a})
        routes += [(a, j, b) for b in others] if others else [(a, j)]
    paths, widths = [], []
    for nodes in routes:
        points, path_widths = soak_map.route_polyline(nodes)
        paths.append(points)
        widths.append(path_widths)
    lengths = np.array([np.hypot(*np.diff(points, axis=0).T).sum() for points in paths])
    limits = lengths / min_speed + extra_time
    x = np.array([points[0, 0] for points in paths])
    y = np.array([points[0, 1] for points in paths])
    yaw = np.array([math.atan2(p[1, 1] - p[0, 1], p[1, 0] - p[0, 0]) for p in paths])
    batch = VehicleBatch(x, y, yaw)
    model = Vehicle(PRESETS[vehicle])
    path_follower = follower_class(follower)(model.params, FollowerParams())
    path_follower.set_paths(paths, widths)
    arrived_at = np.full(len(routes), np.nan)
    out = None
    steps = math.ceil(limits.max() / dt)
    for k in range(steps):
        out = path_follower.step_batch(batch, dt, out=out)
        arrived = path_follower.batch_memory.arrived
        new = arrived & np.isnan(arrived_at)
        arrived_at[new] = k * dt
        if not np.isnan(arrived_at).any():
            break
        model.step_batch(batch, out.steer, out.throttle, dt, world=soak_map.world)
    events = np.zeros(len(routes), dtype=np.int64)
    for event in path_follower.stuck_events:
        if not arrived_at[event.agent] <= event.time:  # events after arriving cannot happen
            events[event.agent] += 1
    return [
        RoadCheck(
            nodes=tuple(int(n) for n in nodes),
            length=float(lengths[i]),
            arrived=bool(arrived_at[i] <= limits[i]),
            time=float(np.fmin(arrived_at[i], limits[i])),
            stuck_events=int(events[i]),
        )
        for i, nodes in enumerate(routes)
    ]


def road_check_summary(checks: Sequence[RoadCheck], soak_map: SoakMap) -> dict[str, Any]:
    """Counts of a ``check_roads`` run: routes, arrived, with stuck events, and the roads driven
    both ways by arrived routes (every road should be)."""
    driven = set()
    for check in checks:
        if check.arrived:
            driven.update(itertools.pairwise(check.nodes))
    both = sum((road.u, road.v) in driven and (road.v, road.u) in driven for road in soak_map.roads)
    failed = [list(check.nodes) for check in checks if not check.arrived]
    return {
        "routes": len(checks),
        "arrived": sum(check.arrived for check in checks),
        "with_stuck_events": sum(check.stuck_events > 0 for check in checks),
        "stuck_events": sum(check.stuck_events for check in checks),
        "roads": len(soak_map.roads),
        "roads_driven_both_ways": both,
        "failed_routes": failed,
    }


# --------------------------------------------------------------------------------------------------
# the measure


def _per_stuck(seconds: float, events: int) -> float:
    """Seconds of driving per stuck event; ``inf`` without events."""
    return seconds / events if events else math.inf


def stuck_metrics(
    events: Sequence[SoakEvent], driving_seconds: Sequence[float], presets: Sequence[str]
) -> dict[str, Any]:
    """The soak measure of one session from its event list.

    Parameters
    ----------
    events : sequence of SoakEvent
        The stuck events (``vehicle`` indexes ``driving_seconds`` and ``presets``).
    driving_seconds : sequence of float
        [s] per vehicle, the time spent driving a route.
    presets : sequence of str
        The preset of each vehicle.

    Returns
    -------
    dict
        ``stuck_events``, ``driving_seconds`` (the sum), ``seconds_per_stuck`` (their ratio,
        ``inf`` without events), ``vehicles_stuck`` (vehicles with at least one event),
        ``max_vehicle_events``, ``where`` (``{"near_wall", "on_slope", "open"}`` counts) and
        ``by_preset`` (``{preset: {"vehicles", "driving_seconds", "stuck_events",
        "seconds_per_stuck"}}`` for every preset present, in ``PRESETS`` order).
    """
    driving = [float(seconds) for seconds in driving_seconds]
    if len(presets) != len(driving):
        raise ValueError(
            f"presets must have one entry per vehicle ({len(driving)}), got {len(presets)}"
        )
    per_vehicle = [0] * len(driving)
    where = dict.fromkeys(WHERE, 0)
    for index, event in enumerate(events):
        if not 0 <= event.vehicle < len(driving):
            raise ValueError(f"events[{index}].vehicle must be in [0, {len(driving)}), got "
                             f"{event.vehicle!r}")  # fmt: skip
        per_vehicle[event.vehicle] += 1
        where[event.where] = where.get(event.where, 0) + 1
    total_seconds = sum(driving)
    by_preset = {}
    for name in [*PRESETS, *sorted(set(presets) - set(PRESETS))]:
        members = [i for i, preset in enumerate(presets) if preset == name]
        if not members:
            continue
        seconds = sum(driving[i] for i in members)
        count = sum(per_vehicle[i] for i in members)
        by_preset[name] = {
            "vehicles": len(members),
            "driving_seconds": seconds,
            "stuck_events": count,
            "seconds_per_stuck": _per_stuck(seconds, count),
        }
    return {
        "stuck_events": len(events),
        "driving_seconds": total_seconds,
        "seconds_per_stuck": _per_stuck(total_seconds, len(events)),
        "vehicles_stuck": sum(count > 0 for count in per_vehicle),
        "max_vehicle_events": max(per_vehicle, default=0),
        "where": where,
        "by_preset": by_preset,
    }


class SoakSpec(NamedTuple):
    """One task of ``run_soak`` (picklable)."""

    follower: str
    trial: int
    seed: int  # the map's seed
    minutes: float
    vehicles: int
    dt: float = DT
    replan_after: int = 3
    u_turns: bool = False

    @property
    def key(self) -> tuple[str, int]:
        return (self.follower, self.trial)


def _columns() -> dict[str, type]:
    columns: dict[str, type] = {
        "follower": str,
        "trial": int,
        "vehicles": int,
        "simulated_seconds": float,
        "driving_seconds": float,
        "stuck_events": int,
        "seconds_per_stuck": float,
        "routes_completed": int,
        "replans": int,
        "distance": float,
        "vehicles_stuck": int,
        "max_vehicle_events": int,
    }
    columns.update({f"stuck_{where}": int for where in WHERE})
    columns["event_locations"] = str
    for name in PRESETS:
        columns[f"{name}_vehicles"] = int
        columns[f"{name}_driving_seconds"] = float
        columns[f"{name}_stuck_events"] = int
        columns[f"{name}_routes_completed"] = int
    return columns


COLUMNS = _columns()
"""The runner's columns of a soak row: the key ``(follower, trial)``, totals, per preset."""


def trial_row(run: SoakRun) -> dict[str, Any]:
    """The row of one session (``COLUMNS``)."""
    metrics = stuck_metrics(run.events, run.driving_seconds, run.presets)
    row: dict[str, Any] = {
        "follower": run.follower,
        "trial": run.trial,
        "vehicles": len(run.presets),
        "simulated_seconds": run.steps * run.dt,
        "driving_seconds": metrics["driving_seconds"],
        "stuck_events": metrics["stuck_events"],
        "seconds_per_stuck": metrics["seconds_per_stuck"],
        "routes_completed": int(run.arrivals.sum()),
        "replans": int(run.replans.sum()),
        "distance": float(run.distance.sum()),
        "vehicles_stuck": metrics["vehicles_stuck"],
        "max_vehicle_events": metrics["max_vehicle_events"],
    }
    for where in WHERE:
        row[f"stuck_{where}"] = metrics["where"][where]
    row["event_locations"] = " ".join(
        f"{event.vehicle}:{event.x:.1f}:{event.y:.1f}" for event in run.events
    )
    for name in PRESETS:
        entry = metrics["by_preset"].get(name)
        members = [i for i, preset in enumerate(run.presets) if preset == name]
        row[f"{name}_vehicles"] = len(members)
        row[f"{name}_driving_seconds"] = entry["driving_seconds"] if entry else 0.0
        row[f"{name}_stuck_events"] = entry["stuck_events"] if entry else 0
        row[f"{name}_routes_completed"] = int(run.arrivals[members].sum()) if members else 0
    return row


def run_soak_task(spec: SoakSpec) -> dict[str, Any]:
    """The runner's task function: one (follower, trial) session, its row."""
    soak_map = build_map(spec.seed)
    run = simulate_soak(
        soak_map,
        spec.follower,
        trial=spec.trial,
        minutes=spec.minutes,
        vehicles=spec.vehicles,
        dt=spec.dt,
        replan_after=spec.replan_after,
        u_turns=spec.u_turns,
    )
    return trial_row(run)


def _finite_or_none(value: float) -> float | None:
    return value if math.isfinite(value) else None


def summarize(rows: Sequence[dict[str, Any]], followers: Sequence[str] = FOLLOWERS) -> dict:
    """Mean and standard deviation over the trials, per follower, beside the paper's figures.

    ``seconds_per_stuck``: one value per trial (``None`` for a trial without events), the mean
    and the sample standard deviation (``ddof = 1``; ``None`` with fewer than 2 trials or when a
    trial had no event); ``pooled_seconds_per_stuck``: all driving seconds over all events. Per
    preset and per class (seed 001's easy and hard vehicles, ``steerlab.vehicles.presets``):
    pooled over the trials. Rows with an error are skipped and counted.
    """
    summary: dict[str, Any] = {}
    for name in followers:
        mine = [row for row in rows if row["follower"] == name and not row.get("error")]
        failed = sum(1 for row in rows if row["follower"] == name and row.get("error"))
        per_trial = [row["seconds_per_stuck"] for row in mine]
        finite = bool(per_trial) and all(math.isfinite(value) for value in per_trial)
        values = np.array(per_trial, dtype=np.float64)
        events = sum(row["stuck_events"] for row in mine)
        seconds = sum(row["driving_seconds"] for row in mine)
        by_preset = {}
        for preset in PRESETS:
            vehicles = sum(row[f"{preset}_vehicles"] for row in mine)
            if not vehicles:
                continue
            preset_events = sum(row[f"{preset}_stuck_events"] for row in mine)
            preset_seconds = sum(row[f"{preset}_driving_seconds"] for row in mine)
            by_preset[preset] = {
                "vehicles": vehicles // max(len(mine), 1),
                "stuck_events": preset_events,
                "driving_seconds": preset_seconds,
                "seconds_per_stuck": _finite_or_none(_per_stuck(preset_seconds, preset_events)),
                "routes_completed": sum(row[f"{preset}_routes_completed"] for row in mine),
            }
        by_class = {}
        for label, members in (("easy", EASY), ("hard", HARD)):
            class_events = sum(by_preset[p]["stuck_events"] for p in members if p in by_preset)
            class_seconds = sum(by_preset[p]["driving_seconds"] for p in members if p in by_preset)
            by_class[label] = {
                "presets": [p for p in members if p in by_preset],
                "stuck_events": class_events,
                "driving_seconds": class_seconds,
                "seconds_per_stuck": _finite_or_none(_per_stuck(class_seconds, class_events)),
            }
        paper = PAPER.get(name)
        summary[name] = {
            "trials": len(mine),
            "failed_trials": failed,
            "seconds_per_stuck": [_finite_or_none(value) for value in per_trial],
            "mean": float(values.mean()) if finite else None,
            "std": float(values.std(ddof=1)) if finite and len(values) > 1 else None,
            "pooled_seconds_per_stuck": _finite_or_none(_per_stuck(seconds, events)),
            "stuck_events": [row["stuck_events"] for row in mine],
            "driving_seconds": [row["driving_seconds"] for row in mine],
            "routes_completed": [row["routes_completed"] for row in mine],
            "replans": [row["replans"] for row in mine],
            "distance_km": [round(row["distance"] / 1000.0, 3) for row in mine],
            "vehicles_stuck": [row["vehicles_stuck"] for row in mine],
            "max_vehicle_events": [row["max_vehicle_events"] for row in mine],
            "where": {where: sum(row[f"stuck_{where}"] for row in mine) for where in WHERE},
            "by_preset": by_preset,
            "by_class": by_class,
            "paper": {"mean": paper[0], "std": paper[1]} if paper else None,
        }
    return summary


# --------------------------------------------------------------------------------------------------
# the run and its report


def _event_points(rows, follower: str) -> list[SoakEvent]:
    """The stuck locations of a follower's rows (``event_locations``) as ``SoakEvent`` records
    (preset from the vehicle index, time and place class unknown)."""
    names = tuple(PRESETS)
    events = []
    for row in rows:
        if row["follower"] != follower or row.get("error") or not row["event_locations"]:
            continue
        for item in row["event_locations"].split(" "):
            vehicle, x, y = item.split(":")
            index = int(vehicle)
            events.append(SoakEvent(index, names[index % len(names)], math.nan, float(x),
                                    float(y), ""))  # fmt: skip
    return events


def _write_text(path: Path, text: str) -> None:
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(path)


def run_soak(
    out_dir,
    *,
    trials: int = 5,
    minutes: float = 5.0,
    vehicles: int = 64,
    seed: int = 0,
    followers: Sequence[str] = FOLLOWERS,
    workers: int | None = None,
    replan_after: int = 3,
    u_turns: bool = False,
    progress: bool = True,
    check: bool = True,
    figure: Callable | None = None,
) -> dict[str, Any]:
    """Run the soak test: every (follower, trial) a task of ``steerlab.runner.run_tasks``
    (``out_dir/results.csv``, ``run.json``: resumable, ``workers`` processes, default one per
    core), then write ``out_dir/soak.json`` (the returned summary), ``soak.md`` and, with
    ``figure`` (``steerlab.experiments.benchmark.soak_figures.draw_map``, passed in by ``steerlab
    soak``: the benchmark
    layer does not import the plot layer), ``soak_map.png`` (the map with every stuck event).

    ``check`` also drives every turn of the map with ``ours`` on a Storm (``check_roads``) and
    reports it. Other arguments: ``simulate_soak``. The map is ``build_map(seed)``.

    Raises
    ------
    ValueError
        A bad argument (named), or an output folder holding another run (``run_tasks``).
    """
    from steerlab.runner import run_tasks

    trials = _check_count("trials", trials)
    vehicles = _check_count("vehicles", vehicles)
    replan_after = _check_count("replan_after", replan_after, 0)
    minutes = _check_positive("minutes", minutes)
    if isinstance(followers, str) or not followers:
        raise ValueError(f"followers must be a non-empty sequence of names, got {followers!r}")
    followers = tuple(_check_follower(name) for name in followers)
    if len(set(followers)) != len(followers):
        raise ValueError(f"followers must not repeat a name, got {followers!r}")
    soak_map = build_map(seed)
    seed = int(seed)
    folder = Path(out_dir)
    settings = {
        "trials": trials,
        "minutes": minutes,
        "vehicles": vehicles,
        "dt": DT,
        "replan_after": replan_after,
        "u_turns": bool(u_turns),
        "presets": list(PRESETS),
        "follower_params": "FollowerParams() defaults for every follower",
    }
    manifest = {
        "format": SOAK_FORMAT,
        "steerlab_version": _version(),
        "map_seed": seed,
        "map_digest": map_digest(soak_map),
        "settings": settings,
        "follower_params": {name: value for name, value in FollowerParams()._asdict().items()},
    }
    specs = [
        SoakSpec(name, trial, seed, minutes, vehicles, DT, replan_after, bool(u_turns))
        for name in followers
        for trial in range(trials)
    ]
    rows = run_tasks(
        [(spec.key, spec) for spec in specs],
        run_soak_task,
        folder,
        columns=COLUMNS,
        manifest=manifest,
        workers=workers,
        progress=progress,
        counter="stuck_events",
    )
    summary = {
        "format": SOAK_FORMAT,
        "steerlab_version": manifest["steerlab_version"],
        "map": soak_map.describe(),
        "settings": settings,
        "followers": summarize(rows, followers),
        "paper": {name: {"mean": mean, "std": std} for name, (mean, std) in PAPER.items()},
        "errors": [
            {"follower": row["follower"], "trial": row["trial"], "error": row["error"]}
            for row in rows
            if row.get("error")
        ],
    }
    means = {name: summary["followers"][name]["mean"] for name in followers}
    if means.get("ours") and means.get("baseline"):
        summary["ratio_ours_to_baseline"] = means["ours"] / means["baseline"]
        summary["paper_ratio_ours_to_baseline"] = PAPER["ours"][0] / PAPER["baseline"][0]
    if check:
        checks = check_roads(soak_map, "storm", "ours")
        summary["road_check"] = {
            "vehicle": "storm",
            "follower": "ours",
            **road_check_summary(checks, soak_map),
        }
    _write_text(folder / "soak.json", json.dumps(summary, indent=2, allow_nan=False) + "\n")
    _write_text(folder / "soak.md", render_markdown(summary))
    if figure is not None:
        drawing = figure(soak_map, {name: _event_points(rows, name) for name in followers})
        drawing.savefig(folder / "soak_map.png", dpi=110)
    return summary


def _number(value, digits: int = 0) -> str:
    if value is None:
        return "-"
    return f"{value:.{digits}f}"


def render_markdown(summary: dict[str, Any]) -> str:
    """``soak.md``: the paper's figures beside ours, per preset, where, the map and the rules."""
    settings = summary["settings"]
    followers = summary["followers"]
    description = summary["map"]
    lines = [
        "# Soak test (seed 001, Section IV)",
        "",
        f"{settings['vehicles']} bots (presets cycled: {', '.join(settings['presets'])}), "
        f"{settings['minutes']:g} simulated minutes per session at dt = {settings['dt']} s, "
        f"{settings['trials']} randomized trials per follower, FollowerParams() defaults for "
        f"every follower (the same stuck judge: the followers' own stuck manager). Map: seed "
        f"{description['seed']}, {description['junctions']} junctions, {description['roads']} "
        f"roads ({description['road_km']} km), {description['buildings']} buildings, "
        f"{description['walled_stretches']} walled stretches, {len(description['hills'])} hills. "
        "Vehicles do not collide with each other.",
        "",
        "## Seconds of driving per stuck event",
        "",
        markdown_table(
            [
                "follower",
                "mean (std) over trials",
                "paper",
                "per trial",
                "stuck events per trial",
                "pooled",
                "routes completed per trial",
            ],
            [
                [
                    name,
                    f"{_number(entry['mean'])} ({_number(entry['std'])})",
                    f"{entry['paper']['mean']:g} ({entry['paper']['std']:g})"
                    if entry["paper"]
                    else "-",
                    ", ".join(_number(value) for value in entry["seconds_per_stuck"]),
                    ", ".join(str(value) for value in entry["stuck_events"]),
                    _number(entry["pooled_seconds_per_stuck"]),
                    ", ".join(str(value) for value in entry["routes_completed"]),
                ]
                for name, entry in followers.items()
            ],
        ),
    ]
    if "ratio_ours_to_baseline" in summary:
        lines += [
            "",
            f"Ours / baseline (means): {summary['ratio_ours_to_baseline']:.2f}; the paper: "
            f"{summary['paper_ratio_ours_to_baseline']:.2f} (131 s / 60 s). Higher is better "
            "(fewer stuck events per second of driving).",
        ]
    lines += [
        "",
        "std: sample standard deviation over the trials (ddof = 1); the paper does not say "
        "which. A trial without stuck events has no finite figure (shown '-').",
        "",
        "## Per preset (pooled over the trials)",
        "",
    ]
    rows = []
    for preset in PRESETS:
        cells = [preset]
        for name in followers:
            entry = followers[name]["by_preset"].get(preset)
            if entry is None:
                cells += ["-", "-", "-"]
            else:
                cells += [
                    str(entry["stuck_events"]),
                    _number(entry["seconds_per_stuck"]),
                    str(entry["routes_completed"]),
                ]
        rows.append(cells)
    header = ["preset"]
    for name in followers:
        header += [f"{name} events", f"{name} s/event", f"{name} routes"]
    lines.append(markdown_table(header, rows))
    lines += [
        "",
        "Seed 001's classes, pooled: "
        + "; ".join(
            f"{name}: easy ({', '.join(entry['by_class']['easy']['presets'])}) "
            f"{_number(entry['by_class']['easy']['seconds_per_stuck'])} s per event, hard "
            f"({', '.join(entry['by_class']['hard']['presets'])}) "
            f"{_number(entry['by_class']['hard']['seconds_per_stuck'])} s"
            for name, entry in followers.items()
        )
        + ".",
        "",
        "## Where the events happened (all trials)",
        "",
        markdown_table(
            [
                "follower",
                *WHERE,
                "vehicles with an event per trial",
                "most events of one vehicle per trial",
                "replans per trial",
            ],
            [
                [
                    name,
                    *(str(entry["where"][where]) for where in WHERE),
                    ", ".join(str(value) for value in entry["vehicles_stuck"]),
                    ", ".join(str(value) for value in entry["max_vehicle_events"]),
                    ", ".join(str(value) for value in entry["replans"]),
                ]
                for name, entry in followers.items()
            ],
        ),
    ]
    lines += [
        "",
        f"near_wall: a wall within the vehicle's half diagonal + {NEAR_WALL:g} m; on_slope: "
        f"ground steeper than {ON_SLOPE_DEG:g} degrees; open: neither (a sharp turn, a "
        "turn-around).",
    ]
    check = summary.get("road_check")
    if check:
        lines += [
            "",
            "## Drivability",
            "",
            f"Every turn of every junction driven once by a {check['vehicle']} with "
            f"{check['follower']} (`check_roads`): {check['arrived']} of {check['routes']} "
            f"routes arrived, {check['with_stuck_events']} with a stuck event; "
            f"{check['roads_driven_both_ways']} of {check['roads']} roads driven both ways.",
        ]
    if summary.get("errors"):
        lines += ["", "## Failed trials", ""]
        lines += [f"- {e['follower']} trial {e['trial']}: {e['error']}" for e in summary["errors"]]
    lines += [
        "",
        "## Rules",
        "",
        "Each bot drives a random route (the shortest path by road length to a random junction) "
        "and gets a new one as soon as its follower arrives; a new route does not leave by the "
        "road the vehicle came in on unless it is the only way out"
        + (" (here U-turns were allowed)" if settings.get("u_turns") else "")
        + "; a bot gives up a route when its count of stuck events in a row without progress "
        f"reaches a multiple of {settings['replan_after']} (a new random destination from where "
        "it is on its road). Driving "
        "seconds: every frame of every "
        "vehicle but the one in which its follower arrives. Map details, hills and the "
        "rationale: `steerlab.experiments.benchmark.soak`.",
        "",
    ]
    return "\n".join(lines)
