"""A vehicle's frame in the world: terrain slope, the vehicle's dynamics, swept collision.

The composite step of ``Vehicle.step(state, command, dt, world=world)`` (the vehicles do not
import the world: they hand the step to ``World.step_vehicle``). One frame, in phases:

1. **Terrain**: the gradient ``(dz/dx, dz/dy)`` under the centre of mass
   (``_terrain_sample``); the slopes along the body's forward and left axes, ``s_f = gx cos(yaw)
   + gy sin(yaw)``, ``s_l = -gx sin(yaw) + gy cos(yaw)``; gravity's pull along the surface in
   each direction, ``-g s / sqrt(1 + s^2)`` (``-g sin(grade)``), is what ``_vehicle_dynamics``
   takes as ``gravity_forward``, ``gravity_left``.
2. **Dynamics**: ``steerlab.vehicles.dynamics._vehicle_dynamics`` (the vehicle's own kernel,
   not rewritten), which proposes the new pose and body velocity.
3. **Collision**: the footprint (the vehicle's box, ``half_length`` x ``half_width``, at the new
   heading) is swept from the old position to the proposed one with ``_collide_move``: it stops
   at the first wall, slides along it, never passes through one.
4. **Wall response**: on contact the world-frame velocity loses its component into the wall and
   part of its tangential one (``_slide_velocity``, Coulomb friction ``wall_friction`` against
   the removed normal speed), then goes back to body axes. The yaw rate is kept.

Units: metres, seconds, radians. ``g`` is ``steerlab.vehicles.GRAVITY`` (9.81 m/s^2).
"""

from __future__ import annotations

import math

import numba

from steerlab._jit import HEAVY_SERIAL_LIMIT, batch_kernel, inlined, kernel, kernel_not_inlined
from steerlab.geometry.kernels import sincos
from steerlab.vehicles.dynamics import _vehicle_dynamics
from steerlab.vehicles.params import GRAVITY
from steerlab.world.collide import BOX, _collide_move_cached, _slide_velocity
from steerlab.world.terrain import _terrain_sample

__all__: list[str] = []


@kernel
def _surface_gravity(gradient_x, gradient_y, yaw):
    """Gravity's pull along the surface in the body's forward and left directions [m/s^2]."""
    sin_yaw, cos_yaw = sincos(yaw)
    slope_forward = gradient_x * cos_yaw + gradient_y * sin_yaw
    slope_left = -gradient_x * sin_yaw + gradient_y * cos_yaw
    forward = -GRAVITY * slope_forward / math.sqrt(1.0 + slope_forward * slope_forward)
    left = -GRAVITY * slope_left / math.sqrt(1.0 + slope_left * slope_left)
    return forward, left


@kernel_not_inlined
def _world_vehicle_step(
    data,
    x,
    y,
    yaw,
    v,
    v_lat,
    yaw_rate,
    steer,
    steer_command,
    throttle_command,
    dt,
    params,
    wall_friction,
    free_x,
    free_y,
    free_r,
):
    """One frame of a vehicle in the world (module docstring). Returns ``(x, y, yaw, v, v_lat,
    yaw_rate, steer, hit, free_x, free_y, free_r)``, ``hit`` True when the footprint touched a
    wall this frame; ``(free_x, free_y, free_r)`` a disc known to hold no wall, passed in and
    returned updated (``collide._collide_move_cached``; ``free_r < 0``: none, none measured).

    Called, not inlined, by the parallel batch loop: its compile time drops from about 50 s to a
    few seconds, for one call per vehicle; the serial batch build inlines it."""
    _, gradient_x, gradient_y = _terrain_sample(data, x, y)
    gravity_forward, gravity_left = _surface_gravity(gradient_x, gradient_y, yaw)
    new_x, new_y, new_yaw, new_v, new_lat, new_rate, new_steer = _vehicle_dynamics(
        x,
        y,
        yaw,
        v,
        v_lat,
        yaw_rate,
        steer,
        steer_command,
        throttle_command,
        dt,
        params,
        gravity_forward,
        gravity_left,
    )
    final_x, final_y, normal_x, normal_y, hit, free_x, free_y, free_r = _collide_move_cached(
        data,
        x,
        y,
        new_x - x,
        new_y - y,
        new_yaw,
        BOX,
        params.half_length,
        params.half_width,
        free_x,
        free_y,
        free_r,
    )
    if hit:
        sin_yaw, cos_yaw = sincos(new_yaw)
        vx = new_v * cos_yaw - new_lat * sin_yaw
        vy = new_v * sin_yaw + new_lat * cos_yaw
        vx, vy = _slide_velocity(vx, vy, normal_x, normal_y, wall_friction)
        new_v = vx * cos_yaw + vy * sin_yaw
        new_lat = -vx * sin_yaw + vy * cos_yaw
    return (
        final_x,
        final_y,
        new_yaw,
        new_v,
        new_lat,
        new_rate,
        new_steer,
        hit,
        free_x,
        free_y,
        free_r,
    )


@batch_kernel(
    serial_limit=HEAVY_SERIAL_LIMIT,
    serial_globals={"_world_vehicle_step": inlined(_world_vehicle_step)},
)
def _world_vehicle_batch(
    x,
    y,
    yaw,
    v,
    v_lat,
    yaw_rate,
    steer,
    steer_command,
    throttle_command,
    dt,
    params,
    data,
    wall_friction,
    hit,
    free_x,
    free_y,
    free_r,
):
    """``_world_vehicle_step`` for every vehicle of a batch, in place; ``hit`` out; each
    vehicle's free disc ``free_*[i]`` read and updated (``free_r[i] = 0`` at first).

    The parallel build calls ``_world_vehicle_step``; the serial build (small batches, one
    thread) inlines it (``_jit.inlined``; the sweep stays behind a call,
    ``collide._collide_move_measured``): 240 -> 176 ns per vehicle at 1e5 on one thread in the
    issue's walled world, same bits, for about 15 s of cold compile (measured in one process)."""
    for i in numba.prange(x.size):
        (
            x[i],
            y[i],
            yaw[i],
            v[i],
            v_lat[i],
            yaw_rate[i],
            steer[i],
            hit[i],
            free_x[i],
            free_y[i],
            free_r[i],
        ) = _world_vehicle_step(
            data,
            x[i],
            y[i],
            yaw[i],
            v[i],
            v_lat[i],
            yaw_rate[i],
            steer[i],
            steer_command[i],
            throttle_command[i],
            dt,
            params,
            wall_friction,
            free_x[i],
            free_y[i],
            free_r[i],
        )
