"""The funnelling update (seed 003, Section 4, Figure 4): heading and desired speed.

Figure 4, line by line (``_funnelling_heading``):

1. "Update relative distance D", "Update radial angle alpha": ``D = |target - position|``,
   ``radial`` its direction, ``alpha = wrap(radial - yaw)``.
2. "If closest T_eta element appears unreachable, get the stored desired forward speed v_dt":
   the nearest entry at ``(D, alpha, omega_c, v_c, v_d)``; ``v_dt = v_d`` when it is reachable.
3. "Interpolate eta in T_eta for (D, alpha, omega_c, v_c, v_d)": read with ``v_dt`` in place of
   ``v_d`` (the speed the seek controllers will be fed; with ``v_dt = v_d`` when reachable the
   two readings agree). Rule for mixed cells: ``steerlab.funnel.interpolate``.
4. "Build the corresp. tangential direction": ``tangential = radial + eta``, the direction of
   motion in which seek would arrive.
5. "Update delta_eta as the error between the target direction and the tangential direction":
   ``delta_eta = wrap(course - tangential)``.
6. "Bound mu = -delta_eta with a Maximum amplitude interpolated in T_eta for (D, delta_eta, 0,
   v_c, v_dt)": ``mu = clamp(-delta_eta, -M, M)``, ``M = |eta(D, delta_eta, 0, v_c, v_dt)|``.
7. "Feed the seek controllers with the new heading direction and the temporary desired linear
   speed = Min(v_dt, A / omega_c)": ``heading = wrap(radial + mu)``; the ``Min`` is the seek
   controller's own relaxation (``steerlab.funnel.seek``).

**The bound on mu** (Section 4: "the retained upper bound ... possesses the essential quality of
converging to zero when D grows to infinity"). The text is garbled; the figure's last two lines
read as the maximum amplitude being *the eta of the table* at the distance ``D``, a radial angle
of ``delta_eta``, zero angular speed, the current speed and ``v_dt``: ``M(D, delta_eta) =
|eta(D, delta_eta, 0, v_c, v_dt)|``, how far the radial direction of a target at bearing
``delta_eta`` turns in seek. It has the required property: seek's final radial direction differs
from the initial one by the angle that the initial turn's lateral offset (bounded, independent of
``D``) subtends from the target, so ``M = O(1 / D)`` (beyond the table's last distance the
interpolation extrapolates exactly ``eta(D_max) D_max / D``, ``steerlab.funnel.interpolate``).
Near the target ``M`` grows to the size of ``delta_eta`` itself, so the correction is enforced
close in: the far-field behaviour is seek ("an asymptotic seek behavior for distant targets"),
then the funnel closes. Where the table has no eta for the bound (no reachable corner) ``M = 0``:
seek for that frame. The sign: ``mu > 0`` aims left of the target, the entity then arrives turned
right (clockwise) of the seek arrival, so ``mu = -delta_eta`` turns the arrival towards the
target direction.
"""

from __future__ import annotations

from steerlab._checks import check_finite, check_positive
from steerlab._jit import kernel
from steerlab.funnel.interpolate import (
    _angular_fraction,
    _desired_axis,
    _interpolate_at,
    _interpolate_eta,
    _nearest_at,
    _position,
)
from steerlab.geometry.kernels import wrap_pi

__all__ = ["mu_bound"]


@kernel
def _mu_bound(table, distance, delta_eta, speed, desired_speed):
    """Figure 4's maximum amplitude of mu: ``|eta(D, delta_eta, 0, v_c, v_dt)|`` (docstring)."""
    eta, _ = _interpolate_eta(table, distance, delta_eta, 0.0, speed, desired_speed)
    return abs(eta)


@kernel
def _funnelling_heading(
    table, distance, radial, alpha, speed, angular_speed, desired_speed, course
):
    """Figure 4: ``(heading, v_dt, eta, delta_eta, mu, reachable)`` (module docstring).

    ``desired_speed`` is ``v_d``; ``course`` the target direction [rad]. The nearest entry and
    the interpolation of eta share the query's cell.
    """
    fraction = _angular_fraction(speed, angular_speed, table)
    position = _position(table, distance, alpha, fraction, speed)
    i_u, t_u = _desired_axis(table, desired_speed)
    reachable, stored = _nearest_at(table, position, i_u, t_u)
    speed_target = desired_speed if reachable else stored  # v_dt
    if not reachable:
        i_u, t_u = _desired_axis(table, speed_target)
    eta, _ = _interpolate_at(table, position, i_u, t_u, distance)
    tangential = radial + eta
    delta_eta = wrap_pi(course - tangential)
    bound = _mu_bound(table, distance, delta_eta, speed, speed_target)
    mu = min(max(-delta_eta, -bound), bound)
    return wrap_pi(radial + mu), speed_target, eta, delta_eta, mu, reachable


def mu_bound(table, distance: float, delta_eta: float, speed: float, desired_speed: float) -> float:
    """The maximum amplitude of mu [rad] at ``distance`` for an error ``delta_eta`` (an
    ``EtaTable``, the current forward speed and ``v_dt``): see the module docstring."""
    distance = check_positive("distance", distance, per_agent=False)
    delta_eta = check_finite("delta_eta", delta_eta, per_agent=False)
    speed = check_finite("speed", speed, per_agent=False)
    desired_speed = check_finite("desired_speed", desired_speed, per_agent=False)
    return float(_mu_bound(table.data, distance, delta_eta, speed, desired_speed))
