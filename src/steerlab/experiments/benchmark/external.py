"""The ``external`` suite: steerlab's followers driving third-party simulators.

A follower tuned only on vehicles steerlab wrote itself proves little; this suite drives the
simulators of ``steerlab.plants`` with the followers of the Table I benchmark
(``steerlab.trials.followers``), judged by the same observer (``steerlab.trials.observer``):

- ``carracing``: Gymnasium CarRacing-v3's Box2D car on its own seeded tracks, one full lap each
  (seeds 0-19: the environment's ``reset(seed=...)``, so the seed *is* the track);
- ``racecar``: PyBullet's MIT racecar (0.325 m wheelbase) on a circle, a figure-8 and an S-bend
  sized for it (``radius`` 3 m);
- ``commonroad_ks``, ``commonroad_st``: CommonRoad's kinematic and single-track BMW 320i on the
  same three shapes at road size (``radius`` 60 m) and road speed (15 m/s).

The record (``suites/external.toml``, ``load_record``) holds everything that differs between the
plants, as data: the control frame, the paths and their corridors, the time limits, the spawn
jitter, and the ``FollowerParams`` and observer overrides, each with the reason it was needed
(``why``). The code is the same for every plant. Every follower of a plant runs with the same
overrides (the paper's fairness rule: "the same values were set to ensure fair comparisons").

A case is ``(plant, path, follower, seed)`` (``PlantTrialSpec``, a runner task):

1. **Build** the plant from the registry ``PLANTS`` (simulator name -> builder of a
   ``PlantCase``: the plant, the path, the spawn, the time limit, an optional lap flag and
   failure check). CarRacing starts where its environment puts the car (on the track's first
   point, at rest; the Box2D car cannot be placed elsewhere); the path is the plant's
   ``track_path()`` (the closed lap, starting one tile behind the car). The other plants start at
   rest on the path at ``shape_spawn`` (its start on the S-bend; ``r / 6`` into a closed shape,
   which likewise starts behind the car), heading along it, with a uniform lateral and yaw jitter
   drawn from SHA-256 of ``(record name, path, plant, seed)`` (``steerlab.trials.trial``'s rule).
2. **Drive** with ``steerlab.trials.trial.drive_trial``: the loop of Table I's trials (the
   follower's step, the plant's step, the observer's end test), so the trial ends the same way:
   the observer's arrival (completed), the time limit, the follower stopping short, or a failure
   (a ``PlantDiverged``, any exception in a step, a non-finite state, or CarRacing's car leaving
   the playfield): a failed row with its reason, never a crashed run.
3. **Row**: Table I's metrics plus ``lap_completed`` (CarRacing: the environment's own lap
   criterion, read from it at the trial's end: every tile visited, or more than 95 % of them and
   the start tile touched; since the trial ends at the observer's arrival, 2 m short of the start
   tile, an arrival with more than 95 % of the tiles visited counts as touching it. The paths:
   the observer's arrival), ``cte_max`` [m] (the largest ``|cross-track error|`` over the counted
   frames, the spawn's included, as in Table I's mean), ``path_length`` [m] and the simulator's
   name.

Determinism: Box2D, PyBullet (DIRECT, one client per trial) and the CommonRoad RK4 integration are
deterministic; the spawn is seeded; the same spec gives the same row in any process.

``run_external(out_dir)`` runs every case through the resumable runner
(``steerlab.runner.run_tasks``) and writes the report
(``steerlab.experiments.benchmark.external_report``). The manifest holds the record's name, version
and hash: a changed record is a new run.
"""

from __future__ import annotations

import math
import sys
import tomllib
from collections.abc import Callable, Iterable, Sequence
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal, NamedTuple

import numpy as np
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    field_validator,
    model_validator,
)

from steerlab.follower.params import FollowerParams, check_follower_params
from steerlab.geometry import Polyline
from steerlab.runner import Task, run_tasks
from steerlab.trials.followers import FOLLOWERS, follower_class
from steerlab.trials.observer import OBSERVER, ObserverSettings, check_observer
from steerlab.trials.suite import _FieldError, spec_hash, validated
from steerlab.trials.trial import (
    DRIVEN_TYPES,
    TrialRecords,
    _generator,
    drive_trial,
    driven_columns,
)
from steerlab.vehicles.state import VehicleState

__all__ = [
    "EXTERNAL_FOLLOWERS",
    "KEY_COLUMNS",
    "LEAD",
    "PLANTS",
    "QUICK_CASES",
    "ROW_TYPES",
    "SHAPES",
    "SIMULATORS",
    "ExternalRecord",
    "ExternalSpec",
    "Override",
    "PlantCase",
    "PlantSpec",
    "PlantTrialSpec",
    "load_record",
    "plant_trials",
    "run_external",
    "run_plant_trial",
    "shape_points",
    "shape_spawn",
    "simulate_plant_trial",
]

SIMULATORS = ("carracing", "racecar", "commonroad")
"""The adapters of ``steerlab.plants`` a record's plant may name."""

SHAPES = ("circle", "figure_8", "s_bend")
"""The path shapes of the non-CarRacing plants (``shape_points``)."""

EXTERNAL_FOLLOWERS = tuple(name for name in FOLLOWERS if name != "ours_tuned")
"""Followers a record may list: every Table I follower but ``ours_tuned`` (its presets are tuned
on steerlab's own vehicles, not on these)."""

KEY_COLUMNS = ("plant", "path", "follower", "seed")

ROW_TYPES = {
    "plant": str,
    "path": str,
    "follower": str,
    "seed": int,
    "simulator": str,
    "path_length": float,
    "lap_completed": bool,
    "cte_max": float,
    **DRIVEN_TYPES,
}
"""Every column of ``run_plant_trial``'s row with its type, in order (key first)."""

QUICK_CASES = (
    ("racecar", "circle"),
    ("commonroad_ks", "s_bend"),
    ("commonroad_st", "s_bend"),
    ("carracing", "track"),
)
"""``quick=True``: one path per plant, ``baseline`` and ``ours``, seed 0 (8 trials)."""
QUICK_FOLLOWERS = ("baseline", "ours")

FORMAT = "steerlab.external/1"

# --------------------------------------------------------------------------------------------------
# the record

_CONFIG = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)
Identifier = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]


class Override(BaseModel):
    """One parameter that departs from its default, and why."""

    model_config = _CONFIG

    value: StrictBool | StrictInt | StrictFloat
    why: str = Field(min_length=1)

    @field_validator("why")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must say why (not blank)")
        return value


def _field_in_message(message: str, prefix: str) -> str | None:
    """``"follower_params.v_max must be ..."`` -> ``"v_max"``."""
    head = message.split(" ", 1)[0]
    return head.removeprefix(prefix) if head.startswith(prefix) else None


def _checked_overrides(value: dict[str, Override], record: type, check, what: str, prefix: str):
    """``value`` if its names are fields of the NamedTuple ``record`` and ``check`` accepts the
    record built from the defaults and these overrides; else a field error naming the override
    (``prefix``: how ``check``'s messages name the record's fields)."""
    for name in value:
        if name not in record._fields:
            raise _FieldError((name,), f"not {what}; fields: {', '.join(record._fields)}")
    try:
        check(record(**{name: override.value for name, override in value.items()}))
    except ValueError as error:
        name = _field_in_message(str(error), prefix)
        where = (name, "value") if name in value else ()
        raise _FieldError(where, str(error)) from None
    return value


class PlantSpec(BaseModel):
    """One plant of the record (the file's comments say what each field is)."""

    model_config = _CONFIG

    simulator: Literal["carracing", "racecar", "commonroad"]
    model: Literal["ks", "st"] | None = None
    vehicle: int = Field(2, ge=1, le=3)
    dt: float = Field(gt=0.0, le=1.0)
    seeds: int = Field(ge=1)
    paths: tuple[Identifier, ...] = Field(min_length=1)
    radius: float | None = Field(None, gt=0.0)
    corridor_width: float | None = Field(None, gt=0.0)
    min_mean_speed: float = Field(gt=0.0)
    spawn_lateral: float = Field(0.0, ge=0.0)
    spawn_yaw_deg: float = Field(0.0, ge=0.0, le=180.0)
    params: dict[str, Override] = {}
    observer: dict[str, Override] = {}

    @field_validator("params")
    @classmethod
    def _params(cls, value: dict[str, Override]):
        return _checked_overrides(
            value,
            FollowerParams,
            check_follower_params,
            "a FollowerParams field",
            "follower_params.",
        )

    @field_validator("observer")
    @classmethod
    def _observer(cls, value: dict[str, Override]):
        return _checked_overrides(
            value, ObserverSettings, check_observer, "an observer setting", "observer."
        )

    @model_validator(mode="after")
    def _by_simulator(self):
        if len(set(self.paths)) != len(self.paths):
            raise _FieldError(("paths",), f"a path is listed twice: {list(self.paths)}")
        if self.simulator == "carracing":
            if self.paths != ("track",):
                raise _FieldError(
                    ("paths",), f'carracing drives its own track: must be ["track"], got '
                    f"{list(self.paths)}"
                )  # fmt: skip
            for name in ("radius", "corridor_width", "model"):
                if getattr(self, name) is not None:
                    raise _FieldError((name,), "not used by carracing (its track sets the path)")
            if self.spawn_lateral or self.spawn_yaw_deg:
                raise _FieldError(
                    ("spawn_lateral",),
                    "carracing starts where its environment puts the car: no spawn jitter",
                )
            return self
        for index, path in enumerate(self.paths):
            if path not in SHAPES:
                raise _FieldError(
                    ("paths", index), f"unknown shape {path!r}; shapes: {', '.join(SHAPES)}"
                )
        for name in ("radius", "corridor_width"):
            if getattr(self, name) is None:
                raise _FieldError((name,), f"required by {self.simulator}")
        if self.simulator == "commonroad" and self.model is None:
            raise _FieldError(("model",), 'required by commonroad: "ks" or "st"')
        if self.simulator != "commonroad" and self.model is not None:
            raise _FieldError(("model",), f"not used by {self.simulator}")
        return self

    def follower_params(self) -> FollowerParams:
        """``FollowerParams()`` with this plant's overrides."""
        return check_follower_params(
            FollowerParams(**{name: override.value for name, override in self.params.items()})
        )

    def observer_settings(self) -> ObserverSettings:
        """Table I's observer with this plant's overrides."""
        return check_observer(
            OBSERVER._replace(**{name: override.value for name, override in self.observer.items()})
        )


class ExternalSpec(BaseModel):
    """The record file's content."""

    model_config = _CONFIG

    name: Identifier
    version: int = Field(ge=1)
    description: str = ""
    followers: tuple[str, ...] = Field(min_length=1)
    plants: dict[Identifier, PlantSpec] = Field(min_length=1)

    @field_validator("followers")
    @classmethod
    def _followers(cls, value):
        for index, name in enumerate(value):
            if name not in EXTERNAL_FOLLOWERS:
                raise _FieldError(
                    (index,),
                    f"unknown follower {name!r}; followers: {', '.join(EXTERNAL_FOLLOWERS)}",
                )
        if len(set(value)) != len(value):
            raise ValueError(f"a follower is listed twice: {list(value)}")
        return value


class ExternalRecord:
    """A validated record (build it with ``load_record``).

    Attributes
    ----------
    spec : ExternalSpec
    source : str
        ``"external"`` (the shipped record) or the file's path.
    hash : str
        SHA-256 (hex) of the validated content as sorted JSON: comments and layout do not change
        it, any value (a ``why`` included) does.
    """

    def __init__(self, spec: ExternalSpec, source: str):
        if not isinstance(spec, ExternalSpec):
            raise ValueError(f"spec must be an ExternalSpec, got {spec!r}")
        self.spec = spec
        self.source = str(source)
        self.hash = spec_hash(spec)

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def version(self) -> int:
        return self.spec.version

    @property
    def plant_names(self) -> tuple[str, ...]:
        return tuple(self.spec.plants)

    def plant(self, name: str) -> PlantSpec:
        """The plant called ``name``; ``ValueError`` listing the record's plants otherwise."""
        try:
            return self.spec.plants[name]
        except (KeyError, TypeError):
            raise ValueError(
                f"record {self.name!r} has no plant named {name!r}; plants: "
                f"{list(self.spec.plants)}"
            ) from None

    def as_dict(self) -> dict:
        """The validated content (JSON types), for the report."""
        return self.spec.model_dump(mode="json")

    def __repr__(self) -> str:
        return f"ExternalRecord({self.name!r} v{self.version}, plants={list(self.spec.plants)})"


_LOADED: dict[tuple, ExternalRecord] = {}


def load_record(record="external") -> ExternalRecord:
    """Load and validate a record: ``"external"`` (the shipped ``suites/external.toml``), a
    ``.toml`` file's path, or an ``ExternalRecord`` (returned as it is). Cached per process.

    Raises
    ------
    ValueError
        Not the shipped name nor a file; unreadable; a TOML syntax error; every invalid entry,
        one line each, as ``FILE: plants.racecar.params.v_max.value: message``.
    """
    if isinstance(record, ExternalRecord):
        return record
    if record == "external":
        key: tuple = ("shipped",)
        if key not in _LOADED:
            text = (
                resources.files("steerlab.trials")
                .joinpath("suites", "external.toml")
                .read_text(encoding="utf-8")
            )
            _LOADED[key] = _parse(text, "external.toml")
            _LOADED[key].source = "external"
        return _LOADED[key]
    try:
        path = Path(record)
    except TypeError:
        raise ValueError(f"record must be 'external' or a file path, got {record!r}") from None
    if not path.is_file():
        raise ValueError(f"record {str(record)!r} is neither 'external' nor a file")
    try:
        status = path.stat()
        key = (str(path.resolve()), status.st_mtime_ns, status.st_size)
        if key not in _LOADED:
            _LOADED[key] = _parse(path.read_text(encoding="utf-8"), str(path))
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"{path}: cannot read the file: {error}") from None
    return _LOADED[key]


def _parse(text: str, source: str) -> ExternalRecord:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"{source}: TOML syntax error: {error}") from None
    return ExternalRecord(validated(ExternalSpec, data, source), source)


# --------------------------------------------------------------------------------------------------
# paths


def _arc(cx: float, cy: float, radius: float, start: float, stop: float) -> np.ndarray:
    """Points of a circular arc from angle ``start`` to ``stop`` [rad], one per 2 degrees (at
    least 2), both ends included."""
    count = max(2, math.ceil(abs(stop - start) / math.radians(2.0)) + 1)
    angles = np.linspace(start, stop, count)
    return np.column_stack((cx + radius * np.cos(angles), cy + radius * np.sin(angles)))


LEAD = 1.0 / 6.0
"""[rad] (a fraction of ``radius`` as a length) the closed shapes start behind the spawn."""


def shape_points(shape: str, radius: float) -> np.ndarray:
    """The waypoints ``(n, 2)`` [m] of a shape of turn radius ``radius``.

    - ``circle``: one counter-clockwise lap of the circle of centre ``(0, r)`` (closed, length
      ``2 pi r``);
    - ``figure_8``: a counter-clockwise lap of that circle and a clockwise lap of the circle of
      centre ``(0, -r)``, tangent at the origin, where the curvature changes sign and the path
      crosses itself (closed, length ``4 pi r``). It starts and ends on the first circle's top,
      far from the crossing;
    - ``s_bend``: from the origin along +x, a straight of ``r / 2``, a left quarter turn, a right
      quarter turn, a straight of ``r / 2`` (length ``(1 + pi) r``; it ends ``2 r`` to the left).

    A closed shape starts ``LEAD r`` of arc (``r / 6``) behind its spawn point (``shape_spawn``),
    as CarRacing's track path starts one tile behind the car: a path starting exactly at the
    vehicle would also end there, and a follower's first projection (over the whole path) may
    pick the end and arrive at once. The vehicle so drives a lap minus ``r / 6``. Points every
    2 degrees of turn: the chord is within ``2e-4 r`` of the arc. A closed shape's last point
    is its first, exactly.
    """
    if shape not in SHAPES:
        raise ValueError(f"shape must be one of {SHAPES}, got {shape!r}")
    r = float(radius)
    if not (r > 0.0 and math.isfinite(r)):
        raise ValueError(f"radius must be > 0 and finite, got {radius!r}")
    half_pi = 0.5 * math.pi
    if shape in ("circle", "figure_8"):
        if shape == "circle":
            points = _arc(0.0, r, r, -half_pi - LEAD, 3.0 * half_pi - LEAD)
        else:
            top = half_pi - LEAD
            first = _arc(0.0, r, r, top, 3.0 * half_pi)  # to the origin
            second = _arc(0.0, -r, r, half_pi, -3.0 * half_pi)  # the clockwise lap
            back = _arc(0.0, r, r, -half_pi, top)  # from the origin back to the start
            points = np.vstack((first, second[1:], back[1:]))
        points[-1] = points[0]  # exactly closed (the angles' rounding differs by a few ulps)
        return points
    straight = 0.5 * r
    left = _arc(straight, r, r, -half_pi, 0.0)
    right = _arc(straight + 2.0 * r, r, r, math.pi, half_pi)
    end = right[-1]
    return np.vstack(([0.0, 0.0], left, right[1:], [end[0] + straight, end[1]]))


def shape_spawn(shape: str, radius: float) -> float:
    """[m] the arc length of the spawn on ``shape_points(shape, radius)``: ``LEAD r`` on the
    closed shapes, 0 on the S-bend."""
    if shape not in SHAPES:
        raise ValueError(f"shape must be one of {SHAPES}, got {shape!r}")
    return 0.0 if shape == "s_bend" else LEAD * float(radius)


# --------------------------------------------------------------------------------------------------
# the plant registry


class PlantCase(NamedTuple):
    """A plant ready for one trial (what a ``PLANTS`` builder returns).

    ``plant.step(state, command, dt) -> VehicleState`` and ``plant.vehicle_params`` (the
    followers' record); ``lap_finished(arrived) -> bool`` the simulator's own lap criterion at the
    trial's end, told whether the observer saw the vehicle arrive (``None``: the observer's arrival
    is the lap); ``check(state) -> str`` a failure the simulator defines ("" if none); ``close()``
    releases the simulator.
    """

    plant: Any
    path: Polyline
    state: VehicleState
    time_limit: float  # [s]
    lap_finished: Callable[[bool], bool] | None = None
    check: Callable[[VehicleState], str] | None = None
    close: Callable[[], None] | None = None


def _spawn(record: ExternalRecord, plant: str, path_name: str, seed: int, path) -> VehicleState:
    """At rest on the path at ``shape_spawn``, heading along it, with the plant's seeded jitter
    (``steerlab.trials.trial.spawn_state``'s rule and generator)."""
    spec = record.plant(plant)
    rng = _generator(record.name, path_name, plant, int(seed))
    lateral = rng.uniform(-1.0, 1.0) * spec.spawn_lateral
    turn = rng.uniform(-1.0, 1.0) * math.radians(spec.spawn_yaw_deg)
    start = shape_spawn(path_name, spec.radius)
    heading = path.heading_at(start)
    x0, y0 = (float(value) for value in path.point_at(start)[:2])
    return VehicleState(
        x=x0 - lateral * math.sin(heading),
        y=y0 + lateral * math.cos(heading),
        yaw=math.remainder(heading + turn, 2.0 * math.pi),
    )


def _shape_path(spec: PlantSpec, path_name: str) -> Polyline:
    return Polyline(shape_points(path_name, spec.radius), spec.corridor_width)


def _carracing_case(record: ExternalRecord, plant: str, path_name: str, seed: int) -> PlantCase:
    from steerlab.plants.carracing import CarRacingPlant

    spec = record.plant(plant)
    simulator = CarRacingPlant(seed=int(seed))
    path = simulator.track_path()

    def off_playfield(state: VehicleState) -> str:
        return "the car left CarRacing's playfield" if simulator.off_playfield else ""

    def lap_finished(arrived: bool) -> bool:
        # the environment's flag, or its criterion (more than lap_complete_percent of the tiles
        # visited) when the observer saw the lap's end, which is 2 m short of the start tile whose
        # touch sets the flag (the trial ends there, before the wheels reach it)
        share = simulator.lap_fraction > simulator.env.lap_complete_percent
        return simulator.lap_finished or (arrived and share)

    return PlantCase(
        plant=simulator,
        path=path,
        state=simulator.reset(),
        time_limit=path.length / spec.min_mean_speed,
        lap_finished=lap_finished,
        check=off_playfield,
        close=simulator.close,
    )


def _racecar_case(record: ExternalRecord, plant: str, path_name: str, seed: int) -> PlantCase:
    from steerlab.plants.pybullet_racecar import PyBulletRacecarPlant

    spec = record.plant(plant)
    path = _shape_path(spec, path_name)
    simulator = PyBulletRacecarPlant()
    try:
        state = simulator.reset(_spawn(record, plant, path_name, seed, path))
    except BaseException:
        simulator.close()
        raise
    return PlantCase(
        plant=simulator,
        path=path,
        state=state,
        time_limit=path.length / spec.min_mean_speed,
        close=simulator.close,
    )


def _commonroad_case(record: ExternalRecord, plant: str, path_name: str, seed: int) -> PlantCase:
    from steerlab.plants.commonroad import CommonRoadPlant

    spec = record.plant(plant)
    path = _shape_path(spec, path_name)
    simulator = CommonRoadPlant(spec.model, vehicle=spec.vehicle)
    return PlantCase(
        plant=simulator,
        path=path,
        state=simulator.reset(_spawn(record, plant, path_name, seed, path)),
        time_limit=path.length / spec.min_mean_speed,
    )


PLANTS: dict[str, Callable[[ExternalRecord, str, str, int], PlantCase]] = {
    "carracing": _carracing_case,
    "racecar": _racecar_case,
    "commonroad": _commonroad_case,
}
"""Simulator name -> ``builder(record, plant, path, seed) -> PlantCase`` (the simulators are
imported when a trial first needs them)."""

_MODULES = {
    "carracing": "steerlab.plants.carracing",
    "racecar": "steerlab.plants.pybullet_racecar",
    "commonroad": "steerlab.plants.commonroad",
}


def require_plants(record="external", plants: Iterable[str] | None = None) -> None:
    """Import the adapters the ``plants`` of ``record`` need (default all): an ``ImportError``
    naming ``pip install 'steerlab[plants]'`` before any trial runs if one is missing."""
    from importlib import import_module

    loaded = load_record(record)
    for name in loaded.plant_names if plants is None else plants:
        simulator = loaded.plant(name).simulator
        try:
            import_module(_MODULES[simulator])
        except ImportError as error:
            message = str(error)
            if "steerlab[plants]" not in message:
                message = f"{message}; install the simulators: pip install 'steerlab[plants]'"
            raise ImportError(f"the external suite's plant {name!r}: {message}") from error


# --------------------------------------------------------------------------------------------------
# the trial


class PlantTrialSpec(NamedTuple):
    """One case (picklable: the runner sends it to worker processes).

    ``record`` is ``"external"`` or a record file's path (loaded once per process).
    """

    record: str
    plant: str
    path: str
    follower: str
    seed: int

    @property
    def key(self) -> tuple[str, str, str, int]:
        """``(plant, path, follower, seed)``: unique within one run."""
        return (self.plant, self.path, self.follower, self.seed)


def _check_spec(spec) -> tuple[ExternalRecord, PlantSpec]:
    if not isinstance(spec, PlantTrialSpec):
        raise ValueError(f"spec must be a PlantTrialSpec, got {spec!r}")
    record = load_record(spec.record)
    plant = record.plant(spec.plant)
    if spec.path not in plant.paths:
        raise ValueError(
            f"plant {spec.plant!r} has no path {spec.path!r}; paths: {list(plant.paths)}"
        )
    if spec.follower not in EXTERNAL_FOLLOWERS:
        raise ValueError(
            f"unknown follower {spec.follower!r}; followers: {list(EXTERNAL_FOLLOWERS)}"
        )
    if isinstance(spec.seed, bool) or not isinstance(spec.seed, int | np.integer) or spec.seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {spec.seed!r}")
    return record, plant


def simulate_plant_trial(spec: PlantTrialSpec) -> tuple[dict, TrialRecords]:
    """Run one case: ``(row, records)`` (module docstring; ``ROW_TYPES`` for the row).

    Raises
    ------
    ValueError
        Before the trial starts only: an unknown record, plant, path or follower, a bad seed.
        Building the simulator may raise too (the runner records an error row). Once the trial
        runs, failures are recorded in the row (``ended = "failed"``, ``failed`` the reason).
    """
    record, plant_spec = _check_spec(spec)
    case = PLANTS[plant_spec.simulator](record, spec.plant, spec.path, int(spec.seed))
    try:
        follower = follower_class(spec.follower)(
            case.plant.vehicle_params, plant_spec.follower_params()
        )
        follower.set_path(case.path)
        dt = plant_spec.dt
        plant = case.plant

        def step(state: VehicleState, command) -> VehicleState:
            return plant.step(state, command, dt)

        driven = drive_trial(
            follower,
            step,
            case.state,
            dt,
            case.time_limit,
            case.path,
            observer=plant_spec.observer_settings(),
            check=case.check,
        )
        arrived = driven.metrics.completed
        lap = arrived if case.lap_finished is None else case.lap_finished(arrived)
    finally:
        if case.close is not None:
            case.close()
    frames = driven.records.metrics
    row = {
        "plant": spec.plant,
        "path": spec.path,
        "follower": spec.follower,
        "seed": int(spec.seed),
        "simulator": plant_spec.simulator,
        "path_length": float(case.path.length),
        "lap_completed": bool(lap),
        "cte_max": float(np.abs(frames.cross_track[: frames.end + 1]).max()),
        **driven_columns(driven),
    }
    return row, driven.records


def run_plant_trial(spec: PlantTrialSpec) -> dict:
    """The row of one case (``ROW_TYPES``): the runner's task function."""
    return simulate_plant_trial(spec)[0]


def _names(value, what: str, known: Sequence[str]) -> list[str] | None:
    if value is None:
        return None
    names = [p.strip() for p in value.split(",") if p.strip()] if isinstance(value, str) else value
    names = list(names)
    if not names:
        raise ValueError(f"{what}: empty selection, got {value!r}")
    for name in names:
        if name not in known:
            raise ValueError(f"unknown {what[:-1]} {name!r}; {what}: {', '.join(known)}")
    if len(set(names)) != len(names):
        raise ValueError(f"{what}: a name is given twice: {names}")
    return names


def plant_trials(
    record="external",
    *,
    plants=None,
    followers=None,
    seeds: int | None = None,
    quick: bool = False,
) -> list[PlantTrialSpec]:
    """Every case of a run, in a fixed order: plants (the record's order), paths, followers,
    seeds.

    ``plants`` / ``followers``: names (a list or a comma-separated string), default the record's;
    ``seeds``: a count that replaces every plant's ``seeds`` (CarRacing: the number of tracks);
    ``quick``: ``QUICK_CASES`` x ``QUICK_FOLLOWERS`` x seed 0 (given arguments override).

    Raises
    ------
    ValueError
        Unknown or repeated names, an empty selection, ``seeds < 1``.
    """
    loaded = load_record(record)
    source = loaded.source
    plant_names = _names(plants, "plants", loaded.plant_names) or list(loaded.plant_names)
    follower_names = _names(followers, "followers", loaded.spec.followers)
    if follower_names is None:
        follower_names = list(QUICK_FOLLOWERS if quick else loaded.spec.followers)
    if seeds is not None:
        if isinstance(seeds, bool) or not isinstance(seeds, int | np.integer) or seeds < 1:
            raise ValueError(f"seeds must be an integer >= 1, got {seeds!r}")
    elif quick:
        seeds = 1
    specs = []
    for plant in plant_names:
        spec = loaded.plant(plant)
        count = spec.seeds if seeds is None else int(seeds)
        for path in spec.paths:
            if quick and (plant, path) not in QUICK_CASES:
                continue
            for follower in follower_names:
                for seed in range(count):
                    specs.append(PlantTrialSpec(source, plant, path, follower, seed))
    if not specs:
        raise ValueError(f"empty selection: plants {plant_names}, quick={quick}")
    return specs


# --------------------------------------------------------------------------------------------------
# the run


def _log(progress: bool, message: str) -> None:
    if progress:
        print(message, file=sys.stderr, flush=True)


def run_external(
    out_dir,
    *,
    record="external",
    plants=None,
    followers=None,
    seeds: int | None = None,
    quick: bool = False,
    workers: int | None = None,
    progress: bool = True,
) -> dict:
    """Run the external suite into ``out_dir`` and write its report; return the summary.

    Parameters
    ----------
    out_dir : path
        The run's folder (``steerlab.runner``): an interrupted run resumes there; a folder
        of another record (name, version, hash) or selection is refused.
    record : str
        ``"external"`` (the shipped record) or a record file.
    plants, followers, seeds, quick
        The selection (``plant_trials``).
    workers : int, optional
        The runner's worker processes (default one per core).
    progress : bool
        The runner's progress bar and a line per phase, on stderr.

    Raises
    ------
    ImportError
        A simulator of the selected plants is missing (naming ``steerlab[plants]``), before any
        trial runs.
    ValueError
        A bad record or selection, or a folder holding another run.
    OSError, RuntimeError
        The runner's (an unwritable folder, another run holding it, a failed pool).
    """
    from steerlab.experiments.benchmark.external_report import summarize, write_report
    from steerlab.experiments.benchmark.table1 import _warm_up, steerlab_version

    loaded = load_record(record)
    specs = plant_trials(loaded, plants=plants, followers=followers, seeds=seeds, quick=quick)
    plant_names = list(dict.fromkeys(spec.plant for spec in specs))
    follower_names = list(dict.fromkeys(spec.follower for spec in specs))
    require_plants(loaded, plant_names)
    manifest = {
        "kind": FORMAT,
        "record": loaded.name,
        "record_version": loaded.version,
        "record_hash": loaded.hash,
        "steerlab_version": steerlab_version(),
        "columns": list(ROW_TYPES),
    }
    _log(
        progress,
        f"external: {len(specs)} trials ({len(plant_names)} plants x {len(follower_names)} "
        f"followers) into {out_dir}",
    )
    if workers is None or workers > 1:
        _warm_up(follower_names, "storm", "")  # forked workers inherit the compiled kernels
    rows = run_tasks(
        [Task(spec.key, spec) for spec in specs],
        run_plant_trial,
        out_dir,
        columns=ROW_TYPES,
        manifest=manifest,
        workers=workers,
        progress=progress,
        counter="stuck_events",
    )
    summary = summarize(rows, loaded, plants=plant_names, followers=follower_names, quick=quick)
    write_report(out_dir, summary)
    _log(progress, f"external: report {Path(out_dir) / 'external.html'}")
    return summary
