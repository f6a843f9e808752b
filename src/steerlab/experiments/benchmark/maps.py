"""The ``maps`` suite: seed 002's navigators driving a Half-Life bot over real bot nav data.

``steerlab bench --suite maps [--maps FILE[,FILE...]]``: per map, seeded random routes between
its waypoints, each driven by each seed-002 navigator at frame times a Half-Life server runs, on
the same resumable runner as Table I (``steerlab.runner``), with a summary and a report.

Protocol (every free choice, with its reason; fixed before any result was seen, a change is a new
``FORMAT``):

- **Maps**: the files given (``load_navdata``: JK_Botti ``.wpt``, YaPB ``.graph``, steerlab's
  TOML/JSON waypoints), else the thirteen JK_Botti maps steerlab ships
  (``steerlab.navigation.shipped_maps``). A map is named by its file's stem.
- **Routes**: ``ROUTES`` per map (8: enough to meet a map's kinds of turns, cheap enough for a
  default run), drawn by a ``numpy`` Generator seeded with the SHA-256 of ``(map name, route
  index)``: the same routes in every process. Start and goal are two waypoints drawn uniformly
  whose horizontal distance is at least ``MIN_SPAN`` (512 u, two rooms: a shorter route says
  little about navigation) and between which ``find_route`` (A*) finds a route; a pair that fails
  is drawn again, at most ``DRAWS`` times (then the map has fewer routes, said in the summary).
- **The bot**: seed 004's Half-Life engine with its cvars (``HalfLifeParams()``: accelerate 5,
  friction 4, stopspeed 75, maxspeed 320, the SDK's order), spawned at rest on the start
  waypoint, facing the second waypoint.
- **Navigators** (``NAVIGATORS``), each with its defaults, as a user would first run it:
  ``towards`` = ``TowardsPoints(route)``, ``along_v1`` = ``AlongSegments(route, version=1)``,
  ``along_v2`` = ``AlongSegments(route, version=2)`` (both with the Half-Life engine's terms,
  their default).
- **Frame times** ``FRAME_TIMES`` = 0.01, 0.02 and 0.05 s: a 100 Hz listen server, the common
  50 Hz, and the slowest frame a Half-Life server runs (``sys_ticrate`` 20).
- **End**: arrival, judged by the observer (not by the navigator): the first frame whose swept
  segment comes within the goal's reach (its radius, ``TOUCH_RADIUS`` for a touch point of radius
  0) of the goal (``corridor_metrics``' ``time_to_goal``); or the time limit
  ``LIMIT_BASE + LIMIT_FACTOR * length / maxspeed`` (10 s + 4 times the route at full speed: room
  for every turn, short enough that a lost bot costs little).
- **Metrics** of the frames up to the end: arrived, time (the limit when not arrived), the share
  of frames inside the route's corridor (capsules, ``corridor_metrics``), the largest overshoot at
  a turn, the mean distance to the route, and stalls by Table I's observer
  (``steerlab.trials.observer``, in Half-Life units): progress along the route tracked within
  ``PROJECTION_BACK`` (64 u) behind and ``PROJECTION_AHEAD`` (640 u, 2 s at full speed) ahead of
  the last frame's, a stuck event per ``STUCK_SECONDS`` (2 s) without ``STUCK_DISTANCE`` (32 u,
  a player's width) of progress, over the frames the navigator drove into (frames after a zero
  speed command, a ladder's climb held on purpose, are left out, the clock closing over them);
  stall episodes by ``steerlab.trials.stalls`` (an episode closes
  ``EPISODE_DISTANCE``, 64 u, past its best progress: twice the observer's distance, so the
  progress that ends an event's window cannot end the episode).

Heights: the engines move in the plane; routes are searched in 3-D (a ladder's two waypoints
coincide in the plane), corridors and distances are horizontal (``corridor_metrics``). What the
nav data's flags ask (ladders, jumps, crouching) is the navigators' own business.

``summary.json``: ``by_map[MAP][NAVIGATOR]`` with ``routes`` (trials), ``arrival_rate``,
``time_mean``, ``inside_share_mean``, ``overshoot_mean``, ``stuck_episodes``, and the same per
frame time under ``by_dt``; ``maps[MAP]`` (file, SHA-256, waypoints, routes drawn).
"""

from __future__ import annotations

import functools
import hashlib
import math
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from steerlab.engines import AgentState, HalfLifeEngine, HalfLifeParams
from steerlab.experiments.markdown import numbers_table
from steerlab.experiments.pages import render_page
from steerlab.geometry import Polyline
from steerlab.navigation import (
    AlongSegments,
    NoRouteError,
    Route,
    TowardsPoints,
    corridor_metrics,
    find_route,
    load_navdata,
    shipped_maps,
)
from steerlab.navigation.navdata import TOUCH_RADIUS
from steerlab.runner import RESULTS_FILE, Task, run_tasks
from steerlab.sim import simulate
from steerlab.trials.observer import ObserverSettings, trial_metrics
from steerlab.trials.stalls import stall_counts

__all__ = [
    "DRAWS",
    "FORMAT",
    "FRAME_TIMES",
    "MIN_SPAN",
    "NAVIGATORS",
    "ROUTES",
    "ROW_TYPES",
    "MapTrialSpec",
    "map_routes",
    "map_trials",
    "run_map_trial",
    "run_maps",
    "stalls",
]

FORMAT = "steerlab.maps/2"
ROUTES = 8
MIN_SPAN = 512.0  # [u]
DRAWS = 200
FRAME_TIMES = (0.01, 0.02, 0.05)  # [s]
NAVIGATORS = ("towards", "along_v1", "along_v2")
PARAMS = HalfLifeParams()
LIMIT_BASE = 10.0  # [s]
LIMIT_FACTOR = 4.0
STUCK_DISTANCE = 32.0  # [u]
STUCK_SECONDS = 2.0  # [s]
PROJECTION_BACK = 64.0  # [u]
PROJECTION_AHEAD = 640.0  # [u]
EPISODE_DISTANCE = 64.0  # [u]
QUICK_MAPS = 1
QUICK_ROUTES = 2
QUICK_FRAME_TIMES = (0.02,)

KEY_COLUMNS = ("map", "route", "navigator", "frame_ms")
ROW_TYPES = {
    "map": str,
    "route": int,
    "navigator": str,
    "frame_ms": int,
    "dt": float,
    "start": str,
    "goal": str,
    "waypoints": int,
    "length": float,
    "time_limit": float,
    "arrived": bool,
    "time": float,
    "inside_share": float,
    "max_turn_overshoot": float,
    "mean_abs_cross_track": float,
    "stuck_events": int,
    "stuck_episodes": int,
    "frames": int,
}
"""The typed columns of ``results.csv``, key first."""


class MapTrialSpec(NamedTuple):
    """One trial: a route of a map driven by a navigator at a frame time (picklable)."""

    map: str  # the nav data file's path
    route: int  # index among the map's drawn routes
    start: str  # waypoint ids
    goal: str
    navigator: str
    dt: float

    @property
    def key(self) -> tuple[str, int, str, int]:
        """``(map name, route, navigator, frame time in ms)``."""
        return (Path(self.map).stem, self.route, self.navigator, round(1000.0 * self.dt))


@functools.lru_cache(maxsize=32)
def _nav(path: str):
    return load_navdata(path)


def _generator(name: str, index: int) -> np.random.Generator:
    digest = hashlib.sha256(f"{name}\0{index}".encode()).digest()
    return np.random.default_rng(np.random.SeedSequence(int.from_bytes(digest, "little")))


def map_routes(path, count: int = ROUTES) -> list[tuple[str, str]]:
    """The ``(start, goal)`` waypoint ids of a map's routes (module docstring, "Routes")."""
    nav = _nav(str(path))
    ids = [waypoint.id for waypoint in nav.waypoints]
    plane = np.array([waypoint.position[:2] for waypoint in nav.waypoints], dtype=np.float64)
    name = Path(path).stem
    routes = []
    for index in range(count):
        rng = _generator(name, index)
        for _ in range(DRAWS):
            a, b = (int(i) for i in rng.choice(len(ids), size=2, replace=False))
            if math.dist(plane[a], plane[b]) < MIN_SPAN:
                continue
            try:
                find_route(nav, ids[a], ids[b])
            except NoRouteError:
                continue
            routes.append((ids[a], ids[b]))
            break
    return routes


def _navigator(name: str, route: Route):
    if name == "towards":
        return TowardsPoints(route)
    return AlongSegments(route, version=1 if name == "along_v1" else 2)


def stalls(route: Route, trace, limit: float, goal_radius: float):
    """``(stuck events, stall episodes)`` of a run (module docstring, "Metrics"): Table I's
    observer on the route in the plane, over the frames the navigator drove into (a frame whose
    speed command was zero, a ladder's climb, is left out, the clock closing over it), then
    ``trials.stalls``' episodes."""
    points = route.positions[:, :2]
    path = Polyline(points, widths=route.widths)
    observer = ObserverSettings(
        stuck_distance=STUCK_DISTANCE,
        stuck_window=STUCK_SECONDS,
        arrival_radius=goal_radius,
        projection_back=PROJECTION_BACK,
        projection_ahead=PROJECTION_AHEAD,
    )
    driven = np.concatenate(([True], np.asarray(trace.commands["speed"]) > 0.0))
    dt = float(trace.t[1] - trace.t[0]) if trace.t.size > 1 else 1.0
    t = trace.t[0] + dt * np.arange(int(np.count_nonzero(driven)))
    x, y = trace.x[driven], trace.y[driven]
    speed = np.hypot(trace.vx, trace.vy)[driven]
    _, frames = trial_metrics(path, t, x, y, speed, time_limit=limit, observer=observer)
    kept = slice(0, frames.end + 1)  # the counted frames (the observer sets no others)
    counts = stall_counts(
        t[kept],
        x[kept],
        y[kept],
        frames.s[kept],
        frames.stuck_event[kept],
        distance=EPISODE_DISTANCE,
    )
    return counts.events, counts.episodes


def run_map_trial(spec: MapTrialSpec) -> dict:
    """The row of one trial (``ROW_TYPES``; module docstring)."""
    nav = _nav(spec.map)
    route = find_route(nav, spec.start, spec.goal)
    points = route.positions[:, :2]
    length = float(np.sum(np.hypot(*np.diff(points, axis=0).T)))
    limit = LIMIT_BASE + LIMIT_FACTOR * length / PARAMS.maxspeed
    moving = np.flatnonzero(np.hypot(*(points[1:] - points[0]).T) > 0.0)
    dx, dy = points[1 + moving[0]] - points[0] if moving.size else (1.0, 0.0)
    start = AgentState(points[0, 0], points[0, 1], 0.0, 0.0, math.atan2(dy, dx))
    trace = simulate(
        HalfLifeEngine(PARAMS),
        _navigator(spec.navigator, route),
        start,
        spec.dt,
        math.ceil(limit / spec.dt - 1e-9),
    )
    goal_radius = float(route.radii[-1]) or TOUCH_RADIUS
    whole = corridor_metrics(trace, route, goal_radius=goal_radius)
    arrived = math.isfinite(whole.time_to_goal)
    end = int(np.searchsorted(trace.t, whole.time_to_goal)) + 1 if arrived else trace.t.size
    t, x, y = trace.t[:end], trace.x[:end], trace.y[:end]
    metrics = corridor_metrics(np.column_stack((x, y)), route, t=t, goal_radius=goal_radius)
    events, episodes = stalls(route, trace, limit, goal_radius)
    return {
        "map": Path(spec.map).stem,
        "route": spec.route,
        "navigator": spec.navigator,
        "frame_ms": round(1000.0 * spec.dt),
        "dt": spec.dt,
        "start": spec.start,
        "goal": spec.goal,
        "waypoints": len(route.waypoint_ids),
        "length": length,
        "time_limit": limit,
        "arrived": arrived,
        "time": whole.time_to_goal if arrived else limit,
        "inside_share": metrics.inside_share,
        "max_turn_overshoot": metrics.max_turn_overshoot,
        "mean_abs_cross_track": metrics.mean_abs_cross_track,
        "stuck_events": events,
        "stuck_episodes": episodes,
        "frames": int(t.size),
    }


def _names(value, what: str) -> list | None:
    if value is None:
        return None
    if isinstance(value, str | Path):
        value = [part.strip() for part in str(value).split(",") if part.strip()]
    if not isinstance(value, Iterable):
        raise ValueError(f"{what} must be a list of files, got {value!r}")
    names = [str(item) for item in value]
    if not names:
        raise ValueError(f"{what}: empty selection, got {value!r}")
    return names


def map_trials(maps=None, *, quick: bool = False) -> tuple[list[MapTrialSpec], dict]:
    """Every trial of a run in a fixed order (maps, routes, navigators, frame times), and per map
    its record for the summary (file, SHA-256, waypoints, routes drawn). Every file is read here,
    before any trial runs.

    Raises
    ------
    ValueError
        A file that is missing or not nav data with waypoints (``load_navdata``'s message), two
        maps of one name.
    """
    files = _names(maps, "maps")
    if files is None:
        files = [str(path) for path in shipped_maps()]
        files = files[:QUICK_MAPS] if quick else files
    records: dict[str, dict] = {}
    specs = []
    for file in files:
        name = Path(file).stem
        if name in records:
            raise ValueError(f"maps: two maps named {name!r}; a map is named by its file's stem")
        if not Path(file).is_file():
            raise ValueError(f"map file {file!r} not found")
        nav = _nav(file)
        if not hasattr(nav, "waypoints") or not hasattr(nav, "connections"):
            raise ValueError(f"{file}: a map needs waypoints and connections (kind waypoints)")
        routes = map_routes(file, QUICK_ROUTES if quick else ROUTES)
        records[name] = {
            "file": file,
            "sha256": hashlib.sha256(Path(file).read_bytes()).hexdigest(),
            "waypoints": len(nav.waypoints),
            "routes": len(routes),
        }
        for index, (start, goal) in enumerate(routes):
            for navigator in NAVIGATORS:
                for dt in QUICK_FRAME_TIMES if quick else FRAME_TIMES:
                    specs.append(MapTrialSpec(file, index, start, goal, navigator, dt))
    if not specs:
        raise ValueError(f"maps: no route could be drawn on {', '.join(files)}")
    return specs, records


def _mean(values: Iterable) -> float | None:
    finite = [float(v) for v in values if v is not None and math.isfinite(float(v))]
    return sum(finite) / len(finite) if finite else None


def _cell(rows: Sequence[Mapping]) -> dict[str, Any]:
    ok = [row for row in rows if not row.get("error")]
    return {
        "routes": len(rows),
        "errors": len(rows) - len(ok),
        "arrival_rate": (sum(1 for row in ok if row["arrived"]) / len(ok)) if ok else None,
        "time_mean": _mean(row["time"] for row in ok),
        "inside_share_mean": _mean(row["inside_share"] for row in ok),
        "overshoot_mean": _mean(row["max_turn_overshoot"] for row in ok),
        "cross_track_mean": _mean(row["mean_abs_cross_track"] for row in ok),
        "stuck_events": sum(int(row["stuck_events"]) for row in ok),
        "stuck_episodes": sum(int(row["stuck_episodes"]) for row in ok),
    }


def summarize(rows: Sequence[Mapping], records: Mapping[str, dict], *, quick: bool) -> dict:
    """``summary.json`` (module docstring)."""
    frame_times = sorted({float(row["dt"]) for row in rows})
    by_map: dict[str, dict] = {}
    for name in records:
        by_map[name] = {}
        for navigator in NAVIGATORS:
            mine = [r for r in rows if r["map"] == name and r["navigator"] == navigator]
            if not mine:
                continue
            cell = _cell(mine)
            cell["by_dt"] = {
                f"{dt:g}": _cell([r for r in mine if float(r["dt"]) == dt]) for dt in frame_times
            }
            by_map[name][navigator] = cell
    totals = {
        navigator: _cell([r for r in rows if r["navigator"] == navigator])
        for navigator in NAVIGATORS
    }
    return {
        "format": FORMAT,
        "quick": bool(quick),
        "frame_times": frame_times,
        "navigators": list(NAVIGATORS),
        "maps": dict(records),
        "trials_total": len(rows),
        "errors_total": sum(1 for row in rows if row.get("error")),
        "by_map": by_map,
        "by_navigator": totals,
    }


def _number(value, form: str) -> str:
    return "n/a" if value is None else form.format(value)


_HEADER = ["navigator", "trials", "arrived %", "time s", "inside %", "overshoot u", "stuck"]


def _row(name: str, cell: Mapping) -> list[str]:
    rate, share = cell["arrival_rate"], cell["inside_share_mean"]
    return [
        name,
        f"{cell['routes']}",
        _number(None if rate is None else 100.0 * rate, "{:.0f}"),
        _number(cell["time_mean"], "{:.1f}"),
        _number(None if share is None else 100.0 * share, "{:.1f}"),
        _number(cell["overshoot_mean"], "{:.1f}"),
        f"{cell['stuck_episodes']}",
    ]


def _sections(summary: Mapping) -> list[tuple[str, list[str], list[list[str]]]]:
    """The report's tables: every map together, then each map (title, header, rows)."""
    sections = [("All maps", _HEADER, [_row(n, c) for n, c in summary["by_navigator"].items()])]
    for name, cells in summary["by_map"].items():
        record = summary["maps"][name]
        title = f"{name} ({record['waypoints']} waypoints, {record['routes']} routes)"
        sections.append((title, _HEADER, [_row(n, c) for n, c in cells.items()]))
    return sections


def _run_line(summary: Mapping) -> str:
    times = ", ".join(f"{dt:g}" for dt in summary["frame_times"])
    return (
        f"{summary['trials_total']} trials; frame times {times} s; a Half-Life bot (seed 004's "
        "cvars); arrival judged by the observer. Protocol: steerlab.experiments.benchmark.maps."
    )


def render_markdown(summary: Mapping) -> str:
    """``maps.md``: per navigator over every map, then per map."""
    lines = ["# Maps: seed 002's navigators on real bot nav data", "", _run_line(summary)]
    for title, header, rows in _sections(summary):
        lines += ["", f"## {title}", "", numbers_table(header, rows)]
    return "\n".join(lines) + "\n"


def render_html(summary: Mapping) -> str:
    """``maps.html``: the same tables as a page (template ``tables.html``)."""
    files = [(name, name) for name in (RESULTS_FILE, "run.json", "summary.json", "maps.md")]
    return render_page(
        "tables.html",
        title="steerlab maps suite",
        heading="Maps: seed 002's navigators on real bot nav data",
        run_line=_run_line(summary),
        sections=_sections(summary),
        files=files,
    )


def write_report(out_dir, summary: Mapping) -> None:
    """``summary.json``, ``maps.md`` and ``maps.html`` in ``out_dir`` (atomic writes)."""
    from steerlab.experiments.benchmark.table1 import write_summary_files

    write_summary_files(out_dir, summary, "maps", render_markdown(summary), render_html(summary))


def run_maps(
    out_dir, *, maps=None, quick: bool = False, workers: int | None = None, progress: bool = True
) -> dict:
    """Run the maps suite into ``out_dir`` (resumable, ``steerlab.runner``), write the report and
    return the summary (module docstring).

    Raises
    ------
    ValueError
        A bad map file (before any trial runs), a folder holding another run.
    OSError, RuntimeError
        The runner's.
    """
    from steerlab.experiments.benchmark.table1 import steerlab_version

    specs, records = map_trials(maps, quick=quick)
    manifest = {
        "kind": FORMAT,
        "maps": {name: record["sha256"] for name, record in records.items()},
        "steerlab_version": steerlab_version(),
        "columns": list(ROW_TYPES),
    }
    if progress:
        print(
            f"maps: {len(specs)} trials ({len(records)} maps) into {out_dir}",
            file=sys.stderr,
            flush=True,
        )
    rows = run_tasks(
        [Task(spec.key, spec) for spec in specs],
        run_map_trial,
        out_dir,
        columns=ROW_TYPES,
        manifest=manifest,
        workers=workers,
        progress=progress,
        counter="stuck_episodes",
    )
    summary = summarize(rows, records, quick=quick)
    write_report(out_dir, summary)
    return summary
