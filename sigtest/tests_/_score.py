r"""``sigtest.score``: one system's score with a bootstrap confidence interval.

The same engine as the paired tests: the predictions of one system go through
the one validated input path as a pair ``(y_pred, y_pred)`` (so hard labels
are compressed into cells, clusters into cluster rows, and the observed score
is exactly the one the tests report), the bootstrap draws come from the
engine's kernels (:func:`sigtest._engine.resampling.bootstrap_sums`; whole
clusters with ``groups=``, within strata with ``strata=``), and the interval
comes from the same code as :class:`~sigtest.BCaInterval`
(:func:`sigtest._engine.intervals.bootstrap_interval`).

Metrics without sufficient statistics (a plain ``score_func``) take the
engine's slow path: resampled index sets drawn in seeded batches, one
``score_func`` call per resample.

:class:`ScoreResult`, what :func:`score` returns, is defined here, next to
its function (as SciPy keeps ``BootstrapResult`` beside ``bootstrap``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np

from sigtest._constants import N_RESAMPLES
from sigtest._engine.intervals import (
    NAN_INTERVAL,
    INTERVAL_METHODS,
    NEEDS_RESAMPLE_SE,
    acceleration_from_jackknife,
    bootstrap_interval,
    check_interval_args,
    is_degenerate,
    jackknife_strata,
)
from sigtest._engine import PairedData, check_metric_params, prepare_paired
from sigtest._engine.checks import check_n_resamples as _check_n_resamples
from sigtest._engine.rng import check_seed
from sigtest._engine.threads import numba_threads
from sigtest._engine.small_sample import BCA_SMALL_SAMPLE_LIMITS, FEW_CLUSTERS
from sigtest._results import (ConfidenceInterval, design_lines, optional_count, readonly_array,
                              sampling_design, to_plain)
from sigtest.exceptions import DegenerateDistributionWarning, SmallSampleWarning
from sigtest.metrics import Metric, as_metric
from sigtest.utils import check_random_state_seed, warn_external
from sigtest.utils._param_validation import lazy, validate_params

__all__ = ["ScoreResult", "score", "score_delong", "score_paired"]

# --------------------------------------------------------------------------
# the result
# --------------------------------------------------------------------------
@dataclass(frozen=True)
class ScoreResult:
    r"""One system's score and its bootstrap confidence interval.

    What :func:`sigtest.score` returns: the observed metric value of one
    system and a confidence interval from resampling the test items (or
    whole clusters, within strata), by the same interval code as
    :class:`~sigtest.BCaInterval`. Immutable; :meth:`ci` recomputes the
    interval at another level or by another method from the stored
    bootstrap distribution, without resampling again.

    Parameters
    ----------
    metric : str
        Metric name.
    estimate : float
        Observed value of the metric on all items.
    confidence_interval : ConfidenceInterval
        ``(low, high)`` at ``confidence_level``; for a degenerate bootstrap
        distribution (every resample equal) the exact Clopper-Pearson
        interval (see ``n_trials``) or the point ``[estimate, estimate]``.
    confidence_level : float
        Level of ``confidence_interval``.
    method : {"bca", "percentile", "basic", "normal", "studentized", "delong"}
        Interval method (``"delong"``: DeLong's normal interval of a ROC
        AUC, no resampling).
    n_resamples : int
        Number of bootstrap resamples used (finite ones); 0 for ``"delong"``.
    n_samples : int
        Number of test items N.
    n_groups : int or None, default=None
        Number of clusters G when whole clusters were resampled
        (``groups=``), else ``None``.
    n_strata : int or None, default=None
        Number of strata H when the bootstrap resampled within strata
        (``strata=``), else ``None``.
    greater_is_better : bool, default=True
        Orientation of the metric (``False`` for a loss).
    bootstrap_distribution : ndarray of shape (n_resamples,) or None, default=None
        The resampled metric values :math:`\hat\theta^*_b`. Read-only.
    acceleration : float or None, default=None
        BCa acceleration from the (delete-one-unit) jackknife, when computed.
    seed : int or None, default=None
        The integer seed drawn from ``random_state``.
    n_trials : int or None, default=None
        Set when every one of ``n_trials`` independent items scored 0, or
        every one 1, on a 0/1 metric (e.g. a perfect system's accuracy): the
        bootstrap distribution is then a single point and the interval is
        the exact Clopper-Pearson interval of ``estimate * n_trials``
        successes in ``n_trials`` (also from :meth:`ci`). ``None`` otherwise.
    standard_error : float or None, default=None
        ``method="delong"``: DeLong's standard error of the AUC, from which
        :meth:`ci` recomputes the interval at another level. ``None``
        otherwise.

    See Also
    --------
    sigtest.score : Computes it.
    SignificanceResult : The result of comparing two systems.

    Examples
    --------
    >>> from sigtest import ScoreResult, ConfidenceInterval
    >>> res = ScoreResult(metric="accuracy", estimate=0.8,
    ...                   confidence_interval=ConfidenceInterval(0.75, 0.85),
    ...                   confidence_level=0.95, method="bca", n_resamples=1000,
    ...                   n_samples=250)
    >>> res.confidence_interval.low
    0.75
    """

    metric: str
    estimate: float
    confidence_interval: ConfidenceInterval
    confidence_level: float
    method: str
    n_resamples: int
    n_samples: int
    n_groups: int | None = None
    n_strata: int | None = None
    greater_is_better: bool = True
    bootstrap_distribution: np.ndarray | None = field(default=None, repr=False,
                                                      compare=False)
    acceleration: float | None = field(default=None, repr=False)
    seed: int | None = field(default=None, repr=False)
    n_trials: int | None = field(default=None, repr=False)
    standard_error: float | None = field(default=None, repr=False)

    def __post_init__(self):
        ci = self.confidence_interval
        if ci is None:
            ci = NAN_INTERVAL
        object.__setattr__(self, "confidence_interval",
                           ConfidenceInterval(float(ci[0]), float(ci[1])))
        object.__setattr__(self, "estimate", float(self.estimate))
        object.__setattr__(self, "n_trials", optional_count(self.n_trials, "n_trials"))
        object.__setattr__(self, "bootstrap_distribution",
                           readonly_array(self.bootstrap_distribution))
        object.__setattr__(self, "n_groups", optional_count(self.n_groups, "n_groups"))
        object.__setattr__(self, "n_strata", optional_count(self.n_strata, "n_strata"))

    def ci(self, confidence_level=None, method=None):
        """Recompute the interval from the stored bootstrap distribution.

        No new resampling (like ``scipy.stats.bootstrap(...,
        bootstrap_result=res, n_resamples=0)``).

        Parameters
        ----------
        confidence_level : float in (0, 1), default=None
            Defaults to ``self.confidence_level``.
        method : {"bca", "percentile", "basic", "normal", "studentized"}, default=None
            Defaults to ``self.method``; ``"studentized"`` only at the stored
            level of a studentized result. ``"bca"`` needs the stored
            jackknife ``acceleration``.

        Returns
        -------
        interval : ConfidenceInterval
            ``(low, high)`` of the score (a degenerate distribution gives the
            Clopper-Pearson interval or the point, see ``n_trials``).

        Raises
        ------
        ValueError
            If no bootstrap distribution is stored, for ``method="bca"``
            without an acceleration, or for a bad ``confidence_level`` /
            ``method``.

        Warns
        -----
        DegenerateDistributionWarning
            If the distribution is degenerate (every resample equal): the
            interval is then the exact Clopper-Pearson one (``n_trials``
            set) or the point ``[estimate, estimate]``.
        """
        if confidence_level is None:
            confidence_level = self.confidence_level
        if method is None:
            method = self.method
        if (method == "delong") != (self.method == "delong"):
            raise ValueError(
                f"This result was computed with method={self.method!r}; "
                f"method={method!r} needs a new call of sigtest.score() (DeLong's "
                "interval and the bootstrap ones come from different data)."
            )
        if method == "delong":
            # DeLong's engine (and the rank kernels) on first use: only AUC scores need it
            from sigtest._engine.delong import auc_delong_interval

            check_interval_args(confidence_level, "percentile")  # the level's check
            return ConfidenceInterval(*auc_delong_interval(
                self.estimate, self.standard_error ** 2 if self.standard_error is not None
                else math.nan, float(confidence_level)))
        if self.bootstrap_distribution is None:
            raise ValueError("This result holds no bootstrap distribution; call "
                             "sigtest.score() again with the new level or method.")
        if method in NEEDS_RESAMPLE_SE:
            if method == self.method and confidence_level == self.confidence_level:
                return self.confidence_interval
            raise ValueError("method='studentized' needs the standard error of every "
                             "resample, which is not stored; call sigtest.score() again "
                             "with method='studentized' and the new level.")
        if method == "bca" and self.acceleration is None:
            raise ValueError("method='bca' needs the jackknife acceleration, which this "
                             "result does not hold.")
        return bootstrap_interval(self.bootstrap_distribution, self.estimate,
                                  confidence_level, method, self.acceleration, of="score",
                                  n_trials=self.n_trials)

    def to_dict(self, include_distribution=False):
        """Flat ``dict`` of the result (``ci_low``/``ci_high`` instead of the tuple).

        Parameters
        ----------
        include_distribution : bool, default=False
            Also include ``bootstrap_distribution`` (as a list).

        Returns
        -------
        result : dict
            ``metric, estimate, ci_low, ci_high, confidence_level, method,
            n_resamples, n_samples, greater_is_better, acceleration, seed``,
            plus ``n_groups`` / ``n_strata`` and ``standard_error`` when set.
        """
        out = {
            "metric": self.metric,
            "estimate": self.estimate,
            "ci_low": self.confidence_interval.low,
            "ci_high": self.confidence_interval.high,
            "confidence_level": self.confidence_level,
            "method": self.method,
            "n_resamples": self.n_resamples,
            "n_samples": self.n_samples,
            "greater_is_better": self.greater_is_better,
            "acceleration": self.acceleration,
            "seed": self.seed,
        }
        if self.standard_error is not None:
            out["standard_error"] = self.standard_error
        out.update(sampling_design(self.n_groups, self.n_strata))
        if include_distribution:
            dist = self.bootstrap_distribution
            out["bootstrap_distribution"] = None if dist is None else dist.tolist()
        return to_plain(out)

    def summary(self):
        """The result in words: what ``str(result)`` prints.

        Returns
        -------
        text : str
            Estimate, interval, and whether the resampling was clustered
            (``"clustered: 60 groups"``) or stratified.
        """
        return str(self)

    def __str__(self):
        orient = "higher" if self.greater_is_better else "lower"
        source = ("DeLong's variance" if self.method == "delong"
                  else f"{self.n_resamples} bootstrap resamples")
        lines = [
            f"{self.metric} ({orient} is better), N={self.n_samples}, {source}",
            f"  estimate: {self.estimate:.6g}",
        ]
        low, high = self.confidence_interval
        level = f"{100 * self.confidence_level:g}%"
        method = self.method if self.n_trials is None else "exact Clopper-Pearson"
        lines.append(f"  {level} CI ({method}): [{low:.6g}, {high:.6g}]")
        lines.extend(design_lines(self.n_groups, self.n_strata))
        return "\n".join(lines)


# --------------------------------------------------------------------------
# resampled scores and the acceleration
# --------------------------------------------------------------------------
def resampled_scores(paired, n_resamples, seed, *, n_jobs=None, ranked=None):
    """Bootstrap distribution of the score of system A of ``paired``.

    ``n_jobs=1`` runs the serial kernels; ``None`` the threaded fast paths
    and the serial slow path; another value the threaded kernels (the
    caller sets numba's thread count). The result does not depend on it.
    ``ranked``: the rank metric's sorted orders (:func:`ranked_orders`),
    reused when the caller has them.

    Fast path: ``paired.values(sums_a)`` of the engine's bootstrap column
    sums (:func:`sigtest._engine.resampling.bootstrap_sums`: items, cells,
    whole clusters, within strata, as ``paired`` says). Rank metrics (ROC
    AUC, average precision): the rank kernels, sorted once
    (:func:`sigtest._engine.rank_metrics.rank_bootstrap_scores`). Slow path
    (other metrics without statistics): column A of the engine's slow
    bootstrap (:func:`sigtest._engine.resampling.bootstrap_scores`, one
    ``score_func`` call per resample, the same clusters and strata).
    """
    # imported here: the resampling drivers import numba
    from sigtest._engine.resampling import bootstrap_scores, bootstrap_sums

    parallel = n_jobs != 1
    if paired.has_statistics:
        sums_a, _ = bootstrap_sums(paired, n_resamples, seed=seed, parallel=parallel)
        return np.asarray(paired.values(sums_a), dtype=np.float64)
    # the rank modules and their kernels on a first rank metric (~0.03 s to import)
    from sigtest._engine.rank_metrics import rank_bootstrap_scores, uses_ranking

    if uses_ranking(paired):
        return np.ascontiguousarray(rank_bootstrap_scores(
            paired, n_resamples, seed=seed, parallel=parallel, ranked=ranked)[:, 0])
    slow = bootstrap_scores(paired, n_resamples, seed=seed,
                            parallel=parallel and n_jobs is not None)
    return np.ascontiguousarray(slow[:, 0], dtype=np.float64)


def ranked_orders(paired):
    """The sorted orders of a rank metric's ``paired`` for the kernels, or ``None``.

    :func:`sigtest._engine.rank_metrics.ranked_pair` (on the rankings the
    input path kept: no sort), built once by :func:`score_paired` for its
    bootstrap and its jackknife; ``None`` for data that do not take the rank
    kernels (:func:`~sigtest._engine.rank_metrics.uses_ranking`).
    """
    if paired.has_statistics or getattr(paired.metric, "ranking", None) is None:
        return None
    # the rank modules and their kernels on a first rank metric (~0.03 s to import)
    from sigtest._engine.rank_metrics import ranked_pair, uses_ranking

    return ranked_pair(paired) if uses_ranking(paired) else None


def score_acceleration(paired, ranked=None):
    r"""BCa acceleration of the score of system A from the jackknife.

    Leave-one-unit-out values :math:`\theta_{(i)}` (items, cells with
    multiplicities, or clusters: :func:`sigtest._engine.resampling.jackknife_values`)
    give the empirical influence values

    .. math:: L_i = (n_h - 1)\,(\bar\theta_{(\cdot),h} - \theta_{(i)})

    within each stratum :math:`h` of :math:`n_h` units (one stratum without
    ``strata=``, where the factor :math:`n - 1` cancels), and
    :math:`a = \sum_i w_i L_i^3 / (6 (\sum_i w_i L_i^2)^{3/2})`
    (Efron & Tibshirani 1993, eq. 14.15; the stratified influence values are
    those of R ``boot::empinf(type="jack")``, Davison & Hinkley 1997, §3.7):
    :func:`~sigtest._engine.intervals.acceleration_from_jackknife` on the
    values of system A. ``ranked``: a rank metric's sorted orders
    (:func:`ranked_orders`), reused when the caller has them.
    """
    # the resampling drivers load the numba kernels: imported on first use (an import of the engine stays light)
    from sigtest._engine.resampling import jackknife_values

    theta_a, _, weights = jackknife_values(paired, ranked=ranked)
    return acceleration_from_jackknife(theta_a, weights, jackknife_strata(paired))


def exact_trials(paired):
    r"""Number of items ``n`` when the score is a proportion of ``n`` items all 0 or all 1.

    A system right on every item (or wrong on every one) has a bootstrap
    distribution that is a single point, so no bootstrap interval has any
    width. When the score is the proportion of :math:`n` independent items
    scored 1 (a per-item decomposable metric whose per-item values are 0 or
    1, e.g. accuracy; no clusters, no sample weights) and every item scored
    the same, the exact Clopper-Pearson interval of :math:`k = 0` or
    :math:`k = n` successes in :math:`n` trials,
    :math:`[0, 1 - (\alpha/2)^{1/n}]` or :math:`[(\alpha/2)^{1/n}, 1]`,
    is the answer (Clopper & Pearson 1934). Strata do not change it (the
    items are still independent). Returns ``None`` otherwise: the
    interval is then the point.
    """
    if (not paired.has_statistics or paired.clustered or paired.sample_weight is not None
            or not getattr(paired.metric, "decomposable", False)):
        return None
    try:
        values, _, weights = paired.item_values()
    except ValueError:  # not a mean of per-item values on these data
        return None
    values = values[weights > 0]
    if values.size == 0 or not (np.all(values == 0.0) or np.all(values == 1.0)):
        return None
    return int(round(float(weights.sum())))


# --------------------------------------------------------------------------
# the interval on prepared data
# --------------------------------------------------------------------------
def _check_paired(paired):
    if not isinstance(paired, PairedData):
        raise TypeError(
            "The 'paired' parameter of score_paired must be a PairedData (from the validated "
            f"input path, prepare_paired). Got {type(paired).__name__} instead."
        )


def _units_per_stratum(paired):
    """Number of resampling units (items or clusters) in every stratum."""
    strata = paired.item_strata
    if paired.clustered:
        unit_strata = np.empty(int(paired.n_groups), dtype=np.int64)
        unit_strata[paired.item_groups] = strata
        strata = unit_strata
    return np.bincount(strata, minlength=int(paired.n_strata))


def _warn_small(paired, method):
    """:class:`SmallSampleWarning` below the limits of the resampling units."""
    if paired.stratified:
        sizes = _units_per_stratum(paired)
        lone = int(np.count_nonzero(sizes < 2))
        if lone:
            unit = "cluster" if paired.clustered else "item"
            warn_external(
                f"score: {lone} of {sizes.size} strata hold a single {unit}; a stratum "
                f"resampled within itself with one {unit} never varies, so it adds no "
                "sampling variability to the interval (merge small strata).",
                SmallSampleWarning,
            )
    if paired.clustered:
        if paired.n_groups < FEW_CLUSTERS:
            warn_external(
                f"score: {paired.n_groups} clusters < {FEW_CLUSTERS}: the cluster bootstrap "
                "needs many clusters, its interval may under-cover (the effective sample "
                "size is the number of clusters, not of items).",
                SmallSampleWarning,
            )
        return
    min_n = BCA_SMALL_SAMPLE_LIMITS[0]
    if paired.n_samples < min_n:
        warn_external(
            f"score: N = {paired.n_samples} items < {min_n}: a bootstrap interval from so "
            f"few items may under-cover (its {method} interval is only asymptotically "
            "correct).",
            SmallSampleWarning,
        )


def score_paired(paired, *, confidence_level=0.95, method="bca", n_resamples=N_RESAMPLES,
                 seed=0, n_jobs=None):
    r"""Bootstrap confidence interval of the score of system A of prepared data.

    The engine-level core of :func:`score`, for workflows that hold a
    :class:`~sigtest.PairedData` already (``ComparisonResult.scores``). For
    one system ``p`` prepare ``prepare_paired(y_true, p, p, metric, ...)``:
    the result then depends only on ``p`` and the seed (not on another
    system).

    Parameters
    ----------
    paired : PairedData
        Validated paired data; the score of its system A (``paired.score_a``)
        is estimated. Clusters (``paired.n_groups``) and strata
        (``paired.n_strata``) are resampled as the data say.
    confidence_level : float in (0, 1), default=0.95
        Level of the two-sided interval.
    method : {"bca", "percentile", "basic", "normal", "studentized"}, default="bca"
        Interval method (the code of :class:`~sigtest.BCaInterval`).
        ``"studentized"``: bootstrap-t with the jackknife standard error of
        every resample (:mod:`sigtest._engine.studentized`; a metric with
        sufficient statistics; with ``strata=`` the stratified jackknife).
    n_resamples : int, default=9999
        Number of bootstrap resamples B.
    seed : int or random_state, default=0
        A non-negative int is used as is; anything else goes through
        :func:`sigtest.utils.check_random_state_seed`.
    n_jobs : int, default=None
        Threads of the bootstrap kernels, as :func:`score`.

    Returns
    -------
    result : ScoreResult
        The observed score, its interval and the bootstrap distribution.

    Raises
    ------
    TypeError
        If ``paired`` is not a :class:`~sigtest.PairedData`.
    ValueError
        For a bad ``confidence_level``, ``method``, ``n_resamples`` or ``seed``.

    Warns
    -----
    DegenerateDistributionWarning
        All resampled scores equal (e.g. a perfect system: the interval is
        then the exact Clopper-Pearson one, or the point ``[estimate,
        estimate]``, see :func:`exact_trials`), an undefined acceleration,
        or resamples on which the metric is undefined (dropped).
    SmallSampleWarning
        Fewer than 20 clusters, fewer than 30 independent items, or a
        stratum with a single unit.

    Notes
    -----
    The bootstrap distribution is :math:`\hat\theta^*_b = \mathrm{agg}(\sum_j
    s_{i_{bj}})`, the metric of the summed statistics of resample ``b``
    (items, cells, or clusters drawn with replacement, within strata); the
    interval is the percentile, basic or BCa interval of
    :func:`sigtest._engine.intervals.bootstrap_interval`, with the BCa
    acceleration from the delete-one-unit jackknife
    (:func:`score_acceleration`).

    Examples
    --------
    >>> import numpy as np
    >>> from sigtest._engine import prepare_paired
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 300)
    >>> p = np.where(rng.random(300) < 0.8, y, 1 - y)
    >>> res = score_paired(prepare_paired(y, p, p, "accuracy"), n_resamples=2000, seed=1)
    >>> bool(res.confidence_interval.low < res.estimate < res.confidence_interval.high)
    True
    """
    _check_paired(paired)
    check_interval_args(confidence_level, method)
    B = _check_n_resamples(n_resamples)
    seed = check_seed(seed)
    estimate = float(paired.score_a)
    ranked = None
    if method == "studentized":
        # only method='studentized' needs the studentized bootstrap (and its jackknife drivers)
        from sigtest._engine.studentized import pseudo_distribution, studentized_resamples

        dist, t_star, se = studentized_resamples(paired, B, seed, of="score")
        pseudo = pseudo_distribution(estimate, se, t_star)
    else:
        ranked = ranked_orders(paired)  # a rank metric's orders: the jackknife's too
        with numba_threads(n_jobs):
            dist = resampled_scores(paired, B, seed, n_jobs=n_jobs, ranked=ranked)
        pseudo = None
    finite = np.isfinite(dist)
    if not finite.all():
        warn_external(
            f"score: {dist.size - int(finite.sum())} of {dist.size} resampled scores are not "
            "finite (the metric is undefined on those resamples, e.g. zero_division=nan); "
            "they are dropped and the interval uses the remaining ones.",
            DegenerateDistributionWarning,
        )
        dist = dist[finite]
        if pseudo is not None:
            pseudo = pseudo[finite]
    n_trials = exact_trials(paired) if dist.size and is_degenerate(dist) else None
    if n_trials is None:  # the Clopper-Pearson interval is exact at any N
        _warn_small(paired, method)
    acceleration = None
    if method == "bca" and math.isfinite(estimate):
        acceleration = score_acceleration(paired, ranked)
    # studentized: the basic interval of estimate + se t* (a point mass stays one)
    ci = bootstrap_interval(dist if pseudo is None or n_trials is not None or
                            is_degenerate(dist) else pseudo,
                            estimate, float(confidence_level), method, acceleration,
                            of="score", n_trials=n_trials)
    return ScoreResult(
        metric=paired.metric.name,
        estimate=estimate,
        confidence_interval=ci,
        confidence_level=float(confidence_level),
        method=method,
        n_resamples=int(dist.size),
        n_samples=int(paired.n_samples),
        n_groups=paired.n_groups,
        n_strata=paired.n_strata,
        greater_is_better=bool(paired.metric.greater_is_better),
        bootstrap_distribution=dist,
        acceleration=acceleration,
        seed=seed,
        n_trials=n_trials,
    )


def _one_system_message(message):
    """An input-path message about the pair ``(y_pred_a, y_pred_b)`` said of ``y_pred``."""
    for old, new in ((", 'y_pred_a' and 'y_pred_b'", " and 'y_pred'"),
                     ("'y_pred_a'", "'y_pred'"), ("'y_pred_b'", "'y_pred'")):
        message = message.replace(old, new)
    return message


# --------------------------------------------------------------------------
# public function
# --------------------------------------------------------------------------
@validate_params(
    {
        "y_true": ["array-like", None],
        "y_pred": ["array-like"],
        "metric": [str, Metric, callable],
        "confidence_level": [lazy.Interval(Real, 0, 1, closed="neither")],
        "method": [lazy.StrOptions({*INTERVAL_METHODS, "delong"})],
        "n_resamples": [lazy.Interval(Integral, 1, None, closed="left")],
        "groups": ["array-like", None],
        "strata": ["array-like", None],
        "random_state": [None, lazy.Interval(Integral, 0, 2**32 - 1, closed="both"),
                         np.random.SeedSequence, np.random.Generator,
                         np.random.RandomState],
        "sample_weight": ["array-like", None],
        "labels": ["array-like", None],
        "n_jobs": [None, lazy.Interval(Integral, 1, None, closed="left"),
                   lazy.Interval(Integral, None, -1, closed="right")],
    },
    prefer_skip_nested_validation=True,
)
def score(y_true, y_pred, metric="accuracy", *, confidence_level=0.95, method="bca",
          n_resamples=N_RESAMPLES, groups=None, strata=None, random_state=None,
          sample_weight=None, labels=None, n_jobs=None, **metric_params):
    r"""Score one system with a bootstrap confidence interval.

    The observed metric on all items and a two-sided bootstrap interval
    (BCa by default) from resampling the items: whole clusters with
    ``groups=`` (the cluster bootstrap), within each stratum with
    ``strata=``. Works for every metric (hard, soft, or a user's metric
    without sufficient statistics) with the engine that the paired tests
    use, and the same ``random_state`` gives bit-identical results.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_classes), or None
        Gold labels, or gold distributions for soft metrics; ``None`` for
        per-item scores (``metric="mean"``).
    y_pred : array-like
        Predictions of the system (hard labels or soft outputs, as the
        metric expects), or its per-item scores (``metric="mean"``).
    metric : str, Metric, callable or scorer, default="accuracy"
        A registered metric name (see :func:`sigtest.get_metric_names`), a
        :class:`~sigtest.metrics.Metric`, a function
        ``f(y_true, y_pred, **kw) -> float`` or a scikit-learn scorer
        (:func:`sigtest.as_metric`; slow path, one call per resample).
    confidence_level : float in (0, 1), default=0.95
        Level of the two-sided interval.
    method : {"bca", "percentile", "basic", "normal", "studentized", "delong"}, default="bca"
        Interval method, as :class:`~sigtest.BCaInterval`.
        ``"studentized"``: bootstrap-t with the jackknife standard error of
        every resample (:mod:`sigtest._engine.studentized`; a metric with
        sufficient statistics; with ``strata=`` the stratified jackknife).
        ``"delong"`` (``metric="roc_auc"`` only, no weights, clusters or
        strata): DeLong's normal interval of the AUC, pROC's
        ``ci.auc(method="delong")`` (see Notes); no resampling, so
        ``n_resamples`` and ``random_state`` are not used.
    n_resamples : int, default=9999
        Number of bootstrap resamples B.
    groups : array-like of shape (n_samples,), default=None
        Cluster id of every item (ints or strings), e.g. the document of a
        sentence: whole clusters are resampled, the jackknife deletes one
        cluster.
    strata : array-like of shape (n_samples,), default=None
        Stratum id of every item (e.g. a domain): the bootstrap resamples
        within each stratum, keeping its size (with ``groups``, clusters
        within strata; a cluster must lie in one stratum).
    random_state : None, int, SeedSequence or Generator, default=None
        Seed of the resamples.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative item weights.
    labels : array-like, default=None
        Label set of a class-averaged metric; default: the union of the
        values of ``y_true`` and ``y_pred``.
    n_jobs : int, default=None
        Threads of the bootstrap kernels, as the tests' ``n_jobs``: ``1``
        serial, ``-1`` all of numba's threads, ``None`` numba's current
        setting. The result is bit-identical for any value (each resample
        owns its random stream). ``"studentized"`` and ``"delong"`` do not
        use it.
    **metric_params
        Passed to the metric (e.g. ``zero_division=0.0``, ``pos_label=1``);
        a keyword that the metric does not accept raises ``TypeError``.

    Returns
    -------
    result : ScoreResult
        ``estimate``, ``confidence_interval`` (``low``, ``high``),
        ``confidence_level``, ``method``, ``n_resamples``, ``n_samples``,
        ``n_groups``, ``n_strata``, ``metric``, and the bootstrap
        distribution (:meth:`ScoreResult.ci` recomputes the interval).

    Raises
    ------
    ValueError
        Bad parameters (naming them), mismatched lengths, a single cluster,
        a cluster spanning two strata.
    TypeError
        A keyword argument that the metric does not accept.

    Warns
    -----
    SmallSampleWarning
        Fewer than 20 clusters, fewer than 30 independent items, or a
        stratum with a single unit (item or cluster), which never varies.
    DegenerateDistributionWarning
        A degenerate bootstrap distribution (every resample gives the same
        score). A system right on every item (or wrong on every one) of a 0/1
        metric such as accuracy, without clusters or weights, gets the exact
        Clopper-Pearson interval of ``N`` of ``N`` (or 0 of ``N``) items,
        e.g. ``[0.884, 1]`` for ``N = 30`` at 95 %; any other such score gets
        the point ``[estimate, estimate]``.

    See Also
    --------
    BCaInterval : The interval of the difference between two systems.
    compare : Many systems; ``ComparisonResult.scores()`` gives this interval
        for each of them.

    Notes
    -----
    Resample ``b`` draws :math:`n` units with replacement (items, or the
    :math:`G` clusters with ``groups``; :math:`n_h` per stratum with
    ``strata``) and computes the metric of their summed sufficient
    statistics, :math:`\hat\theta^*_b`. The percentile interval is
    :math:`[\hat\theta^*_{(\alpha/2)}, \hat\theta^*_{(1-\alpha/2)}]`; BCa
    adjusts the quantile levels to
    :math:`\Phi(z_0 + (z_0 + z_\alpha) / (1 - a (z_0 + z_\alpha)))` with the
    bias :math:`z_0 = \Phi^{-1}(\#\{\hat\theta^* < \hat\theta\} / B)` (ties
    count one half) and the acceleration :math:`a` of the delete-one-unit
    jackknife (Efron & Tibshirani 1993, ch. 14). Clustered data: the
    cluster bootstrap (Davison & Hinkley 1997, §3.8; Field & Welsh 2007);
    items of one cluster are not independent, and an item-level interval
    can be several times too narrow.

    ``method="delong"``: :math:`\widehat{\mathrm{AUC}} \pm
    z_{1-\alpha/2}\sqrt{S}` clipped to :math:`[0, 1]`, with DeLong's
    variance :math:`S = S_{10}/m + S_{01}/n` (the sample variances of the
    placement values of the :math:`m` positives and :math:`n` negatives;
    DeLong, DeLong & Clarke-Pearson 1988, computed after one sort as Sun &
    Xu 2014), as pROC's ``ci.auc``. It warns (``SmallSampleWarning``) below
    40 positives or negatives, where the normal approximation of DeLong's
    test exceeds its level.

    References
    ----------
    Efron, Tibshirani (1993). An Introduction to the Bootstrap, ch. 14.
    Davison, Hinkley (1997). Bootstrap Methods and their Application, §3.7-3.8.
    Field, Welsh (2007). Bootstrapping clustered data. JRSS B 69(3), 369-390.
    DeLong, DeLong, Clarke-Pearson (1988), Biometrics 44(3); Sun, Xu (2014),
    IEEE Signal Processing Letters 21(11) (full titles: :class:`~sigtest.DeLong`).

    Examples
    --------
    >>> import numpy as np
    >>> import sigtest
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 600)
    >>> p = np.where(rng.random(600) < 0.8, y, 1 - y)
    >>> res = sigtest.score(y, p, "accuracy", n_resamples=2000, random_state=0)
    >>> round(res.estimate, 3)
    0.807
    >>> low, high = res.confidence_interval
    >>> bool(low < res.estimate < high), bool(high - low < 0.08)
    (True, True)

    With 60 documents of 10 sentences, the cluster bootstrap (``groups=``)
    resamples documents:

    >>> docs = np.repeat(np.arange(60), 10)
    >>> sigtest.score(y, p, groups=docs, n_resamples=2000, random_state=0).n_groups
    60

    DeLong's interval of a ROC AUC (pROC's ``ci.auc``), without resampling:

    >>> s = rng.normal(size=600) + y
    >>> res = sigtest.score(y, s, "roc_auc", method="delong")
    >>> [round(v, 3) for v in (res.confidence_interval.low, res.estimate,
    ...                        res.confidence_interval.high)]
    [0.726, 0.764, 0.801]
    """
    metric = as_metric(metric)
    check_metric_params(metric, metric_params, caller="score")
    seed = check_random_state_seed(random_state)
    try:
        paired = prepare_paired(y_true, y_pred, y_pred, metric, sample_weight=sample_weight,
                                labels=labels, groups=groups, strata=strata,
                                rank_once=method == "delong", **metric_params)
    except ValueError as exc:
        renamed = _one_system_message(str(exc))
        if renamed == str(exc):
            raise
        raise ValueError(renamed) from exc
    if method == "delong":
        return score_delong(paired, confidence_level=confidence_level)
    return score_paired(paired, confidence_level=confidence_level, method=method,
                        n_resamples=n_resamples, seed=seed, n_jobs=n_jobs)


def score_delong(paired, *, confidence_level=0.95):
    r"""DeLong's interval of the ROC AUC of system A of prepared data (pROC's ``ci.auc``).

    What :func:`score` returns for ``method="delong"``: no resampling, the
    normal interval :math:`\widehat{\mathrm{AUC}} \pm z_{1-\alpha/2}
    \sqrt{S}` with DeLong's variance :math:`S` of the AUC, clipped to
    :math:`[0, 1]` (:func:`sigtest.tests_._delong.auc_interval`).

    Parameters
    ----------
    paired : PairedData
        Prepared data of metric ``"roc_auc"``.
    confidence_level : float in (0, 1), default=0.95

    Returns
    -------
    result : ScoreResult
        ``method="delong"``, ``n_resamples=0``, the ``standard_error``, no
        bootstrap distribution.
    """
    _check_paired(paired)
    check_interval_args(confidence_level, "percentile")  # the level (the method is DeLong's)
    # DeLong's test module (and the rank kernels) on first use: only AUC scores need it
    from sigtest.tests_._delong import auc_interval

    ci, se = auc_interval(paired, float(confidence_level))
    return ScoreResult(
        metric=paired.metric.name, estimate=float(paired.score_a), confidence_interval=ci,
        confidence_level=float(confidence_level), method="delong", n_resamples=0,
        n_samples=int(paired.n_samples), greater_is_better=True, standard_error=se,
    )
