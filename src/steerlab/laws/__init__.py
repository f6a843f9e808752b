"""Guidance laws of seed 000: a state in, a ``Command(yaw, speed)`` out, for any heading/speed
engine (BaseEngine, Half-Life).

Each law's parameters are one record (``SeekParams``, ``AroundParams``, ``LineParams``,
``OrientedParams``, ``StopParams``); a law built from one (``from_params``) may hold one value
per agent in any field, for its batch step.
"""

from steerlab.laws._common import BatchOutput
from steerlab.laws.line import EngineBound, FollowLine, LineParams, half_life_k_y
from steerlab.laws.oriented import FAMILIES, OrientedParams, ReachOriented, fit_conic
from steerlab.laws.point import AroundParams, AroundPoint, SeekParams, SeekPoint
from steerlab.laws.stop import StopAt, StopParams

__all__ = [
    "FAMILIES",
    "AroundParams",
    "AroundPoint",
    "BatchOutput",
    "EngineBound",
    "FollowLine",
    "LineParams",
    "OrientedParams",
    "ReachOriented",
    "SeekParams",
    "SeekPoint",
    "StopAt",
    "StopParams",
    "fit_conic",
    "half_life_k_y",
]
