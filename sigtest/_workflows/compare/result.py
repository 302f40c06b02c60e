"""The result of :func:`sigtest.compare` and :func:`sigtest.cross_val_compare`."""

import numpy as np

from sigtest._constants import N_RESAMPLES
from sigtest._report.build import build_report, report_html_fragment
from sigtest._report.format import csv_safe
from sigtest._report.latex import comparison_latex
from sigtest._report.leaderboard import leaderboard_text, shows_leaderboard
from sigtest._report.signature import signature as _signature
from sigtest._results import to_plain
from sigtest._workflows.compare.options import recompare_options
from sigtest._workflows.compare.maxt import maxt_test_specs
from sigtest._workflows.compare.leaderboard import leaderboard_table
from sigtest._workflows.compare.scores import score_table
from sigtest._workflows.compare.tables import (
    comparison_text,
    letters_table,
    runs_summary_table,
    summary_table,
)

__all__ = ["ComparisonResult"]


def _frozen(value):
    """A read-only copy of one system's predictions (an array or a list of runs)."""
    if isinstance(value, list):
        return [_frozen(v) for v in value]
    if isinstance(value, np.ndarray) and not value.flags.writeable and value.base is None:
        return value  # already a read-only copy owned by the result (compare makes one)
    arr = np.array(value, copy=True)
    arr.flags.writeable = False
    return arr


class ComparisonResult:
    """Pairwise comparisons of several systems on several metrics.

    Returned by :func:`sigtest.compare` and :func:`sigtest.cross_val_compare`;
    not meant to be built by hand. Immutable: no attribute can be set, the
    lists and arrays it returns are copies or read-only, and :meth:`to_frame`
    returns a copy of the table, so a result once computed always reports
    the same comparison. ``print(result)``, ``repr`` and the notebook view
    show every pair for up to 20 systems and :meth:`leaderboard` (with the
    number of significant pairs) beyond; :meth:`to_frame` has every pair.

    Attributes
    ----------
    systems : list of str
        System names in input order.
    metrics : list of str
        Metric names in the order requested.
    tests : list of str
        Names of the tests, as in the ``test`` column: the registry name of
        each test (``SignificanceResult.test``), ``"pvalue_test+interval_test"``
        for a pair (the default is ``"permutation+bca"``: p-value of the
        paired permutation test and BCa interval of the difference in the
        same row), with ``#1``, ``#2`` appended to repeated names.
    alpha : float
        Level used for the ``significant`` column (on adjusted p-values).
    correction : str or None
        Multiple-comparison correction, applied per (metric, test, run)
        across the pairs tested.
    pairs : str
        ``"all"``, ``"baseline"`` or ``"adjacent"``.
    n_runs : int
        Number of separate runs (``runs="each"``) or CV repeats; 1 otherwise.
    ci_coverage : str
        ``"marginal"`` or ``"simultaneous"`` intervals (the ``ci`` option
        of :func:`sigtest.compare`); the ``ci_level`` column gives each level.
    predictions : dict
        The predictions the tests ran on (for :func:`cross_val_compare`, the
        out-of-fold predictions; a list of arrays per system when there are
        several runs or repeats). Re-test them with :meth:`recompare`.
    cv_splits : list or None
        For :func:`cross_val_compare`, the ``(train, test)`` index arrays of
        every fold of every repeat (read-only); None for :func:`compare`.
    n_groups : int or None
        Number of clusters when the comparison was clustered (``groups=``),
        else None.
    n_strata : int or None
        Number of strata when the bootstrap was stratified (``strata=``),
        else None.
    bootstrap : {"resample", "multiplier"}
        Source of the shared bootstrap draws (``compare(bootstrap=)``
        resolved): resampled units, or Gaussian multiplier draws.
    options : CompareOptions
        The options of the comparison, as validated (see
        :class:`~sigtest.CompareOptions`).
    random_state : None, int, SeedSequence or Generator
        The seed given (for :func:`sigtest.cross_val_compare`, its
        ``random_state``, from which the tests' seed was derived).
    targets : dict
        The gold targets the tests ran on, per metric input type.
    test_specs : list of tuple
        The tests as the comparison built them.
    """

    __slots__ = ("_frame", "_systems", "_metrics", "_tests", "_greater_is_better", "_alpha",
                 "_correction", "_pairs", "_n_runs", "_ci", "_predictions", "_options", "_data",
                 "_cv_splits", "_n_groups", "_n_strata", "_scores", "_cv_tests", "_bootstrap",
                 "_cache")

    def __init__(self, frame, *, systems, metrics, tests, greater_is_better, alpha,
                 correction, pairs, n_runs, predictions, options, data, ci="marginal",
                 cv_splits=None, n_groups=None, n_strata=None, cv_tests=None,
                 bootstrap="resample"):
        self._frame = frame.copy()
        self._systems = tuple(systems)
        self._metrics = tuple(metrics)
        self._tests = tuple(tests)
        self._greater_is_better = dict(greater_is_better)
        self._alpha = alpha
        self._correction = correction
        self._pairs = pairs
        self._n_runs = n_runs
        self._ci = ci
        self._predictions = {name: _frozen(value) for name, value in predictions.items()}
        self._options = options  # a frozen CompareOptions
        self._data = data  # a frozen ComparisonData: what recomputing needs
        self._cv_splits = None if cv_splits is None else [
            [tuple(_frozen(idx) for idx in fold) for fold in folds] for folds in cv_splits]
        self._n_groups = n_groups
        self._n_strata = n_strata
        self._scores = None  # computed on the first call of scores(), then kept
        self._cv_tests = None if cv_tests is None else cv_tests.copy()
        self._bootstrap = bootstrap
        self._cache = {}  # ranks() tables, by their arguments (the result never changes)

    def _with_cv_tests(self, cv_tests, *, data):
        """A copy of this result holding the per-fold tests ``cv_tests`` (a DataFrame).

        Used by :func:`sigtest.cross_val_compare` (``cv_test=``); ``data``
        replaces the stored data (its ``rerun`` recomputes the per-fold
        tests in :meth:`recompare`).
        """
        return ComparisonResult(
            self._frame, systems=self._systems, metrics=self._metrics, tests=self._tests,
            greater_is_better=self._greater_is_better, alpha=self._alpha,
            correction=self._correction, pairs=self._pairs, n_runs=self._n_runs,
            predictions=self._predictions, options=self._options, data=data, ci=self._ci,
            cv_splits=self._cv_splits, n_groups=self._n_groups, n_strata=self._n_strata,
            cv_tests=cv_tests, bootstrap=self.bootstrap)

    def __setattr__(self, name, value):
        if not name.startswith("_"):
            raise AttributeError(
                f"ComparisonResult is immutable: its attribute {name!r} cannot be set "
                "(use recompare() for another comparison of the same predictions)."
            )
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        raise AttributeError(f"ComparisonResult is immutable: cannot delete {name!r}.")

    # ------------------------------------------------------------- attributes
    @property
    def systems(self):
        """System names in input order (a new list at each access)."""
        return list(self._systems)

    @property
    def metrics(self):
        """Metric names in the order requested (a new list at each access)."""
        return list(self._metrics)

    @property
    def tests(self):
        """Names of the tests, as in the ``test`` column (a new list at each access)."""
        return list(self._tests)

    @property
    def alpha(self):
        """Level of the ``significant`` column (on adjusted p-values)."""
        return self._alpha

    @property
    def correction(self):
        """Multiple-comparison correction, per (metric, test, run), or None."""
        return self._correction

    @property
    def bootstrap(self):
        """Source of the shared bootstrap draws: ``"resample"`` or ``"multiplier"``.

        ``"multiplier"``: the bootstrap differences of the tests that use
        shared resamples (and of the max-T correction) are Gaussian
        multiplier draws on the systems' jackknife influence values
        (``compare(bootstrap=)``; see ``docs/leaderboards.md``);
        ``"resample"``: resamples of the items (clusters, within strata;
        also a result pickled before this attribute existed), including a
        ``bootstrap="multiplier"`` comparison where no pair could use the
        multiplier draws (metrics without per-item statistics, such as ROC
        AUC; influence values too concentrated for the Gaussian draws).
        """
        return getattr(self, "_bootstrap", "resample")

    @property
    def pairs(self):
        """``"all"``, ``"baseline"`` or ``"adjacent"``."""
        return self._pairs

    @property
    def n_runs(self):
        """Number of runs or CV repeats tested separately (1 otherwise)."""
        return self._n_runs

    @property
    def ci_coverage(self):
        """Coverage of the intervals: ``"marginal"`` (each pair) or ``"simultaneous"`` (all)."""
        return self._ci

    @property
    def cv_splits(self):
        """Folds of :func:`sigtest.cross_val_compare` per repeat (None for ``compare``)."""
        return None if self._cv_splits is None else [list(f) for f in self._cv_splits]

    @property
    def n_groups(self):
        """Number of clusters of a clustered comparison (``groups=``), else None."""
        return self._n_groups

    @property
    def n_strata(self):
        """Number of strata of a stratified comparison (``strata=``), else None."""
        return self._n_strata

    @property
    def predictions(self):
        """The predictions the tests ran on: a new dict of read-only arrays."""
        return dict(self._predictions)

    @property
    def options(self):
        """The options of the comparison, as validated: a frozen :class:`~sigtest.CompareOptions`.

        One field per keyword argument of :func:`sigtest.compare`, as
        validated (``groups``, ``strata`` as read-only arrays); ``test`` and
        ``correction`` as given (the correction applied is
        :attr:`correction`, the tests as run :attr:`test_specs`). For
        :func:`sigtest.cross_val_compare`, ``runs`` is ``"each"`` and
        ``random_state`` the child seed of its tests. :meth:`recompare`
        starts from these options.
        """
        return self._options

    @property
    def random_state(self):
        """The seed the comparison was given, as the report and :meth:`signature` show it.

        :func:`sigtest.compare`'s ``random_state``; for
        :func:`sigtest.cross_val_compare`, the ``random_state`` given to it
        (its tests use a child seed, ``options.random_state``).
        """
        return self._data.random_state

    @property
    def targets(self):
        """The gold targets the tests ran on: a new dict ``{input type: read-only array}``.

        Keys are the metric input types the targets serve (``"labels"``,
        ``"proba"``, ``"regression"``, ...: 2-D gold distributions serve the
        label metrics through their argmax); ``"scores"`` holds a
        placeholder for per-item scores (``y_true=None``).
        """
        out = {}
        for key, value in self._data.targets.items():
            view = np.asarray(value).view()
            view.flags.writeable = False
            out[key] = view
        return out

    @property
    def test_specs(self):
        """The tests as the comparison built them, one tuple per name of :attr:`tests`.

        ``(name, pvalue_test, interval_test)`` with the resamples chosen for
        the family (``compare``'s default ``B``, the default test of a max-T
        correction); ``interval_test`` is None when the p-value test gives
        the interval. New objects at each access (changing them changes
        nothing); the copies the pairs ran also carry their seeds, the
        two-sided alternative of ``pairs="all"`` and the level of
        ``ci="simultaneous"`` (the ``alternative`` and ``ci_level`` columns
        of :meth:`to_frame`).
        """
        first = self._frame[(self._frame["metric"] == self._metrics[0])
                            & (self._frame["test"] == self._tests[0])]
        if "run" in first:
            first = first[first["run"] == first["run"].iloc[0]]
        m = len(first)
        return maxt_test_specs(self._options.test, correction=self._correction,
                               m=m if self._correction is not None else 1, m_ci=m,
                               alpha=self._alpha, simultaneous=self._ci == "simultaneous")

    # ------------------------------------------------------------------ frames
    def to_frame(self):
        """Tidy DataFrame: one row per (pair, metric, test[, run]).

        Columns: ``[run,] system_a, system_b, metric, test, alternative,
        score_a, score_b, delta, ci_low, ci_high, ci_level, pvalue,
        pvalue_adj, significant, n_resamples``. ``delta = score_b -
        score_a``; ``alternative`` is the alternative of the p-value
        (``"two-sided"`` for ``pairs="all"``); the interval is the interval
        of ``delta`` at level ``ci_level`` (NaN without interval);
        ``pvalue`` is raw, ``pvalue_adj`` corrected; ``significant`` is
        ``pvalue_adj <= alpha``; ``n_resamples`` counts the Monte Carlo
        resamples drawn for the p-value: 0 when the p-value is exact (the
        exact permutation test over the discordant items, which
        :class:`~sigtest.PairedPermutation` uses when they are few) or
        analytic (McNemar, DeLong, t tests). The ``run`` column
        (0-based) is present when several runs or CV repeats were tested
        separately. Optional columns, present when a test sets them:
        ``margin`` (non-inferiority and equivalence tests) and
        ``prob_worse``, ``prob_equivalent``, ``prob_better`` (Bayesian tests;
        "better" is B better than A, in the metric's orientation); and
        ``n_effective``, present when some pair's difference is carried by a
        handful of items: the effective number of items
        ``(sum L_i^2)^2 / sum L_i^4`` of its jackknife influence values
        ``L_i``, set on such rows only (below 10 and below a fifth
        of the discordant items; nan elsewhere) when a bootstrap interval or
        p-value is shown, whose reliability it puts in doubt
        (``docs/which_test.md``).

        Returns
        -------
        frame : pandas.DataFrame
            A copy of the table, with the columns above.
        """
        return self._frame.copy()

    def summary(self):
        """The comparison in words: what ``str(result)`` prints.

        Returns
        -------
        text : str
            A header (systems, metrics, pairs, correction, level, design),
            one line per pair row, notes on pairs carried by a handful of
            items, and the per-fold CV tests.
        """
        return str(self)

    def to_dict(self):
        """The comparison as plain Python types (JSON-serialisable).

        Returns
        -------
        result : dict
            ``systems, metrics, tests, alpha, correction, pairs, n_runs,
            ci_coverage, n_groups, n_strata, bootstrap`` and ``records``,
            the rows of :meth:`to_frame` as a list of dicts (missing values
            as ``None``).
        """
        frame = self._frame.astype(object).where(self._frame.notna(), None)
        return to_plain({
            "systems": self.systems, "metrics": self.metrics, "tests": self.tests,
            "alpha": self.alpha, "correction": self.correction, "pairs": self.pairs,
            "n_runs": self.n_runs, "ci_coverage": self.ci_coverage, "n_groups": self.n_groups,
            "n_strata": self.n_strata, "bootstrap": self.bootstrap,
            "records": frame.to_dict(orient="records")})

    def system_table(self):
        """One row per system with its score on each metric.

        With several runs tested separately, the score is the mean over runs.
        Rows are in input order.

        Returns
        -------
        table : pandas.DataFrame
            Index ``system`` (input order), one column per metric. Its
            ``attrs`` hold ``n_groups``, ``n_strata`` and ``design`` (e.g.
            ``"clustered by 60 groups"``, or ``"independent items"``), so a
            clustered or stratified comparison says so; and ``notes``, one
            sentence per pair whose difference a handful of items carry (the
            ``n_effective`` column of :meth:`to_frame`), whose bootstrap
            interval is then unreliable (empty list: none).
        """
        return summary_table(self._frame, systems=self.systems, metrics=self.metrics,
                             n_groups=self.n_groups, n_strata=self.n_strata,
                             runs=self._data.runs, runs_mode=self._options.runs,
                             overall=self._options.overall)

    def scores(self):
        r"""Each system's score on each metric, with its confidence interval.

        The interval of one system's score is the bootstrap interval of
        :func:`sigtest.score` on the data of the comparison: the same class
        set, sample weights, clusters (``groups``, resampled whole) and
        strata (``strata``, resampled within), and runs (averaged per item
        for ``runs="average"``, pooled for ``"pool"``, one row per run for
        ``"each"`` and CV repeats). Method, resamples and level are those of
        the comparison's interval test (of its first test): for the default
        :class:`~sigtest.BCaInterval`, a BCa interval with its
        ``n_resamples`` at its ``confidence_level`` (95 %, the marginal
        level, also with ``ci="simultaneous"``); a test without a
        confidence level (e.g. a permutation test alone) gives BCa with
        9,999 resamples at 95 %.

        Computed on the first call from the stored predictions (so that
        :func:`sigtest.compare` does not pay for it when it is not used; it
        costs about one pair's interval per system), with the comparison's
        ``n_jobs``, and kept: later calls return copies of the same table.
        Seeds come from the comparison's ``random_state`` (one child spawned
        after the pairs' seeds, then one per (run, system) in the order run
        -> system sorted by name, shared by the system's metrics), so the
        table is bit-identical for the same ``random_state`` whatever
        ``n_jobs``, the order of the systems, or when it is called.

        Returns
        -------
        table : pandas.DataFrame
            One row per (system, metric), systems in input order, metrics in
            the order requested, preceded by a ``run`` column when several
            runs or CV repeats were tested separately. Columns ``[run,]
            system, metric, score, ci_low, ci_high, ci_level,
            n_resamples``. ``score`` is the observed score (the ``score_a``
            / ``score_b`` of :meth:`to_frame`); a score that is undefined on
            the data is NaN with the metric's warning.

        Warns
        -----
        UndefinedMetricWarning, DegenerateDistributionWarning, SmallSampleWarning
            From the intervals, once per distinct message, naming the systems.

        See Also
        --------
        sigtest.score : The interval of one system's score.

        Notes
        -----
        With :math:`\hat\theta` the system's observed score and
        :math:`\hat\theta^*_b` its score on bootstrap resample :math:`b`
        (of items, or of whole clusters with ``groups``, within strata with
        ``strata``), the percentile interval is
        :math:`[\hat\theta^*_{(\alpha/2)}, \hat\theta^*_{(1-\alpha/2)}]`;
        BCa corrects these quantile levels for bias and skewness (Efron
        1987). The intervals of different systems are marginal: they do not
        test differences (see the pair rows of :meth:`to_frame`).

        References
        ----------
        B. Efron (1987). Better bootstrap confidence intervals. JASA 82(397).
        A. C. Davison and D. V. Hinkley (1997). Bootstrap Methods and their
        Application, sec. 3.8 (clusters) and 5.3 (BCa).
        """
        if self._scores is None:
            # deterministic: two threads racing here compute the same table
            self._scores = score_table(self._data, self._options)
        return self._scores.copy()

    def cv_tests(self):
        r"""The per-fold CV tests of :func:`sigtest.cross_val_compare` (``cv_test=``).

        Present when ``cross_val_compare`` was called with ``cv_test=``: for
        every pair (same orientation as :meth:`to_frame`), metric and
        per-fold test, the score of each system on each test fold of each
        repeat (from its out-of-fold predictions) is compared with the
        function of :mod:`sigtest.cv`: ``"corrected_t"``
        (:func:`sigtest.cv.corrected_resampled_ttest`, two-sided),
        ``"5x2cv_t"`` (:func:`sigtest.cv.paired_ttest_5x2cv`, two-sided),
        ``"5x2cv_f"`` (:func:`sigtest.cv.combined_ftest_5x2cv`) or
        ``"bayesian"`` (:func:`sigtest.cv.bayesian_correlated_ttest` with
        the ``rope`` given).

        Returns
        -------
        table : pandas.DataFrame
            A copy; one row per (pair, metric, cv test), columns
            ``system_a, system_b, metric, cv_test, delta, statistic, pvalue,
            prob_worse, prob_equivalent, prob_better, n_folds``. ``delta``
            is the mean over folds of ``score_b - score_a``; ``statistic``
            is a t (positive means B is better, losses included) or an F;
            the probabilities (of ``"bayesian"``, NaN for the other tests)
            are B relative to A; ``n_folds`` counts the folds of all
            repeats.

        Raises
        ------
        ValueError
            If the result has no per-fold tests (``compare``, or
            ``cross_val_compare`` without ``cv_test``).

        Notes
        -----
        The corrected t statistic is :math:`\bar d / \sqrt{c\, s^2}` over
        the :math:`J` oriented fold differences, with :math:`c = 1/k +
        n_{test}/n_{train}` for :math:`r` repetitions of :math:`k` folds,
        the variance of one partition (Nadeau and Bengio 2003; see
        :func:`sigtest.cv.corrected_resampled_ttest`); the per-fold p-values
        are not corrected for multiple comparisons.
        """
        if self._cv_tests is None:
            raise ValueError(
                "This result has no per-fold tests: call cross_val_compare(..., cv_test=...) "
                "(e.g. cv_test='corrected_t').")
        return self._cv_tests.copy()

    def runs_summary(self):
        """Summary over runs / CV repeats, like Table 1 of Bestgen (2022).

        One row per (pair, metric, test) with the mean scores, the minimum
        and maximum p-value (raw and adjusted), the number of runs in which
        the difference is significant, and the minimum and maximum of the
        lower CI bound, of the difference and of the upper CI bound.

        Returns
        -------
        table : pandas.DataFrame
            Columns ``system_a, system_b, metric, test, score_a, score_b,
            pvalue_min, pvalue_max, pvalue_adj_min, pvalue_adj_max,
            n_significant, n_runs, ci_low_min, ci_low_max, delta_min,
            delta_max, ci_high_min, ci_high_max``.

        Raises
        ------
        ValueError
            If the comparison has a single run.
        """
        return runs_summary_table(self._frame)

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
            interval, the score and its interval (:meth:`scores`), the tier
            (the compact letters of :meth:`letters`; numbered tiers when a
            valid letter display needs more than 26 letters; ``""`` unless
            every pair was tested), P(best) and membership of the best set
            (:meth:`ranks`). ``attrs`` holds ``metric, confidence_level,
            n_systems, n_significant_pairs, test, tier_kind`` (``"letters"``,
            ``"tiers"`` or ``"none"``), ``n_letters`` and ``tier_note``.

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
        return letters_table(self._frame, metric, test, run, systems=self.systems,
                             metrics=self.metrics, tests=self.tests, n_runs=self.n_runs,
                             pairs=self.pairs, greater_is_better=self._greater_is_better)

    # ----------------------------------------------------------------- exports
    def to_csv(self, path_or_buf=None, **kwargs):
        """Write :meth:`to_frame` as CSV (``pandas.DataFrame.to_csv``, no index).

        Text cells that a spreadsheet would run as a formula (a system name
        starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return)
        are written with a leading single quote (:func:`sigtest._report.format.csv_safe`,
        the OWASP advice against CSV injection); numbers are unchanged.

        Parameters
        ----------
        path_or_buf : str, path or file-like, optional
            Where to write; the CSV text is returned when None.
        **kwargs
            Passed to :meth:`pandas.DataFrame.to_csv` (``index=False`` unless
            given).

        Returns
        -------
        csv : str or None
            The CSV text when ``path_or_buf`` is None, else None.
        """
        kwargs.setdefault("index", False)
        return csv_safe(self._frame).to_csv(path_or_buf, **kwargs)

    def to_latex(self, buf=None, *, float_format="%.4f", **kwargs):
        """LaTeX table of :meth:`to_frame` (``pandas.DataFrame.to_latex``).

        p-values print as ``<0.0001`` rather than ``0.0000``; adjusted
        p-values carry stars (``*`` <= .05, ``**`` <= .01); the columns are
        named ``p (raw)``, ``p (<correction>)`` and ``resamples (p-test)``.
        Needs ``jinja2`` (a pandas requirement for LaTeX output).

        Parameters
        ----------
        buf : str, path or file-like, optional
            Where to write; the LaTeX text is returned when None.
        float_format : str, default="%.4f"
            Format of the other float columns.
        **kwargs
            Passed to :meth:`pandas.DataFrame.to_latex`.

        Returns
        -------
        latex : str or None
            The LaTeX text when ``buf`` is None, else None.
        """
        return comparison_latex(self._frame, self.correction, buf, float_format=float_format,
                                **kwargs)

    def __str__(self):
        if shows_leaderboard(self):  # more than 20 systems: not every pair
            return leaderboard_text(self)
        return comparison_text(
            self._frame, systems=self.systems, metrics=self.metrics, tests=self.tests,
            pairs=self.pairs, correction=self.correction, alpha=self.alpha, n_runs=self.n_runs,
            ci=self._ci, n_groups=self.n_groups, n_strata=self.n_strata, runs=self._data.runs,
            runs_mode=self._options.runs, overall=self._options.overall,
            cv_tests=self._cv_tests)

    def __repr__(self):
        if shows_leaderboard(self):
            return leaderboard_text(self)
        return (
            f"<ComparisonResult systems={self.systems} metrics={self.metrics} "
            f"tests={self.tests} rows={len(self._frame)}>"
        )

    # ---------------------------------------------------------------- planning
    def minimum_detectable_effects(self, power=0.8, *, alpha=None, test=None,
                                   n_simulations=1000, random_state=None, **kwargs):
        r"""The minimum detectable effect of every non-significant row (opt-in: it simulates).

        For a row that is not significant, "not significant" says little
        unless the test set could have detected a relevant improvement: this
        gives the smallest improvement over ``system_a`` that ``test``
        detects with probability ``power`` on a test set like this one
        (:func:`sigtest.minimum_detectable_effect`, with ``system_a``'s
        predictions on the comparison's items as the pilot) — "not
        significant, and this test set could not have detected less than
        +1.9 F1". One search per distinct (``system_a``, metric).

        Parameters
        ----------
        power : float, default=0.8
            Target power, in (0, 1).
        alpha : float, default=None
            Level of the test; ``None``: the comparison's ``alpha`` (not
            corrected for multiple comparisons: pass a smaller one to plan
            for a corrected test).
        test : None, str or SignificanceTest, default=None
            ``None``: ``PairedPermutation(n_resamples=1000)``.
        n_simulations : int, default=1000
            Simulations per evaluated effect (the default of
            :func:`sigtest.minimum_detectable_effect`: the same question gets
            the same precision by either route).
        random_state : None, int, SeedSequence or Generator, default=None
            Seed; each (system, metric) gets a child seed derived from its
            names, so the table does not depend on the order of the systems.
        **kwargs
            ``discordance``, ``step``, ``n_jobs``, ``verbose``, ``tol`` of
            :func:`sigtest.minimum_detectable_effect`.

        Returns
        -------
        table : pandas.DataFrame
            One row per non-significant row of :meth:`to_frame`: ``system_a,
            system_b, metric, test, delta, pvalue, mde, mde_low, mde_high,
            mde_power, power_target, alpha, n_items, n_simulations,
            statement`` (``mde`` NaN when no reachable effect has the target
            power; ``mde_low, mde_high`` its Monte Carlo interval, 95 %,
            ``PowerResult.effect_interval``; ``statement`` the sentence to
            report, with that interval).

        Raises
        ------
        ValueError
            For several runs tested separately, clustered comparisons
            (``groups=``) and ``sample_weight`` (the simulation resamples
            independent items), or bad parameters (naming them).
        """
        # on first use: the power simulations are not needed to build a result
        # (compare imports power, never the reverse)
        from sigtest._workflows.power.table import comparison_mde_table

        return comparison_mde_table(
            self._frame, targets=self._data.targets, runs=self._data.runs,
            classes=self._data.classes, options=self._options,
            alpha=self._alpha if alpha is None else alpha,
            n_runs=self._n_runs, n_groups=self._n_groups, power=power, test=test,
            n_simulations=n_simulations, random_state=random_state, **kwargs)

    # ---------------------------------------------------------------- re-test
    def recompare(self, **kwargs):
        """Run the comparison again on the stored predictions, without refitting.

        Takes the keyword arguments of :func:`sigtest.compare` that do not
        concern the predictions (``metrics``, ``test``, ``pairs``,
        ``baseline``, ``correction``, ``alpha``, ``n_jobs``,
        ``random_state``, ``verbose``, ``runs``, ``labels``, ``pos_label``,
        ``ci``, and the design ``groups``, ``strata``), validated as
        :func:`sigtest.compare` validates them; unspecified ones keep their
        previous value. For example ``recompare(groups=None)`` gives the
        item-level comparison of a clustered one (also of a
        :func:`sigtest.cross_val_compare` result, whose tests use the CV
        ``groups`` by default).

        Parameters
        ----------
        **kwargs
            Options of :func:`sigtest.compare`.

        Returns
        -------
        result : ComparisonResult
            A new result; this one is left unchanged.

        Raises
        ------
        TypeError
            An unknown keyword.
        ValueError
            An invalid value (the message names the parameter).
        """
        data = self._data
        n_items = next(iter(data.targets.values())).shape[0]
        options = recompare_options(self._options, kwargs, n_items)
        return data.rerun(data.targets, data.runs, data.classes, options)

    # ------------------------------------------------------------------ report
    def report(self, format="markdown", path=None, *, sections=None):
        """A report of the comparison to paste into a paper: Markdown, HTML or LaTeX.

        The report holds a generated methods paragraph (systems, items,
        tests with their resamples and seed, correction, letters), per
        metric each system's score with its interval (:meth:`scores`) and
        letters (:meth:`letters`, when every pair was tested in one run),
        the pairwise differences with their intervals, raw and adjusted
        p-values and stars, the references to cite for the tests and the
        correction used, and the reproducibility signature
        (:meth:`signature`). System and metric names are escaped for each
        format: they print literally.

        * ``"markdown"``: pipe tables (GitHub/CommonMark), no dependency.
        * ``"html"``: one self-contained page (inline CSS, the charts of
          the scores and of the differences as inline SVG; no external
          resource), checked in headless Chromium by the test suite. For
          more than 20 systems it is the interactive leaderboard
          (section ``"leaderboard_page"``: the leaderboard sortable and
          filterable by clicking, tiers coloured, the interval chart, the
          pairs folded, at most 2,000 of them, those closest in the
          ranking; a small inline script, no other), then the methods,
          references and signature.
        * ``"latex"``: a standalone ``article`` with ``booktabs`` tables
          (``\\usepackage{booktabs}``), whose tables can be pasted into a
          paper; each is placed ``[H]`` (``\\usepackage{float}``), so it
          stays under its heading.

        Parameters
        ----------
        format : {"markdown", "html", "latex"}, default="markdown"
            Output format.
        path : str or path-like, optional
            Also write the text to this file (UTF-8).
        sections : list of str, optional
            Sections to include, among ``"methods"``, ``"scores"``,
            ``"pairs"``, ``"ranks"`` (when the result has a ``ranks``
            method), ``"leaderboard_page"`` (HTML only: the interactive
            leaderboard, at any number of systems; Markdown and LaTeX
            leave it out), ``"cv_tests"`` (a :func:`sigtest.cross_val_compare`
            result with per-fold tests), ``"references"`` and
            ``"signature"``; default: every section this result has, in
            that order.

        Returns
        -------
        text : str
            The report.

        Raises
        ------
        ValueError
            An unknown format or section, or a section this result does
            not have.

        See Also
        --------
        signature : The reproducibility signature alone.

        Notes
        -----
        The score intervals come from :meth:`scores` (computed on the first
        call, then kept). A difference is significant when its adjusted
        p-value is at most :attr:`alpha`; stars mark adjusted
        :math:`p \\le .05` (``*``) and :math:`p \\le .01` (``**``).

        References
        ----------
        Y. Bestgen (2022). Please, don't forget the difference and the
        confidence interval when seeking for the state-of-the-art status.
        LREC.
        M. Post (2018). A call for clarity in reporting BLEU scores. WMT (the
        signature).

        Examples
        --------
        >>> import numpy as np
        >>> from sigtest import compare
        >>> rng = np.random.default_rng(0)
        >>> y = rng.integers(0, 2, 200)
        >>> preds = {s: np.where(rng.random(200) < p, y, 1 - y)
        ...          for s, p in [("base", 0.7), ("new", 0.8)]}
        >>> result = compare(y, preds, metrics="accuracy", random_state=0)
        >>> text = result.report("markdown")
        >>> text.splitlines()[0]
        '# Comparison of 2 systems'
        """
        return build_report(self, format, path, sections)

    def signature(self):
        """The reproducibility signature of the comparison, in the spirit of sacrebleu's.

        ``|``-separated ``key:value`` fields: ``sigtest`` (version),
        ``test`` (the :attr:`tests`), ``B`` (resamples of each p-value
        test), ``B_ci`` (of each interval test, when there is one), ``seed``
        (``random_state``: an int, ``none``, or the type of a generator),
        ``metric``, ``corr`` (correction or ``none``), ``alpha``, ``pairs``
        (``all`` or ``baseline:<names>``), ``alt`` (alternatives), ``ci``
        (marginal or simultaneous), ``n`` (items), ``k`` (systems), ``y``
        and ``pred`` (the first 8 hex digits of sha256 digests of the gold
        and of every system's predictions, by name), then, when they apply,
        ``margin``, ``runs`` (the runs mode), ``cv`` (folds x repeats),
        ``groups`` and ``strata`` (count and digest of the partition of the
        items they define, whatever the id labels) and
        ``weights`` (digest). Digests hash the values, shape and kind (text
        or number) of each array, so the signature does not depend on the
        order in which the systems are listed or on integer widths.

        Returns
        -------
        signature : str
            E.g. ``sigtest:0.1.0|test:permutation+bca|B:9999|B_ci:9999|
            seed:0|metric:accuracy|corr:holm|alpha:0.05|pairs:all|
            alt:two-sided|ci:marginal|n:200|k:2|y:...|pred:...`` (one line).

        References
        ----------
        M. Post (2018). A call for clarity in reporting BLEU scores. WMT.
        """
        return _signature(self)

    def _repr_html_(self):
        """The HTML report as a fragment, for Jupyter (see :meth:`report`)."""
        return report_html_fragment(self)
