"""Nav-data flags drive the navigators (``steerlab.navigation.flags``): ladders, walk, crouch, jump.

Independent routes: the constants are Half-Life's, typed here from its sources (``pm_shared.c``:
``MAX_CLIMB_SPEED`` 200, ``PLAYER_DUCKING_MULTIPLIER`` 0.333, ``sv_friction`` and
``sv_stopspeed``'s friction law; HL SDK ``input.cpp``: ``cl_movespeedkey`` 0.3); which segments
carry a flag is decided here from the waypoints' flags and positions as the bots' formats mean
them (JK_Botti ``W_FL_LADDER`` "waypoint on a ladder", ``W_FL_JUMP`` "must jump to reach this
waypoint", crouch at either end); the climb, the speed bounds and the avoided routes are checked on
the traces and against networkx on a graph built here. Real maps come from ``$STEERLAB_DATA``
(default the repository's ``../shared/data``) and are skipped without it.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import networkx as nx
import numba
import numpy as np
import pytest

import steerlab._jit
from steerlab.engines import AgentBatch, AgentState, BaseEngine, BaseEngineParams, HalfLifeEngine
from steerlab.navigation import (
    AlongSegments,
    AroundPoints,
    NoRouteError,
    TowardsPoints,
    find_route,
    load_navdata,
)
from steerlab.sim import simulate

DATA = Path(
    os.environ.get("STEERLAB_DATA", Path(__file__).resolve().parents[1].parent / "shared" / "data")
)
LEVEL = load_navdata("examples/navdata/level.toml")
SLALOM = load_navdata("examples/navdata/slalom.toml")
DT = 0.01

# Half-Life's numbers, from its sources (not from steerlab)
MAX_CLIMB_SPEED = 200.0  # pm_shared.c
DUCKING_MULTIPLIER = 0.333  # pm_shared.c, PLAYER_DUCKING_MULTIPLIER
MOVESPEEDKEY = 0.3  # cl_dll/input.cpp, cl_movespeedkey
FRICTION, STOPSPEED = 4.0, 75.0  # seed 004's cvars (HalfLifeParams' defaults)
SPEED_BOUND = 320.0
TOUCH = 16.0  # the navigators' reach of a radius-0 waypoint (Half-Life's half hull width)


def navigators(route):
    """Each navigator that follows a route, as a Half-Life bot would run it."""
    return {
        # k_D below the friction: the engine can shed speed as fast as the command falls
        "towards": TowardsPoints(route, k_d=3.0, speed_floor=60.0),
        "along_v1": AlongSegments(route, version=1),
        "along_v2": AlongSegments(route, version=2),
    }


class Recorder:
    def __init__(self, navigator):
        self.navigator = navigator
        self.memories = []

    def step(self, state, dt):
        command = self.navigator.step(state, dt)
        self.memories.append(self.navigator.memory)
        return command

    def reset(self):
        self.navigator.reset()
        self.memories = []


def drive(navigator, route, frames):
    recorder = Recorder(navigator)
    start = AgentState(*route.positions[0, :2], 0.0, 0.0, 0.0)
    trace = simulate(HalfLifeEngine(), recorder, start, DT, frames)
    return trace, recorder.memories


def slide(speed):
    """Half-Life's distance to rest from ``speed`` under zero command, frame by frame (seed
    004: each frame the speed drops by ``max(speed, stopspeed) * friction * T``)."""
    distance = 0.0
    while speed > 0.0:
        speed = max(speed - max(speed, STOPSPEED) * FRICTION * DT, 0.0)
        distance += speed * DT
    return distance


# ---------------------------------------------------------------------------------------------
# ladders on real maps


def vertical_ladder_route(path: Path):
    """A route over the map crossing a vertical ladder: a floor waypoint, the ladder's foot, its
    top, a floor waypoint at the top. Found from the file's flags and positions: two ladder
    waypoints joined by a connection rising more than 60 units over a run of at most a quarter of
    the rise. Returns ``(route, foot, top)`` (route indices)."""
    nav = load_navdata(path)
    by_id = {w.id: w for w in nav.waypoints}
    neighbours: dict[str, set] = {}
    for c in nav.connections:
        neighbours.setdefault(c.source, set()).add(c.target)
        if c.bidirectional:
            neighbours.setdefault(c.target, set()).add(c.source)
    for c in nav.connections:
        a, b = by_id[c.source], by_id[c.target]
        rise = b.position[2] - a.position[2]
        run = math.dist(a.position[:2], b.position[:2])
        if not ("ladder" in a.flags and "ladder" in b.flags and rise > 60 and run <= 0.25 * rise):
            continue
        before = sorted(p for p, out in neighbours.items() if a.id in out)
        after = sorted(neighbours.get(b.id, ()))
        for p in before:
            for q in after:
                if "ladder" in by_id[p].flags or "ladder" in by_id[q].flags:
                    continue
                if abs(by_id[q].position[2] - b.position[2]) > 40:
                    continue
                try:
                    route = find_route(nav, p, q)
                except NoRouteError:
                    continue
                pairs = list(zip(route.waypoint_ids, route.waypoint_ids[1:], strict=False))
                if (a.id, b.id) in pairs:
                    j = pairs.index((a.id, b.id))
                    return route, j, j + 1
    return None


REAL_LADDER_MAPS = [DATA / "jk_botti" / "rapidcore.wpt", DATA / "yapb" / "de_train.graph"]


@pytest.mark.parametrize("path", REAL_LADDER_MAPS, ids=lambda p: p.name)
@pytest.mark.parametrize("name", ["towards", "along_v1", "along_v2"])
def test_a_route_across_a_real_ladder_stops_at_the_foot_climbs_for_its_time_then_goes_on(
    path, name
):
    if not path.exists():
        pytest.skip(f"no shared data at {path} (set STEERLAB_DATA)")
    found = vertical_ladder_route(path)
    assert found is not None, f"{path.name}: no route across a vertical ladder"
    route, foot, top = found
    navigator = navigators(route)[name]
    trace, memories = drive(navigator, route, 4000)
    ladder = np.array([bool(m.applied_flags & 1) for m in memories])  # FLAG_BITS["ladder"] = 1
    block = np.flatnonzero(ladder)
    assert block.size > 0, "the climb was never reported"
    assert np.all(np.diff(block) == 1), "the climb is one hold"
    climb = math.dist(route.positions[foot], route.positions[top]) / MAX_CLIMB_SPEED
    assert climb <= block.size * DT < climb + DT + 1e-9
    assert np.all(trace.commands["speed"][block] == 0.0)
    # held at the foot: within its reach plus what Half-Life slides from the speed it had
    foot_xy = route.positions[foot, :2]
    distance = np.hypot(trace.x[:-1] - foot_xy[0], trace.y[:-1] - foot_xy[1])
    speed = np.hypot(trace.vx, trace.vy)
    arrival = speed[block[0]]
    assert distance[block].max() <= TOUCH + arrival * DT + slide(arrival) + 1e-6
    assert speed[block[-1] + 1] < 1.0  # at rest by the climb's end (the hold outlasts the slide)
    # then on from the top to the goal
    assert navigator.memory.arrived
    goal = route.positions[-1, :2]
    rest = slice(block[-1] + 1, None)
    assert np.hypot(trace.x[rest] - goal[0], trace.y[rest] - goal[1]).min() <= TOUCH + 1e-6 + (
        slide(SPEED_BOUND)
    )


def test_the_shipped_level_climbs_its_ladder_for_192_over_200_seconds():
    route = find_route(LEVEL, "e1", "u2")  # e2 -> l1, the ladder l1 -> l2 (192 units up)
    assert ("l1", "l2") in zip(route.waypoint_ids, route.waypoint_ids[1:], strict=False)
    for name, navigator in navigators(route).items():
        _, memories = drive(navigator, route, 2000)
        frames = sum(bool(m.applied_flags & 1) for m in memories)
        assert 192.0 / MAX_CLIMB_SPEED <= frames * DT < 192.0 / MAX_CLIMB_SPEED + DT, name
        assert navigator.memory.arrived, name


# ---------------------------------------------------------------------------------------------
# walk and crouch


def on_segment(trace, a, b, half_width):
    """Frames whose position projects inside segment ``a -> b`` (plane) within ``half_width``."""
    a, b = np.asarray(a[:2]), np.asarray(b[:2])
    axis = b - a
    length = np.hypot(*axis)
    unit = axis / length
    offset = np.column_stack((trace.x[:-1], trace.y[:-1])) - a
    along = offset @ unit
    across = np.abs(offset @ np.array([-unit[1], unit[0]]))
    return (along >= 0.0) & (along <= length) & (across <= half_width)


WALK_CROUCH = [
    ("n2", "g2", ("b1", "b2"), MOVESPEEDKEY),  # the beam, a walk connection
    ("e3", "g1", ("v1", "v2"), DUCKING_MULTIPLIER),  # the vent, crouch connection and waypoint
    ("e3", "g1", ("v2", "g1"), DUCKING_MULTIPLIER),  # leaving the crouch waypoint v2
]


@pytest.mark.parametrize(("start", "goal", "segment", "factor"), WALK_CROUCH)
@pytest.mark.parametrize("name", ["towards", "along_v1", "along_v2"])
def test_walk_and_crouch_segments_of_the_shipped_level_never_exceed_their_speed(
    start, goal, segment, factor, name
):
    route = find_route(LEVEL, start, goal)
    ids = list(route.waypoint_ids)
    a, b = (route.positions[ids.index(w)] for w in segment)
    width = route.widths[ids.index(segment[0])]
    navigator = navigators(route)[name]
    trace, _ = drive(navigator, route, 3000)
    assert navigator.memory.arrived
    inside = on_segment(trace, a, b, 0.5 * width)
    assert inside.sum() > 20  # the agent drove along it
    bound = factor * SPEED_BOUND
    assert trace.commands["speed"][inside].max() <= bound
    speed = np.hypot(trace.vx[:-1], trace.vy[:-1])
    # Half-Life's acceleration along a new heading can lift |v| a little above the wished speed
    assert speed[inside].max() <= bound * 1.01


def test_around_points_slows_to_the_walk_speed_at_a_walk_point():
    walk = [i for i, point in enumerate(SLALOM.points) if "walk" in point.flags]
    assert walk
    point = SLALOM.points[walk[0]]
    engine = BaseEngine(BaseEngineParams(k_yaw=math.inf, k_speed=math.inf))  # speed = command
    navigator = AroundPoints(SLALOM, k_d=3.0)
    recorder = Recorder(navigator)
    trace = simulate(engine, recorder, AgentState(0.0, 0.0, 0.0, 0.0, 0.0), DT, 4000)
    assert navigator.memory.finished
    distance = np.hypot(trace.x - point.center[0], trace.y - point.center[1])
    current = np.array([m.index for m in recorder.memories]) == walk[0]
    # around the walk point while it is the current one (states after each command)
    near = (distance[1:] <= point.radius + 1.0) & current
    assert near.sum() > 20
    assert trace.commands["speed"][near].max() <= MOVESPEEDKEY * SPEED_BOUND
    reported = np.array([bool(m.applied_flags & 4) for m in recorder.memories])  # walk = 4
    assert reported[near].all()


# ---------------------------------------------------------------------------------------------
# route search that avoids what a bot cannot do


def driven(nav, source, target, connection_flags):
    """The flags of segment ``source -> target``, from the bots' meaning of waypoint flags."""
    by_id = {w.id: w for w in nav.waypoints}
    a, b = by_id[source], by_id[target]
    flags = set(connection_flags)
    if "ladder" in a.flags and "ladder" in b.flags:
        flags.add("ladder")
    if "jump" in b.flags:
        flags.add("jump")
    flags |= {f for f in ("walk", "crouch") if f in a.flags or f in b.flags}
    return flags


def reference_graph(nav, avoid):
    positions = {w.id: np.array(w.position) for w in nav.waypoints}
    graph = nx.DiGraph()
    graph.add_nodes_from(positions)
    for c in nav.connections:
        for s, t in [(c.source, c.target)] + ([(c.target, c.source)] if c.bidirectional else []):
            if not driven(nav, s, t, c.flags) & set(avoid):
                graph.add_edge(s, t, weight=float(np.linalg.norm(positions[s] - positions[t])))
    return graph


def check_avoid(nav, pairs, avoid):
    graph = reference_graph(nav, avoid)
    connection = {}
    for c in nav.connections:
        connection[(c.source, c.target)] = c.flags
        if c.bidirectional:
            connection[(c.target, c.source)] = c.flags
    outcomes = set()
    for start, goal in pairs:
        if nx.has_path(graph, start, goal):
            route = find_route(nav, start, goal, avoid=avoid)
            expected = nx.dijkstra_path_length(graph, start, goal)
            assert route.length == pytest.approx(expected, rel=1e-9, abs=1e-9)
            for s, t in zip(route.waypoint_ids, route.waypoint_ids[1:], strict=False):
                assert not driven(nav, s, t, connection[(s, t)]) & set(avoid)
            outcomes.add("route")
        else:
            with pytest.raises(NoRouteError, match="without"):
                find_route(nav, start, goal, avoid=avoid)
            outcomes.add("none")
    return outcomes


def test_avoid_on_the_shipped_level_against_networkx():
    ids = [w.id for w in LEVEL.waypoints]
    pairs = [(a, b) for a in ids for b in ids if a != b]
    outcomes = set()
    for avoid in [("ladder",), ("jump",), ("ladder", "jump"), ("crouch", "walk")]:
        outcomes |= check_avoid(LEVEL, pairs, avoid)
    assert outcomes == {"route", "none"}
    with pytest.raises(NoRouteError):  # the gallery is reached by the ladder only
        find_route(LEVEL, "e1", "u1", avoid=("ladder",))
    down = find_route(LEVEL, "u2", "j1", avoid=("jump",))  # back down the ladder instead
    assert "l2" in down.waypoint_ids and "l1" in down.waypoint_ids


@pytest.mark.parametrize("path", REAL_LADDER_MAPS, ids=lambda p: p.name)
def test_avoid_on_real_maps_against_networkx(path):
    if not path.exists():
        pytest.skip(f"no shared data at {path} (set STEERLAB_DATA)")
    nav = load_navdata(path)
    ids = [w.id for w in nav.waypoints]
    rng = np.random.default_rng(20)
    pairs = [tuple(rng.choice(ids, 2, replace=False)) for _ in range(30)]
    found = vertical_ladder_route(path)
    pairs.append((found[0].waypoint_ids[0], found[0].waypoint_ids[-1]))  # across a ladder
    outcomes = check_avoid(nav, pairs, ("ladder", "jump"))
    assert "route" in outcomes


def test_bad_flag_arguments_name_themselves():
    with pytest.raises(ValueError, match=r"avoid.*'swim'"):
        find_route(LEVEL, "s1", "g1", avoid=("swim",))
    with pytest.raises(ValueError, match="avoid"):
        find_route(LEVEL, "s1", "g1", avoid="ladder")
    route = find_route(LEVEL, "s1", "g1")
    for make in (TowardsPoints, AlongSegments):
        for field, value in [
            ("walk_factor", 0.0),
            ("crouch_factor", -1.0),
            ("climb_speed", np.nan),
        ]:
            with pytest.raises(ValueError, match=field):
                make(route, **{field: value})
    with pytest.raises(ValueError, match="walk_factor"):
        AroundPoints(SLALOM, walk_factor=math.inf)
    with pytest.raises(ValueError, match="crouch_factor"):
        AroundPoints(SLALOM, crouch_factor=1.5)  # a scale that would raise the bound


# ---------------------------------------------------------------------------------------------
# batch == scalar


def flagged_routes():
    routes = [
        find_route(LEVEL, "e1", "u2"),  # the ladder
        find_route(LEVEL, "n2", "g2"),  # the walk beam
        find_route(LEVEL, "e3", "g1"),  # the crouch vent
        find_route(LEVEL, "l1", "u1"),  # starts at the ladder's foot
    ]
    path = REAL_LADDER_MAPS[0]
    if path.exists():
        routes.append(vertical_ladder_route(path)[0])
    return routes


@pytest.mark.parametrize("name", ["towards", "along_v1", "along_v2"])
@pytest.mark.parametrize("parallel", [False, True])
def test_batch_equals_scalar_bit_for_bit_across_flags(name, parallel, monkeypatch):
    if parallel:
        monkeypatch.setattr(steerlab._jit, "SERIAL_LIMIT", 0)
    routes = flagged_routes()
    starts = [AgentState(*r.positions[0, :2] + (3.0, -2.0), 0.0, 0.0, 0.3) for r in routes]
    frames = 1500
    expected = []
    for route, start in zip(routes, starts, strict=True):
        recorder = Recorder(navigators(route)[name])
        trace = simulate(HalfLifeEngine(), recorder, start, DT, frames)
        expected.append((trace, recorder.memories))
    navigator = navigators(routes)[name]
    batch = AgentBatch.from_states(starts)
    engine = HalfLifeEngine()
    previous = numba.get_num_threads()
    numba.set_num_threads(2 if parallel else 1)
    try:
        out = None
        for frame in range(frames):
            out = navigator.step_batch(batch, DT, out)
            for i, (trace, memories) in enumerate(expected):
                assert out.yaw[i] == trace.commands["yaw"][frame]
                assert out.speed[i] == trace.commands["speed"][frame]
                assert navigator.batch_memory.applied_flags[i] == memories[frame].applied_flags
                assert navigator.batch_memory.climb_left[i] == memories[frame].climb_left
            engine.step_batch(batch, out.yaw, out.speed, DT)
    finally:
        numba.set_num_threads(previous)
    assert any(m.applied_flags & 1 for _, memories in expected for m in memories)


def test_around_batch_equals_scalar_with_a_walk_point():
    starts = [AgentState(0.0, 0.0, 0.0, 0.0, 0.0), AgentState(-50.0, 30.0, 0.0, 0.0, 0.5)]
    engine = HalfLifeEngine()
    frames = 1500
    expected = []
    for start in starts:
        recorder = Recorder(AroundPoints(SLALOM, k_d=3.0))
        expected.append((simulate(engine, recorder, start, DT, frames), recorder.memories))
    navigator = AroundPoints([SLALOM, SLALOM], k_d=3.0)
    batch = AgentBatch.from_states(starts)
    out = None
    for frame in range(frames):
        out = navigator.step_batch(batch, DT, out)
        for i, (trace, memories) in enumerate(expected):
            assert out.speed[i] == trace.commands["speed"][frame]
            assert out.yaw[i] == trace.commands["yaw"][frame]
            assert navigator.batch_memory.applied_flags[i] == memories[frame].applied_flags
        engine.step_batch(batch, out.yaw, out.speed, DT)
    assert any(m.applied_flags & 4 for _, memories in expected for m in memories)
