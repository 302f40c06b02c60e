"""The result of :func:`sigtest.compare` and :func:`sigtest.cross_val_compare`."""

import numpy as np

from sigtest._report.leaderboard import leaderboard_text, shows_leaderboard
from sigtest._results import to_plain
from sigtest._workflows.compare.options import recompare_options
from sigtest._workflows.compare.packed import pack, read_only_copy, unpack
from sigtest._workflows.compare.result_ranks import RankViews
from sigtest._workflows.compare.result_report import ReportViews
from sigtest._workflows.compare.maxt import maxt_test_specs
from sigtest._workflows.compare.score_draws import shared_score_table
from sigtest._workflows.compare.scores import score_table
from sigtest._workflows.compare.tables import (
    comparison_text,
    runs_summary_table,
    summary_table,
)

__all__ = ["ComparisonResult"]


def _frozen(value):
    """A stored copy of one system's predictions (an array or a list of runs): as
    :func:`~sigtest._workflows.compare.packed.pack` stores it (no second copy of one
    already stored)."""
    if isinstance(value, list):
        return [_frozen(v) for v in value]
    return pack(value)


def _thawed(value):
    """The predictions a :func:`_frozen` copy holds (read-only arrays)."""
    if isinstance(value, list):
        return [unpack(v) for v in value]
    return unpack(value)


class ComparisonResult(RankViews, ReportViews):
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
        # no copy: assemble builds the frame for this result alone, and _with_cv_tests
        # passes a result's own (never modified) frame
        self._frame = frame
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
            [tuple(read_only_copy(idx) for idx in fold) for fold in folds] for folds in cv_splits]
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
        return {name: _thawed(value) for name, value in self._predictions.items()}

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
                             runs=self._data.stored_runs, runs_mode=self._options.runs,
                             overall=self._options.overall)

    def scores(self, intervals="own"):
        r"""Each system's score on each metric, with its confidence interval.

        With ``intervals="own"`` (the default) the interval of one system's
        score is the bootstrap interval of
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

        With ``intervals="shared"`` (what :meth:`leaderboard` and
        :meth:`report` show) the interval is the percentile interval of the
        system's scores on the comparison's own shared draws, where it kept
        them (one run; a test or max-T correction that resamples all
        systems together, as ``ranks()`` reads them): the same ``B`` draws
        as the tests and ``ranks()`` (bootstrap resamples, or Gaussian
        multiplier draws at scale), at no further resampling cost. A system
        whose draws cannot give one (a metric without kept draws, an
        undefined score, a non-finite draw, or all draws equal, e.g. a
        perfect system) gets its ``"own"`` interval instead; the
        ``ci_method`` column says which.

        Parameters
        ----------
        intervals : {"own", "shared"}, default="own"
            Resamples of each system's own (``sigtest.score``'s intervals)
            or the comparison's shared draws where it kept them.

        Returns
        -------
        table : pandas.DataFrame
            One row per (system, metric), systems in input order, metrics in
            the order requested, preceded by a ``run`` column when several
            runs or CV repeats were tested separately. Columns ``[run,]
            system, metric, score, ci_low, ci_high, ci_level,
            n_resamples, ci_method``: ``ci_method`` is the method of the
            interval test (e.g. ``"bca"``), ``"exact Clopper-Pearson"`` for
            a score all of whose resamples are equal, or ``"percentile of
            shared resamples"`` / ``"percentile of shared multiplier
            draws"``. ``score`` is the observed score (the ``score_a``
            / ``score_b`` of :meth:`to_frame`); a score that is undefined on
            the data is NaN with the metric's warning.

        Raises
        ------
        ValueError
            If ``intervals`` is not ``"own"`` or ``"shared"``.

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
        test differences (see the pair rows of :meth:`to_frame`). The shared
        percentile interval is first-order accurate like the own percentile
        one (BCa is second-order accurate: it matters for skewed scores on
        few items, where the comparison's draws are resamples of the items,
        not multiplier draws); on multiplier draws, :math:`\hat\theta^*_b =
        \hat\theta + (L z_b)_s` with :math:`L L^\top` the jackknife
        covariance of the systems' scores and standard normal :math:`z_b`
        (:func:`sigtest._engine.multiplier.multiplier_draws`), it is the
        normal interval :math:`\hat\theta \pm z_{1-\alpha/2}
        \hat\sigma_{jack}` up to Monte Carlo error (Chernozhukov,
        Chetverikov & Kato 2013).

        References
        ----------
        B. Efron (1987). Better bootstrap confidence intervals. JASA 82(397).
        A. C. Davison and D. V. Hinkley (1997). Bootstrap Methods and their
        Application, sec. 3.8 (clusters) and 5.3 (BCa).
        V. Chernozhukov, D. Chetverikov and K. Kato (2013). Gaussian
        approximations and multiplier bootstrap for maxima of sums of
        high-dimensional random vectors. The Annals of Statistics 41(6).
        """
        if intervals not in ("own", "shared"):
            raise ValueError(f"The 'intervals' parameter of scores() must be 'own' or 'shared'. "
                             f"Got {intervals!r} instead.")
        kept = getattr(self._data, "kept_scores", None)
        if intervals == "shared" and kept:
            cache = self._own_cache()
            if "shared_scores" not in cache:
                cache["shared_scores"] = shared_score_table(
                    self._frame, systems=self.systems, metrics=self.metrics, kept=kept,
                    confidence_level=self._data.score_settings["confidence_level"],
                    own=self.scores)
            return cache["shared_scores"].copy()
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

    def __str__(self):
        if shows_leaderboard(self):  # more than 20 systems: not every pair
            return leaderboard_text(self)
        return comparison_text(
            self._frame, systems=self.systems, metrics=self.metrics, tests=self.tests,
            pairs=self.pairs, correction=self.correction, alpha=self.alpha, n_runs=self.n_runs,
            ci=self._ci, n_groups=self.n_groups, n_strata=self.n_strata, runs=self._data.stored_runs,
            runs_mode=self._options.runs, overall=self._options.overall,
            cv_tests=self._cv_tests)

    def __repr__(self):
        if shows_leaderboard(self):
            return leaderboard_text(self)
        return (
            f"<ComparisonResult systems={self.systems} metrics={self.metrics} "
            f"tests={self.tests} rows={len(self._frame)}>"
        )

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
