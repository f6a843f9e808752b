"""The seed 001 paper's figures, redrawn with steerlab's follower.

``bezier_cases`` (the paper's Figure 3)
    Two quadratic Bezier curves (blue) with their control polygon, the midpoint ``m`` of
    ``p1 p3`` and the two spheres (circles) on ``p1 m`` and ``m p3``: (a) ``p2`` outside both, a
    unimodal curvature profile (b) whose maximum is Eq. 3; (c) ``p2`` inside one, a monotone
    profile (d) whose maximum, at an end, is Eq. 4. The profiles are sampled
    (``kappa(t) = |B' x B''| / |B'|^3``); the dashed line is the closed form
    (``steerlab.geometry.bezier_max_curvature``).
``path_following`` (like the paper's Figure 1)
    Top-down view over terrain: a hill (``FIGURE1_HILL``, ``FIGURE1_HILL_HEIGHT`` high, steepest
    slope ``FIGURE1_HILL_SLOPE``) under the path's crest, drawn as a grey hillshade
    (``matplotlib.colors.LightSource``) beneath everything else, lit from the north-west (upper
    left). On it: a path (black) with its corridor (grey, one capsule per segment of width
    ``FIGURE1_WIDTHS``) and waypoints (red), the trajectory (blue line) of a Storm
    (``steerlab.vehicles``) driven along the path by ``PathFollower`` (defaults) in that world
    (the hill's slope acts on the vehicle), and, at the frame ``t = _SNAPSHOT``: the vehicle's
    outline (blue), Algorithm 1's sampled points ``P~`` (purple squares,
    ``steerlab.follower.sampled_path`` at the vehicle's position) with the quadratic Bezier
    curves through consecutive triples (purple, dashed), and the target point of pure pursuit
    (orange star).

Every drawn element carries a ``gid`` (``case-a-curve``, ``case-b-curvature``, ``terrain``,
``p-tilde``, ``vehicle``, ...), so that tests can find it on the returned ``Figure``; the gid
only names the element (an ``id`` in SVG output) and changes nothing in the drawing.

Reproduce with ``steerlab figures 001 --out out/figures``. Figures are drawn on the Agg
canvas (``steerlab.plot.canvas``), never through
pyplot.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from matplotlib.colors import LightSource
from matplotlib.figure import Figure
from matplotlib.patches import Circle, Polygon

from steerlab.follower import PathFollower, sampled_path
from steerlab.geometry import Polyline, bezier_max_curvature
from steerlab.plot.canvas import new_figure, save_figures
from steerlab.sim import simulate
from steerlab.vehicles import PRESETS, Vehicle, VehicleState
from steerlab.world import World, hill

__all__ = [
    "FIGURE1_HILL",
    "FIGURE1_PATH",
    "FIGURE1_WIDTHS",
    "FIGURE_NAMES",
    "make_figures",
]

FIGURE_NAMES = ("bezier_cases", "path_following")
# Figure 3's two cases: p2 outside both spheres (unimodal), p2 inside the first (monotone)
CASE_OUTSIDE = ((0.0, 0.0), (2.0, 3.0), (4.0, 0.0))
CASE_INSIDE = ((0.0, 0.0), (1.3, 0.6), (4.0, 0.0))
# Figure 1's path [m] and its full corridor width per segment [m]
FIGURE1_PATH = (
    (0.0, 0.0),
    (30.0, 0.0),
    (48.0, 14.0),
    (64.0, 14.0),
    (78.0, -6.0),
    (92.0, -12.0),
    (120.0, -12.0),
)
FIGURE1_WIDTHS = (8.0, 7.0, 6.0, 7.0, 8.0, 8.0)
FIGURE1_HILL = (58.0, 4.0)  # [m] a hill under the path's crest (the paper's "steep hills")
FIGURE1_HILL_HEIGHT = 6.0  # [m]
FIGURE1_HILL_SLOPE = 0.3  # steepest slope, rise over run (about 17 degrees)
_DT = 0.02  # [s]
_SNAPSHOT = 6.5  # [s] the frame at which the vehicle, P~ and the target point are drawn


def make_figures(out_dir: str | Path, formats: Sequence[str] = ("png",)) -> list[Path]:
    """Write the seed 001 figures (``bezier_cases``, ``path_following``) into ``out_dir``."""
    return save_figures(
        out_dir, formats, [("bezier_cases", _bezier_figure), ("path_following", _path_figure)]
    )


# --------------------------------------------------------------------------------------------------
# Figure 3


def _bezier(points, t):
    p1, p2, p3 = (np.asarray(p, dtype=float) for p in points)
    t = t[:, None]
    return (1 - t) ** 2 * p1 + 2 * (1 - t) * t * p2 + t**2 * p3


def _curvature_profile(points, t):
    p1, p2, p3 = (np.asarray(p, dtype=float) for p in points)
    first = 2.0 * ((1.0 - t)[:, None] * (p2 - p1) + t[:, None] * (p3 - p2))
    second = 2.0 * (p3 - 2.0 * p2 + p1)
    cross = first[:, 0] * second[1] - first[:, 1] * second[0]
    return np.abs(cross) / np.hypot(first[:, 0], first[:, 1]) ** 3


def _draw_case(curve_axes, profile_axes, points, letters, equation):
    t = np.linspace(0.0, 1.0, 1001)
    p1, p2, p3 = (np.asarray(p, dtype=float) for p in points)
    middle = 0.5 * (p1 + p3)
    radius = 0.5 * np.linalg.norm(p1 - middle)
    curve_id, profile_id = (f"case-{letter}" for letter in letters)
    for k, center in enumerate((0.5 * (p1 + middle), 0.5 * (p3 + middle)), start=1):
        curve_axes.add_patch(
            Circle(
                center,
                radius,
                facecolor="#f4d9a6",
                edgecolor="#c99a3c",
                gid=f"{curve_id}-sphere-{k}",
            )
        )
    polygon = np.array(points)
    curve_axes.plot(
        polygon[:, 0],
        polygon[:, 1],
        "o--",
        color="0.4",
        linewidth=1,
        markersize=5,
        gid=f"{curve_id}-control-polygon",
    )
    curve = _bezier(points, t)
    curve_axes.plot(
        curve[:, 0], curve[:, 1], color="tab:blue", linewidth=2, gid=f"{curve_id}-curve"
    )
    curve_axes.plot(*middle, "k+", markersize=9, gid=f"{curve_id}-midpoint")
    for label, point, offset in (
        ("p1", p1, (-0.35, -0.35)),
        ("p2", p2, (0.1, 0.12)),
        ("p3", p3, (0.1, -0.35)),
        ("m", middle, (0.08, -0.3)),
    ):
        curve_axes.annotate(label, point, xytext=point + offset, fontsize=10)
    curve_axes.set_aspect("equal")
    curve_axes.set_title(
        f"({letters[0]}) p2 {'outside both spheres' if equation == 3 else 'inside a sphere'}"
    )
    curve_axes.grid(True, alpha=0.3)

    kappa = _curvature_profile(points, t)
    closed = bezier_max_curvature(*points)
    profile_axes.plot(
        t,
        kappa,
        color="tab:blue",
        linewidth=2,
        label="sampled kappa(t)",
        gid=f"{profile_id}-curvature",
    )
    profile_axes.axhline(
        closed,
        color="tab:red",
        linestyle="--",
        label=f"Eq. {equation}",
        gid=f"{profile_id}-closed-form",
    )
    profile_axes.set_xlabel("t")
    profile_axes.set_ylabel("curvature [1/m]")
    shape = "unimodal" if equation == 3 else "monotone"
    profile_axes.set_title(f"({letters[1]}) {shape} curvature, max {closed:.3g}")
    profile_axes.set_ylim(bottom=0.0)
    profile_axes.legend(loc="upper right")
    profile_axes.grid(True, alpha=0.3)


def _bezier_figure() -> Figure:
    figure, axes = new_figure(11.0, 8.0, 2, 2)
    _draw_case(axes[0, 0], axes[0, 1], CASE_OUTSIDE, "ab", 3)
    _draw_case(axes[1, 0], axes[1, 1], CASE_INSIDE, "cd", 4)
    figure.suptitle(
        "Seed 001, Figure 3: the two cases of the maximum curvature of a quadratic Bezier"
    )
    return figure


# --------------------------------------------------------------------------------------------------
# Figure 1


def _draw_corridor(axes, path: Polyline, color="0.85", alpha=0.7):
    """The corridor as the union of capsules: each segment widened by half its width."""
    points = path.points
    for i, width in enumerate(path.widths):
        a, b = points[i], points[i + 1]
        direction = b - a
        length = float(np.hypot(*direction))
        half = 0.5 * width
        if length > 0.0:
            normal = np.array((-direction[1], direction[0])) / length * half
            corners = [a + normal, b + normal, b - normal, a - normal]
            axes.add_patch(
                Polygon(
                    corners,
                    closed=True,
                    facecolor=color,
                    edgecolor="none",
                    alpha=alpha,
                    gid=f"corridor-{i}-body",
                )
            )
        for end, name in ((a, "start"), (b, "end")):
            axes.add_patch(
                Circle(
                    end,
                    half,
                    facecolor=color,
                    edgecolor="none",
                    alpha=alpha,
                    gid=f"corridor-{i}-{name}",
                )
            )


class _InWorld:
    """A vehicle as a ``simulate`` plant, stepped in ``world`` (terrain slope, walls)."""

    def __init__(self, vehicle, world):
        self.vehicle = vehicle
        self.world = world

    def step(self, state, command, dt):
        return self.vehicle.step(state, command, dt, world=self.world)


def _draw_terrain(axes, world, x_range, y_range, spacing=0.5):
    """The terrain as a hillshade under the drawing (``zorder=0``), lit from the north-west (the
    cartographic convention: light from the top left reads as relief, not as a hollow).

    ``LightSource`` takes row 0 of the array as the north edge and ``azdeg=315`` as the
    north-west; the grid's row 0 is its south edge (``imshow(origin="lower")`` draws it at the
    bottom), so the heights are shaded upside down and the shade turned back.
    """
    xs = np.arange(x_range[0], x_range[1] + spacing, spacing)
    ys = np.arange(y_range[0], y_range[1] + spacing, spacing)
    grid_x, grid_y = np.meshgrid(xs, ys)
    heights = np.vectorize(world.height)(grid_x, grid_y)
    shade = LightSource(azdeg=315.0, altdeg=40.0).hillshade(
        heights[::-1], vert_exag=3.0, dx=spacing, dy=spacing
    )[::-1]
    axes.imshow(
        shade,
        cmap="Greys_r",
        origin="lower",
        extent=(xs[0], xs[-1], ys[0], ys[-1]),
        vmin=0.0,
        vmax=1.4,
        alpha=0.6,
        zorder=0,
        gid="terrain",
    )


def _vehicle_outline(x, y, yaw, half_length, half_width):
    c, s = math.cos(yaw), math.sin(yaw)
    body = [(half_length, half_width), (-half_length, half_width)]
    body += [(-half_length, -half_width), (half_length, -half_width)]
    return [(x + c * u - s * v, y + s * u + c * v) for u, v in body]


def _path_figure() -> Figure:
    path = Polyline(FIGURE1_PATH, FIGURE1_WIDTHS)
    storm = PRESETS["storm"]
    follower = PathFollower(storm, path=path)
    world = World(terrain=hill(FIGURE1_HILL, FIGURE1_HILL_HEIGHT, FIGURE1_HILL_SLOPE, 1.0))
    trace = simulate(
        _InWorld(Vehicle(storm), world), follower, VehicleState(0.0, 2.0, 0.0, 0.0), _DT, 2000
    )
    frame = int(_SNAPSHOT / _DT)
    state = VehicleState(*(float(getattr(trace, field)[frame]) for field in VehicleState._fields))
    snapshot = PathFollower(storm, path=path)
    snapshot.step(state, _DT)  # target point at that frame (first frame: whole-path projection)
    tilde = sampled_path((state.x, state.y), path)

    figure, axes = new_figure(11.0, 5.2)
    axes = axes[0, 0]
    _draw_terrain(axes, world, (-10.0, 130.0), (-22.0, 26.0))
    _draw_corridor(axes, path)
    points = path.points
    axes.plot(points[:, 0], points[:, 1], color="black", linewidth=1.5, label="path", gid="path")
    axes.plot(
        points[:, 0],
        points[:, 1],
        "o",
        color="tab:red",
        markersize=6,
        label="waypoints",
        gid="waypoints",
    )
    axes.plot(
        trace.x,
        trace.y,
        color="tab:blue",
        linewidth=1,
        alpha=0.7,
        label="trajectory",
        gid="trajectory",
    )
    t = np.linspace(0.0, 1.0, 101)
    for i in range(tilde.shape[0] - 2):
        curve = _bezier(tilde[i : i + 3], t)
        axes.plot(
            curve[:, 0],
            curve[:, 1],
            "--",
            color="tab:purple",
            linewidth=1.2,
            gid=f"p-tilde-bezier-{i}",
        )
    axes.plot(
        tilde[:, 0],
        tilde[:, 1],
        "s",
        color="tab:purple",
        markersize=4,
        label="P~ (Alg. 1)",
        gid="p-tilde",
    )
    info = snapshot.info
    axes.plot(
        info.target_x,
        info.target_y,
        "*",
        color="tab:orange",
        markersize=13,
        label="target",
        gid="target",
    )
    outline = _vehicle_outline(state.x, state.y, state.yaw, storm.half_length, storm.half_width)
    axes.add_patch(
        Polygon(outline, closed=True, facecolor="tab:blue", edgecolor="navy", gid="vehicle")
    )
    axes.set_aspect("equal")
    axes.set_xlabel("x [m]")
    axes.set_ylabel("y [m]")
    axes.grid(True, alpha=0.3)
    axes.legend(loc="lower left", fontsize=8, ncols=3)
    axes.set_title(
        "Seed 001, Figure 1: a ground vehicle (blue) following a path (black) with corridor "
        f"(grey) and waypoints (red) over a {FIGURE1_HILL_HEIGHT:g} m hill (shaded)\nStorm, "
        f"PathFollower defaults; at t = {_SNAPSHOT:g} s: "
        f"target speed {info.target_speed:.1f} m/s from the Bezier curves of P~ (purple)"
    )
    return figure
