"""Hostile input the fuzz test (tests/test_fuzz.py) covers at random, each known
case as a focused test of what the user expects: a ValueError naming the argument, the value and
what is allowed, before any work is done."""

import json
import math
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from steerlab._checks import check_finite, check_nonnegative, check_positive
from steerlab.engines import AgentBatch, HalfLifeEngine, HalfLifeParams
from steerlab.engines.halflife import stop_distance
from steerlab.engines.unicycle import Unicycle, UnicycleBatch
from steerlab.geometry import Polyline
from steerlab.laws import SeekPoint
from steerlab.navigation import load_navdata
from steerlab.runner import Task, read_results, run_tasks
from steerlab.trials.suite import load_suite
from steerlab.vehicles import PRESETS, Vehicle, VehicleBatch
from steerlab.world.terrain import MAX_GRID_NODES

# --------------------------------------------------------------------------------------------------
# one rule for numeric strings and booleans: refused everywhere


class Opaque:
    """An object that is no number (a fixed repr: the same test ids in every xdist worker)."""

    def __repr__(self) -> str:
        return "Opaque()"


NOT_NUMBERS = ["3.0", "nan", True, False, np.bool_(True), None, b"1", 1 + 0j, Opaque()]


@pytest.mark.parametrize("value", NOT_NUMBERS, ids=repr)
@pytest.mark.parametrize("check", [check_finite, check_positive, check_nonnegative])
def test_the_shared_checks_refuse_text_and_booleans(check, value):
    with pytest.raises(ValueError, match=r"^friction must be"):
        check("friction", value)


@pytest.mark.parametrize("values", [["1.0", "2.0"], [True, False], np.array([True, False])])
def test_per_agent_values_of_text_or_booleans_are_refused(values):
    with pytest.raises(ValueError, match=r"^friction must be a number or one number per agent"):
        check_positive("friction", values)


@pytest.mark.parametrize(
    "make",
    [
        lambda value: HalfLifeEngine(HalfLifeParams(friction=value)),
        lambda value: stop_distance(value, 0.01),
        lambda value: SeekPoint((value, 0.0)),
        lambda value: Polyline([(0.0, 0.0), (value, 1.0)]),
    ],
    ids=["HalfLifeParams.friction", "stop_distance.speed", "SeekPoint.target", "Polyline.points"],
)
@pytest.mark.parametrize("value", ["4.0", True], ids=repr)
def test_public_entries_refuse_text_and_booleans_as_numbers(make, value):
    with pytest.raises(ValueError, match=r"must be .*got|must be"):
        make(value)


def test_integers_too_large_for_a_float_are_refused_by_name():
    with pytest.raises(ValueError, match=r"^friction must be finite"):
        check_positive("friction", 10**400)


# --------------------------------------------------------------------------------------------------
# a batch field written in place after construction


def _batches():
    return [
        ("engine", AgentBatch.zeros(6), lambda b: HalfLifeEngine().step_batch(b, 0.0, 100.0, 0.02)),
        (
            "unicycle",
            UnicycleBatch(np.zeros(6), np.zeros(6), np.zeros(6)),
            lambda b: Unicycle().step_batch(b, 1.0, 0.0, 0.02),
        ),
        (
            "vehicle",
            VehicleBatch(np.zeros(6), np.zeros(6), np.zeros(6)),
            lambda b: Vehicle(PRESETS["storm"]).step_batch(b, 0.0, 1.0, 0.02),
        ),
        (
            "law",
            AgentBatch.zeros(6),
            lambda b: SeekPoint((100.0, 50.0)).step_batch(b, 0.02),
        ),
    ]


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf], ids=repr)
@pytest.mark.parametrize("case", range(4))
def test_a_non_finite_value_written_into_a_batch_is_refused_before_the_step(case, bad):
    _, batch, step = _batches()[case]
    for field in type(batch).STATE._fields:
        getattr(batch, field)[3] = bad
        before = [array.copy() for array in batch._FIELDS(batch)]
        with pytest.raises(ValueError, match=rf"{field}\[3\] must be finite, got {bad!r}"):
            step(batch)
        for old, new in zip(before, batch._FIELDS(batch), strict=True):  # nothing spread
            np.testing.assert_array_equal(old, new)
        getattr(batch, field)[3] = 0.0
    step(batch)  # repaired: runs, and every agent stays finite
    assert all(np.isfinite(array).all() for array in batch._FIELDS(batch))


# --------------------------------------------------------------------------------------------------
# a corridors2 crossing that does not cross


def test_a_declared_crossing_that_does_not_cross_is_refused_at_load(tmp_path):
    path = tmp_path / "corridors.json"
    segments = [
        {"id": "a", "start": [0, 0, 0], "end": [100, 0, 0], "width": 10},
        {"id": "b", "start": [0, 50, 0], "end": [100, 50, 0], "width": 10},  # parallel, 50 away
        {"id": "c", "start": [50, -20, 0], "end": [50, 70, 0], "width": 4},  # crosses both
    ]
    crossings = [["a", "c"], ["a", "b"], ["b", "c"]]
    data = {"kind": "corridors2", "segments": segments, "crossings": crossings}
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError) as error:
        load_navdata(path)
    message = str(error.value)
    assert type(error.value) is ValueError
    assert "crossings[1]" in message and "'a'" in message and "'b'" in message
    assert "crossings[0]" not in message and "crossings[2]" not in message
    data["crossings"] = [crossings[0], crossings[2]]
    path.write_text(json.dumps(data))
    load_navdata(path)  # the crossings that do cross load


# --------------------------------------------------------------------------------------------------
# a suite whose terrain grid would not fit


def test_a_terrain_cell_too_small_for_a_path_is_refused_at_load_without_allocating(tmp_path):
    path = tmp_path / "suite.toml"
    path.write_text(
        'name = "tiny"\nversion = 1\nterrain_cell = 0.001\nterrain_margin = 40.0\n'
        '[[paths]]\nname = "hill"\nwaypoints = [[0, 0], [300, 0], [300, 200]]\n'
        "corridor_width = 10.0\n"
        "hills = [{center = [150, 0], height = 8.0, max_grade_deg = 20.0}]\n"
    )
    start = time.perf_counter()
    with pytest.raises(ValueError) as error:
        load_suite(path)
    assert time.perf_counter() - start < 5.0
    message = str(error.value)
    # the grid by hand: the waypoints' box grown by the margin and the corridor's width
    nx = math.ceil((300 + 2 * 50) / 0.001) + 1
    ny = math.ceil((200 + 2 * 50) / 0.001) + 1
    assert "terrain_cell" in message and "'hill'" in message
    assert f"{nx * ny:.4g}" in message and str(MAX_GRID_NODES) in message


def test_a_terrain_cell_that_fits_loads_and_builds_its_grid(tmp_path):
    path = tmp_path / "suite.toml"
    path.write_text(
        'name = "fits"\nversion = 1\nterrain_cell = 2.0\nterrain_margin = 0.0\n'
        '[[paths]]\nname = "hill"\nwaypoints = [[0, 0], [100, 0]]\ncorridor_width = 10.0\n'
        "hills = [{center = [50, 0], height = 8.0, max_grade_deg = 20.0}]\n"
    )
    terrain = load_suite(path).terrain("hill")
    # by hand: the waypoints' box grown by the corridor's width, 10 m, a node every 2 m
    assert terrain.heights.shape == (math.ceil(20 / 2) + 1, math.ceil(120 / 2) + 1)


# --------------------------------------------------------------------------------------------------
# a resumed run checks the whole results file first


CALLS = []


def _square(payload):
    CALLS.append(payload)
    return {"value": payload * payload}


def test_a_resumed_run_names_the_file_line_and_column_of_a_bad_value_before_running(tmp_path):
    tasks = [Task((i,), i) for i in range(4)]
    options = dict(columns={"i": int, "value": int}, manifest={"m": 1}, workers=1,
                   progress=False, parquet=False)  # fmt: skip
    run_tasks(tasks[:4], _square, tmp_path, **options)
    results = tmp_path / "results.csv"
    lines = results.read_text().splitlines()
    # an interrupted run: two rows written, the second one damaged
    results.write_text("\n".join([lines[0], lines[1], lines[2].replace(",1,", ",12x,")]) + "\n")
    assert lines[2] == "1,1,"
    CALLS.clear()
    with pytest.raises(ValueError) as error:
        run_tasks(tasks, _square, tmp_path, **options)
    message = str(error.value)
    assert str(results) in message and "line 3" in message
    assert "column 2 ('value')" in message and "'12x'" in message
    assert CALLS == []  # found before any remaining task ran
    with pytest.raises(ValueError, match=r"line 3, column 2 \('value'\): '12x' is not a int"):
        read_results(tmp_path)


# --------------------------------------------------------------------------------------------------
# scalar entries given arrays, switches given non-booleans, shapes that do not broadcast


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: _angles().sincos(np.zeros(3)), "angle"),
        (lambda: _angles().atan2(np.zeros(3), 1.0), "y"),
        (lambda: stop_distance(100.0, 0.01, exact=np.array([True, False])), "exact"),
        (lambda: stop_distance(100.0, 0.01, exact=1), "exact"),
        (lambda: stop_distance(100.0, 0.01, exact="yes"), "exact"),
        (lambda: _fit_conic()(np.zeros(3), np.zeros(5), 0.0), "x, y and heading"),
    ],
    ids=["sincos", "atan2", "exact-array", "exact-int", "exact-text", "fit_conic-shapes"],
)
def test_scalar_arguments_and_switches_refuse_what_they_cannot_be_by_name(call, name):
    with pytest.raises(ValueError, match=rf"^{name} must"):
        call()


def _angles():
    from steerlab.geometry import angles

    return angles


def _fit_conic():
    from steerlab.laws import fit_conic

    return fit_conic


# --------------------------------------------------------------------------------------------------
# a vehicle's frame time: finite states down to MIN_DT, refused below it


@pytest.mark.parametrize("dt", [1e-160, 1e-300, 5e-324, 1e-10])
def test_a_vehicle_frame_shorter_than_min_dt_is_refused_by_name(dt):
    from steerlab.vehicles import DriveCommand, VehicleState

    vehicle = Vehicle(PRESETS["storm"])
    with pytest.raises(ValueError, match=r"^dt must be >= 1e-09"):
        vehicle.step(VehicleState(v=5.0), DriveCommand(0.1, 0.5), dt)
    batch = VehicleBatch(np.zeros(2), np.zeros(2), np.zeros(2))
    with pytest.raises(ValueError, match=r"^dt must be >= 1e-09"):
        vehicle.step_batch(batch, 0.1, 0.5, dt)


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(sorted(PRESETS)),
    exponent=st.floats(-9.0, -1.0),
    v=st.floats(-10.0, 30.0),
    v_lat=st.floats(-5.0, 5.0),
    yaw_rate=st.floats(-2.0, 2.0),
    steer=st.floats(-1.0, 1.0),
    throttle=st.floats(-1.0, 1.0),
)
def test_every_vehicle_stays_finite_for_every_frame_time_it_accepts(
    name, exponent, v, v_lat, yaw_rate, steer, throttle
):
    """The lateral solve's matrix is formed in N s/m (``m / dt``): from MIN_DT up to 0.1 s a
    finite state and command give a finite state."""
    from steerlab.vehicles import DriveCommand, VehicleState

    params = PRESETS[name]
    state = VehicleState(v=v, v_lat=v_lat, yaw_rate=yaw_rate, steer=0.5 * steer * params.max_steer)
    after = Vehicle(params).step(state, DriveCommand(steer, throttle), 10.0**exponent)
    assert all(math.isfinite(value) for value in after), after


# --------------------------------------------------------------------------------------------------
# more entries found by the thorough fuzz profile


def _follower_target_speed():
    from steerlab.follower import target_speed

    return target_speed


def _funnel(target):
    from steerlab.funnel import EtaTable, Funnel

    return Funnel(EtaTable.load_or_build(), target=target, course=0.0)


def _follower(**options):
    from steerlab.follower import PathFollower

    return PathFollower(PRESETS["storm"], **options)


def _follower_params(**fields):
    from steerlab.follower import FollowerParams
    from steerlab.follower.params import check_follower_params

    return check_follower_params(FollowerParams(**fields))


PATH = [(0.0, 0.0), (50.0, 0.0), (80.0, 30.0)]


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: _follower_target_speed()((10**400, 0.0), PATH), "position"),
        (lambda: _follower_target_speed()((1.0, 0.0), PATH, n=2**63), "n"),
        (lambda: _follower_target_speed()((1.0, 0.0), PATH, v_min="1.0"), "v_min"),
        (lambda: _follower_target_speed()((1.0, 0.0), PATH, v_max=True), "v_max"),
        (lambda: _follower(variant=["ours"]), "variant"),
        (lambda: _follower_params(a_lat="0.5"), "follower_params.a_lat"),
        (lambda: _follower_params(dh=10**400), "follower_params.dh"),
        (lambda: _follower_params(v_max=False), "follower_params.v_max"),
        (lambda: HalfLifeEngine(HalfLifeParams(model=Opaque())), "model"),
        (lambda: HalfLifeEngine(HalfLifeParams(model=[])), "model"),
    ],
    ids=[
        "target_speed.position",
        "target_speed.n",
        "target_speed.v_min-text",
        "target_speed.v_max-bool",
        "PathFollower.variant",
        "FollowerParams.a_lat-text",
        "FollowerParams.dh-huge",
        "FollowerParams.v_max-bool",
        "HalfLifeParams.model-object",
        "HalfLifeParams.model-empty",
    ],
)
def test_followers_and_engines_name_what_they_cannot_take(call, name):
    with pytest.raises(ValueError, match=rf"^{name} must"):
        call()


@pytest.mark.parametrize(
    "target, name",
    [((10**400, 0.0), "target"), (("1.0", "2.0"), "target"), ((True, 0.0), "target")],
    ids=["huge", "text", "bool"],
)
def test_a_funnel_target_of_no_numbers_is_refused_by_name(target, name):
    with pytest.raises(ValueError, match=rf"^{name} must"):
        _funnel(target)


@pytest.mark.parametrize(
    "options, name",
    [
        ({"curvature_samples": 2**63}, "curvature_samples"),
        ({"curvature_samples": 10**6}, "curvature_samples"),
        ({"curvature_spacing": [1.0]}, "curvature_spacing"),
        ({"curvature_spacing": 1e-300}, "curvature_spacing"),
        ({"time_limit": np.array([1, 2], dtype=np.int8)}, "time_limit"),
        ({"time_limit": [1.0]}, "time_limit"),
        ({"cross_track_limit": np.array([1.0, 2.0])}, "cross_track_limit"),
        ({"stuck_speed": "0.5"}, "stuck_speed"),
    ],
    ids=repr,
)
def test_the_environments_scalars_are_one_number_each_within_bounds(options, name):
    pytest.importorskip("gymnasium")
    from steerlab.envs import PathFollowingEnv

    with pytest.raises(ValueError, match=rf"^{name} must"):
        PathFollowingEnv(**options)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: _along(version=np.array([])), "version"),
        (lambda: _along(version=1.0), "version"),
        (lambda: _stop(method=np.array([])), "method"),
        (lambda: _metrics(shape=np.array([])), "shape"),
        (lambda: _metrics(goal_radius=[1.0, 2.0]), "goal_radius"),
        (lambda: _terrain().plane(0.0, [1.0], (-1.0, 0.0), (-1.0, 0.0), 1.0), "direction"),
        (
            lambda: _terrain().Heightfield.from_function(_flat, (0, 100), (0, 100), [1.0]),
            "cell_size",
        ),
        (lambda: Polyline([(0.0, 0.0), (10.0, 0.0)]).point_at([1.0, 2.0]), "s"),
    ],
    ids=[
        "along-version-array",
        "along-version-float",
        "stop-method",
        "metrics-shape",
        "metrics-goal_radius",
        "plane-direction",
        "from_function-cell_size",
        "polyline-s",
    ],
)
def test_scalar_arguments_given_sequences_are_refused_by_name(call, name):
    with pytest.raises(ValueError, match=rf"^{name} must"):
        call()


def _route():
    from steerlab.navigation import example_navdata, find_route

    return find_route(load_navdata(example_navdata("level.toml")), "s1", "g1")


def _along(**options):
    from steerlab.navigation import AlongSegments

    return AlongSegments(_route(), **options)


def _stop(**options):
    from steerlab.laws import StopAt

    return StopAt((0.0, 0.0), **options)


def _metrics(**options):
    from steerlab.navigation import corridor_metrics

    return corridor_metrics(np.zeros((1, 2)), _route(), **options)


def _terrain():
    from steerlab.world import terrain

    return terrain


def _flat(x, y):
    return np.zeros_like(x)


@pytest.mark.parametrize("engine", [HalfLifeEngine, "base"], ids=["halflife", "base"])
@pytest.mark.parametrize("yaw", [1e308, -1e300, 2.0**60 + 0.5])
def test_a_huge_yaw_is_the_same_heading_reduced_exactly(engine, yaw):
    """A yaw of any finite size is a heading: the step from it equals the step from the same
    yaw reduced modulo 2 pi (math.fmod: exact), and stays finite."""
    from steerlab.engines import AgentState, BaseEngine, Command

    make = BaseEngine if engine == "base" else engine
    reduced = math.fmod(yaw, 2.0 * math.pi)
    for state, command, same_state, same_command in (
        (
            AgentState(0.0, 0.0, 0.0, 0.0, yaw),
            Command(1.0, 100.0),
            AgentState(0.0, 0.0, 0.0, 0.0, reduced),
            Command(1.0, 100.0),
        ),
        (
            AgentState(0.0, 0.0, 0.0, 0.0, 0.5),
            Command(yaw, 100.0),
            AgentState(0.0, 0.0, 0.0, 0.0, 0.5),
            Command(reduced, 100.0),
        ),
    ):
        after = make().step(state, command, 0.0625)
        expected = make().step(same_state, same_command, 0.0625)
        assert all(math.isfinite(value) for value in after)
        assert after[:4] == pytest.approx(expected[:4], abs=1e-9)
        assert math.remainder(after.yaw - expected.yaw, 2.0 * math.pi) == pytest.approx(
            0.0, abs=1e-9
        )


def test_the_base_engine_stop_distance_of_a_huge_frame_is_the_linear_phase_alone():
    from steerlab.engines.base import base_engine_stop_distance

    assert base_engine_stop_distance(2.0, 1e308) == 0.0  # 1 - exp(-k T) = 1: stopped in a frame


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: _terrain().hill((0.0, 0.0), 1e308, 1.0, 1.0), "cell_size"),
        (lambda: _walls(10**400), "ax"),
        (lambda: _walls("1.0"), "ax"),
        (lambda: _unicycle_batch(accel=Opaque()), "accel"),
        (lambda: _unicycle_batch(accel=""), "accel"),
    ],
    ids=["hill-huge", "walls-huge-int", "walls-text", "unicycle-object", "unicycle-text"],
)
def test_world_and_unicycle_entries_name_what_they_cannot_take(call, name):
    with pytest.raises(ValueError, match=rf"^{name}"):
        call()


def _walls(value):
    from steerlab.world import Walls

    return Walls([value], [0.0], [1.0], [1.0])


def _unicycle_batch(accel):
    batch = UnicycleBatch(np.zeros(2), np.zeros(2), np.zeros(2))
    Unicycle().step_batch(batch, accel, 0.0, 0.02)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: _world_move(([1.0, 2.0, 3.0], 0.0)), r"position\[0\]"),
        (lambda: _world_move(([1.0], 0.0)), r"position\[0\]"),
        (lambda: _terrain().plane(0.0, 0.0, [[1.0, 2.0], [3.0]], (0.0, 1.0), 1.0), r"x_range\[0\]"),
        (
            lambda: _terrain().Heightfield(np.zeros((4, 4)), 1.0, [[1.0, 2.0], [3.0]]),
            r"origin\[0\]",
        ),
    ],
    ids=["move-position-list", "move-position-one", "plane-range", "heightfield-origin"],
)
def test_a_point_of_sequences_is_refused_by_coordinate(call, name):
    with pytest.raises(ValueError, match=rf"^{name} must be a finite number"):
        call()


def _world_move(position):
    from steerlab.world import Footprint, World

    return World().move(position, (0.0, 0.0), 0.0, Footprint("circle", 1.0, 1.0))


@pytest.mark.parametrize("dt", [1e-320, 1e-17, 1e-12])
@pytest.mark.parametrize("decel", [-math.inf, -100.0])
def test_the_base_engine_stop_distance_tends_to_its_continuous_limit(dt, decel):
    """dv/dt = max(-k v, D): (v0^2 - v*^2) / (2 |D|) + v*/k with v* = |D|/k (v0/k unbounded);
    within the rounding of the engine's own gain 1 - exp(-k T) (2.5e-5 relative at k T = 4e-12)."""
    from steerlab.engines import BaseEngineParams
    from steerlab.engines.base import base_engine_stop_distance

    k, v0 = 4.0, 300.0
    threshold = 0.0 if decel == -math.inf else -decel / k
    limit = v0 / k if decel == -math.inf else (v0**2 - threshold**2) / (-2 * decel) + threshold / k
    params = BaseEngineParams(k_speed=k, decel_long_max=decel)
    assert base_engine_stop_distance(v0, dt, params) == pytest.approx(limit, rel=1e-4)


def test_a_huge_speed_steps_to_a_finite_state():
    from steerlab.engines import AgentState, BaseEngine, BaseEngineParams, Command

    after = BaseEngine(BaseEngineParams(k_speed=1.0)).step(
        AgentState(0.0, 0.0, 1e308, 1e300, 0.0), Command(0.0, 0.0), 0.0625
    )
    assert all(math.isfinite(value) for value in after)
    assert 0.0 < after.vx < 1e308  # braking towards the zero command


def test_a_hill_too_far_for_the_grid_names_its_center():
    with pytest.raises(ValueError, match=r"^center \(1e\+308, 0\.0\) is too far"):
        _terrain().hill((1e308, 0.0), 1.0, 1.0, 1.0)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: _stalls(s=[10**400]), "s"),
        (lambda: _stalls(s=["1.0"]), "s"),
        (lambda: _stalls(stuck_event=["no"]), "stuck_event"),
        (lambda: _stalls(stuck_event=[2]), "stuck_event"),
    ],
    ids=["s-huge", "s-text", "event-text", "event-two"],
)
def test_stall_counts_refuse_what_is_no_number_or_flag_by_name(call, name):
    with pytest.raises(ValueError, match=rf"^{name}"):
        call()


def _stalls(**given):
    from steerlab.trials.stalls import stall_counts

    arrays = {"t": [0.0], "x": [0.0], "y": [0.0], "s": [0.0], "stuck_event": [False], **given}
    return stall_counts(*arrays.values())


def test_a_vehicle_file_whose_kind_is_no_name_names_the_file(tmp_path):
    from steerlab.vehicles import read_vehicle

    path = tmp_path / "bad.toml"
    path.write_text('name = "x"\nkind = []\n')
    with pytest.raises(ValueError, match=r"bad\.toml: kind must be one of"):
        read_vehicle(path)
