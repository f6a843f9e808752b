"""``geometry.kernels.python_hypot``: Python's own ``math.hypot``, bit for bit, in compiled code.

The independent route is the interpreter's ``math.hypot`` itself, over random pairs of several
scales, every bit pattern hypothesis draws and a grid of edge values (zeros, subnormals, the
largest float, infinities, NaN). ``numpy.hypot`` (C's ``hypot``) is shown to differ, so the test
would catch a kernel that fell back to it."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from steerlab.geometry.kernels import PYTHON_HYPOT_EXACT, python_hypot

pytestmark = pytest.mark.skipif(
    not PYTHON_HYPOT_EXACT, reason="python_hypot follows CPython 3.11's math.hypot"
)

EDGES = (
    0.0,
    -0.0,
    5e-324,
    -5e-324,
    1e-320,
    2.0**-1024,
    2.0**-1023,
    2.0**-1022,
    1.5 * 2.0**-1022,
    3e-308,
    1e-200,
    0.5,
    1.0,
    3.0,
    4.0,
    1e200,
    2.0**1021,
    1.5 * 2.0**1021,
    2.0**1022,
    2.0**1023,
    1.7976931348623157e308,
    -1.7976931348623157e308,
    math.inf,
    -math.inf,
    math.nan,
)


def same_bits(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return np.float64(a).view(np.int64) == np.float64(b).view(np.int64)


def pairs(seed: int, count: int):
    """Pairs of floats of the scales a trial's speeds take and of every exponent."""
    rng = np.random.default_rng(seed)
    forward = rng.uniform(-30.0, 30.0, count)
    yield forward, rng.normal(0.0, 1.0, count)  # speeds with sideslip
    yield forward, forward * rng.uniform(-1e-3, 1e-3, count)  # a small lateral part
    yield (
        np.ldexp(rng.uniform(-1.0, 1.0, count), rng.integers(-1075, 1024, count)),
        np.ldexp(rng.uniform(-1.0, 1.0, count), rng.integers(-1075, 1024, count)),
    )
    yield rng.uniform(-1e-310, 1e-310, count), rng.uniform(-1e-310, 1e-310, count)  # subnormal


def test_random_pairs_give_math_hypots_bits():
    differing = []
    for xs, ys in pairs(seed=11, count=50_000):
        for x, y in zip(xs.tolist(), ys.tolist(), strict=True):
            if not same_bits(python_hypot(x, y), math.hypot(x, y)):
                differing.append((x, y))
    assert not differing, differing[:5]


def test_edge_values_give_math_hypots_bits():
    for x, y in itertools.product(EDGES, EDGES):
        assert same_bits(python_hypot(x, y), math.hypot(x, y)), (x, y)


@given(st.floats(allow_nan=True, allow_infinity=True), st.floats(allow_nan=True))
def test_any_floats_give_math_hypots_bits(x, y):
    assert same_bits(python_hypot(x, y), math.hypot(x, y))


def test_c_hypot_differs_so_the_comparison_can_fail():
    xs, ys = next(pairs(seed=12, count=200_000))
    python = np.array([math.hypot(x, y) for x, y in zip(xs.tolist(), ys.tolist(), strict=True)])
    assert (np.hypot(xs, ys) != python).any()
