"""Vehicles of seed 001: the measured class table (docs/fidelity.md, "Seed 001: vehicle classes"),
then agent-steps/s of every preset, plain Python vs scalar ``step`` vs ``step_batch`` on 1e5
vehicles (per core: one numba thread).

Run: ``.venv/bin/python benchmarks/vehicles.py``. The plain-Python figure runs the same kernels
uncompiled (``steerlab._jit.uncompiled``).
"""

from steerlab.experiments.speed import machine, render_markdown
from steerlab.experiments.speed_vehicles import run_vehicle_benchmark
from steerlab.experiments.vehicle_classes import measure_vehicle_classes
from steerlab.experiments.vehicle_classes import render_markdown as render_classes

if __name__ == "__main__":
    print(render_classes(measure_vehicle_classes()))
    rows = run_vehicle_benchmark(progress=lambda message: print(message, flush=True))
    print(render_markdown(rows, machine(), title="Vehicle dynamics speed"))
