"""One benchmark trial: a vehicle, a follower, a path of a suite, a seed (seed 001, Section IV).

Seed 001: "For each test path, a particular vehicle is spawned at the first waypoint and then
commanded to follow the path until the final waypoint." A trial here:

1. **Spawn.** At the path's first waypoint, heading along the first segment (in the ground
   plane), at rest, moved across the first segment by a lateral jitter and turned by a yaw jitter,
   both uniform (``[-a, a]``, the suite's ``spawn_jitter``) and drawn from a ``numpy`` Generator
   seeded by ``(suite name, path, vehicle, seed)`` through SHA-256: the same spawn in every
   process and for every follower (the follower is not part of the seed). ``TrialSpec.jitter``
   False spawns without jitter (the feasibility gate's drives).
2. **Drive.** Each frame of ``dt`` (the suite's), the follower's ``step(state, dt)`` gives the
   command and ``Vehicle(PRESETS[vehicle]).step(state, command, dt, world=world)`` moves the
   vehicle in the path's world (terrain, walls: ``Suite.world``).
3. **End**, at the first of:

   - *arrival*, judged by the metrics' observer (``steerlab.trials.observer``): within
     ``ARRIVAL_RADIUS = 2 m`` of the last waypoint (or past the plane through it), on the tracked
     projection. The trial is completed;
   - *the follower stops short*: its own arrival latch is set while the observer's is not (a
     follower whose arrival radius is larger than 2 m): it would only brake from then on, so the
     trial ends, not completed (its time is the time limit);
   - *the time limit* (the path's, else the suite's): not completed;
   - *a failure*: a state with a NaN or infinite field after a vehicle step, or an exception in a
     step. The trial is not completed, the frames before are kept, the reason is in ``failed``;
     ``run_trial`` never raises once the trial has started.

4. **Metrics** (``trial_metrics``) from the recorded frames: the row.

Steps 2 to 4 are ``drive_trial`` (any plant with ``step(state, command, dt)``, any observer
settings): the external suite (``steerlab.experiments.benchmark.external``) drives third-party
simulators with it.

Determinism: the spawn is seeded, the steps are deterministic kernels, times are ``k dt``: the
same spec gives the same row, bit for bit, in any process.

Cost: a frame is the follower's and the vehicle's steps from Python, the observer's end test and
the records; ``python -m steerlab.trials.trial`` prints the computing time per trial of
``table1`` (``docs/performance.md`` has the figures).
"""

from __future__ import annotations

import hashlib
import math
import time as _time
from collections.abc import Callable, Iterable
from typing import NamedTuple

import numpy as np

from steerlab.trials.followers import FOLLOWERS, NamedFollower, make_follower, resolve_follower
from steerlab.trials.observer import (
    OBSERVER,
    FrameMetrics,
    ObserverSettings,
    TrialMetrics,
    _observer_arrived,
    check_observer,
    planar_path,
    trial_metrics,
)
from steerlab.trials.suite import Suite, load_suite
from steerlab.vehicles import PRESETS, Vehicle, VehicleParams, VehicleState
from steerlab.vehicles.files import NamedVehicle, resolve_vehicle

__all__ = [
    "DRIVEN_TYPES",
    "KEY_COLUMNS",
    "ROW_COLUMNS",
    "ROW_TYPES",
    "DrivenTrial",
    "TrialRecords",
    "TrialSpec",
    "drive_trial",
    "driven_columns",
    "run_trial",
    "selection",
    "simulate_trial",
    "spawn_state",
    "trials",
]

KEY_COLUMNS = ("path", "vehicle", "follower", "seed")
"""The columns that identify a trial within a suite's run, first in every row, in the order of
``TrialSpec.key`` (the runner's convention: a task's key names the first columns)."""

DRIVEN_TYPES = {
    "completed": bool,
    "stuck_events": int,
    "stuck": bool,
    "cte_mean": float,
    "inside_corridor": float,
    "time": float,
    "speed_mean": float,
    "distance": float,
    "frames": int,
    "ended": str,
    "failed": str,
}
"""The columns of ``driven_columns`` with their types, in order: the metrics, ``ended``,
``failed`` (the rows of Table I's trials and of the external suite end with them)."""

ROW_TYPES = {
    "path": str,
    "vehicle": str,
    "follower": str,
    "seed": int,
    "suite": str,
    **DRIVEN_TYPES,
}
"""Every column of ``run_trial``'s row with its type (the runner's typed ``columns``), in order."""

ROW_COLUMNS = tuple(ROW_TYPES)
"""Every column of ``run_trial``'s row, in order: the key, the suite's name, the metrics
(``steerlab.trials.observer.TrialMetrics``), then ``ended``: ``"arrived"``, ``"time_limit"``,
``"stopped_short"`` (the follower's own arrival latch, not the observer's) or ``"failed"``;
``failed``: the reason, ``""`` otherwise."""


class TrialSpec(NamedTuple):
    """What a trial is (picklable: the runner sends it to worker processes).

    ``suite`` is a shipped suite's name or a suite file's path (loaded once per process);
    ``vehicle`` a preset name, a vehicle file, a ``VehicleParams`` or a ``NamedVehicle``
    (``steerlab.vehicles.files.resolve_vehicle``); ``follower`` a follower name, a follower file
    or a ``NamedFollower`` (``steerlab.trials.followers.resolve_follower``); ``tuned_dir`` the
    folder of ``ours_tuned``'s preset files (``""``: the shipped folder); ``jitter`` False
    spawns exactly at the first waypoint, heading along the first segment (``spawn_state``): the
    feasibility gate's one deterministic drive per pair (``steerlab.trials.feasibility``). Rows,
    keys and the spawn's seed use the vehicle's and the follower's names.
    """

    suite: str
    path: str
    vehicle: str | NamedVehicle | VehicleParams
    follower: str | NamedFollower
    seed: int
    tuned_dir: str = ""
    jitter: bool = True

    @property
    def vehicle_name(self) -> str:
        """The vehicle's name: a preset's, a ``NamedVehicle``'s (a file's ``name``)."""
        return _name(self.vehicle, resolve_vehicle)

    @property
    def follower_name(self) -> str:
        """The follower's name: a registry name, a ``NamedFollower``'s (a file's ``name``)."""
        return _name(self.follower, resolve_follower)

    @property
    def key(self) -> tuple[str, str, str, int]:
        """``(path, vehicle name, follower name, seed)``: unique within one suite's run."""
        return (self.path, self.vehicle_name, self.follower_name, self.seed)


def _name(value, resolve) -> str:
    if isinstance(value, str) and not value.lower().endswith(".toml"):
        return value  # a registry name (checked where the trial starts)
    if isinstance(value, NamedVehicle | NamedFollower):
        return value.name
    return resolve(value).name


class TrialRecords(NamedTuple):
    """Per-frame records of a trial (arrays of one length; frame 0 is the spawn).

    The command columns hold, at frame ``i``, what the follower computed from frame ``i``'s state
    (applied from ``i`` to ``i + 1``); NaN where none was (the last frame).
    """

    t: np.ndarray  # [s]
    x: np.ndarray  # [m]
    y: np.ndarray  # [m]
    yaw: np.ndarray  # [rad]
    v: np.ndarray  # [m/s] forward speed
    speed: np.ndarray  # [m/s] ground speed
    steer: np.ndarray  # [-1, 1] command
    throttle: np.ndarray  # [-1, 1] command
    target_speed: np.ndarray  # [m/s] the follower's
    target_x: np.ndarray  # [m] the follower's target point (NaN where it has none: Stanley)
    target_y: np.ndarray  # [m]
    follower_stuck: np.ndarray  # bool: the follower's own stuck manager fired at this frame
    metrics: FrameMetrics  # the observer's per-frame judgements


# --------------------------------------------------------------------------------------------------
# spawn


def _generator(suite_name: str, path: str, vehicle: str, seed: int) -> np.random.Generator:
    text = "\0".join((suite_name, path, vehicle, str(seed))).encode("utf-8")
    digest = hashlib.sha256(text).digest()
    return np.random.default_rng(np.random.SeedSequence(int.from_bytes(digest, "little")))


def spawn_state(suite, path: str, vehicle: str, seed: int, jitter: bool = True) -> VehicleState:
    """The spawn of a trial: the first waypoint, heading along the first segment, at rest, with
    the seeded lateral and yaw jitter (module docstring); ``jitter`` False: exactly there, no
    jitter drawn. The follower plays no part."""
    loaded = load_suite(suite)
    polyline = planar_path(loaded.polyline(path))
    heading = polyline.heading_at(0.0)
    x0, y0 = (float(value) for value in polyline.points[0])
    if not jitter:
        return VehicleState(x=x0, y=y0, yaw=heading)
    rng = _generator(loaded.name, path, vehicle, int(seed))
    lateral = rng.uniform(-1.0, 1.0) * loaded.spawn_lateral
    turn = rng.uniform(-1.0, 1.0) * loaded.spawn_yaw
    return VehicleState(
        x=x0 - lateral * math.sin(heading),
        y=y0 + lateral * math.cos(heading),
        yaw=math.remainder(heading + turn, 2.0 * math.pi),
    )


# --------------------------------------------------------------------------------------------------
# the trial


def _check_spec(spec) -> tuple[TrialSpec, NamedVehicle, NamedFollower]:
    """The spec, its vehicle and its follower resolved (files read, names checked)."""
    if not isinstance(spec, TrialSpec):
        raise ValueError(f"spec must be a TrialSpec, got {spec!r}")
    vehicle = resolve_vehicle(spec.vehicle)
    follower = resolve_follower(spec.follower)
    if isinstance(spec.seed, bool) or not isinstance(spec.seed, int | np.integer):
        raise ValueError(f"seed must be an integer, got {spec.seed!r}")
    if not isinstance(spec.jitter, bool | np.bool_):
        raise ValueError(f"jitter must be True or False, got {spec.jitter!r}")
    return spec, vehicle, follower


def _finite(state: VehicleState) -> str:
    """``""`` if every field is finite, else the first bad field and its value."""
    for name, value in zip(VehicleState._fields, state, strict=True):
        if not math.isfinite(value):
            return f"{name} = {value!r}"
    return ""


class DrivenTrial(NamedTuple):
    """What ``drive_trial`` returns: the records, the observer's figures and how it ended."""

    records: TrialRecords
    metrics: TrialMetrics
    ended: str  # "arrived", "time_limit", "stopped_short" or "failed"
    failed: str  # the reason, "" unless ended == "failed"


def drive_trial(
    follower,
    step: Callable,
    state: VehicleState,
    dt: float,
    limit: float,
    polyline,
    *,
    observer: ObserverSettings = OBSERVER,
    check: Callable | None = None,
) -> DrivenTrial:
    """Drive one trial from ``state`` to its end (module docstring, steps 2 to 4).

    ``follower`` has its path set; ``step(state, command) -> state`` moves the plant one frame of
    ``dt`` (a ``Vehicle`` in its world, or a third-party plant,
    ``steerlab.experiments.benchmark.external``); ``limit`` [s] the time limit; ``polyline`` the
    path (metrics and the end test use it in the ground plane); ``observer`` the observer's
    settings (default Table I's). ``check(state) -> str``, optional, is called after each finite
    state: a non-empty text ends the trial as failed with that reason (e.g. a car that left the
    simulator's playfield). An exception in a step or in ``check`` ends it as failed too: this
    function never raises once the trial has started.
    """
    observer = check_observer(observer)
    back, ahead, radius = (
        observer.projection_back,
        observer.projection_ahead,
        observer.arrival_radius,
    )
    planar = planar_path(polyline)
    points, cum = planar.points_3d, planar.cumulative_length
    steps = math.ceil(limit / dt - 1e-9)
    columns: dict[str, list] = {name: [] for name in TrialRecords._fields[:-1]}

    def record(k: int, current: VehicleState) -> None:
        columns["t"].append(k * dt)
        columns["x"].append(current.x)
        columns["y"].append(current.y)
        columns["yaw"].append(current.yaw)
        columns["v"].append(current.v)
        columns["speed"].append(current.speed)

    def record_command(command, info) -> None:
        columns["steer"].append(command.steer)
        columns["throttle"].append(command.throttle)
        columns["target_speed"].append(info.target_speed)
        columns["target_x"].append(info.target_x)
        columns["target_y"].append(info.target_y)
        columns["follower_stuck"].append(info.stuck_event)

    record(0, state)
    s, segment, arrived = _observer_arrived(
        points, cum, state.x, state.y, 0.0, 0, back, ahead, radius
    )
    ended, failed = ("arrived" if arrived else "time_limit"), ""
    k = 0
    while not arrived and k < steps:
        try:
            command = follower.step(state, dt)
            record_command(command, follower.info)
            if follower.info.arrived:
                ended = "stopped_short"
                break
            state = step(state, command)
        except Exception as error:  # a failed trial, never a crashed run
            ended, failed = "failed", f"{type(error).__name__} at t = {k * dt:.6g} s: {error}"
            break
        k += 1
        bad = _finite(state)
        if bad:
            ended, failed = "failed", f"non-finite vehicle state at t = {k * dt:.6g} s: {bad}"
            break
        if check is not None:
            try:
                bad = check(state)
            except Exception as error:
                bad = f"{type(error).__name__}: {error}"
            if bad:
                ended, failed = "failed", f"{bad} at t = {k * dt:.6g} s"
                break
        record(k, state)
        s, segment, arrived = _observer_arrived(
            points, cum, state.x, state.y, s, segment, back, ahead, radius
        )
        if arrived:
            ended = "arrived"
    missing = len(columns["t"]) - len(columns["steer"])  # no command at the last frame
    for name in ("steer", "throttle", "target_speed", "target_x", "target_y"):
        columns[name] += [math.nan] * missing
    columns["follower_stuck"] += [False] * missing
    arrays = {
        name: np.array(values, dtype=np.bool_ if name == "follower_stuck" else np.float64)
        for name, values in columns.items()
    }
    metrics, frame_metrics = trial_metrics(
        polyline,
        arrays["t"],
        arrays["x"],
        arrays["y"],
        arrays["speed"],
        time_limit=limit,
        observer=observer,
    )
    return DrivenTrial(TrialRecords(**arrays, metrics=frame_metrics), metrics, ended, failed)


def driven_columns(driven: DrivenTrial) -> dict:
    """The row's columns a driven trial gives, in row order: Table I's metrics
    (``TrialMetrics``), then ``ended`` and ``failed``."""
    return {**driven.metrics._asdict(), "ended": driven.ended, "failed": driven.failed}


def simulate_trial(spec: TrialSpec) -> tuple[dict, TrialRecords]:
    """Run one trial: ``(row, records)`` (module docstring; ``ROW_COLUMNS`` for the row).

    Raises
    ------
    ValueError
        Before the trial starts only: an unknown suite, path, vehicle or follower, a missing tuned
        preset for ``ours_tuned``. Once it runs, failures are recorded in the row, never raised.
    """
    spec, named_vehicle, named_follower = _check_spec(spec)
    suite = load_suite(spec.suite)
    polyline = suite.polyline(spec.path)
    world = suite.world(spec.path)
    limit = suite.time_limit(spec.path)
    dt = suite.dt
    vehicle = Vehicle(named_vehicle.params)
    follower = make_follower(
        named_follower, vehicle.params, named_vehicle.name, spec.tuned_dir or None
    )
    follower.set_path(polyline)
    state = spawn_state(suite, spec.path, named_vehicle.name, spec.seed, bool(spec.jitter))

    def step(current: VehicleState, command) -> VehicleState:
        return vehicle.step(current, command, dt, world=world)

    driven = drive_trial(follower, step, state, dt, limit, polyline)
    row = {
        "path": spec.path,
        "vehicle": named_vehicle.name,
        "follower": named_follower.name,
        "seed": int(spec.seed),
        "suite": suite.name,
        **driven_columns(driven),
    }
    return row, driven.records


def run_trial(spec: TrialSpec) -> dict:
    """The row of one trial (``ROW_COLUMNS``): the runner's task function."""
    return simulate_trial(spec)[0]


def selection(argument: str, values) -> list:
    """``values`` (``"vehicles"`` or ``"followers"``: a sequence, or one comma-separated text) as
    a list of what a ``TrialSpec`` takes: registry names kept, files read into ``NamedVehicle``
    / ``NamedFollower`` (so a run's workers never read them again). ``ValueError`` naming
    ``argument``: not a sequence, an unknown name, a bad file, a name given twice."""
    if isinstance(values, str):
        values = [part.strip() for part in values.split(",") if part.strip()]
    if isinstance(values, bytes) or not isinstance(values, Iterable):
        raise ValueError(f"{argument} must be a list of names or files, got {values!r}")
    if argument == "vehicles":
        resolved = [
            _resolved(argument, index, resolve_vehicle, value) for index, value in enumerate(values)
        ]
        chosen = [
            named.name if isinstance(value, str) and value in PRESETS else named
            for value, named in resolved
        ]
    else:
        resolved = [
            _resolved(argument, index, resolve_follower, value)
            for index, value in enumerate(values)
        ]
        chosen = [named.name if named.params is None else named for _, named in resolved]
    names = [named.name for _, named in resolved]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ValueError(f"{argument}: {twice[0]!r} is given twice: {names}")
    return chosen


def _resolved(argument: str, index: int, resolve, value):
    try:
        return value, resolve(value)
    except ValueError as error:
        raise ValueError(f"{argument}[{index}]: {error}") from None


def trials(
    suite, vehicles=None, followers=None, seeds=None, tuned_dir: str = ""
) -> list[TrialSpec]:
    """Every trial of a suite, in a fixed order: paths (the file's order), then vehicles, then
    followers, then seeds.

    Parameters
    ----------
    suite : str or Suite
        A shipped suite name or a file path (a ``Suite`` gives its ``source``).
    vehicles : sequence, optional
        Preset names, vehicle files, ``VehicleParams`` or ``NamedVehicle`` (``TrialSpec``);
        default all of ``PRESETS`` (the seed's order).
    followers : sequence, optional
        Follower names, follower files or ``NamedFollower``; default ``FOLLOWERS``.
    seeds : int or iterable of int, optional
        A count (seeds ``0 .. n - 1``) or the seeds themselves; default the suite's ``seeds``.
    tuned_dir : str, optional
        Folder of ``ours_tuned``'s presets (``""``: the shipped one).

    Raises
    ------
    ValueError
        Unknown vehicle or follower names (listing the known ones), a bad vehicle or follower
        file, a name given twice, an empty selection, a negative seed count.
    """
    loaded = load_suite(suite)
    source = loaded.source if isinstance(suite, Suite) else str(suite)
    vehicle_names = list(PRESETS) if vehicles is None else selection("vehicles", vehicles)
    follower_names = list(FOLLOWERS) if followers is None else selection("followers", followers)
    if seeds is None:
        seed_list = list(range(loaded.seeds))
    elif isinstance(seeds, int | np.integer) and not isinstance(seeds, bool):
        if seeds < 1:
            raise ValueError(f"seeds must be >= 1, got {seeds!r}")
        seed_list = list(range(int(seeds)))
    elif isinstance(seeds, Iterable) and not isinstance(seeds, str | bytes):
        seed_list = list(seeds)
        for index, seed in enumerate(seed_list):
            if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
                raise ValueError(f"seeds[{index}] must be an integer, got {seed!r}")
        seed_list = [int(seed) for seed in seed_list]
    else:
        raise ValueError(f"seeds must be a count or a list of integers, got {seeds!r}")
    if not vehicle_names or not follower_names or not seed_list:
        raise ValueError(
            f"empty selection: {len(vehicle_names)} vehicles, {len(follower_names)} followers, "
            f"{len(seed_list)} seeds"
        )
    return [
        TrialSpec(source, path, vehicle, follower, seed, tuned_dir)
        for path in loaded.path_names
        for vehicle in vehicle_names
        for follower in follower_names
        for seed in seed_list
    ]


def _measure(suite: str = "table1", follower: str = "ours", seed: int = 0) -> None:
    """Print the cost of one trial per (path, vehicle): seconds of computing per simulated
    minute (after a warm-up trial, one core)."""
    specs = trials(suite, followers=[follower], seeds=[seed])
    run_trial(specs[0])  # compile
    total_wall = total_simulated = 0.0
    for spec in specs:
        start = _time.perf_counter()
        row = run_trial(spec)
        wall = _time.perf_counter() - start
        simulated = row["frames"] * load_suite(suite).dt
        total_wall += wall
        total_simulated += simulated
        print(
            f"{spec.path:24s} {spec.vehicle_name:13s} {row['ended']:13s} {simulated:7.1f} s "
            "simulated "
            f"{wall:6.2f} s wall  {60.0 * wall / max(simulated, 1e-9):5.2f} s/simulated min"
        )
    print(
        f"total: {total_simulated:.0f} s simulated in {total_wall:.1f} s: "
        f"{60.0 * total_wall / total_simulated:.2f} s per simulated minute"
    )


if __name__ == "__main__":
    _measure()
