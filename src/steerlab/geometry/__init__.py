"""Geometry every seed uses: angle wrapping, polylines, quadratic Bezier curvature."""

from steerlab.geometry.angles import sincos, wrap_2pi, wrap_pi

__all__ = ["sincos", "wrap_2pi", "wrap_pi"]
