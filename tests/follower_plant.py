"""TEST FIXTURE for the follower tests: a small kinematic vehicle, not steerlab's vehicle models.

The closed-loop follower tests need a plant driven by ``DriveCommand(steer, throttle)``. This
one is deliberately simple, so that a test failure points at the follower:

- lateral: a kinematic bicycle (``yaw_rate = v tan(steer max_steer) / wheelbase``) for a wheeled
  vehicle, or a hull turning at ``steer * yaw_rate_full`` for a tracked / hover one;
- longitudinal: first order, ``dv/dt = accel_full throttle - drag v - g sin(grade)``, with a
  constant ``grade`` [rad] for the slope tests (uphill positive along any heading);
- an optional ``blocked(x, y)`` region (a wall): a step that would end inside it does not move
  the vehicle and zeroes its speed (the vehicle stops against the wall; backing out is free).

``step(state, command, dt)`` takes and returns ``VehicleState``, so ``steerlab.sim.simulate``
runs it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from steerlab.vehicles.state import DriveCommand, VehicleState

G = 9.81


class FixtureParams(NamedTuple):
    kind: int = 0  # 0 wheeled, 1 tracked, 2 hover (what PathFollower reads)
    wheelbase: float = 2.8  # [m]
    max_steer: float = 0.6  # [rad]
    accel_full: float = 4.0  # [m/s^2] at full throttle
    drag: float = 0.1  # [1/s]
    yaw_rate_full: float = 1.5  # [rad/s] tracked / hover at full steer


class FixturePlant:
    def __init__(
        self,
        params: FixtureParams = FixtureParams(),  # noqa: B008
        grade: float = 0.0,
        blocked: Callable[[float, float], bool] | None = None,
    ):
        self.params = params
        self.grade = grade
        self.blocked = blocked
        self.frames = 0  # steps taken
        self.blocked_frames = 0  # steps that ended against the wall
        self.first_blocked_frame = None  # index (0-based) of the first of them

    def step(self, state: VehicleState, command: DriveCommand, dt: float) -> VehicleState:
        p = self.params
        v = state.v + dt * (
            p.accel_full * command.throttle - p.drag * state.v - G * math.sin(self.grade)
        )
        if p.kind == 0:
            delta = command.steer * p.max_steer
            yaw_rate = v * math.tan(delta) / p.wheelbase
        else:
            delta = 0.0
            yaw_rate = command.steer * p.yaw_rate_full
        yaw = math.remainder(state.yaw + yaw_rate * dt, 2.0 * math.pi)
        x = state.x + v * math.cos(yaw) * dt
        y = state.y + v * math.sin(yaw) * dt
        self.frames += 1
        if self.blocked is not None and self.blocked(x, y):
            if self.first_blocked_frame is None:
                self.first_blocked_frame = self.frames - 1
            self.blocked_frames += 1
            return VehicleState(state.x, state.y, state.yaw, 0.0, 0.0, 0.0, delta)
        return VehicleState(x, y, yaw, v, 0.0, yaw_rate, delta)


def cross_track(path, x, y):
    """Unsigned distance from ``(x, y)`` to a ``Polyline`` (independent brute force over its
    segments)."""
    points = np.asarray(path.points[:, :2], dtype=float)
    a, b = points[:-1], points[1:]
    u = b - a
    length2 = (u * u).sum(axis=1)
    offset = np.array((x, y)) - a
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.where(length2 > 0.0, (offset * u).sum(axis=1) / length2, 0.0)
    t = np.clip(t, 0.0, 1.0)
    return float(np.hypot(*(offset - t[:, None] * u).T).min())
