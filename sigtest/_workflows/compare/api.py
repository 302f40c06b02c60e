"""``compare``: pairwise significance tests between many systems, in parallel.

The work is split in small modules: :mod:`sigtest._workflows.compare.options`
(the options, validated once into a frozen ``CompareOptions`` handed down),
:mod:`sigtest._workflows.compare.checks`
(the input checks), :mod:`sigtest._workflows.compare.plan` (pairs, seeds, the
job list; pure), :mod:`sigtest._workflows.compare.run`
(joblib execution of the jobs) and :mod:`sigtest._workflows.compare.assemble` (frame,
corrections, result). This module keeps the public :func:`compare`.
"""

import dataclasses
import functools
from collections.abc import Mapping

import numpy as np
import pandas as pd

from sigtest._workflows.compare.assemble import assemble
from sigtest._workflows.compare.checks import check_metrics, check_predictions, check_targets
from sigtest._workflows.compare.options import (
    COMPARE_OPTIONS,
    ComparisonData,
    compare_options,
)
from sigtest._engine.release import RELEASE_MIN_PAIRS, release_free_memory
from sigtest._workflows.compare.packed import Packed, pack_runs, read_only_copy
from sigtest._workflows.compare.plan import plan_comparison
from sigtest._workflows.compare.bulk import run_all_pairs
from sigtest._workflows.compare.plan_tasks import TaskView
from sigtest._workflows.compare.maxt import (
    MAXT_CORRECTIONS,
    maxt_adjusted,
    resolve_bootstrap,
    resolve_correction,
)
from sigtest._workflows.compare.draws import kept_scores
from sigtest._workflows.compare.shared import shared_deltas, uses_multiplier
from sigtest._workflows.overall import overall_weights
from sigtest.utils._param_validation import validate_params

__all__ = ["compare", "compare_inputs", "plan_inputs"]


def _n_distinct(ids):
    return None if ids is None else int(np.unique(ids).shape[0])


def plan_inputs(targets, runs, classes, options):
    """Plan a comparison of validated ``options`` on its inputs (no test runs).

    ``options`` is the :class:`~sigtest.CompareOptions`
    as planned (its ``test`` and ``correction`` those :func:`compare_inputs`
    resolved). Returns the
    :class:`~sigtest._workflows.compare.plan.ComparePlan`.
    :func:`sigtest.cross_val_compare` runs it on placeholder predictions
    before fitting anything, so that an option that does not need the
    fitted predictions fails first.
    """
    return plan_comparison(runs, classes, targets=targets, options=options)


def compare_inputs(targets, runs, classes, options, *, cv_splits=None, cv_seed=None):
    """Core of :func:`compare` on validated targets, runs and options (also used by CV).

    ``options`` is the :class:`~sigtest.CompareOptions`
    of :func:`~sigtest._workflows.compare.options.compare_options`.
    ``cv_splits`` (the folds of :func:`sigtest.cross_val_compare`) is stored
    on the result; it is not an option of the comparison. ``cv_seed`` is
    ``(given, derived)``: the ``random_state`` the user gave
    :func:`sigtest.cross_val_compare` and the child seed of the tests it
    derived from it (``options.random_state``); while the tests use
    ``derived``, the report and the signature show ``given``. Both are kept
    by :meth:`ComparisonResult.recompare`. ``options.overall`` becomes item
    weights (:func:`~sigtest._workflows.overall.overall_weights`): the
    tests, and the options the result keeps, have them as ``sample_weight``;
    a rerun starts again from the ``sample_weight`` given.
    """
    if cv_splits is not None and options.overall is not None:
        raise ValueError(
            f"The 'overall' parameter ({options.overall!r}) does not apply to a "
            "cross_val_compare result (its per-fold tests and fits are unweighted); test the "
            "out-of-fold predictions (result.predictions) with sigtest.compare(..., "
            "strata=task_of_each_item, overall=...).")
    # the result keeps read-only copies (a caller reusing its buffers changes
    # neither result.predictions nor what recompare() tests); made first, so
    # that the comparison runs on them too (one copy of the predictions), or
    # stored narrow (packed.py): then the comparison runs on the arrays given
    stored = pack_runs(runs)
    runs = {n: [r if isinstance(s, Packed) else s for r, s in zip(runs[n], ss)]
            for n, ss in stored.items()}
    # "auto" -> Holm, or max-T for a large family with the default test
    n_items = next(iter(targets.values())).shape[0]
    given_weight = options.sample_weight
    options = _with_overall_weights(options, runs, n_items)
    n_units = n_items if options.groups is None else _n_distinct(options.groups)
    applied, test_run = resolve_correction(
        options.correction, test=options.test, runs=runs, metrics=options.metrics,
        pairs=options.pairs, baseline=options.baseline, alpha=options.alpha,
        runs_mode=options.runs, n_units=n_units)
    plan = plan_inputs(targets, runs, classes,
                       dataclasses.replace(options, test=test_run, correction=applied))
    # resampling tests on resamples shared by all pairs (one pass per resample),
    # or on Gaussian multiplier draws (one pass over the units in all)
    drawn = resolve_bootstrap(options.bootstrap, correction=applied, plan=plan,
                              n_units=n_units)
    _phase_done(plan)
    shared = shared_deltas(plan.tasks, plan.scores["seed"], options.n_jobs, bootstrap=drawn,
                           names=plan.names)
    tasks = TaskView(plan.tasks, shared)
    _phase_done(plan)
    # all pairs at once where their test runs on the shared draws (compare/bulk.py)
    out = run_all_pairs(tasks, options.n_jobs, options.verbose)
    _phase_done(plan)
    adjusted, maxt_multiplier, maxt_drawn = None, False, {}
    if applied in MAXT_CORRECTIONS:
        adjusted, maxt_multiplier = maxt_adjusted(plan, out, shared, applied, options.n_jobs,
                                                  drawn, alpha=options.alpha, drawn=maxt_drawn)
    # what was used: no pair nor max-T family may have got multiplier draws (a
    # metric without statistics, such as ROC AUC, or concentrated influence values)
    if drawn == "multiplier" and not (maxt_multiplier or uses_multiplier(shared, drawn)):
        drawn = "resample"
    kept = kept_scores(shared, plan, maxt_drawn)  # every system's shared scores, for ranks()
    del shared, tasks
    _phase_done(plan)
    predictions = {n: (r[0] if len(r) == 1 else list(r)) for n, r in stored.items()}
    shown = options.random_state
    if cv_seed is not None and options.random_state is cv_seed[1]:
        shown = cv_seed[0]  # the seed the user gave, not the child the tests use
    rerun = compare_inputs
    if cv_splits is not None or cv_seed is not None:
        rerun = functools.partial(compare_inputs, cv_splits=cv_splits, cv_seed=cv_seed)
    if options.overall is not None:  # the options hold the derived weights; reruns derive anew
        rerun = functools.partial(_rerun_given_weight, rerun, given_weight)
    data = ComparisonData(targets=targets, stored_runs=stored, classes=classes,
                          score_settings=plan.scores, random_state=shown, rerun=rerun,
                          kept_scores=kept)
    return assemble(plan, out, alpha=options.alpha, correction=applied, pairs=options.pairs,
                    ci=options.ci, adjusted=adjusted, result_kwargs=dict(
                        predictions=predictions, cv_splits=cv_splits, bootstrap=drawn,
                        n_groups=_n_distinct(options.groups),
                        n_strata=_n_distinct(options.strata), options=options, data=data))


def _phase_done(plan):
    """Between two phases of a large comparison (at least
    :data:`~sigtest._engine.release.RELEASE_MIN_PAIRS` pairs): the freed heap pages back
    to the system (:func:`~sigtest._engine.release.release_free_memory`)."""
    if len(plan.tasks) >= RELEASE_MIN_PAIRS:
        release_free_memory()


def _with_overall_weights(options, runs, n_items):
    """``options`` with the item weights of its ``overall`` as ``sample_weight``."""
    if options.overall is None:
        return options
    weights = overall_weights(
        options.overall, options.strata, options.sample_weight, check_metrics(options.metrics),
        n_samples=n_items, several_runs=any(len(r) > 1 for r in runs.values()),
        runs_mode=options.runs)
    return dataclasses.replace(
        options, sample_weight=None if weights is None else read_only_copy(weights))


def _rerun_given_weight(rerun, given_weight, targets, runs, classes, options, **kwargs):
    """``rerun`` of an overall comparison from the user's weights (not the derived ones)."""
    # the options hold the weights overall= derived, kept for the result's readers
    return rerun(targets, runs, classes,
                 dataclasses.replace(options, sample_weight=given_weight), **kwargs)


@validate_params(
    {"y_true": ["array-like", None], "predictions": [Mapping, pd.DataFrame], **COMPARE_OPTIONS,
     "sample_weight": ["array-like", None]},
    prefer_skip_nested_validation=True,
)
def compare(y_true, predictions, *, metrics=("accuracy", "f1_macro"), test=None, pairs="all",
            baseline=None, correction="auto", alpha=0.05, n_jobs=None, random_state=None,
            verbose=False, runs="average", labels=None, pos_label=None, ci="marginal",
            sample_weight=None, groups=None, strata=None, bootstrap="auto", overall=None):
    r"""Test which differences between many systems are real.

    Runs a paired significance test (and an interval for the difference) for
    every pair of systems and every metric, in parallel, corrects the
    p-values for multiple comparisons, and returns a :class:`ComparisonResult`
    with a tidy table, per-system scores and a compact letter display.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or (n_samples, n_classes), or None
        Gold labels, or gold distributions (soft targets) for soft metrics.
        With 2-D ``y_true``, hard-label metrics use its row-wise argmax and
        the classes are the column indices ``0 .. n_classes - 1``. ``None``
        for per-item scores (``metrics="mean"``): each system's predictions
        are then its scores (:func:`sigtest.read_scores` builds them from a
        long table).
    predictions : mapping of str -> array-like, or pandas.DataFrame
        One entry per system (at least two): 1-D labels or an
        ``(n_samples, n_classes)`` array of probabilities (hard-label metrics
        then use its argmax; with 1-D ``y_true`` column ``k`` is the ``k``-th
        class of ``np.unique(y_true)``). A list of such arrays is several runs
        of the system (see ``runs``). A DataFrame gives one system per column.
    metrics : str, Metric, callable, scorer or sequence, default=("accuracy", "f1_macro")
        Registered metric names (see :func:`sigtest.get_metric_names`),
        :class:`~sigtest.metrics.Metric` objects, functions
        ``f(y_true, y_pred, **kw) -> float`` or scikit-learn scorers
        (:func:`sigtest.as_metric`; shown under the function's name, slow
        path).
    test : SignificanceTest, str, tuple or list, optional
        A test or a registered test name (:func:`sigtest.get_test_names`,
        e.g. ``"mcnemar"``), a ``(pvalue_test, interval_test)`` tuple
        (p-value from the first, interval of the difference from the second,
        same row), or a list of these (one row per test). Default:
        ``(PairedPermutation(n_resamples=B), BCaInterval())``, i.e. the
        Fisher-Pitman paired permutation p-value with the BCa interval of
        the difference (Bestgen 2022: always report the difference and its
        CI), with ``B`` chosen for the number of comparisons (see Notes);
        with a max-T correction, :class:`~sigtest.BCaInterval` alone
        (p-value and interval from the shared resamples, ``B = 9,999``).
    pairs : {"all", "baseline", "adjacent"}, default="all"
        ``"all"``: every unordered pair, each tested **two-sided** whatever
        the test's own ``alternative`` (a test that cannot be two-sided is a
        ``ValueError``); the order of the systems carries no meaning and
        the results do not depend on it (column ``alternative``).
        ``"baseline"``: each non-baseline system B against each baseline A
        with the test's own alternative (e.g. ``"greater"``: B better than
        the baseline), as in BooStSa's h0/h1 design.
        ``"adjacent"``: only the ``k - 1`` pairs of neighbours in the
        ranking by observed score (the system ranked i against the one
        ranked i + 1), for the boundaries between tiers of a leaderboard.
        The ranking is by the **first** metric and the same pairs are tested
        on every metric; best first follows the metric's
        ``greater_is_better``, ties (and undefined scores, placed last) are
        ordered by system name, so the pairs do not depend on the order in
        which the systems are given (with runs tested separately, the
        scores are averaged over the runs). Each pair is tested two-sided
        and oriented as with ``"all"`` (A the system given first, so a row
        reads as the same pair's row of ``"all"``; rows best-ranked pair
        first), and the correction adjusts
        over the ``k - 1`` pairs (``"auto"`` resolves for that family
        size). Not every pair is tested: no letters, and the leaderboard
        has no tiers, as with ``"baseline"``.
    baseline : str or list of str, optional
        Baseline system(s) for ``pairs="baseline"``.
    correction : str or None, default="auto"
        Applied per (metric, test, run) across the pairs tested: any method
        of :func:`sigtest.adjust_pvalues` (``"holm"``, ``"bonferroni"``,
        ``"sidak"``, ``"holm-sidak"``, ``"hochberg"``, ``"hommel"``,
        ``"fdr_bh"``/``"bh"``, ``"fdr_by"``/``"by"``), or a max-T
        correction on the systems' shared bootstrap resamples: ``"max-t"``
        (alias ``"romano-wolf"``; step-down, Romano & Wolf 2005) or
        ``"max-t-single-step"`` (Westfall & Young 1993); see Notes.
        ``"auto"``: ``"holm"``, except with ``test=None`` for a family of
        more than ``max(50, 1000 alpha)`` pairs (51 or more at ``alpha =
        0.05``, i.e. 11 systems or more with ``pairs="all"``) on at least
        10,000 items (clusters with ``groups``) and metrics with
        statistics, where it is ``"max-t"``. The correction applied is
        :attr:`ComparisonResult.correction`.
    alpha : float, default=0.05
        Level of the ``significant`` column and of the letters.
    n_jobs : int, optional
        Parallel jobs over pairs (joblib; ``None`` means 1 unless inside a
        ``joblib.parallel_config`` context, -1 means all cores). Any joblib
        backend works, e.g. ``parallel_config(backend="dask")``. When several
        jobs run at once, and with ``n_jobs=1`` (one core), each test uses its
        single-threaded kernels; with ``None`` and one job, its kernels use
        numba's threads. With joblib's default backend (loky) the worker
        processes, when not yet running, are started only when the work left
        pays for them (each costs about 2 s of CPU to start; small
        comparisons run in this process). Results do not depend on it.
    random_state : None, int, SeedSequence or Generator
        Seed of the comparison. Each (run, pair) gets one child seed per test
        role (p-value test, interval test) from ``spawn_seeds(random_state,
        n)`` in the fixed order run -> pair -> test, pairs sorted by their
        system names (names sorted within a pair for ``pairs="all"``,
        baseline first otherwise), shared by all metrics of the pair (the
        same resamples for every metric). Each pair is tested in that
        canonical orientation and its row re-oriented exactly for the order
        given (scores swapped, ``delta`` negated, interval
        ``(-high, -low)``), so results are bit-identical for every
        ``n_jobs``, backend and order of the systems. One more child,
        spawned after those (which it leaves unchanged), seeds the
        per-system score intervals of :meth:`ComparisonResult.scores`,
        and (a tagged child of it) the shared BCa resamples (see Notes).
    verbose : bool, default=False
        Show a progress bar of the pairs (tqdm, on stderr) for long runs.
        It is drawn only when stderr is a terminal (or in Jupyter): a log
        file, a pipe or CI gets no bar. The results never depend on it.
    runs : {"average", "each", "mean", "pool", "nested"}, default="average"
        How several runs per system are used (see :mod:`sigtest._workflows.runs`).
        ``"average"`` tests "is B better than A on average over runs": per
        item, each system's sufficient statistics are averaged over its runs
        (run counts may differ), then one paired test over the ``N`` items
        (valid: the item is the resampling unit). ``"each"`` tests run ``i``
        against run ``i`` for every ``i`` (see
        :meth:`ComparisonResult.runs_summary`). ``"mean"`` tests the
        ensembles of averaged probability predictions. ``"pool"``
        (BooStSa's choice, kept for compatibility, with a warning) treats the
        ``R * N`` (item, run) copies as independent and is anti-conservative;
        with ``groups`` the copies stay in their item's cluster (no warning).
        ``"nested"`` tests "is a freshly trained run of B better than one of
        A" (over seeds and items): the hierarchical bootstrap
        (:class:`~sigtest.HierarchicalBootstrap`, the default test then; no
        other test) resamples each system's runs, then the items, so the
        seed variance counts (``"average"`` is conditional on the seeds
        drawn); see ``docs/seeds.md``.
    labels : array-like, optional
        Class set of the class-averaged hard-label metrics (macro/weighted
        P/R/F1), the same for every pair and run. Default: the labels present
        in ``y_true`` (the gold set). Predicted labels outside it are not
        counted as classes (a ``UserWarning`` names the systems and labels).
    pos_label : int, str or bool, optional
        The class scored by the one-class metrics ``"f1"``, ``"precision"``,
        ``"recall"`` (``average="binary"``); the other metrics ignore it, as in
        scikit-learn, so ``metrics=["accuracy", "f1"]`` works (an error if no
        metric uses it, or if it is not one of the labels). Default: 1 when
        every label (of ``y_true``, the predictions and ``labels``) is in
        {0, 1} or in {-1, 1}, as scikit-learn's ``f1_score(y, p)``;
        otherwise the one-class metrics need it (a ``ValueError``).
    ci : {"marginal", "simultaneous"}, default="marginal"
        ``"marginal"``: each interval at its test's own level (95 %).
        ``"simultaneous"``: Bonferroni-level intervals, each at level
        ``1 - alpha / m`` with ``m`` the number of pairs of the family
        (metric, test, run), so that all ``m`` intervals of a family cover
        their differences together with probability at least ``1 - alpha``
        whatever ``correction`` is. The ``ci_level`` column gives the level
        used.
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative item weights with a positive sum, passed to every test
        (:meth:`SignificanceTest.test`'s ``sample_weight``) and checked as it
        checks them. Not with several runs per system averaged or pooled
        (``runs="average"`` or ``"pool"``).
    groups : array-like of shape (n_samples,), optional
        Cluster id of every item (ints or strings), e.g. the document of a
        sentence or the dialogue of a turn: every test then resamples whole
        clusters (cluster bootstrap, cluster permutation, delete-one-cluster
        jackknife; see :meth:`SignificanceTest.test`), and so do the score
        intervals of :meth:`ComparisonResult.scores`. With several runs per
        system the cluster of an item is kept: ``runs="pool"`` tiles the ids
        with the pooled copies (the ``R`` copies of an item stay in its
        cluster), ``"each"`` and ``"mean"`` use them for every test, and
        ``"average"`` resamples clusters of run-averaged items. Fewer than 20
        clusters give a ``SmallSampleWarning``.
    strata : array-like of shape (n_samples,), optional
        Stratum id of every item (e.g. the domain or the gold class): the
        bootstrap tests and intervals resample within each stratum, keeping
        its size (with ``groups``, clusters within strata; a cluster must
        lie in one stratum). The permutation and sign-flip tests condition
        on the items and are unchanged by strata. Tiled like ``groups`` for
        ``runs="pool"``.
    bootstrap : {"auto", "resample", "multiplier"}, default="auto"
        Source of the bootstrap differences shared by all pairs (the BCa and
        Berg-Kirkpatrick tests on metrics with statistics, and the max-T
        correction). ``"resample"``: resamples of the items (clusters, within
        strata). ``"multiplier"``: Gaussian multiplier draws
        :math:`T^*_b = \hat T + L z_b`, :math:`L L^\top = \Sigma` the
        systems' jackknife covariance (see Notes), one pass over the items
        in all instead of one per resample, also with fewer than 6 systems.
        ``"auto"``: ``"multiplier"`` for a max-T correction when
        ``B x units x systems > 2 x 10^10`` (e.g. 50 systems x 10^5 items x
        ``B = 10^4``; 100 systems x 10^4 items keep the resamples),
        ``"resample"`` otherwise. :attr:`ComparisonResult.bootstrap` is the
        source used: ``"resample"`` when no pair could use the multiplier
        draws (a metric without per-item statistics, such as ROC AUC, whose
        tests resample the items). A metric on which some system's jackknife
        influence values are too concentrated for the Gaussian approximation
        (a handful of items carry them: effective number of items below 10
        and below a fifth of the items, :mod:`sigtest._engine.concentration`;
        e.g. ``r2`` on a target that is 0 except on one item) resamples the
        items instead, as its pairs' tests and the max-T step then do.
    overall : {"macro", "micro"} or None, default=None
        An overall comparison across the tasks given as ``strata`` (the
        task of every item; see ``docs/per_item_scores.md``), each task's
        items resampled within the task. ``"macro"``: the mean of the task
        means, every task weighing the same (item weights
        :math:`w_i / W_{t(i)}`, up to a constant, with :math:`w_i` the
        ``sample_weight``, 1 by default, and :math:`W_t` their sum over
        task :math:`t`), for metrics that are means of per-item values
        (``"mean"``, ``"accuracy"``, ...); the scores, intervals, p-values
        and letters are then those of the macro average. ``"micro"``: the
        metric on the pooled items, strata kept (any metric; the same as
        ``strata=`` alone). ``None``: no overall (``strata`` only stratifies
        the resampling).

    Returns
    -------
    result : ComparisonResult
        One row per (metric, test, run, pair) in :meth:`ComparisonResult.to_frame`
        (scores, ``delta``, raw and adjusted p-values, interval of the
        difference, ``significant``), the per-system scores with their
        intervals (:meth:`ComparisonResult.scores`) and the compact letter
        display (:meth:`ComparisonResult.letters`).

    Raises
    ------
    ValueError
        Fewer than two systems, duplicate names, a system whose length
        differs from ``y_true`` (the message names it), an unknown baseline,
        hard predictions for a soft metric, unequal run counts with
        ``runs="each"``, a one-sided-only test with ``pairs="all"``,
        ``runs="average"`` or ``"nested"`` with a metric without statistics,
        ``runs="nested"`` with a test other than
        :class:`~sigtest.HierarchicalBootstrap` or with ``sample_weight``,
        ``groups`` or ``strata``, ``pos_label``
        with metrics that do not use it; ``groups`` or ``strata`` not 1-D,
        not one id per item (the message names the parameter), with missing
        ids, a single cluster, or a cluster in two strata; ``overall``
        without ``strata``, or ``"macro"`` with a metric that is not a mean
        of per-item values or with several runs averaged or pooled.

    Warns
    -----
    UserWarning
        Predicted labels outside the class set; ``runs="pool"`` with several
        runs; a user-given ``n_resamples`` too small for the number of
        comparisons (the message names the ``B`` needed).
    SmallSampleWarning
        From the tests, e.g. fewer than 20 clusters with ``groups``.

    Notes
    -----
    **Resamples for many systems.** A Monte Carlo p-value is at least
    :math:`1/(B+1)`, so after Holm or Bonferroni over :math:`m` pairs the
    smallest attainable adjusted p-value is :math:`m/(B+1)` (used
    conservatively for Benjamini-Hochberg too). With ``test=None``,
    ``B = max(9999, ceil(10 m / alpha) - 1)`` so that it is at most
    ``alpha / 10`` (``m = 1`` without correction); an exact permutation test
    is not affected. With ``ci="simultaneous"`` the default BCa interval
    gets ``max(9999, ceil(10 m / alpha) - 1)`` resamples for its tail
    quantiles ``alpha / (2 m)``. The cost of a Monte Carlo p-value grows
    linearly with ``B``; measured with ``benchmarks/bench_compare.py
    --defaults`` (50 systems, 1,225 pairs, ``B = 244,999``, ``N = 10^4``
    hard labels, 5 classes, one job on 2 shared cores): accuracy 17 s (its
    exact permutation test is cheaper than ``B`` resamples and is used, so
    the BCa intervals dominate), macro-F1 (Monte Carlo) 522 s, i.e. 0.43 s
    per pair.

    **Max-T correction: a default that scales.** With ``correction="max-t"``
    (the ``"auto"`` choice for large families) every pair's difference is
    bootstrapped on the same ``B`` resamples of the items (clusters, within
    strata; those of the BCa intervals when the test uses them), with
    :math:`t_j = \delta_j / \widehat{se}_j` and
    :math:`t^*_{bj} = (\delta^*_{bj} - \delta_j) / \widehat{se}_j`
    (absolute values for two-sided tests; for ``pairs="baseline"`` the
    p-value test's ``alternative``, ``"greater"`` meaning B better), and
    the step-down adjusted p-value of the pair of the ``j``-th largest
    :math:`t` is the running maximum of
    :math:`(1 + \#\{b: \max_{l \ge j} t^*_{b(l)} \ge t_{(j)}\}) / (B + 1)`
    (:func:`sigtest._engine.maxt.maxt_pvalues`). It controls the
    family-wise error rate at ``alpha`` (asymptotically, under any
    dependence between the pairs) and uses their positive correlation,
    which Holm ignores; its smallest value is ``1 / (B + 1)`` for any ``m``,
    so ``B`` stays at 10,000 and the cost is one pass over the items per
    resample for all systems plus ``O(B m)``. Few resamples make it liberal
    (the noise of the bootstrap standard errors: 30 null systems at
    ``B = 199`` reject in 6.8-8.6 % of data sets at ``alpha = 0.05``), so a
    family of ``m`` pairs is adjusted on at least
    :func:`~sigtest._engine.maxt.maxt_min_resamples` ``(m, alpha)`` draws
    (1,199 for 435 pairs), drawn for the max-T step when the test uses
    fewer; the test's p-value and interval keep its own ``n_resamples``. The ``pvalue`` column keeps the
    test's marginal p-value and ``pvalue_adj`` is the larger of it and the
    max-T adjusted p-value (still FWER-controlling). Pairs whose
    bootstrap differences have no spread get 1 with a
    ``DegenerateDistributionWarning``. Measured in
    ``benchmarks/bench_compare.py --leaderboard`` and ``--large``; see
    ``docs/leaderboards.md``.

    **Gaussian multiplier draws** (``bootstrap="multiplier"``). With
    :math:`\theta_{s(i)}` the score of system :math:`s` without unit
    :math:`i` and :math:`u_{s,i} = \theta_{s(i)} - \bar\theta_{s(\cdot)}`,
    :math:`\Sigma_{st} = \frac{n-1}{n} \sum_i u_{s,i} u_{t,i}` (centred
    within strata; clusters are the units); conditionally on the data
    :math:`\sum_i e_i u_{s,i}` with iid :math:`e_i \sim N(0, 1)` is exactly
    :math:`N(0, \Sigma)`, which approximates the joint distribution max-T
    needs (Chernozhukov, Chetverikov & Kato 2013). A pair's variance
    :math:`\Sigma_{aa} + \Sigma_{bb} - 2\Sigma_{ab}` is its jackknife variance.
    Cost ``O(N k^2)`` once and ``O(B k^2)`` for the draws, against
    ``O(B N k)`` for resamples; bit-identical for any ``n_jobs`` and order of
    the systems (sorted names). See ``docs/leaderboards.md``.

    **Interval and adjusted p-value.** A marginal 95 % interval controls
    the error of each pair on its own, whereas the adjusted p-value
    controls the error of the whole family of pairs, so a marginal interval
    may exclude 0 next to a non-significant adjusted p-value. The
    simultaneous intervals (``ci="simultaneous"``) are adjusted to the
    family like the p-values and do not show this contradiction as often
    (they still come from another test than the p-value).

    **Clustered and stratified data.** Tests assume exchangeable units. When
    items come in clusters that share an effect (sentences of a document),
    an item-level test counts correlated items as independent and its
    p-values are too small; with ``groups`` the cluster is the unit, so
    the effective sample size is the number of clusters ``G`` (reported as
    :attr:`ComparisonResult.n_groups` and in the printed result). The
    seeds and the result's independence of ``n_jobs`` and of the order of
    the systems are unchanged.

    **Many systems: shared bootstrap resamples.** With 6 or more systems,
    the BCa intervals (:class:`~sigtest.BCaInterval`, on metrics with
    statistics) use bootstrap resamples shared by all pairs: each resample
    draws the items (clusters, within strata) once, every system's score
    ``T[b, s]`` is computed on it, and a pair's interval is the BCa interval
    of ``T[:, b] - T[:, a]`` with the pair's own jackknife acceleration. For
    each pair this is the same paired bootstrap (equally valid); the draws
    are shared across pairs, so intervals differ from a single test with
    the pair's seed by Monte Carlo error. It costs one pass per resample for
    all systems instead of one per pair. See ``docs/leaderboards.md`` and
    :meth:`ComparisonResult.ranks`.

    References
    ----------
    P. H. Westfall and S. S. Young (1993). Resampling-Based Multiple
    Testing. Wiley.
    J. P. Romano and M. Wolf (2005). Stepwise multiple testing as formalized
    data snooping. Econometrica 73(4), 1237-1282.
    V. Chernozhukov, D. Chetverikov and K. Kato (2013). Gaussian
    approximations and multiplier bootstrap for maxima of sums of
    high-dimensional random vectors. The Annals of Statistics 41(6),
    2786-2819.
    Y. Bestgen (2022). Please, don't forget the difference and the confidence
    interval when seeking for the state-of-the-art status. LREC.
    T. Fornaciari et al. (2022). Hard and soft evaluation of NLP models with
    BOOtSTrap SAmpling - BooStSa. ACL System Demonstrations.
    A. C. Davison and D. V. Hinkley (1997). Bootstrap Methods and their
    Application, sec. 4.2.5 (Monte Carlo p-values, resamples needed).

    Examples
    --------
    >>> import numpy as np
    >>> from sigtest import compare
    >>> from sigtest.tests_ import BCaInterval, PairedPermutation
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 3, 300)
    >>> noisy = lambda p: np.where(rng.random(300) < p, y, rng.integers(0, 3, 300))
    >>> preds = {"weak": noisy(0.5), "mid": noisy(0.7), "strong": noisy(0.9)}
    >>> res = compare(y, preds, metrics="accuracy", random_state=0,
    ...               test=(PairedPermutation(n_resamples=999), BCaInterval(n_resamples=999)))
    >>> res.letters("accuracy")["letters"].tolist()
    ['a', 'b', 'c']
    """
    targets, classes = check_targets(y_true, predictions)
    n_samples = next(iter(targets.values())).shape[0]
    runs_by_system = check_predictions(predictions, n_samples)
    options = compare_options(
        n_samples, metrics=metrics, test=test, pairs=pairs, baseline=baseline,
        correction=correction, alpha=alpha, n_jobs=n_jobs, random_state=random_state,
        verbose=verbose, runs=runs, labels=labels, pos_label=pos_label, ci=ci,
        sample_weight=sample_weight, groups=groups, strata=strata, bootstrap=bootstrap,
        overall=overall)
    return compare_inputs(targets, runs_by_system, classes, options)
