r"""``DatasetComparisonResult``: what :func:`sigtest.compare_datasets` returns.

Average ranks, the Friedman and Iman-Davenport tests, Nemenyi's critical
difference, the post-hoc p-values (:mod:`sigtest.tests_._rank_tests`,
:mod:`sigtest.tests_._posthoc`), effect sizes, the Bayesian comparison and
the item-level tests of every pair on every dataset.
"""

from numbers import Real

import numpy as np
import pandas as pd

import sigtest.tests_._bayes_datasets as bd
import sigtest.tests_._effect_sizes as es
import sigtest.tests_._posthoc as ph
import sigtest.tests_._rank_tests as rt
from sigtest._results import to_plain
from sigtest.tests_._corrections import check_correction
from sigtest.utils import renamed_keywords, warn_external

__all__ = ["DatasetComparisonResult", "MIN_DATASETS", "few_datasets_caveat"]

#: Fewer datasets than this make the rank tests' approximations rough: Demšar
#: (2006, section 3.2.2) gives "N > 10 and k > 5" as the rule of thumb for
#: Friedman's chi-square (the Iman-Davenport F and Nemenyi's critical
#: difference rest on the same large-N distribution of the average ranks).
MIN_DATASETS = 11


def few_datasets_caveat(n_datasets):
    """The caveat on the rank tests for ``n_datasets`` datasets (``""``: enough of them).

    Examples
    --------
    >>> few_datasets_caveat(11)
    ''
    >>> few_datasets_caveat(2).startswith("only 2 datasets")
    True
    """
    if n_datasets >= MIN_DATASETS:
        return ""
    return (f"only {n_datasets} datasets: Friedman's chi-square, the Iman-Davenport F and "
            f"Nemenyi's critical difference are large-sample approximations that need more "
            f"than {MIN_DATASETS - 1} datasets (Demšar 2006, section 3.2.2), so their "
            "p-values and critical difference are rough here. For one overall comparison "
            "on the items (each dataset resampled within itself), use sigtest.compare(y, "
            "predictions, strata=dataset_of_each_item, overall='macro') (or 'micro'), or "
            "ScoreTable.compare(overall='macro')")

_POSTHOC = ("nemenyi", "holm", "wilcoxon", "conover", "quade", "miller")
#: post-hoc methods whose p-values are simultaneous already (no correction)
_SIMULTANEOUS = ("nemenyi", "miller")


class _DefaultCorrection(str):
    """The default ``correction`` of :meth:`DatasetComparisonResult.pairwise`.

    Holm's, recognisable by identity so that the simultaneous methods
    (Nemenyi, Miller) can reject an explicit correction but not the default.
    """

    __slots__ = ()


_HOLM = _DefaultCorrection("holm")


class DatasetComparisonResult:
    r"""Comparison of several systems over several datasets.

    Built by :func:`compare_datasets`; read-only (tables are returned as copies).

    Parameters
    ----------
    scores : pandas.DataFrame
        Datasets x systems score table used by the rank tests (complete).
    metric : str
        Name of the metric.
    greater_is_better : bool
        Orientation of the scores.
    alpha : float
        Level of the critical difference and of the significance columns.
    dropped_datasets, dropped_systems : list
        What the missing-cell rule removed.
    comparisons : dict
        Dataset -> :class:`~sigtest.ComparisonResult` of the item-level tests
        (empty for score tables).
    n_runs : int
        Largest number of runs averaged in a cell (1 without seeds).
    tie_correction : bool, default=True
        Whether Friedman's statistic is divided by the tie correction.

    Attributes
    ----------
    scores : pandas.DataFrame
        Datasets x systems scores after the missing-cell rule.
    average_ranks : pandas.Series
        Average rank of each system (1 = best, ties averaged), in input order.
    friedman : RankTestResult
        Friedman's :math:`\chi^2_F` (``statistic``, ``pvalue``, ``df``).
    iman_davenport : RankTestResult
        Iman-Davenport's :math:`F_F` (``statistic``, ``pvalue``, ``df``).
    critical_difference : float
        Nemenyi's critical difference at ``alpha``; ``q_alpha`` its constant.
    n_datasets, n_systems : int
        Sizes of the complete table.
    """

    def __init__(self, scores, *, metric, greater_is_better, alpha, dropped_datasets,
                 dropped_systems, comparisons, n_runs, tie_correction=True):
        values = scores.to_numpy(dtype=np.float64, copy=True)
        values.flags.writeable = False
        put = object.__setattr__
        put(self, "_scores", pd.DataFrame(values, index=scores.index.copy(),
                                          columns=scores.columns.copy()))
        put(self, "metric", metric)
        put(self, "greater_is_better", bool(greater_is_better))
        put(self, "alpha", float(alpha))
        put(self, "_dropped", (tuple(dropped_datasets), tuple(dropped_systems)))
        put(self, "_comparisons", dict(comparisons))
        put(self, "n_runs", int(n_runs))
        put(self, "tie_correction", bool(tie_correction))
        put(self, "n_datasets", scores.shape[0])
        put(self, "n_systems", scores.shape[1])
        put(self, "_system_order", list(scores.columns))
        oriented = self._oriented()
        put(self, "_average_ranks", rt.average_ranks(oriented))
        friedman, iman_davenport = rt.friedman_test(oriented, tie_correction=self.tie_correction)
        put(self, "friedman", friedman)
        put(self, "iman_davenport", iman_davenport)
        cd, q = rt.nemenyi_critical_difference(self.n_systems, self.n_datasets, self.alpha)
        put(self, "critical_difference", cd)
        put(self, "q_alpha", q)

    def __setattr__(self, name, value):
        raise AttributeError(f"DatasetComparisonResult is read-only (cannot set {name!r}).")

    def __delattr__(self, name):
        raise AttributeError(f"DatasetComparisonResult is read-only (cannot delete {name!r}).")

    def _oriented(self):
        values = self._scores.to_numpy(dtype=np.float64)
        return values if self.greater_is_better else -values

    @property
    def scores(self):
        """Datasets x systems scores after the missing-cell rule (a copy)."""
        return self._scores.copy()

    @property
    def average_ranks(self):
        """Average rank of each system (1 = best, ties averaged), in input order (a copy)."""
        return pd.Series(self._average_ranks, index=self._scores.columns.copy(),
                         name="average_rank")

    @property
    def dropped_datasets(self):
        """Datasets removed by the missing-cell rule."""
        return list(self._dropped[0])

    @property
    def dropped_systems(self):
        """Systems removed by the missing-cell rule."""
        return list(self._dropped[1])

    @property
    def comparisons(self):
        """Dataset -> :class:`~sigtest.ComparisonResult` of the item-level tests (a new dict)."""
        return dict(self._comparisons)

    @property
    def systems(self):
        """System names in input order (after the missing-cell rule)."""
        return list(self._scores.columns)

    @property
    def datasets(self):
        """Dataset names in input order (after the missing-cell rule)."""
        return list(self._scores.index)

    def ranks(self):
        """Rank of each system on each dataset (1 = best, ties averaged).

        Returns
        -------
        ranks : pandas.DataFrame
            Datasets x systems.
        """
        return pd.DataFrame(rt.rank_matrix(self._oriented()), index=self._scores.index.copy(),
                            columns=self._scores.columns.copy())

    @renamed_keywords(method="test")
    def pairwise(self, test="nemenyi", control=None, correction=_HOLM):
        r"""Post-hoc p-values of every pair of systems, adjusted for multiplicity.

        With :math:`\bar R_j` the average ranks, :math:`R_j = N \bar R_j` the
        rank sums and :math:`SE = \sqrt{k(k+1)/(6N)}`:

        ``"nemenyi"``: Nemenyi's test, :math:`p = P(Q_{k,\infty} \ge \sqrt2
        |\bar R_i - \bar R_j| / SE)` (the pairs that differ by more than
        :attr:`critical_difference`); simultaneous over all pairs.
        ``"miller"``: Miller's test, :math:`p = P(\chi^2_{k-1} \ge (\bar R_i -
        \bar R_j)^2 / SE^2)`; simultaneous over all pairs, more conservative.
        ``"holm"``: two-sided z tests of :math:`z = (\bar R_i - \bar R_j)/SE`
        (Demšar 2006 sec. 3.2.2; the name is kept from the default correction).
        ``"conover"``: Conover's t tests after Friedman, :math:`t = |R_i -
        R_j| / \sqrt{2(N A_1 - \sum_j R_j^2)/((N-1)(k-1))}`, :math:`A_1` the sum
        of the squared ranks, :math:`t_{(N-1)(k-1)}`: the error term is the
        residual variation of the ranks, so it is more powerful than the z
        tests when the datasets agree.
        ``"quade"``: Quade's t tests on ranks weighted by the rank of each
        dataset's range (:func:`sigtest.tests_._posthoc.quade_pvalues`).
        ``"wilcoxon"``: the Wilcoxon signed-rank test of each pair on its ``N``
        paired scores (:func:`scipy.stats.wilcoxon`); recommended by Benavoli,
        Corani and Mangili (2016), because a mean-rank test's verdict on A vs
        B depends on which other systems are in the comparison.

        Parameters
        ----------
        test : str, default="nemenyi"
            The post-hoc test (the name of :func:`sigtest.compare`'s
            ``test=``: here a test over datasets), one of ``"nemenyi"``,
            ``"holm"``, ``"wilcoxon"``, ``"conover"``, ``"quade"``,
            ``"miller"`` (above).
        control : str, optional
            A system: compare only it against the others (``k - 1`` tests;
            not with the all-pairs ``"nemenyi"`` and ``"miller"``).
        correction : str or None, default="holm"
            Multiplicity adjustment of the family of tested pairs, any method
            of :func:`sigtest.tests_._corrections.adjust_pvalues` (``"holm"``,
            ``"bonferroni"``, ``"fdr_bh"``, ...); None for raw p-values.
            ``"nemenyi"`` and ``"miller"`` are simultaneous already: they take
            the default or None, and ignore it.

        Returns
        -------
        pvalues : pandas.DataFrame
            Systems x systems p-values, symmetric, 1 on the diagonal, NaN for
            pairs not tested (with ``control``).

        Raises
        ------
        ValueError
            An unknown ``test`` or ``correction``, an unknown ``control``,
            ``control`` with an all-pairs test, or an explicit
            ``correction`` with ``"nemenyi"`` or ``"miller"``.

        Warns
        -----
        UserWarning
            ``"wilcoxon"`` when a pair has the same score on every dataset
            (its p-value is 1); ``"conover"`` and ``"quade"`` when the ranks
            have no residual variation (every dataset ranks the systems alike):
            their t statistic is undefined, p = NaN (1 for equal rank totals).

        References
        ----------
        J. Demšar (2006). Statistical comparisons of classifiers over multiple
        data sets. JMLR 7, 1-30.
        W. J. Conover (1999). Practical Nonparametric Statistics, 3rd ed.
        Wiley, sec. 5.8.
        D. Quade (1979). Using weighted rankings in the analysis of complete
        blocks with additive block effects. JASA 74(367), 680-683.
        R. G. Miller Jr. (1966). Simultaneous Statistical Inference. McGraw-Hill.
        A. Benavoli, G. Corani and F. Mangili (2016). Should we really use
        post-hoc tests based on mean-ranks? JMLR 17(5), 1-10.
        S. Garcia and F. Herrera (2008). An extension on "Statistical
        comparisons of classifiers over multiple data sets" for all pairwise
        comparisons. JMLR 9, 2677-2694.
        """
        if test not in _POSTHOC:
            raise ValueError(f"The 'test' parameter must be one of {_POSTHOC}. "
                             f"Got {test!r} instead.")
        index = None
        if test in _SIMULTANEOUS:
            if correction is not _HOLM and correction is not None:
                raise ValueError(
                    f"The 'correction' parameter does not apply to test={test!r}: its "
                    "p-values are simultaneous over all pairs already (leave the default or "
                    f"pass None). Got {correction!r}.")
            correction = None
        if control is not None:
            if test in _SIMULTANEOUS:
                raise ValueError(f"The 'control' parameter needs another test than {test!r} "
                                 "(an all-pairs test).")
            if control not in self.systems:
                raise ValueError(f"The 'control' parameter must be one of {self.systems}. "
                                 f"Got {control!r} instead.")
            index = self.systems.index(control)
        if isinstance(correction, _DefaultCorrection):
            correction = str(correction)
        check_correction(correction, "correction", "pairwise")  # fails before any work
        if test == "nemenyi":
            p = rt.nemenyi_pvalues(self.average_ranks.to_numpy(), self.n_datasets)
        elif test == "miller":
            p = ph.miller_friedman_pvalues(self._oriented())
        elif test == "holm":
            p = rt.rank_z_pvalues(self.average_ranks.to_numpy(), self.n_datasets, index,
                                  correction)
        elif test == "wilcoxon":
            p, flat = rt.wilcoxon_pvalues(self._oriented(), index, correction)
            if flat:
                names = [(self.systems[i], self.systems[j]) for i, j in flat]
                warn_external(f"Pairs {names} have equal scores on every dataset: p = 1.",
                              UserWarning)
        else:
            raw = (ph.conover_friedman_pvalues if test == "conover"
                   else ph.quade_pvalues)(self._oriented())
            p = rt.adjust_pairs(raw, index, correction)
        return pd.DataFrame(p, index=self._scores.columns.copy(),
                            columns=self._scores.columns.copy())

    def effect_sizes(self, reference=None):
        r"""Effect sizes of a reference system against every system, with magnitudes.

        What autorank reports beside the ranks: for each system ``s``, with
        the scores of the reference ``r`` and of ``s`` on the ``N`` datasets
        oriented so that higher is better (positive: the reference is
        better),

        * ``cohen_d``: the paired :math:`d_z = \bar D / s_D`, :math:`D = r - s`;
        * ``cliff_delta``: :math:`P(r > s) - P(r < s)` over all pairs of datasets;
        * ``akinshin_gamma``: the difference of Harrell-Davis medians over
          the pooled median absolute deviation;

        each followed by its ``*_magnitude`` (negligible / small / medium /
        large: Cohen's thresholds 0.2, 0.5, 0.8 for d and :math:`\gamma`;
        Romano et al.'s 0.147, 0.33, 0.474 for :math:`\delta`). Formulas:
        :mod:`sigtest.tests_._effect_sizes`.

        Parameters
        ----------
        reference : str, optional
            A system; default: the best average rank (the first of
            :meth:`summary`).

        Returns
        -------
        table : pandas.DataFrame
            Index ``system`` in :meth:`summary` order; columns
            ``average_rank``, ``cohen_d``, ``cohen_d_magnitude``,
            ``cliff_delta``, ``cliff_delta_magnitude``, ``akinshin_gamma``,
            ``akinshin_gamma_magnitude`` (the reference's row: 0, negligible).

        Warns
        -----
        UserWarning
            When a difference has zero spread but a non-zero location (the
            effect size is infinite).

        References
        ----------
        J. Cohen (1988). Statistical Power Analysis for the Behavioral
        Sciences, 2nd ed. N. Cliff (1993). Dominance statistics.
        Psychological Bulletin 114(3), 494-509. J. Romano et al. (2006).
        Appropriate statistics for ordinal level data. A. Akinshin (2020). A
        nonparametric Cohen's d-consistent effect size. S. Herbold (2020).
        Autorank. JOSS 5(48), 2173.
        """
        order = list(self.system_table().index)
        if reference is None:
            reference = order[0]
        elif reference not in self.systems:
            raise ValueError(f"The 'reference' parameter must be one of {self.systems}. "
                             f"Got {reference!r} instead.")
        oriented = pd.DataFrame(self._oriented(), columns=self._scores.columns)
        ref = oriented[reference].to_numpy()
        rows = {}
        for system in order:
            other = oriented[system].to_numpy()
            row = {"average_rank": float(self.average_ranks[system])}
            for kind, func in (("cohen_d", es.cohen_d_paired), ("cliff_delta", es.cliff_delta),
                               ("akinshin_gamma", es.akinshin_gamma)):
                value = func(other, ref)
                row[kind] = value
                row[f"{kind}_magnitude"] = es.magnitude(value, kind)
            rows[system] = row
        table = pd.DataFrame.from_dict(rows, orient="index")
        table.index.name = "system"
        return table

    @renamed_keywords(n_samples="n_draws")
    def bayesian(self, a, b, *, rope=0.0, prior=0.5, n_draws=50_000, random_state=None):
        r"""Bayesian signed-rank comparison of two systems over the datasets.

        The posterior of Benavoli et al. (2014, 2017) on the differences of
        the two systems' scores (``b - a``, oriented so that positive means
        ``b`` is better): :func:`sigtest.bayesian_signed_rank`. Verdicts
        ``prob_worse`` (``b`` worse by more than ``rope``),
        ``prob_equivalent``, ``prob_better`` (``b`` better). For several
        cross-validation scores per dataset use
        :func:`sigtest.hierarchical_bayes`; plot with
        :func:`sigtest.plotting.plot_simplex`.

        Parameters
        ----------
        a, b : str
            Two systems.
        rope : float, default=0.0
            Half-width of the region of practical equivalence, in the
            metric's units.
        prior : float, default=0.5
            Strength of the prior pseudo-observation at 0.
        n_draws : int, default=50000
            Posterior draws.
        random_state : None, int, SeedSequence or Generator
            Seed of the Dirichlet draws (same seed, same draws).

        Returns
        -------
        posterior : DatasetPosterior
            ``prob_worse``, ``prob_equivalent``, ``prob_better`` (B relative to
            A) and the draws.

        References
        ----------
        A. Benavoli, G. Corani, J. Demšar and M. Zaffalon (2017). Time for a
        change: a tutorial for comparing multiple classifiers through
        Bayesian analysis. JMLR 18(77), 1-36.
        """
        for name, value in (("a", a), ("b", b)):
            if value not in self.systems:
                raise ValueError(f"The '{name}' parameter must be one of {self.systems}. "
                                 f"Got {value!r} instead.")
        if a == b:
            raise ValueError("The 'a' and 'b' parameters must name two different systems.")
        oriented = self._oriented()
        ia, ib = self.systems.index(a), self.systems.index(b)
        return bd.bayesian_signed_rank(oriented[:, ia], oriented[:, ib], rope=rope, prior=prior,
                                       n_draws=n_draws, random_state=random_state,
                                       names=(str(a), str(b)))

    def item_tests(self):
        """Item-level paired tests of every pair on every dataset.

        Returns
        -------
        frame : pandas.DataFrame
            The :meth:`ComparisonResult.to_frame` rows of every dataset with a
            leading ``dataset`` column (raw p-values: no correction within a
            dataset).
        """
        if not self._comparisons:
            raise ValueError("This result has no item-level tests: pass per-dataset "
                             "predictions {dataset: (y_true, {system: pred})} to compare_datasets.")
        frames = [r.to_frame().assign(dataset=name) for name, r in self._comparisons.items()]
        frame = pd.concat(frames, ignore_index=True)
        return frame[["dataset"] + [c for c in frame.columns if c != "dataset"]]

    @renamed_keywords(method="combine")
    def replicability(self, alpha=None, combine="bonferroni"):
        r"""On how many datasets each pair's difference holds (Dror et al. 2017).

        For a pair, the ``N`` datasets on which both systems were tested give
        the item-level p-values :math:`p_1, \dots, p_N` (two-sided, raw). The
        partial-conjunction null :math:`H_0^{u/N}`, "the difference holds in
        fewer than ``u`` datasets", has p-value :math:`p^{u/N} = \min(1, (N -
        u + 1) p_{(u)})` (Bonferroni) or :math:`P(\chi^2_{2(N-u+1)} \ge
        -2\sum_{i \ge u} \log p_{(i)})` (Fisher, independent datasets);
        ``u`` is the largest count such that :math:`H_0^{i/N}` is rejected at
        ``alpha`` for every :math:`i \le u`. Rejecting :math:`H_0^{u/N}`
        supports "the systems differ on at least ``u`` datasets", with
        type-I error at most ``alpha``.

        Parameters
        ----------
        alpha : float, optional
            Level; default: the result's ``alpha``.
        combine : {"bonferroni", "fisher"}, default="bonferroni"
            How the partial-conjunction p-values combine the datasets'
            p-values (as :func:`scipy.stats.combine_pvalues`' ``method``).

        Returns
        -------
        table : pandas.DataFrame
            One row per pair: ``system_a, system_b, n_datasets, n_significant``
            (datasets with raw ``p <= alpha``), ``n_b_better`` and
            ``n_a_better`` (the significant ones by direction of the
            difference, in the metric's orientation), ``u``, and ``pvalue_u``
            (the monotone partial-conjunction p-value of ``u`` itself; of
            ``u = 1`` when ``u = 0``).

        References
        ----------
        R. Dror, G. Baumer, M. Bogomolov and R. Reichart (2017). Replicability
        analysis for natural language processing: testing significance with
        multiple datasets. TACL 5, 471-486.
        """
        alpha = self.alpha if alpha is None else alpha
        if not (isinstance(alpha, Real) and 0 < alpha < 1):
            raise ValueError(f"The 'alpha' parameter must be in (0, 1). Got {alpha!r} instead.")
        if combine not in ("bonferroni", "fisher"):
            raise ValueError("The 'combine' parameter must be 'bonferroni' or 'fisher'. Got "
                             f"{combine!r} instead.")
        frame = self.item_tests()
        # one orientation per pair (the order of the systems in the input,
        # whatever order each dataset listed them in)
        order = {s: i for i, s in enumerate(self._system_order)}
        swap = (frame["system_a"].map(order) > frame["system_b"].map(order)).to_numpy()
        frame.loc[swap, ["system_a", "system_b"]] = frame.loc[
            swap, ["system_b", "system_a"]].to_numpy()
        frame.loc[swap, "delta"] = -frame.loc[swap, "delta"]
        rows = []
        sign = 1.0 if self.greater_is_better else -1.0
        for (a, b), part in frame.groupby(["system_a", "system_b"], sort=False):
            p = part["pvalue"].to_numpy(dtype=np.float64)
            sig = p <= alpha
            better = sign * part["delta"].to_numpy(dtype=np.float64)
            u, mono = rt.partial_conjunction(p, alpha, combine)
            rows.append(dict(system_a=a, system_b=b, n_datasets=int(np.sum(~np.isnan(p))),
                             n_significant=int(sig.sum()),
                             n_b_better=int(np.sum(sig & (better > 0))),
                             n_a_better=int(np.sum(sig & (better < 0))), u=u,
                             pvalue_u=float(mono[max(u, 1) - 1]) if mono.size else np.nan))
        return pd.DataFrame(rows)

    # -------------------------------------------------------------- reporting
    def summary(self):
        """The comparison in words: what ``str(result)`` prints.

        Returns
        -------
        text : str
            Sizes, Friedman's and Iman-Davenport's tests, Nemenyi's critical
            difference, caveats, and :meth:`system_table`.
        """
        return str(self)

    def system_table(self):
        """One row per system, best average rank first.

        Returns
        -------
        table : pandas.DataFrame
            Index ``system``; columns ``average_rank``, ``mean_score`` (over
            the datasets), ``wins`` (datasets where the system ranks first,
            ties shared).
        """
        ranks = self.ranks()
        wins = (ranks == ranks.min(axis=1).to_numpy()[:, None]).astype(float)
        wins = wins.div(wins.sum(axis=1), axis=0).sum(axis=0)
        table = pd.DataFrame({"average_rank": self.average_ranks,
                              "mean_score": self._scores.mean(axis=0), "wins": wins})
        table.index.name = "system"
        return table.sort_values("average_rank", kind="stable")

    def to_frame(self):
        """Tidy table: one row per (dataset, system).

        Returns
        -------
        frame : pandas.DataFrame
            Columns ``dataset, system, score, rank``.
        """
        scores = self._scores.stack().rename("score")
        ranks = self.ranks().stack().rename("rank")
        frame = pd.concat([scores, ranks], axis=1).reset_index()
        frame.columns = ["dataset", "system", "score", "rank"]
        return frame

    def to_dict(self):
        """Plain-Python summary for reports (ranks, tests, CD, counts).

        Returns
        -------
        out : dict
            Keys ``metric, greater_is_better, alpha, n_datasets, n_systems,
            n_runs, datasets, systems, average_ranks, friedman,
            iman_davenport, critical_difference, q_alpha, dropped_datasets,
            dropped_systems`` and, with item-level tests, ``replicability``
            (a list of row dicts).
        """
        out = dict(metric=self.metric, greater_is_better=self.greater_is_better,
                   alpha=self.alpha, n_datasets=self.n_datasets, n_systems=self.n_systems,
                   n_runs=self.n_runs, datasets=[str(d) for d in self.datasets],
                   systems=[str(s) for s in self.systems],
                   average_ranks={str(k): float(v) for k, v in self.average_ranks.items()},
                   friedman=dict(statistic=self.friedman.statistic, pvalue=self.friedman.pvalue,
                                 df=self.friedman.df),
                   iman_davenport=dict(statistic=self.iman_davenport.statistic,
                                       pvalue=self.iman_davenport.pvalue,
                                       df=list(self.iman_davenport.df)),
                   critical_difference=self.critical_difference, q_alpha=self.q_alpha,
                   dropped_datasets=[str(d) for d in self.dropped_datasets],
                   dropped_systems=[str(s) for s in self.dropped_systems])
        if self._comparisons:
            out["replicability"] = self.replicability().to_dict(orient="records")
        return to_plain(out)

    def __str__(self):
        head = (f"DatasetComparisonResult: {self.n_systems} systems x {self.n_datasets} datasets, "
                f"metric {self.metric} ({'higher' if self.greater_is_better else 'lower'} is "
                "better)" + (f", cells averaged over up to {self.n_runs} runs"
                             if self.n_runs > 1 else ""))
        f, i = self.friedman, self.iman_davenport
        lines = [head,
                 f"Friedman chi2 = {f.statistic:.4g} (df {f.df:g}), p = {f.pvalue:.4g}; "
                 f"Iman-Davenport F = {i.statistic:.4g} (df {i.df[0]:g}, {i.df[1]:g}), "
                 f"p = {i.pvalue:.4g}",
                 f"Nemenyi critical difference (alpha = {self.alpha:g}): "
                 f"{self.critical_difference:.4g} (q = {self.q_alpha:.4g})"]
        caveat = few_datasets_caveat(self.n_datasets)
        if caveat:
            lines.append(f"caveat: {caveat}.")
        if self.dropped_systems or self.dropped_datasets:
            lines.append(f"dropped: systems {list(map(str, self.dropped_systems))}, "
                         f"datasets {list(map(str, self.dropped_datasets))}")
        lines.append(self.system_table().to_string(float_format=lambda x: f"{x:.4f}"))
        return "\n".join(lines)

    def __repr__(self):
        return self.__str__()
