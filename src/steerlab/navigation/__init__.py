"""Navigation over precomputed nav data (seed 002): nav data files and route search."""

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
    load_navdata,
)
from steerlab.navigation.route import NoRouteError, PackedRoutes, Route, find_route, pack_routes

__all__ = [
    "FLAG_BITS",
    "FLAG_NAMES",
    "Connection",
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
    "Waypoint",
    "WaypointGraph",
    "find_route",
    "load_navdata",
    "pack_routes",
]
