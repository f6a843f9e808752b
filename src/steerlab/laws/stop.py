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
    pseudo-code, ``engines.base._base_engine_stop_distance``). The trigger is latched (kept
    until ``reset()``): once stopped the remaining distance exceeds the stop distance of a speed of
    zero, and an unlatched law would start again and creep. The seed warns that this "cannot
    result in a final MQ exactly equal to zero"; seed 004 bounds the error by ``T * speed``.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np

from steerlab._checks import check_positive, check_timestep
from steerlab._jit import batch_kernel, kernel
from steerlab.engines.base import BaseEngine, _base_engine_stop_distance, _lag_gain
from steerlab.engines.halflife import HalfLifeEngine, _stop_distance_exact
from steerlab.engines.state import AgentBatch, AgentState, Command, check_state
from steerlab.laws._common import (
    BatchOutput,
    check_batch_size,
    check_points,
    check_single,
    columns,
    pick,
)
from steerlab.laws.point import _around_point_command

__all__ = ["StopAt", "StopMemory"]

METHODS = ("distance", "predict")
_BASE_ENGINE = 0
_HALF_LIFE = 1


class StopMemory(NamedTuple):
    """What ``StopAt(method="predict")`` remembers between frames."""

    stopping: bool = False  # the zero-speed command has been triggered


@kernel
def _engine_stop_distance(speed, dt, engine_kind, first, second):
    """Stop distance of the engine the law drives: BaseEngine (``first = k_speed``, ``second =
    decel_long_max``) or Half-Life (``first = friction``, ``second = stopspeed``)."""
    if engine_kind == _BASE_ENGINE:
        return _base_engine_stop_distance(speed, dt, _lag_gain(first, dt), second)
    return _stop_distance_exact(speed, dt, first, second)


@kernel
def _predicted_stop_command(
    x, y, vx, vy, yaw, target_x, target_y, stopping, cruise_speed, engine_kind, first, second, dt
):
    """Seed 000 open-loop stop: ``(UE_yaw, UE_mVel, stopping)``.

    Heads for the target at ``cruise_speed`` (the "towards a point" law with ``k_D = 1/T``)
    until ``MQ <= stop distance(mVel)``; from then on commands zero speed and holds
    the heading.
    """
    if not stopping:
        dx = target_x - x
        dy = target_y - y
        remaining = math.sqrt(dx * dx + dy * dy)
        speed = math.sqrt(vx * vx + vy * vy)
        stopping = remaining <= _engine_stop_distance(speed, dt, engine_kind, first, second)
    if stopping:
        return yaw, 0.0, True
    heading, speed_command = _around_point_command(
        x, y, yaw, target_x, target_y, 0.0, 1.0, 1.0 / dt, cruise_speed
    )
    return heading, speed_command, False


@batch_kernel
def _predicted_stop_batch(
    x,
    y,
    vx,
    vy,
    yaw,
    target_x,
    target_y,
    stopping,
    cruise_speed,
    engine_kind,
    first,
    second,
    dt,
    out_yaw,
    out_speed,
):
    for i in numba.prange(x.size):
        out_yaw[i], out_speed[i], stopping[i] = _predicted_stop_command(
            x[i],
            y[i],
            vx[i],
            vy[i],
            yaw[i],
            pick(target_x, i),
            pick(target_y, i),
            stopping[i],
            cruise_speed,
            engine_kind,
            first,
            second,
            dt,
        )


@batch_kernel
def _distance_stop_batch(x, y, yaw, target_x, target_y, k_d, speed_bound, dt, out_yaw, out_speed):
    for i in numba.prange(x.size):
        out_yaw[i], out_speed[i] = _around_point_command(
            x[i],
            y[i],
            yaw[i],
            pick(target_x, i),
            pick(target_y, i),
            0.0,
            1.0,
            k_d / dt,
            speed_bound,
        )


class StopAt:
    """Reach a point and stop on it (seed 000, "Decelerating & stopping").

    Parameters
    ----------
    target : (x, y), or an (n, 2) array (one per agent, for ``step_batch``)
    method : "distance" or "predict"
        The seed's two ways (module docstring).
    engine : BaseEngine or HalfLifeEngine
        Needed by ``"predict"``: whose stop distance to use.
    k_d : float
        ``k_D`` of the distance law, ``0 < k_D <= 1`` (dimensionless: the law divides by T).
    speed : float
        Speed bound of the distance law and cruise speed of the prediction [u/s].
    """

    def __init__(
        self, target, method: str = "distance", engine=None, k_d: float = 0.5, speed: float = 320.0
    ):
        self._points = check_points("target", target)
        if method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {method!r}")
        self.method = method
        self.k_d = check_positive("k_d", k_d)
        if self.k_d > 1.0:
            raise ValueError(f"k_d must be <= 1 (seed 000: UE_mVel = k_D MQ / T), got {k_d!r}")
        self.speed = check_positive("speed", speed, allow_inf=(method == "distance"))
        self.engine = engine
        if method == "predict":
            if isinstance(engine, BaseEngine):
                self._engine_args = (
                    _BASE_ENGINE,
                    engine.params.k_speed,
                    engine.params.decel_long_max,
                )
            elif isinstance(engine, HalfLifeEngine):
                self._engine_args = (_HALF_LIFE, engine.params.friction, engine.params.stopspeed)
            else:
                raise ValueError(
                    f"engine must be a BaseEngine or a HalfLifeEngine for method='predict', "
                    f"got {engine!r}"
                )
        self.memory = StopMemory()
        self._batch_stopping: np.ndarray | None = None

    @property
    def target(self) -> np.ndarray:
        return self._points[0].copy() if self._points.shape[0] == 1 else self._points.copy()

    def reset(self) -> None:
        """Forget a triggered stop (scalar and batch)."""
        self.memory = StopMemory()
        self._batch_stopping = None

    def step(self, state: AgentState, dt: float) -> Command:
        check_single("target", self._points)
        state = check_state(state)
        dt = check_timestep(dt)
        target_x, target_y = (float(v) for v in self._points[0])
        if self.method == "distance":
            return Command(
                *_around_point_command(
                    state.x,
                    state.y,
                    state.yaw,
                    target_x,
                    target_y,
                    0.0,
                    1.0,
                    self.k_d / dt,
                    self.speed,
                )
            )
        heading, speed, stopping = _predicted_stop_command(
            *state, target_x, target_y, self.memory.stopping, self.speed, *self._engine_args, dt
        )
        self.memory = StopMemory(bool(stopping))
        return Command(heading, speed)

    def step_batch(
        self, batch: AgentBatch, dt: float, out: BatchOutput | None = None
    ) -> BatchOutput:
        """Commands for every agent; ``"predict"`` keeps one latch per agent until ``reset()``."""
        check_batch_size("target", self._points, batch)
        dt = check_timestep(dt)
        out = BatchOutput.ensure(out, batch.size)
        target_x, target_y = columns(self._points)
        if self.method == "distance":
            _distance_stop_batch(
                batch.x,
                batch.y,
                batch.yaw,
                target_x,
                target_y,
                self.k_d,
                self.speed,
                dt,
                out.yaw,
                out.speed,
            )
            return out
        if self._batch_stopping is None or self._batch_stopping.size != batch.size:
            self._batch_stopping = np.zeros(batch.size, dtype=np.bool_)
        _predicted_stop_batch(
            batch.x,
            batch.y,
            batch.vx,
            batch.vy,
            batch.yaw,
            target_x,
            target_y,
            self._batch_stopping,
            self.speed,
            *self._engine_args,
            dt,
            out.yaw,
            out.speed,
        )
        return out

    def stop_distance(self, speed: float, dt: float) -> float:
        """The engine's stop distance from ``speed`` that ``"predict"`` compares with ``MQ``."""
        if self.method != "predict":
            raise ValueError("stop_distance needs method='predict' (it knows the engine)")
        return float(_engine_stop_distance(speed, check_timestep(dt), *self._engine_args))

    @property
    def batch_stopping(self) -> np.ndarray | None:
        """Per-agent latch of the batch (``None`` before the first ``step_batch``)."""
        return self._batch_stopping

    def __repr__(self) -> str:
        return (
            f"StopAt(target={self.target.tolist()}, method={self.method!r}, k_d={self.k_d}, "
            f"speed={self.speed})"
        )
