"""Engine speed: agent-steps/s of BaseEngine and Half-Life, plain Python vs scalar vs batch.

Run: ``.venv/bin/python benchmarks/engines.py`` (or ``steerlab bench``, which also writes the
report to ``out/``). One process; per-core figures are measured with one numba thread.
"""

from steerlab.experiments.speed import machine, render_markdown, run_engine_benchmark

if __name__ == "__main__":
    rows = run_engine_benchmark(progress=lambda message: print(message, flush=True))
    print(render_markdown(rows, machine()))
