"""The ``racetracks`` suite: one lap of real race circuits, each vehicle with each follower.

``steerlab bench --suite racetracks [--tracks FILE[,FILE...]] --out DIR``. The circuits are
track files of the TUM racetrack database's format (``steerlab.trials.circuit``); without files,
the three shipped with the package (``SHIPPED_CIRCUITS``). A track's race line is read from the
database's layout, ``<folder>/racelines/NAME.csv`` beside ``<folder>/tracks/NAME.csv``, when it
exists.

A trial is ``(track, vehicle, follower)`` (``LapSpec``, a runner task; no spawn jitter, so no
seed):

1. **Spawn** at rest on the centre line's first point, heading along its first segment.
2. **Drive** with ``steerlab.trials.trial.drive_trial``, Table I's loop, at Table I's frame
   (``DT`` = 0.02 s) on flat open ground (a real circuit has no walls here: leaving the track is
   measured, not prevented). The follower, with its Table I parameters
   (``steerlab.trials.followers.make_follower``), follows the centre line driven twice (two laps
   end to end), so it never brakes for a path end at the finish line; the observer judges the
   one closed lap (``Circuit.path``).
3. **End** when the lap is covered: the observer's arrival with ``arrival_radius`` =
   ``FINISH_TOLERANCE`` (0.1 m, under a frame's travel at speed): its tracked progress has
   reached the lap's length and the vehicle crosses the start line (the plane through the first
   point normal to the closing segment), or comes within 0.1 m of the first point. Or at the
   time limit, ``lap length / (LIMIT_SHARE v)``, ``LIMIT_SHARE`` = 0.3 and ``v`` the lower of the
   vehicle's ``max_speed`` and the follower's ``v_max``: a lap at 30 % of the fastest speed the
   pair may drive. Or a failure (``drive_trial``'s).

Per trial (``ROW_TYPES``), over the frames up to the lap's end:

- ``lap_completed``; ``lap_time`` [s]: the time of the last frame, or the time limit when the lap
  was not completed (Table I's rule: giving up is never fast);
- ``boundary_exits``: how many times the vehicle's centre of mass leaves the track, a frame
  ``INSIDE`` followed by one ``LEFT`` or ``RIGHT`` of it (``Circuit.sides``: the signed offset
  from the centre line beyond the width on that side); ``exits_left``, ``exits_right`` by side;
  ``outside_share`` [%] of the frames off the track;
- ``cte_mean``, ``cte_max`` [m]: the observer's cross-track error to the closed centre line;
- ``speed_mean`` [m/s]; ``a_lat_peak`` [m/s^2]: the largest lateral acceleration of the
  trajectory, ``|v x a| / |v|`` with ``v``, ``a`` the central differences of the positions
  (``lateral_acceleration``); ``a_lat_max``: the vehicle's bound (``lateral_limit``);
- ``target_speed_mean`` [m/s]: the follower's own target speed (``ours``: seed 001's Algorithm 1,
  Bezier curvature) over the frames; ``bound_speed_mean`` [m/s]: the physical bound of the race
  line at the same frames, ``sqrt(a_lat_max / |kappa|)`` capped at the vehicle's ``max_speed``,
  ``kappa`` the race line's curvature (the Menger curvature at its points, linear between them)
  at the race line's point nearest the vehicle; ``target_over_bound`` [%]: the frames where the
  target speed exceeds that bound (NaN without a race line);
- ``stuck_events`` (Table I's observer), ``frames``, ``ended``, ``failed``.

The vehicle's lateral bound (``lateral_limit``): ``mu g`` for wheeled and tracked vehicles (the
ground's friction bounds the lateral force: the wheeled model's friction circle, the tracks' grip),
``lateral_friction g`` for the hovercraft (its skirt's sideways friction, its only sideways ground
force). Per track and vehicle the summary adds the race line's quasi-steady lap time at that
bound, ``sum L_i (1 / v_i + 1 / v_(i+1)) / 2`` over its segments (no acceleration limit: a lower
bound for that vehicle), and the bound's slowest corner.

``run_racetracks(out_dir)`` runs every trial through the resumable runner
(``steerlab.runner.run_tasks``) and writes the report
(``steerlab.experiments.benchmark.racetracks_report``). The manifest holds each circuit file's
SHA-256: a changed file is a new run.
"""

from __future__ import annotations

import functools
import hashlib
import math
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from steerlab.geometry import Polyline
from steerlab.runner import Task, run_tasks
from steerlab.trials.circuit import (
    INSIDE,
    LEFT,
    RIGHT,
    SHIPPED_CIRCUITS,
    Circuit,
    load_circuit,
    raceline_file,
    shipped_track_file,
)
from steerlab.trials.followers import (
    NamedFollower,
    follower_params,
    make_follower,
    resolve_follower,
    tuned_digest,
)
from steerlab.trials.observer import ObserverSettings
from steerlab.trials.trial import TrialRecords, TrialSpec, drive_trial, selection
from steerlab.vehicles import PRESETS, Vehicle, VehicleState
from steerlab.vehicles.files import NamedVehicle, resolve_vehicle
from steerlab.vehicles.params import GRAVITY, HOVER, VehicleParams

__all__ = [
    "DT",
    "FINISH_TOLERANCE",
    "FORMAT",
    "KEY_COLUMNS",
    "LIMIT_SHARE",
    "OBSERVER",
    "QUICK_FOLLOWERS",
    "QUICK_TRACK",
    "QUICK_VEHICLES",
    "ROW_TYPES",
    "LapSpec",
    "boundary_exits",
    "lap_trials",
    "lateral_acceleration",
    "lateral_limit",
    "raceline_bounds",
    "run_lap",
    "run_racetracks",
    "simulate_lap",
    "track_circuit",
]

FORMAT = "steerlab.racetracks/1"
DT = 0.02  # [s] Table I's frame (suites/table1.toml)
LIMIT_SHARE = 0.3  # the time limit: a lap at this share of min(vehicle max_speed, follower v_max)
FINISH_TOLERANCE = 0.1  # [m] the observer's arrival radius: the lap ends at the start line
OBSERVER = ObserverSettings(arrival_radius=FINISH_TOLERANCE)
"""Table I's observer, but for the arrival radius (``FINISH_TOLERANCE``)."""

QUICK_TRACK = "MoscowRaceway"  # the shortest shipped lap (4.06 km)
QUICK_VEHICLES = ("storm",)
QUICK_FOLLOWERS = ("baseline", "ours")

KEY_COLUMNS = ("track", "vehicle", "follower")

ROW_TYPES = {
    "track": str,
    "vehicle": str,
    "follower": str,
    "lap_length": float,
    "time_limit": float,
    "lap_completed": bool,
    "lap_time": float,
    "boundary_exits": int,
    "exits_left": int,
    "exits_right": int,
    "outside_share": float,
    "cte_mean": float,
    "cte_max": float,
    "speed_mean": float,
    "a_lat_peak": float,
    "a_lat_max": float,
    "target_speed_mean": float,
    "bound_speed_mean": float,
    "target_over_bound": float,
    "stuck_events": int,
    "frames": int,
    "ended": str,
    "failed": str,
}
"""Every column of ``run_lap``'s row with its type, in order (key first; module docstring)."""


# --------------------------------------------------------------------------------------------------
# measures


def lateral_limit(params: VehicleParams) -> float:
    """The vehicle's lateral acceleration bound [m/s^2] (module docstring): ``mu g``, or
    ``lateral_friction g`` for a hovercraft."""
    coefficient = params.lateral_friction if int(params.kind) == HOVER else params.mu
    return float(coefficient) * GRAVITY


def lateral_acceleration(x, y, dt: float) -> np.ndarray:
    """Lateral acceleration [m/s^2] of a trajectory sampled every ``dt`` seconds: ``|v x a| /
    |v|``, ``v = (p[i+1] - p[i-1]) / (2 dt)``, ``a = (p[i+1] - 2 p[i] + p[i-1]) / dt^2``.

    Parameters
    ----------
    x, y : array_like, shape (n,)
        Positions [m], one per frame.
    dt : float
        The frame time [s], > 0.

    Returns
    -------
    numpy.ndarray, shape (n,)
        0 at the two end frames (no central difference) and where ``v`` is zero.
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    out = np.zeros(x.shape)
    if x.size < 3:
        return out
    vx = (x[2:] - x[:-2]) / (2.0 * dt)
    vy = (y[2:] - y[:-2]) / (2.0 * dt)
    ax = (x[2:] - 2.0 * x[1:-1] + x[:-2]) / (dt * dt)
    ay = (y[2:] - 2.0 * y[1:-1] + y[:-2]) / (dt * dt)
    speed = np.hypot(vx, vy)
    moving = speed > 0.0
    inner = np.zeros(speed.shape)
    inner[moving] = np.abs(vx * ay - vy * ax)[moving] / speed[moving]
    out[1:-1] = inner
    return out


def boundary_exits(sides) -> tuple[int, int]:
    """``(left, right)``: how many times a sequence of ``Circuit.sides`` goes from ``INSIDE`` at
    one frame to ``LEFT`` (or ``RIGHT``) at the next."""
    sides = np.asarray(sides)
    was_inside = sides[:-1] == INSIDE
    return (
        int((was_inside & (sides[1:] == LEFT)).sum()),
        int((was_inside & (sides[1:] == RIGHT)).sum()),
    )


def _speed_bound(kappa: np.ndarray, a_lat_max: float, v_cap: float) -> np.ndarray:
    """``min(sqrt(a_lat_max / kappa), v_cap)`` for curvature magnitudes ``kappa`` [1/m] (``v_cap``
    where ``kappa`` is 0): the speed of steady cornering at the lateral bound."""
    out = np.full(kappa.shape, float(v_cap))
    curved = kappa > 0.0
    out[curved] = np.minimum(np.sqrt(a_lat_max / kappa[curved]), v_cap)
    return out


def raceline_bounds(circuit: Circuit, a_lat_max: float, v_cap: float) -> np.ndarray | None:
    """The physical speed bound [m/s] at each race line point: ``min(sqrt(a_lat_max / |kappa|),
    v_cap)`` (``v_cap`` where the line is straight); ``None`` without a race line."""
    curvature = circuit.raceline_curvature()
    if curvature is None:
        return None
    return _speed_bound(np.abs(curvature), a_lat_max, v_cap)


def raceline_time(circuit: Circuit, bounds: np.ndarray) -> float:
    """The race line's quasi-steady lap time [s] at ``bounds`` (one per point): the trapezoid
    rule of ``ds / v`` over its closed segments."""
    line = circuit.raceline
    legs = np.hypot(*(np.roll(line, -1, axis=0) - line).T)
    return float(np.sum(legs * 0.5 * (1.0 / bounds + 1.0 / np.roll(bounds, -1))))


def _bound_at(circuit: Circuit, x, y, a_lat_max: float, v_cap: float) -> np.ndarray:
    """The race line's bound at the race line point nearest each ``(x, y)``: its curvature's
    magnitude linear along that segment between its end points', then ``_speed_bound``."""
    path = circuit.raceline_path
    projection = path.project_batch(np.column_stack((x, y)))
    segment = np.asarray(projection.segment)
    cum = path.cumulative_length
    fraction = np.clip((projection.s - cum[segment]) / (cum[segment + 1] - cum[segment]), 0.0, 1.0)
    magnitude = np.abs(circuit.raceline_curvature())
    following = (segment + 1) % magnitude.size
    kappa = magnitude[segment] + fraction * (magnitude[following] - magnitude[segment])
    return _speed_bound(kappa, a_lat_max, v_cap)


# --------------------------------------------------------------------------------------------------
# tracks


def _source(track) -> str:
    """A shipped circuit's name as is, a file as its path text."""
    if isinstance(track, str) and track in SHIPPED_CIRCUITS:
        return track
    if not isinstance(track, str | Path):
        raise ValueError(f"track must be a circuit name or a file path, got {track!r}")
    path = Path(track)
    if not path.is_file():
        raise ValueError(
            f"track {str(track)!r} is neither a shipped circuit {list(SHIPPED_CIRCUITS)} nor a file"
        )
    return str(path)


def _file(source: str) -> Path:
    return shipped_track_file(source) if source in SHIPPED_CIRCUITS else Path(source)


@functools.lru_cache(maxsize=64)
def track_circuit(track: str) -> Circuit:
    """The circuit of a shipped name or a track file, with the race line beside it if any
    (``raceline_file``); cached per process."""
    path = _file(_source(track))
    return load_circuit(path, raceline=raceline_file(path))


def _digest(path: Path | None) -> str | None:
    return None if path is None else hashlib.sha256(path.read_bytes()).hexdigest()


# --------------------------------------------------------------------------------------------------
# the trial


class LapSpec(NamedTuple):
    """One trial (picklable: the runner sends it to worker processes).

    ``track``: a shipped circuit's name or a track file's path; ``vehicle`` and ``follower`` as
    a ``TrialSpec`` takes them (names, files, named records); ``tuned_dir``: the folder of
    ``ours_tuned``'s presets (``""``: the shipped one).
    """

    track: str
    vehicle: str | NamedVehicle | VehicleParams
    follower: str | NamedFollower
    tuned_dir: str = ""

    @property
    def vehicle_name(self) -> str:
        """The vehicle's name (``TrialSpec.vehicle_name``)."""
        return self._trial().vehicle_name

    @property
    def follower_name(self) -> str:
        """The follower's name (``TrialSpec.follower_name``)."""
        return self._trial().follower_name

    @property
    def key(self) -> tuple[str, str, str]:
        """``(track name, vehicle name, follower name)``: the track's name is its file's stem."""
        return (Path(self.track).stem, self.vehicle_name, self.follower_name)

    def _trial(self) -> TrialSpec:
        return TrialSpec("", "", self.vehicle, self.follower, 0, self.tuned_dir)


def _check_spec(spec) -> tuple[LapSpec, NamedVehicle, NamedFollower]:
    if not isinstance(spec, LapSpec):
        raise ValueError(f"spec must be a LapSpec, got {spec!r}")
    return spec, resolve_vehicle(spec.vehicle), resolve_follower(spec.follower)


def simulate_lap(spec: LapSpec) -> tuple[dict, TrialRecords]:
    """Drive one lap: ``(row, records)`` (module docstring; ``ROW_TYPES`` for the row).

    Raises
    ------
    ValueError
        Before the lap starts only: an unknown vehicle or follower, a bad track file, a missing
        tuned preset. Once it runs, failures are recorded in the row, never raised.
    """
    spec, named_vehicle, named_follower = _check_spec(spec)
    circuit = track_circuit(spec.track)
    params = named_vehicle.params
    vehicle = Vehicle(params)
    tuned = spec.tuned_dir or None
    follower = make_follower(named_follower, vehicle.params, named_vehicle.name, tuned)
    points = circuit.points
    follower.set_path(Polyline(np.vstack((points, points, points[:1]))))  # two laps
    lap = circuit.path
    v_cap = min(float(params.max_speed), float(follower.params.v_max))
    limit = lap.length / (LIMIT_SHARE * v_cap)
    state = VehicleState(x=float(points[0, 0]), y=float(points[0, 1]), yaw=lap.heading_at(0.0))

    def step(current: VehicleState, command) -> VehicleState:
        return vehicle.step(current, command, DT)

    driven = drive_trial(follower, step, state, DT, limit, lap, observer=OBSERVER)
    records = driven.records
    end = records.metrics.end
    counted = slice(0, end + 1)
    x, y = records.x[counted], records.y[counted]
    sides = circuit.sides(np.column_stack((x, y)))
    left, right = boundary_exits(sides)
    a_lat = lateral_limit(params)
    target = records.target_speed[counted]
    commanded = np.isfinite(target)
    bound_mean = over = math.nan
    if circuit.raceline is not None and commanded.any():
        at_frames = _bound_at(circuit, x, y, a_lat, float(params.max_speed))
        bound_mean = float(at_frames[commanded].mean())
        over = float(100.0 * (target[commanded] > at_frames[commanded]).mean())
    metrics = driven.metrics
    row = {
        "track": circuit.name,
        "vehicle": named_vehicle.name,
        "follower": named_follower.name,
        "lap_length": float(lap.length),
        "time_limit": float(limit),
        "lap_completed": bool(metrics.completed),
        "lap_time": float(metrics.time),
        "boundary_exits": left + right,
        "exits_left": left,
        "exits_right": right,
        "outside_share": float(100.0 * (sides != INSIDE).mean()),
        "cte_mean": float(metrics.cte_mean),
        "cte_max": float(np.abs(records.metrics.cross_track[counted]).max()),
        "speed_mean": float(metrics.speed_mean),
        "a_lat_peak": float(lateral_acceleration(x, y, DT).max()),
        "a_lat_max": a_lat,
        "target_speed_mean": float(target[commanded].mean()) if commanded.any() else math.nan,
        "bound_speed_mean": bound_mean,
        "target_over_bound": over,
        "stuck_events": int(metrics.stuck_events),
        "frames": int(metrics.frames),
        "ended": driven.ended,
        "failed": driven.failed,
    }
    return row, records


def run_lap(spec: LapSpec) -> dict:
    """The row of one lap (``ROW_TYPES``): the runner's task function."""
    return simulate_lap(spec)[0]


# --------------------------------------------------------------------------------------------------
# the selection


def _names(value, what: str) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        names = [part.strip() for part in value.split(",") if part.strip()]
    elif isinstance(value, Iterable):
        names = [str(item) if isinstance(item, Path) else item for item in value]
    else:
        raise ValueError(f"{what} must be a list, got {value!r}")
    for name in names:
        if not isinstance(name, str):
            raise ValueError(f"{what} must be names or paths (strings), got {name!r}")
    if not names:
        raise ValueError(f"{what}: empty selection, got {value!r}")
    if len(set(names)) != len(names):
        raise ValueError(f"{what}: an entry is given twice: {names}")
    return names


def lap_trials(
    tracks=None, *, vehicles=None, followers=None, quick: bool = False, tuned_dir=None
) -> list[LapSpec]:
    """Every lap of a run, in a fixed order: tracks, then vehicles, then followers.

    Parameters
    ----------
    tracks : str or sequence, optional
        Track files or shipped circuit names (a list or a comma-separated string); default the
        shipped ``SHIPPED_CIRCUITS`` (``quick``: ``QUICK_TRACK``; with tracks given, the first).
        Each file is read and checked here, before any lap runs.
    vehicles, followers : str or sequence of str, optional
        Default every preset and ``default_followers`` (``quick``: ``QUICK_VEHICLES``,
        ``QUICK_FOLLOWERS``).
    quick : bool
        One circuit, one vehicle, two followers (given arguments override the vehicles and
        followers).
    tuned_dir : path, optional
        The folder of ``ours_tuned``'s presets.

    Raises
    ------
    ValueError
        A track that is neither a shipped name nor a file, a bad track or race line file (naming
        the file and line), two tracks of one name, unknown or repeated vehicles or followers, an
        empty selection.
    """
    from steerlab.experiments.benchmark.table1 import default_followers

    track_list = _names(tracks, "tracks")
    if track_list is None:
        track_list = [QUICK_TRACK] if quick else list(SHIPPED_CIRCUITS)
    elif quick:
        track_list = track_list[:1]
    sources = [_source(track) for track in track_list]
    stems: dict[str, str] = {}
    for source in sources:
        stem = Path(source).stem
        if stem in stems:
            raise ValueError(
                f"tracks: two circuits named {stem!r} ({stems[stem]} and {source}); a track is "
                "named by its file's stem"
            )
        stems[stem] = source
        track_circuit(source)  # read and check every file before any lap runs
    vehicle_items = _names(vehicles, "vehicles")
    if vehicle_items is None:
        vehicle_items = list(QUICK_VEHICLES if quick else PRESETS)
    vehicle_items = selection("vehicles", vehicle_items)
    vehicle_names = [resolve_vehicle(item).name for item in vehicle_items]
    follower_items = _names(followers, "followers")
    if follower_items is None:
        follower_items = (
            list(QUICK_FOLLOWERS) if quick else default_followers(vehicle_names, tuned_dir)
        )
    follower_items = selection("followers", follower_items)
    for item in follower_items:
        if isinstance(item, str):
            for vehicle in vehicle_names:
                follower_params(item, vehicle, tuned_dir)  # a missing tuned preset, before a lap
    folder = "" if tuned_dir is None else str(tuned_dir)
    return [
        LapSpec(source, vehicle, follower, folder)
        for source in sources
        for vehicle in vehicle_items
        for follower in follower_items
    ]


# --------------------------------------------------------------------------------------------------
# the run


def _log(progress: bool, message: str) -> None:
    if progress:
        print(message, file=sys.stderr, flush=True)


def _track_record(source: str, vehicles: Sequence) -> dict[str, Any]:
    """What the summary says of a circuit: its file, size, race line, and per vehicle the race
    line's bound (module docstring)."""
    circuit = track_circuit(source)
    path = _file(source)
    line = raceline_file(path)
    record: dict[str, Any] = {
        "file": source,
        "sha256": _digest(path),
        "raceline_sha256": _digest(line),
        "points": int(circuit.points.shape[0]),
        "length": circuit.length,
        "width_min": float(np.min(circuit.width_left + circuit.width_right)),
        "width_max": float(np.max(circuit.width_left + circuit.width_right)),
        "raceline": circuit.raceline is not None,
        "bounds": {},
    }
    for item in vehicles:
        vehicle, params = resolve_vehicle(item)
        a_lat = lateral_limit(params)
        bounds = raceline_bounds(circuit, a_lat, float(params.max_speed))
        record["bounds"][vehicle] = {
            "a_lat_max": a_lat,
            "raceline_time": None if bounds is None else raceline_time(circuit, bounds),
            "raceline_speed_min": None if bounds is None else float(bounds.min()),
        }
    return record


def run_racetracks(
    out_dir,
    *,
    tracks=None,
    vehicles=None,
    followers=None,
    quick: bool = False,
    workers: int | None = None,
    tuned_dir=None,
    progress: bool = True,
) -> dict:
    """Run the racetracks suite into ``out_dir`` and write its report; return the summary.

    Parameters
    ----------
    out_dir : path
        The run's folder (``steerlab.runner``): an interrupted run resumes there; a folder of
        another selection or other circuit files is refused.
    tracks, vehicles, followers, quick, tuned_dir
        The selection (``lap_trials``).
    workers : int, optional
        The runner's worker processes (default one per core).
    progress : bool
        The runner's progress bar and a line per phase, on stderr.

    Returns
    -------
    dict
        The summary, as written to ``summary.json``: ``by_track[TRACK][VEHICLE][FOLLOWER]``
        (``racetracks_report.summarize``).

    Raises
    ------
    ValueError
        A bad selection or circuit file (before any lap runs), or a folder holding another run.
    OSError, RuntimeError
        The runner's (an unwritable folder, another run holding it, a failed pool).
    """
    from steerlab.experiments.benchmark.racetracks_report import summarize, write_report
    from steerlab.experiments.benchmark.table1 import _warm_up, custom_subjects, steerlab_version

    specs = lap_trials(
        tracks, vehicles=vehicles, followers=followers, quick=quick, tuned_dir=tuned_dir
    )
    sources = list(dict.fromkeys(spec.track for spec in specs))
    vehicle_items = list(dict.fromkeys(spec.vehicle for spec in specs))
    vehicle_names = list(dict.fromkeys(spec.vehicle_name for spec in specs))
    follower_names = list(dict.fromkeys(spec.follower_name for spec in specs))
    records = {Path(source).stem: _track_record(source, vehicle_items) for source in sources}
    custom = custom_subjects(specs)
    version = steerlab_version()
    digest = (
        tuned_digest(vehicle_names, tuned_dir or None) if "ours_tuned" in follower_names else None
    )
    manifest = {
        "kind": FORMAT,
        "tracks": {
            name: [record["sha256"], record["raceline_sha256"]] for name, record in records.items()
        },
        "dt": DT,
        "limit_share": LIMIT_SHARE,
        "finish_tolerance": FINISH_TOLERANCE,
        "steerlab_version": version,
        "tuned_digest": digest,
        "columns": list(ROW_TYPES),
        **({"custom": custom} if custom else {}),
    }
    _log(
        progress,
        f"racetracks: {len(specs)} laps ({len(sources)} circuits x {len(vehicle_names)} vehicles "
        f"x {len(follower_names)} followers) into {out_dir}",
    )
    if workers is None or workers > 1:
        _warm_up(
            list(dict.fromkeys(spec.follower for spec in specs)),
            specs[0].vehicle,
            specs[0].tuned_dir,
        )
    rows = run_tasks(
        [Task(spec.key, spec) for spec in specs],
        run_lap,
        out_dir,
        columns=ROW_TYPES,
        manifest=manifest,
        workers=workers,
        progress=progress,
        counter="boundary_exits",
    )
    summary = summarize(
        rows,
        records,
        vehicles=vehicle_names,
        followers=follower_names,
        quick=quick,
        steerlab_version=version,
        tuned_digest=digest,
    )
    write_report(out_dir, summary)
    _log(progress, f"racetracks: report {Path(out_dir) / 'racetracks.html'}")
    return summary
