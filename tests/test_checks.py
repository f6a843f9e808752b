"""The public boundary's checks of the values every frame passes: a frame time and a state."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from steerlab._checks import check_state_record, check_timestep
from steerlab.engines import AgentState

numbers = st.floats(allow_nan=True, allow_infinity=True) | st.integers(-(10**6), 10**6)


@given(numbers | numbers.map(np.float64))
def test_a_frame_time_is_accepted_exactly_when_finite_and_positive(dt):
    if math.isfinite(dt) and dt > 0:
        assert check_timestep(dt) == float(dt) and type(check_timestep(dt)) is float
    else:
        with pytest.raises(ValueError, match=r"dt must be > 0 and finite"):
            check_timestep(dt)


@pytest.mark.parametrize("dt", ["0.1", None, [0.1, 0.2], True])
def test_a_frame_time_that_is_not_a_number_is_refused(dt):
    with pytest.raises(ValueError, match="dt"):
        check_timestep(dt)


@given(st.lists(numbers | st.sampled_from([1e308, -1e308, 5e-324]), min_size=5, max_size=5))
def test_a_state_passes_exactly_when_every_field_is_a_finite_number(values):
    """Floats that sum past the largest float (1e308 twice) are finite, and pass."""
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
        assert all(type(field) is float for field in checked)
