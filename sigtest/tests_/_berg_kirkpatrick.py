"""Berg-Kirkpatrick et al.'s paired bootstrap test and BooStSa's settings of it."""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np

from sigtest._constants import N_RESAMPLES
from sigtest._engine.intervals import is_degenerate, jackknife_acceleration
from sigtest._engine.pvalues import berg_kirkpatrick_pvalue, tie_tolerance, warn_point_mass
from sigtest._engine.sample_size import resolve_sample_size
from sigtest._engine.small_sample import (
    BK_SMALL_SAMPLE_LIMITS,
    class_small_sample_reasons,
    discreteness_floor,
    metric_kind_reasons,
    point_mass_log10_pvalue,
    point_mass_pvalue,
    small_sample_reasons,
    warn_small_sample,
)
from sigtest._results import TestOutcome
from sigtest.utils._param_validation import lazy
from sigtest.tests_._base import _N_JOBS, _RANDOM_STATE, SignificanceTest

__all__ = ["BergKirkpatrickBootstrap", "BooStSaBootstrap"]


class BergKirkpatrickBootstrap(SignificanceTest):
    r"""Paired bootstrap test of Berg-Kirkpatrick et al. (2012) of a difference between A and B.

    Draw ``n_resamples`` test sets of ``m`` items with replacement, the same
    items for the gold labels, A and B, and compute the oriented difference
    :math:`t^*` on each (positive: B better; for a loss, lower is better).
    Since the resamples come from a test set biased by :math:`t` towards B,
    :math:`t^* - t` estimates the null distribution. The paper's test is
    one-sided, "B is better than A" (``alternative="greater"``):

    .. math:: p = \frac{1 + \sum_{i=1}^{B} 1\left(t^*_i \ge 2t\right)}{B + 1}

    (Jurafsky & Martin, *Speech and Language Processing*, eq. 4.22, Fig.
    4.9, with the observed sample counted among the :math:`B + 1`, so that
    a Monte Carlo p is never 0: Davison & Hinkley 1997, eq. 4.11). Ties
    count, up to ``100 * eps`` times ``|2t| + |score_a| + |score_b|``
    (rounding of the scores, see :func:`~sigtest._engine.pvalues.tie_tolerance`).
    If :math:`t \le 0` (B not better, identical systems included) ``p = 1``.
    The default, as for every sigtest test, is ``"two-sided"``: the centred
    form :math:`p = (1 + \#\{|t^* - t| \ge |t|\})/(B + 1)` of the same null.

    A test that carries no information is never significant:

    * if every bootstrap difference is 0 (identical systems: the difference
      is 0 everywhere) ``p = 1`` with a ``DegenerateDistributionWarning``;
      if every one equals the observed :math:`t \ne 0` (every item favours
      the same system by the same amount, e.g. A wrong and B right on all
      items, or a single discordant item) the data are the most extreme a
      test conditional on the :math:`d` discordant items can see, and ``p``
      is the exact sign-test value :math:`2^{-d}` (one-sided, on the side
      of :math:`t`; 1 on the other) or :math:`2^{1-d}` (two-sided), the
      exact permutation p-value of such data, without the Monte Carlo floor
      (more resamples would all be equal too), with the same warning
      (:func:`~sigtest._engine.small_sample.point_mass_pvalue`);
    * with :math:`d` *discordant* items (whose per-item statistics differ
      between A and B) no test valid conditionally on them can go below the
      exact sign test with all :math:`d` items one way, so
      :math:`p \ge 2^{-d}` (one-sided) or :math:`2^{1-d}` (two-sided). The
      bootstrap ignores this discreteness (with 4 vs 0 discordant items it
      gives about .03); the p-value is floored at the bound, which is always
      conservative. ``params`` records ``n_discordant``, ``pvalue_floor``
      and ``pvalue_unfloored``.

    **Clusters and strata.** With ``groups=`` (one cluster id per item) the
    unit is the cluster: each resample draws ``m`` whole clusters with
    replacement (default ``m = G``; the cluster bootstrap, Davison &
    Hinkley 1997, §3.8), :math:`d` counts the discordant clusters (clusters
    whose summed statistics differ between A and B) and the small-sample
    limits count clusters. With ``strata=`` each stratum is resampled on
    its own, keeping its size (R ``boot(strata=)``), or the fraction
    ``sample_size`` of it; ``sample_size`` must then be a fraction.

    Read more in :func:`~sigtest._engine.pvalues.berg_kirkpatrick_pvalue` (also ``"less"`` and the
    centred ``"two-sided"`` version) and in ``docs/which_test.md``.

    Parameters
    ----------
    n_resamples : int, default=9999
        Number of bootstrap test sets B (>= 1).
    sample_size : float in (0, 1] or int, default=1.0
        Size ``m`` of each resample: a fraction of N (``m = floor(f N)``, at
        least 1) or a number of items (``1 <= m <= N``); with ``groups=``
        the units are clusters (a fraction of G, or a number of clusters);
        with ``strata=`` only a fraction, applied within each stratum.
        ``1.0`` is the classical paired bootstrap; BooStSa's sub-samples are
        available via :meth:`boostsa`. With ``m < N`` the spread of
        :math:`t^*` is that of a test set of ``m`` items, so the test is more
        conservative.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        ``"greater"``: B is better than A; ``"two-sided"``: the centred
        two-sided p-value (the default of every sigtest test, as scipy).
    random_state : None, int, SeedSequence or Generator, default=None
        Seed of the resamples; the base class turns it into one integer
        seed, so equal seeds give bit-identical results for any ``n_jobs``.
    n_jobs : int, default=None
        ``1`` runs the serial kernels; see :class:`SignificanceTest`.

    Warns
    -----
    DegenerateDistributionWarning
        If every resampled difference is equal: 0 (identical systems,
        ``p = 1``) or the observed difference (every item favours one
        system: the exact sign-test p, and :meth:`SignificanceResult.ci`
        gives the point ``[delta, delta]``).
    SmallSampleWarning
        If N < 20 or fewer than 8 items are discordant (the limits measured
        in ``docs/which_test.md``; clusters with ``groups=``: fewer than 20
        clusters or 8 discordant clusters), or, for a ``pos_label`` or macro
        precision/recall/F1, fewer than 8 items are discordant about the
        tested (or rarest) class, or a ROC AUC has fewer than 20 items of
        its rarer class (``RANK_MIN_CLASS_ITEMS``: positives or negatives;
        50 for average precision), or N is below the minimum measured for
        a regression metric (``REGRESSION_MIN_N``: 100 for
        ``root_mean_squared_error``, ``mean_squared_error`` and
        ``mean_absolute_error``), or the sign-test floor raised the p-value;
        the message names :class:`PairedPermutation` as the remedy.

    See Also
    --------
    BCaInterval : Confidence interval of the difference.
    PairedPermutation : Exact or Monte Carlo paired permutation test.

    References
    ----------
    Berg-Kirkpatrick, Burkett, Klein (2012). An empirical investigation of
    statistical significance in NLP. EMNLP.
    Davison, Hinkley (1997). Bootstrap Methods and their Application, eq. 4.11
    and §3.7-3.8 (stratified and cluster bootstrap).
    Field, Welsh (2007). Bootstrapping clustered data. JRSS B 69(3).

    Examples
    --------
    >>> import numpy as np
    >>> from sigtest import BergKirkpatrickBootstrap
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 3, 300)
    >>> a = np.where(rng.random(300) < 0.70, y, (y + 1) % 3)
    >>> b = np.where(rng.random(300) < 0.80, y, (y + 1) % 3)
    >>> res = BergKirkpatrickBootstrap(n_resamples=2000, random_state=0).test(y, a, b)
    >>> bool(res.delta > 0), bool(res.pvalue < 0.05)
    (True, True)
    >>> docs = np.repeat(np.arange(60), 5)  # 60 documents of 5 sentences
    >>> res = BergKirkpatrickBootstrap(n_resamples=2000, random_state=0).test(
    ...     y, a, b, groups=docs)
    >>> res.n_groups, res.params["resample_size"]
    (60, 60)
    """

    name = "bootstrap"
    _warns_few_clusters = True  # small_sample_reasons(..., unit="clusters") covers G < 20
    _parameter_constraints: dict = {
        "n_resamples": [lazy.Interval(Integral, 1, None, closed="left")],
        "sample_size": [
            lazy.Interval(Real, 0, 1, closed="right"),
            lazy.Interval(Integral, 1, None, closed="left"),
        ],
        "alternative": [lazy.StrOptions({"greater", "less", "two-sided"})],
        "random_state": _RANDOM_STATE,
        "n_jobs": _N_JOBS,
    }
    # (low, high) fraction of N allowed for the resample size, or None.
    _sample_size_range: tuple | None = None

    def __init__(self, *, n_resamples=N_RESAMPLES, sample_size=1.0, alternative="two-sided",
                 random_state=None, n_jobs=None):
        self.n_resamples = n_resamples
        self.sample_size = sample_size
        self.alternative = alternative
        self.random_state = random_state
        self.n_jobs = n_jobs

    @classmethod
    def boostsa(cls, **params):
        """BooStSa's settings: 1000 sub-samples of 10 % of N, only 5-50 % allowed.

        Returns a :class:`BooStSaBootstrap` (a ``BergKirkpatrickBootstrap``
        whose ``sample_size`` must lie in [0.05, 0.5] of N, inclusive, as in
        BooStSa 0.2; a ``ValueError`` otherwise). The p-value is sigtest's
        (correct orientation for losses, ties counted, ``p = 1`` for
        identical systems), not BooStSa's.

        Parameters
        ----------
        **params
            Overrides, e.g. ``sample_size=0.2`` or ``n_resamples=10_000``.

        Examples
        --------
        >>> from sigtest import BergKirkpatrickBootstrap
        >>> BergKirkpatrickBootstrap.boostsa(sample_size=0.2)
        BooStSaBootstrap(sample_size=0.2)
        """
        return BooStSaBootstrap(**params)

    def _resample_size(self, n, unit="items"):
        """Units (items, or clusters) per resample for a test set of ``n`` units."""
        size = self.sample_size
        if isinstance(size, Integral) and not isinstance(size, bool):
            m = int(size)
            if m > n:
                what = "n_samples" if unit == "items" else "n_groups"
                raise ValueError(
                    f"The 'sample_size' parameter of {type(self).__name__} must be at most "
                    f"{what}={n} when given as an int. Got {m} instead."
                )
            self._check_size_range(m, n, unit)
        else:
            m = resolve_sample_size(float(size), n)
        return m

    def _engine_sample_size(self, data):
        """``(argument for the engine, units per resample, full bootstrap?)``.

        Unstratified: the resolved number of units ``m`` (clusters when
        clustered). Stratified: ``None`` (each stratum keeps its size) or the
        fraction applied within each stratum (the engine's rule); an int is
        refused, since a number of units cannot be split between strata.
        """
        n = data.n_units
        if not data.stratified:
            m = self._resample_size(n, "clusters" if data.clustered else "items")
            return m, m, m == n
        size = self.sample_size
        if isinstance(size, Integral) and not isinstance(size, bool):
            raise ValueError(
                f"With strata=, the 'sample_size' parameter of {type(self).__name__} must be "
                "a fraction in (0, 1] (each stratum is resampled on its own and keeps that "
                f"fraction of its units). Got the int {size!r} instead."
            )

        fraction = float(size)
        sizes = np.bincount(self._unit_strata(data), minlength=int(data.n_strata))
        m = int(sum(resolve_sample_size(fraction, int(k)) for k in sizes if k > 0))
        return (None if fraction == 1.0 else fraction), m, fraction == 1.0

    @staticmethod
    def _unit_strata(data):
        """Stratum code of every resampling unit (item or cluster)."""
        if data.item_groups is None:
            return data.item_strata
        out = np.empty(int(data.n_groups), dtype=np.int64)
        out[data.item_groups] = data.item_strata
        return out

    def _check_size_range(self, m, n, unit="items"):
        """Check an int resample size against ``_sample_size_range`` (fractions are
        checked by ``_parameter_constraints``)."""
        if self._sample_size_range is not None:
            low, high = self._sample_size_range
            if not math.ceil(low * n - 1e-9) <= m <= math.floor(high * n + 1e-9):
                what = "n_samples" if unit == "items" else "n_groups"
                raise ValueError(
                    f"The 'sample_size' parameter of {type(self).__name__} must give between "
                    f"{100 * low:g} % and {100 * high:g} % of the {what}={n} {unit} "
                    f"(BooStSa's range); sample_size={m} {unit} is outside it."
                )

    def _shared_scheme(self):
        """Full bootstraps (``sample_size=1.0``) run on shared resamples; subsamples do not."""
        size = self.sample_size
        full = isinstance(size, Real) and not isinstance(size, (Integral, bool)) and size == 1.0
        return "bootstrap" if full else None

    def evaluate(self, data, random_state, *, resamples=None):
        """Bootstrap the paired data; p from the 2-delta rule, floored at ``2**-d``.

        Parameters
        ----------
        data : PairedData
            The validated paired data (from :meth:`test` or :meth:`test_paired`).
        random_state : int
            The integer seed the base class derived from ``self.random_state``.
        resamples : SharedDeltas or None, default=None
            The pair's bootstrap differences on full resamples drawn
            elsewhere (:func:`sigtest.compare`'s shared resamples, given
            through :meth:`test_paired`; ``sample_size=1.0`` only), used
            instead of the test's own draws; their length must be
            ``n_resamples``. The p-value is the same 2-delta rule on them.

        Returns
        -------
        TestOutcome
            The floored 2-delta p-value, the resampled raw differences as
            ``null_distribution`` and ``n_discordant``/``pvalue_floor``/
            ``pvalue_unfloored`` in ``details``.
        """
        n = data.n_units
        unit = "clusters" if data.clustered else "items"
        size, m, full = self._engine_sample_size(data)
        if resamples is not None:
            if not full:  # test_paired checks the scheme; a direct call lands here
                raise ValueError(f"The 'resamples' parameter of {type(self).__name__}."
                                 "evaluate needs sample_size=1.0 (full bootstraps).")
            size = None  # the supplied draws: full bootstraps of the units
        deltas = self._resampled_deltas(data, "bootstrap", self.n_resamples, random_state,
                                        sample_size=size, supplied=resamples)
        delta, t = data.delta, data.statistic
        t_star = data.orient(deltas)
        d = data.n_discordant
        floor = discreteness_floor(d, self.alternative)
        log10_p = None  # the result takes log10(p) of a p-value in the normal range
        if is_degenerate(deltas):
            raw = pvalue = point_mass_pvalue(t, d, self.alternative, atol=tie_tolerance(data))
            # 2**(1 - d) underflows beyond d = 1075: its exact log10
            log10_p = point_mass_log10_pvalue(t, d, self.alternative, atol=tie_tolerance(data))
            warn_point_mass(delta, d, tie_tolerance(data))
        else:
            raw = berg_kirkpatrick_pvalue(t_star, t, self.alternative,
                                          atol=tie_tolerance(data))
            pvalue = max(raw, floor) if math.isfinite(raw) else raw
            reasons = (small_sample_reasons(n, d, BK_SMALL_SAMPLE_LIMITS, unit=unit)
                       + class_small_sample_reasons(data, BK_SMALL_SAMPLE_LIMITS)
                       + metric_kind_reasons(data, "bk"))
            if reasons or pvalue > raw:
                warn_small_sample(type(self).__name__, reasons, floored=pvalue > raw)
        acceleration = None
        if full and data.has_statistics and np.isfinite(delta):
            acceleration = jackknife_acceleration(data)
        return TestOutcome(
            pvalue=pvalue,
            log10_pvalue=log10_p,
            n_resamples=int(deltas.size),
            null_distribution=deltas,
            resampling="bootstrap" if full else "subsample bootstrap",
            acceleration=acceleration,
            details={"resample_size": m, "n_discordant": d, "pvalue_floor": floor,
                     "pvalue_unfloored": raw},
        )


class BooStSaBootstrap(BergKirkpatrickBootstrap):
    """One-sided by default (is B better?): BooStSa's bootstrap, defaults and size range.

    A :class:`BergKirkpatrickBootstrap` that reproduces the BooStSa tool:
    ``alternative="greater"`` (the only sigtest test whose default is not
    ``"two-sided"``), ``n_resamples=1000`` (the tool's setting, not sigtest's
    9999), ``sample_size=0.1``; ``sample_size`` must give
    5-50 % of N (inclusive), else ``ValueError``. Prefer
    :meth:`BergKirkpatrickBootstrap.boostsa` to build one.

    Parameters
    ----------
    n_resamples : int, default=1000
        Bootstrap resamples (BooStSa's default).
    sample_size : float or int, default=0.1
        Items drawn per resample: a fraction of N in [0.05, 0.5], or a count
        that is 5-50 % of N.
    alternative : {"greater", "two-sided", "less"}, default="greater"
        BooStSa's test is one-sided: is B better than A?
    random_state : int, numpy.random.Generator or None, default=None
        Seed of the resamples.
    n_jobs : int or None, default=None
        Threads of the resampling kernel (results do not depend on it).

    References
    ----------
    Fornaciari, Uma, Poesio, Hovy (2022). Hard and soft evaluation of NLP
    models with BOOtSTrap SAmpling - BooStSa. ACL demos, section 2.3.
    """

    name = "boostsa"
    _parameter_constraints: dict = {
        **BergKirkpatrickBootstrap._parameter_constraints,
        "sample_size": [
            lazy.Interval(Real, 0.05, 0.5, closed="both"),
            lazy.Interval(Integral, 1, None, closed="left"),
        ],
    }
    _sample_size_range = (0.05, 0.5)

    def __init__(self, *, n_resamples=1000, sample_size=0.1, alternative="greater",
                 random_state=None, n_jobs=None):
        super().__init__(n_resamples=n_resamples, sample_size=sample_size,
                         alternative=alternative, random_state=random_state, n_jobs=n_jobs)
