"""Benchmark trials (issue 7): spawn, drive, end, row; the follower registry and tuned presets."""

import json
import math
import pickle
import subprocess
import sys

import numpy as np
import pytest

from steerlab.follower import BaselineFollower, FollowerParams, PathFollower
from steerlab.trials.followers import (
    FOLLOWERS,
    TUNED_FORMAT,
    follower_class,
    follower_params,
    make_follower,
    read_tuned,
    tuned_digest,
    tuned_file,
    write_tuned,
)
from steerlab.trials.suite import load_suite
from steerlab.trials.trial import (
    ROW_COLUMNS,
    TrialSpec,
    run_trial,
    simulate_trial,
    spawn_state,
    trials,
)
from steerlab.vehicles import PRESETS, Vehicle

SUITE = """
name = "unit"
version = 1
time_limit = 40.0
[spawn_jitter]
lateral = 0.5
yaw_deg = 5.0

# a straight walled road
[[paths]]
name = "straight"
waypoints = [[0, 0], [120, 0]]
corridor_width = 8.0
walled = true

# the same road blocked by a wall across it at x = 40
[[paths]]
name = "blocked"
waypoints = [[0, 0], [120, 0]]
corridor_width = 8.0
time_limit = 20.0
wall_segments = [[[40, -20], [40, 20]]]
"""


def available(name):
    try:
        follower_class(name)
    except ValueError:
        return False
    return True


PEERS = [
    pytest.param(
        name, marks=pytest.mark.skipif(not available(name), reason=f"{name} not built yet")
    )
    for name in ("stanley", "regulated_pure_pursuit")
]


@pytest.fixture(scope="module")
def suite_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("suite") / "unit.toml"
    path.write_text(SUITE, encoding="utf-8")
    return str(path)


# --------------------------------------------------------------------------------------------------
# trials


@pytest.mark.parametrize("follower", ["ours", "baseline", *PEERS])
def test_a_trial_on_a_straight_path_completes_with_no_stuck_event(suite_file, follower):
    spec = TrialSpec(suite_file, "straight", "storm", follower, 0)
    row, records = simulate_trial(spec)
    assert tuple(row) == ROW_COLUMNS
    assert tuple(row.values())[: len(spec.key)] == spec.key  # the runner's key columns
    assert row["completed"] and row["ended"] == "arrived" and row["failed"] == ""
    assert row["stuck_events"] == 0 and not row["stuck"]
    assert row["inside_corridor"] == 100.0
    # physics: never faster than the follower's v_max (the paper's 10 m/s) on average, and the
    # arrival is within ARRIVAL_RADIUS (2 m) of the end, 120 m away
    assert row["speed_mean"] <= FollowerParams().v_max
    assert row["distance"] >= 118.0 - 0.5
    assert row["time"] >= row["distance"] / FollowerParams().v_max
    assert row["time"] == pytest.approx(records.t[-1])
    assert math.hypot(records.x[-1] - 120.0, records.y[-1]) <= 2.0


def test_a_trial_into_a_wall_across_the_path_records_stuck_events(suite_file):
    row, records = simulate_trial(TrialSpec(suite_file, "blocked", "storm", "ours", 0))
    assert not row["completed"] and row["ended"] == "time_limit"
    assert row["time"] == 20.0 and row["frames"] == round(20.0 / 0.02)
    # the wall holds: the box's foremost corner never passes x = 40
    storm = PRESETS["storm"]
    front = (
        records.x
        + storm.half_length * np.abs(np.cos(records.yaw))
        + storm.half_width * np.abs(np.sin(records.yaw))
    )
    assert (front <= 40.0 + 1e-6).all()
    blocked = int(np.argmax(front > 40.0 - 0.05))
    blocked_time = 20.0 - records.t[blocked]
    assert blocked_time > 10.0
    # the observer: an event for every 3 s window without 1 m of progress while blocked
    assert row["stuck_events"] >= math.floor(blocked_time / 3.0) - 1
    assert row["stuck"]
    assert records.follower_stuck.any()  # the follower's own manager fired too
    events = np.flatnonzero(records.metrics.stuck_event)
    assert (records.t[events] > records.t[blocked]).all()


def test_the_same_spec_gives_the_same_row_and_records_bit_for_bit(suite_file):
    spec = TrialSpec(suite_file, "straight", "zaha", "ours", 4)
    row_a, records_a = simulate_trial(spec)
    row_b, records_b = simulate_trial(spec)
    assert row_a == row_b
    for a, b in zip(records_a[:-1], records_b[:-1], strict=True):
        np.testing.assert_array_equal(a, b)


def test_a_trial_gives_the_same_row_in_another_process(suite_file):
    spec = TrialSpec(suite_file, "straight", "bolte", "baseline", 2)
    here = json.loads(json.dumps(run_trial(spec)))  # first: the subprocess reuses numba's cache
    code = (
        "import json, sys; from steerlab.trials.trial import TrialSpec, run_trial; "
        f"print(json.dumps(run_trial(TrialSpec(*{tuple(spec)!r}))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=600
    )
    assert json.loads(out.stdout) == here


def test_every_follower_gets_the_same_spawn_and_seeds_jitter_it(suite_file):
    suite = load_suite(suite_file)
    starts = {}
    for follower in ("ours", "baseline"):
        _, records = simulate_trial(TrialSpec(suite_file, "straight", "armata", follower, 1))
        starts[follower] = (records.x[0], records.y[0], records.yaw[0])
    assert starts["ours"] == starts["baseline"]
    spawns = [spawn_state(suite, "straight", "armata", seed) for seed in range(40)]
    lateral = np.array([state.y for state in spawns])  # the first segment runs along +x
    yaw = np.array([state.yaw for state in spawns])
    assert all(state.x == 0.0 and state.v == 0.0 for state in spawns)
    assert np.abs(lateral).max() <= suite.spawn_lateral
    assert np.abs(yaw).max() <= suite.spawn_yaw
    assert np.unique(lateral).size == 40  # every seed its own spawn
    assert np.abs(lateral).max() > 0.5 * suite.spawn_lateral  # spread over the range
    other = spawn_state(suite, "straight", "storm", 1)
    assert other != spawns[1]  # the vehicle is part of the seed


def test_a_non_finite_state_ends_the_trial_as_failed_without_raising(suite_file, monkeypatch):
    original = Vehicle.step
    calls = {"n": 0}

    def exploding(self, state, command, dt, world=None):
        calls["n"] += 1
        new = original(self, state, command, dt, world=world)
        return new._replace(v=math.nan) if calls["n"] == 50 else new

    monkeypatch.setattr(Vehicle, "step", exploding)
    row, records = simulate_trial(TrialSpec(suite_file, "straight", "storm", "ours", 0))
    assert row["ended"] == "failed"
    assert "non-finite vehicle state" in row["failed"] and "v = nan" in row["failed"]
    assert not row["completed"] and row["time"] == 40.0
    assert records.t.size == 50  # the spawn and the 49 good frames
    assert np.isfinite(records.v).all()


def test_an_exception_in_a_step_is_a_failed_trial(suite_file, monkeypatch):
    def broken(self, state, command, dt, world=None):
        raise RuntimeError("engine fire")

    monkeypatch.setattr(Vehicle, "step", broken)
    row = run_trial(TrialSpec(suite_file, "straight", "storm", "ours", 0))
    assert row["ended"] == "failed"
    assert row["failed"].startswith("RuntimeError at t = 0 s: engine fire")
    assert row["frames"] == 0 and not row["completed"]


def test_a_follower_that_stops_short_does_not_complete(suite_file, tmp_path):
    write_tuned(tmp_path / "storm.toml", FollowerParams(arrival_radius=15.0), "storm")
    spec = TrialSpec(suite_file, "straight", "storm", "ours_tuned", 0, str(tmp_path))
    row, records = simulate_trial(spec)
    assert row["ended"] == "stopped_short" and not row["completed"]
    assert row["time"] == 40.0
    assert 2.0 < 120.0 - records.x[-1] <= 15.0 + 1e-9


def test_tuned_parameters_reach_the_follower(suite_file, tmp_path):
    write_tuned(tmp_path / "storm.toml", FollowerParams(v_max=5.0), "storm")
    tuned = run_trial(TrialSpec(suite_file, "straight", "storm", "ours_tuned", 0, str(tmp_path)))
    ours = run_trial(TrialSpec(suite_file, "straight", "storm", "ours", 0))
    assert tuned["completed"]
    assert tuned["speed_mean"] <= 5.0 < ours["speed_mean"]


def test_bad_specs_are_refused_before_the_trial(suite_file):
    with pytest.raises(ValueError, match=r"unknown vehicle 'tank'; presets: storm, bolte"):
        run_trial(TrialSpec(suite_file, "straight", "tank", "ours", 0))
    with pytest.raises(ValueError, match=r"unknown follower 'mine'; followers: \['baseline'"):
        run_trial(TrialSpec(suite_file, "straight", "storm", "mine", 0))
    with pytest.raises(ValueError, match=r"no path named 'curvy'.*\['straight', 'blocked'\]"):
        run_trial(TrialSpec(suite_file, "curvy", "storm", "ours", 0))
    with pytest.raises(ValueError, match="seed must be an integer"):
        run_trial(TrialSpec(suite_file, "straight", "storm", "ours", 1.5))
    with pytest.raises(ValueError, match="spec must be a TrialSpec"):
        run_trial(("table1", "straight", "storm", "ours", 0))


def test_trial_specs_pickle_and_list_in_a_fixed_order():
    specs = trials("table1")
    suite = load_suite("table1")
    assert len(specs) == 10 * 6 * 5 * 3
    assert len(set(spec.key for spec in specs)) == len(specs)
    assert specs == trials("table1")
    assert specs[0] == TrialSpec("table1", suite.path_names[0], "storm", "baseline", 0)
    assert [spec.seed for spec in specs[:4]] == [0, 1, 2, 0]
    assert specs[-1].path == suite.path_names[-1] and specs[-1].vehicle == "hovercraft"
    assert pickle.loads(pickle.dumps(specs[7])) == specs[7]
    some = trials("table1", vehicles=["zaha"], followers=["ours"], seeds=[5, 9])
    assert [(s.path, s.seed) for s in some[:2]] == [
        (suite.path_names[0], 5),
        (suite.path_names[0], 9),
    ]
    assert len(trials(suite, vehicles=["storm"], followers=["ours"], seeds=2)) == 20


def test_trial_lists_refuse_unknown_names_and_empty_selections():
    with pytest.raises(ValueError, match="unknown vehicle 'tank'"):
        trials("table1", vehicles=["tank"])
    with pytest.raises(ValueError, match="unknown follower 'mine'"):
        trials("table1", followers=["mine"])
    with pytest.raises(ValueError, match="empty selection"):
        trials("table1", vehicles=[])
    with pytest.raises(ValueError, match="seeds must be >= 1"):
        trials("table1", seeds=0)


# --------------------------------------------------------------------------------------------------
# followers and tuned presets


def test_the_registry_builds_each_follower():
    assert FOLLOWERS == ("baseline", "ours", "ours_tuned", "stanley", "regulated_pure_pursuit")
    storm = PRESETS["storm"]
    assert type(make_follower("ours", storm)) is PathFollower
    assert type(make_follower("baseline", storm)) is BaselineFollower
    assert make_follower("ours", storm).params == FollowerParams()  # Section III values
    with pytest.raises(ValueError, match=r"unknown follower 'mine'; followers: \['baseline'"):
        make_follower("mine", storm)


@pytest.mark.parametrize("name", PEERS)
def test_the_peers_are_path_followers(name):
    follower = make_follower(name, PRESETS["bolte"])
    assert isinstance(follower, PathFollower)
    assert follower.params == FollowerParams()


def test_ours_tuned_without_a_preset_names_the_file_and_the_command(tmp_path):
    with pytest.raises(ValueError) as caught:
        follower_params("ours_tuned", "zaha", tmp_path)
    message = str(caught.value)
    assert str(tmp_path / "zaha.toml") in message and "steerlab tune --vehicle zaha" in message
    assert tuned_file("zaha").parent.name == "tuned"  # the shipped folder by default


def test_tuned_presets_round_trip_bit_for_bit(tmp_path):
    params = FollowerParams(a_lat=0.1 + 0.2, lookahead=7.123456789012345, ti_speed=math.inf, n=7)
    path = write_tuned(tmp_path / "bolte.toml", params, "bolte", {"suite": "train", "trials": 50})
    read, vehicle, meta = read_tuned(path)
    assert read == params and vehicle == "bolte"
    assert meta == {"suite": "train", "trials": 50}
    assert [type(v) for v in read] == [type(v) for v in FollowerParams()]
    assert follower_params("ours_tuned", "bolte", tmp_path) == params


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ('vehicle = "storm"\n[params]\nalat = 0.5\n', r"params\.alat: not a FollowerParams field"),
        ('vehicle = "storm"\n[params]\na_lat = -0.5\n', r"params: .*a_lat must be > 0"),
        ('vehicle = "storm"\ncolour = 1\n', r"colour: unknown key"),
        ("[params]\na_lat = 0.5\n", r"vehicle: must be a vehicle name"),
        ('vehicle = "storm"\n[params\n', r"not a TOML file"),
    ],
)
def test_bad_tuned_presets_name_the_file_and_the_field(tmp_path, body, expected):
    path = tmp_path / "storm.toml"
    path.write_text(f'format = "{TUNED_FORMAT}"\n' + body, encoding="utf-8")
    with pytest.raises(ValueError, match=expected) as caught:
        read_tuned(path)
    assert str(caught.value).startswith(str(path))


def test_a_preset_for_another_vehicle_or_format_is_refused(tmp_path):
    write_tuned(tmp_path / "storm.toml", FollowerParams(), "bolte")
    with pytest.raises(ValueError, match="the file is for 'bolte', not 'storm'"):
        follower_params("ours_tuned", "storm", tmp_path)
    path = tmp_path / "zaha.toml"
    path.write_text('format = "other/2"\nvehicle = "zaha"\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"format: must be 'steerlab\.tuned/1'"):
        read_tuned(path)


def test_the_tuned_digest_changes_with_the_presets(tmp_path):
    empty = tuned_digest(["storm", "zaha"], tmp_path)
    write_tuned(tmp_path / "storm.toml", FollowerParams(a_lat=0.5), "storm")
    first = tuned_digest(["storm", "zaha"], tmp_path)
    write_tuned(tmp_path / "storm.toml", FollowerParams(a_lat=0.6), "storm")
    second = tuned_digest(["storm", "zaha"], tmp_path)
    assert len({empty, first, second}) == 3
    assert tuned_digest(["storm", "zaha"], tmp_path) == second
