"""Frames of the path-following environment: one vehicle on its path, drawn with matplotlib.

``EpisodeFrame`` draws on its own Agg canvas (``steerlab.plot.canvas``, no pyplot): the path, its
corridor's edges (``steerlab.world.walls_along`` at margin 0, when the path has widths) and the
world's walls form a background drawn once per path and kept as pixels; each frame restores them
and draws only the moving parts (blitting): the vehicle's footprint (a rectangle of
``2 half_length x 2 half_width`` about its centre of mass, turned by its yaw), its heading (a line
from the centre to the front), the target point and a line of text. ``HumanWindow`` shows those
frames in a pyplot window.

The view is the path's bounding box grown by its corridor and a margin, fitted into the frame
with equal scales on both axes (one metre is as many pixels across as up); it stays fixed for a
path, so a vehicle that drives far off its path leaves the frame.
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.collections import LineCollection
from matplotlib.patches import Polygon

from steerlab.plot.canvas import new_figure
from steerlab.world import walls_along

__all__ = ["FRAME_SIZE", "VEHICLE_COLOR", "EpisodeFrame", "HumanWindow"]

FRAME_SIZE = (640, 480)  # [px] width, height of a frame
VEHICLE_COLOR = (214, 39, 40)  # RGB of the footprint's fill ("tab:red"), used nowhere else
TARGET_COLOR = (44, 160, 44)  # RGB of the target point ("tab:green")
_DPI = 100
_MARGIN = 8.0  # [m] around the path and its corridor


def _rgb(color: tuple[int, int, int]) -> tuple[float, float, float]:
    red, green, blue = color
    return (red / 255.0, green / 255.0, blue / 255.0)


def _fit(low: float, high: float, span: float) -> tuple[float, float]:
    """``[low, high]`` widened about its middle to ``span >= high - low``."""
    middle = 0.5 * (low + high)
    return middle - 0.5 * span, middle + 0.5 * span


class EpisodeFrame:
    """Frames of one vehicle on a path: ``set_path`` once per path, ``draw`` once per frame.

    Parameters
    ----------
    half_length, half_width : float
        [m] the vehicle's footprint, ``> 0`` (``VehicleParams``).
    """

    def __init__(self, half_length: float, half_width: float):
        self.half_length = float(half_length)
        self.half_width = float(half_width)
        width, height = FRAME_SIZE
        self.figure, axes = new_figure(width / _DPI, height / _DPI, layout=None)
        self.figure.set_dpi(_DPI)
        self.axes = axes[0, 0]
        self.axes.set_position((0.0, 0.0, 1.0, 1.0))
        self.axes.set_axis_off()
        self.figure.set_facecolor("white")
        self._static: list = []
        self._background = None
        self._path_key = None
        axes = self.axes
        # the moving parts: animated, so a full draw leaves them out of the background
        self.footprint = Polygon(
            np.zeros((4, 2)),
            closed=True,
            facecolor=_rgb(VEHICLE_COLOR),
            edgecolor="black",
            linewidth=0.6,
            antialiased=False,
            zorder=6,
            animated=True,
        )
        axes.add_patch(self.footprint)
        (self.heading,) = axes.plot([], [], color="black", linewidth=1.5, zorder=7, animated=True)
        (self.sight,) = axes.plot(
            [], [], color=_rgb(TARGET_COLOR), linewidth=0.8, linestyle=":", zorder=5, animated=True
        )
        (self.target,) = axes.plot(
            [], [], "o", color=_rgb(TARGET_COLOR), markersize=5, zorder=5, animated=True
        )
        self.text = axes.text(
            0.01, 0.99, "", transform=axes.transAxes, ha="left", va="top", fontsize=9,
            family="monospace", zorder=8, animated=True,
        )  # fmt: skip
        self._moving = (self.sight, self.target, self.footprint, self.heading, self.text)

    def set_path(self, key, polyline, walls: np.ndarray) -> None:
        """Draw the background of a path (once per ``key``: a new key redraws it).

        ``polyline`` a planar ``Polyline`` (its widths, if any, draw the corridor), ``walls`` the
        world's wall segments, ``(m, 2, 2)`` [m].
        """
        if key == self._path_key:
            return
        for artist in self._static:
            artist.remove()
        axes = self.axes
        points = polyline.points
        static = []
        widths = polyline.widths
        grow = _MARGIN
        if widths is not None and np.isfinite(widths).all():
            edges = walls_along(polyline, 0.0).segments
            static.append(
                axes.add_collection(
                    LineCollection(edges, colors="dimgray", linewidths=0.8, linestyles="--")
                )
            )
            grow += 0.5 * float(np.max(widths))
        static += axes.plot(points[:, 0], points[:, 1], color="black", linewidth=0.8, alpha=0.6)
        static += axes.plot(points[-1, 0], points[-1, 1], "*", color="black", markersize=9)
        if len(walls):
            walls_drawn = LineCollection(walls, colors="black", linewidths=1.6)
            static.append(axes.add_collection(walls_drawn))
        self._static = static
        # the box grown along one axis to the frame's shape: equal scales on both axes
        x_span = np.ptp(points[:, 0]) + 2.0 * grow
        y_span = np.ptp(points[:, 1]) + 2.0 * grow
        frame_width, frame_height = FRAME_SIZE
        scale = max(x_span / frame_width, y_span / frame_height)  # [m/px]
        width_over, height_over = scale * frame_width, scale * frame_height
        axes.set_xlim(*_fit(points[:, 0].min() - grow, points[:, 0].max() + grow, width_over))
        axes.set_ylim(*_fit(points[:, 1].min() - grow, points[:, 1].max() + grow, height_over))
        canvas = self.figure.canvas
        canvas.draw()  # the background, without the animated parts
        self._background = canvas.copy_from_bbox(self.figure.bbox)
        self._path_key = key

    def draw(self, x, y, yaw, target, text: str) -> np.ndarray:
        """The frame of a vehicle at ``(x, y)`` [m] heading ``yaw`` [rad], with its ``target``
        point ``(x, y)`` [m] and a line of ``text``: an ``(H, W, 3)`` uint8 RGB array (a new
        one), ``(H, W) = (FRAME_SIZE[1], FRAME_SIZE[0])``."""
        if self._background is None:
            raise RuntimeError("EpisodeFrame.draw before set_path")
        cos_yaw, sin_yaw = math.cos(yaw), math.sin(yaw)
        forward = np.array((cos_yaw, sin_yaw))
        left = np.array((-sin_yaw, cos_yaw))
        centre = np.array((x, y))
        length, width = self.half_length, self.half_width
        corners = [
            centre + length * forward + width * left,
            centre - length * forward + width * left,
            centre - length * forward - width * left,
            centre + length * forward - width * left,
        ]
        self.footprint.set_xy(corners)
        front = centre + length * forward
        self.heading.set_data([x, front[0]], [y, front[1]])
        self.target.set_data([target[0]], [target[1]])
        self.sight.set_data([x, target[0]], [y, target[1]])
        self.text.set_text(text)
        canvas = self.figure.canvas
        canvas.restore_region(self._background)
        for artist in self._moving:
            self.axes.draw_artist(artist)
        return np.array(np.asarray(canvas.buffer_rgba())[:, :, :3])

    def world_to_pixel(self, x, y) -> tuple[float, float]:
        """``(column, row)`` of the world point ``(x, y)`` [m] in a frame (row 0 at the top)."""
        column, up = self.axes.transData.transform((x, y))
        return float(column), float(FRAME_SIZE[1] - up)


class HumanWindow:
    """Frames shown in a pyplot window, ``fps`` frames per second at most.

    Under a non-interactive backend (Agg, a machine without a display) nothing is shown and
    nothing waits: the window's figure is drawn and kept, so a script written for a screen runs
    unchanged on a headless machine.
    """

    def __init__(self, fps: float):
        import matplotlib.pyplot as pyplot  # a window needs pyplot's backend and event loop

        width, height = FRAME_SIZE
        self._pyplot = pyplot
        self.interval = 1.0 / fps
        self.figure = pyplot.figure(figsize=(width / _DPI, height / _DPI), dpi=_DPI)
        self.figure.canvas.manager.set_window_title("steerlab/PathFollowing-v0")
        axes = self.figure.add_axes((0.0, 0.0, 1.0, 1.0))
        axes.set_axis_off()
        self.image = axes.imshow(np.zeros((height, width, 3), dtype=np.uint8))
        # an interactive canvas names its GUI framework; Agg names none
        self.interactive = self.figure.canvas.required_interactive_framework is not None
        self._shown = False

    def show(self, frame: np.ndarray) -> None:
        """Show ``frame`` (``(H, W, 3)`` uint8) and let the window's events run for one frame
        interval."""
        self.image.set_data(frame)
        canvas = self.figure.canvas
        if not self.interactive:
            canvas.draw()
            return
        if not self._shown:
            self._pyplot.show(block=False)
            self._shown = True
        canvas.draw_idle()
        canvas.start_event_loop(self.interval)

    def close(self) -> None:
        self._pyplot.close(self.figure)
