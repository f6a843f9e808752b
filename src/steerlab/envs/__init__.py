"""Gymnasium environments (optional extra ``gym``): ``steerlab/PathFollowing-v0``.

Importing this package registers ``steerlab/PathFollowing-v0`` with Gymnasium: ``gym.make``
builds ``PathFollowingEnv``, ``gym.make_vec(..., vectorization_mode="vector_entry_point")`` the
batch-kernel ``PathFollowingVectorEnv`` (equal to ``SyncVectorEnv`` of the single env); frames are
drawn by ``steerlab.envs.render`` (``render_mode="rgb_array"`` or ``"human"``). Layer: above
``steerlab.trials`` (it uses the vehicles, the world, the follower's kernels, the trials layer's
suites and observer, and ``plot.canvas``).

Examples
--------
>>> import gymnasium as gym
>>> import steerlab.envs
>>> env = gym.make("steerlab/PathFollowing-v0", path="long_s")
>>> observation, info = env.reset(seed=0)
"""

try:
    import gymnasium
except ImportError as error:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        "steerlab.envs needs gymnasium: install the extra with pip install 'steerlab[gym]'"
    ) from error

from steerlab.envs.path_following import PathFollowingEnv, PathFollowingVectorEnv, RewardWeights

__all__ = ["ENV_ID", "PathFollowingEnv", "PathFollowingVectorEnv", "RewardWeights"]

ENV_ID = "steerlab/PathFollowing-v0"

if ENV_ID not in gymnasium.registry:
    gymnasium.register(
        id=ENV_ID,
        entry_point="steerlab.envs.path_following:PathFollowingEnv",
        vector_entry_point="steerlab.envs.path_following:PathFollowingVectorEnv",
    )
