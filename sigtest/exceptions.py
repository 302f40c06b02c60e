"""Warnings and exceptions raised by sigtest."""

from sklearn.exceptions import UndefinedMetricWarning

__all__ = ["DegenerateDistributionWarning", "UndefinedMetricWarning"]


class DegenerateDistributionWarning(RuntimeWarning):
    """Warn that a resampling distribution is degenerate.

    Raised when, for instance, the two systems make identical predictions, so
    every resampled difference is the same number and no interval or p-value
    carries information. The result then holds a documented fallback value
    (``pvalue=1.0`` for one-sided "B is better" tests, a NaN interval) instead
    of a spurious "significant".
    """
