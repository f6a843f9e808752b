"""Sub-steps shared by the three vehicle models: steer servo, drive demand, friction, pose.

Each is a kernel written once and inlined into ``_bicycle_step``, ``_tracked_step`` and
``_hover_step``. Only ``+ - * /``, ``sqrt``, ``min``/``max`` and steerlab's own ``sincos`` are
used, so that a formula gives the same bits in the scalar and the batch path (``docs/design.md``).
"""

from __future__ import annotations

import math

from steerlab._jit import kernel
from steerlab.geometry.kernels import sincos, wrap_pi
from steerlab.vehicles.params import GRAVITY

__all__ = [
    "GEAR_SWITCH_SPEED",
    "LOW_SPEED",
]

# [m/s] below this forward speed, negative throttle drives in reverse instead of braking; above
# this backward speed, positive throttle brakes instead of driving ("near standstill")
GEAR_SWITCH_SPEED = 0.5
# [m/s] tyre slip is lateral speed over max(|longitudinal speed|, LOW_SPEED): no division by zero
# at rest. The implicit lateral solve turns the resulting stiff damping into the kinematic
# bicycle's constraint at low speed; a parked vehicle creeps down a 20 % side slope at ~1 mm/s
LOW_SPEED = 0.05


@kernel
def _steer_follow(steer, steer_command, max_steer, steer_rate, dt):
    """The actual steer angle after ``dt``: towards ``steer_command * max_steer`` at most
    ``steer_rate * dt``, kept within ``[-max_steer, max_steer]``."""
    step = steer_rate * dt
    target = steer_command * max_steer
    steer = steer + min(max(target - steer, -step), step)
    return min(max(steer, -max_steer), max_steer)


@kernel
def _normal_gravity(gravity_forward, gravity_left):
    """Gravity's component along the terrain normal [m/s^2], from its two slope components."""
    return math.sqrt(
        max(
            GRAVITY * GRAVITY - gravity_forward * gravity_forward - gravity_left * gravity_left, 0.0
        )
    )


@kernel
def _tractive_force(v, engine_force, engine_power):
    """``min(engine_force, engine_power / |v|)`` [N], without a division by zero at rest."""
    return engine_power / max(abs(v), engine_power / engine_force)


@kernel
def _governed(force, mass, speed_room, dt):
    """``force >= 0`` bounded so that it adds no more than ``speed_room`` [m/s] this frame."""
    return min(force, max(mass * speed_room / dt, 0.0))


@kernel
def _drive_demand(v, throttle, params, dt):
    """The throttle axis read as a game's single accelerator/brake (seed 001's two inputs), for
    the vehicle ``params`` (a ``VehicleParams``: ``mass``, ``engine_force``, ``engine_power``,
    ``brake_force``, ``max_speed``, ``max_reverse_speed``).

    Returns ``(drive, brake)``: ``drive`` the signed engine force along the body axis [N], ``brake``
    the magnitude of the friction brakes' force against the motion [N] (wheels and tracks; the
    hovercraft's propellers use ``_tractive_force`` and ``_governed`` directly).

    - ``throttle > 0`` and ``v >= -GEAR_SWITCH_SPEED``: drive forward with
      ``throttle * min(engine_force, engine_power / |v|)``;
    - ``throttle > 0`` while rolling backwards faster: brake with ``throttle * brake_force``;
    - ``throttle < 0`` and ``v > GEAR_SWITCH_SPEED``: brake with ``|throttle| * brake_force``;
    - ``throttle < 0`` near standstill or in reverse: drive backwards, same force law;
    - a governor keeps the drive from pushing past ``max_speed`` (``max_reverse_speed``
      backwards) within the frame: ``drive <= mass * (max_speed - v) / dt``.
    """
    tractive = _tractive_force(v, params.engine_force, params.engine_power)
    drive = 0.0
    brake = 0.0
    if throttle > 0.0 and v >= -GEAR_SWITCH_SPEED:
        drive = _governed(throttle * tractive, params.mass, params.max_speed - v, dt)
    elif throttle < 0.0 and v <= GEAR_SWITCH_SPEED:
        drive = -_governed(-throttle * tractive, params.mass, params.max_reverse_speed + v, dt)
    else:
        brake = abs(throttle) * params.brake_force
    return drive, brake


@kernel
def _toward_zero(velocity, decrement):
    """``velocity`` moved towards zero by at most ``decrement >= 0``, never past it.

    How every Coulomb-type force (brakes, rolling resistance, skid resistance) is integrated: it
    removes up to ``dt * F_max / m`` of speed and holds the body at rest when the other forces are
    weaker (static friction), so nothing jitters around zero and nothing reverses by itself.
    """
    return velocity - min(max(velocity, -decrement), decrement)


@kernel
def _with_drag(velocity, drag_over_mass, dt):
    """``velocity`` after ``dt`` of quadratic drag ``drag * v |v|``; never reverses it."""
    return _toward_zero(velocity, dt * drag_over_mass * velocity * velocity)


@kernel
def _integrate_pose(x, y, yaw, v, v_lat, yaw_rate, dt):
    """Semi-implicit Euler: the new velocities move the body. Returns ``(x, y, yaw)``."""
    yaw = wrap_pi(yaw + dt * yaw_rate)
    sin_yaw, cos_yaw = sincos(yaw)
    x = x + dt * (v * cos_yaw - v_lat * sin_yaw)
    y = y + dt * (v * sin_yaw + v_lat * cos_yaw)
    return x, y, yaw
