"""Path following for ground vehicles (seed 001): the five modules of the paper's Figure 2.

``PathFollower(vehicle_params, follower_params).step(state, dt) -> DriveCommand`` composes target
speed generation (``target_speed``: Algorithm 1), target point generation, PI speed control,
pure pursuit steering and the stuck manager; ``BaselineFollower`` is the paper's baseline
(Section III). The peers users would otherwise pick: ``StanleyFollower`` (Stanley
steering, Hoffmann et al. 2007, with seed 001's target speed and PI loop) and
``RegulatedPurePursuitFollower`` (regulated pure pursuit, Macenski et al. 2023, the ROS 2 Nav2
controller, with its own speed law). ``step_batch`` runs many vehicles, each on its own path,
with the same kernels. Each module is its own kernel, in its own module of this package, reading
its own record (``FollowerRecords``); a follower's variant is the laws its records hold
(``VARIANTS``: a name -> the function building them from ``FollowerParams``).
"""

from steerlab.follower.follower import (
    BaselineFollower,
    FollowerBatchOutput,
    FollowerInfo,
    FollowerMemory,
    PathFollower,
    RegulatedPurePursuitFollower,
    StanleyFollower,
    StuckEvent,
    TeleportRequest,
)
from steerlab.follower.params import GRAVITY, VARIANTS, FollowerParams, FollowerRecords
from steerlab.follower.target_speed import sampled_path, target_speed

__all__ = [
    "GRAVITY",
    "VARIANTS",
    "BaselineFollower",
    "FollowerBatchOutput",
    "FollowerInfo",
    "FollowerMemory",
    "FollowerParams",
    "FollowerRecords",
    "PathFollower",
    "RegulatedPurePursuitFollower",
    "StanleyFollower",
    "StuckEvent",
    "TeleportRequest",
    "sampled_path",
    "target_speed",
]
