"""Which ``FollowerParams`` fields each follower variant reads (``params.VARIANT_FIELDS``),
checked by driving: every variant on table1 paths of each kind of vehicle, once with the
defaults and once with each field it is said not to read changed; the rows must not differ by
one bit. A benchmark protocol refuses to sweep a field its follower does not read on the
strength of this table."""

from __future__ import annotations

import math

import pytest

from steerlab.follower.params import VARIANT_FIELDS, VARIANTS, FollowerParams
from steerlab.trials.batch import run_batch
from steerlab.trials.followers import NamedFollower
from steerlab.trials.trial import TrialSpec

PATHS = ("right_angles", "walled_s_climb", "hairpins")  # corners, walls and a hill, hairpins
VEHICLES = ("storm", "armata", "hovercraft")  # wheeled, tracked, hover


def changed_value(name: str):
    """A valid value of field ``name`` other than its default, far enough to show in a trial."""
    default = getattr(FollowerParams(), name)
    if isinstance(default, bool):
        return not default
    if isinstance(default, int):
        return default + 3 if name != "recovery_frames" else 2 * default
    if default == 0.0:
        return 0.5
    if name == "regulated_min_lookahead":  # at most its maximum, 18 m
        return 1.5 * default
    return 2.0 * default if math.isfinite(default) else 4.0


def rows_for(variant: str, params: FollowerParams, label: str) -> list[dict]:
    specs = [
        TrialSpec("table1", path, vehicle, NamedFollower(label, variant, params), 0)
        for path in PATHS
        for vehicle in VEHICLES
    ]
    return [{k: v for k, v in row.items() if k != "follower"} for row in run_batch(specs)]


def test_every_variant_is_listed_and_every_field_listed_is_a_field():
    assert set(VARIANT_FIELDS) == set(VARIANTS)
    for fields in VARIANT_FIELDS.values():
        assert fields <= set(FollowerParams._fields)


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_a_field_a_variant_does_not_read_changes_none_of_its_trials(variant):
    base = rows_for(variant, FollowerParams(), "base")
    unread = [name for name in FollowerParams._fields if name not in VARIANT_FIELDS[variant]]
    assert unread  # every variant ignores some field
    for name in unread:
        params = FollowerParams()._replace(**{name: changed_value(name)})
        assert rows_for(variant, params, name) == base, name
    # the trials can show a change: the read fields that change some row
    moved = [
        name
        for name in sorted(VARIANT_FIELDS[variant])
        if rows_for(variant, FollowerParams()._replace(**{name: changed_value(name)}), name) != base
    ]
    assert len(moved) >= len(VARIANT_FIELDS[variant]) // 2, moved
