"""``metric=`` as any score function or scikit-learn scorer (issue 22, section 3)."""

import pickle

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.metrics import (
    balanced_accuracy_score,
    f1_score,
    get_scorer,
    log_loss,
    make_scorer,
    matthews_corrcoef,
)

import sigtest
from sigtest import PairedPermutation, compare, compare_datasets, score
from sigtest.metrics import Metric, as_metric


def _user_mcc(y_true, y_pred, *, sample_weight=None):
    """A user's score function (scikit-learn's MCC behind another function): the slow path."""
    return matthews_corrcoef(y_true, y_pred, sample_weight=sample_weight)


_user_mcc.__name__ = "matthews_corrcoef"


def _labels(n=300, seed=0, acc_a=0.70, acc_b=0.74):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = np.where(rng.random(n) < acc_a, y, 1 - y)
    b = np.where(rng.random(n) < acc_b, y, 1 - y)
    return y, a, b


def _proba(y, sharp, seed):
    rng = np.random.default_rng(seed)
    p1 = np.clip(np.where(y == 1, 0.5 + sharp, 0.5 - sharp) + rng.normal(0, 0.2, y.size),
                 0.02, 0.98)
    return np.column_stack([1 - p1, p1])


# ------------------------------------------------------------------ as_metric


def test_as_metric_of_a_known_sklearn_function_is_the_fast_metric():
    # before: scikit-learn's function was called on every resample
    assert as_metric(matthews_corrcoef) is sigtest.get_metric("matthews_corrcoef")
    assert as_metric(f1_score) is sigtest.get_metric("f1")  # average="binary", pos_label 1


def test_as_metric_of_a_callable():
    m = as_metric(_user_mcc)
    assert isinstance(m, Metric)
    assert m.name == "matthews_corrcoef"
    assert m.greater_is_better and not m.has_statistics
    assert (m.input_type, m.response_method) == ("labels", "predict")
    y, a, _ = _labels()
    assert m(y, a) == pytest.approx(matthews_corrcoef(y, a), abs=1e-15)
    assert "matthews_corrcoef" in sigtest.get_metric_names()  # registry untouched
    assert pickle.loads(pickle.dumps(m)) == m


def test_as_metric_of_names_and_metrics_is_get_metric():
    acc = sigtest.get_metric("accuracy")
    assert as_metric("accuracy") is acc
    assert as_metric(acc) is acc


def test_as_metric_of_sklearn_scorers():
    ba = as_metric(get_scorer("balanced_accuracy"))
    # scikit-learn's scorer of a registered configuration is that metric (fast path)
    assert ba is sigtest.get_metric("balanced_accuracy")
    loss = as_metric(get_scorer("neg_log_loss"))
    assert (loss.name, loss.greater_is_better, loss.input_type, loss.response_method) == (
        "log_loss", False, "labels_proba", "predict_proba")
    # scikit-learn's log loss is a registered metric: its fast path (issue 22)
    assert loss is sigtest.get_metric("log_loss")
    unnormalised = as_metric(make_scorer(log_loss, greater_is_better=False,
                                  response_method="predict_proba", normalize=False))
    assert not unnormalised.has_statistics  # a keyword sigtest's log loss does not take: slow path
    f1m = as_metric(get_scorer("f1_macro"))
    assert f1m.kwargs["average"] == "macro"
    y, a, _ = _labels()
    assert f1m(y, a) == pytest.approx(f1_score(y, a, average="macro"), abs=1e-15)
    own = as_metric(make_scorer(_user_mcc))
    assert own.name == "matthews_corrcoef" and not own.has_statistics


def test_as_metric_of_a_sigtest_scorer_keeps_the_fast_path():
    assert as_metric(sigtest.get_scorer("accuracy")) is sigtest.get_metric("accuracy")


def test_as_metric_rejects():
    with pytest.raises(TypeError, match="'metric'"):
        as_metric(3)
    with pytest.raises(TypeError, match="'metric'"):
        as_metric(float)  # a class is not a score function
    with pytest.raises(ValueError, match="'metric'"):
        as_metric(make_scorer(matthews_corrcoef, response_method="decision_function"))


# ------------------------------------------------------------------ the tests


def test_permutation_callable_equals_registered_name():
    y, a, b = _labels()
    test = PairedPermutation(n_resamples=999, random_state=0)
    slow = test.test(y, a, b, metric=_user_mcc)
    fast = test.test(y, a, b, metric="matthews_corrcoef")
    assert slow.metric == "matthews_corrcoef"
    assert slow.score_a == pytest.approx(matthews_corrcoef(y, a), abs=1e-12)
    assert slow.score_b == pytest.approx(matthews_corrcoef(y, b), abs=1e-12)
    assert slow.delta == pytest.approx(fast.delta, abs=1e-12)
    assert slow.score_a == pytest.approx(fast.score_a, abs=1e-12)
    # different draws: p-values agree within Monte Carlo error (4 SE of a difference)
    p = fast.pvalue
    se = np.sqrt(2 * p * (1 - p) / 1000)
    assert abs(slow.pvalue - p) <= 4 * se + 2e-3


def test_permutation_callable_matches_scipy_permutation_test():
    y, a, b = _labels(n=200, seed=3, acc_a=0.70, acc_b=0.74)
    # the NumPy MCC (equal to scikit-learn's, checked below): 4000 calls
    res = PairedPermutation(n_resamples=999, random_state=1).test(
        y, a, b, metric=_mcc_twin)

    def naive(pa, pb):  # the paired difference of the same function
        return _mcc_twin(y, pb) - _mcc_twin(y, pa)

    ref = stats.permutation_test((a, b), naive, permutation_type="samples",
                                 vectorized=False, n_resamples=999, random_state=2)
    assert res.delta == pytest.approx(ref.statistic, abs=1e-12)
    assert 0.02 < ref.pvalue < 0.9  # a p-value worth comparing
    se = np.sqrt(2 * ref.pvalue * (1 - ref.pvalue) / 1000)
    assert abs(res.pvalue - ref.pvalue) <= 4 * se


def test_scorer_equals_registered_name():
    y, a, b = _labels(seed=5)
    test = PairedPermutation(n_resamples=499, random_state=0)
    by_scorer = test.test(y, a, b, metric=get_scorer("balanced_accuracy"))
    by_name = test.test(y, a, b, metric="balanced_accuracy")
    assert by_scorer.metric == "balanced_accuracy"
    assert by_scorer.delta == pytest.approx(by_name.delta, abs=1e-12)
    assert by_scorer.score_b == pytest.approx(balanced_accuracy_score(y, b), abs=1e-12)
    assert 0 < by_scorer.pvalue <= 1


def test_proba_scorer_is_the_loss_of_the_positive_column():
    y, _, _ = _labels(n=200, seed=7)
    pa, pb = _proba(y, 0.15, 1), _proba(y, 0.25, 2)
    res = PairedPermutation(n_resamples=199, random_state=0).test(
        y, pa, pb, metric=get_scorer("neg_log_loss"))
    assert res.score_a == pytest.approx(log_loss(y, pa), abs=1e-12)
    assert res.delta == pytest.approx(log_loss(y, pb) - log_loss(y, pa), abs=1e-12)
    auc = PairedPermutation(n_resamples=99, random_state=0).test(
        y, pa, pb, metric=get_scorer("roc_auc"))
    from sklearn.metrics import roc_auc_score

    assert auc.score_b == pytest.approx(roc_auc_score(y, pb[:, 1]), abs=1e-12)


def test_callable_keywords_pass_only_if_accepted():
    y, a, b = _labels()

    def fbeta(y_true, y_pred, *, beta=1.0):
        from sklearn.metrics import fbeta_score

        return fbeta_score(y_true, y_pred, beta=beta)

    test = PairedPermutation(n_resamples=99, random_state=0)
    res = test.test(y, a, b, metric=fbeta, beta=2.0)
    from sklearn.metrics import fbeta_score

    assert res.score_a == pytest.approx(fbeta_score(y, a, beta=2.0), abs=1e-12)
    with pytest.raises(TypeError, match="zero_divison"):
        test.test(y, a, b, metric=_user_mcc, zero_divison=0.0)


@pytest.mark.parametrize("func, match", [
    (lambda y_true, y_pred: np.array([1.0, 2.0]), "real scalar"),
    (lambda y_true, y_pred: 1 / 0, "ZeroDivisionError"),
    (lambda y_true, y_pred: "high", "real scalar"),
    # before: float() turned these into scores
    (lambda y_true, y_pred: "0.5", "real scalar.*str '0.5'"),
    (lambda y_true, y_pred: True, "real scalar.*bool True"),
    (lambda y_true, y_pred: np.bool_(False), "real scalar.*bool"),
    (lambda y_true, y_pred: np.array("0.5"), "real scalar.*str"),
    (lambda y_true, y_pred: 0.5 + 0j, "real scalar.*complex"),
])
def test_bad_callable_is_a_value_error_naming_metric(func, match):
    y, a, b = _labels(n=50)
    with pytest.raises(ValueError, match="'metric'.*" + match):
        PairedPermutation(n_resamples=99, random_state=0).test(y, a, b, metric=func)
    with pytest.raises(ValueError, match="'metric'"):
        score(y, a, metric=func, n_resamples=99, random_state=0)


# ------------------------------------------------------------------ entry points


def test_score_with_a_callable():
    y, a, _ = _labels()
    res = score(y, a, metric=_user_mcc, n_resamples=999, random_state=0)
    ref = score(y, a, metric="matthews_corrcoef", n_resamples=999, random_state=0)
    assert res.metric == "matthews_corrcoef"
    assert res.estimate == pytest.approx(matthews_corrcoef(y, a), abs=1e-12)
    assert res.estimate == pytest.approx(ref.estimate, abs=1e-12)
    # different bootstrap draws: the BCa bounds agree to a few hundredths
    low, high = res.confidence_interval
    ref_low, ref_high = ref.confidence_interval
    assert low == pytest.approx(ref_low, abs=0.03)
    assert high == pytest.approx(ref_high, abs=0.03)


def test_compare_shows_the_function_name():
    y, a, b = _labels()
    res = compare(y, {"A": a, "B": b}, metrics=[_user_mcc, "accuracy"],
                  test=PairedPermutation(n_resamples=199), random_state=0)
    table = res.system_table()
    assert list(table.columns) == ["matthews_corrcoef", "accuracy"]
    assert table.loc["A", "matthews_corrcoef"] == pytest.approx(matthews_corrcoef(y, a),
                                                               abs=1e-12)
    assert table.loc["B", "accuracy"] == pytest.approx(np.mean(y == b), abs=1e-12)
    one = compare(y, {"A": a, "B": b}, metrics=_user_mcc,
                  test=PairedPermutation(n_resamples=199), random_state=0)
    assert list(one.system_table().columns) == ["matthews_corrcoef"]


def test_compare_datasets_with_a_callable():
    data = {}
    for k in range(3):
        y, a, b = _labels(n=120, seed=10 + k)
        data[f"d{k}"] = (y, {"A": a, "B": b})
    kw = dict(test=PairedPermutation(n_resamples=99), random_state=0)
    res = compare_datasets(data, metric=_user_mcc, **kw)
    ref = compare_datasets(data, metric="matthews_corrcoef", **kw)
    assert res.metric == "matthews_corrcoef"
    pd.testing.assert_frame_equal(res.scores, ref.scores, atol=1e-12)


def test_cross_val_compare_with_a_callable():
    from sklearn.datasets import make_classification
    from sklearn.linear_model import LogisticRegression
    from sklearn.tree import DecisionTreeClassifier

    X, y = make_classification(n_samples=120, random_state=0)
    est = {"lr": LogisticRegression(), "tree": DecisionTreeClassifier(random_state=0)}
    kw = dict(cv=3, test=PairedPermutation(n_resamples=99), random_state=0)
    res = sigtest.cross_val_compare(est, X, y, metrics=[_user_mcc], **kw)
    ref = sigtest.cross_val_compare(est, X, y, metrics=["matthews_corrcoef"], **kw)
    assert list(res.system_table().columns) == ["matthews_corrcoef"]
    pd.testing.assert_frame_equal(res.system_table(), ref.system_table(), atol=1e-12)


def _mcc_twin(y_true, y_pred, sample_weight=None):
    """Naive binary Matthews correlation (numpy), a cheap user callable.

    scikit-learn's costs ~2 ms a call (validation); the slow path makes
    thousands of calls, so the tests that draw many resamples use this one.
    """
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    w = np.ones(y_true.shape[0]) if sample_weight is None else np.asarray(sample_weight)
    tp = np.sum(w * ((y_true == 1) & (y_pred == 1)))
    tn = np.sum(w * ((y_true == 0) & (y_pred == 0)))
    fp = np.sum(w * ((y_true == 0) & (y_pred == 1)))
    fn = np.sum(w * ((y_true == 1) & (y_pred == 0)))
    den = np.sqrt(float((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)))
    return 0.0 if den == 0 else float(tp * tn - fp * fn) / den


def test_mcc_twin_is_sklearn():
    y, a, _ = _labels()
    assert _mcc_twin(y, a) == pytest.approx(matthews_corrcoef(y, a), abs=1e-12)
    w = np.random.default_rng(1).integers(1, 3, y.size).astype(float)
    assert _mcc_twin(y, a, sample_weight=w) == pytest.approx(
        matthews_corrcoef(y, a, sample_weight=w), abs=1e-12)


@pytest.mark.slow
def test_callable_permutation_is_valid_under_the_null():
    # 400 null data sets (A, B exchangeable), B=199: the rejection rate at 0.05 is
    # 0.05 +- 3 SE = [0.017, 0.083] (SE = sqrt(0.05 * 0.95 / 400) = 0.011)
    rng = np.random.default_rng(2022)
    test = PairedPermutation(n_resamples=199, exact=False)
    rejected = 0
    for rep in range(400):
        y = rng.integers(0, 2, 80)
        a = np.where(rng.random(80) < 0.7, y, 1 - y)
        b = np.where(rng.random(80) < 0.7, y, 1 - y)
        test.set_params(random_state=rep)
        rejected += test.test(y, a, b, metric=_mcc_twin).pvalue <= 0.05
    assert 0.017 <= rejected / 400 <= 0.083


@pytest.mark.parametrize("weighted", [False, True])  # memoised label tables / one call each
def test_slow_path_threads_give_the_same_result(weighted):
    from sigtest import BCaInterval

    y, a, b = _labels(n=150, seed=4)
    w = np.random.default_rng(1).integers(1, 3, y.size).astype(float) if weighted else None
    mcc = _mcc_twin  # weighted when given, as scikit-learn's (checked above)
    for test in (PairedPermutation(n_resamples=299, exact=False), BCaInterval(n_resamples=299)):
        one = test.set_params(n_jobs=1, random_state=0).test(
            y, a, b, metric=mcc, sample_weight=w)
        two = test.set_params(n_jobs=2, random_state=0).test(
            y, a, b, metric=mcc, sample_weight=w)
        np.testing.assert_array_equal(
            [one.pvalue, one.delta, *one.confidence_interval],
            [two.pvalue, two.delta, *two.confidence_interval])
