"""What a replay shows, checked once: agents' frames, the path and the world (``ReplayScene``).

``replay_scene`` validates what ``steerlab.replay.write_replay`` is given and gathers it; the page
(``steerlab.replay.page``) and the video (``steerlab.replay.video``) draw the same scene. Frames
are kept whole here; each output keeps the frames it needs (``kept_frames``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from steerlab.geometry import Polyline, planar_polyline
from steerlab.plot.runs import trace_speed
from steerlab.sim import Trace
from steerlab.world import World

__all__ = [
    "COLORS",
    "MAX_FPS",
    "ReplayAgent",
    "ReplayEvent",
    "ReplayScene",
    "kept_frames",
    "replay_scene",
]

MAX_FPS = 60.0
"""[1/s] Frames per second of the run's time a page keeps at most (``kept_frames``)."""

COLORS = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
)  # fmt: skip
"""The agents' colours, in order (matplotlib's ``tab10``), cycled."""

_FOOTPRINT_SCALE = 0.015  # default footprint: half length this share of the scene's diagonal


class ReplayEvent(NamedTuple):
    """A marked moment of one agent: a stuck event, at ``t`` [s], where the agent was."""

    t: float  # [s]
    x: float  # [m] the agent's position at its last frame at or before t
    y: float  # [m]
    kind: str = "stuck"


class ReplayAgent(NamedTuple):
    """One agent's frames (arrays of one length, every frame of its trace) and how to draw it."""

    label: str
    color: str  # "#rrggbb"
    shape: str  # "box" (a rectangle 2 half_length x 2 half_width) or "circle" (radius half_width)
    half_length: float  # [m] along the heading
    half_width: float  # [m] across
    t: np.ndarray  # [s] strictly increasing
    x: np.ndarray  # [m]
    y: np.ndarray  # [m]
    yaw: np.ndarray  # [rad]
    speed: np.ndarray  # [m/s] ``steerlab.plot.runs.trace_speed``
    cross_track: np.ndarray | None  # [m] signed, left of the path positive (with a path)
    target_x: np.ndarray | None  # [m] the target point (NaN: none at that frame)
    target_y: np.ndarray | None  # [m]
    target_speed: np.ndarray | None  # [m/s] (NaN: none at that frame)
    events: tuple[ReplayEvent, ...]  # in time order


class ReplayScene(NamedTuple):
    """Everything a replay draws."""

    title: str
    agents: tuple[ReplayAgent, ...]
    path: Polyline | None  # in the ground plane, with its corridor widths
    world: World | None
    bounds: tuple[float, float, float, float]  # [m] x_min, x_max, y_min, y_max of the view
    t_start: float  # [s] the earliest frame of any agent
    t_end: float  # [s] the latest


def kept_frames(t: np.ndarray, max_fps: float) -> np.ndarray:
    """Indices of the frames kept at ``max_fps`` frames per second of the run's time at most.

    Every ``stride``-th frame from the first, ``stride = ceil(1 / (max_fps * mean interval))``
    (at least 1), and the last frame: a run recorded at 50 frames per second keeps every frame
    under the default 60; one at 1,000 keeps every 17th (58.8 per second).
    """
    frames = t.size
    if frames <= 2:
        return np.arange(frames)
    interval = (float(t[-1]) - float(t[0])) / (frames - 1)
    stride = max(1, math.ceil(1.0 / (max_fps * interval) - 1e-9))
    index = np.arange(0, frames, stride)
    if index[-1] != frames - 1:
        index = np.append(index, frames - 1)
    return index


# --------------------------------------------------------------------------------------------------
# checks


def _agent_traces(traces) -> list[tuple[Trace, int | None]]:
    """``(trace, column)`` per agent: ``column`` the agent's column in a batch trace's 2-D
    fields, ``None`` for a one-agent trace."""
    if isinstance(traces, Trace):
        listed = [traces]
    elif isinstance(traces, Sequence) and not isinstance(traces, str) and len(traces):
        listed = list(traces)
    else:
        raise ValueError(
            "traces must be a steerlab.sim.Trace, a batch Trace (fields of shape (frames, "
            f"agents)) or a non-empty sequence of traces, got {type(traces).__name__}"
        )
    agents = []
    for index, trace in enumerate(listed):
        name = "traces" if isinstance(traces, Trace) else f"traces[{index}]"
        if not isinstance(trace, Trace):
            raise ValueError(f"{name} must be a steerlab.sim.Trace, got {type(trace).__name__}")
        missing = [field for field in ("x", "y", "yaw") if field not in trace.states]
        if missing:
            raise ValueError(
                f"{name} must have the state fields x, y and yaw, got {list(trace.states)} "
                f"(missing {missing})"
            )
        if trace.t.size < 1:
            raise ValueError(f"{name} must have at least one frame, got none")
        t = trace.t
        if t.ndim != 1 or not np.isfinite(t).all() or (t.size > 1 and np.any(np.diff(t) <= 0)):
            raise ValueError(f"{name}.t must be finite and strictly increasing [s], got {t!r}")
        ndim = trace.x.ndim
        if ndim == 2 and isinstance(traces, Trace):
            agents += [(trace, column) for column in range(trace.x.shape[1])]
        elif ndim == 1:
            agents.append((trace, None))
        else:
            raise ValueError(
                f"{name}.x must have shape (frames,) or, for a batch trace, (frames, agents), "
                f"got {trace.x.shape}"
            )
    if not agents:
        raise ValueError("traces must hold at least one agent, got a batch of 0")
    return agents


def _column(values: np.ndarray, column: int | None) -> np.ndarray:
    values = np.asarray(values, dtype=np.float64)
    return values if column is None else values[:, column]


def _finite_series(name: str, values: np.ndarray) -> np.ndarray:
    if not np.isfinite(values).all():
        index = int(np.flatnonzero(~np.isfinite(values))[0])
        raise ValueError(f"{name}[{index}] must be finite, got {values[index]!r}")
    return values


def _per_agent(name: str, value, agents: int) -> list:
    """``value`` for the one agent, or a list or tuple of one per agent (``None``: none)."""
    if value is None or agents == 1:
        return [value] * agents
    if not isinstance(value, list | tuple) or len(value) != agents:
        size = len(value) if isinstance(value, list | tuple) else type(value).__name__
        raise ValueError(f"{name} must hold one entry per agent ({agents}), got {size}")
    return list(value)


def _is_one_footprint(value) -> bool:
    if value is None or (hasattr(value, "half_length") and hasattr(value, "half_width")):
        return True
    if isinstance(value, np.ndarray):
        return value.shape == (2,)
    return (
        isinstance(value, list | tuple)
        and len(value) == 2
        and all(isinstance(part, int | float | np.number) for part in value)
    )


def _footprint(name: str, value, default: float) -> tuple[str, float, float]:
    """``(shape, half_length, half_width)`` of a footprint: a record with ``half_length`` and
    ``half_width`` (``VehicleParams``, ``steerlab.world.Footprint``, whose ``shape`` may be
    ``"circle"``) or a pair ``(half_length, half_width)`` [m]; ``None``: a box scaled to the
    scene."""
    if value is None:
        return "box", default, 0.5 * default
    shape = getattr(value, "shape", "box")
    if hasattr(value, "half_length") and hasattr(value, "half_width"):
        pair = (value.half_length, value.half_width)
    elif isinstance(value, tuple | list | np.ndarray) and len(value) == 2:
        pair, shape = tuple(value), "box"
    else:
        raise ValueError(
            f"{name} must be a (half_length, half_width) pair [m] or a record with half_length "
            f"and half_width (VehicleParams, Footprint), got {value!r}"
        )
    try:
        half_length, half_width = (float(part) for part in pair)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must hold two numbers [m], got {value!r}") from None
    if shape not in ("box", "circle"):
        raise ValueError(f"{name}.shape must be 'box' or 'circle', got {shape!r}")
    for part, size in (("half_length", half_length), ("half_width", half_width)):
        if not (math.isfinite(size) and size > 0.0):
            raise ValueError(f"{name}: {part} must be > 0 and finite [m], got {size!r}")
    return shape, half_length, half_width


def _series_of(name: str, value, frames: int, width: int | None, column: int | None):
    """An agent's per-frame array (``(frames,)`` or ``(frames, width)``), taken from a batch's
    ``(frames, agents, ...)`` array at ``column`` when the traces are a batch."""
    if value is None:
        return None
    array = np.asarray(value, dtype=np.float64)
    if column is not None:
        if array.ndim < 2 or array.shape[1] <= column:
            raise ValueError(
                f"{name} must have shape (frames, agents{', 2' if width else ''}) for a batch "
                f"trace, got {array.shape}"
            )
        array = array[:, column]
    expected = (frames,) if width is None else (frames, width)
    if array.shape != expected:
        raise ValueError(f"{name} must have shape {expected} (one per frame), got {array.shape}")
    if np.isinf(array).any():
        raise ValueError(f"{name} must be finite or NaN (none at that frame), got inf")
    return array


def _events_per_agent(events, agents: int) -> list[list[float]]:
    """Event times [s] per agent from ``events``: records with ``time`` (and ``agent``: the
    follower's ``StuckEvent``), times of the one agent, or one sequence of times per agent."""
    per_agent: list[list[float]] = [[] for _ in range(agents)]
    if events is None:
        return per_agent
    if not isinstance(events, Sequence | np.ndarray) or isinstance(events, str):
        raise ValueError(f"events must be a sequence, got {type(events).__name__}")
    items = list(events)
    if items and all(hasattr(item, "time") for item in items):
        for index, item in enumerate(items):
            agent = getattr(item, "agent", 0)
            if isinstance(agent, bool) or not isinstance(agent, int | np.integer):
                raise ValueError(f"events[{index}].agent must be an integer, got {agent!r}")
            if not 0 <= agent < agents:
                raise ValueError(f"events[{index}].agent must be in [0, {agents}), got {agent}")
            per_agent[int(agent)].append(item.time)
    elif agents == 1 and all(np.ndim(item) == 0 for item in items):
        per_agent[0] = items
    else:
        if len(items) != agents:
            raise ValueError(
                f"events must be StuckEvent records, times of the one agent, or one sequence of "
                f"times per agent ({agents}), got {len(items)} entries"
            )
        per_agent = [list(np.atleast_1d(np.asarray(item, dtype=np.float64))) for item in items]
    checked = []
    for index, times in enumerate(per_agent):
        try:
            values = np.asarray(times, dtype=np.float64).reshape(-1)
        except (TypeError, ValueError):
            raise ValueError(f"events of agent {index} must be times [s], got {times!r}") from None
        checked.append(sorted(float(value) for value in values))
    return checked


def _events(index: int, times: list[float], t, x, y) -> tuple[ReplayEvent, ...]:
    found = []
    for time in times:
        if not (math.isfinite(time) and t[0] <= time <= t[-1]):
            raise ValueError(
                f"events of agent {index}: a time must be within the agent's frames "
                f"[{t[0]:g}, {t[-1]:g}] s, got {time!r}"
            )
        frame = int(np.searchsorted(t, time, side="right")) - 1
        found.append(ReplayEvent(time, float(x[frame]), float(y[frame])))
    return tuple(found)


def _labels(labels, agents: int) -> list[str]:
    if labels is None:
        return ["agent"] if agents == 1 else [f"agent {i}" for i in range(agents)]
    if isinstance(labels, str) and agents == 1:
        return [labels]
    if not isinstance(labels, Sequence) or isinstance(labels, str) or len(labels) != agents:
        raise ValueError(f"labels must be one string per agent ({agents}), got {labels!r}")
    for index, label in enumerate(labels):
        if not isinstance(label, str):
            raise ValueError(f"labels[{index}] must be a string, got {label!r}")
    return list(labels)


def _bounds(points: list[np.ndarray], pad: float) -> tuple[float, float, float, float]:
    stacked = np.concatenate([p.reshape(-1, 2) for p in points if p.size])
    stacked = stacked[np.isfinite(stacked).all(axis=1)]
    x0, y0 = stacked.min(axis=0)
    x1, y1 = stacked.max(axis=0)
    span = max(x1 - x0, y1 - y0, 1e-9)
    grow = pad * span + 1e-3 * max(1.0, abs(x0), abs(x1), abs(y0), abs(y1))
    return float(x0 - grow), float(x1 + grow), float(y0 - grow), float(y1 + grow)


# --------------------------------------------------------------------------------------------------
# the scene


def replay_scene(
    traces,
    *,
    path=None,
    world=None,
    labels=None,
    footprints=None,
    targets=None,
    target_speeds=None,
    events=None,
    title=None,
) -> ReplayScene:
    """Check and gather a replay's inputs (``steerlab.replay.write_replay`` documents them)."""
    sources = _agent_traces(traces)
    count = len(sources)
    names = _labels(labels, count)
    line = None if path is None else planar_polyline(path, name="path")
    if world is not None and not isinstance(world, World):
        raise ValueError(f"world must be a steerlab.world.World or None, got {world!r}")
    if title is not None and not isinstance(title, str):
        raise ValueError(f"title must be a string or None, got {title!r}")
    batch = isinstance(traces, Trace) and sources[0][1] is not None
    target_list = [targets] * count if batch else _per_agent("targets", targets, count)
    speed_list = (
        [target_speeds] * count if batch else _per_agent("target_speeds", target_speeds, count)
    )
    footprint_list = (
        [footprints] * count
        if _is_one_footprint(footprints)
        else _per_agent("footprints", footprints, count)
    )
    times = _events_per_agent(events, count)

    positions = []
    gathered = []
    for index, (trace, column) in enumerate(sources):
        prefix = f"agent {index} ({names[index]})"
        t = trace.t
        x = _finite_series(f"{prefix}: x", _column(trace.x, column))
        y = _finite_series(f"{prefix}: y", _column(trace.y, column))
        yaw = _finite_series(f"{prefix}: yaw", _column(trace.yaw, column))
        speed = _column(trace_speed(trace), column)
        target = _series_of(f"targets (agent {index})", target_list[index], t.size, 2, column)
        target_speed = _series_of(
            f"target_speeds (agent {index})", speed_list[index], t.size, None, column
        )
        cross_track = None
        if line is not None:
            cross_track = line.project_batch(np.column_stack((x, y))).cross_track
        positions.append(np.column_stack((x, y)))
        gathered.append((t, x, y, yaw, speed, cross_track, target, target_speed))
    static = [positions[0][:1]]
    if line is not None:
        static.append(line.points[:, :2])
    if world is not None and len(world.walls.segments):
        static.append(np.asarray(world.walls.segments))
    provisional = _bounds(static + positions, 0.0)
    diagonal = math.hypot(provisional[1] - provisional[0], provisional[3] - provisional[2])
    default_size = max(_FOOTPRINT_SCALE * diagonal, 1e-6)

    agents = []
    for index, (t, x, y, yaw, speed, cross_track, target, target_speed) in enumerate(gathered):
        shape, half_length, half_width = _footprint(
            f"footprints[{index}]" if count > 1 else "footprints",
            footprint_list[index],
            default_size,
        )
        agents.append(
            ReplayAgent(
                label=names[index],
                color=COLORS[index % len(COLORS)],
                shape=shape,
                half_length=half_length,
                half_width=half_width,
                t=t,
                x=x,
                y=y,
                yaw=yaw,
                speed=np.asarray(speed, dtype=np.float64),
                cross_track=cross_track,
                target_x=None if target is None else target[:, 0],
                target_y=None if target is None else target[:, 1],
                target_speed=target_speed,
                events=_events(index, times[index], t, x, y),
            )
        )
    view = [*static, *positions]
    if line is not None and line.widths is not None:
        finite = line.widths[np.isfinite(line.widths)]
        if finite.size:
            reach = 0.5 * float(finite.max())
            corners = line.points[:, :2]
            view += [corners + reach, corners - reach]
    reach = max(max(agent.half_length, agent.half_width) for agent in agents)
    view += [p + reach for p in positions] + [p - reach for p in positions]
    return ReplayScene(
        title=title or "steerlab replay",
        agents=tuple(agents),
        path=line,
        world=world,
        bounds=_bounds(view, 0.04),
        t_start=float(min(agent.t[0] for agent in agents)),
        t_end=float(max(agent.t[-1] for agent in agents)),
    )
