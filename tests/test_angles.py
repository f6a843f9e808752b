import math

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from steerlab.geometry import angles, sincos, wrap_2pi, wrap_pi

finite_angles = st.floats(-1e5, 1e5, allow_nan=False)


@given(finite_angles)
def test_wrap_pi_range_and_same_direction(angle):
    wrapped = wrap_pi(angle)
    assert -math.pi <= wrapped < math.pi
    # same direction: differs from the input by a whole number of turns
    turns = (angle - wrapped) / (2 * math.pi)
    assert abs(turns - round(turns)) < 1e-9 * max(1.0, abs(angle))


@given(finite_angles)
def test_wrap_2pi_range_and_same_direction(angle):
    wrapped = wrap_2pi(angle)
    assert 0.0 <= wrapped < 2 * math.pi
    turns = (angle - wrapped) / (2 * math.pi)
    assert abs(turns - round(turns)) < 1e-9 * max(1.0, abs(angle))


def test_wrap_pi_boundaries():
    assert wrap_pi(math.pi) == -math.pi
    assert wrap_pi(-math.pi) == -math.pi
    assert wrap_pi(3 * math.pi) == -math.pi
    assert wrap_pi(0.0) == 0.0
    assert wrap_pi(np.nextafter(math.pi, 0.0)) < math.pi
    assert wrap_pi(np.nextafter(-math.pi, -4.0)) < math.pi
    assert wrap_2pi(-5e-324) == 0.0
    assert wrap_2pi(2 * math.pi) == 0.0


def test_wrap_pi_array_matches_scalar():
    angles = np.random.default_rng(3).uniform(-100, 100, 1000).reshape(10, 100)
    wrapped = wrap_pi(angles)
    assert wrapped.shape == angles.shape
    assert all(wrapped.flat[i] == wrap_pi(angles.flat[i]) for i in range(angles.size))


@given(st.floats(-1e4, 1e4, allow_nan=False))
def test_sincos_matches_libm_within_a_few_ulp(angle):
    sine, cosine = sincos(angle)
    scale = max(1.0, abs(angle)) * 2.3e-16  # reduction error grows with |angle|
    assert abs(sine - math.sin(angle)) <= 2 * scale
    assert abs(cosine - math.cos(angle)) <= 2 * scale
    assert sine * sine + cosine * cosine == pytest.approx(1.0, abs=1e-15)


def test_sincos_exact_at_quadrant_points():
    for k in range(-8, 9):
        sine, cosine = sincos(k * math.pi / 2)
        assert sine == pytest.approx(math.sin(k * math.pi / 2), abs=1e-15)
        assert cosine == pytest.approx(math.cos(k * math.pi / 2), abs=1e-15)
    assert sincos(0.0) == (0.0, 1.0)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, "north"])
def test_bad_angles_raise(bad):
    with pytest.raises(ValueError, match="angle"):
        wrap_pi(bad)
    with pytest.raises(ValueError, match="angle"):
        sincos(bad)


def test_bad_angle_in_array_names_index():
    with pytest.raises(ValueError, match=r"angle\[2\]"):
        wrap_pi(np.array([0.0, 1.0, math.nan]))


@given(st.floats(-1e6, 1e6, allow_nan=False), st.floats(-1e6, 1e6, allow_nan=False))
@example(0.0, -0.0)
@example(-0.0, -0.0)
def test_atan2_matches_libm_within_a_few_ulp(y, x):
    from steerlab.geometry import atan2

    expected = math.atan2(y, x)
    if y == 0.0 and x < 0.0:  # signed zero: documented as pi for both zeros
        expected = math.pi
    if y == 0.0 and x == 0.0:  # documented: atan2(+-0, +-0) = 0 (libm gives +-pi for x = -0.0)
        expected = 0.0
    assert abs(atan2(y, x) - expected) <= 4 * 4.5e-16


def test_atan2_on_axes_and_diagonals():
    from steerlab.geometry import atan2

    for y, x in [
        (0.0, 1.0),
        (1.0, 0.0),
        (0.0, -1.0),
        (-1.0, 0.0),
        (1.0, 1.0),
        (-1.0, -1.0),
        (0.0, 0.0),
        (1e-300, 1.0),
        (1.0, 1e-300),
    ]:
        expected = math.pi if (y == 0.0 and x < 0.0) else math.atan2(y, x)
        assert atan2(y, x) == pytest.approx(expected, abs=1e-15)


@given(st.floats(-1.0, 1.0))
def test_asin_matches_libm(value):
    from steerlab.geometry.kernels import asin

    assert abs(asin(value) - math.asin(value)) <= 4.5e-16


@given(st.floats(allow_nan=False, allow_infinity=False))
@example(1e18)
@example(-1.7976931348623157e308)
def test_every_finite_angle_wraps_into_range_in_its_direction(angle):
    """Any finite angle, however large: in range, and the same direction as the angle reduced
    exactly by the float 2 pi (``math.fmod``), within the kernels' one-step rounding (a few ulp of
    the angle) up to the magnitude where the boundary reduces exactly first."""
    tolerance = 1e-12 + 1e-15 * min(abs(angle), angles._EXACT_ABOVE)
    pairs = ((wrap_pi(angle), -math.pi, math.pi), (wrap_2pi(angle), 0.0, 2 * math.pi))
    for wrapped, low, high in pairs:
        assert low <= wrapped < high
        turns = (math.fmod(angle, 2 * math.pi) - wrapped) / (2 * math.pi)
        assert abs(turns - round(turns)) < tolerance
    array = wrap_pi(np.array([angle, 1.0]))
    assert array[0] == wrap_pi(angle) and array[1] == wrap_pi(1.0)
