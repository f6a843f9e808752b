"""What every guidance law shares: target arrays, batch output arrays, gain checks.

A law holds one target (shape ``(2,)``) for ``step``, or one per agent (shape ``(n, 2)``) for
``step_batch``; a single target is broadcast to every agent of a batch. Kernels receive target
columns as arrays and index them with ``_pick(array, i)`` (index 0 when there is one entry).
"""

from __future__ import annotations

import numpy as np

from steerlab._checks import check_finite_array, check_timestep
from steerlab._jit import kernel
from steerlab.engines.state import AgentBatch

__all__ = ["BatchOutput", "check_gain_against_frame", "check_points", "pick"]


@kernel
def pick(values, index):
    """``values[index]``, or ``values[0]`` when one value serves every agent."""
    return values[index] if values.size > 1 else values[0]


def check_points(name: str, points) -> np.ndarray:
    """Validate one point ``(2,)`` or one per agent ``(n, 2)``; return an ``(m, 2)`` array."""
    try:
        array = np.asarray(points, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            f"{name} must be an (x, y) point or an (n, 2) array, got {points!r}"
        ) from None
    if array.ndim == 1 and array.shape == (2,):
        array = array.reshape(1, 2)
    if array.ndim != 2 or array.shape[1] != 2 or array.shape[0] == 0:
        raise ValueError(
            f"{name} must be an (x, y) point or an (n, 2) array, got shape {array.shape}"
        )
    for column, axis in enumerate("xy"):
        check_finite_array(f"{name}[:, {column}] ({axis})", array[:, column])
    return np.ascontiguousarray(array)


def columns(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The x and y columns of an ``(m, 2)`` array, each contiguous."""
    return np.ascontiguousarray(points[:, 0]), np.ascontiguousarray(points[:, 1])


def check_single(name: str, points: np.ndarray) -> None:
    """``step`` needs exactly one target."""
    if points.shape[0] != 1:
        raise ValueError(
            f"{name} holds {points.shape[0]} targets (one per agent): use step_batch, or build "
            f"the law with a single (x, y) target for step"
        )


def check_batch_size(name: str, points: np.ndarray, batch: AgentBatch) -> None:
    if not isinstance(batch, AgentBatch):
        raise ValueError(f"batch must be an AgentBatch, got {batch!r}")
    if points.shape[0] not in (1, batch.size):
        raise ValueError(
            f"{name} holds {points.shape[0]} targets but the batch has {batch.size} agents"
        )


def check_gain_against_frame(name: str, gain: float, dt: float, seed_rule: str) -> float:
    """The seeds bound distance gains by the frame time (``k_D <= 1/T``); ``None`` means 1/T."""
    dt = check_timestep(dt)
    if gain is None:
        return 1.0 / dt
    if gain > 1.0 / dt * (1.0 + 1e-12):
        raise ValueError(f"{name} must be <= 1/dt = {1.0 / dt!r} ({seed_rule}), got {gain!r}")
    return gain


class BatchOutput:
    """Reusable output arrays of a law's ``step_batch``: no allocation per frame."""

    __slots__ = ("speed", "yaw")

    def __init__(self, size: int):
        self.yaw = np.empty(size)
        self.speed = np.empty(size)

    @classmethod
    def ensure(cls, out: BatchOutput | None, size: int) -> BatchOutput:
        if out is None:
            return cls(size)
        if not isinstance(out, BatchOutput) or out.yaw.size != size:
            raise ValueError(f"out must be a BatchOutput of size {size}, got {out!r}")
        return out
