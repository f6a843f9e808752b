"""``Funnel``: Boulic's funnelling control toward oriented, possibly moving, targets (seed 003).

One update per entity and frame (``_funnel_update``), written once and used by ``Funnel.step``
and, in ``prange``, by ``Funnel.step_batch`` (compiled once and called from both, not inlined:
the same machine code, and a cold compile of seconds instead of a minute):

1. the current target: position ``p0 + velocity t`` (``t`` the time since the funnel started or
   was given its targets: a target "with its own velocity"), direction ``course``;
2. the mode of Figure 5 (``steerlab.funnel.modes``); at ``End_of_Steering`` on a target that has
   a successor, the entity moves on to the next target in the same update (successive targets,
   seed 003 Figure 7) and its mode is evaluated again;
3. per mode, the heading direction and the desired speed fed to the seek controllers:

   - ``Funnelling``: Figure 4 (``steerlab.funnel.funnelling``), the table's speed relaxation
     included;
   - ``Position_only``: seek, heading radial, with the table's speed relaxation (seed 003,
     Section 3; inside ``D_eta``, where the table has no ring, also the geometric cap of
     ``steerlab.funnel.seek._relaxed_speed``);
   - ``Orientation_only``: heading = the target direction, desired speed = the target's speed
     (0 for a static target: the entity turns on the spot);
   - ``End_of_Steering``: no direction error (the damping stops the turn), desired speed = the
     target's speed (a static target: halt; a moving one: keep pace);

4. the seek controllers (``steerlab.funnel.seek``) give the accelerations; the plant
   (``steerlab.engines.unicycle``) is stepped by the caller.

**Departure: halting.** The seed's entities halt on their targets (Figures 6 and 7), but its seek
mode only "aims to achieve a desired forward speed" and nothing in Figures 4 and 5 brakes before
``D_tol``: from 2 u/s at 2 u/s^2 the entity needs 1 u to stop and would leave a 0.25 u disc
before it stops, then seek back (the "last second U-turn" Section 5 wants to avoid). With
``halt=True`` (default) the desired speed toward the *last* target is capped at ``|v_target| +
sqrt(2 b max(D - D_tol / 2, 0))``, ``b = arrival_decel`` (default half the plant's
``accel_max``, a margin for the speed controller's lag): braking at ``b`` stops the entity halfway
into the tolerance disc. The capped speed is also the ``v_d`` of the table lookups (the table
holds eta for lower desired speeds too). Intermediate targets are passed at speed.

**Targets** are rows ``(x, y, course, vx, vy)``: one for every entity, one per entity, or a
sequence per entity (``Funnel.successive``: ragged, concatenated with each entity's last index).
``set_target`` replaces them at any frame (a target that is another entity: give its position and
velocity every frame). The controller itself uses only the current relative position and the
target's speed (for the halting cap and the modes' desired speed): its cost does not depend on the
target's motion (seed 003, Section 1).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numba
import numpy as np

from steerlab._checks import check_finite, check_finite_array, check_positive, check_timestep
from steerlab._jit import batch_kernel, kernel
from steerlab.engines.unicycle import (
    UnicycleBatch,
    UnicycleCommand,
    UnicycleState,
    check_unicycle_state,
)
from steerlab.funnel.funnelling import _funnelling_heading
from steerlab.funnel.modes import (
    END_OF_STEERING,
    FUNNELLING,
    ORIENTATION_ONLY,
    POSITION_ONLY,
    Mode,
    _choose_mode,
)
from steerlab.funnel.seek import _relaxed_speed, _seek_accelerations, _target_geometry
from steerlab.funnel.table import EtaTable
from steerlab.geometry.kernels import wrap_pi
from steerlab.laws._common import pick

__all__ = ["Funnel", "FunnelMemory", "FunnelOutput", "FunnelSettings"]


class FunnelSettings(NamedTuple):
    """A funnel's scalar settings, one kernel argument (validated by ``Funnel``)."""

    desired_speed: float  # [u/s] v_d
    d_tol: float  # [u] position tolerance D_tol (Figure 5)
    eps_tol: float  # [rad] orientation tolerance eps_tol (Figure 5)
    d_eta: float  # [u] the table's first sampled distance D_eta (Figure 5)
    halt: bool  # brake to stop within D_tol of the last target (module docstring)
    arrival_decel: float  # [u/s^2] the braking of the halting cap


@kernel
def _target_at(targets, index, elapsed):
    """Target ``index`` at time ``elapsed``: ``(x, y, course, vx, vy)``."""
    vx = targets[index, 3]
    vy = targets[index, 4]
    return (
        targets[index, 0] + vx * elapsed,
        targets[index, 1] + vy * elapsed,
        targets[index, 2],
        vx,
        vy,
    )


@kernel
def _funnel_command(
    x, y, yaw, v, w, target_x, target_y, course, target_vx, target_vy, is_last, dt, settings,
    unicycle, seek, table
):  # fmt: skip
    """One funnelling update toward one target: ``(accel, angular_accel, mode)`` (module
    docstring, step 3 and 4)."""
    distance, radial, alpha = _target_geometry(x, y, yaw, target_x, target_y)
    error = wrap_pi(course - yaw)  # alpha + eta + delta_eta (steerlab.funnel.modes)
    mode = _choose_mode(distance, error, settings.d_tol, settings.d_eta, settings.eps_tol)
    target_speed = math.sqrt(target_vx * target_vx + target_vy * target_vy)
    cruise = settings.desired_speed
    if settings.halt and is_last:
        room = max(distance - 0.5 * settings.d_tol, 0.0)
        cruise = min(cruise, target_speed + math.sqrt(2.0 * settings.arrival_decel * room))
    heading = yaw  # End_of_Steering: no direction error
    speed = target_speed  # Orientation_only and End_of_Steering
    if mode == FUNNELLING:
        heading, speed, _, _, _, _ = _funnelling_heading(
            table, distance, radial, alpha, v, w, cruise, course
        )
    elif mode == POSITION_ONLY:
        heading = radial
        speed = _relaxed_speed(table, distance, alpha, v, w, cruise, unicycle)
    elif mode == ORIENTATION_ONLY:
        heading = course
    accel, angular_accel = _seek_accelerations(
        v, w, wrap_pi(heading - yaw), speed, dt, unicycle, seek
    )
    return accel, angular_accel, mode


@kernel(inline="never")
def _funnel_update(
    x, y, yaw, v, w, targets, current, last, elapsed, dt, settings, unicycle, seek, table
):
    """The whole update of one entity: ``(accel, angular_accel, mode, current)`` (module
    docstring). ``targets`` is ``(m, 5)``; ``current`` and ``last`` index it."""
    target_x, target_y, course, target_vx, target_vy = _target_at(targets, current, elapsed)
    if current < last:  # successive targets: move on once this one is done (Figure 5's end)
        distance, _, _ = _target_geometry(x, y, yaw, target_x, target_y)
        mode = _choose_mode(
            distance, wrap_pi(course - yaw), settings.d_tol, settings.d_eta, settings.eps_tol
        )
        if mode == END_OF_STEERING:
            current += 1
            target_x, target_y, course, target_vx, target_vy = _target_at(targets, current, elapsed)
    accel, angular_accel, mode = _funnel_command(
        x,
        y,
        yaw,
        v,
        w,
        target_x,
        target_y,
        course,
        target_vx,
        target_vy,
        current == last,
        dt,
        settings,
        unicycle,
        seek,
        table,
    )
    return accel, angular_accel, mode, current


@batch_kernel
def _funnel_batch(
    x,
    y,
    yaw,
    v,
    w,
    targets,
    last,
    current,
    elapsed,
    dt,
    settings,
    unicycle,
    seek,
    table,
    out_accel,
    out_angular,
    out_mode,
):
    for i in numba.prange(x.size):
        accel, angular_accel, mode, index = _funnel_update(
            x[i],
            y[i],
            yaw[i],
            v[i],
            w[i],
            targets,
            current[i],
            pick(last, i),
            elapsed[i],
            dt,
            settings,
            unicycle,
            seek,
            table,
        )
        out_accel[i] = accel
        out_angular[i] = angular_accel
        out_mode[i] = mode
        current[i] = index
        elapsed[i] += dt


class FunnelMemory(NamedTuple):
    """What a scalar ``Funnel`` remembers between frames."""

    current: int = 0  # index of the current target (successive targets)
    elapsed: float = 0.0  # [s] time since the targets were set (moving targets)
    mode: int = FUNNELLING  # the last update's mode (a ``Mode`` value)


class FunnelOutput:
    """Reusable output arrays of ``Funnel.step_batch``: accelerations and mode per entity."""

    __slots__ = ("accel", "angular_accel", "mode")

    def __init__(self, size: int):
        self.accel = np.empty(size)
        self.angular_accel = np.empty(size)
        self.mode = np.empty(size, np.int8)

    @classmethod
    def ensure(cls, out: FunnelOutput | None, size: int) -> FunnelOutput:
        if out is None:
            return cls(size)
        if not isinstance(out, FunnelOutput) or out.accel.size != size:
            raise ValueError(f"out must be a FunnelOutput of size {size}, got {out!r}")
        return out


class Funnel:
    """Funnelling control (seed 003): reach a target position *and* orientation.

    Parameters
    ----------
    table : EtaTable
        The T_eta table; the plant's bounds and the seek gains are the table's
        (``table.unicycle``, ``table.seek``): drive a ``Unicycle(table.unicycle)``.
    target : (x, y), or an (n, 2) array (one per entity, for ``step_batch``)
        Target position(s) [u] at the start (they move with ``target_velocity``).
    course : float or (n,) array
        Target direction(s) [rad]: the heading wanted on arrival.
    target_velocity : (vx, vy) or (n, 2) array
        [u/s] the targets' own velocity (default static).
    desired_speed : float or None
        ``v_d`` [u/s] in ``(0, speed_max]``; ``None``: ``speed_max``.
    d_tol : float
        ``D_tol`` [u] > 0, the position tolerance of Figure 5.
    eps_tol : float
        ``eps_tol`` [rad] in ``(0, pi]``, the orientation tolerance of Figure 5.
    halt : bool
        Brake so as to stop within ``D_tol`` of the last target (module docstring).
    arrival_decel : float or None
        [u/s^2] > 0, the halting cap's braking; ``None``: half the plant's ``accel_max``.

    ``step(state, dt)`` returns a ``UnicycleCommand``; ``mode`` is the last update's ``Mode``.
    """

    def __init__(
        self,
        table: EtaTable,
        target=(0.0, 0.0),
        course=0.0,
        *,
        target_velocity=(0.0, 0.0),
        desired_speed: float | None = None,
        d_tol: float = 0.25,
        eps_tol: float = math.radians(10.0),
        halt: bool = True,
        arrival_decel: float | None = None,
    ):
        if not isinstance(table, EtaTable):
            raise ValueError(f"table must be an EtaTable, got {table!r}")
        self.table = table
        self.unicycle = table.unicycle
        self.seek = table.seek
        if desired_speed is None:
            desired_speed = self.unicycle.speed_max
        desired_speed = check_positive("desired_speed", desired_speed)
        if desired_speed > self.unicycle.speed_max:
            raise ValueError(
                f"desired_speed must be <= speed_max = {self.unicycle.speed_max}, "
                f"got {desired_speed!r}"
            )
        d_tol = check_positive("d_tol", d_tol)
        eps_tol = check_positive("eps_tol", eps_tol)
        if eps_tol > math.pi:
            raise ValueError(f"eps_tol must be <= pi, got {eps_tol!r}")
        if arrival_decel is None:
            arrival_decel = 0.5 * self.unicycle.accel_max
        arrival_decel = check_positive("arrival_decel", arrival_decel)
        if not isinstance(halt, bool | np.bool_):
            raise ValueError(f"halt must be a bool, got {halt!r}")
        self.settings = FunnelSettings(
            desired_speed, d_tol, eps_tol, table.d_eta, bool(halt), arrival_decel
        )
        self._data = table.data
        self.set_target(target, course, target_velocity)

    @classmethod
    def successive(cls, table: EtaTable, targets, *, velocities=None, **options) -> Funnel:
        """A funnel through successive targets, each reached in position and orientation
        (``End_of_Steering``) before the next (seed 003, Figure 7).

        ``targets``: a sequence of ``(x, y, course)`` for one entity (``step``), or a list of such
        sequences, one per entity (``step_batch``). ``velocities``: the same layout of ``(vx,
        vy)`` (default static). ``options``: as ``Funnel``.
        """
        funnel = cls(table, (0.0, 0.0), 0.0, **options)
        funnel._set_rows(*_successive_rows(targets, velocities))
        return funnel

    # -- targets ----------------------------------------------------------------------------

    def set_target(self, target, course, target_velocity=(0.0, 0.0)) -> None:
        """Replace the targets (one, or one per entity) and restart their clock; the current
        target index goes back to the first. Call it every frame to chase another entity."""
        points = _points("target", target)
        courses = _courses(course)
        velocities = _points("target_velocity", target_velocity)
        count = max(points.shape[0], courses.size, velocities.shape[0])
        for name, size in (
            ("target", points.shape[0]),
            ("course", courses.size),
            ("target_velocity", velocities.shape[0]),
        ):
            if size not in (1, count):
                raise ValueError(f"{name} holds {size} entries where the others hold {count}")
        rows = np.empty((count, 5))
        rows[:, 0:2] = points
        rows[:, 2] = courses
        rows[:, 3:5] = velocities
        index = np.arange(count, dtype=np.int64)
        self._set_rows(rows, index, index)

    def _set_rows(self, rows: np.ndarray, first: np.ndarray, last: np.ndarray) -> None:
        self._targets = np.ascontiguousarray(rows, dtype=np.float64)
        self._first = np.ascontiguousarray(first, dtype=np.int64)
        self._last = np.ascontiguousarray(last, dtype=np.int64)
        self.memory = FunnelMemory(int(self._first[0]), 0.0, FUNNELLING)
        self._batch: tuple[np.ndarray, np.ndarray] | None = None
        self._batch_mode: np.ndarray | None = None

    @property
    def targets(self) -> np.ndarray:
        """The target rows ``(x, y, course, vx, vy)`` at time 0 (a copy)."""
        return self._targets.copy()

    # -- stepping ---------------------------------------------------------------------------

    def step(self, state: UnicycleState, dt: float) -> UnicycleCommand:
        """The accelerations for this frame; updates ``mode`` and the current target."""
        if self._first.size != 1:
            raise ValueError(
                f"the funnel holds targets for {self._first.size} entities: use step_batch"
            )
        state = check_unicycle_state(state)
        dt = check_timestep(dt)
        m = self.memory
        accel, angular_accel, mode, current = _funnel_update(
            *state,
            self._targets,
            m.current,
            int(self._last[0]),
            m.elapsed,
            dt,
            self.settings,
            self.unicycle,
            self.seek,
            self._data,
        )
        self.memory = FunnelMemory(int(current), m.elapsed + dt, int(mode))
        return UnicycleCommand(float(accel), float(angular_accel))

    def step_batch(
        self, batch: UnicycleBatch, dt: float, out: FunnelOutput | None = None
    ) -> FunnelOutput:
        """Accelerations and modes for every entity of ``batch`` (``out`` reused when given);
        then ``Unicycle.step_batch(batch, out.accel, out.angular_accel, dt)``."""
        if not isinstance(batch, UnicycleBatch):
            raise ValueError(f"batch must be a UnicycleBatch, got {batch!r}")
        if self._first.size not in (1, batch.size):
            raise ValueError(
                f"the funnel holds targets for {self._first.size} entities but the batch has "
                f"{batch.size}"
            )
        dt = check_timestep(dt)
        out = FunnelOutput.ensure(out, batch.size)
        if self._batch is None or self._batch[0].size != batch.size:
            current = np.empty(batch.size, np.int64)
            current[:] = self._first
            self._batch = (current, np.zeros(batch.size))
        current, elapsed = self._batch
        _funnel_batch(
            *batch.fields(),
            self._targets,
            self._last,
            current,
            elapsed,
            dt,
            self.settings,
            self.unicycle,
            self.seek,
            self._data,
            out.accel,
            out.angular_accel,
            out.mode,
        )
        self._batch_mode = out.mode
        return out

    def reset(self) -> None:
        """Back to the first target, its clock at 0 (scalar and batch)."""
        self._set_rows(self._targets, self._first, self._last)

    # -- reading ----------------------------------------------------------------------------

    @property
    def mode(self) -> Mode:
        """The mode of the last scalar update (``Mode.FUNNELLING`` before the first)."""
        return Mode(self.memory.mode)

    @property
    def target_index(self) -> int:
        """The current target's position in the entity's sequence (scalar)."""
        return self.memory.current - int(self._first[0])

    @property
    def batch_target_index(self) -> np.ndarray | None:
        """Per entity, the current target's position in its sequence (after ``step_batch``)."""
        if self._batch is None:
            return None
        first = self._first if self._first.size == self._batch[0].size else self._first[0]
        return self._batch[0] - first

    @property
    def batch_mode(self) -> np.ndarray | None:
        """Per entity, the mode of the last ``step_batch`` (``Mode`` values, int8)."""
        return self._batch_mode

    def current_target(self, index: int | None = None) -> tuple[float, float, float]:
        """The current target ``(x, y, course)`` now (scalar, or entity ``index`` of the
        batch)."""
        if index is None:
            row, elapsed = self.memory.current, self.memory.elapsed
        else:
            if self._batch is None:
                raise ValueError("no step_batch yet")
            row, elapsed = int(self._batch[0][index]), float(self._batch[1][index])
        x, y, course, vx, vy = self._targets[row]
        return float(x + vx * elapsed), float(y + vy * elapsed), float(course)

    def __repr__(self) -> str:
        s = self.settings
        return (
            f"Funnel({self._targets.shape[0]} target(s), desired_speed={s.desired_speed}, "
            f"d_tol={s.d_tol}, eps_tol={s.eps_tol}, halt={s.halt})"
        )


def _points(name: str, values) -> np.ndarray:
    expected = f"{name} must be an (x, y) pair or an (n, 2) array"
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{expected}, got {values!r}") from None
    if array.shape == (2,):
        array = array.reshape(1, 2)
    if array.ndim != 2 or array.shape[1] != 2 or array.shape[0] == 0:
        raise ValueError(f"{expected}, got shape {array.shape}")
    for column, axis in enumerate("xy"):
        check_finite_array(f"{name}[:, {column}] ({axis})", array[:, column])
    return array


def _courses(values) -> np.ndarray:
    if np.ndim(values) == 0:
        return np.array([check_finite("course", values)])
    array = np.asarray(values, dtype=np.float64)
    if array.ndim != 1 or array.size == 0:
        raise ValueError(f"course must be a number or a 1-D array, got shape {array.shape}")
    return check_finite_array("course", array)


def _successive_rows(targets, velocities):
    """Rows, first and last indices of ragged successive targets (module docstring)."""
    try:
        first_row = np.asarray(targets[0], dtype=np.float64)
    except (TypeError, ValueError, IndexError, KeyError):
        raise ValueError(
            f"targets must be a sequence of (x, y, course), or one such sequence per entity, got "
            f"{targets!r}"
        ) from None
    nested = first_row.ndim == 2
    sequences: Sequence = targets if nested else [targets]
    velocity_sequences = None
    if velocities is not None:
        velocity_sequences = velocities if nested else [velocities]
        if len(velocity_sequences) != len(sequences):
            raise ValueError(
                f"velocities holds {len(velocity_sequences)} sequences for {len(sequences)}"
            )
    rows, first, last = [], [], []
    for entity, sequence in enumerate(sequences):
        label = f"targets[{entity}]" if nested else "targets"
        array = np.asarray(sequence, dtype=np.float64)
        if array.ndim != 2 or array.shape[1] != 3 or array.shape[0] == 0:
            raise ValueError(f"{label} must be rows of (x, y, course), got shape {array.shape}")
        for column, axis in enumerate(("x", "y", "course")):
            check_finite_array(f"{label}[:, {column}] ({axis})", array[:, column])
        speeds = np.zeros((array.shape[0], 2))
        if velocity_sequences is not None:
            speeds = _points(f"velocities[{entity}]", velocity_sequences[entity])
            if speeds.shape[0] != array.shape[0]:
                raise ValueError(
                    f"velocities[{entity}] holds {speeds.shape[0]} rows for {array.shape[0]}"
                )
        first.append(sum(len(r) for r in rows))
        rows.append(np.hstack([array, speeds]))
        last.append(first[-1] + array.shape[0] - 1)
    return np.vstack(rows), np.array(first), np.array(last)
