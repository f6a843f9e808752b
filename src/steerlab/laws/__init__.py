"""Guidance laws of seed 000: a state in, a ``Command(yaw, speed)`` out, for any heading/speed
engine (BaseEngine, Half-Life)."""

from steerlab.laws._common import BatchOutput
from steerlab.laws.line import EngineBound, FollowLine
from steerlab.laws.oriented import FAMILIES, ReachOriented
from steerlab.laws.point import AroundPoint, SeekPoint
from steerlab.laws.stop import StopAt

__all__ = [
    "FAMILIES",
    "AroundPoint",
    "BatchOutput",
    "EngineBound",
    "FollowLine",
    "ReachOriented",
    "SeekPoint",
    "StopAt",
]
