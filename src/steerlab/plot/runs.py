"""Plots of one's own runs: a trace or a batch over its path, corridor and world; speed and
cross-track error over time.

Each function draws on the Axes given (``ax``) or on a new figure on the Agg canvas
(``steerlab.plot.canvas.new_figure``; no pyplot, so no window and no global state) and returns
the Axes: save with ``ax.figure.savefig("run.png")``. The backdrop (terrain, walls, path,
corridor) is ``steerlab.plot.backdrop``'s. Artists carry a ``gid`` (``"trajectory"``,
``"trajectories"``, ``"heading"``, ``"start"``, ``"end"``, ``"speed"``, ``"target-speed"``,
``"cross-track"``, ``"half-width"``) besides the backdrop's.

A run is a ``steerlab.sim.Trace`` (``simulate``'s record: ``t`` and one array per state field) or,
for many agents, positions of shape ``(frames, agents, 2)``. Positions are read from the state
fields ``x`` and ``y`` [m], headings from ``yaw`` [rad]; speed is the forward speed ``v`` where
the state has one (``VehicleState``, ``UnicycleState``; negative in reverse), else the modulus of
``(vx, vy)`` (``AgentState``). The cross-track error is ``Polyline.project``'s (signed, left of
the path positive) to the whole path in the ground plane, for every frame at once
(``Polyline.project_batch``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection

from steerlab.geometry import Polyline, planar_polyline
from steerlab.plot.backdrop import draw_path, draw_world
from steerlab.plot.canvas import new_figure
from steerlab.sim import Trace
from steerlab.world import World

__all__ = ["plot_batch", "plot_cross_track", "plot_speed", "plot_trace", "trace_speed"]

_ARROWS = 12  # heading arrows over a run by default
_COLORS = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown")


# --------------------------------------------------------------------------------------------------
# checks


def _check_trace(trace, fields: Sequence[str] = ("x", "y")) -> Trace:
    if not isinstance(trace, Trace):
        raise ValueError(f"trace must be a steerlab.sim.Trace, got {type(trace).__name__}")
    missing = [name for name in fields if name not in trace.states]
    if missing:
        raise ValueError(
            f"trace must have the state fields {list(fields)}, got {list(trace.states)} "
            f"(missing {missing})"
        )
    return trace


def _check_axes(ax, width: float, height: float) -> Axes:
    if ax is None:
        _, grid = new_figure(width, height)
        return grid[0, 0]
    if not isinstance(ax, Axes):
        raise ValueError(f"ax must be a matplotlib Axes or None, got {ax!r}")
    return ax


def _check_path(path) -> Polyline | None:
    return None if path is None else planar_polyline(path, name="path")


def _check_world(world) -> World | None:
    if world is not None and not isinstance(world, World):
        raise ValueError(f"world must be a steerlab.world.World or None, got {world!r}")
    return world


def _check_series(name: str, values, frames: int) -> np.ndarray:
    array = np.asarray(values, dtype=np.float64) if values is not None else None
    if array is None or array.shape != (frames,):
        shape = None if array is None else array.shape
        raise ValueError(f"{name} must have one value per frame ({frames},), got shape {shape}")
    return array


def _backdrop(axes: Axes, path: Polyline | None, world: World | None) -> None:
    if world is not None:
        draw_world(axes, world)
    if path is not None:
        draw_path(axes, path)
    axes.set_aspect("equal")
    axes.set_xlabel("x [m]")
    axes.set_ylabel("y [m]")
    axes.grid(True, alpha=0.25)


def _arrow_frames(t: np.ndarray, interval: float | None) -> np.ndarray:
    """Frames ``interval`` seconds apart from the first (default: ``_ARROWS`` over the run)."""
    duration = float(t[-1] - t[0]) if t.size else 0.0
    if interval is None:
        interval = duration / _ARROWS if duration > 0.0 else 1.0
    if not (np.isfinite(interval) and interval > 0.0):
        raise ValueError(f"arrow_interval must be > 0 and finite [s], got {interval!r}")
    marks = t[0] + interval * np.arange(int(duration // interval) + 1) if t.size else []
    return np.unique(np.clip(np.searchsorted(t, marks), 0, max(t.size - 1, 0)))


# --------------------------------------------------------------------------------------------------
# plots


def plot_trace(
    trace: Trace,
    path=None,
    world: World | None = None,
    ax: Axes | None = None,
    *,
    color="tab:blue",
    label: str | None = None,
    arrow_interval: float | None = None,
) -> Axes:
    """One run's trajectory over its path and world, with heading arrows and its two ends.

    Parameters
    ----------
    trace : steerlab.sim.Trace
        The run; its state fields ``x``, ``y`` [m] are drawn, ``yaw`` [rad] (when present) as
        arrows.
    path : Polyline or array_like of shape (n, 2) or (n, 3), optional
        The path, drawn in the ground plane with its corridor if it has widths.
    world : steerlab.world.World, optional
        Its terrain (hillshade) and walls under the run.
    ax : matplotlib.axes.Axes, optional
        Where to draw; default: a new figure (Agg canvas).
    color : matplotlib color
        Of the trajectory, arrows and markers.
    label : str, optional
        Legend entry of the trajectory.
    arrow_interval : float, optional
        [s] between heading arrows; default: the run's duration / 12.

    Returns
    -------
    matplotlib.axes.Axes
        The trajectory is the line ``gid="trajectory"`` (its data are ``trace.x``,
        ``trace.y``); start a circle (``gid="start"``), end a square (``gid="end"``).

    Raises
    ------
    ValueError
        ``trace`` not a ``Trace`` or without ``x`` and ``y``; ``path``, ``world`` or ``ax`` of
        the wrong type; ``arrow_interval`` not > 0.

    Examples
    --------
    >>> from steerlab.follower import PathFollower
    >>> from steerlab.geometry import Polyline
    >>> from steerlab.plot import plot_trace
    >>> from steerlab.sim import simulate
    >>> from steerlab.vehicles import PRESETS, Vehicle, VehicleState
    >>> path = Polyline([(0, 0), (40, 0), (60, 25)], widths=5.0)
    >>> storm = PRESETS["storm"]
    >>> trace = simulate(Vehicle(storm), PathFollower(storm, path=path), VehicleState(), 0.05, 300)
    >>> ax = plot_trace(trace, path)
    >>> ax.figure.savefig("trace.png")
    """
    trace = _check_trace(trace)
    path = _check_path(path)
    world = _check_world(world)
    axes = _check_axes(ax, 8.0, 6.0)
    _backdrop(axes, path, world)
    x, y = trace.x, trace.y
    axes.plot(x, y, color=color, linewidth=1.3, zorder=4, label=label, gid="trajectory")
    if "yaw" in trace.states and trace.t.size:
        frames = _arrow_frames(trace.t, arrow_interval)
        yaw = trace.yaw[frames]
        axes.quiver(
            x[frames],
            y[frames],
            np.cos(yaw),
            np.sin(yaw),
            color=color,
            angles="xy",
            pivot="tail",
            scale=30.0,  # an arrow a thirtieth of the Axes' width
            scale_units="width",
            width=0.004,
            zorder=5,
            gid="heading",
        )
    elif arrow_interval is not None:
        _arrow_frames(trace.t, arrow_interval)  # still a checked argument
    if x.size:
        axes.plot(x[0], y[0], "o", color=color, markeredgecolor="black", zorder=6, gid="start")
        axes.plot(x[-1], y[-1], "s", color=color, markeredgecolor="black", zorder=6, gid="end")
    axes.autoscale_view()
    return axes


def _batch_positions(runs) -> np.ndarray:
    """``(frames, agents, 2)`` positions [m] from traces (padded with NaN) or an array."""
    if isinstance(runs, Trace):
        raise ValueError("runs must be a sequence of traces or positions, got one Trace")
    if isinstance(runs, Sequence) and len(runs) and isinstance(runs[0], Trace):
        for index, trace in enumerate(runs):
            if not isinstance(trace, Trace):
                raise ValueError(
                    f"runs[{index}] must be a steerlab.sim.Trace like runs[0], got "
                    f"{type(trace).__name__}"
                )
            _check_trace(trace)
        frames = max(len(trace) for trace in runs)
        positions = np.full((frames, len(runs), 2), np.nan)
        for index, trace in enumerate(runs):
            positions[: len(trace), index, 0] = trace.x
            positions[: len(trace), index, 1] = trace.y
        return positions
    try:
        positions = np.asarray(runs, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            "runs must be a sequence of traces or positions of shape (frames, agents, 2), got "
            f"{type(runs).__name__}"
        ) from None
    if positions.ndim != 3 or positions.shape[2] != 2 or positions.shape[0] < 1:
        raise ValueError(
            f"runs must have shape (frames, agents, 2) [m], got shape {positions.shape}"
        )
    if np.isinf(positions).any():
        index = tuple(int(i) for i in np.argwhere(np.isinf(positions))[0])
        raise ValueError(f"runs{list(index)} must be finite or NaN (a gap), got inf")
    return positions


def plot_batch(
    runs,
    path=None,
    world: World | None = None,
    ax: Axes | None = None,
    *,
    colors: Sequence | None = None,
) -> Axes:
    """Many agents' trajectories over a path (or one path per agent) and a world.

    Parameters
    ----------
    runs : sequence of steerlab.sim.Trace, or array_like of shape (frames, agents, 2)
        The agents' positions [m] over time (``positions[k, i]`` agent ``i`` at frame ``k``);
        NaN leaves a gap. Traces of different lengths are padded with NaN.
    path : Polyline, array_like, or a sequence of them, optional
        The path every agent follows, or one path per agent (each drawn once).
    world : steerlab.world.World, optional
        Terrain and walls under the runs.
    ax : matplotlib.axes.Axes, optional
        Where to draw; default: a new figure.
    colors : sequence of matplotlib colors, optional
        One per agent, or cycled; default: matplotlib's tab colours.

    Returns
    -------
    matplotlib.axes.Axes
        The trajectories are one ``LineCollection`` (``gid="trajectories"``), segment ``i``
        agent ``i``'s positions; starts and ends are markers (``gid="start"``, ``"end"``).

    Raises
    ------
    ValueError
        ``runs`` neither traces nor a ``(frames, agents, 2)`` array; a path or ``world`` of the
        wrong type.

    Examples
    --------
    >>> import numpy as np
    >>> from steerlab.plot import plot_batch
    >>> t = np.linspace(0.0, 10.0, 101)[:, None]
    >>> lanes = np.arange(5.0)[None, :]
    >>> positions = np.stack((3.0 * t + 0 * lanes, lanes + np.sin(t)), axis=-1)
    >>> ax = plot_batch(positions, path=[(0, 2), (30, 2)])
    >>> ax.figure.savefig("batch.png")
    """
    positions = _batch_positions(runs)
    agents = positions.shape[1]
    if path is not None and not isinstance(path, Polyline) and _is_path_list(path):
        if len(path) != agents:
            raise ValueError(
                f"path must be one path or one per agent ({agents}), got {len(path)} paths"
            )
        paths, seen = [], set()
        for index, one in enumerate(path):
            line = planar_polyline(one, name=f"path[{index}]")
            if id(one) not in seen:  # a path shared by several agents is drawn once
                seen.add(id(one))
                paths.append(line)
    else:
        paths = [] if path is None else [_check_path(path)]
    world = _check_world(world)
    axes = _check_axes(ax, 8.0, 6.0)
    _backdrop(axes, None, world)
    for line in paths:
        draw_path(axes, line)
    palette = list(colors) if colors is not None else list(_COLORS)
    if not palette:
        raise ValueError("colors must hold at least one colour, got none")
    agent_colors = [palette[i % len(palette)] for i in range(agents)]
    lines = LineCollection(
        [positions[:, i] for i in range(agents)],
        colors=agent_colors,
        linewidths=1.0,
        zorder=4,
        gid="trajectories",
    )
    axes.add_collection(lines)
    firsts, lasts = [], []
    for i in range(agents):
        finite = np.flatnonzero(np.isfinite(positions[:, i]).all(axis=1))
        if finite.size:
            firsts.append(positions[finite[0], i])
            lasts.append(positions[finite[-1], i])
    if firsts:
        start, end = np.array(firsts), np.array(lasts)
        axes.plot(start[:, 0], start[:, 1], "o", color="black", markersize=3, zorder=6, gid="start")
        axes.plot(end[:, 0], end[:, 1], "s", color="black", markersize=3, zorder=6, gid="end")
    axes.autoscale_view()
    return axes


def _is_path_list(path) -> bool:
    """Whether ``path`` is a sequence of paths rather than one path's points."""
    if isinstance(path, np.ndarray):
        return path.ndim == 3
    if not isinstance(path, Sequence) or not len(path):
        return False
    first = path[0]
    return isinstance(first, Polyline) or np.ndim(first) == 2


def trace_speed(trace: Trace) -> np.ndarray:
    """Speed [m/s] of every frame: the forward speed ``v`` where the state has one
    (``VehicleState``, ``UnicycleState``; negative in reverse), else ``|(vx, vy)|``
    (``AgentState``). ``ValueError`` when the trace has neither."""
    if "v" in trace.states:
        return trace.v
    if "vx" in trace.states and "vy" in trace.states:
        return np.hypot(trace.vx, trace.vy)
    raise ValueError(
        f"trace must have a speed: the state field v, or vx and vy; got {list(trace.states)}"
    )


def plot_speed(
    trace: Trace,
    ax: Axes | None = None,
    *,
    target_speed=None,
    color="tab:blue",
    label: str | None = None,
) -> Axes:
    """Speed over time: the forward speed ``v`` (or ``|(vx, vy)|``) of every frame.

    Parameters
    ----------
    trace : steerlab.sim.Trace
        The run, with the state field ``v`` (``VehicleState``, ``UnicycleState``: negative in
        reverse) or ``vx`` and ``vy`` (``AgentState``: the modulus).
    ax : matplotlib.axes.Axes, optional
        Where to draw; default: a new figure.
    target_speed : array_like of shape (frames,), optional
        [m/s] A target to draw dashed (e.g. ``PathFollower.info.target_speed`` recorded per
        frame).
    color : matplotlib color
    label : str, optional
        Legend entry.

    Returns
    -------
    matplotlib.axes.Axes
        The curve is the line ``gid="speed"`` (x: ``trace.t`` [s], y: speed [m/s]); the target
        ``gid="target-speed"``.

    Raises
    ------
    ValueError
        ``trace`` not a ``Trace`` or without a speed; ``target_speed`` not one value per frame.

    Examples
    --------
    >>> from steerlab.engines import BaseEngine, BaseEngineParams, AgentState, Command
    >>> from steerlab.plot import plot_speed
    >>> from steerlab.sim import ConstantCommand, simulate
    >>> engine = BaseEngine(BaseEngineParams(k_yaw=4.0, k_speed=2.0))
    >>> trace = simulate(engine, ConstantCommand(Command(0.5, 10.0)), AgentState(), 0.05, 100)
    >>> ax = plot_speed(trace)
    >>> ax.figure.savefig("speed.png")
    """
    trace = _check_trace(trace, ())
    speed = trace_speed(trace)
    target = None
    if target_speed is not None:
        target = _check_series("target_speed", target_speed, trace.t.size)
    axes = _check_axes(ax, 8.0, 3.5)
    axes.plot(trace.t, speed, color=color, label=label, gid="speed")
    if target is not None:
        axes.plot(
            trace.t,
            target,
            "--",
            color=color,
            linewidth=0.9,
            label="target speed" if label is None else f"{label}: target speed",
            gid="target-speed",
        )
    axes.set_xlabel("t [s]")
    axes.set_ylabel("speed [m/s]")
    axes.grid(True, alpha=0.3)
    return axes


def plot_cross_track(
    trace: Trace,
    path,
    ax: Axes | None = None,
    *,
    color="tab:blue",
    label: str | None = None,
    corridor: bool = True,
) -> Axes:
    """Signed cross-track error over time: each frame's distance to the path, left positive.

    ``Polyline.project``'s error to the whole path in the ground plane, every frame in one call
    (``Polyline.project_batch``). With ``corridor`` and a path with widths, the corridor's half
    width at each frame's projection is drawn dotted on both sides (``+-width / 2``).

    Parameters
    ----------
    trace : steerlab.sim.Trace
        The run (state fields ``x``, ``y`` [m]).
    path : Polyline or array_like of shape (n, 2) or (n, 3)
        The path.
    ax : matplotlib.axes.Axes, optional
        Where to draw; default: a new figure.
    color : matplotlib color
    label : str, optional
        Legend entry.
    corridor : bool
        Draw the corridor's half width.

    Returns
    -------
    matplotlib.axes.Axes
        The curve is the line ``gid="cross-track"`` (x: ``trace.t`` [s], y: error [m]); the
        half width ``gid="half-width"`` (two lines).

    Raises
    ------
    ValueError
        ``trace`` not a ``Trace`` or without ``x``, ``y``; ``path`` not a valid path.

    Examples
    --------
    >>> import numpy as np
    >>> from steerlab.geometry import Polyline
    >>> from steerlab.plot import plot_cross_track
    >>> from steerlab.sim import Trace
    >>> t = np.linspace(0.0, 10.0, 101)
    >>> trace = Trace(t, {"x": 2.0 * t, "y": np.sin(t)}, {})
    >>> ax = plot_cross_track(trace, Polyline([(0, 0), (25, 0)], widths=3.0))
    >>> ax.figure.savefig("cross_track.png")
    """
    trace = _check_trace(trace)
    if path is None:
        raise ValueError("path must be a Polyline or waypoints, got None")
    line = _check_path(path)
    projection = line.project_batch(np.column_stack((trace.x, trace.y)))
    axes = _check_axes(ax, 8.0, 3.5)
    axes.plot(trace.t, projection.cross_track, color=color, label=label, gid="cross-track")
    if corridor and line.widths is not None:
        half = 0.5 * line.widths[projection.segment]
        for sign in (1.0, -1.0):
            axes.plot(trace.t, sign * half, ":", color="black", linewidth=1.0, gid="half-width")
    axes.axhline(0.0, color="black", linewidth=0.5, alpha=0.5)
    axes.set_xlabel("t [s]")
    axes.set_ylabel("cross-track error [m] (left +)")
    axes.grid(True, alpha=0.3)
    return axes
