"""The T_eta table of seed 003: grid, reachability against live seek, interpolation, cache."""

import math
import os
import sys
import warnings

import numpy as np
import platformdirs
import pytest
from hypothesis import given
from hypothesis import strategies as st

import steerlab._jit
from steerlab.engines import Unicycle, UnicycleParams
from steerlab.engines.unicycle import UnicycleBatch
from steerlab.funnel import (
    EtaTable,
    SeekController,
    SeekParams,
    TableFileError,
    TableGrid,
    default_cache_dir,
)
from steerlab.funnel.seek import ORBIT, REACHED, TIMEOUT

SMALL = TableGrid(
    distance_min=0.5,
    distance_max=8.0,
    distance_count=4,
    alpha_count=8,
    angular_count=3,
    speed_count=3,
    desired_count=3,
)


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """The default 43,200-entry table, built once per session (shared cache directory)."""
    cache = tmp_path_factory.getbasetemp() / "eta-cache"
    return EtaTable.load_or_build(UnicycleParams(), SeekParams(), cache)


@pytest.fixture(scope="module")
def small():
    return EtaTable.build(grid=SMALL)


def test_default_grid_has_43200_entries_dense_near_the_entity():
    grid = TableGrid()
    assert grid.shape == (12, 24, 5, 5, 6)
    assert grid.size == 12 * 24 * 5 * 5 * 6 == 43_200
    axes = grid.axes(UnicycleParams())
    distances = axes["distance"]
    assert distances[0] == 0.5 and distances[-1] == 30.0  # D_eta, the seed's distant target
    assert (np.diff(np.diff(distances)) > 0).all()  # Figure 2: dense near, sparse far
    assert np.allclose(np.diff(axes["alpha"]), 2 * math.pi / 24)
    assert axes["desired"][0] > 0.0 and axes["desired"][-1] == UnicycleParams().speed_max


def test_table_entries_follow_their_definition(table):
    assert table.size == 43_200 and table.reachable.shape == table.grid.shape
    outcomes = np.unique(table.outcome)
    assert set(outcomes.tolist()) <= {REACHED, ORBIT, TIMEOUT}
    assert (table.reachable == (table.outcome == REACHED)).all()
    assert np.isfinite(table.value).all()
    # unreachable entries store a reachable desired speed of the same state, the closest, or 0
    desired = table.axes()["desired"]
    reach = table.reachable.reshape(-1, desired.size)
    value = table.value.reshape(-1, desired.size)
    for row in np.flatnonzero(~reach.all(axis=1))[:400]:
        for j in np.flatnonzero(~reach[row]):
            candidates = np.flatnonzero(reach[row])
            if candidates.size == 0:
                assert value[row, j] == 0.0
                continue
            gaps = np.abs(desired[candidates] - desired[j])
            assert value[row, j] in desired[candidates]
            assert abs(value[row, j] - desired[j]) == gaps.min()
    # near targets are often unreachable (orbits), far ones always reachable
    share = table.reachable.mean(axis=(1, 2, 3, 4))
    assert share[0] < 0.7 and share[-1] == 1.0


def test_seek_reaches_reachable_entries_and_orbits_the_unreachable_ones(table):
    """Replay sampled entries with the live SeekController (no table) and the Unicycle: a
    reachable entry is reached within the tolerance, an unreachable one is detected orbiting
    first (and the detection agrees with the table's outcome)."""
    grid, axes, p = table.grid, table.axes(), table.unicycle
    rng = np.random.default_rng(2)
    chosen = np.concatenate(
        [
            rng.choice(np.flatnonzero(table.reachable.ravel()), 160, replace=False),
            rng.choice(np.flatnonzero(~table.reachable.ravel()), 160, replace=False),
        ]
    )
    index = np.unravel_index(chosen, grid.shape)
    distance = axes["distance"][index[0]]
    alpha = axes["alpha"][index[1]]
    v = axes["speed"][index[3]]
    limit = np.minimum(p.angular_speed_max, p.normal_accel_max / np.maximum(v, 1e-300))
    w = axes["angular"][index[2]] * limit
    desired = axes["desired"][index[4]]
    size = chosen.size
    batch = UnicycleBatch(np.zeros(size), np.zeros(size), np.zeros(size), v, w)
    targets = np.column_stack([distance * np.cos(alpha), distance * np.sin(alpha)])
    plant = Unicycle(p)
    reached = np.zeros(size, bool)
    orbit_first = np.zeros(size, bool)
    seeks = {u: SeekController(targets, u, unicycle=p, seek=table.seek) for u in set(desired)}
    steps = int((2 * distance / desired + grid.time_margin).max() / grid.dt)
    accel = np.empty(size)
    angular = np.empty(size)
    for _ in range(steps):
        for u, seek in seeks.items():
            out = seek.step_batch(batch, grid.dt)
            mine = desired == u
            accel[mine] = out.accel[mine]
            angular[mine] = out.angular_accel[mine]
            orbit_first[mine] |= seek.batch_orbiting[mine] & ~reached[mine]
        x0, y0 = batch.x.copy(), batch.y.copy()
        plant.step_batch(batch, accel, angular, grid.dt)
        reached |= _swept_distance(x0, y0, batch.x, batch.y, targets) <= grid.reach_tolerance
        if (reached | orbit_first).all():
            break
    reachable = table.reachable.ravel()[chosen]
    assert reached[reachable].all()
    orbit = table.outcome.ravel()[chosen] == ORBIT
    assert (orbit_first == orbit).all()
    assert (orbit == ~reachable).all()  # the unreachable entries are orbits, not timeouts


def _swept_distance(x0, y0, x1, y1, targets):
    sx, sy = x1 - x0, y1 - y0
    length2 = sx * sx + sy * sy
    t = np.where(
        length2 > 0,
        ((targets[:, 0] - x0) * sx + (targets[:, 1] - y0) * sy) / np.maximum(length2, 1e-300),
        0.0,
    )
    t = np.clip(t, 0.0, 1.0)
    return np.hypot(x0 + t * sx - targets[:, 0], y0 + t * sy - targets[:, 1])


def test_build_is_the_same_bits_serial_and_parallel(small, monkeypatch):
    monkeypatch.setattr(steerlab._jit, "SERIAL_LIMIT", 0)
    parallel = EtaTable.build(grid=SMALL)
    assert small.size < 8192  # the fixture took the serial build
    for name in ("reachable", "value", "outcome"):
        assert np.array_equal(getattr(small, name), getattr(parallel, name)), name
    assert small.key == parallel.key


def test_progress_reaches_the_total():
    calls = []
    EtaTable.build(grid=SMALL, progress=lambda done, total: calls.append((done, total)))
    assert calls[-1] == (SMALL.size, SMALL.size)
    assert all(done <= total for done, total in calls)


# -- interpolation --------------------------------------------------------------------------


def synthetic(reachable, value, grid=SMALL):
    """A table with chosen entries (plant and seek defaults)."""
    outcome = np.where(reachable, REACHED, ORBIT).astype(np.int8)
    return EtaTable(UnicycleParams(), SeekParams(), grid, reachable, value, outcome)


def test_interpolation_is_multilinear_inside_a_reachable_cell():
    axes = SMALL.axes(UnicycleParams())
    d, _, s, v, u = np.meshgrid(*axes.values(), indexing="ij")
    value = 0.1 * d + 0.05 * s + 0.2 * v - 0.3 * u  # multilinear: reproduced exactly
    table = synthetic(np.ones(SMALL.shape, bool), value)
    p = UnicycleParams()
    rng = np.random.default_rng(0)
    for _ in range(50):
        distance = rng.uniform(0.5, 8.0)
        speed = rng.uniform(0.0, p.speed_max)
        fraction = rng.uniform(-1, 1)
        limit = min(p.angular_speed_max, p.normal_accel_max / speed if speed else math.inf)
        desired = rng.uniform(axes["desired"][0], p.speed_max)
        eta, known = table.eta(distance, rng.uniform(-4, 4), fraction * limit, speed, desired)
        assert known == pytest.approx(1.0)
        expected = 0.1 * distance + 0.05 * fraction + 0.2 * speed - 0.3 * desired
        assert eta == pytest.approx(expected, abs=1e-6)  # the kernels' table is float32


def test_mixed_cell_uses_the_reachable_corners_renormalised():
    """The stated rule: unreachable corners take no part, the others' weights are rescaled."""
    axes = SMALL.axes(UnicycleParams())
    value = np.zeros(SMALL.shape)
    reachable = np.zeros(SMALL.shape, bool)
    # in the cell between distances 0 and 1 (at alpha sample 2, s = 0, v = 0, desired 0):
    # distance 0 reachable with eta 0.4, distance 1 unreachable storing a speed of 1.0
    reachable[0, 2, 1, 0, 0] = True
    value[0, 2, 1, 0, 0] = 0.4
    value[1, 2, 1, 0, 0] = 1.0
    table = synthetic(reachable, value)
    middle = 0.5 * (axes["distance"][0] + axes["distance"][1])
    eta, known = table.eta(middle, axes["alpha"][2], 0.0, 0.0, axes["desired"][0])
    assert eta == pytest.approx(0.4) and known == pytest.approx(0.5)
    # the nearest entry decides reachability
    near = axes["distance"][1] - 0.01
    assert table.entry(near, axes["alpha"][2], 0.0, 0.0, axes["desired"][0]) == (False, 1.0)
    assert table.entry(middle - 0.5, axes["alpha"][2], 0.0, 0.0, axes["desired"][0])[0]
    # a cell without any reachable corner knows no eta
    assert table.eta(middle, axes["alpha"][6], 0.0, 0.0, axes["desired"][0]) == (0.0, 0.0)


def test_alpha_is_periodic_and_eta_decays_as_one_over_distance_beyond_the_grid():
    axes = SMALL.axes(UnicycleParams())
    _, a, _, _, _ = np.meshgrid(*axes.values(), indexing="ij")
    table = synthetic(np.ones(SMALL.shape, bool), np.cos(a) + 2.0)
    behind = [table.eta(3.0, angle, 0.0, 1.0, 1.0)[0] for angle in (math.pi - 1e-9, -math.pi)]
    assert behind[0] == pytest.approx(behind[1], abs=1e-6)
    assert behind[0] == pytest.approx(np.cos(axes["alpha"][0]) + 2.0)  # between last and first
    far = table.eta(SMALL.distance_max, 0.3, 0.0, 1.0, 1.0)[0]
    assert table.eta(4 * SMALL.distance_max, 0.3, 0.0, 1.0, 1.0)[0] == pytest.approx(far / 4)


@given(
    st.floats(0.5, 60.0),
    st.floats(-10.0, 10.0),
    st.floats(-5.0, 5.0),
    st.floats(0.0, 2.0),
    st.floats(0.0, 3.0),
)
def test_interpolated_eta_is_within_the_reachable_corners(distance, alpha, w, v, desired):
    table = TABLE_FOR_PROPERTIES
    eta, known = table.eta(distance, alpha, w, v, desired)
    assert 0.0 <= known <= 1.0 + 1e-12
    bound = np.abs(table.eta_values[np.isfinite(table.eta_values)]).max()
    assert abs(eta) <= bound + 1e-12
    if known == 0.0:
        assert eta == 0.0


TABLE_FOR_PROPERTIES = EtaTable.build(grid=SMALL)


# -- cache ----------------------------------------------------------------------------------


def test_cache_builds_once_and_rebuilds_when_parameters_change(tmp_path):
    first = EtaTable.load_or_build(cache_dir=tmp_path, grid=SMALL)
    assert first.source.endswith(".npz") and len(list(tmp_path.iterdir())) == 1
    again = EtaTable.load_or_build(cache_dir=tmp_path, grid=SMALL)
    assert again.source == first.source and again.key == first.key
    assert np.array_equal(again.value, first.value) and math.isnan(again.build_seconds) is False
    other = EtaTable.load_or_build(
        UnicycleParams(normal_accel_max=1.5), cache_dir=tmp_path, grid=SMALL
    )
    assert other.key != first.key and len(list(tmp_path.iterdir())) == 2
    seek = EtaTable.load_or_build(
        seek_params=SeekParams(k_angle=10.0), cache_dir=tmp_path, grid=SMALL
    )
    assert seek.key not in (first.key, other.key)
    assert not list(tmp_path.glob("*.tmp"))  # atomic writes leave nothing behind


def test_cache_dir_defaults_to_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("STEERLAB_CACHE_DIR", str(tmp_path / "here"))
    table = EtaTable.load_or_build(grid=SMALL)
    assert table.source.startswith(str(tmp_path / "here"))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the XDG layout is Linux's")
def test_without_steerlab_cache_dir_the_default_is_the_platforms_user_cache_dir(
    tmp_path, monkeypatch
):
    # the XDG Base Directory specification: user caches go in $XDG_CACHE_HOME, else ~/.cache;
    # an empty $STEERLAB_CACHE_DIR counts as unset
    monkeypatch.setenv("STEERLAB_CACHE_DIR", "")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "steerlab"
    assert default_cache_dir() == platformdirs.user_cache_path("steerlab", appauthor=False)
    monkeypatch.delenv("STEERLAB_CACHE_DIR")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_cache_dir() == tmp_path / "home" / ".cache" / "steerlab"
    assert default_cache_dir() == platformdirs.user_cache_path("steerlab", appauthor=False)
    table = EtaTable.load_or_build(grid=SMALL)
    assert table.source.startswith(str(tmp_path / "home" / ".cache" / "steerlab"))


def test_corrupted_file_is_refused_by_load_and_rebuilt_by_load_or_build(tmp_path):
    table = EtaTable.load_or_build(cache_dir=tmp_path, grid=SMALL)
    path = EtaTable.cache_path(cache_dir=tmp_path, grid=SMALL)
    path.write_bytes(path.read_bytes()[:200])  # truncated
    with pytest.raises(TableFileError, match="corrupted"):
        EtaTable.load(path)
    with pytest.warns(RuntimeWarning, match="rebuilding"):
        rebuilt = EtaTable.load_or_build(cache_dir=tmp_path, grid=SMALL)
    assert np.array_equal(rebuilt.value, table.value)
    EtaTable.load(path)  # the rebuilt file is sound again


def test_altered_entries_and_mismatched_parameters_are_refused(tmp_path):
    table = EtaTable.build(grid=SMALL)
    path = table.save(tmp_path / "eta.npz")
    with np.load(path) as archive:
        members = {name: archive[name] for name in archive.files}
    members["value"] = members["value"].copy()
    members["value"][0, 0, 0, 0, 0] += 0.1  # a silently wrong entry
    np.savez(tmp_path / "altered.npz", **members)
    with pytest.raises(TableFileError, match="checksum"):
        EtaTable.load(tmp_path / "altered.npz")
    with pytest.raises(TableFileError, match="other parameters"):
        EtaTable.load(path, unicycle=UnicycleParams(normal_accel_max=1.0))
    assert EtaTable.load(path, UnicycleParams(), SeekParams(), SMALL).key == table.key
    # a file of another plant under this plant's cache name: rebuilt, never used
    os.replace(
        path, EtaTable.cache_path(UnicycleParams(speed_max=1.0), cache_dir=tmp_path, grid=SMALL)
    )
    with pytest.warns(RuntimeWarning, match="other parameters"):
        fresh = EtaTable.load_or_build(
            UnicycleParams(speed_max=1.0), cache_dir=tmp_path, grid=SMALL
        )
    assert fresh.unicycle.speed_max == 1.0
    with pytest.raises(TableFileError, match="no such"):
        EtaTable.load(tmp_path / "missing.npz")


def test_unwritable_cache_gives_the_table_with_a_warning(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = EtaTable.load_or_build(cache_dir=blocker / "sub", grid=SMALL)
    assert table.size == SMALL.size and any("could not write" in str(w.message) for w in caught)


@pytest.mark.parametrize(
    ("grid", "name"),
    [
        (TableGrid(distance_count=1), "distance_count"),
        (TableGrid(alpha_count=3), "alpha_count"),
        (TableGrid(desired_count=2.5), "desired_count"),
        (TableGrid(distance_max=0.4), "distance_max"),
        (TableGrid(dt=0.0), "dt"),
        (TableGrid(reach_tolerance=-1.0), "reach_tolerance"),
    ],
)
def test_bad_grid_names_the_field(grid, name):
    with pytest.raises(ValueError, match=name):
        EtaTable.build(grid=grid)


def test_bad_parameters_name_the_field():
    with pytest.raises(ValueError, match="normal_accel_max"):
        EtaTable.build(UnicycleParams(normal_accel_max=0.0), grid=SMALL)
    with pytest.raises(ValueError, match="k_damping"):
        EtaTable.build(seek=SeekParams(k_damping=-1.0), grid=SMALL)
