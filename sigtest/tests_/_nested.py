"""Seed-aware paired test: the hierarchical (two-stage) bootstrap over runs and items."""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np

from sigtest._constants import N_RESAMPLES
from sigtest._engine.intervals import bootstrap_interval, excludes_zero, is_degenerate
from sigtest._engine.nested import nested_bootstrap_sums
from sigtest._engine.checks import check_array_like
from sigtest._engine import check_metric_params, run_statistics
from sigtest._engine.paired import resample_params_of
from sigtest._engine.pvalues import TIE_RTOL, berg_kirkpatrick_pvalue, warn_degenerate
from sigtest._engine.small_sample import (
    BK_SMALL_SAMPLE_LIMITS,
    discreteness_floor,
    point_mass_log10_pvalue,
    point_mass_pvalue,
    small_sample_reasons,
    warn_small_sample,
)
from sigtest._results import SignificanceResult
from sigtest.exceptions import SmallSampleWarning
from sigtest.metrics import get_metric
from sigtest.utils import check_random_state_seed, warn_external
from sigtest.utils._estimator import ParamsMixin
from sigtest.utils._param_validation import lazy, validate_parameter_constraints
from sigtest.tests_._base import _RANDOM_STATE

__all__ = ["HierarchicalBootstrap", "MIN_RUNS"]

#: Fewer runs than this for a system give a :class:`~sigtest.SmallSampleWarning`:
#: the seed variance is then estimated from very few runs (``R - 1`` degrees of
#: freedom) and the bootstrap's tails are too thin; with a seed effect of sd .05
#: (N = 300, 300 replications) the two-sided level-.05 test rejected a true null
#: 6.0 % of the time with 3 runs, 6.7 % with 2, 2.7 % with 5 (``docs/seeds.md``).
MIN_RUNS = 5


def _as_runs(value, n, name):
    """A list of runs: a list/tuple of arrays of length ``n``, or one prediction.

    A list of arrays (not of plain lists) whose length is not ``n`` cannot be
    one prediction of the ``n`` items: it is a list of runs, and a run of
    another length is reported as such by the engine (naming ``name``).
    """
    if isinstance(value, np.ndarray) and value.ndim == 3:
        return list(value)
    if isinstance(value, (list, tuple)):
        if len(value) == 0:
            raise ValueError(f"The '{name}' parameter must hold at least one run.")
        arrays = all(hasattr(v, "__len__") and not isinstance(v, (str, bytes))
                     and np.ndim(v) >= 1 for v in value)
        rows = all(isinstance(v, (list, tuple)) for v in value)  # maybe one soft prediction
        if arrays and not (len(value) == n and rows) and (
                all(len(v) == n for v in value) or (len(value) != n and not rows)):
            return list(value)
    return [value]


class HierarchicalBootstrap(ParamsMixin):
    r"""Seed-aware paired bootstrap: resample runs, then items (``compare(runs="nested")``).

    Each system was trained :math:`R` times (seeds) and every run predicts
    the same :math:`N` items. The hypothesis is about *training a system
    again*, not about the runs at hand:

        H0: the expected score of a freshly trained run of B equals that of
        a freshly trained run of A (expectation over seeds and items).

    Each of the ``n_resamples`` resamples draws :math:`R_A` runs of A and,
    independently, :math:`R_B` runs of B with replacement (the seeds of A
    and B are not paired), and :math:`N` items with replacement, the same
    items for A and B (paired). Each system's score is the metric of the
    mean over its drawn runs of the sufficient statistics summed over the
    drawn items, each run expanded about the mean of the system's runs by
    :math:`\sqrt{R/(R-1)}` so that the bootstrap variance of a mean of
    :math:`R` runs is unbiased (the plain bootstrap shrinks it by
    :math:`(R-1)/R`), and :math:`t^*` is the oriented difference (positive: B
    better). The observed :math:`t` is the difference of the pooled scores
    (the scores of ``runs="average"``). As in
    :class:`~sigtest.BergKirkpatrickBootstrap`, :math:`t^* - t` estimates
    the null distribution:

    .. math:: p = \frac{1 + \#\{|t^* - t| \ge |t|\}}{B + 1}

    for ``"two-sided"`` (``"greater"``: :math:`\#\{t^* \ge 2t\}` if
    :math:`t > 0`, else 1), and the interval of the difference is the
    percentile interval of the :math:`t^*` (see
    :func:`~sigtest._engine.pvalues.berg_kirkpatrick_pvalue`). Runs and
    items are crossed, so this is Owen's (2007) pigeonhole bootstrap with
    the item draw shared by A and B: it counts the seed and item
    variances, and the run x item interaction twice (slightly
    conservative). Each resample costs :math:`O(N (R_A + R_B) s)` with
    :math:`s` statistics per item (:mod:`sigtest._engine.nested`).

    **Small samples.** As in :class:`~sigtest.BergKirkpatrickBootstrap`,
    with :math:`d` discordant items (items whose run-averaged statistics
    differ between A and B: only they change the pooled difference when A
    and B swap on an item) the p-value is floored at the exact sign test
    with all :math:`d` one way, :math:`2^{-d}` one-sided or :math:`2^{1-d}`
    two-sided (:func:`~sigtest._engine.small_sample.discreteness_floor`),
    with a ``SmallSampleWarning`` below 20 items or 8 discordant ones; a
    two-sided interval that excludes 0 while the floored p exceeds ``1 -
    confidence_level`` is widened to 0. ``params`` records
    ``n_discordant``, ``pvalue_floor`` and ``pvalue_unfloored``. A
    distribution that is a single point follows the engine's rule
    (:func:`~sigtest._engine.small_sample.point_mass_pvalue`).

    With one run per system the test is the paired item bootstrap
    (Berg-Kirkpatrick's, with a percentile interval). A system with one run
    has no seed variance to resample: it is taken as 0 (a
    :class:`~sigtest.SmallSampleWarning` says so), which makes the test
    anti-conservative when that system's seed variance is not small.

    Parameters
    ----------
    n_resamples : int, default=9999
        Number of bootstrap resamples B (>= 1).
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        ``"greater"``: B is better than A.
    confidence_level : float in (0, 1), default=0.95
        Level of the percentile interval of the difference.
    random_state : None, int, SeedSequence or Generator, default=None
        Seed of the resamples; equal seeds give bit-identical results.

    Warns
    -----
    SmallSampleWarning
        A system with fewer than 5 runs (one run: no seed variance at all):
        the seed variance is estimated from too few runs and the test can
        exceed its level when seeds matter (measured in ``docs/seeds.md``).
        Also fewer than 20 items or 8 discordant items (items whose
        run-averaged statistics differ), or the sign-test floor raised the
        p-value, as in :class:`~sigtest.BergKirkpatrickBootstrap`.
    DegenerateDistributionWarning
        Every resampled difference equal: 0 (identical systems: ``p = 1``,
        nan interval) or the observed :math:`\delta \ne 0` (every item
        favours one system by the same amount: the exact sign-test p and the
        point interval :math:`[\delta, \delta]`).

    See Also
    --------
    BergKirkpatrickBootstrap : The item-level paired bootstrap.
    compare : ``runs="nested"`` runs this test for every pair.

    Notes
    -----
    Only metrics with sufficient statistics are supported (the metric of
    a resample is computed from summed statistics). Weights, ``groups`` and
    ``strata`` are not supported.

    References
    ----------
    A. B. Owen (2007). The pigeonhole bootstrap. Annals of Applied
    Statistics 1(2), 386-411.
    A. C. Davison and D. V. Hinkley (1997). Bootstrap Methods and their
    Application, sec. 3.8 (hierarchical data).
    T. Berg-Kirkpatrick, D. Burkett, D. Klein (2012). An empirical
    investigation of statistical significance in NLP. EMNLP.

    Examples
    --------
    >>> import numpy as np
    >>> from sigtest import HierarchicalBootstrap
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 400)
    >>> def run(p):  # one training run: correct with probability p
    ...     return np.where(rng.random(400) < p, y, 1 - y)
    >>> runs_a = [run(0.70) for _ in range(5)]
    >>> runs_b = [run(0.80) for _ in range(5)]
    >>> res = HierarchicalBootstrap(n_resamples=2000, random_state=0).test(y, runs_a, runs_b)
    >>> bool(res.delta > 0), bool(res.pvalue < 0.05)
    (True, True)
    """

    name = "hierarchical_bootstrap"

    @classmethod
    def _test_name(cls):
        """The ``test`` column of :func:`sigtest.compare`: :attr:`name`."""
        return cls.name

    _parameter_constraints: dict = {
        "n_resamples": [lazy.Interval(Integral, 1, None, closed="left")],
        "alternative": [lazy.StrOptions({"greater", "less", "two-sided"})],
        "confidence_level": [lazy.Interval(Real, 0, 1, closed="neither")],
        "random_state": _RANDOM_STATE,
    }

    def __init__(self, *, n_resamples=N_RESAMPLES, alternative="two-sided",
                 confidence_level=0.95, random_state=None):
        self.n_resamples = n_resamples
        self.alternative = alternative
        self.confidence_level = confidence_level
        self.random_state = random_state

    def _validate_params(self):
        params = self.get_params(deep=False)
        if isinstance(params["n_resamples"], (bool, np.bool_)):
            raise ValueError(
                "The 'n_resamples' parameter of HierarchicalBootstrap must be an int, not a "
                f"bool. Got {params['n_resamples']!r} instead."
            )
        validate_parameter_constraints(self._parameter_constraints, params,
                                       caller_name=type(self).__name__)

    def test(self, y_true, y_pred_a, y_pred_b, *, metric="accuracy", labels=None,
             **metric_params):
        """Test whether retraining B beats retraining A on ``metric``.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,) or (n_samples, n_classes)
            Gold labels (or distributions, for soft metrics).
        y_pred_a, y_pred_b : array-like or list of array-like
            The runs of A and of B: a list of predictions (one per run, each
            of the length of ``y_true``), or one prediction (a single run).
            The run counts may differ.
        metric : str or Metric, default="accuracy"
            A registered metric with sufficient statistics.
        labels : array-like, default=None
            Class set of class-averaged metrics; default: the union of
            ``y_true`` and every run.
        **metric_params
            Extra metric parameters (e.g. ``pos_label``).

        Returns
        -------
        result : SignificanceResult
            ``score_a``/``score_b`` are the pooled scores of the runs,
            ``pvalue`` and the percentile ``confidence_interval`` of
            ``delta`` come from the two-stage bootstrap; ``params`` records
            ``n_runs_a`` and ``n_runs_b``; ``null_distribution`` holds the
            resampled differences (``ci()`` reuses them).

        Raises
        ------
        ValueError
            A metric without sufficient statistics (the message names
            ``runs=``), empty or mismatched runs, ``sample_weight``,
            ``groups`` or ``strata``.
        """
        self._validate_params()
        for key in ("sample_weight", "groups", "strata"):
            if metric_params.get(key) is not None:
                raise ValueError(
                    f"The '{key}' parameter is not supported by the hierarchical bootstrap "
                    "(runs='nested'); use runs='average' or runs='each'."
                )
            metric_params.pop(key, None)
        n = check_array_like(y_true, "y_true").shape[0]
        runs_a = _as_runs(y_pred_a, n, "y_pred_a")
        runs_b = _as_runs(y_pred_b, n, "y_pred_b")
        metric_obj = get_metric(metric)
        check_metric_params(metric_obj, metric_params, caller="HierarchicalBootstrap.test")
        if not metric_obj.has_statistics:
            raise ValueError(
                f"runs='nested' (the hierarchical bootstrap) computes the metric from summed "
                f"sufficient statistics, but metric {metric_obj.name!r} has none; use "
                "runs='each' (one test per run)."
            )
        metric_obj, params, _, _, stats_a, stats_b = run_statistics(
            y_true, runs_a, runs_b, metric_obj, labels=labels,
            arg_names=("y_pred_a", "y_pred_b"), **metric_params)
        stats_a, stats_b = np.stack(stats_a), np.stack(stats_b)
        if stats_a.shape[1:] != stats_b.shape[1:]:
            raise ValueError(
                f"Metric {metric_obj.name!r} returned statistics of different shapes for A "
                f"{stats_a.shape[1:]} and B {stats_b.shape[1:]}."
            )
        few = {"A": stats_a.shape[0], "B": stats_b.shape[0]}
        few = {k: v for k, v in few.items() if v < MIN_RUNS}
        if few and not all(v == 1 for v in (stats_a.shape[0], stats_b.shape[0])):
            single = [k for k, v in few.items() if v == 1]
            warn_external(
                f"HierarchicalBootstrap: system(s) {sorted(few)} have fewer than {MIN_RUNS} "
                f"runs ({few}); their seed variance is estimated from too few runs, so "
                "the test can exceed its level when seeds matter"
                + (f"; {single} have a single run, so their seed variance is taken as 0"
                   if single else "") + ". Train more seeds.",
                SmallSampleWarning,
            )
        elif few:
            warn_external(
                "HierarchicalBootstrap: every system has a single run, so no seed variance "
                "can be estimated: this is the item-level bootstrap, conditional on the runs.",
                SmallSampleWarning,
            )
        mean_a = stats_a.sum(axis=0) / stats_a.shape[0]
        mean_b = stats_b.sum(axis=0) / stats_b.shape[0]
        score_a = float(metric_obj.aggregate(mean_a.sum(axis=0), **params))
        score_b = float(metric_obj.aggregate(mean_b.sum(axis=0), **params))
        delta = score_b - score_a
        sign = 1.0 if metric_obj.greater_is_better else -1.0
        seed = check_random_state_seed(self.random_state)
        sums_a, sums_b = nested_bootstrap_sums(stats_a, stats_b, self.n_resamples, seed)
        resample_params = resample_params_of(params, fill_unset=False)
        with np.errstate(invalid="ignore", divide="ignore"):
            deltas = (np.asarray(metric_obj.aggregate(sums_b, **resample_params), dtype=float)
                      - np.asarray(metric_obj.aggregate(sums_a, **resample_params), dtype=float))
        finite = deltas[np.isfinite(deltas)]
        level = float(self.confidence_level)
        atol = TIE_RTOL * (abs(score_a) + abs(score_b))  # as tie_tolerance()
        d = _discordant_items(mean_a, mean_b)
        floor = discreteness_floor(d, self.alternative)
        log10_p = None  # the result takes log10(p) of a p-value in the normal range
        if finite.size == 0:
            warn_degenerate("HierarchicalBootstrap: no resampled difference is finite; "
                            "p = 1 and the interval is nan.")
            raw = pvalue = 1.0
            ci = (math.nan, math.nan)
        elif is_degenerate(finite):
            # the engine's rule for a point mass: identical systems p = 1 and a nan
            # interval; every item favouring one system: the exact sign-test p and
            # the point interval (bootstrap_interval warns which)
            ci = bootstrap_interval(finite, delta, level, "percentile", atol=atol,
                                    n_discordant=d)
            raw = pvalue = floor = point_mass_pvalue(sign * delta, d, self.alternative,
                                                     atol=atol)
            # 2**(1 - d) underflows beyond d = 1075: its exact log10
            log10_p = point_mass_log10_pvalue(sign * delta, d, self.alternative, atol=atol)
        else:
            raw = berg_kirkpatrick_pvalue(sign * finite, sign * delta, self.alternative,
                                          atol=atol)
            ci = bootstrap_interval(finite, delta, level, "percentile")
            # the small-sample floor and warning of BergKirkpatrickBootstrap
            pvalue = max(raw, floor) if math.isfinite(raw) else raw
            # (d = 0: the runs differ but no item's run average does; p is 1 anyway)
            reasons = small_sample_reasons(n, d, BK_SMALL_SAMPLE_LIMITS) if d else []
            if reasons or pvalue > raw:
                warn_small_sample(type(self).__name__, reasons, floored=pvalue > raw)
        if self.alternative == "two-sided" and pvalue > 1.0 - level and excludes_zero(ci):
            # a floor raised p above 1 - level: widen the interval to 0, as
            # BCaInterval and SignificanceResult.ci() do
            ci = (min(ci[0], 0.0), max(ci[1], 0.0))
        return SignificanceResult(
            metric=metric_obj.name, test=self.name, score_a=score_a, score_b=score_b,
            delta=delta, statistic=sign * delta, pvalue=float(pvalue),
            confidence_interval=ci, n_resamples=int(self.n_resamples),
            alternative=self.alternative, confidence_level=level,
            greater_is_better=bool(metric_obj.greater_is_better), n_samples=int(n),
            params={"n_runs_a": int(stats_a.shape[0]), "n_runs_b": int(stats_b.shape[0]),
                    "n_finite": int(finite.size), "n_discordant": d, "pvalue_floor": floor,
                    "pvalue_unfloored": raw},
            null_distribution=deltas, resampling="bootstrap", interval_method="percentile",
            log10_pvalue=log10_p)


def _discordant_items(mean_a, mean_b):
    """Items whose run-averaged statistics differ between A and B.

    Only these items change the pooled difference when A and B swap on an
    item, so they are the ``d`` of the sign-test floor
    (:func:`~sigtest._engine.small_sample.discreteness_floor`). Means over
    different numbers of runs are compared with the tie tolerance
    ``100 eps`` relative to their size (``(0.1 + 0.1 + 0.1) / 3 != 0.1``).
    """
    scale = np.abs(mean_a) + np.abs(mean_b)
    differ = np.abs(mean_b - mean_a) > TIE_RTOL * scale
    return int(np.count_nonzero(differ.reshape(differ.shape[0], -1).any(axis=1)))
