"""Table I run, aggregation, report and the ``bench`` CLI (issue 7, items 2, 6, 8).

A tiny suite (a clear straight road and the same road blocked by a wall, 2 vehicles, baseline and
ours, 2 seeds: 16 short trials) is run once through the CLI; the assertions are what physics and
the paper promise (a wall across the road stops every vehicle, a clear road stops none; Table I's
totals are the sums of its breakdown and give the paper's headline percentages), and what the
output contract says.
"""

from __future__ import annotations

import csv
import html
import json
import math
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gfm_tables import find_tables
from html_pages import Page
from steerlab.cli import app
from steerlab.experiments.benchmark import table1
from steerlab.experiments.benchmark.table1 import (
    PAPER_TABLE1,
    QUICK_FOLLOWERS,
    QUICK_PATHS,
    SUMMARY_FIELDS,
    aggregate,
    default_followers,
    missing_tuned,
    render_markdown,
    select_trials,
)
from steerlab.follower import FollowerParams
from steerlab.trials.followers import write_tuned
from steerlab.vehicles import PRESETS

runner = CliRunner()

SUITE = """
name = "unit_table1"
version = 1
time_limit = 40.0
seeds = 2
[spawn_jitter]
lateral = 0.5
yaw_deg = 5.0

# a clear straight road: every vehicle arrives, none gets stuck
[[paths]]
name = "straight"
waypoints = [[0, 0], [100, 0]]
corridor_width = 8.0
walled = true

# the same road blocked by a wall across it at x = 30: no vehicle arrives, every one gets stuck
[[paths]]
name = "blocked"
waypoints = [[0, 0], [100, 0]]
corridor_width = 8.0
time_limit = 15.0
wall_segments = [[[30, -20], [30, 20]]]
"""
VEHICLES = ("storm", "zaha")
FOLLOWERS = ("baseline", "ours")
SEEDS = 2


@pytest.fixture(scope="module")
def suite_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("suite") / "unit_table1.toml"
    path.write_text(SUITE, encoding="utf-8")
    return str(path)


@pytest.fixture(scope="module")
def report(tmp_path_factory, suite_file):
    """The tiny suite run through ``steerlab bench`` (one worker): its output folder."""
    out = tmp_path_factory.mktemp("report") / "run"
    result = runner.invoke(
        app,
        [
            "bench",
            "--suite", suite_file,
            "--out", str(out),
            "--vehicles", ",".join(VEHICLES),
            "--followers", ",".join(FOLLOWERS),
            "--seeds", str(SEEDS),
            "--workers", "1",
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return out


def is_number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


# --------------------------------------------------------------------------------------------------
# the run and summary.json


def test_summary_json_has_the_contracts_fields_and_types(report):
    summary = json.loads((report / "summary.json").read_text())
    assert summary["suite"] == "unit_table1"
    assert summary["seeds"] == SEEDS and isinstance(summary["seeds"], int)
    assert isinstance(summary["steerlab_version"], str) and summary["steerlab_version"]
    for follower in FOLLOWERS:
        entry = summary[follower]
        assert set(SUMMARY_FIELDS) <= set(entry)
        for field in SUMMARY_FIELDS:
            if field == "stuck_by_vehicle":
                assert set(entry[field]) == set(VEHICLES)
                assert all(is_number(value) for value in entry[field].values())
            else:
                assert is_number(entry[field]), (follower, field, entry[field])
        assert isinstance(entry["trials"], int)
        assert 0.0 <= entry["inside_corridor_mean"] <= 100.0
    for follower in ("ours_tuned", "stanley", "regulated_pure_pursuit"):
        assert follower not in summary  # not selected: not in the summary


def test_results_csv_has_one_row_per_trial_and_seed(report):
    with (report / "results.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    keys = {(row["path"], row["vehicle"], row["follower"], row["seed"]) for row in rows}
    assert len(rows) == len(keys) == 2 * len(VEHICLES) * len(FOLLOWERS) * SEEDS
    assert {row["seed"] for row in rows} == {str(seed) for seed in range(SEEDS)}
    assert all(row["error"] == "" for row in rows)


def test_a_wall_across_the_road_is_a_stuck_trial_for_every_vehicle_and_a_clear_road_none(report):
    summary = json.loads((report / "summary.json").read_text())
    for follower in FOLLOWERS:
        entry = summary[follower]
        assert entry["trials"] == 2 * len(VEHICLES)  # per seed: Table I's "/60"
        # physics: the blocked road stops every vehicle (stuck, not arrived), the clear one none
        assert entry["stuck_trials"] == len(VEHICLES)
        assert entry["completed"] == len(VEHICLES)
        assert entry["stuck_by_path"]["straight"] == 0
        assert entry["stuck_by_path"]["blocked"] >= len(VEHICLES)
        # the totals are the sums of the breakdowns, seed by seed
        for seed_table in entry["per_seed"]:
            assert sum(seed_table["stuck_by_vehicle"].values()) == seed_table["stuck_events"]
            assert seed_table["stuck_events"] >= seed_table["stuck_trials"]
        # a blocked trial lasts its limit (15 s); a clear one drives at least 98 m (arrival
        # within 2 m of the end) at no more than v_max (10 m/s)
        assert entry["time_mean"] >= (15.0 + 98.0 / FollowerParams().v_max) / 2.0
        # mean over seeds, with the spread over seeds
        events = [seed_table["stuck_events"] for seed_table in entry["per_seed"]]
        assert entry["stuck_events"] == pytest.approx(sum(events) / len(events))
        squares = sum((e - entry["stuck_events"]) ** 2 for e in events)
        expected_std = math.sqrt(squares / (len(events) - 1))  # sample std over the seeds
        assert entry["stuck_events_std"] == pytest.approx(expected_std)


def test_the_report_files_exist_and_report_html_links_every_png(report):
    for name in ("results.csv", "run.json", "summary.json", "table1.md", "table1.html"):
        assert (report / name).stat().st_size > 0, name
    page = (report / "report.html").read_text()
    pngs = {path.relative_to(report).as_posix() for path in report.rglob("*.png")}
    assert pngs  # trajectories, stuck locations, series, bars
    assert any(name.startswith("figures/trajectories_") for name in pngs)
    assert "figures/stuck_locations.png" in pngs and "figures/stuck_by_vehicle.png" in pngs
    linked = set(re.findall(r'src="([^"]+\.png)"', page))
    assert linked == pngs
    for href in re.findall(r'href="([^"]+)"', page):
        file = html.unescape(href).partition("?")[0]
        assert (report / file).exists(), href  # relative links that resolve
    assert "<table>" in page and "Total stuck events" in page  # the tables inline


def test_every_stuck_event_and_every_path_of_the_report_links_its_replay(report):
    """The report's links, read from report.html: every trial of the first seed that its figures
    show has a replay page, every stuck event of results.csv at that seed a link opening its
    trial's replay at the event's time; the page holds the trial's frames."""
    page = (report / "report.html").read_text()
    hrefs = [html.unescape(href) for href in re.findall(r'href="(replays/[^"]+)"', page)]
    pages = {href for href in hrefs if "?" not in href}
    with (report / "results.csv").open(newline="") as handle:
        rows = [row for row in csv.DictReader(handle) if int(row["seed"]) == 0]
    for row in rows:  # baseline and ours: the pair, every trial shown on its path's figure
        key = f"replays/{row['path']}-{row['vehicle']}-{row['follower']}-0.html"
        assert key in pages, key
    assert {p.relative_to(report).as_posix() for p in (report / "replays").glob("*")} == pages
    events = [href for href in hrefs if "?" in href]
    stuck_total = sum(int(row["stuck_events"]) for row in rows)
    assert stuck_total > 0  # the blocked road
    assert len(set(events)) == stuck_total
    # each event link opens its trial's replay at a time the replay marks as a stuck event
    for href in events:
        file, _, query = href.partition("?")
        time = float(re.fullmatch(r"t=([0-9.]+)&play=0", query).group(1))
        data = read_replay_data(report / file)
        marked = [event["t"] for event in data["agents"][0]["events"]]
        assert any(abs(time - t) <= 0.005 for t in marked), (href, marked)
    # the replay's frames are the trial's: its last position is where results.csv's run ended
    row = next(row for row in rows if row["path"] == "straight" and row["vehicle"] == "storm")
    data = read_replay_data(report / f"replays/straight-storm-{row['follower']}-0.html")
    assert data["agents"][0]["source_frames"] == int(row["frames"]) + 1


def read_replay_data(path):
    text = path.read_text(encoding="utf-8")
    found = re.search(
        r'<script type="application/json" id="replay-data">(.*?)</script>', text, re.S
    )
    return json.loads(found.group(1))


def test_table1_md_follows_table_i_row_order_with_the_papers_numbers(report):
    text = (report / "table1.md").read_text()
    labels = [
        "Total stuck trials",
        "Total stuck events",
        "Cross track error mean (m)",
        "Total time mean (s)",
        "Inside corridor mean (%)",
        "Speed mean (m/s)",
        "Breakdown of stuck events by vehicle",
        "Storm",
        "Bolte",
        "Panhard Crab",
        "Zaha",
        "Armata",
        "Hovercraft",
    ]
    positions = [text.index(f"| {label}") for label in labels]
    assert positions == sorted(positions)
    events_row = next(line for line in text.splitlines() if line.startswith("| Total stuck events"))
    cells = [cell.strip() for cell in events_row.strip("|").split("|")]
    # columns: metric, baseline (steerlab, paper), ours (steerlab, paper), ours_tuned (...)
    assert cells[2] == "56" and cells[4] == "17" and cells[6] == "11"
    assert cells[5] == "not run"  # ours_tuned was not selected
    html_text = (report / "table1.html").read_text()
    assert "Hovercraft" in html_text and "59.6" in html_text


def test_the_transcribed_table_i_agrees_with_the_papers_own_statements():
    # Seed 001: breakdown by vehicle sums to the total; "70% decrease in the total number of
    # stucks events" (ours vs baseline); "39% decrease in mean total time" (tuned vs baseline);
    # stuck trials are at most the stuck events and at most 60.
    for column in PAPER_TABLE1.values():
        assert sum(column["stuck_by_vehicle"].values()) == column["stuck_events"]
        assert column["stuck_trials"] <= min(column["stuck_events"], 60)
        assert set(column["stuck_by_vehicle"]) == set(PRESETS)
    base, ours, tuned = (PAPER_TABLE1[name] for name in ("baseline", "ours", "ours_tuned"))
    assert round(100 * (1 - ours["stuck_events"] / base["stuck_events"])) == 70
    assert round(100 * (1 - tuned["time_mean"] / base["time_mean"])) == 39
    assert base["speed_mean"] < ours["speed_mean"] < tuned["speed_mean"]


# --------------------------------------------------------------------------------------------------
# aggregation on hand-made rows


def row(path, vehicle, follower, seed, events, completed, cte, time, inside, speed, error=None):
    return {
        "path": path,
        "vehicle": vehicle,
        "follower": follower,
        "seed": seed,
        "stuck_events": events,
        "completed": completed,
        "cte_mean": cte,
        "time": time,
        "inside_corridor": inside,
        "speed_mean": speed,
        "ended": "arrived" if completed else "time_limit",
        "error": error,
    }


def test_aggregation_on_hand_made_rows_equals_the_hand_computation():
    rows = [
        # seed 0, baseline: events 0, 2, 1, 0 -> 2 stuck trials, 3 events
        row("p1", "storm", "baseline", 0, 0, True, 1.0, 30.0, 100.0, 5.0),
        row("p1", "zaha", "baseline", 0, 2, False, 3.0, 60.0, 80.0, 2.0),
        row("p2", "storm", "baseline", 0, 1, True, 2.0, 40.0, 90.0, 4.0),
        row("p2", "zaha", "baseline", 0, 0, True, 2.0, 50.0, 90.0, 3.0),
        # seed 1, baseline: events 1, 1, 1, 0 -> 3 stuck trials, 3 events
        row("p1", "storm", "baseline", 1, 1, True, 1.0, 35.0, 100.0, 5.0),
        row("p1", "zaha", "baseline", 1, 1, True, 1.0, 45.0, 100.0, 3.0),
        row("p2", "storm", "baseline", 1, 1, False, 4.0, 60.0, 70.0, 1.0),
        row("p2", "zaha", "baseline", 1, 0, True, 2.0, 40.0, 90.0, 3.0),
        # seed 0, ours: one trial errored (no metrics): it counts in trials and errors only
        row("p1", "storm", "ours", 0, 0, True, 0.5, 20.0, 100.0, 8.0),
        row("p1", "zaha", "ours", 0, 4, False, 1.5, 60.0, 60.0, 4.0),
        row("p2", "storm", "ours", 0, None, None, None, None, None, None, error="Boom: x"),
        row("p2", "zaha", "ours", 0, 0, True, 1.0, 40.0, 100.0, 6.0),
        # ours has no row at seed 1: not a seed with no events. stanley: its one trial errored
        row("p1", "storm", "stanley", 0, None, None, None, None, None, None, error="Boom: y"),
    ]
    summary = aggregate(rows)
    assert list(summary) == ["baseline", "ours", "stanley"]
    base = summary["baseline"]
    assert base["trials"] == 4 and base["seeds"] == 2
    assert [s["stuck_trials"] for s in base["per_seed"]] == [2, 3]
    assert [s["stuck_events"] for s in base["per_seed"]] == [3, 3]
    assert [s["completed"] for s in base["per_seed"]] == [3, 3]
    assert base["stuck_trials"] == 2.5
    assert base["stuck_trials_std"] == pytest.approx(math.sqrt(0.5))  # sample std of (2, 3)
    assert base["stuck_events"] == 3.0 and base["stuck_events_std"] == 0.0
    # per-seed means of the trials, then mean and sample std over the seeds
    cte = (8.0 / 4, 8.0 / 4)
    time = (180.0 / 4, 180.0 / 4)
    speed = (14.0 / 4, 12.0 / 4)
    inside = (360.0 / 4, 360.0 / 4)
    assert base["cte_mean"] == pytest.approx(sum(cte) / 2)
    assert base["time_mean"] == pytest.approx(sum(time) / 2)
    assert base["inside_corridor_mean"] == pytest.approx(sum(inside) / 2)
    assert base["speed_mean"] == pytest.approx(sum(speed) / 2)
    assert base["speed_mean_std"] == pytest.approx(abs(speed[0] - speed[1]) / math.sqrt(2))
    # breakdown per vehicle: storm 0+1 | 1+1, zaha 2+0 | 1+0
    assert [s["stuck_by_vehicle"] for s in base["per_seed"]] == [
        {"storm": 1, "zaha": 2},
        {"storm": 2, "zaha": 1},
    ]
    assert base["stuck_by_vehicle"] == {"storm": 1.5, "zaha": 1.5}
    assert base["stuck_by_vehicle_std"]["storm"] == pytest.approx(math.sqrt(0.5))
    assert base["stuck_by_path"] == {"p1": 2.0, "p2": 1.0}

    ours = summary["ours"]
    seed0 = ours["per_seed"][0]
    assert seed0["trials"] == 4 and seed0["errors"] == 1
    assert seed0["stuck_trials"] == 1 and seed0["stuck_events"] == 4
    assert seed0["cte_mean"] == pytest.approx(3.0 / 3)  # over the three trials with metrics
    assert seed0["speed_mean"] == pytest.approx(18.0 / 3)
    assert ours["seeds"] == 1 and [s["seed"] for s in ours["per_seed"]] == [0]
    assert ours["stuck_events"] == 4.0 and ours["stuck_events_std"] is None  # one seed
    assert ours["cte_mean"] == pytest.approx(1.0)
    assert ours["stuck_by_vehicle"] == {"storm": 0.0, "zaha": 4.0}
    assert ours["stuck_by_path"] == {"p1": 4.0, "p2": 0.0}

    stanley = summary["stanley"]
    assert stanley["trials"] == 1 and stanley["errors"] == 1.0
    for field in ("stuck_trials", "stuck_events", "completed", "cte_mean", "time_mean"):
        assert stanley[field] is None, field  # no trial with metrics: nothing to report
    assert stanley["stuck_by_vehicle"] == {"storm": None, "zaha": None}


def test_one_seed_has_no_spread_and_the_markdown_shows_integer_totals():
    rows = [
        row("p1", "storm", "baseline", 0, 2, False, 1.0, 30.0, 100.0, 5.0),
        row("p1", "storm", "ours", 0, 0, True, 1.0, 20.0, 100.0, 7.0),
    ]
    entries = aggregate(rows)
    assert entries["baseline"]["stuck_events"] == 2.0
    assert entries["baseline"]["stuck_events_std"] is None
    summary = {
        "suite": "unit",
        "suite_version": 1,
        "suite_hash": "0" * 64,
        "seed_list": [0],
        "seeds": 1,
        "steerlab_version": "0",
        "followers": ["baseline", "ours"],
        "vehicles": ["storm"],
        "paths": ["p1"],
        **entries,
    }
    text = render_markdown(summary)
    events_row = next(line for line in text.splitlines() if line.startswith("| Total stuck events"))
    assert [cell.strip() for cell in events_row.strip("|").split("|")][1:5] == [
        "2",
        "56",
        "0",
        "17",
    ]
    # headline: ours vs baseline, 2 -> 0 stuck events
    assert "stuck events, ours vs baseline: paper -70 %, steerlab -100 %" in text


# names with markup and table characters: each must show as written in every cell of both reports
ODD_PATH = 'a|b <c> & "d"'
ODD_VEHICLE = "x<y>&'z'|"


def _odd_summary():
    rows = [
        row(ODD_PATH, "storm", "baseline", 0, 2, False, 1.0, 30.0, 90.0, 5.0),
        row(ODD_PATH, ODD_VEHICLE, "baseline", 0, 1, False, 1.0, 30.0, 90.0, 5.0),
        row("plain", "storm", "baseline", 0, 0, True, 1.0, 30.0, 90.0, 5.0),
        row("plain", ODD_VEHICLE, "baseline", 0, 3, False, 1.0, 30.0, 90.0, 5.0),
        row(ODD_PATH, "storm", "ours", 0, 0, True, 1.0, 30.0, 90.0, 5.0),
        row(ODD_PATH, ODD_VEHICLE, "ours", 0, 0, True, 1.0, 30.0, 90.0, 5.0),
        row("plain", "storm", "ours", 0, 1, True, 1.0, 30.0, 90.0, 5.0),
        row("plain", ODD_VEHICLE, "ours", 0, 0, True, 1.0, 30.0, 90.0, 5.0),
    ]
    return {
        "suite": "unit <&>",
        "suite_version": 1,
        "suite_hash": "0" * 64,
        "seed_list": [0],
        "seeds": 1,
        "steerlab_version": "0",
        "followers": ["baseline", "ours"],
        "vehicles": ["storm", ODD_VEHICLE],
        "paths": [ODD_PATH, "plain"],
        **aggregate(rows),
    }


def test_both_reports_hold_every_cell_as_written_whatever_the_names_hold(tmp_path):
    summary = _odd_summary()
    figure = tmp_path / "figures" / "odd.png"
    figure.parent.mkdir()
    figure.write_bytes(b"")
    title = 'stuck <b>locations</b> & "events"'
    links = [(f"{ODD_PATH} / storm", "odd-0.html"), ("stuck at 2.5 s", "odd-0.html?t=2.5&play=0")]
    table1.write_report(tmp_path, summary, [(figure, title, "caption <i>", links)])
    # the markdown, read back by GFM's rules: the path table and the odd vehicle's row, counted
    # by hand from the rows above (one seed: the totals are integers)
    tables = find_tables((tmp_path / "table1.md").read_text())
    assert len(tables) == 2
    main, paths = tables
    assert paths == (
        ["Path", "baseline", "ours"],
        [None, "right", "right"],
        [[ODD_PATH, "3", "0"], ["plain", "3", "1"]],
    )
    assert main[1] == [None] + ["right"] * (len(main[0]) - 1)
    header = main[0]
    odd_row = next(cells for cells in main[2] if cells[0] == ODD_VEHICLE)
    events = next(cells for cells in main[2] if cells[0] == "Total stuck events ↓")
    column = {title: index for index, title in enumerate(header)}
    assert odd_row[column["baseline: steerlab"]] == "4" and odd_row[column["ours: steerlab"]] == "0"
    assert events[column["baseline: steerlab"]] == "6" and events[column["ours: steerlab"]] == "1"
    # both pages hold the same two tables, cell for cell, the names escaped in the source
    for name in ("table1.html", "report.html"):
        text = (tmp_path / name).read_text()
        page = Page(text)
        assert not page.errors
        assert page.tables == [[main[0], *main[2]], [paths[0], *paths[2]]]
        assert ODD_PATH not in text and "x<y>" not in text
        assert page.find("title")[0][1] in ("Table I: steerlab", "steerlab Table I report")
        assert summary["suite"] in page.find("p")[0][1]  # the run's line
    # report.html: the figure, its title and the replay links as given
    page = Page((tmp_path / "report.html").read_text())
    (attributes, text), *_ = page.find("figure")
    assert attributes["id"] == "odd" and text.startswith(" ".join(title.split()))
    assert page.find("img")[0][0] == {"src": "figures/odd.png", "alt": title}
    assert page.find("figcaption")[0][1] == "caption <i>"
    anchors = [(text, attributes["href"]) for attributes, text in page.find("a")]
    assert (f"{ODD_PATH} / storm", "replays/odd-0.html") in anchors
    assert ("stuck at 2.5 s", "replays/odd-0.html?t=2.5&play=0") in anchors
    assert ("table1.md", "table1.md") in anchors and ("summary.json", "summary.json") in anchors


# --------------------------------------------------------------------------------------------------
# selection, quick, defaults


def test_quick_selects_three_paths_every_vehicle_baseline_and_ours_one_seed():
    suite, specs = select_trials("table1", quick=True)
    assert {spec.path for spec in specs} == set(QUICK_PATHS)
    assert set(QUICK_PATHS) <= set(suite.path_names)
    assert {spec.vehicle for spec in specs} == set(PRESETS)
    assert {spec.follower for spec in specs} == set(QUICK_FOLLOWERS) == {"baseline", "ours"}
    assert {spec.seed for spec in specs} == {0}
    assert len(specs) == 3 * 6 * 2 * 1
    # explicit choices override the quick ones
    _, specs = select_trials("table1", quick=True, followers="ours", vehicles=["hovercraft"])
    assert {(spec.vehicle, spec.follower) for spec in specs} == {("hovercraft", "ours")}
    assert len(specs) == 3


def test_the_bench_cli_with_only_quick_runs_the_table1_quick_subset(tmp_path, monkeypatch):
    seen = {}

    def fake_run(out, **options):
        seen.update(options, out=out)
        return {"suite": "table1", "seeds": 1, "followers": [], "vehicles": []}

    monkeypatch.setattr(table1, "run_table1", fake_run)
    result = runner.invoke(app, ["bench", "--quick", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert seen["suite"] == "table1" and seen["quick"] is True
    assert seen["followers"] is None and seen["vehicles"] is None and seen["seeds"] is None
    result = runner.invoke(app, ["bench", "--out", str(tmp_path)])  # the full table
    assert result.exit_code == 0, result.output
    assert seen["suite"] == "table1" and seen["quick"] is False


def test_ours_tuned_is_a_default_follower_only_when_every_preset_exists(tmp_path):
    assert "ours_tuned" not in default_followers(tuned_dir=tmp_path)
    assert len(missing_tuned(PRESETS, tmp_path)) == len(PRESETS)
    for vehicle in list(PRESETS)[:-1]:
        write_tuned(tmp_path / f"{vehicle}.toml", FollowerParams(), vehicle)
    assert "ours_tuned" not in default_followers(tuned_dir=tmp_path)
    assert "ours_tuned" in default_followers(list(PRESETS)[:-1], tuned_dir=tmp_path)
    last = list(PRESETS)[-1]
    assert missing_tuned(PRESETS, tmp_path) == [tmp_path / f"{last}.toml"]
    write_tuned(tmp_path / f"{last}.toml", FollowerParams(), last)
    followers = default_followers(tuned_dir=tmp_path)
    assert followers[:3] == ["baseline", "ours", "ours_tuned"]


# --------------------------------------------------------------------------------------------------
# CLI errors: clear message, exit code != 0, no traceback


def invoke_error(arguments):
    result = runner.invoke(app, ["bench", *arguments])
    assert result.exit_code != 0, result.output
    assert "Traceback" not in result.output
    assert not isinstance(result.exception, Exception) or isinstance(
        result.exception, SystemExit
    ), result.exception
    return result.output


def test_cli_unknown_names_and_empty_selections_are_refused(tmp_path, suite_file):
    base = ["--suite", suite_file, "--out", str(tmp_path / "run")]
    assert "unknown vehicle 'nope'" in invoke_error([*base, "--vehicles", "storm,nope"])
    assert "unknown follower 'nope'" in invoke_error([*base, "--followers", "nope"])
    assert "empty selection" in invoke_error([*base, "--vehicles", ","])
    assert "empty selection" in invoke_error([*base, "--followers", " , "])
    assert "suite" in invoke_error(["--suite", "nope", "--out", str(tmp_path)])
    assert not (tmp_path / "run" / "results.csv").exists()  # nothing ran


def test_cli_ours_tuned_without_presets_names_the_missing_files(tmp_path, suite_file):
    output = invoke_error(
        ["--suite", suite_file, "--out", str(tmp_path / "run"), "--followers", "ours,ours_tuned",
         "--vehicles", "storm,zaha", "--tuned-dir", str(tmp_path)]
    )  # fmt: skip
    flat = " ".join(output.split())
    assert "storm.toml" in flat and "zaha.toml" in flat and "steerlab tune" in flat


def test_cli_refuses_another_runs_folder_and_an_unwritable_one(tmp_path, report, suite_file):
    # the fixture's folder holds 2 seeds of baseline and ours: a run with 1 seed is another run
    output = invoke_error(
        ["--suite", suite_file, "--out", str(report), "--vehicles", ",".join(VEHICLES),
         "--followers", ",".join(FOLLOWERS), "--seeds", "1", "--workers", "1"]
    )  # fmt: skip
    assert "another run" in " ".join(output.split())
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    output = invoke_error(
        ["--suite", suite_file, "--out", str(blocker / "run"), "--vehicles", "storm",
         "--followers", "ours", "--seeds", "1", "--workers", "1"]
    )  # fmt: skip
    assert "cannot create the output folder" in " ".join(output.split())
    output = invoke_error(
        ["--suite", suite_file, "--out", str(blocker), "--vehicles", "storm",
         "--followers", "ours", "--seeds", "1", "--workers", "1"]
    )  # fmt: skip
    assert "not a folder" in output


def test_a_rerun_of_a_complete_folder_rebuilds_the_report_without_stale_figures(report):
    stale = report / "figures" / "series_old_path_storm.png"
    stale.write_bytes(b"an earlier report's figure")
    before = (report / "results.csv").read_bytes()
    result = runner.invoke(
        app,
        [
            "bench",
            "--suite", _suite_of(report),
            "--out", str(report),
            "--vehicles", ",".join(VEHICLES),
            "--followers", ",".join(FOLLOWERS),
            "--seeds", str(SEEDS),
            "--workers", "1",
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert (report / "results.csv").read_bytes() == before  # every trial was already there
    assert not stale.exists()
    page = (report / "report.html").read_text()
    pngs = {path.relative_to(report).as_posix() for path in report.rglob("*.png")}
    assert set(re.findall(r'src="([^"]+\.png)"', page)) == pngs


def _suite_of(report: Path) -> str:
    return json.loads((report / "summary.json").read_text())["suite_source"]


def test_report_paths_are_relative_to_the_folder(report):
    page = (report / "report.html").read_text()
    for target in re.findall(r'(?:src|href)="([^"]+)"', page):
        assert not Path(target).is_absolute() and "://" not in target, target
