"""Motion models (plants) driven by a heading and a speed: BaseEngine (seed 000), Half-Life
(seed 004)."""

from steerlab.engines.base import BaseEngine, BaseEngineParams
from steerlab.engines.halflife import HalfLifeEngine, HalfLifeParams
from steerlab.engines.state import AgentBatch, AgentState, Command
from steerlab.engines.unicycle import Unicycle, UnicycleParams, UnicycleState

__all__ = [
    "AgentBatch",
    "AgentState",
    "BaseEngine",
    "BaseEngineParams",
    "Command",
    "HalfLifeEngine",
    "HalfLifeParams",
    "Unicycle",
    "UnicycleParams",
    "UnicycleState",
]
