"""Seed 001's Table I, reproduced: the run, the aggregation, the summary and the report.

Seed 001, Section IV: "We performed a total of 60 tests, 10 for each one of the 6 vehicles.
Table I summarizes the performance of three path followers ... The reported metrics include the
number of trials with at least one stuck event, the total number of stuck events as well as a
breakdown per vehicle, mean cross track error, percentage of time spent inside the path corridor,
total time taken to complete the path, and mean vehicle speed."

``run_table1(out_dir)`` runs every trial of a suite (``steerlab.trials.trial.trials``: paths x
vehicles x followers x seeds) through the resumable runner (``steerlab.runner.run_tasks``:
``DIR/results.csv``, one row per trial and seed, and ``DIR/run.json``), aggregates the rows as
Table I, and writes:

- ``DIR/summary.json`` (the issue's output contract, ``SUMMARY_FIELDS`` per follower);
- ``DIR/table1.md`` and ``DIR/table1.html``: our table beside the paper's numbers, row for row;
- ``DIR/figures/*.png`` (``steerlab.experiments.benchmark.table1_figures``), ``DIR/replays/*.html``
  (a replay page per trial the figures show, ``steerlab.replay``) and ``DIR/report.html``
  linking them all: each figure lists its trials' replays and their stuck events, each opening
  its replay at the event.

Aggregation (``aggregate``), per follower, exactly as Table I and *per seed* (Table I is one run
of 60 trials; a seed is one such run, every trial with its own spawn jitter):

- ``stuck_trials``: trials with at least one stuck event (``stuck_events >= 1``), a total;
- ``stuck_events``: the sum of the trials' stuck events, a total; ``stuck_by_vehicle`` the same
  sum per vehicle (Table I's "breakdown of stuck events by vehicle");
- ``cte_mean``, ``time_mean``, ``inside_corridor_mean`` (per cent), ``speed_mean``: means over the
  trials of the per-trial figures (``steerlab.trials.observer``: each trial weighs the same, however
  long it ran; the paper does not say how it averaged, and a per-trial mean keeps a slow vehicle
  from weighing more than a fast one);
- ``completed``: trials that arrived; ``trials``: the trials run per seed (Table I's "/60").

With several seeds, each cell is computed per seed, then reported as the mean over the seeds, with
``<field>_std`` the sample standard deviation over the seeds (``ddof = 1``; ``None`` with one
seed); ``per_seed`` keeps every seed's own table. A trial whose task raised (a runner error row:
no metrics) counts in ``trials`` and ``errors`` and nowhere else; a seed without any row of a
follower is not one of its seeds (its entry's ``seeds`` says how many were).

Which followers run by default (``default_followers``): ``baseline``, ``ours``, ``stanley`` and
``regulated_pure_pursuit`` when this steerlab provides them, and ``ours_tuned`` only when a tuned
preset file exists for every selected vehicle (a table with a tuned column for some vehicles only
would not be Table I's). Asked for explicitly, ``ours_tuned`` with missing presets is a
``ValueError`` naming every missing file. The ablations (``steerlab.trials.followers.ABLATIONS``:
``baseline_pi``, ``ours_p``) run only when named, in their own columns after Table I's.

``quick=True`` selects ``QUICK_PATHS`` (the first three paths of another suite), every vehicle,
``QUICK_FOLLOWERS`` and one seed: 36 trials; measured with its figures on the loaded 2-core
development machine: 20 s with a warm numba cache, 1 min 47 s with a cold one. Arguments given
explicitly override the quick choice of the same item.

Cost of the full run (``make bench``: 720 trials with four followers, 3 seeds, then 145 replays
and 16 figures), measured on the same machine under a load average of 4: 4 min 14 s (trials
3 min 02 s on two workers; replays, figures and report about 70 s).
"""

from __future__ import annotations

import json
import math
import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from steerlab.experiments.markdown import numbers_table
from steerlab.experiments.pages import render_page
from steerlab.follower import FollowerParams
from steerlab.runner import RESULTS_FILE, Task, run_tasks
from steerlab.trials.followers import (
    ABLATIONS,
    FOLLOWERS,
    NamedFollower,
    follower_class,
    tuned_digest,
    tuned_file,
)
from steerlab.trials.suite import Suite, load_suite
from steerlab.trials.trial import (
    ROW_COLUMNS,
    ROW_TYPES,
    TrialSpec,
    run_trial,
    selection,
    trials,
)
from steerlab.vehicles import PRESETS, VehicleParams
from steerlab.vehicles.files import NamedVehicle

__all__ = [
    "COUNT_FIELDS",
    "MEAN_FIELDS",
    "PAPER_TABLE1",
    "PAPER_TRIALS",
    "QUICK_FOLLOWERS",
    "QUICK_PATHS",
    "QUICK_SEEDS",
    "REPLAYS_FOLDER",
    "RESULT_COLUMNS",
    "SUMMARY_FIELDS",
    "SUMMARY_FORMAT",
    "aggregate",
    "default_followers",
    "missing_tuned",
    "render_html_table",
    "render_markdown",
    "run_table1",
    "select_trials",
    "write_report",
    "write_summary_files",
    "write_text",
]

SUMMARY_FORMAT = "steerlab.table1/1"

REPLAYS_FOLDER = "replays"
"""The report's folder of replay pages (``DIR/replays/<path>-<vehicle>-<follower>-<seed>.html``)."""

RESULT_COLUMNS = ROW_TYPES
"""The typed columns of ``results.csv`` (``ROW_COLUMNS``, in that order)."""


COUNT_FIELDS = ("stuck_trials", "stuck_events", "completed")
"""Per-follower totals over a seed's trials."""

MEAN_FIELDS = {
    "cte_mean": "cte_mean",
    "time_mean": "time",
    "inside_corridor_mean": "inside_corridor",
    "speed_mean": "speed_mean",
}
"""Per-follower means over a seed's trials: summary field -> the row's column."""

SUMMARY_FIELDS = (
    "stuck_trials",
    "stuck_events",
    "cte_mean",
    "time_mean",
    "inside_corridor_mean",
    "speed_mean",
    "completed",
    "trials",
    "stuck_by_vehicle",
)
"""The contract's fields of each follower's entry in ``summary.json``."""

QUICK_PATHS = ("hill_climb", "narrow_corridor", "hairpins")
"""``quick=True`` on ``table1``: a steep hill, a narrow walled corridor, hairpin turns."""
QUICK_FOLLOWERS = ("baseline", "ours")
QUICK_SEEDS = 1

PAPER_TRIALS = 60
"""Table I's trials per follower: 10 paths x 6 vehicles, one run."""

PAPER_TABLE1 = {
    "baseline": {
        "stuck_trials": 33,
        "stuck_events": 56,
        "cte_mean": 1.46,
        "time_mean": 59.6,
        "inside_corridor_mean": 91.0,
        "speed_mean": 4.55,
        "stuck_by_vehicle": {
            "storm": 3,
            "bolte": 9,
            "panhard_crab": 8,
            "zaha": 5,
            "armata": 11,
            "hovercraft": 20,
        },
    },
    "ours": {
        "stuck_trials": 15,
        "stuck_events": 17,
        "cte_mean": 1.48,
        "time_mean": 40.9,
        "inside_corridor_mean": 91.0,
        "speed_mean": 5.82,
        "stuck_by_vehicle": {
            "storm": 1,
            "bolte": 2,
            "panhard_crab": 4,
            "zaha": 3,
            "armata": 5,
            "hovercraft": 2,
        },
    },
    "ours_tuned": {
        "stuck_trials": 8,
        "stuck_events": 11,
        "cte_mean": 1.32,
        "time_mean": 36.1,
        "inside_corridor_mean": 93.0,
        "speed_mean": 6.84,
        "stuck_by_vehicle": {
            "storm": 1,
            "bolte": 0,
            "panhard_crab": 2,
            "zaha": 2,
            "armata": 5,
            "hovercraft": 1,
        },
    },
}
"""Seed 001, Table I, transcribed (columns Baseline, Ours, Ours (vehicle-tuned))."""

_PAPER_VEHICLE_NAMES = {
    "storm": "Storm",
    "bolte": "Bolte",
    "panhard_crab": "Panhard Crab",
    "zaha": "Zaha",
    "armata": "Armata",
    "hovercraft": "Hovercraft",
}
_FOLLOWER_TITLES = {
    "baseline": "baseline",
    "ours": "ours",
    "ours_tuned": "ours (vehicle-tuned)",
    "stanley": "Stanley",
    "regulated_pure_pursuit": "regulated pure pursuit",
    "baseline_pi": "baseline with PI",
    "ours_p": "ours with P",
}


def follower_title(name: str) -> str:
    """How reports name a follower: its title, or the name itself (a follower file's)."""
    return _FOLLOWER_TITLES.get(name, name)


# Table I's rows, in its order: (summary field, label, arrow, decimals)
_TABLE_ROWS = (
    ("stuck_trials", "Total stuck trials", "↓", 1),
    ("stuck_events", "Total stuck events", "↓", 1),
    ("cte_mean", "Cross track error mean (m)", "↓", 2),
    ("time_mean", "Total time mean (s)", "↓", 1),
    ("inside_corridor_mean", "Inside corridor mean (%)", "↑", 1),
    ("speed_mean", "Speed mean (m/s)", "↑", 2),
)


# --------------------------------------------------------------------------------------------------
# the selection


def _selected(value, what: str) -> list | None:
    """``None``, or the vehicles or followers given (names, files, records; a comma-separated
    string) as ``trials`` takes them (``steerlab.trials.trial.selection``)."""
    names = _names(value, what)
    return None if names is None else selection(what, names)


def _name_of(item) -> str:
    """A vehicle's or a follower's name: a registry name, or a named record's."""
    return item if isinstance(item, str) else item.name


def _names(value, what: str) -> list | None:
    """``None``, a comma-separated string or a sequence -> a list (of names, files or
    records)."""
    if value is None:
        return None
    if isinstance(value, str):
        names = [part.strip() for part in value.split(",") if part.strip()]
    elif isinstance(value, Iterable):
        names = list(value)
    else:
        raise ValueError(f"{what} must be a list of names, got {value!r}")
    if not names:
        raise ValueError(f"{what}: empty selection, got {value!r}")
    return names


def _available(name: str) -> bool:
    try:
        follower_class(name)
    except ValueError:
        return False
    return True


def missing_tuned(vehicles: Iterable[str], tuned_dir=None) -> list[Path]:
    """The tuned preset files ``ours_tuned`` needs for ``vehicles`` that do not exist."""
    return [
        tuned_file(vehicle, tuned_dir)
        for vehicle in vehicles
        if not tuned_file(vehicle, tuned_dir).is_file()
    ]


def default_followers(vehicles: Iterable[str] | None = None, tuned_dir=None) -> list[str]:
    """The followers a run compares when none are named: every follower this steerlab provides,
    ``ours_tuned`` only when the tuned presets of all ``vehicles`` (default: every preset)
    exist. In ``FOLLOWERS`` order."""
    vehicle_names = list(PRESETS) if vehicles is None else list(vehicles)
    chosen = []
    for name in FOLLOWERS:
        if name == "ours_tuned":
            if not missing_tuned(vehicle_names, tuned_dir):
                chosen.append(name)
        elif _available(name):
            chosen.append(name)
    return chosen


def select_trials(
    suite="table1",
    *,
    vehicles=None,
    followers=None,
    seeds=None,
    quick: bool = False,
    tuned_dir=None,
) -> tuple[Suite, list[TrialSpec]]:
    """The suite and the trials of a Table I run, in ``trials``' order (paths, vehicles,
    followers, seeds), after the checks a run needs before it starts.

    ``vehicles`` and ``followers`` are lists of names or comma-separated strings; ``seeds`` a
    count or a list of seeds. ``quick`` (module docstring) picks the paths and, unless given, the
    followers and seeds.

    Raises
    ------
    ValueError
        An unknown suite, vehicle or follower name (listing the known ones), an empty selection,
        a follower this steerlab does not provide, ``ours_tuned`` without the preset file of
        every selected vehicle (all missing files named).
    """
    loaded = load_suite(suite)
    source = loaded.source if isinstance(suite, Suite) else str(suite)
    vehicle_items = _selected(vehicles, "vehicles") or list(PRESETS)
    vehicle_names = [_name_of(item) for item in vehicle_items]
    follower_items = _selected(followers, "followers")
    tuned = "" if tuned_dir is None else str(tuned_dir)
    if follower_items is None:
        follower_items = (
            list(QUICK_FOLLOWERS) if quick else default_followers(vehicle_names, tuned or None)
        )
    follower_names = [_name_of(item) for item in follower_items]
    if "ours_tuned" in follower_names:
        missing = missing_tuned(vehicle_names, tuned or None)
        if missing:
            raise ValueError(
                "ours_tuned needs a tuned preset file per vehicle; missing: "
                + ", ".join(str(path) for path in missing)
                + " (write them with `steerlab tune --vehicle NAME`, give their folder with "
                "tuned_dir / --tuned-dir, or leave ours_tuned out)"
            )
    if seeds is None and quick:
        seeds = QUICK_SEEDS
    specs = trials(loaded, vehicle_items, follower_items, seeds, tuned)
    specs = [spec._replace(suite=source) for spec in specs]
    if quick:
        names = loaded.path_names
        chosen = [name for name in QUICK_PATHS if name in names] if loaded.name == "table1" else []
        chosen = set(chosen or names[:3])
        specs = [spec for spec in specs if spec.path in chosen]
    return loaded, specs


# --------------------------------------------------------------------------------------------------
# aggregation


def _finite_mean(values: Sequence[float]) -> float | None:
    finite = [float(value) for value in values if value is not None and math.isfinite(value)]
    return float(np.mean(finite)) if finite else None


def _seed_cells(rows: Sequence[Mapping], vehicles: Sequence[str], paths: Sequence[str]) -> dict:
    """One follower's Table I column for one seed's rows."""
    ok = [row for row in rows if not row.get("error")]
    events = [int(row["stuck_events"]) for row in ok]
    counted = bool(ok)  # no trial with metrics: no count either (None, left out over seeds)
    cells: dict[str, Any] = {
        "stuck_trials": sum(1 for count in events if count >= 1) if counted else None,
        "stuck_events": sum(events) if counted else None,
        "completed": sum(1 for row in ok if row["completed"]) if counted else None,
        "trials": len(rows),
        "errors": len(rows) - len(ok),
        "failed": sum(1 for row in ok if row.get("ended") == "failed"),
    }
    for field, column in MEAN_FIELDS.items():
        cells[field] = _finite_mean([row[column] for row in ok])
    for breakdown, column, names in (
        ("stuck_by_vehicle", "vehicle", vehicles),
        ("stuck_by_path", "path", paths),
    ):
        totals: dict[str, int | None] = dict.fromkeys(names)  # None: no trial with metrics
        for row in ok:
            totals[row[column]] = (totals.get(row[column]) or 0) + int(row["stuck_events"])
        cells[breakdown] = totals
    return cells


def _over_seeds(values: Sequence[float | None]) -> tuple[float | None, float | None]:
    """Mean and sample standard deviation (``ddof = 1``) over the seeds' values; ``None`` where
    undefined (no value; one value for the deviation)."""
    finite = [float(value) for value in values if value is not None and math.isfinite(value)]
    if not finite:
        return None, None
    mean = float(np.mean(finite))
    std = float(np.std(finite, ddof=1)) if len(finite) > 1 else None
    return mean, std


def _ordered(names: Iterable[str], order: Sequence[str]) -> list[str]:
    names = list(dict.fromkeys(names))
    known = [name for name in order if name in names]
    return known + [name for name in names if name not in order]


def aggregate(
    rows: Iterable[Mapping],
    *,
    followers: Sequence[str] | None = None,
    vehicles: Sequence[str] | None = None,
    paths: Sequence[str] | None = None,
    seeds: Sequence[int] | None = None,
) -> dict[str, dict]:
    """Table I per follower from the trials' rows (module docstring for each figure).

    Parameters
    ----------
    rows
        Dicts with at least ``path``, ``vehicle``, ``follower``, ``seed``, ``stuck_events``,
        ``completed``, ``cte_mean``, ``time``, ``inside_corridor``, ``speed_mean`` (the runner's
        rows; a row whose ``error`` is set counts as an errored trial).
    followers, vehicles, paths, seeds
        The run's selection (its order is the report's); default: what the rows hold
        (followers and vehicles in ``FOLLOWERS`` / ``PRESETS`` order, paths and seeds as met).

    Returns
    -------
    dict
        ``follower -> entry``: every ``SUMMARY_FIELDS`` field (mean over the seeds), its
        ``<field>_std`` (``stuck_by_vehicle_std`` a dict), ``errors``, ``failed``,
        ``stuck_by_path``, ``seeds`` and ``per_seed`` (each seed's own table).
    """
    rows = list(rows)
    follower_names = _ordered((row["follower"] for row in rows), FOLLOWERS + ABLATIONS)
    follower_names = list(followers) if followers is not None else follower_names
    vehicle_names = (
        list(vehicles)
        if vehicles is not None
        else _ordered((row["vehicle"] for row in rows), list(PRESETS))
    )
    path_names = list(paths) if paths is not None else _ordered((r["path"] for r in rows), [])
    seed_list = list(seeds) if seeds is not None else sorted({int(row["seed"]) for row in rows})
    summary: dict[str, dict] = {}
    for follower in follower_names:
        mine = [row for row in rows if row["follower"] == follower]
        per_seed = []
        for seed in seed_list:
            at_seed = [row for row in mine if int(row["seed"]) == seed]
            if at_seed:  # a seed this follower did not run is not a seed with no events
                per_seed.append(
                    {"seed": int(seed), **_seed_cells(at_seed, vehicle_names, path_names)}
                )
        entry: dict[str, Any] = {}
        for field in (*COUNT_FIELDS, *MEAN_FIELDS, "errors", "failed"):
            entry[field], entry[f"{field}_std"] = _over_seeds([cells[field] for cells in per_seed])
        counts = {cells["trials"] for cells in per_seed}
        entry["trials"] = (
            counts.pop()
            if len(counts) <= 1 and counts
            else _over_seeds([cells["trials"] for cells in per_seed])[0] or 0
        )
        for breakdown, names in (
            ("stuck_by_vehicle", vehicle_names),
            ("stuck_by_path", path_names),
        ):
            means, deviations = {}, {}
            for name in names:
                means[name], deviations[name] = _over_seeds(
                    [cells[breakdown][name] for cells in per_seed]
                )
            entry[breakdown], entry[f"{breakdown}_std"] = means, deviations
        entry["seeds"] = len(per_seed)
        entry["per_seed"] = per_seed
        summary[follower] = entry
    return summary


# --------------------------------------------------------------------------------------------------
# tables


def _cell(entry: Mapping | None, field: str, decimals: int, vehicle: str | None = None) -> str:
    """``mean ± std`` (or ``mean``) of one of our cells; ``not run`` without an entry."""
    if entry is None:
        return "not run"
    if vehicle is None:
        mean, std = entry.get(field), entry.get(f"{field}_std")
    else:
        mean = entry["stuck_by_vehicle"].get(vehicle)
        std = entry.get("stuck_by_vehicle_std", {}).get(vehicle)
    if mean is None:
        return "n/a"
    if entry.get("seeds", 1) == 1 and field in (*COUNT_FIELDS, "stuck_by_vehicle"):
        return f"{mean:.0f}"  # one seed: the totals are integers
    text = f"{mean:.{decimals}f}"
    return text if std is None else f"{text} ± {std:.{decimals}f}"


def _paper_cell(follower: str, field: str, vehicle: str | None = None) -> str:
    column = PAPER_TABLE1.get(follower)
    if column is None:
        return ""
    value = column["stuck_by_vehicle"].get(vehicle) if vehicle else column[field]
    if value is None:
        return ""
    return f"{value:g}"


def _table(summary: Mapping) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the side-by-side table: Table I's rows in its order; per follower our
    column, and the paper's beside it for the paper's three followers."""
    followers = list(summary["followers"])
    columns: list[tuple[str, str]] = []  # (follower, "ours" | "paper")
    for name in FOLLOWERS + ABLATIONS:
        if name in PAPER_TABLE1:
            columns += [(name, "ours"), (name, "paper")]
        elif name in followers:
            columns.append((name, "ours"))
    header = ["Metric"] + [
        f"{follower_title(name)}: " + ("steerlab" if kind == "ours" else "paper")
        for name, kind in columns
    ]
    trials = {summary[name]["trials"] for name in followers if name in summary}
    per_seed = "/".join(f"{count:g}" for count in sorted(trials)) or "0"
    body = []
    for field, label, arrow, decimals in _TABLE_ROWS:
        if field == "stuck_trials":
            label = f"{label} (/{per_seed} steerlab, /{PAPER_TRIALS} paper)"
        line = [f"{label} {arrow}"]
        for name, kind in columns:
            if kind == "paper":
                line.append(_paper_cell(name, field))
            else:
                line.append(_cell(summary.get(name), field, decimals))
        body.append(line)
    body.append(["Breakdown of stuck events by vehicle ↓"] + [""] * len(columns))
    vehicles = list(summary["vehicles"])
    # Table I's vehicles in its order (those not run say so), then any other vehicle run
    for vehicle in list(_PAPER_VEHICLE_NAMES) + [
        v for v in vehicles if v not in _PAPER_VEHICLE_NAMES
    ]:
        line = [_PAPER_VEHICLE_NAMES.get(vehicle, vehicle)]
        for name, kind in columns:
            if kind == "paper":
                line.append(_paper_cell(name, "stuck_by_vehicle", vehicle))
            elif vehicle not in vehicles:
                line.append("not run")
            else:
                line.append(_cell(summary.get(name), "stuck_by_vehicle", 1, vehicle))
        body.append(line)
    return header, body


def _change(before: float | None, after: float | None) -> str:
    if before is None or after is None:
        return "n/a"
    if before == 0.0:
        return "n/a (baseline 0)"
    return f"{100.0 * (after - before) / before:+.0f} %"


def _headlines(summary: Mapping) -> list[str]:
    """The paper's two headline claims, with ours beside them."""
    lines = []
    base = summary.get("baseline")
    for field, what in (("stuck_events", "stuck events"), ("time_mean", "mean total time")):
        for name in ("ours", "ours_tuned"):
            paper = _change(PAPER_TABLE1["baseline"][field], PAPER_TABLE1[name][field])
            mine = "not run"
            if base is not None and name in summary:
                mine = _change(base.get(field), summary[name].get(field))
            lines.append(
                f"{what}, {follower_title(name)} vs baseline: paper {paper}, steerlab {mine}"
            )
    return lines


def _run_line(summary: Mapping) -> str:
    seeds = summary["seed_list"]
    return (
        f"Suite `{summary['suite']}` v{summary['suite_version']} (sha256 "
        f"{summary['suite_hash'][:12]}), {len(summary['paths'])} paths x "
        f"{len(summary['vehicles'])} vehicles x {len(summary['followers'])} followers x "
        f"{len(seeds)} seed{'s' if len(seeds) != 1 else ''} "
        f"({', '.join(str(seed) for seed in seeds)}); steerlab {summary['steerlab_version']}"
        + ("; quick subset" if summary.get("quick") else "")
        + ". With several seeds each cell is the mean ± sample std over the seeds of that seed's "
        "Table I."
    )


def render_markdown(summary: Mapping) -> str:
    """``table1.md``: our Table I beside the paper's, the headline claims, stuck events per
    path."""
    lines = ["# Table I: steerlab beside seed 001", "", _run_line(summary), ""]
    lines.append(numbers_table(*_table(summary)))
    lines += ["", "Headline claims (seed 001: 70 % fewer stuck events, 39 % less time):", ""]
    lines += [f"- {line}" for line in _headlines(summary)]
    lines += ["", "Stuck events per path (steerlab only; the paper gives none):", ""]
    lines.append(numbers_table(*_path_table(summary)))
    return "\n".join(lines) + "\n"


def _path_table(summary: Mapping) -> tuple[list[str], list[list[str]]]:
    followers = [name for name in summary["followers"] if name in summary]
    header = ["Path"] + [follower_title(name) for name in followers]
    body = []
    for path in summary["paths"]:
        line = [path]
        for name in followers:
            entry = summary[name]
            mean, std = entry["stuck_by_path"].get(path), entry["stuck_by_path_std"].get(path)
            if mean is None:
                line.append("n/a")
            elif std is None:
                line.append(f"{mean:.0f}")
            else:
                line.append(f"{mean:.1f} ± {std:.1f}")
        body.append(line)
    return header, body


def render_html_table(summary: Mapping) -> str:
    """The side-by-side Table I as an HTML ``<table>`` (no page around it)."""
    return render_page("table1_table.html", table=_table(summary))


def _summary_context(summary: Mapping) -> dict[str, Any]:
    """What ``table1_summary.html`` shows: the run, Table I, the headlines, the paths' table."""
    return {
        "run_line": _run_line(summary).replace("`", ""),
        "table": _table(summary),
        "headlines": _headlines(summary),
        "path_table": _path_table(summary),
    }


def write_report(out_dir, summary: Mapping, figures: Sequence = ()) -> list[Path]:
    """Write ``summary.json``, ``table1.md``, ``table1.html`` and ``report.html`` into
    ``out_dir``; ``figures``: ``(path, title, caption)`` items
    (``steerlab.experiments.benchmark.table1_figures``), linked
    from ``report.html`` by their path relative to ``out_dir``. Returns the files written."""
    folder = Path(out_dir)
    written = []
    text = json.dumps(summary, indent=2, allow_nan=False) + "\n"
    written.append(write_text(folder / "summary.json", text))
    written.append(write_text(folder / "table1.md", render_markdown(summary)))
    context = _summary_context(summary)
    written.append(
        write_text(
            folder / "table1.html",
            render_page("table1.html", title="Table I: steerlab", **context),
        )
    )
    files = [
        (name, name)
        for name in (RESULTS_FILE, "results.parquet", "run.json", "summary.json", "table1.md")
        if (folder / name).exists() or name in ("summary.json", "table1.md")
    ]
    shown = [_figure_context(folder, figure) for figure in figures]
    page = render_page(
        "table1_report.html",
        title="steerlab Table I report",
        files=files,
        figures=shown,
        **context,
    )
    written.append(write_text(folder / "report.html", page))
    return written


def _figure_context(folder: Path, figure: Sequence) -> dict[str, Any]:
    """A figure of ``report.html``: its file relative to ``folder``, title, caption, and the
    replays it shows as links into ``REPLAYS_FOLDER``: the trials, then their stuck events (each
    opening its replay at the event, a link with a query)."""
    path, title, caption = figure[:3]
    links = figure[3] if len(figure) > 3 else ()
    replays = [(text, f"{REPLAYS_FOLDER}/{href}") for text, href in links]
    return {
        "id": Path(path).stem,
        "href": Path(os.path.relpath(Path(path).resolve(), folder.resolve())).as_posix(),
        "title": title,
        "caption": caption,
        "replays": [(text, href) for text, href in replays if "?" not in href],
        "events": [(text, href) for text, href in replays if "?" in href],
    }


def write_text(path: Path, text: str) -> Path:
    """Write a report file atomically (temporary file, then renamed)."""
    temporary = path.with_name(f".{path.name}.tmp")
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    except OSError as error:
        temporary.unlink(missing_ok=True)
        raise OSError(
            error.errno,
            f"cannot write {path.name} in the output folder {path.parent}: "
            f"{error.strerror or error}",
        ) from error
    return path


def write_summary_files(out_dir, summary: Mapping, name: str, markdown: str, page: str) -> list:
    """A suite's ``summary.json``, ``NAME.md`` and ``NAME.html`` in ``out_dir``, each written
    atomically (``write_text``); the files written. The external, racetracks and maps suites'
    reports."""
    folder = Path(out_dir)
    text = json.dumps(summary, indent=2, allow_nan=False) + "\n"
    return [
        write_text(folder / "summary.json", text),
        write_text(folder / f"{name}.md", markdown),
        write_text(folder / f"{name}.html", page),
    ]


# --------------------------------------------------------------------------------------------------
# the run


def steerlab_version() -> str:
    """The installed steerlab's version (``"unknown"`` from a source tree not installed)."""
    try:
        return metadata.version("steerlab")
    except metadata.PackageNotFoundError:
        return "unknown"


def _log(progress: bool, message: str) -> None:
    if progress:
        print(message, file=sys.stderr, flush=True)


def custom_subjects(specs: Iterable[TrialSpec]) -> dict:
    """The user's own vehicles and followers of a run's specs (files, records), as JSON:
    ``{"vehicles": {name: VehicleParams fields}, "followers": {name: {"follower": ...,
    "params": {...}}}}``, only the kinds present (infinities written as text). The run's
    manifest holds it (a file changed between two runs of one folder is refused as another
    run), the summary too (what ``my_buggy`` was); ``subjects_of_summary`` reads it back."""
    vehicles, followers = {}, {}
    for spec in specs:
        if isinstance(spec.vehicle, NamedVehicle):
            vehicles[spec.vehicle.name] = {
                field: (value if math.isfinite(value) else str(value))
                for field, value in spec.vehicle.params._asdict().items()
            }
        if isinstance(spec.follower, NamedFollower):
            followers[spec.follower.name] = {
                "follower": spec.follower.follower,
                "params": {
                    field: (
                        value
                        if not isinstance(value, float) or math.isfinite(value)
                        else str(value)
                    )
                    for field, value in spec.follower.params._asdict().items()
                },
            }
    chosen = {"vehicles": vehicles, "followers": followers}
    return {kind: entries for kind, entries in chosen.items() if entries}


def subjects_of_summary(summary: Mapping) -> tuple[dict, dict]:
    """``(vehicles, followers)``: each name of a summary's ``vehicles`` / ``followers`` as a
    ``TrialSpec`` takes it (a registry name, or the ``NamedVehicle`` / ``NamedFollower`` its
    ``custom`` entry describes)."""
    custom = summary.get("custom") or {}
    vehicles = {}
    for name in summary["vehicles"]:
        fields = custom.get("vehicles", {}).get(name)
        vehicles[name] = (
            name
            if fields is None
            else NamedVehicle(
                name,
                VehicleParams(
                    **{
                        field: float(value) if isinstance(value, str) else value
                        for field, value in fields.items()
                    }
                ),
            )
        )
    followers = {}
    for name in summary["followers"]:
        entry = custom.get("followers", {}).get(name)
        followers[name] = (
            name
            if entry is None
            else NamedFollower(
                name,
                entry["follower"],
                FollowerParams(
                    **{
                        field: float(value) if isinstance(value, str) else value
                        for field, value in entry["params"].items()
                    }
                ),
            )
        )
    return vehicles, followers


def _warm_up(followers: Sequence, vehicle, tuned_dir) -> None:
    """Compile (or load from numba's cache) every kernel a trial of ``followers`` runs, in this
    process, on a 0.1 s trial of a small built-in world (a hill, walls): forked workers inherit
    the compiled kernels and spawned or Ray workers find them in the disk cache, so a cold cache
    is compiled once, not once per worker (about a minute of CPU each on this machine). A
    trial launches no numba thread, so the runner may still fork."""
    from steerlab.trials.suite import HillSpec, PathSpec, SuiteSpec
    from steerlab.trials.trial import simulate_trial

    spec = SuiteSpec(
        name="warm_up",
        version=1,
        time_limit=0.1,
        terrain_margin=5.0,
        paths=(
            PathSpec(
                name="road",
                waypoints=((0.0, 0.0), (10.0, 0.0), (10.0, 10.0)),
                corridor_width=4.0,
                walled=True,
                hills=(HillSpec(center=(5.0, 0.0), height=1.0, max_grade_deg=10.0),),
            ),
        ),
    )
    suite = Suite(spec, "warm_up")
    classes = {}
    for name in followers:
        base = name.follower if isinstance(name, NamedFollower) else name
        classes.setdefault(follower_class(base), name)  # ours and ours_tuned: one class
    for name in classes.values():
        simulate_trial(TrialSpec(suite, "road", vehicle, name, 0, tuned_dir))


def run_table1(
    out_dir,
    *,
    suite="table1",
    vehicles=None,
    followers=None,
    seeds=None,
    workers=None,
    ray: bool = False,
    ray_address=None,
    quick: bool = False,
    progress: bool = True,
    tuned_dir=None,
    figures: Callable[..., Sequence] | None = None,
) -> dict:
    """Run Table I's trials into ``out_dir`` and write the summary, the tables and the report.

    Parameters
    ----------
    out_dir : path
        The run's folder (``steerlab.runner``): an interrupted run resumes there; a folder
        of another suite, version, selection or tuned presets is refused.
    suite : str or Suite
        ``"table1"`` (default), ``"train"`` or a suite file.
    vehicles, followers : list of str or comma-separated str, optional
        Default every vehicle preset and ``default_followers``.
    seeds : int or list of int, optional
        A count (seeds ``0 .. n - 1``) or the seeds; default the suite's (3 for ``table1``).
    workers, ray, ray_address
        The runner's (default: one process per core).
    quick : bool
        The quick subset (module docstring).
    progress : bool
        The runner's progress bar and a line per phase, on stderr.
    tuned_dir : path, optional
        The folder of ``ours_tuned``'s presets (default the shipped one).
    figures : callable, optional
        The figure maker, ``steerlab.experiments.benchmark.table1_figures.make_figures`` (what
        ``steerlab bench`` passes:
        the benchmark layer does not import the plot layer above it); called as ``figures(folder,
        suite, rows, summary, tuned_dir=..., progress=..., replay_dir=...)`` and returning the
        drawn ``ReportFigure`` items; ``replay_dir`` is ``out_dir / "replays"``, where it writes
        the replay pages the report links. ``None`` (default): tables and report only.

    Returns
    -------
    dict
        The summary, as written to ``summary.json``.

    Raises
    ------
    ValueError
        A bad selection (``select_trials``), or a folder holding another run (the runner's
        message).
    OSError
        The folder cannot be created or written.
    RuntimeError
        Another run holds the folder, or the worker pool failed.
    ImportError
        ``ray=True`` without Ray.
    """
    loaded, specs = select_trials(
        suite,
        vehicles=vehicles,
        followers=followers,
        seeds=seeds,
        quick=quick,
        tuned_dir=tuned_dir,
    )
    follower_names = list(dict.fromkeys(spec.follower_name for spec in specs))
    vehicle_names = list(dict.fromkeys(spec.vehicle_name for spec in specs))
    custom = custom_subjects(specs)
    path_names = list(dict.fromkeys(spec.path for spec in specs))
    seed_list = list(dict.fromkeys(spec.seed for spec in specs))
    version = steerlab_version()
    digest = (
        tuned_digest(vehicle_names, tuned_dir or None) if "ours_tuned" in follower_names else None
    )
    manifest = {
        "kind": SUMMARY_FORMAT,
        "suite": loaded.name,
        "suite_version": loaded.version,
        "suite_hash": loaded.hash,
        "steerlab_version": version,
        "tuned_digest": digest,
        "columns": list(ROW_COLUMNS),
        **({"custom": custom} if custom else {}),
    }
    _log(
        progress,
        f"Table I: {len(specs)} trials ({len(path_names)} paths x {len(vehicle_names)} vehicles "
        f"x {len(follower_names)} followers x {len(seed_list)} seed"
        f"{'s' if len(seed_list) != 1 else ''}) into {out_dir}",
    )
    if ray or ray_address is not None or workers is None or workers > 1:
        _warm_up(
            list(dict.fromkeys(spec.follower for spec in specs)),
            specs[0].vehicle,
            specs[0].tuned_dir,
        )
    rows = run_tasks(
        [Task(spec.key, spec) for spec in specs],
        run_trial,
        out_dir,
        columns=RESULT_COLUMNS,
        manifest=manifest,
        workers=workers,
        ray=ray,
        ray_address=ray_address,
        progress=progress,
        counter="stuck_events",
    )
    entries = aggregate(
        rows, followers=follower_names, vehicles=vehicle_names, paths=path_names, seeds=seed_list
    )
    summary: dict[str, Any] = {
        "format": SUMMARY_FORMAT,
        "suite": loaded.name,
        "suite_version": loaded.version,
        "suite_hash": loaded.hash,
        "suite_source": loaded.source,
        "seeds": len(seed_list),
        "seed_list": seed_list,
        "steerlab_version": version,
        "quick": bool(quick),
        "followers": follower_names,
        "vehicles": vehicle_names,
        "paths": path_names,
        "tuned_digest": digest,
        "custom": custom,
        "trials_total": len(rows),
        "errors_total": sum(1 for row in rows if row.get("error")),
        "paper": {"trials": PAPER_TRIALS, **PAPER_TABLE1},
        **entries,
    }
    drawn = []
    if figures is not None:
        _log(progress, "Table I: figures")
        drawn = figures(
            Path(out_dir) / "figures",
            loaded,
            rows,
            summary,
            tuned_dir=tuned_dir,
            progress=progress,
            replay_dir=Path(out_dir) / REPLAYS_FOLDER,
        )
    write_report(out_dir, summary, drawn)
    _log(progress, f"Table I: report {Path(out_dir) / 'report.html'}")
    return summary
