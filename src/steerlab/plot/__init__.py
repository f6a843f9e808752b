"""Plots: the seeds' figures regenerated, trajectories, speed and error over time."""
