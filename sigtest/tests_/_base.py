"""The :class:`SignificanceTest` base class: one template, one hook."""

from __future__ import annotations

import contextlib
import math
import warnings
from abc import ABC, abstractmethod
from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator

from .._results import SignificanceResult, TestOutcome
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
    r"""Base class of paired significance tests comparing a baseline A with a candidate B.

    A test is written by subclassing it and implementing one public hook,
    :meth:`evaluate`, which receives the prepared :class:`~sigtest.PairedData`
    and an integer seed and returns a :class:`~sigtest.TestOutcome`. The base
    class owns everything else:

    * validation: :meth:`test` checks the parameters
      (``_parameter_constraints``), the inputs (lengths, hard/soft kinds,
      ``sample_weight``, ``labels``) and every keyword argument (one that
      neither the test nor the metric accepts raises ``TypeError``), then
      prepares the paired data once; :meth:`test_paired` starts from
      prepared data (as :func:`sigtest.compare` does);
    * ``random_state`` -> the integer seed given to :meth:`evaluate`;
    * ``n_jobs`` -> numba's thread count while :meth:`evaluate` runs;
    * orientation: :attr:`PairedData.statistic` and :meth:`PairedData.orient`
      make positive mean "B is better" (the sign flips for a loss);
      ``alternative="greater"`` means "B is better";
    * the p-value from a null distribution, when :meth:`evaluate` returns
      ``null_distribution`` without ``pvalue`` (Monte Carlo
      :math:`(c+1)/(B+1)` counting ties, exact with ``null_weights``; a
      single-point distribution gives ``p = 1`` with a
      ``DegenerateDistributionWarning``);
    * the :class:`~sigtest.SignificanceResult`.

    ``__init__`` of a subclass only stores its keyword arguments, so that
    ``get_params``, ``set_params`` and :func:`sklearn.base.clone` work. The
    class attribute ``name`` is the test's registry key (shown in results);
    register the class with :func:`sigtest.register_test` to use it by name
    in :func:`sigtest.compare`, :func:`sigtest.cross_val_compare`,
    :class:`sigtest.Experiment` and ``sigtest compare --test NAME``.

    Parallelism: a parameter ``n_jobs`` (``None``: numba's parallel kernels
    with numba's thread count; ``1``: serial kernels, as ``compare`` asks for
    inside its own workers; ``k > 1``: at most ``k`` numba threads; ``-1``:
    all). Results do not depend on it (random streams are per block of
    resamples, not per thread).

    Attributes
    ----------
    name : str or None
        Registry key of the test (``None``: the class name is used).

    Examples
    --------
    >>> import numpy as np
    >>> from sigtest import SignificanceTest, TestOutcome
    >>> class ItemSignFlip(SignificanceTest):
    ...     name = "item_sign_flip"
    ...     def __init__(self, *, alternative="two-sided", random_state=None):
    ...         self.alternative = alternative
    ...         self.random_state = random_state
    ...     def evaluate(self, data, random_state):
    ...         d, w = data.item_differences()
    ...         d = np.repeat(d, w.astype(int))
    ...         signs = np.random.default_rng(random_state).choice([-1, 1], (999, d.size))
    ...         raw = data.orient(signs @ d / d.size)  # raw B - A differences
    ...         return TestOutcome(null_distribution=raw)
    >>> y = np.array([0, 1] * 20)
    >>> a, b = np.where(np.arange(40) < 6, 1 - y, y), y
    >>> res = ItemSignFlip(random_state=0).test(y, a, b)
    >>> res.test, res.n_resamples, bool(res.pvalue < 0.1)
    ('item_sign_flip', 999, True)
    """

    _parameter_constraints: dict = {}
    name: str | None = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # ``_name`` is the former spelling of ``name``: keep both in step
        if "name" in cls.__dict__:
            cls._name = cls.__dict__["name"]
        elif "_name" in cls.__dict__:
            cls.name = cls.__dict__["_name"]

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
    def evaluate(self, data, random_state):
        """Run the test on prepared paired data: the one hook of a test.

        Parameters
        ----------
        data : PairedData
            The validated paired data: per-row (or per-cell) statistics of A
            and B, observed scores, ``statistic`` (oriented), ``orient``,
            ``item_differences()`` for per-item decomposable metrics.
        random_state : int
            Integer seed drawn by the base class from the test's
            ``random_state`` (the same seed gives the same result).

        Returns
        -------
        TestOutcome
            The p-value and/or the null distribution (RAW differences
            ``score_b* - score_a*``; the base class computes the p-value from
            it if ``pvalue`` is ``None``), an interval, and details.
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
            Non-negative item weights.
        labels : array-like, default=None
            Full label set of class-averaged metrics; default: the union over
            ``y_true``, A and B, fixed once for every resample.
        **metric_params
            Passed to the metric (e.g. ``zero_division=0.0``). A keyword the
            metric does not accept raises ``TypeError``.

        Returns
        -------
        SignificanceResult

        Raises
        ------
        TypeError
            For a keyword argument that neither the test nor the metric
            accepts (e.g. ``groups=`` or ``strata=``), naming it.
        """
        self._validate_params()
        from ._paired import check_metric_params, prepare_paired

        metric = get_metric(metric)
        check_metric_params(metric, metric_params, caller=f"{type(self).__name__}.test")
        data = prepare_paired(
            y_true, y_pred_a, y_pred_b, metric,
            sample_weight=sample_weight, labels=labels, **metric_params,
        )
        return self._run(data)

    def test_paired(self, data):
        """Run the test on already prepared paired data.

        Parameters
        ----------
        data : PairedData
            From the validated input path (``prepare_paired``); what
            :func:`sigtest.compare` prepares once per (pair, metric) for its
            p-value and interval tests.

        Returns
        -------
        SignificanceResult
            The result :meth:`test` gives on the same data.
        """
        from ._paired import PairedData

        if not isinstance(data, PairedData):
            raise TypeError(
                "The 'data' parameter of test_paired must be a PairedData (from the "
                f"validated input path). Got {type(data).__name__} instead."
            )
        self._validate_params()
        return self._run(data)

    def _test_prepared(self, paired, metric_params=None, *, validate=True):
        """Former name of :meth:`test_paired` (``metric_params`` is ignored)."""
        if validate:
            self._validate_params()
        return self._run(paired)

    def _validate_params(self):
        validate_parameter_constraints(
            self._parameter_constraints,
            self.get_params(deep=False),
            caller_name=type(self).__name__,
        )

    def _alternative(self):
        """The test's ``alternative`` parameter, ``"two-sided"`` for a test without one."""
        return getattr(self, "alternative", None) or "two-sided"

    def _run(self, data):
        """Seed, threads, :meth:`evaluate`, the p-value, the result."""
        metric = data.metric
        seed = check_random_state_seed(getattr(self, "random_state", None))
        with self._numba_threads():
            outcome = self.evaluate(data, seed)
        if not isinstance(outcome, TestOutcome):
            raise TypeError(
                f"{type(self).__name__}.evaluate must return a TestOutcome. Got "
                f"{type(outcome).__name__} instead."
            )
        alternative = self._alternative()
        null = outcome.null_distribution
        if null is not None:
            null = np.asarray(null, dtype=np.float64)
        weights = outcome.null_weights
        pvalue = outcome.pvalue
        if pvalue is None and null is not None:
            pvalue = self._pvalue_from_null(data, null, weights, alternative)
        details = dict(outcome.details)
        if outcome.statistic is not None:
            details["test_statistic"] = float(outcome.statistic)
        params = {**self.get_params(deep=False), "seed": seed,
                  "metric_params": dict(data.metric_params), **details}
        n_resamples = int(outcome.n_resamples)
        if not n_resamples and null is not None:
            n_resamples = int(null.size)
        level = outcome.confidence_level
        if level is None and outcome.confidence_interval is not None:
            level = getattr(self, "confidence_level", None)
        score_a, score_b = float(data.score_a), float(data.score_b)
        delta = score_b - score_a
        return SignificanceResult(
            metric=metric.name,
            test=self._test_name(),
            score_a=score_a,
            score_b=score_b,
            delta=delta,
            statistic=data.orient(delta),
            pvalue=math.nan if pvalue is None else float(pvalue),
            confidence_interval=outcome.confidence_interval,
            n_resamples=n_resamples,
            alternative=alternative,
            confidence_level=None if level is None else float(level),
            greater_is_better=bool(metric.greater_is_better),
            n_samples=int(data.n_samples),
            params=params,
            null_distribution=null,
            null_weights=weights,
            resampling=outcome.resampling,
            acceleration=outcome.acceleration,
            interval_method=outcome.interval_method,
        )

    def _pvalue_from_null(self, data, null, weights, alternative):
        """p from a RAW null distribution: permutation counting or exact weights.

        A single-point distribution carries no information: ``p = 1`` with a
        :class:`~sigtest.exceptions.DegenerateDistributionWarning`.
        """
        from .._results import _is_degenerate
        from ._permutation import permutation_pvalue

        t = data.statistic
        if _is_degenerate(null):
            warn_degenerate(
                "The permutation (null) distribution is a single point (e.g. the systems "
                "make identical predictions); the test carries no information and p = 1.",
                stacklevel=5,
            )
            return 1.0 if math.isfinite(t) else math.nan
        return permutation_pvalue(data.orient(null), t, alternative, weights,
                                  atol=tie_tolerance(data),
                                  mid_p=bool(getattr(self, "mid_p", False)))

    # ------------------------------------------------------------------ helpers
    @classmethod
    def _test_name(cls):
        return cls.name or cls.__name__

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
