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
from steerlab._jit import batch_kernel, kernel
from steerlab.engines.unicycle import (
    UnicycleBatch,
    UnicycleCommand,
    UnicycleParams,
    UnicycleState,
    _unicycle_step,
    check_unicycle_state,
)
from steerlab.funnel.interpolate import (
    _angular_fraction,
    _nearest_entry,
    empty_table_data,
)
from steerlab.geometry.kernels import atan2, closest_on_segment, sincos, wrap_pi
from steerlab.laws._common import check_points, columns, pick

__all__ = [
    "ORBIT",
    "REACHED",
    "TIMEOUT",
    "SeekBatchOutput",
    "SeekController",
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
    """

    k_angle: float = 16.0  # [1/s^2] angular acceleration per radian of direction error; assumed
    k_damping: float = 8.0  # [1/s] angular acceleration per rad/s of angular speed; assumed
    tau_speed: float = 0.5  # [s] time constant of the forward speed controller; assumed
    orbit_turn: float = 2.0 * math.pi  # [rad] radial-direction rotation marking an orbit

    def validated(self) -> SeekParams:
        """Return the parameters as floats; ``ValueError`` naming the first bad one (all > 0)."""
        values = self._asdict().items()
        return SeekParams(*(check_positive(name, value) for name, value in values))


@kernel
def _seek_accelerations(v, w, direction_error, desired_speed, dt, unicycle, seek):
    """Seed 003's two seek controllers: ``(accel, angular_accel)``, both bounded.

    ``direction_error`` [rad] is the heading direction minus the forward direction (alpha in
    seek mode), ``desired_speed`` the speed the forward controller aims at before its relaxation
    ``v_dr = min(v_d, A / |omega_c|)``.
    """
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
        accel, angular = _seek_accelerations(v, w, bearing, desired_speed, dt, unicycle, seek)
        x1, y1, yaw, v, w = _unicycle_step(
            UnicycleState(x, y, yaw, v, w), UnicycleCommand(accel, angular), unicycle, dt
        )
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


@kernel
def _seek_command(
    x,
    y,
    yaw,
    v,
    w,
    target_x,
    target_y,
    desired_speed,
    turn,
    previous_radial,
    started,
    orbiting,
    dt,
    unicycle,
    seek,
    table,
    use_table,
):
    """Seek mode for one frame, with orbit detection and (``use_table``) the table's speed
    relaxation: ``(accel, angular_accel, turn, radial, orbiting)``; ``turn`` is the radial
    direction's rotation since the first frame (unwrapped), the orbit test of ``_seek_run``.

    Speed relaxation: ``_relaxed_speed``.
    """
    distance, radial, alpha = _target_geometry(x, y, yaw, target_x, target_y)
    turn = turn + wrap_pi(radial - previous_radial) if started else 0.0
    orbiting = orbiting | (abs(turn) > seek.orbit_turn)
    speed_target = desired_speed
    if use_table:
        speed_target = _relaxed_speed(table, distance, alpha, v, w, desired_speed, unicycle)
    accel, angular_accel = _seek_accelerations(v, w, alpha, speed_target, dt, unicycle, seek)
    return accel, angular_accel, turn, radial, orbiting


@batch_kernel
def _seek_batch(
    x,
    y,
    yaw,
    v,
    w,
    target_x,
    target_y,
    desired_speed,
    turn,
    previous_radial,
    started,
    orbiting,
    dt,
    unicycle,
    seek,
    table,
    use_table,
    out_accel,
    out_angular,
):
    for i in numba.prange(x.size):
        out_accel[i], out_angular[i], turn[i], previous_radial[i], orbiting[i] = _seek_command(
            x[i],
            y[i],
            yaw[i],
            v[i],
            w[i],
            pick(target_x, i),
            pick(target_y, i),
            desired_speed,
            turn[i],
            previous_radial[i],
            started[i],
            orbiting[i],
            dt,
            unicycle,
            seek,
            table,
            use_table,
        )
        started[i] = True


class SeekMemory(NamedTuple):
    """What ``SeekController`` remembers between frames (orbit detection)."""

    turn: float = 0.0  # [rad] rotation of the radial direction since the first frame, unwrapped
    previous_radial: float = 0.0  # [rad] the radial direction of the previous frame
    started: bool = False
    orbiting: bool = False  # latched once |turn| > orbit_turn


class SeekBatchOutput:
    """Reusable output arrays of ``step_batch``: accelerations per entity."""

    __slots__ = ("accel", "angular_accel")

    def __init__(self, size: int):
        self.accel = np.empty(size)
        self.angular_accel = np.empty(size)

    @classmethod
    def ensure(cls, out, size: int):
        if out is None:
            return cls(size)
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
        so that the target becomes reachable in all cases").

    ``orbiting`` (scalar) and ``batch_orbiting`` report the detected orbit (module docstring).
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
            unicycle = _same("unicycle", unicycle, table.unicycle)
            seek = _same("seek", seek, table.seek)
        self.unicycle = (UnicycleParams() if unicycle is None else unicycle).validated()
        self.seek = (SeekParams() if seek is None else seek).validated()
        self._points = check_points("target", target)
        if desired_speed is None:
            desired_speed = self.unicycle.speed_max
        self.desired_speed = check_positive("desired_speed", desired_speed)
        if self.desired_speed > self.unicycle.speed_max:
            raise ValueError(
                f"desired_speed must be <= speed_max = {self.unicycle.speed_max}, "
                f"got {desired_speed!r}"
            )
        self.table = table
        self._data = table.data if table is not None else empty_table_data()
        self.memory = SeekMemory()
        self._batch: tuple[np.ndarray, ...] | None = None

    @property
    def orbiting(self) -> bool:
        """Whether the scalar run has been detected orbiting its target."""
        return self.memory.orbiting

    @property
    def batch_orbiting(self) -> np.ndarray | None:
        """Per-entity orbit flags of the batch (``None`` before the first ``step_batch``)."""
        return None if self._batch is None else self._batch[3]

    def step(self, state: UnicycleState, dt: float) -> UnicycleCommand:
        """The accelerations for this frame (updates the orbit detection)."""
        if self._points.shape[0] != 1:
            raise ValueError("target holds one point per entity: use step_batch")
        state = check_unicycle_state(state)
        dt = check_timestep(dt)
        m = self.memory
        accel, angular, turn, previous_radial, orbiting = _seek_command(
            *state,
            float(self._points[0, 0]),
            float(self._points[0, 1]),
            self.desired_speed,
            m.turn,
            m.previous_radial,
            m.started,
            m.orbiting,
            dt,
            self.unicycle,
            self.seek,
            self._data,
            self.table is not None,
        )
        self.memory = SeekMemory(float(turn), float(previous_radial), True, bool(orbiting))
        return UnicycleCommand(float(accel), float(angular))

    def step_batch(
        self, batch: UnicycleBatch, dt: float, out: SeekBatchOutput | None = None
    ) -> SeekBatchOutput:
        """Accelerations for every entity of ``batch`` (``out`` reused when given)."""
        if not isinstance(batch, UnicycleBatch):
            raise ValueError(f"batch must be a UnicycleBatch, got {batch!r}")
        if self._points.shape[0] not in (1, batch.size):
            raise ValueError(
                f"target holds {self._points.shape[0]} points but the batch has {batch.size}"
            )
        dt = check_timestep(dt)
        out = SeekBatchOutput.ensure(out, batch.size)
        if self._batch is None or self._batch[0].size != batch.size:
            size = batch.size
            self._batch = (
                np.zeros(size),
                np.zeros(size),
                np.zeros(size, np.bool_),
                np.zeros(size, np.bool_),
            )
        turn, previous_radial, started, orbiting = self._batch
        target_x, target_y = columns(self._points)
        _seek_batch(
            *batch.fields(),
            target_x,
            target_y,
            self.desired_speed,
            turn,
            previous_radial,
            started,
            orbiting,
            dt,
            self.unicycle,
            self.seek,
            self._data,
            self.table is not None,
            out.accel,
            out.angular_accel,
        )
        return out

    def reset(self) -> None:
        """Forget the orbit detection (scalar and batch)."""
        self.memory = SeekMemory()
        self._batch = None

    def __repr__(self) -> str:
        return (
            f"SeekController(target={self._points.tolist()}, desired_speed={self.desired_speed}, "
            f"table={'yes' if self.table is not None else 'no'})"
        )


def _same(name, given, expected):
    if given is not None and given.validated() != expected:
        raise ValueError(f"{name} parameters differ from the table's ({given!r} vs {expected!r})")
    return expected
