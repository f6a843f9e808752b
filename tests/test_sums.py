"""``steerlab._sums.numpy_sum``: numpy's own sum, bit for bit, in compiled code.

The independent route is numpy itself (``np.add.reduce`` on the same contiguous slice), over
hypothesis' arrays of every length the pairwise algorithm treats differently (below 8, one block
of up to 128, one split, several levels), values of mixed signs and scales, and slices that start
and stop anywhere. A plain left-to-right sum is shown to differ, so the test would catch a kernel
that summed in order."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from steerlab._sums import numpy_sum

finite = st.floats(allow_nan=False, allow_infinity=False, width=64)
scaled = st.builds(
    lambda mantissa, exponent: mantissa * 10.0**exponent,
    st.floats(-1.0, 1.0, allow_nan=False),
    st.integers(-12, 12),
)


def _bits(value: float) -> int:
    return int(np.array(value, dtype=np.float64).view(np.int64))


@given(st.lists(scaled, max_size=600))
def test_equals_numpy_sum_for_short_runs(values):
    array = np.array(values, dtype=np.float64)
    assert _bits(numpy_sum(array, 0, array.size)) == _bits(np.add.reduce(array))


@given(
    st.integers(0, 2**32 - 1),
    st.integers(0, 40_000),
    st.integers(0, 300),
    st.integers(0, 300),
)
def test_equals_numpy_sum_of_any_slice(seed, size, cut_start, cut_stop):
    rng = np.random.default_rng(seed)
    array = rng.standard_normal(size) * 10.0 ** rng.integers(-6, 7, size)
    start = min(cut_start, size)
    stop = max(start, size - cut_stop)
    expected = np.add.reduce(array[start:stop])
    assert _bits(numpy_sum(array, start, stop)) == _bits(expected)


@given(st.lists(finite, max_size=300))
def test_equals_numpy_sum_over_the_whole_float_range(values):
    array = np.array(values, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        expected = np.add.reduce(array)
    got = numpy_sum(array, 0, array.size)
    if np.isnan(expected):  # opposite infinities: NaN either way (payloads may differ)
        assert np.isnan(got)
    else:
        assert _bits(got) == _bits(expected)


@pytest.mark.parametrize("size", [0, 1, 7, 8, 9, 127, 128, 129, 136, 1000, 8192, 8193, 100_003])
def test_lengths_at_the_algorithm_edges(size):
    rng = np.random.default_rng(size)
    array = np.abs(rng.standard_normal(size)) * 1e3
    assert _bits(numpy_sum(array, 0, size)) == _bits(np.add.reduce(array))


def test_zeros_of_either_sign_sum_to_positive_zero():
    for size in (1, 10, 200):
        array = np.full(size, -0.0)
        assert _bits(numpy_sum(array, 0, size)) == _bits(np.add.reduce(array)) == _bits(0.0)


def test_a_left_to_right_sum_would_differ():
    """The check has teeth: numpy's order differs from a running sum on these values."""
    rng = np.random.default_rng(7)
    array = rng.standard_normal(5000) * 10.0 ** rng.integers(-6, 7, 5000)
    running = 0.0
    for value in array:
        running += float(value)
    assert running != np.add.reduce(array)
    assert numpy_sum(array, 0, array.size) == np.add.reduce(array)
