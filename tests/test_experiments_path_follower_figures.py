"""Seed 001's figures checked through their artists (what is drawn, from the plotted data).

``tests/test_cli.py`` only checks that the PNG files are written; here each figure is drawn
(``seed001._bezier_figure``, ``seed001._path_figure``, the functions ``make_figures`` saves) and
its elements, found by their ``gid``, are compared with the library's own computations.
"""

import math

import numpy as np
import pytest
from matplotlib.image import AxesImage
from matplotlib.lines import Line2D
from matplotlib.patches import Circle, Polygon

from steerlab.experiments.fidelity import path_follower_figures as seed001
from steerlab.follower import FollowerParams, sampled_path
from steerlab.geometry import Polyline, bezier_max_curvature
from steerlab.vehicles import PRESETS


def _by_gid(figure, gid, kind):
    """The one artist of ``figure`` with this ``gid`` (and of this type)."""
    found = figure.findobj(lambda artist: artist.get_gid() == gid)
    assert len(found) == 1, f"{gid}: {len(found)} artists"
    assert isinstance(found[0], kind), f"{gid}: {type(found[0]).__name__}"
    return found[0]


def _bezier(points, t):
    p1, p2, p3 = points
    t = t[:, None]
    return (1 - t) ** 2 * p1 + 2 * (1 - t) * t * p2 + t**2 * p3


def _finite_difference_curvature(xy, t):
    """``|B' x B''| / |B'|^3`` of a sampled curve, derivatives by finite differences."""
    first = np.gradient(xy, t, axis=0, edge_order=2)
    second = np.gradient(first, t, axis=0, edge_order=2)
    cross = first[:, 0] * second[:, 1] - first[:, 1] * second[:, 0]
    return np.abs(cross) / np.hypot(first[:, 0], first[:, 1]) ** 3


# --------------------------------------------------------------------------------------------------
# Figure 3: the two Bezier curvature cases


@pytest.fixture(scope="module")
def bezier_figure():
    return seed001._bezier_figure()


def _case(figure, curve_letter, profile_letter):
    """The plotted data of one case: control points, spheres, curve, curvature profile."""
    polygon = _by_gid(figure, f"case-{curve_letter}-control-polygon", Line2D)
    curve = _by_gid(figure, f"case-{curve_letter}-curve", Line2D)
    spheres = [_by_gid(figure, f"case-{curve_letter}-sphere-{k}", Circle) for k in (1, 2)]
    midpoint = _by_gid(figure, f"case-{curve_letter}-midpoint", Line2D)
    profile = _by_gid(figure, f"case-{profile_letter}-curvature", Line2D)
    closed_form = _by_gid(figure, f"case-{profile_letter}-closed-form", Line2D)
    # the curve, its polygon and its spheres share one axes; the profile is drawn beside it
    assert {polygon.axes, curve.axes, midpoint.axes} | {s.axes for s in spheres} == {curve.axes}
    assert profile.axes is closed_form.axes and profile.axes is not curve.axes
    return polygon, curve, spheres, midpoint, profile, closed_form


@pytest.mark.parametrize("letters", ["ab", "cd"])
def test_figure3_case_draws_polygon_curve_spheres_and_its_curvature(bezier_figure, letters):
    polygon, curve, spheres, midpoint, profile, closed_form = _case(bezier_figure, *letters)
    points = polygon.get_xydata()
    assert points.shape == (3, 2)
    assert polygon.get_marker() == "o" and polygon.get_linestyle() == "--"
    p1, p2, p3 = points
    middle = 0.5 * (p1 + p3)
    np.testing.assert_allclose(midpoint.get_xydata(), [middle])
    # the spheres of Eq. 3 / Eq. 4: on p1 m and on m p3, radius |p1 - m| / 2
    radius = 0.5 * np.linalg.norm(p1 - middle)
    np.testing.assert_allclose(spheres[0].center, 0.5 * (p1 + middle))
    np.testing.assert_allclose(spheres[1].center, 0.5 * (p3 + middle))
    assert [s.radius for s in spheres] == pytest.approx([radius, radius])
    # the curve is the quadratic Bezier of the plotted control points
    t, kappa = profile.get_xydata().T
    assert t[0] == 0.0 and t[-1] == 1.0 and np.all(np.diff(t) > 0.0)
    xy = curve.get_xydata()
    assert xy.shape == (t.size, 2)
    np.testing.assert_allclose(xy, _bezier(points, t), atol=1e-12)
    # the profile is that curve's curvature (finite differences are exact up to rounding on a
    # quadratic) and its maximum is the closed form, which the dashed line shows
    np.testing.assert_allclose(kappa, _finite_difference_curvature(xy, t), rtol=1e-6)
    closed = bezier_max_curvature(p1, p2, p3)
    assert kappa.max() == pytest.approx(closed, rel=1e-4)
    assert kappa.max() <= closed * (1.0 + 1e-12)  # samples cannot exceed the true maximum
    assert closed_form.get_ydata() == pytest.approx([closed, closed])
    assert closed_form.get_linestyle() == "--"


def test_figure3_case_a_p2_outside_both_spheres_interior_maximum(bezier_figure):
    polygon, _, spheres, _, profile, _ = _case(bezier_figure, "a", "b")
    p2 = polygon.get_xydata()[1]
    assert all(np.linalg.norm(p2 - s.center) > s.radius for s in spheres)
    t, kappa = profile.get_xydata().T
    peak = int(np.argmax(kappa))
    assert 0.05 < t[peak] < 0.95
    # unimodal: strictly rising up to the peak, strictly falling after it
    assert np.all(np.diff(kappa[: peak + 1]) > 0.0)
    assert np.all(np.diff(kappa[peak:]) < 0.0)
    assert max(kappa[0], kappa[-1]) < 0.9 * kappa[peak]


def test_figure3_case_c_p2_inside_a_sphere_monotone_maximum_at_an_end(bezier_figure):
    polygon, _, spheres, _, profile, _ = _case(bezier_figure, "c", "d")
    p2 = polygon.get_xydata()[1]
    inside = [np.linalg.norm(p2 - s.center) < s.radius for s in spheres]
    assert sorted(inside) == [False, True]  # inside exactly one
    _, kappa = profile.get_xydata().T
    steps = np.diff(kappa)
    assert np.all(steps < 0.0) or np.all(steps > 0.0)
    assert int(np.argmax(kappa)) in (0, kappa.size - 1)


# --------------------------------------------------------------------------------------------------
# Figure 1: path following over a hill


@pytest.fixture(scope="module")
def path_figure():
    return seed001._path_figure()


@pytest.fixture(scope="module")
def path():
    return Polyline(seed001.FIGURE1_PATH, seed001.FIGURE1_WIDTHS)


def _terrain_grid(image):
    """The hillshade array and the (x, y) [m] of its pixel centres (``origin='lower'``)."""
    shade = np.asarray(image.get_array())
    x0, x1, y0, y1 = image.get_extent()
    rows, columns = shade.shape
    grid_x, grid_y = np.meshgrid(np.linspace(x0, x1, columns), np.linspace(y0, y1, rows))
    return shade, grid_x, grid_y


def _hill_radius():
    # steerlab.world.hill: raised cosine of radius R = pi height / (2 max_slope)
    return math.pi * seed001.FIGURE1_HILL_HEIGHT / (2.0 * seed001.FIGURE1_HILL_SLOPE)


def _flank_shades(shade, grid_x, grid_y):
    """Mean shade of the hill's flanks (0.3 to 0.7 of its radius) per quadrant: NW, NE, SE, SW."""
    cx, cy = seed001.FIGURE1_HILL
    r = np.hypot(grid_x - cx, grid_y - cy)
    flanks = (r > 0.3 * _hill_radius()) & (r < 0.7 * _hill_radius())
    return [
        shade[flanks & (sx * (grid_x - cx) > 0) & (sy * (grid_y - cy) > 0)].mean()
        for sx, sy in ((-1, 1), (1, 1), (1, -1), (-1, -1))
    ]


def test_figure1_hillshade_image_shades_the_hill_under_the_drawing(path_figure, path):
    image = _by_gid(path_figure, "terrain", AxesImage)
    assert image.origin == "lower"
    x0, x1, y0, y1 = image.get_extent()
    points = path.points
    assert x0 < points[:, 0].min() and points[:, 0].max() < x1
    assert y0 < points[:, 1].min() and points[:, 1].max() < y1
    # under everything else in the axes
    others = [a for a in image.axes.get_children() if a is not image and a.get_visible()]
    assert all(image.get_zorder() < a.get_zorder() for a in others if a is not image.axes.patch)
    shade, grid_x, grid_y = _terrain_grid(image)
    cx, cy = seed001.FIGURE1_HILL
    r = np.hypot(grid_x - cx, grid_y - cy)
    radius = _hill_radius()
    flat = shade[r > radius + 1.5]  # beyond the hill (and its bilinear cells): one flat shade
    assert flat.size > 0 and np.ptp(flat) < 1e-9
    # on the hill's flanks the shade varies: one side lit, the opposite side in shadow
    quadrants = _flank_shades(shade, grid_x, grid_y)
    assert max(quadrants) > flat[0] + 0.2 and min(quadrants) < flat[0] - 0.2


def test_figure1_hillshade_is_lit_from_the_north_west(path_figure):
    north_west, *others = _flank_shades(*_terrain_grid(_by_gid(path_figure, "terrain", AxesImage)))
    assert north_west > max(others)


def test_figure1_path_waypoints_and_corridor(path_figure, path):
    line = _by_gid(path_figure, "path", Line2D)
    waypoints = _by_gid(path_figure, "waypoints", Line2D)
    np.testing.assert_allclose(line.get_xydata(), seed001.FIGURE1_PATH)
    np.testing.assert_allclose(waypoints.get_xydata(), seed001.FIGURE1_PATH)
    assert waypoints.get_marker() == "o" and waypoints.get_linestyle() == "None"
    # the corridor: per segment a rectangle of the segment's width and a disc at each end
    points = path.points
    for i, width in enumerate(seed001.FIGURE1_WIDTHS):
        a, b = points[i], points[i + 1]
        body = _by_gid(path_figure, f"corridor-{i}-body", Polygon).get_xy()[:4]
        np.testing.assert_allclose(0.5 * (body[0] + body[3]), a, atol=1e-9)
        np.testing.assert_allclose(0.5 * (body[1] + body[2]), b, atol=1e-9)
        assert np.linalg.norm(body[0] - body[3]) == pytest.approx(width)
        assert np.linalg.norm(body[1] - body[2]) == pytest.approx(width)
        for name, end in (("start", a), ("end", b)):
            disc = _by_gid(path_figure, f"corridor-{i}-{name}", Circle)
            np.testing.assert_allclose(disc.center, end)
            assert disc.radius == pytest.approx(0.5 * width)


def _vehicle_position(figure):
    outline = _by_gid(figure, "vehicle", Polygon).get_xy()[:4]  # closed: the 5th is the 1st
    return outline, outline.mean(axis=0)


def test_figure1_vehicle_on_its_trajectory_inside_the_corridor(path_figure, path):
    trajectory = _by_gid(path_figure, "trajectory", Line2D).get_xydata()
    np.testing.assert_allclose(trajectory[0], (0.0, 2.0))  # the simulation's start
    for point in trajectory:
        projection = path.project(point)
        assert abs(projection.cross_track) < path.half_width_at(projection.s)
    assert np.linalg.norm(trajectory[-1] - path.points[-1]) < 3.0  # driven to the path's end
    outline, position = _vehicle_position(path_figure)
    frame = round(seed001._SNAPSHOT / seed001._DT)
    np.testing.assert_allclose(position, trajectory[frame], atol=1e-9)
    storm = PRESETS["storm"]
    sides = np.linalg.norm(np.diff(outline, axis=0, append=outline[:1]), axis=1)
    assert sides == pytest.approx([2 * storm.half_length, 2 * storm.half_width] * 2)


def test_figure1_p_tilde_is_algorithm1_at_the_vehicle(path_figure):
    _, position = _vehicle_position(path_figure)
    drawn_path = _by_gid(path_figure, "path", Line2D).get_xydata()
    p_tilde = _by_gid(path_figure, "p-tilde", Line2D).get_xydata()
    params = FollowerParams()  # the figure's follower runs on the defaults
    expected = sampled_path(position, drawn_path, params.dh, params.n)
    assert expected.shape == (params.n, 2)  # the snapshot is far from the path's end
    np.testing.assert_allclose(p_tilde, expected, atol=1e-9)
    # the Bezier curves of consecutive triples of P~
    t = np.linspace(0.0, 1.0, 101)
    for i in range(params.n - 2):
        curve = _by_gid(path_figure, f"p-tilde-bezier-{i}", Line2D).get_xydata()
        np.testing.assert_allclose(curve, _bezier(p_tilde[i : i + 3], t), atol=1e-9)
    assert not path_figure.findobj(lambda a: a.get_gid() == f"p-tilde-bezier-{params.n - 2}")


def test_figure1_target_point_on_the_path_ahead_of_the_vehicle(path_figure, path):
    target = _by_gid(path_figure, "target", Line2D).get_xydata()
    assert target.shape == (1, 2)
    _, position = _vehicle_position(path_figure)
    on_path = path.project(target[0])
    assert on_path.cross_track == pytest.approx(0.0, abs=1e-9)
    ahead = on_path.s - path.project(position).s
    assert 0.0 < ahead < 20.0
