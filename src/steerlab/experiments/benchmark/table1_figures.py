"""Figures of the Table I report (``steerlab.experiments.benchmark.table1``): what the numbers come
from.

The trials are deterministic (``steerlab.trials.trial``), so no frame is stored by the run: the
figures *replay* the trials they show with ``simulate_trial`` and check that each replay gives the
stored row's stuck events and time (a mismatch is named in the figure's caption). Only the first
seed of the run is replayed, and only:

- every trial of the *compared pair* (``baseline`` and ``ours`` when both ran, else the first two
  followers of the run): 10 paths x 6 vehicles x 2 = 120 trials for Table I;
- the trials of the other followers that had stuck events (their stuck locations).

For the full Table I (145 replays, 16 figures) this takes about 45 s on one core.

With ``replay_dir`` (``steerlab bench`` passes the report's ``replays/``), every trial replayed
is also written as a replay page a browser plays (``steerlab.replay.write_trial_replay``, from
the records already simulated: no trial is run again), ``<path>-<vehicle>-<follower>-<seed>.html``,
at ``REPLAY_FPS`` frames per second; each figure lists links to the replays of what it shows,
each stuck event's link opening its replay at the event (``?t=``). Cost: 0.1 to 0.5 s and 150
to 380 kB per replay (the series dominate: about 48 bytes per kept frame), about 25 s and 35 MB
for the full Table I's 145.

Figures (PNG, 120 dpi, on the Agg canvas of ``steerlab.plot.canvas``, never through pyplot):

``trajectories_<path>``
    One per path: the pair's trajectories of every vehicle, one panel per follower, over the
    terrain's hillshade, with the corridor (light fill, dashed edges), the walls (black), the
    stuck events (crosses) and each trial's end (dot: arrived, square: not).
``stuck_locations``
    Every path (one small panel each) with the stuck events of every follower at the first seed.
``series_<path>_<vehicle>``
    Speed (with the target speed, dashed) and |cross-track error| (with the corridor's half width,
    dotted) over time for the pair, stuck events as vertical lines: the ``SERIES_TRIALS``
    (path, vehicle) with the most stuck events of the pair at the first seed (ties: the largest
    difference in time, then the suite's order), each vehicle once while there are others.
``stuck_by_vehicle``
    Stuck events per vehicle and follower (mean over the seeds, sample std as error bars), beside
    the paper's breakdown.
``metrics``
    Table I's four means per follower (cross-track error, total time, inside corridor, speed),
    mean over seeds with std error bars, with the paper's values as black diamonds.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from steerlab.experiments.benchmark.table1 import follower_title, subjects_of_summary
from steerlab.plot.backdrop import draw_path, draw_terrain, draw_walls
from steerlab.plot.canvas import check_formats, new_figure
from steerlab.replay import write_trial_replay
from steerlab.trials.followers import FOLLOWERS
from steerlab.trials.observer import planar_path
from steerlab.trials.suite import load_suite
from steerlab.trials.trial import TrialSpec, simulate_trial

__all__ = ["PAIR", "REPLAY_FPS", "SERIES_TRIALS", "ReportFigure", "make_figures", "replay_name"]

PAIR = ("baseline", "ours")
"""The followers whose trajectories are drawn, when both ran."""
SERIES_TRIALS = 3
"""Trials drawn over time."""
_RUNAWAY = 40.0  # [m] how far beyond the path's box a view grows to follow a trajectory
REPLAY_FPS = 25.0
"""[1/s] Frames per second of the run's time the report's replay pages keep (every second frame
of a 50 Hz suite: half the size, still smooth; the pages interpolate between frames)."""
_MAX_POINTS = 1500  # points per drawn trajectory (decimated; events and ends are exact)
_DPI = 120

_FOLLOWER_STYLE = {
    "baseline": ("tab:red", "x"),
    "ours": ("tab:blue", "+"),
    "ours_tuned": ("tab:green", "1"),
    "stanley": ("tab:purple", "^"),
    "regulated_pure_pursuit": ("tab:orange", "s"),
    "baseline_pi": ("tab:brown", "D"),
    "ours_p": ("tab:cyan", "v"),
}
_VEHICLE_COLORS = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown")


class ReportFigure(NamedTuple):
    """A written figure: its file, a title and a caption for the report, and links to the
    replays of what it shows: ``(text, href)`` pairs, ``href`` relative to the replays' folder
    (``replay_name``, with ``?t=`` for a stuck event)."""

    path: Path
    title: str
    caption: str
    links: tuple[tuple[str, str], ...] = ()


def replay_name(key: tuple) -> str:
    """The replay page of the trial ``(path, vehicle, follower, seed)``:
    ``<path>-<vehicle>-<follower>-<seed>.html``."""
    return "-".join(str(part) for part in key) + ".html"


class _Replay(NamedTuple):
    """What the figures need of one replayed trial."""

    x: np.ndarray  # [m] decimated trajectory
    y: np.ndarray
    stuck_x: np.ndarray  # [m] positions of the observer's stuck events
    stuck_y: np.ndarray
    stuck_t: np.ndarray  # [s]
    completed: bool
    matches: bool  # the replay's stuck events and time equal the stored row's
    series: dict | None  # t, speed, target_speed, cte, half_width (arrays), when asked


def _log(progress: bool, message: str) -> None:
    if progress:
        print(message, file=sys.stderr, flush=True)


def _replay(spec: TrialSpec, stored: Mapping | None, series: bool, replay_dir) -> _Replay:
    row, records = simulate_trial(spec)
    if replay_dir is not None:
        write_trial_replay(
            Path(replay_dir) / replay_name(spec.key), spec, simulated=(row, records),
            max_fps=REPLAY_FPS,
        )  # fmt: skip
    end = records.metrics.end
    step = max(1, math.ceil((end + 1) / _MAX_POINTS))
    keep = np.r_[np.arange(0, end + 1, step), end]
    events = np.flatnonzero(records.metrics.stuck_event[: end + 1])
    matches = stored is None or (
        row["stuck_events"] == stored.get("stuck_events") and row["time"] == stored.get("time")
    )
    extra = None
    if series:
        polyline = planar_path(load_suite(spec.suite).polyline(spec.path))
        cum = polyline.cumulative_length
        segment = np.clip(
            np.searchsorted(cum, records.metrics.s[: end + 1], side="right") - 1,
            0,
            polyline.segment_count - 1,
        )
        widths = polyline.widths
        half = np.full(end + 1, np.inf) if widths is None else 0.5 * np.asarray(widths)[segment]
        extra = {
            "t": records.t[: end + 1],
            "speed": records.speed[: end + 1],
            "target_speed": records.target_speed[: end + 1],
            "cte": np.abs(records.metrics.cross_track[: end + 1]),
            "half_width": half,
        }
    return _Replay(
        x=records.x[keep],
        y=records.y[keep],
        stuck_x=records.x[events],
        stuck_y=records.y[events],
        stuck_t=records.t[events],
        completed=bool(row["completed"]),
        matches=matches,
        series=extra,
    )


# --------------------------------------------------------------------------------------------------
# drawing helpers


def _path_box(suite, path_name: str) -> tuple[float, float, float, float]:
    """``(x_min, x_max, y_min, y_max)`` [m]: the path's waypoints grown by its widest corridor
    and a margin."""
    polyline = planar_path(suite.polyline(path_name))
    points = polyline.points
    margin = 8.0 + (0.0 if polyline.widths is None else float(np.max(polyline.widths)))
    return (
        float(points[:, 0].min() - margin),
        float(points[:, 0].max() + margin),
        float(points[:, 1].min() - margin),
        float(points[:, 1].max() + margin),
    )


def _view_box(suite, path_name: str, replays: Sequence) -> tuple[float, float, float, float]:
    """The path's box grown to hold the replays' trajectories, by at most ``_RUNAWAY`` metres
    (a vehicle that leaves far away does not shrink the path to a speck)."""
    x0, x1, y0, y1 = _path_box(suite, path_name)
    for replay in replays:
        x0 = min(x0, max(float(replay.x.min()) - 3.0, x0 - _RUNAWAY))
        x1 = max(x1, min(float(replay.x.max()) + 3.0, x1 + _RUNAWAY))
        y0 = min(y0, max(float(replay.y.min()) - 3.0, y0 - _RUNAWAY))
        y1 = max(y1, min(float(replay.y.max()) + 3.0, y1 + _RUNAWAY))
    return x0, x1, y0, y1


def _aspect(box) -> float:
    return (box[3] - box[2]) / (box[1] - box[0])


def _figure(width: float, height: float, rows: int, columns: int, height_ratios=None):
    """A figure on its own Agg canvas with a grid of axes whose rows may differ in height
    (``steerlab.plot.canvas.new_figure`` with ``height_ratios``)."""
    figure = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots(
        rows, columns, squeeze=False, gridspec_kw={"height_ratios": height_ratios}
    )
    return figure, axes


def _draw_path(axes, suite, path_name: str, walls: bool = True, box=None) -> None:
    """The path with its corridor and ends, and its walls (``steerlab.plot.backdrop``), framed
    by ``box`` (default: the path's box)."""
    draw_path(axes, planar_path(suite.polyline(path_name)))
    if walls:
        draw_walls(axes, suite.walls(path_name))
    x0, x1, y0, y1 = _path_box(suite, path_name) if box is None else box
    axes.set_xlim(x0, x1)
    axes.set_ylim(y0, y1)


def _save(figure, path: Path, formats: Sequence[str]) -> Path:
    for extension in formats:
        figure.savefig(path.with_suffix(f".{extension}"), dpi=_DPI, bbox_inches="tight")
    figure.clear()
    return path.with_suffix(f".{formats[0]}")


# --------------------------------------------------------------------------------------------------
# figures


def _trajectory_figure(suite, path_name, pair, vehicles, replays, seed):
    shown = [
        replays[(path_name, vehicle, follower, seed)]
        for vehicle in vehicles
        for follower in pair
        if (path_name, vehicle, follower, seed) in replays
    ]
    box = _view_box(suite, path_name, shown)
    panel = min(max(10.0 * _aspect(box), 1.5), 9.0) + 0.5  # [in] a 10 in wide plot and a title
    figure, grid = _figure(11.0, panel * len(pair) + 0.9, rows=len(pair), columns=1)
    terrain = suite.terrain(path_name)
    for axes, follower in zip(grid[:, 0], pair, strict=True):
        draw_terrain(axes, terrain)
        _draw_path(axes, suite, path_name, box=box)
        for index, vehicle in enumerate(vehicles):
            replay = replays.get((path_name, vehicle, follower, seed))
            if replay is None:
                continue
            color = _VEHICLE_COLORS[index % len(_VEHICLE_COLORS)]
            axes.plot(replay.x, replay.y, color=color, linewidth=1.1, zorder=4, label=vehicle)
            axes.plot(
                replay.x[-1],
                replay.y[-1],
                "o" if replay.completed else "s",
                color=color,
                markersize=5,
                zorder=6,
                markeredgecolor="black",
                markeredgewidth=0.5,
            )
            if replay.stuck_x.size:
                axes.plot(
                    replay.stuck_x,
                    replay.stuck_y,
                    "x",
                    color=color,
                    markersize=8,
                    markeredgewidth=2.0,
                    zorder=7,
                )
        events = sum(
            replays[(path_name, vehicle, follower, seed)].stuck_x.size
            for vehicle in vehicles
            if (path_name, vehicle, follower, seed) in replays
        )
        axes.set_title(
            f"{path_name}: {follower_title(follower)}, seed {seed} ({events} stuck events)"
        )
        axes.set_ylabel("y [m]")
        axes.grid(True, alpha=0.25)
    grid[-1, 0].set_xlabel("x [m]")
    handles, _ = grid[0, 0].get_legend_handles_labels()
    handles += [
        Line2D([], [], linestyle="none", marker="x", color="black", label="stuck event"),
        Line2D([], [], linestyle="none", marker="o", color="gray", label="end: arrived"),
        Line2D([], [], linestyle="none", marker="s", color="gray", label="end: not arrived"),
        Line2D([], [], color="black", linewidth=1.6, label="wall"),
    ]
    figure.legend(handles=handles, loc="outside lower center", ncols=5, fontsize=8)
    return figure


def _stuck_locations_figure(suite, paths, followers, vehicles, replays, seed):
    columns = 2 if len(paths) > 1 else 1
    rows = math.ceil(len(paths) / columns)
    boxes = [
        _view_box(
            suite,
            path_name,
            [replay for key, replay in replays.items() if key[0] == path_name and key[3] == seed],
        )
        for path_name in paths
    ]
    heights = []  # [in] per row: the plots (10 in wide in all) and a title
    for row in range(rows):
        aspect = max(_aspect(box) for box in boxes[row * columns : (row + 1) * columns])
        heights.append(min(max(10.0 / columns * aspect, 0.9), 7.0) + 0.4)
    figure, grid = _figure(11.0, sum(heights) + 1.0, rows, columns, height_ratios=heights)
    for index, path_name in enumerate(paths):
        axes = grid[index // columns, index % columns]
        _draw_path(axes, suite, path_name, box=boxes[index])
        counts = []
        for follower in followers:
            color, marker = _FOLLOWER_STYLE.get(follower, ("gray", "o"))
            xs, ys = [], []
            for vehicle in vehicles:
                replay = replays.get((path_name, vehicle, follower, seed))
                if replay is not None:
                    xs.append(replay.stuck_x)
                    ys.append(replay.stuck_y)
            x = np.concatenate(xs) if xs else np.empty(0)
            y = np.concatenate(ys) if ys else np.empty(0)
            counts.append(f"{x.size}")
            if x.size:
                axes.plot(
                    x,
                    y,
                    marker,
                    color=color,
                    markersize=7,
                    markeredgewidth=1.6,
                    zorder=6,
                    linestyle="none",
                )
        axes.set_title(f"{path_name} ({' / '.join(counts)})", fontsize=9)
        axes.tick_params(labelsize=7)
    for index in range(len(paths), rows * columns):
        grid[index // columns, index % columns].set_axis_off()
    handles = [
        Line2D(
            [],
            [],
            linestyle="none",
            marker=_FOLLOWER_STYLE.get(f, ("gray", "o"))[1],
            color=_FOLLOWER_STYLE.get(f, ("gray", "o"))[0],
            markeredgewidth=1.6,
            label=follower_title(f),
        )
        for f in followers
    ]
    figure.legend(handles=handles, loc="outside lower center", ncols=len(followers), fontsize=8)
    figure.suptitle(
        f"Stuck events at seed {seed}, every vehicle (counts per panel: "
        f"{' / '.join(follower_title(f) for f in followers)})",
        fontsize=10,
    )
    return figure


def _series_figure(path_name, vehicle, pair, replays, seed):
    figure, grid = new_figure(10.0, 6.0, rows=2, columns=1)
    speed_axes, error_axes = grid[0, 0], grid[1, 0]
    for follower in pair:
        replay = replays.get((path_name, vehicle, follower, seed))
        if replay is None or replay.series is None:
            continue
        color = _FOLLOWER_STYLE.get(follower, ("gray", "o"))[0]
        series = replay.series
        speed_axes.plot(
            series["t"], series["speed"], color=color, label=f"{follower_title(follower)}"
        )
        speed_axes.plot(
            series["t"],
            series["target_speed"],
            "--",
            color=color,
            linewidth=0.9,
            label=f"{follower_title(follower)}: target speed",
        )
        error_axes.plot(series["t"], series["cte"], color=color, label=follower_title(follower))
        for axes in (speed_axes, error_axes):
            for time in replay.stuck_t:
                axes.axvline(time, color=color, linewidth=0.8, alpha=0.6, linestyle=":")
    for follower in pair:  # the corridor's half width (the same path for both)
        replay = replays.get((path_name, vehicle, follower, seed))
        if replay is not None and replay.series is not None:
            series = replay.series
            error_axes.plot(
                series["t"],
                series["half_width"],
                ":",
                color="black",
                linewidth=1.0,
                label="corridor half width",
            )
            break
    speed_axes.set_ylabel("speed [m/s]")
    speed_axes.set_title(
        f"{path_name}, {vehicle}, seed {seed}: speed and cross-track error "
        "(vertical lines: stuck events)"
    )
    speed_axes.legend(fontsize=8, ncols=2)
    error_axes.set_ylabel("|cross-track error| [m]")
    error_axes.set_xlabel("t [s]")
    error_axes.legend(fontsize=8)
    for axes in (speed_axes, error_axes):
        axes.grid(True, alpha=0.3)
    return figure


def _grouped_bars(axes, groups, series, values, errors=None):
    """Bars of ``values[s][g]`` grouped by ``groups``, one colour per series."""
    width = 0.8 / max(1, len(series))
    positions = np.arange(len(groups))
    for index, name in enumerate(series):
        heights = [np.nan if value is None else value for value in values[name]]
        error = None
        if errors is not None and any(value for value in errors[name]):
            error = [0.0 if value is None else value for value in errors[name]]
        axes.bar(
            positions + (index - (len(series) - 1) / 2) * width,
            heights,
            width,
            yerr=error,
            color=_FOLLOWER_STYLE.get(name, ("gray", "o"))[0],
            label=follower_title(name),
            capsize=2,
        )
    axes.set_xticks(positions, groups, fontsize=8)
    axes.grid(True, axis="y", alpha=0.3)


def _stuck_by_vehicle_figure(summary, paper):
    followers = [name for name in summary["followers"] if name in summary]
    vehicles = summary["vehicles"]
    figure, grid = new_figure(11.0, 4.2, rows=1, columns=2)
    mine, theirs = grid[0, 0], grid[0, 1]
    values = {f: [summary[f]["stuck_by_vehicle"].get(v) for v in vehicles] for f in followers}
    errors = {f: [summary[f]["stuck_by_vehicle_std"].get(v) for v in vehicles] for f in followers}
    _grouped_bars(mine, vehicles, followers, values, errors)
    seeds = summary["seeds"]
    mine.set_title(
        f"steerlab: stuck events per vehicle ({'mean ± std over ' if seeds > 1 else ''}"
        f"{seeds} seed{'s' if seeds != 1 else ''})",
        fontsize=10,
    )
    mine.set_ylabel("stuck events")
    mine.legend(fontsize=8)
    paper_followers = [name for name in FOLLOWERS if name in paper]
    paper_vehicles = list(paper[paper_followers[0]]["stuck_by_vehicle"]) if paper_followers else []
    paper_values = {
        f: [paper[f]["stuck_by_vehicle"][v] for v in paper_vehicles] for f in paper_followers
    }
    _grouped_bars(theirs, paper_vehicles, paper_followers, paper_values)
    theirs.set_title("seed 001, Table I: stuck events per vehicle (one run)", fontsize=10)
    theirs.legend(fontsize=8)
    top = max(mine.get_ylim()[1], theirs.get_ylim()[1])
    mine.set_ylim(0.0, top)
    theirs.set_ylim(0.0, top)
    return figure


def _metrics_figure(summary, paper):
    followers = [name for name in summary["followers"] if name in summary]
    fields = (
        ("cte_mean", "cross-track error mean [m]"),
        ("time_mean", "total time mean [s]"),
        ("inside_corridor_mean", "inside corridor mean [%]"),
        ("speed_mean", "speed mean [m/s]"),
    )
    figure, grid = new_figure(11.0, 6.0, rows=2, columns=2)
    positions = np.arange(len(followers))
    for index, (field, label) in enumerate(fields):
        axes = grid[index // 2, index % 2]
        heights = [summary[f][field] for f in followers]
        errors = [summary[f].get(f"{field}_std") or 0.0 for f in followers]
        errors = errors if any(errors) else None  # one seed: no spread to show
        colors = [_FOLLOWER_STYLE.get(f, ("gray", "o"))[0] for f in followers]
        axes.bar(
            positions,
            [np.nan if h is None else h for h in heights],
            0.6,
            yerr=errors,
            color=colors,
            capsize=3,
        )
        marked = [(i, paper[f][field]) for i, f in enumerate(followers) if f in paper]
        if marked:
            axes.plot(
                [i for i, _ in marked],
                [v for _, v in marked],
                "D",
                color="black",
                markersize=7,
                label="seed 001, Table I",
            )
            axes.legend(fontsize=8)
        axes.set_xticks(positions, [follower_title(f) for f in followers], fontsize=8, rotation=15)
        axes.set_title(label, fontsize=10)
        axes.grid(True, axis="y", alpha=0.3)
    return figure


# --------------------------------------------------------------------------------------------------
# the report's figures


def _series_choice(rows_at_seed, pair, paths, vehicles) -> list[tuple[str, str]]:
    order = {
        (path, vehicle): i
        for i, (path, vehicle) in enumerate(
            (path, vehicle) for path in paths for vehicle in vehicles
        )
    }
    scores = []
    for (path, vehicle), position in order.items():
        found = [rows_at_seed.get((path, vehicle, follower)) for follower in pair]
        if any(row is None for row in found):
            continue
        events = sum(int(row["stuck_events"]) for row in found)
        times = [float(row["time"]) for row in found]
        spread = max(times) - min(times)
        scores.append((-events, -spread, position, (path, vehicle)))
    scores.sort()
    ranked = [choice for *_, choice in scores]
    chosen: list[tuple[str, str]] = []
    for path, vehicle in ranked:  # one per vehicle first: three views of one stall say little
        if len(chosen) < SERIES_TRIALS and vehicle not in {v for _, v in chosen}:
            chosen.append((path, vehicle))
    for choice in ranked:
        if len(chosen) < SERIES_TRIALS and choice not in chosen:
            chosen.append(choice)
    return chosen


def make_figures(
    out_dir,
    suite,
    rows: Sequence[Mapping],
    summary: Mapping,
    *,
    tuned_dir=None,
    formats: Sequence[str] = ("png",),
    progress: bool = False,
    replay_dir=None,
) -> list[ReportFigure]:
    """Replay the trials shown and write the report's figures into ``out_dir`` (module
    docstring); return them in the report's order. With ``replay_dir``, the replay page of each
    trial replayed goes there (a folder of its own: pages of earlier reports not written again
    are removed), and each figure carries links to them.

    ``suite`` is the run's suite (a name, a file or a ``Suite``), ``rows`` the run's rows (the
    runner's), ``summary`` the run's summary (``steerlab.experiments.benchmark.table1``: its
    ``followers``, ``vehicles``, ``paths``, ``seed_list`` and per-follower entries).
    """
    formats = check_formats(formats)
    folder = Path(out_dir)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise OSError(
            error.errno, f"cannot create the figures folder {folder}: {error.strerror or error}"
        ) from error
    loaded = load_suite(suite)
    source = summary.get("suite_source") or loaded.source
    followers = list(summary["followers"])
    vehicles = list(summary["vehicles"])
    paths = list(summary["paths"])
    seed = int(summary["seed_list"][0])
    pair = [name for name in PAIR if name in followers] or followers[:2]
    tuned = "" if tuned_dir is None else str(tuned_dir)
    vehicle_items, follower_items = subjects_of_summary(summary)
    good = {
        (row["path"], row["vehicle"], row["follower"], int(row["seed"])): row
        for row in rows
        if not row.get("error")
    }
    at_seed = {(p, v, f): row for (p, v, f, s), row in good.items() if s == seed}
    series_keys = set(_series_choice(at_seed, pair, paths, vehicles))

    wanted = []
    for path in paths:
        for vehicle in vehicles:
            for follower in followers:
                row = at_seed.get((path, vehicle, follower))
                if row is None:
                    continue
                if follower in pair or int(row["stuck_events"]) > 0:
                    wanted.append((path, vehicle, follower))
    _log(progress, f"figures: replaying {len(wanted)} trials of seed {seed}")
    if replay_dir is not None:
        replay_dir = Path(replay_dir)
        replay_dir.mkdir(parents=True, exist_ok=True)
    replays: dict[tuple, _Replay] = {}
    for path, vehicle, follower in wanted:
        spec = TrialSpec(
            source, path, vehicle_items[vehicle], follower_items[follower], seed, tuned
        )
        replays[(path, vehicle, follower, seed)] = _replay(
            spec, at_seed[(path, vehicle, follower)], (path, vehicle) in series_keys, replay_dir
        )
    if replay_dir is not None:
        pages = {replay_name(key) for key in replays}
        for page in replay_dir.glob("*.html"):
            if page.name not in pages:
                page.unlink(missing_ok=True)

    def links(keys) -> tuple[tuple[str, str], ...]:
        """Each trial's replay, then each of its stuck events at its time."""
        if replay_dir is None:
            return ()
        shown = [key for key in keys if key in replays]
        found = [(f"{key[1]}, {follower_title(key[2])}", replay_name(key)) for key in shown]
        for key in shown:
            found += [
                (
                    f"stuck: {key[0]}, {key[1]}, {follower_title(key[2])} at {time:.2f} s",
                    f"{replay_name(key)}?t={time:.2f}&play=0",
                )
                for time in replays[key].stuck_t
            ]
        return tuple(found)

    every = [(p, v, f, seed) for p in paths for v in vehicles for f in followers]
    mismatched = [key for key, replay in replays.items() if not replay.matches]
    note = ""
    if mismatched:
        note = (
            f" Warning: {len(mismatched)} replays differ from their stored rows (first: "
            f"{mismatched[0]}): results.csv was written by other code or presets."
        )

    written: list[ReportFigure] = []
    paper = summary.get("paper", {})
    if summary["seeds"] and any(name in summary for name in followers):
        path = _save(_metrics_figure(summary, paper), folder / "metrics", formats)
        written.append(
            ReportFigure(
                path,
                "Table I's means per follower",
                "Bars: steerlab (mean over seeds, error bars: sample std over seeds); black "
                "diamonds: the paper's Table I values for baseline, ours and ours (vehicle-tuned).",
            )
        )
        path = _save(_stuck_by_vehicle_figure(summary, paper), folder / "stuck_by_vehicle", formats)
        written.append(
            ReportFigure(
                path,
                "Stuck events per vehicle",
                "Left: steerlab, stuck events per vehicle and follower (totals over the paths, "
                "mean over seeds, error bars: sample std over seeds). Right: the paper's "
                "breakdown.",
            )
        )
    path = _save(
        _stuck_locations_figure(loaded, paths, followers, vehicles, replays, seed),
        folder / "stuck_locations",
        formats,
    )
    written.append(
        ReportFigure(
            path,
            "Where vehicles got stuck",
            f"Every path with the stuck events (the fixed observer's: 3 s with less than 1 m of "
            f"progress) of every follower and vehicle at seed {seed}; corridor shaded with dashed "
            f"edges, walls black, start triangle, end star.{note}",
            links(key for key in every if key in replays and replays[key].stuck_t.size),
        )
    )
    for path_name, vehicle in sorted(
        series_keys, key=lambda key: (paths.index(key[0]), vehicles.index(key[1]))
    ):
        path = _save(
            _series_figure(path_name, vehicle, pair, replays, seed),
            folder / f"series_{path_name}_{vehicle}",
            formats,
        )
        written.append(
            ReportFigure(
                path,
                f"Speed and cross-track error: {path_name}, {vehicle}",
                f"{' vs '.join(follower_title(f) for f in pair)} at seed {seed}: ground speed "
                "(solid) and the follower's target speed (dashed); |cross-track error| with the "
                "corridor's half width (dotted); dotted verticals: stuck events. Chosen as the "
                "(path, vehicle) with the most stuck events of the pair, one per vehicle first.",
                links((path_name, vehicle, follower, seed) for follower in pair),
            )
        )
    _log(progress, f"figures: trajectories of {len(paths)} paths")
    for path_name in paths:
        path = _save(
            _trajectory_figure(loaded, path_name, pair, vehicles, replays, seed),
            folder / f"trajectories_{path_name}",
            formats,
        )
        written.append(
            ReportFigure(
                path,
                f"Trajectories: {path_name}",
                f"Every vehicle on {path_name} at seed {seed}, one panel per follower "
                f"({', '.join(follower_title(f) for f in pair)}), over the terrain's hillshade; "
                "corridor shaded with dashed edges, walls black; crosses: stuck events; end dot: "
                f"arrived, square: not arrived.{note}",
                links(
                    (path_name, vehicle, follower, seed)
                    for follower in pair
                    for vehicle in vehicles
                ),
            )
        )
    _remove_stale(folder, written, formats)
    return written


_FIGURE_PATTERNS = ("metrics", "stuck_by_vehicle", "stuck_locations", "series_*", "trajectories_*")


def _remove_stale(folder: Path, written: Sequence[ReportFigure], formats: Sequence[str]) -> None:
    """Delete this module's figures left in ``folder`` by an earlier report of the run that this
    one did not draw again (another choice of series trials), so that the folder holds exactly
    the figures ``report.html`` links."""
    kept = {figure.path.with_suffix(f".{extension}") for figure in written for extension in formats}
    for pattern in _FIGURE_PATTERNS:
        for extension in ("png", "svg"):
            for path in folder.glob(f"{pattern}.{extension}"):
                if path not in kept:
                    path.unlink(missing_ok=True)
