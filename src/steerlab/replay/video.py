"""The replay as a video: the page's scene drawn by matplotlib, frame by frame.

``matplotlib.animation.FuncAnimation`` on the Agg canvas (``steerlab.plot.canvas``, no pyplot):
the backdrop once (``steerlab.plot.backdrop``: terrain, walls, path, corridor), then per video
frame each agent's footprint, heading, travelled trajectory and target point, the stuck events
passed so far and a line of text (time, and per agent speed, cross-track error, target speed).
Video frame ``k`` shows the run at ``t_start + k speed / fps``, each agent at its last frame at or
before it (no interpolation), up to ``t_end``. GIF is written by Pillow (``PillowWriter``), MP4
by ffmpeg (``FFMpegWriter``), which must be on the ``PATH``.
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import numpy as np
from matplotlib import animation
from matplotlib.patches import Circle, Polygon

from steerlab.plot.backdrop import draw_path, draw_world
from steerlab.plot.canvas import new_figure
from steerlab.replay.scene import ReplayScene

__all__ = ["check_writer", "video_times", "write_video"]

_SIZE = (8.0, 6.0)  # [in] at 100 dpi: 800 x 600 px
_DPI = 100


def check_writer(kind: str) -> None:
    """``ValueError`` when the writer of ``kind`` (``"gif"``, ``"mp4"``) cannot run here."""
    if kind == "mp4" and shutil.which("ffmpeg") is None:
        raise ValueError(
            "format 'mp4' needs ffmpeg on the PATH (not found): install ffmpeg, or write "
            "format 'gif' or 'html'"
        )


def video_times(scene: ReplayScene, fps: float, speed: float) -> np.ndarray:
    """[s] the run's time at each video frame: ``t_start + k speed / fps`` up to ``t_end``."""
    duration = scene.t_end - scene.t_start
    frames = math.floor(duration * fps / speed + 1e-9) + 1
    return scene.t_start + np.arange(frames) * (speed / fps)


def _corners(x: float, y: float, yaw: float, half_length: float, half_width: float):
    forward = np.array((math.cos(yaw), math.sin(yaw)))
    left = np.array((-forward[1], forward[0]))
    centre = np.array((x, y))
    return [
        centre + half_length * forward + half_width * left,
        centre - half_length * forward + half_width * left,
        centre - half_length * forward - half_width * left,
        centre + half_length * forward - half_width * left,
    ]


def _number(values, frame: int, digits: int) -> str:
    if values is None or not math.isfinite(values[frame]):
        return "-"
    return f"{values[frame]:.{digits}f}"


def write_video(
    scene: ReplayScene, out: Path, kind: str, *, fps: float = 15.0, speed: float = 1.0
) -> Path:
    """Write the scene as a ``kind`` (``"gif"`` or ``"mp4"``) video to ``out``; return ``out``."""
    check_writer(kind)
    figure, grid = new_figure(*_SIZE)
    axes = grid[0, 0]
    if scene.world is not None:
        draw_world(axes, scene.world)
    if scene.path is not None:
        draw_path(axes, scene.path)
    x0, x1, y0, y1 = scene.bounds
    axes.set_xlim(x0, x1)
    axes.set_ylim(y0, y1)
    axes.set_aspect("equal", adjustable="box")
    axes.set_xticks([])  # tick labels would cost most of each frame's drawing
    axes.set_yticks([])
    axes.set_title(scene.title, fontsize=9)
    moving = []
    for agent in scene.agents:
        if agent.shape == "circle":
            body = Circle((0.0, 0.0), agent.half_width)
        else:
            body = Polygon(np.zeros((4, 2)), closed=True)
        body.set(facecolor=agent.color, edgecolor="black", linewidth=0.6, zorder=8, visible=False)
        axes.add_patch(body)
        (heading,) = axes.plot([], [], color="black", linewidth=1.2, zorder=9)
        (trail,) = axes.plot([], [], color=agent.color, linewidth=1.2, alpha=0.8, zorder=4)
        (target,) = axes.plot([], [], "o", color="tab:green", markersize=4, zorder=7)
        (events,) = axes.plot(
            [], [], "x", color="tab:red", markersize=8, markeredgewidth=2.0, zorder=10
        )
        moving.append((agent, body, heading, trail, target, events))
    text = axes.text(
        0.01, 0.99, "", transform=axes.transAxes, ha="left", va="top", fontsize=8,
        family="monospace", zorder=11, bbox={"facecolor": "white", "alpha": 0.7, "linewidth": 0},
    )  # fmt: skip
    times = video_times(scene, fps, speed)
    figure.canvas.draw()  # the constrained layout once, then kept: frames only move artists
    figure.set_layout_engine("none")

    def draw(k: int):
        t = times[k]
        lines = [f"t = {t:7.2f} s"]
        for agent, body, heading, trail, target, events in moving:
            frame = int(np.searchsorted(agent.t, t, side="right")) - 1
            shown = frame >= 0
            body.set_visible(shown)
            if not shown:
                continue
            x, y, yaw = agent.x[frame], agent.y[frame], agent.yaw[frame]
            if agent.shape == "circle":
                body.set_center((x, y))
            else:
                body.set_xy(_corners(x, y, yaw, agent.half_length, agent.half_width))
            reach = 1.6 * agent.half_length
            heading.set_data([x, x + reach * math.cos(yaw)], [y, y + reach * math.sin(yaw)])
            trail.set_data(agent.x[: frame + 1], agent.y[: frame + 1])
            if agent.target_x is not None:
                target.set_data([agent.target_x[frame]], [agent.target_y[frame]])
            passed = [event for event in agent.events if event.t <= t]
            events.set_data([e.x for e in passed], [e.y for e in passed])
            lines.append(
                f"{agent.label}: {_number(agent.speed, frame, 2)} m/s, cross-track "
                f"{_number(agent.cross_track, frame, 2)} m, target "
                f"{_number(agent.target_speed, frame, 2)} m/s"
            )
        text.set_text("\n".join(lines))
        return artists

    artists = [artist for parts in moving for artist in parts[1:]] + [text]
    # blit: between the frames the writer grabs, only the moving artists are drawn again
    movie = animation.FuncAnimation(figure, draw, frames=len(times), blit=True, repeat=False)
    if kind == "gif":
        writer = animation.PillowWriter(fps=fps)
    else:
        writer = animation.FFMpegWriter(
            fps=fps, codec="libx264", extra_args=["-pix_fmt", "yuv420p"]
        )
    movie.save(str(out), writer=writer, dpi=_DPI)
    figure.clear()
    return out
