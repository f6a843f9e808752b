"""Per-agent parameters of the funnel (seed 003): a batch whose entities each have their own
parameter values (and their own targets) equals each entity's scalar controller with its own
record, bit for bit, frame after frame, through the serial and the parallel build
(``steerlab._per_agent``).

The scalar step is the reference: its kernel runs on a record of plain numbers; the batch runs the
same kernel inside its loop on ``agent_params(params, i)``. Between frames a ``Unicycle`` with the
same per-entity bounds moves the entities (its batch equals its scalar step,
``tests/test_per_agent.py``), so that the controllers' memories (orbit detection, current target,
clock) change. Which fields are arrays is a type to numba, so each controller is tested with two
patterns, each through one build (each pattern and build is a compile of its own): the seek
controller with every field per entity (no table) through the serial build and with one desired
speed per entity (a table: the plant and the gains are its key) through the parallel build, the
funnel with some settings shared through the serial build and with every setting per entity
through the parallel build.
"""

import contextlib
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.strategies import each_agent, per_agent_records

import steerlab._jit
from steerlab.engines import Unicycle, UnicycleParams, UnicycleState
from steerlab.engines.unicycle import UnicycleBatch
from steerlab.funnel import (
    EtaTable,
    Funnel,
    FunnelSettings,
    SeekController,
    SeekControllerParams,
    SeekParams,
    TableGrid,
)

AGENTS = 5
FRAMES = 40
TABLE = EtaTable.build(
    grid=TableGrid(
        distance_max=8.0,
        distance_count=4,
        alpha_count=8,
        angular_count=3,
        speed_count=3,
        desired_count=3,
    )
)
SPEED_MAX = TABLE.unicycle.speed_max

unicycle_fields = {name: st.floats(0.1, 10.0) for name in UnicycleParams._fields}
gain_fields = {
    "k_angle": st.floats(1.0, 40.0),
    "k_damping": st.floats(0.5, 20.0),
    "tau_speed": st.floats(0.05, 2.0),
    "orbit_turn": st.floats(1.0, 20.0),
}
funnel_fields = {
    "desired_speed": st.one_of(st.floats(0.05, SPEED_MAX), st.just(math.inf)),
    "d_tol": st.floats(0.05, 1.0),
    "eps_tol": st.floats(0.05, math.pi),
    "halt": st.booleans(),
    "arrival_decel": st.one_of(st.floats(0.1, 5.0), st.just(math.inf)),
}
timesteps = st.floats(0.02, 0.25)


def _values(strategy):
    return st.lists(strategy, min_size=AGENTS, max_size=AGENTS).map(np.array)


points = st.lists(
    st.tuples(st.floats(-6.0, 6.0), st.floats(-6.0, 6.0)), min_size=AGENTS, max_size=AGENTS
).map(np.array)
starts = st.lists(
    st.builds(
        UnicycleState,
        st.floats(-6.0, 6.0),
        st.floats(-6.0, 6.0),
        st.floats(-math.pi, math.pi, exclude_max=True),
        st.floats(0.0, 0.1),
        st.floats(-0.5, 0.5),
    ),
    min_size=AGENTS,
    max_size=AGENTS,
)


@st.composite
def every_field_per_entity(draw):
    """A pure seek controller's record with one value per entity in every field; each desired
    speed within its entity's ``speed_max`` (``inf`` stands for it)."""
    unicycle = draw(per_agent_records(UnicycleParams, unicycle_fields, AGENTS))
    gains = draw(per_agent_records(SeekParams, gain_fields, AGENTS))
    fractions = draw(_values(st.one_of(st.floats(0.05, 1.0), st.just(math.inf))))
    return SeekControllerParams(fractions * unicycle.speed_max, unicycle, gains)


def _own(params, i):
    """Entity ``i``'s ``SeekControllerParams`` of plain values."""
    desired = params.desired_speed
    return SeekControllerParams(
        desired[i].item() if isinstance(desired, np.ndarray) else desired,
        each_agent(params.unicycle, i),
        each_agent(params.seek, i),
    )


@contextlib.contextmanager
def build_forced(build):
    """The serial build (5 entities), or the parallel one (``SERIAL_LIMIT`` 0)."""
    with pytest.MonkeyPatch.context() as patch:
        if build == "parallel":
            patch.setattr(steerlab._jit, "SERIAL_LIMIT", 0)
        yield


def _check_against_scalar(batch_controller, scalar_controllers, plant, starts, dt):
    """``FRAMES`` frames of controller then plant: the batch's accelerations (and modes) equal
    each scalar controller's."""
    batch = UnicycleBatch.from_states(starts)
    states = list(starts)
    plants = [Unicycle(each_agent(plant.params, i)) for i in range(AGENTS)]
    out = None
    for _ in range(FRAMES):
        out = batch_controller.step_batch(batch, dt, out)
        for i, controller in enumerate(scalar_controllers):
            command = controller.step(states[i], dt)
            assert (out.accel[i], out.angular_accel[i]) == tuple(command), i
            if isinstance(controller, Funnel):
                assert out.mode[i] == controller.mode, i
            states[i] = plants[i].step(states[i], command, dt)
        plant.step_batch(batch, out.accel, out.angular_accel, dt)
    assert [batch.state(i) for i in range(AGENTS)] == states


SEEK_PATTERNS = {
    "serial": every_field_per_entity(),
    "parallel": _values(st.floats(0.05, SPEED_MAX)).map(
        lambda speeds: SeekControllerParams(speeds, TABLE.unicycle, TABLE.seek)
    ),
}
FUNNEL_PATTERNS = {
    "serial": per_agent_records(
        FunnelSettings, funnel_fields, AGENTS, shared=("desired_speed", "halt")
    ),
    "parallel": per_agent_records(FunnelSettings, funnel_fields, AGENTS),
}


@pytest.mark.parametrize("build", ["serial", "parallel"])
@settings(max_examples=20, deadline=None)
@given(st.data(), points, starts, timesteps)
def test_seek_batch_with_own_parameters_equals_each_scalar_controller(
    build, data, targets, starts, dt
):
    params = data.draw(SEEK_PATTERNS[build])
    table = TABLE if np.ndim(params.unicycle.speed_max) == 0 else None  # v_d alone per entity
    batch_controller = SeekController.from_params(targets, params, table)
    singles = [
        SeekController.from_params(targets[i], _own(params, i), table) for i in range(AGENTS)
    ]
    with build_forced(build):
        _check_against_scalar(batch_controller, singles, Unicycle(params.unicycle), starts, dt)
    assert batch_controller.batch_orbiting.tolist() == [s.orbiting for s in singles]


@pytest.mark.parametrize("build", ["serial", "parallel"])
@settings(max_examples=20, deadline=None)
@given(
    st.data(),
    points,
    _values(st.floats(-math.pi, math.pi)),
    points.map(lambda velocities: 0.05 * velocities),
    starts,
    timesteps,
)
def test_funnel_batch_with_own_settings_equals_each_scalar_funnel(
    build, data, targets, courses, velocities, starts, dt
):
    record = data.draw(FUNNEL_PATTERNS[build])
    batch_funnel = Funnel.from_params(TABLE, targets, courses, record, target_velocity=velocities)
    singles = [
        Funnel.from_params(
            TABLE, targets[i], courses[i], each_agent(record, i), target_velocity=velocities[i]
        )
        for i in range(AGENTS)
    ]
    with build_forced(build):
        _check_against_scalar(batch_funnel, singles, Unicycle(TABLE.unicycle), starts, dt)
    assert batch_funnel.batch_target_index.tolist() == [s.target_index for s in singles]


def test_the_public_constructors_build_the_records():
    seek = SeekController((1.0, 2.0), table=TABLE)
    assert seek.params == SeekControllerParams(SPEED_MAX, TABLE.unicycle, TABLE.seek)
    assert SeekController((1.0, 2.0), 1.5).params.desired_speed == 1.5
    funnel = Funnel(TABLE, (1.0, 2.0), 0.5, d_tol=0.3)
    accel_max = TABLE.unicycle.accel_max
    assert funnel.settings == FunnelSettings(
        SPEED_MAX, 0.3, math.radians(10.0), True, accel_max / 2
    )
    assert Funnel.from_params(TABLE, (1.0, 2.0), 0.5, FunnelSettings(d_tol=0.3)).settings == (
        funnel.settings
    )
    per_entity = Funnel.from_params(TABLE, np.zeros((2, 2)), 0.0, FunnelSettings(d_tol=[0.2, 0.4]))
    assert per_entity.settings.d_tol.tolist() == [0.2, 0.4] and per_entity.agents == 2


def test_per_entity_records_refuse_a_scalar_step_and_a_batch_of_another_size():
    seek = SeekController.from_params((0.0, 0.0), SeekControllerParams([1.0, 1.5, 2.0]))
    with pytest.raises(ValueError, match=r"SeekController\.step takes one value per parameter"):
        seek.step(UnicycleState(1.0), 0.1)
    with pytest.raises(ValueError, match="holds 3 values per field, one per agent, but the batch"):
        seek.step_batch(UnicycleBatch(np.zeros(4), np.zeros(4), np.zeros(4)), 0.1)
    with pytest.raises(ValueError, match="target holds 2 targets but SeekControllerParams holds 3"):
        SeekController.from_params(np.zeros((2, 2)), SeekControllerParams([1.0, 1.5, 2.0]))
    funnel = Funnel(TABLE, (1.0, 2.0), 0.0, eps_tol=[0.1, 0.2])
    with pytest.raises(ValueError, match=r"Funnel\.step takes one value per parameter"):
        funnel.step(UnicycleState(), 0.1)
    with pytest.raises(ValueError, match="FunnelSettings holds 2 values per field"):
        funnel.step_batch(UnicycleBatch(np.zeros(3), np.zeros(3), np.zeros(3)), 0.1)
    with pytest.raises(ValueError, match="targets for 3 entities but FunnelSettings holds 2"):
        funnel.set_target(np.zeros((3, 2)), 0.0)


def test_the_fields_that_select_the_table_refuse_one_value_per_entity():
    per_entity = UnicycleParams(speed_max=[2.0, 2.0])
    with pytest.raises(ValueError, match=r"unicycle\.speed_max must be one value: the T_eta"):
        SeekController((0.0, 0.0), table=TABLE, unicycle=per_entity)
    with pytest.raises(ValueError, match=r"seek\.k_angle must be one value: the T_eta"):
        SeekController.from_params(
            (0.0, 0.0),
            SeekControllerParams(1.0, TABLE.unicycle, SeekParams(k_angle=[16.0, 16.0])),
            TABLE,
        )
    with pytest.raises(ValueError, match=r"seek\.k_damping must be one value: the T_eta"):
        EtaTable.build(seek=SeekParams(k_damping=[8.0, 4.0]), grid=TABLE.grid)
    with pytest.raises(ValueError, match="unicycle parameters differ from the table's"):
        SeekController.from_params(
            (0.0, 0.0),
            SeekControllerParams(1.0),
            EtaTable.build(UnicycleParams(speed_max=1.5), grid=TABLE.grid),
        )


def test_per_entity_values_are_checked_entry_by_entry():
    with pytest.raises(ValueError, match=r"desired_speed\[1\] must be <= speed_max = 2\.0"):
        SeekController.from_params((0.0, 0.0), SeekControllerParams([1.0, 2.5]))
    with pytest.raises(ValueError, match=r"desired_speed\[0\] must be <= speed_max = 1\.0"):
        SeekController.from_params(
            (0.0, 0.0), SeekControllerParams(1.5, UnicycleParams(speed_max=[1.0, 2.0]))
        )
    with pytest.raises(ValueError, match=r"eps_tol\[1\] must be <= pi"):
        Funnel(TABLE, (0.0, 0.0), 0.0, eps_tol=[0.5, 4.0])
    with pytest.raises(ValueError, match=r"d_tol\[0\] must be > 0"):
        Funnel(TABLE, (0.0, 0.0), 0.0, d_tol=[0.0, 4.0])
    with pytest.raises(ValueError, match=r"halt\[1\] must be True or False"):
        Funnel(TABLE, (0.0, 0.0), 0.0, halt=[True, 1.0])
    with pytest.raises(ValueError, match="every per-agent field of FunnelSettings"):
        Funnel(TABLE, (0.0, 0.0), 0.0, d_tol=[0.2, 0.3], eps_tol=[0.1, 0.2, 0.3])
