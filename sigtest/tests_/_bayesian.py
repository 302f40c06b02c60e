"""The Bayesian bootstrap comparison with a region of practical equivalence."""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np

from sigtest._constants import N_RESAMPLES
from sigtest._engine.bayesian import posterior_deltas
from sigtest._engine.intervals import ConfidenceInterval, is_degenerate
from sigtest._engine.pvalues import tie_tolerance, warn_degenerate
from sigtest._engine.small_sample import BK_SMALL_SAMPLE_LIMITS, small_sample_reasons
from sigtest._results import TestOutcome
from sigtest.exceptions import SmallSampleWarning
from sigtest.utils import warn_external
from sigtest.utils._param_validation import lazy
from sigtest.tests_._base import _N_JOBS, _RANDOM_STATE, SignificanceTest

__all__ = ["BayesianBootstrap"]


class BayesianBootstrap(SignificanceTest):
    r"""Bayesian bootstrap posterior of ``B - A`` with a region of practical equivalence.

    The Bayesian bootstrap (Rubin 1981) gives the ``N`` test items (or the
    ``G`` clusters with ``groups=``) Dirichlet(1, ..., 1) weights
    :math:`\pi` and computes the metric of A and of B on the same weighted
    test set; over ``n_resamples`` draws this is a sample from the posterior
    of the difference :math:`\delta = \text{score}_B - \text{score}_A` under a
    multinomial model on the observed items with a non-informative prior.
    With the oriented difference :math:`t` (:math:`t = \delta` for a score,
    :math:`-\delta` for a loss, so that :math:`t > 0` means B is better) and
    the region of practical equivalence (ROPE) :math:`[-r, r]`:

    .. math:: P(\text{B worse}) = P(t < -r), \quad
              P(\text{equivalent}) = P(|t| \le r), \quad
              P(\text{B better}) = P(t > r),

    estimated by the fractions of posterior draws (they sum to 1; ties with
    :math:`\pm r` count as equivalent, up to the rounding of the scores,
    ``100 eps (|score_a| + |score_b|)``). With ``rope=0``, ``prob_equivalent``
    is the posterior probability that the difference is exactly 0: 0 for a
    continuous posterior, 1 for identical systems.

    It is a Bayesian answer, not a test: the result's ``pvalue`` is ``nan``.
    The interval is the equal-tailed credible interval of :math:`\delta` at
    ``confidence_level`` (``interval_method="credible"``), and the posterior
    draws are stored as the result's ``null_distribution`` (raw
    :math:`\delta`), drawn by :func:`sigtest.plotting.plot_posterior`.

    **Fast.** Metrics with sufficient statistics never see the items: a row
    standing for :math:`n_c` items (a cell of hard labels, or merged
    identical clusters) gets the weight :math:`N G_c / \sum G` with
    :math:`G_c \sim \mathrm{Gamma}(n_c, 1)`, which is exactly the sum of its
    items' Dirichlet weights, so a draw costs ``O(rows)`` (see
    :mod:`sigtest._engine.bayesian`). Metrics without statistics call their
    function with ``sample_weight`` once per draw and system.

    **Clusters and strata.** With ``groups=`` the Dirichlet is over clusters
    (the Bayesian cluster bootstrap); with ``strata=`` an independent
    Dirichlet within each stratum, scaled to its size, so every draw keeps
    the strata's observed proportions.

    Parameters
    ----------
    rope : float, default=0.0
        Half-width :math:`r \ge 0` of the region of practical equivalence,
        in metric units (e.g. ``0.01`` = one accuracy point): differences
        smaller than that are of no practical interest. Choose it before
        looking at the results (see ``docs/bayesian.md``).
    n_resamples : int, default=9999
        Number of posterior draws (>= 1).
    confidence_level : float in (0, 1), default=0.95
        Level of the equal-tailed credible interval of ``delta``.
    random_state : None, int, SeedSequence or Generator, default=None
        Seed of the Dirichlet draws; the base class turns it into one
        integer seed, so equal seeds give bit-identical results for any
        ``n_jobs``.
    n_jobs : int, default=None
        Accepted for a uniform interface (:func:`sigtest.compare` passes
        ``1``); the draws are NumPy's and do not depend on it.

    Warns
    -----
    DegenerateDistributionWarning
        If every posterior draw is equal (identical systems, or a single
        unit): the posterior is a point mass, the interval is that point
        and the probabilities are 0 or 1 (for identical systems
        ``prob_equivalent = 1``, which is right: they are exactly
        equivalent).
    SmallSampleWarning
        If N < 20 or fewer than 8 units are discordant (the limits of
        :class:`BergKirkpatrickBootstrap`; clusters with ``groups=``): the
        posterior only puts mass on the observed items, so with few of them
        it is too narrow and its probabilities too confident.

    See Also
    --------
    BCaInterval : Frequentist confidence interval of the difference.
    sigtest.plotting.plot_posterior : Plot the posterior with the ROPE.

    Notes
    -----
    The posterior mean of a weighted mean :math:`\sum_i \pi_i d_i` is the
    observed mean :math:`\bar d` and its variance is
    :math:`\frac{1}{N + 1} \frac{1}{N} \sum_i (d_i - \bar d)^2`, so for
    accuracy the posterior of the difference is close to the normal with
    the usual paired standard error; for ratio metrics (F1, macro averages)
    it has the spread of the paired bootstrap distribution. The posterior
    only has support on the observed items: it cannot put mass on values
    the test set did not show.

    Rather than a single test set, Benavoli et al. (2017) compare systems
    over cross-validation folds or data sets; for fold scores use
    ``sigtest.cv.bayesian_correlated_ttest``.

    References
    ----------
    Rubin (1981). The Bayesian bootstrap. The Annals of Statistics 9(1).
    Benavoli, Corani, Demšar, Zaffalon (2017). Time for a change: a tutorial
    for comparing multiple classifiers through Bayesian analysis. JMLR 18.
    Kruschke (2018). Rejecting or accepting parameter values in Bayesian
    estimation. Advances in Methods and Practices in Psychological Science
    1(2) (the ROPE).

    Examples
    --------
    >>> import numpy as np
    >>> from sigtest import BayesianBootstrap
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 1000)
    >>> a = np.where(rng.random(1000) < 0.80, y, 1 - y)
    >>> b = np.where(rng.random(1000) < 0.84, y, 1 - y)
    >>> res = BayesianBootstrap(rope=0.01, n_resamples=4000, random_state=0).test(y, a, b)
    >>> round(res.delta, 3)
    0.038
    >>> res.prob_worse, res.prob_equivalent, res.prob_better
    (0.00375, 0.05575, 0.9405)
    >>> [round(x, 4) for x in res.confidence_interval], res.interval_method
    ([0.0037, 0.073], 'credible')
    """

    name = "bayesian_bootstrap"
    _warns_few_clusters = True  # small_sample_reasons(..., unit="clusters") covers G < 20
    _parameter_constraints: dict = {
        "rope": [lazy.Interval(Real, 0, None, closed="left")],
        "n_resamples": [lazy.Interval(Integral, 1, None, closed="left")],
        "confidence_level": [lazy.Interval(Real, 0, 1, closed="neither")],
        "random_state": _RANDOM_STATE,
        "n_jobs": _N_JOBS,
    }

    def __init__(self, *, rope=0.0, n_resamples=N_RESAMPLES, confidence_level=0.95,
                 random_state=None, n_jobs=None):
        self.rope = rope
        self.n_resamples = n_resamples
        self.confidence_level = confidence_level
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _validate_params(self):
        super()._validate_params()
        if not math.isfinite(float(self.rope)):
            raise ValueError(
                f"The 'rope' parameter of {type(self).__name__} must be a finite float >= 0. "
                f"Got {self.rope!r} instead.")

    def _shared_scheme(self):
        """Posterior draws on Dirichlet weights shared by all pairs."""
        return "bayesian"

    def evaluate(self, data, random_state, *, resamples=None):
        """Draw the posterior of the difference; the three probabilities and the interval.

        Parameters
        ----------
        data : PairedData
            The validated paired data (from :meth:`test` or :meth:`test_paired`).
        random_state : int
            The integer seed the base class derived from ``self.random_state``.
        resamples : SharedDeltas or None, default=None
            The pair's posterior draws on Dirichlet weights drawn elsewhere
            (:func:`sigtest.compare`'s shared Bayesian bootstrap, scheme
            ``"bayesian"``, given through :meth:`test_paired`), used instead
            of the test's own draws; their length must be ``n_resamples``.

        Returns
        -------
        TestOutcome
            ``pvalue=nan``, the posterior draws of the raw difference as
            ``null_distribution``, the equal-tailed credible interval,
            ``prob_worse``, ``prob_equivalent`` and ``prob_better``.
        """
        # the one rule for undefined draws; the one check of supplied draws
        from sigtest._engine.resampling import drop_nonfinite
        from sigtest._engine.resampling.dispatch import supplied_deltas

        if resamples is not None:
            draws = supplied_deltas(resamples, self.n_resamples, "bayesian")
        else:
            draws = np.asarray(posterior_deltas(data, self.n_resamples, random_state),
                               dtype=np.float64)
        draws = drop_nonfinite(draws)
        rope = float(self.rope)
        level = float(self.confidence_level)
        if draws.size == 0:
            warn_degenerate("Every posterior draw of the difference is undefined (not "
                            "finite); no probability can be given.")
            nan = math.nan
            return TestOutcome(pvalue=nan, n_resamples=0, confidence_level=level,
                               resampling="bayesian bootstrap", interval_method="credible",
                               prob_worse=nan, prob_equivalent=nan, prob_better=nan)
        t = data.orient(draws)
        bound = rope + tie_tolerance(data)
        n = draws.size
        n_worse = int(np.count_nonzero(t < -bound))
        n_better = int(np.count_nonzero(t > bound))
        worse, better = n_worse / n, n_better / n
        equivalent = (n - n_worse - n_better) / n
        alpha = 1.0 - level
        low, high = np.quantile(draws, [alpha / 2, 1.0 - alpha / 2])
        if is_degenerate(draws):
            warn_degenerate(
                "Every posterior draw of the difference is equal (e.g. identical systems, "
                "or a single unit): the posterior is a point mass at "
                f"{float(draws[0]):+.6g}, so the probabilities are 0 or 1 and the credible "
                "interval is that point.")
        else:
            unit = "clusters" if data.clustered else "items"
            reasons = small_sample_reasons(data.n_units, data.n_discordant,
                                           BK_SMALL_SAMPLE_LIMITS, unit=unit)
            if reasons:
                warn_external(
                    f"{type(self).__name__}: the data are few ({'; '.join(reasons)}); the "
                    "Bayesian bootstrap puts mass only on the observed units, so its "
                    "posterior is too narrow and its probabilities too confident. Report "
                    "the exact sigtest.PairedPermutation() p-value as well.",
                    SmallSampleWarning,
                )
        return TestOutcome(
            pvalue=math.nan,
            null_distribution=draws,
            confidence_interval=ConfidenceInterval(float(low), float(high)),
            confidence_level=level,
            n_resamples=int(n),
            resampling="bayesian bootstrap",
            interval_method="credible",
            prob_worse=float(worse),
            prob_equivalent=float(equivalent),
            prob_better=float(better),
            details={"posterior_mean": float(np.mean(draws))},
        )
