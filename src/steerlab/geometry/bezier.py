"""Maximum curvature of a quadratic Bezier curve (seed 001, Eq. 2-4).

Seed 001 estimates the curvature of the path ahead of a vehicle with quadratic Bezier curves

    B(t) = (1 - t)^2 p1 + 2 (1 - t) t p2 + t^2 p3,   0 <= t <= 1          (seed 001, Eq. 2)

and takes their maximum curvature in closed form (Eq. 3 and Eq. 4) instead of sampling
``kappa(t) = |B' x B''| / |B'|^3``. With the legs of the control polygon ``u = p2 - p1`` and
``w = p3 - p2`` the derivatives are ``B'(t) = 2 ((1 - t) u + t w)`` and ``B'' = 2 (w - u)``, so
``B' x B'' = 4 u x w`` is constant and

    kappa(t) = A / |(1 - t) u + t w|^3,   A = |u x w| / 2 = |(p1 - p2) x (p1 - p3)| / 2,

with ``A`` the area of the control triangle. The curvature is largest where the point
``(1 - t) u + t w`` of the segment from ``u`` to ``w`` is closest to the origin. That point is
interior exactly when ``u . (u - w) > 0`` and ``w . (w - u) > 0``; since ``p2 - m = (u - w) / 2``
with ``m = (p1 + p3) / 2``, these are ``(p2 - p1) . (p2 - m) > 0`` and ``(p2 - p3) . (p2 - m) > 0``,
and ``(p2 - p1) . (p2 - m) = |p2 - c|^2 - r^2`` for the sphere of centre ``c = (p1 + m) / 2`` and
radius ``r = |p1 - m| / 2``: the seed's two-sphere test, written as the power of ``p2`` with
respect to each sphere (same test, no square roots). Then the closest distance is
``2 A / |u - w| = A / |p2 - m|``, which gives Eq. 3; otherwise it is ``min(|u|, |w|)`` at an end,
which gives Eq. 4. The derivation agrees with the seed in every case.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from steerlab._checks import check_finite_array
from steerlab._jit import batch_kernel, kernel

__all__ = ["bezier_max_curvature"]


SCALE_SAFE_LOW = 1e-40  # [m]: legs up to these lengths are used as they are (their sixth
SCALE_SAFE_HIGH = 1e40  # powers stay inside the double range)
_SUBNORMAL_GUARD = 1e-300  # [m] below, 1 / scale could overflow
_GROW = 2.0**600  # exact
_SHORT_LEG2 = 1e-60  # [(units of the legs)^2]: a shorter leg below 1e-30 takes Eq. 4 with two
#   square roots (its fourth power would underflow); above, the product (2 A)^2 shorter^2 of the
#   one-root form underflows only for curvatures below ~1e-34 per unit of the legs


@kernel
def _bezier_max_curvature(x1, y1, z1, x2, y2, z2, x3, y3, z3):
    """Maximum curvature [1/m] of the quadratic Bezier curve with control points p1, p2, p3.

    Seed 001, Eq. 3 / Eq. 4; 2-D callers pass ``z1 = z2 = z3 = 0``. Never NaN for finite input
    whose coordinate differences are finite: a straight curve gives ``0.0``, a curve that
    reverses (cusp) gives ``math.inf``; see ``bezier_max_curvature`` for the cases.
    """
    # legs of the control polygon: B'(t) = 2 ((1 - t) first_leg + t second_leg)
    first_x = x2 - x1
    first_y = y2 - y1
    first_z = z2 - z1
    second_x = x3 - x2
    second_y = y3 - y2
    second_z = z3 - z2
    # legs whose lengths are far from metres are rescaled first (``_legs_max_curvature`` forms
    # products up to the sixth power); the test reads the squared lengths, which the formula
    # needs anyway (the compiler computes them once)
    longer2 = max(
        first_x * first_x + first_y * first_y + first_z * first_z,
        second_x * second_x + second_y * second_y + second_z * second_z,
    )
    if SCALE_SAFE_LOW * SCALE_SAFE_LOW <= longer2 <= SCALE_SAFE_HIGH * SCALE_SAFE_HIGH:
        return _legs_max_curvature(first_x, first_y, first_z, second_x, second_y, second_z)
    scale = max(
        abs(first_x), abs(first_y), abs(first_z), abs(second_x), abs(second_y), abs(second_z)
    )
    if scale == 0.0:
        return 0.0  # all three points coincide: a point, no bend
    # far from metres: work in units of `scale` so that squares and cubes neither overflow nor
    # underflow (one division, then products: the scaled legs are the same up to an ulp)
    grow = 1.0
    if scale < _SUBNORMAL_GUARD:
        # 1 / scale would overflow (a subnormal scale): the legs are first made normal numbers
        # by an exact power of two (x grow unit = x unit when grow = 1)
        grow = _GROW
    unit = 1.0 / (scale * grow)
    kappa = _legs_max_curvature(
        first_x * grow * unit,
        first_y * grow * unit,
        first_z * grow * unit,
        second_x * grow * unit,
        second_y * grow * unit,
        second_z * grow * unit,
    )
    # (unit first: a curvature beyond the double range is inf, never 0 * inf)
    return kappa * unit * grow


@kernel
def _legs_max_curvature(first_x, first_y, first_z, second_x, second_y, second_z):
    """Eq. 3 / Eq. 4 from the legs ``p2 - p1`` and ``p3 - p2`` of the control polygon, the longer
    of length within ``[SCALE_SAFE_LOW, SCALE_SAFE_HIGH]`` (``_bezier_max_curvature`` rescales
    other legs to a largest component of 1), so that their products up to the sixth power stay
    inside the double range."""
    cross_x = first_y * second_z - first_z * second_y
    cross_y = first_z * second_x - first_x * second_z
    cross_z = first_x * second_y - first_y * second_x
    cross2 = cross_x * cross_x + cross_y * cross_y + cross_z * cross_z  # (2 A)^2
    if cross2 == 0.0:
        # collinear: straight if the legs agree in direction (or one is zero), a cusp where
        # B'(t) passes through zero and the curve turns back if they oppose
        legs_dot = first_x * second_x + first_y * second_y + first_z * second_z
        if legs_dot < 0.0:
            return math.inf
        return 0.0

    # p2 - m = (first_leg - second_leg) / 2
    half_x = 0.5 * (first_x - second_x)
    half_y = 0.5 * (first_y - second_y)
    half_z = 0.5 * (first_z - second_z)
    # power of p2 with respect to the sphere on p1 m, and to the sphere on m p3 (each > 0 outside)
    power_first = first_x * half_x + first_y * half_y + first_z * half_z
    power_second = -(second_x * half_x + second_y * half_y + second_z * half_z)
    middle2 = half_x * half_x + half_y * half_y + half_z * half_z
    shorter2 = min(
        first_x * first_x + first_y * first_y + first_z * first_z,
        second_x * second_x + second_y * second_y + second_z * second_z,
    )
    # both equations evaluated, one kept by selection rather than a branch (which one applies
    # is as good as random along a path: a mispredicted branch costs more than the work), with
    # one square root and one division per curve.
    # Eq. 3: |p2 - m|^3 / A^2 = 4 |p2 - m|^2 |p2 - m| / (2 A)^2 (a tiny area gives inf, never
    # 0 / 0); Eq. 4: max(A / |p1 - p2|^3, A / |p3 - p2|^3) = A / shorter^3 =
    # sqrt((2 A)^2 shorter^2) / (2 shorter^4) (both legs are non-zero since A > 0)
    interior = (power_first > 0.0) & (power_second > 0.0)
    if shorter2 < _SHORT_LEG2 and not interior:
        # Eq. 4 with one leg 1e-30 or shorter (in the units of the legs): the same value with a
        # second square root, as the fourth power would underflow (rare: not on a path's
        # curve, whose legs are dh long)
        return 0.5 * math.sqrt(cross2) / (shorter2 * math.sqrt(shorter2))
    root = math.sqrt(middle2 if interior else cross2 * shorter2)
    numerator = 4.0 * middle2 * root if interior else root
    denominator = cross2 if interior else 2.0 * shorter2 * shorter2
    return numerator / denominator


@batch_kernel
def _bezier_max_curvature_batch(first_points, middle_points, last_points, out):
    """``out[i]`` = maximum curvature of the curve ``(first_points[i], middle_points[i],
    last_points[i])``; point arrays of shape ``(n, 3)`` (2-D points padded with ``z = 0``)."""
    for i in numba.prange(out.size):
        out[i] = _bezier_max_curvature(
            first_points[i, 0],
            first_points[i, 1],
            first_points[i, 2],
            middle_points[i, 0],
            middle_points[i, 1],
            middle_points[i, 2],
            last_points[i, 0],
            last_points[i, 1],
            last_points[i, 2],
        )


def bezier_max_curvature(p1, p2, p3) -> float:
    """Maximum curvature of the quadratic Bezier curve with control points ``p1, p2, p3``.

    Seed 001, Eq. 3 / Eq. 4. With ``m = (p1 + p3) / 2`` and ``A`` the area of the triangle
    ``p1 p2 p3``: if ``p2`` lies strictly outside both spheres of radius ``|p1 - m| / 2`` centred
    at ``(p1 + m) / 2`` and ``(p3 + m) / 2``, the maximum is interior and equals
    ``|p2 - m|^3 / A^2`` (Eq. 3); otherwise the curvature is monotone and the maximum is at an
    end, ``max(A / |p1 - p2|^3, A / |p3 - p2|^3)`` (Eq. 4). On a sphere both give the same value.

    Degenerate control points, with values taken from the curve ``B(t)`` itself (Eq. 2):

    - all three points equal: ``0.0`` (the curve is a point).
    - collinear with ``p2`` between ``p1`` and ``p3``, or ``p2`` equal to ``p1`` or ``p3``:
      ``0.0`` (the curve is a straight segment, traversed without turning back).
    - collinear with ``p2`` outside the segment ``p1 p3``, or ``p1 == p3 != p2``: ``math.inf``.
      ``B'(t)`` vanishes at some ``t`` in ``(0, 1)`` and the curve reverses there (a cusp); a
      reversal has to be taken at zero speed, and seed 001 Eq. 1 indeed gives a target speed of
      0, which Algorithm 1 clamps to ``v_min``.

    Nearly degenerate inputs tend continuously to these values (a nearly straight curve has a
    curvature near 0, a nearly reversing one a very large curvature), and the result is never
    NaN.

    Parameters
    ----------
    p1, p2, p3 : array_like, shape (2,) or (3,)
        Control points [m], all 2-D or all 3-D. ``p1`` and ``p3`` are the ends of the curve.

    Returns
    -------
    float
        Maximum curvature [1/m] over ``0 <= t <= 1``, in ``[0, inf]``. It scales as ``1 / s`` when
        the points are scaled by ``s`` and is invariant under rotation and translation.

    Raises
    ------
    ValueError
        If a point is not finite, not of length 2 or 3, or the points differ in dimension.
    """
    first = _control_point("p1", p1)
    middle = _control_point("p2", p2)
    last = _control_point("p3", p3)
    for name, point in (("p2", middle), ("p3", last)):
        if point.size != first.size:
            raise ValueError(
                f"{name} must have the same dimension as p1 ({first.size}), got {point.size} "
                f"coordinates: {point.tolist()!r}"
            )
    with np.errstate(over="ignore"):
        spread = np.concatenate((middle - first, last - middle))
    if not np.isfinite(spread).all():
        raise ValueError(
            "p1, p2, p3 are too far apart: their differences overflow, got "
            f"{first.tolist()!r}, {middle.tolist()!r}, {last.tolist()!r}"
        )
    padded = np.zeros((3, 3))
    padded[0, : first.size] = first
    padded[1, : first.size] = middle
    padded[2, : first.size] = last
    return float(_bezier_max_curvature(*padded.ravel()))


def _control_point(name: str, value) -> np.ndarray:
    try:
        point = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a 2-D or 3-D point, got {value!r}") from None
    if point.ndim != 1 or point.size not in (2, 3):
        raise ValueError(f"{name} must be a 2-D or 3-D point, got shape {point.shape}: {value!r}")
    return check_finite_array(name, point)
