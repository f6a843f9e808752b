"""Seed 001's path follower: Algorithm 1 alone, and the followers (follower only, and follower +
Vehicle on flat ground), agent-steps/s; plain Python vs scalar vs batch, 1e5 vehicles each on
its own path.

Run: ``.venv/bin/python benchmarks/follower.py``. One process; per-core figures with one numba
thread; the plain-Python figure runs the same kernels uncompiled (``steerlab._jit.uncompiled``).
Targets (issue 6): Algorithm 1 alone (N = 5) >= 10 M calls/s per core batched; follower +
bicycle vehicle + world with walls, 1e5 vehicles on different paths, >= 2 M agent-steps/s per
core (the world is not in this benchmark).
"""

from steerlab.experiments.speed import machine
from steerlab.experiments.speed_follower import render_follower_markdown, run_follower_benchmark

if __name__ == "__main__":
    rows = run_follower_benchmark(progress=lambda message: print(message, flush=True))
    print(render_follower_markdown(rows, machine()))
