"""Replays: a run played back in a browser (one self-contained HTML file) or as a video.

``write_replay`` takes one ``Trace``, several (several agents at once) or a batch trace (fields of
shape ``(frames, agents)``), with the path, its corridor and the world (terrain, walls), the
agents' footprints, target points and speeds and stuck events. ``write_trial_replay`` replays one
benchmark trial (``steerlab.trials``) with all of these. The page format: ``steerlab.replay.page``;
the video: ``steerlab.replay.video``.
"""

from steerlab.replay.replay import FORMATS, write_replay, write_trial_replay
from steerlab.replay.scene import MAX_FPS

__all__ = ["FORMATS", "MAX_FPS", "write_replay", "write_trial_replay"]
