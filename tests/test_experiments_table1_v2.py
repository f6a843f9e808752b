"""Table I version 2's runner (``steerlab.experiments.benchmark.table1_v2``): its aggregation on
hand-built rows, fronts and coverage against their definitions, and a whole run on a tiny
protocol of tiny suites (the summary contract, the gate, resume, 1 worker against 2)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from steerlab.cli.app import app
from steerlab.experiments.benchmark.table1_v2 import (
    follower_entry,
    front_coverage,
    pareto_front,
    replay_choices,
    run_table1_v2,
    stalls_by_path,
)
from steerlab.trials.protocol import load_protocol, shipped_protocols

# --------------------------------------------------------------------------------------------------
# fronts and coverage, against their definitions

points = st.lists(
    st.tuples(st.integers(0, 20), st.integers(0, 20)), min_size=1, max_size=12, unique=True
)


@settings(max_examples=200, deadline=None)
@given(points)
def test_the_front_is_the_skyline_of_the_points(chosen):
    """Independent route: sort by time (then stalls); a point is on the front iff its stalls are
    below every earlier point's (distinct points)."""
    flags = pareto_front(chosen)
    order = sorted(range(len(chosen)), key=lambda i: chosen[i])
    expected = [False] * len(chosen)
    best = math.inf
    for index in order:
        if chosen[index][1] < best:
            expected[index] = True
            best = chosen[index][1]
    assert flags == expected


@settings(max_examples=200, deadline=None)
@given(points, points)
def test_coverage_counts_the_points_matched_or_beaten(first, second):
    share = front_coverage(first, second)
    matched = [any(a <= c and b <= d for a, b in first) for c, d in second]
    assert share == sum(matched) / len(second)
    assert front_coverage(first, first) == 1.0  # every point matches itself


# --------------------------------------------------------------------------------------------------
# a follower's figures, by hand


def row(path, vehicle, episodes, km, minutes, events=0, time=10.0, error=None, **extra):
    return {
        "suite": "s",
        "path": path,
        "vehicle": vehicle,
        "follower": "ours",
        "seed": 0,
        "episodes": episodes,
        "driving_km": km,
        "driving_minutes": minutes,
        "stuck_events": events,
        "completed": True,
        "timed_out": False,
        "time": time,
        "cte_mean": 1.0,
        "inside_corridor": 90.0,
        "speed_mean": 5.0,
        "error": error,
        **extra,
    }


def test_stalls_per_km_is_a_ratio_of_sums_over_feasible_trials_only():
    rows = [
        row("a", "storm", 1, 0.1, 1.0, events=3, time=20.0),
        row("b", "storm", 0, 0.9, 2.0, events=0, time=40.0),
        row("c", "storm", 5, 0.5, 3.0, events=30, time=120.0),  # infeasible: left out
        row("d", "storm", 0, 0.0, 0.0, error="Boom"),
    ]
    feasible = {("s", "a", "storm"): True, ("s", "b", "storm"): True, ("s", "c", "storm"): False}
    feasible[("s", "d", "storm")] = True
    entry = follower_entry(rows, feasible, ["storm"])
    assert entry["stalls"] == 1
    assert entry["stalls_per_km"] == pytest.approx(1.0)  # 1 / (0.1 + 0.9), not mean(10, 0) = 5
    assert entry["stalls_per_minute"] == pytest.approx(1.0 / 3.0)
    assert entry["stuck_events"] == 3
    assert entry["time_mean"] == pytest.approx(30.0)
    assert (entry["feasible_trials"], entry["infeasible_trials"], entry["errors"]) == (2, 1, 1)
    marked = entry["with_infeasible"]
    assert (marked["trials"], marked["stalls"], marked["stuck_events"]) == (3, 6, 33)
    assert marked["stalls_per_km"] == pytest.approx(6 / 1.5)
    assert entry["stuck_by_vehicle"] == {"storm": 3}


# --------------------------------------------------------------------------------------------------
# a whole run on a tiny protocol

SUITE = """
name = "{name}"
version = 1
dt = 0.05
seeds = 1
time_limit = 40.0
terrain_margin = 10.0

[spawn_jitter]
lateral = 0.5
yaw_deg = 5.0

[[paths]]
name = "bend"
waypoints = [[0, 0], [40, 0], [60, {bend}]]
corridor_width = 10.0

[[paths]]
name = "wall"
waypoints = [[0, 0], [60, 0]]
corridor_width = 8.0
walled = true
wall_segments = [[[30, -6], [30, 6]]]
"""


def write_protocol(folder: Path, text_changes=()) -> Path:
    evaluated = folder / "eval.toml"
    training = folder / "train.toml"
    evaluated.write_text(SUITE.format(name="tiny_eval", bend=20), encoding="utf-8")
    training.write_text(SUITE.format(name="tiny_train", bend=-15), encoding="utf-8")
    text = shipped_protocols()["table1_v2"].read_text(encoding="utf-8")
    replacements = [
        ('suites = ["table1", "generated"]', f"suites = [{str(evaluated)!r}]"),
        ('tuning_suite = "train_generated"', f"tuning_suite = {str(training)!r}"),
        (
            'vehicles = ["storm", "bolte", "panhard_crab", "zaha", "armata", "hovercraft"]',
            'vehicles = ["storm", "zaha"]',
        ),
        (
            'classes = { easy = ["storm", "bolte", "panhard_crab"], hard = ["zaha", "armata", '
            '"hovercraft"] }',
            'classes = { easy = ["storm"], hard = ["zaha"] }',
        ),
        ("iterations = 12", "iterations = 2"),
        ("resamples = 2000", "resamples = 200"),
        *text_changes,
    ]
    for old, new in replacements:
        assert old in text, old
        text = text.replace(old, new)
    # keep the sweeps of two followers, two points each
    head, _, rest = text.partition("[[sweeps]]")
    tail = rest[rest.index("[intervals]") :]
    sweeps = """[[sweeps]]
follower = "baseline"
baseline_k = [1.0, 10.0]
reason = "a tiny sweep"

[[sweeps]]
follower = "ours"
a_lat = [0.2, 0.8]
reason = "a tiny sweep"

[[sweeps]]
follower = "ours"
design = "one_at_a_time"
stop_decel = [0.5]
kp_speed = [2.0]
reason = "a tiny sweep, one constant at a time"

"""
    path = folder / "tiny_protocol.toml"
    path.write_text(head + sweeps + tail, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("v2")
    protocol = write_protocol(folder)
    out = folder / "run"
    summary = run_table1_v2(out, protocol=protocol, workers=1, progress=False, figures=False)
    return protocol, out, summary


def test_the_summary_holds_the_output_contract(tiny_run):
    protocol, out, summary = tiny_run
    loaded = load_protocol(protocol)
    assert summary["protocol"] == 2
    assert summary["protocol_sha256"] == loaded.sha256
    assert set(summary["suite_sha256"]) == {"tiny_eval"}
    assert summary["paths"] == 2
    # every follower of the file but ours_tuned (the shipped presets were tuned on `train`)
    names = ["baseline", "ours", "stanley", "regulated_pure_pursuit", "baseline_pi", "ours_p"]
    assert list(summary["followers"]) == names
    assert "ours_tuned" in summary["left_out"]
    assert summary["trials"] == (len(names) + 6) * 2 * 2  # (followers + sweep points) x pairs
    for name in names:
        entry = summary[name]
        for field in (
            "stalls",
            "stalls_per_km",
            "stuck_events",
            "feasible_trials",
            "infeasible_trials",
            "time_mean",
            "cte_mean",
            "inside_corridor_mean",
            "speed_mean",
            "stuck_by_vehicle",
        ):
            assert field in entry, (name, field)
        assert entry["feasible_trials"] + entry["infeasible_trials"] + entry["errors"] == 4
    assert [p["name"] for p in summary["pareto"]["baseline"]] == [
        "baseline",
        "baseline-s00",
        "baseline-s01",
    ]
    for points in summary["pareto"].values():
        for point in points:
            assert {"time_mean", "stalls_per_km", "constants", "on_front", "design"} <= set(point)
        assert any(point["on_front"] for point in points)
    json.loads((out / "summary.json").read_text())  # strict JSON (no NaN)
    assert (out / "report.html").is_file() and (out / "table1_v2.md").is_file()
    # per path: the episodes the followers' entries total (only the wall is walled off: the bend)
    by_path = summary["stalls_by_path"]
    for name in names:
        assert sum(cells.get(name, 0) for cells in by_path.values()) == summary[name]["stalls"]
    assert summary["replays"] == []  # figures (and replays) off


def test_the_walled_off_path_is_infeasible_for_every_vehicle_and_left_out(tiny_run):
    _, _, summary = tiny_run
    expected = [["storm", "tiny_eval/wall"], ["zaha", "tiny_eval/wall"]]
    assert sorted(summary["infeasible"]) == expected
    for name in summary["followers"]:
        assert summary[name]["infeasible_trials"] == 2


def test_the_calibrated_constant_is_reported_and_used(tiny_run):
    _, _, summary = tiny_run
    calibration = summary["calibration"]["baseline_k"]
    assert 0.5 <= calibration["value"] <= 50.0
    assert len(calibration["steps"]) == 2
    low, high = calibration["bracket"]
    assert low <= calibration["value"] <= high
    rule_point = summary["pareto"]["baseline"][0]
    assert rule_point["constants"]["baseline_k"] == calibration["value"]


def test_a_rerun_changes_nothing_and_two_workers_give_the_same_files(tiny_run, tmp_path):
    protocol, out, summary = tiny_run
    before = {name: (out / name).read_bytes() for name in ("results.csv", "summary.json")}
    again = run_table1_v2(out, protocol=protocol, workers=1, progress=False, figures=False)
    assert again == summary
    for name, data in before.items():
        assert (out / name).read_bytes() == data
    other = tmp_path / "two"
    run_table1_v2(other, protocol=protocol, workers=2, progress=False, figures=False)
    for name, data in before.items():
        assert (other / name).read_bytes() == data


def test_a_local_ray_run_gives_the_same_files_from_one_ray(tiny_run, tmp_path, monkeypatch):
    ray = pytest.importorskip("ray")
    protocol, out, _ = tiny_run
    running_before = ray.is_initialized()
    starts = []
    init = ray.init

    def counted(*args, **kwargs):
        starts.append(kwargs)
        return init(*args, **kwargs)

    monkeypatch.setattr(ray, "init", counted)
    other = tmp_path / "ray"
    run_table1_v2(other, protocol=protocol, workers=2, ray=True, progress=False, figures=False)
    assert len(starts) == (0 if running_before else 1)  # the gate, calibration, trials: one Ray
    assert ray.is_initialized() == running_before
    for name in ("results.csv", "gate/results.csv"):
        assert (other / name).read_bytes() == (out / name).read_bytes()
    first, again = (json.loads((folder / "summary.json").read_text()) for folder in (out, other))
    first.pop("replays"), again.pop("replays")  # the command line's run drew them in `out`
    assert first == again


def test_a_protocol_the_runner_cannot_honour_is_refused_before_anything_runs(tmp_path):
    shared = write_protocol(tmp_path, [("stuck_window = 3.0", "stuck_window = 4.0")])
    with pytest.raises(ValueError, match="observer"):
        run_table1_v2(tmp_path / "out", protocol=shared, progress=False)
    assert not (tmp_path / "out").exists()


def test_the_command_line_runs_a_protocol_file_and_refuses_its_choices(tiny_run, tmp_path):
    protocol, out, _ = tiny_run
    runner = CliRunner()
    refused = runner.invoke(
        app, ["bench", "--protocol", str(protocol), "--vehicles", "storm", "--out", str(tmp_path)]
    )
    assert refused.exit_code == 2
    assert "--vehicles are the protocol file's choices" in refused.output
    result = runner.invoke(
        app, ["bench", "--protocol", str(protocol), "--out", str(out), "--workers", "1"]
    )
    assert result.exit_code == 0, result.output
    assert "Table I v2 (2 paths, feasible pairs)" in result.output
    written = json.loads((out / "summary.json").read_text())
    for entry in written["replays"]:  # figures on: each replay's page, the stored trial again
        assert entry["matches"] and (out / entry["href"]).is_file()
    assert "ours" in result.output and "baseline on the fronts" in " ".join(result.output.split())


def test_the_command_line_names_the_shipped_versions_and_refuses_another(tmp_path):
    result = CliRunner().invoke(app, ["bench", "--protocol", "v9", "--out", str(tmp_path)])
    assert result.exit_code == 2
    text = " ".join(result.output.split())
    assert "table1_v2, table1_v3" in text and "'v9'" in text
    assert not any(tmp_path.iterdir())  # nothing ran


def test_batched_rows_equal_the_trials_run_one_by_one(tiny_run):
    """``trial_rows`` (the compiled batch) against ``trial_row`` (``simulate_trial`` and
    ``trial_stalls``), every column exactly, for the default episode distance and another."""
    from steerlab.experiments.benchmark.table1_v2 import ROW_TYPES, trial_row, trial_rows
    from steerlab.trials.trial import TrialSpec

    protocol, _, _ = tiny_run
    suite = load_protocol(protocol).suites[0]
    payloads = [
        (TrialSpec(suite, "bend", "zaha", "ours", 0), 5.0),
        (TrialSpec(suite, "wall", "storm", "baseline", 0), 5.0),
        (TrialSpec(suite, "wall", "storm", "ours_p", 0), 2.5),
    ]
    batched = trial_rows(payloads)
    for payload, row in zip(payloads, batched, strict=True):
        alone = trial_row(payload)
        assert set(row) == set(alone) == set(ROW_TYPES)
        for column, value in alone.items():
            assert row[column] == value or (value != value and row[column] != row[column]), column


def test_a_run_interrupted_part_way_resumes_with_every_trial_once(tiny_run, tmp_path, monkeypatch):
    """An interrupt in the middle of the trials (after some chunks are written) and a rerun:
    the same files as the uninterrupted run, each trial computed once."""
    from steerlab.experiments.benchmark import table1_v2

    protocol, out, _ = tiny_run
    original = table1_v2.trial_rows
    seen = []

    def interrupted(payloads):
        if len(seen) >= 16:  # two chunks of 8 written, then the run is interrupted
            raise KeyboardInterrupt
        seen.extend(payloads)
        return original(payloads)

    monkeypatch.setattr(table1_v2, "CHUNK", 8)
    monkeypatch.setattr(table1_v2, "trial_rows", interrupted)
    run = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        run_table1_v2(run, protocol=protocol, workers=1, progress=False, figures=False)
    written = (run / "results.csv").read_text().count("\n") - 1
    assert written == 8
    monkeypatch.setattr(table1_v2, "trial_rows", lambda p: seen.extend(p) or original(p))
    run_table1_v2(run, protocol=protocol, workers=1, progress=False, figures=False)
    evaluated = load_protocol(protocol).suites[0]  # the calibration runs the tuning suite's
    keys = [
        (spec.path, spec.vehicle_name, spec.follower_name)
        for spec, _ in seen
        if spec.suite == evaluated
    ]
    assert len(keys) == len(set(keys)) == 48  # every trial exactly once, none repeated
    for name in ("results.csv", "summary.json"):
        assert (run / name).read_bytes() == (out / name).read_bytes()


def test_the_soak_weighs_each_class_rate_by_its_declared_share():
    """Per class, a ratio of sums; the mix, the shares' weighted mean of the class rates (not
    the pooled rate: a class that drives more must not weigh more than its share)."""
    from steerlab.experiments.benchmark.table1_v2 import _soak

    protocol = load_protocol().model_copy(
        update={
            "soak": load_protocol().soak.model_copy(
                update={
                    "classes": {"easy": ("storm",), "hard": ("zaha",)},
                    "mix": {"easy": 3.0, "hard": 1.0},
                }
            )
        }
    )
    rows = {
        "ours": [
            row("a", "storm", 1, 2.0, 10.0),
            row("b", "storm", 1, 2.0, 10.0),
            row("a", "zaha", 3, 1.0, 2.0),
            row("c", "zaha", 9, 1.0, 2.0),  # infeasible: left out
        ]
    }
    feasible = {("s", "a", "storm"): True, ("s", "b", "storm"): True}
    feasible |= {("s", "a", "zaha"): True, ("s", "c", "zaha"): False}
    entry = _soak(protocol, rows, feasible, ["ours"])["classes"]["ours"]
    assert entry["per_class"]["easy"]["episodes_per_minute"] == pytest.approx(2 / 20)
    assert entry["per_class"]["easy"]["episodes_per_km"] == pytest.approx(2 / 4)
    assert entry["per_class"]["hard"]["episodes_per_minute"] == pytest.approx(3 / 2)
    mixed = (3.0 * 0.1 + 1.0 * 1.5) / 4.0
    assert entry["episodes_per_minute"] == pytest.approx(mixed)
    assert entry["seconds_between_stalls"] == pytest.approx(60.0 / mixed)


# --------------------------------------------------------------------------------------------------
# where the stalls are: per path, and the replays


def test_stalls_by_path_ranks_the_stalled_paths_and_drops_the_rest():
    per_path = {
        "baseline": {("a", "p"): [2, 1.0, 10.0, 1], ("a", "q"): [0, 1.0, 9.0, 1]},
        "ours": {
            ("a", "p"): [1, 1.0, 9.0, 1],
            ("a", "q"): [0, 1.0, 9.0, 1],
            ("b", "r"): [3, 1, 1, 1],
        },
        "stanley": {("b", "s"): [3, 1.0, 1.0, 1]},
    }
    # p: 3 episodes in all, r: 3, s: 3 (ties keep the order paths first appear in), q: none
    assert stalls_by_path(per_path) == {
        "a/p": {"baseline": 2, "ours": 1},
        "b/r": {"ours": 3},
        "b/s": {"stanley": 3},
    }


def _row(path, vehicle, follower, episodes, suite="s", error=""):
    return {
        "suite": suite,
        "path": path,
        "vehicle": vehicle,
        "follower": follower,
        "seed": 0,
        "episodes": episodes,
        "error": error,
    }


def test_the_replays_are_each_headline_followers_most_stalled_trials(monkeypatch):
    import steerlab.experiments.benchmark.table1_v2 as v2

    monkeypatch.setattr(v2, "REPLAY_TRIALS", 2)
    rows = [
        _row("p", "storm", "ours", 1),
        _row("p", "zaha", "ours", 4),
        _row("p", "storm", "baseline", 0),
        _row("q", "storm", "ours", 0),
        _row("q", "zaha", "baseline", 2),
        _row("q", "storm", "baseline", 2),
        _row("r", "zaha", "baseline", 9),  # infeasible: not counted
        _row("t", "zaha", "baseline", 9, error="boom"),  # failed: not counted
        _row("u", "zaha", "stanley", 9),  # not in the pair
        _row("w", "storm", "ours", 1),  # ties with p/storm, which comes first
    ]
    feasible = {
        ("s", path, vehicle): path != "r" for path in "pqrtuw" for vehicle in ("storm", "zaha")
    }
    chosen = replay_choices(rows, feasible, ("ours", "baseline"))
    # ours: p/zaha (4), p/storm (1, before w/storm); baseline: q/zaha and q/storm (2 each)
    assert chosen == [rows[1], rows[0], rows[4], rows[5]]


def test_a_replay_page_is_the_stored_trial_again(tiny_run, tmp_path):
    from steerlab.experiments.benchmark.table1_v2 import _Plan, _specs, _write_replays
    from steerlab.trials.trial import simulate_trial

    protocol, _, summary = tiny_run
    plan = _Plan(load_protocol(protocol), False, None)
    values = {name: entry["value"] for name, entry in summary["calibration"].items()}
    source = plan.protocol.suites[0]
    stored = []
    for follower in ("ours", "baseline"):
        row = _row("bend", "zaha", follower, 0, suite="tiny_eval")
        # the stored row's stuck events and time: the trial run alone (Python's frame loop)
        point = next(p for p in plan.followers if p.name == follower)
        spec = next(
            s for s in _specs(plan, point, {source: ["bend"]}, values) if s.vehicle_name == "zaha"
        )
        alone, _ = simulate_trial(spec)
        stored.append({**row, "stuck_events": alone["stuck_events"], "time": alone["time"]})
    entries = _write_replays(plan, tmp_path, stored, values)
    assert [entry["follower"] for entry in entries] == ["ours", "baseline"]
    for entry in entries:
        assert entry["matches"]
        page = (tmp_path / entry["href"]).read_text(encoding="utf-8")
        assert f"tiny_eval: bend, zaha, {entry['follower']}, seed 0" in page
    assert _write_replays(plan, tmp_path, [], values) == []


def test_one_at_a_time_points_run_their_one_constant_and_join_the_front(tiny_run):
    """The tiny protocol's one-at-a-time sweep of ``ours``: its rows are the trials run alone
    with FollowerParams written here (the turning-radius lookahead, the one constant changed),
    its points sit on ours' front beside the grid's, and the report sets each against the
    rules' point."""
    import csv

    from steerlab.experiments.benchmark.table1_v2 import trial_row
    from steerlab.follower.params import FollowerParams
    from steerlab.trials.followers import NamedFollower
    from steerlab.trials.trial import TrialSpec
    from steerlab.vehicles import PRESETS

    protocol, out, summary = tiny_run
    points = {point["name"]: point for point in summary["pareto"]["ours"]}
    assert [name for name in points] == ["ours", "ours-s00", "ours-s01", "ours-o00", "ours-o01"]
    assert points["ours-o00"]["constants"] == {"stop_decel": 0.5}
    assert points["ours-o01"]["constants"] == {"kp_speed": 2.0}
    assert [points[name]["design"] for name in points] == ["rules"] + ["grid"] * 2 + [
        "one_at_a_time"
    ] * 2
    with (out / "results.csv").open(newline="") as handle:
        rows = [row for row in csv.DictReader(handle) if row["follower"] == "ours-o01"]
    assert len(rows) == 4
    suite = load_protocol(protocol).suites[0]
    for row in rows:
        vehicle = PRESETS[row["vehicle"]]
        radius = vehicle.wheelbase / math.tan(vehicle.max_steer)
        params = FollowerParams(lookahead=max(6.0, radius), kp_speed=2.0)
        spec = TrialSpec(
            suite, row["path"], row["vehicle"], NamedFollower("ours-o01", "ours", params), 0
        )
        alone = trial_row((spec, 5.0))
        assert float(row["time"]) == alone["time"] and int(row["frames"]) == alone["frames"]
        assert int(row["episodes"]) == alone["episodes"]
    # the front is taken over every point of the follower, the one-at-a-time ones included
    usable = [p for p in points.values() if p["time_mean"] is not None]
    for point in usable:
        beaten = any(
            other["time_mean"] <= point["time_mean"]
            and other["stalls_per_km"] <= point["stalls_per_km"]
            and (other["time_mean"], other["stalls_per_km"])
            != (point["time_mean"], point["stalls_per_km"])
            for other in usable
        )
        assert point["on_front"] == (not beaten), point["name"]
    report = (out / "table1_v2.md").read_text(encoding="utf-8")
    assert "## One at a time: each constant against the rules' point" in report
    rules = points["ours"]
    expected = points["ours-o01"]["time_mean"] - rules["time_mean"]
    assert f"| kp_speed | 2 | {expected:+.1f} |" in " ".join(report.split()).replace("  ", " ")
