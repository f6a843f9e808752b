"""The T_eta table (seed 003, Section 3 and Figure 2): built by simulating seek, cached on disk.

"Figure 2 displays the heterogeneous sampling of target positions we use to identify the eta angle
in the seek mode. It is completed with a sampling of the initial forward speed, the initial
angular speed and the desired forward speed. The resulting table T_eta contains 43200 elements
stating whether each sampled target is reachable, and if it is the case, the eta angle, otherwise
we store the closest desired speed ensuring reachability or zero if there is none."

**Grid** (``TableGrid``, defaults): 12 distances x 24 radial angles x 5 angular speeds x 5
forward speeds x 6 desired speeds = 43,200 entries, as the seed's table. Distances are geometric
from ``D_eta = 0.5`` to ``30`` units (ratio 1.45: dense near the entity, sparse far, as Figure
2's rings; 30 units is the seed's "distant target", Section 7); radial angles are the centres of
24 sectors of 15 degrees; angular speeds are the fractions -1, -1/2, 0, 1/2, 1 of the largest
angular speed allowed at the sampled forward speed (``min(angular_speed_max, A / v)``, so that
every initial state respects ``|v w| <= A``); forward speeds 0, 1/4, ..., 1 of ``speed_max``;
desired speeds 1/6, 2/6, ..., 1 of ``speed_max``. The seed's figure cannot be measured off the
text, so the numbers of rings and sectors are chosen; the product is the seed's.

**Reachable** (the seed leaves it undefined): the seek mode (``steerlab.funnel.seek``), started
at the entry's state with the entry's desired speed held constant and the target static, passes
within ``reach_tolerance`` (0.1 u) of the target (tested on the segment swept in each frame)
before ``2 D / v_d + time_margin`` seconds (``time_margin`` = 10 s: twice the straight-line time
plus room to turn and to accelerate) and before the heading has turned by ``orbit_turn`` (a full
turn, ``SeekParams``) from the initial radial direction: the orbit of Section 3 is unreachable.
Runs use the plant and controllers the table is keyed by, at the grid's ``dt`` (0.02 s).

**Stored speed** for an unreachable entry: among the table's desired speeds that are reachable
for the same distance, angle, angular speed and forward speed, the closest to the entry's
desired speed (ties: the lower); 0 if none is.

**Cache.** ``EtaTable.load_or_build`` looks for ``eta-<key>.npz`` in the cache directory
(``cache_dir``, else ``$STEERLAB_CACHE_DIR``, else the user's cache directory for steerlab from
``platformdirs``: ``$XDG_CACHE_HOME/steerlab`` or ``~/.cache/steerlab`` on Linux,
``~/Library/Caches/steerlab`` on macOS, ``%LOCALAPPDATA%\\steerlab\\Cache`` on Windows). The
key is a SHA-256 of the plant's and the controllers' parameters, the grid, and the format and
simulation versions, written with exact (hexadecimal) floats: any change gives another file.
Files are written to a temporary name in the same directory and renamed (atomic: a reader never
sees half a file). Loading checks the format tag, that the stored parameters give the stored key
(and the expected one), shapes, dtypes, a SHA-256 of the arrays and the range of every entry; a
file that fails is refused by ``EtaTable.load`` with a message naming the file and the failure,
and rebuilt (with a warning) by ``load_or_build``.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
import threading
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import numba
import numpy as np
import platformdirs

from steerlab._checks import check_finite, check_positive
from steerlab._jit import batch_kernel
from steerlab.engines.unicycle import UnicycleParams, angular_speed_limit
from steerlab.funnel.interpolate import (
    _angular_fraction,
    _interpolate_eta,
    _nearest_entry,
    table_data,
)
from steerlab.funnel.seek import REACHED, SeekParams, _seek_run, check_table_record

__all__ = ["EtaTable", "TableFileError", "TableGrid", "default_cache_dir", "table_key"]

FORMAT = "steerlab.eta_table/1"
SIMULATION_VERSION = 1  # bump when the seek run, the plant or the grid's meaning changes


class TableGrid(NamedTuple):
    """Sampling of the T_eta table and the settings of its seek runs (module docstring)."""

    distance_min: float = 0.5  # [u] first sampled distance: the seed's D_eta
    distance_max: float = 30.0  # [u] last sampled distance (the seed's "distant target")
    distance_count: int = 12  # geometric rings, dense near the entity (Figure 2)
    alpha_count: int = 24  # radial-angle sectors (15 degrees)
    angular_count: int = 5  # initial angular speed: fractions of the allowed bound in [-1, 1]
    speed_count: int = 5  # initial forward speed in [0, speed_max]
    desired_count: int = 6  # desired speed speed_max (k + 1) / n
    dt: float = 0.02  # [s] frame time of the seek runs
    reach_tolerance: float = 0.1  # [u] reached when a frame's swept segment passes this close
    time_margin: float = 10.0  # [s] time limit of a run: 2 D / v_d + time_margin

    @property
    def shape(self) -> tuple[int, int, int, int, int]:
        return (
            self.distance_count,
            self.alpha_count,
            self.angular_count,
            self.speed_count,
            self.desired_count,
        )

    @property
    def size(self) -> int:
        """Number of entries (43,200 with the defaults)."""
        return math.prod(self.shape)

    def validated(self) -> TableGrid:
        """Return the grid with checked values; ``ValueError`` naming the first bad one."""
        distance_min = check_positive("distance_min", self.distance_min, per_agent=False)
        distance_max = check_positive("distance_max", self.distance_max, per_agent=False)
        if distance_max <= distance_min:
            raise ValueError(
                f"distance_max must be > distance_min = {distance_min}, got {self.distance_max!r}"
            )
        counts = {}
        for name, low in (
            ("distance_count", 2),
            ("alpha_count", 4),
            ("angular_count", 2),
            ("speed_count", 2),
            ("desired_count", 2),
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or int(value) != value or value < low:
                raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
            counts[name] = int(value)
        return TableGrid(
            distance_min=distance_min,
            distance_max=distance_max,
            dt=check_positive("dt", self.dt, per_agent=False),
            reach_tolerance=check_positive(
                "reach_tolerance", self.reach_tolerance, per_agent=False
            ),
            time_margin=check_positive("time_margin", self.time_margin, per_agent=False),
            **counts,
        )

    def axes(self, unicycle: UnicycleParams) -> dict[str, np.ndarray]:
        """The sampled values of each axis, in table order (units: u, rad, fraction, u/s)."""
        ratio = self.distance_max / self.distance_min
        steps = np.arange(self.distance_count) / (self.distance_count - 1)
        distances = self.distance_min * ratio**steps
        distances[0], distances[-1] = self.distance_min, self.distance_max
        sector = 2.0 * math.pi / self.alpha_count
        count = self.desired_count
        return {
            "distance": distances,
            "alpha": -math.pi + (np.arange(self.alpha_count) + 0.5) * sector,
            "angular": np.linspace(-1.0, 1.0, self.angular_count),
            "speed": np.linspace(0.0, unicycle.speed_max, self.speed_count),
            "desired": unicycle.speed_max * np.arange(1, count + 1) / count,
        }


class TableFileError(ValueError):
    """A table file that cannot be used: corrupted, of another format, or built for other
    parameters. The message names the file and the failure."""


def _exact(record: NamedTuple) -> dict[str, Any]:
    """A record's fields with floats written exactly (hexadecimal), for keys and files."""
    return {
        name: (float(value).hex() if isinstance(value, float) else int(value))
        for name, value in record._asdict().items()
    }


def _key_records(
    unicycle: UnicycleParams | None, seek: SeekParams | None, grid: TableGrid | None
) -> tuple[UnicycleParams, SeekParams, TableGrid]:
    """The plant, the gains and the grid a table is keyed by (defaults for ``None``), checked:
    ``ValueError`` naming the first bad field, or one holding one value per entity."""
    unicycle = (UnicycleParams() if unicycle is None else unicycle).validated()
    seek = (SeekParams() if seek is None else seek).validated()
    check_table_record("unicycle", unicycle)
    check_table_record("seek", seek)
    return unicycle, seek, (TableGrid() if grid is None else grid).validated()


def table_key(
    unicycle: UnicycleParams | None, seek: SeekParams | None, grid: TableGrid | None = None
) -> str:
    """SHA-256 (hex) of everything a table's entries depend on: plant, controllers, grid, code
    (``None``: the defaults)."""
    unicycle, seek, grid = _key_records(unicycle, seek, grid)
    identity = {
        "format": FORMAT,
        "simulation": SIMULATION_VERSION,
        "unicycle": _exact(unicycle),
        "seek": _exact(seek),
        "grid": _exact(grid),
    }
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def default_cache_dir() -> Path:
    """The directory of the cached tables when no ``cache_dir`` is given.

    ``$STEERLAB_CACHE_DIR`` when set and not empty, else the platform's user cache directory for
    steerlab (``platformdirs.user_cache_path("steerlab", appauthor=False)``: on Linux
    ``$XDG_CACHE_HOME/steerlab``, else ``~/.cache/steerlab``). Not created here.
    """
    explicit = os.environ.get("STEERLAB_CACHE_DIR")
    if explicit:
        return Path(explicit)
    return platformdirs.user_cache_path("steerlab", appauthor=False)


class TableAxes(NamedTuple):
    """The sampled values of each axis (``TableGrid.axes``), one array per axis, in table order."""

    distance: np.ndarray  # [u]
    alpha: np.ndarray  # [rad]
    angular: np.ndarray  # fraction of the allowed angular speed, in [-1, 1]
    speed: np.ndarray  # [u/s]
    desired: np.ndarray  # [u/s]


@batch_kernel
def _build_batch(order, axes, grid, unicycle, seek, outcome, eta):
    """Seek runs of the entries ``order`` (flat indices, C order of the table's shape), on the
    ``TableAxes`` ``axes`` with the runs' settings of ``grid`` (a ``TableGrid``)."""
    n_a = axes.alpha.size
    n_s = axes.angular.size
    n_v = axes.speed.size
    n_u = axes.desired.size
    for j in numba.prange(order.size):
        k = order[j]
        i_u = k % n_u
        rest = k // n_u
        i_v = rest % n_v
        rest //= n_v
        i_s = rest % n_s
        rest //= n_s
        i_a = rest % n_a
        i_d = rest // n_a
        v0 = axes.speed[i_v]
        w0 = axes.angular[i_s] * angular_speed_limit(v0, unicycle)
        desired = axes.desired[i_u]
        distance = axes.distance[i_d]
        result, angle, _, _ = _seek_run(
            distance,
            axes.alpha[i_a],
            v0,
            w0,
            desired,
            grid.dt,
            grid.reach_tolerance,
            2.0 * distance / desired + grid.time_margin,
            unicycle,
            seek,
        )
        eta[k] = angle
        outcome[k] = result  # written last: the progress poll counts these


def _closest_reachable_speed(reached: np.ndarray, desireds: np.ndarray) -> np.ndarray:
    """Per entry, the reachable desired speed of the same state closest to its own (ties: the
    lower), or 0 where none is: the value stored for unreachable entries."""
    gap = np.abs(desireds[None, :] - desireds[:, None])  # [own, candidate]
    gap = gap + np.triu(np.ones_like(gap), 1) * 1e-9  # ties go to the lower candidate
    cost = np.where(reached[..., None, :], gap, np.inf)  # (..., own, candidate)
    best = np.argmin(cost, axis=-1)
    found = np.isfinite(np.min(cost, axis=-1))
    return np.where(found, desireds[best], 0.0)


class EtaTable:
    """The T_eta table of a plant and its seek controllers (module docstring).

    Build with ``EtaTable.build`` or, cached on disk, ``EtaTable.load_or_build``. Arrays have
    the shape ``grid.shape`` = (distance, alpha, angular, speed, desired):

    - ``reachable`` (bool), ``value`` (eta [rad] where reachable, else the stored desired speed
      [u/s], 0 if none): the seed's entries;
    - ``outcome`` (int8): how each seek run ended (``REACHED``, ``ORBIT``, ``TIMEOUT``).
    """

    def __init__(
        self,
        unicycle: UnicycleParams,
        seek: SeekParams,
        grid: TableGrid,
        reachable: np.ndarray,
        value: np.ndarray,
        outcome: np.ndarray,
        *,
        build_seconds: float = math.nan,
        source: str = "built",
    ):
        self.unicycle, self.seek, self.grid = _key_records(unicycle, seek, grid)
        self.key = table_key(self.unicycle, self.seek, self.grid)
        self.reachable = np.ascontiguousarray(reachable, dtype=np.bool_)
        self.value = np.ascontiguousarray(value, dtype=np.float64)
        self.outcome = np.ascontiguousarray(outcome, dtype=np.int8)
        self.build_seconds = float(build_seconds)
        self.source = source
        self._axes = self.grid.axes(self.unicycle)
        for array in (self.reachable, self.value, self.outcome):
            array.flags.writeable = False
        self.data = table_data(
            self._axes["distance"],
            self.grid.shape,
            self.unicycle.speed_max,
            self.unicycle.angular_speed_max,
            self.unicycle.normal_accel_max,
            self.reachable,
            self.value,
        )

    # -- building ---------------------------------------------------------------------------

    @classmethod
    def build(
        cls,
        unicycle: UnicycleParams | None = None,
        seek: SeekParams | None = None,
        grid: TableGrid | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> EtaTable:
        """Simulate every entry's seek run (numba, in parallel); no cache.

        ``progress(done, total)`` is called about ten times a second while the runs proceed
        (they run in a worker thread, the compiled loop releasing the GIL).
        """
        unicycle, seek, grid = _key_records(unicycle, seek, grid)
        axes = grid.axes(unicycle)
        size = grid.size
        outcome = np.full(size, -1, np.int8)
        eta = np.zeros(size)
        # a fixed shuffle balances the threads' work (far targets take longer), and no entry
        # depends on another, so the result is the same bits in any order or thread count
        order = np.random.default_rng(0).permutation(size).astype(np.int64)
        arguments = (order, TableAxes(**axes), grid, unicycle, seek, outcome, eta)
        start = time.perf_counter()
        if progress is None:
            _build_batch(*arguments)
        else:
            _run_with_progress(arguments, outcome, progress)
        seconds = time.perf_counter() - start
        shape = grid.shape
        outcome = outcome.reshape(shape)
        reached = outcome == REACHED
        stored = _closest_reachable_speed(reached, axes["desired"])
        value = np.where(reached, eta.reshape(shape), stored)
        return cls(unicycle, seek, grid, reached, value, outcome, build_seconds=seconds)

    # -- files ------------------------------------------------------------------------------

    def save(self, path: str | Path) -> Path:
        """Write the table to ``path`` (``.npz``) atomically: a temporary file, then a rename."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        meta = {
            "format": FORMAT,
            "key": self.key,
            "unicycle": _exact(self.unicycle),
            "seek": _exact(self.seek),
            "grid": _exact(self.grid),
            "sha256": _digest(self.reachable, self.value, self.outcome),
            "build_seconds": self.build_seconds,
        }
        handle = tempfile.NamedTemporaryFile(  # noqa: SIM115 - closed before the rename below
            dir=path.parent, prefix=path.name + ".", suffix=".tmp", delete=False
        )
        try:
            with handle:
                np.savez(
                    handle,
                    meta=np.array(json.dumps(meta)),
                    reachable=self.reachable.view(np.uint8),
                    value=self.value,
                    outcome=self.outcome,
                )
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(handle.name, path)
        except BaseException:
            Path(handle.name).unlink(missing_ok=True)
            raise
        return path

    @classmethod
    def load(
        cls,
        path: str | Path,
        unicycle: UnicycleParams | None = None,
        seek: SeekParams | None = None,
        grid: TableGrid | None = None,
    ) -> EtaTable:
        """Read and check a table file; ``TableFileError`` (a ``ValueError``) if it is corrupted
        or, when parameters are given, built for other ones."""
        path = Path(path)
        table = _read(path)
        if unicycle is not None or seek is not None or grid is not None:
            expected = table_key(
                table.unicycle if unicycle is None else unicycle,
                table.seek if seek is None else seek,
                table.grid if grid is None else grid,
            )
            if expected != table.key:
                raise TableFileError(
                    f"{path}: the table was built for other parameters (key {table.key[:16]}, "
                    f"expected {expected[:16]}): plant {table.unicycle}, seek {table.seek}, "
                    f"grid {table.grid}"
                )
        return table

    @classmethod
    def load_or_build(
        cls,
        unicycle_params: UnicycleParams | None = None,
        seek_params: SeekParams | None = None,
        cache_dir: str | Path | None = None,
        *,
        grid: TableGrid | None = None,
        progress: Callable[[int, int], None] | None = None,
        rebuild: bool = False,
    ) -> EtaTable:
        """The table of these parameters from the cache, or built and cached.

        A cached file that fails its checks is rebuilt (with a ``RuntimeWarning``); a cache
        directory that cannot be written gives the built table, uncached, with a warning.
        """
        unicycle, seek, grid = _key_records(unicycle_params, seek_params, grid)
        path = cls.cache_path(unicycle, seek, cache_dir, grid=grid)
        if path.exists() and not rebuild:
            try:
                return cls.load(path, unicycle, seek, grid)
            except TableFileError as error:
                warnings.warn(f"{error}; rebuilding it", RuntimeWarning, stacklevel=2)
        table = cls.build(unicycle, seek, grid, progress=progress)
        try:
            table.save(path)
            table.source = str(path)
        except OSError as error:
            warnings.warn(
                f"could not write the eta table to {path}: {error}", RuntimeWarning, stacklevel=2
            )
        return table

    @staticmethod
    def cache_path(
        unicycle: UnicycleParams | None = None,
        seek: SeekParams | None = None,
        cache_dir: str | Path | None = None,
        *,
        grid: TableGrid | None = None,
    ) -> Path:
        """Where ``load_or_build`` keeps the table of these parameters."""
        key = table_key(unicycle, seek, grid)
        directory = default_cache_dir() if cache_dir is None else Path(cache_dir)
        return directory / f"eta-{key[:24]}.npz"

    # -- queries ----------------------------------------------------------------------------

    @property
    def shape(self) -> tuple[int, ...]:
        return self.grid.shape

    @property
    def size(self) -> int:
        return self.grid.size

    @property
    def d_eta(self) -> float:
        """The seed's ``D_eta``: the first sampled distance [u]."""
        return self.grid.distance_min

    def axes(self) -> dict[str, np.ndarray]:
        """The sampled values of each axis (copies): distance [u], alpha [rad], angular
        (fraction of the allowed angular speed), speed [u/s], desired [u/s]."""
        return {name: values.copy() for name, values in self._axes.items()}

    @property
    def eta_values(self) -> np.ndarray:
        """Eta [rad] per entry, NaN where unreachable."""
        return np.where(self.reachable, self.value, np.nan)

    @property
    def stored_speed(self) -> np.ndarray:
        """The stored desired speed [u/s] per entry, NaN where reachable."""
        return np.where(self.reachable, np.nan, self.value)

    def _read(self, kernel, distance, alpha, angular_speed, speed, desired_speed):
        """``kernel`` (``_interpolate_eta``, ``_nearest_entry``) at the query of ``eta``,
        checked."""
        distance = check_positive("distance", distance, per_agent=False)
        alpha = check_finite("alpha", alpha, per_agent=False)
        angular_speed = check_finite("angular_speed", angular_speed, per_agent=False)
        speed = check_finite("speed", speed, per_agent=False)
        if speed < 0.0:
            raise ValueError(f"speed must be >= 0, got {speed!r}")
        desired_speed = check_finite("desired_speed", desired_speed, per_agent=False)
        fraction = _angular_fraction(speed, angular_speed, self.data)
        return kernel(self.data, distance, alpha, fraction, speed, desired_speed)

    def eta(self, distance, alpha, angular_speed, speed, desired_speed) -> tuple[float, float]:
        """Interpolated eta [rad] and the weight of the reachable corners (0: unknown, eta 0) of a
        target at ``distance`` [u] and radial angle ``alpha`` [rad] from a unicycle turning at
        ``angular_speed`` [rad/s], moving at ``speed`` [u/s] and seeking at ``desired_speed``
        [u/s]; ``steerlab.funnel.interpolate`` gives the rule."""
        query = (distance, alpha, angular_speed, speed, desired_speed)
        eta, known = self._read(_interpolate_eta, *query)
        return float(eta), float(known)

    def entry(self, distance, alpha, angular_speed, speed, desired_speed) -> tuple[bool, float]:
        """The nearest entry to the query of ``eta``: ``(reachable, eta or stored desired
        speed)``."""
        query = (distance, alpha, angular_speed, speed, desired_speed)
        reachable, value = self._read(_nearest_entry, *query)
        return bool(reachable), float(value)

    def __repr__(self) -> str:
        share = float(self.reachable.mean())
        return (
            f"EtaTable({self.size} entries, {share:.1%} reachable, key {self.key[:16]}, "
            f"source {self.source})"
        )


def _run_with_progress(arguments, outcome, progress) -> None:
    failure: list[BaseException] = []

    def work():
        try:
            _build_batch(*arguments)
        except BaseException as error:  # re-raised in the caller's thread
            failure.append(error)

    worker = threading.Thread(target=work, name="steerlab-eta-table", daemon=True)
    worker.start()
    total = outcome.size
    while worker.is_alive():
        worker.join(0.1)
        progress(int(np.count_nonzero(outcome >= 0)), total)
    if failure:
        raise failure[0]
    progress(total, total)


def _digest(reachable: np.ndarray, value: np.ndarray, outcome: np.ndarray) -> str:
    digest = hashlib.sha256()
    for array in (reachable.view(np.uint8), value, outcome):
        digest.update(np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()


def _from_exact(record_type, fields: dict[str, Any]):
    values = {}
    for name in record_type._fields:
        raw = fields[name]
        values[name] = float.fromhex(raw) if isinstance(raw, str) else int(raw)
    return record_type(**values)


def _read(path: Path) -> EtaTable:
    """Load and check a table file; every failure is a ``TableFileError`` naming the file."""
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {name: archive[name] for name in ("meta", "reachable", "value", "outcome")}
    except FileNotFoundError:
        raise TableFileError(f"{path}: no such table file") from None
    except Exception as error:  # zip, npy header, missing member, truncated data ...
        raise TableFileError(f"{path}: corrupted table file ({error})") from None
    try:
        meta = json.loads(str(arrays["meta"]))
        if meta.get("format") != FORMAT:
            raise TableFileError(f"{path}: format {meta.get('format')!r}, expected {FORMAT!r}")
        unicycle = _from_exact(UnicycleParams, meta["unicycle"]).validated()
        seek = _from_exact(SeekParams, meta["seek"]).validated()
        grid = _from_exact(TableGrid, meta["grid"]).validated()
    except TableFileError:
        raise
    except Exception as error:
        raise TableFileError(f"{path}: unreadable table metadata ({error})") from None
    key = table_key(unicycle, seek, grid)
    if meta.get("key") != key:
        raise TableFileError(f"{path}: the stored key does not match the stored parameters")
    reachable, value, outcome = arrays["reachable"], arrays["value"], arrays["outcome"]
    for name, array, dtype in (
        ("reachable", reachable, np.uint8),
        ("value", value, np.float64),
        ("outcome", outcome, np.int8),
    ):
        if array.shape != grid.shape or array.dtype != dtype:
            raise TableFileError(
                f"{path}: {name} has shape {array.shape} and dtype {array.dtype}, expected "
                f"{grid.shape} and {np.dtype(dtype)}"
            )
    if _digest(reachable, value, outcome) != meta.get("sha256"):
        raise TableFileError(f"{path}: checksum mismatch (the entries were altered or damaged)")
    reached = reachable.astype(np.bool_)
    if not np.isfinite(value).all() or not np.isin(reachable, (0, 1)).all():
        raise TableFileError(f"{path}: non-finite or malformed entries")
    if (reached != (outcome == REACHED)).any():
        raise TableFileError(f"{path}: reachability disagrees with the recorded outcomes")
    eta_bound = seek.orbit_turn + math.pi
    speeds = value[~reached]
    if (np.abs(value[reached]) > eta_bound).any() or (speeds < 0.0).any():
        raise TableFileError(f"{path}: entries out of range")
    if (speeds > unicycle.speed_max * (1.0 + 1e-12)).any():
        raise TableFileError(f"{path}: stored speeds above speed_max")
    table = EtaTable(
        unicycle,
        seek,
        grid,
        reached,
        value,
        outcome,
        build_seconds=float(meta.get("build_seconds", math.nan)),
        source=str(path),
    )
    return table
