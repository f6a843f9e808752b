"""Navigation over precomputed nav data (seed 002): nav data files, route search, navigators."""

from steerlab.navigation.along import AlongMemory, AlongParams, AlongSegments
from steerlab.navigation.around import AroundMemory, AroundPoints, AroundPointsParams
from steerlab.navigation.metrics import CorridorMetrics, corridor_metrics
from steerlab.navigation.navdata import (
    FLAG_BITS,
    FLAG_NAMES,
    Connection,
    Corridors1,
    Corridors1Waypoint,
    Corridors2,
    CorridorSegment,
    NavData,
    PathSegment,
    PointsNav,
    SlalomPoint,
    Waypoint,
    WaypointGraph,
    example_navdata,
    load_navdata,
    shipped_maps,
)
from steerlab.navigation.prediction import half_life_prediction_horizon
from steerlab.navigation.route import NoRouteError, PackedRoutes, Route, find_route, pack_routes
from steerlab.navigation.towards import TowardsMemory, TowardsParams, TowardsPoints

__all__ = [
    "FLAG_BITS",
    "FLAG_NAMES",
    "AlongMemory",
    "AlongParams",
    "AlongSegments",
    "AroundMemory",
    "AroundPoints",
    "AroundPointsParams",
    "Connection",
    "CorridorMetrics",
    "CorridorSegment",
    "Corridors1",
    "Corridors1Waypoint",
    "Corridors2",
    "NavData",
    "NoRouteError",
    "PackedRoutes",
    "PathSegment",
    "PointsNav",
    "Route",
    "SlalomPoint",
    "TowardsMemory",
    "TowardsParams",
    "TowardsPoints",
    "Waypoint",
    "WaypointGraph",
    "corridor_metrics",
    "example_navdata",
    "find_route",
    "half_life_prediction_horizon",
    "load_navdata",
    "pack_routes",
    "shipped_maps",
]
