"""The one dynamics kernel of every vehicle kind: dispatch on ``params.kind``.

``_vehicle_dynamics`` is what ``Vehicle.step_batch`` and the world composite (``steerlab.sim``,
which adds terrain and collisions around it) call; ``Vehicle.step``, one vehicle of one kind,
calls that kind's kernel (``kind_dynamics``). It knows nothing of
collisions; terrain enters only through ``gravity_forward`` and ``gravity_left`` [m/s^2], the
components along the body's forward and left axes of gravity's pull along the terrain (e.g.
``-GRAVITY * sin(grade)`` forward when facing straight uphill; ``0, 0`` on flat ground). The
normal load follows from them: ``g_n = sqrt(GRAVITY^2 - gravity_forward^2 - gravity_left^2)``.
"""

from __future__ import annotations

from typing import Any

from steerlab._jit import kernel
from steerlab.vehicles.bicycle import _bicycle_step
from steerlab.vehicles.hover import _hover_step
from steerlab.vehicles.params import HOVER, TRACKED
from steerlab.vehicles.tracked import _tracked_step

__all__: list[str] = []


def kind_dynamics(kind: int) -> Any:
    """The kernel ``_vehicle_dynamics`` runs for vehicles of ``kind`` (same arguments): a step of
    vehicles of one kind calls it directly, and compiles that kind's dynamics only (read from
    this module's globals at each call, so ``steerlab._jit.uncompiled`` swaps it too)."""
    if kind == TRACKED:
        return _tracked_step
    if kind == HOVER:
        return _hover_step
    return _bicycle_step


@kernel
def _vehicle_dynamics(state, command, params, gravity_forward, gravity_left, dt):
    """One frame of a vehicle of any kind: the ``VehicleState`` ``dt`` seconds later.

    ``state`` a ``VehicleState``; ``command`` a ``DriveCommand``, the game's two inputs in
    ``[-1, 1]`` (seed 001, "Problem Formulation"); ``params`` a validated ``VehicleParams`` of
    numbers (a batch hands each vehicle its own, ``steerlab._per_agent.agent_params``); ``dt`` > 0
    seconds.
    """
    if params.kind == TRACKED:
        return _tracked_step(state, command, params, gravity_forward, gravity_left, dt)
    if params.kind == HOVER:
        return _hover_step(state, command, params, gravity_forward, gravity_left, dt)
    return _bicycle_step(state, command, params, gravity_forward, gravity_left, dt)
