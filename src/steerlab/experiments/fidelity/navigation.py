"""Seed 002 (Navigation towards points, along segments, around points): each claim, measured.

Each screenshot of the page comes with a claim ("the bot, running at full speed, is not able at
all to stay in the corridors", "the bot stays within bounds"...). This module re-runs each one
by simulation, on steerlab's navigators (``TowardsPoints``, ``AlongSegments``,
``AroundPoints``) driving steerlab's Half-Life engine with the page's cvars (seed 004: accelerate
5, friction 4, stopspeed 75, maxspeed 320; ``model="engine"``, the SDK's order, since the
screenshots come from the game), at ``T = 0.01`` s, over several routes of a nav data file with 24
waypoints and mixed widths (``examples/navdata/level.toml``) and around the points of
``examples/navdata/slalom.toml``, and measures every corridor number with
``steerlab.navigation.corridor_metrics`` (capsule corridors and the turn overshoots: its module
docstring).

``measure_seed002()`` returns the ``Claim`` records, ``render_markdown(claims)`` the section of
``docs/fidelity.md``; ``steerlab fidelity 002`` prints it and ``steerlab figures
002`` (``steerlab.experiments.fidelity.navigation_figures``) draws one figure per screenshot from
the same scenarios
(``SCENARIOS``, ``run_scenario``).

Conventions of every run: the agent starts at rest on the route's first waypoint, facing the
second; a run lasts at most ``SECONDS`` and is cut once the agent has stopped for good (the
navigator's arrival latch: zero speed commanded and reached), so that the frames spent standing on
the goal do not inflate the share inside. Units: Half-Life units (u, about an inch), seconds.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np

from steerlab.engines import (
    AgentState,
    BaseEngine,
    BaseEngineParams,
    Command,
    HalfLifeEngine,
    HalfLifeParams,
)
from steerlab.engines.halflife import (
    low_speed_steady_speed,
    low_speed_threshold,
    turn_crossing_distance,
)
from steerlab.experiments.fidelity.claims import Claim, render_claims
from steerlab.experiments.fidelity.claims import format_number as _number
from steerlab.experiments.markdown import markdown_table as _table
from steerlab.navigation import (
    AlongSegments,
    AroundPoints,
    CorridorMetrics,
    Route,
    TowardsPoints,
    corridor_metrics,
    example_navdata,
    find_route,
    half_life_prediction_horizon,
    load_navdata,
)
from steerlab.sim import simulate
from steerlab.sim.trace import Trace

__all__ = [
    "AROUND_FIGURES",
    "COMMAND",
    "DT",
    "FIGURES_COMMAND",
    "LEVEL",
    "PARAMS",
    "ROUTES",
    "SCENARIOS",
    "AroundRun",
    "IndexRecorder",
    "RouteRun",
    "Scenario",
    "aligned_route",
    "around_horizons",
    "comfortable_corridors",
    "ideal_around_path",
    "level_routes",
    "measure_seed002",
    "narrow_corridors",
    "render_markdown",
    "run_around",
    "run_navigator",
    "run_scenario",
    "turn_speeds",
    "uniform_corridors",
]

COMMAND = "steerlab fidelity 002"
FIGURES_COMMAND = "steerlab figures 002 --out out/figures"
LEVEL = example_navdata("level.toml")
SLALOM = example_navdata("slalom.toml")
DT = 0.01  # [s] a 100 Hz game frame; the page does not give the screenshots' T
PARAMS = HalfLifeParams()  # seed 004's cvars: accelerate 5, friction 4, stopspeed 75, SDK order
SPEED = 320.0  # [u/s] UE_mVelMax, Half-Life's sv_maxspeed: "full speed"
SECONDS = 60.0  # [s] longest run (the slowest finished run takes about 15 s)
FLOOR_SECONDS = 30.0  # [s] runs of along.7, some of which stall for good
ROUTES = (("s1", "g1"), ("g1", "s1"), ("h1", "j1"), ("s1", "u2"))
FAST_ROUTES = (("s1", "g1"), ("h1", "j1"))
NARROW_WIDTH = 4.0  # [u] full width: the page's "+- 2 units"
SWITCH_RADIUS = 0.5 * NARROW_WIDTH  # [u] towards points: switch once within both +-2 corridors
TOWARDS_K_D = 4.0  # [1/s] the headline gain of towards points with speed control
TOWARDS_GAINS = (2.0, 4.0, 8.0)
BEAM_WIDTHS = (16.0, 8.0)  # [u] corridors1.toml's beam, level.toml's beam
COMFORTABLE_MIN_WIDTH = 48.0  # [u] the level's beam raised to its narrow corridors' width
COMFORTABLE_SCALE = 4.0  # half widths >= 96 u > the turn crossing distance at 320 u/s (76.8 u)
TIGHT_TURN = math.radians(45.0)  # a turn by at least this is "tight"
TURN_WINDOW = 96.0  # [u] frames this close to a turn's waypoint belong to the turn
STRAIGHT_CLEARANCE = 128.0  # [u] frames farther than this from every waypoint are "straight"
_AROUND_START = AgentState(0.0, 0.0, 0.0, 0.0, 0.0)  # at rest before the slalom, facing +x
AROUND_FIGURES = {"nav002_around": "none", "nav002_around_predicted": "the seed's, 1/F - T"}


def _claim(key, claim, models, measured, verdict, note, details="") -> Claim:
    return Claim(key, claim, models, measured, verdict, note, details, COMMAND)


# ---------------------------------------------------------------------------------------------
# routes and corridors
# ---------------------------------------------------------------------------------------------


def level_routes(
    pairs: Sequence[tuple[str, str]] = ROUTES, path: str | Path = LEVEL
) -> dict[str, Route]:
    """The level's routes ``"start->goal"`` (``find_route``), with the file's own widths."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(
            f"the seed 002 measurements need the example level {str(path)!r} (examples/navdata "
            "of a source checkout)"
        )
    nav = load_navdata(path)
    return {f"{start}->{goal}": find_route(nav, start, goal) for start, goal in pairs}


def uniform_corridors(route: Route, width: float) -> Route:
    """The route with every corridor ``width`` [u] wide (full width)."""
    return dataclasses.replace(route, widths=np.full(route.segment_count, float(width)))


def narrow_corridors(route: Route) -> Route:
    """The page's demonstration corridors: ``+- 2`` units (full width 4)."""
    return uniform_corridors(route, NARROW_WIDTH)


def comfortable_corridors(route: Route) -> Route:
    """The level's widths with the beam raised to 48 u, times 4: 192 to 384 u.

    "Comfortable" is "corridor width big enough for given velocity": every half width (96 u and
    more) exceeds the distance at which a Half-Life agent at 320 u/s crosses its former line after
    a step turn, ``(1/friction - T) 320 = 76.8`` u (seed 004, "Turns").
    """
    widths = np.maximum(np.asarray(route.widths, dtype=float), COMFORTABLE_MIN_WIDTH)
    return dataclasses.replace(route, widths=COMFORTABLE_SCALE * widths)


def aligned_route(width: float = 128.0) -> Route:
    """Five almost aligned waypoints (300 u apart, within 8 u of a line), ``width`` wide."""
    positions = np.array(
        [[0.0, 0.0, 0.0], [300.0, 6.0, 0.0], [600.0, -4.0, 0.0], [900.0, 8.0, 0.0], [1200, 0, 0]]
    )
    lengths = np.hypot(*np.diff(positions[:, :2], axis=0).T)
    return Route(
        waypoint_ids=("a0", "a1", "a2", "a3", "a4"),
        positions=positions,
        radii=np.full(5, 24.0),
        waypoint_flags=(frozenset(),) * 5,
        widths=np.full(4, float(width)),
        segment_flags=(frozenset(),) * 4,
        lengths=lengths,
    )


def _plane_points(route: Route) -> np.ndarray:
    return np.asarray(route.positions, dtype=float)[:, :2]


# ---------------------------------------------------------------------------------------------
# controller wrappers
# ---------------------------------------------------------------------------------------------


class IndexRecorder:
    """A navigator whose current segment / waypoint index is recorded after every frame."""

    def __init__(self, navigator):
        self.navigator = navigator
        self.indices: list[int] = []

    def reset(self) -> None:
        self.navigator.reset()
        self.indices = []

    def step(self, state: AgentState, dt: float) -> Command:
        command = self.navigator.step(state, dt)
        self.indices.append(int(self.navigator.memory.index))
        return command


# ---------------------------------------------------------------------------------------------
# runs
# ---------------------------------------------------------------------------------------------


def _start(route: Route) -> AgentState:
    points = _plane_points(route)
    direction = points[1:] - points[0]
    moving = np.flatnonzero(np.hypot(direction[:, 0], direction[:, 1]) > 0.0)
    dx, dy = direction[moving[0]] if moving.size else (1.0, 0.0)
    return AgentState(points[0, 0], points[0, 1], 0.0, 0.0, math.atan2(dy, dx))


def _until_stopped(trace: Trace) -> Trace:
    """The trace up to the frame where the agent is at rest with zero speed commanded for good."""
    speed = np.hypot(trace.vx, trace.vy)
    commanded = trace.commands["speed"]
    moving = np.flatnonzero((speed[:-1] > 0.0) | (commanded > 0.0))
    frames = int(moving[-1]) + 2 if moving.size else 1
    if frames >= trace.t.size:
        return trace
    return Trace(
        trace.t[:frames],
        {name: values[:frames] for name, values in trace.states.items()},
        {name: values[: frames - 1] for name, values in trace.commands.items()},
        trace.state_type,
        trace.command_type,
    )


def run_navigator(
    controller, route: Route, dt: float = DT, seconds: float = SECONDS, engine=None
) -> tuple[Trace, CorridorMetrics]:
    """Run ``controller`` on Half-Life from the route's start; the trace and its metrics.

    The trace stops once the agent is at rest for good (module docstring) or after ``seconds``.
    """
    engine = HalfLifeEngine(PARAMS) if engine is None else engine
    trace = _until_stopped(simulate(engine, controller, _start(route), dt, round(seconds / dt)))
    return trace, corridor_metrics(trace, route)


class Scenario(NamedTuple):
    """One screenshot of the page: the corridors it uses and the navigator that drives it."""

    name: str  # the figure's file name
    label: str
    corridors: Callable[[Route], Route]
    navigator: Callable[[Route], object]  # corridors -> controller


def _towards_full(route: Route):
    return TowardsPoints(route, k_d=None, speed_bound=SPEED, switch_radius=SWITCH_RADIUS)


def _towards_speed(route: Route, k_d: float = TOWARDS_K_D, floor: bool = True):
    return TowardsPoints(
        route,
        k_d=k_d,
        speed_bound=SPEED,
        switch_radius=SWITCH_RADIUS,
        speed_to_next_segment=True,
        speed_floor=low_speed_threshold(PARAMS) if floor else 0.0,
    )


def _along_v1(route: Route):
    return AlongSegments(route, version=1, engine=PARAMS, predict=False, speed_control=False)


def _along_v2(route: Route, speed_control: bool, **options):
    return AlongSegments(
        route, version=2, engine=PARAMS, predict=True, speed_control=speed_control, **options
    )


SCENARIOS: dict[str, Scenario] = {
    scenario.name: scenario
    for scenario in (
        Scenario(
            "nav002_towards_full",
            "TowardsPoints at full speed (320 u/s, k_D = 1/T), switch within 2 u, +-2 u corridors",
            narrow_corridors,
            _towards_full,
        ),
        Scenario(
            "nav002_towards_speed",
            f"TowardsPoints, speed to the next segment (k_D = {TOWARDS_K_D:g} 1/s, floor 60 u/s), "
            "+-2 u corridors",
            narrow_corridors,
            _towards_speed,
        ),
        Scenario(
            "nav002_along_v1_comfortable",
            "AlongSegments v1, no prediction, no speed control, comfortable widths (192-384 u)",
            comfortable_corridors,
            _along_v1,
        ),
        Scenario(
            "nav002_along_v1_beam",
            f"AlongSegments v1, no prediction, no speed control, {BEAM_WIDTHS[0]:g} u beams",
            lambda route: uniform_corridors(route, BEAM_WIDTHS[0]),
            _along_v1,
        ),
        Scenario(
            "nav002_along_v2_predict",
            "AlongSegments v2, prediction (K_y = 4), no speed control, the level's widths",
            lambda route: route,
            lambda route: _along_v2(route, False),
        ),
        Scenario(
            "nav002_along_v2_predict_speed",
            "AlongSegments v2, prediction (K_y = 4), speed control (k_D = 3), the level's widths",
            lambda route: route,
            lambda route: _along_v2(route, True),
        ),
    )
}


def _nanmax(values) -> float:
    values = np.asarray(values, dtype=float)
    return float(np.nanmax(values)) if np.isfinite(values).any() else math.nan


class RouteRun(NamedTuple):
    """One simulated run: the route's name, its corridors, the trace, the metrics, and the
    overshoot of each turn (``CorridorMetrics.turn_overshoot``) [u]."""

    name: str
    route: Route
    trace: Trace
    metrics: CorridorMetrics
    turn_overshoot: np.ndarray
    turn_overshoot_beyond_bound: np.ndarray

    @property
    def max_turn_overshoot(self) -> float:
        return _nanmax(self.turn_overshoot)

    @property
    def max_turn_overshoot_beyond_bound(self) -> float:
        return _nanmax(self.turn_overshoot_beyond_bound)


def _route_run(name: str, route: Route, trace: Trace, metrics: CorridorMetrics) -> RouteRun:
    return RouteRun(
        name, route, trace, metrics, metrics.turn_overshoot, metrics.turn_overshoot_beyond_bound
    )


def run_scenario(name: str, route_name: str, route: Route, dt: float = DT) -> RouteRun:
    """The scenario ``name`` of ``SCENARIOS`` on ``route`` (its own corridors applied)."""
    scenario = SCENARIOS[name]
    corridors = scenario.corridors(route)
    trace, metrics = run_navigator(scenario.navigator(corridors), corridors, dt)
    return _route_run(route_name, corridors, trace, metrics)


# ---------------------------------------------------------------------------------------------
# speeds at turns
# ---------------------------------------------------------------------------------------------


class TurnSpeed(NamedTuple):
    waypoint: int
    angle: float  # [rad] absolute turn angle
    min_speed: float  # [u/s] within TURN_WINDOW of the waypoint; NaN if never there


def turn_speeds(trace: Trace, route: Route, metrics: CorridorMetrics) -> list[TurnSpeed]:
    """Per turn of the route: its angle and the lowest speed within ``TURN_WINDOW`` of it."""
    points = _plane_points(route)
    xy = np.column_stack((trace.x, trace.y))
    speed = np.hypot(trace.vx, trace.vy)
    turns = []
    for waypoint in metrics.turn_waypoints:
        before = points[waypoint] - points[waypoint - 1]
        after = points[waypoint + 1] - points[waypoint]
        angle = abs(
            math.atan2(
                before[0] * after[1] - before[1] * after[0],
                before[0] * after[0] + before[1] * after[1],
            )
        )
        near = np.hypot(*(xy - points[waypoint]).T) <= TURN_WINDOW
        low = float(speed[near].min()) if near.any() else math.nan
        turns.append(TurnSpeed(int(waypoint), angle, low))
    return turns


def straight_speed(trace: Trace, route: Route) -> float:
    """Mean speed [u/s] over the frames farther than ``STRAIGHT_CLEARANCE`` from every waypoint."""
    points = _plane_points(route)
    xy = np.column_stack((trace.x, trace.y))
    distance = np.hypot(xy[:, None, 0] - points[:, 0], xy[:, None, 1] - points[:, 1]).min(axis=1)
    far = distance > STRAIGHT_CLEARANCE
    return float(np.hypot(trace.vx, trace.vy)[far].mean()) if far.any() else math.nan


# ---------------------------------------------------------------------------------------------
# tables
# ---------------------------------------------------------------------------------------------

_METRIC_HEADER = [
    "inside share",
    "max excursion [u]",
    "max turn overshoot past the next centreline [u]",
    "... past the next bound [u]",
    "mean abs XTD [u]",
    "time to goal [s]",
    "final error [u]",
]


def _metric_cells(run: RouteRun | _Total) -> list[str]:
    metrics = run if isinstance(run, _Total) else run.metrics
    return [
        _number(metrics.inside_share, 3),
        _number(metrics.max_excursion, 3),
        _number(run.max_turn_overshoot, 3),
        _number(run.max_turn_overshoot_beyond_bound, 3),
        _number(metrics.mean_abs_cross_track, 3),
        _number(metrics.time_to_goal, 3),
        _number(metrics.final_error, 3),
    ]


class _Total(NamedTuple):
    """Aggregate over routes: frame-weighted shares and means, worst cases."""

    inside_share: float
    max_excursion: float
    max_turn_overshoot: float
    max_turn_overshoot_beyond_bound: float
    mean_abs_cross_track: float
    time_to_goal: float  # sum over routes (NaN if one never arrived)
    final_error: float  # worst


def _total(runs: Sequence[RouteRun]) -> _Total:
    metrics = [run.metrics for run in runs]
    frames = np.array([m.frames for m in metrics], dtype=float)
    return _Total(
        float(np.dot(frames, [m.inside_share for m in metrics]) / frames.sum()),
        _nanmax([m.max_excursion for m in metrics]),
        _nanmax([run.max_turn_overshoot for run in runs]),
        _nanmax([run.max_turn_overshoot_beyond_bound for run in runs]),
        float(np.dot(frames, [m.mean_abs_cross_track for m in metrics]) / frames.sum()),
        float(sum(m.time_to_goal for m in metrics)),
        _nanmax([m.final_error for m in metrics]),
    )


def _metric_rows(label: str, runs: Sequence[RouteRun]) -> list[list[str]]:
    rows = [[label, run.name, *_metric_cells(run)] for run in runs]
    rows.append([label, "all routes", *_metric_cells(_total(runs))])
    return rows


def _metric_table(rows) -> str:
    return _table(["case", "route", *_METRIC_HEADER], rows)


def _span(values: Sequence[float]) -> str:
    """``"a to b"``, or ``"a"`` when every value is the same."""
    low, high = _number(min(values), 3), _number(max(values), 3)
    return low if low == high else f"{low} to {high}"


def _percent(share: float) -> str:
    return f"{100.0 * share:.3g} %"


def _runs(
    routes: dict[str, Route], corridors, navigator, dt: float = DT, seconds: float = SECONDS
) -> list[RouteRun]:
    runs = []
    for name, route in routes.items():
        corridor_route = corridors(route)
        trace, metrics = run_navigator(navigator(corridor_route), corridor_route, dt, seconds)
        runs.append(_route_run(name, corridor_route, trace, metrics))
    return runs


def _scenario_runs(name: str, routes: dict[str, Route]) -> list[RouteRun]:
    scenario = SCENARIOS[name]
    return _runs(routes, scenario.corridors, scenario.navigator)


# ---------------------------------------------------------------------------------------------
# the claims: navigation towards points
# ---------------------------------------------------------------------------------------------


def _excursion_before_stop(run: RouteRun) -> float:
    """Largest excursion [u] until the navigator first commands zero speed (its arrival latch):
    without the coast to rest past the goal."""
    stopped = np.flatnonzero(run.trace.commands["speed"] == 0.0)
    frames = int(stopped[0]) + 1 if stopped.size else run.trace.t.size
    xy = np.column_stack((run.trace.x[:frames], run.trace.y[:frames]))
    return corridor_metrics(xy, run.route).max_excursion


def _claim_towards_full(routes) -> tuple[Claim, list[RouteRun]]:
    runs = _scenario_runs("nav002_towards_full", routes)
    radius_runs = _runs(routes, narrow_corridors, lambda r: TowardsPoints(r, speed_bound=SPEED))
    total = _total(runs)
    half = 0.5 * NARROW_WIDTH
    beyond = [run.max_turn_overshoot_beyond_bound for run in runs]
    on_the_way = max(_excursion_before_stop(run) for run in runs)
    coast = HalfLifeEngine(PARAMS).stop_distance(SPEED, DT)
    a_lot = all(value > 10.0 * half for value in beyond)  # beyond the bound by 10 half widths
    outside = total.inside_share < 0.5
    if a_lot and outside:
        verdict = (
            "holds: at full speed in 2-unit corridors the agent is outside them most of the time "
            "and overshoots every route's turns by more than 10 half widths past the bound"
        )
    else:
        verdict = "does not hold: " + (
            "the agent stays inside the corridors most of the time"
            if not outside
            else "the turn overshoot stays within 10 half widths on some route"
        )
    claim = _claim(
        "towards.1",
        '"Most corridors widths are extremely small (+- 2 "units")"; "the bot, running at full '
        'speed, is not able at all to stay in the corridors, overshoots a lot during turns"',
        "Half-Life (engine), TowardsPoints",
        f"inside the +-2 u corridors {_percent(total.inside_share)} of the frames over "
        f"{len(runs)} level routes; turn overshoot past the next bound {_span(beyond)} u per "
        f"route (the bound is 2 u from the centreline); largest excursion "
        f"{_number(on_the_way, 3)} u on the way, {_number(total.max_excursion, 3)} u with the "
        "coast past the goal",
        verdict,
        "The level's routes with every corridor 4 u wide; TowardsPoints with SPEEDBOUND = 320 u/s "
        "and k_D = 1/T (full speed until the waypoint), switching once the agent comes within 2 u "
        "of its waypoint: the page lets the bot switch only 'when its center is within the "
        "segments corridors', and a disc of radius 2 u around the waypoint lies inside both +-2 u "
        "corridors of a turn. Criteria: inside less than half the time, and every route's turn "
        "overshoot past the next bound above 10 half widths (20 u). A Half-Life agent at 320 u/s "
        "needs (1/friction - T) 320 = 76.8 u to cross its former line after a step turn (seed "
        "004): no +-2 u corridor can hold that. The arrival latch stops the agent 2 u from the "
        "goal at full speed, and Half-Life's stop distance from 320 u/s is "
        f"{_number(coast, 3)} u: the 'max excursion' column is that coast past the goal. "
        "Switching on each waypoint's own radius (16 to 48 u) starts the turns earlier and is no "
        "better (second table).",
        "\n\n".join(
            [
                _metric_table(_metric_rows("switch within 2 u", runs)),
                _metric_table(_metric_rows("switch within the waypoint radius", radius_runs)),
            ]
        ),
    )
    return claim, runs


def _claim_towards_speed(routes, full_runs, along_narrow) -> Claim:
    by_gain = {
        k_d: _runs(routes, narrow_corridors, lambda r, k=k_d: _towards_speed(r, k))
        for k_d in TOWARDS_GAINS
    }
    runs = by_gain[TOWARDS_K_D]
    total = _total(runs)
    full = _total(full_runs)
    reference = _total(along_narrow)
    better = all(
        run.max_turn_overshoot_beyond_bound < base.max_turn_overshoot_beyond_bound
        and _excursion_before_stop(run) < _excursion_before_stop(base)
        for run, base in zip(runs, full_runs, strict=True)
    )
    way_full = max(_excursion_before_stop(run) for run in full_runs)
    way = max(_excursion_before_stop(run) for run in runs)
    off_path = total.inside_share < 0.9 and total.mean_abs_cross_track > 0.5 * NARROW_WIDTH / 2
    arrived = all(math.isfinite(run.metrics.time_to_goal) for run in runs)
    if better and off_path and arrived:
        verdict = (
            "holds: with speed proportional to the distance the turns are better and the goal "
            "is reached on every route, but the agent stays off the centreline"
        )
    elif not better:
        verdict = "does not hold: the turns are not better on every route"
    elif not arrived:
        verdict = "does not hold: the agent does not reach the goal on every route"
    else:
        verdict = "does not hold: the agent follows the paths"
    rows = []
    for k_d, gain_runs in by_gain.items():
        rows += _metric_rows(f"k_D = {k_d:g} 1/s", gain_runs)
    rows += _metric_rows("full speed (towards.1)", full_runs)
    rows += _metric_rows("AlongSegments v2, prediction + speed control", along_narrow)
    return _claim(
        "towards.2",
        '"Implementing speed control ( to put it simply: speed proportional to the distance to the '
        "next segment), turns are better but the bot still cannot follow the paths, staying away "
        'from their centerline."',
        "Half-Life (engine), TowardsPoints",
        f"k_D = {TOWARDS_K_D:g} 1/s: largest excursion on the way {_number(way_full, 3)} -> "
        f"{_number(way, 3)} u, turn overshoot past the bound "
        f"{_number(full.max_turn_overshoot_beyond_bound, 3)} -> "
        f"{_number(total.max_turn_overshoot_beyond_bound, 3)} u, inside "
        f"{_percent(full.inside_share)} -> {_percent(total.inside_share)}, mean |XTD| "
        f"{_number(full.mean_abs_cross_track, 3)} -> {_number(total.mean_abs_cross_track, 3)} u "
        f"(along segments v2 on the same corridors: {_percent(reference.inside_share)}, "
        f"{_number(reference.mean_abs_cross_track, 2)} u)",
        verdict,
        "Same +-2 u corridors and 2 u switching as towards.1; TowardsPoints with "
        "speed_to_next_segment=True (speed k_D times the distance to the next segment) and the "
        "page's Half-Life floor max(60 u/s, UE_mVel) (speed_floor=60): without the "
        "floor the agent stalls before a waypoint, its command falling under stopspeed friction "
        "/ accelerate = 60 u/s (along.7). Criteria: on every route a smaller "
        "largest excursion on the way (before the arrival latch) and turn overshoot than at full "
        "speed, every route finished, and still "
        "outside the corridor at least 10 % of the time with a mean distance to the path above "
        "half the half width. After each overshoot the agent heads straight for the next "
        "waypoint, away from the segment's centreline, whatever the gain; the turn overshoot past "
        "the bound is "
        + ", ".join(
            f"{_number(_total(gain_runs).max_turn_overshoot_beyond_bound, 3)} u (k_D = {k_d:g})"
            for k_d, gain_runs in by_gain.items()
        )
        + ".",
        _metric_table(rows),
    )


# ---------------------------------------------------------------------------------------------
# the claims: navigation along segments
# ---------------------------------------------------------------------------------------------


def _claim_v1_comfortable(routes) -> Claim:
    runs = _scenario_runs("nav002_along_v1_comfortable", routes)
    total = _total(runs)
    crossing = turn_crossing_distance(SPEED, DT, PARAMS)
    verdict = (
        "holds: v1 stays inside the comfortable corridors in every frame of every route"
        if total.inside_share == 1.0
        else f"does not hold: inside {_percent(total.inside_share)} of the frames"
    )
    return _claim(
        "along.1",
        'Under "comfortable" conditions ( corridor width big enough for given velocity ), '
        '"simple switching based on corridor bounds would give trajectories like the following" '
        "(inside the corridors)",
        "Half-Life (engine), AlongSegments v1",
        f"inside {_percent(total.inside_share)} of the frames over {len(runs)} routes (largest "
        f"excursion {_number(total.max_excursion, 3)} u); turns overshoot the next centreline by "
        f"up to {_number(total.max_turn_overshoot, 3)} u, past its bound by "
        f"{_number(total.max_turn_overshoot_beyond_bound, 3)} u",
        verdict,
        "The page's first pseudo-code (AlongSegments version=1: switch while within the next "
        "corridor; no deviation control inside the band) at full speed, without prediction and "
        "without speed control: the 'simple switching based on corridor bounds' of the "
        "screenshots, before the page adds prediction and speed control. Corridors: the level's "
        f"widths with the beam raised to {COMFORTABLE_MIN_WIDTH:g} u, times "
        f"{COMFORTABLE_SCALE:g} (192 to 384 u), so that every half width exceeds the turn "
        f"crossing distance (1/friction - T) 320 = {_number(crossing, 3)} u. v1 switches through "
        "every corridor it is already in (along.3), and without deviation control inside the "
        "band the agent runs parallel to a segment wherever it entered it (on s1 -> g1 straight "
        "from s1 into the h3 -> n2 corridor): the turn overshoots are those shortcuts, all "
        "inside the corridors. Past the goal's plane it turns back to the goal, latches within "
        "its radius and coasts Half-Life's stop distance from its speed there (final error).",
        _metric_table(_metric_rows("v1, comfortable", runs)),
    )


def _claim_v1_beam(routes) -> tuple[Claim, list[RouteRun]]:
    by_width = {
        width: _runs(routes, lambda r, w=width: uniform_corridors(r, w), _along_v1)
        for width in BEAM_WIDTHS
    }
    level = _runs(routes, lambda route: route, _along_v1)
    rows = []
    worst_ratio = math.inf
    parts = []
    for width, runs in by_width.items():
        total = _total(runs)
        rows += _metric_rows(f"v1, {width:g} u beams", runs)
        worst_ratio = min(
            worst_ratio, min(run.metrics.max_excursion for run in runs) / width
        )  # excursion beyond the bound, in corridor widths
        parts.append(
            f"{width:g} u: inside {_percent(total.inside_share)}, largest excursion "
            f"{_number(total.max_excursion, 3)} u"
        )
    rows += _metric_rows("v1, the level's widths (8 to 96 u)", level)
    verdict = (
        "holds: on beams of "
        + ", ".join(f"{width:g}" for width in BEAM_WIDTHS)
        + " u v1 goes more than one corridor width beyond the bound on every route"
        if worst_ratio > 1.0
        else "does not hold: on some route the excursion stays within one corridor width"
    )
    claim = _claim(
        "along.2",
        '"But a small width ( eg:bot walking on a beam ) results in unacceptable overshoot"',
        "Half-Life (engine), AlongSegments v1",
        "; ".join(parts)
        + f"; the smallest per-route excursion is {_number(worst_ratio, 3)} corridor widths "
        "beyond the bound",
        verdict,
        "Same navigator as along.1 (v1, no prediction, no speed control, 320 u/s) with every "
        f"corridor {' or '.join(f'{w:g}' for w in BEAM_WIDTHS)} u wide (the beam of "
        "corridors1.toml, the beam of level.toml). 'Unacceptable' read as leaving the corridor by "
        "more than its own width on every route. The turn needs 76.8 u to cross the former line "
        "(seed 004), the beam offers 4 to 8 u. The level's own widths, for scale, in the last "
        "rows.",
        _metric_table(rows),
    )
    return claim, by_width[BEAM_WIDTHS[0]]


def _switch_record(navigator, route: Route, seconds: float = 8.0):
    recorder = IndexRecorder(navigator)
    trace = simulate(HalfLifeEngine(PARAMS), recorder, _start(route), DT, round(seconds / DT))
    return trace, np.array(recorder.indices)


def _claim_aligned(routes) -> Claim:
    route = aligned_route()
    points = _plane_points(route)
    last = route.segment_count - 1
    rows = []
    first_index = {}
    for label, navigator in (
        ("v1 (corridor switching)", _along_v1(route)),
        ("v2 (bound reached and plane crossed)", _along_v2(route, True)),
    ):
        trace, indices = _switch_record(navigator, route)
        first_index[label] = int(indices[0])
        switches = np.flatnonzero(np.diff(np.concatenate(([0], indices))) > 0)
        for frame in switches:
            index = int(indices[frame])
            position = np.array([trace.x[frame + 1], trace.y[frame + 1]])
            rows.append(
                [
                    label,
                    _number(trace.t[frame + 1], 3),
                    f"{int(indices[frame - 1]) if frame else 0} -> {index}",
                    _number(float(np.hypot(*(position - points[index]))), 4),
                    _number(float(np.hypot(*(position - points[index + 1]))), 4),
                ]
            )
    level_first = {}
    for name, level_route in routes.items():
        _, indices = _switch_record(_along_v1(level_route), level_route, seconds=0.05)
        level_first[name] = int(indices[0])
    v1 = first_index["v1 (corridor switching)"]
    v2 = first_index["v2 (bound reached and plane crossed)"]
    verdict = (
        "holds: on the aligned route with wide corridors v1 switches to the last segment at "
        "the first frame (v2 stays on the first)"
        if v1 == last and v2 == 0
        else f"does not hold: after the first frame v1 is on segment {v1}, v2 on {v2}"
    )
    level_text = ", ".join(f"{name}: {index}" for name, index in level_first.items())
    return _claim(
        "along.3",
        '"in cases where the path has almost aligned waypoints and high Widths, the system will '
        "switch to the last path segment right from the start, whereas the bot may still be far "
        'from the source waypoint of this last path segment"',
        "Half-Life (engine), AlongSegments v1 and v2",
        f"after the first frame v1 follows segment {v1} (the last, of {last + 1}) with the agent "
        f"{_number(float(np.hypot(*(points[last] - points[0]))), 4)} u from its source waypoint; "
        f"v2 follows segment {v2} and switches one segment at a time near each waypoint. On the "
        f"level routes (own widths) v1's segment after the first frame: {level_text}",
        verdict,
        "Five waypoints 300 u apart within 8 u of a line, corridors 128 u wide (half width 64 u), "
        "agent at rest on the first waypoint. v1 switches 'while' the agent is within the next "
        "corridor, through every following corridor in one frame; v2 needs the next corridor's "
        "near bound reached and the plane near the current destination crossed. Hence the "
        "page's remark that after such a switch no waypoint of the current segment is a good "
        "'closest waypoint' for localization: the table gives the agent's distance to the "
        "current segment's waypoints at each switch. On the level, a route that begins with two "
        "aligned corridors (s1 -> s2 -> s3, h1 -> hc -> h3) starts on the second with v1.",
        _table(
            [
                "navigator",
                "t [s]",
                "segment",
                "distance to its source waypoint [u]",
                "distance to its destination [u]",
            ],
            rows,
        ),
    )


def _line_route(length: float = 3000.0, width: float = 64.0) -> Route:
    positions = np.array([[0.0, 0.0, 0.0], [length, 0.0, 0.0]])
    return Route(
        waypoint_ids=("p", "q"),
        positions=positions,
        radii=np.full(2, 16.0),
        waypoint_flags=(frozenset(),) * 2,
        widths=np.array([width]),
        segment_flags=(frozenset(),),
        lengths=np.array([length]),
    )


def _claim_prediction_damping(fast: bool) -> Claim:
    route = _line_route()
    offsets = (48.0,) if fast else (24.0, 48.0, 96.0)
    cases = ((True, 4.0), (False, 4.0), (False, 2.0), (False, 1.0), (True, 8.0), (False, 8.0))
    rows = []
    results = {}
    for offset in offsets:
        for predict, k_y in cases:
            navigator = AlongSegments(
                route, version=2, engine=PARAMS, predict=predict, k_y=k_y, speed_control=False
            )
            start = AgentState(0.0, offset, SPEED, 0.0, 0.0)
            trace = simulate(HalfLifeEngine(PARAMS), navigator, start, DT, 800)
            y = trace.y
            overshoot = max(0.0, float(-y.min()))
            crossings = int(np.count_nonzero(np.sign(y[1:]) * np.sign(y[:-1]) < 0))
            far = np.flatnonzero(np.abs(y) > 1.0)
            settle = float(trace.t[far[-1] + 1]) if far.size else 0.0
            results.setdefault((predict, k_y), []).append((overshoot, crossings, settle))
            rows.append(
                [
                    _number(offset),
                    "yes" if predict else "no",
                    _number(k_y),
                    _number(overshoot, 3),
                    str(crossings),
                    _number(settle, 3),
                ]
            )
    predicted = results[(True, 4.0)]
    plain = results[(False, 4.0)]
    damped = all(o == 0.0 for o, _, _ in predicted)
    oscillates = all(o > 0.0 and c > 1 for o, c, _ in plain)
    slow = max(s for _, _, s in results[(False, 1.0)]) / max(s for _, _, s in predicted)
    if damped and oscillates:
        verdict = (
            "holds: with prediction K_y = 4 does not overshoot the line, without it it "
            "oscillates, from every offset measured"
        )
    elif not damped:
        verdict = "does not hold: with prediction K_y = 4 still overshoots the line"
    else:
        verdict = "does not hold: without prediction K_y = 4 does not overshoot either"
    return _claim(
        "along.4",
        'prediction "reinjects dampening in the engine speed model and allows for higher K_y '
        '( K_y = 4 )"',
        "Half-Life (engine), AlongSegments v2",
        f"rallying a line from {', '.join(_number(o) for o in offsets)} u off at 320 u/s with "
        f"K_y = 4: overshoot past the line {max(o for o, _, _ in predicted):.3g} u with "
        f"prediction, {_span([o for o, _, _ in plain])} u and "
        f"{_span([c for _, c, _ in plain])} line crossings without; settled within 1 u after "
        f"{_number(max(s for _, _, s in predicted), 3)} s with prediction",
        verdict,
        "One 3000 u segment, 64 u wide; the agent starts parallel to it at 320 u/s, offset "
        "sideways; AlongSegments v2 without speed control, prediction horizon 1/friction - T = "
        "0.24 s. Settle time: the last time the agent is more than 1 u from the line; line "
        "crossings count every change of side, however small. Without prediction only K_y = 1 "
        f"rallies without overshoot, {_number(slow, 2)} times slower (the worst offsets).",
        _table(
            [
                "offset [u]",
                "prediction",
                "K_y [1/s]",
                "overshoot past the line [u]",
                "line crossings",
                "settle time [s]",
            ],
            rows,
        ),
    )


def _claim_v2_predict(routes, v1_beam) -> tuple[Claim, dict[str, list[RouteRun]]]:
    corridor_sets = {
        "the level's widths": lambda route: route,
        f"{BEAM_WIDTHS[0]:g} u beams": lambda route: uniform_corridors(route, BEAM_WIDTHS[0]),
    }
    by_set = {
        label: _runs(routes, corridors, lambda r: _along_v2(r, False))
        for label, corridors in corridor_sets.items()
    }
    beam = by_set[f"{BEAM_WIDTHS[0]:g} u beams"]
    rallies = all(
        run.metrics.mean_abs_cross_track < 0.25 * base.metrics.mean_abs_cross_track
        and run.metrics.mean_abs_cross_track < 0.5 * BEAM_WIDTHS[0]
        for run, base in zip(beam, v1_beam, strict=True)
    )
    overshoots = all(run.max_turn_overshoot > 0.0 for runs in by_set.values() for run in runs)
    past_bound = any(run.max_turn_overshoot_beyond_bound > 0.0 for run in beam)
    if rallies and overshoots and past_bound:
        verdict = (
            "holds: with prediction v2 rallies the centreline of every beam route and "
            "overshoots on turns, past the next corridor's bound"
        )
    elif not rallies:
        verdict = "does not hold: the mean distance to the centreline is not small"
    else:
        verdict = "does not hold: no overshoot past the next corridor's bound"
    rows = []
    parts = []
    for label, runs in by_set.items():
        total = _total(runs)
        rows += _metric_rows(f"v2 + prediction, {label}", runs)
        parts.append(
            f"{label}: mean |XTD| {_number(total.mean_abs_cross_track, 3)} u, turn overshoot past "
            f"the next centreline up to {_number(total.max_turn_overshoot, 3)} u, past its bound "
            f"up to {_number(total.max_turn_overshoot_beyond_bound, 3)} u, inside "
            f"{_percent(total.inside_share)}"
        )
    v1_total = _total(v1_beam)
    leaving = [run.name for run in by_set["the level's widths"] if run.metrics.max_excursion > 0]
    rows += _metric_rows(f"v1, {BEAM_WIDTHS[0]:g} u beams (along.2)", v1_beam)
    claim = _claim(
        "along.5",
        '"The following 2 screenshots shows a basic implementation, with prediction ... The bot '
        'decently rallies the center line of the segment but overshoots on turns."',
        "Half-Life (engine), AlongSegments v2",
        "; ".join(parts)
        + f" (v1 on the beams: mean |XTD| {_number(v1_total.mean_abs_cross_track, 3)} u)",
        verdict,
        "AlongSegments version=2 with prediction (horizon 1/friction - T, K_y = 4) at full speed "
        "(speed_control=False). Criteria ('decently'): on every beam route the mean distance to "
        "the route under a quarter of v1's and under the beam's half width; every route overshoots "
        "the next "
        "centreline at some turn; on the beams some turn overshoots past the bound. On the "
        "level's own widths the agent leaves the corridors on "
        + (", ".join(leaving) if leaving else "no route")
        + " (the level's beam is 8 u wide).",
        _metric_table(rows),
    )
    return claim, by_set


def _turn_speed_summary(runs: Sequence[RouteRun]) -> tuple[float, float, list[list[str]]]:
    """Lowest speed at tight turns, mean speed on straights (over every run), per-turn rows."""
    tight = []
    straights = []
    rows = []
    for run in runs:
        straights.append(straight_speed(run.trace, run.route))
        for turn in turn_speeds(run.trace, run.route, run.metrics):
            rows.append(
                [
                    run.name,
                    run.route.waypoint_ids[turn.waypoint],
                    _number(math.degrees(turn.angle), 3),
                    _number(turn.min_speed, 3),
                ]
            )
            if turn.angle >= TIGHT_TURN - 1e-9:
                tight.append(turn.min_speed)
    return float(np.nanmin(tight)), float(np.nanmean(straights)), rows


def _claim_v2_speed(routes, v2_predict, fast: bool) -> Claim:
    beam_width = BEAM_WIDTHS[-1]
    corridor_sets = {
        "the level's widths": lambda route: route,
        **{
            f"{width:g} u beams": (lambda route, w=width: uniform_corridors(route, w))
            for width in BEAM_WIDTHS
        },
        "+-2 u corridors": narrow_corridors,
    }
    by_set = {
        label: _runs(routes, corridors, lambda r: _along_v2(r, True))
        for label, corridors in corridor_sets.items()
    }
    rows = []
    inside = []
    for label, runs in by_set.items():
        rows += _metric_rows(f"v2 + prediction + speed control, {label}", runs)
        inside += [run.metrics.inside_share for run in runs]
    beam_label = f"{beam_width:g} u beams"
    frame_times = () if fast else (0.014, 0.05)
    for dt in frame_times:
        for label in ("the level's widths", beam_label):
            runs = _runs(routes, corridor_sets[label], lambda r: _along_v2(r, True), dt)
            rows += _metric_rows(f"the same, T = {dt:g} s, {label}", runs)
            inside += [run.metrics.inside_share for run in runs]
    free = {
        "the level's widths": v2_predict["the level's widths"],
        beam_label: _runs(
            routes, lambda r: uniform_corridors(r, beam_width), lambda r: _along_v2(r, False)
        ),
    }
    speed_rows = []
    summary = {}
    for label, free_runs in free.items():
        controlled = _turn_speed_summary(by_set[label])
        uncontrolled = _turn_speed_summary(free_runs)
        summary[label] = (
            controlled[0],
            uncontrolled[0],
            controlled[1],
            sum(run.metrics.time_to_goal for run in by_set[label]),
            sum(run.metrics.time_to_goal for run in free_runs),
        )
        speed_rows += [
            [label, *a, b[3]] for a, b in zip(controlled[2], uncontrolled[2], strict=True)
        ]  # same routes, same turns
    all_inside = min(inside) == 1.0
    slower = all(
        tight < 0.5 * straight and time_with > time_without
        for tight, _, straight, time_with, time_without in summary.values()
    )
    if all_inside and slower:
        verdict = (
            "holds: with speed control v2 stays inside the corridors in every frame of every "
            "route, and the speed drops to under half the straight-line speed at tight turns"
        )
    elif not all_inside:
        verdict = f"does not hold: inside {_percent(min(inside))} of the frames on some route"
    else:
        verdict = "does not hold: no marked slow-down at tight turns"
    speed_text = "; ".join(
        f"{label}: lowest speed at tight turns {_number(tight, 3)} u/s ({_number(free_tight, 3)} "
        f"without speed control) against {_number(straight, 3)} u/s on straights, time to goal "
        f"over the routes {_number(time_with, 3)} s against {_number(time_without, 3)} s"
        for label, (tight, free_tight, straight, time_with, time_without) in summary.items()
    )
    return _claim(
        "along.6",
        '"Adding speed control, the trajectory is perfect in the sense that the bot stays within '
        'bounds. The unavoidable "cost" is that velocity drops a lot on tight turns, which is '
        'logical."',
        "Half-Life (engine), AlongSegments v2",
        f"inside {_percent(min(inside))} of the frames on every route and corridor set (the "
        f"level's widths, {', '.join(_number(w) for w in BEAM_WIDTHS)} u beams, +-2 u"
        + (f"; and at T = {', '.join(f'{dt:g}' for dt in frame_times)} s" if frame_times else "")
        + "); "
        + speed_text,
        verdict,
        "AlongSegments version=2, prediction (K_y = 4) and the page's speed control (k_D = 3 1/s, "
        "Dist = |MQ| + Width(next) / |sin|, floored at 60 u/s). The agent arrives once within the "
        "goal's radius and stops where Half-Life's friction brings it: the final error is that "
        "stop. 'Tight' turns: 45 degrees or more (the level's turns are 26.6, 45, 56.3 and 90 "
        f"degrees); speed at a turn: the lowest within {TURN_WINDOW:g} u of its waypoint; "
        f"straights: frames farther than {STRAIGHT_CLEARANCE:g} u from every waypoint. Half-Life "
        "loses speed in a sharp turn by itself (the second speed column, without speed control); "
        "what speed control adds costs little time on the level's widths and most where the next "
        f"corridor is narrow (the {beam_width:g} u beams, and b1, the entry of the level's beam). "
        + (
            f"Also at T = {' and '.join(f'{dt:g}' for dt in frame_times)} s (last rows)."
            if frame_times
            else ""
        ),
        "\n\n".join(
            [
                _metric_table(rows),
                _table(
                    [
                        "corridors",
                        "route",
                        "turn at",
                        "angle [deg]",
                        "lowest speed, speed control [u/s]",
                        "lowest speed, none [u/s]",
                    ],
                    speed_rows,
                ),
            ]
        ),
    )


class _ConstantSpeed:
    """Straight ahead (yaw 0) at a constant wished speed."""

    def __init__(self, speed: float):
        self.speed = float(speed)

    def reset(self) -> None:
        pass

    def step(self, state: AgentState, dt: float) -> Command:
        return Command(0.0, self.speed)


def _floorless_along(route: Route) -> AlongSegments:
    """AlongSegments v2 as ``_along_v2`` but without the low-speed floor (module note, along.7)."""
    return AlongSegments(
        route,
        version=2,
        engine=None,  # no floor (and no mVelSafe); the Half-Life horizon given explicitly:
        prediction_horizon=1.0 / PARAMS.friction - DT,
        switch_radius=SWITCH_RADIUS,
    )


def _claim_floor(routes) -> Claim:
    floor = low_speed_threshold(PARAMS)
    engine = HalfLifeEngine(PARAMS)
    constant_rows = []
    steady = {}
    for command in (20.0, 40.0, 59.0, floor, 61.0, 120.0):
        speeds = []
        for initial in (0.0, SPEED):
            trace = simulate(
                engine, _ConstantSpeed(command), AgentState(0, 0, initial, 0, 0), DT, 2000
            )
            speeds.append(float(np.hypot(trace.vx[-1], trace.vy[-1])))
        steady[command] = speeds
        constant_rows.append(
            [
                _number(command),
                _number(speeds[0], 4),
                _number(speeds[1], 4),
                _number(low_speed_steady_speed(command, DT, PARAMS), 4),
            ]
        )
    cases = {
        "AlongSegments v2, the level's widths, with the floor": (
            lambda r: r,
            lambda r: _along_v2(r, True, switch_radius=SWITCH_RADIUS),
        ),
        "AlongSegments v2, the level's widths, without": (lambda r: r, _floorless_along),
        "AlongSegments v2, +-2 u corridors, with the floor": (
            narrow_corridors,
            lambda r: _along_v2(r, True, switch_radius=SWITCH_RADIUS),
        ),
        "AlongSegments v2, +-2 u corridors, without": (narrow_corridors, _floorless_along),
        "TowardsPoints + speed control, +-2 u corridors, with the floor": (
            narrow_corridors,
            lambda r: _towards_speed(r, TOWARDS_K_D, True),
        ),
        "TowardsPoints + speed control, +-2 u corridors, without": (
            narrow_corridors,
            lambda r: _towards_speed(r, TOWARDS_K_D, False),
        ),
    }
    rows = []
    arrived = {}
    for label, (corridors, build) in cases.items():
        arrived[label] = 0
        for run in _runs(routes, corridors, build, seconds=FLOOR_SECONDS):
            at_goal = corridor_metrics(run.trace, run.route, goal_radius=SWITCH_RADIUS)
            reached = math.isfinite(at_goal.time_to_goal)
            arrived[label] += reached
            points = _plane_points(run.route)
            stop = np.array([run.trace.x[-1], run.trace.y[-1]])
            nearest = int(np.argmin(np.hypot(*(points - stop).T)))
            rows.append(
                [
                    label,
                    run.name,
                    "yes" if reached else "no",
                    _number(run.metrics.final_error, 4),
                    f"{run.route.waypoint_ids[nearest]}, "
                    f"{_number(float(np.hypot(*(points[nearest] - stop))), 3)} u",
                    _number(float(run.trace.t[-1]), 3),
                ]
            )
    count = len(routes)
    with_floor = [n for label, n in arrived.items() if label.endswith("with the floor")]
    without = [n for label, n in arrived.items() if label.endswith("without")]
    holds = all(n == count for n in with_floor) and all(n < count for n in without)
    verdict = (
        "holds: with the floor every navigator arrives on every route, without it each stalls "
        "short of the goal on some route"
        if holds
        else "does not hold: the floor does not make the difference between arriving and stalling"
    )
    stall = 1.0 / (PARAMS.accelerate * DT * 3.0)  # A T k_D r < 1 u/s: zeroed by the SDK
    without_text = "none" if max(without) == 0 else f"{min(without)} to {max(without)}"
    return _claim(
        "along.7",
        '"UE_mVel= max( stopspeed * friction/ accelerate, UE_mVel);/*to work around Half-life '
        'engine behavior*/"',
        "Half-Life (engine), AlongSegments v2, TowardsPoints",
        f"after 20 s a wished speed of 59 u/s gives {_number(steady[59.0][0], 3)} u/s from rest "
        f"and {_number(steady[59.0][1], 3)} u/s from 320 u/s, one of {_number(floor)} u/s gives "
        f"{_number(steady[floor][1], 3)} u/s from 320 u/s but {_number(steady[floor][0], 3)} u/s "
        "from rest; with the floor every "
        f"navigator reaches its goal (within {SWITCH_RADIUS:g} u) on all {count} routes, without "
        f"it on {without_text}: the agent stalls where its distance law wishes less than 60 u/s",
        verdict,
        f"Below stopspeed friction / accelerate = {_number(floor)} u/s Half-Life's friction "
        "removes, each frame, as much as or more than the acceleration adds: the speed settles at "
        "accelerate T U (seed 004, claim f), and the SDK zeroes speeds under 1 u/s; from above, "
        "the speed falls by (stopspeed friction - accelerate U) T per frame once under "
        "stopspeed, slowly near 60 u/s (5 u/s^2 at 59 u/s). Exactly at "
        "the floor both balance: a moving agent keeps 60 u/s, an agent at rest crawls at 3 u/s, "
        "so the floor keeps a moving agent moving, which is how the navigators use it. Their "
        "distance laws (k_D times a distance) wish less than 60 u/s near a waypoint or a narrow "
        "corridor, so without the floor the agent slows down into the trap and stops short: "
        f"AlongSegments v2 (k_D = 3) stalls {_number(stall, 3)} u from the goal (accelerate T k_D "
        "r = 1 u/s), and on +-2 u corridors near a turn; TowardsPoints, which has no floor of its "
        f"own, with speed control (k_D = {TOWARDS_K_D:g} 1/s) stalls a few units before a "
        "waypoint (table: where each stopped). 'Without' for AlongSegments is engine=None with "
        "the Half-Life prediction horizon given explicitly: no floor, and no mVelSafe (16 u/s, "
        "which only changes the heading law under 16 u/s); for TowardsPoints, no FlooredSpeed "
        "wrapper. Arrival radius 2 u (switch_radius); runs cut after "
        f"{FLOOR_SECONDS:g} s (a stalled agent is at rest: nothing changes after that).",
        "\n\n".join(
            [
                _table(
                    [
                        "wished speed [u/s]",
                        "speed after 20 s from rest [u/s]",
                        "speed after 20 s from 320 u/s [u/s]",
                        "seed 004 steady speed [u/s]",
                    ],
                    constant_rows,
                ),
                _table(
                    [
                        "case",
                        "route",
                        "reached the goal",
                        "final error [u]",
                        "stopped near waypoint",
                        "last frame [s]",
                    ],
                    rows,
                ),
            ]
        ),
    )


# ---------------------------------------------------------------------------------------------
# the claims: navigation around points
# ---------------------------------------------------------------------------------------------


class AroundRun(NamedTuple):
    """One slalom run of ``AroundPoints`` on Half-Life and its measurements.

    ``excursion`` and ``cut`` [u], one per point: the largest distance outside (inside) the
    point's circle while going around it, i.e. over the frames from the agent's closest approach
    to the point, while it is the current point, to the switch to the next one (or, on the last
    point, to the navigator's stop). ``path_distance`` [u]: the largest distance from the path
    the same navigator draws without prediction on an ideal engine (heading and speed reached
    at once), until the stop.
    """

    horizon: float
    trace: Trace
    centers: np.ndarray
    sides: np.ndarray
    radii: np.ndarray
    excursion: np.ndarray
    cut: np.ndarray
    path_distance: float


def _before_stop(trace: Trace) -> np.ndarray:
    """Positions ``(n, 2)`` until the navigator first commands zero speed (its stop latch)."""
    stopped = np.flatnonzero(trace.commands["speed"] == 0.0)
    frames = int(stopped[0]) + 1 if stopped.size else trace.t.size
    return np.column_stack((trace.x[:frames], trace.y[:frames]))


def _path_route(xy: np.ndarray) -> Route:
    """A recorded path as a zero-width route (for ``corridor_metrics`` distances to it)."""
    moved = np.concatenate(([True], np.hypot(*np.diff(xy, axis=0).T) > 1e-9))
    points = np.column_stack((xy[moved], np.zeros(int(moved.sum()))))
    count = points.shape[0]
    return Route(
        waypoint_ids=tuple(str(i) for i in range(count)),
        positions=points,
        radii=np.zeros(count),
        waypoint_flags=(frozenset(),) * count,
        widths=np.zeros(count - 1),
        segment_flags=(frozenset(),) * (count - 1),
        lengths=np.hypot(*np.diff(points[:, :2], axis=0).T),
    )


def ideal_around_path(dt: float = DT, path: str | Path = SLALOM) -> np.ndarray:
    """The slalom path ``(n, 2)`` of ``AroundPoints`` (no prediction) on an ideal engine."""
    engine = BaseEngine(BaseEngineParams(k_yaw=math.inf, k_speed=math.inf))
    trace = simulate(engine, AroundPoints(load_navdata(path)), _AROUND_START, dt, round(30 / dt))
    return _before_stop(trace)


def run_around(
    horizon: float, dt: float = DT, path: str | Path = SLALOM, ideal: np.ndarray | None = None
) -> AroundRun:
    """``AroundPoints(prediction_horizon=horizon)`` on Half-Life around the slalom's points."""
    navigator = AroundPoints(load_navdata(path), prediction_horizon=horizon)
    recorder = IndexRecorder(navigator)
    trace = _until_stopped(
        simulate(HalfLifeEngine(PARAMS), recorder, _AROUND_START, dt, round(SECONDS / dt))
    )
    centers, sides, radii = navigator.points_of(0)
    indices = np.array(recorder.indices[: trace.t.size - 1])  # frame k's command used index k
    xy = _before_stop(trace)
    xy = xy[: min(xy.shape[0], indices.size)]
    indices = indices[: xy.shape[0]]
    excursion = np.full(radii.size, math.nan)
    cut = np.full(radii.size, math.nan)
    for point in range(radii.size):
        frames = np.flatnonzero(indices == point)
        if frames.size == 0:
            continue
        distance = np.hypot(*(xy[frames] - centers[point]).T)
        around = distance[int(np.argmin(distance)) :]
        excursion[point] = max(float(around.max()) - radii[point], 0.0)
        cut[point] = max(radii[point] - float(around.min()), 0.0)
    ideal = ideal_around_path(dt, path) if ideal is None else ideal
    path_distance = corridor_metrics(xy, _path_route(ideal)).max_excursion
    return AroundRun(horizon, trace, centers, sides, radii, excursion, cut, path_distance)


def around_horizons(dt: float = DT) -> dict[str, float]:
    """The prediction horizons compared [s]: none, half the seed's, the seed's ``1/F - T``."""
    seed = half_life_prediction_horizon(PARAMS, dt)
    return {"none": 0.0, "half the seed's": 0.5 * seed, "the seed's, 1/F - T": seed}


def _claim_around(fast: bool) -> Claim:
    frame_times = (DT,) if fast else (DT, 0.014, 0.05)
    rows = []
    point_rows = []
    headline = {}
    for dt in frame_times:
        ideal = ideal_around_path(dt)
        runs = {
            label: run_around(horizon, dt, ideal=ideal)
            for label, horizon in around_horizons(dt).items()
        }
        for label, run in runs.items():
            rows.append(
                [
                    _number(dt),
                    label,
                    _number(run.horizon, 3),
                    _number(_nanmax(run.excursion), 3),
                    _number(_nanmax(run.cut), 3),
                    _number(run.path_distance, 3),
                    _number(float(run.trace.t[-1]), 3),
                ]
            )
        if dt == DT:
            headline = runs
            for point in range(runs["none"].radii.size):
                point_rows.append(
                    [
                        str(point + 1),
                        _number(runs["none"].radii[point]),
                        f"{int(runs['none'].sides[point]):+d}",
                        *(_number(run.excursion[point], 3) for run in runs.values()),
                        *(_number(run.cut[point], 3) for run in runs.values()),
                    ]
                )
    plain, half, seed = headline.values()
    overshoots = _nanmax(plain.excursion) > 0.0 and plain.path_distance > 0.0
    closer = seed.path_distance < plain.path_distance
    tighter = _nanmax(seed.excursion) < _nanmax(plain.excursion)
    outside = (_nanmax(plain.excursion), _nanmax(seed.excursion), _nanmax(half.excursion))
    if not overshoots:
        verdict = "does not hold: the agent does not overshoot the turns"
    elif closer and tighter:
        verdict = (
            f"holds: at T = {DT:g} s the seed's predicted position reduces the overshoot outside "
            f"the circles ({_number(outside[0], 3)} -> {_number(outside[1], 3)} u) and the "
            f"distance from the law's ideal path ({_number(plain.path_distance, 3)} -> "
            f"{_number(seed.path_distance, 3)} u)"
        )
    else:
        verdict = (
            f"does not hold: at T = {DT:g} s the seed's horizon "
            + (
                f"multiplies the overshoot outside the circles by "
                f"{_number(outside[1] / outside[0], 2)} ({_number(outside[0], 3)} -> "
                f"{_number(outside[1], 3)} u)"
                if not tighter
                else "does not reduce the distance from the law's ideal path"
            )
            + (
                f"; only the distance from the law's ideal path falls "
                f"({_number(plain.path_distance, 3)} -> {_number(seed.path_distance, 3)} u)"
                if closer and not tighter
                else ""
            )
            + (
                f"; half that horizon reduces both ({_number(outside[2], 3)} u outside, "
                f"{_number(half.path_distance, 3)} u from the ideal path)"
                if outside[2] < outside[0] and half.path_distance < plain.path_distance
                else ""
            )
        )
    return _claim(
        "around.1",
        '"We face the same issue as for navigation towards point, ie the bot overshoots on turns, '
        "but this should cause less problems as the bot turns close to the edge. This can be "
        'reduced by using a predicted position instead of the position alone."',
        "Half-Life (engine), AroundPoints",
        f"T = {DT:g} s, largest distance outside a point's circle while going around it: "
        f"{_number(_nanmax(plain.excursion), 3)} u without prediction, "
        f"{_number(_nanmax(seed.excursion), 3)} u with the seed's horizon "
        f"{_number(seed.horizon, 3)} s, {_number(_nanmax(half.excursion), 3)} u with half of it; "
        "largest distance from the path the law draws on an ideal engine: "
        f"{_number(plain.path_distance, 3)}, {_number(seed.path_distance, 3)} and "
        f"{_number(half.path_distance, 3)} u",
        verdict,
        "examples/navdata/slalom.toml (six points and poles, radii 32 to 96 u, turning signs "
        "+-1), AroundPoints with k_D = 1/T and SPEEDBOUND = 320 u/s, switching on the yaw "
        "command's tangency (the seed's safe choice), the agent at rest at the origin facing +x. "
        "Overshoot, read two ways: (1) outside the circle, the largest distance beyond the "
        "point's radius from the closest approach to the switch (or the stop); (2) the largest "
        "distance from the path the same navigator draws on an ideal engine (heading and speed "
        "reached at once: what the law asks for), until the stop. (2) also sees the swing after "
        "each switch, where the agent overshoots its turn onto the next tangent (figure "
        "nav002_around); (1) only sees the arc around each point. "
        "With prediction the law keeps "
        "the predicted position P = M + horizon vVel on the circle, so the agent itself runs "
        "about sqrt(r^2 + (horizon v)^2) from the point: the seed's horizon "
        f"({_number(seed.horizon, 3)} s, horizon v up to {_number(seed.horizon * SPEED, 3)} u "
        "against radii of 32 to 96 u) follows the law's path better but swings wider around the "
        f"points, and cuts inside the circle where the slalom reverses (point "
        f"{int(np.nanargmax(seed.cut)) + 1}). Half the "
        f"horizon: {_number(_nanmax(half.excursion), 3)} u outside, "
        f"{_number(half.path_distance, 3)} u from the ideal path at T = {DT:g} s (other frame "
        "times in the table). 'Less problems as the bot turns close to the edge' needs "
        "obstacles and is not measured.",
        "\n\n".join(
            [
                _table(
                    [
                        "T [s]",
                        "prediction",
                        "horizon [s]",
                        "max outside a circle [u]",
                        "max inside a circle [u]",
                        "max distance from the ideal path [u]",
                        "last frame [s]",
                    ],
                    rows,
                ),
                _table(
                    [
                        "point",
                        "radius [u]",
                        "side",
                        *(f"outside, {label} [u]" for label in headline),
                        *(f"inside, {label} [u]" for label in headline),
                    ],
                    point_rows,
                ),
            ]
        ),
    )


# ---------------------------------------------------------------------------------------------
# all claims
# ---------------------------------------------------------------------------------------------


def measure_seed002(fast: bool = False, level: str | Path = LEVEL) -> list[Claim]:
    """Every claim of seed 002 measured; ``fast`` uses two level routes instead of four and
    fewer frame times."""
    routes = level_routes(FAST_ROUTES if fast else ROUTES, level)
    towards_full, full_runs = _claim_towards_full(routes)
    along_narrow = _runs(routes, narrow_corridors, lambda r: _along_v2(r, True))
    towards_speed = _claim_towards_speed(routes, full_runs, along_narrow)
    v1_comfortable = _claim_v1_comfortable(routes)
    v1_beam, beam_runs = _claim_v1_beam(routes)
    aligned = _claim_aligned(routes)
    damping = _claim_prediction_damping(fast)
    v2_predict, predict_runs = _claim_v2_predict(routes, beam_runs)
    v2_speed = _claim_v2_speed(routes, predict_runs, fast)
    floor = _claim_floor(routes)
    around = _claim_around(fast)
    return [
        towards_full,
        towards_speed,
        v1_comfortable,
        v1_beam,
        aligned,
        damping,
        v2_predict,
        v2_speed,
        floor,
        around,
    ]


def render_markdown(claims: Sequence[Claim], fast: bool = False) -> str:
    """The seed 002 section of ``docs/fidelity.md``."""
    routes = FAST_ROUTES if fast else ROUTES
    intro = (
        f"Reproduce: `{COMMAND}` (these tables); figures: `{FIGURES_COMMAND}` "
        f"({', '.join([*SCENARIOS, *AROUND_FIGURES])}).\n\n"
        "Every run: steerlab's Half-Life engine with the page's cvars (seed 004: accelerate 5, "
        "friction 4, stopspeed 75, maxspeed 320; the SDK's order of operations, as the "
        "screenshots come from the game), T = 0.01 s (the page does not give the screenshots' "
        "frame time), the agent at rest on the route's first waypoint facing the second, the "
        "run cut when it has stopped for good or after 60 s. Routes of "
        "`examples/navdata/level.toml` (24 waypoints, widths 8 to 96 u, a ladder): "
        f"{', '.join(f'{a} -> {b}' for a, b in routes)}; their corridors replaced as each claim "
        "says. Corridor numbers from `corridor_metrics` (capsule corridors): inside share = "
        "frames inside; excursion = distance outside the corridor; turn overshoot = largest "
        "distance to the outside of a turn past the next segment's centreline (and past its "
        "bound), over the frames that belong to that segment and project on its first half "
        "(over the whole segment, cutting the next corner when it turns the other way would "
        "count too); "
        "time to goal = first time within the goal's radius. The 'all routes' rows weight "
        "shares and means by frames, take the worst excursion and overshoot, and sum the times. "
        "Navigation around points: `examples/navdata/slalom.toml`."
    )
    return render_claims(
        "Seed 002: Navigation towards points, along segments, around points",
        claims,
        heading_level=2,
        intro=intro,
        models_label="model",
    )
