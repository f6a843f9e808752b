"""The external suite (issue 9, item 2): the record, the shapes, one case per plant, failures as
rows, resume, the report and ``steerlab bench --suite external``.

Skipped without the ``plants`` extra (CI installs all three simulators).
"""

import json
import math
import sys
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest
from typer.testing import CliRunner

from gfm_tables import find_tables
from html_pages import Page

pytest.importorskip("pybullet")
pytest.importorskip("vehiclemodels")
pytest.importorskip("Box2D")
pytest.importorskip("gymnasium.envs.box2d.car_racing")

from steerlab.cli.app import app
from steerlab.experiments.benchmark import external
from steerlab.experiments.benchmark.external import (
    PLANTS,
    ROW_TYPES,
    SHAPES,
    PlantCase,
    PlantTrialSpec,
    load_record,
    plant_trials,
    run_external,
    run_plant_trial,
    shape_points,
    shape_spawn,
    simulate_plant_trial,
)
from steerlab.experiments.benchmark.external_report import (
    render_html,
    render_markdown,
    summarize,
)
from steerlab.geometry import Polyline
from steerlab.plants import PlantDiverged
from steerlab.trials.observer import OBSERVER, ObserverSettings, check_observer, trial_metrics
from steerlab.vehicles import VehicleState

SHIPPED = Path(external.__file__).parent / "suites" / "external.toml"

# a small record: the shipped plants' settings, one short path each (the tests' own file)
SMALL = """
name = "small"
version = 1
followers = ["baseline", "ours"]

[plants.road]
simulator = "commonroad"
model = "ks"
dt = 0.02
seeds = 1
paths = ["s_bend"]
radius = 20.0
corridor_width = 3.5
min_mean_speed = 2.0
spawn_lateral = 0.5
spawn_yaw_deg = 5.0

[plants.road.params]
v_max = { value = 10.0, why = "a test road" }
"""


def write(tmp_path, text, name="record.toml"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


# -- the record ------------------------------------------------------------------------------------


def test_shipped_record_validates_and_says_why_for_every_override():
    record = load_record()
    assert record.name == "external" and record.version >= 1
    assert set(record.plant_names) == {"carracing", "racecar", "commonroad_ks", "commonroad_st"}
    assert record.spec.followers == ("baseline", "ours", "stanley", "regulated_pure_pursuit")
    for name in record.plant_names:
        plant = record.plant(name)
        for override in (*plant.params.values(), *plant.observer.values()):
            assert override.why.strip()
        params = plant.follower_params()
        for field, override in plant.params.items():
            assert getattr(params, field) == override.value
        plant.observer_settings()  # valid
    # the same shapes on the path plants; CarRacing drives its own track
    assert record.plant("carracing").paths == ("track",)
    assert record.plant("carracing").seeds == 20  # the 20 seeded tracks
    for name in ("racecar", "commonroad_ks", "commonroad_st"):
        assert record.plant(name).paths == SHAPES


def test_record_hash_ignores_layout_but_not_values(tmp_path):
    base = load_record(write(tmp_path, SMALL, "a.toml"))
    reformatted = load_record(
        write(tmp_path, "# a comment\n" + SMALL.replace(" = ", "="), "b.toml")
    )
    changed = load_record(write(tmp_path, SMALL.replace("a test road", "another reason"), "c.toml"))
    assert base.hash == reformatted.hash
    assert base.hash != changed.hash  # a reason is part of the record


@pytest.mark.parametrize(
    ("edit", "where"),
    [
        (("v_max = {", "v_mx = {"), "plants.road.params.v_mx: not a FollowerParams field"),
        (("value = 10.0", "value = -1.0"), "plants.road.params.v_max.value: follower_params.v_max"),
        (('why = "a test road"', 'why = "  "'), "plants.road.params.v_max.why"),
        (('value = 10.0, why = "a test road"', "value = 10.0"), "plants.road.params.v_max.why"),
        (('"s_bend"]', '"spiral"]'), "plants.road.paths[0]: unknown shape 'spiral'"),
        (('model = "ks"', 'model = "mb"'), "plants.road.model"),
        (('model = "ks"\n', ""), "plants.road.model: required by commonroad"),
        (("radius = 20.0", "radius = 0.0"), "plants.road.radius"),
        (('"ours"]', '"ours_tuned"]'), "followers[1]: unknown follower 'ours_tuned'"),
        (("seeds = 1", "seeds = 0"), "plants.road.seeds"),
        (("dt = 0.02", "dt = 0.02\ncolour = 3"), "plants.road.colour"),
    ],
)
def test_bad_record_names_the_field(tmp_path, edit, where):
    text = SMALL.replace(*edit)
    assert text != SMALL
    with pytest.raises(ValueError, match=r"record\.toml") as error:
        load_record(write(tmp_path, text))
    assert where in str(error.value)


def test_bad_observer_and_carracing_settings_name_the_field(tmp_path):
    text = SMALL + '[plants.road.observer]\narrival_radius = { value = 0.0, why = "x" }\n'
    with pytest.raises(ValueError, match=r"plants\.road\.observer\.arrival_radius\.value"):
        load_record(write(tmp_path, text, "a.toml"))
    text = SMALL + '[plants.road.observer]\narival_radius = { value = 1.0, why = "x" }\n'
    with pytest.raises(ValueError, match=r"plants\.road\.observer\.arival_radius: not an observer"):
        load_record(write(tmp_path, text, "b.toml"))
    text = SMALL + '[plants.road.observer]\nradius = { value = 1.0, why = "x" }\n'
    with pytest.raises(ValueError, match=r"plants\.road\.observer\.radius: not an observer"):
        load_record(write(tmp_path, text, "b.toml"))
    car = SMALL.replace('simulator = "commonroad"\nmodel = "ks"', 'simulator = "carracing"')
    car = car.replace(
        'paths = ["s_bend"]\nradius = 20.0\ncorridor_width = 3.5\n', 'paths = ["track"]\n'
    )
    with pytest.raises(ValueError, match=r"plants\.road\.spawn_lateral: carracing starts"):
        load_record(write(tmp_path, car, "c.toml"))
    with pytest.raises(ValueError, match="neither 'external' nor a file"):
        load_record(str(tmp_path / "missing.toml"))


# -- the shapes ------------------------------------------------------------------------------------


@pytest.mark.parametrize("radius", [0.5, 3.0, 60.0])
def test_shapes_have_their_radius_length_and_spawn(radius):
    circle = shape_points("circle", radius)
    assert np.hypot(circle[:, 0], circle[:, 1] - radius) == pytest.approx(radius, rel=1e-12)
    assert np.array_equal(circle[0], circle[-1])  # closed
    assert Polyline(circle).length == pytest.approx(2 * math.pi * radius, rel=1e-4)
    eight = shape_points("figure_8", radius)
    assert np.array_equal(eight[0], eight[-1])
    assert Polyline(eight).length == pytest.approx(4 * math.pi * radius, rel=1e-4)
    upper = eight[:, 1] > 1e-9 * radius  # the two lobes: on their own circles
    assert np.hypot(eight[upper, 0], eight[upper, 1] - radius) == pytest.approx(radius)
    assert np.hypot(eight[~upper, 0], eight[~upper, 1] + radius) == pytest.approx(radius)
    bend = shape_points("s_bend", radius)
    assert Polyline(bend).length == pytest.approx((1 + math.pi) * radius, rel=1e-4)
    assert bend[-1] == pytest.approx([2.5 * radius + 0.5 * radius, 2 * radius])
    # the spawn: the S-bend's start; r / 6 into a closed shape, never at its (coinciding) end
    assert shape_spawn("s_bend", radius) == 0.0
    for shape in ("circle", "figure_8"):
        path = Polyline(shape_points(shape, radius))
        spawn = shape_spawn(shape, radius)
        assert 0.0 < spawn < 0.2 * radius
        assert path.project(path.point_at(spawn)).s == pytest.approx(spawn, abs=1e-6 * radius)


def test_bad_shape_is_a_value_error():
    with pytest.raises(ValueError, match="shape"):
        shape_points("spiral", 1.0)
    with pytest.raises(ValueError, match="radius"):
        shape_points("circle", -1.0)


# -- one case per plant ----------------------------------------------------------------------------


def test_racecar_ours_completes_the_circle_inside_its_corridor_deterministically():
    spec = PlantTrialSpec("external", "racecar", "circle", "ours", 1)
    row, records = simulate_plant_trial(spec)
    assert list(row) == list(ROW_TYPES)
    assert row["simulator"] == "racecar" and row["ended"] == "arrived" and row["failed"] == ""
    assert row["completed"] and row["lap_completed"]
    corridor = load_record().plant("racecar").corridor_width
    assert row["cte_max"] < 0.5 * corridor
    assert row["cte_mean"] <= row["cte_max"]
    # it drove a lap (minus the r / 6 it starts into it) at the follower's speeds
    assert row["distance"] == pytest.approx(row["path_length"] * (1 - 1 / (12 * math.pi)), rel=0.1)
    assert 0.3 <= row["speed_mean"] <= 2.0 + 0.1
    assert records.x.size == row["frames"] + 1
    assert run_plant_trial(spec) == row  # PyBullet is deterministic: same spec, same row


@pytest.mark.parametrize("plant", ["commonroad_ks", "commonroad_st"])
def test_commonroad_ours_drives_the_s_bend_at_road_speed(plant):
    row = run_plant_trial(PlantTrialSpec("external", plant, "s_bend", "ours", 0))
    assert row["completed"] and row["lap_completed"] and row["ended"] == "arrived"
    assert row["cte_max"] < 0.5 * load_record().plant(plant).corridor_width  # in its lane
    assert row["speed_mean"] > 8.0  # road speed, the follower asked for 15 m/s
    assert row["simulator"] == "commonroad"


def test_carracing_ours_laps_on_the_road_by_the_environments_own_count():
    row = run_plant_trial(PlantTrialSpec("external", "carracing", "track", "ours", 3))
    assert row["lap_completed"]  # CarRacing's own lap flag
    assert row["completed"] and row["ended"] == "arrived"
    assert row["cte_max"] < 40.0 / 6.0  # within the road's half-width (TRACK_WIDTH)
    assert row["path_length"] > 500.0


def test_unknown_case_fields_are_value_errors():
    for spec, match in (
        (PlantTrialSpec("external", "tank", "circle", "ours", 0), "no plant named 'tank'"),
        (PlantTrialSpec("external", "racecar", "track", "ours", 0), "no path 'track'"),
        (PlantTrialSpec("external", "racecar", "circle", "ours_tuned", 0), "unknown follower"),
        (PlantTrialSpec("external", "racecar", "circle", "ours", -1), "seed"),
    ):
        with pytest.raises(ValueError, match=match):
            run_plant_trial(spec)
    with pytest.raises(ValueError, match="PlantTrialSpec"):
        run_plant_trial(("external", "racecar", "circle", "ours", 0))


# -- failures are rows -----------------------------------------------------------------------------


class FakeParams(NamedTuple):
    kind: int = 0
    wheelbase: float = 2.5
    max_steer: float = 0.5


class FakePlant:
    """Drives straight along +x at 5 m/s; at step ``fail_at``, fails as told."""

    vehicle_params = FakeParams()

    def __init__(self, fail_at, how):
        self.fail_at, self.how, self.steps = fail_at, how, 0
        self.closed = False

    def step(self, state, command, dt):
        self.steps += 1
        if self.steps >= self.fail_at:
            if self.how == "diverge":
                raise PlantDiverged("the model's yaw rate blew up")
            if self.how == "nan":
                return state._replace(x=math.nan)
        return VehicleState(state.x + 5.0 * dt, 0.0, 0.0, 5.0)

    def close(self):
        self.closed = True


def fake_builder(how, fail_at, made):
    def build(record, plant, path_name, seed):
        fake = FakePlant(fail_at, how)
        made.append(fake)
        path = Polyline([[0.0, 0.0], [200.0, 0.0]], 4.0)
        check = (
            (lambda state: "left the playfield" if state.x > 1.0 else "")
            if how == "check"
            else None
        )
        return PlantCase(fake, path, VehicleState(), 60.0, check=check, close=fake.close)

    return build


@pytest.mark.parametrize(
    ("how", "reason"),
    [
        ("diverge", "PlantDiverged at t = 0.18 s: the model's yaw rate blew up"),
        ("nan", "non-finite vehicle state at t = 0.2 s: x = nan"),
        ("check", "left the playfield at t = 0.22 s"),
    ],
)
def test_a_failing_plant_gives_a_failed_row_with_the_reason(monkeypatch, how, reason):
    made = []
    monkeypatch.setitem(PLANTS, "commonroad", fake_builder(how, 10, made))
    row = run_plant_trial(PlantTrialSpec("external", "commonroad_ks", "s_bend", "ours", 0))
    assert row["ended"] == "failed" and row["failed"] == reason
    assert not row["completed"] and not row["lap_completed"]
    assert row["time"] == 60.0  # an uncompleted trial is charged its time limit
    assert row["path_length"] == 200.0
    assert made[0].closed  # the simulator is released after a failure too
    expected_frames = {"diverge": 9, "nan": 9, "check": 10}[how]  # frames kept before the failure
    assert row["frames"] == expected_frames


# -- the run: resume, report, CLI ------------------------------------------------------------------


def test_run_external_writes_the_report_and_resumes_without_rerunning(tmp_path, monkeypatch):
    record = write(tmp_path, SMALL)
    out = tmp_path / "run"
    summary = run_external(out, record=record, workers=1, progress=False)
    rows = json.loads((out / "summary.json").read_text())
    assert rows == summary
    cells = summary["cells"]["road"]
    assert set(cells) == {"baseline", "ours"} and summary["trials_total"] == 2
    for name in ("baseline", "ours"):
        assert cells[name]["trials"] == 1 and cells[name]["errors"] == 0
    assert summary["record_hash"] == load_record(record).hash
    text = (out / "external.md").read_text()
    assert "a test road" in text and "Ours vs baseline" in text
    assert (out / "external.html").is_file()
    before = (out / "results.csv").read_bytes()

    def refuse(record, plant, path, seed):
        raise AssertionError("a finished trial ran again")

    monkeypatch.setitem(PLANTS, "commonroad", refuse)
    again = run_external(out, record=record, workers=1, progress=False)
    assert again["cells"] == summary["cells"]
    assert (out / "results.csv").read_bytes() == before
    # a changed record is a new run: refused in this folder
    changed = write(tmp_path, SMALL.replace("a test road", "changed"), "changed.toml")
    with pytest.raises(ValueError, match="record_hash"):
        run_external(out, record=changed, workers=1, progress=False)


def test_summary_counts_laps_and_takes_the_worst_cross_track_error():
    base = {name: None for name in ROW_TYPES}
    rows = []
    for seed, (lap, mean, worst) in enumerate([(True, 0.1, 0.5), (False, 0.3, 2.0)]):
        rows.append(
            {
                **base,
                "plant": "p",
                "path": "circle",
                "follower": "ours",
                "seed": seed,
                "lap_completed": lap,
                "completed": lap,
                "stuck_events": 1 - int(lap),
                "cte_mean": mean,
                "cte_max": worst,
                "inside_corridor": 100.0,
                "time": 10.0,
                "speed_mean": 1.0,
                "ended": "arrived" if lap else "failed",
                "failed": "" if lap else "PlantDiverged: boom",
                "error": None,
            }
        )
    rows.append({**base, "plant": "p", "path": "circle", "follower": "ours", "seed": 2,
                 "error": "RuntimeError: no simulator"})  # fmt: skip
    summary = summarize(rows, load_record(), plants=["p"], followers=["ours"])
    cell = summary["cells"]["p"]["ours"]
    assert cell["trials"] == 3 and cell["errors"] == 1 and cell["failed"] == 1
    assert cell["laps_completed"] == 1 and cell["stuck_events"] == 1
    assert cell["cte_mean"] == pytest.approx(0.2) and cell["cte_max"] == 2.0
    assert cell["cte_max_mean"] == pytest.approx(1.25)
    text = render_markdown(summary)
    assert "PlantDiverged: boom" in text and "RuntimeError: no simulator" in text
    per_plant = find_tables(text)[0]
    assert per_plant[0][:3] == ["Plant", "Follower", "Laps completed"]
    assert [row[:3] for row in per_plant[2]] == [["p", "ours", "1/3"]]


def test_the_page_and_the_markdown_hold_the_same_cells_whatever_the_names_hold():
    plant = 'p<1> & "q"|r'
    base = {name: None for name in ROW_TYPES}
    rows = [
        {
            **base,
            "plant": plant,
            "path": "a <path>",
            "follower": follower,
            "seed": 0,
            "lap_completed": lap,
            "completed": lap,
            "stuck_events": events,
            "cte_mean": 0.25,
            "cte_max": worst,
            "inside_corridor": 100.0,
            "time": 10.0,
            "speed_mean": 1.0,
            "ended": "arrived" if lap else "failed",
            "failed": "" if lap else "PlantDiverged: <script>alert(1)</script>",
            "error": None,
        }
        for follower, lap, events, worst in (("baseline", False, 2, 3.5), ("ours", True, 0, 0.5))
    ]
    summary = summarize(rows, load_record(), plants=[plant], followers=["baseline", "ours"])
    tables = find_tables(render_markdown(summary))
    page = Page(render_html(summary))
    assert not page.errors
    # every table of the page, cell for cell, is the markdown's (read back by GFM's rules)
    assert page.tables == [[header, *body] for header, _, body in tables]
    main = {row[1]: row for row in tables[0][2]}
    column = {title: index for index, title in enumerate(tables[0][0])}
    assert main["baseline"][column["Plant"]] == plant
    assert main["baseline"][column["Laps completed"]] == "0/1"
    assert main["ours"][column["Laps completed"]] == "1/1"
    assert main["baseline"][column["Stuck events"]] == "2"
    assert main["baseline"][column["CTE max (m)"]] == "3.500"
    by_path = tables[2][2]
    assert by_path == [[plant, "a <path>", "0/1, 3.50", "1/1, 0.50"]]
    failures = [text for _, text in page.find("li") if "PlantDiverged" in text]
    assert failures == [f"{plant}, baseline: failed: PlantDiverged: <script>alert(1)</script>"]
    assert not page.find("script")  # the reason is text, not markup


def test_cli_quick_writes_the_report(tmp_path, monkeypatch):
    # the quick subset cut to one cheap case (the shipped quick set is 8 trials, ~10-30 s warm)
    monkeypatch.setattr(external, "QUICK_CASES", (("commonroad_ks", "s_bend"),))
    out = tmp_path / "quick"
    result = CliRunner().invoke(
        app, ["bench", "--suite", "external", "--quick", "--workers", "1", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    for name in ("results.csv", "run.json", "summary.json", "external.md", "external.html"):
        assert (out / name).is_file()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["quick"] and summary["trials_total"] == 2
    assert summary["followers"] == ["baseline", "ours"]
    result = CliRunner().invoke(app, ["bench", "--suite", "external", "--ray", "--out", str(out)])
    assert result.exit_code != 0 and "--ray" in result.output


def test_missing_simulator_names_the_extra_before_any_trial(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pybullet", None)
    monkeypatch.delitem(sys.modules, "steerlab.plants.pybullet_racecar", raising=False)
    out = tmp_path / "run"
    with pytest.raises(ImportError, match=r"pip install 'steerlab\[plants\]'"):
        run_external(out, plants="racecar", workers=1, progress=False)
    assert not (out / "results.csv").exists()
    result = CliRunner().invoke(app, ["bench", "--suite", "external", "--out", str(out)])
    assert result.exit_code == 1 and "steerlab[plants]" in result.output


def test_plant_trials_selection():
    specs = plant_trials()
    assert len(specs) == 20 * 4 + 3 * (3 * 3 * 4)  # CarRacing laps + 3 plants x 3 paths x 3 seeds
    assert len({spec.key for spec in specs}) == len(specs)
    assert len(plant_trials(seeds=2)) == 2 * 4 + 3 * (3 * 2 * 4)
    quick = plant_trials(quick=True)
    assert {spec.follower for spec in quick} == {"baseline", "ours"}
    assert {(spec.plant, spec.path) for spec in quick} == set(external.QUICK_CASES)
    with pytest.raises(ValueError, match="unknown plant 'tank'"):
        plant_trials(plants="tank")
    with pytest.raises(ValueError, match="seeds"):
        plant_trials(seeds=0)


# -- the observer's settings (metrics) -------------------------------------------------------------


def test_observer_settings_default_to_table1s_and_a_larger_radius_arrives_earlier():
    path = Polyline([[0.0, 0.0], [50.0, 0.0]], 4.0)
    t = np.arange(0.0, 12.0, 0.1)
    x = np.minimum(5.0 * t, 50.0)
    y = np.zeros_like(t)
    speed = np.full_like(t, 5.0)
    default, frames = trial_metrics(path, t, x, y, speed)
    same, _ = trial_metrics(path, t, x, y, speed, observer=OBSERVER)
    assert default == same
    wide, wide_frames = trial_metrics(
        path, t, x, y, speed, observer=OBSERVER._replace(arrival_radius=10.0)
    )
    # arrival within the radius of the end: 2 m -> x >= 48 at t = 9.6 s; 10 m -> x >= 40 at 8 s
    assert default.time == pytest.approx(9.6) and wide.time == pytest.approx(8.0)
    assert wide_frames.end < frames.end
    for field, value in (
        ("stuck_window", 0.0),
        ("arrival_radius", math.inf),
        ("projection_back", -1),
    ):
        with pytest.raises(ValueError, match=f"observer.{field}"):
            check_observer(OBSERVER._replace(**{field: value}))
    with pytest.raises(ValueError, match="ObserverSettings"):
        trial_metrics(path, t, x, y, speed, observer=(1.0, 3.0, 2.0, 2.0, 20.0))
    assert isinstance(OBSERVER, ObserverSettings)


def test_carracing_lap_is_the_environments_tile_criterion_at_the_observers_arrival():
    case = PLANTS["carracing"](load_record(), "carracing", "track", 3)
    try:
        env = case.plant.env
        assert not case.lap_finished(True)  # nothing visited yet
        tiles = len(env.track)
        env.tile_visited_count = math.floor(env.lap_complete_percent * tiles)  # not more than 95 %
        assert not case.lap_finished(True)
        env.tile_visited_count += 1  # more than 95 %: the start tile's touch would count the lap
        assert case.lap_finished(True)
        assert not case.lap_finished(False)  # ... only if the car reached the lap's end
        env.tile_visited_count = tiles  # every tile: the environment's own flag, arrived or not
        assert case.lap_finished(False)
    finally:
        case.close()
