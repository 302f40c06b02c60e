"""Paired permutation test (approximate randomization / Fisher-Pitman)."""

from __future__ import annotations

from numbers import Integral

import numpy as np

from sigtest._constants import N_RESAMPLES
from sigtest._engine.pvalues import LOG_SPACE_BELOW, tiny_pvalue
from sigtest._results import TestOutcome
from sigtest.utils._param_validation import lazy
from sigtest.tests_._base import _N_JOBS, _RANDOM_STATE, SignificanceTest
from sigtest.metrics._common import fill_doc
from sigtest.tests_._shared_docs import ALTERNATIVE_WITHOUT_INTERVAL

__all__ = ["PairedPermutation"]

# exact="auto" enumerates when the enumeration is estimated to be cheaper than
# the Monte Carlo run or to take less than this (seconds).
_AUTO_EXACT_SECONDS = 2e-3


@fill_doc(alternative=ALTERNATIVE_WITHOUT_INTERVAL)
class PairedPermutation(SignificanceTest):
    r"""Paired permutation test: swap each item's A and B predictions with probability 1/2.

    Under the null hypothesis the two systems are exchangeable on every item,
    so each of the :math:`2^N` swap patterns is equally likely (approximate
    randomization, Noreen 1989; the Fisher-Pitman paired test for a mean,
    Bestgen 2022). The oriented difference :math:`t` (positive: B better;
    for a loss lower is better) is compared with its permutation
    distribution :math:`t^*`; ties count (tolerance ``100 * eps`` relative to
    the scores).

    * Monte Carlo: :math:`p = (c + 1) / (B + 1)`, with :math:`c` the number
      of permutations as extreme as observed.
    * Exact: when the number of distinct patterns is small (only items where
      A and B differ matter, :math:`2^d` patterns; for hard labels a binomial
      number of swaps per discordant cell) every pattern is enumerated with
      its probability and :math:`p` is exact. For accuracy the exact
      two-sided p equals the exact McNemar (sign) test.

    The permutation distribution is symmetric (swapping everything swaps A
    and B, which negates the difference), so ``"two-sided"`` uses
    :math:`|t^*| \ge |t|`.

    **Clusters.** With ``groups=`` (one cluster id per item) A and B are
    swapped on whole clusters together: under the null hypothesis the two
    systems are exchangeable within every cluster, and the :math:`2^G`
    cluster swap patterns are equally likely, whatever the dependence
    between the items of a cluster. The exact enumeration then runs over
    the :math:`G` clusters (clusters with equal summed differences merged),
    so the test stays exact at any number of clusters, but coarse: two-sided
    :math:`p \ge 2^{1-G'}` with :math:`G'` discordant clusters; fewer than
    20 clusters warn (``SmallSampleWarning``).

    **Rank metrics.** For a metric that depends on each system's scores
    only through their order (ROC AUC, average precision, any metric with
    a ``ranking``), the test swaps each item's within-system normalised
    ranks (average rank over ``N``, per column or per binary problem of a
    multiclass AUC), not the raw scores: swapping scores of two scales (a
    probability against a margin, or its fourth power) would make the
    mixed systems' AUCs, and so the p-value, depend on the scales, while
    the two AUCs do not. The p-value is then unchanged by any strictly
    increasing transform of either system's scores, like every other
    test's on these metrics (see ``docs/which_test.md``, "Do the AUCs
    differ?").

    **Strata.** The permutation conditions on the items (or clusters): each
    keeps its place and only A and B are exchanged, so ``strata=`` is
    accepted and changes nothing (the same distribution; the same p-value,
    and for a Monte Carlo run the same draws, except where strata keep
    identical cluster rows from merging).

    Parameters
    ----------
    n_resamples : int, default=9999
        Monte Carlo permutations B (>= 1).
    {alternative}
    exact : {"auto", True, False}, default="auto"
        ``"auto"``: enumerate when it is estimated to be cheaper than the
        Monte Carlo run of ``n_resamples`` permutations, or to take less than
        2 ms (then the exact answer costs nothing noticeable); the estimates
        are measured per-unit costs (see
        :func:`~sigtest._engine.resampling.monte_carlo_permutation_seconds`).
        ``True``: enumerate (at most ``2**20`` patterns) or raise
        ``ValueError``; ``False``: always Monte Carlo.
    mid_p : bool, default=False
        Return the mid-p value (Lancaster 1961): outcomes as extreme as the
        observed one count one half. Exact tests on discrete data are
        conservative (size .014 at N = 20 for accuracy at alpha = .05); the
        mid-p is closer to the nominal level but not guaranteed below it.
    random_state : None, int, SeedSequence or Generator, default=None
        Seed of the Monte Carlo permutations; the base class turns it into one integer
        seed, so equal seeds give bit-identical results for any ``n_jobs``.
    n_jobs : int, default=None
        Number of numba threads while the test runs (``None``: numba's
        default; results do not depend on it).

    Warns
    -----
    DegenerateDistributionWarning
        If the permutation distribution is a single point (identical
        systems: every swap changes nothing); ``p = 1`` for every
        alternative, mid-p included.
    SmallSampleWarning
        With ``groups=`` and fewer than 20 clusters (the p-value stays
        exact but cannot go below :math:`2^{1-G}`).

    References
    ----------
    Noreen (1989). Computer-Intensive Methods for Testing Hypotheses. Wiley.
    Berry, Mielke, Mielke (2002). The Fisher-Pitman permutation test.
    Psychological Reports 90.
    Gail, Mark, Carroll, Green, Pee (1996). On design considerations and
    randomization-based inference for community intervention trials.
    Statistics in Medicine 15 (permutation of whole clusters).

    Examples
    --------
    >>> import numpy as np
    >>> from sigtest import PairedPermutation
    >>> y = np.array([0, 1, 1, 0, 1, 0, 1, 1, 0, 0])
    >>> a = np.array([0, 1, 0, 1, 1, 0, 0, 1, 1, 0])
    >>> b = np.array([0, 1, 1, 0, 1, 0, 1, 1, 0, 1])
    >>> res = PairedPermutation(random_state=0).test(y, a, b)
    >>> res.resampling, round(res.pvalue, 4)
    ('exact permutation', 0.375)

    Clustered (60 documents of 5 sentences): whole documents are swapped.

    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 300)
    >>> a = np.where(rng.random(300) < 0.70, y, 1 - y)
    >>> b = np.where(rng.random(300) < 0.78, y, 1 - y)
    >>> docs = np.repeat(np.arange(60), 5)
    >>> res = PairedPermutation(random_state=0).test(y, a, b, groups=docs)
    >>> res.n_groups, bool(res.pvalue < 0.05)
    (60, True)
    """

    name = "permutation"
    _parameter_constraints: dict = {
        "n_resamples": [lazy.Interval(Integral, 1, None, closed="left")],
        "alternative": [lazy.StrOptions({"two-sided", "greater", "less"})],
        "exact": ["boolean", lazy.StrOptions({"auto"})],
        "mid_p": ["boolean"],
        "random_state": _RANDOM_STATE,
        "n_jobs": _N_JOBS,
    }

    def __init__(self, *, n_resamples=N_RESAMPLES, alternative="two-sided", exact="auto",
                 mid_p=False, random_state=None, n_jobs=None):
        self.n_resamples = n_resamples
        self.alternative = alternative
        self.exact = exact
        self.mid_p = mid_p
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _shared_scheme(self):
        """Monte Carlo permutations on shared swaps; ``exact=True`` always enumerates."""
        return None if self.exact is True else "permutation"

    def _exact_distribution(self, paired, discordant, supplied=False):
        if self.exact is False:
            return None
        result = None
        if discordant is not None:
            # numba: imported when needed
            from sigtest._engine.resampling.permutation import (
                exact_permutation_sums,
                monte_carlo_permutation_seconds,
            )

            budget = None
            if self.exact == "auto":
                # supplied permutations cost nothing more: enumerate only if cheap
                budget = _AUTO_EXACT_SECONDS if supplied else max(
                    _AUTO_EXACT_SECONDS, monte_carlo_permutation_seconds(
                        paired, self.n_resamples, discordant=discordant))
            result = exact_permutation_sums(paired, parallel=self._parallel(),
                                            max_seconds=budget, discordant=discordant)
        if result is None and self.exact is True:
            raise ValueError(
                "The 'exact' parameter of PairedPermutation is True but the permutation "
                "distribution is too large to enumerate (or the metric has no sufficient "
                "statistics); use exact='auto' or exact=False."
            )
        if result is None:
            return None
        sums_a, sums_b, probs = result
        return np.asarray(paired.deltas(sums_a, sums_b), dtype=np.float64), np.asarray(probs)

    def evaluate(self, data, random_state, *, resamples=None):
        """The permutation distribution (exact or Monte Carlo); the base class counts p.

        Parameters
        ----------
        data : PairedData
            The validated paired data (from :meth:`test` or :meth:`test_paired`).
        random_state : int
            The integer seed the base class derived from ``self.random_state``.
        resamples : SharedDeltas or None, default=None
            The pair's permuted differences on swap vectors drawn elsewhere
            (:func:`sigtest.compare`'s shared permutations, scheme
            ``"permutation"``, given through :meth:`test_paired`), used
            instead of the test's own Monte Carlo draws; their length must be
            ``n_resamples``. With ``exact="auto"`` the exact distribution is
            still used when it takes less than 2 ms to enumerate.

        Returns
        -------
        TestOutcome
            ``null_distribution`` (and ``null_weights`` when exact). Monte
            Carlo: no ``pvalue``, :class:`SignificanceTest` counts it. Exact:
            the p-value of the weights, recomputed in log space when it
            underflows (``log10_pvalue``; the p-value is then at least the
            smallest positive double, never 0).
        """
        discordant = None
        if data.has_statistics:
            # numba: imported when needed
            from sigtest._engine.resampling.permutation import discordant_rows

            # computed once for the cost estimate, the exact attempt and the Monte Carlo run
            discordant = discordant_rows(data)
        exact = self._exact_distribution(data, discordant, supplied=resamples is not None)
        pvalue = log10_p = None  # Monte Carlo: the base class counts p (>= 1/(B+1))
        if exact is not None:
            deltas, weights = exact
            resampling = "exact permutation"
            pvalue = self._pvalue_from_null(data, deltas, weights, self._alternative())
            if pvalue < LOG_SPACE_BELOW:
                # the weights of the patterns as extreme underflowed (many discordant
                # items, nearly all one way): the same sum in log space
                from sigtest._engine.resampling.exact_log import (  # numba: when needed
                    exact_permutation_log10_pvalue,
                )

                pvalue, log10_p = tiny_pvalue(pvalue, lambda: exact_permutation_log10_pvalue(
                    data, self._alternative(), mid_p=bool(self.mid_p), discordant=discordant))
        else:
            deltas = self._resampled_deltas(data, "permutation", self.n_resamples,
                                            random_state, discordant=discordant,
                                            supplied=resamples)
            weights = None
            resampling = "permutation"
        return TestOutcome(pvalue=pvalue, log10_pvalue=log10_p, null_distribution=deltas,
                           null_weights=weights, n_resamples=int(deltas.size),
                           resampling=resampling)
