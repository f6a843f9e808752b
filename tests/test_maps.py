"""The ``maps`` suite: seed 002's navigators on real bot nav data (JK_Botti maps shipped; YaPB
graphs from the shared data when present)."""

import json
import math
import os
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from steerlab.cli.app import app
from steerlab.experiments.benchmark import maps
from steerlab.navigation import find_route, load_navdata, shipped_maps

DATA = Path(os.environ.get("STEERLAB_DATA", Path(__file__).resolve().parents[2] / "shared/data"))


def test_thirteen_maps_ship_with_their_licence():
    files = shipped_maps()
    assert len(files) == 13 and all(path.suffix == ".wpt" for path in files)
    assert (files[0].parent / "LICENSE.txt").read_text().startswith("BSD License.")
    for path in files:
        assert len(load_navdata(path).waypoints) > 1


@pytest.mark.parametrize("path", shipped_maps()[:4], ids=lambda path: path.stem)
def test_routes_are_seeded_long_enough_and_exist(path):
    routes = maps.map_routes(path, 4)
    assert routes == maps.map_routes(path, 4)  # the same draws in every call and process
    nav = load_navdata(path)
    where = {w.id: np.asarray(w.position, dtype=float) for w in nav.waypoints}
    for start, goal in routes:
        assert math.dist(where[start][:2], where[goal][:2]) >= maps.MIN_SPAN
        route = find_route(nav, start, goal)
        assert route.waypoint_ids[0] == start and route.waypoint_ids[-1] == goal


LOOP = """
kind = "waypoints"
waypoints = [
  {id = "a", position = [0, 0, 0], radius = 16},
  {id = "b", position = [300, 0, 0], radius = 16},
  {id = "c", position = [300, 24, 0], radius = 16},
  {id = "d", position = [0, 24, 0], radius = 16},
  {id = "e", position = [0, 48, 0], radius = 16},
  {id = "f", position = [600, 48, 0], radius = 16},
]
connections = [{from = "a", to = "b"}, {from = "b", to = "c"}, {from = "c", to = "d"},
               {from = "d", to = "e"}, {from = "e", to = "f"}]
"""


def _loop_route(tmp_path):
    path = tmp_path / "loop.toml"
    path.write_text(LOOP)
    return find_route(load_navdata(path), "a", "f")


def _trace(points, speeds, dt=0.02):
    """A trace through ``points`` (n, 2) with commanded ``speeds`` (n - 1,)."""
    from steerlab.sim.trace import Trace

    points = np.asarray(points, dtype=float)
    t = dt * np.arange(points.shape[0])
    velocity = np.gradient(points, dt, axis=0)
    states = {
        "x": points[:, 0],
        "y": points[:, 1],
        "vx": velocity[:, 0],
        "vy": velocity[:, 1],
        "yaw": np.zeros(points.shape[0]),
    }
    commands = {"yaw": np.zeros(points.shape[0] - 1), "speed": np.asarray(speeds, dtype=float)}
    return Trace(t, states, commands, "AgentState", "Command")


def _along(route, distances):
    """Points at the given arc lengths along the route's polyline (in the plane)."""
    from steerlab.geometry import Polyline

    line = Polyline(route.positions[:, :2])
    return np.array([line.point_at(float(d))[:2] for d in distances])


def test_a_bot_driving_a_tight_loop_at_full_speed_is_not_stuck(tmp_path):
    """Its displacement over 2 s is under 32 u (it comes back beside where it was), its progress
    along the route 640 u: the observer counts no event."""
    route = _loop_route(tmp_path)
    dt, speed = 0.02, 320.0
    arcs = np.minimum(speed * dt * np.arange(200), float(np.sum(route.lengths)))
    points = _along(route, arcs)
    back = int(2.0 / dt)
    assert np.min(np.hypot(*(points[back:] - points[:-back]).T)) < maps.STUCK_DISTANCE
    trace = _trace(points, np.full(points.shape[0] - 1, speed))
    assert maps.stalls(route, trace, 30.0, 16.0) == (0, 0)


@pytest.mark.parametrize("hold", [3.0, 10.0])
def test_standing_still_while_commanded_is_one_episode_and_holding_on_purpose_none(tmp_path, hold):
    """Stopped for ``hold`` seconds halfway while the navigator commands 320 u/s: at least one
    observer event per 2 s window, one episode however long; commanding zero meanwhile (a
    ladder's climb): no event."""
    route = _loop_route(tmp_path)
    dt = 0.02
    run = np.arange(0.0, 300.0, 320.0 * dt)
    stop = np.full(int(hold / dt), run[-1])
    rest = run[-1] + 320.0 * dt * np.arange(1, 120)
    arcs = np.concatenate((run, stop, rest))
    points = _along(route, arcs)
    pushing = np.full(points.shape[0] - 1, 320.0)
    events, episodes = maps.stalls(route, _trace(points, pushing), 60.0, 16.0)
    assert episodes == 1 and events >= math.floor(hold / maps.STUCK_SECONDS)
    holding = pushing.copy()
    holding[run.size - 1 : run.size + stop.size - 1] = 0.0
    assert maps.stalls(route, _trace(points, holding), 60.0, 16.0) == (0, 0)


def test_a_trial_arrives_by_the_observer_within_the_goals_reach():
    path = shipped_maps()[0]
    start, goal = maps.map_routes(path, 1)[0]
    spec = maps.MapTrialSpec(str(path), 0, start, goal, "along_v2", 0.02)
    row = maps.run_map_trial(spec)
    assert row["arrived"] and row["time"] < row["time_limit"]
    assert 0.0 <= row["inside_share"] <= 1.0
    nav = load_navdata(path)
    goal_point = next(w.position for w in nav.waypoints if w.id == goal)
    assert row["length"] >= math.dist(
        next(w.position for w in nav.waypoints if w.id == start)[:2], goal_point[:2]
    )


def test_a_quick_run_writes_the_summary_and_resumes_without_rerunning(tmp_path, monkeypatch):
    summary = maps.run_maps(tmp_path, quick=True, workers=1, progress=False)
    written = json.loads((tmp_path / "summary.json").read_text())
    assert written == json.loads(json.dumps(summary))
    (name,) = written["by_map"]
    assert name == shipped_maps()[0].stem
    for navigator in maps.NAVIGATORS:
        cell = written["by_map"][name][navigator]
        assert {"routes", "arrival_rate", "time_mean", "inside_share_mean"} <= set(cell)
        assert cell["routes"] == maps.QUICK_ROUTES * len(maps.QUICK_FRAME_TIMES)
        assert 0.0 <= cell["arrival_rate"] <= 1.0
    results = (tmp_path / "results.csv").read_bytes()

    def refuse(spec):
        raise AssertionError("a finished trial ran again")

    monkeypatch.setattr(maps, "run_map_trial", refuse)
    maps.run_maps(tmp_path, quick=True, workers=1, progress=False)
    assert (tmp_path / "results.csv").read_bytes() == results
    assert (tmp_path / "maps.md").read_text().startswith("# Maps")


@pytest.mark.skipif(not (DATA / "yapb").is_dir(), reason=f"no YaPB graphs at {DATA}")
def test_a_counter_strike_graph_draws_routes_and_runs():
    graph = DATA / "yapb" / "de_dust2.graph"
    specs, records = maps.map_trials(str(graph), quick=True)
    assert records["de_dust2"]["routes"] == maps.QUICK_ROUTES
    row = maps.run_map_trial(specs[0])
    assert row["map"] == "de_dust2" and row["frames"] > 1


def test_bad_map_selections_are_refused_before_anything_runs(tmp_path):
    with pytest.raises(ValueError, match="not found"):
        maps.map_trials(str(tmp_path / "missing.wpt"))
    first = shipped_maps()[0]
    with pytest.raises(ValueError, match="two maps named"):
        maps.map_trials(f"{first},{first}")


def test_the_command_runs_the_suite_and_refuses_what_does_not_apply(tmp_path):
    runner = CliRunner()
    missing = runner.invoke(
        app, ["bench", "--suite", "maps", "--maps", "nope.wpt", "--out", str(tmp_path / "a")]
    )
    assert missing.exit_code == 2 and "map file 'nope.wpt' not found" in missing.stderr
    assert not (tmp_path / "a").exists()
    misplaced = runner.invoke(app, ["bench", "--maps", "x.wpt", "--out", str(tmp_path / "b")])
    assert misplaced.exit_code == 2 and "--maps" in misplaced.stderr
    refused = runner.invoke(
        app, ["bench", "--suite", "maps", "--vehicles", "storm", "--out", str(tmp_path / "c")]
    )
    assert refused.exit_code == 2 and "--vehicles" in refused.stderr
    done = runner.invoke(
        app, ["bench", "--suite", "maps", "--quick", "--workers", "1", "--out", str(tmp_path / "d")]
    )
    assert done.exit_code == 0, done.stderr
    assert (tmp_path / "d" / "maps.html").is_file()
