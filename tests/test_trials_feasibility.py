"""The feasibility gate (issue 18): the best-case driver on hand-built suites.

Which pairs are feasible is decided here by physics, not read from the gate: a vehicle can hold
a grade ``theta`` at most while its largest tractive force beats gravity and rolling resistance
along the slope, ``F >= m g (sin theta + c_rr cos theta)``; a wall across a walled corridor
cannot be passed by anything.
"""

import math

import pytest

from steerlab.follower import PathFollower
from steerlab.trials.feasibility import (
    LOOKAHEAD_FLOOR,
    Feasibility,
    best_case_params,
    feasible,
    infeasible_pairs,
    pairs_feasibility,
    suite_feasibility,
)
from steerlab.trials.suite import load_suite
from steerlab.trials.trial import TrialSpec, drive_trial, run_trial, spawn_state
from steerlab.vehicles import PRESETS, Vehicle, VehicleState
from steerlab.vehicles.params import GRAVITY

RAMP_START, RAMP_LENGTH = 20.0, 100.0  # [m] along x
WALL_X = 50.0  # [m] the wall across the blocked corridor


def steepest_grade_deg(params) -> float:
    """[degrees] the steepest grade a vehicle's engine force holds at low speed: the root of
    ``sin theta + c_rr cos theta = F / (m g)`` (drag neglected: it only lowers it)."""
    ratio = params.engine_force / (params.mass * GRAVITY)
    c = params.rolling_resistance
    # sin(theta) + c cos(theta) = sqrt(1 + c^2) sin(theta + atan(c))
    return math.degrees(math.asin(ratio / math.sqrt(1.0 + c * c)) - math.atan(c))


HOVER_GRADE = steepest_grade_deg(PRESETS["hovercraft"])
STEEP = 2.0 * HOVER_GRADE  # clearly beyond the hovercraft's thrust ...
GENTLE = 0.4 * HOVER_GRADE  # ... and well within it


def ramp_path(name: str, grade_deg: float) -> str:
    return f"""
[[paths]]
name = "{name}"
waypoints = [[0, 0], [{RAMP_START + RAMP_LENGTH + 30.0}, 0]]
corridor_width = 10.0
[[paths.ramps]]
start = [{RAMP_START}, 0]
direction_deg = 0.0
length = {RAMP_LENGTH}
max_grade_deg = {grade_deg!r}
"""


SUITE = (
    """
name = "gate"
version = 1
time_limit = 60.0
terrain_margin = 10.0

[[paths]]
name = "flat"
waypoints = [[0, 0], [100, 0]]
corridor_width = 10.0

[[paths]]
name = "blocked"
waypoints = [[0, 0], [100, 0]]
corridor_width = 8.0
walled = true
time_limit = 30.0
"""
    + f"wall_segments = [[[{WALL_X}, -10], [{WALL_X}, 10]]]\n"
    + ramp_path("gentle_ramp", GENTLE)
    + ramp_path("steep_ramp", STEEP)
)


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    path = tmp_path_factory.mktemp("gate") / "gate.toml"
    path.write_text(SUITE, encoding="utf-8")
    return load_suite(path)


def test_the_ramps_are_where_the_physics_puts_them():
    # the test's premise: the hovercraft's thrust holds a few degrees, every other preset's far
    # more than the steep ramp (so only the hovercraft's verdict on it may be "infeasible")
    assert 5.0 < HOVER_GRADE < 10.0
    for name, params in PRESETS.items():
        if name != "hovercraft":
            assert steepest_grade_deg(params) > 1.5 * STEEP, name
    # the steep ramp rises far more than any speed the driver may carry up it gives back: at
    # v_max = 10 m/s, v^2 / (2 g) = 5.1 m
    rise = RAMP_LENGTH * math.tan(math.radians(STEEP))
    assert rise > 4.0 * 10.0**2 / (2.0 * GRAVITY)


def test_a_ramp_beyond_the_thrust_is_infeasible_and_one_within_it_feasible(suite):
    steep = feasible(suite, "steep_ramp", "hovercraft")
    assert isinstance(steep, Feasibility)
    assert not steep.feasible
    assert steep.ended == "time_limit"
    # it stalled on the ramp, not before it and not past its top
    assert RAMP_START < steep.progress < RAMP_START + RAMP_LENGTH
    assert "time limit" in steep.reason
    gentle = feasible(suite, "gentle_ramp", "hovercraft")
    assert gentle.feasible, gentle.reason
    assert gentle.reason == "arrived"
    assert gentle.time < gentle.time_limit


def test_a_wall_across_the_corridor_is_infeasible(suite):
    for vehicle in ("storm", "armata"):
        verdict = feasible(suite, "blocked", vehicle)
        assert not verdict.feasible, vehicle
        # the vehicle's centre stays at least its half width before the wall
        assert verdict.progress < WALL_X - PRESETS[vehicle].half_width + 1e-6


@pytest.mark.parametrize("vehicle", list(PRESETS))
def test_a_flat_straight_path_is_feasible_for_every_preset(suite, vehicle):
    verdict = feasible(suite, "flat", vehicle)
    assert verdict.feasible, verdict.reason
    assert verdict.ended == "arrived"
    # never faster than V_MAX allows: 100 m less the arrival radius at 10 m/s at best
    assert verdict.time >= (verdict.length - 2.0) / 10.0


def test_infeasible_pairs_of_a_suite(suite):
    pairs = infeasible_pairs(suite, vehicles=["hovercraft", "storm"])
    # the trials' order: paths in the file's order, then vehicles
    assert pairs == [("hovercraft", "blocked"), ("storm", "blocked"), ("hovercraft", "steep_ramp")]


def test_the_verdict_is_deterministic(suite):
    first = suite_feasibility(suite, vehicles=["zaha"])
    again = suite_feasibility(suite, vehicles=["zaha"])
    assert first == again
    assert [each.path for each in first] == list(suite.path_names)


def test_the_lookahead_is_never_shorter_than_the_turning_radius():
    for name, params in PRESETS.items():
        settings = best_case_params(name)
        assert settings.lookahead >= params.min_turning_radius, name
        assert settings.lookahead >= LOOKAHEAD_FLOOR
        assert settings.ti_speed == math.inf  # no integral: throttle from the error alone
        assert settings.recovery_frames == 0 and settings.teleport_after == 0  # no stuck manager


def test_bad_input_names_it(suite):
    with pytest.raises(ValueError, match="no path named 'nowhere'"):
        feasible(suite, "nowhere", "storm")
    with pytest.raises(ValueError, match="bicycle"):
        feasible(suite, "flat", "bicycle")
    with pytest.raises(ValueError, match="vehicles"):
        suite_feasibility(suite, vehicles="storm")
    with pytest.raises(ValueError, match="vehicles"):
        suite_feasibility(suite, vehicles=[])


def test_the_gate_drives_batched_as_one_by_one(suite):
    # one simulate_batch call for every pair gives each pair's verdict as its own simulate_trial
    pairs = [(suite, path, vehicle) for path in suite.path_names for vehicle in PRESETS]
    assert pairs_feasibility(pairs) == pairs_feasibility(pairs, batch=False)


@pytest.mark.parametrize(("path", "vehicle"), [("gentle_ramp", "hovercraft"), ("blocked", "storm")])
def test_the_gate_is_the_best_case_driver_from_the_first_waypoint(suite, path, vehicle):
    # the drive written out here from the module's description: PathFollower with the best-case
    # parameters, at rest exactly at the first waypoint heading along the first segment, each
    # frame a Vehicle step in the path's world, until the observer's arrival or the time limit
    params = PRESETS[vehicle]
    plant = Vehicle(params)
    driver = PathFollower(params, best_case_params(vehicle))
    polyline = suite.polyline(path)
    driver.set_path(polyline)
    (x0, y0), (x1, y1) = suite.polyline(path).points[:2, :2]
    start = VehicleState(x=float(x0), y=float(y0), yaw=math.atan2(y1 - y0, x1 - x0))
    world = suite.world(path)

    def step(state, command):
        return plant.step(state, command, suite.dt, world=world)

    driven = drive_trial(driver, step, start, suite.dt, suite.time_limit(path), polyline)
    verdict = feasible(suite, path, vehicle)
    assert verdict.feasible == driven.metrics.completed
    assert verdict.ended == driven.ended
    end = driven.records.metrics.end
    assert verdict.progress == max(driven.records.metrics.s[: end + 1])
    assert verdict.time == driven.records.t[end]
    # the gate's spawn: the first waypoint exactly, whatever the suite's jitter
    assert suite.spawn_lateral > 0.0 and suite.spawn_yaw > 0.0
    assert spawn_state(suite, path, vehicle, 7, jitter=False) == start
    assert spawn_state(suite, path, vehicle, 7) != start


def test_pairs_are_refused_naming_the_bad_one(suite, monkeypatch):
    import steerlab.trials.feasibility as gate

    def no_drive(specs):
        raise AssertionError("a drive ran before every pair was checked")

    monkeypatch.setattr(gate, "simulate_batch", no_drive)
    with pytest.raises(ValueError, match=r"pairs\[1\] must be \(suite, path, vehicle\)"):
        pairs_feasibility([(suite, "flat", "storm"), (suite, "flat")])
    # a bad pair far down the list is refused before any drive (none would be left half done)
    many = [(suite, "flat", "storm")] * 300 + [(suite, "nowhere", "storm")]
    with pytest.raises(ValueError, match=r"pairs\[300\]: .*no path named 'nowhere'"):
        pairs_feasibility(many)
    with pytest.raises(ValueError, match=r"pairs\[0\]: .*bicycle"):
        pairs_feasibility([(suite, "flat", "bicycle")])
    with pytest.raises(ValueError, match="jitter must be True or False"):
        run_trial(TrialSpec(suite, "flat", "storm", "ours", 0, jitter="no"))
