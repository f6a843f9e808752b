"""The ablation followers (issue 18): ``baseline_pi`` and ``ours_p`` test seed 001's two
attributions apart (its target speed law, its PI loop).

Each is checked against a chain composed by hand, frame by frame on a real climb (where the
integral term matters): the target speed and the steering of the follower it ablates, and the
speed loop's documented law (``steerlab.follower.speed_control``) computed here.
"""

import math

import numpy as np
import pytest

from steerlab.experiments.benchmark.table1 import default_followers, select_trials
from steerlab.follower import FollowerParams, PathFollower
from steerlab.trials.followers import (
    ABLATIONS,
    FOLLOWERS,
    make_follower,
    read_follower,
    resolve_follower,
)
from steerlab.trials.observer import planar_path
from steerlab.trials.suite import load_suite
from steerlab.trials.trial import TrialSpec, run_trial, trials
from steerlab.vehicles import PRESETS, Vehicle, VehicleState

DEFAULTS = FollowerParams()
FRAMES = 750  # 15 s at table1's 0.02 s: up the first hill of hill_climb


def pi_law(v_target, v, integral, kp, ti, dt):
    """The PI loop as ``steerlab.follower.speed_control`` documents it: ``e = v_t - v``; the
    integral frozen while the output with the old integral saturates in the error's direction,
    else ``I + e dt``; bounded by ``ti / kp``; ``u = clamp(kp (e + I / ti), -1, 1)``."""
    error = v_target - v
    before = kp * (error + integral / ti)
    saturated = (before >= 1.0 and error > 0.0) or (before <= -1.0 and error < 0.0)
    if not saturated:
        integral = integral + error * dt
    integral = float(np.clip(integral, -ti / kp, ti / kp))
    return float(np.clip(kp * (error + integral / ti), -1.0, 1.0)), integral


def drive_in_lockstep(name, reference, frames=FRAMES, vehicle="storm", path="hill_climb"):
    """Drive ``name`` up ``path`` in its world; at each frame step ``reference`` (a follower) on
    the same state. Returns ``(dt, frames)``: per frame ``(state, command, info, reference
    command, reference info)``, while neither has arrived nor is recovering."""
    suite = load_suite("table1")
    polyline = suite.polyline(path)
    world = suite.world(path)
    dt = suite.dt
    plant = Vehicle(PRESETS[vehicle])
    follower = make_follower(name, plant.params)
    follower.set_path(polyline)
    reference.set_path(polyline)
    planar = planar_path(polyline)
    x0, y0 = (float(value) for value in planar.points[0])
    state = VehicleState(x=x0, y=y0, yaw=planar.heading_at(0.0))
    recorded = []
    for _ in range(frames):
        command = follower.step(state, dt)
        reference_command = reference.step(state, dt)
        info, reference_info = follower.info, reference.info
        if info.arrived or info.recovering or reference_info.recovering:
            break
        recorded.append((state, command, info, reference_command, reference_info))
        state = plant.step(state, command, dt, world=world)
    return dt, recorded


def test_baseline_pi_is_the_baselines_speed_and_steering_with_the_pi_loop():
    plant = Vehicle(PRESETS["storm"])
    dt, recorded = drive_in_lockstep("baseline_pi", make_follower("baseline", plant.params))
    assert len(recorded) > FRAMES // 2
    integral = 0.0
    differs = 0
    for state, command, info, baseline_command, baseline_info in recorded:
        # the baseline's target speed and steering, bit for bit
        assert info.target_speed == baseline_info.target_speed
        assert command.steer == baseline_command.steer
        throttle, integral = pi_law(
            info.target_speed, state.v, integral, DEFAULTS.kp_speed, DEFAULTS.ti_speed, dt
        )
        assert command.throttle == pytest.approx(throttle, rel=1e-12, abs=1e-12)
        differs += command.throttle != baseline_command.throttle
    # the integral did something on this climb: the test compares two different loops
    assert differs > 0
    assert abs(integral) > 0.1


def test_ours_p_is_ours_with_a_p_loop():
    plant = Vehicle(PRESETS["storm"])
    _, recorded = drive_in_lockstep("ours_p", PathFollower(plant.params))
    assert len(recorded) > FRAMES // 2
    differs = 0
    for state, command, info, ours_command, ours_info in recorded:
        assert info.target_speed == ours_info.target_speed
        assert command.steer == ours_command.steer
        p_only = np.clip(DEFAULTS.kp_speed * (info.target_speed - state.v), -1.0, 1.0)
        assert command.throttle == pytest.approx(p_only, rel=1e-12, abs=1e-12)
        differs += command.throttle != ours_command.throttle
    assert differs > 0


def test_ours_p_equals_ours_whose_integral_never_acts():
    plant = Vehicle(PRESETS["storm"])
    reference = PathFollower(plant.params, DEFAULTS._replace(ti_speed=math.inf))
    _, recorded = drive_in_lockstep("ours_p", reference)
    assert len(recorded) > FRAMES // 2
    for _, command, info, reference_command, reference_info in recorded:
        assert command == reference_command
        assert info == reference_info


@pytest.fixture(scope="module")
def straight_suite(tmp_path_factory):
    path = tmp_path_factory.mktemp("ablations") / "straight.toml"
    path.write_text(
        'name = "straight"\nversion = 1\ntime_limit = 60.0\n\n[[paths]]\nname = "straight"\n'
        "waypoints = [[0, 0], [120, 0]]\ncorridor_width = 8.0\nwalled = true\n",
        encoding="utf-8",
    )
    return str(path)


@pytest.mark.parametrize("name", ABLATIONS)
@pytest.mark.parametrize("vehicle", ["storm", "armata"])
def test_each_ablation_drives_a_straight_path_to_arrival(straight_suite, name, vehicle):
    row = run_trial(TrialSpec(straight_suite, "straight", vehicle, name, 0))
    assert row["follower"] == name
    assert row["ended"] == "arrived" and row["completed"]
    assert row["stuck_events"] == 0


def test_the_ablations_are_never_among_the_defaults(straight_suite):
    assert FOLLOWERS == ("baseline", "ours", "ours_tuned", "stanley", "regulated_pure_pursuit")
    assert set(ABLATIONS) == {"baseline_pi", "ours_p"}
    assert not set(ABLATIONS) & set(default_followers())
    assert not {spec.follower for spec in trials(straight_suite)} & set(ABLATIONS)
    _, quick = select_trials("table1", quick=True)
    assert not {spec.follower for spec in quick} & set(ABLATIONS)
    # ... and selectable by name
    _, chosen = select_trials("table1", followers="baseline_pi,ours_p", vehicles="storm", seeds=1)
    assert {spec.follower for spec in chosen} == set(ABLATIONS)


def test_the_ablations_by_name_and_in_follower_files(tmp_path):
    for name in ABLATIONS:
        assert resolve_follower(name).follower == name
    path = tmp_path / "slow_ours_p.toml"
    path.write_text('name = "slow_ours_p"\nfollower = "ours_p"\nv_max = 6.0\n', encoding="utf-8")
    named = read_follower(path)
    assert named.follower == "ours_p" and named.params.v_max == 6.0
    follower = make_follower(named, PRESETS["storm"])
    assert follower.variant == "ours_p"
    assert follower.records.speed_control.ti == math.inf
    assert follower.records.target_speed.v_max == 6.0
    with pytest.raises(ValueError, match="baseline_pi"):
        resolve_follower("ours_q")  # the message lists the names, the ablations among them
