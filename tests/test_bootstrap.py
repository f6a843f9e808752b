"""The percentile bootstrap over paths (issue 18): coverage, the normal interval, determinism."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from steerlab.experiments.benchmark.stats import bootstrap_interval, bootstrap_statistics

Z_975 = 1.959963984540054  # the standard normal's 97.5 % quantile


def test_the_interval_covers_a_normal_mean_about_95_percent_of_the_time():
    # 200 simulated experiments of 100 paths each (the size of the generated suite): the true mean
    # is known, so the share of intervals holding it is the coverage. Percentile intervals of a
    # mean run slightly short of nominal at this size (about 94 %); 200 experiments have a
    # binomial standard deviation of 1.5 %: 88 % to 99 % is four of them either side.
    rng = np.random.default_rng(2024)
    true_mean, sd, experiments = 3.0, 2.0, 200
    covered = 0
    for experiment in range(experiments):
        sample = rng.normal(true_mean, sd, size=100)
        low, high = bootstrap_interval(sample, n_resamples=2000, seed=experiment)
        covered += low <= true_mean <= high
    assert 0.88 <= covered / experiments <= 0.99


def test_on_a_large_sample_the_interval_is_the_normal_one():
    # n = 4000: the mean's sampling distribution is normal with standard error s / sqrt(n); the
    # bootstrap's quantiles then sit at mean -+ 1.96 se, up to their Monte Carlo error (about
    # 0.04 se at 5,000 resamples) and the plug-in sd's factor sqrt((n - 1) / n)
    rng = np.random.default_rng(7)
    sample = rng.normal(-1.0, 0.5, size=4000)
    se = sample.std(ddof=1) / math.sqrt(sample.size)
    low, high = bootstrap_interval(sample, n_resamples=5000, seed=3)
    assert low == pytest.approx(sample.mean() - Z_975 * se, abs=0.15 * se)
    assert high == pytest.approx(sample.mean() + Z_975 * se, abs=0.15 * se)


def test_confidence_sets_the_quantiles():
    # the 68.27 % interval of a normal mean is mean -+ 1 se
    rng = np.random.default_rng(11)
    sample = rng.normal(0.0, 1.0, size=4000)
    se = sample.std(ddof=1) / math.sqrt(sample.size)
    low, high = bootstrap_interval(sample, n_resamples=5000, seed=1, confidence=0.6827)
    assert (high - low) / 2.0 == pytest.approx(se, rel=0.1)


def test_a_ratio_of_sums_resamples_whole_paths():
    # rows (stalls, km): every path has 2 stalls per km, so every resample's ratio is exactly 2
    # whatever rows it draws; the mean of the per-path ratios would be the same here, but rows
    # are resampled whole (a column resampled alone would break the pairs below)
    km = np.array([0.3, 0.25, 0.4, 0.35, 0.28])
    rows = np.column_stack([2.0 * km, km])
    low, high = bootstrap_interval(rows, lambda s: s[:, 0].sum() / s[:, 1].sum(), 500, seed=5)
    assert low == pytest.approx(2.0, rel=1e-12)
    assert high == pytest.approx(2.0, rel=1e-12)


def test_same_seed_same_interval_other_seed_other_interval():
    sample = np.random.default_rng(1).exponential(size=100)
    first = bootstrap_interval(sample, np.median, 1000, seed=9)
    assert bootstrap_interval(sample, np.median, 1000, seed=9) == first
    assert bootstrap_interval(sample, np.median, 1000, seed=10) != first


def test_resamples_draw_paths_uniformly_with_replacement():
    # the statistic "share of the sample that is path 0" over many resamples: its mean is 1 / n
    # and its variance (1 / n)(1 - 1 / n) / n (a binomial share)
    n = 10
    values = np.arange(n, dtype=float)
    shares = bootstrap_statistics(values, lambda s: np.mean(s == 0.0), 20_000, seed=4)
    assert shares.mean() == pytest.approx(1.0 / n, abs=4.0 * math.sqrt(0.009 / 20_000))
    assert shares.var() == pytest.approx(0.1 * 0.9 / n, rel=0.05)


@given(
    st.lists(st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False), min_size=2, max_size=30),
    st.integers(0, 2**32),
)
def test_the_interval_of_a_mean_lies_within_the_data(values, seed):
    low, high = bootstrap_interval(values, n_resamples=50, seed=seed)
    span = 1e-9 * max(1.0, max(abs(v) for v in values))
    assert min(values) - span <= low <= high <= max(values) + span


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"values_per_path": [1.0]}, "values_per_path must have shape .* at least 2 paths"),
        ({"values_per_path": [[[1.0]], [[2.0]]]}, "values_per_path must have shape"),
        ({"values_per_path": [1.0, float("nan")]}, r"values_per_path\[1\] must be finite"),
        ({"values_per_path": ["a", "b"]}, "values_per_path must be an array of numbers"),
        ({"n_resamples": 0}, "n_resamples must be an integer >= 1, got 0"),
        ({"n_resamples": 10.0}, "n_resamples must be an integer >= 1, got 10.0"),
        ({"seed": -1}, "seed must be an integer >= 0, got -1"),
        ({"confidence": 1.0}, r"confidence must be a number in \(0, 1\), got 1.0"),
        ({"confidence": float("nan")}, r"confidence must be a number in \(0, 1\), got nan"),
        ({"statistic": "mean"}, "statistic must be a callable, got 'mean'"),
        ({"statistic": lambda s: float("inf")}, "statistic must be finite, got inf on resample 0"),
        ({"statistic": lambda s: "x"}, "statistic must return a number, got 'x' on resample 0"),
    ],
)
def test_bad_arguments_are_named(arguments, expected):
    call = {"values_per_path": [1.0, 2.0, 3.0], "n_resamples": 10, **arguments}
    with pytest.raises(ValueError, match=expected):
        bootstrap_interval(**call)
