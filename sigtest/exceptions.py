"""Warnings and exceptions raised by sigtest.

``UndefinedMetricWarning`` is scikit-learn's own class (so that a filter
set for scikit-learn's metrics applies to sigtest's too); it is loaded on
first access, so that importing this module does not import scikit-learn.
"""

__all__ = [
    "AntiConservativeWarning",
    "DegenerateDistributionWarning",
    "ProbabilityRoundingWarning",
    "SlowPathWarning",
    "SmallSampleWarning",
    "UndefinedMetricWarning",
]


class DegenerateDistributionWarning(RuntimeWarning):
    """Warn that a resampling distribution is degenerate.

    Raised when, for instance, the two systems make identical predictions, so
    every resampled difference is the same number and no interval or p-value
    carries information. The result then holds a documented fallback value
    (``pvalue=1.0`` for every test and alternative, a NaN interval) instead
    of a spurious "significant": a test that carries no information is never
    significant.
    """


class SmallSampleWarning(UserWarning):
    """Warn that the data are too few for a bootstrap test to be trusted.

    Raised by the bootstrap tests (:class:`~sigtest.BergKirkpatrickBootstrap`,
    its BooStSa preset and :class:`~sigtest.BCaInterval`) when the test set
    is small or when few items are *discordant* (items whose per-item
    statistics differ between A and B): there the bootstrap distribution is
    too coarse and too narrow, its size exceeds the nominal level and its
    intervals under-cover (measured limits in ``docs/which_test.md``). The
    p-value is then floored at the exact sign-test bound :math:`2^{-d}`
    (one-sided) or :math:`2^{1-d}` (two-sided) with ``d`` discordant items.
    The remedy is the exact permutation test,
    :class:`~sigtest.PairedPermutation`, which is valid at any N.

    Also raised by :func:`sigtest.compare` when a pair's difference is
    carried by a handful of items (heavy-tailed per-item values: the
    effective number of items of its influence values is small, see
    ``docs/which_test.md``), where the bootstrap interval is unreliable for
    the same reason; there, and when only an interval test warned, the
    message names the number at risk (the interval, or the p-value) and the
    remedy that applies.
    """


class AntiConservativeWarning(UserWarning):
    """Warn that a test was asked for in a configuration known to exceed its level.

    Raised by :func:`sigtest.cv.corrected_resampled_ttest` and
    :func:`sigtest.cv.bayesian_correlated_ttest` with
    ``variance="all-folds"`` on the folds of repeated cross-validation (or
    of repeated random splits): that variance counts every fold of every
    repetition as new data and rejects true null hypotheses far more often
    than the nominal level (0.12 instead of 0.05 with 10 x 10 folds in the
    design of ``docs/cv_equivalence_bayesian.md``). The result is computed
    as asked (to reproduce published numbers); the default
    ``variance="one-partition"`` holds the level.
    """


class ProbabilityRoundingWarning(UserWarning):
    """Warn that probability rows summing to 1 only up to rounding were renormalised.

    A row of a soft-label array (or file) whose sum differs from 1 by more
    than ``1e-6`` but at most ``1e-3`` (probabilities printed with three or
    four decimals) is divided by its sum; the warning gives the number of
    such rows and the largest deviation. Rows further off are an error.
    """


def __getattr__(name):
    if name == "UndefinedMetricWarning":
        from sklearn.exceptions import UndefinedMetricWarning

        return UndefinedMetricWarning
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | {"UndefinedMetricWarning"})


class SlowPathWarning(UserWarning):
    """Warn that a metric without sufficient statistics will take long.

    A metric that sigtest cannot compute from additive per-item statistics
    (a user's function, a scikit-learn metric with keywords sigtest does not
    take the same way, a median) is called on every resample: the slow
    path. When the estimated cost, the number of calls times the duration
    of one call timed on the observed data, exceeds two seconds, the test
    says so before it starts, with the estimate and the remedy (register the
    metric with ``statistics``/``aggregate``, or use a metric listed as fast
    in ``docs/metrics.md``).
    """
