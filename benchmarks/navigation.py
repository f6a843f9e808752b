"""Navigators of seed 002 + Half-Life: agent-steps/s per frame (navigator then engine), plain
Python vs scalar vs batch, each agent on its own route.

Each agent has its own route (ragged routes, packed), drawn from a pool of random level-like
routes (``route_pool``), and starts on its route's first waypoint, at rest. A frame is the
navigator's ``step_batch`` then the engine's (frames of 0.01 s). Plain Python runs the same
kernels uncompiled (``steerlab._jit.uncompiled``) on 500 agents, the scalar figure loops
``step`` over 500 single-route navigators (the agents where the plain-Python frames left them,
moving), the batch figure is ``step_batch`` at 1e3 and 1e5 agents on one numba thread (per core)
and on every thread. Target: AlongSegments v2 + Half-Life, 1e5 agents on different routes,
>= 5 M agent-steps/s per core.

Run: ``.venv/bin/python benchmarks/navigation.py [--quick]`` from the repository's root.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import harness
from engines import ENGINE_MODULES
from steerlab.engines import AgentBatch, HalfLifeEngine, HalfLifeParams
from steerlab.navigation import (
    AlongSegments,
    AroundPoints,
    PointsNav,
    Route,
    SlalomPoint,
    TowardsPoints,
)

SIZES = (1_000, 100_000)
DT = 0.01  # [s] a 100 Hz game frame
SHARED_MODULES = ("steerlab.navigation.route", "steerlab.geometry.kernels", "steerlab.laws.point")

_SLALOMS: dict[int, PointsNav] = {}


def slalom(route: Route) -> PointsNav:
    """The route's waypoints as points to slalom around: alternating sides, their radii."""
    key = id(route)
    if key not in _SLALOMS:
        _SLALOMS[key] = PointsNav(
            points=[
                SlalomPoint(position=tuple(position), side=1 - 2 * (i % 2), radius=radius)
                for i, (position, radius) in enumerate(
                    zip(route.positions.tolist(), route.radii.tolist(), strict=True)
                )
            ]
        )
    return _SLALOMS[key]


def navigators(engine: HalfLifeParams) -> dict[str, tuple[Callable[[Any], Any], str]]:
    """The navigators of seed 002 by name, as the seed runs them on Half-Life: a builder (a
    route or a list of routes -> navigator) and the module of its kernels."""
    return {
        "TowardsPoints": (
            lambda routes: TowardsPoints(routes, k_d=3.0, speed_to_next_segment=True),
            "steerlab.navigation.towards",
        ),
        "AlongSegments[v1]": (
            lambda routes: AlongSegments(routes, version=1, engine=engine),
            "steerlab.navigation.along",
        ),
        "AlongSegments[v2]": (
            lambda routes: AlongSegments(routes, version=2, engine=engine),
            "steerlab.navigation.along",
        ),
        "AroundPoints": (
            lambda routes: AroundPoints(
                slalom(routes) if isinstance(routes, Route) else [slalom(r) for r in routes]
            ),
            "steerlab.navigation.around",
        ),
    }


def route_pool(count: int = 1_000, seed: int = 0) -> list[Route]:
    """``count`` random routes in the plane, like a level's: 4 to 15 waypoints, legs of 100 to
    400 units turning by up to 120 degrees, full widths 16 to 128, radii 16 to 48."""
    rng = np.random.default_rng(seed)
    routes = []
    for number in range(count):
        k = int(rng.integers(4, 16))
        headings = np.cumsum(rng.uniform(-2.0 * np.pi / 3.0, 2.0 * np.pi / 3.0, k - 1))
        legs = rng.uniform(100.0, 400.0, k - 1)
        steps = np.column_stack((legs * np.cos(headings), legs * np.sin(headings), np.zeros(k - 1)))
        positions = np.vstack((np.zeros(3), np.cumsum(steps, axis=0)))
        positions[:, :2] += rng.uniform(-5_000.0, 5_000.0, 2)
        routes.append(
            Route(
                waypoint_ids=tuple(f"r{number}w{i}" for i in range(k)),
                positions=positions,
                radii=rng.uniform(16.0, 48.0, k),
                waypoint_flags=(frozenset(),) * k,
                widths=rng.uniform(16.0, 128.0, k - 1),
                segment_flags=(frozenset(),) * (k - 1),
                lengths=legs,
            )
        )
    return routes


def agents_on(routes: list[Route]) -> AgentBatch:
    """One agent at rest on each route's first waypoint."""
    starts = np.array([route.positions[0, :2] for route in routes])
    size = len(routes)
    return AgentBatch(
        starts[:, 0].copy(), starts[:, 1].copy(), np.zeros(size), np.zeros(size), np.zeros(size)
    )


def comparison(name, build, module, engine, pool, rng) -> harness.Comparison:
    shared = {}

    def python(count):
        routes = [pool[i] for i in rng.integers(len(pool), size=count)]
        navigator = build(routes)
        agents = agents_on(routes)
        shared["routes"], shared["agents"] = routes, agents

        def run():
            out = navigator.step_batch(agents, DT)
            engine.step_batch(agents, out.yaw, out.speed, DT)

        return run

    def scalar(count):
        singles = [build(route) for route in shared["routes"]]
        states = [shared["agents"].state(i) for i in range(count)]

        def run():
            for index, single in enumerate(singles):
                states[index] = engine.step(states[index], single.step(states[index], DT), DT)

        return run

    def batch(size):
        routes = [pool[i] for i in rng.integers(len(pool), size=size)]
        navigator = build(routes)
        agents = agents_on(routes)
        out = navigator.step_batch(agents, DT)

        def run():
            navigator.step_batch(agents, DT, out)
            engine.step_batch(agents, out.yaw, out.speed, DT)

        return run

    return harness.Comparison(
        name,
        batch,
        python=python,
        scalar=scalar,
        modules=(module, *SHARED_MODULES, *ENGINE_MODULES),
    )


def main(argv: Sequence[str] | None = None) -> list[harness.SpeedRow]:
    arguments = harness.parse_arguments(__doc__.splitlines()[0], argv)
    quick = arguments.quick
    params = HalfLifeParams()
    engine = HalfLifeEngine(params)
    pool = route_pool(50 if quick else 1_000)
    rng = np.random.default_rng(0)
    rows = []
    for name, (build, module) in navigators(params).items():
        count = 50 if quick else 500
        rows += harness.compare(
            comparison(name, build, module, engine, pool, rng),
            sizes=(300,) if quick else SIZES,
            python_count=count,
            scalar_count=count,
            budget=0.01 if quick else 0.3,
            progress=harness.progress_printer,
        )
    print(harness.render_speed(rows, "Navigator + Half-Life speed"))
    return rows


if __name__ == "__main__":
    main()
