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
which gives Eq. 4. The derivation agrees with the seed in every case. The kernel is
``steerlab.geometry.kernels.bezier_max_curvature`` (Algorithm 1 calls it); the function here
validates its input and calls it.
"""

from __future__ import annotations

import numpy as np

from steerlab._checks import as_float_array, check_finite_array
from steerlab.geometry import kernels

__all__ = ["bezier_max_curvature"]


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
    return float(kernels.bezier_max_curvature(*padded.ravel()))


def _control_point(name: str, value) -> np.ndarray:
    point = as_float_array(name, value, "a 2-D or 3-D point")
    if point.ndim != 1 or point.size not in (2, 3):
        raise ValueError(f"{name} must be a 2-D or 3-D point, got shape {point.shape}: {value!r}")
    return check_finite_array(name, point)
