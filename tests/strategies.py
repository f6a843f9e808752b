"""Hypothesis strategies shared by the tests."""

import math

import numpy as np
from hypothesis import strategies as st

from steerlab.engines import AgentState, Command

coordinates = st.floats(-1e4, 1e4, allow_nan=False)
velocities = st.floats(-600.0, 600.0, allow_nan=False)
angles = st.floats(-4 * math.pi, 4 * math.pi, allow_nan=False)
yaws = st.floats(-math.pi, math.pi, allow_nan=False, exclude_max=True)
speeds = st.floats(0.0, 1000.0, allow_nan=False)
timesteps = st.floats(1e-3, 0.25, allow_nan=False)

states = st.builds(AgentState, coordinates, coordinates, velocities, velocities, yaws)
commands = st.builds(Command, angles, speeds)


def per_agent_records(record_class, fields: dict, size: int, shared=(), categorical=()):
    """A strategy of ``record_class`` records holding ``size`` values (one per agent) in every
    field but those named in ``shared``, which hold one value for all; a per-agent field named in
    ``categorical`` is a tuple of names, any other an array.

    Which fields are arrays is a type to numba (each pattern compiles the batch loop anew), so the
    tests fix the pattern: every field per agent, the general case, and one mixed pattern.
    """

    @st.composite
    def build(draw):
        values = {}
        for name, strategy in fields.items():
            if name in shared:
                values[name] = draw(strategy)
                continue
            entries = draw(st.lists(strategy, min_size=size, max_size=size))
            values[name] = tuple(entries) if name in categorical else np.array(entries)
        return record_class(**values)

    return build()


def each_agent(params, i):
    """Agent ``i``'s own record of plain values, built from a per-agent one."""
    return type(params)(
        *(
            field[i].item()
            if isinstance(field, np.ndarray)
            else (field[i] if isinstance(field, tuple) else field)
            for field in params
        )
    )


def per_agent_patterns(record_class, fields: dict, size: int, shared, categorical=()):
    """The two fixed patterns of ``per_agent_records`` the per-agent tests draw from: every field
    per agent, and the fields named in ``shared`` one value for all (each pattern compiles the
    batch loop once)."""
    return st.one_of(
        per_agent_records(record_class, fields, size, categorical=categorical),
        per_agent_records(record_class, fields, size, shared=shared, categorical=categorical),
    )
