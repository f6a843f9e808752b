"""Benchmarks and measurements: speed of the kernels, fidelity to the seeds, suites."""
