"""Stuck manager (seed 001, Section II): detect a lack of progress, recover, optionally teleport.

Seed 001: "In case of a stuck event being triggered, which we define as a situation where the
vehicle fails to make sufficient progress along the path within a certain time frame, the
commands outputted from the speed and steering controllers are overridden by the stuck manager
module. For instance, we invert the sign of the throttle input during several frames in the
hopes that we recover to a position where the vehicle is no longer stuck. Another potential
strategy is to simply teleport the vehicle to a new position."

Readings (``FollowerParams``: ``stuck_distance`` d, ``stuck_window`` w, ``recovery_frames``,
``teleport_after``):

- **Progress** is arc length along the path: the change of the arc length ``s`` of the vehicle's
  projection from one frame to the next (backwards counts negative). On the first frame after
  the path was replaced (``set_path``), where the two arc lengths belong to different paths, the
  frame's progress is the vehicle's displacement projected on the new path's direction at its
  projection; so a path replaced every frame (a planner re-rooting it at the vehicle) still
  measures progress, and a replacement neither fakes progress nor resets the window.
- **Window.** Progress is summed from an anchor; when the sum reaches d the anchor moves to the
  vehicle (a new window starts, and the count of failed recoveries is cleared); when w seconds
  pass since the anchor with less than d, that is a **stuck event**. A vehicle that stops
  progressing is therefore declared stuck at most w seconds later. Nothing is checked once the
  vehicle has arrived at the path end.
- **Recovery.** On a stuck event the manager overrides the controllers for ``recovery_frames``
  frames (the event's frame included): throttle sign inverted, steer mirrored (``-steer``: backing
  up with the wheels the other way swings the nose towards the target point). The speed
  controller's integral is frozen meanwhile. Then the controllers resume with a fresh window.
- **Teleport** (option, off by default and in the benchmark): a recovery has failed when the
  vehicle is declared stuck again before it got d metres of net progress past the previous
  stuck event (the ground lost while backing up must be made good first); at the stuck event that
  follows ``teleport_after`` failed recoveries in a row, the manager requests a teleport to the
  nearest path point (the projection on the whole path, facing the path's direction) instead of
  recovering. The follower cannot move the vehicle: it reports the request (``PathFollower.
  teleport_request``, or the batch output's ``teleport`` arrays) and the simulation applies it;
  the follower then starts afresh on the path (whole-path projection, new window). Literally the
  nearest point: an obstacle lying on the path itself traps the vehicle again after the teleport
  (a later version could teleport some distance ahead).
- **Log.** Every stuck event is counted and logged with the time since ``reset`` / ``set_path``
  of the follower's clock, the vehicle position and its arc length ``s`` (``StuckEvent``).
"""

from __future__ import annotations

from typing import NamedTuple

from steerlab._jit import kernel

__all__ = ["StuckMemory"]


class StuckMemory(NamedTuple):
    """What the stuck manager remembers between frames (``follower.FollowerMemory`` holds the same
    fields, which ``_stuck_check`` reads from it by name)."""

    progress: float = 0.0  # [m] progress along the path since the window's anchor
    window_time: float = 0.0  # [s] time since the anchor
    since_stuck: float = 0.0  # [m] net progress since the last stuck event
    recovery: int = 0  # recovery frames left
    failures: int = 0  # stuck events since the vehicle last got d past one
    stuck_count: int = 0  # stuck events so far


@kernel
def _stuck_check(progress_step, active, memory, params, dt):
    """One frame of the stuck manager.

    ``progress_step`` [m] this frame's progress along the path; ``active`` False once arrived;
    ``memory`` a record with the ``StuckMemory`` fields (a ``StuckMemory``, or the follower's
    ``FollowerMemory``): ``progress`` [m] and ``window_time`` [s] the sum since the window's
    anchor and the time since it, ``since_stuck`` [m] the net progress since the last stuck event
    (reversing counts negative), ``recovery`` the recovery frames left, ``failures`` the stuck
    events since the vehicle last got ``d`` past a stuck event, ``stuck_count`` the events so
    far; ``params`` a ``StuckParams`` (``distance`` d [m], ``window`` w [s],
    ``recovery_frames``, ``teleport_after``); ``dt`` [s].

    Returns ``(memory, event, teleport, recovering)``: the new ``StuckMemory``, whether a stuck
    event happened this frame, whether a teleport is requested, and whether this frame's commands
    are overridden (throttle inverted, steer mirrored).
    """
    progress = memory.progress
    window_time = memory.window_time
    since_stuck = memory.since_stuck
    recovery = memory.recovery
    failures = memory.failures
    stuck_count = memory.stuck_count
    event = False
    teleport = False
    if active:
        since_stuck += progress_step
        if since_stuck >= params.distance:  # d beyond the last stuck event: recovered
            failures = 0
    if recovery == 0 and active:
        progress += progress_step
        window_time += dt
        if progress >= params.distance:  # enough progress: a new window
            progress = 0.0
            window_time = 0.0
        elif window_time >= params.window:  # a stuck event
            event = True
            stuck_count += 1
            failures += 1
            progress = 0.0
            window_time = 0.0
            since_stuck = 0.0
            if params.teleport_after > 0 and failures > params.teleport_after:
                teleport = True
                failures = 0
            else:
                recovery = params.recovery_frames
    recovering = recovery > 0
    if recovering:
        recovery -= 1  # this frame is one of the recovery frames
    memory = StuckMemory(progress, window_time, since_stuck, recovery, failures, stuck_count)
    return memory, event, teleport, recovering


@kernel
def _recovery_command(steer, throttle, recovering):
    """The stuck manager's override: ``(-steer, -throttle)`` while recovering."""
    if recovering:
        return -steer, -throttle
    return steer, throttle
