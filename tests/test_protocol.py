"""Benchmark protocols (``steerlab.trials.protocol``): the shipped Table I v2 file, its rules,
its sweeps, its hash and its refusals."""

from __future__ import annotations

import itertools
import math
import re
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from steerlab.follower.params import FollowerParams
from steerlab.trials.followers import write_tuned
from steerlab.trials.protocol import (
    follower_params_for,
    load_protocol,
    rule_points,
    shipped_protocols,
    sweep_points,
)
from steerlab.vehicles import PRESETS

SHIPPED = shipped_protocols()["table1_v2"]


def raw():
    return tomllib.loads(SHIPPED.read_text(encoding="utf-8"))


def write(tmp_path, text, name="p.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_every_declared_choice_of_the_shipped_protocol_carries_a_reason():
    data = raw()
    tables = [data[key] for key in ("seeds", "observer", "gate", "stalls", "intervals")]
    tables += [data["verdict"], data["soak"], *data["rules"].values(), *data["sweeps"]]
    assert len(tables) == 9 + len(data["rules"]) + len(data["sweeps"]) - 2
    for table in tables:
        assert isinstance(table.get("reason"), str) and len(table["reason"]) > 40, table


def test_the_hash_ignores_comments_and_layout_and_follows_every_value(tmp_path):
    text = SHIPPED.read_text(encoding="utf-8")
    shipped = load_protocol("table1_v2")
    assert re.fullmatch(r"[0-9a-f]{64}", shipped.sha256)
    relaid = "# a new comment\n\n" + re.sub(r"(?m)^(\w+) = ", r"\1   =   ", text)
    assert load_protocol(write(tmp_path, relaid)).sha256 == shipped.sha256
    changed = text.replace("resamples = 2000", "resamples = 2001")
    assert changed != text
    assert load_protocol(write(tmp_path, changed, "q.toml")).sha256 != shipped.sha256


def turning_radius(name):
    """Every kind's full steer commands the path curvature tan(max_steer) / wheelbase
    (steerlab.vehicles): its radius, written here from that statement."""
    params = PRESETS[name]
    return params.wheelbase / math.tan(params.max_steer)


@pytest.mark.parametrize("vehicle", list(PRESETS))
def test_the_lookahead_rule_is_the_turning_radius_floored_at_dh(vehicle):
    protocol = load_protocol()
    expected = max(6.0, turning_radius(vehicle))
    for follower in ("baseline", "ours", "baseline_pi", "ours_p"):
        params = follower_params_for(protocol, follower, vehicle, calibrated={"baseline_k": 4.0})
        assert params.lookahead == pytest.approx(expected, rel=1e-12)
    regulated = follower_params_for(
        protocol, "regulated_pure_pursuit", vehicle, constants={"lookahead_factor": 1.5}
    )
    assert regulated.regulated_min_lookahead == pytest.approx(1.5 * expected, rel=1e-12)
    assert regulated.regulated_max_lookahead == pytest.approx(4.5 * expected, rel=1e-12)
    # Stanley has no lookahead: nothing of it is set by a rule
    assert follower_params_for(protocol, "stanley", vehicle) == FollowerParams()


def test_the_long_vehicles_get_a_lookahead_beyond_dh_and_the_cars_keep_it():
    protocol = load_protocol()
    lookaheads = {v: follower_params_for(protocol, "ours", v).lookahead for v in PRESETS}
    assert lookaheads["storm"] == lookaheads["bolte"] == lookaheads["armata"] == 6.0
    assert 11.0 < lookaheads["zaha"] < 12.0
    assert 17.0 < lookaheads["hovercraft"] < 18.0


def test_a_tuned_lookahead_below_the_floor_is_raised_and_one_above_it_kept(tmp_path):
    protocol = load_protocol()
    write_tuned(tmp_path / "zaha.toml", FollowerParams(lookahead=4.0, a_lat=0.5), "zaha")
    write_tuned(tmp_path / "storm.toml", FollowerParams(lookahead=9.0, a_lat=0.3), "storm")
    zaha = follower_params_for(protocol, "ours_tuned", "zaha", tuned_dir=tmp_path)
    storm = follower_params_for(protocol, "ours_tuned", "storm", tuned_dir=tmp_path)
    assert zaha.lookahead == pytest.approx(turning_radius("zaha"), rel=1e-12)
    assert storm.lookahead == 9.0
    assert (zaha.a_lat, storm.a_lat) == (0.5, 0.3)  # the rest of the preset kept


def test_the_matched_speed_rule_takes_its_calibrated_value_or_refuses():
    protocol = load_protocol()
    assert follower_params_for(protocol, "baseline", "storm", calibrated={"baseline_k": 7.5}) == (
        FollowerParams(baseline_k=7.5)
    )
    with pytest.raises(ValueError, match="calibrated must give 'baseline_k'"):
        follower_params_for(protocol, "baseline", "storm")
    swept = follower_params_for(protocol, "baseline", "storm", constants={"baseline_k": 20.0})
    assert swept.baseline_k == 20.0  # a sweep point's own value needs no calibration


def test_sweep_points_are_every_combination_in_the_file_order():
    protocol = load_protocol()
    points = sweep_points(protocol)
    data = raw()
    expected = []
    for sweep in data["sweeps"]:
        keys = [key for key in sweep if key not in ("follower", "reason")]
        for values in itertools.product(*(sweep[key] for key in keys)):
            expected.append((sweep["follower"], dict(zip(keys, values, strict=True))))
    assert [(p.follower, dict(p.constants)) for p in points] == expected
    assert len({p.name for p in points}) == len(points)
    assert all(p.name.startswith(p.follower + "-s") for p in points)
    assert [p.name for p in rule_points(protocol)] == list(data["followers"])


@settings(max_examples=30, deadline=None)
@given(
    vehicle=st.sampled_from(list(PRESETS)),
    point=st.integers(0, 89),
)
def test_every_sweep_point_gives_valid_params_holding_its_values(vehicle, point):
    protocol = load_protocol()
    chosen = sweep_points(protocol)[point]
    params = follower_params_for(
        protocol, chosen.follower, vehicle, constants=chosen.constants, calibrated={"baseline_k": 3}
    )
    for name, value in chosen.constants.items():
        if name == "lookahead_factor":
            field = (
                "regulated_min_lookahead"
                if chosen.follower == "regulated_pure_pursuit"
                else "lookahead"
            )
            assert getattr(params, field) == pytest.approx(
                value * max(6.0, turning_radius(vehicle)), rel=1e-12
            )
        else:
            assert getattr(params, name) == value


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            ("a_lat = [0.1, 0.2, 0.4, 0.8, 1.6]", "a_lat = []"),
            r"sweeps\[2\].*a_lat: must be a non-empty",
        ),
        (("a_lat = [0.1, 0.2, 0.4, 0.8, 1.6]", "a_lat = [0.1, nan]"), r"sweeps\[2\]"),
        (("a_lat = [0.1, 0.2, 0.4, 0.8, 1.6]", "a_lat = [0.1, inf]"), r"sweeps\[2\]"),
        (("a_lat = [0.1, 0.2, 0.4, 0.8, 1.6]", "a_lat = [-1.0]"), r"a_lat\[0\]"),
        (("a_lat = [0.1, 0.2, 0.4, 0.8, 1.6]", "a_lot = [0.1]"), r"a_lot: not a FollowerParams"),
        (("lookahead_factor = [1.0, 1.5, 2.0]", "lookahead_factor = [0.5]"), "must be >= 1"),
        (('follower = "stanley"', 'follower = "stanly"'), r"sweeps\[4\].follower.*unknown"),
        (('field = "lookahead"', 'field = "look"'), r"rules.*lookahead.*field.*FollowerParams"),
        (("floor = 6.0\nmax_ratio", "max_ratio"), "needs 'floor'"),
        (("iterations = 12", "iterations = 0"), r"iterations"),
        (("low = 0.5", "low = 80.0"), "low must be < high"),
        (("mix = { easy = 0.5, hard = 0.5 }", "mix = { easy = 0.5 }"), "mix must give a share"),
        (('"zaha", "armata", "hovercraft"]', '"zaha", "armata"]'), "soak.classes must hold"),
        (("[seeds]\nvalue = 1\n", "[seeds]\nvalue = 1\nextra = 2\n"), r"seeds.extra"),
        (("[gate]\nrule", "[gate]\nreason2 = 'x'\nrule"), r"gate"),
        (("episode_distance = 5.0", "episode_distance = -5.0"), r"stalls.episode_distance"),
        (('pairs = [["ours", "baseline"]', 'pairs = [["ours", "ours"]'), "with itself"),
        (('pairs = [["ours", "baseline"]', 'pairs = [["ours", "baseline_p"]'), "unknown follower"),
        (('"baseline_pi", "ours_p"]\n\n[seeds]', '"baseline_pi"]\n\n[seeds]'), "not among"),
        (('"hovercraft"]\n\n# Table', '"hovercraft", "tank"]\n\n# Table'), "unknown vehicle"),
    ],
)
def test_a_bad_protocol_is_refused_naming_the_file_the_entry_and_the_field(
    tmp_path, edit, expected
):
    text = SHIPPED.read_text(encoding="utf-8")
    old, new = edit
    assert old in text, old
    path = write(tmp_path, text.replace(old, new, 1))
    with pytest.raises(ValueError, match=expected) as caught:
        load_protocol(path)
    assert str(path) in str(caught.value)


def test_unknown_names_and_files_are_refused(tmp_path):
    with pytest.raises(ValueError, match="shipped protocol's name"):
        load_protocol("table1_v9")
    with pytest.raises(ValueError, match="not found"):
        load_protocol(str(tmp_path / "missing.toml"))
    with pytest.raises(ValueError, match="not a TOML file"):
        load_protocol(write(tmp_path, "name = ", "broken.toml"))
    with pytest.raises(ValueError, match="vehicle must be a preset name"):
        follower_params_for(load_protocol(), "ours", "tank")


def test_a_quick_run_takes_every_combination_of_each_lists_ends():
    protocol = load_protocol()
    points = sweep_points(protocol, ends=True)
    expected = []
    for sweep in raw()["sweeps"]:
        keys = [key for key in sweep if key not in ("follower", "reason")]
        ends = [sorted({sweep[key][0], sweep[key][-1]}) for key in keys]
        for values in itertools.product(*ends):
            expected.append((sweep["follower"], dict(zip(keys, values, strict=True))))
    assert [(p.follower, dict(p.constants)) for p in points] == expected
    assert all(p.name.startswith(p.follower + "-q") for p in points)


# --------------------------------------------------------------------------------------------------
# version 3: version 2 with every free constant swept one at a time, every field accounted for

V3 = shipped_protocols()["table1_v3"]


def raw_v3():
    return tomllib.loads(V3.read_text(encoding="utf-8"))


FIDELITY = Path(__file__).resolve().parents[1] / "docs" / "fidelity.md"


@pytest.mark.parametrize("name", ["table1_v2", "table1_v3"])
def test_each_version_keeps_the_hash_its_published_results_carry(name):
    """docs/fidelity.md gives each version's results with the hash of its file: the keys a later
    version added (a sweep's design, [constants]) must leave an earlier version's unchanged."""
    text = " ".join(FIDELITY.read_text(encoding="utf-8").split())
    published = re.findall(rf"protocols/{name}\.toml`,? \(?sha256 ([0-9a-f]{{12}})", text)
    assert len(published) == 1, published
    assert load_protocol(name).sha256.startswith(published[0])


def test_version_3_is_version_2_plus_its_one_at_a_time_sweeps_and_constants():
    v2, v3 = raw(), raw_v3()
    assert v3.pop("version") == 3 and v2.pop("version") == 2
    v3.pop("description"), v2.pop("description")
    assert "constants" not in v2
    v3.pop("constants")
    grid = [sweep for sweep in v3["sweeps"] if "design" not in sweep]
    one_at_a_time = [sweep for sweep in v3.pop("sweeps") if "design" in sweep]
    assert grid == v2.pop("sweeps")
    assert {sweep["design"] for sweep in one_at_a_time} == {"one_at_a_time"}
    v3_verdict, v2_verdict = v3.pop("verdict"), v2.pop("verdict")
    assert v3_verdict["pairs"] == v2_verdict["pairs"] and v3_verdict["rule"] == v2_verdict["rule"]
    assert v3 == v2  # every other choice word for word


def test_version_3_sweeps_each_constant_at_half_and_twice_its_default_and_nothing_twice():
    defaults = FollowerParams()
    for sweep in raw_v3()["sweeps"]:
        if sweep.get("design") != "one_at_a_time":
            continue
        keys = [key for key in sweep if key not in ("follower", "reason", "design")]
        assert len(sweep["reason"]) > 40
        for key in keys:
            assert sweep[key] == [getattr(defaults, key) / 2, getattr(defaults, key) * 2], key


def test_every_fixed_field_of_version_3_carries_its_reason():
    constants = raw_v3()["constants"]
    assert len(constants["reason"]) > 40
    assert constants["fixed"]
    for name, reason in constants["fixed"].items():
        assert name in FollowerParams._fields and len(reason) > 40, name


def test_one_at_a_time_points_vary_one_constant_each_and_list_every_value_once():
    protocol = load_protocol("table1_v3")
    data = raw_v3()
    expected = []
    for sweep in data["sweeps"]:
        keys = [key for key in sweep if key not in ("follower", "reason", "design")]
        if sweep.get("design") == "one_at_a_time":
            expected += [(sweep["follower"], {key: value}) for key in keys for value in sweep[key]]
        else:
            for values in itertools.product(*(sweep[key] for key in keys)):
                expected.append((sweep["follower"], dict(zip(keys, values, strict=True))))
    points = sweep_points(protocol)
    assert [(p.follower, dict(p.constants)) for p in points] == expected
    assert len({p.name for p in points}) == len(points) == 90 + 84
    assert sum(p.name.startswith(p.follower + "-o") for p in points) == 84


@pytest.mark.parametrize("vehicle", ["storm", "zaha", "hovercraft"])
def test_a_one_at_a_time_point_differs_from_the_rules_point_in_its_constant_only(vehicle):
    protocol = load_protocol("table1_v3")
    calibrated = {"baseline_k": 3.0}
    for point in sweep_points(protocol):
        if "-o" not in point.name:
            continue
        ((name, value),) = point.constants.items()
        rules = follower_params_for(protocol, point.follower, vehicle, calibrated=calibrated)
        swept = follower_params_for(
            protocol, point.follower, vehicle, constants=point.constants, calibrated=calibrated
        )
        assert getattr(swept, name) == value != getattr(rules, name)
        assert swept._replace(**{name: getattr(rules, name)}) == rules


def v3_refusal(tmp_path, old, new):
    text = V3.read_text(encoding="utf-8")
    assert old in text, old
    path = write(tmp_path, text.replace(old, new, 1))
    with pytest.raises(ValueError) as caught:
        load_protocol(path)
    assert str(path) in str(caught.value)
    return str(caught.value)


def test_version_3_refuses_a_field_left_unaccounted_naming_it(tmp_path):
    message = v3_refusal(tmp_path, 'teleport_after = "0, off', 'teleport_afterr = "0, off')
    assert "'teleport_afterr' is not a FollowerParams field" in message
    line = next(line for line in V3.read_text().splitlines() if line.startswith("teleport_after"))
    message = v3_refusal(tmp_path, line + "\n", "")
    assert "neither the paper's, set by a rule, swept nor fixed: ['teleport_after']" in message
    message = v3_refusal(tmp_path, 'paper = ["a_lat", "dh", "n", ', 'paper = ["a_lat", "dh", ')
    assert "['n']" in message


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("[constants.fixed]\n", '[constants.fixed]\nkp_speed = "fixed after all"\n', "also swept"),
        ("[constants.fixed]\n", '[constants.fixed]\nlookahead = "by hand"\n', "also set by a rule"),
        ('paper = ["a_lat"', 'paper = ["arrival_radius", "a_lat"', "both the paper's and fixed"),
        ('paper = ["a_lat"', 'paper = ["a_lot", "a_lat"', r"paper.*unknown field 'a_lot'"),
        ('paper = ["a_lat"', 'paper = ["dh", "a_lat"', "a field is given twice"),
        (
            "stanley_softening = [0.5, 2.0]\n",
            "stanley_softening = [0.5, 2.0]\nheading_gain = [0.5, 2.0]\n",
            r"sweeps\[10\].*heading_gain: stanley does not read it",
        ),
        (
            "stanley_gain = [0.5, 1.0, 2.0]\n",
            "stanley_gain = [0.5, 1.0, 2.0]\nlookahead_factor = [1.0, 2.0]\n",
            "'stanley' sweeps lookahead_factor without a turning_radius_floor rule",
        ),
        (
            'follower = "baseline"\ndesign = "one_at_a_time"',
            'follower = "baseline"\ndesign = "random"',
            r"sweeps\[6\].design",
        ),
        ('projection_back = "2 m: a search', 'projection_back = "  "\nx = "', "give the reason"),
        (
            'follower = "ours_p"\ndesign = "one_at_a_time"',
            'follower = "ours"\ndesign = "one_at_a_time"',
            "'ours' has two sweeps of design 'one_at_a_time'",
        ),
    ],
)
def test_version_3_refusals_name_the_entry(tmp_path, old, new, expected):
    assert re.search(expected, v3_refusal(tmp_path, old, new))
