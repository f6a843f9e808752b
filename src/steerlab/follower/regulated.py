"""Regulated pure pursuit (Macenski, Singh, Martin, Gines 2023): a peer of seed 001's follower,
used by ``RegulatedPurePursuitFollower``.

S. Macenski, S. Singh, F. Martin, J. Gines, "Regulated Pure Pursuit for Robot Path Tracking",
Autonomous Robots 47, 2023 (arXiv:2305.20026), and its reference implementation, the ROS 2 Nav2
``nav2_regulated_pure_pursuit_controller`` (``getLookAheadDistance``, ``calculateCurvature``,
``applyConstraints`` and ``heuristics::curvatureConstraint`` / ``approachVelocityConstraint`` in
``regulation_functions.hpp``). One frame:

1. **Speed-scaled lookahead** (the adaptive pure pursuit the paper builds on):
   ``l = clamp(|v| t_l, l_min, l_max)`` (Nav2: ``lookahead_time``, ``min_lookahead_dist``,
   ``max_lookahead_dist`` with ``use_velocity_scaled_lookahead_dist``).
2. **Carrot**: the first path point, searching forward from the vehicle's projection, at least
   ``l`` from the vehicle (Euclidean), interpolated on the segment that crosses the circle of
   radius ``l``; the path end if none (Nav2's ``getLookAheadPoint`` on the path pruned at the
   closest pose). Computed by ``steerlab.geometry.kernels.next_point``, whose definition is
   exactly this. A vehicle more than ``l`` from the path gets its own projection as the carrot.
3. **Curvature of the pure pursuit arc** through the carrot, tangent to the heading:
   ``kappa = 2 y / d^2`` with ``(x, y)`` the carrot in the vehicle's axes and ``d`` its distance
   (the paper's ``kappa = 2 y'_l / L^2``; Nav2's ``calculateCurvature``, which uses the actual
   chord ``d``, not the nominal ``l``).
4. **Curvature regulation**: below the radius ``r_min`` the speed scales with the radius,
   ``v = v_desired r / r_min`` with ``r = 1 / |kappa|`` (Nav2 writes ``v (1 - |r - r_min| /
   r_min)``, the same), else ``v_desired``; then floored at ``v_reg_min`` (Nav2:
   ``regulated_linear_scaling_min_radius``, ``regulated_linear_scaling_min_speed``).
5. **Approach slow-down**: within ``d_approach`` of the path end the speed is scaled by
   ``remaining / d_approach``, floored at ``v_approach_min``, and never raised
   (``min(v, max(v remaining / d_approach, v_approach_min))``; Nav2's
   ``approachVelocityConstraint`` with ``min_approach_linear_velocity`` and
   ``approach_velocity_scaling_dist``); finally clamped to ``[0, v_desired]``.

The steering is pure pursuit towards the carrot, ``delta = atan(L kappa) = atan2(2 L y, d^2)``
(``steerlab.follower.steering._pure_pursuit``), for every kind of vehicle (``steerlab.vehicles``
gives every kind the full-steer curvature ``tan(max_steer) / L``; Nav2 commands the angular
velocity ``v kappa``, i.e. the same curvature). The speed is a target that the follower's PI
loop tracks, as for seed 001's follower. The follower runs the steps as its chain's laws
(``follower._follow``): the carrot is the target point (``CARROT``: ``_regulated_lookahead``,
``_carrot``), the speed the target speed (``REGULATED_SPEED``: ``_regulated_target_speed``), the
steering pure pursuit for every kind (``PURE_PURSUIT``).

Readings and departures (``docs/design.md``, "Path follower"):

- **Left out: the cost-regulated speed** (``use_cost_regulated_linear_velocity_scaling``) needs
  a costmap; steerlab's follower has none (walls live in ``steerlab.world``, which the follower
  does not read). Also left out, as they do not apply to the benchmark's cars and tracks: the
  collision check along the arc (a costmap again), rotate-to-heading (on the spot, Nav2
  recommends it off for Ackermann vehicles), reversing at cusps (paths here are driven
  forwards), the fixed curvature lookahead (off in Nav2 by default), speed limits from a map.
- **Remaining distance** is the arc length from the vehicle's projection to the path end. Nav2's
  current code starts the slow-down when the integrated length of the path left drops below
  ``d_approach`` and then scales by the Euclidean distance to the goal (smooth whatever the
  density of the path's poses); on a path of straight segments the arc length is already smooth,
  and the two agree on a final straight.
- **A carrot behind the vehicle** (``x < 0``: a vehicle turned round): steerlab's pure pursuit
  then commands full lock instead of the arc (``steering._pure_pursuit``), so the curvature
  regulated is the larger of the arc's and the full-lock curvature ``tan(max_steer) / L``:
  the speed is regulated by the turn the vehicle is actually asked to make, not by an arc that
  would loop round through the far side.
- **Desired speed** is ``FollowerParams.v_max``, the limit every follower shares.

Default values (``FollowerParams``, ``regulated_*``): Nav2's defaults are for small indoor robots
(0.5 m/s, lookahead 0.3 to 0.9 m). They are scaled to seed 001's vehicles by the ratio of the
desired speeds, ``v_max / 0.5 m/s = 20``, for every length and speed, with times kept (the
lookahead time stays 1.5 s): a similarity that keeps Nav2's behaviour in time (how many seconds
ahead the carrot is, how long the approach lasts). Accelerations scale by 20 too: at full speed
on the regulation radius (18 m) the lateral acceleration is 0.57 g, and the floor (5 m/s, half
the desired speed as in Nav2) binds on arcs tighter than 9 m, where it allows 0.64 g on a
4 m turn; the linear approach from 10 m/s over 12 m asks for up to 8.3 m/s^2 of braking, which the
PI loop and the vehicle's brakes bound. No value was tuned on a benchmark path.
"""

from __future__ import annotations

from steerlab._jit import kernel
from steerlab.geometry.kernels import next_point, sincos

__all__: list[str] = []


@kernel
def _regulated_lookahead(v, lookahead_time, min_lookahead, max_lookahead):
    """Speed-scaled lookahead [m]: ``clamp(|v| lookahead_time, min_lookahead, max_lookahead)``
    (Nav2 ``getLookAheadDistance``); ``min_lookahead <= max_lookahead``."""
    return min(max(abs(v) * lookahead_time, min_lookahead), max_lookahead)


@kernel
def _carrot(points, cum, x, y, s, lookahead):
    """``(x, y)`` of the carrot: the first path point at arc length ``>= s`` at least
    ``lookahead`` from ``(x, y)``, or the path end (Nav2 ``getLookAheadPoint``)."""
    _, carrot_x, carrot_y, _ = next_point(points, cum, x, y, 0.0, lookahead, s)
    return carrot_x, carrot_y


@kernel
def _regulation_curvature(forward, left, distance2, wheelbase, max_steer):
    """``|kappa|`` [1/m] that regulates the speed: the pure pursuit arc's ``|2 left / d^2|``
    through the carrot at ``(forward, left)`` in the vehicle's axes (``d^2 = distance2``); when
    the carrot is behind (``forward < 0``, where the steering commands full lock) at least the
    full-lock curvature ``tan(max_steer) / wheelbase``. 0 for a carrot on the vehicle."""
    if distance2 <= 0.0:
        return 0.0
    curvature = abs(2.0 * left / distance2)
    if forward < 0.0:
        steer_sin, steer_cos = sincos(max_steer)
        curvature = max(curvature, steer_sin / (steer_cos * wheelbase))
    return curvature


@kernel
def _curvature_regulated_speed(desired_speed, curvature, min_radius):
    """Nav2 ``curvatureConstraint``: ``desired_speed r / min_radius`` when the radius ``r = 1 /
    curvature`` is below ``min_radius`` [m], else ``desired_speed`` [m/s]."""
    if curvature * min_radius > 1.0:  # r < min_radius
        return desired_speed / (curvature * min_radius)
    return desired_speed


@kernel
def _approach_speed(speed, remaining, approach_distance, min_approach_speed):
    """Nav2 ``approachVelocityConstraint``: within ``approach_distance`` [m] of the end
    (``remaining`` [m] left), ``min(speed, max(speed remaining / approach_distance,
    min_approach_speed))``; ``speed`` unchanged farther away."""
    if remaining >= approach_distance:
        return speed
    approach = max(speed * (remaining / approach_distance), min_approach_speed)
    return min(speed, approach)


@kernel
def _regulated_target_speed(
    forward,
    left,
    distance2,
    remaining,
    wheelbase,
    max_steer,
    desired_speed,
    min_radius,
    min_speed,
    approach_distance,
    min_approach_speed,
):
    """Regulated pure pursuit's speed [m/s] (Nav2 ``applyConstraints`` without the cost term):
    curvature regulation of ``desired_speed``, floored at ``min_speed``, approach slow-down over
    the ``remaining`` arc length, clamped to ``[0, desired_speed]``. Returns ``(speed,
    curvature)``, the curvature that regulated it."""
    curvature = _regulation_curvature(forward, left, distance2, wheelbase, max_steer)
    speed = _curvature_regulated_speed(desired_speed, curvature, min_radius)
    speed = max(speed, min_speed)
    speed = _approach_speed(speed, remaining, approach_distance, min_approach_speed)
    return min(max(speed, 0.0), desired_speed), curvature
