"""Control mode relaxation near the target (seed 003, Section 5, Figure 5).

"In the close neighborhood of the target, both the angles alpha and eta may vary wildly ... we
propose to achieve the position target and the orientation targets *sequentially* instead of
simultaneously." Figure 5, with ``D`` the distance to the target, ``D_eta`` the first sampled
distance of the table, ``D_tol`` the position tolerance and ``eps_tol`` the orientation
tolerance::

    Mc := Funnelling
    If (D < D_tol AND (alpha + eta + delta_eta) < eps_tol)   Mc := End_of_Steering
    Else if (D < D_tol)                                       Mc := Orientation_only
    Else if (D < D_eta OR (alpha + eta + delta_eta) < eps_tol) Mc := Position_only

**Reading of ``(alpha + eta + delta_eta) < eps_tol``** (taken "as an absolute angle").
With alpha the radial direction minus the forward direction, eta the tangential direction minus
the radial one and delta_eta the target direction minus the tangential one, the sum is the target
direction minus the forward direction: the orientation error, whatever eta is. It is compared as
``|wrap_pi(course - yaw)| < eps_tol``; computed that way it needs no table (inside ``D_eta`` the
table has no eta), and it is exactly the sum wherever the sum is defined.

The choice is memoryless: every update re-evaluates Figure 5 (no hysteresis; the seed has none).
"""

from __future__ import annotations

from enum import IntEnum

from steerlab._jit import kernel

__all__ = ["Mode"]

FUNNELLING = 0
POSITION_ONLY = 1
ORIENTATION_ONLY = 2
END_OF_STEERING = 3


class Mode(IntEnum):
    """The current control mode ``M_c`` of Figure 5."""

    FUNNELLING = FUNNELLING  # heading = radial rotated by mu (Figure 4)
    POSITION_ONLY = POSITION_ONLY  # seek: heading = radial, orientation ignored
    ORIENTATION_ONLY = ORIENTATION_ONLY  # turn to the target direction, position ignored
    END_OF_STEERING = END_OF_STEERING  # both within tolerance: stop steering


@kernel
def _choose_mode(distance, orientation_error, d_tol, d_eta, eps_tol):
    """Figure 5: the mode for this update (an int, ``Mode``'s value).

    ``orientation_error`` [rad] is ``alpha + eta + delta_eta`` = target direction - forward
    direction, wrapped to ``[-pi, pi)``; compared in absolute value.
    """
    oriented = abs(orientation_error) < eps_tol
    near = distance < d_tol
    mode = FUNNELLING
    mode = POSITION_ONLY if (distance < d_eta) | oriented else mode
    mode = ORIENTATION_ONLY if near else mode
    return END_OF_STEERING if near & oriented else mode
