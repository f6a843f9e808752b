"""``steerlab`` command-line interface (typer)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

app = typer.Typer(
    name="steerlab",
    help="Steering and path following for game-AI agents and ground vehicles.",
    no_args_is_help=True,
    add_completion=False,
)
console = Console()

SEEDS_WITH_FIGURES = ("000", "001", "002", "003", "004")
BENCH_SUITES = ("engines", "laws", "navigation")
BENCH_TITLES = {
    "engines": "Engine speed",
    "laws": "Law + BaseEngine speed",
    "navigation": "Navigator + Half-Life speed",
}


@app.command()
def bench(
    out: Annotated[Path, typer.Option(help="Directory for the report files.")] = Path("out"),
    suite: Annotated[str, typer.Option(help=f"Benchmark to run: {', '.join(BENCH_SUITES)}.")] = (
        "engines"
    ),
    quick: Annotated[bool, typer.Option(help="Smaller sizes and budgets (smoke test).")] = False,
) -> None:
    """Run the default benchmark and write its report (markdown and JSON) to OUT."""
    if suite not in BENCH_SUITES:
        raise typer.BadParameter(f"suite must be one of {BENCH_SUITES}, got {suite!r}")
    from steerlab.bench import speed

    # quick: sizes under steerlab._jit.SERIAL_LIMIT, so only the serial builds compile
    sizes = (1_000, 4_000) if quick else speed.BATCH_SIZES
    budget = 0.02 if quick else 0.3
    agents = 200 if quick else 2_000
    with console.status("measuring") as status:
        if suite == "engines":
            rows = speed.run_engine_benchmark(
                sizes=sizes,
                python_agents=agents,
                scalar_agents=agents,
                budget=budget,
                progress=lambda message: status.update(message),
            )
        elif suite == "laws":
            rows = speed.run_law_benchmark(
                sizes=sizes,
                python_agents=agents,
                budget=budget,
                progress=lambda message: status.update(message),
            )
        else:
            from steerlab.bench.speed_navigation import NAVIGATION_SIZES, run_navigation_benchmark

            rows = run_navigation_benchmark(
                sizes=sizes if quick else NAVIGATION_SIZES,
                python_agents=min(agents, 500),
                budget=budget,
                progress=lambda message: status.update(message),
            )
    info = speed.machine()
    title = BENCH_TITLES[suite]
    table = Table(title=f"{title}, agent-steps/s")
    for column in (
        "case",
        "plain Python",
        "scalar step",
        "batch per core",
        "batch all cores",
        "batch/Python",
    ):
        table.add_column(column, justify="left" if column == "case" else "right", no_wrap=True)
    summary = speed.summarize(rows)
    for entry in summary:
        table.add_row(
            entry["engine"],
            f"{entry['python_steps_per_s']:,.0f}",
            f"{entry['scalar_steps_per_s']:,.0f}",
            f"{entry['batch_per_core_steps_per_s']:,.0f}",
            f"{entry['batch_all_cores_steps_per_s']:,.0f}",
            f"{entry['batch_per_core_over_python']:,.0f}x",
        )
    console.print(table)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{suite}.md").write_text(speed.render_markdown(rows, info, title=title))
    report = {"machine": info, "summary": summary, "rows": [row._asdict() for row in rows]}
    (out / f"{suite}.json").write_text(json.dumps(report, indent=2))
    console.print(f"report: {out / (suite + '.md')}, {out / (suite + '.json')}")


@app.command()
def figures(
    seed: Annotated[str, typer.Option(help=f"Seed whose figures to draw: {SEEDS_WITH_FIGURES}.")],
    out: Annotated[Path, typer.Option(help="Directory for the figures.")] = Path("out/figures"),
    svg: Annotated[bool, typer.Option(help="Also write SVG.")] = False,
) -> None:
    """Regenerate a seed's figures (PNG, SVG on request)."""
    if seed not in SEEDS_WITH_FIGURES:
        raise typer.BadParameter(f"seed must be one of {SEEDS_WITH_FIGURES}, got {seed!r}")
    from steerlab.plot import seed000, seed001, seed002, seed003, seed004

    formats = ("png", "svg") if svg else ("png",)
    modules = {"000": seed000, "001": seed001, "002": seed002, "003": seed003, "004": seed004}
    module = modules[seed]
    paths = module.make_figures(out, formats=formats)
    for path in paths:
        console.print(str(path))


@app.command()
def fidelity(
    seed: Annotated[str, typer.Option(help=f"Seed whose claims to measure: {SEEDS_WITH_FIGURES}.")],
    fast: Annotated[bool, typer.Option(help="Coarser grids (seconds instead of minutes).")] = False,
    out: Annotated[Path | None, typer.Option(help="Also write the markdown here.")] = None,
) -> None:
    """Measure, by simulation, each claim a seed makes; print the tables (markdown)."""
    if seed not in SEEDS_WITH_FIGURES:
        raise typer.BadParameter(f"seed must be one of {SEEDS_WITH_FIGURES}, got {seed!r}")
    if seed == "000":
        from steerlab.bench import fidelity000

        text = fidelity000.render_markdown(fidelity000.measure_seed000(fast=fast))
    elif seed == "001":
        from steerlab.bench import fidelity001, vehicle_classes

        text = (
            fidelity001.render_markdown()
            + "\n"
            + vehicle_classes.render_markdown(vehicle_classes.measure_vehicle_classes())
        )
    elif seed == "002":
        from steerlab.bench import fidelity002

        text = fidelity002.render_markdown(fidelity002.measure_seed002(fast=fast), fast=fast)
    elif seed == "003":
        from steerlab.bench import fidelity003

        text = fidelity003.render_markdown(fidelity003.measure_seed003(fast=fast))
    else:
        from steerlab.bench import fidelity004

        text = fidelity004.render_markdown(fidelity004.measure_seed004(fast=fast))
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text)
    typer.echo(text)


funnel_app = typer.Typer(help="Funnelling control (seed 003): the T_eta table.")
app.add_typer(funnel_app, name="funnel")


@funnel_app.command("build-table")
def funnel_build_table(
    cache_dir: Annotated[
        Path | None,
        typer.Option(help="Cache directory (default: $STEERLAB_CACHE_DIR or ~/.cache/steerlab)."),
    ] = None,
    force: Annotated[bool, typer.Option(help="Rebuild even if the cache holds the table.")] = False,
) -> None:
    """Build (or find in the cache) the T_eta table of the default unicycle and seek gains."""
    from rich.progress import BarColumn, Progress, TaskProgressColumn, TimeElapsedColumn

    from steerlab.funnel import EtaTable

    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        TaskProgressColumn(),
        TimeElapsedColumn(),
        console=console,
    ) as progress:
        task = progress.add_task("seek runs", total=None)
        built = []

        def report(done: int, total: int) -> None:
            built.append(done)
            progress.update(task, completed=done, total=total)

        table = EtaTable.load_or_build(cache_dir=cache_dir, rebuild=force, progress=report)
    how = f"built in {table.build_seconds:.2f} s" if built else "found in the cache"
    console.print(f"{table!r}: {how}")
    console.print(f"file: {table.source}")


def main() -> None:
    app()
