"""The soak test's map with its stuck events (``steerlab.experiments.benchmark.soak``; ``steerlab
soak``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from steerlab.experiments.benchmark.soak import SoakMap

__all__ = ["draw_map"]


def draw_map(soak_map: SoakMap, events: dict[str, Sequence] | None = None):
    """The map (roads by width, buildings, walled stretches, hill contours) and, optionally,
    stuck events per follower (``{name: [SoakEvent, ...]}``), on a Matplotlib ``Figure`` with
    the Agg canvas (no pyplot)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(10, 10), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots()
    terrain = soak_map.world.terrain
    x0, x1, y0, y1 = terrain.extent
    heights = terrain.heights
    if soak_map.hills:
        xs = np.linspace(x0, x1, heights.shape[1])
        ys = np.linspace(y0, y1, heights.shape[0])
        axes.contourf(xs, ys, heights, levels=12, cmap="Greens", alpha=0.5)
    for road in soak_map.roads:
        axes.plot(*road.points.T, color="0.55", linewidth=road.width * 0.35, solid_capstyle="round")
        axes.plot(*road.points.T, color="white", linewidth=0.4)
    for polygon in soak_map.buildings:
        axes.fill(*polygon.T, color="0.25")
    walls = soak_map.world.walls
    for ax_, ay_, bx_, by_ in walls.segments.reshape(-1, 4):
        axes.plot((ax_, bx_), (ay_, by_), color="black", linewidth=0.6)
    axes.scatter(*soak_map.junctions.T, s=8, color="tab:blue", zorder=3)
    if events:
        colors = {"baseline": "tab:red", "ours": "tab:orange"}
        for name, items in events.items():
            points = np.array([(event.x, event.y) for event in items]).reshape(-1, 2)
            axes.scatter(
                *points.T, s=10, marker="x", color=colors.get(name, "tab:purple"),
                label=f"{name}: {len(items)} stuck events", zorder=4,
            )  # fmt: skip
        axes.legend(loc="upper right")
    axes.set_aspect("equal")
    axes.set_xlabel("x [m]")
    axes.set_ylabel("y [m]")
    axes.set_title(f"soak map (seed {soak_map.seed})")
    return figure
