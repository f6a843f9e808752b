"""Geometry every seed uses: angle wrapping, polylines, quadratic Bezier curvature."""

from steerlab.geometry.angles import sincos, wrap_2pi, wrap_pi
from steerlab.geometry.bezier import bezier_max_curvature
from steerlab.geometry.polyline import Polyline, Projection

__all__ = ["Polyline", "Projection", "bezier_max_curvature", "sincos", "wrap_2pi", "wrap_pi"]
