"""Terrain (steerlab.world.terrain): bilinear heights, analytic gradient, slope along a heading."""

import math

import numba
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from steerlab._jit import SERIAL_LIMIT
from steerlab.world import Flat, Heightfield, World, hill, plane, ramp
from steerlab.world.terrain import _terrain_sample


def surface(x, y):
    """A smooth test terrain (not bilinear)."""
    return 3.0 * np.sin(0.3 * x) * np.cos(0.2 * y) + 0.05 * x * y


FIELD = Heightfield.from_function(surface, (-4.0, 18.0), (7.0, 20.0), 2.5)
X_MIN, X_MAX, Y_MIN, Y_MAX = FIELD.extent

fractions = st.floats(0.0, 1.0)
rows = st.integers(0, FIELD.heights.shape[0] - 1)
columns = st.integers(0, FIELD.heights.shape[1] - 1)


def node(i, j):
    ox, oy = FIELD.origin
    return ox + j * FIELD.cell_size, oy + i * FIELD.cell_size


def test_the_grid_covers_the_ranges():
    assert X_MIN == -4.0 and Y_MIN == 7.0
    assert X_MAX >= 18.0 and Y_MAX >= 20.0
    assert 18.0 + FIELD.cell_size > X_MAX
    assert 20.0 + FIELD.cell_size > Y_MAX


def test_height_equals_the_function_at_every_node():
    for i in range(FIELD.heights.shape[0]):
        for j in range(FIELD.heights.shape[1]):
            x, y = node(i, j)
            assert FIELD.height(x, y) == pytest.approx(float(surface(x, y)), rel=1e-12, abs=1e-12)


@given(rows, st.integers(0, FIELD.heights.shape[1] - 2), fractions)
def test_height_is_linear_along_x_edges(i, j, t):
    (xa, y), (xb, _) = node(i, j), node(i, j + 1)
    za, zb = FIELD.heights[i, j], FIELD.heights[i, j + 1]
    assert FIELD.height(xa + t * (xb - xa), y) == pytest.approx((1 - t) * za + t * zb, abs=1e-12)


@given(st.integers(0, FIELD.heights.shape[0] - 2), columns, fractions)
def test_height_is_linear_along_y_edges(i, j, t):
    (x, ya), (_, yb) = node(i, j), node(i + 1, j)
    za, zb = FIELD.heights[i, j], FIELD.heights[i + 1, j]
    assert FIELD.height(x, ya + t * (yb - ya)) == pytest.approx((1 - t) * za + t * zb, abs=1e-12)


@given(
    st.integers(0, FIELD.heights.shape[0] - 2),
    st.integers(0, FIELD.heights.shape[1] - 2),
    st.floats(0.05, 0.95),
    st.floats(0.05, 0.95),
)
def test_gradient_equals_finite_differences_inside_cells(i, j, fx, fy):
    x0, y0 = node(i, j)
    x = x0 + fx * FIELD.cell_size
    y = y0 + fy * FIELD.cell_size
    step = 1e-4 * FIELD.cell_size
    dz_dx, dz_dy = FIELD.gradient(x, y)
    numeric_x = (FIELD.height(x + step, y) - FIELD.height(x - step, y)) / (2 * step)
    numeric_y = (FIELD.height(x, y + step) - FIELD.height(x, y - step)) / (2 * step)
    # the patch is linear in x at fixed y (and in y at fixed x): central differences are exact
    # up to rounding
    assert dz_dx == pytest.approx(numeric_x, abs=1e-8)
    assert dz_dy == pytest.approx(numeric_y, abs=1e-8)


def test_gradient_on_an_interior_edge_is_the_derivative_from_the_upper_cell():
    x, y = node(2, 3)
    y += 0.3 * FIELD.cell_size  # on the vertical edge x = node column 3, inside the row
    step = 1e-6 * FIELD.cell_size
    from_above = (FIELD.height(x + step, y) - FIELD.height(x, y)) / step
    assert FIELD.gradient(x, y)[0] == pytest.approx(from_above, abs=1e-6)


@given(st.floats(-1e4, 1e4), st.floats(-1e4, 1e4))
def test_outside_the_grid_the_terrain_extends_flat(x, y):
    clamped_x = min(max(x, X_MIN), X_MAX)
    clamped_y = min(max(y, Y_MIN), Y_MAX)
    assert FIELD.height(x, y) == FIELD.height(clamped_x, clamped_y)
    dz_dx, dz_dy = FIELD.gradient(x, y)
    border_x, border_y = FIELD.gradient(clamped_x, clamped_y)
    assert dz_dx == (0.0 if x != clamped_x else border_x)
    assert dz_dy == (0.0 if y != clamped_y else border_y)


@given(
    st.floats(-2.0, 2.0),
    st.floats(-math.pi, math.pi),
    st.floats(-math.pi, math.pi),
    st.floats(0.0, 1.0),
    st.floats(0.0, 1.0),
)
def test_slope_along_a_plane_follows_the_cosine_law(slope, direction, yaw, u, v):
    terrain = plane(slope, direction, (0.0, 50.0), (-10.0, 30.0), 5.0)
    x = 50.0 * u
    y = -10.0 + 40.0 * v
    expected = slope * math.cos(yaw - direction)
    assert terrain.slope_along(x, y, yaw) == pytest.approx(expected, abs=1e-9)
    assert terrain.grade_along(x, y, yaw) == pytest.approx(math.atan(expected), abs=1e-9)
    assert World(terrain).slope_along(x, y, yaw) == terrain.slope_along(x, y, yaw)


def test_flat_ground_is_zero_everywhere():
    flat = Flat()
    world = World.flat()
    for x, y in [(0.0, 0.0), (1e6, -3.0), (-7.5, 0.25)]:
        assert flat.height(x, y) == 0.0
        assert flat.gradient(x, y) == (0.0, 0.0)
        assert world.height(x, y) == 0.0
        assert world.slope_along(x, y, 1.0) == 0.0
    assert World(None).terrain.height(3.0, 4.0) == 0.0


def test_arrays_in_arrays_out():
    x = np.linspace(X_MIN - 3.0, X_MAX + 3.0, 7)
    y = np.linspace(Y_MIN - 1.0, Y_MAX + 1.0, 7)
    heights = FIELD.height(x, y)
    assert heights.shape == (7,)
    assert all(heights[i] == FIELD.height(x[i], y[i]) for i in range(7))
    grid = FIELD.height(x[:, None], y[None, :])
    assert grid.shape == (7, 7)
    slopes = FIELD.slope_along(x, y, np.linspace(-3.0, 3.0, 7))
    assert slopes[3] == FIELD.slope_along(x[3], y[3], 0.0)


def test_ramp_slope_never_exceeds_its_maximum_and_reaches_it():
    for direction in (0.0, 0.4, math.pi / 2):
        terrain = ramp(0.35, 10.0, 20.0, (-5.0, 45.0), (-5.0, 45.0), 0.5, direction=direction)
        xs, ys = np.meshgrid(np.linspace(-5.0, 45.0, 301), np.linspace(-5.0, 45.0, 301))
        dz_dx, dz_dy = terrain.gradient(xs, ys)
        steepest = np.hypot(dz_dx, dz_dy).max()
        assert steepest <= 0.35 * (1 + 1e-9)
        c, s = math.cos(direction), math.sin(direction)
        middle = 20.0 * c, 20.0 * s  # s = 20 m: inside the ramp
        assert terrain.slope_along(*middle, direction) == pytest.approx(0.35, rel=1e-9)
        top = 38.0 * c, 38.0 * s
        assert terrain.height(*top) == pytest.approx(0.35 * 20.0, rel=1e-9)


def test_hill_has_its_height_and_steepest_slope():
    terrain = hill((3.0, -2.0), 8.0, 0.4, 0.25)
    assert terrain.height(3.0, -2.0) == pytest.approx(8.0, rel=1e-12)
    xmin, xmax, ymin, ymax = terrain.extent
    xs, ys = np.meshgrid(np.linspace(xmin, xmax, 401), np.linspace(ymin, ymax, 401))
    dz_dx, dz_dy = terrain.gradient(xs, ys)
    assert np.hypot(dz_dx, dz_dy).max() == pytest.approx(0.4, rel=0.03)
    radius = math.pi * 8.0 / (2 * 0.4)
    assert terrain.height(3.0 + radius * 1.01, -2.0) == 0.0  # flat around the hill
    hollow = hill((0.0, 0.0), -2.0, 0.3, 0.5)
    assert hollow.height(0.0, 0.0) == pytest.approx(-2.0)


def test_world_kernel_and_batch_equal_the_heightfield_bit_for_bit():
    world = World(FIELD)
    rng = np.random.default_rng(7)
    for size in (257, SERIAL_LIMIT + 3):  # serial and parallel builds
        x = rng.uniform(X_MIN - 5.0, X_MAX + 5.0, size)
        y = rng.uniform(Y_MIN - 5.0, Y_MAX + 5.0, size)
        x[:4] = [X_MIN, X_MAX, node(1, 1)[0], node(2, 2)[0]]  # borders and nodes
        previous = numba.get_num_threads()
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        try:
            z, dz_dx, dz_dy = world.sample_batch(x, y)
        finally:
            numba.set_num_threads(previous)
        for i in range(0, size, 37):
            assert (z[i], dz_dx[i], dz_dy[i]) == _terrain_sample(world.data, x[i], y[i])
            assert z[i] == FIELD.height(x[i], y[i])
            assert (dz_dx[i], dz_dy[i]) == FIELD.gradient(x[i], y[i])


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: Heightfield([[0.0, 1.0], [2.0, math.nan]], 1.0), r"heights\[1, 1\]"),
        (lambda: Heightfield([[0.0, 1.0, 2.0]], 1.0), "heights must have shape"),
        (lambda: Heightfield(np.zeros(4), 1.0), "heights must have shape"),
        (lambda: Heightfield(np.zeros((2, 2)), 0.0), "cell_size"),
        (lambda: Heightfield(np.zeros((2, 2)), -1.0), "cell_size"),
        (lambda: Heightfield(np.zeros((2, 2)), math.inf), "cell_size"),
        (lambda: Heightfield(np.zeros((2, 2)), 1.0, origin=(0.0, math.nan)), r"origin\[1\]"),
        (lambda: Heightfield(np.zeros((2, 2)), 1.0, origin=3.0), "origin"),
        (lambda: Heightfield.from_function(surface, (5.0, 1.0), (0.0, 1.0), 1.0), "x_range"),
        (lambda: Heightfield.from_function(surface, (0.0, 1.0), (0.0, 1.0), 0.0), "cell_size"),
        (lambda: hill((0.0, 0.0), 5.0, 0.0, 1.0), "max_slope"),
        (lambda: hill((0.0, 0.0), 0.0, 1.0, 1.0), "height"),
        (lambda: ramp(0.2, 0.0, -3.0, (0.0, 1.0), (0.0, 1.0), 1.0), "length"),
        (lambda: FIELD.height(math.nan, 0.0), "x must be finite"),
        (lambda: FIELD.height(0.0, [1.0, math.inf]), r"y\[1\]"),
        (lambda: FIELD.slope_along(0.0, 0.0, math.inf), "yaw"),
        (lambda: World(terrain="hill"), "terrain"),
    ],
)
def test_bad_input_raises_naming_the_argument(build, message):
    with pytest.raises(ValueError, match=message):
        build()
