"""Angles: wrapping and a deterministic sine/cosine.

Conventions (``docs/design.md``): radians, yaw counter-clockwise from +x, ``wrap_pi`` in
``[-pi, pi)``. The seeds work in degrees with two wrappings; they map as follows:

==================  ====================  ===========================================
seed                steerlab              range
==================  ====================  ===========================================
``wrap180(a)``      ``wrap_pi(a)``        ``[-180, 180[`` degrees -> ``[-pi, pi)``
``wrap360(a)``      ``wrap_2pi(a)``       ``[0, 360[`` degrees -> ``[0, 2 pi)``
``K_RadToDeg``      (none)                the code stays in radians
==================  ====================  ===========================================

Seed 000 wraps the BaseEngine yaw with ``wrap360``; steerlab keeps every yaw in ``[-pi, pi)``
instead. Both describe the same direction, so no formula changes.

``sincos`` is the sine and cosine every kernel uses for headings (the kernel
``steerlab.geometry.kernels.sincos``, which the kernels call; the functions here validate their
input and call the kernels). It is a Cody-Waite reduction by pi/2 followed by the fdlibm minimax
polynomials on ``[-pi/4, pi/4]`` (Sun's ``k_sin.c`` / ``k_cos.c`` coefficients), written in plain
floating-point operations. Two reasons: libm's ``sin`` and ``cos`` are calls that keep a batch
loop from vectorizing (BaseEngine's batch runs at half the speed with them,
``docs/performance.md``), and a formula in plain arithmetic gives the same bits in the scalar and
the batch path and on every platform, whatever its libm. The error against ``math.sin`` /
``math.cos`` is tested to stay within a few units in the last place.
"""

from __future__ import annotations

import math

import numpy as np

from steerlab._checks import check_finite
from steerlab.geometry import kernels

__all__ = ["atan2", "sincos", "wrap_2pi", "wrap_pi"]


def wrap_pi(angle):
    """Wrap ``angle`` (radians, scalar or array) into ``[-pi, pi)``; seed ``wrap180``.

    Raises ``ValueError`` for NaN or infinite input.
    """
    return _apply("angle", angle, kernels.wrap_pi, kernels.wrap_pi_array)


def wrap_2pi(angle):
    """Wrap ``angle`` (radians, scalar or array) into ``[0, 2 pi)``; seed ``wrap360``."""
    return _apply("angle", angle, kernels.wrap_2pi, kernels.wrap_2pi_array)


def sincos(angle) -> tuple[float, float]:
    """``(sin(angle), cos(angle))`` of a finite scalar angle, as steerlab's kernels compute it."""
    value = check_finite("angle", angle, per_agent=False)
    if abs(value) >= 1e6:
        raise ValueError(f"angle must satisfy |angle| < 1e6 rad for sincos, got {angle!r}")
    sine, cosine = kernels.sincos(value)
    return float(sine), float(cosine)


def atan2(y, x) -> float:
    """``atan2(y, x)`` of finite scalars, as steerlab's kernels compute it (see
    ``steerlab.geometry.kernels.atan2``)."""
    return float(
        kernels.atan2(check_finite("y", y, per_agent=False), check_finite("x", x, per_agent=False))
    )


# Above this magnitude the kernels' one-step reduction (``angle - 2 pi floor(...)``) rounds the
# product by more than pi: such angles are first reduced exactly (``fmod`` by the float 2 pi has
# no rounding error), here at the boundary, so the kernels keep their vectorizable formula.
_EXACT_ABOVE = 2.0**40
_TWO_PI = 2.0 * math.pi


def _apply(name, value, scalar_kernel, array_kernel):
    if np.ndim(value) == 0:
        angle = check_finite(name, value)
        if abs(angle) > _EXACT_ABOVE:
            angle = math.fmod(angle, _TWO_PI)
        return float(scalar_kernel(angle))
    array = np.asarray(value, dtype=np.float64)
    if not np.isfinite(array).all():
        index = tuple(
            int(i) for i in np.unravel_index(int(np.argmin(np.isfinite(array))), array.shape)
        )
        label = ", ".join(str(i) for i in index)
        raise ValueError(f"{name}[{label}] must be finite, got {float(array[index])!r}")
    flat = np.ascontiguousarray(array).ravel()
    huge = np.abs(flat) > _EXACT_ABOVE
    if huge.any():
        flat = np.where(huge, np.fmod(flat, _TWO_PI), flat)
    out = np.empty_like(flat)
    array_kernel(flat, out)
    return out.reshape(array.shape)
