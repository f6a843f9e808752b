"""Shared checks of the batch API of heading/speed engines."""

from __future__ import annotations

import numba
import numpy as np

from steerlab._checks import check_finite_array, check_timestep
from steerlab._jit import batch_kernel
from steerlab.engines.state import AgentBatch

__all__ = ["check_batch_commands"]


@batch_kernel(nrt=True)  # a prange reduction
def _count_bad_commands(yaw_command, speed_command):
    """Number of agents whose command is NaN, infinite, or has a negative speed."""
    bad = 0
    for i in numba.prange(yaw_command.size):
        yaw = yaw_command[i]
        speed = speed_command[i]
        # (x - x == 0) is false for NaN and for +-inf
        if not (yaw - yaw == 0.0 and speed - speed == 0.0 and speed >= 0.0):
            bad += 1
    return bad


def check_batch_commands(batch, yaw_command, speed_command, dt):
    """Validate a ``step_batch`` call once; return the arrays and ``dt`` ready for a kernel.

    One fused pass over the commands; the full diagnosis (argument, index, value) is only
    computed when something is wrong.
    """
    if not isinstance(batch, AgentBatch):
        raise ValueError(f"batch must be an AgentBatch, got {batch!r}")
    dt = check_timestep(dt)
    yaw_command = _as_array("yaw_command", yaw_command, batch.size)
    speed_command = _as_array("speed_command", speed_command, batch.size)
    if _count_bad_commands(yaw_command, speed_command):
        check_finite_array("yaw_command", yaw_command)
        check_finite_array("speed_command", speed_command)
        index = int(np.argmax(speed_command < 0.0))
        raise ValueError(
            f"speed_command[{index}] must be >= 0 (no backwards move), got {speed_command[index]!r}"
        )
    return yaw_command, speed_command, dt


def _as_array(name, values, size):
    array = np.asarray(values, dtype=np.float64)
    if array.ndim == 0:
        return np.full(size, float(array))
    if array.shape != (size,):
        raise ValueError(f"{name} must have shape ({size},) like the batch, got {array.shape}")
    return np.ascontiguousarray(array)
