"""Terrain: a heightfield sampled bilinearly, or flat ground.

A ``Heightfield`` holds heights ``z`` [m] at the nodes of a regular grid: node ``(i, j)`` (row
``i``, column ``j``) sits at ``x = origin_x + j * cell_size``, ``y = origin_y + i * cell_size``, so
``heights`` has shape ``(ny, nx)`` and rows run along ``y``. Between nodes the surface is the
standard bilinear patch of the cell's four corners; its gradient is the patch's analytic
derivative (not a finite difference), so heights and slopes agree exactly.

Conventions (documented once here, used by every method and kernel):

- **Cell edges.** The bilinear surface is continuous, its gradient is not: across a cell edge the
  derivative normal to the edge jumps. A point on an interior edge belongs to the cell on its
  ``+x`` / ``+y`` side (``floor``), so the gradient there is the one-sided derivative from that
  side; on the grid's last row / column the last cell is used (the derivative from inside).
- **Outside the grid.** The point is clamped to the grid's rectangle: the terrain is extended flat
  from its border (height of the nearest border point). The gradient component across the border
  is 0 outside (the flat extension), the component along the border is the border's own.
- **Flat ground** (``Flat``, or ``terrain=None`` in ``World``) is the heightfield ``z = 0``; it uses
  the same kernel (a 2 x 2 grid of zeros), so a flat world costs one sample like any other.

``slope_along(x, y, yaw)`` is the directional derivative ``dz/dx cos(yaw) + dz/dy sin(yaw)`` (rise
over run, dimensionless: 0.1 is a 10 % grade); ``grade_along`` is its angle ``atan(slope)`` [rad],
what a vehicle model needs for the component of gravity along its heading (``g sin(grade)``).

Seed 001 tested its follower on "steep hills, narrow corridors, and sharp turns" without giving
their shapes; ``hill``, ``ramp`` and ``plane`` build such terrains with a given steepest slope for
the benchmark suites. Their shapes are ordinary choices (a raised-cosine bump, a linear ramp
between two flats), not the paper's.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

import numba
import numpy as np

from steerlab._checks import as_float_array, check_finite, check_positive, check_xy
from steerlab._jit import batch_kernel, kernel

__all__ = [
    "MAX_GRID_NODES",
    "Flat",
    "Heightfield",
    "Hill",
    "Ramp",
    "grid_shape",
    "hill",
    "plane",
    "ramp",
    "terrain_from_features",
]


# --------------------------------------------------------------------------------------------------
# kernels


@kernel
def _cell_coordinate(value, origin, cell_size, count):
    """Cell index and fraction in ``[0, 1]`` of ``value`` along one grid axis of ``count`` nodes.

    Returns ``(index, fraction, inside)``: ``index`` in ``[0, count - 2]``; ``inside`` is 0.0 when
    ``value`` was clamped to the grid (the derivative along this axis is then 0: flat extension),
    1.0 otherwise. On an interior node the cell starting there is used; on the last node the last
    cell (fraction 1).
    """
    position = (value - origin) / cell_size
    last = count - 1
    if position < 0.0:
        return 0, 0.0, 0.0
    if position > last:
        return last - 1, 1.0, 0.0
    index = math.floor(position)
    if index > last - 1:
        index = last - 1
    return index, position - index, 1.0


@kernel
def _heightfield_sample(origin_x, origin_y, cell_size, heights, x, y):
    """Bilinear height and its analytic gradient at ``(x, y)``: ``(z, dz_dx, dz_dy)``.

    ``heights`` is ``(ny, nx)`` with ``ny, nx >= 2``, node ``(i, j)`` at ``(origin_x + j
    cell_size, origin_y + i cell_size)``. Inside a cell with corner heights ``z00`` (lower left),
    ``z10`` (lower right), ``z01`` (upper left), ``z11`` and fractions ``fx, fy`` in ``[0, 1]``:

        z = z0 + fy (z1 - z0),  z0 = z00 + fx (z10 - z00),  z1 = z01 + fx (z11 - z01)
        dz/dx = ((1 - fy) (z10 - z00) + fy (z11 - z01)) / cell_size
        dz/dy = (z1 - z0) / cell_size

    (the standard bilinear patch). At a node the result is the node's height exactly; along a
    cell edge it is linear. Edges and the outside of the grid: module docstring.
    """
    column, fx, inside_x = _cell_coordinate(x, origin_x, cell_size, heights.shape[1])
    row, fy, inside_y = _cell_coordinate(y, origin_y, cell_size, heights.shape[0])
    z00 = heights[row, column]
    z10 = heights[row, column + 1]
    z01 = heights[row + 1, column]
    z11 = heights[row + 1, column + 1]
    low = z10 - z00
    high = z11 - z01
    z0 = z00 + fx * low
    z1 = z01 + fx * high
    z = z0 + fy * (z1 - z0)
    dz_dx = inside_x * ((1.0 - fy) * low + fy * high) / cell_size
    dz_dy = inside_y * (z1 - z0) / cell_size
    return z, dz_dx, dz_dy


@batch_kernel
def _heightfield_sample_batch(x, y, origin_x, origin_y, cell_size, heights, z, dz_dx, dz_dy):
    """``_heightfield_sample`` at every ``(x[i], y[i])``; writes ``z``, ``dz_dx``, ``dz_dy``."""
    for i in numba.prange(x.size):
        z[i], dz_dx[i], dz_dy[i] = _heightfield_sample(
            origin_x, origin_y, cell_size, heights, x[i], y[i]
        )


@kernel
def _terrain_sample(data, x, y):
    """Terrain height [m] and gradient at ``(x, y)`` [m] of a ``WorldData``: ``(z, dz_dx, dz_dy)``.

    The kernel the vehicle composite calls each frame; it reads the heightfield fields of
    ``data`` (``height_origin_x``, ``height_origin_y``, ``height_cell``, ``heights``).
    """
    return _heightfield_sample(
        data.height_origin_x, data.height_origin_y, data.height_cell, data.heights, x, y
    )


@batch_kernel
def _terrain_sample_batch(x, y, data, z, dz_dx, dz_dy):
    """``_terrain_sample`` at every ``(x[i], y[i])``; writes ``z``, ``dz_dx``, ``dz_dy``."""
    for i in numba.prange(x.size):
        z[i], dz_dx[i], dz_dy[i] = _terrain_sample(data, x[i], y[i])


# --------------------------------------------------------------------------------------------------
# public classes


class Heightfield:
    """Terrain heights on a regular grid, sampled bilinearly (module docstring: edges, outside).

    Parameters
    ----------
    heights : array_like, shape (ny, nx)
        Heights [m] at the grid nodes, ``ny, nx >= 2``, finite. Row ``i`` is at ``y = origin_y + i
        cell_size``, column ``j`` at ``x = origin_x + j cell_size``.
    cell_size : float
        Node spacing [m], ``> 0``, the same along x and y.
    origin : (float, float), optional
        Position [m] of node ``(0, 0)`` (the lower-left corner of the grid). Default ``(0, 0)``.

    Raises
    ------
    ValueError
        ``heights`` not 2-D, smaller than 2 x 2, or not finite (the message gives the node);
        ``cell_size`` not ``> 0`` and finite; ``origin`` not two finite numbers; a grid whose far
        corner overflows.
    """

    def __init__(self, heights, cell_size, origin=(0.0, 0.0)):
        array = as_float_array("heights", heights, "a 2-D array of numbers", copy=True)
        if array.ndim != 2 or array.shape[0] < 2 or array.shape[1] < 2:
            raise ValueError(
                f"heights must have shape (ny, nx) with ny, nx >= 2, got {array.shape}"
            )
        finite = np.isfinite(array)
        if not finite.all():
            row, column = np.argwhere(~finite)[0]
            raise ValueError(
                f"heights[{row}, {column}] must be finite, got {float(array[row, column])!r}"
            )
        self._cell_size = check_positive("cell_size", cell_size, per_agent=False)
        self._origin = check_xy("origin", origin)
        far = np.array(self._origin) + self._cell_size * (np.array(array.shape[::-1]) - 1)
        if not np.isfinite(far).all():
            raise ValueError(
                f"the grid's far corner overflows: cell_size {cell_size!r} x shape {array.shape}"
            )
        array.flags.writeable = False
        self._heights = np.ascontiguousarray(array)

    @classmethod
    def from_function(
        cls,
        function: Callable[[np.ndarray, np.ndarray], Any],
        x_range,
        y_range,
        cell_size,
    ) -> Heightfield:
        """Sample ``z = function(x, y)`` at the nodes of a grid covering the given ranges.

        Parameters
        ----------
        function : callable
            ``function(x, y) -> z`` [m]; called once with two 2-D arrays of node coordinates
            (``numpy.meshgrid``), returning an array that broadcasts to their shape; a function
            of floats only (one raising ``TypeError`` on arrays) is called once per node.
        x_range, y_range : (float, float)
            ``(min, max)`` [m], ``min < max``. Nodes start at ``min`` and step by ``cell_size``
            up to the first node at or beyond ``max`` (so the grid covers the ranges).
        cell_size : float
            Node spacing [m], ``> 0``; the grid holds at most ``MAX_GRID_NODES`` nodes
            (``grid_shape``).
        """
        x_min, x_max = _range("x_range", x_range)
        y_min, y_max = _range("y_range", y_range)
        cell = check_positive("cell_size", cell_size, per_agent=False)
        ny, nx = grid_shape((x_min, x_max), (y_min, y_max), cell)
        xs = x_min + cell * np.arange(nx)
        ys = y_min + cell * np.arange(ny)
        grid_x, grid_y = np.meshgrid(xs, ys)
        try:
            raw = function(grid_x, grid_y)
        except TypeError:  # a function of floats only (math.sin ...): one call per node
            raw = np.vectorize(function, otypes=[np.float64])(grid_x, grid_y)
        values = np.broadcast_to(np.asarray(raw, dtype=np.float64), (ny, nx))
        return cls(values, cell, origin=(x_min, y_min))

    @property
    def heights(self) -> np.ndarray:
        """Node heights [m], shape ``(ny, nx)``, read-only."""
        return self._heights

    @property
    def cell_size(self) -> float:
        """Node spacing [m]."""
        return self._cell_size

    @property
    def origin(self) -> tuple[float, float]:
        """Position [m] of node ``(0, 0)``."""
        return self._origin

    @property
    def extent(self) -> tuple[float, float, float, float]:
        """``(x_min, x_max, y_min, y_max)`` [m] of the grid's nodes."""
        ny, nx = self._heights.shape
        x0, y0 = self._origin
        return (x0, x0 + (nx - 1) * self._cell_size, y0, y0 + (ny - 1) * self._cell_size)

    def __repr__(self) -> str:
        ny, nx = self._heights.shape
        return (
            f"Heightfield({ny} x {nx} nodes, cell_size={self._cell_size!r}, origin={self._origin})"
        )

    def kernel_arrays(self) -> tuple[float, float, float, np.ndarray]:
        """``(origin_x, origin_y, cell_size, heights)``: the arguments of the sampling kernel."""
        return (self._origin[0], self._origin[1], self._cell_size, self._heights)

    def height(self, x, y) -> float | np.ndarray:
        """Height [m] at ``(x, y)`` [m]: floats, or arrays of the same shape (then an array)."""
        return _sample(self.kernel_arrays(), x, y)[0]

    def gradient(self, x, y) -> tuple[Any, Any]:
        """``(dz/dx, dz/dy)`` (dimensionless) at ``(x, y)`` [m]; floats or arrays."""
        _, dz_dx, dz_dy = _sample(self.kernel_arrays(), x, y)
        return dz_dx, dz_dy

    def slope_along(self, x, y, yaw) -> float | np.ndarray:
        """Rise over run along heading ``yaw`` [rad]: ``dz/dx cos(yaw) + dz/dy sin(yaw)``.

        Positive uphill. Floats, or arrays broadcast together.
        """
        return _slope(self.kernel_arrays(), x, y, yaw)

    def grade_along(self, x, y, yaw) -> float | np.ndarray:
        """Grade angle [rad] along heading ``yaw`` [rad]: ``atan(slope_along(x, y, yaw))``."""
        return _to_output(np.arctan(self.slope_along(x, y, yaw)))


class Flat(Heightfield):
    """Flat ground, ``z = 0`` everywhere (the default terrain of ``World``)."""

    def __init__(self):
        super().__init__(np.zeros((2, 2)), 1.0)

    def __repr__(self) -> str:
        return "Flat()"


# --------------------------------------------------------------------------------------------------
# named terrains for the benchmark suites


def plane(slope, direction, x_range, y_range, cell_size) -> Heightfield:
    """An inclined plane rising ``slope`` (rise over run) along heading ``direction`` [rad].

    ``z = slope ((x - x_min) cos(direction) + (y - y_min) sin(direction))``. A plane is bilinear, so
    the heightfield reproduces it exactly (up to rounding): ``slope_along(x, y, yaw) = slope
    cos(yaw - direction)`` everywhere inside the grid.
    """
    rise = check_finite("slope", slope, per_agent=False)
    heading = check_finite("direction", direction, per_agent=False)
    x_min, _ = _range("x_range", x_range)
    y_min, _ = _range("y_range", y_range)
    c, s = math.cos(heading), math.sin(heading)
    return Heightfield.from_function(
        lambda x, y: rise * ((x - x_min) * c + (y - y_min) * s), x_range, y_range, cell_size
    )


def ramp(max_slope, start, length, x_range, y_range, cell_size, direction=0.0) -> Heightfield:
    """Flat, then a straight ramp of slope ``max_slope``, then flat again (a "steep hill" climb).

    Along ``direction`` [rad] with ``s = x cos(direction) + y sin(direction)`` [m]: ``z = 0`` for
    ``s <= start``, ``z = max_slope (s - start)`` up to ``s = start + length``, then constant
    (height ``max_slope * length``). The slope of the bilinear grid never exceeds ``max_slope``
    (each cell's gradient is a mean of node differences, each at most ``max_slope`` times the
    spacing along its axis), and equals it inside the ramp away from its two kinks. The profile
    is ``Ramp.elevation`` (also a feature of ``terrain_from_features``).
    """
    feature = Ramp(max_slope, start, length, direction)._validated()
    return Heightfield.from_function(feature.elevation, x_range, y_range, cell_size)


def hill(center, height, max_slope, cell_size, margin=None) -> Heightfield:
    """A round hill of the given ``height`` [m] and steepest slope ``max_slope`` (rise over run).

    Raised-cosine profile: ``z = height (1 + cos(pi r / R)) / 2`` for ``r < R`` (0 beyond), with
    ``r`` the distance to ``center`` and ``R = pi height / (2 max_slope)``, so that the steepest
    slope, ``pi height / (2 R)`` at ``r = R / 2``, is ``max_slope``. The grid, centred on a node at
    ``center``, covers the hill plus at least ``margin`` [m] of flat ground on each side (default
    ``R / 4``). A negative ``height`` digs a hollow. The profile is ``Hill.elevation`` (also a
    feature of ``terrain_from_features``). The bilinear grid's slope approaches ``max_slope`` as
    ``cell_size`` shrinks; along a grid axis it never exceeds it, across a cell diagonal it can by
    a few per cent at coarse cells.
    """
    cx, cy = check_xy("center", center)
    top = check_finite("height", height, per_agent=False)
    steepest = check_positive("max_slope", max_slope, per_agent=False)
    if top == 0.0:
        raise ValueError(f"height must be non-zero, got {height!r}")
    feature = Hill((cx, cy), top, steepest)
    radius = feature.radius
    border = radius / 4.0 if margin is None else check_finite("margin", margin, per_agent=False)
    if border < 0.0:
        raise ValueError(f"margin must be >= 0, got {margin!r}")
    cell = check_positive("cell_size", cell_size, per_agent=False)
    cells = (radius + border) / cell
    if not cells <= MAX_GRID_NODES:  # (inf for a huge height or margin: refused by name)
        raise ValueError(
            f"cell_size {cell!r} for a hill of radius {radius!r} m and margin {border!r} m needs "
            f"{2.0 * cells:.4g} nodes a side, at most {MAX_GRID_NODES} allowed: a lower height, "
            "a steeper max_slope or a larger cell_size"
        )
    reach = math.ceil(cells) * cell  # the centre on a node: the top is exact
    x_range, y_range = (cx - reach, cx + reach), (cy - reach, cy + reach)
    if not (x_range[0] < x_range[1] and y_range[0] < y_range[1]):
        raise ValueError(
            f"center {center!r} is too far from the origin for a grid of cell_size {cell!r} "
            "(its nodes would coincide in float64)"
        )
    return Heightfield.from_function(feature.elevation, x_range, y_range, cell)


# --------------------------------------------------------------------------------------------------
# terrain features, and terrains made of several of them


class Hill(NamedTuple):
    """A round hill (``height > 0``) or hollow (``height < 0``) as a terrain feature.

    Raised-cosine profile (the one of ``hill``): ``z = height (1 + cos(pi r / R)) / 2`` for ``r <
    R``, 0 beyond, ``r`` the distance [m] to ``center``, ``R = pi |height| / (2 max_slope)`` so
    that the steepest slope (rise over run, at ``r = R / 2``) is ``max_slope``.
    """

    center: tuple[float, float]  # [m]
    height: float  # [m] non-zero; negative: a hollow
    max_slope: float  # [-] rise over run, > 0

    @property
    def radius(self) -> float:
        """``R`` [m]: the hill is flat (``z = 0``) from this distance to its centre on."""
        return math.pi * abs(self.height) / (2.0 * self.max_slope)

    def elevation(self, x, y):
        """Height [m] of the feature at ``(x, y)`` [m] (arrays broadcast)."""
        cx, cy = self.center
        top = self.height
        radius = self.radius
        r = np.hypot(x - cx, y - cy)
        return np.where(
            r < radius, 0.5 * top * (1.0 + np.cos(np.pi * np.minimum(r, radius) / radius)), 0.0
        )

    def _validated(self) -> Hill:
        cx, cy = check_xy("center", self.center)
        top = check_finite("height", self.height, per_agent=False)
        if top == 0.0:
            raise ValueError(f"height must be non-zero, got {self.height!r}")
        return Hill((cx, cy), top, check_positive("max_slope", self.max_slope, per_agent=False))


class Ramp(NamedTuple):
    """A straight ramp between two flats as a terrain feature (the profile of ``ramp``).

    With ``s = x cos(direction) + y sin(direction)`` [m]: ``z = 0`` for ``s <= start``, ``z =
    max_slope (s - start)`` up to ``s = start + length``, then ``max_slope length``. The ramp
    rises along ``direction`` (a negative ``max_slope`` makes it fall); it is unbounded across.
    """

    max_slope: float  # [-] rise over run along direction
    start: float  # [m] where the ramp begins, measured along direction from the origin
    length: float  # [m] > 0, horizontal length of the inclined part
    direction: float = 0.0  # [rad] heading along which s grows

    def elevation(self, x, y):
        """Height [m] of the feature at ``(x, y)`` [m] (arrays broadcast)."""
        c, s = math.cos(self.direction), math.sin(self.direction)
        along = x * c + y * s
        return self.max_slope * np.clip(along - self.start, 0.0, self.length)

    def _validated(self) -> Ramp:
        return Ramp(
            check_finite("max_slope", self.max_slope, per_agent=False),
            check_finite("start", self.start, per_agent=False),
            check_positive("length", self.length, per_agent=False),
            check_finite("direction", self.direction, per_agent=False),
        )


def terrain_from_features(features, x_range, y_range, cell_size) -> Heightfield:
    """One heightfield carrying several features: the sum of their heights at every node.

    Parameters
    ----------
    features : sequence of Hill and Ramp
        The features; their heights add up (a hill on a ramp's plateau sits on the plateau). An
        empty sequence gives flat ground ``z = 0`` on the grid.
    x_range, y_range : (float, float)
        ``(min, max)`` [m] the grid covers (``Heightfield.from_function``); outside it the terrain
        extends flat from its border, so make it cover where vehicles drive.
    cell_size : float
        Node spacing [m], ``> 0``.

    Notes
    -----
    Where features overlap their slopes add (vector sum of the gradients): the steepest slope of
    the terrain is then up to the sum of theirs. Where they do not, each keeps its own, and the
    grid's slope obeys the bounds stated in ``hill`` and ``ramp`` (sampled at the nodes of this
    grid rather than of their own, so a hill's top need not fall on a node).

    Raises
    ------
    ValueError
        A feature of another type, or with an invalid field (the message names ``features[i]``
        and the field); invalid ranges or cell size.
    """
    checked = []
    for index, feature in enumerate(features):
        if not isinstance(feature, Hill | Ramp):
            raise ValueError(f"features[{index}] must be a Hill or a Ramp, got {feature!r}")
        try:
            checked.append(feature._validated())
        except ValueError as error:
            raise ValueError(f"features[{index}].{error}") from None

    def function(x, y):
        total = np.zeros(np.broadcast_shapes(np.shape(x), np.shape(y)))
        for feature in checked:
            total = total + feature.elevation(x, y)
        return total

    return Heightfield.from_function(function, x_range, y_range, cell_size)


# --------------------------------------------------------------------------------------------------
# helpers


def _sample(arrays, x, y):
    """Sample at floats (floats out) or arrays (arrays out, broadcast)."""
    origin_x, origin_y, cell, heights = arrays
    if np.ndim(x) == 0 and np.ndim(y) == 0:
        px = check_finite("x", x, per_agent=False)
        py = check_finite("y", y, per_agent=False)
        z, dz_dx, dz_dy = _heightfield_sample(origin_x, origin_y, cell, heights, px, py)
        return float(z), float(dz_dx), float(dz_dy)
    xs, ys = _finite_arrays(x=x, y=y)
    shape = xs.shape
    flat_x = np.ascontiguousarray(xs.ravel())
    flat_y = np.ascontiguousarray(ys.ravel())
    z = np.empty(flat_x.size)
    dz_dx = np.empty(flat_x.size)
    dz_dy = np.empty(flat_x.size)
    _heightfield_sample_batch(flat_x, flat_y, origin_x, origin_y, cell, heights, z, dz_dx, dz_dy)
    return z.reshape(shape), dz_dx.reshape(shape), dz_dy.reshape(shape)


def _slope(arrays, x, y, yaw):
    if np.ndim(yaw) == 0:
        heading = check_finite("yaw", yaw, per_agent=False)
        _, dz_dx, dz_dy = _sample(arrays, x, y)
        return _to_output(dz_dx * math.cos(heading) + dz_dy * math.sin(heading))
    xs, ys, yaws = _finite_arrays(x=x, y=y, yaw=yaw)
    _, dz_dx, dz_dy = _sample(arrays, xs, ys)
    return dz_dx * np.cos(yaws) + dz_dy * np.sin(yaws)


def _to_output(value):
    return float(value) if np.ndim(value) == 0 else value


def _finite_arrays(**named) -> list[np.ndarray]:
    """The arrays broadcast together, float64; ``ValueError`` naming the first non-finite entry."""
    arrays = {}
    for name, value in named.items():
        try:
            arrays[name] = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(
                f"{name} must be a number or an array of numbers, got {value!r}"
            ) from None
    try:
        broadcast = np.broadcast_arrays(*arrays.values())
    except ValueError:
        shapes = {name: array.shape for name, array in arrays.items()}
        raise ValueError(f"arguments must broadcast together, got shapes {shapes}") from None
    for name, array in zip(arrays, broadcast, strict=True):
        finite = np.isfinite(array)
        if not finite.all():
            index = tuple(int(i) for i in np.argwhere(~finite)[0])
            raise ValueError(
                f"{name}[{', '.join(map(str, index))}] must be finite, got {float(array[index])!r}"
            )
    return broadcast


def _range(name: str, value) -> tuple[float, float]:
    low, high = check_xy(name, value)
    if not low < high:
        raise ValueError(f"{name} must be (min, max) with min < max, got {value!r}")
    return low, high


MAX_GRID_NODES = 1 << 25
"""The most nodes a terrain grid may hold (256 MiB of float64 heights): a grid is allocated
whole, so a cell size far too small for its ranges is refused before any allocation."""


def grid_shape(x_range, y_range, cell_size, *, name: str = "cell_size") -> tuple[int, int]:
    """``(rows, columns)`` of the grid ``Heightfield.from_function`` samples: nodes from each
    range's min by ``cell_size`` up to the first node at or beyond its max (at least two).

    Raises
    ------
    ValueError
        The grid would hold more than ``MAX_GRID_NODES`` nodes: the message names ``name`` (the
        caller's name of the cell size), the nodes it would need and the maximum.
    """
    x_min, x_max = _range("x_range", x_range)
    y_min, y_max = _range("y_range", y_range)
    cell = check_positive(name, cell_size, per_agent=False)
    spans = ((x_max - x_min) / cell, (y_max - y_min) / cell)  # inf for a tiny cell: refused below
    counts = [
        max(math.ceil(span - 1e-9) + 1, 2) if span <= MAX_GRID_NODES else math.inf for span in spans
    ]
    nodes = counts[0] * counts[1]
    if nodes > MAX_GRID_NODES:
        shown = " x ".join(f"{count:.4g}" for count in reversed(counts))
        raise ValueError(
            f"{name} {cell!r} over x {(x_min, x_max)!r}, y {(y_min, y_max)!r} needs a grid of "
            f"{shown} = {nodes:.4g} nodes, at most {MAX_GRID_NODES} allowed: choose a larger "
            f"{name}"
        )
    return counts[1], counts[0]
