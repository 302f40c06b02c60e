"""``cross_val_compare``: the scikit-learn workflow of ``compare``."""

import dataclasses
import functools
import warnings
from collections.abc import Mapping
from numbers import Integral, Real

import numpy as np
from sklearn.base import clone, is_classifier
from sklearn.model_selection import (
    GroupKFold,
    KFold,
    StratifiedGroupKFold,
    StratifiedKFold,
    check_cv,
    cross_val_predict,
)
from sklearn.utils.multiclass import type_of_target

from sigtest import cv as _cv_module
from sigtest._workflows.compare.api import compare_inputs, plan_inputs
from sigtest._workflows.compare.options import COMPARE_OPTIONS, compare_options
from sigtest._workflows.compare.checks import check_metrics, check_pos_label
from sigtest._workflows.compare.plan import prepare_data
from sigtest.tests_._corrections import CORRECTIONS
from sigtest.utils._param_validation import Interval, StrOptions, validate_params
from sigtest.utils._renamed import refused_keywords, renamed_keywords
from sigtest.utils import warn_external
from sigtest.utils.validation import spawn_seeds

__all__ = ["SHARED_OPTIONS", "cross_val_compare"]


def _shuffled(splitter, n_splits, seed):
    """``splitter(n_splits, shuffle=True, random_state=seed)``.

    ``GroupKFold`` has no shuffle before scikit-learn 1.6; there it assigns
    the groups to folds by size, deterministically.
    """
    try:
        return splitter(n_splits, shuffle=True, random_state=seed)
    except TypeError:  # pragma: no cover - scikit-learn < 1.6
        return splitter(n_splits)


def _splits(cv, n_repeats, X, y, classifier, split_seed, groups=None):
    """Train/test index splits per repeat, shared by every estimator.

    An int ``cv`` with ``groups`` gives group folds (a cluster is never split
    between training and test): ``StratifiedGroupKFold`` for classifiers,
    ``GroupKFold`` otherwise, shuffled like the plain folds.
    """
    if isinstance(cv, Integral):
        stratify = classifier and type_of_target(y) in ("binary", "multiclass")
        if groups is None:
            splitter = StratifiedKFold if stratify else KFold
        else:
            splitter = StratifiedGroupKFold if stratify else GroupKFold
        seeds = [int(s.generate_state(1)[0]) for s in split_seed.spawn(n_repeats)]
        return [list(_shuffled(splitter, int(cv), s).split(X, y, groups)) for s in seeds]
    if n_repeats > 1:
        raise ValueError(
            "n_repeats > 1 needs an int 'cv' (the number of folds), so that each repeat "
            f"gets its own shuffle. Got cv={cv!r}."
        )
    folds = list(check_cv(cv, y, classifier=classifier).split(X, y, groups))
    return _as_repeats(folds, y.shape[0])


def _as_repeats(folds, n_samples):
    """Consecutive folds regrouped into repeats, when they are repeated partitions.

    A repeated splitter (``RepeatedKFold``, ``RepeatedStratifiedKFold``,
    :func:`sigtest.cv.five_by_two`) yields ``r`` partitions of the items one
    after the other: each becomes a repeat (its own out-of-fold predictions).
    Anything else is returned as one repeat, as given (and
    ``cross_val_predict`` says if it is not a partition).
    """
    repeats, current = [], []
    seen = np.zeros(n_samples, dtype=np.int64)
    for train, test in folds:
        current.append((train, test))
        np.add.at(seen, np.asarray(test), 1)
        if seen.max() > 1:
            return [folds]
        if seen.min() == 1:
            repeats.append(current)
            current = []
            seen[:] = 0
    if current or len(repeats) < 2:
        return [folds]
    return repeats


#: ``cv_test`` names -> (function of sigtest.cv, needs the 5 x 2 design)
CV_TESTS = {
    "corrected_t": "corrected_resampled_ttest",
    "5x2cv_t": "paired_ttest_5x2cv",
    "5x2cv_f": "combined_ftest_5x2cv",
    "bayesian": "bayesian_correlated_ttest",
}

#: Columns of :meth:`ComparisonResult.cv_tests`.
CV_TEST_COLUMNS = ["system_a", "system_b", "metric", "cv_test", "delta", "statistic", "pvalue",
                   "prob_worse", "prob_equivalent", "prob_better", "n_folds"]


def _check_cv_test(cv_test, rope):
    """``cv_test`` as a tuple of names (empty for None), with ``rope`` checked against it."""
    if cv_test is None:
        names = ()
    else:
        names = (cv_test,) if isinstance(cv_test, str) else tuple(cv_test)
        bad = [n for n in names if not isinstance(n, str) or n not in CV_TESTS]
        if bad or not names:
            raise ValueError(
                f"The 'cv_test' parameter of cross_val_compare must be None, one of "
                f"{sorted(CV_TESTS)} or a list of them. Got {cv_test!r} instead.")
        if len(set(names)) != len(names):
            raise ValueError(f"The 'cv_test' parameter lists a test more than once: {names}.")
    if "bayesian" in names and rope is None:
        raise ValueError(
            "cv_test='bayesian' needs the 'rope' parameter: the half-width of the region of "
            "practical equivalence in units of the metric (e.g. rope=0.01 for one point of "
            "accuracy; rope=0 for none).")
    if rope is not None and not np.isfinite(rope):
        raise ValueError(f"The 'rope' parameter of cross_val_compare must be finite. "
                         f"Got {rope!r} instead.")
    if rope is not None and "bayesian" not in names:
        raise ValueError(
            "The 'rope' parameter is used by cv_test='bayesian' only. Got rope="
            f"{rope!r} with cv_test={cv_test!r}.")
    return names


def _check_five_by_two(names, splits):
    five = [n for n in names if n.startswith("5x2cv")]
    if five and (len(splits) != 5 or any(len(folds) != 2 for folds in splits)):
        shape = ", ".join(str(len(folds)) for folds in splits)
        raise ValueError(
            f"cv_test={five[0]!r} needs 5 repetitions of 2-fold cross-validation: pass "
            "cv=2, n_repeats=5 or cv=sigtest.cv.five_by_two(random_state=...). Got "
            f"{len(splits)} repeat(s) with [{shape}] folds.")


def fold_scores(targets, runs, classes, splits, *, metrics, labels=None, pos_label=None):
    """Per-fold scores ``{(system, metric): array (repeats, folds)}``.

    Each system's out-of-fold predictions of a repeat, scored on the test
    items of each fold with the metric's keyword arguments of the
    comparison (the same class set and ``pos_label``).
    """
    metric_objs = check_metrics(metrics)
    pos_params = check_pos_label(metric_objs, pos_label)
    names = list(runs)
    out = {(n, m.name): np.empty((len(splits), len(splits[0]))) for n in names
           for m in metric_objs}
    for r, folds in enumerate(splits):
        (views,), metric_kwargs = prepare_data(
            [(targets, {n: runs[n][r] for n in names})], classes, targets=targets,
            metric_objs=metric_objs, names=names, labels=labels, pos_params=pos_params)
        for metric, kw in zip(metric_objs, metric_kwargs):
            y, stacks = views[metric.input_type]
            for s, name in enumerate(names):
                pred = stacks[s][0]
                for f, (_, test) in enumerate(folds):
                    out[name, metric.name][r, f] = metric(y[test], pred[test], **kw)
    return metric_objs, out


def cv_test_frame(pairs, metric_objs, scores, splits, cv_tests, rope):
    """The rows of :meth:`ComparisonResult.cv_tests` (one per pair x metric x cv test)."""
    import pandas as pd

    n_train = float(np.mean([len(tr) for folds in splits for tr, _ in folds]))
    n_test = float(np.mean([len(te) for folds in splits for _, te in folds]))
    records = []
    for a, b in pairs:
        for metric in metric_objs:
            sa, sb = scores[a, metric.name], scores[b, metric.name]
            row = {"system_a": a, "system_b": b, "metric": metric.name,
                   "delta": float(np.mean(sb - sa)), "n_folds": int(sa.size)}
            for name in cv_tests:
                rec = {**row, "cv_test": name, "statistic": np.nan, "pvalue": np.nan,
                       "prob_worse": np.nan, "prob_equivalent": np.nan, "prob_better": np.nan}
                records.append(rec)
                where = f"{a} vs {b}, {metric.name}, cv_test={name!r}"
                if not (np.all(np.isfinite(sa)) and np.all(np.isfinite(sb))):
                    warn_external(f"{where}: a fold score is undefined (NaN); the test is "
                                  "NaN.", RuntimeWarning)
                    continue
                kwargs = {"greater_is_better": metric.greater_is_better}
                if name in ("corrected_t", "bayesian"):
                    kwargs.update(n_train=n_train, n_test=n_test)
                if name == "bayesian":
                    kwargs["rope"] = rope
                func = getattr(_cv_module, CV_TESTS[name])
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    res = func(sa, sb, **kwargs)
                for w in caught:
                    warn_external(f"{where}: {w.message}", w.category)
                if name == "bayesian":
                    rec.update(prob_worse=res.prob_worse, prob_equivalent=res.prob_equivalent,
                               prob_better=res.prob_better)
                else:
                    rec.update(statistic=res.statistic, pvalue=res.pvalue)
    return pd.DataFrame.from_records(records, columns=CV_TEST_COLUMNS)


def _result_pairs(result):
    """``(system_a, system_b)`` of the result's rows, in their order and orientation."""
    frame = result.to_frame()
    return list(dict.fromkeys(zip(frame["system_a"], frame["system_b"])))


def _with_cv_tests(result, splits, cv_tests, rope, cv_seed):
    """``result`` with its per-fold tests; recompare() recomputes them for its options."""
    data = result._data
    options = result.options
    metric_objs, scores = fold_scores(data.targets, data.runs, data.classes, splits,
                                      metrics=options.metrics, labels=options.labels,
                                      pos_label=options.pos_label)
    frame = cv_test_frame(_result_pairs(result), metric_objs, scores, splits, cv_tests, rope)
    rerun = functools.partial(_rerun_with_cv_tests, splits=splits, cv_tests=cv_tests,
                              rope=rope, cv_seed=cv_seed)
    return result._with_cv_tests(frame, data=dataclasses.replace(data, rerun=rerun))


def _rerun_with_cv_tests(targets, runs, classes, options, *, splits, cv_tests, rope, cv_seed):
    """``recompare`` of a result with per-fold tests: the comparison, then the tests."""
    result = compare_inputs(targets, runs, classes, options, cv_splits=splits,
                            cv_seed=cv_seed)
    return _with_cv_tests(result, splits, cv_tests, rope, cv_seed)


def _check_before_fitting(targets, names, classes, method, n_repeats, options):
    """Every check of the comparison that does not need the fitted predictions.

    Fitting every estimator on every fold may take hours: an unknown
    ``baseline``, a ``pos_label`` the metrics cannot use, a test that does
    not suit a metric, a bad test parameter, ``labels``, ``groups`` or
    ``strata`` must fail before it. The comparison is planned (nothing runs)
    exactly as after the fits, on placeholder predictions of the right kind:
    every estimator predicting ``y`` (its one-hot rows over ``np.unique(y)``
    for ``method="predict_proba"``) in each repeat.
    """
    y = targets["labels"]
    if method == "predict_proba":
        placeholder = (y[:, None] == classes[None, :]).astype(np.float64)
    else:
        placeholder = y
    runs = {name: [placeholder] * n_repeats for name in names}
    with warnings.catch_warnings():
        # the comparison's warnings come once, from the real predictions
        warnings.simplefilter("ignore")
        plan_inputs(targets, runs, classes if method == "predict_proba" else None, options)


def _check_soft_targets(soft_targets, n_samples, n_classes):
    p = np.asarray(soft_targets, dtype=np.float64)
    if p.shape != (n_samples, n_classes):
        raise ValueError(
            f"The 'soft_targets' parameter must have shape (n_samples, n_classes) = "
            f"({n_samples}, {n_classes}), columns in the order of np.unique(y). "
            f"Got {p.shape} instead."
        )
    return p


#: The options cross_val_compare shares with compare: checked with compare's
#: own constraints (one list, COMPARE_OPTIONS), then built into the same
#: CompareOptions (compare_options).
SHARED_OPTIONS = ("metrics", "test", "n_jobs", "random_state", "pairs", "baseline", "alpha",
                  "verbose", "labels", "pos_label", "ci", "groups", "strata")


def _prediction_method(estimators, metric_objs, response_method):
    """``(method, soft)``: the estimators' prediction method the metrics need, and
    whether a metric scores soft targets (``"proba"``); refusals name the metric."""
    types = {m.input_type for m in metric_objs}
    if "multilabel" in types:
        raise ValueError("cross_val_compare supports hard-label, 'proba' and regression "
                         "metrics only; "
                         "use compare() on saved multilabel predictions.")
    if "regression" in types and types != {"regression"}:
        raise ValueError(
            "The 'metrics' parameter mixes regression metrics with classification metrics "
            f"({sorted(m.name for m in metric_objs)}); compare regressors or classifiers."
        )
    if "regression" in types and response_method == "predict_proba":
        raise ValueError("Regression metrics compare predict() outputs: use "
                         "response_method='predict' (or 'auto'), not 'predict_proba'.")
    soft = "proba" in types
    needs_proba = soft or "labels_proba" in types  # soft or probability-scored metrics
    method = response_method
    if method == "auto":
        method = "predict_proba" if needs_proba else "predict"
    if needs_proba and method == "predict":
        raise ValueError(
            f"The metrics {[m.name for m in metric_objs if m.input_type != 'labels']} need "
            "probabilities: use response_method='predict_proba' (or 'auto')."
        )
    if method == "predict_proba":
        missing = [n for n, est in estimators.items() if not hasattr(est, "predict_proba")]
        if missing:
            raise ValueError(
                f"Estimator(s) {missing} have no predict_proba, needed for response_method="
                "'predict_proba' (soft metrics)."
            )
    return method, soft


@renamed_keywords(method="response_method")
@refused_keywords(overall=(
    "an overall comparison across tasks weighs the items (overall='macro'), which the "
    "per-fold tests and the fits would need too; test the out-of-fold predictions "
    "(result.predictions) with sigtest.compare(..., strata=task_of_each_item, "
    "overall=...)."),
    sample_weight=(
    "weights would have to reach the estimators' fits and the tests alike; fit with the "
    "weights, then test the out-of-fold predictions (result.predictions) with "
    "sigtest.compare(..., sample_weight=)."))
@validate_params(
    {
        "estimators": [Mapping],
        "X": ["array-like", "sparse matrix"],
        "y": ["array-like"],
        "cv": ["cv_object"],
        "n_repeats": [Interval(Integral, 1, None, closed="left")],
        "response_method": [StrOptions({"auto", "predict", "predict_proba"})],
        "soft_targets": ["array-like", None],
        # adjust_pvalues' methods (compare's "auto" and max-T are not offered here)
        "correction": [StrOptions(set(CORRECTIONS)), None],
        **{name: COMPARE_OPTIONS[name] for name in SHARED_OPTIONS},
        "cv_test": [str, list, tuple, None],
        "rope": [Interval(Real, 0, None, closed="left"), None],
    },
    prefer_skip_nested_validation=True,
)
def cross_val_compare(estimators, X, y, *, cv=5, n_repeats=1, metrics=("accuracy", "f1_macro"),
                      test=None, response_method="auto", soft_targets=None, n_jobs=None,
                      random_state=None, pairs="all", baseline=None, correction="holm",
                      alpha=0.05, verbose=False, labels=None, pos_label=None, ci="marginal",
                      groups=None, strata=None, cv_test=None, rope=None):
    r"""Cross-validate several estimators on the same folds and compare them.

    Every estimator gets the *same* folds; its out-of-fold predictions come
    from :func:`sklearn.model_selection.cross_val_predict`, and the pooled
    out-of-fold predictions of all estimators are compared with
    :func:`sigtest.compare` (the same tests, correction, letters).

    Parameters
    ----------
    estimators : mapping of str -> estimator
        Unfitted scikit-learn estimators (pipelines included); at least two.
    X : array-like or sparse matrix of shape (n_samples, n_features)
        Features the estimators are fit on and predict from.
    y : array-like of shape (n_samples,)
        Labels (or real targets, for regressors) the estimators are fit on,
        and the truth of the metrics.
    cv : int, cross-validation generator or iterable, default=5
        An int ``k`` gives shuffled ``StratifiedKFold(k)`` for classifiers
        (``KFold`` otherwise) seeded from ``random_state``; other values go
        through :func:`sklearn.model_selection.check_cv` (``n_repeats=1``);
        a repeated splitter (``RepeatedKFold``, ``RepeatedStratifiedKFold``,
        :func:`sigtest.cv.five_by_two`), whose folds are consecutive
        partitions of the items, gives one repeat per partition.
    n_repeats : int, default=1
        Repeats of the k-fold CV, each with its own shuffle. With more than
        one, every repeat is tested separately (``runs="each"``) and
        :meth:`ComparisonResult.runs_summary` gives the Table-1-like summary
        of Bestgen (2022): per pair and metric, min/max p-value, how many
        repeats are significant, min/max of the difference and of the CI
        bounds.
    metrics : str, Metric, callable, scorer or sequence, default=("accuracy", "f1_macro")
        Hard-label (``input_type="labels"``), soft (``"proba"``) and
        probability-scored (``"labels_proba"``: ``"neg_log_loss"``, ...) metrics,
        or regression metrics (``"regression"``: ``"r2"``,
        ``"neg_mean_absolute_error"``, ...; regressors compared on their
        out-of-fold ``predict``, with ``KFold`` folds); functions and
        scikit-learn scorers as in :func:`sigtest.as_metric`.
    test : SignificanceTest, str, tuple or list, optional
        As in :func:`sigtest.compare`.
    response_method : {"auto", "predict", "predict_proba"}, default="auto"
        Out-of-fold prediction method of the estimators (scikit-learn's
        name, as in ``make_scorer``). ``"auto"`` uses ``predict_proba`` when
        a soft or probability-scored metric is requested, else ``predict``. With
        ``predict_proba``, the columns are aligned to ``np.unique(y)`` (a
        class missing from a training fold gets probability 0) and hard
        metrics use the argmax class.
    soft_targets : array-like of shape (n_samples, n_classes), optional
        True label distributions for soft metrics (columns in the order of
        ``np.unique(y)``); required when a soft metric is requested. The
        estimators are still fit on ``y``.
    n_jobs : int, optional
        Used for the cross-validation fits and for the tests (see
        :func:`sigtest.compare`).
    random_state : None, int, SeedSequence or Generator
        Seeds the fold shuffles and the tests (two independent child seeds).
        It does not touch the estimators' own ``random_state``.
    pairs : {"all", "baseline", "adjacent"}, default="all"
        As in :func:`sigtest.compare`.
    baseline : str or list of str, optional
        As in :func:`sigtest.compare`.
    correction : str or None, default="holm"
        As in :func:`sigtest.compare`.
    alpha : float, default=0.05
        As in :func:`sigtest.compare`.
    verbose : bool, default=False
        As in :func:`sigtest.compare`.
    labels : array-like, optional
        Class set of class-averaged metrics, as in :func:`sigtest.compare`
        (default: the labels of ``y``).
    pos_label : int, str or bool, optional
        The class of the one-class metrics ``"f1"``, ``"precision"``,
        ``"recall"``, ignored by the other metrics, default 1 for the labels
        {0, 1} or {-1, 1}, as in :func:`sigtest.compare`.
    ci : {"marginal", "simultaneous"}, default="marginal"
        As in :func:`sigtest.compare`.
    groups : array-like of shape (n_samples,), optional
        Group id of every sample (e.g. the patient, the document), used
        twice: by the folds (an int ``cv`` then gives shuffled
        ``StratifiedGroupKFold`` for classifiers, ``GroupKFold`` otherwise,
        so that no group is split between training and test; a splitter
        given as ``cv`` gets them in its ``split``), and as the clusters of
        the tests (:func:`sigtest.compare`'s ``groups``): the out-of-fold
        predictions of one group are correlated, so the group is the
        resampling unit. ``result.recompare(groups=None)`` gives the
        item-level tests of the same predictions.
    strata : array-like of shape (n_samples,), optional
        Stratum id of every sample for the bootstrap tests and intervals
        (:func:`sigtest.compare`'s ``strata``); the folds do not use it.
        There is no ``sample_weight``: weights would have to reach the fits
        (scikit-learn's metadata routing of each estimator) and the tests
        alike, and weighting only the tests would compare estimators fit
        without them; fit with weights, then test the out-of-fold
        predictions (``result.predictions``) with
        ``sigtest.compare(..., sample_weight=)``. Nor is there an
        ``overall`` (``TypeError``; nor ``recompare(overall=)`` of the
        result, a ``ValueError``), for the same reason: its ``"macro"``
        weighs the items; test the out-of-fold predictions with
        ``sigtest.compare(..., strata=, overall=)``. ``bootstrap`` keeps
        :func:`sigtest.compare`'s ``"auto"``. The options are checked as
        :func:`sigtest.compare` checks them, before any estimator is fit,
        and kept as ``result.options``.
    cv_test : {"corrected_t", "5x2cv_t", "5x2cv_f", "bayesian"} or list, optional
        Tests on the per-fold scores, reported by
        :meth:`ComparisonResult.cv_tests` next to the item-level tests of
        the pooled out-of-fold predictions: ``"corrected_t"``, the
        corrected resampled t-test of Nadeau and Bengio (2003) over all the
        folds of all repeats, with the variance of one partition (the
        repeats are not counted as new data; see
        :func:`sigtest.cv.corrected_resampled_ttest`);
        ``"5x2cv_t"`` (Dietterich 1998) and ``"5x2cv_f"`` (Alpaydin 1999),
        which need 5 repeats of 2 folds (``cv=2, n_repeats=5`` or
        ``cv=sigtest.cv.five_by_two()``); ``"bayesian"``, the Bayesian
        correlated t-test (Corani and Benavoli 2015) with ``rope``. The
        score of each system on each test fold is computed from its
        out-of-fold predictions, with the class set and ``pos_label`` of
        the comparison; ``n_train`` and ``n_test`` are the mean fold sizes.
        The t-tests are two-sided; see :mod:`sigtest.cv`.
    rope : float, optional
        Half-width of the region of practical equivalence of
        ``cv_test="bayesian"``, in units of the metric (e.g. 0.01); required
        by it, rejected without it.

    Returns
    -------
    result : ComparisonResult
        With ``result.predictions`` (out-of-fold predictions: one array per
        estimator, or a list of arrays with one per repeat), ``result.cv_splits``
        (the folds of every repeat) and :meth:`~ComparisonResult.recompare` to
        re-test without refitting.

    References
    ----------
    Y. Bestgen (2022). Please, don't forget the difference and the confidence
    interval when seeking for the state-of-the-art status. LREC. (Table 1:
    twenty repeated 10-fold CVs.)
    C. Nadeau and Y. Bengio (2003). Inference for the generalization error.
    Machine Learning 52(3), 239-281.
    T. G. Dietterich (1998). Approximate statistical tests for comparing
    supervised classification learning algorithms. Neural Computation 10(7).
    G. Corani and A. Benavoli (2015). A Bayesian approach for comparing
    cross-validated algorithms on multiple data sets. Machine Learning 100(2).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.dummy import DummyClassifier
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from sigtest import PairedPermutation, cross_val_compare
    >>> X, y = load_iris(return_X_y=True)
    >>> res = cross_val_compare(
    ...     {"dummy": DummyClassifier(), "nb": GaussianNB(),
    ...      "tree": DecisionTreeClassifier(random_state=0)},
    ...     X, y, metrics="accuracy", test=PairedPermutation(n_resamples=999),
    ...     random_state=0)
    >>> res.letters()["letters"].to_dict()
    {'nb': 'a', 'tree': 'a', 'dummy': 'b'}

    Per-fold tests on 5 x 2-fold CV:

    >>> from sigtest.cv import five_by_two
    >>> res = cross_val_compare(
    ...     {"nb": GaussianNB(), "tree": DecisionTreeClassifier(random_state=0)},
    ...     X, y, cv=five_by_two(random_state=0), metrics="accuracy",
    ...     test=PairedPermutation(n_resamples=999), cv_test=["corrected_t", "5x2cv_f"],
    ...     random_state=0)
    >>> res.cv_tests()[["cv_test", "pvalue"]].round(3).to_dict("records")
    [{'cv_test': 'corrected_t', 'pvalue': 0.547}, {'cv_test': '5x2cv_f', 'pvalue': 0.581}]
    """
    names = [str(n) for n in estimators]
    if len(set(names)) != len(names):
        raise ValueError(f"Duplicate estimator names {sorted(names)}.")
    if len(names) < 2:
        raise ValueError(
            f"The 'estimators' parameter must hold at least two estimators. Got {len(names)}."
        )
    metric_objs = check_metrics(metrics)
    method, soft = _prediction_method(estimators, metric_objs, response_method)
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"The 'y' parameter must be 1-D labels. Got shape {y.shape} instead.")
    classes = np.unique(y)
    targets = {"labels": y, "regression": y, "labels_proba": y}
    if soft_targets is not None:
        targets["proba"] = _check_soft_targets(soft_targets, y.shape[0], len(classes))
    elif soft:
        raise ValueError("Soft metrics need the 'soft_targets' parameter (n_samples, n_classes).")

    split_seed, test_seed = spawn_seeds(random_state, 2)
    # the options of the comparison, checked as compare() checks them (the
    # metrics as given, usually names: the result keeps them in its options,
    # and a Metric object, whose kwargs are a mappingproxy, does not pickle)
    options = compare_options(
        y.shape[0], metrics=metrics, test=test, pairs=pairs, baseline=baseline,
        correction=correction, alpha=alpha, n_jobs=n_jobs, random_state=test_seed,
        verbose=verbose, runs="each", labels=labels, pos_label=pos_label, ci=ci,
        groups=groups, strata=strata)
    cv_tests = _check_cv_test(cv_test, rope)

    classifier = all(is_classifier(est) for est in estimators.values())
    splits = _splits(cv, n_repeats, X, y, classifier, split_seed, options.groups)
    _check_five_by_two(cv_tests, splits)
    _check_before_fitting(targets, names, classes, method, len(splits), options)
    runs = {}
    for name, est in zip(names, estimators.values()):
        runs[name] = [
            np.asarray(cross_val_predict(clone(est), X, y, cv=folds, method=method,
                                         n_jobs=n_jobs))
            for folds in splits
        ]
    result = compare_inputs(
        targets, runs, classes if method == "predict_proba" else None, options,
        cv_splits=splits, cv_seed=(random_state, test_seed))
    if cv_tests:
        result = _with_cv_tests(result, splits, cv_tests, None if rope is None else float(rope),
                                (random_state, test_seed))
    return result
