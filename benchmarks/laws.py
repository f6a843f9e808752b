"""Guidance laws + BaseEngine: agent-steps/s per frame (law then engine), plain Python vs scalar
vs batch, every law of seed 000.

Run: ``.venv/bin/python benchmarks/laws.py``. One process; per-core figures with one numba
thread; the plain-Python figure runs the same kernels uncompiled (``steerlab._jit.uncompiled``).
"""

from steerlab.experiments.speed import machine, render_markdown, run_law_benchmark

if __name__ == "__main__":
    rows = run_law_benchmark(progress=lambda message: print(message, flush=True))
    print(render_markdown(rows, machine(), title="Law + BaseEngine speed"))
