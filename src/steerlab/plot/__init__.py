"""Plots: the scene of a run (``backdrop``), one's own runs over their path, corridor and world,
speed and cross-track error over time (``runs``), on the Agg canvas (``canvas``)."""

from steerlab.plot.backdrop import draw_path, draw_terrain, draw_walls, draw_world
from steerlab.plot.runs import plot_batch, plot_cross_track, plot_speed, plot_trace

__all__ = [
    "draw_path",
    "draw_terrain",
    "draw_walls",
    "draw_world",
    "plot_batch",
    "plot_cross_track",
    "plot_speed",
    "plot_trace",
]
