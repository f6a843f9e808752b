"""Towards a point, and past and around a point (seed 000).

Seed 000, "Moving towards a destination point": ``UE_mVel = min(k_D MQ, SPEEDBOUND)`` with
``0 < k_D <= 1/T`` and ``UE_yaw = Bear``, the bearing of the destination. "Moving passed & around
a point": ``UE_yaw = Bear - U_VelRBear`` with ``U_VelRBear = Sgn asin(min(U_Dist / MQ, 1))``: the
agent moves on the tangent to the circle of radius ``U_Dist`` around the point, then around it;
``U_Dist = 0`` gives back the first law. One kernel, ``_around_point_command``, serves both.

**Arrival (the seed's "jittery velocity direction changes ... bot dancing around its center
point").** On or very near the destination the bearing turns by up to 180 degrees between frames
as the agent steps over the point, and an engine that cannot stop at once (any speed lag) keeps
stepping over it: the seed's law flips the heading every frame. ``SeekPoint``'s adjustment is an
*arrival latch*: once the destination is within ``max(arrival_radius, speed * T)`` (the distance
the agent covers in one frame, so the default ``arrival_radius = 0`` needs no tuning in any unit
system, plus whatever tolerance the user asks for), the agent has arrived: the law commands zero
speed and holds the current heading, and keeps doing so (the latch is memory, returned by the
kernel and kept by the class) until ``reset()``, or until the agent is more than
``rearm_distance`` from the destination (pushed away; default: never). The agent then ends where
its engine brings it to rest: within the arrival radius plus the engine's stop distance from
the arrival speed (to stop *on* the point, brake ahead of it with ``StopAt(method="predict")``,
which knows the engine's stop distance). ``arrival_radius=None`` switches the adjustment off
(the seed's law exactly, for the figures that show the dancing). AroundPoint has no arrival: it
circles its point for ever, as the seed intends.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np

from steerlab._checks import check_nonnegative, check_positive
from steerlab._jit import batch_kernel, kernel
from steerlab.engines.state import AgentBatch, AgentState, Command, check_state
from steerlab.geometry.kernels import asin, atan2, wrap_pi
from steerlab.laws._common import (
    BatchOutput,
    check_batch_size,
    check_gain_against_frame,
    check_points,
    check_single,
    columns,
    pick,
)

__all__ = ["AroundPoint", "SeekMemory", "SeekPoint"]

_NO_ARRIVAL = -1.0  # kernel value of arrival_radius=None


@kernel
def _around_point_command(x, y, yaw, target_x, target_y, distance, side, k_d, speed_bound):
    """Seed 000: ``(UE_yaw, UE_mVel)`` towards, or past and around, the point ``Q``.

    ``MQ`` = distance to the target, ``Bear`` = its bearing, ``UE_mVel = min(k_D MQ,
    SPEEDBOUND)``, ``U_VelRBear = side * asin(min(distance / MQ, 1))``, ``UE_yaw = Bear -
    U_VelRBear``; ``distance = 0`` is "towards a point". Exactly on the point the bearing is
    undefined: the heading is held.
    """
    dx = target_x - x
    dy = target_y - y
    remaining = math.sqrt(dx * dx + dy * dy)  # MQ
    speed = min(k_d * remaining, speed_bound)
    bearing = atan2(dy, dx)  # Bear
    ratio = min(distance / remaining, 1.0) if remaining > 0.0 else 0.0
    relative_bearing = side * asin(ratio)  # U_VelRBear; exactly 0 when distance = 0
    heading = wrap_pi(bearing - relative_bearing)
    # selects, not branches: the batch loop vectorizes (branch-free atan2 and asin too)
    on_point = remaining == 0.0
    return (yaw if on_point else heading), speed


@kernel
def _seek_command(
    x,
    y,
    vx,
    vy,
    yaw,
    target_x,
    target_y,
    arrived,
    k_d,
    speed_bound,
    arrival_radius,
    rearm_distance,
    dt,
):
    """Seed 000 "towards a point" with the arrival latch: ``(UE_yaw, UE_mVel, arrived)``.

    ``arrival_radius < 0`` disables the latch (the seed's law). See the module docstring.
    """
    dx = target_x - x
    dy = target_y - y
    remaining = math.sqrt(dx * dx + dy * dy)
    speed_now = math.sqrt(vx * vx + vy * vy)
    # the latch as boolean algebra (& and |, no short-circuit branches): it vectorizes
    arrived = arrived & (remaining <= rearm_distance)
    arrived = arrived | (remaining <= max(arrival_radius, speed_now * dt))
    arrived = arrived & (arrival_radius >= 0.0)
    heading, speed = _around_point_command(
        x, y, yaw, target_x, target_y, 0.0, 1.0, k_d, speed_bound
    )
    return (yaw if arrived else heading), (0.0 if arrived else speed), arrived


@batch_kernel
def _around_point_batch(
    x, y, yaw, target_x, target_y, distance, side, k_d, speed_bound, out_yaw, out_speed
):
    for i in numba.prange(x.size):
        out_yaw[i], out_speed[i] = _around_point_command(
            x[i],
            y[i],
            yaw[i],
            pick(target_x, i),
            pick(target_y, i),
            distance,
            side,
            k_d,
            speed_bound,
        )


@batch_kernel
def _seek_batch(
    x,
    y,
    vx,
    vy,
    yaw,
    target_x,
    target_y,
    arrived,
    k_d,
    speed_bound,
    arrival_radius,
    rearm_distance,
    dt,
    out_yaw,
    out_speed,
):
    for i in numba.prange(x.size):
        out_yaw[i], out_speed[i], arrived[i] = _seek_command(
            x[i],
            y[i],
            vx[i],
            vy[i],
            yaw[i],
            pick(target_x, i),
            pick(target_y, i),
            arrived[i],
            k_d,
            speed_bound,
            arrival_radius,
            rearm_distance,
            dt,
        )


class SeekMemory(NamedTuple):
    """What ``SeekPoint`` remembers between frames."""

    arrived: bool = False  # the arrival latch (module docstring)


class AroundPoint:
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
    """

    def __init__(
        self,
        center,
        distance: float,
        side: int = 1,
        k_d: float | None = None,
        speed_bound: float = 320.0,
    ):
        self._points = check_points("center", center)
        self.distance = check_nonnegative("distance", distance)
        if side not in (1, -1):
            raise ValueError(f"side must be +1 or -1, got {side!r}")
        self.side = float(side)
        self.k_d = None if k_d is None else check_positive("k_d", k_d)
        self.speed_bound = check_positive("speed_bound", speed_bound, allow_inf=True)

    @property
    def target(self) -> np.ndarray:
        """The point(s), ``(2,)`` for one or ``(n, 2)`` for one per agent."""
        return self._points[0].copy() if self._points.shape[0] == 1 else self._points.copy()

    def _gain(self, dt) -> float:
        return check_gain_against_frame("k_d", self.k_d, dt, "seed 000: 0 < k_D <= 1/T")

    def step(self, state: AgentState, dt: float) -> Command:
        """The command for this frame."""
        check_single("center", self._points)
        state = check_state(state)
        k_d = self._gain(dt)
        target_x, target_y = (float(value) for value in self._points[0])
        return Command(
            *_around_point_command(
                state.x,
                state.y,
                state.yaw,
                target_x,
                target_y,
                self.distance,
                self.side,
                k_d,
                self.speed_bound,
            )
        )

    def step_batch(
        self, batch: AgentBatch, dt: float, out: BatchOutput | None = None
    ) -> BatchOutput:
        """Commands for every agent of ``batch`` (``out`` reused when given)."""
        check_batch_size("center", self._points, batch)
        k_d = self._gain(dt)
        out = BatchOutput.ensure(out, batch.size)
        target_x, target_y = columns(self._points)
        _around_point_batch(
            batch.x,
            batch.y,
            batch.yaw,
            target_x,
            target_y,
            self.distance,
            self.side,
            k_d,
            self.speed_bound,
            out.yaw,
            out.speed,
        )
        return out

    def reset(self) -> None:
        """AroundPoint holds no memory between frames."""

    def __repr__(self) -> str:
        return (
            f"AroundPoint(center={self.target.tolist()}, distance={self.distance}, "
            f"side={int(self.side)}, k_d={self.k_d}, speed_bound={self.speed_bound})"
        )


class SeekPoint:
    """Move towards a point (seed 000, "Moving towards a destination point"), then arrive.

    ``UE_mVel = min(k_D MQ, SPEEDBOUND)``, ``UE_yaw = Bear`` (the kernel AroundPoint uses, with
    ``U_Dist = 0``), plus the arrival latch of the module docstring.

    Parameters
    ----------
    target : (x, y), or an (n, 2) array (one per agent, for ``step_batch``)
    k_d, speed_bound
        As ``AroundPoint``.
    arrival_radius : float or None
        [u] >= 0, tolerance added to the frame's own travel ``speed * T``; ``None`` turns the
        latch off (the seed's law, which dances on the destination).
    rearm_distance : float
        [u] the latch is released when the agent is farther than this from the target
        (default ``inf``: only ``reset()`` releases it).
    """

    def __init__(
        self,
        target,
        k_d: float | None = None,
        speed_bound: float = 320.0,
        arrival_radius: float | None = 0.0,
        rearm_distance: float = math.inf,
    ):
        self._points = check_points("target", target)
        self.k_d = None if k_d is None else check_positive("k_d", k_d)
        self.speed_bound = check_positive("speed_bound", speed_bound, allow_inf=True)
        self.arrival_radius = (
            None if arrival_radius is None else check_nonnegative("arrival_radius", arrival_radius)
        )
        self.rearm_distance = check_positive("rearm_distance", rearm_distance, allow_inf=True)
        self.memory = SeekMemory()
        self._batch_arrived: np.ndarray | None = None

    target = AroundPoint.target
    _gain = AroundPoint._gain

    def _kernel_args(self, dt):
        radius = _NO_ARRIVAL if self.arrival_radius is None else self.arrival_radius
        return self._gain(dt), self.speed_bound, radius, self.rearm_distance, float(dt)

    def step(self, state: AgentState, dt: float) -> Command:
        """The command for this frame (updates the arrival latch)."""
        check_single("target", self._points)
        state = check_state(state)
        target_x, target_y = (float(value) for value in self._points[0])
        heading, speed, arrived = _seek_command(
            *state, target_x, target_y, self.memory.arrived, *self._kernel_args(dt)
        )
        self.memory = SeekMemory(bool(arrived))
        return Command(heading, speed)

    def step_batch(
        self, batch: AgentBatch, dt: float, out: BatchOutput | None = None
    ) -> BatchOutput:
        """Commands for every agent of ``batch``; one arrival latch per agent until ``reset()``."""
        check_batch_size("target", self._points, batch)
        arguments = self._kernel_args(dt)
        out = BatchOutput.ensure(out, batch.size)
        if self._batch_arrived is None or self._batch_arrived.size != batch.size:
            self._batch_arrived = np.zeros(batch.size, dtype=np.bool_)
        target_x, target_y = columns(self._points)
        _seek_batch(
            batch.x,
            batch.y,
            batch.vx,
            batch.vy,
            batch.yaw,
            target_x,
            target_y,
            self._batch_arrived,
            *arguments,
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
            f"speed_bound={self.speed_bound}, arrival_radius={self.arrival_radius})"
        )
