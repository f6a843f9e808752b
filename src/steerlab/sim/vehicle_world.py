"""A vehicle in a world, one frame: terrain, gravity, the vehicle's dynamics, the world's contacts.

The composite frame sits here, above both packages it joins: ``steerlab.vehicles`` knows no world
and ``steerlab.world`` knows no vehicle model. As in Recast's ``dtCrowd::update`` (phases over all
agents), one frame of a vehicle runs in phases, each a kernel of its own package:

1. **Terrain** (world): the gradient ``(dz/dx, dz/dy)`` under the centre of mass
   (``steerlab.world.terrain._terrain_sample``).
2. **Gravity** (here): the slopes along the body's forward and left axes, ``s_f = gx cos(yaw) +
   gy sin(yaw)``, ``s_l = -gx sin(yaw) + gy cos(yaw)``, and gravity's pull along the surface in
   each direction, ``-g s / sqrt(1 + s^2)`` (``-g sin(grade)``), with ``g`` =
   ``steerlab.vehicles.GRAVITY`` (9.81 m/s^2) (``_surface_gravity``).
3. **Dynamics** (vehicles): ``steerlab.vehicles.dynamics._vehicle_dynamics``, the vehicle's own
   kernel with the pulls of phase 2 as ``gravity_forward``, ``gravity_left``; it proposes the new
   pose and body velocity.
4. **Contacts** (world): the footprint box swept from the old position to the proposed one, its
   slide along walls and the velocity's wall response
   (``steerlab.world.vehicle_step._box_wall_contact``); it returns the contact (hit, normal) with
   the final position and velocity. The yaw rate is kept (no impact moment).

Public API: ``step_vehicle`` (one vehicle, a new state and its ``Contact``) and ``step_vehicles``
(a ``VehicleBatch`` in place, every vehicle's contact in a ``ContactBatch``), bit for bit the same
per vehicle. ``Vehicle.step(..., world=)``, ``Vehicle.step_batch(..., world=)`` and the world's
``World.step_vehicle``, ``World.step_vehicle_batch`` are convenience entry points into this frame.
Units: metres, seconds, radians.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np

from steerlab._jit import batch_kernel, kernel
from steerlab._per_agent import agent_params, check_agent_count, check_shared, set_agent
from steerlab.geometry.kernels import sincos
from steerlab.vehicles.dynamics import _vehicle_dynamics
from steerlab.vehicles.params import GRAVITY, VehicleParams
from steerlab.vehicles.state import (
    DriveCommand,
    VehicleBatch,
    VehicleState,
    check_drive_command,
    check_vehicle_state,
    check_vehicle_timestep,
)
from steerlab.vehicles.vehicle import check_batch_drive_commands
from steerlab.world.collide import FREE_SPACE_NONE
from steerlab.world.terrain import _terrain_sample
from steerlab.world.vehicle_step import _box_wall_contact
from steerlab.world.world import World

__all__ = ["Contact", "ContactBatch", "step_vehicle", "step_vehicles"]


class Contact(NamedTuple):
    """A vehicle's contact with the walls over one frame (``step_vehicle``)."""

    hit: bool  # the footprint touched a wall (or was pushed out of one)
    normal_x: float  # unit normal of the last contact, from the wall towards the vehicle;
    normal_y: float  #   (0, 0) without contact


class ContactBatch(NamedTuple):
    """Every vehicle's ``Contact`` of a frame, one array per field (``step_vehicles``)."""

    hit: np.ndarray  # bool (n,)
    normal_x: np.ndarray  # float64 (n,)
    normal_y: np.ndarray  # float64 (n,)

    @classmethod
    def empty(cls, size: int) -> ContactBatch:
        """Arrays for ``size`` vehicles, to be filled by ``step_vehicles``."""
        return cls(np.empty(size, dtype=np.bool_), np.empty(size), np.empty(size))


# --------------------------------------------------------------------------------------------------
# kernels


@kernel
def _surface_gravity(gradient_x, gradient_y, yaw):
    """Gravity's pull along the surface in the body's forward and left directions [m/s^2]
    (module docstring, phase 2)."""
    sin_yaw, cos_yaw = sincos(yaw)
    slope_forward = gradient_x * cos_yaw + gradient_y * sin_yaw
    slope_left = -gradient_x * sin_yaw + gradient_y * cos_yaw
    forward = -GRAVITY * slope_forward / math.sqrt(1.0 + slope_forward * slope_forward)
    left = -GRAVITY * slope_left / math.sqrt(1.0 + slope_left * slope_left)
    return forward, left


@kernel(inline="serial")
def _vehicle_world_frame(state, command, params, data, wall_friction, free_space, dt):
    """One frame of a vehicle in the world ``data`` (module docstring, phases 1-4).

    ``state`` a ``VehicleState``, ``command`` a ``DriveCommand``, ``params`` a validated
    ``VehicleParams`` of numbers; ``free_space`` ``(free_x, free_y, free_r)``, a disc known to
    hold no wall (``world.collide._collide_move_cached``; ``free_r < 0``: none, none measured).
    Returns ``(state, contact, free_space)``: the new ``VehicleState``, the contact ``(hit,
    normal_x, normal_y)`` (``Contact``'s fields) and the free disc updated.

    Called, not inlined, by the batch's per-agent kernel (``_vehicle_world_agent``) in the quick
    and parallel builds (``kernel(inline="serial")``): the parallel build compiles in seconds
    instead of most of a minute, and the frame compiled by itself runs faster than inlined into
    the per-agent kernel; the serial build (large batches, one thread) inlines it, the sweep
    staying behind a call (``collide._collide_move_measured``), which runs faster still for a
    longer cold compile (``docs/performance.md``)."""
    _, gradient_x, gradient_y = _terrain_sample(data, state.x, state.y)
    gravity_forward, gravity_left = _surface_gravity(gradient_x, gradient_y, state.yaw)
    moved = _vehicle_dynamics(state, command, params, gravity_forward, gravity_left, dt)
    (x, y, v, v_lat), contact, free_space = _box_wall_contact(
        data,
        (state.x, state.y),
        (moved.x, moved.y, moved.yaw, moved.v, moved.v_lat),
        (params.half_length, params.half_width),
        wall_friction,
        free_space,
    )
    new_state = VehicleState(x, y, moved.yaw, v, v_lat, moved.yaw_rate, moved.steer)
    return new_state, contact, free_space


@kernel(inline="never")
def _vehicle_world_step(state, command, params, data, wall_friction, free_space, dt):
    """``_vehicle_world_frame`` for Python (``step_vehicle``, the Gymnasium environment): one flat
    tuple ``(x, y, yaw, v, v_lat, yaw_rate, steer, hit, normal_x, normal_y, free_x, free_y,
    free_r)``, the new state, the contact (``Contact``) and the free disc. Flat rather than
    records because numba hands a record back to Python several times slower than a flat tuple
    (it rebuilds the record's class each time)."""
    new_state, contact, free_space = _vehicle_world_frame(
        state, command, params, data, wall_friction, free_space, dt
    )
    return new_state[:] + contact + free_space


@kernel(inline="serial")
def _vehicle_world_agent(i, vehicles, commands, params, data, wall_friction, free_space, dt, out):
    """``_vehicle_world_frame`` for vehicle ``i`` of ``_vehicle_world_batch``: its state, command,
    parameters (``agent_params``) and free disc read at ``i``; its new state, contact (into
    ``out``) and free disc written at ``i``.

    Called, not inlined, by the quick and parallel builds (``kernel(inline="serial")``): numba's
    parallel loop loses writes made in its body through arrays held in a record; the serial
    build (large batches, one thread) inlines it, with the frame."""
    free_x, free_y, free_r = free_space
    new_state, contact, free = _vehicle_world_frame(
        agent_params(vehicles, i),
        agent_params(commands, i),
        agent_params(params, i),
        data,
        wall_friction,
        (free_x[i], free_y[i], free_r[i]),
        dt,
    )
    set_agent(vehicles, i, new_state)
    set_agent(out, i, contact)
    set_agent(free_space, i, free)


@batch_kernel(composite=True)
def _vehicle_world_batch(vehicles, commands, params, data, wall_friction, free_space, dt, out):
    """``_vehicle_world_frame`` for every vehicle of a batch (``_vehicle_world_agent``):
    ``vehicles`` a ``VehicleState`` of arrays updated in place, ``commands`` a ``DriveCommand``
    of arrays, ``params`` a ``VehicleParams`` whose fields may hold one value per vehicle
    (``agent_params``), ``free_space`` ``(free_x, free_y, free_r)`` arrays, each vehicle's free
    disc read and updated (``free_r[i] = 0`` at first), ``out`` a ``ContactBatch`` written."""
    for i in numba.prange(vehicles.x.size):
        _vehicle_world_agent(
            i, vehicles, commands, params, data, wall_friction, free_space, dt, out
        )


# --------------------------------------------------------------------------------------------------
# public API


def step_vehicle(
    vehicle_params: VehicleParams,
    world: World,
    state: VehicleState,
    command: DriveCommand,
    dt: float,
) -> tuple[VehicleState, Contact]:
    """One frame of ``dt`` seconds of a vehicle in ``world`` (module docstring, phases 1-4).

    Parameters
    ----------
    vehicle_params : VehicleParams
        The vehicle (``steerlab.vehicles.PRESETS`` holds named ones), one value per field;
        validated on every call:
        ``Vehicle(params).step(state, command, dt, world=world)``, which validates them once, is
        the faster entry point into this same frame for a loop.
    world : World
        Terrain and walls (``steerlab.world``).
    state : VehicleState
        The vehicle's state; not modified.
    command : DriveCommand
        Steer and throttle, each in ``[-1, 1]``.
    dt : float
        Frame time [s], ``> 0``.

    Returns
    -------
    (VehicleState, Contact)
        The state one frame later and the frame's contact with the walls. Nothing is remembered
        between calls (no free disc: ``steerlab.world.collide``); the result is bit for bit what
        ``step_vehicles`` gives this vehicle.

    Raises
    ------
    ValueError
        Naming the argument: ``vehicle_params`` not a valid ``VehicleParams`` (or one holding a
        value per vehicle in a field: ``step_vehicles`` takes those), ``world`` not a ``World``,
        a non-finite state, a command outside ``[-1, 1]``, ``dt`` not ``> 0``.
    """
    params = _check_vehicle_params(vehicle_params)
    check_shared(params, "step_vehicle")
    _check_world(world)
    state = check_vehicle_state(state)
    command = check_drive_command(command)
    dt = check_vehicle_timestep(dt)
    return _step_vehicle(params, world, state, command, dt)


def step_vehicles(
    vehicle_params: VehicleParams,
    world: World,
    batch: VehicleBatch,
    steer,
    throttle,
    dt: float,
    contacts: ContactBatch | None = None,
) -> ContactBatch:
    """``step_vehicle`` for every vehicle of ``batch``, in place, in phases over all vehicles.

    Parameters
    ----------
    vehicle_params : VehicleParams
        The vehicles' parameters: one record for the batch, whose fields may each hold one value
        per vehicle (``n`` of them; ``kind`` too) for vehicles that differ.
    world : World
        Terrain and walls.
    batch : VehicleBatch
        The vehicles; every field updated in place.
    steer, throttle : array_like (n,) or float
        Commands in ``[-1, 1]``, one per vehicle or one for all.
    dt : float
        Frame time [s], ``> 0``.
    contacts : ContactBatch, optional
        Arrays to fill (``ContactBatch.empty(n)``; reuse them from frame to frame); default: new
        ones.

    Returns
    -------
    ContactBatch
        Each vehicle's contact of this frame, bit for bit ``step_vehicle``'s (as are the states).
        The world keeps each vehicle's free disc for the batch between calls
        (``World.free_space_of``), which spares the sweep while a vehicle is far from walls.

    Raises
    ------
    ValueError
        As ``step_vehicle``; also a ``batch`` that is not a ``VehicleBatch``, commands of another
        size, ``vehicle_params`` holding per-vehicle values for another number of vehicles,
        ``contacts`` not a ``ContactBatch`` of ``n`` writeable contiguous entries (bool, float64,
        float64).
    """
    params = _check_vehicle_params(vehicle_params)
    _check_world(world)
    steer, throttle, dt = check_batch_drive_commands(batch, steer, throttle, dt)
    check_agent_count(params, batch.size)
    if contacts is not None:
        _check_contacts(contacts, batch.size)
    return _step_vehicles(params, world, batch, steer, throttle, dt, contacts)


def _step_vehicle(params, world, state, command, dt) -> tuple[VehicleState, Contact]:
    """``step_vehicle`` on validated arguments (``World.step_vehicle`` calls it)."""
    result = _vehicle_world_step(
        state,
        command,
        params,
        world.data,
        world.wall_friction,
        FREE_SPACE_NONE,  # nothing is remembered between single steps
        dt,
    )
    return VehicleState(*result[:7]), Contact(*result[7:10])


def _step_vehicles(params, world, batch, steer, throttle, dt, contacts=None) -> ContactBatch:
    """``step_vehicles`` on validated arguments (``World.step_vehicle_batch`` calls it)."""
    if contacts is None:
        contacts = ContactBatch.empty(batch.size)
    _vehicle_world_batch(
        VehicleState(*batch.fields()),
        DriveCommand(steer, throttle),
        params,
        world.data,
        world.wall_friction,
        world.free_space_of(batch),
        dt,
        contacts,
    )
    return contacts


def _check_vehicle_params(vehicle_params) -> VehicleParams:
    if not isinstance(vehicle_params, VehicleParams):
        raise ValueError(
            f"vehicle_params must be a VehicleParams (steerlab.vehicles.PRESETS holds named "
            f"ones), got {vehicle_params!r}"
        )
    return vehicle_params.validated()


def _check_world(world) -> None:
    if not isinstance(world, World):
        raise ValueError(f"world must be a steerlab.world.World, got {world!r}")


def _check_contacts(contacts, size: int) -> None:
    if not (
        isinstance(contacts, ContactBatch)
        and all(
            isinstance(values, np.ndarray)
            and values.shape == (size,)
            and values.flags.c_contiguous
            and values.flags.writeable
            for values in contacts
        )
        and contacts.hit.dtype == np.bool_
        and contacts.normal_x.dtype == contacts.normal_y.dtype == np.float64
    ):
        if isinstance(contacts, tuple):
            got = ", ".join(
                f"{getattr(values, 'dtype', type(values).__name__)} {np.shape(values)}"
                for values in contacts
            )
            got = f"{type(contacts).__name__}({got})"
        else:
            got = repr(contacts)
        raise ValueError(
            f"contacts must be a ContactBatch of {size} writeable contiguous bool, float64, "
            f"float64 entries (ContactBatch.empty({size})), got {got}"
        )
