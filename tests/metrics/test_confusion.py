"""The confusion-matrix metrics (issue 22, section 1) against scikit-learn.

Naive twins: every registered name is scored by sigtest (through the
registry, its statistics/aggregate pair and the significance engine) and by
the scikit-learn function of the same name on the same random input, binary
and multiclass, with and without ``sample_weight``, and on degenerate data.
"""

import io
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn import metrics as skm
from sklearn.exceptions import UndefinedMetricWarning

import sigtest
from sigtest import compare, get_test, score
from sigtest.metrics import get_metric, get_scorer, get_scorer_names
from sigtest.metrics._confusion import _confusion_statistics, jaccard_score

TOL = 1e-9

SINGLE = ["balanced_accuracy", "matthews_corrcoef", "cohen_kappa", "jaccard",
          "jaccard_macro", "jaccard_micro", "jaccard_weighted",
          "positive_likelihood_ratio", "neg_negative_likelihood_ratio"]
SAMPLES = ["f1_samples", "precision_samples", "recall_samples", "jaccard_samples"]


def _labels(seed, n, k, *, strings=False):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    p = np.where(rng.random(n) < 0.6, y, rng.integers(0, k, n))
    if strings:
        names = np.array([f"c{j}" for j in range(k)])
        y, p = names[y], names[p]
    return y, p, rng.uniform(0.1, 3.0, n)


def _sk(name, y, p, w=None, **kw):
    """scikit-learn's value of the scorer ``name`` (the function its scorer calls)."""
    if name == "balanced_accuracy":
        return skm.balanced_accuracy_score(y, p, sample_weight=w, **kw)
    if name == "matthews_corrcoef":
        return skm.matthews_corrcoef(y, p, sample_weight=w)
    if name == "cohen_kappa":
        return skm.cohen_kappa_score(y, p, sample_weight=w, **kw)
    if name.startswith("jaccard"):
        average = name.partition("_")[2] or "binary"
        return skm.jaccard_score(y, p, sample_weight=w, average=average, **kw)
    if name.endswith("likelihood_ratio"):
        # sklearn's scorer functions use replace_undefined_by=1.0
        kw.setdefault("replace_undefined_by", 1.0)
        ratios = skm.class_likelihood_ratios(y, p, sample_weight=w, **kw)
        return ratios[0] if name.startswith("positive") else ratios[1]
    which = name.partition("_")[0]
    func = {"f1": skm.f1_score, "precision": skm.precision_score,
            "recall": skm.recall_score, "jaccard": skm.jaccard_score}[which]
    return func(y, p, average="samples", sample_weight=w, **kw)


def _ours(name, y, p, w=None, **kw):
    return get_metric(name)(y, p, sample_weight=w, **kw)


def _both(name, y, p, w=None, ours=None, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _ours(name, y, p, w, **(kw if ours is None else ours)), _sk(name, y, p, w, **kw)


def _assert_same(got, want):
    if np.isnan(want):
        assert np.isnan(got)
    else:
        assert got == pytest.approx(want, rel=TOL, abs=TOL)


def test_every_name_is_registered_and_a_scorer():
    sk_names = set(skm.get_scorer_names())
    for name in SINGLE + SAMPLES:
        assert name in sk_names or name == "cohen_kappa"
        assert name in get_scorer_names()
        metric = get_metric(name)
        assert metric.has_statistics
        assert metric.cellwise == (name in SINGLE)
        assert metric.decomposable == (name in SAMPLES)
    assert not get_metric("neg_negative_likelihood_ratio").greater_is_better
    assert get_metric("negative_likelihood_ratio").scorer_name == "neg_negative_likelihood_ratio"


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("k", [2, 3, 6])
@pytest.mark.parametrize("name", [n for n in SINGLE if "likelihood" not in n and n != "jaccard"])
def test_multiclass_equals_sklearn(name, k, weighted):
    for seed in range(4):
        y, p, w = _labels(seed, 70, k, strings=seed % 2 == 1)
        _assert_same(*_both(name, y, p, w if weighted else None))


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_cohen_kappa_weights_equal_sklearn(weights, weighted):
    for seed in range(5):
        y, p, w = _labels(seed, 90, 5)
        _assert_same(*_both("cohen_kappa", y, p, w if weighted else None, weights=weights))
        # a subset of labels, in another order: items outside it are left out
        labels = [3, 0, 1]
        _assert_same(*_both("cohen_kappa", y, p, w if weighted else None,
                            weights=weights, labels=labels))


def test_balanced_accuracy_adjusted_and_absent_classes():
    y, p, w = _labels(1, 50, 4)
    for adjusted in (False, True):
        _assert_same(*_both("balanced_accuracy", y, p, w, adjusted=adjusted))
    # a class predicted but never true is left out (sklearn warns, so do we)
    y, p = np.array([0, 0, 1, 1, 1]), np.array([0, 2, 1, 1, 0])
    with pytest.warns(UserWarning, match="not in y_true"):
        ours = get_metric("balanced_accuracy")(y, p)
    with pytest.warns(UserWarning, match="not in y_true"):
        assert ours == pytest.approx(skm.balanced_accuracy_score(y, p), abs=TOL)


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_binary_scores_equal_sklearn(weighted):
    for seed in range(6):
        y, p, w = _labels(seed, 40, 2)
        w = w if weighted else None
        for name in ("positive_likelihood_ratio", "neg_negative_likelihood_ratio"):
            _assert_same(*_both(name, y, p, w))
            _assert_same(*_both(name, y, p, w, replace_undefined_by=np.nan))
        _assert_same(*_both("jaccard", y, p, w, pos_label=1))
        _assert_same(*_both("jaccard", y, p, w, ours={"pos_label": 0}, pos_label=0))


def test_likelihood_ratios_one_vs_rest_and_label_order():
    y, p, w = _labels(3, 80, 4)
    for name, which in (("positive_likelihood_ratio", 0), ("negative_likelihood_ratio", 1)):
        want = skm.class_likelihood_ratios(y == 2, p == 2, sample_weight=w,
                                           replace_undefined_by=1.0)[which]
        assert get_metric(name)(y, p, pos_label=2, sample_weight=w) == pytest.approx(want)
        with pytest.raises(ValueError, match="binary.*pos_label"):
            get_metric(name)(y, p)
        # labels=[negative, positive] as in sklearn
        yb, pb, _ = _labels(4, 60, 2)
        want = skm.class_likelihood_ratios(yb, pb, labels=[1, 0],
                                           replace_undefined_by=1.0)[which]
        assert get_metric(name)(yb, pb, labels=[1, 0]) == pytest.approx(want)


@pytest.mark.parametrize("zero_division", ["warn", 0.0, 1.0, np.nan])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("name", SAMPLES)
def test_samples_averages_equal_sklearn(name, weighted, zero_division):
    if name == "jaccard_samples" and not isinstance(zero_division, str) and np.isnan(
            zero_division):
        pytest.skip("sklearn's jaccard_score has no zero_division=nan")
    rng = np.random.default_rng(11)
    for _ in range(4):
        Y = (rng.random((60, 5)) < 0.3).astype(int)
        P = np.where(rng.random((60, 5)) < 0.75, Y, 1 - Y)
        Y[:3], P[1:5] = 0, 0  # empty label sets: undefined per-item values
        w = rng.uniform(0.1, 2.0, 60) if weighted else None
        _assert_same(*_both(name, Y, P, w, zero_division=zero_division))


def test_samples_warn_like_sklearn():
    Y = np.array([[1, 0], [0, 0], [1, 1]])
    P = np.array([[1, 0], [0, 0], [0, 1]])
    with pytest.warns(UndefinedMetricWarning, match="samples with no true nor predicted"):
        get_metric("f1_samples")(Y, P)
    # probabilities are thresholded at 0.5 like multilabel_f1 (0.5 itself is negative)
    assert get_metric("f1_samples")(Y, P * 0.9, zero_division=1.0) == pytest.approx(
        skm.f1_score(Y, P, average="samples", zero_division=1.0))
    assert get_metric("f1_samples")(Y, P * 0.5, zero_division=1.0) == pytest.approx(
        skm.f1_score(Y, 0 * P, average="samples", zero_division=1.0))


# --------------------------------------------------------------------------- degenerate
def test_one_class_present():
    y = p = np.zeros(12, dtype=int)
    assert get_metric("matthews_corrcoef")(y, p) == skm.matthews_corrcoef(y, p) == 0.0
    assert get_metric("balanced_accuracy")(y, p) == skm.balanced_accuracy_score(y, p) == 1.0
    with pytest.warns(UndefinedMetricWarning, match="kappa is undefined"):
        assert np.isnan(get_metric("cohen_kappa")(y, p))
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(skm.cohen_kappa_score(y, p))
    with pytest.warns(UndefinedMetricWarning, match="kappa is undefined"):
        assert get_metric("cohen_kappa")(y, p, replace_undefined_by=0.0) == 0.0
    # adjusted balanced accuracy of one class: sklearn divides 0 by 0 -> nan
    with pytest.warns(UserWarning, match="Balanced accuracy is undefined"):
        assert np.isnan(get_metric("balanced_accuracy")(y, p, adjusted=True))
    # all predictions one class, two true classes: MCC 0 (sklearn: no warning)
    y = np.array([0, 1, 1, 0, 1])
    assert get_metric("matthews_corrcoef")(y, np.ones(5, int)) == 0.0
    assert skm.matthews_corrcoef(y, np.ones(5, int)) == 0.0


def test_likelihood_ratios_undefined():
    y = np.array([0, 0, 1, 1, 1])
    p = np.array([0, 0, 1, 0, 1])  # fp = 0: LR+ undefined -> 1.0 (sklearn's scorer)
    with pytest.warns(UndefinedMetricWarning, match="positive likelihood ratio"):
        assert get_metric("positive_likelihood_ratio")(y, p) == 1.0
    assert get_metric("positive_likelihood_ratio")(
        y, p, replace_undefined_by={"LR+": np.inf, "LR-": 0.0}, zero_division=0.0) == np.inf
    p = np.array([1, 1, 1, 0, 1])  # tn = 0: LR- undefined
    with pytest.warns(UndefinedMetricWarning, match="negative likelihood ratio"):
        assert get_metric("negative_likelihood_ratio")(y, p) == 1.0
    for name in ("positive_likelihood_ratio", "neg_negative_likelihood_ratio"):
        _assert_same(*_both(name, y, p))
        _assert_same(*_both(name, y, p, replace_undefined_by=np.nan))
    # no positive item in y_true: nan unless the fp / tn rule replaces it
    y0, p0 = np.array([0, 0, 0, 0]), np.array([0, 1, 1, 0])
    for name in ("positive_likelihood_ratio", "neg_negative_likelihood_ratio"):
        _assert_same(*_both(name, y0, p0, ours={"labels": [0, 1]}, labels=[0, 1]))


@pytest.mark.parametrize("bad", [
    ("cohen_kappa", {"weights": "cubic"}, "'weights'"),
    ("cohen_kappa", {"replace_undefined_by": 2.0}, "'replace_undefined_by'"),
    ("balanced_accuracy", {"adjusted": "yes"}, "'adjusted'"),
    ("positive_likelihood_ratio", {"replace_undefined_by": 0.5}, "'replace_undefined_by'"),
    ("positive_likelihood_ratio", {"replace_undefined_by": {"LR+": 0.5, "LR-": 0.5}},
     "'replace_undefined_by'"),
    ("jaccard_macro", {"zero_division": "x"}, "zero_division"),
    ("jaccard", {"pos_label": 5, "labels": [0, 1]}, "pos_label"),
])
def test_bad_parameters_name_the_argument(bad):
    name, kw, pattern = bad
    y, p, _ = _labels(0, 30, 2)
    with pytest.raises((ValueError, TypeError), match=pattern):
        get_metric(name)(y, p, **kw)


def test_jaccard_score_function():
    y, p, w = _labels(5, 40, 4)
    for average in ("macro", "micro", "weighted", None):
        np.testing.assert_allclose(jaccard_score(y, p, average=average, sample_weight=w),
                                   skm.jaccard_score(y, p, average=average, sample_weight=w),
                                   rtol=TOL)
    with pytest.warns(UndefinedMetricWarning, match="Jaccard is ill-defined"):
        jaccard_score(y, p, labels=[0, 1, 9])


# --------------------------------------------------------------------------- fast path
def test_sparse_rows_equal_dense_rows():
    y, p, _ = _labels(2, 200, 7)
    labels = np.arange(6)  # class 6 left out: both sides coded -1
    dense = _confusion_statistics(y, p, labels=labels)
    indptr, indices, data, n_cols = _confusion_statistics.sparse(y, p, labels=labels)
    rebuilt = np.zeros((y.shape[0], n_cols))
    rebuilt[np.repeat(np.arange(y.shape[0]), np.diff(indptr)), indices] = data
    np.testing.assert_array_equal(rebuilt, dense)
    assert np.all(dense[(y == 6) | (p == 6), :-1] == 0)


def test_many_classes_compressed_sparse_path():
    """K = 300 classes: O(K) columns, cells compressed, sparse cell rows, same scores."""
    from sigtest._engine import prepare_paired

    rng = np.random.default_rng(0)
    n, k = 20000, 300
    y = rng.integers(0, k, n)
    a = np.where(rng.random(n) < 0.7, y, rng.integers(0, k, n))
    b = np.where(rng.random(n) < 0.75, y, rng.integers(0, k, n))
    for name, want in (("matthews_corrcoef", skm.matthews_corrcoef),
                       ("cohen_kappa", skm.cohen_kappa_score)):
        paired = prepare_paired(y, a, b, name)
        assert paired.compressed and paired.stats_a.shape[1] <= 3 * k + 2
        assert paired.score_a == pytest.approx(want(y, a), abs=TOL)
        assert paired.score_b == pytest.approx(want(y, b), abs=TOL)


# --------------------------------------------------------------------------- workflows
def _systems(seed=0, n=150, k=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    a = np.where(rng.random(n) < 0.6, y, rng.integers(0, k, n))
    b = np.where(rng.random(n) < 0.8, y, rng.integers(0, k, n))
    return y, a, b


@pytest.mark.parametrize("test_name", ["berg_kirkpatrick", "permutation", "bca"])
@pytest.mark.parametrize("name", ["matthews_corrcoef", "cohen_kappa", "jaccard_macro",
                                  "balanced_accuracy"])
def test_significance_tests_score_like_sklearn(name, test_name):
    y, a, b = _systems()
    test = get_test(test_name)
    test.set_params(n_resamples=499, random_state=0)
    result = test.test(y, a, b, metric=name)
    assert result.score_a == pytest.approx(_sk(name, y, a), abs=TOL)
    assert result.score_b == pytest.approx(_sk(name, y, b), abs=TOL)
    assert result.delta > 0 and result.pvalue < 0.05  # B is clearly better
    same = test.test(y, a, a.copy(), metric=name)
    assert same.pvalue >= 0.5


def test_kappa_weights_through_a_test_and_an_unknown_keyword():
    y, a, b = _systems(1, k=5)
    test = get_test("permutation").set_params(n_resamples=199, random_state=0)
    result = test.test(y, a, b, metric="cohen_kappa", weights="quadratic")
    assert result.score_b == pytest.approx(
        skm.cohen_kappa_score(y, b, weights="quadratic"), abs=TOL)
    with pytest.raises((TypeError, ValueError), match="no_such_keyword"):
        test.test(y, a, b, metric="matthews_corrcoef", no_such_keyword=1)


def test_compare_and_score():
    y, a, b = _systems(2)
    res = compare(y, {"a": a, "b": b}, metrics=["matthews_corrcoef", "jaccard_weighted"],
                  random_state=0)
    frame = res.to_frame()
    assert set(frame["metric"]) == {"matthews_corrcoef", "jaccard_weighted"}
    est = score(y, b, "matthews_corrcoef", n_resamples=999, random_state=0)
    assert est.estimate == pytest.approx(skm.matthews_corrcoef(y, b), abs=TOL)
    lo, hi = est.confidence_interval
    assert lo < est.estimate < hi


def test_binary_workflows_with_likelihood_ratios():
    y, a, b = _systems(3, k=2)
    res = compare(y, {"a": a, "b": b},
                  metrics=["positive_likelihood_ratio", "neg_negative_likelihood_ratio"],
                  random_state=0)
    assert set(res.to_frame()["metric"]) >= {"positive_likelihood_ratio"}
    test = get_test("permutation").set_params(n_resamples=199, random_state=0)
    result = test.test(y, a, b, metric="neg_negative_likelihood_ratio")
    assert result.score_b == pytest.approx(
        skm.class_likelihood_ratios(y, b, replace_undefined_by=1.0)[1], abs=TOL)


def test_samples_average_through_a_test():
    rng = np.random.default_rng(4)
    Y = (rng.random((120, 4)) < 0.4).astype(int)
    A = np.where(rng.random((120, 4)) < 0.7, Y, 1 - Y)
    B = np.where(rng.random((120, 4)) < 0.9, Y, 1 - Y)
    for test_name in ("permutation", "paired_t"):
        test = get_test(test_name)
        if "n_resamples" in test.get_params():
            test.set_params(n_resamples=199, random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            result = test.test(Y, A, B, metric="f1_samples")
            assert result.score_b == pytest.approx(
                skm.f1_score(Y, B, average="samples", zero_division=0.0), abs=TOL)
        assert result.pvalue < 0.05


def test_get_scorer_with_cross_validate():
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_validate

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=120) > 0).astype(int) + (X[:, 1] > 1)
    est = LogisticRegression()
    for name in ("matthews_corrcoef", "balanced_accuracy", "jaccard_macro"):
        ours = cross_validate(est, X, y, cv=3, scoring=get_scorer(name))["test_score"]
        theirs = cross_validate(est, X, y, cv=3, scoring=name)["test_score"]
        np.testing.assert_allclose(ours, theirs, rtol=TOL)


def test_cli_compare_with_new_metric(tmp_path):
    from sigtest.cli import main

    y, a, b = _systems(5)
    for name, arr in (("gold", y), ("a", a), ("b", b)):
        np.savetxt(tmp_path / f"{name}.txt", arr, fmt="%d")
    out = io.StringIO()
    status = main(["compare", str(tmp_path / "gold.txt"), str(tmp_path / "a.txt"),
                   str(tmp_path / "b.txt"), "-m", "matthews_corrcoef", "-m", "cohen_kappa",
                   "-B", "199", "--seed", "0", "--format", "csv"], out=out)
    assert status == 0
    got = pd.read_csv(io.StringIO(out.getvalue()))
    assert set(got["metric"]) == {"matthews_corrcoef", "cohen_kappa"}


def test_lazy_table_untouched():
    # the metrics are reached through the registry; nothing new at top level
    assert "matthews_corrcoef" in sigtest.get_metric_names()


# --------------------------------------------------------------------------- size
@pytest.mark.slow
@pytest.mark.parametrize("name, kw", [("matthews_corrcoef", {}),
                                      ("cohen_kappa", {"weights": "quadratic"})])
def test_permutation_size_under_the_null(name, kw):
    """A and B draw from one error model: the paired permutation test on the new
    metrics rejects at about alpha.

    R = 300 null data sets (N = 200, K = 4, 70 % right, errors uniform), B = 199
    permutations, alpha = 0.05: the rejection count is Binomial(300, <= 0.05)
    (the p-value (1 + #)/(B + 1) is valid); the 99.9 % band of the rate is
    0.05 +- 3.29 sqrt(0.05 * 0.95 / 300) = [0.009, 0.091].
    """
    rng = np.random.default_rng(2024)
    test = get_test("permutation")
    rejections, reps = 0, 300
    for r in range(reps):
        y = rng.integers(0, 4, 200)
        a = np.where(rng.random(200) < 0.7, y, rng.integers(0, 4, 200))
        b = np.where(rng.random(200) < 0.7, y, rng.integers(0, 4, 200))
        test.set_params(n_resamples=199, random_state=r)
        rejections += test.test(y, a, b, metric=name, **kw).pvalue <= 0.05
    assert 0.009 <= rejections / reps <= 0.091, rejections
