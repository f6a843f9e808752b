"""Seek mode (seed 003, Section 3): the two controllers, a seek run, orbit detection.

Seed 003 drives the unicycle (``steerlab.engines.unicycle``) with two controllers:

- "The angular speed controller drives the scalar angular acceleration aiming to align the
  forward direction with the heading direction ... The acceleration is proportional to the
  direction error alpha; a damping term smoothens high frequency variations":
  ``angular_accel = k_angle alpha - k_damping omega_c``, bounded by the plant's
  ``angular_accel_max``. In seek mode the heading direction is the radial direction (towards the
  target), so alpha is the target's bearing from the forward direction.
- "The forward speed controller has an implicit lower priority ... it controls the scalar forward
  acceleration aiming to achieve the desired forward speed v_d. This objective is relaxed
  automatically to a lower value v_dr so that the normal acceleration remains under a maximum
  value A": ``v_dr = min(v_d, A / |omega_c|)`` (the seed writes ``A / omega_c``: its magnitude),
  ``accel = (v_dr - v_c) / tau_speed``, bounded by ``accel_max``. The gain ``1 / tau_speed`` is
  capped at ``1 / dt`` (a larger one overshoots ``v_dr`` within one Euler step).

**Orbit.** "One limitation of such a control architecture, especially when used with a simple
Euler integration scheme, is the possibility to converge to an infinite orbital trajectory around
the target position. In such a case we consider the target as being unreachable." Detected here
by the rotation of the radial direction (entity to target), unwrapped, since the start: circling
the target turns it by a full turn, reaching it does not (a long turn on the spot toward a target
far behind turns the *heading* by a full turn, not the radial direction: the heading is the
wrong measure). A run is an orbit once ``|rotation| > orbit_turn`` (default ``2 pi``: the target
has been circled once). ``SeekController`` reports it (``orbiting``), ``_seek_run`` stops on it.

**Eta** (Figure 1c): "the angle made between the initial and the final radial direction". The
final radial direction is read as the direction of motion on arrival (the radial direction's
limit as the target is reached head on; seek drives alpha to 0), so eta = the heading on arrival
minus the initial radial direction, unwrapped: a loop around a target behind the entity gives
|eta| above pi.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np

from steerlab._checks import check_finite, check_positive, check_timestep
from steerlab._jit import batch_kernel, cached_entry, kernel
from steerlab._per_agent import agent_params, check_agent_count, check_shared, per_agent_size
from steerlab.engines.unicycle import (
    UnicycleBatch,
    UnicycleCommand,
    UnicycleParams,
    UnicycleState,
    _unicycle_step,
    check_unicycle_state,
)
from steerlab.funnel.interpolate import (
    TableData,
    _angular_fraction,
    _nearest_entry,
    empty_table_data,
)
from steerlab.geometry.kernels import atan2, closest_on_segment, sincos, wrap_pi
from steerlab.laws._common import (
    Target,
    check_points,
    check_targets_and_params,
    columns,
    pick,
)

__all__ = [
    "ORBIT",
    "REACHED",
    "TIMEOUT",
    "SeekBatchOutput",
    "SeekController",
    "SeekControllerParams",
    "SeekData",
    "SeekMemory",
    "SeekParams",
    "seek_run",
]

REACHED, ORBIT, TIMEOUT = 0, 1, 2  # outcomes of a seek run (_seek_run)


class SeekParams(NamedTuple):
    """Gains of the seek controllers (seed 003, Section 3) and the orbit threshold.

    The seed gives no values. Linearised, the angular loop is ``alpha'' + k_damping alpha' +
    k_angle alpha = 0``: the defaults (natural frequency 4 rad/s, damping ratio 1) are assumed,
    a brisk response for the default unicycle without overshoot.

    Each field is a number, or in a batch without a table one value per entity (a 1-D sequence;
    ``SeekControllerParams``).
    """

    k_angle: float = 16.0  # [1/s^2] angular acceleration per radian of direction error; assumed
    k_damping: float = 8.0  # [1/s] angular acceleration per rad/s of angular speed; assumed
    tau_speed: float = 0.5  # [s] time constant of the forward speed controller; assumed
    orbit_turn: float = 2.0 * math.pi  # [rad] radial-direction rotation marking an orbit

    def validated(self) -> SeekParams:
        """Return the parameters as floats; ``ValueError`` naming the first bad one (all > 0)."""
        values = self._asdict().items()
        return SeekParams(*(check_positive(name, value) for name, value in values))


class SeekControllerParams(NamedTuple):
    """Everything a ``SeekController`` is set with: ``v_d``, the plant's bounds, the gains.

    Any field (``unicycle`` and ``seek`` field by field) may hold one value per entity, for
    ``step_batch``; with an ``EtaTable`` only ``desired_speed`` may: the table is keyed by the
    plant and the gains, which must then be the table's (``SeekController``).
    """

    desired_speed: float = math.inf  # [u/s] v_d in (0, speed_max]; inf: the plant's speed_max
    unicycle: UnicycleParams = UnicycleParams()  # the plant's bounds (limits of the controllers)
    seek: SeekParams = SeekParams()  # the controllers' gains

    def validated(self) -> SeekControllerParams:
        """The record with checked fields and ``desired_speed`` resolved (``inf``: ``speed_max``);
        ``ValueError`` naming the first bad field."""
        for name, record in (("unicycle", UnicycleParams), ("seek", SeekParams)):
            if not isinstance(getattr(self, name), record):
                raise ValueError(f"{name} must be a {record.__name__}, got {getattr(self, name)!r}")
        unicycle = self.unicycle.validated()
        seek = self.seek.validated()
        desired = check_positive("desired_speed", self.desired_speed, allow_inf=True)
        per_agent_size(SeekControllerParams(desired, unicycle, seek))  # one count of entities
        desired = resolve_inf(desired, unicycle.speed_max)
        check_at_most("desired_speed", desired, "speed_max", unicycle.speed_max)
        return SeekControllerParams(desired, unicycle, seek)


def resolve_inf(value, default):
    """``value``, with ``inf`` (a record's stand-in for a default) replaced by ``default``; a
    read-only array where either holds one value per entity."""
    if not isinstance(value, np.ndarray) and not isinstance(default, np.ndarray):
        return default if value == math.inf else value
    resolved = np.where(np.isinf(value), default, value)
    resolved.setflags(write=False)
    return resolved


def check_at_most(name, value, bound_name, bound):
    """``ValueError`` where ``value > bound`` (each a number or one per entity), naming the
    first such entity."""
    values, bounds = np.broadcast_arrays(np.asarray(value, float), np.asarray(bound, float))
    above = np.ravel(values > bounds)
    if above.any():
        k = int(np.argmax(above))
        entry = f"{name}[{k}]" if values.ndim else name
        limit, got = float(np.ravel(bounds)[k]), float(np.ravel(values)[k])
        raise ValueError(f"{entry} must be <= {bound_name} = {limit}, got {got!r}")


@kernel
def _seek_accelerations(state, direction_error, desired_speed, unicycle, seek, dt):
    """Seed 003's two seek controllers: ``(accel, angular_accel)``, both bounded.

    ``state`` a ``UnicycleState`` (its speeds are read), ``direction_error`` [rad] the heading
    direction minus the forward direction (alpha in seek mode), ``desired_speed`` the speed the
    forward controller aims at before its relaxation ``v_dr = min(v_d, A / |omega_c|)``;
    ``unicycle`` the plant's bounds, ``seek`` the gains.
    """
    v = state.v
    w = state.w
    angular = seek.k_angle * direction_error - seek.k_damping * w
    angular = min(max(angular, -unicycle.angular_accel_max), unicycle.angular_accel_max)
    abs_w = abs(w)
    relaxed = (
        min(desired_speed, unicycle.normal_accel_max / abs_w) if abs_w > 0.0 else desired_speed
    )
    gain = min(1.0 / seek.tau_speed, 1.0 / dt)
    accel = (relaxed - v) * gain
    accel = min(max(accel, -unicycle.accel_max), unicycle.accel_max)
    return accel, angular


@kernel
def _target_geometry(x, y, yaw, target_x, target_y):
    """``(D, radial, alpha)``: distance to the target, radial direction (towards it), and alpha
    = radial - forward direction, in ``[-pi, pi)``. On the target: radial 0."""
    dx = target_x - x
    dy = target_y - y
    distance = math.sqrt(dx * dx + dy * dy)
    radial = atan2(dy, dx)
    return distance, radial, wrap_pi(radial - yaw)


_STRAIGHT_ANGLE = 1e-3  # [rad] |alpha| below which a run heads straight at its target
_STRAIGHT_RATE = 1e-3  # [rad/s] |omega| below which it no longer turns


@kernel(inline="never")
def _seek_run(
    distance, alpha, v0, w0, desired_speed, dt, reach_tolerance, time_limit, unicycle, seek
):
    """Pure seek from the origin (heading +x, speeds ``v0``, ``w0``) to a static target at
    ``(D cos alpha, D sin alpha)``, at constant desired speed.

    Returns ``(outcome, eta, time, path_length)``:

    - ``REACHED`` when the segment swept in a frame passes within ``reach_tolerance`` of the
      target; eta = heading on arrival minus the initial radial direction (unwrapped), time and
      length at that frame. A run that heads straight at its target (``|alpha| < 1e-3`` rad and
      ``|omega| < 1e-3`` rad/s, so that its lateral miss is under 0.03 u at 30 u) is reached
      there without simulating the straight line: eta = the heading's rotation so far plus that
      last ``alpha`` (the final direction of motion is the radial one), time and length
      extrapolated (the remaining distance, at the desired speed after a first-order lag);
    - ``ORBIT`` when the radial direction has turned by more than ``seek.orbit_turn`` (the
      target circled);
    - ``TIMEOUT`` at ``time_limit`` (or when the extrapolated arrival is later).
    """
    sin_a, cos_a = sincos(alpha)
    target_x = distance * cos_a
    target_y = distance * sin_a
    x = 0.0
    y = 0.0
    yaw = 0.0
    v = v0
    w = w0
    turn = -alpha  # heading minus the initial radial direction, unwrapped
    radial_turn = 0.0  # radial direction minus the initial one, unwrapped
    previous_radial = alpha
    time = 0.0
    length = 0.0
    steps = math.ceil(time_limit / dt)
    for _ in range(steps):
        remaining, radial, bearing = _target_geometry(x, y, yaw, target_x, target_y)
        radial_turn += wrap_pi(radial - previous_radial)
        previous_radial = radial
        if abs(radial_turn) > seek.orbit_turn:
            return ORBIT, turn, time, length
        if abs(bearing) < _STRAIGHT_ANGLE and abs(w) < _STRAIGHT_RATE:
            lag = max(desired_speed - v, 0.0) * max(seek.tau_speed, dt) / desired_speed
            time += remaining / desired_speed + lag
            length += remaining
            outcome = REACHED if time <= time_limit else TIMEOUT
            return outcome, turn + bearing, time, length
        state = UnicycleState(x, y, yaw, v, w)
        accel, angular = _seek_accelerations(state, bearing, desired_speed, unicycle, seek, dt)
        x1, y1, yaw, v, w = _unicycle_step(state, UnicycleCommand(accel, angular), unicycle, dt)
        turn += w * dt
        time += dt
        length += v * dt
        _, _, swept = closest_on_segment(x, y, x1, y1, target_x, target_y)  # no tunnelling
        if swept <= reach_tolerance:
            return REACHED, turn, time, length
        x = x1
        y = y1
    return TIMEOUT, turn, time, length


def seek_run(
    distance: float,
    alpha: float,
    speed: float,
    angular_speed: float,
    desired_speed: float,
    *,
    unicycle: UnicycleParams | None = None,
    seek: SeekParams | None = None,
    dt: float = 0.02,
    reach_tolerance: float = 0.1,
    time_limit: float | None = None,
) -> tuple[int, float, float, float]:
    """One pure seek run (as the table's build runs it): ``(outcome, eta, time, path_length)``.

    ``outcome`` is ``REACHED``, ``ORBIT`` or ``TIMEOUT``; ``time_limit`` defaults to the table's
    ``2 D / v_d + 10 s``.
    """
    unicycle = (UnicycleParams() if unicycle is None else unicycle).validated()
    seek = (SeekParams() if seek is None else seek).validated()
    check_shared(unicycle, "seek_run")
    check_shared(seek, "seek_run")
    distance = check_positive("distance", distance)
    alpha = check_finite("alpha", alpha)
    speed = check_finite("speed", speed)
    if not 0.0 <= speed <= unicycle.speed_max:
        raise ValueError(f"speed must be in [0, speed_max = {unicycle.speed_max}], got {speed!r}")
    angular_speed = check_finite("angular_speed", angular_speed)
    desired_speed = check_positive("desired_speed", desired_speed)
    dt = check_timestep(dt)
    reach_tolerance = check_positive("reach_tolerance", reach_tolerance)
    if time_limit is None:
        time_limit = 2.0 * distance / desired_speed + 10.0
    time_limit = check_positive("time_limit", time_limit)
    outcome, eta, time, length = _seek_run(
        distance,
        alpha,
        speed,
        angular_speed,
        desired_speed,
        dt,
        reach_tolerance,
        time_limit,
        unicycle,
        seek,
    )
    return int(outcome), float(eta), float(time), float(length)


@kernel
def _relaxed_speed(table, distance, alpha, v, w, desired_speed, unicycle):
    """The desired speed after the table's relaxation (seed 003, Section 3): "at each time step,
    the desired forward speed is replaced by the value stored in the table whenever the target,
    expressed in local coordinates, appears as unreachable" (the nearest entry).

    Closer than ``D_eta`` the table has no ring (the nearest entries are the first ring's) and
    seek, measured, settles on orbits of radius ``v_d_min / omega_max`` around close side
    targets. There the speed is also capped by the geometric core of reachability: the tightest
    turn at that speed, ``max(v / omega_max, v^2 / A)``, must fit the circle through the target
    tangent to the forward direction, of radius ``r = D / (2 |sin alpha|)``: ``v <= min(omega_max
    r, sqrt(A r))``. A departure (the seed is silent inside ``D_eta``).
    """
    fraction = _angular_fraction(v, w, table)
    reachable, stored = _nearest_entry(table, distance, alpha, fraction, v, desired_speed)
    speed = desired_speed if reachable else stored
    sin_alpha, _ = sincos(alpha)
    radius = 0.5 * distance / max(abs(sin_alpha), 1e-12)
    cap = min(unicycle.angular_speed_max * radius, math.sqrt(unicycle.normal_accel_max * radius))
    return min(speed, cap) if distance < table.distances[0] else speed


class SeekMemory(NamedTuple):
    """What ``SeekController`` remembers between frames (orbit detection): numbers for one
    entity, one array per field in a batch."""

    turn: float = 0.0  # [rad] rotation of the radial direction since the first frame, unwrapped
    previous_radial: float = 0.0  # [rad] the radial direction of the previous frame
    started: bool = False
    orbiting: bool = False  # latched once |turn| > orbit_turn

    @classmethod
    def arrays(cls, size: int) -> SeekMemory:
        """A fresh memory for ``size`` entities, one array per field."""
        flags = np.zeros(size, np.bool_)
        return cls(np.zeros(size), np.zeros(size), flags, flags.copy())


class SeekData(NamedTuple):
    """What a seek controller steers to and reads (read-only): the target, the table."""

    target: Target  # [u] the position to reach
    table: TableData  # the T_eta table (a placeholder, never read, when use_table is False)
    use_table: bool  # the table's speed relaxation (seed 003, Section 3)


@kernel
def _seek_command(state, memory, params, data, dt):
    """Seek mode for one frame, with orbit detection and (``data.use_table``) the table's speed
    relaxation: ``(accel, angular_accel, turn, radial, orbiting)``, the command and the new
    ``SeekMemory`` fields but ``started``; ``turn`` is the radial direction's rotation since the
    first frame (unwrapped), the orbit test of ``_seek_run``.

    ``state`` a ``UnicycleState``, ``memory`` a ``SeekMemory``, ``params`` a
    ``SeekControllerParams`` (numbers), ``data`` a ``SeekData``. Speed relaxation:
    ``_relaxed_speed``.
    """
    distance, radial, alpha = _target_geometry(
        state.x, state.y, state.yaw, data.target.x, data.target.y
    )
    started = memory.started
    turn = memory.turn + wrap_pi(radial - memory.previous_radial) if started else 0.0
    orbiting = memory.orbiting | (abs(turn) > params.seek.orbit_turn)
    speed_target = params.desired_speed
    if data.use_table:
        speed_target = _relaxed_speed(
            data.table, distance, alpha, state.v, state.w, speed_target, params.unicycle
        )
    accel, angular_accel = _seek_accelerations(
        state, alpha, speed_target, params.unicycle, params.seek, dt
    )
    return accel, angular_accel, turn, radial, orbiting


@kernel
def unicycle_at(state, i):
    """Entity ``i``'s ``UnicycleState`` in a ``UnicycleState`` of arrays (a batch's)."""
    return UnicycleState(state.x[i], state.y[i], state.yaw[i], state.v[i], state.w[i])


@batch_kernel
def _seek_batch(state, memory, desired_speed, unicycle, seek, target, table, use_table, dt, out):
    """``_seek_command`` for every entity ``i``, with its own parameters (``agent_params``):
    ``state`` a ``UnicycleState`` and ``memory`` a ``SeekMemory`` of arrays (updated in place),
    ``target`` a ``Target`` of arrays (one point, or one per entity), ``out`` a
    ``SeekBatchOutput``. The records of parameters and data are passed one level deep and
    assembled per entity (the parallel build refuses a record of records of arrays as an
    argument); the arrays written are taken out of their records before the loop (the parallel
    build loses writes made in its body through a record's array: numba issue #7135)."""
    turn = memory.turn
    previous_radial = memory.previous_radial
    started = memory.started
    orbiting = memory.orbiting
    accel = out.accel
    angular_accel = out.angular_accel
    for i in numba.prange(state.x.size):
        accel[i], angular_accel[i], turn[i], previous_radial[i], orbiting[i] = _seek_command(
            unicycle_at(state, i),
            SeekMemory(turn[i], previous_radial[i], started[i], orbiting[i]),
            agent_params(SeekControllerParams(desired_speed, unicycle, seek), i),
            SeekData(Target(pick(target.x, i), pick(target.y, i)), table, use_table),
            dt,
        )
        started[i] = True


class SeekBatchOutput(NamedTuple):
    """Reusable output arrays of ``step_batch``: accelerations per entity."""

    accel: np.ndarray  # [u/s^2]
    angular_accel: np.ndarray  # [rad/s^2]

    @classmethod
    def empty(cls, size: int) -> SeekBatchOutput:
        return cls(np.empty(size), np.empty(size))

    @classmethod
    def ensure(cls, out: SeekBatchOutput | None, size: int) -> SeekBatchOutput:
        return reuse_output(cls, out, size)


def check_batch(batch, dt, entities: int, what: str, params) -> float:
    """The checks of a ``step_batch``: ``batch`` a ``UnicycleBatch`` of as many entities as the
    controller holds targets for (``entities``, described by ``what``; one serves any batch) and
    as its per-entity record ``params`` holds values; returns ``dt`` checked."""
    if not isinstance(batch, UnicycleBatch):
        raise ValueError(f"batch must be a UnicycleBatch, got {batch!r}")
    if entities not in (1, batch.size):
        raise ValueError(f"{what} for {entities} entities but the batch has {batch.size}")
    check_agent_count(params, batch.size)
    return check_timestep(dt)


def reuse_output(cls, out, size: int):
    """``out`` when it is a ``cls`` (a record of output arrays) of ``size`` entries, a fresh
    ``cls.empty(size)`` when it is ``None``; ``ValueError`` otherwise."""
    if out is None:
        return cls.empty(size)
    if not isinstance(out, cls) or out.accel.size != size:
        raise ValueError(f"out must be a {cls.__name__} of size {size}, got {out!r}")
    return out


class SeekController:
    """Seed 003's seek mode: steer the unicycle towards a position (no orientation).

    Parameters
    ----------
    target : (x, y), or an (n, 2) array (one per entity, for ``step_batch``)
    desired_speed : float or None
        ``v_d`` [u/s], in ``(0, speed_max]``; ``None``: the plant's ``speed_max``.
    unicycle, seek : the plant's bounds and the controllers' gains (defaults if ``None``); with
        a ``table`` they come from the table (passing different ones is a ``ValueError``).
    table : EtaTable or None
        With a table, the desired speed is replaced by the stored one whenever the nearest entry
        is unreachable (seed 003, Section 3: "the seek mode capable of adjusting the desired speed
        so that the target becomes reachable in all cases"). One table serves every entity.

    Notes
    -----
    ``SeekController.from_params(target, SeekControllerParams(...), table=None)`` builds the
    controller from its record, in which any field may hold one value per entity (for
    ``step_batch``); with a table only ``desired_speed`` may (the table is keyed by the plant and
    the gains). ``orbiting`` (scalar) and ``batch_orbiting`` report the detected orbit (module
    docstring).
    """

    def __init__(
        self,
        target,
        desired_speed: float | None = None,
        *,
        unicycle: UnicycleParams | None = None,
        seek: SeekParams | None = None,
        table=None,
    ):
        if table is not None:
            unicycle = table.unicycle if unicycle is None else unicycle
            seek = table.seek if seek is None else seek
        params = SeekControllerParams(
            math.inf if desired_speed is None else desired_speed,
            UnicycleParams() if unicycle is None else unicycle,
            SeekParams() if seek is None else seek,
        )
        self._setup(target, params, table)

    @classmethod
    def from_params(cls, target, params: SeekControllerParams, table=None) -> SeekController:
        """The controller towards ``target`` with the record ``params`` (fields may be per
        entity; with a ``table``, only ``desired_speed``)."""
        if not isinstance(params, SeekControllerParams):
            raise ValueError(f"params must be a SeekControllerParams, got {params!r}")
        controller = cls.__new__(cls)
        controller._setup(target, params, table)
        return controller

    def _setup(self, target, params: SeekControllerParams, table) -> None:
        if table is not None:
            for name in ("unicycle", "seek"):
                _check_table_field(name, getattr(params, name), getattr(table, name))
        self.params = params.validated()
        # the record's fields as attributes (values per entity: read-only arrays)
        self.desired_speed, self.unicycle, self.seek = self.params
        self._points = check_points("target", target)
        self.agents = check_targets_and_params("target", self._points, self.params)
        self._target = Target(*columns(self._points))
        self._single = Target(*(float(value) for value in self._points[0]))
        self.table = table
        self._data = SeekData(
            self._single,
            table.data if table is not None else empty_table_data(),
            table is not None,
        )
        self.memory = SeekMemory()
        self._batch_memory: SeekMemory | None = None
        self._entry = None  # the scalar step's compiled entry point (steerlab._jit.cached_entry)

    @property
    def orbiting(self) -> bool:
        """Whether the scalar run has been detected orbiting its target."""
        return self.memory.orbiting

    @property
    def batch_orbiting(self) -> np.ndarray | None:
        """Per-entity orbit flags of the batch (``None`` before the first ``step_batch``)."""
        return None if self._batch_memory is None else self._batch_memory.orbiting

    def step(self, state: UnicycleState, dt: float) -> UnicycleCommand:
        """The accelerations for this frame (updates the orbit detection)."""
        if self._points.shape[0] != 1:
            raise ValueError("target holds one point per entity: use step_batch")
        if self.agents is not None:
            check_shared(self.params, "SeekController.step")
        state = check_unicycle_state(state)
        dt = check_timestep(dt)
        arguments = (state, self.memory, self.params, self._data, dt)
        self._entry = cached_entry(self._entry, _seek_command, arguments)
        accel, angular, turn, previous_radial, orbiting = self._entry[1](*arguments)
        self.memory = SeekMemory(float(turn), float(previous_radial), True, bool(orbiting))
        return UnicycleCommand(float(accel), float(angular))

    def step_batch(
        self, batch: UnicycleBatch, dt: float, out: SeekBatchOutput | None = None
    ) -> SeekBatchOutput:
        """Accelerations for every entity of ``batch`` (``out`` reused when given)."""
        dt = check_batch(batch, dt, self._points.shape[0], "target holds points", self.params)
        out = SeekBatchOutput.ensure(out, batch.size)
        memory = self._batch_memory
        if memory is None or memory.turn.size != batch.size:
            memory = self._batch_memory = SeekMemory.arrays(batch.size)
        p = self.params
        _seek_batch(
            UnicycleState(*batch.fields()),
            memory,
            p.desired_speed,
            p.unicycle,
            p.seek,
            self._target,
            self._data.table,
            self._data.use_table,
            dt,
            out,
        )
        return out

    def reset(self) -> None:
        """Forget the orbit detection (scalar and batch)."""
        self.memory = SeekMemory()
        self._batch_memory = None

    def __repr__(self) -> str:
        desired = self.desired_speed
        desired = desired.tolist() if isinstance(desired, np.ndarray) else desired
        return (
            f"SeekController(target={self._points.tolist()}, desired_speed={desired}, "
            f"table={'yes' if self.table is not None else 'no'})"
        )


def check_table_record(name: str, record) -> None:
    """``ValueError`` naming the first field of ``record`` (the plant's bounds or the gains) that
    holds one value per entity: the T_eta table is keyed by them, one value each."""
    for field, value in zip(record._fields, record, strict=True):
        if np.ndim(value) != 0:
            raise ValueError(
                f"{name}.{field} must be one value: the T_eta table is keyed by it (one table "
                f"serves every entity; only desired_speed may be per entity), got {value!r}"
            )


def _check_table_field(name, given, expected):
    """With a table, the plant's bounds and the gains are the table's."""
    if not isinstance(given, type(expected)):
        raise ValueError(f"{name} must be a {type(expected).__name__}, got {given!r}")
    check_table_record(name, given)
    if given.validated() != expected:
        raise ValueError(f"{name} parameters differ from the table's ({given!r} vs {expected!r})")
