"""The feasibility gate: can a vehicle complete a path at all, driven as well as it can be?

Table I version 2 compares followers only on the (vehicle, path) pairs that can be
completed: a slope beyond a vehicle's thrust, or a wall across the corridor, stalls every
follower alike and measures the suite, not the followers. Before any follower runs, a
**best-case driver** that knows the path and the vehicle's limits drives each pair once; the
pair is *feasible* when it arrives (the observer's rule, ``steerlab.trials.observer``: within
``ARRIVAL_RADIUS`` of the last waypoint, or past the plane through it) within the path's time
limit.

The driver is seed 001's own chain (``steerlab.follower.PathFollower``: Algorithm 1's target
speed, pure pursuit towards the lookahead point), driven in the path's world with the trial's
physics (``steerlab.trials.trial.drive_trial``: each frame the follower, then ``Vehicle.step(...,
world=Suite.world(path))``), with these choices (``best_case_params``), each declared before any
result was seen:

- **Spawn**: exactly at the first waypoint, heading along the first segment, at rest: no jitter
  (``spawn_state``'s jitter is variation between trials; the gate is one deterministic verdict
  per pair).
- **Speed**: the target speed is Algorithm 1 (seed 001, Eq. 1-4) clamped to ``[V_MIN, V_MAX]``:
  ``V_MAX = 10 m/s``, the paper's ``v_max`` (the issue's "full throttle whenever under 10 m/s"),
  ``V_MIN = 1 m/s``, the paper's ``v_min``. The speed loop is a P loop with gain ``SPEED_GAIN =
  100 /(m/s)`` and no integral (``ti_speed = inf``): full throttle whenever the speed is more than
  1 cm/s under the target, full brake more than 1 cm/s over it; a driver that floors it whenever
  it is slow and needs no integral to do so. No taper at the end (``stop_decel = inf``): the
  observer's arrival includes passing the end plane at speed.
- **Braking before corners**: Algorithm 1 reads the path's curvature ahead (Bezier curves over
  ``dh N = 30 m``) and gives ``sqrt(a_lat g / kappa)``; ``a_lat`` [g] is ``LATERAL_SHARE = 0.5``
  of the vehicle's lateral grip: ``mu`` for wheeled and tracked vehicles (their tyres' and
  tracks' friction, the ``mu g`` lateral limit), ``lateral_friction`` for a hovercraft (its
  skirt's sideways Coulomb friction, the only sideways grip its model has; its ``mu`` is
  unused). The half: on a circular arc Algorithm 1 reads about half the arc's curvature
  (``FollowerParams.a_lat``; ``docs/fidelity.md``, seed 001), so it drives such arcs at about
  ``2 a_lat g``, the full grip.
- **Steering**: pure pursuit for every kind (``pure_pursuit_all = True``: every kind's full steer
  commands the curvature ``tan(max_steer) / wheelbase``) towards the path point
  ``max(LOOKAHEAD_FLOOR, min_turning_radius)`` of arc length ahead: never shorter than the
  vehicle's minimum turning radius (``VehicleParams.min_turning_radius``; a shorter one turns
  too late at a sharp corner), nor than ``LOOKAHEAD_FLOOR = 6 m``, the followers'
  default lookahead (the paper's ``dh``), so that vehicles that turn on the spot do not chase a
  point a body length away.
- **No stuck manager**: ``recovery_frames = 0``, ``teleport_after = 0``: stuck events are
  counted but never override the commands (the issue's "no stuck manager"); the gate asks
  whether the path can be driven, not whether a stall can be recovered.
- **No early end**: the drive runs to arrival or to the path's time limit (a stall that a later
  slide or roll would free is not cut short).

Everything else is ``FollowerParams()``' defaults (the paper's ``dh``, ``N``; the projection's
window; the arrival radius, the observer's).

The drive is a trial (``gate_spec``: the follower ``BEST_CASE``, ``ours`` with these
parameters, ``TrialSpec.jitter`` False), so it runs as any trial does: ``feasible`` by
``simulate_trial`` (each frame's follower and vehicle steps from Python), ``pairs_feasibility``
and ``suite_feasibility`` by ``steerlab.trials.batch.simulate_batch`` (every drive's frame loop
compiled, in one batch), with the same rows and records bit for bit, so the same verdicts.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import NamedTuple

import numpy as np

from steerlab.follower import FollowerParams
from steerlab.trials.batch import simulate_batch
from steerlab.trials.followers import NamedFollower
from steerlab.trials.observer import ARRIVAL_RADIUS, planar_path
from steerlab.trials.suite import load_suite
from steerlab.trials.trial import TrialRecords, TrialSpec, simulate_trial
from steerlab.vehicles import PRESETS, VehicleParams
from steerlab.vehicles.files import resolve_vehicle
from steerlab.vehicles.params import HOVER

__all__ = [
    "BEST_CASE",
    "LATERAL_SHARE",
    "LOOKAHEAD_FLOOR",
    "SPEED_GAIN",
    "V_MAX",
    "V_MIN",
    "Feasibility",
    "best_case_params",
    "feasible",
    "gate_spec",
    "infeasible_pairs",
    "pairs_feasibility",
    "suite_feasibility",
]

V_MAX = 10.0  # [m/s] seed 001, Section III (v_max): full throttle under 10 m/s
V_MIN = 1.0  # [m/s] seed 001, Section III (v_min)
SPEED_GAIN = 100.0  # [1/(m/s)] P gain: full throttle (or brake) from 1 cm/s of speed error
LATERAL_SHARE = 0.5  # [-] a_lat = this x lateral grip: Algorithm 1 reads half an arc's curvature
LOOKAHEAD_FLOOR = 6.0  # [m] the followers' default lookahead (seed 001's dh)
BEST_CASE = "best_case"  # the driver's name in its trials' rows
BATCH_SIZE = 256  # drives per simulate_batch call: their records (~1 MB a drive) held at once


class Feasibility(NamedTuple):
    """The best-case driver's verdict on one (vehicle, path) pair (module docstring)."""

    vehicle: str  # the vehicle's name (a preset's, a file's)
    path: str  # the path's name in its suite
    feasible: bool  # arrived within the path's time limit
    reason: str  # "arrived", or why not: the end of the drive and where
    ended: str  # drive_trial's end: "arrived", "time_limit", "stopped_short" or "failed"
    progress: float  # [m] the best arc length reached: where the drive failed, if it did
    length: float  # [m] the path's length in the ground plane
    time: float  # [s] time to arrival, or the time driven until the drive ended
    time_limit: float  # [s] the path's
    lookahead: float  # [m] the driver's lookahead
    a_lat: float  # [g] the driver's lateral acceleration in Algorithm 1


def _grip(params: VehicleParams) -> float:
    """The vehicle's lateral grip [g]: ``mu``, or for a hovercraft ``lateral_friction``."""
    return float(params.lateral_friction if params.kind == HOVER else params.mu)


def best_case_params(vehicle) -> FollowerParams:
    """The best-case driver's ``FollowerParams`` for ``vehicle`` (a preset name, a vehicle file,
    a ``VehicleParams`` or a ``NamedVehicle``): the module docstring's choices.

    Raises
    ------
    ValueError
        ``vehicle`` is not a vehicle (``steerlab.vehicles.files.resolve_vehicle``).
    """
    params = resolve_vehicle(vehicle).params
    return FollowerParams(
        a_lat=LATERAL_SHARE * _grip(params),
        v_min=V_MIN,
        v_max=V_MAX,
        stop_decel=math.inf,
        arrival_radius=ARRIVAL_RADIUS,
        lookahead=max(LOOKAHEAD_FLOOR, float(params.min_turning_radius)),
        kp_speed=SPEED_GAIN,
        ti_speed=math.inf,
        pure_pursuit_all=True,
        recovery_frames=0,
        teleport_after=0,
    )


def gate_spec(suite, path: str, vehicle) -> TrialSpec:
    """The best-case driver's drive of ``path`` of ``suite`` with ``vehicle`` as a trial: the
    follower ``BEST_CASE`` (``ours`` with ``best_case_params``), spawned without jitter.
    ``ValueError`` if ``vehicle`` is not a vehicle; the suite and the path are checked where the
    trial starts."""
    named = resolve_vehicle(vehicle)
    driver = NamedFollower(BEST_CASE, "ours", best_case_params(named))
    return TrialSpec(suite, path, named, driver, 0, jitter=False)


def _verdict(suite, path: str, vehicle, row: dict, records: TrialRecords) -> Feasibility:
    """The gate's verdict from the drive's row and records (``simulate_trial``'s); ``vehicle``
    resolved (``gate_spec``'s)."""
    loaded = load_suite(suite)
    planar = planar_path(loaded.polyline(path))
    limit = loaded.time_limit(path)
    settings = best_case_params(vehicle)
    frames = records.metrics
    counted = frames.s[: frames.end + 1]
    progress = float(np.max(counted)) if counted.size else 0.0
    driven_time = float(records.t[frames.end] - records.t[0])
    ok = bool(row["completed"])
    if ok:
        reason = "arrived"
    elif row["ended"] == "failed":
        reason = f"failed at {progress:.1f} m of {planar.length:.1f} m: {row['failed']}"
    elif row["ended"] == "stopped_short":
        reason = f"the driver stopped short at {progress:.1f} m of {planar.length:.1f} m"
    else:
        reason = (
            f"not arrived within the time limit ({limit:g} s): best progress "
            f"{progress:.1f} m of {planar.length:.1f} m"
        )
    return Feasibility(
        vehicle=row["vehicle"],
        path=path,
        feasible=ok,
        reason=reason,
        ended=row["ended"],
        progress=progress,
        length=float(planar.length),
        time=driven_time,
        time_limit=float(limit),
        lookahead=float(settings.lookahead),
        a_lat=float(settings.a_lat),
    )


def feasible(suite, path: str, vehicle) -> Feasibility:
    """Drive ``path`` of ``suite`` with ``vehicle`` by the best-case driver (module docstring).

    Parameters
    ----------
    suite : str or Suite
        A shipped suite's name, a suite file or a ``Suite`` (``load_suite``).
    path : str
        A path of the suite.
    vehicle : str, Path, VehicleParams or NamedVehicle
        A preset name, a vehicle file, parameters or a named vehicle (``resolve_vehicle``).

    Returns
    -------
    Feasibility
        ``feasible`` True when the driver arrived within the path's time limit; otherwise
        ``reason`` says how the drive ended and ``progress`` [m] where (the best arc length).

    Raises
    ------
    ValueError
        An unknown suite, path or vehicle (the message names it and lists the known ones).
        Once the drive has started nothing is raised: a failure is a verdict (``ended``
        ``"failed"``).
    """
    spec = gate_spec(suite, path, vehicle)
    return _verdict(suite, path, spec.vehicle, *simulate_trial(spec))


def pairs_feasibility(pairs: Iterable, *, batch: bool = True) -> list[Feasibility]:
    """``feasible`` for each ``(suite, path, vehicle)`` of ``pairs``, in their order.

    ``batch`` True drives them ``BATCH_SIZE`` at a time in ``steerlab.trials.batch.simulate_batch``
    calls (every drive's compiled frame loop, the same rows and records as ``simulate_trial``'s,
    bit for bit; the records of one call held at once); False one ``simulate_trial`` after the
    other. ``ValueError`` for an unknown suite, path or vehicle, before any drive, the message
    starting with ``pairs[i]``."""
    chosen = list(pairs)
    specs = []
    for index, pair in enumerate(chosen):
        if not (isinstance(pair, tuple | list) and len(pair) == 3):
            raise ValueError(f"pairs[{index}] must be (suite, path, vehicle), got {pair!r}")
        suite, path, vehicle = pair
        try:
            load_suite(suite).path(path)  # ValueError listing the suite's paths
            specs.append(gate_spec(suite, path, vehicle))
        except ValueError as error:
            raise ValueError(f"pairs[{index}]: {error}") from None
    verdicts = []
    for start in range(0, len(specs), BATCH_SIZE if batch else 1):
        part = specs[start : start + (BATCH_SIZE if batch else 1)]
        driven = simulate_batch(part) if batch else [simulate_trial(part[0])]
        verdicts += [
            _verdict(spec.suite, spec.path, spec.vehicle, row, records)
            for spec, (row, records) in zip(part, driven, strict=True)
        ]
    return verdicts


def suite_feasibility(suite, vehicles: Iterable | None = None) -> list[Feasibility]:
    """``feasible`` for every (path, vehicle) pair of a suite, in the trials' order (paths in
    the file's order, then vehicles), driven as one batch (``pairs_feasibility``).

    ``vehicles``: preset names, vehicle files, ``VehicleParams`` or ``NamedVehicle``; default
    every preset (``PRESETS``). ``ValueError`` for an unknown suite or vehicle, before any drive.
    """
    loaded = load_suite(suite)
    chosen = list(PRESETS) if vehicles is None else _vehicles(vehicles)
    named = [resolve_vehicle(vehicle) for vehicle in chosen]
    return pairs_feasibility(
        [(loaded, path, vehicle) for path in loaded.path_names for vehicle in named]
    )


def _vehicles(vehicles) -> list:
    if isinstance(vehicles, str | bytes) or not isinstance(vehicles, Iterable):
        raise ValueError(f"vehicles must be a list of vehicles, got {vehicles!r}")
    chosen = list(vehicles)
    if not chosen:
        raise ValueError("vehicles must hold at least one vehicle, got an empty list")
    return chosen


def infeasible_pairs(suite, vehicles: Iterable | None = None) -> list[tuple[str, str]]:
    """The ``(vehicle, path)`` pairs of a suite the best-case driver cannot complete
    (``suite_feasibility``), in the trials' order: what Table I version 2 leaves out of the
    comparison (its summary's ``"infeasible"``)."""
    return [
        (each.vehicle, each.path)
        for each in suite_feasibility(suite, vehicles)
        if not each.feasible
    ]
