"""Uniform grid over wall segments: which walls can a moving footprint touch?

The standard broad phase for static geometry (a uniform grid, as in Ericson, "Real-Time Collision
Detection", 2005, ch. 7, spatial partitioning): the plane is cut into square cells of side
``cell_size``; each cell lists the walls that pass through it, as one flat array of wall indices
``cell_walls`` and offsets ``cell_start`` (cell ``k`` holds
``cell_walls[cell_start[k]:cell_start[k + 1]]``, CSR layout; cell ``k = row * nx + column``). A
wall is listed in every cell its segment crosses (a "thick" rasterisation: the segment grown by a
tiny margin, so a wall on a cell border is listed on both sides), not in every cell of its
bounding box: long diagonal walls stay cheap.

Queries use the same rasterisation: the cells covered by a segment grown by half extents ``(ex,
ey)``, i.e. the Minkowski sum of the path of a footprint's centre with the footprint's
axis-aligned bounding box. Row by row, the covered columns are the x-range of the centre segment
inside the row's band (grown by ``ey``), grown by ``ex``. A long move therefore costs cells along
its path, not the area of its bounding box. A wall listed in several covered cells is returned
several times (the narrow phase gives the same answer each time; no per-query scratch memory, so
queries run in parallel).

Cell size: by default a quarter of the median length of the walls (segments of positive length),
so that a wall spans a few cells and a cell holds about one wall whatever the unit (measured in
``benchmarks/world.py``, a walled corridor of 25 m legs: about 3 M moves/s per core with 4.5 m
cells, 2 M with 18 m cells, the median length); grown if needed so that the grid has at most
``64 n + 1024`` cells for ``n`` walls and never more than ``MAX_CELLS`` (memory stays proportional
to the walls). Points outside the grid fall in no cell (no wall lies there).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from steerlab._jit import kernel

__all__ = ["CELLS_PER_WALL", "MAX_CELLS", "WallGrid", "build_grid", "default_cell_size"]

MAX_CELLS = 1 << 22  # cells: a bound on memory (32 MB of offsets), not on speed
CELLS_PER_WALL = 64  # with 1024 more: the bound on cells for a given number of walls
_REGISTER_MARGIN = 1e-9  # [cells] walls are listed in cells within this fraction of a cell


class WallGrid(NamedTuple):
    """The grid's arrays (module docstring)."""

    origin_x: float  # [m] lower-left corner of cell (0, 0)
    origin_y: float  # [m]
    cell_size: float  # [m]
    nx: int  # columns (along x)
    ny: int  # rows (along y)
    cell_start: np.ndarray  # int64 (nx * ny + 1,): CSR offsets into cell_walls
    cell_walls: np.ndarray  # int64: wall indices, cell after cell


# --------------------------------------------------------------------------------------------------
# kernels


@kernel
def _index_span(low, high, origin, cell_size, count):
    """Cells ``first..last`` (inclusive) along one axis overlapping ``[low, high]``.

    Empty when ``last < first``.

    Computed in floating point and clamped before the conversion to integers, so any finite (or
    infinite) bound is safe.
    """
    first = math.floor((low - origin) / cell_size)
    last = math.floor((high - origin) / cell_size)
    if last < 0.0 or first > count - 1.0 or not first <= last:
        return 0, -1
    first = max(first, 0.0)
    last = min(last, count - 1.0)
    return int(first), int(last)


@kernel
def _row_columns(x0, y0, x1, y1, ex, ey, row, origin_x, origin_y, cell_size, nx):
    """Columns ``first..last`` of ``row`` covered by segment ``(x0, y0)-(x1, y1)`` grown by
    ``(ex, ey)`` (an axis-aligned box swept along the segment); empty if ``last < first``."""
    band_low = origin_y + row * cell_size - ey
    band_high = origin_y + (row + 1) * cell_size + ey
    dy = y1 - y0
    t_low = 0.0
    t_high = 1.0
    if dy != 0.0:
        ta = (band_low - y0) / dy
        tb = (band_high - y0) / dy
        t_low = max(min(ta, tb), 0.0)
        t_high = min(max(ta, tb), 1.0)
        if t_low > t_high:
            # rounding at the band's edge: fall back to the whole segment (conservative)
            t_low = 0.0
            t_high = 1.0
    elif y0 < band_low or y0 > band_high:
        return 0, -1
    dx = x1 - x0
    xa = x0 + t_low * dx
    xb = x0 + t_high * dx
    return _index_span(min(xa, xb) - ex, max(xa, xb) + ex, origin_x, cell_size, nx)


@kernel
def _grid_rasterise(ax, ay, bx, by, origin_x, origin_y, cell_size, nx, ny, cell_start, cell_walls):
    """Count (``cell_walls`` empty) or fill (``cell_walls`` sized) the cells of every wall.

    Counting pass: ``cell_start[k + 1] += 1`` for each wall crossing cell ``k``. Fill pass:
    ``cell_start`` holds the CSR offsets; wall indices are written in increasing order in each
    cell.
    """
    margin = _REGISTER_MARGIN * cell_size
    fill = cell_walls.size > 0
    cursor = cell_start[:-1].copy()
    for wall in range(ax.size):
        rows_first, rows_last = _index_span(
            min(ay[wall], by[wall]) - margin,
            max(ay[wall], by[wall]) + margin,
            origin_y,
            cell_size,
            ny,
        )
        for row in range(rows_first, rows_last + 1):
            first, last = _row_columns(
                ax[wall],
                ay[wall],
                bx[wall],
                by[wall],
                margin,
                margin,
                row,
                origin_x,
                origin_y,
                cell_size,
                nx,
            )
            for column in range(first, last + 1):
                cell = row * nx + column
                if fill:
                    cell_walls[cursor[cell]] = wall
                    cursor[cell] += 1
                else:
                    cell_start[cell + 1] += 1


# --------------------------------------------------------------------------------------------------
# construction


def default_cell_size(ax, ay, bx, by) -> float:
    """A quarter of the median length of the walls of positive length (module docstring); for
    point walls only, their spread over the square root of their number; 1.0 without walls."""
    lengths = np.hypot(bx - ax, by - ay)
    lengths = lengths[lengths > 0.0]
    if lengths.size:
        return 0.25 * float(np.median(lengths))
    if ax.size > 1:
        span = max(np.ptp(ax), np.ptp(ay))
        if span > 0.0:
            return float(span / math.sqrt(ax.size))
    return 1.0


def build_grid(ax, ay, bx, by, cell_size: float | None = None) -> WallGrid:
    """The grid over walls ``(ax, ay)-(bx, by)`` (float64 arrays); ``cell_size`` [m] or default.

    The grid covers the walls' bounding box (a few empty cells if there are no walls). The cell
    size is grown (never shrunk) so that the grid has at most ``min(64 n + 1024, MAX_CELLS)``
    cells.
    """
    cell = default_cell_size(ax, ay, bx, by) if cell_size is None else float(cell_size)
    if ax.size == 0:
        origin_x = origin_y = 0.0
        width = height = 0.0
    else:
        origin_x = float(min(ax.min(), bx.min()))
        origin_y = float(min(ay.min(), by.min()))
        width = float(max(ax.max(), bx.max())) - origin_x
        height = float(max(ay.max(), by.max())) - origin_y
    most = min(CELLS_PER_WALL * ax.size + 1024, MAX_CELLS)
    # a cell under 1e-12 of the extent would be grown below anyway; starting there keeps the cell
    # counts within what a float holds (a cell of 1e-300 m overflowed)
    cell = max(cell, 1e-12 * max(width, height))
    while True:
        nx = math.floor(width / cell) + 1
        ny = math.floor(height / cell) + 1
        if nx * ny <= most:
            break
        cell *= math.sqrt(nx * ny / most) * 1.01
    # one cell of slack below the walls' minimum: the registration margin may reach it
    origin_x -= 0.5 * cell
    origin_y -= 0.5 * cell
    nx += 1
    ny += 1
    cell_start = np.zeros(nx * ny + 1, dtype=np.int64)
    empty = np.zeros(0, dtype=np.int64)
    _grid_rasterise(ax, ay, bx, by, origin_x, origin_y, cell, nx, ny, cell_start, empty)
    np.cumsum(cell_start, out=cell_start)
    cell_walls = np.zeros(int(cell_start[-1]), dtype=np.int64)
    if cell_walls.size:
        _grid_rasterise(ax, ay, bx, by, origin_x, origin_y, cell, nx, ny, cell_start, cell_walls)
    cell_start.flags.writeable = False
    cell_walls.flags.writeable = False
    return WallGrid(origin_x, origin_y, cell, nx, ny, cell_start, cell_walls)
