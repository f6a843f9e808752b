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

**Departure: moving targets** (the seed's "(possible mobile) target"). Figure 5 is memoryless
and its End_of_Steering commands the target's speed and no direction error: on a target moving
along its course the entity drifts across ``D_tol`` and the mode flickers with Orientation_only.
Two additions, for a moving last target only: *hysteresis*, End_of_Steering is held while ``D <
HOLD_FACTOR D_tol`` and the orientation error is under ``HOLD_FACTOR eps_tol``; and *keeping
pace*, in End_of_Steering toward a moving target the desired speed is the target's plus the lag
along the heading over ``KEEP_PACE_TIME_FACTOR tau_speed``, and the heading is toward the point
of the target's course line that far ahead of it (at least ``D_tol``), which also closes the
lateral offset. A static target is unchanged (the
seed's halt). *Interception*: toward a moving target, Funnelling and Position_only steer for
where the target will be after the time to reach it at the cruise speed (``LEAD_ITERATIONS``
refinements), a lead that shrinks as the entity closes in. A target moving across its own course
cannot be held (a unicycle heading along the course cannot move across it): it can only be met,
oriented, in passing, which the lead achieves in some cases and not in others
(``docs/fidelity.md``, funnel.1 mobile).

**Targets** are rows ``(x, y, course, vx, vy)``: one for every entity, one per entity, or a
sequence per entity (``Funnel.successive``: ragged, concatenated with each entity's last index).
``set_target`` replaces them at any frame (a target that is another entity: give its position and
velocity every frame). The controller itself uses only the current relative position and the
target's speed (for the halting cap and the modes' desired speed): its cost does not depend on the
target's motion (seed 003, Section 1).

**Parameters.** The kernels take ``(state, memory, settings, unicycle, seek, data, dt)``: the
funnel's ``FunnelSettings`` (``v_d``, ``D_tol``, ``eps_tol``, halting), the plant's bounds and
the seek gains (the table's), and ``FunnelData`` (the target rows, the entity's last row, the
table). In a batch any setting may hold one value per entity (``Funnel.from_params``); the plant,
the gains and ``D_eta`` are the table's key, and one table serves every entity.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numba
import numpy as np

from steerlab._checks import (
    as_float_array,
    check_finite,
    check_finite_array,
    check_positive,
    check_timestep,
)
from steerlab._jit import batch_kernel, cached_entry, kernel
from steerlab._per_agent import agent_params, check_shared, per_agent_size
from steerlab.engines.unicycle import (
    UnicycleBatch,
    UnicycleCommand,
    UnicycleParams,
    UnicycleState,
    check_unicycle_state,
)
from steerlab.funnel.funnelling import _funnelling_heading
from steerlab.funnel.interpolate import TableData
from steerlab.funnel.modes import (
    END_OF_STEERING,
    FUNNELLING,
    ORIENTATION_ONLY,
    POSITION_ONLY,
    Mode,
    _choose_mode,
)
from steerlab.funnel.seek import (
    _relaxed_speed,
    _seek_accelerations,
    _target_geometry,
    check_at_most,
    check_batch,
    resolve_inf,
    reuse_output,
    unicycle_at,
)
from steerlab.funnel.table import EtaTable
from steerlab.geometry.kernels import wrap_pi
from steerlab.laws._common import check_flag, pick

__all__ = [
    "HOLD_FACTOR",
    "KEEP_PACE_TIME_FACTOR",
    "Funnel",
    "FunnelData",
    "FunnelMemory",
    "FunnelOutput",
    "FunnelSettings",
    "FunnelTarget",
]


HOLD_FACTOR = 2.0
"""End_of_Steering, once reached on the last target, is held while the distance stays under
``HOLD_FACTOR D_tol`` and the orientation error under ``HOLD_FACTOR eps_tol`` (module docstring,
"hysteresis")."""

LEAD_ITERATIONS = 2
"""Toward a moving target, Funnelling and Position_only steer for its position after the time to
reach it at the cruise speed, refined this many times (module docstring, "interception")."""

KEEP_PACE_TIME_FACTOR = 4.0
"""Keeping pace with a moving target corrects the speed by the lag along the heading over
``KEEP_PACE_TIME_FACTOR tau_speed`` seconds: a position loop four times slower than the speed
loop it drives, so that it does not overshoot."""


class FunnelSettings(NamedTuple):
    """A funnel's settings (``Funnel``; validated against the table's plant).

    Each field is a number (``halt`` a bool), or in a batch one value per entity (a 1-D
    sequence): the settings do not select the table, which every entity shares.
    """

    desired_speed: float = math.inf  # [u/s] v_d in (0, speed_max]; inf: the plant's speed_max
    d_tol: float = 0.25  # [u] > 0, position tolerance D_tol (Figure 5)
    eps_tol: float = math.radians(10.0)  # [rad] in (0, pi], orientation tolerance (Figure 5)
    halt: bool = True  # brake to stop within D_tol of the last target (module docstring)
    # [u/s^2] > 0, the braking of the halting cap; inf: half the plant's accel_max
    arrival_decel: float = math.inf

    def validated(self, unicycle: UnicycleParams) -> FunnelSettings:
        """The settings checked, their ``inf`` stand-ins resolved with the plant ``unicycle``;
        ``ValueError`` naming the first bad field."""
        desired = check_positive("desired_speed", self.desired_speed, allow_inf=True)
        eps_tol = check_positive("eps_tol", self.eps_tol)
        check_at_most("eps_tol", eps_tol, "pi", math.pi)
        settings = FunnelSettings(
            desired,
            check_positive("d_tol", self.d_tol),
            eps_tol,
            check_flag("halt", self.halt),
            check_positive("arrival_decel", self.arrival_decel, allow_inf=True),
        )
        per_agent_size(settings)  # one count of entities
        desired = resolve_inf(settings.desired_speed, unicycle.speed_max)
        check_at_most("desired_speed", desired, "speed_max", unicycle.speed_max)
        arrival_decel = resolve_inf(settings.arrival_decel, 0.5 * unicycle.accel_max)
        return settings._replace(desired_speed=desired, arrival_decel=arrival_decel)


class FunnelTarget(NamedTuple):
    """One target row as the update reads it: position now, direction, velocity."""

    x: float  # [u]
    y: float  # [u]
    course: float  # [rad] the heading wanted on arrival
    vx: float  # [u/s] the target's own velocity
    vy: float  # [u/s]


class FunnelMemory(NamedTuple):
    """What the update carries between frames: numbers for one entity, one array per field in a
    batch."""

    current: int = 0  # index of the current target's row (successive targets)
    elapsed: float = 0.0  # [s] time since the targets were set (moving targets)
    holding: bool = False  # End_of_Steering on the last target last update (its hysteresis)


class FunnelData(NamedTuple):
    """The targets and the table (read-only)."""

    targets: np.ndarray  # (m, 5) rows (x, y, course, vx, vy) at time 0
    last: int  # the entity's last row (its sequence's end); in a batch, one per entity or one
    table: TableData  # the T_eta table, shared by every entity


@kernel
def _target_at(targets, index, elapsed):
    """Target ``index`` at time ``elapsed``: a ``FunnelTarget``."""
    vx = targets[index, 3]
    vy = targets[index, 4]
    return FunnelTarget(
        targets[index, 0] + vx * elapsed,
        targets[index, 1] + vy * elapsed,
        targets[index, 2],
        vx,
        vy,
    )


@kernel
def _mode_toward(state, target, settings, table):
    """Figure 5's mode toward ``target`` and the target's geometry: ``(mode, D, radial,
    alpha)``; ``D_eta`` is the table's first sampled distance."""
    distance, radial, alpha = _target_geometry(state.x, state.y, state.yaw, target.x, target.y)
    error = wrap_pi(target.course - state.yaw)  # alpha + eta + delta_eta (steerlab.funnel.modes)
    d_eta = table.distances[0]
    mode = _choose_mode(distance, error, settings.d_tol, d_eta, settings.eps_tol)
    return mode, distance, radial, alpha


@kernel
def _funnel_command(state, target, is_last, holding, settings, unicycle, seek, table, dt):
    """One funnelling update toward one target: ``(accel, angular_accel, mode)`` (module
    docstring, step 3 and 4). ``state`` a ``UnicycleState``, ``target`` a ``FunnelTarget``,
    ``settings`` a ``FunnelSettings`` (numbers), ``unicycle`` and ``seek`` the table's;
    ``holding``: End_of_Steering held on the last update (the hysteresis of the module
    docstring)."""
    mode, distance, radial, alpha = _mode_toward(state, target, settings, table)
    target_speed = math.sqrt(target.vx * target.vx + target.vy * target.vy)
    held = abs(wrap_pi(target.course - state.yaw)) < HOLD_FACTOR * settings.eps_tol
    if holding and target_speed > 0.0 and distance < HOLD_FACTOR * settings.d_tol and held:
        mode = END_OF_STEERING  # hysteresis, moving targets only (module docstring)
    cruise = settings.desired_speed
    if settings.halt and is_last:
        room = max(distance - 0.5 * settings.d_tol, 0.0)
        cruise = min(cruise, target_speed + math.sqrt(2.0 * settings.arrival_decel * room))
    heading = state.yaw  # End_of_Steering: no direction error
    speed = target_speed  # Orientation_only and End_of_Steering
    if mode == END_OF_STEERING and target_speed > 0.0:
        # keeping pace with a moving target: its speed, corrected by the lag along the heading,
        # toward a point of its course line one correction time ahead of it
        keep_time = KEEP_PACE_TIME_FACTOR * seek.tau_speed
        sin_yaw, cos_yaw = math.sin(state.yaw), math.cos(state.yaw)
        lag = (target.x - state.x) * cos_yaw + (target.y - state.y) * sin_yaw
        speed = max(target_speed + lag / keep_time, 0.0)
        ahead = max(target_speed * keep_time, settings.d_tol)
        aim_x = target.x + ahead * math.cos(target.course) - state.x
        aim_y = target.y + ahead * math.sin(target.course) - state.y
        heading = math.atan2(aim_y, aim_x)
    if ((mode == FUNNELLING) | (mode == POSITION_ONLY)) and target_speed > 0.0:
        # interception: steer for where the target will be when the entity gets there
        lead = 0.0
        for _ in range(LEAD_ITERATIONS):
            lead = distance / max(cruise, target_speed)
            distance, radial, alpha = _target_geometry(
                state.x,
                state.y,
                state.yaw,
                target.x + target.vx * lead,
                target.y + target.vy * lead,
            )
    if mode == FUNNELLING:
        heading, speed, _, _, _, _ = _funnelling_heading(
            table, distance, radial, alpha, state.v, state.w, cruise, target.course
        )
    elif mode == POSITION_ONLY:
        heading = radial
        speed = _relaxed_speed(table, distance, alpha, state.v, state.w, cruise, unicycle)
    elif mode == ORIENTATION_ONLY:
        heading = target.course
    accel, angular_accel = _seek_accelerations(
        state, wrap_pi(heading - state.yaw), speed, unicycle, seek, dt
    )
    return accel, angular_accel, mode


@kernel(inline="never")
def _funnel_update(state, memory, settings, unicycle, seek, data, dt):
    """The whole update of one entity: ``(accel, angular_accel, mode, current)`` (module
    docstring). ``state`` a ``UnicycleState``, ``memory`` a ``FunnelMemory``, ``settings`` a
    ``FunnelSettings`` (numbers), ``unicycle`` and ``seek`` the table's, ``data`` a
    ``FunnelData`` (``last`` the entity's)."""
    current = memory.current
    target = _target_at(data.targets, current, memory.elapsed)
    if current < data.last:  # successive targets: move on once this one is done (Figure 5's end)
        mode, _, _, _ = _mode_toward(state, target, settings, data.table)
        if mode == END_OF_STEERING:
            current += 1
            target = _target_at(data.targets, current, memory.elapsed)
    is_last = current == data.last
    holding = memory.holding and is_last
    accel, angular_accel, mode = _funnel_command(
        state, target, is_last, holding, settings, unicycle, seek, data.table, dt
    )
    return accel, angular_accel, mode, current, mode == END_OF_STEERING


@batch_kernel
def _funnel_batch(state, memory, settings, unicycle, seek, targets, last, table, dt, out):
    """``_funnel_update`` for every entity ``i``, with its own settings (``agent_params``) and
    last target; ``memory`` (a ``FunnelMemory`` of arrays) updated in place, ``out`` a
    ``FunnelOutput``. Records and written arrays are handled as in ``seek._seek_batch``."""
    current, elapsed, holding = memory.current, memory.elapsed, memory.holding
    accel, angular_accel, mode = out.accel, out.angular_accel, out.mode
    for i in numba.prange(state.x.size):
        accel[i], angular_accel[i], mode[i], current[i], holding[i] = _funnel_update(
            unicycle_at(state, i),
            FunnelMemory(current[i], elapsed[i], holding[i]),
            agent_params(settings, i),
            unicycle,
            seek,
            FunnelData(targets, pick(last, i), table),
            dt,
        )
        elapsed[i] += dt


class FunnelOutput(NamedTuple):
    """Reusable output arrays of ``Funnel.step_batch``: accelerations and mode per entity."""

    accel: np.ndarray  # [u/s^2]
    angular_accel: np.ndarray  # [rad/s^2]
    mode: np.ndarray  # int8, ``Mode`` values

    @classmethod
    def empty(cls, size: int) -> FunnelOutput:
        return cls(np.empty(size), np.empty(size), np.empty(size, np.int8))

    @classmethod
    def ensure(cls, out: FunnelOutput | None, size: int) -> FunnelOutput:
        return reuse_output(cls, out, size)


class Funnel:
    """Funnelling control (seed 003): reach a target position *and* orientation.

    Parameters
    ----------
    table : EtaTable
        The T_eta table, one for every entity; the plant's bounds and the seek gains are the
        table's (``table.unicycle``, ``table.seek``): drive a ``Unicycle(table.unicycle)``.
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

    Notes
    -----
    The settings (``desired_speed`` to ``arrival_decel``) may hold one value per entity, for
    ``step_batch``; ``Funnel.from_params(table, target, course, FunnelSettings(...))`` builds the
    funnel from its record. ``step(state, dt)`` returns a ``UnicycleCommand``; ``mode`` is the
    last update's ``Mode``.
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
        settings = FunnelSettings(
            math.inf if desired_speed is None else desired_speed,
            d_tol,
            eps_tol,
            halt,
            math.inf if arrival_decel is None else arrival_decel,
        )
        self._setup(table, settings)
        self.set_target(target, course, target_velocity)

    @classmethod
    def from_params(
        cls,
        table: EtaTable,
        target,
        course,
        settings: FunnelSettings,
        *,
        target_velocity=(0.0, 0.0),
    ) -> Funnel:
        """The funnel toward ``target`` with the record ``settings`` (fields may be per entity)."""
        funnel = cls.__new__(cls)
        funnel._setup(table, settings)
        funnel.set_target(target, course, target_velocity)
        return funnel

    def _setup(self, table: EtaTable, settings: FunnelSettings) -> None:
        if not isinstance(table, EtaTable):
            raise ValueError(f"table must be an EtaTable, got {table!r}")
        if not isinstance(settings, FunnelSettings):
            raise ValueError(f"settings must be a FunnelSettings, got {settings!r}")
        self.table = table
        self.unicycle = table.unicycle
        self.seek = table.seek
        self.settings = settings.validated(self.unicycle)
        self.agents = per_agent_size(self.settings)
        self._table_data = table.data
        self._entry = None  # the scalar step's compiled entry point (steerlab._jit.cached_entry)

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
        if self.agents is not None and first.size not in (1, self.agents):
            raise ValueError(
                f"the funnel holds targets for {first.size} entities but FunnelSettings holds "
                f"{self.agents} values per field (one per entity)"
            )
        self._targets = np.ascontiguousarray(rows, dtype=np.float64)
        self._first = np.ascontiguousarray(first, dtype=np.int64)
        self._last = np.ascontiguousarray(last, dtype=np.int64)
        self.memory = FunnelMemory(int(self._first[0]), 0.0)
        self._mode = FUNNELLING
        self._data = FunnelData(self._targets, int(self._last[0]), self._table_data)
        self._batch_memory: FunnelMemory | None = None
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
        if self.agents is not None:
            check_shared(self.settings, "Funnel.step")
        state = check_unicycle_state(state)
        dt = check_timestep(dt)
        m = self.memory
        arguments = (state, m, self.settings, self.unicycle, self.seek, self._data, dt)
        self._entry = cached_entry(self._entry, _funnel_update, arguments)
        accel, angular_accel, mode, current, holding = self._entry[1](*arguments)
        self.memory = FunnelMemory(int(current), m.elapsed + dt, bool(holding))
        self._mode = int(mode)
        return UnicycleCommand(float(accel), float(angular_accel))

    def step_batch(
        self, batch: UnicycleBatch, dt: float, out: FunnelOutput | None = None
    ) -> FunnelOutput:
        """Accelerations and modes for every entity of ``batch`` (``out`` reused when given);
        then ``Unicycle.step_batch(batch, out.accel, out.angular_accel, dt)``."""
        targets = "the funnel holds targets"
        dt = check_batch(batch, dt, self._first.size, targets, self.settings)
        out = FunnelOutput.ensure(out, batch.size)
        memory = self._batch_memory
        if memory is None or memory.current.size != batch.size:
            current = np.empty(batch.size, np.int64)
            current[:] = self._first
            memory = self._batch_memory = FunnelMemory(
                current, np.zeros(batch.size), np.zeros(batch.size, dtype=np.bool_)
            )
        _funnel_batch(
            UnicycleState(*batch.fields()),
            memory,
            self.settings,
            self.unicycle,
            self.seek,
            self._targets,
            self._last,
            self._table_data,
            dt,
            out,
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
        return Mode(self._mode)

    @property
    def target_index(self) -> int:
        """The current target's position in the entity's sequence (scalar)."""
        return self.memory.current - int(self._first[0])

    @property
    def batch_target_index(self) -> np.ndarray | None:
        """Per entity, the current target's position in its sequence (after ``step_batch``)."""
        memory = self._batch_memory
        if memory is None:
            return None
        first = self._first if self._first.size == memory.current.size else self._first[0]
        return memory.current - first

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
            if self._batch_memory is None:
                raise ValueError("no step_batch yet")
            memory = self._batch_memory
            row, elapsed = int(memory.current[index]), float(memory.elapsed[index])
        x, y, course, vx, vy = self._targets[row]
        return float(x + vx * elapsed), float(y + vy * elapsed), float(course)

    def __repr__(self) -> str:
        s = self.settings
        desired, d_tol, eps_tol, halt = (
            value.tolist() if isinstance(value, np.ndarray) else value for value in s[:4]
        )
        return (
            f"Funnel({self._targets.shape[0]} target(s), desired_speed={desired}, "
            f"d_tol={d_tol}, eps_tol={eps_tol}, halt={halt})"
        )


def _points(name: str, values) -> np.ndarray:
    expected = f"{name} must be an (x, y) pair or an (n, 2) array"
    array = as_float_array(name, values, "an (x, y) pair or an (n, 2) array of numbers")
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
    array = as_float_array("course", values, "a number or a 1-D array of numbers")
    if array.ndim != 1 or array.size == 0:
        raise ValueError(f"course must be a number or a 1-D array, got shape {array.shape}")
    return check_finite_array("course", array)


def _successive_rows(targets, velocities):
    """Rows, first and last indices of ragged successive targets (module docstring)."""
    try:
        first_row = as_float_array("targets[0]", targets[0], "numbers")
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
        array = as_float_array(label, sequence, "rows of (x, y, course) numbers")
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
