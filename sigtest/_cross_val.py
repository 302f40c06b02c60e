"""``cross_val_compare``: the scikit-learn workflow of ``compare``."""

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

from ._compare import _check_ids, _check_metrics, _compare_inputs
from ._corrections import CORRECTIONS
from .utils._param_validation import HasMethods, Interval, StrOptions, validate_params
from .utils.validation import spawn_seeds

__all__ = ["cross_val_compare"]


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
    return [list(check_cv(cv, y, classifier=classifier).split(X, y, groups))]


def _check_soft_targets(soft_targets, n_samples, n_classes):
    p = np.asarray(soft_targets, dtype=np.float64)
    if p.shape != (n_samples, n_classes):
        raise ValueError(
            f"The 'soft_targets' parameter must have shape (n_samples, n_classes) = "
            f"({n_samples}, {n_classes}), columns in the order of np.unique(y). "
            f"Got {p.shape} instead."
        )
    return p


@validate_params(
    {
        "estimators": [Mapping],
        "X": ["array-like", "sparse matrix"],
        "y": ["array-like"],
        "cv": ["cv_object"],
        "n_repeats": [Interval(Integral, 1, None, closed="left")],
        "metrics": [str, HasMethods(["__call__"]), list, tuple],
        "test": [HasMethods(["test"]), str, list, tuple, None],
        "method": [StrOptions({"auto", "predict", "predict_proba"})],
        "soft_targets": ["array-like", None],
        "n_jobs": [Integral, None],
        "random_state": [None, Integral, np.random.SeedSequence, np.random.Generator,
                         np.random.RandomState],
        "pairs": [StrOptions({"all", "baseline"})],
        "baseline": [str, list, tuple, None],
        "correction": [StrOptions(set(CORRECTIONS)), None],
        "alpha": [Interval(Real, 0, 1, closed="neither")],
        "verbose": ["boolean"],
        "labels": ["array-like", None],
        "pos_label": [Real, str, "boolean", None],
        "ci": [StrOptions({"marginal", "simultaneous"})],
        "groups": ["array-like", None],
        "strata": ["array-like", None],
    },
    prefer_skip_nested_validation=True,
)
def cross_val_compare(estimators, X, y, *, cv=5, n_repeats=1, metrics=("accuracy", "f1_macro"),
                      test=None, method="auto", soft_targets=None, n_jobs=None,
                      random_state=None, pairs="all", baseline=None, correction="holm",
                      alpha=0.05, verbose=False, labels=None, pos_label=None, ci="marginal",
                      groups=None, strata=None):
    """Cross-validate several estimators on the same folds and compare them.

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
        Labels the estimators are fit on (and the truth of hard metrics).
    cv : int, cross-validation generator or iterable, default=5
        An int ``k`` gives shuffled ``StratifiedKFold(k)`` for classifiers
        (``KFold`` otherwise) seeded from ``random_state``; other values go
        through :func:`sklearn.model_selection.check_cv` (``n_repeats=1``).
    n_repeats : int, default=1
        Repeats of the k-fold CV, each with its own shuffle. With more than
        one, every repeat is tested separately (``runs="each"``) and
        :meth:`ComparisonResult.runs_summary` gives the Table-1-like summary
        of Bestgen (2022): per pair and metric, min/max p-value, how many
        repeats are significant, min/max of the difference and of the CI
        bounds.
    metrics : str, Metric or sequence, default=("accuracy", "f1_macro")
        Hard-label (``input_type="labels"``) and soft (``"proba"``) metrics.
    test : SignificanceTest, str, tuple or list, optional
        As in :func:`sigtest.compare`.
    method : {"auto", "predict", "predict_proba"}, default="auto"
        Out-of-fold prediction method. ``"auto"`` uses ``predict_proba`` when
        a soft metric is requested, else ``predict``. With
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
    pairs : {"all", "baseline"}, default="all"
        As in :func:`sigtest.compare`.
    baseline : str or list of str, optional
        As in :func:`sigtest.compare`.
    correction : {"holm", "bonferroni", "fdr_bh"} or None, default="holm"
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
        ``"recall"``, as in :func:`sigtest.compare`.
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
    """
    names = [str(n) for n in estimators]
    if len(set(names)) != len(names):
        raise ValueError(f"Duplicate estimator names {sorted(names)}.")
    if len(names) < 2:
        raise ValueError(
            f"The 'estimators' parameter must hold at least two estimators. Got {len(names)}."
        )
    metric_objs = _check_metrics(metrics)
    types = {m.input_type for m in metric_objs}
    if "multilabel" in types:
        raise ValueError("cross_val_compare supports hard-label and 'proba' metrics only; "
                         "use compare() on saved multilabel predictions.")
    soft = "proba" in types
    if method == "auto":
        method = "predict_proba" if soft else "predict"
    if soft and method == "predict":
        raise ValueError(
            "Soft metrics need probabilities: use method='predict_proba' (or 'auto')."
        )
    if method == "predict_proba":
        missing = [n for n, est in estimators.items() if not hasattr(est, "predict_proba")]
        if missing:
            raise ValueError(
                f"Estimator(s) {missing} have no predict_proba, needed for method="
                "'predict_proba' (soft metrics)."
            )
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"The 'y' parameter must be 1-D labels. Got shape {y.shape} instead.")
    classes = np.unique(y)
    targets = {"labels": y}
    if soft_targets is not None:
        targets["proba"] = _check_soft_targets(soft_targets, y.shape[0], len(classes))
    elif soft:
        raise ValueError("Soft metrics need the 'soft_targets' parameter (n_samples, n_classes).")

    groups = _check_ids(groups, "groups", y.shape[0])
    strata = _check_ids(strata, "strata", y.shape[0])

    split_seed, test_seed = spawn_seeds(random_state, 2)
    classifier = all(is_classifier(est) for est in estimators.values())
    splits = _splits(cv, n_repeats, X, y, classifier, split_seed, groups)
    runs = {}
    for name, est in zip(names, estimators.values()):
        runs[name] = [
            np.asarray(cross_val_predict(clone(est), X, y, cv=folds, method=method,
                                         n_jobs=n_jobs))
            for folds in splits
        ]
    result = _compare_inputs(
        targets, runs, classes if method == "predict_proba" else None, metrics=metric_objs,
        test=test, pairs=pairs, baseline=baseline, correction=correction, alpha=alpha,
        n_jobs=n_jobs, random_state=test_seed, verbose=verbose, runs_mode="each",
        labels=labels, pos_label=pos_label, ci=ci, groups=groups, strata=strata,
        cv_splits=splits,
    )
    return result
