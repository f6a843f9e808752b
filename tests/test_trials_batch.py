"""Trials as one batch (``steerlab.trials.batch``): every row equals ``run_trial``'s bit for bit.

The independent route is the Python loop of ``steerlab.trials.trial`` (``run_trial``,
``simulate_trial``): each frame's follower and vehicle steps called from Python, the records
built frame by frame, the metrics from them.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from steerlab.follower import FollowerParams
from steerlab.trials import batch as batch_module
from steerlab.trials.batch import BATCH_COLUMNS, STALL_COLUMNS, run_batch, simulate_batch
from steerlab.trials.followers import NamedFollower, write_tuned
from steerlab.trials.stalls import StallCounts, trial_stalls
from steerlab.trials.trial import ROW_COLUMNS, TrialRecords, TrialSpec, run_trial, simulate_trial
from steerlab.vehicles import PRESETS
from steerlab.vehicles.files import NamedVehicle

SUITE = """
name = "unit_batch"
version = 1
time_limit = 30.0
[spawn_jitter]
lateral = 0.5
yaw_deg = 5.0

[[paths]]
name = "straight"
waypoints = [[0, 0], [60, 0]]
corridor_width = 8.0
walled = true

# blocked by a wall across it at x = 30: stuck events, recoveries, teleports
[[paths]]
name = "blocked"
waypoints = [[0, 0], [80, 0]]
corridor_width = 8.0
time_limit = 16.0
wall_segments = [[[30, -20], [30, 20]]]
"""

SHORT_LOOKAHEAD = NamedFollower("short_lookahead", "ours", FollowerParams(lookahead=3.0, a_lat=0.3))
STEEP_BASELINE = NamedFollower("steep_baseline", "baseline", FollowerParams(baseline_k=4.0))
TELEPORTER = NamedFollower("teleporter", "ours", FollowerParams(teleport_after=1))
HEAVY_STORM = NamedVehicle("heavy_storm", PRESETS["storm"]._replace(mass=3000.0))
# stiffer tyres than any float can carry: the lateral solve overflows on the first frame
OVERFLOWING = NamedVehicle(
    "overflowing", PRESETS["storm"]._replace(cornering_front=1e308, cornering_rear=1e308)
)


@pytest.fixture(scope="module")
def suite_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("suite") / "unit_batch.toml"
    path.write_text(SUITE, encoding="utf-8")
    return str(path)


@pytest.fixture(scope="module")
def tuned_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tuned")
    # a follower that latches its arrival 15 m out: the trial ends "stopped_short"
    write_tuned(folder / "storm.toml", FollowerParams(arrival_radius=15.0), "storm")
    return str(folder)


@pytest.fixture(scope="module")
def unit_specs(suite_file, tuned_dir):
    """Short trials: every ending, the stuck manager's recovery and teleport, sweeps."""
    return [
        TrialSpec(suite_file, "straight", "zaha", "ours_p", 0),
        TrialSpec(suite_file, "straight", HEAVY_STORM, SHORT_LOOKAHEAD, 1),
        TrialSpec(suite_file, "straight", "storm", STEEP_BASELINE, 0),
        TrialSpec(suite_file, "straight", "hovercraft", "ours", 1),
        TrialSpec(suite_file, "straight", "storm", "ours_tuned", 0, tuned_dir),
        TrialSpec(suite_file, "straight", OVERFLOWING, "ours", 0),
        TrialSpec(suite_file, "blocked", "storm", "ours", 0),
        TrialSpec(suite_file, "blocked", "armata", TELEPORTER, 0),
        TrialSpec(suite_file, "blocked", "bolte", "stanley", 1),
    ]


@pytest.fixture(scope="module")
def mixed_specs(unit_specs):
    """Two suites in one batch: table1's walled climb and its hills with every preset and every
    follower, and the short trials."""
    return [
        TrialSpec("table1", "walled_s_climb", "storm", "ours", 0),
        TrialSpec("table1", "walled_s_climb", "armata", "stanley", 1),
        TrialSpec("table1", "walled_s_climb", "hovercraft", "regulated_pure_pursuit", 0),
        TrialSpec("table1", "hill_climb", "bolte", "baseline", 1),
        TrialSpec("table1", "hill_climb", "panhard_crab", "ours_tuned", 0),
        TrialSpec("table1", "hill_climb", "zaha", "baseline_pi", 0),
        *unit_specs,
    ]


@pytest.fixture(scope="module")
def simulated(mixed_specs):
    """``simulate_trial`` of every mixed spec: the Python loop's rows and records."""
    return [simulate_trial(spec) for spec in mixed_specs]


@pytest.fixture(scope="module")
def mixed_rows(mixed_specs):
    return run_batch(mixed_specs)


def same(a, b) -> bool:
    """Equal values of the same type, NaN equal to NaN (bit for bit for floats)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    return a == b


def assert_same_row(row, expected, columns):
    different = [
        (name, row[name], expected[name]) for name in columns if not same(row[name], expected[name])
    ]
    assert not different, f"{row['path']} {row['vehicle']} {row['follower']}: {different}"


def test_the_columns_are_run_trials_then_the_stall_counts():
    assert BATCH_COLUMNS[: len(ROW_COLUMNS)] == ROW_COLUMNS
    assert len(set(BATCH_COLUMNS)) == len(BATCH_COLUMNS)
    assert len(STALL_COLUMNS) == len(StallCounts._fields)
    for column, field in zip(STALL_COLUMNS, StallCounts._fields, strict=True):
        assert column == (f"stall_{field}" if field in ROW_COLUMNS else field)


def test_a_mixed_batch_equals_run_trial_row_for_row(mixed_specs, mixed_rows, simulated):
    assert len(mixed_rows) == len(mixed_specs)
    endings = set()
    for row, (expected, records) in zip(mixed_rows, simulated, strict=True):
        assert tuple(row) == BATCH_COLUMNS
        assert_same_row(row, expected, ROW_COLUMNS)
        stalls = trial_stalls(records, expected["ended"])
        assert_same_row(row, dict(zip(STALL_COLUMNS, stalls, strict=True)), STALL_COLUMNS)
        endings.add(row["ended"])
    # the batch covers every way a trial ends, and stuck events
    assert endings == {"arrived", "time_limit", "stopped_short", "failed"}
    assert any(row["stuck_events"] > 0 for row in mixed_rows)


def test_the_failed_trial_reports_the_python_loops_reason(mixed_specs, mixed_rows, simulated):
    index = next(i for i, spec in enumerate(mixed_specs) if spec.vehicle is OVERFLOWING)
    row, (expected, records) = mixed_rows[index], simulated[index]
    assert row["ended"] == expected["ended"] == "failed"
    assert row["failed"] == expected["failed"]
    assert row["failed"].startswith("non-finite vehicle state at t = 0.02 s: ")
    assert row["frames"] == records.t.size - 1


def test_each_row_equals_its_spec_run_alone(mixed_specs, mixed_rows):
    for spec, row in zip(mixed_specs, mixed_rows, strict=True):
        (alone,) = run_batch([spec], threads=1)
        assert_same_row(alone, row, BATCH_COLUMNS)


@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_the_order_and_the_company_of_a_spec_change_no_row(data, unit_specs, request):
    expected = {spec: row for spec, row in zip(unit_specs, run_batch(unit_specs), strict=True)}
    chosen = data.draw(
        st.lists(st.sampled_from(range(len(unit_specs))), min_size=1, unique=True), "chosen"
    )
    specs = [unit_specs[index] for index in chosen]
    for spec, row in zip(specs, run_batch(specs), strict=True):
        assert_same_row(row, expected[spec], BATCH_COLUMNS)


def test_the_batch_records_equal_the_python_loops_frame_by_frame(unit_specs):
    specs = unit_specs[5:]  # the failed trial, recoveries and teleports
    for spec, (row, records) in zip(specs, simulate_batch(specs), strict=True):
        expected_row, expected = simulate_trial(spec)
        assert_same_row(row, expected_row, ROW_COLUMNS)
        for name in TrialRecords._fields[:-1]:
            np.testing.assert_array_equal(getattr(records, name), getattr(expected, name), name)
            assert getattr(records, name).dtype == getattr(expected, name).dtype, name
        for name, values in zip(records.metrics._fields, records.metrics, strict=True):
            np.testing.assert_array_equal(values, getattr(expected.metrics, name), name)


def test_rows_do_not_depend_on_the_thread_count(unit_specs):
    one, two = run_batch(unit_specs, threads=1), run_batch(unit_specs, threads=2)
    for row, other in zip(one, two, strict=True):
        assert_same_row(row, other, BATCH_COLUMNS)


def test_the_ground_speeds_evaluated_in_python_give_the_same_rows(
    mixed_specs, mixed_rows, monkeypatch
):
    """Where ``python_hypot`` is not the interpreter's ``math.hypot``, the batch records the body
    speeds and calls ``math.hypot`` itself: the rows are ``run_trial``'s all the same."""
    monkeypatch.setattr(batch_module, "PYTHON_HYPOT_EXACT", False)
    for row, expected in zip(run_batch(mixed_specs), mixed_rows, strict=True):
        assert_same_row(row, expected, BATCH_COLUMNS)


def test_an_empty_batch_has_no_rows():
    assert run_batch([]) == []


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"path": "nowhere"}, "specs[1]: suite 'unit_batch' has no path named 'nowhere'"),
        ({"vehicle": "tractor"}, "specs[1]: "),
        ({"follower": "pure_magic"}, "specs[1]: unknown follower 'pure_magic'"),
        ({"seed": 1.5}, "specs[1]: seed must be an integer, got 1.5"),
        ({"suite": "no_such_suite"}, "specs[1]: "),
    ],
)
def test_bad_specs_are_refused_naming_their_index(suite_file, change, expected):
    good = TrialSpec(suite_file, "straight", "storm", "ours", 0)
    with pytest.raises(
        ValueError, match=r"^" + expected.replace("[", r"\[").replace("]", r"\]")
    ) as error:
        run_batch([good, good._replace(**change)])
    # the same refusal as run_trial's, after the index
    with pytest.raises(ValueError) as alone:
        run_trial(good._replace(**change))
    assert str(error.value) == f"specs[1]: {alone.value}"


@pytest.mark.parametrize(
    ("specs", "threads", "expected"),
    [
        ("table1", None, "specs must be a sequence of TrialSpec"),
        (
            [("table1", "hill_climb", "storm", "ours", 0)],
            None,
            r"specs\[0\]: spec must be a TrialSpec",
        ),
        ([], 0, r"threads must be in \[1, "),
        ([], 1.0, "threads must be an integer"),
    ],
)
def test_bad_arguments_are_refused(specs, threads, expected):
    with pytest.raises(ValueError, match=expected):
        run_batch(specs, threads=threads)
