"""Intervals over paths: the percentile bootstrap (Table I version 2).

In version 2 the unit that varies is the path (spawn jitter gave many cells a standard deviation
of 0): a follower's figure on a suite is a statistic of per-path values (a mean time, stalls per
km as a ratio of sums), and its interval comes from resampling **paths** with replacement.

``bootstrap_interval`` is Efron's percentile bootstrap: ``n_resamples`` resamples of the paths
(each as many paths as the suite, drawn uniformly with replacement), the statistic of each, and
the ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` quantiles of those statistics (NumPy's
default linear interpolation). Choices, declared before any result: the percentile method rather
than BCa (SciPy's default; SciPy is not a steerlab dependency), because it is the simplest to
state and to check; its coverage for a mean is near nominal at a hundred paths (for ten it is
known to fall short: an interval over the ten hand-made paths is narrower than it should be).
Resamples come from ``numpy.random.default_rng(seed)``, so an interval is a function of the values
and the seed.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from steerlab._checks import as_float_array

__all__ = ["bootstrap_interval", "bootstrap_statistics"]


def _checked(values_per_path, n_resamples, seed, confidence=None) -> np.ndarray:
    values = as_float_array(
        "values_per_path", values_per_path, "an array of numbers, one row per path"
    )
    if values.ndim not in (1, 2) or values.shape[0] < 2:
        raise ValueError(
            "values_per_path must have shape (paths,) or (paths, k) with at least 2 paths, got "
            f"shape {values.shape}"
        )
    if not np.isfinite(values).all():
        row = int(np.argwhere(~np.isfinite(values))[0][0])
        raise ValueError(f"values_per_path[{row}] must be finite, got {values[row]!r}")
    for name, value, low in (("n_resamples", n_resamples, 1), ("seed", seed, 0)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    if confidence is not None and (
        isinstance(confidence, bool)
        or not isinstance(confidence, int | float | np.integer | np.floating)
        or not 0.0 < confidence < 1.0
    ):
        raise ValueError(f"confidence must be a number in (0, 1), got {confidence!r}")
    return values


def bootstrap_statistics(
    values_per_path,
    statistic: Callable[[np.ndarray], float] = np.mean,
    n_resamples: int = 10_000,
    seed: int = 0,
) -> np.ndarray:
    """The statistic of each bootstrap resample of the paths.

    Parameters
    ----------
    values_per_path : array_like, shape (paths,) or (paths, k)
        One value, or one row of ``k`` values, per path; finite; at least 2 paths.
    statistic : callable
        ``statistic(sample) -> float``, ``sample`` of the same shape as ``values_per_path``
        (its rows resampled); default ``numpy.mean``. For a ratio of sums, e.g. stalls per km
        from rows ``(stalls, km)``: ``lambda s: s[:, 0].sum() / s[:, 1].sum()``.
    n_resamples : int
        Number of resamples, ``>= 1``.
    seed : int
        ``>= 0``: the resamples draw from ``numpy.random.default_rng(seed)``.

    Returns
    -------
    numpy.ndarray, shape (n_resamples,)
        The statistic of each resample.

    Raises
    ------
    ValueError
        An argument out of its range (named); a statistic that is not a finite number on some
        resample (named with the resample).
    """
    values = _checked(values_per_path, n_resamples, seed)
    if not callable(statistic):
        raise ValueError(f"statistic must be a callable, got {statistic!r}")
    rng = np.random.default_rng(int(seed))
    paths = values.shape[0]
    results = np.empty(int(n_resamples))
    for resample in range(int(n_resamples)):
        value = statistic(values[rng.integers(0, paths, size=paths)])
        try:
            results[resample] = value
        except (TypeError, ValueError):
            raise ValueError(
                f"statistic must return a number, got {value!r} on resample {resample}"
            ) from None
        if not math.isfinite(results[resample]):
            raise ValueError(
                f"statistic must be finite, got {value!r} on resample {resample} (a ratio of "
                "sums whose denominator can be 0 on some resample needs another statistic)"
            )
    return results


def bootstrap_interval(
    values_per_path,
    statistic: Callable[[np.ndarray], float] = np.mean,
    n_resamples: int = 10_000,
    seed: int = 0,
    confidence: float = 0.95,
) -> tuple[float, float]:
    """Percentile bootstrap interval of a statistic over paths (module docstring).

    Parameters
    ----------
    values_per_path, statistic, n_resamples, seed
        As ``bootstrap_statistics``.
    confidence : float
        In ``(0, 1)``: the interval holds this share of the resampled statistics, as much below
        it as above.

    Returns
    -------
    (float, float)
        ``(low, high)``, ``low <= high``: the ``(1 - confidence) / 2`` and ``(1 + confidence) /
        2`` quantiles of the resampled statistics.

    Raises
    ------
    ValueError
        As ``bootstrap_statistics``; ``confidence`` not in ``(0, 1)``.
    """
    _checked(values_per_path, n_resamples, seed, confidence)
    statistics = bootstrap_statistics(values_per_path, statistic, n_resamples, seed)
    tail = 0.5 * (1.0 - float(confidence))
    low, high = np.quantile(statistics, [tail, 1.0 - tail])
    return float(low), float(high)
