"""Vehicles in the world: terrain slope and walls around the vehicles' own dynamics kernel."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import steerlab._jit
from steerlab.sim import ContactBatch, step_vehicle, step_vehicles
from steerlab.vehicles import PRESETS, DriveCommand, Vehicle, VehicleBatch, VehicleState
from steerlab.vehicles.dynamics import _vehicle_dynamics
from steerlab.vehicles.params import GRAVITY
from steerlab.world import Walls, World, plane

WALL_X = 20.0
WALL = World(walls=Walls.from_segments([((WALL_X, -200.0), (WALL_X, 200.0))]))


def drive(vehicle, world, state, command, dt, frames):
    states = [state]
    for _ in range(frames):
        state = vehicle.step(state, command, dt, world=world)
        states.append(state)
    return states


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_full_throttle_into_a_wall_stops_at_it_and_never_crosses(name):
    vehicle = Vehicle(name)
    states = drive(vehicle, WALL, VehicleState(), DriveCommand(0.0, 1.0), 0.02, 600)
    # the box's front never goes past the wall (heading +x: its front is x + half_length)
    reach = max(s.x + vehicle.params.half_length for s in states)
    assert reach <= WALL_X + 1e-9
    final = states[-1]
    assert final.x == pytest.approx(WALL_X - vehicle.params.half_length, abs=1e-3)
    assert abs(final.v) < 0.5  # the speed into the wall is removed every frame


@settings(max_examples=25, deadline=None)
@given(
    st.sampled_from(sorted(PRESETS)),
    st.floats(-1.3, 1.3),
    st.floats(0.005, 0.1),
    st.floats(-1.0, 1.0),
)
def test_no_vehicle_crosses_the_wall(name, heading, dt, steer):
    vehicle = Vehicle(name)
    start = VehicleState(0.0, 0.0, heading, 25.0, 0.0, 0.0, 0.0)  # fast, towards the wall
    states = drive(vehicle, WALL, start, DriveCommand(steer, 1.0), dt, int(4.0 / dt))
    assert all(s.x < WALL_X for s in states)


def test_scraping_along_a_wall_keeps_the_tangential_motion():
    # heading 5 degrees into the wall under throttle: the box grinds along it, never through
    vehicle = Vehicle("bolte")
    start = VehicleState(WALL_X - 3.0, 0.0, math.radians(85.0), 8.0, 0.0, 0.0, 0.0)
    states = drive(vehicle, WALL, start, DriveCommand(0.0, 0.3), 0.02, 250)
    touching = [s for s in states if s.x > WALL_X - vehicle.params.half_width - 0.5]
    assert touching  # it reached the wall
    assert states[-1].y > 30.0  # and went on along it
    assert all(s.x < WALL_X for s in states)


def test_on_a_plane_the_world_step_is_the_dynamics_with_gravity_along_the_slope():
    # a plane rising 20 % along +x: a vehicle heading +x feels -g sin(atan(0.2)) forward
    slope = 0.2
    world = World(terrain=plane(slope, 0.0, (-100.0, 400.0), (-100.0, 100.0), 5.0))
    params = PRESETS["zaha"]
    state = VehicleState(0.0, 0.0, 0.0, 3.0, 0.0, 0.0, 0.0)
    vehicle = Vehicle(params)
    forward = -GRAVITY * math.sin(math.atan(slope))
    expected = state
    for _ in range(50):
        state = vehicle.step(state, DriveCommand(0.0, 0.5), 0.02, world=world)
        expected = _vehicle_dynamics(
            expected, DriveCommand(0.0, 0.5), vehicle.params, forward, 0.0, 0.02
        )
        assert state.x == pytest.approx(expected.x, rel=1e-12, abs=1e-12)
        assert state.v == pytest.approx(expected.v, rel=1e-12, abs=1e-12)


def test_hovercraft_slides_back_down_a_steep_hill():
    world = World(terrain=plane(0.3, 0.0, (-500.0, 500.0), (-100.0, 100.0), 10.0))
    states = drive(Vehicle("hovercraft"), world, VehicleState(), DriveCommand(0.0, 0.0), 0.02, 300)
    assert states[-1].x < -1.0 and states[-1].v < 0.0  # downhill is -x


@pytest.mark.parametrize("parallel", [False, True])
def test_batch_in_the_world_equals_scalar(parallel, monkeypatch):
    if parallel:
        monkeypatch.setattr(steerlab._jit, "SERIAL_LIMIT", 0)
    world = World(
        terrain=plane(0.1, 0.5, (-100.0, 100.0), (-100.0, 100.0), 4.0),
        walls=Walls.from_segments([((15.0, -50.0), (15.0, 50.0)), ((-50.0, 12.0), (50.0, 12.0))]),
    )
    vehicle = Vehicle("panhard_crab")
    rng = np.random.default_rng(4)
    starts = [
        VehicleState(float(x), float(y), float(h), 8.0, 0.0, 0.0, 0.0)
        for x, y, h in zip(
            rng.uniform(-5, 5, 6), rng.uniform(-5, 5, 6), rng.uniform(-3, 3, 6), strict=True
        )
    ]
    steer = rng.uniform(-1, 1, 6)
    throttle = rng.uniform(-0.2, 1, 6)
    batch = VehicleBatch.from_states(starts)
    scalars = list(starts)
    for _ in range(200):
        vehicle.step_batch(batch, steer, throttle, 0.02, world=world)
        scalars = [
            vehicle.step(s, DriveCommand(float(a), float(b)), 0.02, world=world)
            for s, a, b in zip(scalars, steer, throttle, strict=True)
        ]
    for i, state in enumerate(scalars):
        assert batch.state(i) == state


# --------------------------------------------------------------------------------------------
# steerlab.sim's frame: contacts
# --------------------------------------------------------------------------------------------

# a box room with a pillar: every vehicle below starts within a few metres of a wall
ROOM = World(
    terrain=plane(0.05, -0.1, (-30.0, 30.0), (-30.0, 30.0), 3.0),
    walls=Walls.from_polygons(
        [
            [(-12.0, -10.0), (12.0, -10.0), (12.0, 10.0), (-12.0, 10.0)],
            [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)],
        ]
    ),
)
# starting points near the room's walls and the pillar (inside the room, off the pillar)
NEAR_WALLS = st.one_of(
    st.tuples(st.floats(-9.0, 9.0), st.sampled_from([-7.5, 7.5])),
    st.tuples(st.sampled_from([-9.5, 9.5]), st.floats(-7.0, 7.0)),
    st.tuples(st.sampled_from([-4.0, 4.0]), st.floats(-4.0, 4.0)),
)
NEAR_WALL_VEHICLES = st.lists(
    st.tuples(
        NEAR_WALLS,
        st.floats(-math.pi, math.pi),  # heading
        st.floats(0.0, 15.0),  # speed
        st.floats(-1.0, 1.0),  # steer
        st.floats(-1.0, 1.0),  # throttle
    ),
    min_size=1,
    max_size=8,
)


def bits(*values):
    """The bytes of a row of floats or arrays (bit-for-bit comparisons: -0.0 is not 0.0)."""
    return b"".join(np.asarray(value, dtype=np.float64).tobytes() for value in values)


@pytest.mark.parametrize("parallel", [False, True])
@settings(max_examples=20, deadline=None)
@given(
    name=st.sampled_from(sorted(PRESETS)),
    vehicles=NEAR_WALL_VEHICLES,
    dt=st.floats(0.01, 0.1),
)
def test_batch_contacts_equal_the_scalar_steps_contacts_bit_for_bit(parallel, name, vehicles, dt):
    params = PRESETS[name]
    starts = [
        VehicleState(x, y, heading, speed, 0.0, 0.0, 0.0)
        for (x, y), heading, speed, _, _ in vehicles
    ]
    steer = np.array([row[3] for row in vehicles])
    throttle = np.array([row[4] for row in vehicles])
    batch = VehicleBatch.from_states(starts)
    contacts = ContactBatch.empty(batch.size)
    scalars = list(starts)
    previous = steerlab._jit.SERIAL_LIMIT
    steerlab._jit.SERIAL_LIMIT = 0 if parallel else previous
    try:
        for _ in range(12):  # frames: the batch's free discs are kept, the scalar keeps none
            assert step_vehicles(params, ROOM, batch, steer, throttle, dt, contacts) is contacts
            for i, state in enumerate(scalars):
                command = DriveCommand(float(steer[i]), float(throttle[i]))
                scalars[i], contact = step_vehicle(params, ROOM, state, command, dt)
                assert bool(contacts.hit[i]) is contact.hit
                assert bits(contacts.normal_x[i], contacts.normal_y[i]) == bits(
                    contact.normal_x, contact.normal_y
                )
                assert bits(*batch.state(i)) == bits(*scalars[i])
    finally:
        steerlab._jit.SERIAL_LIMIT = previous


def test_a_contact_reports_the_wall_normal_and_none_means_no_normal():
    # heading +x at full throttle into the wall at x = 20: its normal, towards the vehicle, is -x
    params = PRESETS["storm"]
    state = VehicleState(0.0, 0.0, 0.0, 10.0, 0.0, 0.0, 0.0)
    contacts = []
    for _ in range(300):
        state, contact = step_vehicle(params, WALL, state, DriveCommand(0.0, 1.0), 0.02)
        contacts.append(contact)
    touching = [c for c in contacts if c.hit]
    assert touching and contacts[-1].hit  # it reached the wall and stays against it
    assert all((c.normal_x, c.normal_y) == (-1.0, 0.0) for c in touching)
    assert all((c.normal_x, c.normal_y) == (0.0, 0.0) for c in contacts if not c.hit)
    # the first frame was far from the wall: no contact
    assert not contacts[0].hit


def test_the_entry_points_are_the_sim_frame():
    # Vehicle.step / step_batch (world=) and World.step_vehicle / step_vehicle_batch give
    # steerlab.sim's states and hit flags
    vehicle = Vehicle("bolte")
    start = VehicleState(WALL_X - 3.0, 0.0, 0.2, 12.0, 0.0, 0.0, 0.0)
    command = DriveCommand(0.1, 1.0)
    state, _ = step_vehicle(vehicle.params, WALL, start, command, 0.02)
    assert vehicle.step(start, command, 0.02, world=WALL) == state
    assert WALL.step_vehicle(vehicle.params, start, command, 0.02) == state
    batch = VehicleBatch.from_states([start] * 3)
    steer, throttle = np.full(3, 0.1), np.full(3, 1.0)  # validated by its caller, Vehicle
    hits = []
    for _ in range(30):
        hits.append(WALL.step_vehicle_batch(vehicle.params, batch, steer, throttle, 0.02).copy())
    mirror = VehicleBatch.from_states([start] * 3)
    for frame in range(30):
        contacts = step_vehicles(vehicle.params, WALL, mirror, 0.1, 1.0, 0.02)
        assert np.array_equal(contacts.hit, hits[frame])
    assert any(h.all() for h in hits)
    assert bits(*batch.fields()) == bits(*mirror.fields())


@pytest.mark.parametrize(
    ("arguments", "name"),
    [
        ({"vehicle_params": "storm"}, "vehicle_params"),
        ({"vehicle_params": PRESETS["storm"]._replace(mass=-1.0)}, "mass"),
        ({"world": "flat"}, "world"),
        ({"state": (0.0, 0.0)}, "state"),
        ({"command": DriveCommand(2.0, 0.0)}, "command.steer"),
        ({"dt": 0.0}, "dt"),
    ],
)
def test_step_vehicle_rejects_bad_arguments_by_name(arguments, name):
    call = {
        "vehicle_params": PRESETS["storm"],
        "world": WALL,
        "state": VehicleState(),
        "command": DriveCommand(0.0, 0.0),
        "dt": 0.02,
        **arguments,
    }
    with pytest.raises(ValueError, match=name):
        step_vehicle(**call)


@pytest.mark.parametrize(
    ("arguments", "name"),
    [
        ({"vehicle_params": None}, "vehicle_params"),
        ({"world": None}, "world"),
        ({"batch": VehicleState()}, "batch"),
        ({"steer": np.zeros(3)}, "steer"),
        ({"throttle": np.array([0.0, 1.5])}, "throttle"),
        ({"contacts": ContactBatch.empty(3)}, "contacts"),
        ({"contacts": (np.zeros(2, dtype=bool), np.zeros(2), np.zeros(2))}, "contacts"),
        ({"contacts": ContactBatch(np.zeros(2), np.zeros(2), np.zeros(2))}, "contacts"),
    ],
)
def test_step_vehicles_rejects_bad_arguments_by_name(arguments, name):
    call = {
        "vehicle_params": PRESETS["storm"],
        "world": WALL,
        "batch": VehicleBatch.from_states([VehicleState()] * 2),
        "steer": 0.0,
        "throttle": 0.0,
        "dt": 0.02,
        **arguments,
    }
    with pytest.raises(ValueError, match=name):
        step_vehicles(**call)
