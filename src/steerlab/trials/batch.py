"""Many benchmark trials as one batch: each trial's whole frame loop in compiled code.

``run_batch(specs)`` gives, for every ``TrialSpec``, the row ``run_trial(spec)`` gives, bit for
bit, followed by the trial's stall columns (``steerlab.trials.stalls.StallCounts``):
``BATCH_COLUMNS``. One compiled loop over trials (``numba.prange``) runs each trial from its
spawn to its end, the steps of ``steerlab.trials.trial.drive_trial`` in the same order and with
the same kernels:

1. the follower's frame (``steerlab.follower.follower._follow``, the kernel ``PathFollower.step``
   runs), with the trial's own records (``FollowerRecords`` whose fields hold one value per trial,
   ``steerlab._per_agent``): its teleport requests are not applied, as ``drive_trial`` applies
   none, and its recovery is its own memory's;
2. the follower's arrival latch ends the trial (``"stopped_short"``); a command outside ``[-1,
   1]`` ends it as failed (``Vehicle.step`` would refuse it);
3. the vehicle-in-world frame (``steerlab.sim.vehicle_world._vehicle_world_frame``) with the
   trial's vehicle parameters and its world (terrain and walls, ``Suite.world``, packed with
   every other trial's and rebuilt as a ``WorldData`` view inside the loop);
4. a non-finite state ends it as failed; else the next frame is judged by the observer
   (``steerlab.trials.observer._observer_frame``, the kernel ``trial_metrics`` runs frame by
   frame: its tracked progress, whose arrival ends the trial, the cross-track error to the whole
   path, inside or not, its stuck events) and recorded.

The free disc of the walls' sweep (``steerlab.world.collide._collide_move_cached``) is kept per
trial from frame to frame: it only spares the sweep where no wall is near and gives the same bits
as a frame without it (``steerlab.sim.step_vehicles``).

Each trial's frames (positions, ground speeds and the observer's judgements) are written into
buffers; then, per trial, the row is made by ``run_trial``'s reductions: numpy's sums, compiled in
numpy's order, in ``steerlab.trials.observer.reduce_frames`` (Table I's figures, ``trial_metrics``'
last step) and ``steerlab.trials.stalls.judged_stalls`` (``stall_counts``' last step), and the
failure text of ``drive_trial``. The ground speed is ``VehicleState.speed``, Python's
``math.hypot`` of the body speeds, computed in the loop by
``steerlab.geometry.kernels.python_hypot`` (the C library's ``hypot`` need not equal it in the last
bit); on an interpreter whose ``math.hypot`` that kernel does not reproduce
(``PYTHON_HYPOT_EXACT``), the body speeds are recorded and ``math.hypot`` runs in Python. Trials
run in chunks whose buffers hold at most ``FRAME_BUDGET`` frames, the trials of a chunk longest
first (their time limits), each thread of the loop taking the next one as it finishes one (a shared
counter), so that the threads finish together; rows come back in the specs' order. The loop (which
releases the interpreter) runs a chunk on a thread of its own, into one of two sets of buffers,
while the rows of the last one are made from the other.

Everything a spec needs is read and validated before any trial runs (``ValueError`` naming
``specs[i]``); suites, paths, worlds, vehicles and followers are resolved once per batch, however
many specs share them. Once the loop runs nothing raises: a failing trial is a failed row.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

import numba
import numpy as np

from steerlab._jit import batch_kernel, fetch_add, kernel
from steerlab._per_agent import agent_params, set_agent
from steerlab.follower.follower import FollowerMemory, _follow
from steerlab.follower.params import FollowerRecords
from steerlab.follower.paths import _agent_path, _PackedPaths
from steerlab.follower.stuck import StuckMemory
from steerlab.geometry.kernels import PYTHON_HYPOT_EXACT, python_hypot
from steerlab.sim.vehicle_world import _vehicle_world_frame
from steerlab.trials.followers import make_follower
from steerlab.trials.observer import (
    OBSERVER,
    FrameMetrics,
    _observer_frame,
    half_widths,
    planar_path,
    reduce_frames,
)
from steerlab.trials.stalls import StallCounts, judged_stalls
from steerlab.trials.suite import load_suite
from steerlab.trials.trial import (
    ROW_COLUMNS,
    TrialRecords,
    TrialSpec,
    _check_spec,
    _finite,
    spawn_state,
)
from steerlab.vehicles import Vehicle
from steerlab.vehicles.state import DriveCommand, VehicleState, check_drive_command
from steerlab.world.collide import FREE_SPACE_UNKNOWN
from steerlab.world.world import WorldData

__all__ = ["BATCH_COLUMNS", "FRAME_BUDGET", "STALL_COLUMNS", "run_batch", "simulate_batch"]

STALL_COLUMNS = tuple(
    f"stall_{name}" if name in ROW_COLUMNS else name for name in StallCounts._fields
)
"""The stall columns of a batch row: ``StallCounts``' fields, each prefixed ``stall_`` where a
row column has its name."""

BATCH_COLUMNS = ROW_COLUMNS + STALL_COLUMNS
"""Every column of ``run_batch``'s rows, in order: ``run_trial``'s (``ROW_COLUMNS``), then the
stall columns (``STALL_COLUMNS``)."""

FRAME_BUDGET = 1 << 21  # frames: a chunk's buffers (5 float64 and 2 bool arrays: 84 MiB)
_PIPELINE = 8  # chunks a large batch is cut into at least (rows made while the next one runs)
_MIN_CHUNK = 1 << 16  # frames: the smallest chunk worth a call of the loop

# how a trial ended, as the compiled loop reports it
_ARRIVED, _TIME_LIMIT, _STOPPED_SHORT, _NON_FINITE, _BAD_COMMAND = range(5)
_ENDED = ("arrived", "time_limit", "stopped_short", "failed", "failed")


# --------------------------------------------------------------------------------------------------
# packed records


class _Trials(NamedTuple):
    """One entry per trial of a chunk: the spawn, the frame time, the frames allowed, which
    world and path, and where its frames go in the buffers."""

    x: np.ndarray  # [m] spawn
    y: np.ndarray  # [m]
    yaw: np.ndarray  # [rad]
    dt: np.ndarray  # [s]
    steps: np.ndarray  # int64: frames after the spawn before the time limit
    world: np.ndarray  # int64: index into the packed worlds
    first: np.ndarray  # int64: the trial's first row in the frame buffers


class _Observed(NamedTuple):
    """The observer's paths (in the ground plane), packed as ``_PackedPaths`` with each point's
    row also holding the corridor's half width of the segment it starts (``half_widths``; the
    last point's is not read)."""

    points: np.ndarray
    cum: np.ndarray
    half_widths: np.ndarray
    first: np.ndarray
    count: np.ndarray


class _Worlds(NamedTuple):
    """Every distinct ``WorldData`` of a batch packed: scalars one entry per world, arrays
    concatenated (``*_first`` the world's first row); ``_world_data`` rebuilds world ``w``."""

    height_origin_x: np.ndarray
    height_origin_y: np.ndarray
    height_cell: np.ndarray
    heights: np.ndarray  # every heightfield's nodes, each flattened row by row
    heights_first: np.ndarray
    heights_ny: np.ndarray
    heights_nx: np.ndarray
    grid_origin_x: np.ndarray
    grid_origin_y: np.ndarray
    grid_cell: np.ndarray
    grid_nx: np.ndarray
    grid_ny: np.ndarray
    grid_start: np.ndarray
    grid_start_first: np.ndarray
    grid_segments: np.ndarray  # (slots, 4)
    grid_segments_first: np.ndarray
    grid_segments_count: np.ndarray
    skin: np.ndarray
    wall_friction: np.ndarray


class _Frames(NamedTuple):
    """Per-frame buffers: a trial's frame ``k`` at row ``first + k``: its position, ground speed
    and the observer's judgements (``FrameMetrics``' fields); then optional ones, empty unless
    asked for: the body speeds and yaw (``simulate_batch``'s records, and the ground speed
    evaluated in Python where ``python_hypot`` is not this interpreter's ``math.hypot``), the
    command and what the follower computed (``simulate_batch``)."""

    x: np.ndarray  # [m]
    y: np.ndarray  # [m]
    speed: np.ndarray  # [m/s] VehicleState.speed
    s: np.ndarray  # [m] the observer's progress
    cross_track: np.ndarray  # [m]
    inside: np.ndarray  # bool
    stuck_event: np.ndarray  # bool
    v: np.ndarray  # [m/s]
    v_lat: np.ndarray  # [m/s]
    yaw: np.ndarray  # [rad]
    steer: np.ndarray  # [-1, 1]
    throttle: np.ndarray  # [-1, 1]
    target_speed: np.ndarray  # [m/s]
    target_x: np.ndarray  # [m]
    target_y: np.ndarray  # [m]
    follower_stuck: np.ndarray  # bool


class _Ends(NamedTuple):
    """How each trial ended: its frames, its ending code, the last state (the non-finite one of
    a failure) and the last command (a refused one)."""

    frames: np.ndarray  # int64: frames recorded (the spawn included)
    ended: np.ndarray  # int64: _ARRIVED ... _BAD_COMMAND
    x: np.ndarray
    y: np.ndarray
    yaw: np.ndarray
    v: np.ndarray
    v_lat: np.ndarray
    yaw_rate: np.ndarray
    steer: np.ndarray
    steer_command: np.ndarray
    throttle_command: np.ndarray


# --------------------------------------------------------------------------------------------------
# kernels


@kernel
def _world_data(worlds, w):
    """World ``w`` of the packed ``worlds`` as a ``WorldData`` (views of its rows)."""
    start = worlds.heights_first[w]
    ny = worlds.heights_ny[w]
    nx = worlds.heights_nx[w]
    heights = worlds.heights[start : start + ny * nx].reshape((ny, nx))
    grid_nx = worlds.grid_nx[w]
    grid_ny = worlds.grid_ny[w]
    start = worlds.grid_start_first[w]
    grid_start = worlds.grid_start[start : start + grid_nx * grid_ny + 1]
    start = worlds.grid_segments_first[w]
    segments = worlds.grid_segments[start : start + worlds.grid_segments_count[w]]
    return WorldData(
        worlds.height_origin_x[w],
        worlds.height_origin_y[w],
        worlds.height_cell[w],
        heights,
        worlds.grid_origin_x[w],
        worlds.grid_origin_y[w],
        worlds.grid_cell[w],
        grid_nx,
        grid_ny,
        grid_start,
        segments,
        worlds.skin[w],
    )


@kernel
def _observed_path(observed, i):
    """Trial ``i``'s ``(points, cum, half_widths)`` in the packed ``observed`` (views; the path's
    as ``_agent_path`` packs it)."""
    points, cum = _agent_path(observed, i)
    start = observed.first[i]
    return points, cum, observed.half_widths[start : start + observed.count[i]]


@kernel
def _record_frame(frames, row, state, judged):
    """Frame ``row``'s position, ground speed and the observer's ``judged = (s, cross_track,
    inside, stuck_event)`` into the buffers (and its body speeds and yaw into the optional
    ones). Each write goes through ``set_agent``, by the field's index."""
    speed = python_hypot(state.v, state.v_lat)
    s, cross_track, inside, event = judged
    set_agent(frames[:7], row, (state.x, state.y, speed, s, cross_track, inside, event))
    if frames.v.size > 0:
        set_agent(frames[7:10], row, (state.v, state.v_lat, state.yaw))


@kernel
def _record_command(frames, row, outputs):
    """Frame ``row``'s command and the follower's figures into the optional records."""
    if frames.steer.size > 0:
        set_agent(
            frames[10:],
            row,
            (outputs[0], outputs[1], outputs[2], outputs[3], outputs[4], outputs[6]),
        )


@kernel(inline="never")
def _drive_trial(
    i, trials, paths, observed, records, follower_vehicle, vehicle, worlds, observer, frames, ends
):
    """Trial ``i`` from its spawn to its end (``drive_trial``'s loop, module docstring): its
    frames into ``frames`` from row ``trials.first[i]``, how it ended into ``ends`` at ``i``.

    ``paths`` the followers' ``_PackedPaths``, ``observed`` the observer's ``_Observed`` (the
    same paths in the ground plane); ``records`` a ``FollowerRecords`` and ``follower_vehicle`` a
    ``_Vehicle``, ``vehicle`` a validated ``VehicleParams``, each field one value per trial;
    ``worlds`` a ``_Worlds``; ``observer`` the ``ObserverSettings`` as a tuple.
    """
    dt = trials.dt[i]
    steps = trials.steps[i]
    first = trials.first[i]
    path = _agent_path(paths, i)
    points, cum, halves = _observed_path(observed, i)
    params = agent_params(records, i)
    follower = agent_params(follower_vehicle, i)
    vehicle_i = agent_params(vehicle, i)
    w = trials.world[i]
    data = _world_data(worlds, w)
    wall_friction = worlds.wall_friction[w]
    state = VehicleState(trials.x[i], trials.y[i], trials.yaw[i], 0.0, 0.0, 0.0, 0.0)
    memory = FollowerMemory(
        math.nan, 0, math.nan, math.nan, 0.0, 0.0, 0.0, 0.0, 0.0, 0, 0, 0, False
    )
    free_space = FREE_SPACE_UNKNOWN
    s = 0.0  # the observer's tracked projection starts at the path's start
    segment = 0
    stuck = StuckMemory(0.0, 0.0, 0.0, 0, 0, 0)  # the observer's
    ended = _TIME_LIMIT
    recorded = 0
    commands = 0
    steer = math.nan
    throttle = math.nan
    k = 0
    while True:  # frame k: the observer's judgements (its end test), record, follower, vehicle
        # the time since the last frame as trial_metrics takes it from the records' t = k dt
        frame_time = float(k) * dt - float(k - 1) * dt if k > 0 else 0.0
        s, segment, arrived, cross_track, inside, stuck, event = _observer_frame(
            points, cum, halves, state.x, state.y, s, segment, stuck, k == 0, frame_time, observer
        )
        _record_frame(frames, first + k, state, (s, cross_track, inside, event))
        recorded += 1
        if arrived:
            ended = _ARRIVED
            break
        if k >= steps:
            break
        outputs, new_memory = _follow(
            (state.x, state.y, state.yaw, state.v), memory, params, path, follower, dt
        )
        memory = FollowerMemory(*new_memory)
        steer = outputs[0]
        throttle = outputs[1]
        _record_command(frames, first + k, outputs)
        commands += 1
        if memory.arrived:
            ended = _STOPPED_SHORT
            break
        if not (-1.0 <= steer <= 1.0 and -1.0 <= throttle <= 1.0):  # Vehicle.step refuses it
            ended = _BAD_COMMAND
            break
        state, _, free_space = _vehicle_world_frame(
            state, DriveCommand(steer, throttle), vehicle_i, data, wall_friction, free_space, dt
        )
        k += 1
        if not (
            math.isfinite(state.x)
            and math.isfinite(state.y)
            and math.isfinite(state.yaw)
            and math.isfinite(state.v)
            and math.isfinite(state.v_lat)
            and math.isfinite(state.yaw_rate)
            and math.isfinite(state.steer)
        ):
            ended = _NON_FINITE
            break
    if commands < recorded:  # no command at the last frame
        _record_command(
            frames, first + k, (math.nan, math.nan, math.nan, math.nan, math.nan, 0.0, False)
        )
    x, y, yaw, v, v_lat, yaw_rate, wheels = state
    set_agent(ends, i, (recorded, ended, x, y, yaw, v, v_lat, yaw_rate, wheels, steer, throttle))


@batch_kernel(composite=True, serial_limit=2)
def _drive_trials(
    trials,
    paths,
    observed,
    target_point,
    target_speed,
    speed_control,
    stuck,
    steering,
    arrival,
    follower_vehicle,
    vehicle,
    worlds,
    observer,
    frames,
    ends,
    queue,
):
    """``_drive_trial`` for every trial ``i`` of ``trials`` (a ``_Trials``). The follower's
    records come one by one and are nested here (``_follow_batch``'s reason).

    ``queue`` ``(lanes, counter)``: ``lanes`` (numba's threads) each take the next trial from
    ``counter`` (a 1-D int64 array holding 0) until none is left (``steerlab._jit.fetch_add``):
    trials differ in length, and a ``prange`` over them would give each thread a contiguous
    block of them, the longest ones all to the first thread."""
    lanes, counter = queue
    for _ in numba.prange(lanes):
        records = FollowerRecords(
            target_point, target_speed, speed_control, stuck, steering, arrival
        )
        while True:
            i = fetch_add(counter, 1)
            if i >= trials.x.size:
                break
            _drive_trial(
                i,
                trials,
                paths,
                observed,
                records,
                follower_vehicle,
                vehicle,
                worlds,
                observer,
                frames,
                ends,
            )


# --------------------------------------------------------------------------------------------------
# preparation: every spec resolved, validated, its shared parts built once


class _Trial(NamedTuple):
    """One spec, resolved (``_Batch.add``)."""

    row: dict  # the key columns and the suite's name
    polyline: object  # the suite's Polyline (the metrics' path)
    limit: float  # [s]
    dt: float  # [s]
    steps: int
    path: int  # index into the batch's paths
    world: int  # index into the batch's worlds
    setup: int  # index into the batch's (vehicle, follower) setups
    spawn: VehicleState


def _hashable(value) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


class _Batch:
    """The specs of a batch resolved, with what they share built once: suites, paths (the
    follower's and the observer's, in the ground plane), worlds, vehicle and follower setups."""

    def __init__(self):
        self.trials: list[_Trial] = []
        self._suites: dict = {}
        self._paths: dict = {}  # (suite source, path name) -> (index, polyline, limit, world)
        self.planar: list = []  # the paths in the ground plane
        self._worlds: dict[int, int] = {}  # id(World) -> index
        self.worlds: list = []
        self._setups: dict = {}
        self.setups: list[tuple] = []  # (FollowerRecords, _Vehicle, VehicleParams)
        # (suite source, path, vehicle name, seed, jitter) -> VehicleState: the followers of a
        # sweep share their trials' spawns (``spawn_state`` draws from a generator seeded by
        # the key's names, never the follower's)
        self._spawns: dict = {}

    def add(self, spec) -> None:
        spec, named_vehicle, named_follower = _check_spec(spec)
        suite = self._suites.get(spec.suite) if _hashable(spec.suite) else None
        if suite is None:
            suite = load_suite(spec.suite)
            if _hashable(spec.suite):
                self._suites[spec.suite] = suite
        path_key = (suite.source, spec.path)
        known = self._paths.get(path_key) if _hashable(spec.path) else None
        if known is None:
            polyline = suite.polyline(spec.path)
            world = suite.world(spec.path)
            if id(world) not in self._worlds:
                self._worlds[id(world)] = len(self.worlds)
                self.worlds.append(world)
            known = (
                len(self.planar),
                polyline,
                suite.time_limit(spec.path),
                self._worlds[id(world)],
            )
            self.planar.append(planar_path(polyline))
            if _hashable(spec.path):
                self._paths[path_key] = known
        path_index, polyline, limit, world_index = known
        setup_key = (named_vehicle, named_follower, spec.tuned_dir)
        setup = self._setups.get(setup_key) if _hashable(setup_key) else None
        if setup is None:
            vehicle = Vehicle(named_vehicle.params)
            follower = make_follower(
                named_follower, vehicle.params, named_vehicle.name, spec.tuned_dir or None
            )
            setup = len(self.setups)
            self.setups.append((follower.records, follower._vehicle, vehicle.params))
            if _hashable(setup_key):
                self._setups[setup_key] = setup
        spawn_key = (suite.source, spec.path, named_vehicle.name, int(spec.seed), bool(spec.jitter))
        spawn = self._spawns.get(spawn_key) if _hashable(spawn_key) else None
        if spawn is None:
            spawn = spawn_state(suite, spec.path, named_vehicle.name, spec.seed, bool(spec.jitter))
            if _hashable(spawn_key):
                self._spawns[spawn_key] = spawn
        dt = suite.dt
        self.trials.append(
            _Trial(
                row={
                    "path": spec.path,
                    "vehicle": named_vehicle.name,
                    "follower": named_follower.name,
                    "seed": int(spec.seed),
                    "suite": suite.name,
                },
                polyline=polyline,
                limit=limit,
                dt=dt,
                steps=math.ceil(limit / dt - 1e-9),
                path=path_index,
                world=world_index,
                setup=setup,
                spawn=spawn,
            )
        )


def _column(values: list) -> np.ndarray:
    """One value per entry as an array of the type numba gives those values one by one."""
    if all(isinstance(value, bool | np.bool_) for value in values):
        return np.array(values, dtype=np.bool_)
    if all(isinstance(value, int | np.integer) and not isinstance(value, bool) for value in values):
        return np.array(values, dtype=np.int64)
    return np.array(values, dtype=np.float64)


def _stacked(records: list, chosen: np.ndarray):
    """The records (one per setup, of one type) as one record of that type whose fields hold
    the value of each entry of ``chosen`` (setup indices); nested records likewise."""
    first = records[0]
    fields = []
    for k, value in enumerate(first):
        column = [record[k] for record in records]
        if isinstance(value, tuple):
            fields.append(_stacked(column, chosen))
        else:
            fields.append(_column(column)[chosen])
    return type(first)(*fields)


def _packed_paths(planar: list, chosen: np.ndarray) -> _Observed:
    """The paths in the ground plane packed with their half widths, trial ``i``'s the one of
    index ``chosen[i]`` (the followers' ``_PackedPaths`` are its first fields)."""
    counts = np.array([path.points_3d.shape[0] for path in planar], dtype=np.int64)
    firsts = np.zeros(len(planar), dtype=np.int64)
    firsts[1:] = np.cumsum(counts)[:-1]
    points = np.ascontiguousarray(np.concatenate([path.points_3d for path in planar]))
    cum = np.ascontiguousarray(np.concatenate([path.cumulative_length for path in planar]))
    halves = np.concatenate([np.append(half_widths(path), math.inf) for path in planar])
    return _Observed(points, cum, halves, firsts[chosen], counts[chosen])


def _packed_worlds(worlds: list) -> _Worlds:
    datas = [world.data for world in worlds]
    heights = [np.ascontiguousarray(data.heights, dtype=np.float64) for data in datas]
    starts = [np.ascontiguousarray(data.grid_start, dtype=np.int64) for data in datas]
    segments = [
        np.ascontiguousarray(data.grid_segments, dtype=np.float64).reshape(-1, 4) for data in datas
    ]

    def firsts(arrays):
        sizes = np.array([array.shape[0] for array in arrays], dtype=np.int64)
        return np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64), sizes

    flat = [array.ravel() for array in heights]
    return _Worlds(
        height_origin_x=np.array([data.height_origin_x for data in datas], dtype=np.float64),
        height_origin_y=np.array([data.height_origin_y for data in datas], dtype=np.float64),
        height_cell=np.array([data.height_cell for data in datas], dtype=np.float64),
        heights=np.concatenate(flat),
        heights_first=firsts(flat)[0],
        heights_ny=np.array([array.shape[0] for array in heights], dtype=np.int64),
        heights_nx=np.array([array.shape[1] for array in heights], dtype=np.int64),
        grid_origin_x=np.array([data.grid_origin_x for data in datas], dtype=np.float64),
        grid_origin_y=np.array([data.grid_origin_y for data in datas], dtype=np.float64),
        grid_cell=np.array([data.grid_cell for data in datas], dtype=np.float64),
        grid_nx=np.array([data.grid_nx for data in datas], dtype=np.int64),
        grid_ny=np.array([data.grid_ny for data in datas], dtype=np.int64),
        grid_start=np.concatenate(starts),
        grid_start_first=firsts(starts)[0],
        grid_segments=np.ascontiguousarray(np.concatenate(segments)),
        grid_segments_first=firsts(segments)[0],
        grid_segments_count=firsts(segments)[1],
        skin=np.array([data.skin for data in datas], dtype=np.float64),
        wall_friction=np.array([world.wall_friction for world in worlds], dtype=np.float64),
    )


# --------------------------------------------------------------------------------------------------
# running


def _frames(rows: int, records: bool) -> _Frames:
    """Frame buffers for ``rows`` frames (``_Frames``): the optional ones sized for
    ``simulate_batch``'s ``records``, and the body speeds where the ground speed is evaluated in
    Python."""
    state = rows if records or not PYTHON_HYPOT_EXACT else 0
    extra = rows if records else 0
    return _Frames(
        *(np.empty(rows) for _ in range(5)),
        np.empty(rows, dtype=np.bool_),
        np.empty(rows, dtype=np.bool_),
        *(np.empty(state) for _ in range(3)),
        *(np.empty(extra) for _ in range(5)),
        np.zeros(extra, dtype=np.bool_),
    )


def _run_chunk(batch: _Batch, chosen: list[int], worlds: _Worlds, frames: _Frames):
    """Run the trials ``chosen`` (indices into ``batch.trials``) in one call of the loop, their
    frames into ``frames`` (``_frames``, rows enough); their start rows and ends."""
    trials = [batch.trials[index] for index in chosen]
    size = len(trials)
    lengths = np.array([trial.steps + 1 for trial in trials], dtype=np.int64)
    first = np.zeros(size, dtype=np.int64)
    first[1:] = np.cumsum(lengths)[:-1]
    packed = _Trials(
        x=np.array([trial.spawn.x for trial in trials], dtype=np.float64),
        y=np.array([trial.spawn.y for trial in trials], dtype=np.float64),
        yaw=np.array([trial.spawn.yaw for trial in trials], dtype=np.float64),
        dt=np.array([trial.dt for trial in trials], dtype=np.float64),
        steps=np.array([trial.steps for trial in trials], dtype=np.int64),
        world=np.array([trial.world for trial in trials], dtype=np.int64),
        first=first,
    )
    observed = _packed_paths(
        batch.planar, np.array([trial.path for trial in trials], dtype=np.int64)
    )
    paths = _PackedPaths(observed.points, observed.cum, observed.first, observed.count)
    setups = np.array([trial.setup for trial in trials], dtype=np.int64)
    follower_records = _stacked([setup[0] for setup in batch.setups], setups)
    follower_vehicle = _stacked([setup[1] for setup in batch.setups], setups)
    vehicle = _stacked([setup[2] for setup in batch.setups], setups)
    ends = _Ends(
        np.zeros(size, dtype=np.int64),
        np.zeros(size, dtype=np.int64),
        *(np.zeros(size) for _ in range(9)),
    )
    queue = (numba.get_num_threads(), np.zeros(1, dtype=np.int64))
    _drive_trials(
        packed,
        paths,
        observed,
        *follower_records,
        follower_vehicle,
        vehicle,
        worlds,
        tuple(OBSERVER),
        frames,
        ends,
        queue,
    )
    return frames, first, ends


def _failure(ends: _Ends, i: int, dt: float) -> str:
    """``drive_trial``'s reason for a failed trial (``""`` if it did not fail)."""
    code = int(ends.ended[i])
    if code == _NON_FINITE:
        state = VehicleState(*(float(ends[k][i]) for k in range(2, 9)))
        k = int(ends.frames[i])
        return f"non-finite vehicle state at t = {k * dt:.6g} s: {_finite(state)}"
    if code == _BAD_COMMAND:
        command = DriveCommand(float(ends.steer_command[i]), float(ends.throttle_command[i]))
        k = int(ends.frames[i]) - 1
        try:
            check_drive_command(command)
        except ValueError as error:
            return f"{type(error).__name__} at t = {k * dt:.6g} s: {error}"
    return ""


def _finish(trial: _Trial, frames: _Frames, start: int, ends: _Ends, i: int, records: bool):
    """The row of a trial run in the loop (and its records): ``run_trial``'s reductions
    (``reduce_frames``, ``judged_stalls``) of its frames and the observer's judgements."""
    count = int(ends.frames[i])
    end = count - 1  # the arrival frame, else the last: no frame after it was run
    span = slice(start, start + count)
    t = np.arange(count, dtype=np.float64) * trial.dt  # k dt, as drive_trial's records
    x = frames.x[span]
    y = frames.y[span]
    if PYTHON_HYPOT_EXACT:
        speed = frames.speed[span]
    else:  # VehicleState.speed
        speed = np.fromiter(
            map(math.hypot, frames.v[span].tolist(), frames.v_lat[span].tolist()),
            dtype=np.float64,
            count=count,
        )
    judged = FrameMetrics(
        frames.s[span], frames.cross_track[span], frames.inside[span], frames.stuck_event[span], end
    )
    code = int(ends.ended[i])
    metrics = reduce_frames(t, x, y, speed, judged, code == _ARRIVED, trial.limit)
    ended = _ENDED[code]
    stalls = judged_stalls(
        judged.s, judged.stuck_event, end, metrics.distance, float(t[end] - t[0]), ended
    )
    row = {
        **trial.row,
        **metrics._asdict(),
        "ended": ended,
        "failed": _failure(ends, i, trial.dt),
        **dict(zip(STALL_COLUMNS, stalls, strict=True)),
    }
    if not records:
        return row, None
    trial_records = TrialRecords(
        t=t,
        x=x.copy(),
        y=y.copy(),
        yaw=frames.yaw[span].copy(),
        v=frames.v[span].copy(),
        speed=speed.copy(),
        steer=frames.steer[span].copy(),
        throttle=frames.throttle[span].copy(),
        target_speed=frames.target_speed[span].copy(),
        target_x=frames.target_x[span].copy(),
        target_y=frames.target_y[span].copy(),
        follower_stuck=frames.follower_stuck[span].copy(),
        metrics=FrameMetrics(*(array.copy() for array in judged[:4]), end),
    )
    return row, trial_records


def _check_threads(threads) -> int | None:
    if threads is None:
        return None
    limit = numba.config.NUMBA_NUM_THREADS
    if isinstance(threads, bool) or not isinstance(threads, int | np.integer):
        raise ValueError(f"threads must be an integer in [1, {limit}] or None, got {threads!r}")
    if not 1 <= int(threads) <= limit:
        raise ValueError(f"threads must be in [1, {limit}] (numba's threads), got {threads!r}")
    return int(threads)


def _run(specs, threads, records: bool) -> list[tuple[dict, TrialRecords | None]]:
    if isinstance(specs, str | bytes) or not isinstance(specs, Sequence):
        raise ValueError(f"specs must be a sequence of TrialSpec, got {specs!r}")
    threads = _check_threads(threads)
    batch = _Batch()
    for index, spec in enumerate(specs):
        try:
            batch.add(spec)
        except ValueError as error:
            raise ValueError(f"specs[{index}]: {error}") from None
    if not batch.trials:
        return []
    worlds = _packed_worlds(batch.worlds)
    # longest first, so that the threads of a chunk finish together; chunks within the budget
    # and small enough that the rows of one are made while the next runs
    order = sorted(range(len(batch.trials)), key=lambda index: -batch.trials[index].steps)
    total = sum(trial.steps + 1 for trial in batch.trials)
    budget = FRAME_BUDGET // 3 if records else FRAME_BUDGET
    budget = min(budget, max(total // _PIPELINE, _MIN_CHUNK))
    chunks: list[list[int]] = []
    rows = 0
    for index in order:
        length = batch.trials[index].steps + 1
        if not chunks or rows + length > budget:
            chunks.append([])
            rows = 0
        chunks[-1].append(index)
        rows += length
    results: list = [None] * len(batch.trials)
    # two sets of frame buffers, one filled by the loop while the rows of the other are made
    # (reused: fresh pages cost the kernel's zeroing at their first write)
    rows = max(sum(batch.trials[index].steps + 1 for index in chunk) for chunk in chunks)
    buffers = [_frames(rows, records) for _ in range(min(2, len(chunks)))]

    def run(position):
        if threads is not None:  # numba's thread count is the calling thread's own
            numba.set_num_threads(threads)
        return _run_chunk(batch, chunks[position], worlds, buffers[position % 2])

    # the loop (which releases the interpreter) runs the next chunk on a thread of its own
    # while this one makes the rows of the last
    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(run, 0)
        for position, chunk in enumerate(chunks):
            frames, first, ends = pending.result()
            if position + 1 < len(chunks):
                pending = pool.submit(run, position + 1)
            for i, index in enumerate(chunk):
                results[index] = _finish(
                    batch.trials[index], frames, int(first[i]), ends, i, records
                )
    return results


def run_batch(specs: Sequence[TrialSpec], *, threads: int | None = None) -> list[dict]:
    """The rows of many trials (module docstring): ``run_trial(spec)``'s row for each spec, bit
    for bit, then its stall columns (``BATCH_COLUMNS``), in the specs' order.

    Parameters
    ----------
    specs : sequence of TrialSpec
        Any mix of suites, paths, vehicles, followers (``NamedFollower`` sweeps too), tuned
        folders and seeds.
    threads : int, optional
        numba threads for the loop, ``1 <= threads <=`` numba's thread count; default numba's
        current setting. The rows do not depend on it.

    Returns
    -------
    list of dict
        One row per spec (``BATCH_COLUMNS``).

    Raises
    ------
    ValueError
        Before any trial runs: ``specs`` not a sequence; a spec that ``run_trial`` would refuse
        (not a ``TrialSpec``, an unknown suite, path, vehicle or follower, a bad seed, a missing
        tuned preset), the message starting with ``specs[i]``; ``threads`` out of range. Once
        the trials run, failures are rows (``ended == "failed"``), never raised.
    """
    return [row for row, _ in _run(specs, threads, records=False)]


def simulate_batch(
    specs: Sequence[TrialSpec], *, threads: int | None = None
) -> list[tuple[dict, TrialRecords]]:
    """``run_batch``'s rows with each trial's per-frame ``TrialRecords`` (as
    ``simulate_trial``'s, bit for bit): for replays and plots. The buffers hold every frame's
    command and follower figures too, so chunks are a third of ``run_batch``'s."""
    return _run(specs, threads, records=True)
