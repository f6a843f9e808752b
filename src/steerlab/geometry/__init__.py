"""Geometry every seed uses: angle wrapping, polylines, quadratic Bezier curvature."""

from steerlab.geometry.angles import atan2, sincos, wrap_2pi, wrap_pi
from steerlab.geometry.bezier import bezier_max_curvature
from steerlab.geometry.polyline import Polyline, Projection

__all__ = [
    "Polyline",
    "Projection",
    "atan2",
    "bezier_max_curvature",
    "sincos",
    "wrap_2pi",
    "wrap_pi",
]
