"""Tracked vehicle: skid steer with left/right track forces limited by ground friction.

State in body axes at the centre of mass: ``v``, ``v_lat``, yaw rate ``r``, and ``steer`` the
actual turn input (an angle in ``[-max_steer, max_steer]`` that follows the command at
``steer_rate``, like a steering wheel). The tracks' ground speeds are ``v -+ r B / 2`` (left,
right; ``B = track_width``). One frame (``_tracked_step``):

1. **Turn command**: the steering unit (hydrostatic or regenerative, as on modern tanks) asks
   for the track speed difference ``B r*``, with the yaw rate
   ``r* = tan(steer) / L * v + (steer / max_steer) * max_yaw_rate * max(0, 1 - |v| / v_p)``
   bounded by ``max_yaw_rate``, ``L = wheelbase`` the track ground-contact length and
   ``v_p = max_yaw_rate L / tan(max_steer)``. At speed this is the bicycle's curvature law
   (what pure pursuit assumes, with ``wheelbase`` and ``max_steer``); near standstill the second
   term makes it turn in place (``steer = +1``, ``throttle = 0``: counter-clockwise pivot); full
   steer gives ``max_yaw_rate`` at every speed below ``v_p`` and is bounded by it above, the
   "slow to turn" of a heavy tank. In reverse the curvature term swings the nose like a car's.
2. **Track forces**: the steering moment that reaches ``r*`` this frame against the skid
   resistance, ``M = I (r* - r) / dt + M_r sign(r*)``, bounded by what the tracks can push
   (``mu N / 2`` each, in opposite directions: ``|M| <= mu N B / 2``); the drive force from the
   throttle (``_drive_demand``) gets the tracks' remaining friction ``mu N - 2 |M| / B``
   (steering first). Track forces are then ``F / 2 -+ M / B``. A track asked for more than its
   friction slips: its force is bounded, on slopes too (``tan(grade) > mu`` slides).
3. **Skid resistance**: the ground resists the tracks' sideways sliding while turning, the moment
   ``M_r = mu_t N L / 4`` (uniform pressure along the tracks: Wong, *Theory of Ground Vehicles*,
   the skid-steering chapter; ``mu_t = lateral_friction``, the coefficient of lateral
   resistance, falling with the turning radius as Wong's ``mu_t / (0.925 + 0.15 R / B)`` and
   building up with the sliding speed: ``_turning_resistance``), and the body's
   sideways sliding with ``mu_t N``; both are Coulomb friction (``_toward_zero``), so a tank
   turns only once the steering beats ``M_r`` and holds still on a side slope when it can.
4. **Longitudinal**: drive, gravity along the slope, drag, then brakes and rolling resistance as
   Coulomb friction; **pose**: semi-implicit Euler.

Simplifications: the track speeds are not separate states (a track that slips just has its force
bounded), the steering's power is not taken from the engine, and the lateral and turning
resistances are independent.
"""

from __future__ import annotations

from steerlab._jit import kernel
from steerlab.geometry.kernels import sincos
from steerlab.vehicles._common import (
    _drive_demand,
    _integrate_pose,
    _normal_gravity,
    _steer_follow,
    _toward_zero,
    _with_drag,
)
from steerlab.vehicles.state import VehicleState

__all__: list[str] = []

TURN_SLIP_SPEED = 0.1  # [m/s] sideways sliding speed of the track ends at which the lateral
#   resistance is fully developed (assumed: a few per cent of a walking pace; soils reach their
#   peak shear within centimetres of displacement, Wong)


@kernel
def _tracked_yaw_rate_target(v, steer, max_steer, contact_length, max_yaw_rate):
    """The steering unit's yaw-rate command ``r*`` [rad/s] (module docstring, step 1)."""
    sin_steer, cos_steer = sincos(steer)
    sin_max, cos_max = sincos(max_steer)
    curvature = sin_steer / (cos_steer * contact_length)  # tan(steer) / L; |steer| < pi / 2
    pivot_speed = max_yaw_rate * contact_length * cos_max / sin_max
    pivot = (steer / max_steer) * max_yaw_rate * max(1.0 - abs(v) / pivot_speed, 0.0)
    return min(max(curvature * v + pivot, -max_yaw_rate), max_yaw_rate)


@kernel
def _turning_resistance(v, yaw_rate, lateral_friction, load, contact_length, track_width):
    """Skid resistance moment ``M_r`` [N m] of a turn at ``yaw_rate`` [rad/s] and speed ``v``.

    ``M_r = mu_t N L / 4`` (Wong, *Theory of Ground Vehicles*, skid steering, uniform pressure)
    times two factors, both 1 for a brisk, tight turn:

    - Wong's empirical fall of the coefficient of lateral resistance with the turning radius
      ``R = |v / r|`` (after Steeds): ``mu_t / (0.925 + 0.15 R / B)``, used from ``R / B = 0.5``
      (tighter turns and pivots keep ``mu_t = lateral_friction``);
    - the build-up of the lateral shear stress with the tracks' sideways sliding, whose speed at
      the track ends is ``|r| L / 2`` (shear-displacement theory, Janosi and Hanamoto 1961, as in
      Wong): linear up to ``TURN_SLIP_SPEED``, fully developed beyond (a regularised Coulomb
      friction).

    So a gentle correction of course costs little moment and the tracks keep their grip for
    driving: with a plain Coulomb ``M_r`` a 0.01 steer input took the Armata's climbable grade
    from 33 to 12 degrees (the steering is served first). No turn, no moment.
    """
    turn = abs(yaw_rate) * track_width
    radius_factor = turn / max(0.925 * turn + 0.15 * abs(v), turn) if turn > 0.0 else 0.0
    slip_factor = min(abs(yaw_rate) * contact_length / (2.0 * TURN_SLIP_SPEED), 1.0)
    return 0.25 * lateral_friction * load * contact_length * radius_factor * slip_factor


@kernel
def _tracked_step(state, command, params, gravity_forward, gravity_left, dt):
    """One frame of the tracked model (module docstring): the ``VehicleState`` a frame later.

    ``state`` a ``VehicleState``, ``command`` a ``DriveCommand``, ``params`` a validated
    ``VehicleParams``; ``gravity_*`` as ``_vehicle_dynamics`` takes them."""
    mass = params.mass
    inertia = params.yaw_inertia
    half_track = 0.5 * params.track_width
    max_steer = params.max_steer
    v, yaw_rate = state.v, state.yaw_rate
    steer = _steer_follow(state.steer, command.steer, max_steer, params.steer_rate, dt)
    normal_gravity = _normal_gravity(gravity_forward, gravity_left)
    load = mass * normal_gravity
    track_grip = 0.5 * params.mu * load  # per track
    target = _tracked_yaw_rate_target(v, steer, max_steer, params.wheelbase, params.max_yaw_rate)
    turning_resistance = _turning_resistance(
        v,
        target if target != 0.0 else yaw_rate,
        params.lateral_friction,
        load,
        params.wheelbase,
        params.track_width,
    )
    direction = 1.0 if target > 0.0 else (-1.0 if target < 0.0 else 0.0)
    moment = inertia * (target - yaw_rate) / dt + turning_resistance * direction
    moment_bound = 2.0 * track_grip * half_track
    moment = min(max(moment, -moment_bound), moment_bound)
    drive, brake = _drive_demand(v, command.throttle, params, dt)
    drive_room = max(2.0 * track_grip - abs(moment) / half_track, 0.0)  # steering first
    drive = min(max(drive, -drive_room), drive_room)
    brake = min(brake, drive_room)
    # yaw: steering moment, then the skid resistance as Coulomb friction
    new_rate = yaw_rate + dt * moment / inertia
    new_rate = _toward_zero(new_rate, dt * turning_resistance / inertia)
    # sideways: centripetal demand and slope against the tracks' lateral resistance
    new_lat = state.v_lat + dt * (gravity_left - v * new_rate)
    new_lat = _toward_zero(new_lat, dt * params.lateral_friction * normal_gravity)
    new_v = v + dt * (drive / mass + gravity_forward + new_lat * new_rate)
    new_v = _with_drag(new_v, params.drag / mass, dt)
    new_v = _toward_zero(new_v, dt * (brake + params.rolling_resistance * load) / mass)
    x, y, yaw = _integrate_pose(state.x, state.y, state.yaw, new_v, new_lat, new_rate, dt)
    return VehicleState(x, y, yaw, new_v, new_lat, new_rate, steer)
