"""The rank views of a :class:`~sigtest.ComparisonResult`: ranks, leaderboard, letters.

A mixin of :class:`~sigtest._workflows.compare.result.ComparisonResult`
(its methods read the result's stored frame, options and data); the
class is documented as one.
"""

from sigtest._constants import N_RESAMPLES
from sigtest._workflows.compare.leaderboard import leaderboard_table
from sigtest._workflows.compare.tables import letters_table

__all__ = ["RankViews"]


class RankViews:
    """Ranks, the leaderboard and the compact letters of a comparison (a mixin)."""

    __slots__ = ()

    # ------------------------------------------------------------------- ranks
    def ranks(self, metric=None, *, confidence_level=0.95, n_resamples=N_RESAMPLES,
              random_state=None, bootstrap="auto"):
        r"""Leaderboard ranks with simultaneous rank intervals, P(best) and the best set.

        All systems are resampled together: each bootstrap resample draws
        the test items once (whole clusters with ``groups``, within strata
        with ``strata``, as in the comparison) and scores every system on
        it, so the joint distribution of the scores is kept. Read more in
        ``docs/leaderboards.md``.

        Computed once per metric and set of arguments, then kept (the
        result never changes): later calls, :meth:`leaderboard` and
        :meth:`report` return copies of the same rows. A table drawn from a
        Generator is not kept.

        Parameters
        ----------
        metric : str or list of str, optional
            Metric(s) to rank on; default: every metric of the comparison.
        confidence_level : float, default=0.95
            Joint level :math:`1-\alpha` of the rank intervals, and level of
            the model confidence set.
        n_resamples : int, default=9999
            Number of shared bootstrap resamples ``B``.
        random_state : None, int, SeedSequence or Generator, default=None
            Seed of the resamples. None: the comparison's own shared draws
            of the metric (its tests' or its max-T correction's) when there
            are at least ``B`` of them (the
            first ``B``; e.g. the default test's 9,999 with 6 systems or
            more) and ``bootstrap`` is ``"auto"`` or their source, else a
            seed derived from the comparison's ``random_state``; either way
            the table is the same on every call.
        bootstrap : {"auto", "resample", "multiplier"}, default="auto"
            Source of the shared draws, as in :func:`sigtest.compare`:
            ``"auto"`` takes the Gaussian multiplier draws (from the systems'
            jackknife covariance) when ``B x units x systems`` exceeds
            ``2 x 10**10`` and the metric has sufficient statistics.

        Returns
        -------
        table : pandas.DataFrame
            One row per (metric, system), metrics in the order requested,
            systems in input order, columns ``system, metric, rank,
            rank_low, rank_high, p_best, in_best_set``. ``rank`` is the
            observed rank (1 = best; ties share the best rank),
            ``[rank_low, rank_high]`` the simultaneous confidence interval
            of the rank, ``p_best`` the share of resamples in which the
            system is best (ties split) and ``in_best_set`` whether it is in
            the model confidence set (not significantly worse than the best).

        Raises
        ------
        ValueError
            Unknown metric, a level outside (0, 1), ``n_resamples < 2``, an
            unknown ``bootstrap`` (or ``"multiplier"`` for a metric without
            statistics), or several runs / CV repeats tested separately.

        Warns
        -----
        DegenerateDistributionWarning
            A score undefined on the data (its metric's ranks are NaN) or on
            some resamples (those are dropped).

        See Also
        --------
        letters : Groups of systems not significantly different, pair by pair.

        Notes
        -----
        Rank intervals: with :math:`\hat\Delta_{jl}` the oriented score
        difference of systems :math:`j, l`, :math:`\hat\sigma_{jl}` its
        bootstrap standard deviation and :math:`\hat c` the
        :math:`1-\alpha` quantile of the bootstrap
        :math:`\max_{j<l}|\Delta^*_{jl}-\hat\Delta_{jl}|/\hat\sigma_{jl}`,
        system :math:`l` is significantly better than :math:`j` when
        :math:`\hat\Delta_{lj} - \hat c\,\hat\sigma_{lj} > 0`;
        ``rank_low = 1 + #better``, ``rank_high = k - #worse``, jointly
        valid for all systems (Mogstad et al. 2024). The best set is the
        model confidence set of Hansen, Lunde & Nason (2011): test equal
        performance of the surviving systems with the :math:`T_{max}`
        statistic, eliminate the worst, repeat until not rejected at
        :math:`\alpha`; it contains the best system with probability at
        least :math:`1-\alpha` (asymptotically). Greater is better for a
        score; a loss is negated.

        References
        ----------
        M. Mogstad, J. P. Romano, A. M. Shaikh and D. Wilhelm (2024).
        Inference for ranks with applications to mobility across
        neighbourhoods and academic achievement across countries. Review of
        Economic Studies 91(1), 476-518.
        P. R. Hansen, A. Lunde and J. M. Nason (2011). The model confidence
        set. Econometrica 79(2), 453-497.
        P. Hall and H. Miller (2009). Using the bootstrap to quantify the
        authority of an empirical ranking. Annals of Statistics 37(6B).

        Examples
        --------
        >>> import numpy as np
        >>> import sigtest
        >>> rng = np.random.default_rng(0)
        >>> y = rng.integers(0, 2, 500)
        >>> preds = {name: np.where(rng.random(500) < acc, y, 1 - y)
        ...          for name, acc in [("weak", 0.6), ("good", 0.8), ("best", 0.95)]}
        >>> res = sigtest.compare(y, preds, metrics="accuracy", random_state=0)
        >>> res.ranks()[["system", "rank", "rank_low", "rank_high", "in_best_set"]]
          system  rank  rank_low  rank_high  in_best_set
        0   weak     3         3          3        False
        1   good     2         2          2        False
        2   best     1         1          1         True
        """
        # on first use: the rank machinery (shared draws, ranking engine) is not
        # needed to build or print a result
        from sigtest._workflows.compare.ranks import cached_rank_table

        return cached_rank_table(
            self._own_cache(), self._data, self._options, systems=self.systems, metrics=self.metrics,
            n_runs=self.n_runs, metric=metric, confidence_level=confidence_level,
            n_resamples=n_resamples, random_state=random_state, bootstrap=bootstrap,
            frame=self._frame, greater_is_better=self._greater_is_better)

    def _own_cache(self):
        """The dict of tables computed once (a result unpickled from before it had one gets one)."""
        if getattr(self, "_cache", None) is None:
            self._cache = {}
        return self._cache

    def leaderboard(self, metric=None):
        """The systems best first, with rank interval, score interval, tier and P(best).

        One row per system: :meth:`ranks` (computed once, then reused),
        :meth:`scores` and the tiers of the pairwise tests side by side.
        Read more in ``docs/leaderboards.md``.

        Parameters
        ----------
        metric : str, optional
            The metric to rank on; default: the first metric.

        Returns
        -------
        table : pandas.DataFrame
            Index ``system``, best first (ties by name), columns ``rank,
            rank_low, rank_high, score, ci_low, ci_high, tier, p_best,
            in_best_set``: the rank (1 = best) and its simultaneous 95 %
            interval, the score and its interval (:meth:`scores` with
            ``intervals="shared"``: the percentile interval of the
            comparison's shared draws where it kept them, no resampling of
            its own), the tier
            (the compact letters of :meth:`letters`; numbered tiers when a
            valid letter display needs more than 26 letters; ``""`` unless
            every pair was tested), P(best) and membership of the best set
            (:meth:`ranks`). ``attrs`` holds ``metric, confidence_level,
            n_systems, n_significant_pairs, test, tier_kind`` (``"letters"``,
            ``"tiers"`` or ``"none"``), ``n_letters``, ``tier_note``,
            ``score_ci_level`` and ``score_ci_method`` (the ``ci_method``
            values of the score intervals).

        Raises
        ------
        ValueError
            An unknown metric, or several runs tested separately.

        Examples
        --------
        >>> import numpy as np
        >>> import sigtest
        >>> rng = np.random.default_rng(0)
        >>> y = rng.integers(0, 2, 500)
        >>> preds = {name: np.where(rng.random(500) < acc, y, 1 - y)
        ...          for name, acc in [("weak", 0.6), ("good", 0.8), ("best", 0.95)]}
        >>> res = sigtest.compare(y, preds, metrics="accuracy", random_state=0)
        >>> board = res.leaderboard()
        >>> board.reset_index()[["system", "rank", "rank_low", "rank_high", "tier", "in_best_set"]]
          system  rank  rank_low  rank_high tier  in_best_set
        0   best     1         1          1    a         True
        1   good     2         2          2    b        False
        2   weak     3         3          3    c        False
        >>> board.attrs["n_significant_pairs"]
        3
        """
        return leaderboard_table(self, metric)

    # ----------------------------------------------------------------- letters
    def letters(self, metric=None, *, test=None, run=None):
        """Compact letter display for one metric (Fig. 2 of Bestgen 2022).

        Systems sharing a letter are not significantly different (adjusted
        p-value above ``alpha``); systems are ordered by score, best first,
        and ``"a"`` marks the group of the best system. Computed with the
        insert-and-absorb algorithm of Piepho (2004), or a greedy clique
        cover when that needs fewer letters or too much work. Always
        letters; where a valid display needs more than 26 letters,
        :meth:`leaderboard` and :meth:`report` show numbered tiers instead
        and say so.

        Parameters
        ----------
        metric : str, optional
            Defaults to the first metric.
        test : str, optional
            Test name (see :attr:`tests`); defaults to the first test.
        run : int, optional
            Run or CV repeat (needed when several were tested separately).

        Returns
        -------
        letters : pandas.DataFrame
            Indexed by system, best first (ties by name), with columns
            ``score`` and ``letters``: the shape of
            :func:`sigtest.compact_letters`.

        Raises
        ------
        ValueError
            Unknown metric/test/run, or not every pair was tested
            (``pairs="baseline"`` or ``"adjacent"``): letters summarise *all* pairwise
            comparisons.
        """
        # computed once per (metric, test, run): the result never changes; the
        # report, the leaderboard and the plots each ask (a copy each time)
        cache = self._own_cache()
        key = ("letters", metric, test, run)
        if key not in cache:
            cache[key] = letters_table(
                self._frame, metric, test, run, systems=self.systems, metrics=self.metrics,
                tests=self.tests, n_runs=self.n_runs, pairs=self.pairs,
                greater_is_better=self._greater_is_better)
        return cache[key].copy()
