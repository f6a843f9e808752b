"""The world's phase of a vehicle's frame: a box body's move resolved against the walls.

``steerlab.sim.vehicle_world`` runs a vehicle's frame in phases: the terrain under it (this
package's ``terrain._terrain_sample``), the vehicle's own dynamics (``steerlab.vehicles``), then
this kernel, which knows boxes, walls and velocities but no vehicle model:

1. **Collision**: the footprint (a box ``half_length`` x ``half_width`` at the new heading) is
   swept from the old position to the proposed one with ``collide._collide_move_cached``: it stops
   at the first wall, slides along it, never passes through one.
2. **Wall response**: on contact the world-frame velocity loses its component into the wall and
   part of its tangential one (``collide._slide_velocity``, Coulomb friction ``wall_friction``
   against the removed normal speed), then goes back to body axes. The yaw rate is not touched.

Units: metres, seconds, radians. This package does not import ``steerlab.vehicles``: the body is
plain floats (position, heading, forward and lateral speed, box half sizes).
"""

from __future__ import annotations

from steerlab._jit import kernel
from steerlab.geometry.kernels import sincos
from steerlab.world.collide import BOX, _collide_move_cached, _slide_velocity

__all__: list[str] = []


@kernel
def _box_wall_contact(data, start, body, box, wall_friction, free_space):
    """A box body's move from ``start`` ``(x, y)`` [m] to the proposed position of ``body``,
    resolved against the walls of ``data`` (module docstring, phases 1-2).

    ``body`` ``(x, y, yaw, forward_speed, lateral_speed)``: the proposed position [m], the heading
    [rad] and the velocity [m/s] along the body's forward and left axes at that heading; ``box``
    ``(half_length, half_width)`` [m]; ``wall_friction``: the Coulomb coefficient against a wall
    (``World``); ``free_space`` ``(free_x, free_y, free_r)``: a disc known to hold no wall
    (``collide._collide_move_cached``; ``free_r < 0``: none, none measured).

    Returns ``((x, y, forward_speed, lateral_speed), (hit, normal_x, normal_y), free_space)``:
    the final position and the body-axis velocity after the wall response (unchanged without
    contact); the contact, ``hit`` True when the box touched a wall, with the unit normal of the
    last contact from the wall towards the body (``(0, 0)`` without one); the free disc to
    remember.
    """
    x, y = start
    new_x, new_y, yaw, forward_speed, lateral_speed = body
    half_length, half_width = box
    free_x, free_y, free_r = free_space
    final_x, final_y, normal_x, normal_y, hit, free_x, free_y, free_r = _collide_move_cached(
        data,
        x,
        y,
        new_x - x,
        new_y - y,
        yaw,
        BOX,
        half_length,
        half_width,
        free_x,
        free_y,
        free_r,
    )
    if hit:
        sin_yaw, cos_yaw = sincos(yaw)
        vx = forward_speed * cos_yaw - lateral_speed * sin_yaw
        vy = forward_speed * sin_yaw + lateral_speed * cos_yaw
        vx, vy = _slide_velocity(vx, vy, normal_x, normal_y, wall_friction)
        forward_speed = vx * cos_yaw + vy * sin_yaw
        lateral_speed = -vx * sin_yaw + vy * cos_yaw
    return (
        (final_x, final_y, forward_speed, lateral_speed),
        (hit, normal_x, normal_y),
        (free_x, free_y, free_r),
    )
