"""The report of the ``external`` suite (``steerlab.experiments.benchmark.external``): summary,
tables, record.

``summarize(rows, record)`` aggregates the runner's rows per plant and follower, over every path
and seed of the plant (each trial weighs the same, as in Table I's means):

- ``trials`` (rows, errored tasks included), ``laps_completed`` (``lap_completed``: CarRacing's own
  lap flag, the observer's arrival on the other paths), ``completed`` (the observer's arrival),
  ``failed`` (the trial ended on a simulator failure: ``PlantDiverged``, an exception in a step,
  a non-finite state, the car off CarRacing's playfield), ``errors`` (a task that raised before its
  trial ran: no metrics);
- ``stuck_events`` (total), ``stuck_trials``;
- ``cte_mean``: the mean over trials of each trial's mean ``|cross-track error|`` [m];
  ``cte_max``: the largest ``|cross-track error|`` of any trial [m]; ``cte_max_mean``: the mean
  over trials of each trial's largest;
- ``inside_corridor_mean`` [%], ``time_mean`` [s] (an uncompleted trial counts its time limit),
  ``speed_mean`` [m/s].

``write_report`` writes ``summary.json``, ``external.md`` and ``external.html``: the table per plant
and follower, "ours vs baseline" (laps and cross-track error; reported, not targeted), laps per
path, the failures' reasons, and the record's per-plant overrides with their reasons (the record
is part of the result: its hash is in ``run.json``). Conventions as
``steerlab.experiments.benchmark.table1``'s
report (atomic writes, the same HTML page).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from steerlab.experiments.benchmark.table1 import (
    follower_title,
    steerlab_version,
    write_summary_files,
)
from steerlab.experiments.markdown import numbers_table
from steerlab.experiments.pages import render_page
from steerlab.follower.params import FollowerParams
from steerlab.runner import RESULTS_FILE
from steerlab.trials.observer import OBSERVER

__all__ = ["SUMMARY_FORMAT", "render_html", "render_markdown", "summarize", "write_report"]

SUMMARY_FORMAT = "steerlab.external/1"

_FAILURE_EXAMPLES = 3  # reasons kept per plant and follower


def _mean(values: Iterable[float]) -> float | None:
    finite = [float(v) for v in values if v is not None and math.isfinite(v)]
    return float(np.mean(finite)) if finite else None


def _maximum(values: Iterable[float]) -> float | None:
    finite = [float(v) for v in values if v is not None and math.isfinite(v)]
    return float(max(finite)) if finite else None


def _cells(rows: Sequence[Mapping]) -> dict[str, Any]:
    ok = [row for row in rows if not row.get("error")]
    failures = [row["failed"] for row in ok if row.get("ended") == "failed"]
    return {
        "trials": len(rows),
        "laps_completed": sum(1 for row in ok if row["lap_completed"]),
        "completed": sum(1 for row in ok if row["completed"]),
        "failed": len(failures),
        "errors": len(rows) - len(ok),
        "stuck_events": sum(int(row["stuck_events"]) for row in ok),
        "stuck_trials": sum(1 for row in ok if int(row["stuck_events"]) >= 1),
        "cte_mean": _mean(row["cte_mean"] for row in ok),
        "cte_max": _maximum(row["cte_max"] for row in ok),
        "cte_max_mean": _mean(row["cte_max"] for row in ok),
        "inside_corridor_mean": _mean(row["inside_corridor"] for row in ok),
        "time_mean": _mean(row["time"] for row in ok),
        "speed_mean": _mean(row["speed_mean"] for row in ok),
        "failure_examples": list(dict.fromkeys(failures))[:_FAILURE_EXAMPLES],
        "error_examples": list(
            dict.fromkeys(str(row["error"]) for row in rows if row.get("error"))
        )[:_FAILURE_EXAMPLES],
    }


def summarize(
    rows: Iterable[Mapping],
    record,
    *,
    plants: Sequence[str] | None = None,
    followers: Sequence[str] | None = None,
    quick: bool = False,
) -> dict[str, Any]:
    """The run's summary (module docstring): ``cells[plant][follower]``,
    ``by_path[plant][path][follower]`` (the same figures per path), ``ours_vs_baseline[plant]``
    and the record's content.

    ``rows``: the runner's rows (``steerlab.experiments.benchmark.external.ROW_TYPES`` plus
    ``error``); ``record``: the ``ExternalRecord`` run; ``plants`` / ``followers``: the report's
    order (default: as met in the rows).
    """
    rows = list(rows)
    plant_names = (
        list(plants) if plants is not None else list(dict.fromkeys(r["plant"] for r in rows))
    )
    follower_names = (
        list(followers)
        if followers is not None
        else list(dict.fromkeys(row["follower"] for row in rows))
    )
    cells: dict[str, dict] = {}
    by_path: dict[str, dict] = {}
    versus: dict[str, dict] = {}
    for plant in plant_names:
        mine = [row for row in rows if row["plant"] == plant]
        cells[plant] = {
            name: _cells([row for row in mine if row["follower"] == name])
            for name in follower_names
        }
        paths = list(dict.fromkeys(row["path"] for row in mine))
        by_path[plant] = {
            path: {
                name: _cells(
                    [row for row in mine if row["path"] == path and row["follower"] == name]
                )
                for name in follower_names
            }
            for path in paths
        }
        if "baseline" in follower_names and "ours" in follower_names:
            versus[plant] = {
                name: {
                    field: cells[plant][name][field]
                    for field in ("trials", "laps_completed", "cte_mean", "cte_max", "failed")
                }
                for name in ("baseline", "ours")
            }
    return {
        "format": SUMMARY_FORMAT,
        "record": record.name,
        "record_version": record.version,
        "record_hash": record.hash,
        "record_source": record.source,
        "steerlab_version": steerlab_version(),
        "quick": bool(quick),
        "plants": plant_names,
        "followers": follower_names,
        "trials_total": len(rows),
        "errors_total": sum(1 for row in rows if row.get("error")),
        "failed_total": sum(
            1 for row in rows if not row.get("error") and row.get("ended") == "failed"
        ),
        "cells": cells,
        "by_path": by_path,
        "ours_vs_baseline": versus,
        "record_content": record.as_dict(),
    }


# --------------------------------------------------------------------------------------------------
# tables


def _number(value: float | None, decimals: int) -> str:
    return "n/a" if value is None else f"{value:.{decimals}f}"


def _title(name: str) -> str:
    return follower_title(name)


def _main_table(summary: Mapping) -> tuple[list[str], list[list[str]]]:
    header = [
        "Plant",
        "Follower",
        "Laps completed",
        "Failed",
        "Stuck events",
        "CTE mean (m)",
        "CTE max (m)",
        "Inside corridor (%)",
        "Time mean (s)",
        "Speed mean (m/s)",
    ]
    body = []
    for plant in summary["plants"]:
        for name in summary["followers"]:
            cell = summary["cells"][plant][name]
            body.append(
                [
                    plant,
                    _title(name),
                    f"{cell['laps_completed']}/{cell['trials']}",
                    f"{cell['failed']}"
                    + (f" (+{cell['errors']} errors)" if cell["errors"] else ""),
                    f"{cell['stuck_events']}",
                    _number(cell["cte_mean"], 3),
                    _number(cell["cte_max"], 3),
                    _number(cell["inside_corridor_mean"], 1),
                    _number(cell["time_mean"], 1),
                    _number(cell["speed_mean"], 2),
                ]
            )
    return header, body


def _versus_table(summary: Mapping) -> tuple[list[str], list[list[str]]]:
    header = [
        "Plant",
        "Laps: baseline",
        "Laps: ours",
        "CTE mean (m): baseline",
        "CTE mean (m): ours",
        "CTE max (m): baseline",
        "CTE max (m): ours",
    ]
    body = []
    for plant, pair in summary["ours_vs_baseline"].items():
        base, ours = pair["baseline"], pair["ours"]
        body.append(
            [
                plant,
                f"{base['laps_completed']}/{base['trials']}",
                f"{ours['laps_completed']}/{ours['trials']}",
                _number(base["cte_mean"], 3),
                _number(ours["cte_mean"], 3),
                _number(base["cte_max"], 3),
                _number(ours["cte_max"], 3),
            ]
        )
    return header, body


def _path_table(summary: Mapping) -> tuple[list[str], list[list[str]]]:
    followers = summary["followers"]
    header = ["Plant", "Path"] + [f"{_title(name)}: laps, CTE max (m)" for name in followers]
    body = []
    for plant in summary["plants"]:
        for path, entry in summary["by_path"][plant].items():
            line = [plant, path]
            for name in followers:
                cell = entry[name]
                line.append(
                    f"{cell['laps_completed']}/{cell['trials']}, {_number(cell['cte_max'], 2)}"
                )
            body.append(line)
    return header, body


def _failure_lines(summary: Mapping) -> list[str]:
    lines = []
    for plant in summary["plants"]:
        for name in summary["followers"]:
            cell = summary["cells"][plant][name]
            for reason in cell["failure_examples"]:
                lines.append(f"{plant}, {_title(name)}: failed: {reason}")
            for reason in cell["error_examples"]:
                lines.append(f"{plant}, {_title(name)}: error: {reason}")
    return lines


def _record_table(summary: Mapping) -> tuple[list[str], list[list[str]]]:
    """Every setting a plant changes from its default, with why."""
    header = ["Plant", "Setting", "Value", "Default", "Why"]
    body = []
    defaults = FollowerParams()
    for plant, spec in summary["record_content"]["plants"].items():
        frame = f"{spec['simulator']}" + (
            f" {spec['model'].upper()} (vehicle {spec['vehicle']})" if spec.get("model") else ""
        )
        paths = ", ".join(spec["paths"])
        size = "" if spec.get("radius") is None else f", radius {spec['radius']:g} m"
        body.append(
            [
                plant,
                "plant",
                f"{frame}; dt {spec['dt']:.4g} s; {spec['seeds']} seeds; paths {paths}{size}",
                "",
                f"time limit = path length / {spec['min_mean_speed']:g} m/s",
            ]
        )
        for name, override in spec["params"].items():
            body.append(
                [
                    plant,
                    f"follower {name}",
                    f"{override['value']}",
                    f"{getattr(defaults, name)}",
                    override["why"],
                ]
            )
        for name, override in spec["observer"].items():
            body.append(
                [
                    plant,
                    f"observer {name}",
                    f"{override['value']}",
                    f"{getattr(OBSERVER, name)}",
                    override["why"],
                ]
            )
    return header, body


def _run_line(summary: Mapping) -> str:
    return (
        f"Record `{summary['record']}` v{summary['record_version']} (sha256 "
        f"{summary['record_hash'][:12]}), {summary['trials_total']} trials "
        f"({len(summary['plants'])} plants x {len(summary['followers'])} followers, every path and "
        f"seed of each plant); steerlab {summary['steerlab_version']}"
        + ("; quick subset" if summary.get("quick") else "")
        + ". Laps completed: CarRacing's own lap flag; the other plants: the observer's arrival at "
        "the path's end. CTE: cross-track error; 'CTE mean' is the mean over trials of each "
        "trial's mean, 'CTE max' the largest of any trial."
    )


def render_markdown(summary: Mapping) -> str:
    """``external.md``."""
    lines = ["# External suite: steerlab's followers on third-party simulators", ""]
    lines += [_run_line(summary), "", "## Per plant and follower", ""]
    lines.append(numbers_table(*_main_table(summary), names=2))
    if summary["ours_vs_baseline"]:
        lines += ["", "## Ours vs baseline (reported, not targeted)", ""]
        lines.append(numbers_table(*_versus_table(summary), names=2))
    lines += ["", "## Laps completed and largest cross-track error per path", ""]
    lines.append(numbers_table(*_path_table(summary), names=2))
    failures = _failure_lines(summary)
    lines += ["", "## Failures (first reasons per plant and follower)", ""]
    lines += [f"- {line}" for line in failures] if failures else ["None."]
    lines += ["", "## The record: what each plant changes, and why", ""]
    lines.append(numbers_table(*_record_table(summary), names=5))
    return "\n".join(lines) + "\n"


def render_html(summary: Mapping) -> str:
    """``external.html``: the same content as a page."""
    return render_page(
        "external.html",
        title="steerlab external suite",
        run_line=_run_line(summary).replace("`", ""),
        main_table=_main_table(summary),
        versus_table=_versus_table(summary) if summary["ours_vs_baseline"] else None,
        path_table=_path_table(summary),
        failures=_failure_lines(summary),
        record_table=_record_table(summary),
        files=[
            (name, name) for name in (RESULTS_FILE, "results.parquet", "run.json", "summary.json")
        ],
    )


def write_report(out_dir, summary: Mapping) -> list[Path]:
    """Write ``summary.json``, ``external.md`` and ``external.html`` into ``out_dir``
    (atomically); return the files written."""
    return write_summary_files(
        out_dir, summary, "external", render_markdown(summary), render_html(summary)
    )
