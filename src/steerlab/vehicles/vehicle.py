"""``Vehicle``: the thin public class around ``_vehicle_dynamics`` (one agent, or a batch).

Scalar API: ``new_state = vehicle.step(state, command, dt)``, validated, the state not modified.
Batch API: ``vehicle.step_batch(batch, steer, throttle, dt)`` updates a ``VehicleBatch`` in place
with the same kernel in ``prange`` (bit for bit the scalar result). A ``Vehicle`` whose
parameters hold one value per vehicle in any field (``kind`` too: a mixed fleet) steps batches of
that many vehicles, vehicle ``i`` with its own record (``steerlab._per_agent``).

With a ``world`` both calls are convenience entry points: the frame of a vehicle in a world is
``steerlab.sim``'s (``steerlab.sim.step_vehicle``, ``step_vehicles``: terrain, gravity, this
kernel, the world's contacts). They hand the validated call to the duck-typed world
(``world.step_vehicle(params, state, command, dt)``, ``world.step_vehicle_batch(params, batch,
steer, throttle, dt)``; ``steerlab.world.World`` passes it on to ``steerlab.sim``): this package
imports neither ``steerlab.world`` nor ``steerlab.sim`` (layers, ``docs/design.md``).
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

import numba
import numpy as np

from steerlab._checks import batch_array, check_finite_array
from steerlab._jit import batch_kernel, entry_point
from steerlab._per_agent import agent_params, check_agent_count, check_shared, per_agent_size
from steerlab.vehicles.dynamics import _vehicle_dynamics, kind_dynamics
from steerlab.vehicles.params import VehicleParams
from steerlab.vehicles.state import (
    DriveCommand,
    VehicleBatch,
    VehicleState,
    check_drive_command,
    check_vehicle_state,
    check_vehicle_timestep,
)

__all__ = ["Vehicle", "check_batch_drive_commands"]


@batch_kernel
def _vehicle_batch(
    x, y, yaw, v, v_lat, yaw_rate, steer, steer_command, throttle_command, params, dt
):
    """Every vehicle of a batch one frame on, in place, on flat ground (no gravity terms);
    vehicle ``i`` with its own parameters (``params`` fields may hold one value per vehicle)."""
    for i in numba.prange(x.size):
        x[i], y[i], yaw[i], v[i], v_lat[i], yaw_rate[i], steer[i] = _vehicle_dynamics(
            VehicleState(x[i], y[i], yaw[i], v[i], v_lat[i], yaw_rate[i], steer[i]),
            DriveCommand(steer_command[i], throttle_command[i]),
            agent_params(params, i),
            0.0,
            0.0,
            dt,
        )


@batch_kernel(nrt=True)  # a prange reduction
def _count_bad_drive_commands(steer_command, throttle_command):
    """Number of vehicles whose steer or throttle is NaN or outside ``[-1, 1]``."""
    bad = 0
    for i in numba.prange(steer_command.size):
        steer = steer_command[i]
        throttle = throttle_command[i]
        # comparisons with NaN are false
        if not (-1.0 <= steer <= 1.0 and -1.0 <= throttle <= 1.0):
            bad += 1
    return bad


def check_batch_drive_commands(batch, steer, throttle, dt):
    """Validate a ``step_batch`` call once; return ``(steer, throttle, dt)`` ready for a kernel.

    Scalars are broadcast. One fused pass over the commands; the message (argument, index, value)
    is only built when something is wrong.
    """
    if not isinstance(batch, VehicleBatch):
        raise ValueError(f"batch must be a VehicleBatch, got {batch!r}")
    dt = check_vehicle_timestep(dt)
    steer = batch_array("steer", steer, batch.size)
    throttle = batch_array("throttle", throttle, batch.size)
    if _count_bad_drive_commands(steer, throttle):
        for name, values in (("steer", steer), ("throttle", throttle)):
            check_finite_array(name, values)
            outside = np.flatnonzero(np.abs(values) > 1.0)
            if outside.size:
                index = int(outside[0])
                raise ValueError(
                    f"{name}[{index}] must be in [-1, 1], got {float(values[index])!r}"
                )
    return steer, throttle, dt


def _world(world: Any, method: str) -> Any:
    """``world`` if it can step a vehicle (``method``), else a ``ValueError``: worlds are
    duck-typed here (this package does not import ``steerlab.world``)."""
    if not callable(getattr(world, method, None)):
        raise ValueError(
            f"world must be a steerlab.world.World (or an object with {method}), got {world!r}"
        )
    return world


class Vehicle:
    """A ground vehicle driven by steer and throttle (seed 001): wheeled, tracked or hover.

    Parameters
    ----------
    params : VehicleParams, str or path
        The vehicle's parameters, the name of a preset (``"storm"``, ``"armata"``, ... see
        ``steerlab.vehicles.PRESETS``) or a vehicle file (``steerlab.vehicles.files``).
        Validated once, here. Any field may hold one value per vehicle (a sequence); such a
        ``Vehicle`` steps batches of that many vehicles only (``step_batch``), and ``step``
        refuses it naming the field.

    Examples
    --------
    >>> from steerlab.vehicles import DriveCommand, Vehicle, VehicleState
    >>> storm = Vehicle("storm")
    >>> state = VehicleState()
    >>> for _ in range(100):
    ...     state = storm.step(state, DriveCommand(steer=0.0, throttle=1.0), dt=0.02)
    >>> 5.0 < state.v < 20.0
    True
    """

    def __init__(self, params: VehicleParams | str):
        if not isinstance(params, VehicleParams):
            from steerlab.vehicles.files import NamedVehicle, resolve_vehicle

            if not isinstance(params, str | NamedVehicle | PurePath):
                raise ValueError(
                    f"params must be a VehicleParams, a preset name or a vehicle file, got "
                    f"{params!r}"
                )
            try:
                params = resolve_vehicle(params).params
            except ValueError as error:
                raise ValueError(f"params: {error}") from None
        self.params = params.validated()
        self.agents = per_agent_size(self.params)
        self._dynamics_source = None  # the kernel the entry point below was taken from
        self._dynamics = None

    def _scalar_dynamics(self, *args):
        """The dynamics of this vehicle's kind (``kind_dynamics``: what ``_vehicle_dynamics``
        runs for it, without compiling the other kinds) compiled for the types of ``args``,
        called without dispatch (``steerlab._jit.entry_point``): the types never change
        (``validated`` makes every field a float), so the compiled code is looked up once. Under
        ``steerlab._jit.uncompiled`` the kernel is plain Python and is called as it is.
        """
        dynamics = kind_dynamics(self.params.kind)
        if dynamics is not self._dynamics_source:
            self._dynamics_source = dynamics
            self._dynamics = entry_point(dynamics, *args)
        return self._dynamics

    def step(
        self, state: VehicleState, command: DriveCommand, dt: float, world: Any = None
    ) -> VehicleState:
        """The state one frame of ``dt`` seconds later; ``state`` is not modified.

        Without ``world`` the ground is flat and empty. With one (a ``steerlab.world.World``, or
        any object with ``step_vehicle(params, state, command, dt)``), the convenience entry
        point into ``steerlab.sim``'s frame of a vehicle in a world (terrain slope, collisions
        around the same dynamics kernel): the validated call goes to ``world.step_vehicle``. The
        frame's contact: ``steerlab.sim.step_vehicle``.
        """
        state = check_vehicle_state(state)
        command = check_drive_command(command)
        dt = check_vehicle_timestep(dt)
        if self.agents is not None:
            check_shared(self.params, "Vehicle.step")
        if world is not None:
            return _world(world, "step_vehicle").step_vehicle(self.params, state, command, dt)
        arguments = (state, command, self.params, 0.0, 0.0, dt)
        return self._scalar_dynamics(*arguments)(*arguments)

    def step_batch(
        self, batch: VehicleBatch, steer, throttle, dt: float, world: Any = None
    ) -> None:
        """Step every vehicle of ``batch`` in place (arrays of commands, or scalars for all).

        With ``world`` (a ``World``, or any object with ``step_vehicle_batch(params, batch,
        steer, throttle, dt)``) the validated call goes to ``world.step_vehicle_batch``, the
        entry point into ``steerlab.sim.step_vehicles``; that function also returns every
        vehicle's contact (hit, normal).
        """
        steer, throttle, dt = check_batch_drive_commands(batch, steer, throttle, dt)
        check_agent_count(self.params, batch.size)
        if world is not None:
            _world(world, "step_vehicle_batch").step_vehicle_batch(
                self.params, batch, steer, throttle, dt
            )
            return
        _vehicle_batch(*batch.fields(), steer, throttle, self.params, dt)

    def __repr__(self) -> str:
        if self.agents is not None:
            return f"Vehicle({self.params.kind_name}, {self.agents} vehicles, each its own values)"
        return f"Vehicle({self.params.kind_name}, mass={self.params.mass:g} kg)"
