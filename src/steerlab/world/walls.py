"""Walls: 2-D line segments that footprints cannot cross.

A wall is a closed segment ``A-B`` in the ground plane, solid from both sides. A polygon is the
ring of its edges (an obstacle seen from outside, a room seen from inside: the segments do not
know which). A zero-length wall (``A == B``) is a point obstacle: footprints collide with the
point, as with the end of any wall; it never makes anything fail.

``Walls`` is an immutable set of segments stored as four float64 arrays ``ax, ay, bx, by``
(struct of arrays, what the kernels take). Sets combine with ``+``. ``walls_along`` (module
``steerlab.world.corridor``) builds the walls of a path's corridor.
"""

from __future__ import annotations

import numpy as np

from steerlab._checks import as_float_array

__all__ = ["Walls"]


class Walls:
    """An immutable set of wall segments [m].

    Parameters
    ----------
    ax, ay, bx, by : array_like, shape (n,)
        Ends ``A = (ax, ay)`` and ``B = (bx, by)`` of each segment [m], finite. Prefer the
        constructors ``from_segments`` and ``from_polygons``.

    Raises
    ------
    ValueError
        Arrays of different lengths or not finite (the message names the array and the index).
    """

    def __init__(self, ax, ay, bx, by):
        arrays = []
        for name, values in (("ax", ax), ("ay", ay), ("bx", bx), ("by", by)):
            array = as_float_array(name, values, "an array of numbers", copy=True).reshape(-1)
            arrays.append(array)
        sizes = {array.size for array in arrays}
        if len(sizes) != 1:
            raise ValueError(
                f"ax, ay, bx, by must have the same length, got {[a.size for a in arrays]}"
            )
        for name, array in zip(("ax", "ay", "bx", "by"), arrays, strict=True):
            finite = np.isfinite(array)
            if not finite.all():
                index = int(np.argmin(finite))
                raise ValueError(f"{name}[{index}] must be finite, got {float(array[index])!r}")
            array.flags.writeable = False
        self._ax, self._ay, self._bx, self._by = arrays

    @classmethod
    def from_segments(cls, segments) -> Walls:
        """Walls from segments: an array of shape ``(n, 2, 2)`` or a list of ``((x0, y0), (x1,
        y1))`` [m]. Zero-length segments are kept (point obstacles); ``n = 0`` gives no walls.

        Raises
        ------
        ValueError
            Wrong shape; a non-finite coordinate (the message gives ``segments[i]``).
        """
        array = as_float_array(
            "segments", segments, "an (n, 2, 2) array of ((x0, y0), (x1, y1))", copy=True
        )
        if array.size == 0:
            array = array.reshape(0, 2, 2)
        if array.ndim != 3 or array.shape[1:] != (2, 2):
            raise ValueError(
                f"segments must have shape (n, 2, 2): ((x0, y0), (x1, y1)) each, got {array.shape}"
            )
        finite = np.isfinite(array).all(axis=(1, 2))
        if not finite.all():
            index = int(np.argmin(finite))
            raise ValueError(f"segments[{index}] must be finite, got {array[index].tolist()!r}")
        return cls(array[:, 0, 0], array[:, 0, 1], array[:, 1, 0], array[:, 1, 1])

    @classmethod
    def from_polygons(cls, polygons) -> Walls:
        """Walls along the edges of closed rings.

        Parameters
        ----------
        polygons : sequence of array_like, each of shape (k, 2)
            Vertices [m] of each ring in order (either orientation). The ring is closed from the
            last vertex back to the first; a repeated first vertex at the end is accepted and
            dropped. Each ring needs at least 3 vertices and a non-zero area (not all on one
            line). Repeated consecutive vertices are dropped.

        Raises
        ------
        ValueError
            A ring of the wrong shape, with a non-finite vertex, fewer than 3 distinct vertices or
            zero area (the message gives ``polygons[i]``).
        """
        if isinstance(polygons, np.ndarray) and polygons.ndim == 2:
            raise ValueError(
                "polygons must be a list of (k, 2) rings; wrap a single ring in a list, got an "
                f"array of shape {polygons.shape}"
            )
        segments = []
        for index, ring in enumerate(polygons):
            name = f"polygons[{index}]"
            vertices = as_float_array(name, ring, "a (k, 2) array of vertices", copy=True)
            if vertices.ndim != 2 or vertices.shape[1] != 2:
                raise ValueError(f"{name} must have shape (k, 2), got {vertices.shape}")
            finite = np.isfinite(vertices).all(axis=1)
            if not finite.all():
                bad = int(np.argmin(finite))
                raise ValueError(f"{name}[{bad}] must be finite, got {vertices[bad].tolist()!r}")
            keep = np.ones(len(vertices), dtype=bool)
            keep[1:] = (np.diff(vertices, axis=0) != 0.0).any(axis=1)
            vertices = vertices[keep]
            if len(vertices) > 1 and (vertices[0] == vertices[-1]).all():
                vertices = vertices[:-1]
            if len(vertices) < 3:
                raise ValueError(
                    f"{name} must have at least 3 distinct vertices, got {len(vertices)}: "
                    f"{vertices.tolist()!r}"
                )
            x, y = vertices[:, 0], vertices[:, 1]
            # shoelace, in coordinates relative to the first vertex (no cancellation far away)
            rx, ry = x - x[0], y - y[0]
            twice_area = float(np.dot(rx, np.roll(ry, -1)) - np.dot(ry, np.roll(rx, -1)))
            scale = float(np.ptp(x) + np.ptp(y))
            if not abs(twice_area) > 1e-12 * scale * scale:
                raise ValueError(
                    f"{name} is degenerate (zero area: its vertices lie on one line), got "
                    f"{vertices.tolist()!r}"
                )
            ends = np.roll(vertices, -1, axis=0)
            segments.append(np.stack((vertices, ends), axis=1))
        if not segments:
            return cls.empty()
        return cls.from_segments(np.concatenate(segments))

    @classmethod
    def empty(cls) -> Walls:
        """No walls."""
        return cls((), (), (), ())

    # -- data ---------------------------------------------------------------------------------

    @property
    def ax(self) -> np.ndarray:
        """x [m] of each wall's first end, read-only."""
        return self._ax

    @property
    def ay(self) -> np.ndarray:
        """y [m] of each wall's first end, read-only."""
        return self._ay

    @property
    def bx(self) -> np.ndarray:
        """x [m] of each wall's second end, read-only."""
        return self._bx

    @property
    def by(self) -> np.ndarray:
        """y [m] of each wall's second end, read-only."""
        return self._by

    @property
    def segments(self) -> np.ndarray:
        """The walls as a new ``(n, 2, 2)`` array ``((ax, ay), (bx, by))`` [m]."""
        return np.stack((np.stack((self._ax, self._ay), 1), np.stack((self._bx, self._by), 1)), 1)

    @property
    def lengths(self) -> np.ndarray:
        """Length [m] of each wall."""
        return np.hypot(self._bx - self._ax, self._by - self._ay)

    def __len__(self) -> int:
        return self._ax.size

    def __add__(self, other: Walls) -> Walls:
        if not isinstance(other, Walls):
            return NotImplemented
        return Walls(
            np.concatenate((self._ax, other._ax)),
            np.concatenate((self._ay, other._ay)),
            np.concatenate((self._bx, other._bx)),
            np.concatenate((self._by, other._by)),
        )

    def __repr__(self) -> str:
        return f"Walls({len(self)} segments)"
