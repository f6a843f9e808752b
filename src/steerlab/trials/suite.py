"""Benchmark suites: the test paths of seed 001's Table I, with their terrain and walls.

Seed 001, Section IV: "For each test path, a particular vehicle is spawned at the first waypoint
and then commanded to follow the path until the final waypoint. We generated 10 test paths
capturing a wide range of challenging environments such as steep hills, narrow corridors, and
sharp turns." The paper does not publish its paths; the suites shipped here are steerlab's own,
designed once for those kinds of difficulty (``suites/table1.toml``, whose comments give each
path's intent) and never changed to move a result. ``train`` holds different paths of the same
kinds: the only suite tuning may see.

A suite file (TOML or JSON, by suffix) holds::

    name = "table1"          # identifier: letters, digits, "_" and "-"
    version = 1              # bump on any change of the paths: results record it
    dt = 0.02                # [s] frame time of every trial (default 0.02)
    seeds = 3                # spawn jitters per trial (default 3)
    time_limit = 120.0       # [s] default limit of a trial
    terrain_cell = 1.0       # [m] node spacing of the terrain grids (default 1)
    terrain_margin = 40.0    # [m] the grid covers the waypoints' box grown by this (default 40)
    [spawn_jitter]           # uniform in [-a, a], drawn per (suite, path, vehicle, seed)
    lateral = 0.5            # [m] across the first segment
    yaw_deg = 5.0            # [degrees] (degrees only in files)

    [[paths]]
    name = "hill_climb"
    tags = ["hill"]                          # free labels for reports (optional)
    waypoints = [[0, 0], [150, 0], ...]      # 2-D or 3-D [m]; heights are ignored (the
                                             # terrain gives the ground)
    corridor_width = 10.0                    # [m] full width, one or one per segment
    walled = false                           # walls along the corridor (steerlab.world.walls_along)
    wall_margin = 0.5                        # [m] between the corridor's edge and its walls
    time_limit = 90.0                        # [s] optional, else the suite's
    hills = [{center = [75, 0], height = 8.0, max_grade_deg = 20.0}]
    ramps = [{start = [200, 0], direction_deg = 0.0, length = 20.0, max_grade_deg = -15.0}]
    wall_segments = [[[10, -20], [10, -8]]]  # extra walls [m]
    obstacles = [[[30, 6], [36, 6], [36, 12]]]  # polygons (rings) [m]

Terrain: each hill is ``steerlab.world.terrain.Hill`` (raised cosine, ``max_grade_deg`` the
steepest grade, i.e. ``atan`` of the steepest rise over run; a negative ``height`` digs a
hollow); each ramp a ``Ramp`` starting at the point ``start``, rising along ``direction_deg``
over ``length`` metres at ``max_grade_deg`` (negative: falling), then flat; the features of a
path add up on one grid (``terrain_from_features``). No feature: flat ground. A path's grid holds
at most ``steerlab.world.terrain.MAX_GRID_NODES`` nodes: a ``terrain_cell`` too small for a path
is refused at load, naming the path and the nodes it would need.

Generated paths: a ``[generated]`` table (``steerlab.trials.generate``: seed, paths per kind,
grades and widths) is expanded at load into ``[[paths]]`` entries after the hand-made ones, so
the suite's hash covers the generated paths themselves; its problems are reported as ``FILE:
generated.kinds['x']: message``.

Validation: frozen pydantic models, unknown keys refused (typos), non-finite numbers refused;
every problem reported as ``FILE: paths[3] ('name').field: message``.

``load_suite("table1" | "train" | "generated" | "train_generated" | path) -> Suite``;
``Suite.world(path_name)`` builds the ``steerlab.world.World`` of a path (terrain, the
corridor's walls when walled, extra walls), cached in the ``Suite`` (and ``load_suite`` caches
suites per process, so a worker process builds each world once). ``Suite.hash`` is the SHA-256
of the file's canonical content (the validated values as sorted JSON): comments and layout do not
change it, any value does.
"""

from __future__ import annotations

import hashlib
import json
import math
import tomllib
from importlib import resources
from pathlib import Path
from typing import Annotated

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from steerlab.geometry import Polyline
from steerlab.world import Flat, Heightfield, Walls, World, walls_along
from steerlab.world.terrain import Hill, Ramp, grid_shape, terrain_from_features

__all__ = [
    "GENERATED_SUITES",
    "SHIPPED_SUITES",
    "HillSpec",
    "PathSpec",
    "RampSpec",
    "SpawnJitter",
    "Suite",
    "SuiteSpec",
    "load_suite",
    "terrain_ranges",
    "validated",
]

SHIPPED_SUITES = ("table1", "train")
"""Suites shipped with steerlab (``steerlab/trials/suites/<name>.toml``)."""

GENERATED_SUITES = ("generated", "train_generated")
"""Shipped suites of generated paths (Table I version 2, ``steerlab.trials.generate``):
``generated`` for evaluation, ``train_generated`` (another seed) for tuning."""

_CONFIG = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)


class _FieldError(ValueError):
    """A problem found by a model validator, with the location (below the model) it belongs to,
    so that the message names the entry and the field rather than the model."""

    def __init__(self, where: tuple, message: str):
        super().__init__(message)
        self.where = where
        self.message = message


Identifier = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]
Point = tuple[float, float]
Waypoint = Annotated[tuple[float, ...], Field(min_length=2, max_length=3)]  # (x, y[, z])
Grade = Annotated[float, Field(gt=-90.0, lt=90.0)]


class HillSpec(BaseModel):
    """A round hill (or hollow) on a path's terrain (``steerlab.world.terrain.Hill``)."""

    model_config = _CONFIG

    center: Point  # [m]
    height: float  # [m] non-zero; negative: a hollow
    max_grade_deg: float = Field(gt=0.0, lt=90.0)  # steepest grade [degrees]

    @field_validator("height")
    @classmethod
    def _non_zero(cls, value: float) -> float:
        if value == 0.0:
            raise ValueError("must be non-zero (negative: a hollow)")
        return value

    def feature(self) -> Hill:
        return Hill(self.center, self.height, math.tan(math.radians(self.max_grade_deg)))


class RampSpec(BaseModel):
    """A straight ramp on a path's terrain (``steerlab.world.terrain.Ramp``)."""

    model_config = _CONFIG

    start: Point  # [m] a point on the line where the ramp begins
    direction_deg: float  # [degrees] counter-clockwise from +x: the ramp's way
    length: float = Field(gt=0.0)  # [m] horizontal length of the inclined part
    max_grade_deg: Grade  # [degrees] rising along direction; negative: falling

    @field_validator("max_grade_deg")
    @classmethod
    def _non_zero(cls, value: float) -> float:
        if value == 0.0:
            raise ValueError("must be non-zero (negative: the ramp falls along direction_deg)")
        return value

    def feature(self) -> Ramp:
        direction = math.radians(self.direction_deg)
        start = self.start[0] * math.cos(direction) + self.start[1] * math.sin(direction)
        return Ramp(math.tan(math.radians(self.max_grade_deg)), start, self.length, direction)


class SpawnJitter(BaseModel):
    """Spawn jitter: uniform in ``[-lateral, lateral]`` m and ``[-yaw_deg, yaw_deg]`` degrees."""

    model_config = _CONFIG

    lateral: float = Field(0.5, ge=0.0)  # [m] across the first segment
    yaw_deg: float = Field(5.0, ge=0.0, le=180.0)  # [degrees]


class PathSpec(BaseModel):
    """One test path (module docstring)."""

    model_config = _CONFIG

    name: Identifier
    tags: tuple[Identifier, ...] = ()
    waypoints: tuple[Waypoint, ...] = Field(min_length=2)
    corridor_width: float | tuple[float, ...]
    walled: bool = False
    wall_margin: float = Field(0.5, ge=0.0)
    time_limit: float | None = Field(None, gt=0.0)
    hills: tuple[HillSpec, ...] = ()
    ramps: tuple[RampSpec, ...] = ()
    wall_segments: tuple[tuple[Point, Point], ...] = ()
    obstacles: tuple[tuple[Point, ...], ...] = ()

    @field_validator("waypoints")
    @classmethod
    def _waypoints(cls, value):
        if len({len(point) for point in value}) != 1:
            raise ValueError("must all be 2-D or all 3-D")
        for index in range(len(value) - 1):
            (x0, y0), (x1, y1) = value[index][:2], value[index + 1][:2]
            if x0 == x1 and y0 == y1:
                raise _FieldError(
                    (index + 1,),
                    f"coincides with waypoints[{index}] in the ground plane: "
                    f"{list(value[index + 1])!r}",
                )
        return value

    @field_validator("corridor_width")
    @classmethod
    def _widths(cls, value):
        if isinstance(value, float):
            if not value > 0.0:
                raise ValueError(f"must be > 0, got {value!r}")
            return value
        for index, width in enumerate(value):
            if not width > 0.0:
                raise _FieldError((index,), f"must be > 0, got {width!r}")
        return value

    @field_validator("obstacles")
    @classmethod
    def _obstacles(cls, value):
        for index, ring in enumerate(value):
            try:
                Walls.from_polygons([ring])
            except ValueError as error:
                message = str(error).removeprefix("polygons[0]").lstrip(" :")
                raise _FieldError((index,), message) from None
        return value

    @model_validator(mode="after")
    def _width_count(self):
        if isinstance(self.corridor_width, tuple):
            segments = len(self.waypoints) - 1
            if len(self.corridor_width) != segments:
                raise _FieldError(
                    ("corridor_width",),
                    f"one width for all segments or one per segment ({segments}), got "
                    f"{len(self.corridor_width)}",
                )
        return self


class SuiteSpec(BaseModel):
    """A suite file's content (module docstring)."""

    model_config = _CONFIG

    name: Identifier
    version: int = Field(ge=1)
    description: str = ""
    dt: float = Field(0.02, gt=0.0, le=1.0)
    seeds: int = Field(3, ge=1)
    time_limit: float = Field(120.0, gt=0.0)
    terrain_cell: float = Field(1.0, gt=0.0)
    terrain_margin: float = Field(40.0, ge=0.0)
    spawn_jitter: SpawnJitter = SpawnJitter()
    paths: tuple[PathSpec, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_names(self):
        seen: dict[str, int] = {}
        for index, path in enumerate(self.paths):
            if path.name in seen:
                raise _FieldError(
                    ("paths", index, "name"),
                    f"{path.name!r} is already the name of paths[{seen[path.name]}]",
                )
            seen[path.name] = index
        return self

    @model_validator(mode="after")
    def _terrain_grids(self):
        """Every path's terrain grid fits (``steerlab.world.terrain.grid_shape``): a
        ``terrain_cell`` too small for the paths is refused here, before any grid is
        allocated."""
        for index, path in enumerate(self.paths):
            if path.hills or path.ramps:
                x_range, y_range = terrain_ranges(path, self.terrain_margin)
                try:
                    grid_shape(x_range, y_range, self.terrain_cell, name="terrain_cell")
                except ValueError as error:
                    raise _FieldError(
                        ("terrain_cell",), f"paths[{index}] ({path.name!r}): {error}"
                    ) from None
        return self


def terrain_ranges(path: PathSpec, margin: float) -> tuple[tuple[float, float], ...]:
    """``(x_range, y_range)`` [m] a path's terrain grid covers: its waypoints' box grown by
    ``margin`` plus its widest corridor."""
    points = np.array([point[:2] for point in path.waypoints], dtype=np.float64)
    width = path.corridor_width
    grow = margin + float(max((width,) if isinstance(width, float) else width))
    low = points.min(axis=0) - grow
    high = points.max(axis=0) + grow
    return (float(low[0]), float(high[0])), (float(low[1]), float(high[1]))


# --------------------------------------------------------------------------------------------------
# the loaded suite


def spec_hash(spec: BaseModel) -> str:
    """SHA-256 (hex) of a validated spec's canonical content: its JSON dump with sorted keys and
    no spaces, so that formatting, comments and key order in the file do not change it."""
    canonical = json.dumps(spec.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class Suite:
    """A validated suite, ready for trials (build it with ``load_suite``).

    Attributes
    ----------
    spec : SuiteSpec
        The file's validated content.
    source : str
        Where it came from: a shipped suite's name, or the file's path.
    hash : str
        SHA-256 (hex) of the canonical content: for manifests ("never mix runs").
    """

    def __init__(self, spec: SuiteSpec, source: str):
        if not isinstance(spec, SuiteSpec):
            raise ValueError(f"spec must be a SuiteSpec, got {spec!r}")
        self.spec = spec
        self.source = str(source)
        self.hash = spec_hash(spec)
        self._paths = {path.name: path for path in spec.paths}
        self._polylines: dict[str, Polyline] = {}
        self._worlds: dict[str, World] = {}

    # -- settings -------------------------------------------------------------------------------

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def version(self) -> int:
        return self.spec.version

    @property
    def dt(self) -> float:
        """[s] frame time of every trial."""
        return self.spec.dt

    @property
    def seeds(self) -> int:
        """Number of spawn jitters (seeds ``0 .. seeds - 1``) per trial."""
        return self.spec.seeds

    @property
    def spawn_lateral(self) -> float:
        """[m] spawn jitter across the first segment (uniform in ``[-a, a]``)."""
        return self.spec.spawn_jitter.lateral

    @property
    def spawn_yaw(self) -> float:
        """[rad] spawn yaw jitter (uniform in ``[-a, a]``)."""
        return math.radians(self.spec.spawn_jitter.yaw_deg)

    @property
    def path_names(self) -> tuple[str, ...]:
        """The paths' names, in the file's order."""
        return tuple(self._paths)

    def __repr__(self) -> str:
        return (
            f"Suite({self.name!r} v{self.version}, {len(self._paths)} paths, dt={self.dt}, "
            f"seeds={self.seeds}, source={self.source!r})"
        )

    # -- paths ----------------------------------------------------------------------------------

    def path(self, name: str) -> PathSpec:
        """The path called ``name``; ``ValueError`` listing the suite's paths otherwise."""
        try:
            return self._paths[name]
        except (KeyError, TypeError):
            raise ValueError(
                f"suite {self.name!r} has no path named {name!r}; paths: {list(self._paths)}"
            ) from None

    def time_limit(self, name: str) -> float:
        """[s] the path's time limit (its own, else the suite's)."""
        limit = self.path(name).time_limit
        return self.spec.time_limit if limit is None else limit

    def polyline(self, name: str) -> Polyline:
        """The path as a ``Polyline`` with its corridor widths (cached)."""
        if name not in self._polylines:
            spec = self.path(name)
            self._polylines[name] = Polyline(spec.waypoints, spec.corridor_width)
        return self._polylines[name]

    def terrain(self, name: str) -> Heightfield:
        """The path's terrain: its hills and ramps summed on one grid, or flat ground."""
        spec = self.path(name)
        features = [hill.feature() for hill in spec.hills] + [r.feature() for r in spec.ramps]
        if not features:
            return Flat()
        x_range, y_range = terrain_ranges(spec, self.spec.terrain_margin)
        return terrain_from_features(features, x_range, y_range, self.spec.terrain_cell)

    def walls(self, name: str) -> Walls:
        """The path's walls: the corridor's when ``walled``, plus the extra segments and
        obstacles."""
        spec = self.path(name)
        walls = Walls.empty()
        if spec.walled:
            walls = walls + walls_along(self.polyline(name), spec.wall_margin)
        if spec.wall_segments:
            walls = walls + Walls.from_segments(spec.wall_segments)
        if spec.obstacles:
            walls = walls + Walls.from_polygons(spec.obstacles)
        return walls

    def world(self, name: str) -> World:
        """The path's ``World`` (terrain and walls), built once per ``Suite`` object."""
        if name not in self._worlds:
            try:
                self._worlds[name] = World(self.terrain(name), self.walls(name))
            except ValueError as error:
                raise ValueError(f"{self.source}: path {name!r}: {error}") from None
        return self._worlds[name]

    @staticmethod
    def _widths(spec: PathSpec) -> tuple[float, ...]:
        width = spec.corridor_width
        return (width,) if isinstance(width, float) else width


# --------------------------------------------------------------------------------------------------
# loading


_LOADED: dict[tuple, Suite] = {}


def load_suite(suite) -> Suite:
    """Load and validate a suite: a shipped name (``SHIPPED_SUITES``) or a ``.toml`` / ``.json``
    file. A ``Suite`` is returned as it is.

    Suites are cached per process (keyed by the file and its modification time and size), so
    repeated trials in a worker reuse its worlds.

    Raises
    ------
    ValueError
        Not a shipped name nor an existing file (the message lists the shipped suites); another
        suffix; unreadable or not UTF-8; a syntax error; any invalid entry, each reported as
        ``FILE: paths[i] ('name').field: message`` (all problems at once).
    """
    if isinstance(suite, Suite):
        return suite
    if isinstance(suite, str) and suite in (*SHIPPED_SUITES, *GENERATED_SUITES):
        resource = resources.files("steerlab.trials").joinpath("suites", f"{suite}.toml")
        key = ("shipped", suite)
        if key not in _LOADED:
            _LOADED[key] = _load(resource.read_text(encoding="utf-8"), ".toml", f"{suite}.toml")
            _LOADED[key].source = suite
        return _LOADED[key]
    try:
        path = Path(suite)
    except TypeError:
        raise ValueError(
            f"suite must be a shipped suite name {[*SHIPPED_SUITES, *GENERATED_SUITES]} or a "
            f"file path, got {suite!r}"
        ) from None
    if not path.is_file():
        raise ValueError(
            f"suite {str(suite)!r} is neither a shipped suite {list(SHIPPED_SUITES)} nor a "
            f"generated one {list(GENERATED_SUITES)} nor a file"
        )
    try:
        status = path.stat()
        key = (str(path.resolve()), status.st_mtime_ns, status.st_size)
    except OSError as error:
        raise ValueError(f"{path}: cannot read the file: {error.strerror or error}") from None
    if key not in _LOADED:
        suffix = path.suffix.lower()
        if suffix not in (".toml", ".json"):
            raise ValueError(f"{path}: suite files are .toml or .json, got suffix {path.suffix!r}")
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as error:
            raise ValueError(f"{path}: cannot read the file: {error.strerror or error}") from None
        except UnicodeDecodeError as error:
            raise ValueError(f"{path}: not UTF-8 text: {error}") from None
        _LOADED[key] = _load(text, suffix, str(path))
    return _LOADED[key]


def _load(text: str, suffix: str, source: str) -> Suite:
    if suffix == ".toml":
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise ValueError(f"{source}: TOML syntax error: {error}") from None
    else:
        try:
            data = json.loads(text)  # NaN and Infinity parse; validation names their field
        except json.JSONDecodeError as error:
            raise ValueError(f"{source}: JSON syntax error: {error}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{source}: the top level must be a table/object, got {type(data)}")
    if "generated" in data:
        data = _expanded(data, source)
    return Suite(validated(SuiteSpec, data, source), source)


def _expanded(data: dict, source: str) -> dict:
    """The file's content with its ``generated`` table replaced by the paths it declares, after
    the hand-made ones (``steerlab.trials.generate``); the table's problems raised first."""
    # imported here: the generator builds this module's PathSpec
    from steerlab.trials.generate import GeneratedFile

    declared = validated(GeneratedFile, {"generated": data["generated"]}, source).generated
    content = {key: value for key, value in data.items() if key != "generated"}
    paths = content.get("paths", [])
    if isinstance(paths, list):  # anything else: SuiteSpec reports it
        content["paths"] = paths + [path.model_dump(mode="json") for path in declared.paths()]
    return content


def validated(model: type[BaseModel], data, source: str):
    """``model.model_validate(data)``, or a ``ValueError`` listing every problem, one line each,
    as ``SOURCE: where.field: message`` (the suite files' and the external record's format)."""
    try:
        return model.model_validate(data)
    except ValidationError as error:
        lines = _problems(data, error)
        if len(lines) == 1:
            raise ValueError(f"{source}: {lines[0]}") from None
        listed = "\n".join(f"{source}: {line}" for line in lines)
        raise ValueError(f"{source}: {len(lines)} problems\n{listed}") from None


def _location(data, where: tuple) -> str:
    """``("paths", 3, "hills", 0, "height")`` -> ``"paths[3] ('name').hills[0].height"``."""
    text = ""
    for position, part in enumerate(where):
        if isinstance(part, int):
            text += f"[{part}]"
            if position == 1 and where[0] == "paths":
                entries = data.get("paths")
                entry = entries[part] if isinstance(entries, list) and part < len(entries) else None
                if isinstance(entry, dict) and isinstance(entry.get("name"), str):
                    text += f" ({entry['name']!r})"
        elif part.startswith("["):  # a table's key, as "['key']"
            text += part
        else:
            text += f".{part}" if text else str(part)
    return text or "(top level)"


def _problems(data, error: ValidationError) -> list[str]:
    """One line per field: ``entry.field: message``. The alternatives of a union (a width given
    as one number or a list) are merged into one line."""
    merged: dict[str, list[str]] = {}
    details = error.errors()
    locations = [tuple(detail["loc"]) for detail in details]
    for detail in details:
        if detail["type"] == "too_short" and any(
            len(other) > len(detail["loc"]) and other[: len(detail["loc"])] == detail["loc"]
            for other in locations
        ):
            continue  # "at least 1 item" because an item failed: that item's error says why
        where = tuple(
            part
            for part in detail["loc"]
            if not (isinstance(part, str) and part.startswith(("tuple[", "function-")))
            and part not in ("float", "int")
        )
        cause = (detail.get("ctx") or {}).get("error")
        if isinstance(cause, _FieldError):
            where = where + cause.where
            message = cause.message
        else:
            message = detail["msg"].removeprefix("Value error, ")
            if "input" in detail and detail["type"] not in ("missing", "extra_forbidden"):
                shown = repr(detail["input"])
                if len(shown) <= 60:
                    message = f"{message}, got {shown}"
        messages = merged.setdefault(_location(data, where), [])
        if message not in messages:
            messages.append(message)
    return [f"{location}: {' or '.join(messages)}" for location, messages in merged.items()]
