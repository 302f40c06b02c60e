"""The :class:`SignificanceTest` base class: one template, one hook."""

from __future__ import annotations

import contextlib
import math
import warnings
from abc import ABC, abstractmethod
from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator

from .._results import SignificanceResult
from ..exceptions import DegenerateDistributionWarning, SmallSampleWarning
from ..metrics import get_metric
from ..utils import check_random_state_seed
from ..utils._param_validation import Interval, validate_parameter_constraints

__all__ = ["SignificanceTest"]

# Shared constraints: int seeds as numpy accepts them, SeedSequence, Generator.
_RANDOM_STATE = [
    None,
    Interval(Integral, 0, 2**32 - 1, closed="both"),
    np.random.SeedSequence,
    np.random.Generator,
    np.random.RandomState,
]
_N_JOBS = [
    None,
    Interval(Integral, 1, None, closed="left"),
    Interval(Integral, None, -1, closed="right"),
]
# scipy's tolerance for ties of floating-point statistics (permutation_test).
TIE_RTOL = 100 * np.finfo(np.float64).eps


class SignificanceTest(BaseEstimator, ABC):
    """Base class of paired significance tests comparing a baseline A with a candidate B.

    ``__init__`` of a subclass only stores its keyword arguments, so that
    ``get_params``, ``set_params`` and :func:`sklearn.base.clone` work. The
    class attribute ``_parameter_constraints`` is checked when :meth:`test`
    runs. A subclass implements one hook, :meth:`_compute`, and sets
    ``_name`` (its registry key).

    The template :meth:`test` validates the parameters, builds the paired
    sufficient statistics of A and B with the label set fixed once from the
    full data (``prepare_paired``), draws the integer seed from
    ``random_state``, calls :meth:`_compute`, and wraps its output in a
    :class:`~sigtest.SignificanceResult`.

    Orientation: ``delta = score_b - score_a``; the *oriented* statistic is
    ``delta`` for a score and ``-delta`` for a loss, so positive always means
    "B is better". ``alternative="greater"`` means "B is better".

    Parallelism: a parameter ``n_jobs`` (``None``: numba's parallel kernels
    with numba's thread count; ``1``: serial kernels, as ``compare`` asks for
    inside its own workers; ``k > 1``: at most ``k`` numba threads; ``-1``:
    all). Results do not depend on it (random streams are per block of
    resamples, not per thread).
    """

    _parameter_constraints: dict = {}
    _name: str | None = None

    @classmethod
    def _get_param_names(cls):
        # scikit-learn inspects the signature of __init__ on every get_params
        # call; cache the (immutable) answer per class
        names = cls.__dict__.get("_param_names_cache")
        if names is None:
            names = tuple(super()._get_param_names())
            cls._param_names_cache = names
        return list(names)

    @abstractmethod
    def _compute(self, paired, seed):
        """Run the test on paired statistics.

        Parameters
        ----------
        paired : PairedStatistics
            From ``prepare_paired``: per-row (or per-cell) statistics of A and
            B, observed scores, ``counts``; see ``docs/design.md`` section 2.
        seed : int
            Integer seed from ``random_state`` (reproducible results).

        Returns
        -------
        fields : dict
            Any of ``pvalue``, ``confidence_interval``, ``n_resamples``,
            ``alternative``, ``confidence_level``, ``null_distribution``,
            ``null_weights``, ``resampling``, ``acceleration``,
            ``interval_method``, and ``params`` (extra parameters to record).
        """

    def test(self, y_true, y_pred_a, y_pred_b, *, metric="accuracy", sample_weight=None,
             labels=None, **metric_params):
        """Test whether the candidate B beats the baseline A on ``metric``.

        Parameters
        ----------
        y_true : array-like
            Hard labels of shape (n_samples,) or, for soft metrics, the true
            distributions of shape (n_samples, n_classes).
        y_pred_a, y_pred_b : array-like
            Predictions of the baseline A and the candidate B, same kind as
            the metric expects.
        metric : str or Metric, default="accuracy"
            A registered metric name (see :func:`sigtest.get_metric_names`) or
            a :class:`~sigtest.metrics.Metric`.
        sample_weight : array-like of shape (n_samples,), default=None
        labels : array-like, default=None
            Full label set of class-averaged metrics; default: the union over
            ``y_true``, A and B, fixed once for every resample.
        **metric_params
            Passed to the metric (e.g. ``zero_division=0.0``).

        Returns
        -------
        SignificanceResult
        """
        self._validate_params()
        from ._paired import prepare_paired

        metric = get_metric(metric)
        paired = prepare_paired(
            y_true, y_pred_a, y_pred_b, metric,
            sample_weight=sample_weight, labels=labels, **metric_params,
        )
        return self._test_prepared(paired, metric_params, validate=False)

    def _validate_params(self):
        validate_parameter_constraints(
            self._parameter_constraints,
            self.get_params(deep=False),
            caller_name=type(self).__name__,
        )

    def _test_prepared(self, paired, metric_params, *, validate=True):
        """:meth:`test` on already prepared paired statistics.

        ``paired`` is what ``prepare_paired(..., **metric_params)`` returned;
        :func:`sigtest.compare` prepares it once per (pair, metric) and runs
        its p-value and interval tests on it. The result is the one
        :meth:`test` gives on the same data.
        """
        if validate:
            self._validate_params()
        metric = paired.metric
        seed = check_random_state_seed(getattr(self, "random_state", None))
        with self._numba_threads():
            fields = dict(self._compute(paired, seed))
        params = {**self.get_params(deep=False), "seed": seed,
                  "metric_params": dict(metric_params), **fields.pop("params", {})}
        score_a, score_b = float(paired.score_a), float(paired.score_b)
        delta = score_b - score_a
        return SignificanceResult(
            metric=metric.name,
            test=self._test_name(),
            score_a=score_a,
            score_b=score_b,
            delta=delta,
            statistic=self._orient(metric, delta),
            pvalue=float(fields.pop("pvalue", math.nan)),
            greater_is_better=bool(metric.greater_is_better),
            n_samples=int(paired.n_samples),
            params=params,
            **fields,
        )

    # ------------------------------------------------------------------ helpers
    @classmethod
    def _test_name(cls):
        return cls._name or cls.__name__

    @staticmethod
    def _orient(metric, values):
        """Oriented values: positive means "B is better" (sign flip for a loss)."""
        return values if metric.greater_is_better else -values

    def _parallel(self):
        return getattr(self, "n_jobs", None) != 1

    @contextlib.contextmanager
    def _numba_threads(self):
        n_jobs = getattr(self, "n_jobs", None)
        if n_jobs is None or n_jobs == 1:
            yield
            return
        import numba

        before = numba.get_num_threads()
        limit = numba.config.NUMBA_NUM_THREADS
        wanted = min(int(n_jobs), limit) if n_jobs > 0 else limit + 1 + int(n_jobs)
        numba.set_num_threads(max(1, wanted))
        try:
            yield
        finally:
            numba.set_num_threads(before)

    def _resampled_deltas(self, paired, scheme, n_resamples, seed, sample_size=None):
        """Raw resampled differences ``score_b* - score_a*`` (non-finite ones dropped).

        ``scheme`` is ``"bootstrap"`` (paired, ``sample_size`` items with
        replacement) or ``"permutation"`` (A and B swapped per item with
        probability 1/2). Metrics with sufficient statistics use the numba
        kernels; others the slow path calling ``score_func`` on index batches.
        """
        from . import _resampling

        parallel = self._parallel()
        if paired.stats_a is not None:
            if scheme == "bootstrap":
                sums = _resampling.bootstrap_sums(paired, n_resamples, sample_size, seed,
                                                  parallel=parallel)
            else:
                sums = _resampling.permutation_sums(paired, n_resamples, seed,
                                                    parallel=parallel)
            deltas = paired.deltas(*sums)
        elif scheme == "bootstrap":
            deltas = _resampling.bootstrap_deltas(paired, n_resamples, sample_size, seed)
        else:
            deltas = _resampling.permutation_deltas(paired, n_resamples, seed)
        return drop_nonfinite(np.asarray(deltas, dtype=np.float64))


def _engine():
    """The resampling engine module (imported lazily: it compiles numba kernels)."""
    from . import _resampling

    return _resampling


def drop_nonfinite(deltas):
    """Drop resamples on which the metric is undefined, with a warning.

    Defined behaviour for NaN metric values in a resample (e.g.
    ``zero_division=np.nan`` and a class absent from the resample): those
    resamples are dropped and counted out of ``n_resamples``; a
    :class:`~sigtest.exceptions.DegenerateDistributionWarning` says how many.
    """
    finite = np.isfinite(deltas)
    n_bad = deltas.size - int(finite.sum())
    if n_bad:
        warnings.warn(
            f"{n_bad} of {deltas.size} resampled differences are not finite (the metric is "
            "undefined on those resamples, e.g. zero_division=nan); they are dropped and "
            "the p-value / interval use the remaining ones.",
            DegenerateDistributionWarning,
            stacklevel=5,
        )
        deltas = deltas[finite]
    return deltas


def tie_tolerance(paired):
    """Absolute tolerance for ties of resampled differences with the observed one.

    ``100 * eps * (|score_a| + |score_b|)``: a difference of two scores is
    exact only up to the rounding of the scores themselves, which can exceed
    scipy's relative tolerance ``100 * eps * |delta|`` when ``delta`` is
    small next to the scores (one differing item among N = 3000: delta =
    1/3000, scores ~0.7). Genuine differences between resampled values are
    far larger (at least 1/N for counting metrics).
    """
    scale = abs(float(paired.score_a)) + abs(float(paired.score_b))
    return TIE_RTOL * scale if math.isfinite(scale) else 0.0


def warn_degenerate(what, stacklevel=5):
    """Emit the standard :class:`DegenerateDistributionWarning`."""
    warnings.warn(what, DegenerateDistributionWarning, stacklevel=stacklevel)


# Below these limits the bootstrap tests warn (SmallSampleWarning): (minimum N,
# minimum number of discordant items). Measured by
# benchmarks/bench_small_samples.py (tables in docs/which_test.md): above them
# the size at alpha = .05 stayed <= ~.06 and the BCa coverage >= ~.94.
BK_SMALL_SAMPLE_LIMITS = (20, 8)
BCA_SMALL_SAMPLE_LIMITS = (30, 20)


def discreteness_floor(n_discordant, alternative):
    r"""Smallest p-value a test conditional on the discordant items can give.

    With :math:`d` discordant items a paired permutation has at most
    :math:`2^d` equally likely outcomes; the most extreme one (all :math:`d`
    items favour the same system) has probability :math:`2^{-d}`, so

    .. math:: p \ge 2^{-d} \ (\text{one-sided}), \qquad
              p \ge \min(1, 2^{1-d}) \ (\text{two-sided}),

    the exact sign test (McNemar) with all items going one way. ``d = 0``
    gives 1.

    Parameters
    ----------
    n_discordant : int
        Number of discordant items (see ``discordant_count``).
    alternative : {"two-sided", "greater", "less"}

    Returns
    -------
    float
    """
    d = int(n_discordant)
    if d <= 0:
        return 1.0
    return float(min(1.0, 2.0 ** (1 - d) if alternative == "two-sided" else 2.0 ** (-d)))


def small_sample_reasons(n_samples, n_discordant, limits):
    """Why the data are too few for a bootstrap test (empty list: they are not).

    ``limits`` is ``(minimum N, minimum number of discordant items)``.
    """
    min_n, min_d = limits
    reasons = []
    if n_samples < min_n:
        reasons.append(f"N = {n_samples} items < {min_n}")
    if n_discordant < min_d:
        reasons.append(f"d = {n_discordant} discordant items (where A and B differ) "
                       f"< {min_d}")
    return reasons


def warn_small_sample(test_name, reasons, *, floored=False, stacklevel=5):
    """Emit :class:`~sigtest.SmallSampleWarning` naming the exact permutation test."""
    what = "; ".join(reasons) if reasons else "few discordant items"
    tail = (" The p-value was raised to the exact sign-test bound (all discordant items "
            "going one way)." if floored else "")
    warnings.warn(
        f"{test_name}: the data are too few for a bootstrap test ({what}); its size can "
        f"exceed the nominal level and its interval under-cover.{tail} Use the exact "
        "permutation test, sigtest.PairedPermutation(), which is valid at any N.",
        SmallSampleWarning,
        stacklevel=stacklevel,
    )
