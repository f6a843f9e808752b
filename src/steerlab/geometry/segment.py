"""The closest point of 2-D segments, for NumPy arrays: the kernel over broadcast arrays."""

from __future__ import annotations

import numpy as np

from steerlab._checks import as_float_array
from steerlab.geometry import kernels

__all__ = ["closest_on_segments"]


def closest_on_segments(ax, ay, bx, by, px, py) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The point of each segment ``AB`` closest to ``P``, and its distance to ``P``.

    The kernel ``steerlab.geometry.kernels.closest_on_segment`` (``C = A + t (B - A)``, ``t``
    the projection of ``P`` clamped to ``[0, 1]``; a zero-length segment is the point ``A``)
    applied elementwise to arrays broadcast against each other, as NumPy broadcasts: the same
    bits as the kernel called one element at a time.

    Parameters
    ----------
    ax, ay, bx, by : array_like
        Ends ``A`` and ``B`` of the segments [m].
    px, py : array_like
        The points [m].

    Returns
    -------
    (cx, cy, distance) : three float64 arrays of the broadcast shape
        The closest points [m] and their distances to ``P`` [m].

    Raises
    ------
    ValueError
        An argument that is not a finite number or array, or arrays that do not broadcast.
    """
    names = ("ax", "ay", "bx", "by", "px", "py")
    arrays = []
    for name, value in zip(names, (ax, ay, bx, by, px, py), strict=True):
        array = as_float_array(name, value, "a number or an array of numbers")
        finite = np.isfinite(array)
        if not finite.all():
            index = np.unravel_index(int(np.argmin(finite)), array.shape)
            label = ", ".join(str(int(i)) for i in index)
            raise ValueError(f"{name}[{label}] must be finite, got {float(array[index])!r}")
        arrays.append(array)
    try:
        shape = np.broadcast_shapes(*(array.shape for array in arrays))
    except ValueError:
        pairs = zip(names, arrays, strict=True)
        shapes = ", ".join(f"{name} {array.shape}" for name, array in pairs)
        raise ValueError(f"ax, ay, bx, by, px, py must broadcast together, got {shapes}") from None
    flat = [np.ascontiguousarray(np.broadcast_to(array, shape)).ravel() for array in arrays]
    out = [np.empty(flat[0].size) for _ in range(3)]
    kernels.closest_on_segment_array(*flat, *out)
    return tuple(array.reshape(shape) for array in out)
