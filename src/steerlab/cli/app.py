"""``steerlab`` command-line interface (typer).

One style for every command (``steerlab.cli.style``): each error is one line ``error: MESSAGE``
on stderr, and the exit code says what happened: 0 done, 1 the run failed (an error of the library
while it ran), 2 refused before anything ran (the command line is wrong: usage, an unknown name,
with the nearest known one, a missing file or folder), 130 interrupted. Long commands show their
progress on stderr; stdout holds only the result. A seed text (``000`` to ``004``) is a
positional argument (``steerlab figures 000``); ``--seed`` is a random seed wherever it appears.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from steerlab.cli.style import (
    EXIT_CODES,
    EXIT_INTERRUPTED,
    Failure,
    OneLineErrors,
    must_exist,
    notice,
    stage,
    unknown,
    usage_error,
)

app = typer.Typer(
    name="steerlab",
    cls=OneLineErrors,
    help="Steering and path following for game-AI agents and ground vehicles.",
    epilog=EXIT_CODES,
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode="markdown",  # help paragraphs reflowed to the terminal's width
)
console = Console()

SEEDS_WITH_FIGURES = ("000", "001", "002", "003", "004")
SPEED_SUITES = ("engines", "laws", "navigation")  # speed benchmarks: scripts of benchmarks/
# shipped suites of trials (steerlab.trials.suite: hand-made and generated paths), or a file
TABLE1_SUITES = ("table1", "train", "generated", "train_generated")
EXTERNAL_SUITE = "external"  # third-party simulators (steerlab.experiments.benchmark.external)
RACETRACKS_SUITE = "racetracks"  # real circuits (steerlab.experiments.benchmark.racetracks)
MAPS_SUITE = "maps"  # real bot nav data (steerlab.experiments.benchmark.maps)


def _print_version(asked: bool) -> None:
    if asked:
        from steerlab import __version__

        typer.echo(f"steerlab {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Steering and path following for game-AI agents and ground vehicles."""


def _check_suite(suite: str, names: Sequence[str]) -> None:
    """Refuse (exit code 2) a suite that is neither one of ``names`` nor an existing file: a
    path (a suffix or a folder in it) is "not found", a name is unknown (with the nearest)."""
    if suite in names or Path(suite).is_file():
        return
    if Path(suite).suffix or "/" in suite or "\\" in suite:
        raise usage_error(f"suite file {suite!r} not found")
    raise unknown("suite", suite, names, " or a suite file")


def _check_names(value: str | None, what: str, names: Sequence[str]) -> None:
    """Refuse (exit code 2) an unknown name in ``value``, a comma-separated list of ``what``
    (names, or ``.toml`` files of the user's own: refused when missing)."""
    for name in (part.strip() for part in (value or "").split(",")):
        if name.lower().endswith(".toml"):
            if not Path(name).is_file():
                raise usage_error(f"{what} file {name!r} not found")
        elif name and name not in names:
            raise unknown(what, name, names, f" or a {what} file (.toml)")


def _resumable(out: Path, run):
    """``run()``'s result; an interrupt exits (130) saying that the same command resumes (the
    finished work stays in ``out``)."""
    try:
        return run()
    except KeyboardInterrupt:
        raise Failure(
            f"interrupted; the finished work is in {out}: rerun the same command to resume",
            EXIT_INTERRUPTED,
        ) from None


@app.command(epilog=EXIT_CODES)
def bench(
    out: Annotated[Path, typer.Option(help="Directory for the results and the report.")] = Path(
        "out"
    ),
    suite: Annotated[
        str,
        typer.Option(
            help="Table I suite (table1, train, generated, train_generated or a suite file), the "
            "third-party simulators "
            f"({EXTERNAL_SUITE}), real circuits ({RACETRACKS_SUITE}) or real bot nav data "
            f"({MAPS_SUITE}). Speed benchmarks are the scripts of the source checkout's "
            "benchmarks/ (docs/performance.md)."
        ),
    ] = "table1",
    quick: Annotated[
        bool,
        typer.Option(
            help="Table I: 3 paths x 6 vehicles x baseline/ours x 1 seed (under a minute); "
            "external: one path per plant x baseline/ours x 1 seed."
        ),
    ] = False,
    workers: Annotated[
        int | None,
        typer.Option(min=1, help="Table I, external: worker processes (default: the cores)."),
    ] = None,
    ray: Annotated[bool, typer.Option(help="Table I: run the trials on a local Ray.")] = False,
    ray_address: Annotated[
        str | None, typer.Option(help="Table I: run the trials on the Ray cluster at ADDR.")
    ] = None,
    seeds: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Table I: spawn seeds per trial (default: the suite's, 3); external: seeds per "
            "plant (CarRacing: tracks; default the record's: 20 tracks, 3 spawns).",
        ),
    ] = None,
    vehicles: Annotated[
        str | None,
        typer.Option(
            help="Table I, racetracks: vehicles, comma-separated: presets or vehicle files "
            "(.toml: name and VehicleParams fields; default: the six presets)."
        ),
    ] = None,
    followers: Annotated[
        str | None,
        typer.Option(
            help="Table I, racetracks: followers, comma-separated: names or follower files (.toml: "
            "name, follower and FollowerParams fields; default: every one available; ours_tuned "
            "when the tuned presets of all vehicles exist; the ablations baseline_pi, ours_p "
            "only when named)."
        ),
    ] = None,
    tuned_dir: Annotated[
        Path | None,
        typer.Option(help="Table I: folder of ours_tuned's presets (default: the shipped one)."),
    ] = None,
    figures: Annotated[bool, typer.Option(help="Table I: draw the report's figures.")] = True,
    tracks: Annotated[
        str | None,
        typer.Option(
            help=f"{RACETRACKS_SUITE}: circuit files (TUM racetrack database CSV), "
            "comma-separated (default: the three shipped)."
        ),
    ] = None,
    maps: Annotated[
        str | None,
        typer.Option(
            help=f"{MAPS_SUITE}: bot nav data files (.wpt, .graph, .toml, .json), "
            "comma-separated (default: the thirteen shipped JK_Botti maps)."
        ),
    ] = None,
    protocol: Annotated[
        str,
        typer.Option(
            help="Table I: v1, the literal reproduction; v2, the protocol file "
            "protocols/table1_v2.toml (feasible pairs, stall episodes per km, constants by rule, "
            "sensitivity fronts, ablations, intervals over paths: its suites, vehicles, followers "
            "and seeds are the file's); v3 (make bench), v2 with every other free constant swept "
            "one at a time (protocols/table1_v3.toml); or a protocol file (.toml)."
        ),
    ] = "v1",
) -> None:
    """Run a benchmark and write its report to OUT.

    Default: seed 001's Table I on the table1 suite (results.csv, summary.json, table1.md,
    table1.html, figures/, report.html); an interrupted run resumes when rerun with the same
    options. --suite external: steerlab's followers on Gymnasium CarRacing, PyBullet's racecar and
    CommonRoad KS/ST (results.csv, summary.json, external.md, external.html; needs the plants
    extra). Speed benchmarks are scripts of the source checkout: python benchmarks/engines.py
    (and laws, navigation, ...; docs/performance.md). --suite racetracks: one lap of real
    circuits per vehicle and follower (results.csv, summary.json, racetracks.md, racetracks.html).
    --suite maps: seeded routes over real bot nav data driven by seed 002's navigators on a
    Half-Life bot (results.csv, summary.json, maps.md, maps.html). --protocol v2 or v3: Table I
    version 2 or 3 (results.csv, summary.json, table1_v2.md, report.html, figures/pareto.png).
    """
    if protocol != "v1":
        given = {
            "--suite": suite != "table1",
            "--seeds": seeds is not None,
            "--vehicles": vehicles is not None,
            "--followers": followers is not None,
            "--tracks": tracks is not None,
            "--maps": maps is not None,
        }
        misplaced = [name for name, used in given.items() if used]
        if misplaced:
            raise usage_error(
                f"--protocol {protocol}: {', '.join(misplaced)} are the protocol file's choices"
            )
        must_exist("--tuned-dir", tuned_dir, folder=True)
        _v2_bench(out, protocol, quick, workers, ray, ray_address, tuned_dir, figures)
        return
    if suite == MAPS_SUITE:
        given = {
            "--ray": ray,
            "--ray-address": ray_address is not None,
            "--seeds": seeds is not None,
            "--no-figures": not figures,
            "--vehicles": vehicles is not None,
            "--followers": followers is not None,
            "--tuned-dir": tuned_dir is not None,
            "--tracks": tracks is not None,
        }
        _refuse_options(given, f"do not apply to the {MAPS_SUITE} suite")
        _maps_bench(out, maps, quick, workers)
        return
    _refuse_options({"--maps": maps is not None}, f"only applies to --suite {MAPS_SUITE}")
    if suite == RACETRACKS_SUITE:
        given = {
            "--ray": ray,
            "--ray-address": ray_address is not None,
            "--seeds": seeds is not None,
            "--no-figures": not figures,
        }
        _refuse_options(given, f"do not apply to the {RACETRACKS_SUITE} suite")
        must_exist("--tuned-dir", tuned_dir, folder=True)
        _racetracks_bench(out, tracks, vehicles, followers, quick, workers, tuned_dir)
        return
    _refuse_options({"--tracks": tracks is not None}, f"only applies to --suite {RACETRACKS_SUITE}")
    if suite == EXTERNAL_SUITE:
        given = {
            "--ray": ray,
            "--ray-address": ray_address is not None,
            "--vehicles": vehicles is not None,
            "--followers": followers is not None,
            "--tuned-dir": tuned_dir is not None,
            "--no-figures": not figures,
        }
        _refuse_options(given, "do not apply to the external suite")
        _external_bench(out, quick, workers, seeds)
        return
    if suite in SPEED_SUITES:
        raise usage_error(
            f"--suite {suite}: the speed benchmarks are scripts of the source checkout, not of the "
            f"package: run `python benchmarks/{suite}.py` from the repository's root "
            "(figures and protocol: docs/performance.md)"
        )
    _check_suite(suite, (*TABLE1_SUITES, EXTERNAL_SUITE, RACETRACKS_SUITE, MAPS_SUITE))
    must_exist("--tuned-dir", tuned_dir, folder=True)
    from steerlab.experiments.benchmark.table1 import run_table1, select_trials
    from steerlab.experiments.benchmark.table1_figures import make_figures
    from steerlab.trials.followers import ABLATIONS, FOLLOWERS
    from steerlab.vehicles import PRESETS

    _check_names(vehicles, "vehicle", tuple(PRESETS))
    _check_names(followers, "follower", FOLLOWERS + ABLATIONS)
    try:  # the checks a run makes before it starts: empty lists, presets of ours_tuned, the suite
        select_trials(
            suite,
            vehicles=vehicles,
            followers=followers,
            seeds=seeds,
            quick=quick,
            tuned_dir=tuned_dir,
        )
    except ValueError as error:
        raise usage_error(str(error)) from None
    summary = _resumable(
        out,
        lambda: run_table1(
            out,
            suite=suite,
            vehicles=vehicles,
            followers=followers,
            seeds=seeds,
            workers=workers,
            ray=ray,
            ray_address=ray_address,
            quick=quick,
            progress=True,
            tuned_dir=tuned_dir,
            figures=make_figures if figures else None,
        ),
    )
    _print_table1(summary)
    console.print(f"report: {out / 'report.html'}")


def _v2_bench(out, protocol, quick, workers, ray, ray_address, tuned_dir, figures) -> None:
    """``--protocol v2``, ``v3`` or a protocol file (steerlab.experiments.benchmark.table1_v2):
    run, report, print the verdicts and the table."""
    from rich.markup import escape

    from steerlab.experiments.benchmark.table1_v2 import run_table1_v2, verdict_lines
    from steerlab.trials.protocol import load_protocol, shipped_protocols

    shipped = f"table1_{protocol}"  # v2 -> the shipped table1_v2, and so on
    name = shipped if shipped in shipped_protocols() else protocol
    try:
        loaded = load_protocol(name)
    except ValueError as error:
        raise usage_error(str(error)) from None
    summary = _resumable(
        out,
        lambda: run_table1_v2(
            out,
            protocol=loaded,
            quick=quick,
            workers=workers,
            ray=ray,
            ray_address=ray_address,
            progress=True,
            tuned_dir=tuned_dir,
            figures=figures,
        ),
    )
    table = Table(
        title=f"Table I v{summary['protocol']} ({summary['paths']} paths, feasible pairs)"
    )
    table.add_column("metric")
    names = list(summary["followers"])
    for follower in names:
        table.add_column(escape(follower), justify="right")
    for label, field, form in (
        ("stall episodes", "stalls", "{:.0f}"),
        ("stalls per km", "stalls_per_km", "{:.3f}"),
        ("stuck events", "stuck_events", "{:.0f}"),
        ("mean time (s)", "time_mean", "{:.1f}"),
        ("mean speed (m/s)", "speed_mean", "{:.2f}"),
        ("completed", "completed", "{:.0f}"),
        ("feasible trials", "feasible_trials", "{:.0f}"),
    ):
        cells = []
        for follower in names:
            value = summary["followers"][follower][field]
            cells.append("n/a" if value is None else form.format(value))
        table.add_row(label, *cells)
    console.print(table)
    for line in verdict_lines(summary):
        console.print(escape(line))
    console.print(f"report: {out / 'report.html'}")


def _refuse_options(given: dict[str, bool], why: str) -> None:
    """Refuse (exit code 2) the options given (``True``) that the chosen suite does not take."""
    misplaced = [name for name, used in given.items() if used]
    if misplaced:
        raise usage_error(f"--suite {EXTERNAL_SUITE}: {', '.join(misplaced)} {why}")


def _external_bench(out: Path, quick: bool, workers: int | None, seeds: int | None) -> None:
    """``--suite external`` (steerlab.experiments.benchmark.external): run, report, print the
    summary."""
    import time

    from steerlab.experiments.benchmark.external import run_external

    start = time.perf_counter()
    summary = _resumable(
        out, lambda: run_external(out, quick=quick, workers=workers, seeds=seeds, progress=True)
    )
    from rich import box
    from rich.markup import escape

    def number(value, form):
        return "n/a" if value is None else form.format(value)

    console.print(f"external suite: {summary['trials_total']} trials")
    for plant in summary["plants"]:
        table = Table(title=escape(plant), box=box.SIMPLE, pad_edge=False, collapse_padding=True)
        table.add_column("follower", no_wrap=True)
        for column in ("laps", "failed", "stuck", "CTE m", "CTE max", "time s", "m/s"):
            table.add_column(column, justify="right", no_wrap=True)
        for name in summary["followers"]:
            cell = summary["cells"][plant][name]
            table.add_row(
                escape(name),
                f"{cell['laps_completed']}/{cell['trials']}",
                f"{cell['failed'] + cell['errors']}",
                f"{cell['stuck_events']}",
                number(cell["cte_mean"], "{:.3f}"),
                number(cell["cte_max"], "{:.3f}"),
                number(cell["time_mean"], "{:.1f}"),
                number(cell["speed_mean"], "{:.2f}"),
            )
        console.print(table)
    console.print(f"report: {out / 'external.html'} ({time.perf_counter() - start:.0f} s)")


def _racetracks_bench(out, tracks, vehicles, followers, quick, workers, tuned_dir) -> None:
    """``--suite racetracks`` (steerlab.experiments.benchmark.racetracks): run, report, print
    the totals per follower."""
    from steerlab.experiments.benchmark.racetracks import run_racetracks

    summary = _resumable(
        out,
        lambda: run_racetracks(
            out,
            tracks=tracks,
            vehicles=vehicles,
            followers=followers,
            quick=quick,
            workers=workers,
            tuned_dir=tuned_dir,
        ),
    )
    table = Table(title=f"racetracks: {summary['trials_total']} laps")
    for column in ("follower", "laps", "exits", "CTE m", "lap time s"):
        table.add_column(column, justify="left" if column == "follower" else "right")
    for name, entry in summary["by_follower"].items():
        table.add_row(
            name,
            f"{entry['laps_completed']}/{entry['laps']}",
            f"{entry['boundary_exits']}",
            "n/a" if entry["cte_mean"] is None else f"{entry['cte_mean']:.2f}",
            "n/a" if entry["lap_time_mean"] is None else f"{entry['lap_time_mean']:.1f}",
        )
    console.print(table)
    console.print(f"report: {out / 'racetracks.html'}")


def _maps_bench(out, maps, quick, workers) -> None:
    """``--suite maps`` (steerlab.experiments.benchmark.maps): check the files, run, report,
    print the totals per navigator."""
    from steerlab.experiments.benchmark.maps import run_maps

    for name in (part.strip() for part in (maps or "").split(",")):
        if name and not Path(name).is_file():
            raise usage_error(f"map file {name!r} not found")
    summary = _resumable(out, lambda: run_maps(out, maps=maps, quick=quick, workers=workers))
    table = Table(title=f"maps: {summary['trials_total']} trials on {len(summary['maps'])} maps")
    for column in ("navigator", "arrived", "time s", "inside %", "stuck"):
        table.add_column(column, justify="left" if column == "navigator" else "right")
    for name, cell in summary["by_navigator"].items():
        rate, share = cell["arrival_rate"], cell["inside_share_mean"]
        table.add_row(
            name,
            "n/a" if rate is None else f"{100.0 * rate:.0f} %",
            "n/a" if cell["time_mean"] is None else f"{cell['time_mean']:.1f}",
            "n/a" if share is None else f"{100.0 * share:.1f}",
            f"{cell['stuck_episodes']}",
        )
    console.print(table)
    console.print(f"report: {out / 'maps.html'}")


def _print_table1(summary: dict) -> None:
    """Table I's cells per follower, on the terminal."""
    followers = [name for name in summary["followers"] if name in summary]
    seeds = summary["seeds"]
    from rich.markup import escape

    table = Table(
        title=f"Table I on {escape(summary['suite'])} ({seeds} seed{'s' if seeds != 1 else ''}"
        + (", mean over seeds" if seeds > 1 else "")
        + ")"
    )
    table.add_column("metric")
    for name in followers:
        table.add_column(name, justify="right")
    count = "{:.0f}" if seeds == 1 else "{:.1f}"  # one seed: the totals are integers
    rows = (
        ("stuck trials", "stuck_trials", count),
        ("stuck events", "stuck_events", count),
        ("cross-track error mean (m)", "cte_mean", "{:.2f}"),
        ("total time mean (s)", "time_mean", "{:.1f}"),
        ("inside corridor mean (%)", "inside_corridor_mean", "{:.1f}"),
        ("speed mean (m/s)", "speed_mean", "{:.2f}"),
        ("completed", "completed", count),
    )
    for label, field, form in rows:
        cells = []
        for name in followers:
            value = summary[name][field]
            cells.append("n/a" if value is None else form.format(value))
        table.add_row(label, *cells)
    table.add_row("trials per seed", *(f"{summary[name]['trials']:g}" for name in followers))
    for vehicle in summary["vehicles"]:
        cells = []
        for name in followers:
            value = summary[name]["stuck_by_vehicle"][vehicle]
            cells.append("n/a" if value is None else count.format(value))
        table.add_row(f"stuck events: {escape(vehicle)}", *cells)
    console.print(table)


_SEED_TEXT_HELP = "Seed text: " + ", ".join(SEEDS_WITH_FIGURES) + "."
_OLD_SEED_OPTION = typer.Option(
    "--seed", hidden=True, help="The seed text, as older versions spelled it (write it bare)."
)


def _seed_text(command: str, seed_text: str | None, old: str | None) -> str:
    """The seed text a command is given: positional, or (with a notice) as ``--seed``; refused
    (exit code 2) when missing, unknown or given both ways."""
    if seed_text is not None and old is not None:
        raise usage_error(
            f"the seed text is given twice ({seed_text!r} and --seed {old!r}): "
            f"write `steerlab {command} {seed_text}`"
        )
    given = seed_text if old is None else old
    if given is None:
        raise usage_error(
            f"missing seed text ({', '.join(SEEDS_WITH_FIGURES)}): "
            f"write `steerlab {command} 000`, for instance"
        )
    if given not in SEEDS_WITH_FIGURES:
        raise unknown("seed text", given, SEEDS_WITH_FIGURES)
    if old is not None:
        notice(f"--seed names a random seed elsewhere; write `steerlab {command} {given}`")
    return given


@app.command(epilog=EXIT_CODES)
def figures(
    seed_text: Annotated[
        str | None, typer.Argument(metavar="SEED_TEXT", help=_SEED_TEXT_HELP, show_default=False)
    ] = None,
    out: Annotated[Path, typer.Option(help="Directory for the figures.")] = Path("out/figures"),
    svg: Annotated[bool, typer.Option(help="Also write SVG.")] = False,
    old_seed: Annotated[str | None, _OLD_SEED_OPTION] = None,
) -> None:
    """Regenerate a seed text's figures (PNG, SVG on request): steerlab figures 000."""
    seed = _seed_text("figures", seed_text, old_seed)
    from steerlab.experiments.fidelity import funnelling_figures as seed003
    from steerlab.experiments.fidelity import halflife_figures as seed004
    from steerlab.experiments.fidelity import navigation_figures as seed002
    from steerlab.experiments.fidelity import path_follower_figures as seed001
    from steerlab.experiments.fidelity import point_laws_figures as seed000

    formats = ("png", "svg") if svg else ("png",)
    modules = {"000": seed000, "001": seed001, "002": seed002, "003": seed003, "004": seed004}
    with stage(f"drawing seed {seed}'s figures into {out}"):
        paths = modules[seed].make_figures(out, formats=formats)
    for path in paths:
        typer.echo(str(path))  # one path a line, never wrapped


def seed_markdown(seed: str, fast: bool = False) -> str:
    """What ``steerlab fidelity SEED`` prints: the seed's generated block of ``docs/fidelity.md``
    (``steerlab.experiments.fidelity.document``)."""
    if seed == "000":
        from steerlab.experiments.fidelity import point_laws as fidelity000

        return fidelity000.render_markdown(fidelity000.measure_seed000(fast=fast))
    if seed == "001":
        from steerlab.experiments.fidelity import path_follower as fidelity001
        from steerlab.experiments.fidelity import vehicle_classes

        return (
            vehicle_classes.render_markdown(vehicle_classes.measure_vehicle_classes())
            + "\n"
            + fidelity001.render_markdown()
        )
    if seed == "002":
        from steerlab.experiments.fidelity import navigation as fidelity002

        return fidelity002.render_markdown(fidelity002.measure_seed002(fast=fast), fast=fast)
    if seed == "003":
        from steerlab.experiments.fidelity import funnelling as fidelity003

        return fidelity003.render_markdown(fidelity003.measure_seed003(fast=fast))
    from steerlab.experiments.fidelity import halflife as fidelity004

    return fidelity004.render_markdown(fidelity004.measure_seed004(fast=fast))


@app.command(epilog=EXIT_CODES)
def fidelity(
    seed_text: Annotated[
        str | None, typer.Argument(metavar="SEED_TEXT", help=_SEED_TEXT_HELP, show_default=False)
    ] = None,
    fast: Annotated[bool, typer.Option(help="Coarser grids (seconds instead of minutes).")] = False,
    out: Annotated[Path | None, typer.Option(help="Also write the markdown here.")] = None,
    docs: Annotated[
        Path | None,
        typer.Option(help="Replace this seed's generated block in this file (docs/fidelity.md)."),
    ] = None,
    old_seed: Annotated[str | None, _OLD_SEED_OPTION] = None,
) -> None:
    """Measure, by simulation, each claim a seed text makes; print the tables (markdown):
    steerlab fidelity 004."""
    seed = _seed_text("fidelity", seed_text, old_seed)
    if docs is not None and fast:
        raise usage_error("--docs takes the full settings' tables: drop --fast")
    must_exist("--docs", docs, folder=False)
    if docs is not None:
        from steerlab.experiments.fidelity.document import generated_block, replace_generated

        try:  # the markers, before the measurement
            generated_block(docs.read_text(encoding="utf-8"), seed)
        except ValueError as error:
            raise usage_error(f"--docs {docs}: {error}") from None
    with stage(f"measuring seed {seed}'s claims" + (" (--fast)" if fast else "")):
        text = seed_markdown(seed, fast)
    if docs is not None:
        updated = replace_generated(docs.read_text(encoding="utf-8"), seed, text)
        docs.write_text(updated, encoding="utf-8")
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text)
    typer.echo(text)


funnel_app = typer.Typer(help="Funnelling control (seed 003): the T_eta table.")
app.add_typer(funnel_app, name="funnel")


@funnel_app.command("build-table", epilog=EXIT_CODES)
def funnel_build_table(
    cache_dir: Annotated[
        Path | None,
        typer.Option(
            help="Cache directory (default: $STEERLAB_CACHE_DIR, else the user cache directory "
            "for steerlab: $XDG_CACHE_HOME/steerlab or ~/.cache/steerlab on Linux)."
        ),
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


# --------------------------------------------------------------------------------------------------
# steerlab tune: vehicle-tuned follower parameters (steerlab.experiments.benchmark.tune)


@app.command(epilog=EXIT_CODES)
def tune(
    vehicle: Annotated[
        str,
        typer.Option(help="Vehicle to tune: a preset (storm, bolte, ...) or a vehicle file."),
    ],
    trials: Annotated[
        int, typer.Option(min=1, help="Complete trials the study must hold (defaults included).")
    ],
    out: Annotated[
        Path, typer.Option(help="Folder of the study (tune.db), its evaluations and the preset.")
    ] = Path("out/tune"),
    seed: Annotated[int, typer.Option(min=0, help="Seed of the TPE sampler.")] = 0,
    workers: Annotated[
        int | None, typer.Option(min=1, help="Worker processes (default: the cores).")
    ] = None,
    ray: Annotated[bool, typer.Option(help="Run the trials on a local Ray.")] = False,
    ray_address: Annotated[
        str | None, typer.Option(help="Run the trials on the Ray cluster at this address.")
    ] = None,
    seeds: Annotated[
        int | None, typer.Option(min=1, help="Spawn seeds per path (default: the suite's).")
    ] = None,
    ship: Annotated[
        bool, typer.Option(help="Also write the preset into the shipped folder (ours_tuned).")
    ] = False,
    suite: Annotated[
        str,
        typer.Option(
            help="The training suite: train (Table I v1's ours_tuned) or train_generated (v2's)."
        ),
    ] = "train",
    batch: Annotated[
        int,
        typer.Option(
            min=1,
            help="Candidates asked per round, their trials run together (part of the study).",
        ),
    ] = 1,
) -> None:
    """Tune the path follower for one vehicle on a training suite (Optuna TPE); write the preset
    OUT/VEHICLE.toml that the follower ours_tuned reads. Reruns resume the study."""
    from steerlab.vehicles import PRESETS, resolve_vehicle

    _check_names(vehicle, "vehicle", tuple(PRESETS))
    try:
        resolve_vehicle(vehicle)  # a vehicle file that does not read, before the study opens
    except ValueError as error:
        raise usage_error(str(error)) from None
    from steerlab.experiments.benchmark.tune import TUNE_SUITES, search_space, tune_vehicle
    from steerlab.follower import FollowerParams

    _check_suite(suite, TUNE_SUITES)
    from steerlab.trials.followers import read_tuned, tuned_file

    params = _resumable(
        out,
        lambda: tune_vehicle(
            vehicle,
            trials,
            out,
            seed=seed,
            workers=workers,
            ray=ray,
            ray_address=ray_address,
            seeds=seeds,
            ship=ship,
            suite=suite,
            progress=True,
            batch=batch,
        ),
    )
    name = resolve_vehicle(vehicle).name  # a file's vehicle is its name
    path = tuned_file(name, out)
    meta = read_tuned(path)[2]
    table = Table(title=f"{name}: {meta['trials']} trials on {meta['suite']}")
    for column in ("", "defaults", f"best (trial {meta['best_trial']})"):
        table.add_column(column, justify="left" if not column else "right")
    table.add_row("J", f"{meta['j_default']:.4f}", f"{meta['j_best']:.4f}")
    table.add_row("stuck events", str(meta["stuck_events_default"]), str(meta["stuck_events_best"]))
    defaults = FollowerParams()
    for dimension in search_space(vehicle):
        field = dimension.name
        table.add_row(field, f"{getattr(defaults, field):.4g}", f"{getattr(params, field):.4g}")
    console.print(table)
    console.print(f"preset: {path}")
    if ship:
        from steerlab.trials.followers import shipped_tuned_folder

        console.print(f"shipped: {tuned_file(name, shipped_tuned_folder(suite))}")


# --------------------------------------------------------------------------------------------------
# steerlab soak: seed 001's soak test (steerlab.experiments.benchmark.soak)


@app.command(epilog=EXIT_CODES)
def soak(
    out: Annotated[Path, typer.Option(help="Folder for the results and the report.")] = Path(
        "out/soak"
    ),
    trials: Annotated[int, typer.Option(min=1, help="Randomized trials per follower.")] = 5,
    minutes: Annotated[float, typer.Option(help="Simulated minutes per session (> 0).")] = 5.0,
    vehicles: Annotated[int, typer.Option(min=1, help="Bots (presets cycled).")] = 64,
    seed: Annotated[int, typer.Option(min=0, help="Seed of the map and of the trials.")] = 0,
    workers: Annotated[
        int | None, typer.Option(min=1, help="Worker processes (default: the cores).")
    ] = None,
) -> None:
    """Seed 001's soak test: bots of mixed presets driving random routes on a road map, baseline
    against ours; seconds of driving per stuck event beside the paper's 60 s and 131 s. Writes
    OUT/soak.json, soak.md, soak_map.png and the runner's results.csv; a rerun resumes."""
    import time

    from steerlab.experiments.benchmark.soak import run_soak
    from steerlab.experiments.benchmark.soak_figures import draw_map

    if not (math.isfinite(minutes) and minutes > 0.0):
        raise usage_error(f"--minutes must be > 0 and finite, got {minutes!r}")
    start = time.perf_counter()
    summary = _resumable(
        out,
        lambda: run_soak(
            out,
            trials=trials,
            minutes=minutes,
            vehicles=vehicles,
            seed=seed,
            workers=workers,
            figure=draw_map,
        ),
    )
    table = Table(title=f"soak: {vehicles} bots x {minutes:g} min x {trials} trials")
    for column in ("follower", "s of driving per stuck event", "paper", "events per trial"):
        table.add_column(column, justify="left" if column == "follower" else "right")
    for name, entry in summary["followers"].items():
        mean = "-" if entry["mean"] is None else f"{entry['mean']:.0f}"
        std = "-" if entry["std"] is None else f"{entry['std']:.0f}"
        paper = entry["paper"]
        table.add_row(
            name,
            f"{mean} ({std})",
            f"{paper['mean']:g} ({paper['std']:g})" if paper else "-",
            ", ".join(str(count) for count in entry["stuck_events"]),
        )
    console.print(table)
    console.print(f"report: {out / 'soak.md'} ({time.perf_counter() - start:.0f} s)")


# --------------------------------------------------------------------------------------------------
# steerlab replay: one trial played back (steerlab.replay)


@app.command(epilog=EXIT_CODES)
def replay(
    suite: Annotated[
        str, typer.Option(help="Suite: table1, train, generated, train_generated or a suite file.")
    ],
    path: Annotated[str, typer.Option(help="Path of the suite (its name).")],
    vehicle: Annotated[
        str, typer.Option(help="Vehicle: a preset (storm, bolte, ...) or a vehicle file (.toml).")
    ],
    follower: Annotated[
        str, typer.Option(help="Follower: a name (baseline, ours, ...) or a follower file (.toml).")
    ],
    out: Annotated[Path, typer.Option(help="File to write: .html, .gif or .mp4.")],
    seed: Annotated[int, typer.Option(min=0, help="Spawn seed of the trial.")] = 0,
    format: Annotated[
        str | None,
        typer.Option(help="html (default), gif or mp4 (needs ffmpeg); default: OUT's suffix."),
    ] = None,
    tuned_dir: Annotated[
        Path | None, typer.Option(help="Folder of ours_tuned's presets (default: the shipped).")
    ] = None,
) -> None:
    """Run one benchmark trial (the same trial steerlab bench runs, same seeds) and write its
    replay: a page a browser plays (no server, no network), or a GIF or MP4 video."""
    from steerlab.replay import FORMATS, write_trial_replay
    from steerlab.trials.followers import ABLATIONS, FOLLOWERS
    from steerlab.trials.suite import GENERATED_SUITES, SHIPPED_SUITES, load_suite

    suites = (*SHIPPED_SUITES, *GENERATED_SUITES)
    from steerlab.trials.trial import TrialSpec
    from steerlab.vehicles import PRESETS

    if suite == EXTERNAL_SUITE:
        raise usage_error(
            f"suite {suite!r} drives third-party simulators and has no replay; suites: "
            f"{', '.join(suites)} or a suite file"
        )
    _check_suite(suite, suites)
    if format is not None and format not in FORMATS:
        raise unknown("format", format, FORMATS)
    _check_names(vehicle, "vehicle", tuple(PRESETS))
    _check_names(follower, "follower", FOLLOWERS + ABLATIONS)
    must_exist("--tuned-dir", tuned_dir, folder=True)
    try:
        loaded = load_suite(suite)
    except ValueError as error:  # a suite file that is not a valid suite
        raise usage_error(str(error)) from None
    if path not in loaded.path_names:
        raise unknown("path", path, loaded.path_names, f" (suite {loaded.name!r})")
    source = loaded.source if loaded.source in suites else suite
    spec = TrialSpec(
        source, path, vehicle, follower, seed, "" if tuned_dir is None else str(tuned_dir)
    )
    try:  # its ValueErrors come before the trial runs: the file's suffix, a missing preset
        with stage(f"replaying {path}, {vehicle}, {follower}, seed {seed}"):
            written = write_trial_replay(out, spec, format=format)
    except ValueError as error:
        raise usage_error(str(error)) from None
    console.print(f"replay: {written}")


@app.command(epilog=EXIT_CODES)
def warmup(
    quick: Annotated[
        bool, typer.Option("--quick", help="The engines only, small batches (a smoke test).")
    ] = False,
    jobs: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Worker processes compiling at once (default: the cores, at most 4; each "
            "takes up to 2 GB of memory while it compiles).",
        ),
    ] = None,
) -> None:
    """Compile every kernel ahead into numba's on-disk cache (the first use of a class then
    starts at once): each public class's scalar step and batch step, small and large batches
    (every build). Safe to run twice at once: the second waits, then finds the cache full."""
    from functools import partial

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from steerlab._jit import SERIAL_LIMIT
    from steerlab.cli.warmup import cache_lock, default_jobs, run_tasks, warmup_tasks

    sizes = (100,) if quick else (300, SERIAL_LIMIT + 1)
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with cache_lock(), Progress(*columns, console=console) as progress:
        bar = progress.add_task("compiling", total=None)

        def show(what: str, done: int, total: int) -> None:
            progress.update(bar, description=what, completed=done, total=total)

        compiled = run_tasks(partial(warmup_tasks, sizes, quick), jobs or default_jobs(), show)
    console.print(f"every kernel compiled: {compiled} builds compiled now, the rest cached")


def main() -> None:
    app()
