"""Speed control (seed 001, Section II): PI on the speed error, throttle out, anti-windup.

Seed 001: "The speed controller leverages a Proportional-Integral (PI) controller which
regulates vehicle speed via throttle commands using the difference between the target speed and
the vehicle's current speed ... certain strategies must be implemented to mitigate common issues
associated with the integral term including integral windup." The baseline of Section III uses
"the simpler P-controller (i.e. no integral term)": the same kernel with ``T_i = inf``.

The law, in the ideal (ISA) form with the integral time as the gain's time constant::

    e = v_target - v                                  [m/s]
    I <- I + e dt                                     [m]   (backward Euler)
    throttle = clamp(kp (e + I / T_i), -1, 1)

``kp`` [1/(m/s)] is the throttle per m/s of error (``FollowerParams.kp_speed``), ``T_i`` [s] the
integral time (``FollowerParams.ti_speed``). The throttle is the game's normalised input.

**Anti-windup: conditional integration (clamping), plus a bound.** The integral is frozen
during a frame in which the output computed with the previous integral is saturated and the
error pushes it further into saturation (``kp (e + I / T_i) >= 1`` with ``e > 0``, or ``<= -1``
with ``e < 0``); otherwise it integrates. In addition the integral's share of the throttle is
bounded, ``|kp I / T_i| <= 1``, i.e. ``|I| <= T_i / kp``: an integral can never ask for more than
full throttle by itself. So while the throttle saturates (a vehicle held against a wall, a slope
too steep for it) the integral stops growing, and it is bounded at all times. Conditional
integration needs no extra gain (back-calculation needs a tracking time constant) and never
integrates while saturated, which is what a vehicle pushing into a wall needs.
"""

from __future__ import annotations

import math

from steerlab._jit import kernel

__all__: list[str] = []


@kernel
def _pi_speed(v_target, v, integral, kp, ti, dt):
    """PI speed control with conditional integration: ``(throttle, new_integral)``.

    ``v_target``, ``v`` [m/s], ``integral`` [m] (the running integral of the error), ``kp``
    [1/(m/s)] > 0, ``ti`` [s] > 0 (``inf``: P control, the integral stays 0), ``dt`` [s] > 0.
    ``throttle`` in ``[-1, 1]``.
    """
    error = v_target - v
    if ti == math.inf:  # P control (the seed's baseline)
        return min(max(kp * error, -1.0), 1.0), 0.0
    previous_output = kp * (error + integral / ti)
    winding = (previous_output >= 1.0 and error > 0.0) or (previous_output <= -1.0 and error < 0.0)
    new_integral = integral if winding else integral + error * dt
    bound = ti / kp  # |kp I / T_i| <= 1
    new_integral = min(max(new_integral, -bound), bound)
    throttle = min(max(kp * (error + new_integral / ti), -1.0), 1.0)
    return throttle, new_integral
