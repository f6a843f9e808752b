"""The soak test (issue 7, item 7; seed 001, Section IV): its map, its bots, its measure, its CLI.

Small sessions only (6 bots, 20 simulated seconds; one 64-bot minute for the route rules).
"""

import itertools
import json
import math

import networkx as nx
import numpy as np
import pytest
from typer.testing import CliRunner

from gfm_tables import find_tables
from steerlab.cli import app
from steerlab.experiments.benchmark import soak
from steerlab.experiments.benchmark.soak import SoakEvent
from steerlab.follower import FollowerParams
from steerlab.vehicles import PRESETS

SHORT = 20.0 / 60.0  # [min] 20 simulated seconds


@pytest.fixture(scope="module")
def soak_map():
    return soak.build_map(0)


@pytest.fixture(scope="module")
def busy_run(soak_map):
    """64 bots for one minute: spawns, arrivals and replans all happen."""
    return soak.simulate_soak(soak_map, "ours", trial=0, minutes=1.0, vehicles=64)


def _point_segment(p, a, b):
    d = b - a
    t = np.clip(np.dot(p - a, d) / np.dot(d, d), 0.0, 1.0) if np.dot(d, d) > 0 else 0.0
    return float(np.hypot(*(p - (a + t * d))))


def _segment_distance(a, b, c, d):
    """Exact distance between segments a-b and c-d (0 if they cross)."""

    def orient(p, q, r):
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])

    if orient(a, b, c) * orient(a, b, d) < 0 and orient(c, d, a) * orient(c, d, b) < 0:
        return 0.0
    return min(_point_segment(a, c, d), _point_segment(b, c, d), _point_segment(c, a, b),
               _point_segment(d, a, b))  # fmt: skip


def _expected_polyline(soak_map, nodes):
    """The roads' centre lines end to end, found from the road list (not the graph)."""
    points = [soak_map.junctions[nodes[0]]]
    widths = []
    for a, b in itertools.pairwise(nodes):
        (road,) = [r for r in soak_map.roads if {r.u, r.v} == {a, b}]
        line = road.points if road.u == a else road.points[::-1]
        assert np.array_equal(line[0], soak_map.junctions[a])
        points += list(line[1:])
        widths += [road.width] * (len(line) - 1)
    return np.array(points), np.array(widths)


# --------------------------------------------------------------------------------------------------
# the map


def test_map_is_a_connected_road_network_with_walls_hills_and_widths(soak_map):
    graph = soak_map.graph
    assert nx.is_connected(graph)
    assert graph.number_of_nodes() == len(soak_map.junctions)
    assert graph.number_of_edges() == len(soak_map.roads)
    for index, road in enumerate(soak_map.roads):
        assert graph.edges[road.u, road.v]["road"] == index
        assert np.array_equal(road.points[0], soak_map.junctions[road.u])
        assert np.array_equal(road.points[-1], soak_map.junctions[road.v])
        assert 6.0 <= road.width <= 14.0
    kinds = {road.kind for road in soak_map.roads}
    assert {"street", "avenue", "country"} <= kinds
    assert sum(road.walled for road in soak_map.roads) == soak.WALLED_STRETCHES
    assert len(soak_map.hills) >= 1 and len(soak_map.buildings) >= 20
    # dead ends exist (farm tracks): a bot must be able to leave them too
    assert min(dict(graph.degree).values()) == 1


def test_no_wall_reaches_into_a_road(soak_map):
    """Every wall (buildings, houses, walled stretches) stays at least half the road's width plus
    the smallest margin (the walled stretches' 0.5 m) from every road's centre line."""
    segments = soak_map.world.walls.segments
    for road in soak_map.roads:
        low = road.points.min(axis=0) - road.width - 1.0
        high = road.points.max(axis=0) + road.width + 1.0
        near = segments[
            (segments.max(axis=1) >= low).all(axis=1) & (segments.min(axis=1) <= high).all(axis=1)
        ]
        for a, b in zip(road.points[:-1], road.points[1:], strict=True):
            for wall in near:
                distance = _segment_distance(a, b, wall[0], wall[1])
                assert distance >= 0.5 * road.width + soak.WALL_MARGIN - 1e-6, (road, wall)


def test_town_and_junctions_are_flat_and_hills_are_on_country_roads(soak_map):
    world = soak_map.world
    for x, y in soak_map.junctions:
        gx, gy = world.gradient(x, y)
        assert gx == 0.0 and gy == 0.0
        assert world.height(x, y) == 0.0
    for hill in soak_map.hills:
        grade = math.degrees(math.atan(hill.max_slope))
        assert soak.HILL_GRADE_DEG[0] <= grade <= soak.HILL_GRADE_DEG[1]
        # the hill's top is within its radius of a country road: it is astride the road
        top = np.array(hill.center)
        country = [road for road in soak_map.roads if road.kind == "country"]
        reach = min(
            min(_point_segment(top, a, b) for a, b in zip(r.points[:-1], r.points[1:], strict=True))
            for r in country
        )
        assert reach < hill.radius


def test_the_map_is_deterministic_and_depends_on_the_seed():
    first = soak._build_map_cached.__wrapped__(3)
    again = soak._build_map_cached.__wrapped__(3)
    assert soak.map_digest(first) == soak.map_digest(again)
    assert np.array_equal(first.world.terrain.heights, again.world.terrain.heights)
    assert np.array_equal(first.world.walls.segments, again.world.walls.segments)
    assert soak.map_digest(soak.build_map(4)) != soak.map_digest(first)
    with pytest.raises(ValueError, match="seed"):
        soak.build_map(-1)


def test_storm_with_ours_drives_every_road_and_every_turn(soak_map):
    checks = soak.check_roads(soak_map, "storm", "ours")
    summary = soak.road_check_summary(checks, soak_map)
    # every road both ways, every turn at every junction
    turns = sum(max(degree - 1, 1) * degree for _, degree in soak_map.graph.degree)
    assert summary["routes"] == turns
    assert summary["arrived"] == summary["routes"], summary["failed_routes"]
    assert summary["roads_driven_both_ways"] == len(soak_map.roads)


# --------------------------------------------------------------------------------------------------
# the bots


def test_every_route_is_a_graph_path_along_the_roads(soak_map, busy_run):
    reasons = {route.reason for route in busy_run.routes}
    assert reasons == {"spawn", "arrived", "replan"}
    for route in busy_run.routes:
        nodes = route.nodes
        assert len(nodes) >= 2 and len(set(nodes)) == len(nodes)  # a simple path
        assert all(soak_map.graph.has_edge(a, b) for a, b in itertools.pairwise(nodes))
        expected, widths = _expected_polyline(soak_map, nodes)
        if route.offset == 0.0:
            assert np.array_equal(route.points, expected)
            assert np.array_equal(route.widths, widths)
            continue
        # a replan: the polyline starts where the vehicle is on the first road, then follows it
        assert route.reason == "replan"
        first_road = _expected_polyline(soak_map, nodes[:2])[0]
        tail = route.points[1:]
        assert np.array_equal(tail, expected[len(expected) - len(tail) :])
        assert np.array_equal(route.widths, widths[len(widths) - len(route.widths) :])
        on_road = min(
            _point_segment(route.points[0], a, b) for a, b in itertools.pairwise(first_road)
        )
        assert on_road < 1e-9
        length = np.hypot(*np.diff(route.points, axis=0).T).sum()
        total = np.hypot(*np.diff(expected, axis=0).T).sum()
        assert length == pytest.approx(total - route.offset, abs=1e-6)


def test_a_route_is_replaced_on_arrival_and_never_turns_back(soak_map, busy_run):
    by_vehicle = {}
    for route in busy_run.routes:
        by_vehicle.setdefault(route.vehicle, []).append(route)
    arrived = 0
    radius = FollowerParams().arrival_radius
    for vehicle, routes in by_vehicle.items():
        assert routes[0].reason == "spawn" and routes[0].time == 0.0
        assert sum(route.reason == "arrived" for route in routes) == busy_run.arrivals[vehicle]
        for previous, route in itertools.pairwise(routes):
            assert route.time >= previous.time
            if route.reason != "arrived":
                continue
            arrived += 1
            # the new route starts at the junction the previous one ended at ...
            goal = previous.nodes[-1]
            assert route.nodes[0] == goal and route.offset == 0.0
            # ... where the vehicle was: within the arrival radius or past the end plane
            end = previous.points[-1]
            direction = end - previous.points[-2]
            position = np.array((route.x, route.y))
            within = np.hypot(*(position - end)) <= radius
            past = np.dot(position - end, direction) >= 0.0
            assert within or past
            # and it does not leave by the road the vehicle came in on, unless a dead end
            if soak_map.graph.degree[goal] > 1:
                assert route.nodes[1] != previous.nodes[-2]
    assert arrived > 0
    # a vehicle is driving every frame but its arrival frames
    total = busy_run.driving_seconds.sum() + busy_run.arrivals.sum() * busy_run.dt
    assert total == pytest.approx(len(busy_run.presets) * busy_run.steps * busy_run.dt)


def test_presets_cycle_and_both_followers_get_the_same_spawns(soak_map):
    ours = soak.simulate_soak(soak_map, "ours", trial=2, minutes=SHORT, vehicles=6)
    base = soak.simulate_soak(soak_map, "baseline", trial=2, minutes=SHORT, vehicles=6)
    assert ours.presets == tuple(PRESETS)
    spawns = [(r.vehicle, r.nodes, r.x, r.y) for r in ours.routes if r.reason == "spawn"]
    assert spawns == [(r.vehicle, r.nodes, r.x, r.y) for r in base.routes if r.reason == "spawn"]
    assert len(spawns) == 6
    other = soak.simulate_soak(soak_map, "ours", trial=3, minutes=SHORT, vehicles=6)
    assert [r.nodes for r in other.routes if r.reason == "spawn"] != [s[1] for s in spawns]


def test_a_session_is_deterministic(soak_map):
    first = soak.simulate_soak(soak_map, "baseline", trial=1, minutes=SHORT, vehicles=6)
    again = soak.simulate_soak(soak_map, "baseline", trial=1, minutes=SHORT, vehicles=6)
    assert first.events == again.events
    assert np.array_equal(first.driving_seconds, again.driving_seconds)
    assert np.array_equal(first.distance, again.distance)
    assert [(r.vehicle, r.time, r.nodes, r.x, r.y) for r in first.routes] == [
        (r.vehicle, r.time, r.nodes, r.x, r.y) for r in again.routes
    ]
    assert soak.trial_row(first) == soak.trial_row(again)
    assert first.distance.min() > 0.0  # every bot drove


def test_bad_arguments_are_named(soak_map):
    with pytest.raises(ValueError, match="follower"):
        soak.simulate_soak(soak_map, "stanley", minutes=SHORT, vehicles=6)
    with pytest.raises(ValueError, match="vehicles"):
        soak.simulate_soak(soak_map, "ours", minutes=SHORT, vehicles=0)
    with pytest.raises(ValueError, match="minutes"):
        soak.simulate_soak(soak_map, "ours", minutes=math.nan, vehicles=6)
    with pytest.raises(ValueError, match="vehicle"):
        soak.check_roads(soak_map, "tank")
    with pytest.raises(ValueError, match="trials"):
        soak.run_soak("unused", trials=0)


# --------------------------------------------------------------------------------------------------
# the measure


def _event(vehicle, where="open"):
    names = tuple(PRESETS)
    return SoakEvent(vehicle, names[vehicle % 6], 1.0, 0.0, 0.0, where)


def test_the_metric_equals_a_hand_computation():
    presets = ("storm", "bolte", "zaha", "storm")
    driving = (100.0, 50.0, 80.0, 70.0)
    events = [
        SoakEvent(0, "storm", 3.0, 1.0, 2.0, "near_wall"),
        SoakEvent(2, "zaha", 4.0, 1.0, 2.0, "open"),
        SoakEvent(2, "zaha", 9.0, 1.0, 2.0, "on_slope"),
        SoakEvent(0, "storm", 12.0, 1.0, 2.0, "near_wall"),
    ]
    metrics = soak.stuck_metrics(events, driving, presets)
    assert metrics["stuck_events"] == 4
    assert metrics["driving_seconds"] == 300.0
    assert metrics["seconds_per_stuck"] == 75.0  # 300 s / 4 events
    assert metrics["vehicles_stuck"] == 2 and metrics["max_vehicle_events"] == 2
    assert metrics["where"] == {"near_wall": 2, "on_slope": 1, "open": 1}
    by_preset = metrics["by_preset"]
    assert list(by_preset) == ["storm", "bolte", "zaha"]  # PRESETS order
    assert by_preset["storm"] == {
        "vehicles": 2, "driving_seconds": 170.0, "stuck_events": 2, "seconds_per_stuck": 85.0
    }  # fmt: skip
    assert by_preset["bolte"]["seconds_per_stuck"] == math.inf  # no event
    assert by_preset["zaha"]["seconds_per_stuck"] == 40.0
    assert soak.stuck_metrics([], driving, presets)["seconds_per_stuck"] == math.inf
    with pytest.raises(ValueError, match="vehicle"):
        soak.stuck_metrics([_event(7)], driving, presets)


def test_the_summary_is_mean_and_sample_std_over_trials():
    def row(trial, events, seconds):
        entry = {name: 0 for name in soak.COLUMNS}
        entry.update(
            follower="ours",
            trial=trial,
            stuck_events=events,
            driving_seconds=seconds,
            seconds_per_stuck=seconds / events,
            event_locations="",
            error=None,
        )
        return entry

    rows = [row(0, 10, 600.0), row(1, 10, 900.0), row(2, 10, 1200.0)]
    entry = soak.summarize(rows, ["ours"])["ours"]
    assert entry["seconds_per_stuck"] == [60.0, 90.0, 120.0]
    assert entry["mean"] == pytest.approx(90.0)
    assert entry["std"] == pytest.approx(30.0)  # sqrt((30^2 + 0 + 30^2) / (3 - 1))
    assert entry["pooled_seconds_per_stuck"] == pytest.approx(2700.0 / 30)
    assert entry["paper"] == {"mean": 131.0, "std": 36.0}


def test_the_summary_pools_presets_and_classes():
    def row(trial, events):
        entry = {name: 0 for name in soak.COLUMNS}
        entry.update(follower="baseline", trial=trial, error=None, event_locations="")
        for name, count in zip(PRESETS, events, strict=True):
            entry[f"{name}_vehicles"] = 1
            entry[f"{name}_driving_seconds"] = 300.0
            entry[f"{name}_stuck_events"] = count
        entry["stuck_events"] = sum(events)
        entry["driving_seconds"] = 1800.0
        entry["seconds_per_stuck"] = 1800.0 / sum(events)
        return entry

    rows = [row(0, (1, 0, 2, 3, 0, 10)), row(1, (1, 0, 0, 5, 2, 20))]
    entry = soak.summarize(rows, ["baseline"])["baseline"]
    assert entry["by_preset"]["storm"]["seconds_per_stuck"] == 300.0  # 600 s / 2 events
    assert entry["by_preset"]["bolte"]["seconds_per_stuck"] is None  # no event
    assert entry["by_class"]["easy"]["presets"] == ["storm", "bolte", "panhard_crab"]
    assert entry["by_class"]["easy"]["stuck_events"] == 4
    assert entry["by_class"]["easy"]["seconds_per_stuck"] == 450.0  # 1800 s / 4
    assert entry["by_class"]["hard"]["seconds_per_stuck"] == 45.0  # 1800 s / 40
    assert entry["pooled_seconds_per_stuck"] == 3600.0 / 44


def test_a_trial_row_agrees_with_its_session(soak_map, busy_run):
    row = soak.trial_row(busy_run)
    assert set(row) == set(soak.COLUMNS)
    assert row["stuck_events"] == len(busy_run.events) > 0
    assert row["seconds_per_stuck"] == pytest.approx(
        busy_run.driving_seconds.sum() / len(busy_run.events), rel=1e-12
    )
    assert sum(row[f"{name}_stuck_events"] for name in PRESETS) == row["stuck_events"]
    assert sum(row[f"stuck_{where}"] for where in soak.WHERE) == row["stuck_events"]
    assert len(row["event_locations"].split(" ")) == row["stuck_events"]
    for event in busy_run.events:  # the events are the followers' own, with their places
        assert busy_run.presets[event.vehicle] == event.preset
        assert 0.0 < event.time <= busy_run.steps * busy_run.dt + 1e-9


# --------------------------------------------------------------------------------------------------
# the command


def test_cli_soak_runs_writes_the_report_and_resumes(tmp_path):
    runner = CliRunner()
    arguments = ["soak", "--out", str(tmp_path), "--trials", "1", "--minutes", str(SHORT)]
    arguments += ["--vehicles", "6", "--workers", "1"]
    result = runner.invoke(app, arguments)
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "soak.json").read_text())
    assert set(summary["followers"]) == {"baseline", "ours"}
    for entry in summary["followers"].values():
        assert entry["trials"] == 1 and entry["failed_trials"] == 0
        assert entry["driving_seconds"][0] <= 6 * 20.0 + 1e-9
    assert summary["road_check"]["roads_driven_both_ways"] == summary["map"]["roads"]
    report = (tmp_path / "soak.md").read_text()
    assert "131" in report
    # the report's tables, read back by GFM's rules: a row per follower, per preset, per follower
    per_follower, per_preset, where = find_tables(report)
    followers = summary["followers"]
    assert [row[0] for row in per_follower[2]] == list(followers)
    for cells in per_follower[2]:
        entry = followers[cells[0]]
        assert cells[per_follower[0].index("stuck events per trial")] == ", ".join(
            str(count) for count in entry["stuck_events"]
        )
    assert [row[0] for row in per_preset[2]] == list(PRESETS)
    assert all(len(row) == 1 + 3 * len(followers) for row in per_preset[2])
    for cells in where[2]:
        counts = [int(cells[where[0].index(place)]) for place in soak.WHERE]
        assert sum(counts) == sum(followers[cells[0]]["stuck_events"])
    assert (tmp_path / "soak_map.png").stat().st_size > 0
    lines = (tmp_path / "results.csv").read_text().splitlines()
    assert len(lines) == 3  # header + (baseline, 0) + (ours, 0)
    again = runner.invoke(app, arguments)  # everything is done: nothing reruns, same summary
    assert again.exit_code == 0, again.output
    assert json.loads((tmp_path / "soak.json").read_text()) == summary
    bad = runner.invoke(app, ["soak", "--out", str(tmp_path / "x"), "--minutes", "0"])
    assert bad.exit_code != 0 and "minutes" in bad.output
