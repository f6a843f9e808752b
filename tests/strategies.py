"""Hypothesis strategies shared by the engine tests."""

import math

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
