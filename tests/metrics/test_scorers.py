"""sigtest metrics as scikit-learn scorers: values, routing, class alignment."""

import copy
import pickle

import numpy as np
import pytest
import sklearn
from sklearn.datasets import load_digits, load_iris, make_multilabel_classification
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import check_scoring
from sklearn.metrics._scorer import _BaseScorer
from sklearn.model_selection import (
    GridSearchCV,
    KFold,
    StratifiedKFold,
    cross_val_predict,
    cross_validate,
)
from sklearn.multioutput import MultiOutputClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

import sigtest
from sigtest.metrics import (
    get_metric,
    get_metric_names,
    get_scorer,
    get_scorer_names,
    register_metric,
    unregister_metric,
)

# Reference soft metrics registered by the tests themselves, so that this file
# does not depend on which built-in soft metrics exist: soft accuracy
# (1/N) sum_ik min(P_ik, Q_ik) on the fast path, and the mean total-variation
# distance (a loss) as a plain callable.


def _min_statistics(y_true, y_pred, **params):
    p, q = np.asarray(y_true, float), np.asarray(y_pred, float)
    return np.column_stack([np.minimum(p, q).sum(axis=1), np.ones(len(p))])


def _ratio_aggregate(sums, **params):
    sums = np.asarray(sums, float)
    return sums[..., 0] / sums[..., 1]


def _tv_loss(y_true, y_proba, *, sample_weight=None):
    tv = 0.5 * np.abs(np.asarray(y_true, float) - np.asarray(y_proba, float)).sum(axis=1)
    return float(np.average(tv, weights=sample_weight))


def _ml_mae_loss(y_true, y_proba, *, sample_weight=None):
    err = np.abs(np.asarray(y_true, float) - np.asarray(y_proba, float)).mean(axis=1)
    return float(np.average(err, weights=sample_weight))


def _error_rate(y_true, y_pred, sample_weight=None):
    # plain callable without a 'labels' parameter: the scorer must not pass one
    return float(np.average(np.asarray(y_true) != np.asarray(y_pred), weights=sample_weight))


@pytest.fixture(autouse=True)
def test_metrics():
    register_metric(
        "t_soft_acc",
        input_type="proba",
        statistics=_min_statistics,
        aggregate=_ratio_aggregate,
    )
    register_metric("t_tv", _tv_loss, greater_is_better=False, input_type="proba")
    register_metric("t_ml_mae", _ml_mae_loss, greater_is_better=False, input_type="multilabel")
    register_metric("t_error", _error_rate, greater_is_better=False)
    yield
    for name in ("t_soft_acc", "t_tv", "t_ml_mae", "t_error"):
        unregister_metric(name)


@pytest.fixture
def routing():
    with sklearn.config_context(enable_metadata_routing=True):
        yield


def _iris():
    X, y = load_iris(return_X_y=True)
    return X, y


def _dirichlet_targets(y, n_classes, seed=0, concentration=5.0):
    """Soft targets centred on the hard label (argmax agrees most of the time)."""
    rng = np.random.default_rng(seed)
    alpha = np.ones((len(y), n_classes))
    alpha[np.arange(len(y)), y] += concentration
    return np.vstack([rng.dirichlet(a) for a in alpha])


def _aligned_proba(estimator, X, classes):
    """Reference alignment: predict_proba columns placed under ``classes``."""
    proba = estimator.predict_proba(X)
    out = np.zeros((len(X), len(classes)))
    for j, c in enumerate(estimator.classes_):
        out[:, list(classes).index(c)] = proba[:, j]
    return out


def _one_hot(y, classes):
    return (np.asarray(y)[:, None] == np.asarray(classes)[None, :]).astype(float)


ESTIMATORS = {
    "logreg": lambda: LogisticRegression(max_iter=500),
    "tree": lambda: DecisionTreeClassifier(max_depth=3, random_state=0),
    "pipeline": lambda: make_pipeline(StandardScaler(), LogisticRegression(max_iter=500)),
}


# ----------------------------------------------------------------------------- names


def test_scorer_names_sorted_losses_negated():
    names = get_scorer_names()
    assert names == sorted(names)
    assert len(names) == len(get_metric_names())
    assert "neg_t_tv" in names and "t_tv" not in names
    assert "t_soft_acc" in names
    for name in get_metric_names():
        metric = get_metric(name)
        expected = name if metric.greater_is_better else "neg_" + name
        assert expected in names
    assert sigtest.get_scorer is get_scorer and sigtest.get_scorer_names is get_scorer_names


@pytest.mark.parametrize("name", get_scorer_names())
def test_every_builtin_scorer_is_a_sklearn_scorer(name):
    metric = get_metric(name)
    scorer = get_scorer(name)
    assert isinstance(scorer, _BaseScorer)
    assert scorer._response_method == metric.response_method
    assert scorer._sign == (1 if metric.greater_is_better else -1)
    assert scorer._score_func is metric.score_func
    assert dict(scorer._kwargs) == dict(metric.kwargs)
    assert check_scoring(LogisticRegression(), scoring=scorer) is scorer


def test_unknown_name_lists_scorers():
    with pytest.raises(ValueError, match="Valid names are") as info:
        get_scorer("no_such_metric")
    assert str(get_scorer_names()) in str(info.value)
    # a loss only under its neg_ name
    with pytest.raises(ValueError, match="neg_t_tv"):
        get_scorer("t_tv")
    with pytest.raises(TypeError, match="'name'"):
        get_scorer(3)


def test_bad_get_scorer_arguments():
    with pytest.raises(ValueError, match="labels="):
        get_scorer("accuracy", classes=[0, 1, 2])
    with pytest.raises(ValueError, match="'classes'"):
        get_scorer("t_soft_acc", classes=[0, 0, 1])
    with pytest.raises(TypeError, match="bogus"):
        get_scorer("neg_t_tv", bogus=1)


def test_get_scorer_returns_independent_copies(routing):
    labels = np.array([0, 1, 2])
    first = get_scorer("f1_macro", labels=labels)
    second = get_scorer("f1_macro", labels=labels)
    assert first is not second and first._kwargs is not second._kwargs
    labels[0] = 7  # the caller's array is copied, not referenced
    assert first._kwargs["labels"].tolist() == [0, 1, 2]
    first._kwargs["zero_division"] = 1.0
    assert "zero_division" not in second._kwargs
    soft_a, soft_b = get_scorer("t_soft_acc"), get_scorer("t_soft_acc")
    soft_a.set_score_request(sample_weight=True)
    assert soft_a.get_metadata_routing().score.requests["sample_weight"] is True
    assert soft_b.get_metadata_routing().score.requests.get("sample_weight") is None
    clone = copy.deepcopy(soft_a)
    assert clone.get_metadata_routing().score.requests == soft_a.get_metadata_routing().score.requests
    # scorers pickle (a fitted GridSearchCV keeps its scorer) when the metric does
    tv = pickle.loads(pickle.dumps(get_scorer("neg_t_tv").set_score_request(sample_weight=True)))
    assert tv.get_metadata_routing().score.requests["y_true_soft"] is True
    assert tv.get_metadata_routing().score.requests["sample_weight"] is True
    assert pickle.loads(pickle.dumps(first))._kwargs["labels"].tolist() == [0, 1, 2]
    assert copy.deepcopy(first)._kwargs["labels"].tolist() == [0, 1, 2]


# ----------------------------------------------------------------------------- hard


@pytest.mark.parametrize("est_name", sorted(ESTIMATORS))
def test_hard_scorers_match_cross_val_predict(est_name):
    X, y = _iris()
    cv = KFold(5, shuffle=True, random_state=0)
    names = ["accuracy", "f1_macro", "precision_macro", "recall_macro", "neg_t_error"]
    res = cross_validate(
        ESTIMATORS[est_name](),
        X,
        y,
        cv=cv,
        scoring={n: get_scorer(n) for n in names},
        return_indices=True,
    )
    pred = cross_val_predict(ESTIMATORS[est_name](), X, y, cv=cv)
    labels = np.unique(y)
    for fold, test in enumerate(res["indices"]["test"]):
        for n in names:
            metric = get_metric(n)
            kw = {} if n == "neg_t_error" else {"labels": labels}
            expected = metric(y[test], pred[test], **kw)
            sign = 1 if metric.greater_is_better else -1
            assert res[f"test_{n}"][fold] == pytest.approx(sign * expected, abs=1e-12)
    # the tree makes errors on some fold, so the loss is strictly negated
    assert np.all(res["test_neg_t_error"] <= 0)
    np.testing.assert_allclose(res["test_neg_t_error"], res["test_accuracy"] - 1, atol=1e-12)


def test_hard_scorer_string_labels_digits_subset():
    X, y = load_digits(return_X_y=True)
    X, y = X[:300], y[:300]
    names = np.array([f"digit{d}" for d in range(10)])
    y_str = names[y]
    cv = StratifiedKFold(3, shuffle=True, random_state=1)
    scorer = get_scorer("f1_weighted")
    res = cross_validate(
        DecisionTreeClassifier(random_state=0), X, y_str, cv=cv, scoring=scorer,
        return_indices=True,
    )
    pred = cross_val_predict(DecisionTreeClassifier(random_state=0), X, y_str, cv=cv)
    for fold, test in enumerate(res["indices"]["test"]):
        expected = get_metric("f1_weighted")(y_str[test], pred[test], labels=names)
        assert res["test_score"][fold] == pytest.approx(expected, abs=1e-12)


# ----------------------------------------------------------------------------- soft


def _soft_names():
    """Test soft metrics plus whichever built-in soft ones are registered."""
    wanted = ["t_soft_acc", "neg_t_tv", "soft_f1_micro", "soft_accuracy", "neg_jsd", "po_jsd"]
    return [n for n in wanted if n in get_scorer_names()]


@pytest.mark.parametrize("est_name", sorted(ESTIMATORS))
def test_soft_targets_routed_and_sliced_per_fold(routing, est_name):
    X, y = _iris()
    P = _dirichlet_targets(y, 3, seed=1)
    names = _soft_names()
    res = cross_validate(
        ESTIMATORS[est_name](),
        X,
        y,
        cv=KFold(4, shuffle=True, random_state=2),
        scoring={n: get_scorer(n) for n in names},
        params={"y_true_soft": P},
        return_indices=True,
        return_estimator=True,
    )
    for fold, test in enumerate(res["indices"]["test"]):
        est = res["estimator"][fold]
        Q = _aligned_proba(est, X[test], [0, 1, 2])
        for n in names:
            metric = get_metric(n)
            sign = 1 if metric.greater_is_better else -1
            expected = sign * metric(P[test], Q)
            assert res[f"test_{n}"][fold] == pytest.approx(expected, abs=1e-12)
            # the soft targets were really used: one-hot targets give another value
            hard = sign * metric(_one_hot(y[test], [0, 1, 2]), Q)
            assert abs(res[f"test_{n}"][fold] - hard) > 1e-6


def test_soft_scorer_without_targets_uses_one_hot():
    X, y = _iris()
    cv = KFold(3, shuffle=True, random_state=0)
    res = cross_validate(
        LogisticRegression(max_iter=500), X, y, cv=cv,
        scoring={"s": get_scorer("t_soft_acc"), "tv": get_scorer("neg_t_tv")},
        return_indices=True, return_estimator=True,
    )
    for fold, test in enumerate(res["indices"]["test"]):
        Q = _aligned_proba(res["estimator"][fold], X[test], [0, 1, 2])
        P = _one_hot(y[test], [0, 1, 2])
        assert res["test_s"][fold] == pytest.approx((np.minimum(P, Q).sum(1)).mean(), abs=1e-12)
        assert res["test_tv"][fold] == pytest.approx(-_tv_loss(P, Q), abs=1e-12)
    # on one-hot targets soft accuracy is the mean probability of the true class
    assert np.all(res["test_s"] > 0.6)


def test_soft_targets_need_routing():
    """Without routing scikit-learn sends metadata to ``fit`` only: it fails loudly."""
    X, y = _iris()
    P = _dirichlet_targets(y, 3)
    with pytest.raises((TypeError, ValueError)):
        cross_validate(
            LogisticRegression(max_iter=500), X, y, cv=3,
            scoring=get_scorer("t_soft_acc"), params={"y_true_soft": P},
        )


def test_soft_request_survives_sample_weight_request(routing):
    X, y = _iris()
    P = _dirichlet_targets(y, 3, seed=3)
    w = np.random.default_rng(4).integers(1, 4, size=len(y)).astype(float)
    scorer = get_scorer("t_soft_acc").set_score_request(sample_weight=True)
    requests = scorer.get_metadata_routing().score.requests
    assert requests["y_true_soft"] is True and requests["sample_weight"] is True
    est = LogisticRegression(max_iter=500).set_fit_request(sample_weight=False)
    res = cross_validate(
        est, X, y, cv=KFold(3, shuffle=True, random_state=0),
        scoring=scorer, params={"y_true_soft": P, "sample_weight": w},
        return_indices=True, return_estimator=True,
    )
    for fold, test in enumerate(res["indices"]["test"]):
        Q = _aligned_proba(res["estimator"][fold], X[test], [0, 1, 2])
        mins = np.minimum(P[test], Q).sum(1)
        expected = np.sum(w[test] * mins) / np.sum(w[test])
        assert res["test_score"][fold] == pytest.approx(expected, abs=1e-12)
        assert abs(expected - mins.mean()) > 1e-6  # the weights mattered


def test_grid_search_refit_on_soft_scorer(routing):
    X, y = _iris()
    P = _dirichlet_targets(y, 3, seed=5)
    cv = KFold(3, shuffle=True, random_state=0)
    grid = {"max_depth": [1, 2, 4]}
    tree = DecisionTreeClassifier(random_state=0)
    scoring = {"soft": get_scorer("t_soft_acc"), "acc": get_scorer("accuracy"),
               "tv": get_scorer("neg_t_tv")}
    search = GridSearchCV(tree, grid, cv=cv, scoring=scoring, refit="soft")
    search.fit(X, y, y_true_soft=P)
    mean_soft = search.cv_results_["mean_test_soft"]
    assert search.best_index_ == int(np.argmax(mean_soft))
    # recompute the grid by hand: per-fold soft scores on the routed, sliced P
    for i, depth in enumerate(grid["max_depth"]):
        values = []
        for train, test in cv.split(X):
            est = DecisionTreeClassifier(max_depth=depth, random_state=0)
            est.fit(X[train], y[train])
            Q = _aligned_proba(est, X[test], [0, 1, 2])
            values.append(np.minimum(P[test], Q).sum(1).mean())
        assert mean_soft[i] == pytest.approx(np.mean(values), abs=1e-12)
    assert np.ptp(mean_soft) > 1e-3  # the refit choice was not a tie
    best = search.best_estimator_
    assert best.max_depth == grid["max_depth"][search.best_index_]
    full = np.minimum(P, best.predict_proba(X)).sum(1).mean()
    assert search.score(X, y, y_true_soft=P) == pytest.approx(full, abs=1e-12)
    # refit on a loss scorer picks the smallest loss
    search_tv = GridSearchCV(tree, grid, cv=cv, scoring=scoring, refit="tv")
    search_tv.fit(X, y, y_true_soft=P)
    assert np.all(search_tv.cv_results_["mean_test_tv"] <= 0)
    assert search_tv.best_index_ == int(np.argmax(search_tv.cv_results_["mean_test_tv"]))


# ----------------------------------------------------------------------------- missing class


def _split_missing_class(y, missing):
    """Two folds; in the first, class ``missing`` is absent from training."""
    idx = np.arange(len(y))
    test_a = np.concatenate([idx[y == missing], idx[y != missing][::5]])
    train_a = np.setdiff1d(idx, test_a)
    test_b = train_a[::2]
    train_b = np.setdiff1d(idx, test_b)
    return [(train_a, test_a), (train_b, test_b)]


@pytest.mark.parametrize("string_labels", [False, True])
def test_fold_missing_a_class(routing, string_labels):
    X, y_int = _iris()
    names = np.array(["setosa", "versicolor", "virginica"])
    y = names[y_int] if string_labels else y_int
    classes = names if string_labels else np.array([0, 1, 2])
    P = _dirichlet_targets(y_int, 3, seed=6)
    splits = _split_missing_class(y_int, missing=2)
    scoring = {"soft": get_scorer("t_soft_acc"), "tv": get_scorer("neg_t_tv"),
               "f1": get_scorer("f1_macro"), "acc": get_scorer("accuracy")}
    res = cross_validate(LogisticRegression(max_iter=500), X, y, cv=splits, scoring=scoring,
                         params={"y_true_soft": P}, return_estimator=True)
    est0 = res["estimator"][0]
    assert est0.classes_.tolist() == classes[:2].tolist()  # the fold really misses a class
    for fold, (_, test) in enumerate(splits):
        est = res["estimator"][fold]
        Q = _aligned_proba(est, X[test], classes.tolist())
        assert Q.shape == (len(test), 3)
        if fold == 0:
            assert np.all(Q[:, 2] == 0)
        assert res["test_soft"][fold] == pytest.approx(np.minimum(P[test], Q).sum(1).mean(),
                                                       abs=1e-12)
        assert res["test_tv"][fold] == pytest.approx(-_tv_loss(P[test], Q), abs=1e-12)
        pred = est.predict(X[test])
        # macro over the full label set: a never-predicted class counts as F1 = 0
        f1 = get_metric("f1_macro")(y[test], pred, labels=classes, zero_division=0.0)
        assert res["test_f1"][fold] == pytest.approx(f1, abs=1e-12)
    # fold 0 never predicts class 2, whose F1 is 0 over all three classes
    per_class = get_metric("f1_macro")(y[splits[0][1]], est0.predict(X[splits[0][1]]),
                                       labels=classes, average=None, zero_division=0.0)
    assert per_class[2] == 0.0
    assert res["test_f1"][0] == pytest.approx(per_class.mean(), abs=1e-12)


def test_class_only_in_soft_targets_needs_classes(routing):
    """A class that is never a hard label: the width of P tells the scorer so."""
    X, y = _iris()
    P3 = _dirichlet_targets(y, 3, seed=7)
    P = np.column_stack([P3 * 0.9, np.full(len(y), 0.1)])  # class 3 only in P
    cv = KFold(3, shuffle=True, random_state=0)
    with pytest.raises(ValueError, match="classes="):
        cross_validate(LogisticRegression(max_iter=500), X, y, cv=cv,
                       scoring=get_scorer("t_soft_acc"), params={"y_true_soft": P},
                       error_score="raise")
    res = cross_validate(LogisticRegression(max_iter=500), X, y, cv=cv,
                         scoring=get_scorer("t_soft_acc", classes=[0, 1, 2, 3]),
                         params={"y_true_soft": P}, return_estimator=True, return_indices=True)
    for fold, test in enumerate(res["indices"]["test"]):
        Q = _aligned_proba(res["estimator"][fold], X[test], [0, 1, 2, 3])
        assert res["test_score"][fold] == pytest.approx(
            np.minimum(P[test], Q).sum(1).mean(), abs=1e-12)


def test_binary_problem_uses_both_columns(routing):
    X, y = _iris()
    keep = y > 0
    X, y = X[keep], y[keep]  # classes 1 and 2
    P = _dirichlet_targets(y - 1, 2, seed=8)
    res = cross_validate(LogisticRegression(max_iter=500), X, y, cv=KFold(3, shuffle=True,
                         random_state=0), scoring=get_scorer("neg_t_tv"),
                         params={"y_true_soft": P}, return_estimator=True, return_indices=True)
    for fold, test in enumerate(res["indices"]["test"]):
        Q = res["estimator"][fold].predict_proba(X[test])
        assert res["test_score"][fold] == pytest.approx(-_tv_loss(P[test], Q), abs=1e-12)


# ----------------------------------------------------------------------------- multilabel


def test_multilabel_scorers():
    X, Y = make_multilabel_classification(n_samples=120, n_classes=4, random_state=0)
    est = MultiOutputClassifier(DecisionTreeClassifier(max_depth=3, random_state=0))
    rng = np.random.default_rng(9)
    P = np.clip(Y * 0.8 + rng.uniform(0, 0.2, Y.shape), 0, 1)
    cv = KFold(3, shuffle=True, random_state=0)
    names = ["neg_t_ml_mae", "multilabel_f1_micro", "multilabel_f1_macro"]
    names = [n for n in names if n in get_scorer_names()]
    with sklearn.config_context(enable_metadata_routing=True):
        res = cross_validate(est, X, Y, cv=cv, scoring={n: get_scorer(n) for n in names},
                             params={"y_true_soft": P}, return_estimator=True,
                             return_indices=True)
    plain = cross_validate(est, X, Y, cv=cv, scoring={n: get_scorer(n) for n in names})
    for fold, test in enumerate(res["indices"]["test"]):
        fitted = res["estimator"][fold]
        for n in names:
            metric = get_metric(n)
            if metric.response_method == "predict_proba":
                Q = np.column_stack([p[:, list(c).index(1)] if 1 in c else np.zeros(len(test))
                                     for p, c in zip(fitted.predict_proba(X[test]),
                                                     fitted.classes_)])
            else:
                Q = fitted.predict(X[test])
            sign = 1 if metric.greater_is_better else -1
            assert res[f"test_{n}"][fold] == pytest.approx(sign * metric(P[test], Q), abs=1e-12)
            assert plain[f"test_{n}"][fold] == pytest.approx(
                sign * metric(Y[test].astype(float), Q), abs=1e-12)


# ----------------------------------------------------------------------------- custom metrics


def test_custom_metrics_both_paths():
    X, y = _iris()
    cv = KFold(3, shuffle=True, random_state=0)

    def plain_acc(y_true, y_pred):
        return float(np.mean(np.asarray(y_true) == np.asarray(y_pred)))

    def acc_stats(y_true, y_pred, **params):
        hit = (np.asarray(y_true) == np.asarray(y_pred)).astype(float)
        return np.column_stack([hit, np.ones_like(hit)])

    register_metric("t_plain_acc", plain_acc)
    register_metric("t_fast_acc", statistics=acc_stats, aggregate=_ratio_aggregate, cellwise=True)
    try:
        res = cross_validate(
            LogisticRegression(max_iter=500), X, y, cv=cv,
            scoring={n: get_scorer(n) for n in ("t_plain_acc", "t_fast_acc", "accuracy")},
        )
        np.testing.assert_allclose(res["test_t_plain_acc"], res["test_accuracy"], atol=1e-12)
        np.testing.assert_allclose(res["test_t_fast_acc"], res["test_accuracy"], atol=1e-12)
        assert np.all(res["test_accuracy"] < 1)  # not a trivially perfect fit
    finally:
        unregister_metric("t_plain_acc")
        unregister_metric("t_fast_acc")
