"""Nav data of seed 002 (files, validation) and route search over it."""

from __future__ import annotations

import itertools
import json
import math
import tomllib
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from steerlab.geometry import Polyline
from steerlab.navigation import (
    FLAG_BITS,
    FLAG_NAMES,
    Corridors1,
    Corridors2,
    NoRouteError,
    PointsNav,
    Route,
    WaypointGraph,
    example_navdata,
    find_route,
    load_navdata,
    pack_routes,
)

EXAMPLES = Path(str(example_navdata("level.toml").parent))
LEVEL = EXAMPLES / "level.toml"


def graph(positions, connections, radius=8.0):
    """A ``WaypointGraph`` with waypoints ``w0, w1, ...``; connections ``(i, j, bidirectional)``."""
    return WaypointGraph(
        waypoints=[
            {"id": f"w{index}", "position": position, "radius": radius}
            for index, position in enumerate(positions)
        ],
        connections=[
            {"from": f"w{source}", "to": f"w{target}", "bidirectional": both}
            for source, target, both in connections
        ],
    )


# --------------------------------------------------------------------------------------------------
# route search: properties on small random graphs


@st.composite
def small_graphs(draw):
    count = draw(st.integers(2, 6))
    coordinate = st.integers(-3, 3).map(float)  # a small grid: coincident waypoints happen
    positions = [draw(st.tuples(coordinate, coordinate, coordinate)) for _ in range(count)]
    pairs = [(a, b) for a in range(count) for b in range(count) if a != b]
    chosen = draw(st.lists(st.sampled_from(pairs), unique=True, max_size=len(pairs)))
    connections = []
    used = set()
    for source, target in chosen:
        both = draw(st.booleans())
        directions = {(source, target), (target, source)} if both else {(source, target)}
        if directions & used:
            continue
        used |= directions
        connections.append((source, target, both))
    start = draw(st.integers(0, count - 1))
    goal = draw(st.integers(0, count - 1))
    return positions, connections, start, goal


def brute_force_graph(positions, connections):
    reference = nx.DiGraph()
    reference.add_nodes_from(range(len(positions)))
    for source, target, both in connections:
        reference.add_edge(source, target)
        if both:
            reference.add_edge(target, source)
    return reference


@given(small_graphs())
def test_route_is_shortest_and_follows_connections(case):
    positions, connections, start, goal = case
    nav = graph(positions, connections)
    reference = brute_force_graph(positions, connections)
    if start == goal:
        route = find_route(nav, f"w{start}", f"w{goal}")
        assert route.waypoint_ids == (f"w{start}",)
        assert route.length == 0.0 and route.segment_count == 0
        return
    lengths = [
        sum(math.dist(positions[a], positions[b]) for a, b in itertools.pairwise(path))
        for path in nx.all_simple_paths(reference, start, goal)
    ]
    if not lengths:
        with pytest.raises(NoRouteError, match=rf"no route from waypoint 'w{start}'.*'w{goal}'"):
            find_route(nav, f"w{start}", f"w{goal}")
        return
    route = find_route(nav, f"w{start}", f"w{goal}")
    assert route.length == pytest.approx(min(lengths), rel=1e-12, abs=1e-12)
    assert route.waypoint_ids[0] == f"w{start}" and route.waypoint_ids[-1] == f"w{goal}"
    indices = [int(name[1:]) for name in route.waypoint_ids]
    for a, b in itertools.pairwise(indices):
        assert reference.has_edge(a, b)  # consecutive waypoints connected, in this direction
    np.testing.assert_array_equal(route.positions, np.array(positions)[indices])
    assert route.length == pytest.approx(route.lengths.sum(), rel=1e-15)
    steps = np.linalg.norm(np.diff(route.positions, axis=0), axis=1)
    np.testing.assert_allclose(route.lengths, steps, rtol=1e-15)
    assert route.widths.shape == route.lengths.shape == (len(indices) - 1,)
    # no width in the connections: twice the smaller radius
    np.testing.assert_array_equal(route.widths, 2.0 * 8.0)


def test_unidirectional_connections_are_respected():
    nav = graph([(0, 0, 0), (10, 0, 0), (10, 10, 0)], [(0, 1, False), (1, 2, True)])
    assert find_route(nav, "w0", "w2").waypoint_ids == ("w0", "w1", "w2")
    assert find_route(nav, "w2", "w1").waypoint_ids == ("w2", "w1")
    with pytest.raises(NoRouteError, match=r"no route from waypoint 'w2'.*to waypoint 'w0'"):
        find_route(nav, "w2", "w0")


def test_no_route_on_disconnected_graph_is_a_value_error():
    nav = graph([(0, 0, 0), (1, 0, 0), (50, 0, 0), (51, 0, 0)], [(0, 1, True), (2, 3, True)])
    with pytest.raises(ValueError, match=r"no route from waypoint 'w0' .* to waypoint 'w3'"):
        find_route(nav, "w0", "w3")
    with pytest.raises(NoRouteError, match=r"start \[0.5, 0.0, 0.0\]"):
        find_route(nav, (0.5, 0.0, 0.0), "w2")


def test_one_way_jump_in_the_example_level():
    nav = load_navdata(LEVEL)
    down = find_route(nav, "u2", "j1")
    assert down.waypoint_ids == ("u2", "j1") and down.segment_flags == (frozenset({"jump"}),)
    up = find_route(nav, "j1", "u2")  # the jump is one-way: back up by the ladder
    assert frozenset({"jump"}) not in up.segment_flags
    assert frozenset({"ladder"}) in up.segment_flags
    assert up.length > down.length


def test_ladder_route_carries_flags_and_polyline():
    nav = load_navdata(LEVEL)
    route = find_route(nav, "s1", "u1")
    ladder = [index for index, flags in enumerate(route.segment_flags) if "ladder" in flags]
    assert len(ladder) == 1
    segment = ladder[0]
    # the ladder segment is vertical
    assert route.positions[segment, :2].tolist() == route.positions[segment + 1, :2].tolist()
    assert route.positions[segment + 1, 2] > route.positions[segment, 2]
    line = route.polyline()
    assert isinstance(line, Polyline) and line.dim == 3
    assert line.length == pytest.approx(route.length, rel=1e-12)
    np.testing.assert_array_equal(line.widths, route.widths)
    flat = route.polyline(dimension=2)  # the ladder becomes a zero-length segment
    assert flat.dim == 2 and flat.length < route.length


def test_positions_snap_to_the_nearest_waypoint():
    nav = load_navdata(LEVEL)
    positions = np.array([waypoint.position for waypoint in nav.waypoints])
    rng = np.random.default_rng(2)
    for _ in range(30):
        point = rng.uniform([-100, -300, -50], [1900, 1000, 250])
        route = find_route(nav, point, "g1")
        start = positions[[w.id for w in nav.waypoints].index(route.waypoint_ids[0])]
        assert np.linalg.norm(start - point) == pytest.approx(
            np.linalg.norm(positions - point, axis=1).min(), rel=1e-12
        )
        flat = find_route(nav, point[:2], "g1")  # 2-D: horizontal distance
        start = positions[[w.id for w in nav.waypoints].index(flat.waypoint_ids[0])]
        assert np.linalg.norm(start[:2] - point[:2]) == pytest.approx(
            np.linalg.norm(positions[:, :2] - point[:2], axis=1).min(), rel=1e-12
        )


def test_start_equal_goal_is_a_one_waypoint_route_without_polyline():
    nav = load_navdata(LEVEL)
    route = find_route(nav, "hc", (896.0, 1.0, 0.0))
    assert route.waypoint_ids == ("hc",) and route.positions.shape == (1, 3)
    assert route.widths.shape == (0,) and route.length == 0.0
    with pytest.raises(ValueError, match="fewer than 2 distinct points"):
        route.polyline()


def test_zero_length_connection_does_not_crash():
    nav = graph([(0, 0, 0), (0, 0, 0), (5, 0, 0), (9, 9, 9)], [(0, 1, True), (1, 2, True)])
    route = find_route(nav, "w0", "w2")
    assert route.waypoint_ids == ("w0", "w1", "w2")
    assert route.lengths[0] == 0.0 and route.length == pytest.approx(5.0)
    line = route.polyline()
    assert line.length == pytest.approx(5.0) and line.segment_count == 2
    coincident = find_route(nav, "w0", "w1")
    assert coincident.length == 0.0
    with pytest.raises(ValueError, match="fewer than 2 distinct points"):
        coincident.polyline()


def test_bad_route_arguments():
    nav = load_navdata(LEVEL)
    with pytest.raises(ValueError, match="start: unknown waypoint id 'nowhere'"):
        find_route(nav, "nowhere", "g1")
    with pytest.raises(ValueError, match="goal must be finite"):
        find_route(nav, "s1", (math.nan, 0.0))
    with pytest.raises(ValueError, match="goal must be a waypoint id or a position"):
        find_route(nav, "s1", (1.0, 2.0, 3.0, 4.0))
    with pytest.raises(ValueError, match="nav must be a waypoint graph"):
        find_route(load_navdata(EXAMPLES / "slalom.toml"), "a", "b")
    with pytest.raises(ValueError, match="dimension must be 2 or 3"):
        find_route(nav, "s1", "g1").polyline(dimension=4)


def test_corridors1_routes_use_segment_widths_and_default_radii():
    nav = load_navdata(EXAMPLES / "corridors1.toml")
    route = find_route(nav, "a", "f")
    expected = {(s.source, s.target): s.width for s in nav.segments}
    ids = route.waypoint_ids
    for index, (a, b) in enumerate(itertools.pairwise(ids)):
        assert route.widths[index] == expected.get((a, b), expected.get((b, a)))
    for index, waypoint_id in enumerate(ids):
        waypoint = next(w for w in nav.waypoints if w.id == waypoint_id)
        touching = route.widths[max(index - 1, 0) : index + 1]
        wanted = waypoint.radius if waypoint.radius is not None else 0.5 * touching.min()
        assert route.radii[index] == wanted


def test_corridors2_routes_cut_segments_at_their_crossings():
    nav = load_navdata(EXAMPLES / "corridors.json")
    route = find_route(nav, "main:start", "drop:end")
    segments = {segment.id: segment for segment in nav.segments}
    # every waypoint of the route lies on a segment of the file (within rounding), and each leg
    # runs along one segment with its width
    for index, (a, b) in enumerate(itertools.pairwise(route.positions)):
        owners = [
            segment
            for segment in nav.segments
            if Polyline([segment.start, segment.end]).project(a).cross_track == 0.0
            and Polyline([segment.start, segment.end]).project(b).cross_track == 0.0
        ]
        assert any(owner.width == route.widths[index] for owner in owners)
    # the crossing of two perpendicular corridors is where their centre lines meet
    crossing = route.positions[list(route.waypoint_ids).index("main+north")]
    assert tuple(crossing) == (512.0, 0.0, 0.0)
    assert segments["drop"].flags == route.segment_flags[-1]
    # a jump is one way
    with pytest.raises(NoRouteError):
        find_route(nav, "drop:end", "main:start")


def test_corridors2_crossing_that_does_not_meet_is_an_error_when_built():
    with pytest.raises(ValueError, match=r"crossings\[0\].*do not cross"):
        Corridors2(
            segments=[
                {"id": "a", "start": (0.0, 0.0, 0.0), "end": (100.0, 0.0, 0.0), "width": 10.0},
                {"id": "b", "start": (0.0, 50.0, 0.0), "end": (100.0, 50.0, 0.0), "width": 10.0},
            ],
            crossings=[("a", "b")],
        )


@given(
    st.floats(-100.0, 100.0),
    st.floats(-100.0, 100.0),
    st.floats(0.05, 0.95),
    st.floats(0.05, 0.95),
    st.floats(0.1, 3.0),
)
def test_corridors2_crossing_point_is_on_both_centre_lines(x, y, s, t, angle):
    # two segments built to cross at (x, y) at fractions s and t of their lengths
    d1 = np.array([200.0, 0.0])
    d2 = 150.0 * np.array([math.cos(angle), math.sin(angle)])
    p = np.array([x, y])
    a0, a1 = p - s * d1, p + (1.0 - s) * d1
    b0, b1 = p - t * d2, p + (1.0 - t) * d2
    nav = Corridors2(
        segments=[
            {"id": "a", "start": (*a0, 0.0), "end": (*a1, 0.0), "width": 4.0},
            {"id": "b", "start": (*b0, 0.0), "end": (*b1, 0.0), "width": 4.0},
        ],
        crossings=[("a", "b")],
    )
    route = find_route(nav, "a:start", "b:end")
    assert route.waypoint_ids == ("a:start", "a+b", "b:end")
    assert np.allclose(route.positions[1, :2], p, atol=1e-9 * (1.0 + np.abs(p).max()))
    assert route.length == pytest.approx(s * 200.0 + (1.0 - t) * 150.0, rel=1e-9)


def test_corridors2_three_segments_meeting_at_one_point_stay_connected():
    nav = Corridors2(
        segments=[
            {"id": "a", "start": (-100.0, 0.0, 0.0), "end": (100.0, 0.0, 0.0), "width": 8.0},
            {"id": "b", "start": (0.0, -100.0, 0.0), "end": (0.0, 100.0, 0.0), "width": 8.0},
            {"id": "c", "start": (-100.0, -100.0, 0.0), "end": (100.0, 100.0, 0.0), "width": 8.0},
        ],
        crossings=[("a", "b"), ("a", "c"), ("b", "c")],
    )
    graph = nav.as_corridors1()
    assert len([w for w in graph.waypoints if "+" in w.id]) == 1
    for start, goal in itertools.permutations(["a:start", "b:end", "c:end"], 2):
        route = find_route(nav, start, goal)
        assert route.length == pytest.approx(
            200.0 if "c" not in start + goal else 100.0 + 100.0 * math.sqrt(2.0)
        )


# --------------------------------------------------------------------------------------------------
# packing


def test_pack_routes_offsets_round_trip():
    nav = load_navdata(LEVEL)
    pairs = [("s1", "g1"), ("u2", "j1"), ("hc", "hc"), ("g2", "l2"), ("s1", "u1")]
    routes = [find_route(nav, start, goal) for start, goal in pairs]
    packed = pack_routes(routes)
    assert packed.offsets[0] == 0 and packed.offsets[-1] == len(packed.positions)
    assert packed.positions.shape == (sum(r.waypoint_count for r in routes), 3)
    for index, route in enumerate(routes):
        rows = slice(packed.offsets[index], packed.offsets[index + 1])
        np.testing.assert_array_equal(packed.positions[rows], route.positions)
        np.testing.assert_array_equal(packed.radii[rows], route.radii)
        np.testing.assert_array_equal(packed.widths[rows][:-1], route.widths)
        assert np.isnan(packed.widths[rows][-1])
        decoded = [
            frozenset(name for name in FLAG_NAMES if mask & FLAG_BITS[name])
            for mask in packed.segment_flags[rows][:-1]
        ]
        assert tuple(decoded) == route.segment_flags
        decoded = [
            frozenset(name for name in FLAG_NAMES if mask & FLAG_BITS[name])
            for mask in packed.waypoint_flags[rows]
        ]
        assert tuple(decoded) == route.waypoint_flags
    empty = pack_routes([])
    assert empty.offsets.tolist() == [0] and empty.positions.shape == (0, 3)
    with pytest.raises(ValueError, match=r"routes\[0\] must be a Route"):
        pack_routes(["s1"])


# --------------------------------------------------------------------------------------------------
# the shipped examples


def test_examples_load_and_counts_match_the_files():
    with LEVEL.open("rb") as handle:
        raw = tomllib.load(handle)
    level = load_navdata(LEVEL)
    assert isinstance(level, WaypointGraph)
    assert len(level.waypoints) == len(raw["waypoints"]) >= 20
    assert len(level.connections) == len(raw["connections"])
    assert len({w.radius for w in level.waypoints}) > 2
    assert len({c.width for c in level.connections}) > 2
    flags = set().union(*(c.flags for c in level.connections))
    assert {"ladder", "jump"} <= flags
    directed = nx.DiGraph()
    for connection in raw["connections"]:
        directed.add_edge(connection["from"], connection["to"])
        if connection.get("bidirectional"):
            directed.add_edge(connection["to"], connection["from"])
    assert nx.is_strongly_connected(directed)  # every route exists, some only one way round

    with (EXAMPLES / "corridors.json").open() as handle:
        raw = json.load(handle)
    corridors = load_navdata(EXAMPLES / "corridors.json")
    assert isinstance(corridors, Corridors2)
    assert len(corridors.segments) == len(raw["segments"])
    assert len(corridors.crossings) == len(raw["crossings"]) > 0

    with (EXAMPLES / "slalom.toml").open("rb") as handle:
        raw = tomllib.load(handle)
    points = load_navdata(EXAMPLES / "slalom.toml")
    assert isinstance(points, PointsNav)
    assert len(points.points) == len(raw["points"])
    assert {point.side for point in points.points} == {1, -1}
    assert any(point.pole is not None for point in points.points)
    assert all(len(point.center) == 3 for point in points.points)

    assert isinstance(load_navdata(str(EXAMPLES / "corridors1.toml")), Corridors1)


def test_every_example_route_in_the_level_exists():
    nav = load_navdata(LEVEL)
    ids = [waypoint.id for waypoint in nav.waypoints]
    for start in ids[::3]:
        for goal in ids[1::4]:
            route = find_route(nav, start, goal)
            assert isinstance(route, Route)
            assert route.waypoint_ids[0] == start and route.waypoint_ids[-1] == goal


def test_models_are_frozen():
    nav = load_navdata(LEVEL)
    with pytest.raises(ValueError):
        nav.waypoints[0].radius = 3.0


# --------------------------------------------------------------------------------------------------
# bad files: the message names the file, the entry and the field

WAYPOINT = '{ id = "%s", position = [%s], radius = %s%s }'


def waypoint_file(waypoints, connections=()):
    lines = ['kind = "waypoints"', "waypoints = ["]
    lines += [WAYPOINT % entry + "," for entry in waypoints]
    lines += ["]", "connections = ["]
    lines += [f"  {connection}," for connection in connections]
    lines += ["]"]
    return "\n".join(lines) + "\n"


GOOD = [("a", "0, 0, 0", "8", ""), ("b", "10, 0, 0", "8", ""), ("c", "10, 10, 0", "8", "")]

BAD_TOML = {
    "missing id": (
        'kind = "waypoints"\nwaypoints = [{ position = [0, 0, 0], radius = 1 }]\n',
        ["waypoints[0].id", "Field required"],
    ),
    "duplicate id": (
        waypoint_file([*GOOD, ("b", "1, 1, 1", "8", "")]),
        ["waypoints[3].id", "duplicate waypoint id 'b'", "waypoints[1]"],
    ),
    "unknown to": (
        waypoint_file(GOOD, ['{ from = "a", to = "b" }', '{ from = "b", to = "w42" }']),
        ["connections[1].to", "unknown waypoint id 'w42'"],
    ),
    "unknown from": (
        waypoint_file(GOOD, ['{ from = "x", to = "b" }']),
        ["connections[0].from", "unknown waypoint id 'x'"],
    ),
    "negative width": (
        waypoint_file(GOOD, ['{ from = "a", to = "b", width = -1.0 }']),
        ["connections[0].width", "greater than or equal to 0", "-1.0"],
    ),
    "negative radius": (
        waypoint_file([GOOD[0], ("b", "10, 0, 0", "-2.5", "")]),
        ["waypoints[1].radius", "id 'b'", "greater than or equal to 0", "-2.5"],
    ),
    "negative raw flags": (
        waypoint_file([("a", "0, 0, 0", "8", ", raw_flags = -1")]),
        ["waypoints[0].raw_flags", "greater than or equal to 0", "-1"],
    ),
    "raw flags beyond 32 bits": (
        waypoint_file([("a", "0, 0, 0", "8", ", raw_flags = 4294967296")]),
        ["waypoints[0].raw_flags", "less than 4294967296"],
    ),
    "raw flags not an integer": (
        waypoint_file([("a", "0, 0, 0", "8", ", raw_flags = 1.5")]),
        ["waypoints[0].raw_flags", "integer"],
    ),
    "unknown source format": (
        waypoint_file(GOOD).replace(
            'kind = "waypoints"', 'kind = "waypoints"\nsource_format = "pod"'
        ),
        ["source_format", "'jk_botti'", "pod"],
    ),
    "nan coordinate": (
        waypoint_file([GOOD[0], ("b", "10, nan, 0", "8", "")]),
        ["waypoints[1].position[1]", "finite"],
    ),
    "inf coordinate": (
        waypoint_file([GOOD[0], ("b", "10, 0, -inf", "8", "")]),
        ["waypoints[1].position[2]", "finite"],
    ),
    "two coordinates": (
        waypoint_file([("a", "0, 0", "8", "")]),
        ["waypoints[0].position"],
    ),
    "unknown flag": (
        waypoint_file([("a", "0, 0, 0", "8", ', flags = ["jump", "swim"]')]),
        ["waypoints[0].flags", "'ladder'", "swim"],
    ),
    "unknown connection flag": (
        waypoint_file(GOOD, ['{ from = "a", to = "b", flags = ["ladders"] }']),
        ["connections[0].flags", "ladders"],
    ),
    "self connection": (
        waypoint_file(GOOD, ['{ from = "a", to = "a" }']),
        ["connections[0].to", "to itself"],
    ),
    "duplicate connection": (
        waypoint_file(
            GOOD, ['{ from = "a", to = "b", bidirectional = true }', '{ from = "b", to = "a" }']
        ),
        ["connections[1].to", "duplicate connection 'b' -> 'a'", "connections[0]"],
    ),
    "typo in a field": (
        waypoint_file([("a", "0, 0, 0", "8", ", radious = 3")]),
        ["waypoints[0].radious", "Extra inputs"],
    ),
    "no waypoints": ('kind = "waypoints"\nwaypoints = []\n', ["waypoints", "at least 1"]),
    "missing kind": ("waypoints = []\n", ["kind", "missing"]),
    "unknown kind": ('kind = "navmesh"\n', ["kind", "unknown kind 'navmesh'"]),
    "toml syntax": ('kind = "waypoints"\nwaypoints = = 3\n', ["TOML syntax error", "line 2"]),
    "corridors1 negative width": (
        'kind = "corridors1"\nwaypoints = [{ id = "a", position = [0, 0, 0] },'
        '{ id = "b", position = [1, 0, 0] }]\nsegments = [{ from = "a", to = "b", width = -3 }]\n',
        ["segments[0].width", "greater than or equal to 0"],
    ),
    "corridors1 missing width": (
        'kind = "corridors1"\nwaypoints = [{ id = "a", position = [0, 0, 0] },'
        '{ id = "b", position = [1, 0, 0] }]\nsegments = [{ from = "a", to = "b" }]\n',
        ["segments[0].width", "Field required"],
    ),
    "corridors1 unknown id": (
        'kind = "corridors1"\nwaypoints = [{ id = "a", position = [0, 0, 0] }]\n'
        'segments = [{ from = "a", to = "q", width = 3 }]\n',
        ["segments[0].to", "unknown waypoint id 'q'"],
    ),
    "points both": (
        'kind = "points"\n[[points]]\nposition = [0, 0, 0]\npole = [[0, 0, 0], [0, 0, 1]]\n'
        "side = 1\nradius = 2\n",
        ["points[0]", "exactly one of 'position'", "'pole'"],
    ),
    "points side": (
        'kind = "points"\n[[points]]\nposition = [0, 0, 0]\nside = 0\nradius = 2\n',
        ["points[0].side", "got 0"],
    ),
    "points negative radius": (
        'kind = "points"\n[[points]]\nposition = [0, 0, 0]\nside = -1\nradius = -2\n',
        ["points[0].radius", "greater than or equal to 0"],
    ),
}


@pytest.mark.parametrize("name", sorted(BAD_TOML))
def test_bad_toml_files_name_file_entry_and_field(tmp_path, name):
    text, expected = BAD_TOML[name]
    path = tmp_path / "bad_level.toml"
    path.write_text(text)
    with pytest.raises(ValueError) as caught:
        load_navdata(path)
    message = str(caught.value)
    assert message.startswith(str(path))
    for part in expected:
        assert part in message, (part, message)


SEGMENT = {"id": "s", "start": [0, 0, 0], "end": [1, 0, 0], "width": 2}

BAD_JSON = {
    "json syntax": ('{"kind": "corridors2", "segments": [}', ["JSON syntax error", "line 1"]),
    "unknown crossing id": (
        {
            "kind": "corridors2",
            "segments": [SEGMENT, {**SEGMENT, "id": "t"}],
            "crossings": [["s", "t"], ["s", "u"]],
        },
        ["crossings[1][1]", "unknown segment id 'u'"],
    ),
    "self crossing": (
        {"kind": "corridors2", "segments": [SEGMENT], "crossings": [["s", "s"]]},
        ["crossings[0][1]", "paired with itself"],
    ),
    "duplicate crossing": (
        {
            "kind": "corridors2",
            "segments": [SEGMENT, {**SEGMENT, "id": "t"}],
            "crossings": [["s", "t"], ["t", "s"]],
        },
        ["crossings[1]", "duplicate crossing", "crossings[0]"],
    ),
    "duplicate segment id": (
        {"kind": "corridors2", "segments": [SEGMENT, SEGMENT]},
        ["segments[1].id", "duplicate segment id 's'"],
    ),
    "negative segment width": (
        {"kind": "corridors2", "segments": [{**SEGMENT, "width": -0.5}]},
        ["segments[0].width", "id 's'", "-0.5"],
    ),
    "infinite coordinate": (
        '{"kind": "corridors2", "segments": [{"id": "s", "start": [0, Infinity, 0], '
        '"end": [1, 0, 0], "width": 2}]}',
        ["segments[0].start[1]", "finite"],
    ),
    "not an object": ("[1, 2]", ["top level"]),
    "unknown waypoint": (
        {
            "kind": "waypoints",
            "waypoints": [{"id": "a", "position": [0, 0, 0], "radius": 1}],
            "connections": [{"from": "a", "to": "b"}],
        },
        ["connections[0].to", "unknown waypoint id 'b'"],
    ),
}


@pytest.mark.parametrize("name", sorted(BAD_JSON))
def test_bad_json_files_name_file_entry_and_field(tmp_path, name):
    content, expected = BAD_JSON[name]
    path = tmp_path / "bad_corridors.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    with pytest.raises(ValueError) as caught:
        load_navdata(path)
    message = str(caught.value)
    assert message.startswith(str(path))
    for part in expected:
        assert part in message, (part, message)


def test_several_problems_are_all_listed(tmp_path):
    path = tmp_path / "many.toml"
    path.write_text(waypoint_file(GOOD, ['{ from = "a", to = "x" }', '{ from = "y", to = "b" }']))
    with pytest.raises(ValueError) as caught:
        load_navdata(path)
    message = str(caught.value)
    assert "2 problems" in message
    assert f"{path}: connections[0].to: unknown waypoint id 'x'" in message
    assert f"{path}: connections[1].from: unknown waypoint id 'y'" in message


def test_other_suffixes_and_missing_files(tmp_path):
    path = tmp_path / "level.yaml"
    path.write_text("kind: waypoints\n")
    with pytest.raises(
        ValueError,
        match=r"level\.yaml: nav data files are \.toml, \.json, \.wpt .* or \.graph .*'\.yaml'",
    ):
        load_navdata(path)
    with pytest.raises(ValueError, match=r"absent\.toml: cannot read"):
        load_navdata(tmp_path / "absent.toml")
    with pytest.raises(ValueError, match=r"absent\.graph: cannot read"):
        load_navdata(tmp_path / "absent.graph")


def test_example_navdata_ships_every_example_and_names_the_choices():
    for name in ("level.toml", "corridors1.toml", "corridors.json", "slalom.toml"):
        path = example_navdata(name)
        assert path.is_file()
        # the same bytes as the source checkout's examples/navdata (a link to the package data)
        checkout = Path(__file__).resolve().parent.parent / "examples" / "navdata" / name
        assert path.read_bytes() == checkout.read_bytes()
        load_navdata(path)
    with pytest.raises(ValueError, match=r"name must be one of .*level\.toml.*'nope\.toml'"):
        example_navdata("nope.toml")
