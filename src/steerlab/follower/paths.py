"""Paths of the followers' batches: one vehicle's path, and every vehicle's packed in one set of
arrays (ragged paths: points concatenated, ``first`` / ``count`` per vehicle).

``_PathPack`` keeps the packed arrays on the Python side (paths replaced in place or appended);
the kernels read them as a ``_PackedPaths`` record and take vehicle ``i``'s path with
``_agent_path`` (views into the packed arrays, no copy).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from steerlab._jit import kernel
from steerlab.geometry.polyline import Polyline

__all__: list[str] = []


class _Path(NamedTuple):
    """One vehicle's path: ``points`` ``(m, 3)`` and ``cum`` (arc length from 0); the followers'
    paths lie in the ground plane (``z = 0``, planar arc length)."""

    points: np.ndarray
    cum: np.ndarray


class _PackedPaths(NamedTuple):
    """Every vehicle's path, packed: vehicle ``i``'s rows are ``first[i] : first[i] + count[i]``
    of ``points`` and ``cum`` (``_PathPack``)."""

    points: np.ndarray
    cum: np.ndarray
    first: np.ndarray
    count: np.ndarray


@kernel
def _agent_path(paths, i):
    """Vehicle ``i``'s ``_Path`` in the packed ``paths`` (views of its rows)."""
    start = paths.first[i]
    stop = start + paths.count[i]
    return _Path(paths.points[start:stop], paths.cum[start:stop])


class _PathPack:
    """Ragged paths packed for the batch kernel: one ``(rows, 3)`` array of points (``z = 0``),
    their arc lengths (each path from 0), and ``first`` / ``count`` per vehicle.

    ``replace(i, path)`` writes a path in place when it fits in vehicle ``i``'s slot (``count <=
    capacity``), else appends it at the end of the arrays (which grow geometrically), leaving the
    old slot unused; the arrays are compacted when unused rows outnumber the used ones. Cost: O(new
    path's points) amortised, O(all points) on a growth or a compaction.
    """

    def __init__(self, paths: Sequence[Polyline]):
        counts = np.array([path.points_3d.shape[0] for path in paths], dtype=np.int64)
        self.count = counts
        self.capacity = counts.copy()
        self.first = np.zeros(len(paths), dtype=np.int64)
        if len(paths) > 1:
            self.first[1:] = np.cumsum(counts[:-1])
        self.used = int(counts.sum())
        self.points = np.empty((self.used, 3))
        self.cum = np.empty(self.used)
        self.widths = np.full(self.used, np.nan)  # per segment, at its first point
        for index, path in enumerate(paths):
            self._write(index, path)

    @property
    def size(self) -> int:
        return self.count.size

    def _write(self, index: int, path: Polyline) -> None:
        start = self.first[index]
        stop = start + path.points_3d.shape[0]
        self.points[start:stop] = path.points_3d
        self.cum[start:stop] = path.cumulative_length
        self.widths[start:stop] = np.nan
        if path.widths is not None:
            self.widths[start : stop - 1] = path.widths
        self.count[index] = stop - start

    def replace(self, index: int, path: Polyline) -> None:
        rows = path.points_3d.shape[0]
        if rows > self.capacity[index]:
            if self.used + rows > self.points.shape[0]:
                live = int(self.count.sum()) - int(self.count[index]) + rows
                if live <= self.points.shape[0] // 2:
                    self._compact()
                if self.used + rows > self.points.shape[0]:
                    self._grow(max(2 * self.points.shape[0], self.used + rows))
            self.first[index] = self.used
            self.capacity[index] = rows
            self.used += rows
        self._write(index, path)

    def _grow(self, rows: int) -> None:
        points = np.empty((rows, 3))
        cum = np.empty(rows)
        widths = np.full(rows, np.nan)
        points[: self.used] = self.points[: self.used]
        cum[: self.used] = self.cum[: self.used]
        widths[: self.used] = self.widths[: self.used]
        self.points, self.cum, self.widths = points, cum, widths

    def _compact(self) -> None:
        order = np.argsort(self.first, kind="stable")
        position = 0
        points = np.empty_like(self.points)
        cum = np.empty_like(self.cum)
        widths = np.full_like(self.widths, np.nan)
        for index in order:
            start, rows = self.first[index], self.count[index]
            points[position : position + rows] = self.points[start : start + rows]
            cum[position : position + rows] = self.cum[start : start + rows]
            widths[position : position + rows] = self.widths[start : start + rows]
            self.first[index] = position
            self.capacity[index] = rows
            position += rows
        self.points, self.cum, self.widths = points, cum, widths
        self.used = position

    def polyline(self, index: int) -> Polyline:
        start, rows = self.first[index], self.count[index]
        widths = self.widths[start : start + rows - 1]
        return Polyline(
            self.points[start : start + rows, :2], None if np.isnan(widths).all() else widths
        )
