"""The scene under a run: terrain, walls, a path and its corridor, drawn on matplotlib Axes.

Shared by the plots of one's own runs (``steerlab.plot.runs``) and the Table I report's figures
(``steerlab.experiments.benchmark.table1_figures``). Each function draws on the given Axes and
tags its artists with a ``gid`` (``"terrain"``, ``"walls"``, ``"path"``, ``"corridor"``,
``"corridor-edges"``, ``"path-start"``, ``"path-end"``), so tests and users can find them.
Coordinates in metres, x east, y north; the Axes keep an equal aspect.
"""

from __future__ import annotations

import numpy as np
from matplotlib.collections import LineCollection, PatchCollection
from matplotlib.colors import LightSource
from matplotlib.patches import Polygon

from steerlab.geometry import Polyline
from steerlab.world import Heightfield, Walls, World, walls_along

__all__ = [
    "corridor_edges",
    "corridor_rectangles",
    "draw_path",
    "draw_terrain",
    "draw_walls",
    "draw_world",
]


def draw_terrain(axes, terrain: Heightfield, *, alpha: float = 0.55, exaggeration: float = 2.0):
    """The terrain's heights as a hillshade under everything else (``zorder=0``).

    Lit from the north-west (the cartographic convention: relief, not hollows). matplotlib's
    ``LightSource`` takes row 0 as the north edge; a ``Heightfield``'s row 0 is its south edge
    (drawn at the bottom with ``origin="lower"``), so the heights are shaded upside down and the
    shade turned back. Flat ground (every node at one height) draws nothing.

    Parameters
    ----------
    axes : matplotlib.axes.Axes
    terrain : Heightfield
        The grid (``Flat`` included), drawn over its ``extent``.
    alpha : float
        Opacity of the shade.
    exaggeration : float
        Vertical exaggeration of the relief in the shading.

    Returns
    -------
    matplotlib.image.AxesImage or None
        The image (``gid="terrain"``), or None on flat ground.
    """
    if not isinstance(terrain, Heightfield):
        raise ValueError(f"terrain must be a Heightfield (or Flat), got {terrain!r}")
    heights = np.asarray(terrain.heights)
    if float(np.ptp(heights)) == 0.0:
        return None
    cell = terrain.cell_size
    shade = LightSource(azdeg=315.0, altdeg=40.0).hillshade(
        heights[::-1], vert_exag=exaggeration, dx=cell, dy=cell
    )[::-1]
    return axes.imshow(
        shade,
        cmap="Greys_r",
        origin="lower",
        extent=terrain.extent,
        vmin=0.0,
        vmax=1.4,
        alpha=alpha,
        zorder=0,
        interpolation="bilinear",
        gid="terrain",
    )


def draw_walls(axes, walls: Walls, *, color="black", linewidth: float = 1.6):
    """Wall segments as lines (``zorder=3``); returns the ``LineCollection`` (``gid="walls"``),
    or None when there are none."""
    if not isinstance(walls, Walls):
        raise ValueError(f"walls must be a Walls, got {walls!r}")
    segments = walls.segments
    if not len(segments):
        return None
    lines = LineCollection(segments, colors=color, linewidths=linewidth, zorder=3, gid="walls")
    axes.add_collection(lines)
    return lines


def draw_world(axes, world: World) -> None:
    """A ``World``'s terrain (``draw_terrain``) and walls (``draw_walls``)."""
    if not isinstance(world, World):
        raise ValueError(f"world must be a steerlab.world.World, got {world!r}")
    draw_terrain(axes, world.terrain)
    draw_walls(axes, world.walls)


def corridor_rectangles(path: Polyline) -> list[np.ndarray]:
    """Each segment's corridor as a rectangle: the segment offset by half its width to each side.

    Returns one ``(4, 2)`` array of corners [m] per segment of positive length in the plane and
    finite width: ``A + n, B + n, B - n, A - n`` with ``n`` the left normal of length ``width /
    2``.
    """
    points = path.points[:, :2]
    widths = path.widths
    rectangles = []
    if widths is None:
        return rectangles
    for index in range(path.segment_count):
        a, b = points[index], points[index + 1]
        direction = b - a
        length = float(np.hypot(*direction))
        if length == 0.0 or not np.isfinite(widths[index]):
            continue
        normal = np.array((-direction[1], direction[0])) / length * 0.5 * widths[index]
        rectangles.append(np.array([a + normal, b + normal, b - normal, a - normal]))
    return rectangles


def corridor_edges(path: Polyline) -> np.ndarray:
    """The outline of a path's corridor as segments, ``(m, 2, 2)`` [m] (``m = 0`` without one).

    The outline of the union of the segments' rectangles (``steerlab.world.walls_along`` at
    margin 0) when every width is positive and finite; otherwise (``walls_along`` wants one
    closed corridor) the long sides of each ``corridor_rectangles`` rectangle.
    """
    widths = path.widths
    if widths is None:
        return np.empty((0, 2, 2))
    if np.all(np.isfinite(widths)) and np.all(widths > 0.0):
        return np.asarray(walls_along(path, 0.0).segments, dtype=np.float64).reshape(-1, 2, 2)
    sides = [side for corners in corridor_rectangles(path) for side in (corners[:2], corners[2:])]
    return np.asarray(sides, dtype=np.float64).reshape(-1, 2, 2)


def draw_path(axes, path: Polyline, *, color="black", markers: bool = True) -> None:
    """A path's centre line, its corridor and its ends.

    The corridor (when the path has widths): each segment's rectangle filled lightly
    (``corridor_rectangles``, ``gid="corridor"``) and the outline of their union dashed
    (``steerlab.world.walls_along``, ``gid="corridor-edges"``; where a width is 0 or ``inf``, the
    rectangles' sides instead). ``markers``: a triangle at the start, a star at the end.

    Parameters
    ----------
    axes : matplotlib.axes.Axes
    path : Polyline
        Drawn in the ground plane (heights ignored).
    color : matplotlib color
        Of the centre line and the markers.
    markers : bool
        Draw the start and end markers.
    """
    if not isinstance(path, Polyline):
        raise ValueError(f"path must be a Polyline, got {path!r}")
    points = path.points[:, :2]
    widths = path.widths
    if widths is not None:
        rectangles = corridor_rectangles(path)
        if rectangles:
            patches = [Polygon(corners) for corners in rectangles]
            axes.add_collection(
                PatchCollection(
                    patches,
                    facecolor="khaki",
                    edgecolor="none",
                    alpha=0.25,
                    zorder=1,
                    gid="corridor",
                )
            )
        edges = corridor_edges(path)
        if len(edges):
            axes.add_collection(
                LineCollection(
                    edges,
                    colors="dimgray",
                    linewidths=0.7,
                    linestyles="--",
                    zorder=2,
                    gid="corridor-edges",
                )
            )
    axes.plot(
        points[:, 0], points[:, 1], color=color, linewidth=0.8, alpha=0.6, zorder=2, gid="path"
    )
    if markers:
        axes.plot(*points[0], ">", color=color, markersize=6, zorder=5, gid="path-start")
        axes.plot(*points[-1], "*", color=color, markersize=9, zorder=5, gid="path-end")
    axes.set_aspect("equal")
