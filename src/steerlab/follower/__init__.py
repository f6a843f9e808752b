"""Path following for ground vehicles (seed 001): the five modules of the paper's Figure 2.

``PathFollower(vehicle_params, follower_params).step(state, dt) -> DriveCommand`` composes target
speed generation (``target_speed``: Algorithm 1), target point generation, PI speed control,
pure pursuit steering and the stuck manager; ``BaselineFollower`` is the paper's baseline
(Section III). ``step_batch`` runs many vehicles, each on its own path, with the same kernels.
Each module is its own kernel, in its own module of this package.
"""

from steerlab.follower.follower import (
    BaselineFollower,
    FollowerBatchOutput,
    FollowerInfo,
    FollowerMemory,
    PathFollower,
    StuckEvent,
    TeleportRequest,
)
from steerlab.follower.params import GRAVITY, FollowerParams
from steerlab.follower.target_speed import sampled_path, target_speed

__all__ = [
    "GRAVITY",
    "BaselineFollower",
    "FollowerBatchOutput",
    "FollowerInfo",
    "FollowerMemory",
    "FollowerParams",
    "PathFollower",
    "StuckEvent",
    "TeleportRequest",
    "sampled_path",
    "target_speed",
]
