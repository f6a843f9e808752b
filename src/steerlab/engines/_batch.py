"""What the heading/speed engines share: the checks of a step, the call of a batch step."""

from __future__ import annotations

import numba
import numpy as np

from steerlab._checks import batch_array, check_finite_array, check_record, check_timestep
from steerlab._jit import batch_kernel, run_entry
from steerlab._per_agent import check_agent_count, check_shared, per_agent_size
from steerlab.engines.state import AgentBatch, check_command, check_state

__all__ = ["check_batch_commands", "engine_params", "run_step", "run_step_batch"]


def engine_params(params, record_type: type):
    """An engine's ``(params, agents)``: its record (``None``: ``record_type``'s defaults)
    validated, and the number of agents its per-agent fields serve (``None``: any)."""
    if params is None:
        params = record_type()
    check_record("params", params, record_type)
    params = params.validated()
    return params, per_agent_size(params)


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
    yaw_command = batch_array("yaw_command", yaw_command, batch.size)
    speed_command = batch_array("speed_command", speed_command, batch.size)
    if _count_bad_commands(yaw_command, speed_command):
        check_finite_array("yaw_command", yaw_command)
        check_finite_array("speed_command", speed_command)
        index = int(np.argmax(speed_command < 0.0))
        raise ValueError(
            f"speed_command[{index}] must be >= 0 (no backwards move), got {speed_command[index]!r}"
        )
    return yaw_command, speed_command, dt


def run_step(engine, step, record, state, command, dt, name: str):
    """An engine's scalar ``step``: validate, refuse a per-agent record (``name`` the method),
    call ``step(state, command, record, dt)`` through the engine's cached entry point
    (``steerlab._jit.cached_entry``: no dispatch per frame); ``record`` is ``engine.params`` as
    the kernel reads it."""
    state = check_state(state)
    command = check_command(command)
    dt = check_timestep(dt)
    if engine.agents is not None:
        check_shared(engine.params, name)
    arguments = (state, command, record, dt)
    return run_entry(engine, step, arguments)


def run_step_batch(loop, record, batch, yaw_command, speed_command, dt) -> None:
    """An engine's ``step_batch``: validate the commands, check the per-agent record's size, run
    the batch ``loop`` over the batch's arrays in place."""
    yaw_command, speed_command, dt = check_batch_commands(batch, yaw_command, speed_command, dt)
    check_agent_count(record, batch.size)
    loop(*batch.fields(), yaw_command, speed_command, record, dt)
