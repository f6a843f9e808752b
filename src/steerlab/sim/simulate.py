"""The step loop for one agent: a controller decides, a plant moves, every frame recorded."""

from __future__ import annotations

import operator
from typing import Any, NamedTuple, Protocol

import numpy as np

from steerlab._checks import check_timestep
from steerlab.sim.trace import Trace

__all__ = ["ConstantCommand", "Controller", "Plant", "simulate"]


class Controller(Protocol):
    """Anything with ``step(state, dt) -> command`` (and ``reset()``)."""

    def step(self, state: Any, dt: float) -> Any: ...

    def reset(self) -> None: ...


class Plant(Protocol):
    """Anything with ``step(state, command, dt) -> state``: an engine, a vehicle, an adapter."""

    def step(self, state: Any, command: Any, dt: float) -> Any: ...


class ConstantCommand:
    """A controller that returns the same command every frame (tests, open-loop experiments)."""

    def __init__(self, command: NamedTuple):
        self.command = command

    def step(self, state: Any, dt: float) -> NamedTuple:
        return self.command

    def reset(self) -> None:
        pass

    def __repr__(self) -> str:
        return f"ConstantCommand({self.command!r})"


def simulate(
    plant: Plant, controller: Controller, state: NamedTuple, dt: float, steps: int
) -> Trace:
    """Run ``steps`` frames of ``dt`` seconds from ``state``; return the recorded ``Trace``.

    Each frame: ``command = controller.step(state, dt)``, then ``state = plant.step(state,
    command, dt)``. The controller is ``reset()`` first. States and commands must be
    ``NamedTuple`` records of numbers (``AgentState``, ``Command``, ...).
    """
    dt = check_timestep(dt)
    try:
        steps = operator.index(steps)
    except TypeError:
        raise ValueError(f"steps must be an integer, got {steps!r}") from None
    if steps < 0:
        raise ValueError(f"steps must be >= 0, got {steps!r}")
    if not hasattr(state, "_fields"):
        raise ValueError(f"state must be a NamedTuple record, got {state!r}")
    for name, part in (("plant", plant), ("controller", controller)):
        if not callable(getattr(part, "step", None)):
            raise ValueError(f"{name} must have a step method, got {part!r}")
    if hasattr(controller, "reset"):
        controller.reset()
    state_rows = [tuple(state)]
    command_rows = []
    command_type = None
    for _ in range(steps):
        command = controller.step(state, dt)
        if command_type is None:
            command_type = type(command)
        state = plant.step(state, command, dt)
        command_rows.append(tuple(command))
        state_rows.append(tuple(state))
    state_array = np.array(state_rows, dtype=np.float64).reshape(steps + 1, len(state._fields))
    states = {name: state_array[:, j].copy() for j, name in enumerate(state._fields)}
    commands = {}
    if command_type is not None:
        fields = command_type._fields
        command_array = np.array(command_rows, dtype=np.float64).reshape(steps, len(fields))
        commands = {name: command_array[:, j].copy() for j, name in enumerate(fields)}
    t = dt * np.arange(steps + 1, dtype=np.float64)
    return Trace(
        t,
        states,
        commands,
        type(state).__name__,
        command_type.__name__ if command_type is not None else "",
    )
