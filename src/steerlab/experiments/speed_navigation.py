"""Speed of the navigators of seed 002 with the Half-Life engine: agent-steps per second.

Each agent has its own route (ragged routes, packed), drawn from a pool of random level-like
routes (``route_pool``), and starts on its route's first waypoint, at rest. A frame is the
navigator's ``step_batch`` then the engine's. As for the laws (``steerlab.experiments.speed``):
plain
Python runs the same kernels uncompiled, the scalar figure loops ``step`` over single-route
navigators, the batch figure is ``step_batch`` on one thread (per core) and on every thread.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numba
import numpy as np

from steerlab._jit import uncompiled
from steerlab.engines import AgentBatch, HalfLifeEngine, HalfLifeParams
from steerlab.experiments.speed import (
    ENGINE_MODULES,
    SpeedRow,
    _modules,
    measure_rate,
    measure_with_threads,
)

__all__ = ["NAVIGATION_SIZES", "navigation_cases", "run_navigation_benchmark"]

NAVIGATION_SIZES = (1_000, 100_000)
DT = 0.01  # [s] a 100 Hz game frame


class NavigationCase(NamedTuple):
    name: str
    build: Callable[[list], Any]  # routes -> navigator
    modules: tuple[str, ...]


def navigation_cases(engine: HalfLifeParams) -> list[NavigationCase]:
    """The navigators of seed 002, as the seed runs them on Half-Life."""
    from steerlab.navigation import AlongSegments, AroundPoints, Route, TowardsPoints

    shared = ("steerlab.navigation.route", "steerlab.geometry.kernels", "steerlab.laws.point")
    return [
        NavigationCase(
            "TowardsPoints",
            lambda routes: TowardsPoints(routes, k_d=3.0, speed_to_next_segment=True),
            ("steerlab.navigation.towards", *shared),
        ),
        NavigationCase(
            "AlongSegments[v1]",
            lambda routes: AlongSegments(routes, version=1, engine=engine),
            ("steerlab.navigation.along", *shared),
        ),
        NavigationCase(
            "AlongSegments[v2]",
            lambda routes: AlongSegments(routes, version=2, engine=engine),
            ("steerlab.navigation.along", *shared),
        ),
        NavigationCase(
            "AroundPoints",
            lambda routes: AroundPoints(
                _slalom(routes) if isinstance(routes, Route) else [_slalom(r) for r in routes]
            ),
            ("steerlab.navigation.around", *shared),
        ),
    ]


_SLALOMS: dict[int, Any] = {}


def _slalom(route) -> Any:
    """The route's waypoints as points to slalom around: alternating sides, their radii."""
    from steerlab.navigation import PointsNav, SlalomPoint

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


def route_pool(count: int = 1_000, seed: int = 0) -> list:
    """``count`` random routes in the plane, like a level's: 4 to 15 waypoints, legs of 100 to
    400 units turning by up to 120 degrees, full widths 16 to 128, radii 16 to 48."""
    from steerlab.navigation.route import Route

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


def _agents(routes: list) -> AgentBatch:
    starts = np.array([route.positions[0, :2] for route in routes])
    size = len(routes)
    return AgentBatch(
        starts[:, 0].copy(),
        starts[:, 1].copy(),
        np.zeros(size),
        np.zeros(size),
        np.zeros(size),
    )


def run_navigation_benchmark(
    sizes: tuple[int, ...] = NAVIGATION_SIZES,
    python_agents: int = 500,
    budget: float = 0.3,
    progress: Callable[[str], None] | None = None,
) -> list[SpeedRow]:
    """Navigator + Half-Life per frame: plain Python, scalar, batch; one row per measurement."""
    params = HalfLifeParams()
    engine = HalfLifeEngine(params)
    pool = route_pool()
    rng = np.random.default_rng(0)
    rows: list[SpeedRow] = []
    all_threads = numba.config.NUMBA_NUM_THREADS
    for case in navigation_cases(params):
        modules = _modules((*case.modules, *ENGINE_MODULES))
        routes = [pool[i] for i in rng.integers(len(pool), size=python_agents)]
        navigator = case.build(routes)
        batch = _agents(routes)

        def frame(navigator=navigator, batch=batch):
            out = navigator.step_batch(batch, DT)
            engine.step_batch(batch, out.yaw, out.speed, DT)

        if progress:
            progress(f"{case.name}: plain Python")
        with uncompiled(*modules):
            rate = measure_rate(frame, python_agents, budget)
        rows.append(SpeedRow(case.name, "python", python_agents, 1, rate))

        if progress:
            progress(f"{case.name}: scalar step")
        singles = [case.build(route) for route in routes]
        states = [batch.state(i) for i in range(python_agents)]

        def scalar_frame(singles=singles, states=states):
            for index, single in enumerate(singles):
                states[index] = engine.step(states[index], single.step(states[index], DT), DT)

        rows.append(
            SpeedRow(case.name, "step", python_agents, 1, measure_rate(scalar_frame, python_agents))
        )
        for size in sizes:
            routes = [pool[i] for i in rng.integers(len(pool), size=size)]
            navigator = case.build(routes)
            batch = _agents(routes)
            out = navigator.step_batch(batch, DT)

            def batch_frame(navigator=navigator, batch=batch, out=out):
                navigator.step_batch(batch, DT, out)
                engine.step_batch(batch, out.yaw, out.speed, DT)

            for threads in sorted({1, all_threads}):
                if progress:
                    progress(f"{case.name}: step_batch {size} agents, {threads} thread(s)")
                rate = measure_with_threads(batch_frame, size, threads, budget)
                rows.append(SpeedRow(case.name, "step_batch", size, threads, rate))
    return rows
