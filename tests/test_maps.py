"""The ``maps`` suite: seed 002's navigators on real bot nav data (JK_Botti maps shipped; YaPB
graphs from the shared data when present)."""

import json
import math
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
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


def _episodes_by_hand(t, x, y, window, distance):
    """Stuck frames by the definition, frame by frame; an episode starts after a free frame."""
    count, before = 0, False
    for k in range(t.size):
        back = [j for j in range(k + 1) if t[k] - t[j] >= window - 1e-9]
        stuck = bool(back) and math.hypot(x[k] - x[back[-1]], y[k] - y[back[-1]]) < distance
        count += stuck and not before
        before = stuck
    return count


@settings(max_examples=40, deadline=None)
@given(
    stops=st.lists(st.tuples(st.integers(0, 60), st.integers(0, 80)), min_size=0, max_size=3),
    speed=st.floats(20.0, 320.0),
)
def test_stuck_episodes_count_each_run_of_stuck_frames_once(stops, speed):
    """A bot driving at ``speed`` that stands still for given numbers of frames (dt 0.05 s): the
    episodes equal a frame-by-frame count from the definition."""
    dt = 0.05
    steps = []
    for moving, standing in stops or [(40, 0)]:
        steps += [speed * dt] * moving + [0.0] * standing
    x = np.concatenate(([0.0], np.cumsum(steps)))
    t = dt * np.arange(x.size)
    y = np.zeros_like(x)
    expected = _episodes_by_hand(t, x, y, maps.STUCK_SECONDS, maps.STUCK_DISTANCE)
    assert maps.stuck_episodes(t, x, y) == expected


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
