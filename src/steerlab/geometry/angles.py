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

``sincos`` is the sine and cosine every kernel uses for headings. It is a Cody-Waite reduction by
pi/2 followed by the fdlibm minimax polynomials on ``[-pi/4, pi/4]`` (Sun's ``k_sin.c`` /
``k_cos.c`` coefficients), written in plain floating-point operations. Two reasons, both measured:
libm's ``sin`` and ``cos`` cost about 17 ns per agent and keep a batch loop from vectorizing
(BaseEngine: 41 M agent-steps/s per core with libm), and a formula in plain arithmetic gives the
same bits in the scalar and the batch path and on every platform, whatever its libm. The error
against ``math.sin``/``math.cos`` is tested to stay within a few units in the last place.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from steerlab._checks import check_finite
from steerlab._jit import batch_kernel, kernel

__all__ = ["atan2", "sincos", "wrap_2pi", "wrap_pi"]

_TWO_PI = 2.0 * math.pi

# Cody-Waite split of pi/2 (fdlibm e_rem_pio2.c: pio2_1, pio2_1t): pi/2 = PIO2_HI + PIO2_LO.
_PIO2_HI = 1.57079632673412561417e00
_PIO2_LO = 6.07710050650619224932e-11
_INV_PIO2 = 6.36619772367581382433e-01  # 2/pi

# fdlibm k_sin.c: sin(x) ~ x + x^3 (S1 + x^2 S2 + ...), |x| <= pi/4
_S1 = -1.66666666666666324348e-01
_S2 = 8.33333333332248946124e-03
_S3 = -1.98412698298579493134e-04
_S4 = 2.75573137070700676789e-06
_S5 = -2.50507602534068634195e-08
_S6 = 1.58969099521155010221e-10
# fdlibm k_cos.c: cos(x) ~ 1 - x^2/2 + x^4 (C1 + x^2 C2 + ...), |x| <= pi/4
_C1 = 4.16666666666666019037e-02
_C2 = -1.38888888888741095749e-03
_C3 = 2.48015872894767294178e-05
_C4 = -2.75573143513906633035e-07
_C5 = 2.08757232129817482790e-09
_C6 = -1.13596475577881948265e-11


@kernel
def _wrap_pi(angle):
    """Wrap an angle (radians) into ``[-pi, pi)``; the seeds' ``wrap180``. NaN stays NaN."""
    wrapped = angle - _TWO_PI * math.floor((angle + math.pi) / _TWO_PI)
    # rounding can land exactly on +pi (or a hair outside) for inputs near an odd multiple of
    # pi; conditional expressions (selects, not branches) keep batch loops vectorizable
    # (x + pi) / 2 pi may also underflow to -0, leaving x a hair below -pi; adding 2 pi can
    # then round to +pi, so the upper check comes last
    wrapped = wrapped + _TWO_PI if wrapped < -math.pi else wrapped
    return wrapped - _TWO_PI if wrapped >= math.pi else wrapped


@kernel
def _wrap_2pi(angle):
    """Wrap an angle (radians) into ``[0, 2 pi)``; the seeds' ``wrap360``. NaN stays NaN."""
    wrapped = angle - _TWO_PI * math.floor(angle / _TWO_PI)
    # a tiny negative angle: angle / 2 pi underflows to -0, then angle + 2 pi rounds to 2 pi,
    # so the upper check comes last
    wrapped = wrapped + _TWO_PI if wrapped < 0.0 else wrapped
    return wrapped - _TWO_PI if wrapped >= _TWO_PI else wrapped


@kernel
def _sincos(angle):
    """``(sin(angle), cos(angle))`` for finite angles; accurate for ``|angle| < 1e6``.

    Reduction ``r = angle - q pi/2`` with ``q`` the nearest integer (two-part pi/2), then the
    fdlibm kernels and the quadrant rule. Branch-free (the quadrant rule uses selects), so that
    numba vectorizes loops that call it: 4x faster than a branchy version, measured.
    """
    quadrant = math.floor(angle * _INV_PIO2 + 0.5)
    reduced = (angle - quadrant * _PIO2_HI) - quadrant * _PIO2_LO
    z = reduced * reduced
    sin_r = reduced + reduced * z * (_S1 + z * (_S2 + z * (_S3 + z * (_S4 + z * (_S5 + z * _S6)))))
    cos_r = 1.0 - 0.5 * z + z * z * (_C1 + z * (_C2 + z * (_C3 + z * (_C4 + z * (_C5 + z * _C6)))))
    q = int(quadrant) & 3
    # quadrant rule by selects: q odd swaps sine and cosine; q in {2, 3} negates the sine,
    # q in {1, 2} the cosine
    swap = (q & 1) == 1
    sine = cos_r if swap else sin_r
    cosine = sin_r if swap else cos_r
    sine = -sine if (q & 2) != 0 else sine
    cosine = -cosine if ((q + 1) & 2) != 0 else cosine
    return sine, cosine


# Cephes atan.c: atan(x) = x + x^3 P(x^2)/Q(x^2) on [0, 0.66], with a reduction by pi/4 above
_ATAN_P0 = -8.750608600031904122785e-01
_ATAN_P1 = -1.615753718733365076637e01
_ATAN_P2 = -7.500855792314704667340e01
_ATAN_P3 = -1.228866684490136173410e02
_ATAN_P4 = -6.485021904942025371773e01
_ATAN_Q0 = 2.485846490142306297962e01
_ATAN_Q1 = 1.650270098316988542046e02
_ATAN_Q2 = 4.328810604912902668951e02
_ATAN_Q3 = 4.853903996359136964868e02
_ATAN_Q4 = 1.945506571482613964425e02
_PIO2_LOW = 6.123233995736765886130e-17  # pi/2 - float(pi/2) (Cephes MOREBITS)


@kernel
def _atan2(y, x):
    """``atan2(y, x)`` in plain arithmetic, branch-free: same bits in every build and platform.

    Reduces to ``t = min(|x|, |y|) / max(|x|, |y|)`` in ``[0, 1]``, takes Cephes' rational
    ``atan`` (with its reduction by pi/4 above 0.66), then places the angle in its octant with
    selects. Within a few units in the last place of ``math.atan2`` (tested); ``atan2(0, 0) = 0``
    and signed zeros are not distinguished (``atan2(-0.0, -1.0)`` gives ``pi``, not ``-pi``).
    """
    abs_x = abs(x)
    abs_y = abs(y)
    largest = max(abs_x, abs_y)
    ratio = min(abs_x, abs_y) / largest if largest > 0.0 else 0.0
    reduce = ratio > 0.66
    t = (ratio - 1.0) / (ratio + 1.0) if reduce else ratio
    z = t * t
    numerator = (((_ATAN_P0 * z + _ATAN_P1) * z + _ATAN_P2) * z + _ATAN_P3) * z + _ATAN_P4
    denominator = ((((z + _ATAN_Q0) * z + _ATAN_Q1) * z + _ATAN_Q2) * z + _ATAN_Q3) * z + _ATAN_Q4
    angle = t * z * numerator / denominator + t
    angle = (math.pi / 4 + (angle + 0.5 * _PIO2_LOW)) if reduce else angle  # atan(ratio)
    angle = ((math.pi / 2 - angle) + _PIO2_LOW) if abs_y > abs_x else angle
    angle = ((math.pi - angle) + 2.0 * _PIO2_LOW) if x < 0.0 else angle
    return -angle if y < 0.0 else angle


@kernel
def _asin(value):
    """``asin(value)`` for ``value`` in ``[-1, 1]``, as ``atan2(value, sqrt(1 - value^2))``."""
    return _atan2(value, math.sqrt((1.0 - value) * (1.0 + value)))


@batch_kernel
def _wrap_pi_array(angles, out):
    for i in numba.prange(angles.size):
        out[i] = _wrap_pi(angles[i])


@batch_kernel
def _wrap_2pi_array(angles, out):
    for i in numba.prange(angles.size):
        out[i] = _wrap_2pi(angles[i])


def wrap_pi(angle):
    """Wrap ``angle`` (radians, scalar or array) into ``[-pi, pi)``; seed ``wrap180``.

    Raises ``ValueError`` for NaN or infinite input.
    """
    return _apply("angle", angle, _wrap_pi, _wrap_pi_array)


def wrap_2pi(angle):
    """Wrap ``angle`` (radians, scalar or array) into ``[0, 2 pi)``; seed ``wrap360``."""
    return _apply("angle", angle, _wrap_2pi, _wrap_2pi_array)


def sincos(angle) -> tuple[float, float]:
    """``(sin(angle), cos(angle))`` of a finite scalar angle, as steerlab's kernels compute it."""
    value = check_finite("angle", angle)
    if abs(value) >= 1e6:
        raise ValueError(f"angle must satisfy |angle| < 1e6 rad for sincos, got {angle!r}")
    sine, cosine = _sincos(value)
    return float(sine), float(cosine)


def atan2(y, x) -> float:
    """``atan2(y, x)`` of finite scalars, as steerlab's kernels compute it (see ``_atan2``)."""
    return float(_atan2(check_finite("y", y), check_finite("x", x)))


def _apply(name, value, scalar_kernel, array_kernel):
    if np.ndim(value) == 0:
        return float(scalar_kernel(check_finite(name, value)))
    array = np.asarray(value, dtype=np.float64)
    if not np.isfinite(array).all():
        index = tuple(
            int(i) for i in np.unravel_index(int(np.argmin(np.isfinite(array))), array.shape)
        )
        label = ", ".join(str(i) for i in index)
        raise ValueError(f"{name}[{label}] must be finite, got {float(array[index])!r}")
    flat = np.ascontiguousarray(array).ravel()
    out = np.empty_like(flat)
    array_kernel(flat, out)
    return out.reshape(array.shape)
