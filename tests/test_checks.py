"""The public boundary's checks of the values every frame passes: a frame time and a state."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from steerlab._checks import check_index, check_state_record, check_timestep
from steerlab.engines import AgentState, Command
from steerlab.engines.state import check_command

numbers = st.floats(allow_nan=True, allow_infinity=True) | st.integers(-(10**6), 10**6)


@given(numbers | numbers.map(np.float64))
def test_a_frame_time_is_accepted_exactly_when_finite_and_positive(dt):
    if math.isfinite(dt) and dt > 0:
        assert check_timestep(dt) == float(dt) and type(check_timestep(dt)) is float
    else:
        with pytest.raises(ValueError, match=r"dt must be > 0 and finite"):
            check_timestep(dt)


@pytest.mark.parametrize("dt", [10**400, -(10**400), 2**1024])
def test_a_frame_time_beyond_the_float_range_is_refused_by_name(dt):
    """An int too large for a float is not finite (was an OverflowError from ``float()``)."""
    with pytest.raises(ValueError, match="dt must be"):
        check_timestep(dt)


@pytest.mark.parametrize("dt", ["0.1", None, [0.1, 0.2], True])
def test_a_frame_time_that_is_not_a_number_is_refused(dt):
    with pytest.raises(ValueError, match="dt"):
        check_timestep(dt)


fields = numbers | st.sampled_from([1e308, -1e308, 5e-324]) | numbers.map(np.float64)


@given(st.lists(fields, min_size=5, max_size=5))
def test_a_state_passes_exactly_when_every_field_is_a_finite_number(values):
    """Python and NumPy floats, ints; floats that sum past the largest float are finite."""
    state = AgentState(*values)
    bad = [
        name
        for name, value in zip(AgentState._fields, values, strict=True)
        if not math.isfinite(value)
    ]
    if bad:
        with pytest.raises(ValueError, match=rf"state\.{bad[0]} must be finite"):
            check_state_record("state", state, AgentState)
    else:
        checked = check_state_record("state", state, AgentState)
        assert type(checked) is AgentState and checked == tuple(float(v) for v in values)
        assert all(isinstance(field, float) for field in checked)  # numba reads float64


def _same_heading_reduced(yaw: float) -> float:
    """``yaw`` modulo 2 pi (``math.fmod`` is exact), in ``[-pi, pi)``."""
    reduced = math.fmod(yaw, 2.0 * math.pi)
    if reduced >= math.pi:
        reduced -= 2.0 * math.pi
    elif reduced < -math.pi:
        reduced += 2.0 * math.pi
    return reduced


@given(fields, fields)
def test_a_command_passes_exactly_when_finite_with_a_speed_not_below_zero(yaw, speed):
    """Passes as given up to 2^40 rad; beyond, the same heading reduced exactly (a kernel's
    one-step wrap could not recover it)."""
    if math.isfinite(yaw) and math.isfinite(speed) and speed >= 0:
        checked = check_command(Command(yaw, speed))
        if abs(float(yaw)) <= 2.0**40:
            assert checked == (float(yaw), float(speed))
        else:
            assert checked.speed == float(speed)
            assert checked.yaw == pytest.approx(_same_heading_reduced(float(yaw)), abs=1e-12)
        assert all(isinstance(field, float) for field in checked)
    else:
        with pytest.raises(ValueError, match=r"command\.(yaw|speed) must be"):
            check_command(Command(yaw, speed))


def test_objects_of_the_wrong_kind_are_refused_at_the_boundary_with_the_argument_named():
    """A value of the wrong kind where a file, a list of paths or a world goes: ValueError naming
    the argument (these raised TypeError or AttributeError from inside)."""
    from steerlab.follower import PathFollower
    from steerlab.navigation import load_navdata
    from steerlab.vehicles import PRESETS, DriveCommand, Vehicle, VehicleBatch, VehicleState

    for path in (None, {"kind": ["waypoints"]}, 3):
        with pytest.raises(ValueError, match=r"^path must be a file path"):
            load_navdata(path)
    for paths in (None, 7, "abc"):
        with pytest.raises(ValueError, match=r"^paths must be a non-empty sequence"):
            PathFollower(PRESETS["storm"]).set_paths(paths)
    vehicle = Vehicle(PRESETS["storm"])
    with pytest.raises(ValueError, match=r"^world must be a steerlab\.world\.World"):
        vehicle.step(VehicleState(0.0, 0.0, 0.0, 1.0), DriveCommand(0.0, 0.5), 0.02, world="flat")
    with pytest.raises(ValueError, match=r"^world must be a steerlab\.world\.World"):
        vehicle.step_batch(VehicleBatch(*np.zeros((4, 3))), 0.0, 0.5, 0.02, world=object())


@given(st.integers(-(2**70), 2**70) | st.floats() | st.booleans() | st.none(), st.integers(0, 50))
def test_an_index_is_accepted_exactly_when_an_integer_in_range(value, count):
    inside = type(value) is int and 0 <= value < count
    for candidate in (
        (value, np.int64(value)) if type(value) is int and abs(value) < 2**62 else (value,)
    ):
        if inside:
            assert check_index("end", candidate, count) == value
        else:
            with pytest.raises(ValueError, match=rf"end must be an index in \[0, {count}\), got"):
                check_index("end", candidate, count)
