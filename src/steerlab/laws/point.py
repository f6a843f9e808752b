"""Towards a point, and past and around a point (seed 000).

Seed 000, "Moving towards a destination point": ``UE_mVel = min(k_D MQ, SPEEDBOUND)`` with
``0 < k_D <= 1/T`` and ``UE_yaw = Bear``, the bearing of the destination. "Moving passed & around
a point": ``UE_yaw = Bear - U_VelRBear`` with ``U_VelRBear = Sgn asin(min(U_Dist / MQ, 1))``: the
agent moves on the tangent to the circle of radius ``U_Dist`` around the point, then around it;
``U_Dist = 0`` gives back the first law. One kernel, ``_around_point_command``, serves both.

**Arrival (the seed's "jittery velocity direction changes ... bot dancing around its center
point").** On or very near the destination the bearing turns by up to 180 degrees between frames
as the agent steps over the point, and an engine that cannot stop at once keeps stepping over it.
What ends the run well depends on the engine, so ``SeekPoint`` takes it (``engine``):

- *With an engine* (``HalfLifeParams`` or ``BaseEngineParams``) the law brakes: it commands at
  most the speed from which that engine stops within the distance left (the inverse of its stop
  distance: seed 004's continuous ``getStopDist`` for Half-Life, the BaseEngine's from its
  pseudo-code; ``laws._braking``), so the agent comes in on the engine's own deceleration curve.
  On Half-Life the command is also kept at or above the low-speed floor ``stopspeed friction /
  accelerate`` away from the point (seed 004's low-speed trap: lower wished speeds are never
  reached, seed 002 floors its speeds there). Once the point is within ``max(arrival_radius,
  speed * T)`` (the frame's own travel, small by then) the *arrival latch* holds zero speed and
  the current heading. Half-Life's friction ends the approach in finite time and the latch
  fires; the BaseEngine's speed lag makes the final approach geometric (the point is closed on,
  never passed, but no frame covers the rest), so there the latch needs an ``arrival_radius``.
- *Without an engine* the law is the seed's, and the latch holds only within ``arrival_radius``
  (default 0): a latch at the frame's travel would command zero speed at full speed, and the
  agent would coast its whole stop distance past the point. On Half-Life the seed's law itself
  settles on the point; on a BaseEngine with a speed or yaw lag it circles it, which is what the
  engine-aware form is for.

The latch is memory, returned by the kernel and kept by the class, until ``reset()``, or until
the agent is more than ``rearm_distance`` from the destination (pushed away; default: never).
``arrival_radius=None`` switches it off (the seed's law exactly, for the figures that show the
dancing). AroundPoint has no arrival: it circles its point for ever, as the seed intends.

**Parameters** are one record per law, ``SeekParams`` and ``AroundParams``; the kernels take
``(state, [memory,] params, target, dt)``. A law built from a record (``SeekPoint.from_params``,
``AroundPoint.from_params``) may hold one value per agent in any field, for ``step_batch``: a
sweep over gains or radii is one batch, and each agent gets exactly what ``step`` gives with its
own values.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np

from steerlab._checks import check_negative, check_nonnegative, check_positive, check_record
from steerlab._jit import batch_kernel, kernel, run_entry
from steerlab._per_agent import agent_params, check_agent_count, check_shared
from steerlab.engines.base import BaseEngineParams
from steerlab.engines.halflife import HalfLifeParams, low_speed_threshold
from steerlab.engines.state import AgentBatch, AgentState, Command, check_state
from steerlab.geometry.kernels import asin, atan2, wrap_pi
from steerlab.laws._braking import ENGINES, _engine_stop_speed, _engine_turn_speed
from steerlab.laws._common import (
    BatchOutput,
    Target,
    check_batch_size,
    check_choice,
    check_flag,
    check_frame_gain,
    check_points,
    check_single,
    check_targets_and_params,
    choice_codes,
    columns,
    frame_gain,
    largest_finite,
    pick,
    record_field,
    record_fields,
)

__all__ = ["AroundParams", "AroundPoint", "SeekMemory", "SeekParams", "SeekPoint"]

_SEED_RULE = "seed 000: 0 < k_D <= 1/T"
_NO_ENGINE = ENGINES.index("none")


class AroundParams(NamedTuple):
    """Parameters of ``AroundPoint`` (seed 000, "Moving passed & around a point").

    Each field is a number, or in a law's batch one value per agent (a 1-D sequence).
    """

    distance: float = 0.0  # [u] U_Dist >= 0, kept around the point; 0: "towards a point"
    side: float = 1.0  # Sgn, +1 (point on the left, counter-clockwise) or -1
    # [1/s] k_D, 0 < k_D <= 1/T (checked at each step); inf: 1/T, the seed's "simplest form"
    k_d: float = math.inf
    speed_bound: float = 320.0  # [u/s] SPEEDBOUND > 0, the bot's own speed bound; inf: none

    def validated(self) -> AroundParams:
        """Return the fields as floats; ``ValueError`` naming the first bad one."""
        return AroundParams(
            distance=check_nonnegative("distance", self.distance),
            side=_check_side(self.side),
            k_d=check_positive("k_d", self.k_d, allow_inf=True),
            speed_bound=check_positive("speed_bound", self.speed_bound, allow_inf=True),
        )


class SeekParams(NamedTuple):
    """Parameters of ``SeekPoint`` (seed 000, "Moving towards a destination point", with the
    arrival of the module docstring).

    Each field is a number (``arrive`` a bool, ``engine`` a name), or in a law's batch one value
    per agent. From ``engine`` on they are the engine's (``SeekParams.for_engine`` sets them from
    an engine record): ``k_speed``, ``decel_long_max``, ``k_yaw``, ``yaw_rate_max`` and
    ``accel_trans_max`` of a ``BaseEngineParams``, ``friction`` and ``stopspeed`` of a
    ``HalfLifeParams`` (the other engine's are not read), and Half-Life's low-speed floor.
    """

    # [1/s] k_D, 0 < k_D <= 1/T (checked at each step); inf: 1/T, the seed's "simplest form"
    k_d: float = math.inf
    speed_bound: float = 320.0  # [u/s] SPEEDBOUND > 0; inf: none
    arrival_radius: float = 0.0  # [u] >= 0, the arrival latch's tolerance (module docstring)
    rearm_distance: float = math.inf  # [u] > 0, the latch is released farther than this
    arrive: bool = True  # the arrival latch; False: the seed's law exactly
    engine: str = "none"  # one of laws._braking.ENGINES: whose stop distance the law brakes on
    k_speed: float = BaseEngineParams().k_speed  # [1/s] the BaseEngine's speed lag; inf: none
    decel_long_max: float = BaseEngineParams().decel_long_max  # [u/s^2] < 0, -inf: none
    k_yaw: float = BaseEngineParams().k_yaw  # [1/s] the BaseEngine's yaw lag; inf: none
    yaw_rate_max: float = BaseEngineParams().yaw_rate_max  # [rad/s] > 0, inf: none
    accel_trans_max: float = BaseEngineParams().accel_trans_max  # [u/s^2] > 0, inf: none
    friction: float = HalfLifeParams().friction  # [1/s] sv_friction
    stopspeed: float = HalfLifeParams().stopspeed  # [u/s] sv_stopspeed
    floor: float = 0.0  # [u/s] >= 0, least speed commanded away from the point (Half-Life's)

    @classmethod
    def for_engine(cls, engine: HalfLifeParams | BaseEngineParams | None, **fields) -> SeekParams:
        """The record with the braking terms of ``engine`` (shared by every agent): the
        BaseEngine's speed lag and deceleration bound, or Half-Life's friction, stopspeed and
        low-speed floor ``stopspeed friction / accelerate``; ``None``: no braking."""
        if engine is None:
            return cls(**fields)
        if isinstance(engine, HalfLifeParams):
            p = engine.validated()
            check_shared(p, "SeekParams.for_engine")
            return cls(
                engine="half-life",
                friction=p.friction,
                stopspeed=p.stopspeed,
                floor=low_speed_threshold(p),
                **fields,
            )
        if isinstance(engine, BaseEngineParams):
            p = engine.validated()
            check_shared(p, "SeekParams.for_engine")
            return cls(
                engine="base",
                k_speed=p.k_speed,
                decel_long_max=p.decel_long_max,
                k_yaw=p.k_yaw,
                yaw_rate_max=p.yaw_rate_max,
                accel_trans_max=p.accel_trans_max,
                **fields,
            )
        raise ValueError(
            f"engine must be a HalfLifeParams, a BaseEngineParams or None, got {engine!r}"
        )

    def validated(self) -> SeekParams:
        """Return the fields as floats (``arrive`` a bool, ``engine`` a name or a tuple of
        them); ``ValueError`` naming the first bad one."""
        return SeekParams(
            k_d=check_positive("k_d", self.k_d, allow_inf=True),
            speed_bound=check_positive("speed_bound", self.speed_bound, allow_inf=True),
            arrival_radius=check_nonnegative("arrival_radius", self.arrival_radius),
            rearm_distance=check_positive("rearm_distance", self.rearm_distance, allow_inf=True),
            arrive=check_flag("arrive", self.arrive),
            engine=check_choice("engine", self.engine, ENGINES),
            k_speed=check_positive("k_speed", self.k_speed, allow_inf=True),
            decel_long_max=check_negative("decel_long_max", self.decel_long_max, allow_inf=True),
            k_yaw=check_positive("k_yaw", self.k_yaw, allow_inf=True),
            yaw_rate_max=check_positive("yaw_rate_max", self.yaw_rate_max, allow_inf=True),
            accel_trans_max=check_positive("accel_trans_max", self.accel_trans_max, allow_inf=True),
            friction=check_positive("friction", self.friction),
            stopspeed=check_positive("stopspeed", self.stopspeed),
            floor=check_nonnegative("floor", self.floor),
        )

    def kernel_record(self) -> SeekParams:
        """The record as the kernels read it: ``engine`` as its index in ``ENGINES``."""
        return self._replace(engine=choice_codes(self.engine, ENGINES))


def _check_side(side):
    if np.ndim(side) == 0:
        if isinstance(side, bool | np.bool_ | str) or side not in (1, -1):
            raise ValueError(f"side must be +1 or -1, got {side!r}")
        return float(side)
    values = np.array(side, dtype=np.float64)
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f"side must be +1 or -1, or one of them per agent, got {side!r}")
    wrong = (values != 1.0) & (values != -1.0)
    if wrong.any():
        index = int(np.argmax(wrong))
        raise ValueError(f"side[{index}] must be +1 or -1, got {side[index]!r}")
    values.setflags(write=False)
    return values


@kernel
def _around_point_command(state, params, target, dt):
    """Seed 000: the ``Command`` ``(UE_yaw, UE_mVel)`` towards, or past and around, the point.

    ``state`` an ``AgentState``, ``params`` an ``AroundParams``, ``target`` the point ``Q``.
    ``MQ`` = distance to the target, ``Bear`` = its bearing, ``UE_mVel = min(k_D MQ,
    SPEEDBOUND)``, ``U_VelRBear = side * asin(min(distance / MQ, 1))``, ``UE_yaw = Bear -
    U_VelRBear``; ``distance = 0`` is "towards a point". Exactly on the point the bearing is
    undefined: the heading is held.
    """
    dx = target.x - state.x
    dy = target.y - state.y
    remaining = math.sqrt(dx * dx + dy * dy)  # MQ
    speed = min(frame_gain(params.k_d, dt) * remaining, params.speed_bound)
    bearing = atan2(dy, dx)  # Bear
    ratio = min(params.distance / remaining, 1.0) if remaining > 0.0 else 0.0
    relative_bearing = params.side * asin(ratio)  # U_VelRBear; exactly 0 when distance = 0
    heading = wrap_pi(bearing - relative_bearing)
    # selects, not branches: the batch loop vectorizes (branch-free atan2 and asin too)
    on_point = remaining == 0.0
    return Command(state.yaw if on_point else heading, speed)


class SeekMemory(NamedTuple):
    """What ``SeekPoint`` remembers between frames."""

    arrived: bool = False  # the arrival latch (module docstring)


@kernel
def _seek_command(state, memory, params, target, dt):
    """Seed 000 "towards a point" with the arrival of the module docstring: ``(UE_yaw, UE_mVel,
    arrived)``, the command and the new ``SeekMemory.arrived``.

    ``params`` a ``SeekParams`` as ``kernel_record()`` gives it. The seed's ``UE_mVel = min(k_D
    MQ, SPEEDBOUND)``, raised to the engine's low-speed ``floor``; braking for an engine, zero
    while the agent is faster than the speeds from which the engine stops within what is left
    after this frame and turns onto the point (``laws._braking``), and at most the larger of
    those and the floor otherwise. The latch: within ``arrival_radius`` of the point, or,
    braking for an engine, within the frame's own travel ``speed T``; ``arrive`` False disables
    it (the seed's law).
    """
    dx = target.x - state.x
    dy = target.y - state.y
    remaining = math.sqrt(dx * dx + dy * dy)
    speed_now = math.sqrt(state.vx * state.vx + state.vy * state.vy)
    braking = params.engine != _NO_ENGINE
    reach = max(params.arrival_radius, speed_now * dt) if braking else params.arrival_radius
    # the latch as boolean algebra (& and |, no short-circuit branches): it vectorizes
    arrived = memory.arrived & (remaining <= params.rearm_distance)
    arrived = arrived | (remaining <= reach)
    arrived = arrived & params.arrive
    towards = AroundParams(0.0, 1.0, params.k_d, params.speed_bound)
    heading, speed = _around_point_command(state, towards, target, dt)
    speed = min(max(speed, params.floor), params.speed_bound)
    # brake on the distance left after this frame's travel: the engine applies the command from
    # the next frame on, so the speed it reaches must stop within what remains then
    ahead = max(remaining - speed_now * dt, 0.0)
    limit = min(
        _engine_stop_speed(ahead, dt, params),
        _engine_turn_speed(remaining, wrap_pi(heading - state.yaw), dt, params),
    )
    # above the limit, no command: the stop distance is the engine's under a zero command (a
    # lagging engine slows more slowly under any other). Below it, the limit, or the low-speed
    # floor where that is higher: Half-Life never reaches lower wished speeds, and a frame at the
    # floor gains at most accelerate T floor, after which the zero command brakes again
    speed = min(speed, max(limit, params.floor)) if speed_now <= limit else 0.0
    # flat, not (Command, SeekMemory): numba's parallel array analysis fails on a tuple of records
    return (state.yaw if arrived else heading), (0.0 if arrived else speed), arrived


@batch_kernel
def _around_point_batch(x, y, yaw, params, target, dt, out_yaw, out_speed):
    for i in numba.prange(x.size):
        out_yaw[i], out_speed[i] = _around_point_command(
            AgentState(x[i], y[i], 0.0, 0.0, yaw[i]),
            agent_params(params, i),
            Target(pick(target.x, i), pick(target.y, i)),
            dt,
        )


@batch_kernel
def _seek_batch(x, y, vx, vy, yaw, arrived, params, target, dt, out_yaw, out_speed):
    for i in numba.prange(x.size):
        out_yaw[i], out_speed[i], arrived[i] = _seek_command(
            AgentState(x[i], y[i], vx[i], vy[i], yaw[i]),
            SeekMemory(arrived[i]),
            agent_params(params, i),
            Target(pick(target.x, i), pick(target.y, i)),
            dt,
        )


class _PointLaw:
    """What AroundPoint and SeekPoint share: the targets, the record, the frame-time check."""

    _TARGET = "target"
    _PARAMS: type  # the law's parameter record

    _entry = None  # the scalar step's compiled entry point (steerlab._jit.cached_entry)

    @classmethod
    def from_params(cls, target, params):
        """The law with its point(s) (``center`` of ``AroundPoint``, ``target`` of
        ``SeekPoint``) and its record ``params`` (``AroundParams``, ``SeekParams``), whose fields
        may hold one value per agent (for ``step_batch``)."""
        check_record("params", params, cls._PARAMS)
        law = cls.__new__(cls)
        law._setup(target, params)
        return law

    def _setup(self, points, params) -> None:
        self._points = check_points(self._TARGET, points)
        self.params = params.validated()
        self.agents = check_targets_and_params(self._TARGET, self._points, self.params)
        self._k_d_largest = largest_finite(self.params.k_d)
        self._target = Target(*columns(self._points))
        self._single = Target(*(float(value) for value in self._points[0]))

    @property
    def target(self) -> np.ndarray:
        """The point(s), ``(2,)`` for one or ``(n, 2)`` for one per agent."""
        return self._points[0].copy() if self._points.shape[0] == 1 else self._points.copy()

    k_d = record_field(
        "k_d", inf_is_none=True, doc="``k_D`` [1/s]; ``None`` for ``1/T`` (the record's ``inf``)."
    )
    speed_bound = record_field("speed_bound")

    def _check_step(self, state: AgentState, dt: float):
        check_single(self._TARGET, self._points)
        if self.agents is not None:
            check_shared(self.params, f"{type(self).__name__}.step")
        state = check_state(state)
        return state, check_frame_gain("k_d", self.params.k_d, self._k_d_largest, dt, _SEED_RULE)

    def _check_batch(self, batch: AgentBatch, dt: float) -> float:
        check_batch_size(self._TARGET, self._points, batch)
        check_agent_count(self.params, batch.size)
        return check_frame_gain("k_d", self.params.k_d, self._k_d_largest, dt, _SEED_RULE)


class AroundPoint(_PointLaw):
    """Pass and circle a point at distance ``distance`` (seed 000, "Moving passed & around").

    Parameters
    ----------
    center : (x, y), or an (n, 2) array (one per agent, for ``step_batch``)
        The point ``Q``.
    distance : float
        ``U_Dist`` >= 0 [u], the radius kept around the point; 0 gives the seed's "towards a
        point" (``SeekPoint`` without its arrival latch).
    side : +1 or -1
        ``Sgn``: +1 keeps the point on the agent's left (counter-clockwise circling), -1 on its
        right.
    k_d : float or None
        ``k_D`` [1/s], ``0 < k_D <= 1/T`` (a larger value is a ``ValueError`` at ``step``);
        ``None`` (default) uses ``1/T``, the seed's "simplest form" ``UE_vVel = vMS / T``.
    speed_bound : float
        ``SPEEDBOUND`` [u/s], the bot's own speed bound.

    Notes
    -----
    ``AroundPoint.from_params(center, AroundParams(...))`` builds the law from its record, in
    which any field may hold one value per agent (for ``step_batch``).
    """

    _TARGET = "center"
    _PARAMS = AroundParams

    def __init__(
        self,
        center,
        distance: float,
        side: int = 1,
        k_d: float | None = None,
        speed_bound: float = 320.0,
    ):
        distance = check_nonnegative("distance", distance)
        side = _check_side(side)
        k_d = math.inf if k_d is None else check_positive("k_d", k_d)
        self._setup(center, AroundParams(distance, side, k_d, speed_bound))

    distance, side = record_fields("distance", "side")

    def step(self, state: AgentState, dt: float) -> Command:
        """The command for this frame."""
        state, dt = self._check_step(state, dt)
        arguments = (state, self.params, self._single, dt)
        return Command(*run_entry(self, _around_point_command, arguments))

    def step_batch(
        self, batch: AgentBatch, dt: float, out: BatchOutput | None = None
    ) -> BatchOutput:
        """Commands for every agent of ``batch`` (``out`` reused when given)."""
        dt = self._check_batch(batch, dt)
        out = BatchOutput.ensure(out, batch.size)
        _around_point_batch(
            batch.x, batch.y, batch.yaw, self.params, self._target, dt, out.yaw, out.speed
        )
        return out

    def reset(self) -> None:
        """AroundPoint holds no memory between frames."""

    def __repr__(self) -> str:
        side = self.side
        side = int(side) if isinstance(side, float) else side.tolist()
        return (
            f"AroundPoint(center={self.target.tolist()}, distance={self.distance}, "
            f"side={side}, k_d={self.k_d}, speed_bound={self.speed_bound})"
        )


class SeekPoint(_PointLaw):
    """Move towards a point (seed 000, "Moving towards a destination point"), then arrive.

    ``UE_mVel = min(k_D MQ, SPEEDBOUND)``, ``UE_yaw = Bear`` (the kernel AroundPoint uses, with
    ``U_Dist = 0``), plus the arrival of the module docstring: given the ``engine`` it drives,
    the law brakes on that engine's stop distance and ends on the point; without one it is the
    seed's law, latched only within ``arrival_radius``.

    Parameters
    ----------
    target : (x, y), or an (n, 2) array (one per agent, for ``step_batch``)
    k_d, speed_bound
        As ``AroundPoint``.
    engine : HalfLifeParams, BaseEngineParams or None
        The engine the agent runs on: the law then commands at most the speed from which that
        engine stops within the distance left (and, on Half-Life, at least its low-speed floor
        ``stopspeed friction / accelerate`` away from the point), and latches once within a
        frame's travel. ``None`` (default): the seed's law.
    arrival_radius : float or None
        [u] >= 0, the latch's tolerance (added, with an engine, to the frame's own travel
        ``speed * T``); ``None`` turns the latch off (the seed's law exactly).
    rearm_distance : float
        [u] the latch is released when the agent is farther than this from the target
        (default ``inf``: only ``reset()`` releases it).

    Notes
    -----
    ``SeekPoint.from_params(target, SeekParams(...))`` builds the law from its record, in which
    any field may hold one value per agent (for ``step_batch``); ``SeekParams.for_engine`` fills
    the engine's terms.

    Examples
    --------
    >>> from steerlab.engines.halflife import HalfLifeEngine, HalfLifeParams
    >>> engine, state = HalfLifeEngine(), AgentState(x=-500.0)
    >>> law = SeekPoint((0.0, 0.0), engine=HalfLifeParams())
    >>> for _ in range(300):
    ...     state = engine.step(state, law.step(state, 0.01), 0.01)
    >>> abs(state.x) < 1.0
    True
    """

    _PARAMS = SeekParams

    def __init__(
        self,
        target,
        k_d: float | None = None,
        speed_bound: float = 320.0,
        arrival_radius: float | None = 0.0,
        rearm_distance: float = math.inf,
        engine: HalfLifeParams | BaseEngineParams | None = None,
    ):
        k_d = math.inf if k_d is None else check_positive("k_d", k_d)
        arrive = arrival_radius is not None
        params = SeekParams.for_engine(
            engine,
            k_d=k_d,
            speed_bound=speed_bound,
            arrival_radius=arrival_radius if arrive else 0.0,
            rearm_distance=rearm_distance,
            arrive=arrive,
        )
        self._setup(target, params)

    def _setup(self, points, params) -> None:
        super()._setup(points, params)
        self._kernel_record = self.params.kernel_record()
        self.memory = SeekMemory()
        self._batch_arrived: np.ndarray | None = None

    arrival_radius = record_field(
        "arrival_radius", flag="arrive", doc="[u]; ``None`` when the latch is off (the seed's law)."
    )
    rearm_distance = record_field("rearm_distance")
    engine = record_field("engine", doc='Whose stop distance the law brakes on (``"none"``).')

    def step(self, state: AgentState, dt: float) -> Command:
        """The command for this frame (updates the arrival latch)."""
        state, dt = self._check_step(state, dt)
        arguments = (state, self.memory, self._kernel_record, self._single, dt)
        heading, speed, arrived = run_entry(self, _seek_command, arguments)
        self.memory = SeekMemory(bool(arrived))
        return Command(heading, speed)

    def step_batch(
        self, batch: AgentBatch, dt: float, out: BatchOutput | None = None
    ) -> BatchOutput:
        """Commands for every agent of ``batch``; one arrival latch per agent until ``reset()``."""
        dt = self._check_batch(batch, dt)
        out = BatchOutput.ensure(out, batch.size)
        if self._batch_arrived is None or self._batch_arrived.size != batch.size:
            self._batch_arrived = np.zeros(batch.size, dtype=np.bool_)
        _seek_batch(
            *batch.fields(),
            self._batch_arrived,
            self._kernel_record,
            self._target,
            dt,
            out.yaw,
            out.speed,
        )
        return out

    @property
    def batch_arrived(self) -> np.ndarray | None:
        """Per-agent arrival latch of the batch (``None`` before the first ``step_batch``)."""
        return self._batch_arrived

    def reset(self) -> None:
        """Release the arrival latch (scalar and batch)."""
        self.memory = SeekMemory()
        self._batch_arrived = None

    def __repr__(self) -> str:
        return (
            f"SeekPoint(target={self.target.tolist()}, k_d={self.k_d}, "
            f"speed_bound={self.speed_bound}, arrival_radius={self.arrival_radius}, "
            f"engine={self.engine!r})"
        )
