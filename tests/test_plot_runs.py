"""Plots of one's own runs (``steerlab.plot.runs``) and their backdrop (``steerlab.plot.backdrop``).

What is drawn is read back from the Axes (artists found by ``gid``) and compared with the run's
own arrays and with geometry computed here by other routes: distances to segments in closed form,
the distance to a densely sampled path, the cross product for the side.
"""

from __future__ import annotations

import doctest
import itertools
import math

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

import steerlab.geometry.polyline
import steerlab.plot.runs
from steerlab.geometry import Polyline
from steerlab.plot import plot_batch, plot_cross_track, plot_speed, plot_trace
from steerlab.plot.canvas import new_figure
from steerlab.sim import Trace
from steerlab.world import Walls, World, hill

SPACING = 1e-3  # [m] between the dense samples of a path
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"  # the PNG specification, section 5.2

PATH_POINTS = np.array([(0.0, 0.0), (20.0, 0.0), (35.0, 12.0), (35.0, 30.0)])
WIDTHS = np.array([2.0, 4.0, 6.0])


def by_gid(axes, gid):
    return [artist for artist in axes.get_children() if artist.get_gid() == gid]


def one(axes, gid):
    found = by_gid(axes, gid)
    assert len(found) == 1, f"{gid}: {len(found)} artists"
    return found[0]


def weaving_trace(frames=201, duration=20.0):
    """A vehicle-like trace weaving about PATH_POINTS' first leg (fields of VehicleState)."""
    t = np.linspace(0.0, duration, frames)
    x = 1.6 * t
    y = 1.5 * np.sin(0.5 * t)
    yaw = np.arctan2(0.75 * np.cos(0.5 * t), 1.6)
    v = np.hypot(1.6, 0.75 * np.cos(0.5 * t))
    states = {"x": x, "y": y, "yaw": yaw, "v": v}
    commands = {"steer": np.zeros(frames - 1), "throttle": np.zeros(frames - 1)}
    return Trace(t, states, commands, "VehicleState", "DriveCommand")


def dense_signed_distance(points, position):
    """Distance to the nearest of samples SPACING apart along the path, signed by the cross
    product of that sample's segment direction with the offset (left positive)."""
    samples, directions = [], []
    for a, b in itertools.pairwise(points):
        length = float(np.hypot(*(b - a)))
        count = max(2, math.ceil(length / SPACING) + 1)
        samples.append(a + np.linspace(0.0, 1.0, count)[:, None] * (b - a))
        directions.append(np.broadcast_to((b - a) / length, (count, 2)))
    samples, directions = np.concatenate(samples), np.concatenate(directions)
    offsets = position - samples
    distances = np.hypot(offsets[:, 0], offsets[:, 1])
    k = int(np.argmin(distances))
    left = directions[k, 0] * offsets[k, 1] - directions[k, 1] * offsets[k, 0]
    return math.copysign(float(distances[k]), left)


def segment_distance(point, a, b):
    """Distance from ``point`` to the segment ``ab`` in closed form."""
    direction = b - a
    fraction = np.clip(np.dot(point - a, direction) / np.dot(direction, direction), 0.0, 1.0)
    return float(np.hypot(*(point - (a + fraction * direction))))


# -- a trace ---------------------------------------------------------------------------------------


def test_trace_plot_draws_the_trace_arrays_arrows_and_ends():
    trace = weaving_trace()
    axes = plot_trace(trace, Polyline(PATH_POINTS, WIDTHS), arrow_interval=2.5)
    line = one(axes, "trajectory")
    assert np.array_equal(line.get_xdata(), trace.x)
    assert np.array_equal(line.get_ydata(), trace.y)
    assert np.array_equal(one(axes, "start").get_xydata(), [[trace.x[0], trace.y[0]]])
    assert np.array_equal(one(axes, "end").get_xydata(), [[trace.x[-1], trace.y[-1]]])
    arrows = one(axes, "heading")
    # every 2.5 s from t = 0: the frames at t = 0, 2.5, ..., 20 (0.1 s apart, so exactly there)
    frames = np.round(np.arange(0.0, 20.0 + 1e-9, 2.5) / 0.1).astype(int)
    np.testing.assert_allclose(arrows.get_offsets(), np.column_stack((trace.x, trace.y))[frames])
    np.testing.assert_allclose(arrows.U, np.cos(trace.yaw[frames]))
    np.testing.assert_allclose(arrows.V, np.sin(trace.yaw[frames]))
    assert axes.get_xlabel() == "x [m]" and axes.get_ylabel() == "y [m]"


def test_corridor_is_drawn_at_half_the_widths():
    path = Polyline(PATH_POINTS, WIDTHS)
    axes = plot_trace(weaving_trace(), path)
    rectangles = one(axes, "corridor").get_paths()
    assert len(rectangles) == len(WIDTHS)
    for k, rectangle in enumerate(rectangles):
        a, b = PATH_POINTS[k], PATH_POINTS[k + 1]
        corners = rectangle.vertices[:4]
        for corner in corners:  # each corner half the width from its segment, beside an end
            assert segment_distance(corner, a, b) == pytest.approx(WIDTHS[k] / 2, abs=1e-9)
        # the long sides run along the segment: points along them at the same distance
        for side in (corners[:2], corners[2:]):
            for fraction in (0.25, 0.5, 0.75):
                point = side[0] + fraction * (side[1] - side[0])
                assert segment_distance(point, a, b) == pytest.approx(WIDTHS[k] / 2, abs=1e-9)
    # the dashed outline: no point of it inside the corridor, most of it on its edge
    edges = one(axes, "corridor-edges").get_segments()
    distances, halves = [], []
    for start, end in edges:
        for fraction in np.linspace(0.0, 1.0, 7):
            point = start + fraction * (end - start)
            segment = min(
                range(len(WIDTHS)),
                key=lambda k: (
                    segment_distance(point, PATH_POINTS[k], PATH_POINTS[k + 1]) - WIDTHS[k] / 2
                ),
            )
            distances.append(abs(dense_signed_distance(PATH_POINTS, point)))
            halves.append(WIDTHS[segment] / 2)
    distances, halves = np.array(distances), np.array(halves)
    assert np.all(distances >= 1.0 - 2 * SPACING)  # the narrowest half width
    on_edge = np.abs(distances - halves) <= 2 * SPACING
    assert on_edge.mean() > 0.6


def test_world_walls_and_terrain_are_drawn_under_the_run():
    walls = Walls.from_segments([((0.0, 5.0), (30.0, 5.0)), ((0.0, -5.0), (30.0, -5.0))])
    world = World(terrain=hill((15.0, 0.0), 2.0, 0.3, 1.0), walls=walls)
    axes = plot_trace(weaving_trace(), PATH_POINTS, world)
    drawn = one(axes, "walls").get_segments()
    np.testing.assert_array_equal(np.array(drawn), walls.segments)
    image = one(axes, "terrain")
    assert tuple(image.get_extent()) == pytest.approx(world.terrain.extent)
    assert one(axes, "path").get_xydata() == pytest.approx(PATH_POINTS)


# -- a batch ---------------------------------------------------------------------------------------


def test_batch_of_positions_and_of_traces():
    rng = np.random.default_rng(5)
    positions = np.cumsum(rng.normal(0.0, 0.5, (50, 7, 2)), axis=0)
    positions[10:14, 3] = np.nan  # a gap
    axes = plot_batch(positions, path=PATH_POINTS)
    segments = one(axes, "trajectories").get_segments()
    assert len(segments) == 7
    for i, segment in enumerate(segments):  # matplotlib keeps the points that are not NaN
        finite = np.isfinite(positions[:, i]).all(axis=1)
        np.testing.assert_array_equal(segment, positions[finite, i])
    assert len(segments[3]) == 46
    np.testing.assert_array_equal(one(axes, "start").get_xydata(), positions[0])
    np.testing.assert_array_equal(one(axes, "end").get_xydata(), positions[-1])

    traces = [weaving_trace(frames) for frames in (101, 201)]  # of different lengths
    axes = plot_batch(traces, path=[PATH_POINTS, PATH_POINTS + 1.0])
    short, long = one(axes, "trajectories").get_segments()
    np.testing.assert_array_equal(short, np.column_stack((traces[0].x, traces[0].y)))
    np.testing.assert_array_equal(long, np.column_stack((traces[1].x, traces[1].y)))
    assert len(by_gid(axes, "path")) == 2


# -- over time -------------------------------------------------------------------------------------


def test_speed_over_time():
    trace = weaving_trace()
    target = np.full(len(trace), 1.7)
    axes = plot_speed(trace, target_speed=target)
    line = one(axes, "speed")
    assert np.array_equal(line.get_xdata(), trace.t)
    assert np.array_equal(line.get_ydata(), trace.v)
    assert np.array_equal(one(axes, "target-speed").get_ydata(), target)
    assert axes.get_xlabel() == "t [s]" and axes.get_ylabel() == "speed [m/s]"
    # a heading/speed agent: the modulus of its velocity
    t = np.linspace(0.0, 1.0, 5)
    agent = Trace(t, {"x": t, "y": t, "vx": 3.0 * np.ones(5), "vy": -4.0 * np.ones(5)}, {})
    assert np.array_equal(one(plot_speed(agent), "speed").get_ydata(), np.full(5, 5.0))


def test_cross_track_over_time_is_the_signed_distance_to_the_path():
    path = Polyline(PATH_POINTS, WIDTHS)
    trace = weaving_trace(frames=61)
    axes = plot_cross_track(trace, path)
    line = one(axes, "cross-track")
    assert np.array_equal(line.get_xdata(), trace.t)
    for position, measured in zip(
        np.column_stack((trace.x, trace.y)), line.get_ydata(), strict=True
    ):
        expected = dense_signed_distance(PATH_POINTS, position)
        assert abs(abs(measured) - abs(expected)) <= 2 * SPACING
        if abs(expected) > 2 * SPACING:
            assert math.copysign(1.0, measured) == math.copysign(1.0, expected)
    upper, lower = by_gid(axes, "half-width")
    # the trace stays beside the first two legs: half widths 1 m, then 2 m past x = 20
    expected_half = np.where(trace.x <= 20.0, 1.0, 2.0)
    beside = np.abs(trace.x - 20.0) > 2.0  # away from the corner, where either leg is nearest
    np.testing.assert_array_equal(upper.get_ydata()[beside], expected_half[beside])
    np.testing.assert_array_equal(lower.get_ydata()[beside], -expected_half[beside])


# -- files and errors ------------------------------------------------------------------------------


def test_figures_save_to_png(tmp_path):
    trace = weaving_trace()
    path = Polyline(PATH_POINTS, WIDTHS)
    _, grid = new_figure(8.0, 12.0, rows=4)
    plot_trace(trace, path, ax=grid[0, 0], label="storm")
    plot_batch([trace, trace], path, ax=grid[1, 0])
    plot_speed(trace, ax=grid[2, 0])
    plot_cross_track(trace, path, ax=grid[3, 0])
    for name, axes in (("single", plot_trace(trace)), ("grid", grid[0, 0])):
        file = tmp_path / f"{name}.png"
        axes.figure.savefig(file)
        assert file.read_bytes()[:8] == PNG_SIGNATURE


def test_bad_input_is_a_value_error_naming_the_argument():
    trace = weaving_trace()
    with pytest.raises(ValueError, match=r"trace must be a steerlab\.sim\.Trace, got dict"):
        plot_trace({"x": [0.0], "y": [0.0]})
    with pytest.raises(ValueError, match="trace must have the state fields"):
        plot_trace(Trace([0.0, 1.0], {"a": [0.0, 1.0]}, {}))
    with pytest.raises(ValueError, match="path: points"):
        plot_trace(trace, path=[(0.0, 0.0)])
    with pytest.raises(ValueError, match="world must be"):
        plot_trace(trace, world="level.toml")
    with pytest.raises(ValueError, match="ax must be"):
        plot_trace(trace, ax="axes")
    with pytest.raises(ValueError, match="arrow_interval must be > 0"):
        plot_trace(trace, arrow_interval=0.0)
    with pytest.raises(ValueError, match=r"target_speed must have one value per frame \(201,\)"):
        plot_speed(trace, target_speed=np.zeros(200))
    with pytest.raises(ValueError, match="trace must have a speed"):
        plot_speed(Trace([0.0, 1.0], {"x": [0.0, 1.0], "y": [0.0, 0.0]}, {}))
    with pytest.raises(ValueError, match="path must be a Polyline or waypoints, got None"):
        plot_cross_track(trace, None)
    with pytest.raises(ValueError, match="trace must be"):
        plot_cross_track(np.zeros((3, 2)), PATH_POINTS)
    with pytest.raises(ValueError, match=r"runs must have shape \(frames, agents, 2\)"):
        plot_batch(np.zeros((4, 3)))
    with pytest.raises(ValueError, match=r"runs\[1\] must be a steerlab.sim.Trace"):
        plot_batch([trace, np.zeros((3, 2))])
    with pytest.raises(ValueError, match="got one Trace"):
        plot_batch(trace)
    with pytest.raises(ValueError, match=r"one per agent \(2\), got 3 paths"):
        plot_batch([trace, trace], path=[PATH_POINTS] * 3)
    with pytest.raises(ValueError, match="states\\['y'\\] must have 3 frames"):  # the Trace's own
        Trace([0.0, 1.0, 2.0], {"x": [0.0, 1.0, 2.0], "y": [0.0, 1.0]}, {})


@pytest.mark.parametrize("module", [steerlab.plot.runs, steerlab.geometry.polyline])
def test_docstring_examples_run(module, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    examples = 0
    for test in finder.find(module, module.__name__, globs={}):
        examples += len(test.examples)
        runner.run(test)
    results = runner.summarize(verbose=False)
    assert examples > 0 and results.failed == 0
