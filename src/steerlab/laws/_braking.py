"""What a law knows of the engine it drives to end on a point: its stop distance, the
inverse, and the speed at which it can still turn onto the point, per engine.

A law's parameter record names the engine (``engine``, coded as its index in ``ENGINES``) and
holds what these need: ``k_speed``, ``decel_long_max`` (and, for turning, ``k_yaw``,
``yaw_rate_max``, ``accel_trans_max``) of a ``BaseEngineParams`` (seed 000), ``friction`` and
``stopspeed`` of a ``HalfLifeParams`` (seed 004). ``StopAt``'s prediction compares the stop
distance with the distance left; ``SeekPoint`` commands at most the speeds from which the engine
stops within it and turns onto it.
"""

from __future__ import annotations

import math

from steerlab._jit import kernel
from steerlab.engines.base import _base_engine_stop_distance, _base_engine_stop_speed, _lag_gain
from steerlab.engines.halflife import _stop_distance_exact, _stop_speed_approx

ENGINES = ("none", "base", "half-life")
"""Engines a law can brake for; ``"none"``: no braking (stop distance 0, any speed)."""

_BASE = ENGINES.index("base")
_HALF_LIFE = ENGINES.index("half-life")


@kernel
def _engine_stop_distance(speed, dt, params):
    """Stop distance [u] from ``speed`` after a zero-speed command, of the engine ``params``
    (a record with the fields of the module docstring, ``engine`` coded) names: the
    BaseEngine's (``engines.base._base_engine_stop_distance``), Half-Life's exact
    ``getStopDistDetailed``; 0 for ``"none"``."""
    if params.engine == _BASE:
        gain = _lag_gain(params.k_speed, dt)
        return _base_engine_stop_distance(speed, dt, gain, params.decel_long_max)
    if params.engine == _HALF_LIFE:
        return _stop_distance_exact(speed, dt, params.friction, params.stopspeed)
    return 0.0


@kernel
def _engine_stop_speed(distance, dt, params):
    """The largest speed [u/s] from which that engine stops within ``distance``: the inverse of
    the BaseEngine's stop distance, or of Half-Life's continuous ``getStopDist`` (seed 004 gives
    that form for this inverse); ``inf`` for ``"none"``."""
    if params.engine == _BASE:
        gain = _lag_gain(params.k_speed, dt)
        return _base_engine_stop_speed(distance, dt, gain, params.decel_long_max)
    if params.engine == _HALF_LIFE:
        return _stop_speed_approx(distance, dt, params.friction, params.stopspeed)
    return math.inf


@kernel
def _engine_turn_speed(remaining, bearing_error, dt, params):
    """The largest speed [u/s] at which that engine can still turn onto a point ``remaining``
    away at ``bearing_error`` [rad] from its heading; ``inf`` where it turns at any speed.

    The circle tangent to the heading through the point has radius ``R = MQ / (2 |sin e|)``;
    seed 000's BaseEngine turns at most at ``YawRateMax = min(YAWRATEMAX, ACCTRANSMAX / mVel)``
    and, through its yaw lag, at ``Ek_Yaw |e| / T``, so it stays on that circle while ``v <=
    R min(YAWRATEMAX, Ek_Yaw |e| / T)`` and ``v <= sqrt(ACCTRANSMAX R)``. Half-Life sets the
    heading directly: no bound. Faster than that, the agent circles the point instead of
    reaching it (seed 002's "mobiles that cannot turn at null speed").
    """
    if params.engine != _BASE:
        return math.inf
    sine = abs(math.sin(bearing_error))
    if sine == 0.0:
        return math.inf
    radius = remaining / (2.0 * sine)
    rate = min(params.yaw_rate_max, _lag_gain(params.k_yaw, dt) * abs(bearing_error) / dt)
    return min(radius * rate, math.sqrt(params.accel_trans_max * radius))
