"""Per-agent parameters of the path followers: a batch whose vehicles each have their own
``FollowerParams`` equals each vehicle's scalar ``step`` with its own record, bit for bit, frame
after frame, for every variant (``steerlab._per_agent``, ``steerlab.follower.params.VARIANTS``).

The scalar step is the reference: ``_follow`` runs on records of plain numbers; the batch runs the
same kernel inside its loop on ``agent_params(records, i)``. Between frames a simple kinematic
model moves the vehicles from the batch's commands, and one vehicle is held still for a while, so
that the memories (projection window, integral, stuck window, recovery, arrival) change. Which
fields are arrays is a type to numba, so each variant is tested with two fixed patterns: every
field per vehicle, and one mixed.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from steerlab._per_agent import agent_params, per_agent_size
from steerlab.follower import (
    BaselineFollower,
    FollowerParams,
    PathFollower,
    RegulatedPurePursuitFollower,
    StanleyFollower,
)
from steerlab.vehicles.params import VehicleParams
from steerlab.vehicles.state import VehicleBatch, VehicleState

AGENTS = 4
FRAMES = 80
DT = 0.1
FOLLOWERS = (PathFollower, BaselineFollower, StanleyFollower, RegulatedPurePursuitFollower)


def _floats(low, high):
    return st.floats(low, high, allow_nan=False)


FIELDS = {
    "a_lat": _floats(0.1, 1.0),
    "dh": _floats(2.0, 10.0),
    "n": st.integers(2, 7),
    "v_min": _floats(0.5, 2.0),
    "v_max": _floats(5.0, 15.0),
    "stop_decel": _floats(1.0, 4.0),
    "arrival_radius": _floats(0.5, 3.0),
    "lookahead": _floats(2.0, 10.0),
    "lookahead_time": _floats(0.0, 1.0),
    "projection_back": _floats(1.0, 3.0),
    "projection_ahead": _floats(10.0, 30.0),
    "kp_speed": _floats(0.2, 1.0),
    "ti_speed": st.one_of(_floats(0.5, 5.0), st.just(math.inf)),
    "heading_gain": _floats(0.5, 2.0),
    "pure_pursuit_all": st.booleans(),
    "stuck_distance": _floats(0.5, 2.0),
    "stuck_window": _floats(0.5, 3.0),
    "recovery_frames": st.integers(0, 30),
    "teleport_after": st.integers(0, 2),
    "baseline_k": _floats(1.0, 4.0),
    "baseline_horizon": _floats(10.0, 40.0),
    "stanley_gain": _floats(0.5, 2.0),
    "stanley_softening": _floats(0.5, 2.0),
    "regulated_lookahead_time": _floats(0.5, 2.0),
    "regulated_min_lookahead": _floats(3.0, 6.0),
    "regulated_max_lookahead": _floats(8.0, 18.0),
    "regulated_min_radius": _floats(5.0, 20.0),
    "regulated_min_speed": _floats(1.0, 5.0),
    "regulated_approach_distance": _floats(5.0, 15.0),
    "regulated_approach_min_speed": _floats(0.5, 2.0),
}
assert set(FIELDS) == set(FollowerParams._fields)
MIXED_SHARED = frozenset(list(FollowerParams._fields)[::2])  # every other field shared

_THETA = np.linspace(0.0, 1.5 * math.pi, 30)
PATHS = (
    np.c_[np.linspace(0.0, 60.0, 12), np.zeros(12)],
    np.c_[25.0 * np.cos(_THETA), 25.0 * np.sin(_THETA)],
    np.c_[np.linspace(0.0, 50.0, 25), 6.0 * np.sin(np.linspace(0.0, 5.0, 25))],
    np.array([[0.0, 0.0], [20.0, 0.0], [20.0, 15.0], [5.0, 15.0]]),
)


def _params(shared):
    """A strategy of ``FollowerParams`` with one value per vehicle in every field but ``shared``
    (``v_min <= v_max`` and the regulated lookaheads ordered by the ranges drawn from)."""

    @st.composite
    def build(draw):
        values = {}
        for name, strategy in FIELDS.items():
            if name in shared:
                values[name] = draw(strategy)
            else:
                values[name] = np.array(draw(st.lists(strategy, min_size=AGENTS, max_size=AGENTS)))
        return FollowerParams(**values)

    return build()


def _own(params, i):
    """Vehicle ``i``'s own ``FollowerParams`` of plain values."""
    return type(params)(
        *(field[i].item() if isinstance(field, np.ndarray) else field for field in params)
    )


def _bits(value):
    return np.float64(value).tobytes()


def _check_batch_equals_scalars(cls, params, kind, offsets):
    vehicle = VehicleParams(kind=kind)
    batch_follower = cls(vehicle, params)
    batch_follower.set_paths(PATHS)
    alone = [cls(vehicle, _own(params, i), path=PATHS[i]) for i in range(AGENTS)]
    starts = np.array([path[0] for path in PATHS]) + np.array(offsets)
    batch = VehicleBatch(starts[:, 0], starts[:, 1], np.zeros(AGENTS), np.zeros(AGENTS))
    for frame in range(FRAMES):
        out = batch_follower.step_batch(batch, DT)
        for i, follower in enumerate(alone):
            command = follower.step(
                VehicleState(batch.x[i], batch.y[i], batch.yaw[i], batch.v[i]), DT
            )
            info = follower.info
            assert _bits(out.steer[i]) == _bits(command.steer), (frame, i)
            assert _bits(out.throttle[i]) == _bits(command.throttle), (frame, i)
            for name in ("target_speed", "target_x", "target_y", "s"):
                assert _bits(getattr(out, name)[i]) == _bits(getattr(info, name)), (frame, i, name)
            for name in ("stuck_event", "recovering", "teleport"):
                assert bool(getattr(out, name)[i]) == getattr(info, name), (frame, i, name)
            for name, value in zip(follower.memory._fields, follower.memory, strict=True):
                assert _bits(getattr(batch_follower.batch_memory, name)[i]) == _bits(value), (
                    frame,
                    i,
                    name,
                )
        # a kinematic bicycle, vehicle 0 held still from frame 20 to 50 (stuck)
        speed = np.clip(batch.v + 4.0 * out.throttle * DT, -5.0, 15.0)
        if 20 <= frame < 50:
            speed[0] = 0.0
        batch.v[:] = speed
        batch.yaw[:] = batch.yaw + speed * np.tan(0.5 * out.steer) / 2.5 * DT
        batch.x[:] = batch.x + speed * np.cos(batch.yaw) * DT
        batch.y[:] = batch.y + speed * np.sin(batch.yaw) * DT
        moved = out.teleport
        batch.x[moved] = out.teleport_x[moved]
        batch.y[moved] = out.teleport_y[moved]
        batch.yaw[moved] = out.teleport_yaw[moved]
        batch.v[moved] = 0.0


_offsets = st.lists(
    st.tuples(_floats(-3.0, 3.0), _floats(-3.0, 3.0)), min_size=AGENTS, max_size=AGENTS
)


@pytest.mark.parametrize("cls", FOLLOWERS, ids=lambda cls: cls.__name__)
@settings(max_examples=6, deadline=None)
@given(params=_params(()), kind=st.sampled_from((0, 1, 2)), offsets=_offsets)
def test_batch_with_every_field_per_vehicle_equals_each_scalar_step(cls, params, kind, offsets):
    _check_batch_equals_scalars(cls, params, kind, offsets)


@pytest.mark.parametrize("cls", FOLLOWERS, ids=lambda cls: cls.__name__)
@settings(max_examples=6, deadline=None)
@given(params=_params(MIXED_SHARED), kind=st.sampled_from((0, 1, 2)), offsets=_offsets)
def test_batch_with_some_fields_per_vehicle_equals_each_scalar_step(cls, params, kind, offsets):
    _check_batch_equals_scalars(cls, params, kind, offsets)


def test_records_read_per_vehicle_values_at_the_vehicle():
    params = FollowerParams(a_lat=[0.3, 0.5], ti_speed=[2.0, 3.0], pure_pursuit_all=[True, False])
    records = BaselineFollower(VehicleParams(), params).records
    assert per_agent_size(records) == 2
    second = agent_params(records, 1)
    assert second.target_speed.a_lat == 0.5
    assert second.speed_control.ti == math.inf  # the baseline's P loop, for every vehicle
    assert agent_params(records, 0).steering.law != second.steering.law
    assert second.stuck == records.stuck


def test_per_vehicle_values_are_checked_and_matched_to_the_batch():
    with pytest.raises(ValueError, match=r"follower_params.a_lat\[1\] must be > 0"):
        PathFollower(VehicleParams(), FollowerParams(a_lat=[0.4, -1.0]))
    with pytest.raises(ValueError, match=r"follower_params.v_min\[0\] must be <= v_max"):
        PathFollower(VehicleParams(), FollowerParams(v_min=[20.0, 1.0]))
    follower = PathFollower(VehicleParams(), FollowerParams(a_lat=[0.3, 0.5]), path=PATHS[0])
    with pytest.raises(ValueError, match="one value per parameter"):
        follower.step(VehicleState(), DT)
    batch = VehicleBatch(np.zeros(3), np.zeros(3), np.zeros(3))
    with pytest.raises(ValueError, match="2 values per field"):
        follower.step_batch(batch, DT)
