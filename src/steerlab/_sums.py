"""numpy's sum of float64 values, bit for bit, as a kernel.

``numpy_sum(values, start, stop)`` is what ``np.add.reduce`` (``np.sum``, and the sum inside
``ndarray.mean``) returns for the contiguous float64 array ``values[start:stop]``, so that compiled
code reduces per-frame records to the same figures as the numpy expressions that define them
(``steerlab.trials.observer.reduce_frames``).

numpy's algorithm for a contiguous float64 reduction (``pairwise_sum`` in
``numpy/_core/src/umath/loops_utils.h.src``, the ``DOUBLE_add`` reduce loop): the result is add's
identity ``0.0`` plus the pairwise sum of all ``n`` values, where the pairwise sum of a run of
``n`` values is

- ``n < 8``: a plain loop from ``0.0``;
- ``n <= 128`` (``PW_BLOCKSIZE``): eight accumulators started at the first eight values, each
  adding every eighth value while a whole group of eight remains, combined as ``((r0 + r1) + (r2 +
  r3)) + ((r4 + r5) + (r6 + r7))``, then the remaining values added one by one;
- otherwise the sum of the first ``n2`` values plus the sum of the rest, ``n2`` half of ``n``
  rounded down to a multiple of 8.

The recursion is written as a loop over an explicit stack (a run of ``n`` values needs about
``log2(n / 128)`` levels; the stack holds 64, beyond any array that fits in memory).
``tests/test_sums.py`` checks the kernel against numpy itself.
"""

from __future__ import annotations

import numpy as np

from steerlab._jit import kernel

__all__ = ["numpy_sum"]

_BLOCK = 128  # numpy's PW_BLOCKSIZE
_DEPTH = 64  # levels of the explicit stack


@kernel
def _block_sum(values, low, n):
    """numpy's pairwise sum of the run ``values[low : low + n]``, ``n <= 128`` (module
    docstring)."""
    if n < 8:
        total = 0.0
        for i in range(low, low + n):
            total += values[i]
        return total
    r0 = values[low]
    r1 = values[low + 1]
    r2 = values[low + 2]
    r3 = values[low + 3]
    r4 = values[low + 4]
    r5 = values[low + 5]
    r6 = values[low + 6]
    r7 = values[low + 7]
    i = low + 8
    whole = low + n - n % 8
    while i < whole:
        r0 += values[i]
        r1 += values[i + 1]
        r2 += values[i + 2]
        r3 += values[i + 3]
        r4 += values[i + 4]
        r5 += values[i + 5]
        r6 += values[i + 6]
        r7 += values[i + 7]
        i += 8
    total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < low + n:
        total += values[i]
        i += 1
    return total


@kernel
def _left_size(n):
    """The size of the first half of a run of ``n > 128`` values: ``n // 2`` rounded down to a
    multiple of 8."""
    half = n // 2
    return half - half % 8


@kernel
def numpy_sum(values, start, stop):
    """``np.add.reduce(values[start:stop])`` bit for bit (module docstring); ``values`` a 1-D
    float64 array, ``0 <= start <= stop <= values.size``."""
    n = stop - start
    if n <= _BLOCK:
        return 0.0 + _block_sum(values, start, n)
    lows = np.empty(_DEPTH, dtype=np.int64)
    sizes = np.empty(_DEPTH, dtype=np.int64)
    lefts = np.empty(_DEPTH)  # a split run's first half's sum, once known
    right = np.zeros(_DEPTH, dtype=np.bool_)  # a split run whose second half is running
    depth = 0
    lows[0] = start
    sizes[0] = n
    while True:
        size = sizes[depth]
        if size > _BLOCK:  # split: run the first half
            right[depth] = False
            lows[depth + 1] = lows[depth]
            sizes[depth + 1] = _left_size(size)
            depth += 1
            continue
        total = _block_sum(values, lows[depth], size)
        while True:  # hand the sum up to the runs waiting for it
            depth -= 1
            if depth < 0:
                return 0.0 + total
            if right[depth]:  # both halves done
                total = lefts[depth] + total
                continue
            lefts[depth] = total  # the first half done: run the second
            right[depth] = True
            half = _left_size(sizes[depth])
            lows[depth + 1] = lows[depth] + half
            sizes[depth + 1] = sizes[depth] - half
            depth += 1
            break
