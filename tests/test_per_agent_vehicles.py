"""Per-agent vehicle parameters: a batch whose vehicles each have their own ``VehicleParams``
values (kind too) equals each vehicle's scalar step with its own record, bit for bit, on flat
ground (``Vehicle``) and in a walled world (``steerlab.sim``).

The scalar step is the reference: it runs the dynamics on a record of plain numbers; the batch
runs the same kernel inside its loop on ``agent_params(params, i)``. As in ``test_per_agent``,
two fixed patterns of per-agent and shared fields bound the compile time: every field per agent,
and one kind (with a few other fields) shared by the batch.
"""

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.strategies import each_agent, per_agent_patterns
from tests.test_world_vehicle import NEAR_WALLS, ROOM

from steerlab.sim import step_vehicle, step_vehicles
from steerlab.vehicles import (
    HOVER,
    TRACKED,
    WHEELED,
    DriveCommand,
    Vehicle,
    VehicleBatch,
    VehicleParams,
    VehicleState,
)

AGENTS = 6
SHARED = ("kind", "mass", "max_steer", "drag")  # the mixed pattern's shared fields

# physically sensible ranges (every draw passes VehicleParams.validated: cg_to_front < wheelbase)
vehicle_fields = {
    "kind": st.sampled_from((WHEELED, TRACKED, HOVER)),
    "mass": st.floats(200.0, 60_000.0),
    "yaw_inertia": st.floats(100.0, 200_000.0),
    "wheelbase": st.floats(2.0, 6.0),
    "cg_to_front": st.floats(0.3, 1.9),
    "half_length": st.floats(1.0, 3.0),
    "half_width": st.floats(0.5, 1.5),
    "max_steer": st.floats(0.1, 1.2),
    "steer_rate": st.floats(0.2, 5.0),
    "cornering_front": st.floats(1e4, 3e5),
    "cornering_rear": st.floats(1e4, 3e5),
    "mu": st.floats(0.2, 1.2),
    "engine_force": st.floats(1e3, 5e5),
    "engine_power": st.floats(1e4, 2e6),
    "brake_force": st.floats(0.0, 5e5),
    "rolling_resistance": st.floats(0.0, 0.1),
    "drag": st.floats(0.0, 5.0),
    "max_speed": st.one_of(st.floats(1.0, 80.0), st.just(math.inf)),
    "max_reverse_speed": st.one_of(st.floats(0.0, 20.0), st.just(math.inf)),
    "track_width": st.floats(1.0, 4.0),
    "lateral_friction": st.floats(0.0, 1.0),
    "max_yaw_rate": st.floats(0.2, 3.0),
    "rudder_torque": st.floats(0.0, 1e5),
    "yaw_thruster_torque": st.floats(0.0, 1e5),
    "yaw_damping": st.floats(10.0, 1e5),
    "side_drag": st.floats(0.0, 10.0),
}
assert set(vehicle_fields) == set(VehicleParams._fields)

fleet_params = per_agent_patterns(VehicleParams, vehicle_fields, AGENTS, shared=SHARED)
vehicle_states = st.builds(
    VehicleState,
    st.floats(-100.0, 100.0),
    st.floats(-100.0, 100.0),
    st.floats(-math.pi, math.pi, exclude_max=True),
    st.floats(-10.0, 30.0),
    st.floats(-3.0, 3.0),
    st.floats(-2.0, 2.0),
    st.floats(-1.2, 1.2),
)
drive_commands = st.builds(DriveCommand, st.floats(-1.0, 1.0), st.floats(-1.0, 1.0))


def bits(*values):
    """The bytes of a row of floats (bit-for-bit comparisons: -0.0 is not 0.0, NaN is NaN)."""
    return np.asarray(values, dtype=np.float64).tobytes()


@given(
    fleet_params,
    st.lists(vehicle_states, min_size=AGENTS, max_size=AGENTS),
    st.lists(drive_commands, min_size=AGENTS, max_size=AGENTS),
    st.floats(1e-3, 0.1),
)
def test_vehicle_batch_with_own_parameters_equals_each_scalar_step(params, starts, orders, dt):
    batch = VehicleBatch.from_states(starts)
    fleet = Vehicle(params)
    assert fleet.agents == AGENTS
    steer = [order.steer for order in orders]
    throttle = [order.throttle for order in orders]
    scalars = list(starts)
    for _ in range(3):
        fleet.step_batch(batch, steer, throttle, dt)
        for i in range(AGENTS):
            scalars[i] = Vehicle(each_agent(params, i)).step(scalars[i], orders[i], dt)
            assert bits(*batch.state(i)) == bits(*scalars[i])


@settings(max_examples=25)
@given(
    fleet_params,
    st.lists(
        st.tuples(NEAR_WALLS, st.floats(-math.pi, math.pi), st.floats(0.0, 15.0)),
        min_size=AGENTS,
        max_size=AGENTS,
    ),
    st.lists(drive_commands, min_size=AGENTS, max_size=AGENTS),
    st.floats(0.01, 0.1),
)
def test_world_batch_with_own_vehicle_parameters_equals_each_scalar_step(
    params, places, orders, dt
):
    starts = [VehicleState(x, y, heading, speed) for (x, y), heading, speed in places]
    batch = VehicleBatch.from_states(starts)
    steer = np.array([order.steer for order in orders])
    throttle = np.array([order.throttle for order in orders])
    scalars = list(starts)
    for _ in range(6):  # frames: the batch keeps its free discs, the scalar step none
        contacts = step_vehicles(params, ROOM, batch, steer, throttle, dt)
        for i in range(AGENTS):
            scalars[i], contact = step_vehicle(
                each_agent(params, i), ROOM, scalars[i], orders[i], dt
            )
            assert bool(contacts.hit[i]) is contact.hit
            assert bits(contacts.normal_x[i], contacts.normal_y[i]) == bits(*contact[1:])
            assert bits(*batch.state(i)) == bits(*scalars[i])


def test_a_fleet_record_serves_batches_of_its_size_only():
    fleet = Vehicle(VehicleParams(kind=[WHEELED, TRACKED, HOVER], mass=[1500.0, 4e4, 2e3]))
    assert fleet.agents == 3 and fleet.params.kind.dtype == np.int64
    with pytest.raises(ValueError, match=r"Vehicle\.step takes one value per parameter"):
        fleet.step(VehicleState(), DriveCommand(0.0, 1.0), 0.02)
    with pytest.raises(ValueError, match=r"VehicleParams\.kind holds 3 \(one per agent\)"):
        fleet.step(VehicleState(), DriveCommand(0.0, 1.0), 0.02, world=ROOM)
    with pytest.raises(ValueError, match="holds 3 values per field, one per agent, but the batch"):
        fleet.step_batch(VehicleBatch.from_states([VehicleState()] * 4), 0.0, 1.0, 0.02)
    with pytest.raises(ValueError, match="holds 3 values per field, one per agent, but the batch"):
        fleet.step_batch(VehicleBatch.from_states([VehicleState()] * 2), 0.0, 1.0, 0.02, ROOM)
    with pytest.raises(ValueError, match=r"step_vehicle takes one value per parameter"):
        step_vehicle(fleet.params, ROOM, VehicleState(), DriveCommand(0.0, 1.0), 0.02)
    with pytest.raises(ValueError, match="holds 3 values per field, one per agent, but the batch"):
        step_vehicles(
            fleet.params, ROOM, VehicleBatch.from_states([VehicleState()]), 0.0, 1.0, 0.02
        )
    assert repr(fleet) == "Vehicle(wheeled/tracked/hover, 3 vehicles, each its own values)"


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"mass": [1500.0, 1200.0, -1.0]}, "mass[2] must be > 0 and finite, got -1.0"),
        ({"kind": [0, 3]}, "kind[1] must be WHEELED (0), TRACKED (1) or HOVER (2), got 3"),
        ({"kind": [0, True]}, "kind[1] must be WHEELED (0), TRACKED (1) or HOVER (2), got True"),
        ({"kind": [[0]]}, "kind must be WHEELED (0), TRACKED (1) or HOVER (2) or a 1-D"),
        ({"max_steer": [0.5, 1.6]}, "max_steer[1] must be < pi/2 rad, got 1.6"),
        (
            {"wheelbase": [2.7, 2.0], "cg_to_front": 2.2},
            "cg_to_front must be in (0, wheelbase[1] = 2.0), got 2.2",
        ),
        (
            {"kind": [TRACKED, WHEELED], "cg_to_front": [5.0, 3.0]},
            "cg_to_front[1] must be in (0, wheelbase = 2.7), got 3.0",
        ),
        (
            {"max_reverse_speed": [math.inf, -1.0]},
            "max_reverse_speed[1] must be >= 0 (inf allowed)",
        ),
        ({"drag": [0.4, 0.4], "mu": [0.9]}, "mu has 1, drag has 2"),
    ],
)
def test_per_vehicle_values_are_checked_entry_by_entry(changes, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        Vehicle(VehicleParams()._replace(**changes))


def test_a_tracked_vehicle_ignores_cg_to_front_in_a_fleet_as_alone():
    fleet = VehicleParams(kind=[TRACKED, WHEELED], cg_to_front=[5.0, 1.2]).validated()
    assert fleet.cg_to_front.tolist() == [5.0, 1.2] and not fleet.cg_to_front.flags.writeable


def test_derived_values_of_a_fleet_are_each_vehicles_own():
    fleet = VehicleParams(wheelbase=[2.7, 4.0], max_steer=[0.6, 0.3]).validated()
    radii = fleet.min_turning_radius
    for i in range(2):
        assert radii[i] == each_agent(fleet, i).min_turning_radius
    assert fleet.kind_name == "wheeled"
