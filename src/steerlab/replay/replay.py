"""``write_replay``: a run as a page a browser plays, or a video; ``write_trial_replay``: one
benchmark trial's."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from steerlab.replay.page import write_page
from steerlab.replay.scene import MAX_FPS, replay_scene

__all__ = ["FORMATS", "write_replay", "write_trial_replay"]

FORMATS = ("html", "gif", "mp4")
"""What a replay is written as: a page (``steerlab.replay.page``) or a video
(``steerlab.replay.video``: GIF by Pillow, MP4 by ffmpeg)."""


def _format(out: Path, format: str | None) -> str:
    suffix = out.suffix.lower().lstrip(".")
    suffix = "html" if suffix == "htm" else suffix
    if format is None:
        if suffix not in FORMATS:
            raise ValueError(
                f"path must end in .html, .gif or .mp4 (or give format), got {str(out)!r}"
            )
        return suffix
    if format not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, got {format!r}")
    if suffix != format:
        raise ValueError(f"path must end in .{format} for format {format!r}, got {str(out)!r}")
    return format


def _positive(name: str, value) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if isinstance(value, bool) or not (math.isfinite(number) and number > 0.0):
        raise ValueError(f"{name} must be > 0 and finite, got {value!r}")
    return number


def write_replay(
    path_out,
    traces,
    *,
    path=None,
    world=None,
    labels=None,
    footprints=None,
    targets=None,
    target_speeds=None,
    events=None,
    title=None,
    format: str | None = None,
    max_fps: float = MAX_FPS,
    fps: float = 15.0,
    speed: float = 1.0,
) -> Path:
    """Write a replay of a run: an HTML page a browser plays, or a GIF or MP4 video.

    The page is one self-contained file (no server, no network: inline script and style, the
    data as JSON, the terrain as an embedded PNG): each agent's footprint and heading, its
    trajectory, the path and corridor, walls and terrain, the target point and speed, stuck events
    (marked, listed, a click jumps there), a time slider, play/pause, playback speed, zoom and
    pan, and a readout of time, speed, cross-track error and target speed. ``?t=SECONDS`` in its
    URL opens it at that time, ``&play=0`` paused. Frames are kept at ``max_fps`` per second of
    the run's time at most (a 50 Hz run keeps them all); the format is in
    ``steerlab.replay.page``.

    Parameters
    ----------
    path_out : str or pathlib.Path
        The file to write; its suffix (``.html``, ``.gif``, ``.mp4``) chooses the format unless
        ``format`` is given. Its folder is created.
    traces : steerlab.sim.Trace, sequence of Trace, or batch Trace
        The agents' frames: state fields ``x``, ``y`` [m] and ``yaw`` [rad], finite, ``t`` [s]
        strictly increasing; the speed is ``v`` or ``|(vx, vy)|``
        (``steerlab.plot.runs.trace_speed``). Several traces are several agents (their times may
        differ: each is drawn over its own frames); a Trace whose fields have shape
        ``(frames, agents)`` is a batch of agents.
    path : Polyline or array_like of shape (n, 2) or (n, 3), optional
        The path (drawn in the ground plane with its corridor when it has widths); with it, the
        readout gives each frame's signed cross-track error (``Polyline.project_batch``).
    world : steerlab.world.World, optional
        Its terrain (hillshade, ``steerlab.plot.backdrop.draw_terrain``) and walls.
    labels : str or sequence of str, optional
        One name per agent (default ``"agent"``, or ``"agent 0"``, ``"agent 1"``, ...).
    footprints : footprint or sequence of footprints, optional
        One for every agent or one per agent: a record with ``half_length`` and ``half_width``
        [m] (``VehicleParams``, ``steerlab.world.Footprint``: a ``"circle"`` is drawn as one of
        radius ``half_width``) or a pair ``(half_length, half_width)`` [m]. Default: a box 1.5 %
        of the scene's diagonal long (half length), half as wide.
    targets : array_like, optional
        The target point per frame, ``(frames, 2)`` [m] for one agent (NaN: none that frame),
        one such array per agent, or ``(frames, agents, 2)`` for a batch trace.
    target_speeds : array_like, optional
        [m/s] per frame: ``(frames,)``, one per agent, or ``(frames, agents)`` for a batch.
    events : sequence, optional
        Stuck events: the follower's ``StuckEvent`` records (``agent``, ``time``), the times [s]
        of the one agent, or one sequence of times per agent; each within its agent's frames.
    title : str, optional
        The page's title (default ``"steerlab replay"``).
    format : {"html", "gif", "mp4"}, optional
        Default: from ``path_out``'s suffix, which must agree with it.
    max_fps : float
        Page only: frames kept per second of the run's time at most (default 60).
    fps, speed : float
        Video only: frames per second of the video, and seconds of the run per second of video
        (default 15 and 1).

    Returns
    -------
    pathlib.Path
        ``path_out``.

    Raises
    ------
    ValueError
        Any input above malformed (naming it, the value and what is allowed); ``"mp4"`` without
        ffmpeg on the ``PATH``.

    Examples
    --------
    >>> from steerlab.follower import PathFollower
    >>> from steerlab.geometry import Polyline
    >>> from steerlab.replay import write_replay
    >>> from steerlab.sim import simulate
    >>> from steerlab.vehicles import PRESETS, Vehicle, VehicleState
    >>> road = Polyline([(0, 0), (40, 0), (60, 25)], widths=5.0)
    >>> storm = PRESETS["storm"]
    >>> trace = simulate(Vehicle(storm), PathFollower(storm, path=road), VehicleState(), 0.05, 300)
    >>> write_replay("run.html", trace, path=road, footprints=storm, labels="storm")
    PosixPath('run.html')
    """
    out = Path(path_out)
    kind = _format(out, format)
    max_fps = _positive("max_fps", max_fps)
    fps = _positive("fps", fps)
    speed = _positive("speed", speed)
    scene = replay_scene(
        traces,
        path=path,
        world=world,
        labels=labels,
        footprints=footprints,
        targets=targets,
        target_speeds=target_speeds,
        events=events,
        title=title,
    )
    if kind != "html":
        from steerlab.replay.video import check_writer, write_video

        check_writer(kind)
        out.parent.mkdir(parents=True, exist_ok=True)
        return write_video(scene, out, kind, fps=fps, speed=speed)
    out.parent.mkdir(parents=True, exist_ok=True)
    return write_page(scene, out, max_fps=max_fps)


def write_trial_replay(
    path_out,
    spec,
    *,
    simulated=None,
    format: str | None = None,
    max_fps: float = MAX_FPS,
    fps: float = 15.0,
    speed: float = 1.0,
) -> Path:
    """Replay one benchmark trial (``steerlab.trials.trial.TrialSpec``): the same trial the
    benchmark runs, same spawn, same frames.

    The vehicle's footprint (its preset's), the path with its corridor, the suite's world, the
    follower's target point and target speed per frame, and the observer's stuck events (the
    ones Table I counts). ``simulated``: the trial's ``(row, records)`` when already simulated
    (``simulate_trial(spec)``), else it is run here. Other parameters as ``write_replay``.

    Raises
    ------
    ValueError
        An unknown suite, path, vehicle or follower (naming the allowed ones), a bad ``format``.
    """
    from steerlab.sim import Trace
    from steerlab.trials.suite import load_suite
    from steerlab.trials.trial import simulate_trial
    from steerlab.vehicles.files import resolve_vehicle

    out = Path(path_out)
    _format(out, format)  # before the trial runs
    row, records = simulate_trial(spec) if simulated is None else simulated
    suite = load_suite(spec.suite)
    trace = Trace(
        records.t,
        {"x": records.x, "y": records.y, "yaw": records.yaw, "v": records.v},
        {"steer": records.steer[:-1], "throttle": records.throttle[:-1]},
        "VehicleState",
        "DriveCommand",
    )
    events = records.t[records.metrics.stuck_event[: records.t.size]]
    ended = f", {row['ended'].replace('_', ' ')}"
    title = (
        f"{suite.name}: {spec.path}, {row['vehicle']}, {row['follower']}, seed {spec.seed}"
        f"{ended} ({events.size} stuck event{'' if events.size == 1 else 's'})"
    )
    return write_replay(
        out,
        trace,
        path=suite.polyline(spec.path),
        world=suite.world(spec.path),
        labels=[row["vehicle"]],
        footprints=resolve_vehicle(spec.vehicle).params,
        targets=np.column_stack((records.target_x, records.target_y)),
        target_speeds=records.target_speed,
        events=list(events),
        title=title,
        format=format,
        max_fps=max_fps,
        fps=fps,
        speed=speed,
    )
