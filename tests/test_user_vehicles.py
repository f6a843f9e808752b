"""The user's own vehicles and followers, wherever a preset or a follower name is taken: vehicle
files (TOML: ``name`` plus ``VehicleParams`` fields), follower files (``name``, ``follower``,
``FollowerParams`` fields), records. The files are written here from the format's description
(field by field), never by the library."""

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from steerlab.experiments.benchmark.table1 import (
    custom_subjects,
    select_trials,
    subjects_of_summary,
)
from steerlab.experiments.benchmark.tune import search_space
from steerlab.follower import FollowerParams
from steerlab.trials.followers import NamedFollower, make_follower, resolve_follower
from steerlab.trials.trial import TrialSpec, run_trial, trials
from steerlab.vehicles import (
    KINDS,
    PRESETS,
    NamedVehicle,
    Vehicle,
    VehicleParams,
    read_vehicle,
    resolve_vehicle,
)

SUITE = """
name = "user"
version = 1
dt = 0.02
seeds = 2
time_limit = 40.0
[spawn_jitter]
lateral = 0.5
yaw_deg = 5.0

[[paths]]
name = "bend"
waypoints = [[0, 0], [40, 0], [60, 20]]
corridor_width = 8.0
"""


@pytest.fixture(scope="module")
def suite_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("suite") / "user.toml"
    path.write_text(SUITE, encoding="utf-8")
    return str(path)


def toml_number(value) -> str:
    """A float as TOML reads it back exactly (TOML floats are IEEE doubles; ``inf``)."""
    value = float(value)
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return repr(value)


def vehicle_file(folder, name, params: VehicleParams, filename=None):
    """Every field of ``params`` written out, ``kind`` by its name (the format's rule)."""
    lines = [f'name = "{name}"', f'kind = "{KINDS[params.kind]}"']
    lines += [
        f"{field} = {toml_number(value)}"
        for field, value in params._asdict().items()
        if field != "kind"
    ]
    path = folder / (filename or f"{name}.toml")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# --------------------------------------------------------------------------------------------------
# vehicle files


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_vehicle_file_reads_back_every_field_as_written(tmp_path, preset):
    path = vehicle_file(tmp_path, "copy", PRESETS[preset])
    named = read_vehicle(path)
    assert named.name == "copy"
    for field, value in PRESETS[preset]._asdict().items():
        assert getattr(named.params, field) == value, field


def test_fields_not_given_keep_the_defaults(tmp_path):
    path = tmp_path / "light.toml"
    path.write_text('name = "light"\nkind = "tracked"\nmass = 900.0\n', encoding="utf-8")
    params = read_vehicle(path).params
    assert params.mass == 900.0 and KINDS[params.kind] == "tracked"
    for field in VehicleParams._fields:
        if field not in ("mass", "kind"):
            assert getattr(params, field) == getattr(VehicleParams(), field), field


@pytest.mark.parametrize(
    "text, named",
    [
        ("mass = 900.0\n", "name"),
        ('name = "a b"\n', "name"),
        ('name = "x"\nmas = 900.0\n', "mas: unknown key"),
        ('name = "x"\nkind = "boat"\n', "kind must be one of"),
        ('name = "x"\nkind = 0\n', "kind must be one of"),
        ('name = "x"\nmass = -1.0\n', "mass must be > 0"),
        ('name = "x"\nmass = [1.0, 2.0]\n', "mass must be one number"),
        ('name = "x"\nmass = "heavy"\n', "mass must be"),
        ('name = "x"\nmass = nan\n', "mass must be"),
        ('name = "x"\nmax_steer = 2.0\n', "max_steer must be < pi/2"),
        ('name = "x"\nmass = \n', "not a TOML file"),
    ],
)
def test_a_bad_vehicle_file_names_the_file_and_the_key(tmp_path, text, named):
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError) as error:
        read_vehicle(path)
    assert str(path) in str(error.value) and named in str(error.value)


def test_a_missing_vehicle_file_is_not_found(tmp_path):
    with pytest.raises(ValueError, match="not found"):
        resolve_vehicle(str(tmp_path / "nope.toml"))
    with pytest.raises(ValueError, match="unknown vehicle 'stromm'; presets: storm"):
        resolve_vehicle("stromm")


@settings(max_examples=30, deadline=None)
@given(mass=st.floats(200.0, 60_000.0), other=st.floats(200.0, 60_000.0))
def test_a_bare_record_gets_a_name_that_depends_on_its_fields_only(mass, other):
    first = resolve_vehicle(VehicleParams(mass=mass))
    assert first.name.startswith("custom-") and len(first.name) == len("custom-") + 8
    assert resolve_vehicle(VehicleParams(mass=mass)).name == first.name
    assert (resolve_vehicle(VehicleParams(mass=other)).name == first.name) == (mass == other)


def test_per_agent_parameters_are_not_one_vehicle():
    with pytest.raises(ValueError, match="mass must be one number"):
        resolve_vehicle(VehicleParams(mass=[1000.0, 2000.0]))


# --------------------------------------------------------------------------------------------------
# a copied preset gives the preset's trials


@pytest.mark.parametrize("preset", ["storm", "armata"])
def test_a_preset_copied_to_a_vehicle_file_gives_identical_trial_rows(tmp_path, suite_file, preset):
    path = vehicle_file(tmp_path, preset, PRESETS[preset], filename="mine.toml")
    for seed in (0, 1):
        assert run_trial(TrialSpec(suite_file, "bend", str(path), "ours", seed)) == run_trial(
            TrialSpec(suite_file, "bend", preset, "ours", seed)
        )
    by_file = trials(suite_file, vehicles=[str(path)], followers=["ours"])
    by_name = trials(suite_file, vehicles=[preset], followers=["ours"])
    assert [spec.key for spec in by_file] == [spec.key for spec in by_name]


def test_a_renamed_copy_runs_under_its_own_name_and_seeds(tmp_path, suite_file):
    path = vehicle_file(tmp_path, "my_storm", PRESETS["storm"])
    row = run_trial(TrialSpec(suite_file, "bend", str(path), "ours", 0))
    assert row["vehicle"] == "my_storm" and row["completed"]
    record = run_trial(TrialSpec(suite_file, "bend", read_vehicle(path), "ours", 0))
    assert record == row
    custom = run_trial(TrialSpec(suite_file, "bend", PRESETS["storm"], "ours", 0))
    assert custom["vehicle"] == resolve_vehicle(PRESETS["storm"]).name


def test_a_vehicle_given_twice_under_one_name_is_refused(tmp_path, suite_file):
    path = vehicle_file(tmp_path, "storm", PRESETS["bolte"])
    with pytest.raises(ValueError, match="'storm' is given twice"):
        trials(suite_file, vehicles=["storm", str(path)])


def test_vehicle_accepts_a_vehicle_file(tmp_path):
    path = vehicle_file(tmp_path, "zaha_copy", PRESETS["zaha"])
    assert Vehicle(path).params == Vehicle("zaha").params
    with pytest.raises(ValueError, match=r"params: vehicle file .* not found"):
        Vehicle(str(tmp_path / "gone.toml"))


def test_the_tuner_searches_a_vehicle_file_like_its_kind(tmp_path):
    for preset in ("storm", "armata", "hovercraft"):
        path = vehicle_file(tmp_path, f"{preset}_copy", PRESETS[preset])
        assert search_space(str(path)) == search_space(preset)


def test_the_environment_drives_a_vehicle_file(tmp_path):
    pytest.importorskip("gymnasium")
    from steerlab.envs import PathFollowingEnv

    path = vehicle_file(tmp_path, "light", PRESETS["storm"]._replace(mass=900.0))
    env = PathFollowingEnv(vehicle=str(path))
    assert env.task.vehicle.params.mass == 900.0 and env.task.vehicle_name == "light"
    observation, _ = env.reset(seed=0)
    observation, *_ = env.step(np.zeros(2, dtype=np.float32))
    assert np.all(np.isfinite(observation))


# --------------------------------------------------------------------------------------------------
# follower files


def test_a_follower_file_of_the_defaults_gives_the_followers_rows(tmp_path, suite_file):
    path = tmp_path / "plain.toml"
    path.write_text('name = "ours"\nfollower = "ours"\n', encoding="utf-8")
    assert run_trial(TrialSpec(suite_file, "bend", "storm", str(path), 0)) == run_trial(
        TrialSpec(suite_file, "bend", "storm", "ours", 0)
    )


def test_a_follower_file_sets_the_fields_it_names(tmp_path, suite_file):
    path = tmp_path / "slow.toml"
    path.write_text('name = "slow"\nfollower = "baseline"\nv_max = 4.0\n', encoding="utf-8")
    named = resolve_follower(str(path))
    assert named == NamedFollower("slow", "baseline", named.params)
    assert named.params.v_max == 4.0
    for field in FollowerParams._fields:
        if field != "v_max":
            assert getattr(named.params, field) == getattr(FollowerParams(), field), field
    follower = make_follower(named, PRESETS["storm"])
    assert follower.params.v_max == 4.0
    row = run_trial(TrialSpec(suite_file, "bend", "storm", str(path), 0))
    assert row["follower"] == "slow" and row["speed_mean"] <= 4.0


@pytest.mark.parametrize(
    "text, named",
    [
        ('follower = "ours"\n', "name"),
        ('name = "x"\nfollower = "ours_tuned"\n', "follower must be one of"),
        ('name = "x"\nfollower = "pid"\n', "follower must be one of"),
        ('name = "x"\nlookahed = 3.0\n', "lookahed: unknown key"),
        ('name = "x"\nlookahead = -3.0\n', "lookahead"),
    ],
)
def test_a_bad_follower_file_names_the_file_and_the_key(tmp_path, text, named):
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError) as error:
        resolve_follower(path)
    assert str(path) in str(error.value) and named in str(error.value)


# --------------------------------------------------------------------------------------------------
# a Table I run with the user's own


def test_a_run_records_its_own_vehicles_and_followers_and_reads_them_back(tmp_path):
    vehicle = vehicle_file(tmp_path, "buggy", PRESETS["bolte"]._replace(max_speed=math.inf))
    follower = tmp_path / "far.toml"
    follower.write_text('name = "far"\nlookahead = 12.0\n', encoding="utf-8")
    _, specs = select_trials(
        "table1", vehicles=f"{vehicle},storm", followers=["ours", str(follower)], seeds=1
    )
    assert {spec.vehicle_name for spec in specs} == {"buggy", "storm"}
    assert {spec.follower_name for spec in specs} == {"ours", "far"}
    custom = custom_subjects(specs)
    summary = json.loads(
        json.dumps({"vehicles": ["buggy", "storm"], "followers": ["ours", "far"], "custom": custom})
    )
    vehicles, followers = subjects_of_summary(summary)
    assert vehicles["storm"] == "storm" and followers["ours"] == "ours"
    assert vehicles["buggy"] == NamedVehicle("buggy", read_vehicle(vehicle).params)
    assert followers["far"] == resolve_follower(follower)


def test_a_copied_preset_drives_the_same_lap_of_a_circuit(tmp_path):
    from steerlab.experiments.benchmark.racetracks import LapSpec, lap_trials, simulate_lap

    path = vehicle_file(tmp_path, "storm", PRESETS["storm"], filename="copy.toml")
    by_file = lap_trials("MoscowRaceway", vehicles=[str(path)], followers=["baseline"])
    by_name = lap_trials("MoscowRaceway", vehicles=["storm"], followers=["baseline"])
    assert [spec.key for spec in by_file] == [spec.key for spec in by_name]
    track = by_name[0].track
    assert (
        simulate_lap(LapSpec(track, str(path), "baseline"))[0]
        == simulate_lap(LapSpec(track, "storm", "baseline"))[0]
    )


def test_a_table_one_run_reports_its_own_vehicles_and_followers_by_name(tmp_path):
    """The quick run with a vehicle file and a follower file: rows, summary and both reports name
    them (the report's titles fall back to the name)."""
    from steerlab.experiments.benchmark.table1 import run_table1

    vehicle = vehicle_file(tmp_path, "light", PRESETS["storm"]._replace(mass=900.0))
    follower = tmp_path / "far.toml"
    follower.write_text('name = "far"\nlookahead = 12.0\n', encoding="utf-8")
    out = tmp_path / "run"
    summary = run_table1(
        out,
        vehicles=[str(vehicle)],
        followers=["baseline", str(follower)],
        quick=True,
        workers=1,
        progress=False,
    )
    assert summary["vehicles"] == ["light"] and summary["followers"] == ["baseline", "far"]
    assert summary["custom"]["followers"]["far"]["params"]["lookahead"] == 12.0
    assert summary["custom"]["vehicles"]["light"]["mass"] == 900.0
    assert "far" in (out / "table1.md").read_text()
    assert "light" in (out / "report.html").read_text()
