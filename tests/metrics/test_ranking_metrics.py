"""ROC AUC and average precision (issue 22): values against scikit-learn, bad input.

Naive twins: scikit-learn's ``roc_auc_score`` and ``average_precision_score``
called in the tests on the same data (ties, weights, multiclass).
"""

import warnings

import numpy as np
import pytest
from sklearn import metrics as skm

import sigtest
from sigtest.metrics import get_metric

BINARY = ["roc_auc", "average_precision"]
MULTI = {"roc_auc_ovr": ("ovr", "macro"), "roc_auc_ovo": ("ovo", "macro"),
         "roc_auc_ovr_weighted": ("ovr", "weighted"),
         "roc_auc_ovo_weighted": ("ovo", "weighted")}


def _sk_binary(name, y, s, w=None):
    f = skm.roc_auc_score if name == "roc_auc" else skm.average_precision_score
    return f(y, s, sample_weight=w)


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("seed", range(6))
def test_binary_equals_sklearn_with_ties_and_weights(name, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 60))
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    # coarse scores: many ties; real decision scores outside [0, 1]
    s = rng.integers(-3, 4, n) * 0.7 if seed % 2 else rng.normal(size=n) * 5
    metric = get_metric(name)
    assert metric(y, s) == pytest.approx(_sk_binary(name, y, s), abs=1e-12)
    w = rng.integers(0, 4, n).astype(float)
    w[:2] = 1.0
    assert metric(y, s, sample_weight=w) == pytest.approx(_sk_binary(name, y, s, w),
                                                          abs=1e-12)
    # a 2-column predict_proba: the second column is the positive class's
    p = np.clip(s / 20 + 0.5, 0, 1)
    proba = np.stack([1 - p, p], axis=1)
    assert metric(y, proba) == pytest.approx(_sk_binary(name, y, p), abs=1e-12)


@pytest.mark.parametrize("name", list(MULTI))
@pytest.mark.parametrize("seed", range(4))
def test_multiclass_equals_sklearn(name, seed):
    rng = np.random.default_rng(seed)
    K = 3 + seed % 2
    n = 50
    y = rng.integers(0, K, n)
    y[:K] = np.arange(K)
    p = rng.dirichlet(np.ones(K), n)
    if seed % 2:
        p = np.round(p, 1)
        p /= p.sum(axis=1, keepdims=True)
    multi_class, average = MULTI[name]
    expected = skm.roc_auc_score(y, p, multi_class=multi_class, average=average)
    assert get_metric(name)(y, p) == pytest.approx(expected, abs=1e-12)
    if multi_class == "ovr":
        w = rng.random(n)
        expected = skm.roc_auc_score(y, p, multi_class="ovr", average=average,
                                     sample_weight=w)
        assert get_metric(name)(y, p, sample_weight=w) == pytest.approx(expected, abs=1e-12)
    else:  # scikit-learn refuses weights for one-vs-one; so does sigtest
        with pytest.raises(ValueError, match="sample_weight"):
            get_metric(name)(y, p, sample_weight=np.ones(n))


@pytest.mark.parametrize("average", ["macro", "weighted", "micro"])
@pytest.mark.parametrize("seed", range(4))
def test_multiclass_average_precision_equals_sklearn(average, seed):
    # scikit-learn binarizes the labels (one-vs-rest); any real scores, ties, weights
    rng = np.random.default_rng(seed)
    K = 3 + seed % 3
    n = int(rng.integers(20, 90))
    y = rng.integers(0, K, n)
    y[:K] = np.arange(K)
    s = rng.normal(size=(n, K)) * 3
    if seed % 2:
        s = np.round(s, 0)  # many ties within and across classes
    w = rng.integers(0, 4, n).astype(float)
    w[:K] = 1.0
    metric = get_metric("average_precision")
    for sw in (None, w):
        expected = skm.average_precision_score(y, s, average=average, sample_weight=sw)
        assert metric(y, s, average=average, sample_weight=sw) == pytest.approx(expected,
                                                                                abs=1e-12)


def test_multiclass_average_precision_string_labels_and_bad_average():
    rng = np.random.default_rng(5)
    y = rng.choice(["cat", "dog", "emu"], 60)
    p = rng.dirichlet(np.ones(3), 60)
    assert get_metric("average_precision")(y, p) == pytest.approx(
        skm.average_precision_score(y, p), abs=1e-12)
    for average, match in [("samples", "'average'"), (None, "'average'")]:
        with pytest.raises(ValueError, match=match):
            get_metric("average_precision")(y, p, average=average)
    with pytest.raises(ValueError, match="'pos_label' is fixed to 1"):
        get_metric("average_precision")(y, p, pos_label="dog")
    with pytest.raises(ValueError, match="columns"):  # one column too few
        get_metric("average_precision")(y, p[:, :2])


def test_string_labels_and_labels_parameter():
    rng = np.random.default_rng(3)
    y = rng.choice(["cat", "dog", "emu"], 40)
    p = rng.dirichlet(np.ones(3), 40)
    assert get_metric("roc_auc_ovr")(y, p) == pytest.approx(
        skm.roc_auc_score(y, p, multi_class="ovr"), abs=1e-12)
    yb = rng.choice(["neg", "pos"], 40)
    s = rng.normal(size=40)
    assert get_metric("roc_auc")(yb, s) == pytest.approx(skm.roc_auc_score(yb, s), abs=1e-12)
    assert get_metric("average_precision")(yb, s, pos_label="pos") == pytest.approx(
        skm.average_precision_score(yb, s, pos_label="pos"), abs=1e-12)


def test_one_class_matches_sklearn():
    """scikit-learn 1.9: ROC AUC with one class is nan with UndefinedMetricWarning;
    average precision without positives is 0.0 with a warning."""
    y = np.ones(6, dtype=int)
    s = np.linspace(0, 1, 6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert np.isnan(skm.roc_auc_score(y, s))
        assert skm.average_precision_score(1 - y, s) == 0.0
    with pytest.warns(sigtest.exceptions.UndefinedMetricWarning, match="not defined"):
        assert np.isnan(get_metric("roc_auc")(y, s))
    with pytest.warns(sigtest.exceptions.UndefinedMetricWarning, match="no positive"):
        assert get_metric("average_precision")(1 - y, s) == 0.0
    # a class of labels absent from y_true: nan, as scikit-learn
    rng = np.random.default_rng(0)
    y3 = rng.integers(0, 2, 30)
    y3[:2] = [0, 1]
    p = rng.dirichlet(np.ones(3), 30)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = skm.roc_auc_score(y3, p, multi_class="ovr", labels=[0, 1, 2])
    assert np.isnan(expected)
    with pytest.warns(sigtest.exceptions.UndefinedMetricWarning):
        assert np.isnan(get_metric("roc_auc_ovr")(y3, p, labels=[0, 1, 2]))


@pytest.mark.parametrize("name, y, pred, match", [
    ("roc_auc", [0, 1, 2, 1], [0.1, 0.2, 0.3, 0.4], "1-D"),            # 1-D score, 3 classes
    ("roc_auc_ovr", [0, 1, 2, 1], [0.1, 0.2, 0.3, 0.4], "1-D"),
    ("roc_auc_ovr", [0, 1, 2, 1], [[.5, .5], [.5, .5], [.5, .5], [.5, .5]], "columns"),
    ("roc_auc_ovr", [0, 1, 2, 1], [[.3, .3, .1]] * 4, "sum"),             # not probabilities
    ("roc_auc", [0, 1, 0, 1], [0.1, np.nan, 0.3, 0.4], "NaN"),
    ("average_precision", ["a", "b", "a", "b"], [0.1, 0.2, 0.3, 0.4], "pos_label"),
    ("roc_auc", [[0.2, 0.8], [0.5, 0.5]], [0.1, 0.2], "y_true"),        # distributions
])
def test_bad_input_names_argument_and_metric(name, y, pred, match):
    with pytest.raises(ValueError, match=match):
        get_metric(name)(np.asarray(y), np.asarray(pred))


def test_labels_for_a_probability_metric_is_an_error():
    # TypeError in this branch's check_labels_proba, ValueError after branch proba's
    # later change (issue 22: "labels for a probability metric ... a ValueError")
    with pytest.raises((TypeError, ValueError), match="y_pred"):
        get_metric("roc_auc")(np.array([0, 1, 1]), np.array(["a", "b", "b"]))


@pytest.mark.parametrize("name", BINARY + ["roc_auc_ovr"])
def test_every_entry_point_takes_the_names(name):
    rng = np.random.default_rng(1)
    n = 80
    multi = name != "roc_auc" and name != "average_precision"
    K = 3 if multi else 2
    y = rng.integers(0, K, n)
    if multi:
        a = rng.dirichlet(np.ones(K), n)
        b = 0.5 * a + 0.5 * np.eye(K)[y]
    else:
        a = rng.normal(size=n) + y
        b = rng.normal(size=n) + 2 * y
    f = get_metric(name)
    res = sigtest.PairedPermutation(n_resamples=99, random_state=0).test(y, a, b, metric=name)
    assert res.score_a == pytest.approx(f(y, a), abs=1e-12)
    assert res.score_b == pytest.approx(f(y, b), abs=1e-12)
    assert sigtest.score(y, a, metric=name, n_resamples=50).estimate == pytest.approx(f(y, a))


# ------------------------------------------- one reading of the class set per call
@pytest.mark.parametrize("call", [
    lambda y, p: get_metric("average_precision")(y, p),
    lambda y, p: get_metric("average_precision")(y, p, average="micro"),
    lambda y, p: get_metric("roc_auc_ovr")(y, p),
    lambda y, p: get_metric("roc_auc_ovo")(y, p),
], ids=["ap_macro", "ap_micro", "auc_ovr", "auc_ovo"])
def test_multiclass_ranking_reads_y_true_classes_once(monkeypatch, call):
    # before: average precision took np.unique(y_true) three times per system (its
    # multiclass decision, ranked_scores's, the input check's), the multiclass AUCs twice
    rng = np.random.default_rng(4)
    n, K = 57, 4
    y = rng.integers(0, K, n)
    y[:K] = np.arange(K)
    p = rng.dirichlet(np.ones(K), n)
    expected = call(y, p)
    real_unique, sizes = np.unique, []

    def counting_unique(ar, *args, **kwargs):
        sizes.append(np.size(ar))
        return real_unique(ar, *args, **kwargs)

    monkeypatch.setattr(np, "unique", counting_unique)
    value = call(y, p)
    monkeypatch.undo()
    assert value == expected
    assert sizes.count(n) == 1, sizes


@pytest.mark.parametrize("y, p, kw, expected", [
    # scikit-learn's values, where the old class count (read before the input check)
    # raised: a one-class y_true completed to {0, 1}, a (n, 1) column of labels
    ([0, 0, 0], [0.1, 0.2, 0.3], {"multi_class": "ovr"}, "nan"),
    ([[0], [1], [0], [1]], [0.1, 0.2, 0.3, 0.9], {"multi_class": "ovr"}, "sklearn"),
    ([[0], [1], [2], [1]], np.eye(3)[[0, 1, 1, 2]], {}, "sklearn"),
])
def test_the_multiclass_decision_follows_the_checked_class_set(y, p, kw, expected):
    f, sk = ((get_metric("roc_auc_ovr"), skm.roc_auc_score) if kw
             else (get_metric("average_precision"), skm.average_precision_score))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value, sk_value = f(np.asarray(y), np.asarray(p)), sk(y, p, **kw)
    if expected == "nan":
        assert np.isnan(value) and np.isnan(sk_value)
    else:
        assert value == pytest.approx(sk_value, abs=1e-12)


def test_pos_label_one_rule_at_both_sites():
    """``pos_label`` is 1 (a number, not a bool); ``None`` differs by site."""
    rng = np.random.default_rng(6)
    y = rng.integers(0, 3, 40)
    y[:3] = [0, 1, 2]
    p = rng.dirichlet(np.ones(3), 40)
    ap = get_metric("average_precision")
    # the multiclass metric: 1, 1.0, np.int64(1) and None (not given) are the default
    for ok in (1, 1.0, np.int64(1), None):
        assert ap(y, p, pos_label=ok) == ap(y, p)
    for bad in (True, 0, 2, "1"):
        with pytest.raises(ValueError, match="'pos_label' is fixed to 1"):
            ap(y, p, pos_label=bad)
    # as_metric's rule: a default 1 is dropped; True and an explicit None are kept
    for pos_label, name in [(1, "average_precision"), (1.0, "average_precision"),
                            (True, "average_precision_score(pos_label=True)"),
                            (None, "average_precision_score(pos_label=None)")]:
        scorer = skm.make_scorer(skm.average_precision_score, pos_label=pos_label,
                                 response_method="predict_proba")
        assert sigtest.metrics.as_metric(scorer).name == name
