"""Navigators of seed 002 + Half-Life: agent-steps/s per frame (navigator then engine), plain
Python vs scalar vs batch, 1e5 agents each on its own route.

Run: ``.venv/bin/python benchmarks/navigation.py`` (or ``steerlab bench --suite navigation``).
One process; per-core figures with one numba thread; the plain-Python figure runs the same
kernels uncompiled (``steerlab._jit.uncompiled``). Target (issue 5): AlongSegments v2 +
Half-Life, 1e5 agents on different routes, >= 5 M agent-steps/s per core.
"""

from steerlab.experiments.speed import machine, render_markdown
from steerlab.experiments.speed_navigation import run_navigation_benchmark

if __name__ == "__main__":
    rows = run_navigation_benchmark(progress=lambda message: print(message, flush=True))
    print(render_markdown(rows, machine(), title="Navigator + Half-Life speed"))
