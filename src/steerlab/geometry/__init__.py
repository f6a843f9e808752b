"""Geometry every seed uses: angle wrapping, segments, polylines, quadratic Bezier curvature.

The functions and classes here validate their input; the numba kernels they call, which the other
packages' kernels call too, are the public names of ``steerlab.geometry.kernels``.
"""

from steerlab.geometry.angles import atan2, sincos, wrap_2pi, wrap_pi
from steerlab.geometry.bezier import bezier_max_curvature
from steerlab.geometry.polyline import Polyline, Projection, planar_polyline
from steerlab.geometry.segment import closest_on_segments

__all__ = [
    "Polyline",
    "Projection",
    "atan2",
    "bezier_max_curvature",
    "closest_on_segments",
    "planar_polyline",
    "sincos",
    "wrap_2pi",
    "wrap_pi",
]
