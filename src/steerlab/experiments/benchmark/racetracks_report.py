"""The report of the ``racetracks`` suite (``steerlab.experiments.benchmark.racetracks``).

``summarize(rows, circuits)`` arranges the runner's rows as ``by_track[TRACK][VEHICLE][FOLLOWER]``
(one lap each: the row's figures, non-finite numbers as ``null``, with the runner's ``error``),
beside ``circuits[TRACK]`` (file, SHA-256, points, length, widths, and per vehicle the race line's
bound: ``a_lat_max``, its quasi-steady ``raceline_time`` and slowest ``raceline_speed_min``) and
``by_follower[FOLLOWER]``, totals over every track and vehicle: ``laps``, ``laps_completed``,
``boundary_exits``, ``cte_mean`` (mean over laps), ``lap_time_mean`` (over every lap, an
uncompleted one counting its time limit).

``write_report`` writes ``summary.json``, ``racetracks.md`` and ``racetracks.html``: the circuits,
then a table per circuit (vehicle x follower), in the conventions of Table I's report (atomic
writes, the same HTML page).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from steerlab.experiments.benchmark.racetracks import (
    DT,
    FINISH_TOLERANCE,
    FORMAT,
    KEY_COLUMNS,
    LIMIT_SHARE,
    ROW_TYPES,
)
from steerlab.experiments.benchmark.table1 import write_summary_files
from steerlab.experiments.markdown import numbers_table
from steerlab.experiments.pages import render_page
from steerlab.runner import RESULTS_FILE

__all__ = ["render_html", "render_markdown", "summarize", "write_report"]

CELL_FIELDS = tuple(name for name in ROW_TYPES if name not in KEY_COLUMNS)
"""The figures of one lap in ``by_track`` (every row column but the key), then ``error``."""


def _finite(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _mean(values: Iterable) -> float | None:
    finite = [float(v) for v in values if v is not None and math.isfinite(v)]
    return sum(finite) / len(finite) if finite else None


def summarize(
    rows: Iterable[Mapping],
    circuits: Mapping[str, Mapping],
    *,
    vehicles: Sequence[str],
    followers: Sequence[str],
    quick: bool = False,
    steerlab_version: str = "",
    tuned_digest: str | None = None,
) -> dict[str, Any]:
    """The run's summary (module docstring).

    ``rows``: the runner's rows (``ROW_TYPES`` plus ``error``); ``circuits``: per track name, what
    the run says of the circuit (``racetracks._track_record``), in the report's order.
    """
    rows = list(rows)
    by_track: dict[str, dict] = {name: {v: {} for v in vehicles} for name in circuits}
    for row in rows:
        cell = {name: _finite(row.get(name)) for name in CELL_FIELDS}
        cell["error"] = row.get("error")
        by_track[row["track"]][row["vehicle"]][row["follower"]] = cell
    by_follower = {}
    for follower in followers:
        mine = [row for row in rows if row["follower"] == follower and not row.get("error")]
        by_follower[follower] = {
            "laps": sum(1 for row in rows if row["follower"] == follower),
            "laps_completed": sum(1 for row in mine if row["lap_completed"]),
            "boundary_exits": sum(int(row["boundary_exits"]) for row in mine),
            "cte_mean": _mean(row["cte_mean"] for row in mine),
            "lap_time_mean": _mean(row["lap_time"] for row in mine),
        }
    return {
        "format": FORMAT,
        "steerlab_version": steerlab_version,
        "quick": bool(quick),
        "dt": DT,
        "limit_share": LIMIT_SHARE,
        "finish_tolerance": FINISH_TOLERANCE,
        "tuned_digest": tuned_digest,
        "tracks": list(circuits),
        "vehicles": list(vehicles),
        "followers": list(followers),
        "trials_total": len(rows),
        "errors_total": sum(1 for row in rows if row.get("error")),
        "circuits": {name: dict(record) for name, record in circuits.items()},
        "by_track": by_track,
        "by_follower": by_follower,
    }


def _number(value, decimals: int) -> str:
    return "n/a" if value is None else f"{value:.{decimals}f}"


def _run_line(summary: Mapping) -> str:
    return (
        f"{summary['trials_total']} laps ({len(summary['tracks'])} circuits x "
        f"{len(summary['vehicles'])} vehicles x {len(summary['followers'])} followers), "
        f"steerlab {summary['steerlab_version']}" + ("; quick subset" if summary["quick"] else "")
        + f". One lap from rest on the centre line's first point, frame {summary['dt']} s; the "
        "lap ends at the start line, or at the time limit (lap length / "
        f"({summary['limit_share']} x min(vehicle max speed, follower v_max))). Exits: the "
        "vehicle's centre leaving the track (left / right of the centre line beyond the width "
        "on that side). CTE: cross-track error to the centre line. Bound: the race line's "
        "sqrt(a_lat / curvature) at the vehicle's place, capped at the vehicle's top speed; a_lat "
        "is mu g (the hovercraft: its skirt's lateral friction x g)."
    )  # fmt: skip


def _circuit_table(summary: Mapping) -> tuple[list[str], list[list[str]]]:
    vehicles = summary["vehicles"]
    header = ["circuit", "points", "length m", "width m", "race line"]
    header += [f"{vehicle}: race line s (min m/s)" for vehicle in vehicles]
    body = []
    for name in summary["tracks"]:
        record = summary["circuits"][name]
        line = [
            name,
            f"{record['points']}",
            f"{record['length']:.0f}",
            f"{record['width_min']:.1f}-{record['width_max']:.1f}",
            "yes" if record["raceline"] else "no",
        ]
        for vehicle in vehicles:
            bound = record["bounds"][vehicle]
            line.append(
                "n/a"
                if bound["raceline_time"] is None
                else f"{bound['raceline_time']:.0f} ({bound['raceline_speed_min']:.1f})"
            )
        body.append(line)
    return header, body


_LAP_HEADER = [
    "vehicle",
    "follower",
    "lap",
    "lap time s",
    "exits L/R",
    "off track %",
    "CTE mean m",
    "CTE max m",
    "a_lat peak / max",
    "target m/s",
    "bound m/s",
    "target > bound %",
]


def _lap_table(summary: Mapping, track: str) -> tuple[list[str], list[list[str]]]:
    body = []
    for vehicle in summary["vehicles"]:
        for follower in summary["followers"]:
            cell = summary["by_track"][track][vehicle].get(follower)
            if cell is None:
                continue
            if cell["error"]:
                body.append([vehicle, follower, "error", *["n/a"] * 9])
                continue
            lap = "yes" if cell["lap_completed"] else cell["ended"]
            body.append(
                [
                    vehicle,
                    follower,
                    lap,
                    _number(cell["lap_time"], 1),
                    f"{cell['exits_left']}/{cell['exits_right']}",
                    _number(cell["outside_share"], 1),
                    _number(cell["cte_mean"], 2),
                    _number(cell["cte_max"], 2),
                    f"{_number(cell['a_lat_peak'], 1)} / {_number(cell['a_lat_max'], 1)}",
                    _number(cell["target_speed_mean"], 2),
                    _number(cell["bound_speed_mean"], 2),
                    _number(cell["target_over_bound"], 1),
                ]
            )
    return _LAP_HEADER, body


def _follower_table(summary: Mapping) -> tuple[list[str], list[list[str]]]:
    header = ["follower", "laps completed", "boundary exits", "CTE mean m", "lap time mean s"]
    body = [
        [
            follower,
            f"{entry['laps_completed']}/{entry['laps']}",
            f"{entry['boundary_exits']}",
            _number(entry["cte_mean"], 2),
            _number(entry["lap_time_mean"], 1),
        ]
        for follower, entry in summary["by_follower"].items()
    ]
    return header, body


def render_markdown(summary: Mapping) -> str:
    """``racetracks.md``."""
    lines = ["# Racetracks: one lap of real circuits", "", _run_line(summary), ""]
    lines += ["## Circuits", "", numbers_table(*_circuit_table(summary))]
    lines += ["", "## Per follower, over every circuit and vehicle", ""]
    lines += [numbers_table(*_follower_table(summary))]
    for track in summary["tracks"]:
        lines += ["", f"## {track}", "", numbers_table(*_lap_table(summary, track), names=2)]
    return "\n".join(lines) + "\n"


def render_html(summary: Mapping) -> str:
    """``racetracks.html``: the same content as a page (template ``tables.html``)."""
    sections = [
        ("Circuits", *_circuit_table(summary)),
        ("Per follower, over every circuit and vehicle", *_follower_table(summary)),
        *((track, *_lap_table(summary, track)) for track in summary["tracks"]),
    ]
    files = [(name, name) for name in (RESULTS_FILE, "run.json", "summary.json", "racetracks.md")]
    return render_page(
        "tables.html",
        title="steerlab racetracks suite",
        heading="Racetracks: one lap of real circuits",
        run_line=_run_line(summary),
        sections=sections,
        files=files,
    )


def write_report(out_dir, summary: Mapping) -> list[Path]:
    """Write ``summary.json``, ``racetracks.md`` and ``racetracks.html`` into ``out_dir``
    (atomically); return the files written."""
    return write_summary_files(
        out_dir, summary, "racetracks", render_markdown(summary), render_html(summary)
    )
