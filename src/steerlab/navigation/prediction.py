"""Seed 002's Half-Life prediction horizon, shared by the navigators that predict.

Seed 002 ("Navigation along segments"): ``PredCoeff= ( -T+ 1/ Friction);/*Half-life specific
computation*/ ... PredPos= M+ vDeltaPredh;`` with ``vDeltaPredh = PredCoeff * vVel``; "with
prediction, ie not using the bot position, but its position + (-Timestep+1/friction)*
2Dvelocity. This reinjects dampening in the engine speed model".
"""

from __future__ import annotations

from steerlab._checks import check_timestep
from steerlab._jit import kernel
from steerlab.engines.halflife import HalfLifeParams

__all__ = ["half_life_prediction_horizon"]


def half_life_prediction_horizon(params: HalfLifeParams, dt: float) -> float:
    """Seed 002's Half-Life prediction horizon [s]: ``PredCoeff = -T + 1/Friction``, at least 0.

    ``P = M + PredCoeff * vVel`` is where the seed's "along segments" pseudo-code predicts the
    agent; pass the result as ``AroundPoints(prediction_horizon=...)``.
    """
    if not isinstance(params, HalfLifeParams):
        raise ValueError(f"params must be a HalfLifeParams, got {params!r}")
    friction = params.validated().friction
    return _half_life_horizon(friction, check_timestep(dt))


@kernel
def _half_life_horizon(friction, dt):
    """Seed 002's ``PredCoeff = -T + 1/Friction`` [s], at least 0 (``friction`` [1/s] > 0)."""
    return max(1.0 / friction - dt, 0.0)
