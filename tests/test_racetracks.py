"""The ``racetracks`` suite (``steerlab.experiments.benchmark.racetracks``): its measures against
closed forms and synthetic traces, a run on a small synthetic circuit (summary shape, lap end,
resume), the command line, and bad selections."""

import itertools
import json
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from steerlab.cli.app import app
from steerlab.experiments.benchmark import racetracks
from steerlab.experiments.benchmark.racetracks import (
    DT,
    LIMIT_SHARE,
    QUICK_FOLLOWERS,
    QUICK_TRACK,
    LapSpec,
    boundary_exits,
    lap_trials,
    lateral_acceleration,
    lateral_limit,
    raceline_bounds,
    raceline_time,
    run_racetracks,
    simulate_lap,
)
from steerlab.trials.circuit import SHIPPED_CIRCUITS, Circuit
from steerlab.vehicles import PRESETS
from steerlab.vehicles.params import GRAVITY, HOVER, VehicleParams


def _ring(radius, count):
    angles = 2.0 * np.pi * np.arange(count) / count
    return radius * np.column_stack((np.cos(angles), np.sin(angles)))


def _write_ring(folder, name="Ring", radius=40.0, count=80, width=6.0, raceline=True):
    """A counter-clockwise ring circuit in the database's layout (tracks/, racelines/)."""
    (folder / "tracks").mkdir(parents=True, exist_ok=True)
    track = folder / "tracks" / f"{name}.csv"
    lines = ["# x_m,y_m,w_tr_right_m,w_tr_left_m"]
    lines += [f"{x!r},{y!r},{width!r},{width!r}" for x, y in _ring(radius, count).tolist()]
    track.write_text("\n".join(lines) + "\n")
    if raceline:
        (folder / "racelines").mkdir(exist_ok=True)
        line = ["# x_m,y_m"] + [f"{x!r},{y!r}" for x, y in _ring(radius, count).tolist()]
        (folder / "racelines" / f"{name}.csv").write_text("\n".join(line) + "\n")
    return track


# --------------------------------------------------------------------------------------------------
# measures


def test_a_trace_that_leaves_and_reenters_twice_counts_two_exits_on_their_sides():
    radius, width = 50.0, 5.0
    circuit = Circuit("ring", _ring(radius, 720), np.full(720, width), np.full(720, width))
    # counter-clockwise: the left is inward. Out to the left (r < 45) for three frames, back,
    # out to the right (r > 55) for two frames, back, then along the inside near the edge
    distances = [50, 48, 44, 43, 44, 47, 50, 53, 56, 57, 54, 50, 46, 45.5, 50]
    angles = np.linspace(0.0, 1.0, len(distances))
    trace = np.column_stack((distances * np.cos(angles), distances * np.sin(angles)))
    left, right = boundary_exits(circuit.sides(trace))
    assert (left, right) == (1, 1)
    # the same trace twice over: four exits
    sides = circuit.sides(np.vstack((trace, trace)))
    assert boundary_exits(sides) == (2, 2)


@given(st.lists(st.sampled_from([-1, 0, 1]), min_size=1, max_size=60))
def test_exits_are_the_inside_to_outside_transitions(sides):
    left, right = boundary_exits(np.array(sides, dtype=np.int8))
    pairs = list(itertools.pairwise(sides))
    assert left == pairs.count((0, 1)) and right == pairs.count((0, -1))


@pytest.mark.parametrize(("speed", "radius"), [(10.0, 50.0), (25.0, 120.0), (3.0, 8.0)])
def test_lateral_acceleration_of_uniform_circular_motion_is_v_squared_over_r(speed, radius):
    t = np.arange(500) * DT
    angle = speed / radius * t
    x, y = radius * np.cos(angle), radius * np.sin(angle)
    a_lat = lateral_acceleration(x, y, DT)
    assert a_lat[0] == 0.0 and a_lat[-1] == 0.0  # no central difference at the ends
    np.testing.assert_allclose(a_lat[1:-1], speed**2 / radius, rtol=1e-4)


def test_lateral_acceleration_of_straight_accelerated_motion_is_zero():
    t = np.arange(200) * DT
    s = 0.5 * 3.0 * t**2
    heading = 0.7
    a_lat = lateral_acceleration(5.0 + s * math.cos(heading), -2.0 + s * math.sin(heading), DT)
    np.testing.assert_allclose(a_lat, 0.0, atol=1e-9)


def test_the_lateral_bound_is_the_friction_coefficient_times_g():
    assert lateral_limit(VehicleParams(mu=0.5)) == pytest.approx(0.5 * GRAVITY)
    assert lateral_limit(VehicleParams(kind=HOVER, mu=0.9, lateral_friction=0.1)) == (
        pytest.approx(0.1 * GRAVITY)
    )


def test_the_race_line_bound_on_a_circle_is_sqrt_a_r_and_its_time_the_perimeter_over_it():
    radius, a_lat = 60.0, 8.0
    line = _ring(radius, 360)
    circuit = Circuit("ring", line, np.full(360, 5.0), np.full(360, 5.0), raceline=line)
    bounds = raceline_bounds(circuit, a_lat, 100.0)
    np.testing.assert_allclose(bounds, math.sqrt(a_lat * radius), rtol=1e-9)
    perimeter = 360 * 2.0 * radius * math.sin(math.pi / 360)
    assert raceline_time(circuit, bounds) == pytest.approx(perimeter / math.sqrt(a_lat * radius))
    np.testing.assert_allclose(raceline_bounds(circuit, a_lat, 10.0), 10.0)  # the top speed
    assert raceline_bounds(Circuit("c", line, np.ones(360), np.ones(360)), a_lat, 10.0) is None


# --------------------------------------------------------------------------------------------------
# a lap and a run on a synthetic ring


def test_one_lap_ends_at_the_start_line_within_the_limit(tmp_path):
    track = _write_ring(tmp_path)
    row, records = simulate_lap(LapSpec(str(track), "storm", "ours"))
    assert row["track"] == "Ring" and row["ended"] == "arrived" and row["lap_completed"]
    circuit = Circuit("r", _ring(40.0, 80), np.full(80, 6.0), np.full(80, 6.0))
    assert row["lap_length"] == pytest.approx(circuit.length)
    # the follower's top speed is 10 m/s: the lap cannot be shorter than length / 10 (and a bit)
    assert row["lap_time"] >= circuit.length / PRESETS["storm"].max_speed
    assert row["lap_time"] == pytest.approx(row["frames"] * DT)
    assert row["time_limit"] == pytest.approx(circuit.length / (LIMIT_SHARE * 10.0))
    # the lap's end: the vehicle has gone round once, and is just past the start line
    end = records.metrics.end
    heading = np.unwrap(np.arctan2(records.y[: end + 1], records.x[: end + 1]))
    assert heading[-1] - heading[0] == pytest.approx(2.0 * math.pi, abs=0.02)
    assert row["boundary_exits"] == row["exits_left"] + row["exits_right"] == 0
    # on a circle, the vehicle's peak lateral acceleration is about v^2 / r at its speed
    assert 0.5 * 10.0**2 / 40.0 < row["a_lat_peak"] < row["a_lat_max"]
    expected_bound = min(math.sqrt(row["a_lat_max"] * 40.0), PRESETS["storm"].max_speed)
    assert row["bound_speed_mean"] == pytest.approx(expected_bound, rel=1e-3)
    assert row["target_over_bound"] == 0.0  # 10 m/s is below sqrt(mu g r), 18.8 m/s


def test_a_run_writes_by_track_vehicle_follower_and_resumes_without_running_again(
    tmp_path, monkeypatch
):
    track = _write_ring(tmp_path / "data", radius=30.0, count=60)
    out = tmp_path / "run"
    summary = run_racetracks(
        out, tracks=[track], vehicles=["storm"], followers=QUICK_FOLLOWERS, workers=1,
        progress=False,
    )  # fmt: skip
    on_disk = json.loads((out / "summary.json").read_text())
    assert on_disk == summary
    assert list(summary["by_track"]) == ["Ring"]
    assert list(summary["by_track"]["Ring"]) == ["storm"]
    assert list(summary["by_track"]["Ring"]["storm"]) == list(QUICK_FOLLOWERS)
    for cell in summary["by_track"]["Ring"]["storm"].values():
        assert {"lap_completed", "lap_time", "boundary_exits", "cte_mean"} <= set(cell)
        assert cell["error"] is None and isinstance(cell["lap_completed"], bool)
        # an unfinished lap is charged the time limit (the baseline crawls round a tight ring)
        finished = cell["lap_time"] == pytest.approx(cell["frames"] * DT)
        assert (cell["lap_time"] == cell["time_limit"]) if not cell["lap_completed"] else finished
    assert summary["by_track"]["Ring"]["storm"]["ours"]["lap_completed"] is True
    assert summary["circuits"]["Ring"]["points"] == 60
    assert summary["circuits"]["Ring"]["raceline"] is True
    for name in ("racetracks.md", "racetracks.html", "results.csv", "run.json"):
        assert (out / name).is_file()
    assert "## Ring" in (out / "racetracks.md").read_text()
    before = (out / "results.csv").read_bytes()

    def no_lap(spec):
        raise AssertionError(f"lap {spec} ran again on resume")

    monkeypatch.setattr(racetracks, "run_lap", no_lap)
    again = run_racetracks(
        out, tracks=[track], vehicles=["storm"], followers=QUICK_FOLLOWERS, workers=1,
        progress=False,
    )  # fmt: skip
    assert (out / "results.csv").read_bytes() == before
    assert again == summary


def test_a_track_without_a_race_line_runs_with_the_bound_columns_empty(tmp_path):
    track = _write_ring(tmp_path, radius=30.0, count=60, raceline=False)
    row, _ = simulate_lap(LapSpec(str(track), "storm", "ours"))
    assert row["lap_completed"]
    assert math.isnan(row["bound_speed_mean"]) and math.isnan(row["target_over_bound"])


def test_the_command_runs_the_suite_and_refuses_tracks_elsewhere(tmp_path):
    track = _write_ring(tmp_path / "data", radius=30.0, count=60)
    out = tmp_path / "cli"
    runner = CliRunner()
    result = runner.invoke(
        app,
        [
            "bench", "--suite", "racetracks", "--tracks", str(track), "--vehicles", "storm",
            "--followers", "ours", "--workers", "1", "--out", str(out),
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["by_track"]["Ring"]["storm"]["ours"]["lap_completed"] is True
    result = runner.invoke(app, ["bench", "--tracks", str(track), "--out", str(tmp_path / "x")])
    assert result.exit_code == 2 and "--tracks" in result.output
    bad = tmp_path / "bad.csv"
    bad.write_text("0,0,1,1\n1,0,1\n")
    result = runner.invoke(
        app, ["bench", "--suite", "racetracks", "--tracks", str(bad), "--out", str(out / "b")]
    )
    assert result.exit_code == 1 and "line 2: 3 columns" in result.output
    assert not (out / "b").exists()  # refused before anything ran


# --------------------------------------------------------------------------------------------------
# the selection


def test_the_default_and_quick_selections():
    specs = lap_trials(vehicles=["storm"], followers=["ours"])
    assert [spec.key for spec in specs] == [(name, "storm", "ours") for name in SHIPPED_CIRCUITS]
    quick = lap_trials(quick=True)
    assert [spec.key for spec in quick] == [
        (QUICK_TRACK, "storm", follower) for follower in QUICK_FOLLOWERS
    ]


def test_bad_selections_are_refused_before_any_lap(tmp_path):
    with pytest.raises(ValueError, match="'Monza' is neither a shipped circuit"):
        lap_trials(["Monza"])
    empty = tmp_path / "empty.csv"
    empty.write_text("# x_m,y_m,w_tr_right_m,w_tr_left_m\n")
    with pytest.raises(ValueError, match=r"empty.csv: no data rows"):
        lap_trials([empty])
    first = _write_ring(tmp_path / "a")
    second = _write_ring(tmp_path / "b")
    with pytest.raises(ValueError, match="two circuits named 'Ring'"):
        lap_trials([first, second])
    with pytest.raises(ValueError, match="unknown vehicle 'tank'"):
        lap_trials([first], vehicles="tank")
    with pytest.raises(ValueError, match="unknown follower 'fast'"):
        lap_trials([first], followers=["fast"])
    with pytest.raises(ValueError, match="no tuned parameters"):
        lap_trials([first], followers=["ours_tuned"], tuned_dir=tmp_path)
