"""State and command records of heading/speed agents (seeds 000 and 004).

Scalar API: immutable ``NamedTuple`` records that flow (``new = engine.step(state, command,
dt)``). Batch API: ``AgentBatch``, one float64 array per field (struct of arrays), updated in
place by ``step_batch``.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from steerlab._checks import check_field_array, check_finite

__all__ = ["AgentBatch", "AgentState", "Command", "check_command", "check_state"]


class AgentState(NamedTuple):
    """State of a heading/speed agent, world units and radians.

    The seeds' ``M`` (position), ``vVel`` (velocity) and ``Yaw``.
    """

    x: float = 0.0  # [u] position, seeds' Mx
    y: float = 0.0  # [u] position, seeds' My
    vx: float = 0.0  # [u/s] velocity, seeds' vVel
    vy: float = 0.0  # [u/s]
    yaw: float = 0.0  # [rad] heading, counter-clockwise from +x, in [-pi, pi)

    @property
    def speed(self) -> float:
        """Velocity modulus, the seeds' ``mVel`` [u/s]."""
        return math.hypot(self.vx, self.vy)


class Command(NamedTuple):
    """What a guidance law asks of a heading/speed engine: the seeds' ``UE_yaw``, ``UE_mVel``."""

    yaw: float = 0.0  # [rad] wished heading (Half-Life: the wished velocity direction)
    speed: float = 0.0  # [u/s] wished speed, >= 0 (no backwards move)


def check_state(state: AgentState, name: str = "state") -> AgentState:
    """Validate an ``AgentState`` (every field a finite number); return it with float fields."""
    if not isinstance(state, AgentState):
        raise ValueError(f"{name} must be an AgentState, got {state!r}")
    # fast path (one call per frame in a game loop): plain finite floats pass as they are;
    # anything else is converted to float, so kernels see one type signature
    if all(type(value) is float for value in state) and all(map(math.isfinite, state)):
        return state
    return AgentState(
        *(check_finite(f"{name}.{field}", getattr(state, field)) for field in AgentState._fields)
    )


def check_command(command: Command, name: str = "command") -> Command:
    """Validate a ``Command`` (finite yaw, finite speed >= 0); return it with float fields."""
    if not isinstance(command, Command):
        raise ValueError(f"{name} must be a Command, got {command!r}")
    yaw, speed = command
    if type(yaw) is float and type(speed) is float and math.isfinite(yaw + speed) and speed >= 0:
        return command
    yaw = check_finite(f"{name}.yaw", command.yaw)
    speed = check_finite(f"{name}.speed", command.speed)
    if speed < 0.0:
        raise ValueError(f"{name}.speed must be >= 0 (no backwards move), got {command.speed!r}")
    return Command(yaw, speed)


class AgentBatch:
    """Many heading/speed agents as one float64 array per field, updated in place.

    Arrays that already are 1-D C-contiguous float64 are used as they are (no copy), so the caller
    sees the updates; anything else is converted once here.
    """

    __slots__ = ("vx", "vy", "x", "y", "yaw")

    def __init__(self, x, y, vx, vy, yaw):
        x = check_field_array("x", x)
        size = x.size
        self.x = x
        self.y = check_field_array("y", y, size)
        self.vx = check_field_array("vx", vx, size)
        self.vy = check_field_array("vy", vy, size)
        self.yaw = check_field_array("yaw", yaw, size)

    @classmethod
    def zeros(cls, size: int) -> AgentBatch:
        """``size`` agents at rest at the origin, heading +x."""
        if int(size) != size or size < 0:
            raise ValueError(f"size must be a non-negative integer, got {size!r}")
        return cls(*(np.zeros(int(size)) for _ in AgentState._fields))

    @classmethod
    def from_states(cls, states) -> AgentBatch:
        """A batch holding the given ``AgentState`` records, in order."""
        states = [check_state(state, f"states[{i}]") for i, state in enumerate(states)]
        columns = np.array(states, dtype=np.float64).reshape(len(states), 5)
        return cls(*(np.ascontiguousarray(columns[:, j]) for j in range(5)))

    @property
    def size(self) -> int:
        return self.x.size

    def __len__(self) -> int:
        return self.x.size

    def state(self, index: int) -> AgentState:
        """The ``AgentState`` of agent ``index``."""
        return AgentState(
            float(self.x[index]),
            float(self.y[index]),
            float(self.vx[index]),
            float(self.vy[index]),
            float(self.yaw[index]),
        )

    def copy(self) -> AgentBatch:
        return AgentBatch(
            self.x.copy(), self.y.copy(), self.vx.copy(), self.vy.copy(), self.yaw.copy()
        )

    def __repr__(self) -> str:
        return f"AgentBatch(size={self.size})"
