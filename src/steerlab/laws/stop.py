"""Decelerating and stopping on a point (seed 000, "Decelerating & stopping").

Two ways, as the seed lists them:

``method="distance"``
    A control law on distance, ``UE_mVel = k_D MQ / T`` with ``0 < k_D <= 1``, heading to the
    point: the seed's "towards a point" law with the gain ``k_D / T`` (one kernel,
    ``point._around_point_command``), without SeekPoint's arrival latch. The seed: it "works
    with an engine such as the base engine without bound
    on decceleration; it does not in the other case, and not quite with Half_life engine".
``method="predict"``
    Open-loop prediction: head to the point at the cruise speed and command ``UE_mVel = 0`` from
    the first frame where ``MQ <= stop distance(current speed)``, the engine's own stop distance
    (Half-Life: seed 004's exact ``getStopDistDetailed``; BaseEngine: derived from its
    pseudo-code, ``engines.base._base_engine_stop_distance``; both via ``laws._braking``). The
    trigger is latched (kept until ``reset()``): once stopped the remaining distance exceeds the
    stop distance of a speed of zero, and an unlatched law would start again and creep. The seed
    warns that this "cannot result in a final MQ exactly equal to zero"; seed 004 bounds the
    error by ``T * speed``.

One kernel, ``_stop_command(state, memory, params, target, dt)``, serves both: the method is a
field of the parameter record ``StopParams``, with the gain, the speed and what the prediction
needs of the engine. A law built from a record (``StopAt.from_params``) may hold one value per
agent in any field (the method too), for ``step_batch``.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np

from steerlab._checks import check_negative, check_positive, check_record, check_timestep
from steerlab._jit import batch_kernel, kernel, run_entry
from steerlab._per_agent import agent_params, check_agent_count, check_shared, set_agent
from steerlab.engines.base import BaseEngine, BaseEngineParams
from steerlab.engines.halflife import HalfLifeEngine, HalfLifeParams, _emergency_stop_distance_exact
from steerlab.engines.state import AgentBatch, AgentState, Command, check_state
from steerlab.geometry.kernels import atan2, sincos, wrap_pi
from steerlab.laws._braking import ENGINES as _ENGINE_CODES
from steerlab.laws._braking import _engine_stop_distance
from steerlab.laws._common import (
    BatchOutput,
    Target,
    check_batch_size,
    check_choice,
    check_points,
    check_single,
    check_targets_and_params,
    choice_codes,
    columns,
    pick,
    record_fields,
)
from steerlab.laws.point import AroundParams, _around_point_command

__all__ = ["ENGINES", "METHODS", "StopAt", "StopMemory", "StopParams"]

METHODS = ("distance", "predict", "emergency")
ENGINES = ("base", "half-life")  # whose stop distance "predict" uses: BaseEngine, Half-Life
_PREDICT = METHODS.index("predict")
_EMERGENCY = METHODS.index("emergency")


class StopParams(NamedTuple):
    """Parameters of ``StopAt`` (seed 000, "Decelerating & stopping").

    Each field is a number (``method`` and ``engine`` names), or in a law's batch one value per
    agent (a 1-D sequence). From ``engine`` on they are the engine's, for ``"predict"`` and
    ``"emergency"``: ``k_speed`` and ``decel_long_max`` of a ``BaseEngineParams`` or
    ``friction``, ``stopspeed`` and ``accelerate`` of a ``HalfLifeParams`` (the other engine's
    are not read); ``"emergency"`` needs Half-Life's and ``opposite_speed``.
    """

    method: str = "distance"  # one of METHODS (module docstring)
    k_d: float = 0.5  # k_D of "distance", 0 < k_D <= 1 (dimensionless: the law divides by T)
    # [u/s] > 0, the speed bound of "distance" (inf: none) and the cruise speed of "predict"
    speed: float = 320.0
    engine: str = "base"  # one of ENGINES
    k_speed: float = BaseEngineParams().k_speed  # [1/s] the BaseEngine's speed lag; inf: none
    decel_long_max: float = BaseEngineParams().decel_long_max  # [u/s^2] < 0, -inf: none
    friction: float = HalfLifeParams().friction  # [1/s] sv_friction
    stopspeed: float = HalfLifeParams().stopspeed  # [u/s] sv_stopspeed
    accelerate: float = HalfLifeParams().accelerate  # [1/s] sv_accelerate
    # [u/s] > 0, "emergency": the wished speed against the motion (at most the engine's maxspeed)
    opposite_speed: float = HalfLifeParams().maxspeed

    def validated(self) -> StopParams:
        """Return the fields as floats (``method``, ``engine`` names or tuples of them);
        ``ValueError`` naming the first bad one."""
        method = check_choice("method", self.method, METHODS)
        k_d = check_positive("k_d", self.k_d)
        above = np.asarray(k_d) > 1.0
        if above.any():
            label, value = "k_d", k_d
            if isinstance(k_d, np.ndarray):
                index = int(np.argmax(above))
                label, value = f"k_d[{index}]", float(k_d[index])
            raise ValueError(
                f"{label} must be <= 1 (seed 000: UE_mVel = k_D MQ / T), got {value!r}"
            )
        speed = check_positive("speed", self.speed, allow_inf=True)
        # "predict" cruises at a finite speed: only "distance" may leave its speed unbounded
        predicting = np.isin(np.array(method, ndmin=1), "predict")
        infinite = predicting & np.isinf(speed)
        if infinite.any():
            label, value = "speed", speed
            if isinstance(speed, np.ndarray):
                index = int(np.argmax(infinite))
                label, value = f"speed[{index}]", float(speed[index])
            check_positive(label, value)
        return StopParams(
            method=method,
            k_d=k_d,
            speed=speed,
            engine=check_choice("engine", self.engine, ENGINES),
            k_speed=check_positive("k_speed", self.k_speed, allow_inf=True),
            decel_long_max=check_negative("decel_long_max", self.decel_long_max, allow_inf=True),
            friction=check_positive("friction", self.friction),
            stopspeed=check_positive("stopspeed", self.stopspeed),
            accelerate=check_positive("accelerate", self.accelerate),
            opposite_speed=check_positive("opposite_speed", self.opposite_speed),
        )._check_emergency()

    def _check_emergency(self) -> StopParams:
        """``"emergency"`` only on Half-Life: the BaseEngine has no backwards command."""
        methods = np.array(self.method, ndmin=1)
        engines = np.array(self.engine, ndmin=1)
        wrong = (methods == "emergency") & (engines != "half-life")
        if wrong.any():
            index = int(np.argmax(wrong))
            where = "" if methods.size == engines.size == 1 else f" (agent {index})"
            raise ValueError(
                f"method 'emergency' needs engine 'half-life'{where}: seed 004's emergency stop "
                f"commands a speed against the motion, got engine {engines[index % engines.size]!r}"
            )
        return self

    def kernel_record(self) -> StopParams:
        """The record as the kernels read it: ``method`` and ``engine`` as their indices in
        ``METHODS`` and ``laws._braking.ENGINES``."""
        return self._replace(
            method=choice_codes(self.method, METHODS),
            engine=choice_codes(self.engine, _ENGINE_CODES),
        )


class StopMemory(NamedTuple):
    """What ``StopAt`` remembers between frames (``"predict"``, ``"emergency"``)."""

    stopping: bool = False  # the zero-speed command has been triggered
    braking: bool = False  # "emergency": the speed against the motion is being commanded
    brake_yaw: float = 0.0  # [rad] "emergency": the direction of motion when braking began


@kernel
def _stop_command(state, memory, params, target, dt):
    """Seed 000 "Decelerating & stopping" and seed 004's emergency stop: ``(UE_yaw, UE_mVel,
    stopping, braking, brake_yaw)``, the command and the new ``StopMemory`` fields (flat:
    numba's parallel array analysis fails on a tuple of records).

    ``"distance"``: the "towards a point" law with the gain ``k_D / T`` and the speed bound
    ``speed``; the memory is kept as it is. ``"predict"``: heads for the target at the cruise
    ``speed`` (the same law with ``k_D = 1/T``) until ``MQ <= stop distance(mVel)``; from then on
    commands zero speed and holds the heading (``stopping``, latched). ``"emergency"``: cruises
    likewise until ``MQ`` is within seed 004's ``getEmergStopDistDetailed`` from ``mVel`` (the
    distance at which the speed changes sign under ``opposite_speed`` against the motion), or
    within one frame of travel ``mVel T`` (closer, the cruise law would slow down first); then
    commands ``opposite_speed`` against the direction of motion (``braking``), "until speed is
    zero then released to avoid moving back". A bot is "more accurate" than a player: on the
    frame where a full press would reverse the motion (the speed left after the frame's friction,
    ``v - T F max(v, S)``, no more than ``A T U``) it presses just enough to end at zero, ``U' =
    (v - T F max(v, S)) / (A T)`` (both Half-Life models then stop exactly), and zero speed is
    latched from the next frame.
    """
    stopping = memory.stopping
    braking = memory.braking
    brake_yaw = memory.brake_yaw
    if params.method != _PREDICT and params.method != _EMERGENCY:
        towards = AroundParams(0.0, 1.0, params.k_d / dt, params.speed)
        heading, speed = _around_point_command(state, towards, target, dt)
        return heading, speed, stopping, braking, brake_yaw
    speed_now = math.sqrt(state.vx * state.vx + state.vy * state.vy)
    if not stopping and not braking:
        dx = target.x - state.x
        dy = target.y - state.y
        remaining = math.sqrt(dx * dx + dy * dy)
        if params.method == _PREDICT:
            stopping = remaining <= _engine_stop_distance(speed_now, dt, params)
        else:
            opposite = params.opposite_speed
            reach = _emergency_stop_distance_exact(
                speed_now, opposite, dt, params.accelerate, params.friction, params.stopspeed
            )
            # or within a frame's travel, where the cruise law would slow down instead
            braking = remaining <= max(reach, speed_now * dt)
            brake_yaw = atan2(state.vy, state.vx) if speed_now > 0.0 else state.yaw
    if braking:
        sin_brake, cos_brake = sincos(brake_yaw)
        along = state.vx * cos_brake + state.vy * sin_brake
        backwards = wrap_pi(brake_yaw + math.pi)
        # this frame's friction, then at most accelerate T U against the motion
        after_friction = max(along - dt * params.friction * max(along, params.stopspeed), 0.0)
        if after_friction > dt * params.accelerate * params.opposite_speed:
            return backwards, params.opposite_speed, stopping, braking, brake_yaw
        # the last press, just what brings the speed to zero; zero speed from the next frame
        last_press = after_friction / (dt * params.accelerate)
        return backwards, last_press, True, False, brake_yaw
    if stopping:
        return state.yaw, 0.0, stopping, braking, brake_yaw
    cruise = AroundParams(0.0, 1.0, math.inf, params.speed)  # k_D = 1/T
    heading, speed = _around_point_command(state, cruise, target, dt)
    return heading, speed, stopping, braking, brake_yaw


@batch_kernel
def _stop_batch(x, y, vx, vy, yaw, memory, params, target, dt, out_yaw, out_speed):
    """``_stop_command`` for every agent; ``memory`` a ``StopMemory`` of arrays, updated in
    place (``set_agent``)."""
    for i in numba.prange(x.size):
        command = _stop_command(
            AgentState(x[i], y[i], vx[i], vy[i], yaw[i]),
            agent_params(memory, i),
            agent_params(params, i),
            Target(pick(target.x, i), pick(target.y, i)),
            dt,
        )
        out_yaw[i] = command[0]
        out_speed[i] = command[1]
        set_agent(memory, i, command[2:])


class StopAt:
    """Reach a point and stop on it (seed 000, "Decelerating & stopping").

    Parameters
    ----------
    target : (x, y), or an (n, 2) array (one per agent, for ``step_batch``)
    method : "distance", "predict" or "emergency"
        The seed's two ways, and seed 004's emergency stop (module docstring).
    engine : BaseEngine or HalfLifeEngine
        Needed by ``"predict"`` (whose stop distance to use) and ``"emergency"`` (a
        ``HalfLifeEngine``: its emergency stop distance, and a backwards command at its
        ``maxspeed``).
    k_d : float
        ``k_D`` of the distance law, ``0 < k_D <= 1`` (dimensionless: the law divides by T).
    speed : float
        Speed bound of the distance law and cruise speed of the prediction [u/s].

    Notes
    -----
    ``StopAt.from_params(target, StopParams(...))`` builds the law from its record, in which any
    field may hold one value per agent (for ``step_batch``); the record holds the engine's stop
    parameters itself.
    """

    _entry = None  # the scalar step's compiled entry point (steerlab._jit.cached_entry)

    def __init__(
        self, target, method: str = "distance", engine=None, k_d: float = 0.5, speed: float = 320.0
    ):
        points = check_points("target", target)
        if not isinstance(method, str) or method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {method!r}")
        params = StopParams(method=method, k_d=k_d, speed=speed)
        if method == "emergency":
            if not isinstance(engine, HalfLifeEngine):
                raise ValueError(
                    f"engine must be a HalfLifeEngine for method='emergency' (seed 004's emergency "
                    f"stop), got {engine!r}"
                )
            check_shared(engine.params, "StopAt(method='emergency')")
            params = params._replace(
                engine="half-life",
                friction=engine.params.friction,
                stopspeed=engine.params.stopspeed,
                accelerate=engine.params.accelerate,
                opposite_speed=engine.params.maxspeed,
            )
        if method == "predict":
            if isinstance(engine, BaseEngine):
                params = params._replace(
                    engine="base",
                    k_speed=engine.params.k_speed,
                    decel_long_max=engine.params.decel_long_max,
                )
            elif isinstance(engine, HalfLifeEngine):
                params = params._replace(
                    engine="half-life",
                    friction=engine.params.friction,
                    stopspeed=engine.params.stopspeed,
                )
            else:
                raise ValueError(
                    f"engine must be a BaseEngine or a HalfLifeEngine for method='predict', "
                    f"got {engine!r}"
                )
        self._setup(points, params)
        self.engine = engine

    @classmethod
    def from_params(cls, target, params: StopParams) -> StopAt:
        """The law to ``target`` with the record ``params`` (fields may be per agent);
        ``engine`` is then ``None``: the record holds what the prediction needs."""
        check_record("params", params, StopParams)
        law = cls.__new__(cls)
        law._setup(check_points("target", target), params)
        law.engine = None
        return law

    def _setup(self, points: np.ndarray, params: StopParams) -> None:
        self._points = points
        self.params = params.validated()
        self.agents = check_targets_and_params("target", points, self.params)
        self._kernel_record = self.params.kernel_record()
        self._target = Target(*columns(points))
        self._single = Target(*(float(value) for value in points[0]))
        self.memory = StopMemory()
        self._batch_memory: StopMemory | None = None

    @property
    def target(self) -> np.ndarray:
        return self._points[0].copy() if self._points.shape[0] == 1 else self._points.copy()

    method, k_d, speed = record_fields("method", "k_d", "speed")

    def reset(self) -> None:
        """Forget a triggered stop (scalar and batch)."""
        self.memory = StopMemory()
        self._batch_memory = None

    def step(self, state: AgentState, dt: float) -> Command:
        check_single("target", self._points)
        if self.agents is not None:
            check_shared(self.params, "StopAt.step")
        state = check_state(state)
        dt = check_timestep(dt)
        arguments = (state, self.memory, self._kernel_record, self._single, dt)
        heading, speed, stopping, braking, brake_yaw = run_entry(self, _stop_command, arguments)
        self.memory = StopMemory(bool(stopping), bool(braking), float(brake_yaw))
        return Command(heading, speed)

    def step_batch(
        self, batch: AgentBatch, dt: float, out: BatchOutput | None = None
    ) -> BatchOutput:
        """Commands for every agent; ``"predict"`` and ``"emergency"`` keep one memory per agent
        until ``reset()``."""
        check_batch_size("target", self._points, batch)
        check_agent_count(self.params, batch.size)
        dt = check_timestep(dt)
        out = BatchOutput.ensure(out, batch.size)
        memory = self._batch_memory
        if memory is None or memory.stopping.size != batch.size:
            memory = self._batch_memory = StopMemory(
                np.zeros(batch.size, dtype=np.bool_),
                np.zeros(batch.size, dtype=np.bool_),
                np.zeros(batch.size),
            )
        _stop_batch(
            *batch.fields(),
            memory,
            self._kernel_record,
            self._target,
            dt,
            out.yaw,
            out.speed,
        )
        return out

    def stop_distance(self, speed: float, dt: float) -> float:
        """The engine's stop distance from ``speed`` that ``"predict"`` compares with ``MQ``."""
        if self.method != "predict":
            raise ValueError("stop_distance needs method='predict' (it knows the engine)")
        check_shared(self.params, "StopAt.stop_distance")
        return float(_engine_stop_distance(speed, check_timestep(dt), self._kernel_record))

    @property
    def batch_stopping(self) -> np.ndarray | None:
        """Per-agent latch of the batch (``None`` before the first ``step_batch``)."""
        return None if self._batch_memory is None else self._batch_memory.stopping

    @property
    def batch_memory(self) -> StopMemory | None:
        """Per-agent memory of the batch, a ``StopMemory`` of arrays (``None`` before the first
        ``step_batch``)."""
        return self._batch_memory

    def __repr__(self) -> str:
        method = self.method if isinstance(self.method, str) else list(self.method)
        k_d, speed = self.k_d, self.speed
        k_d = k_d.tolist() if isinstance(k_d, np.ndarray) else k_d
        speed = speed.tolist() if isinstance(speed, np.ndarray) else speed
        return f"StopAt(target={self.target.tolist()}, method={method!r}, k_d={k_d}, speed={speed})"
